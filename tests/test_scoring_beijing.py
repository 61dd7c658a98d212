"""Beijing scoring: the case table, the seed's worked examples, and the fast scorer against the
slow reference (tests/ref_scoring.py) on thousands of random winning hands."""
from __future__ import annotations

import json
import random

import case_tables
import pytest
from ref_scoring import random_beijing_input, ref_evaluate

from mj_env.calculator import InputError, evaluate, rules_json, settle_draw, shaozhuang_line
from mj_env.families.beijing import ORDER as BEIJING_ORDER
from mj_env.rules import get_rules

CASES = case_tables.load("beijing")
check = case_tables.check


# 推倒和 + 门清无惠 (F = 2), seat 1 self-draws, seat 0 deals
PLAIN = {"hand": "123m456p789s23s55z", "win_tile": "4s", "hui": "9p", "winner": 1, "dealer": 0}
PLAIN_OUT = {"legal": True, "fan": 2, "patterns": {"门清无惠": 1, "推倒和": 1}, "shaozhuang": 0, "scores": [-2, 6, -2, -2]}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_table(case):
    case_tables.check_case(case)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_agrees_with_case_table(case):
    check(ref_evaluate(case["input"]), case["expect"], reason=False)


def test_case_table_covers_every_pattern_both_ways():
    case_tables.check_covers(CASES, BEIJING_ORDER)


@pytest.mark.parametrize("chunk", range(8))
def test_random_hands_match_reference(chunk):
    """250 random winning hands per chunk (2,000 in all): fan, patterns, scores, legality."""
    rng = random.Random(1000 + chunk)
    legal = 0
    for _ in range(250):
        obj = random_beijing_input(rng)
        got, want = evaluate(obj), ref_evaluate(obj)
        assert got["legal"] == want["legal"], json.dumps(obj, ensure_ascii=False)
        if got["legal"]:
            legal += 1
            assert got == want, json.dumps(obj, ensure_ascii=False)
            assert sum(got["scores"]) == 0
    assert legal > 150


def test_random_hands_reach_every_pattern():
    rng = random.Random(7)
    seen = set()
    for _ in range(1500):
        out = evaluate(random_beijing_input(rng))
        seen |= set(out.get("patterns", {}))
    assert seen == set(BEIJING_ORDER)


def test_evaluate_accepts_a_ruleset_and_raises_input_error():
    obj = dict(PLAIN, rules=get_rules("beijing"))
    assert evaluate(obj) == PLAIN_OUT
    with pytest.raises(InputError, match="win_tile"):
        evaluate({"hand": "123m456p789s23s55z"})
    assert issubclass(InputError, ValueError)


# ---------------------------------------------------------------------------------------------
# Rule-set fields change the behaviour (read from the RuleSet, not from the name).

CLAIMED_DISCARD = {"hand": "456p789s23s55z", "melds": [{"type": "pong", "tiles": "111m", "from": 2}],
                   "win_tile": "4s", "hui": "9m", "winner": 1, "dealer": 0, "discarder": 3}
THREE_HUI_DISCARD = {"hand": "123m456p789s1z555z", "win_tile": "1z", "hui": "5z", "winner": 2, "dealer": 0,
                     "discarder": 0}


def test_discard_win_concealed_only_field():
    assert evaluate(CLAIMED_DISCARD)["legal"] is False
    rules = rules_json(get_rules("beijing", discard_win_concealed_only=False))
    assert rules == {"name": "beijing", "discard_win_concealed_only": False}
    out = evaluate(dict(CLAIMED_DISCARD, rules=rules))
    assert out == {"legal": True, "fan": 1, "patterns": {"推倒和": 1}, "shaozhuang": 0, "scores": [0, 1, 0, -1]}


def test_self_draw_only_hui_field():
    assert evaluate(THREE_HUI_DISCARD)["legal"] is False
    out = evaluate(dict(THREE_HUI_DISCARD, rules={"name": "beijing", "self_draw_only_hui": 0}))
    assert out["legal"] is True and out["patterns"] == {"庄": 1, "推倒和": 1}
    assert out["scores"] == [-2, 0, 2, 0]
    out = evaluate(dict(THREE_HUI_DISCARD, rules={"name": "beijing", "self_draw_only_hui": 4}))
    assert out["legal"] is True


def test_three_hui_and_a_discarded_hui_is_no_four_hui():
    """docs/RULES.md 5: a 惠牌 taken from a discard counts at face value only, and 四惠牌 is four 惠牌
    in the concealed hand at the start of the player's own turn; so three in hand plus a discarded
    fourth (allowed once self_draw_only_hui is off) is read by shape: 推倒和 1 (docs/RULES.md 6.1)."""
    obj = {"rules": {"name": "beijing", "self_draw_only_hui": 0}, "hand": "123m456p789s1z555z",
           "win_tile": "5z", "hui": "5z", "winner": 2, "dealer": 0, "discarder": 3}
    assert evaluate(obj) == {"legal": True, "fan": 1, "patterns": {"推倒和": 1}, "shaozhuang": 0,
                             "scores": [0, 0, 1, -1]}


def test_four_hui_win_field():
    four = {"hand": "123m456p789s5555z", "win_tile": "1z", "hui": "5z", "winner": 1, "dealer": 0}
    assert evaluate(four)["patterns"] == {"四惠牌": 8}
    out = evaluate(dict(four, rules={"name": "beijing", "four_hui_win": False}))
    # read by shape: 11z from a wildcard, a free meld of three wildcards
    assert out["legal"] is True and "四惠牌" not in out["patterns"]
    junk = dict(four, hand="13579m246p1s5555z", win_tile="9s")
    assert evaluate(junk)["legal"] is True
    assert evaluate(dict(junk, rules={"name": "beijing", "four_hui_win": False}))["legal"] is False


def test_shaozhuang_fields():
    obj = dict(PLAIN, shaozhuang_rounds=2)
    assert evaluate(obj)["scores"] == [-8, 8, 0, 0]
    no_shaozhuang = {"name": "beijing", "shaozhuang": False}
    out = evaluate(dict(PLAIN, rules=no_shaozhuang))
    assert out["scores"] == [-2, 6, -2, -2] and out["shaozhuang"] == 0
    with pytest.raises(InputError, match="烧庄"):
        evaluate(dict(obj, rules=no_shaozhuang))


def test_hubao_field():
    obj = dict(PLAIN, hubao=[[1, 2]])
    assert evaluate(obj)["scores"] == [0, 6, -6, 0]
    with pytest.raises(InputError, match="互包"):
        evaluate(dict(obj, rules={"name": "beijing", "hubao": False}))


def test_hui_wild_in_melds_field():
    # a pong of 7m made with one 惠牌 (5z): only when 惠牌 are wild in melds
    obj = {"hand": "123m456p11z23s", "melds": [{"type": "pong", "tiles": "77m5z", "from": 2}],
           "win_tile": "4s", "hui": "5z", "winner": 1, "dealer": 0}
    with pytest.raises(InputError, match="not a valid pong"):
        evaluate(obj)
    out = evaluate(dict(obj, rules={"name": "beijing", "hui_wild_in_melds": True}))
    assert out == {"legal": True, "fan": 1, "patterns": {"推倒和": 1}, "shaozhuang": 0, "scores": [-1, 3, -1, -1]}
    # a chi with a 惠牌 filling 8p reads as 789p and completes 一条龙 of dots (and 清一色)
    chi = {"hand": "123456p11p78p", "melds": [{"type": "chi", "tiles": "79p5z", "from": 0}],
           "win_tile": "9p", "hui": "5z", "winner": 1, "dealer": 0, "rules": {"name": "beijing", "hui_wild_in_melds": True}}
    out = evaluate(chi)
    assert out["patterns"] == {"一条龙": 3, "清一色": 6}


def test_rules_json_round_trip():
    """docs/RULES.md 6.4: the preset name unless a field that bears on the score differs; base apart."""
    assert rules_json("beijing") == "beijing"
    assert rules_json(get_rules("hebei")) == "hebei"
    assert rules_json(get_rules("beijing", base=5, multiple_winners=True)) == "beijing"
    custom = get_rules("beijing", base=5, discard_win_concealed_only=False)
    assert rules_json(custom) == {"name": "beijing", "discard_win_concealed_only": False}
    assert evaluate(dict(PLAIN, rules=rules_json(custom)))["scores"] == [-2, 6, -2, -2]
    assert evaluate(dict(PLAIN, rules=custom))["scores"] == [-10, 30, -10, -10]
    assert evaluate(dict(PLAIN, rules=custom, base=2))["scores"] == [-4, 12, -4, -4]


# ---------------------------------------------------------------------------------------------
# Drawn hands and the 烧庄 line.


def test_shaozhuang_line():
    assert [shaozhuang_line(r) for r in range(6)] == [0, 1, 2, 4, 8, 16]


@pytest.mark.parametrize("rounds,dealer,base,scores", [
    (0, 0, 1, [0, 0, 0, 0]),
    (1, 0, 1, [-3, 1, 1, 1]),
    (2, 2, 1, [2, 2, -6, 2]),
    (3, 1, 500, [2000, -6000, 2000, 2000]),
])
def test_settle_draw(rounds, dealer, base, scores):
    out = settle_draw("beijing", dealer, rounds, base)
    assert out == {"draw": True, "shaozhuang": shaozhuang_line(rounds), "scores": scores}


def test_settle_draw_fields():
    assert settle_draw(get_rules("beijing", shaozhuang_on_draw=False), 0, 3)["scores"] == [0, 0, 0, 0]
    assert settle_draw(get_rules("beijing", base=7), 0, 1)["scores"] == [-21, 7, 7, 7]
    assert settle_draw("hebei", 1, 0) == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}
    with pytest.raises(ValueError, match="dealer"):
        settle_draw("beijing", 4, 1)


def test_only_wait_ignores_a_kind_held_four_times():
    """docs/game_flow.md, scoring readings: 4m666m123p789p waits on 4m and 5m at face value; with a pong
    of 4m the hand and melds hold all four 4m, so 5m is its only winning tile (捉五魁 / 捉五). With a
    pong of another kind 4m can still come, and neither pattern scores."""
    line = {"hand": "4m666m123p789p", "win_tile": "5m", "hui": "9s", "winner": 1, "dealer": 0,
            "melds": [{"type": "pong", "tiles": "444m", "from": 2}]}
    other = dict(line, melds=[{"type": "pong", "tiles": "111z", "from": 2}])
    assert evaluate(line)["patterns"] == {"捉五魁": 2}
    assert evaluate(other)["patterns"] == {"推倒和": 1}
    hebei = {"rules": "hebei", "hui": None}
    assert evaluate(dict(line, **hebei))["patterns"] == {"捉五": 5}
    assert "捉五" not in evaluate(dict(other, **hebei))["patterns"]


def test_only_wait_counts_the_hands_own_hui_among_the_four_held():
    """docs/game_flow.md (scoring readings) and docs/RULES.md 6.1 捉五魁: a kind of which the hand and its
    melds hold all four tiles cannot come. 46m12p44s222s plus a wildcard 3p (the 惠牌 kind), with a pong of
    333p: at face value 5m (the wildcard as 3p) and 3p (the wildcard as 5m) complete it, but the 3p in hand
    is the fourth 3p, a 惠牌 tile still, so 5m is the only winning tile: 捉五魁 2 (claimed, 惠牌 held: no
    门清无惠; a non-dealer's self-draw: no 庄)."""
    line = {"hand": "46m123p44s222s", "melds": [{"type": "pong", "tiles": "333p", "from": 2}],
            "win_tile": "5m", "hui": "3p", "winner": 1, "dealer": 0}
    assert evaluate(line) == {"legal": True, "fan": 2, "patterns": {"捉五魁": 2}, "shaozhuang": 0,
                              "scores": [-2, 6, -2, -2]}


@pytest.mark.parametrize("dealer, winner, discarder, dihe", [
    (0, 1, 0, True), (0, 3, 2, True), (2, 1, 3, True), (2, 1, 0, True),  # the discarder played before the winner
    (0, 1, 2, False), (0, 1, 3, False), (2, 3, 0, False), (2, 0, 1, False)])  # ... or after: the winner discarded
def test_dihe_on_a_discard_needs_the_discarder_to_play_before_the_winner(dealer, winner, discarder, dihe):
    """地和 is a win before the winner's first discard: a discard from a seat that plays after the winner (from
    the dealer) comes after it, so ``first_turn`` beside such a discard scores no 地和."""
    out = evaluate({"hand": "555z234p567s789s1m", "win_tile": "1m", "winner": winner, "dealer": dealer,
                    "discarder": discarder, "situation": {"first_turn": True}})
    assert ("地和" in out["patterns"]) is dihe
    assert ("推倒和" in out["patterns"]) is not dihe
