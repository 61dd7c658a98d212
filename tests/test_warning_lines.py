"""A ``RulesMismatchWarning`` names the user's line, not one inside the library, whichever public call brought
the mismatched agent in (the single-agent envs' forms are in tests/test_single_agent_mutants.py). Before,
``compare(..., agents=...)`` named a line of agents/arena.py and ``make_agent``/``load_agents`` of a checkpoint
one of agents/__init__.py. Where a ``CheckpointWarning`` points (the checkpoint's file on the command lines, the
caller's line from Python): tests/test_warning_locations.py."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from agents import make_agent
from agents.arena import compare, load_agents, play_duplicate
from agents.base import RulesMismatchWarning
from agents.networks import NetworkAgent
from agents.pretrained import DATA
from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent
from mj_env.messages import user_stacklevel
from mj_env.single_agent import MahjongSingleAgentEnv

CHECKPOINT = str(DATA / "pretrained_beijing.pt")

CALLS = {
    "play_duplicate": lambda: play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules="quemen"),
    "compare": lambda: compare(["mine", "rule"], 1, seed=0, rules="hebei", agents=[RandomAgent(), EfficientAgent()]),
    "make_agent": lambda: make_agent(CHECKPOINT, rules="quemen"),
    "load_agents": lambda: load_agents([CHECKPOINT], rules="quemen"),
    "from_checkpoint": lambda: NetworkAgent.from_checkpoint(CHECKPOINT, rules="quemen"),
    "single_agent_env": lambda: MahjongSingleAgentEnv(rules="quemen", opponents=[RuleBasedAgent()] * 3),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_rules_mismatch_warning_names_the_callers_line(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CALLS[call]()
    mismatch = [w for w in caught if issubclass(w.category, RulesMismatchWarning)]
    assert mismatch, f"{call}: no RulesMismatchWarning"
    # the lambda's own line: a warning one frame further out (this test, in the same file) would be wrong too
    assert {(w.filename, w.lineno) for w in mismatch} == {(__file__, CALLS[call].__code__.co_firstlineno)}


def _inner(modules):
    return user_stacklevel(*modules)


def test_user_stacklevel_counts_the_frames_inside_the_given_modules():
    """Called from a frame outside every folder given, it is 1 (the caller's own line); each frame of the
    caller's stack inside a given folder adds one. (This test file's folder stands in for the library.)"""
    import sys

    here = sys.modules[__name__]
    assert _inner(()) == 1
    assert _inner((warnings,)) == 1  # the standard library's folder: not on this stack
    # _inner and this test are both in tests/: the walk passes both, then pytest's frame (outside) ends it
    assert _inner((here,)) == 3


# --------------------------------------------------------------------------- opponents set through Stable-Baselines3's vector wrappers


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


# --------------------------------------------------------------------------- a checkpoint that warns (tests/test_warning_locations.py)


def _checkpoint_with_a_key_beside_its_format(tmp_path):
    torch = pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.pretrained import pretrained_path

    payload = torch.load(pretrained_path("beijing"), weights_only=True)
    payload["normalizer"] = 1
    torch.save(payload, tmp_path / "later.pt")
    return tmp_path / "later.pt"
