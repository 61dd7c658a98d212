"""Gaps found by a second mutation round on the rule agent's logic and the agent factories (seed 5401; 150 mutants
of mj_env/baselines.py lines 324-608: the discard keys, ``connectedness``, ``RuleBasedAgent``, ``EfficientAgent``,
``make_baseline`` and ``make_named_agent``), run against the agents' own tests. The first round is
tests/test_rule_agent_mutants.py. Every mutant of the agents' decisions that changed a choice was already caught;
the six gaps left were all in the factories, and each test below pins a promise of their docstrings, naming the
mutant (line and change of mj_env/baselines.py) it catches. The other 14 survivors change nothing a caller can see
(the commit message gives each one's reason)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from mj_env import baselines as B
from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent, make_baseline, make_named_agent


def test_make_baseline_refuses_a_misspelt_rule_set_for_every_name_and_an_unknown_name():
    """``make_baseline``: "``rules`` is checked for every name, so that a misspelt rule set is refused for
    ``"random"`` (which plays the same under any rules) as it is for the others", and a name that is no baseline is
    a ValueError naming the baselines. Kills line 562's ``get_rules(rules)`` removed (a RandomAgent came back) and
    line 568's ``raise`` removed (None came back)."""
    for name in B.BASELINES:
        with pytest.raises(ValueError, match="beijnig"):
            make_baseline(name, "beijnig")
    assert isinstance(make_baseline("random", "quemen"), RandomAgent)
    with pytest.raises(ValueError, match=r"^unknown baseline 'rulez': use one of random, rule, efficient$"):
        make_baseline("rulez")


@pytest.mark.parametrize(("name", "kind"), [("random", RandomAgent), ("rule", RuleBasedAgent),
                                            ("efficient", EfficientAgent)])
def test_make_named_agent_makes_each_baseline_for_the_rules_given(name, kind):
    """``make_named_agent``: "A baseline (``random``, ``rule``, ``efficient``) or an agent that an installed
    package names": a baseline's name gives that baseline, built for the rules given (the single-agent env's
    ``opponents`` are made so). Kills line 598's ``return make_baseline(spec, rules)`` made ``return None``."""
    agent = make_named_agent(name, "quemen")
    assert type(agent) is kind
    if kind is not RandomAgent:
        assert agent.rules.name == "quemen"


def _needs_a_missing_module(spec, rules="beijing"):
    import a_module_not_installed_here  # noqa: F401  (the declaring package's own dependency, missing)


def test_make_named_agent_shows_a_long_name_by_its_first_40_characters(monkeypatch):
    """``make_named_agent``'s errors name the agent asked for, cut as the other agent messages of
    mj_env/baselines.py cut a name (``brief``'s 40 characters), so that a long name does not drown the message:
    an unknown name, and a declared name whose package needs a module that is missing. Kills line 607 cutting at
    39 or 41 and line 604 cutting at 39."""
    long = "x" * 39 + "yz"
    with pytest.raises(ValueError, match=rf"^unknown agent '{'x' * 39}y': use one of random, rule, efficient"):
        make_named_agent(long)
    real = B.entry_points
    needy = SimpleNamespace(name="needy", value="theirpkg.agents:factory", load=lambda: _needs_a_missing_module)
    monkeypatch.setattr(B, "entry_points", lambda group: [*real(group=group), needy])
    spec = "needy:" + "x" * 33 + "yz"
    with pytest.raises(ValueError, match=rf"^agent 'needy:{'x' * 33}y' comes from theirpkg\.agents:factory, which "
                                         "needs a_module_not_installed_here: install what that package needs$"):
        make_named_agent(spec)
