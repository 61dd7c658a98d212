"""Review of session 27's change (a387fe8..dec0bd7): what its tests left open."""
from __future__ import annotations

import warnings

import pytest

from agents.base import RulesMismatchWarning
from mj_env.baselines import RuleBasedAgent
from mj_env.single_agent import MahjongSingleAgentEnv


def _mismatch_lines(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found = {(w.filename, w.lineno) for w in caught if issubclass(w.category, RulesMismatchWarning)}
    assert found, "no RulesMismatchWarning"
    return found


def test_an_opponent_set_through_stable_baselines3s_vec_env_wrappers_names_the_users_line():
    """README: on SB3's vectors of one-table envs opponents come in by ``env_method("set_opponents", ...)``, and on
    mj_env.sb3's vector (wrapped in SB3's VecMonitor, as its docstring shows) by ``set_attr("opponents", ...)``.
    The warning named a line of stable_baselines3/common/vec_env/ (the walk skipped only mj_env and Gymnasium)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from mj_env.sb3 import MahjongSB3VecEnv

    quemen_rule = [RuleBasedAgent()] * 3  # built for beijing
    monitored = VecMonitor(MahjongSB3VecEnv(num_envs=2, rules="quemen"))
    assert {f for f, _ in _mismatch_lines(lambda: monitored.set_attr("opponents", quemen_rule))} == {__file__}
    assert {f for f, _ in _mismatch_lines(lambda: monitored.env_method("set_opponents", quemen_rule))} == {__file__}
    dummy = DummyVecEnv([lambda: MahjongSingleAgentEnv(rules="quemen")])
    assert {f for f, _ in _mismatch_lines(lambda: dummy.env_method("set_opponents", quemen_rule))} == {__file__}
