"""Gaps in the single-agent envs' tests found by a mutation round of ``mj_env/single_agent.py`` (round 6: the
opponent checks, ``_one_info``, ``checked_seat``, ``set_opponents``, ``_undoable``, the constructors; each test
fails under the mutant it names and passes on the code)."""
from __future__ import annotations

import warnings

from mj_env.baselines import RuleBasedAgent, RulesMismatchWarning
from mj_env.single_agent import MahjongSingleAgentVectorEnv


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
