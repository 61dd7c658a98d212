"""Hebei scoring: the case table (every bonus pattern, every win type of the base-score table,
the discard-bonus decision), kong payments, and random hands against the plain reference scorer
(tests/ref_scoring.py, written from docs/RULES.md 6.2): legality, fan, patterns and scores."""
from __future__ import annotations

import json
import random
from collections import Counter

import case_tables
import pytest
from ref_scoring import HEBEI_ORDER, random_plain_input, ref_evaluate_hebei

from mj_env.calculator import evaluate, kong_payments, settle_draw
from mj_env.rules import get_rules

CASES = case_tables.load("hebei")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_table(case):
    case_tables.check_case(case)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_agrees_with_case_table(case):
    case_tables.check(ref_evaluate_hebei(case["input"]), case["expect"], reason=False)


def test_case_table_covers_every_pattern_both_ways():
    case_tables.check_covers(CASES, HEBEI_ORDER)


def test_case_table_covers_every_win_type():
    """Dealer / non-dealer, self-draw / discard by the dealer / by a non-dealer, X = 0 and X > 0."""
    kinds = set()
    for c in CASES:
        i, e = c["input"], c["expect"]
        if e["legal"]:
            kinds.add(win_type(i, e["fan"]))
    assert {("dealer", "self", True), ("other", "self", True), ("dealer", "other", False),
            ("other", "dealer", False), ("other", "other", False), ("other", "other", True),
            ("dealer", "other", True)} <= kinds


def win_type(obj: dict, fan: int) -> tuple:
    who = "dealer" if obj["winner"] == obj["dealer"] else "other"
    discarder = obj.get("discarder")
    how = "self" if discarder is None else ("dealer" if discarder == obj["dealer"] else "other")
    return who, how, fan > 0


def test_catch_five_needs_no_fifth_copy():
    """捉五: 4444m666m + 5m also completes with a fifth 4m, which cannot come: 5m is the only
    winning tile that can (the reading docs/RULES.md 6.4 takes for 报听's wait, and the beijing
    reference's for 捉五魁)."""
    obj = {"rules": "hebei", "hand": "4444666m222777s", "win_tile": "5m", "winner": 0, "dealer": 0}
    want = {"legal": True, "fan": 7, "patterns": {"门清": 2, "捉五": 5}, "shaozhuang": 0, "scores": [33, -11, -11, -11]}
    assert evaluate(obj) == want == ref_evaluate_hebei(obj)


N_RANDOM = 3000


def test_random_hands_match_reference():
    """3,000 random hands (tests/ref_scoring.random_plain_input, some with the rules' object
    form): the whole output against the reference. Every bonus pattern, every win type and
    non-winning hands must occur, so the comparison cannot pass on trivial hands alone."""
    rng = random.Random(3)
    seen, kinds, legal = Counter(), set(), Counter()
    for _ in range(N_RANDOM):
        obj = random_plain_input(rng, "hebei")
        if rng.random() < 0.1:
            obj["rules"] = {"name": "hebei", "discard_bonus_all_pay": rng.random() < 0.5,
                            "orphans_extra_dragon": rng.random() < 0.5}
        ties = []
        got, want = evaluate(obj), ref_evaluate_hebei(obj, ties)
        line = json.dumps(obj, ensure_ascii=False)
        assert got["legal"] == want["legal"], line
        legal[got["legal"]] += 1
        if not got["legal"]:
            continue
        if len(ties) > 1:  # equal bonus fan read two ways: docs/RULES.md leaves the choice open
            assert got["patterns"] in ties and got["fan"] == want["fan"] and got["scores"] == want["scores"], line
        else:
            assert got == want, line
        assert sum(got["scores"]) == 0
        seen.update(got["patterns"].keys())
        kinds.add(win_type(obj, got["fan"]))
    missing = [name for name in HEBEI_ORDER if not seen[name]]
    assert not missing, (missing, seen)
    assert len(kinds) == 10, kinds  # (dealer: self / discard, other: self / by dealer / by other) x X > 0
    assert legal[True] > N_RANDOM // 2 and legal[False] > N_RANDOM // 20, legal


# ---------------------------------------------------------------------------------------------
# Kong payments (docs/RULES.md 6.2): exposed 3 from the discarder, added 1 and concealed 2 from each.


@pytest.mark.parametrize("kongs,scores", [
    ([(0, "exposed", 2)], [3, 0, -3, 0]),
    ([(1, "added", None)], [-1, 3, -1, -1]),
    ([(3, "concealed", None)], [-2, -2, -2, 6]),
    ([(0, "kong", 2), (1, "added_kong", None), (3, "concealed_kong", None)], [0, 1, -6, 5]),
    ([], [0, 0, 0, 0]),
])
def test_kong_payments_hebei(kongs, scores):
    assert kong_payments("hebei", kongs) == scores
    assert kong_payments("hebei", kongs, base=10) == [10 * s for s in scores]
    assert kong_payments(get_rules("hebei", base=3), kongs) == [3 * s for s in scores]
    assert kong_payments("hebei", kongs, drawn=True) == [0, 0, 0, 0]  # void in a drawn hand


@pytest.mark.parametrize("kongs,words", [
    ([(4, "added", None)], "seat 0-3"),
    ([(0, "hidden", None)], "unknown kong type"),
    ([(0, "exposed", None)], "from_seat must be a seat"),
    ([(0, "exposed", 0)], "from another seat"),
    ([(0, "added")], "(seat, type, from_seat_or_None)"),
])
def test_kong_payments_errors(kongs, words):
    with pytest.raises(ValueError) as e:
        kong_payments("hebei", kongs)
    assert words in str(e.value)


def test_beijing_has_no_kong_payments_and_hebei_no_shaozhuang():
    assert kong_payments("beijing", [(0, "exposed", 2), (1, "concealed", None)]) == [0, 0, 0, 0]
    assert settle_draw("hebei", 2, 0) == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}


def test_rules_without_kong_payments_pay_no_kongs():
    """The hebei kong table (docs/RULES.md 6.2) is paid under the rule field ``kong_payments``; with it off, the
    same kongs pay nothing, won or drawn (mj_env.payments.kong_payments: rules without it pay nothing)."""
    rules = get_rules("hebei", kong_payments=False)
    kongs = [(0, "exposed", 2), (1, "added", None), (3, "concealed", None)]
    assert kong_payments(rules, kongs) == [0, 0, 0, 0]
    assert kong_payments(rules, kongs, drawn=True) == [0, 0, 0, 0]
