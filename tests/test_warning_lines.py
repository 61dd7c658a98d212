"""A ``RulesMismatchWarning`` names the user's line, not one inside the library, whichever public call brought
the mismatched agent in (the single-agent envs' forms are in tests/test_single_agent_mutants_6.py). Before,
``compare(..., agents=...)`` named a line of agents/arena.py and ``make_agent``/``load_agents`` of a checkpoint
one of agents/__init__.py."""
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
