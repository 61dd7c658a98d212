"""Mutation passes over ``mj_env.patterns`` and ``mj_env.families`` (the fan patterns and the fan tables): the rules
that the scoring tables and the reference comparisons left unpinned, each from docs/RULES.md. The first pass covered
both modules; the second, ``mj_env.patterns``'s constants: which kinds a group made only of wildcards may stand for
(``_FREE_SEQS``, ``FREE_PAIR``) and which suits make a one-suit hand (``ONE_SUIT``, ``ONE_SUIT_AND_HONORS``), pinned
through the calculator's public interface."""
from __future__ import annotations

import pytest

from mj_env.calculator import evaluate


def test_a_pong_leaves_its_fourth_tile_a_wait_so_no_catch_five():
    """docs/RULES.md 6.1 line 153 (捉五魁): "5m was the hand's only winning tile: no other tile kind, taken at face value, would have
    completed the hand". 3445677m + 5m reads 345m 456m 77m, but 2m also completes it (234m 456m 77m); the pong 222m
    holds three 2m, so one is still to come and 5m is not the only winning tile. A meld's tile is counted once (mutant:
    the pong's tiles counted twice made 2m look used up and scored 捉五魁)."""
    line = {"hand": "3445677m222s", "win_tile": "5m", "hui": "9p", "winner": 1, "dealer": 0,
            "melds": [{"type": "pong", "tiles": "222m", "from": 3}]}
    assert evaluate(line) == {"legal": True, "fan": 1, "patterns": {"推倒和": 1}, "shaozhuang": 0,
                              "scores": [-1, 3, -1, -1]}
    # the same hand with the fourth 2m gone into a kong: 2m can no longer come, 5m is the only wait
    kong = dict(line, melds=[{"type": "kong", "tiles": "2222m", "from": 3}])
    assert evaluate(kong)["patterns"] == {"捉五魁": 2}


def test_each_familys_bound_covers_its_largest_settlement():
    """``Family.max_points_per_base`` bounds one win's |score| per base for its own family (the calculator takes the
    largest, beijing's, so a family's own bound going short was unseen). The worst cases, with every pattern at its
    most (F = the family's max_fan): docs/RULES.md 6.1 lines 164-178: a self-draw is 3F, a winner bound by 互包 to all three
    others gets 3F from each (9F), 烧庄 adds L to a non-dealer and takes 3L from the dealer (a dealer paying a self-draw
    pays 3F + 3L when bound to the winner); docs/RULES.md 6.2 lines 197 and 210: the dealer self-draws, each other pays 4 + X;
    docs/RULES.md 6.3 lines 225-228: a self-draw after 报听, each of three pays the doubled total."""
    from mj_env.families import FAMILIES

    beijing, hebei, quemen = FAMILIES["beijing"], FAMILIES["hebei"], FAMILIES["quemen"]
    f = beijing.max_fan
    for line in (0, 1, 2, 100, 2 ** 20):
        assert beijing.max_points_per_base(line) >= max(9 * f + line, 3 * f + 3 * line), line
    assert hebei.max_points_per_base(0) >= 3 * (4 + hebei.max_fan)
    assert quemen.max_points_per_base(0) >= 3 * 2 * quemen.max_fan


# ------------------------------------------------------------------------- second pass: mj_env.patterns' constants
SUITS = "mps"


@pytest.mark.parametrize("suit", range(3))
@pytest.mark.parametrize("part", range(3))
def test_three_wildcards_alone_stand_for_any_part_of_a_dragon(suit, part):
    """docs/RULES.md 6 line 138: "where a hand can be read in several ways (wildcards, ...), the reading that scores most is
    the one scored"; 6.1 line 155: 一条龙 3 is "123, 456 and 789 of one suit as three sequences". Three 惠牌 (7z) with
    no natural tile beside them must be readable as whichever of 123 / 456 / 789 the dragon lacks, in each suit
    (mutants: 456m or 456p left out of the sequences a wildcards-only meld may stand for)."""
    other = SUITS[(suit + 1) % 3]
    dragon = "".join(f"{3 * q + 1}{3 * q + 2}{3 * q + 3}" for q in range(3) if q != part)
    line = {"hand": f"{dragon}{SUITS[suit]}222{other}8{other}777z", "win_tile": f"8{other}", "hui": "7z",
            "winner": 1, "dealer": 0}
    assert evaluate(line) == {"legal": True, "fan": 3, "patterns": {"一条龙": 3}, "shaozhuang": 0,
                              "scores": [-3, 9, -3, -3]}


def test_two_wildcards_alone_are_the_pair_not_a_sequence():
    """docs/RULES.md 6.1 line 155: 一条龙 needs 123, 456 and 789 "as three sequences of the scored shape", and a standard
    shape is four melds and one pair: 123456m 222p 555s with two 惠牌 (7z) as the pair holds only 123m and 456m, so it
    is 推倒和 1 (line 148), not 一条龙 (mutant: a group of two wildcards given the label of a three-tile one was read
    as the 789m sequence)."""
    line = {"hand": "123456m222p55s77z", "win_tile": "5s", "hui": "7z", "winner": 1, "dealer": 0}
    assert evaluate(line) == {"legal": True, "fan": 1, "patterns": {"推倒和": 1}, "shaozhuang": 0,
                              "scores": [-1, 3, -1, -1]}


@pytest.mark.parametrize("suit", range(3))
def test_hebei_one_suit_and_one_suit_with_honors_in_each_suit(suit):
    """docs/RULES.md 6.2 line 204-205: 清一色 3 "(one suit, no honors)", 混一色 2 "(one suit plus honors)", in whichever
    suit (mutants: one of the three suits missing from, or honors added to, the one-suit tables). No wildcards here:
    the hebei preset has none. Win on a non-dealer's discard: base 5 (line 198), X > 0 so the two others pay X."""
    s = SUITS[suit]
    pure = {"rules": "hebei", "hand": f"1112345678999{s}", "win_tile": f"5{s}", "winner": 1, "dealer": 0,
            "discarder": 2}
    got = evaluate(pure)
    assert got["patterns"].get("清一色") == 3 and "混一色" not in got["patterns"] and "清风" not in got["patterns"]
    mixed = dict(pure, hand=f"111234567{s}1112z", win_tile="2z")
    got = evaluate(mixed)
    assert got["patterns"].get("混一色") == 2 and "清一色" not in got["patterns"] and "清风" not in got["patterns"]


def test_hebei_honors_only_is_qingfeng_not_one_suit():
    """docs/RULES.md 6.2 line 205: 清风 3 "(honors only)" is neither 清一色 "(one suit, no honors)" nor 混一色 "(one suit plus
    honors)": honors are no suit (mutant: the honors counted as a fourth suit of the 清一色 table)."""
    line = {"rules": "hebei", "hand": "1112223334445z", "win_tile": "5z", "winner": 1, "dealer": 0, "discarder": 2}
    got = evaluate(line)
    assert got["patterns"].get("清风") == 3 and "清一色" not in got["patterns"] and "混一色" not in got["patterns"]


@pytest.mark.parametrize("suit", range(3))
def test_quemen_one_suit_and_one_suit_with_honors_in_each_suit(suit):
    """docs/RULES.md 6.3 line 222-223: 清一色 3 and 混一色 1 are shape patterns "one of" the list; a one-suit hand without
    honors is 清一色, with honors 混一色, in each suit; seven pairs of one suit add 清一色 to 七对."""
    s = SUITS[suit]
    pure = {"rules": "quemen", "hand": f"1112345678999{s}", "win_tile": f"5{s}", "winner": 1, "dealer": 0,
            "discarder": 2}
    assert evaluate(pure)["patterns"] == {"清一色": 3}
    assert evaluate(dict(pure, hand=f"111234567{s}1112z", win_tile="2z"))["patterns"] == {"混一色": 1}
    pairs = dict(pure, hand=f"1122335577994{s}", win_tile=f"4{s}")
    assert evaluate(pairs)["patterns"] == {"七对": 2, "清一色": 3}
