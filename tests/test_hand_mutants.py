"""The third mutation round on mj_env/hand.py (rounds 1 and 2 are in tests/test_legal_hand_wall_mutants.py): each
test below fails under a small wrong change to hand.py that the rest of the suite let through, and states the rule
(docs/RULES.md 5, or the documented contract of the function) that the change breaks."""
from __future__ import annotations

import numpy as np
import pytest
import ref_hand as ref

from mj_env import hand
from mj_env.rules import get_rules
from mj_env.tiles import parse_hand, parse_tiles


def _counts(text: str) -> np.ndarray:
    """Counts (34,) of compact notation, more than four copies allowed (parse_hand refuses them)."""
    return np.bincount(parse_tiles(text), minlength=34)


def test_the_keyword_defaults_are_the_documented_ones():
    """is_win, waits and tiles_to_win default to seven pairs on, thirteen orphans off and, when thirteen
    orphans is asked for, the 14th tile a dragon (docs/RULES.md 5: "plus one more of 中, 发 or 白")."""
    doubled_1m, doubled_7z = parse_hand("119m19p19s1234567z"), parse_hand("19m19p19s12345677z")
    assert not hand.is_win(doubled_1m, 0, thirteen_orphans=True)
    assert hand.is_win(doubled_1m, 0, thirteen_orphans=True, extra_dragon=False)
    lone = parse_hand("19m19p19s1234567z")
    assert np.flatnonzero(hand.waits(lone, 0, thirteen_orphans=True)).tolist() == [31, 32, 33]
    assert hand.orphans_need(doubled_1m) == hand.IMPOSSIBLE
    assert hand.orphans_need(doubled_1m, extra_dragon=False) == 0
    assert hand.tiles_to_win(parse_hand("1122m3344p5566s77z"), 0) == 0   # seven pairs on by default
    assert hand.tiles_to_win(doubled_7z, 0) > 0                    # thirteen orphans off by default
    assert hand.tiles_to_win(doubled_7z, 0, thirteen_orphans=True) == 0
    assert hand.tiles_to_win(doubled_1m, 0, thirteen_orphans=True) == 1
    assert hand.tiles_to_win(doubled_1m, 0, thirteen_orphans=True, extra_dragon=False) == 0


def test_counts_above_four_keep_honors_without_sequences_and_pairs_by_parity():
    """A hand with a count above four takes the general path (hand.py: "Counts above 4 are allowed");
    there as in the tables, honors form no sequence (docs/RULES.md 5) and seven pairs counts odd kinds (five
    1m and a wildcard are three pairs)."""
    honors = _counts("11111m456m123z")  # 111m 11m 456m, and 1z 2z 3z, which is no meld
    assert not hand.is_win(honors, 0) and not ref.is_win(honors.tolist(), 0)
    assert hand.standard_need(honors) == ref.standard_need(honors.tolist()) == 6
    pairs = _counts("11111m22p55s88s33z")  # + one wildcard: 1m1m x3, 2p2p 5s5s 8s8s 3z3z
    assert hand.is_win(pairs, 1) and ref.is_win(pairs.tolist(), 1)
    assert not hand.is_win(pairs, 1, seven_pairs=False)


def test_tiles_to_win_refuses_more_than_fourteen_tiles():
    """tiles_to_win is defined for 3k+1 or 3k+2 tiles, at most 14 (its docstring); 16 and 17 tiles are
    refused with that message, not indexed past the meld tables."""
    for text in ("111222333444555m6m", "111222333444555m67m"):
        with pytest.raises(ValueError, match="at most 14"):
            hand.tiles_to_win(parse_hand(text), 0)


def test_waits_of_counts_above_four_name_the_hand_with_the_negative_count():
    """A negative count is refused naming its kind and its hand in the caller's batch, also on the path
    waits takes for counts outside 0-4 (which checks every extended hand)."""
    neg = np.zeros((2, 34), np.int8)
    neg[1, 5] = -1
    with pytest.raises(ValueError, match=r"of kind 5 in hand 1$"):
        hand.waits(neg, 0)


def test_split_hui_and_hand_distance_take_nested_lists():
    """counts "(..., 34)" may be any array-like, as for the other hand functions."""
    counts = [parse_hand("123m456p789s11z22z").tolist(), parse_hand("19m19p19s1234567z").tolist()]
    nat, wild = hand.split_hui(counts, [27, -1])  # 1z the 惠牌 of the first hand
    assert nat.tolist() == [counts[0][:27] + [0] + counts[0][28:], counts[1]] and wild.tolist() == [2, 0]
    for preset in ("beijing", "quemen"):
        rules = get_rules(preset)
        assert hand.hand_distance(rules, counts, -1).tolist() == \
            hand.hand_distance(rules, np.array(counts), -1).tolist()


def test_waits_of_counts_above_four_are_is_win_of_each_extended_hand():
    """``waits(c, w)[..., t] == is_win(c + e_t, w)`` (its docstring), also where a count is already above
    four (a hand from no real game, which waits checks kind by kind)."""
    counts = np.array([_counts("11111m23m456p789s"), _counts("11111m2223m555p")])
    for opts in ({}, {"seven_pairs": False}, {"thirteen_orphans": True}):
        got = hand.waits(counts, [0, 1], **opts)
        for c, w, row in zip(counts, [0, 1], got, strict=True):
            want = [bool(hand.is_win(c + np.eye(34, dtype=c.dtype)[t], w, **opts)) for t in range(34)]
            assert row.tolist() == want == ref.waits(c.tolist(), w, **opts) and any(want)


def test_one_hand_without_seven_pairs_is_no_seven_pairs_win_with_thirteen_orphans_on():
    """A rule set may allow thirteen orphans and not seven pairs (RuleSet.seven_pairs, thirteen_orphans);
    seven pairs then win in no batch size, the one- and two-hand path included."""
    sp = parse_hand("1122m3344p5566s77z")
    for batch in (sp, sp[None], np.stack([sp, sp]), np.stack([sp] * 5)):
        assert not hand.is_win(batch, 0, seven_pairs=False, thirteen_orphans=True).any()
        assert hand.is_win(batch, 0, thirteen_orphans=True).all()


def test_empty_batches_have_a_distance_of_their_own_shape():
    """An empty batch (0, 34) is a batch like any other (hand.py: counts of shape (..., 34)): no hand, no
    error, for tiles_to_win and hand_distance as for is_win and waits."""
    empty = np.zeros((0, 34), np.int8)
    assert hand.tiles_to_win(empty, 0).shape == (0,)
    for preset in ("beijing", "quemen"):
        assert hand.hand_distance(get_rules(preset), empty, np.zeros(0, int)).shape == (0,)
