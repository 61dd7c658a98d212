"""Gaps in the single-agent envs' tests found by a mutation round of ``mj_env/single_agent.py`` (round 6: the
opponent checks, ``_one_info``, ``checked_seat``, ``set_opponents``, ``_undoable``, the constructors; each test
fails under the mutant it names and passes on the code)."""
from __future__ import annotations

import warnings

import numpy as np

from mj_env.baselines import RuleBasedAgent, RulesMismatchWarning
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv


def test_the_rules_mismatch_warning_of_set_opponents_points_at_the_callers_line():
    """``set_opponents(agent)`` with an agent built for other rules warns at the line that called it (the
    ``stacklevel`` given to ``warn_rules_mismatch`` in ``_opponent``), so the user sees their own code; the
    mutant ``stacklevel=5`` blamed a frame of pytest's instead."""
    env = MahjongSingleAgentVectorEnv(1, rules="quemen")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.set_opponents(RuleBasedAgent())
    mismatch = [w for w in caught if issubclass(w.category, RulesMismatchWarning)]
    assert len(mismatch) == 1
    assert mismatch[0].filename == __file__


def test_the_one_table_envs_infos_hold_python_scalars_and_no_mask_keys():
    """The one-table env's infos are the vector form's infos of table 0: a scalar as a Python number, no
    ``_key`` masks, a key only where its mask is set (``_one_info``). The mutants that kept NumPy scalars
    (``.item()`` never taken) or let the ``_seat`` mask through (``and`` -> ``or``) went unnoticed."""
    env = MahjongSingleAgentEnv(seat=2)
    obs, info = env.reset(seed=0)
    assert info == {"seat": 2} and type(info["seat"]) is int
    _, _, terminated, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not terminated
    assert info == {"seat": 2} and type(info["seat"]) is int
