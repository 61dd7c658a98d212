"""The rule families (mj_env.families): the registry matches the rule sets, each family is
complete, and the generic code finds everything family-specific through the registry."""
from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from mj_env import families, payments
from mj_env.calculator import MAX_POINTS_PER_BASE, MAX_SHAOZHUANG_ROUNDS, evaluate
from mj_env.families import FAMILIES, KONG_TYPES, Family, fan_from_each_payer
from mj_env.rules import PRESET_NAMES, PRESETS, Scoring

MJ = Path(__file__).resolve().parent.parent / "mj_env"


def test_every_rule_set_has_its_family_and_every_family_a_rule_set():
    assert set(FAMILIES) == set(typing.get_args(Scoring)) == set(PRESET_NAMES)
    for name, family in FAMILIES.items():
        assert family.name == name == PRESETS[name].scoring
        assert isinstance(family, Family)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_family_is_complete(name):
    f = FAMILIES[name]
    assert len(f.order) == len(set(f.order)) == len(f.pattern_fan)
    assert all(type(v) is int and v > 0 for v in f.pattern_fan.values())
    assert f.max_fan == sum(f.pattern_fan.values())
    assert f.kong_table is None or set(f.kong_table) == set(KONG_TYPES)
    assert f.max_points_per_base(2 ** (MAX_SHAOZHUANG_ROUNDS - 1)) <= MAX_POINTS_PER_BASE


def test_a_family_refuses_patterns_without_a_bound_and_unknown_kong_types():
    beijing = FAMILIES["beijing"]
    with pytest.raises(ValueError, match="order and pattern_fan"):
        dataclasses.replace(beijing, order=beijing.order + ("新番",))
    with pytest.raises(ValueError, match="order and pattern_fan"):  # each pattern once in the order
        dataclasses.replace(beijing, order=beijing.order + ("庄",))
    with pytest.raises(ValueError, match="kong_table"):
        dataclasses.replace(beijing, kong_table={"exposed": 1})


def test_the_generic_modules_do_not_branch_on_a_family():
    for module in ("patterns.py", "payments.py", "calculator.py", "hand_end.py"):
        text = (MJ / module).read_text(encoding="utf-8")
        assert "scoring ==" not in text and "scoring !=" not in text, module


def test_payments_and_scoring_go_through_the_registry(monkeypatch):
    """Change one family's entry: the calculator and the kong payments follow it."""
    line = {"rules": "hebei", "hand": "123m456p789s23s55z", "win_tile": "4s", "winner": 1, "dealer": 0,
            "discarder": 2}
    before = evaluate(line)
    assert payments.kong_payments("hebei", [(0, "exposed", 2)]) == [3, 0, -3, 0]

    def flat(rules, fan, winner, dealer, discarder):
        return {s: 1 for s in range(4) if s != winner}

    hebei = FAMILIES["hebei"]
    monkeypatch.setitem(FAMILIES, "hebei", dataclasses.replace(
        hebei, hand_payments=flat, kong_table={"exposed": 7, "added": 0, "concealed": 0},
        order=("门清",) + tuple(n for n in hebei.order if n != "门清")))
    after = evaluate(line)
    assert after["fan"] == before["fan"] and after["scores"] == [-1, 3, -1, -1]
    assert payments.kong_payments("hebei", [(0, "exposed", 2)]) == [7, 0, -7, 0]
    assert families.FAMILIES is FAMILIES


@pytest.mark.parametrize("discarder,want", [(None, {1: 5, 2: 5, 3: 5}), (2, {2: 5})])
def test_fan_from_each_payer(discarder, want):
    assert fan_from_each_payer(PRESETS["beijing"], 5, 0, 1, discarder) == want
