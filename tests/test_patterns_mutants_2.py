"""Second mutation pass over ``mj_env.patterns``: the module constants that say which kinds a group made only of
wildcards may stand for (``_FREE_SEQS``, ``FREE_PAIR``) and which suits make a one-suit hand (``ONE_SUIT``,
``ONE_SUIT_AND_HONORS``), each pinned from docs/RULES.md through the calculator's public interface."""
from __future__ import annotations

import pytest

from mj_env.calculator import evaluate

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
