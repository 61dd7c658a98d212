"""Gaps in the single-agent envs' tests found by a mutation round of ``mj_env/single_agent.py`` (round 6: the
opponent checks, ``_one_info``, ``checked_seat``, ``set_opponents``, ``_undoable``, the constructors; each test
fails under the mutant it names and passes on the code)."""
from __future__ import annotations

import warnings

import numpy as np

from mj_env.baselines import RuleBasedAgent, RulesMismatchWarning
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv, checked_seat


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


def test_a_numpy_seat_is_kept_as_a_python_int():
    """``checked_seat`` takes a NumPy integer seat (0-3) and gives it back as a Python ``int`` (the env's
    ``seat_mode`` then prints, pickles and compares as the int it is); the mutant that always returned the
    argument as given kept ``np.int64``."""
    assert type(checked_seat(np.int64(2))) is int and checked_seat(np.int64(2)) == 2
    env = MahjongSingleAgentVectorEnv(1, seat=np.uint8(3))
    assert type(env.seat_mode) is int and env.seat_mode == 3
    assert checked_seat("rotate") == "rotate"


def _mismatch_file(build) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [w.filename for w in caught if issubclass(w.category, RulesMismatchWarning)]


def test_the_rules_mismatch_warning_points_at_the_users_line_however_the_opponent_came():
    """The warning names the user's own line whatever path brought the opponent in: the vector env's
    constructor, the three-spec form, the ``opponents`` setter, the one-table env and ``gym.make`` (a fixed
    stacklevel named a line inside mj_env/single_agent.py for all but a direct one-spec ``set_opponents``)."""
    import gymnasium as gym

    import mj_env  # noqa: F401 (registers the ids)

    vec = MahjongSingleAgentVectorEnv(1, rules="quemen")

    def setter():
        vec.opponents = RuleBasedAgent()

    for build in (lambda: MahjongSingleAgentVectorEnv(1, rules="quemen", opponents=RuleBasedAgent()),
                  lambda: vec.set_opponents([RuleBasedAgent(), "rule", "random"]),
                  setter,
                  lambda: MahjongSingleAgentEnv(rules="quemen", opponents=RuleBasedAgent()),
                  lambda: gym.make("mj_env/Quemen-v0", opponents=RuleBasedAgent())):
        assert _mismatch_file(build) == [__file__]
