"""Outside audit of the duplicate arena: what it reports can be trusted."""
from __future__ import annotations

import warnings

import pytest

from agents import RandomAgent, RuleBasedAgent
from agents.arena import compare, play_duplicate
from agents.base import RulesMismatchWarning
from mj_env.baselines import EfficientAgent


def test_an_agent_built_for_other_rules_is_warned_about():
    """``RuleBasedAgent()`` is the beijing rule agent: in a quemen run it ignores 缺一门 (it chases hands of all
    three suits) yet is reported as ``rule``. Checkpoints already warn (``RulesMismatchWarning``); agent objects
    given to ``play_duplicate`` or ``compare`` were played without a word (found by playing the beijing rule and
    efficient agents in hebei and quemen runs)."""
    with pytest.warns(RulesMismatchWarning, match=r"agents\[0\] \('rule'\) decides by the beijing rules but plays a "
                                                  r"quemen run"):
        play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules="quemen")
    with pytest.warns(RulesMismatchWarning, match=r"agents\[1\] .* hebei run"):
        compare(["mine", "rule"], 1, seed=0, rules="hebei", agents=[RandomAgent(), EfficientAgent()])


def test_agents_built_for_the_run_rules_are_not_warned_about():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        play_duplicate([RuleBasedAgent("quemen"), EfficientAgent("quemen"), RandomAgent()], 1, seed=0, rules="quemen")
        compare(["rule", "random"], 1, seed=0, rules="hebei")
        play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules="beijing")


def test_every_agent_gets_its_own_name_even_when_a_given_name_looks_suffixed():
    """A repeated name gets ``#2``...; a name given as ``a#2`` was handed out again, so two rows of the summary (a
    random and a rule agent) and their hand records both said ``a#2``."""
    res = play_duplicate([RandomAgent(), RuleBasedAgent(), RandomAgent()], 1, seed=0, labels=["a", "a#2", "a"],
                         record_hands=True)
    assert res.names == ["a", "a#2", "a#3"]
    assert {p for rec in res.records for p in rec["players"]} == {"a", "a#2", "a#3"}
    summary = compare(["x", "x", "x#2"], 1, seed=0, agents=[RandomAgent(), RandomAgent(), RuleBasedAgent()])
    assert [a["name"] for a in summary["agents"]] == ["x", "x#3", "x#2"]
