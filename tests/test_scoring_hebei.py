"""Hebei scoring: the case table (every bonus pattern, every win type of the base-score table,
the discard-bonus decision), kong payments, and random hands against the reference shape check."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import case_tables
from ref_scoring import is_win, random_beijing_input

from mj_env.fan import HEBEI_ORDER
from mj_env.rules import get_rules
from mj_env.scoring import evaluate, kong_payments, settle_draw
from mj_env.tiles import parse_tiles

CASES = case_tables.load("hebei")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_table(case):
    case_tables.check_case(case)


def test_case_table_covers_every_pattern_both_ways():
    case_tables.check_covers(CASES, HEBEI_ORDER)


def test_case_table_covers_every_win_type():
    """Dealer / non-dealer, self-draw / discard by the dealer / by a non-dealer, X = 0 and X > 0."""
    kinds = set()
    for c in CASES:
        i, e = c["input"], c["expect"]
        if e["legal"]:
            who = "dealer" if i["winner"] == i["dealer"] else "other"
            how = "self" if i.get("discarder") is None else ("dealer" if i["discarder"] == i["dealer"] else "other")
            kinds.add((who, how, e["fan"] > 0))
    assert {("dealer", "self", True), ("other", "self", True), ("dealer", "other", False),
            ("other", "dealer", False), ("other", "other", False), ("other", "other", True),
            ("dealer", "other", True)} <= kinds


def expected_scores(rules, fan, winner, dealer, discarder, base):
    """RULES.md 6.2 written out once more, seat by seat."""
    s = [0] * 4
    if discarder is None:
        for p in range(4):
            if p != winner:
                pay = (4 if winner == dealer or p == dealer else 2) + fan
                s[p] -= pay
                s[winner] += pay
    else:
        pay = 8 if winner == dealer else (6 if discarder == dealer else 5)
        s[discarder] -= pay + fan
        s[winner] += pay + fan
        if fan and rules.discard_bonus_all_pay:
            for p in range(4):
                if p not in (winner, discarder):
                    s[p] -= fan
                    s[winner] += fan
    return [v * base for v in s]


def hebei_version(obj: dict) -> dict | None:
    """The beijing random hand as a hebei input: no 惠牌, no chi, no 烧庄 / 互包."""
    if any(m["type"] == "chi" for m in obj["melds"]) or obj["hui"] is not None:
        return None
    out = {k: v for k, v in obj.items() if k not in ("hui", "shaozhuang_rounds", "hubao")}
    out["rules"] = "hebei"
    return out


def test_random_hands_shape_and_payments():
    rng = random.Random(3)
    rules = get_rules("hebei")
    n = 0
    while n < 400:
        obj = hebei_version(random_beijing_input(rng))
        if obj is None:
            continue
        n += 1
        out = evaluate(obj)
        tiles = parse_tiles(obj["hand"] + obj["win_tile"])
        c = [tiles.count(k) for k in range(34)]
        assert out["legal"] == is_win(c, len(obj["melds"])), obj  # no 十三幺 in these hands
        if out["legal"]:
            assert out["fan"] == sum(out["patterns"].values())
            assert out["scores"] == expected_scores(rules, out["fan"], obj["winner"], obj["dealer"],
                                                    obj["discarder"], obj["base"])
            assert sum(out["scores"]) == 0


# ---------------------------------------------------------------------------------------------
# Kong payments (RULES.md 6.2): exposed 3 from the discarder, added 1 and concealed 2 from each.


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
