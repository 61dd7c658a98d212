"""Second mutation round on mj_env/messages.py, mj_env/state.py and mj_env/rules.py (seeds 5701, 5702, 5703):
tests that kill sampled mutants which the rest of tests/ let through. Each docstring names the mutant. (No test
here for mj_env/state.py: each of its survivors was equivalent or killed by another file of tests/.)"""
from __future__ import annotations

import pytest

from mj_env.rules import BEIJING, RuleError, UnknownRuleField, get_rules

# twelve names whose list, joined by ", ", is longer than the 80 characters a refusal quotes of it
_MANY = [f"not_a_field_{i:02d}" for i in range(12)]
_JOINED = ", ".join(sorted(_MANY))


def test_unknown_rule_fields_are_listed_by_their_first_80_characters():
    """RuleSet.replace quotes the sorted unknown names cut to 80 characters, then names the first one.
    Kills mj_env/rules.py line 185 ``[:80]`` -> ``[:79]`` and -> ``[:81]`` (seed 5703)."""
    assert len(_JOINED) > 81
    with pytest.raises(UnknownRuleField) as err:
        BEIJING.replace(**dict.fromkeys(_MANY, 1))
    assert f"unknown rule field(s): {_JOINED[:80]} (unexpected keyword argument 'not_a_field_00')" in str(err.value)


def test_fields_given_twice_are_listed_by_their_first_80_characters():
    """get_rules refuses fields given both in the rules object and as keywords, quoting their sorted names cut to
    80 characters. Kills mj_env/rules.py line 299 ``[:80]`` -> ``[:79]`` and -> ``[:81]`` (seed 5703)."""
    with pytest.raises(RuleError) as err:
        get_rules({"name": "beijing", **dict.fromkeys(_MANY, 1)}, **dict.fromkeys(_MANY, 1))
    assert f"rule field(s) {_JOINED[:80]} given both in the rules object and as keyword arguments" in str(err.value)


@pytest.mark.parametrize("preset", ["hebei", "quemen"])
def test_an_unknown_wall_layout_is_refused_under_rules_without_hui(preset):
    """A wall layout other than 'indicator' or 'tail' is refused by name, also where no 惠牌 check (hui=True needs
    the indicator layout) would catch it. Kills mj_env/rules.py line 136, the wall_layout check deleted
    (seed 5703): get_rules('hebei', wall_layout='middle') was accepted."""
    with pytest.raises(RuleError, match="rule field 'wall_layout': must be 'indicator' or 'tail', got 'middle'"):
        get_rules(preset, wall_layout="middle")
