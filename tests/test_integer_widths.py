"""Integer widths and extreme values (audit AL): numbers that a narrow dtype would wrap are refused, not read
as other numbers.

``mj_env.hand`` adds ``wild`` to its packed uint32 fields (and casts it to int32 in ``waits`` and int16
in ``tiles_to_win``), casts ``counts`` to int8 in ``hand_distance`` / ``split_hui`` /
``hand_distance_changed``, and packs a hand's tile count into one byte: each of these wrapped silently at
its extreme (2**32 wildcards read as none, a count of 256 as 0, a hand of 275 tiles as 19). The
environments' own arrays (the engine's int8 / int16 state, the uint8 observation planes, the int64 scores
and float64 rewards) stay within their widths for every rule set ``get_rules`` accepts; the bounds are in
``mj_env.rules`` (MAX_BASE, MAX_HANDS_PER_EPISODE) and ``mj_env.calculator`` (MAX_POINTS_PER_BASE),
checked by ``tests/test_calculator_hardening.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import hand
from mj_env.rules import get_rules
from mj_env.tiles import parse_hand
from tests import ref_hand

READY_11 = "123m456m789m11p"  # three runs and a pair: a win of 11 tiles, and of 14 with three more wildcards


def test_wild_that_uint32_would_wrap_is_refused():
    """2**32 wildcards were read as none (uint32): 11 winning tiles and 2**32 wildcards, 2**32 + 11 tiles in
    all (not 3k+2), were called a win; waits cast wild to int32 as well. Both refuse it now, naming the bound;
    the bound itself is still taken and agrees with the reference."""
    c = parse_hand(READY_11)
    assert hand.is_win(c, 0) and hand.is_win(c, 3)
    for huge in (2**32, 2**32 + 3, 2**31 + 3):
        with pytest.raises(ValueError, match="MAX_WILD"):
            hand.is_win(c, np.int64(huge))
        with pytest.raises(ValueError, match="MAX_WILD"):
            hand.waits(c, np.int64(huge))
    for w in (hand.MAX_WILD - 1, hand.MAX_WILD):
        assert bool(hand.is_win(c, w)) == ref_hand.is_win(c.tolist(), w)
        assert hand.waits(c[None], [w]).tolist()[0] == ref_hand.waits(c.tolist(), w)


def test_tiles_to_win_refuses_wild_that_int16_wrapped():
    """tiles_to_win cast wild to int16: 2**16 wildcards became none, and a hand of 65,546 tiles got the answer
    0 where the function refuses more than 14 tiles."""
    c = parse_hand("123m456m789m1p")
    assert hand.tiles_to_win(c, 0) == 0
    for w in (2**16, 2**16 + 3, 2**15):
        with pytest.raises(ValueError, match="at most 14"):
            hand.tiles_to_win(c, np.int64(w))


@pytest.mark.parametrize("count", [256, 260, -252])
def test_counts_that_int8_would_wrap_are_refused(count):
    """hand_distance, split_hui and hand_distance_changed cast counts to int8: 256 of 7z was read as none
    (the hand then ready, distance 0), 260 and -252 as 4. They refuse it now, as tiles_to_win refuses any
    count outside 0-4."""
    rules = get_rules("beijing")
    counts = parse_hand("123m456p789s11z").astype(np.int64)
    counts[33] = count
    with pytest.raises(ValueError, match="whole numbers 0-4"):
        hand.hand_distance(rules, counts, -1)
    with pytest.raises(ValueError, match="whole numbers 0-4"):
        hand.split_hui(counts, 33)
    with pytest.raises(ValueError, match="whole numbers 0-4"):
        one = np.array([0])
        hand.hand_distance_changed(rules, counts[None], np.array([-1]), None, one, one, -1)
    counts[33] = 0  # the same call with a plain hand is answered
    assert hand.hand_distance(rules, counts, -1) == 0


def test_a_hand_too_big_for_the_packed_tile_byte_is_refused():
    """41 of 1z and 39 of each other honor are 91 triplets and a pair, 275 tiles: a winning shape as
    is_win's docstring reads it (standard_need 0). Its tile count overflowed the packed one-byte field
    (275 read as 19, not 3k+2), so is_win said no; counts above 4 are now taken up to MAX_EXTRA_COPIES
    copies above 4."""
    c = np.zeros(34, dtype=np.int64)
    c[27], c[28:] = 41, 39
    for f in (lambda: hand.is_win(c, 0), lambda: hand.standard_need(c), lambda: hand.waits(c, 0)):
        with pytest.raises(ValueError, match="MAX_EXTRA_COPIES"):
            f()


def test_many_copies_above_four_are_refused_at_once():
    """The slow path's reduction branches at each copy above 4: 11 of 5m took 0.3 s, 14 of 5m 7.9 s and
    nine kinds held 7 times each did not end in minutes. Beyond MAX_EXTRA_COPIES they are refused at once;
    within it (a fifth copy, or 8 of one kind) the answer is the reference's."""
    c = np.zeros(34, dtype=np.int64)
    c[4] = 11
    with pytest.raises(ValueError, match="holds 7"):
        hand.is_win(c, 1)
    assert hand.MAX_EXTRA_COPIES == 4
    c[4] = 4 + hand.MAX_EXTRA_COPIES
    for w in range(3):
        assert bool(hand.is_win(c, w)) == ref_hand.is_win(c.tolist(), w)
    c[4] = 4 + hand.MAX_EXTRA_COPIES - 1  # waits adds one more: still within the bound
    assert hand.waits(c[None], [1]).tolist()[0] == ref_hand.waits(c.tolist(), 1)
    c[4] = 4 + hand.MAX_EXTRA_COPIES
    with pytest.raises(ValueError, match="the tile waits adds"):
        hand.waits(c, 1)


def test_a_float_count_no_int8_holds_is_refused_without_numpys_cast_warning():
    # (hand_distance of float counts 2**63 or NaN: NumPy's "invalid value encountered in cast" RuntimeWarning
    # came before the ValueError that refuses them)
    import warnings

    from mj_env.hand import _int8_counts
    for value in (2.0**63, float("nan"), 1e300):
        counts = np.zeros((2, 34))
        counts[1, 3] = value
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match=r"counts must be whole numbers 0-4, got .* at index \(1, 3\)"):
                _int8_counts(counts)
