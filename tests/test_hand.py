"""mj_env.hand and mj_env.tables: table cases, the plain reference (tests/ref_hand.py) on many
seeded near-win hands, and the riichi ``mahjong`` package without wildcards."""
from __future__ import annotations

import os
import time

import numpy as np
import pytest
import ref_hand as ref

from mj_env import hand, tables
from mj_env.rules import BEIJING, HEBEI, QUEMEN
from mj_env.tiles import CODES, format_hand, parse_hand, parse_tiles

# --------------------------------------------------------------------------- hand generation

SEQ_STARTS = [9 * s + i for s in range(3) for i in range(7)]
ORPHANS = list(ref.ORPHANS)


def _shape_tiles(rng, n: int) -> list[int]:
    """n = 3m+2 tiles that form a winning shape (ignoring the four-copy limit)."""
    r = rng.random()
    if n == 14 and r < 0.12:  # seven pairs, kinds may repeat (a four is two pairs)
        return list(np.repeat(rng.integers(0, 34, 7), 2))
    if n == 14 and r < 0.18:
        return ORPHANS + [int(rng.choice(ORPHANS))]
    if r < 0.26:  # junk: any tiles of a real set
        return list(rng.choice(136, n, replace=False) // 4)
    tiles = []
    for _ in range((n - 2) // 3):
        if rng.random() < 0.45:
            tiles += [int(rng.integers(34))] * 3
        else:
            s = SEQ_STARTS[rng.integers(len(SEQ_STARTS))]
            tiles += [s, s + 1, s + 2]
    return tiles + [int(rng.integers(34))] * 2


def make_hand(rng, size: int, wild: int) -> tuple[np.ndarray, int]:
    """Natural counts (34,) and a wildcard count, ``size`` tiles in all, often close to a win.

    Built from a winning shape of 3m+2 tiles: copies beyond four become wildcards first (a
    wildcard standing for a fifth copy), then random tiles; a 3k+1 hand loses one natural tile,
    a 3k hand gains one;
    some hands are then perturbed by swapping one or two natural tiles for random ones.
    """
    wild = min(wild, size - 1 if size % 3 == 0 else size)  # a 3k hand gains a natural tile
    target = size + [-1, 1, 0][size % 3]
    while True:
        counts = np.bincount(_shape_tiles(rng, target), minlength=34)
        excess = np.maximum(counts - 4, 0)
        if excess.sum() > wild:
            continue
        counts -= excess
        for _ in range(wild - excess.sum()):
            counts[rng.choice(np.flatnonzero(counts))] -= 1
        if size % 3 == 1:
            if not counts.any():
                continue
            counts[rng.choice(np.flatnonzero(counts))] -= 1
        elif size % 3 == 0:
            counts[rng.choice(np.flatnonzero(counts < 4))] += 1
        if counts.any() and rng.random() < 0.4:
            for _ in range(rng.integers(1, 3)):
                counts[rng.choice(np.flatnonzero(counts))] -= 1
                counts[rng.choice(np.flatnonzero(counts < 4))] += 1
        assert counts.sum() + wild == size and counts.max() <= 4 and counts.min() >= 0
        return counts, wild


WILD_P = [0.35, 0.25, 0.2, 0.1, 0.1]


def make_batch(seed: int, n: int, sizes, size_p) -> tuple[np.ndarray, np.ndarray]:
    """(n, 34) int8 counts and (n,) int8 wildcards; sizes drawn with probabilities size_p."""
    rng = np.random.default_rng(seed)
    out = [make_hand(rng, int(rng.choice(sizes, p=size_p)), int(rng.choice(5, p=WILD_P))) for _ in range(n)]
    return np.array([c for c, _ in out], dtype=np.int8), np.array([w for _, w in out], dtype=np.int8)


COMPLETE_SIZES, COMPLETE_P = [2, 5, 8, 11, 14], [0.08, 0.1, 0.12, 0.15, 0.55]
# is_win also meets hands of a wrong size (never a win): 3k, 3k+1, and more than 14
ANY_SIZES, ANY_P = COMPLETE_SIZES + [3, 12, 13, 15, 17], [0.07, 0.09, 0.1, 0.13, 0.46, 0.03, 0.03, 0.03, 0.03, 0.03]
READY_SIZES, READY_P = [1, 4, 7, 10, 13], [0.08, 0.1, 0.12, 0.15, 0.55]
FLAG_SETS = [{"seven_pairs": sp, "thirteen_orphans": to, "extra_dragon": ed}
             for sp in (True, False) for to in (True, False) for ed in (True, False)]


def H(text: str) -> np.ndarray:
    """Counts (34,) int8 of compact notation, more than four copies allowed (shape checks)."""
    return np.bincount(parse_tiles(text), minlength=34).astype(np.int8)


# --------------------------------------------------------------------------- table cases

WIN_CASES = [
    # hand, wildcards, options, win
    ("11m123p456p789p123s", 0, {}, True),
    ("11m123p456p789p124s", 0, {}, False),
    ("11m123p456p789p12s", 1, {}, True),
    ("1111m", 1, {}, True),                 # a wildcard as the fifth 1m: 111m + 11m
    ("1111m123p", 1, {}, True),
    ("1111m", 0, {}, False),                # 4 tiles: not 3k+2
    ("11111m", 0, {}, True),                # a fifth copy at face value (shape only)
    ("12233333445m", 0, {}, True),          # ... in three sequences and the pair: 123 234 345 33
    ("", 2, {}, True),                      # the pair is two wildcards
    ("5z", 4, {}, True),                    # 5z+W pair, WWW
    ("123m456m789m1z", 4, {}, True),        # four wildcards: 1z W, W W W
    ("1m9m1p9p1s9s1z", 4, {}, False),       # four wildcards cannot rescue seven lone tiles
    ("891m123p456p789p11s", 0, {}, False),  # 9-1 never wraps
    ("912m123p456p789p11s", 0, {}, False),
    ("789m123p456p789p11s", 0, {}, True),
    ("89m123p456p789p11s", 1, {}, True),    # W as 7m
    ("123z111m222m333m44m", 0, {}, False),  # honors form no sequence
    ("111z222z333z444z55z", 0, {}, True),
    ("1z2z3z", 2, {}, False),               # 5 tiles: 1z+W pair, then 2z 3z W is no meld
    ("22m", 0, {}, True),                   # four declared melds
    ("1m", 1, {}, True),
    ("456m11z", 0, {}, True),
    ("11223344556677m", 0, {}, True),
    ("1111m22p33p44s55z66z", 0, {}, True),  # seven pairs with a four
    ("1111m22p33p44s55z66z", 0, {"seven_pairs": False}, False),
    ("1111m22p33p44s55z6z", 1, {}, True),
    ("111m22p33p44s55z66z", 1, {}, True),   # 111m + W = two pairs of 1m
    ("1133m557p9p1z2z", 4, {}, True),      # seven pairs: four odd kinds, four wildcards
    ("113m557p9p1z2z3z", 4, {}, False),    # six odd kinds
    ("1133m557p9p1z2z3z", 4, {}, False),   # 11 + 4 = 15 tiles
    ("19m19p19s12345677z", 0, {"thirteen_orphans": True}, True),
    ("19m19p19s12345677z", 0, {}, False),
    ("19m19p19s11234567z", 0, {"thirteen_orphans": True}, False),  # the 14th must be a dragon
    ("19m19p19s11234567z", 0, {"thirteen_orphans": True, "extra_dragon": False}, True),
    ("19m19p19s1234567z", 1, {"thirteen_orphans": True}, True),
    ("19m19p9s12345677z", 1, {"thirteen_orphans": True}, True),
    ("19m19p19s1234567z2m", 0, {"thirteen_orphans": True, "extra_dragon": False}, False),
    ("19m19p19s12345777z", 0, {"thirteen_orphans": True}, False),  # three 7z
]


@pytest.mark.parametrize("text, wild, opts, expected", WIN_CASES)
def test_is_win_cases(text, wild, opts, expected):
    c = H(text)
    assert bool(hand.is_win(c, wild, **opts)) is expected
    assert ref.is_win(c, wild, **opts) is expected


WAIT_CASES = [
    # hand, wildcards, options, waits
    ("1112345678999m", 0, {}, "123456789m"),
    ("1111m", 0, {}, "1m"),                 # only the fifth 1m
    ("1223333445m", 0, {}, "36m"),          # a fifth 3m: 123 234 345 33
    ("1m", 0, {}, "1m"),
    ("89m11z", 0, {}, "7m"),                # no wrap to 1m
    ("12m11z", 0, {}, "3m"),
    ("1m5p", 2, {}, "123m34567p"),
    ("1m", 1, {}, ""),                      # 2 tiles: not waiting
    ("11m33m55p77p99s11z2z", 0, {}, "2z"),
    ("11m33m55p77p99s11z2z", 0, {"seven_pairs": False}, ""),
    ("1111m33m55p77p99s2z", 0, {}, "2z"),   # seven pairs with a four
    ("19m19p19s1234567z", 0, {"thirteen_orphans": True}, "567z"),
    ("19m19p19s1234567z", 0, {"thirteen_orphans": True, "extra_dragon": False}, "19m19p19s1234567z"),
    ("19m19p19s1234567z", 0, {}, ""),
    ("19m19p19s1234577z", 0, {"thirteen_orphans": True}, "6z"),
    ("19m19p19s123457z", 1, {"thirteen_orphans": True}, "567z"),
    ("", 1, {}, "123456789m123456789p123456789s1234567z"),
]


@pytest.mark.parametrize("text, wild, opts, expected", WAIT_CASES)
def test_waits_cases(text, wild, opts, expected):
    got = hand.waits(H(text), wild, **opts)
    want = np.zeros(34, dtype=bool)
    want[parse_hand(expected) > 0] = True
    assert [CODES[i] for i in np.flatnonzero(got)] == [CODES[i] for i in np.flatnonzero(want)]
    assert ref.waits(parse_hand(text), wild, **opts) == list(want)


NEED_CASES = [
    # hand, standard_need, seven_pairs_need, orphans_need (dragon extra)
    ("11m123p456p789p123s", 0, 12, hand.IMPOSSIBLE),
    ("1111m", 1, 0, hand.IMPOSSIBLE),
    ("1m4m7m", 5, 3, hand.IMPOSSIBLE),      # 1m WW, 4m WW, 7m W: one lone tile is the pair
    ("89m", 3, 2, hand.IMPOSSIBLE),         # 789m (W) and a WW pair, or 8m W pair and 9m WW
    ("", 2, 0, 14),
    ("1z", 1, 1, 13),
    ("19m19p19s1234567z", 25, 13, 1),      # twelve lone tiles as WW melds, one as the pair
    ("19m19p19s12345677z", 24, 12, 0),
    ("19m19p19s11234567z", 24, 12, hand.IMPOSSIBLE),
]


@pytest.mark.parametrize("text, std, sp, orph", NEED_CASES)
def test_need_cases(text, std, sp, orph):
    c = H(text)
    assert hand.standard_need(c) == std == ref.standard_need(c)
    assert hand.seven_pairs_need(c) == sp == ref.seven_pairs_need(c)
    assert hand.orphans_need(c) == orph
    assert min(ref.orphans_need(c), hand.IMPOSSIBLE) == orph


SUIT_TABLE_CASES = [
    # one suit's counts 1-9, (need0 melds only, need1 melds and the pair)
    ("000000011", (1, 3)),   # 89: W89 (a window starting below 8), no wrap to 1
    ("110000000", (1, 3)),
    ("100000001", (4, 3)),   # 1 and 9 never meet: 1WW 9WW, or 1W pair + 9WW
    ("400000000", (2, 1)),   # 111 1WW; 111 1W pair
    ("111100000", (2, 1)),   # 123 4WW / 123 4W pair
    ("311111113", (2, 1)),   # nine gates: 111 234 567 999 8WW; ready on any tile
    ("000000000", (0, 2)),
    ("444444444", (0, 2)),
    ("100100100", (6, 5)),
]


@pytest.mark.parametrize("digits, expected", SUIT_TABLE_CASES)
def test_suit_table_cases(digits, expected):
    c = [int(x) for x in digits]
    key = sum(x * 5 ** i for i, x in enumerate(c))
    assert tuple(int(v) for v in tables.get("need")[key]) == expected
    assert (ref.part_need(tuple(c), True, False), ref.part_need(tuple(c), True, True)) == expected


TTW_CASES = [
    # hand, wildcards, tiles_to_win
    ("11m123p456p789p123s", 0, 0),
    ("11m123p456p789p124s", 0, 1),
    ("1m123p456p789p124s", 0, 1),           # 13 tiles: ready after one exchange
    ("1112345678999m", 0, 0),
    ("19m19p19s1234567z", 0, 0),            # ready for thirteen orphans only when allowed
    ("147m258p369s1234z", 0, 6),
    ("", 2, 0),
    ("1m", 0, 0),
    ("19m", 0, 1),
]


@pytest.mark.parametrize("text, wild, expected", TTW_CASES)
def test_tiles_to_win_cases(text, wild, expected):
    opts = {"thirteen_orphans": True} if "1234567z" in text else {}
    assert hand.tiles_to_win(H(text), wild, **opts) == expected == ref.tiles_to_win(parse_hand(text), wild, **opts)


# --------------------------------------------------------------------------- against the reference


def _ref_flags(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed + 1000).integers(0, len(FLAG_SETS), n)


@pytest.mark.parametrize("seed", [1, 2])
def test_is_win_and_needs_match_reference(seed):
    """6,000 hands per seed (12,000 in all), most of a complete size, 0-4 wildcards, random
    shape options."""
    counts, wild = make_batch(seed, 6000, ANY_SIZES, ANY_P)
    flags = _ref_flags(seed, len(counts))
    want = np.array([ref.is_win(c, int(w), **FLAG_SETS[f]) for c, w, f in zip(counts, wild, flags)])
    got = np.empty_like(want)
    for f, opts in enumerate(FLAG_SETS):
        sel = flags == f
        got[sel] = hand.is_win(counts[sel], wild[sel], **opts)
    bad = np.flatnonzero(got != want)
    assert not bad.size, [(_fmt(counts[i]), int(wild[i]), FLAG_SETS[flags[i]]) for i in bad[:5]]
    assert 0.3 < want.mean() < 0.8  # positives well represented
    for w in range(5):
        assert want[wild == w].sum() > 100

    std = np.array([ref.standard_need(c) for c in counts])
    np.testing.assert_array_equal(hand.standard_need(counts), std)
    np.testing.assert_array_equal(hand.seven_pairs_need(counts), [ref.seven_pairs_need(c) for c in counts])
    for extra_dragon in (True, False):
        orph = np.minimum([ref.orphans_need(c, extra_dragon) for c in counts], hand.IMPOSSIBLE)
        np.testing.assert_array_equal(hand.orphans_need(counts, extra_dragon), orph)


def _fmt(counts) -> str:
    return format_hand(np.asarray(counts, dtype=np.int64))


@pytest.mark.parametrize("seed", [3, 4])
def test_waits_match_reference(seed):
    """4,000 hands of 3k+1 tiles per seed (8,000 in all), 0-4 wildcards, random shape options."""
    counts, wild = make_batch(seed, 4000, READY_SIZES, READY_P)
    flags = _ref_flags(seed, len(counts))
    want = np.array([ref.waits(c, int(w), **FLAG_SETS[f]) for c, w, f in zip(counts, wild, flags)])
    got = np.empty_like(want)
    for f, opts in enumerate(FLAG_SETS):
        sel = flags == f
        got[sel] = hand.waits(counts[sel], wild[sel], **opts)
    bad = np.flatnonzero((got != want).any(axis=1))
    assert not bad.size, [(_fmt(counts[i]), int(wild[i]), FLAG_SETS[flags[i]]) for i in bad[:5]]
    assert 0.3 < want.any(axis=1).mean() < 0.9
    # fifth-copy waits occur: a kind held four times completes the shape
    assert (want & (counts == 4)).any(axis=1).sum() >= 20


def test_waits_of_a_hand_of_any_size_agree_with_is_win():
    """The docstring's identity on hands of every size, not only 3k+1: a 3k or 3k+2 hand has no wait (adding
    a tile makes no winning size), also where wildcards could stand for anything (a mutant that let 3k hands
    through gave "1m" with two wildcards the wait 1m)."""
    counts, wild = make_batch(6, 900, ANY_SIZES, ANY_P)
    counts = np.concatenate([counts, H("1m")[None], H("")[None], H("11m")[None]])
    wild = np.concatenate([wild, np.array([2, 3, 0], dtype=np.int8)])
    plus = counts[:, None, :] + np.eye(34, dtype=np.int8)
    for opts in FLAG_SETS[::3]:
        np.testing.assert_array_equal(hand.waits(counts, wild, **opts), hand.is_win(plus, wild[:, None], **opts))
    assert not hand.waits(counts, wild)[(counts.sum(axis=1) + wild) % 3 != 1].any()


@pytest.mark.parametrize("seed", [5])
def test_waits_agree_with_is_win_on_each_added_tile(seed):
    counts, wild = make_batch(seed, 600, READY_SIZES, READY_P)
    plus = counts[:, None, :] + np.eye(34, dtype=np.int8)  # counts of 5 where four are held
    for opts in FLAG_SETS[::3]:
        np.testing.assert_array_equal(hand.waits(counts, wild, **opts),
                                      hand.is_win(plus, wild[:, None], **opts))


@pytest.mark.parametrize("seed", [6])
def test_tiles_to_win_matches_reference(seed):
    counts, wild = make_batch(seed, 1200, COMPLETE_SIZES + READY_SIZES, np.r_[COMPLETE_P, READY_P] / 2)
    flags = _ref_flags(seed, len(counts))
    want = np.array([ref.tiles_to_win(c, int(w), **FLAG_SETS[f]) for c, w, f in zip(counts, wild, flags)])
    got = np.empty_like(want)
    for f, opts in enumerate(FLAG_SETS):
        sel = flags == f
        got[sel] = hand.tiles_to_win(counts[sel], wild[sel], **opts)
    bad = np.flatnonzero(got != want)
    assert not bad.size, [(_fmt(counts[i]), int(wild[i]), FLAG_SETS[flags[i]], got[i], want[i]) for i in bad[:5]]
    assert len(set(want.tolist())) >= 4


def test_tiles_to_win_reference_matches_its_definition():
    """The reference's kept-tiles formula against the literal exchange search, on small hands
    and on 14-tile hands close to a win (the search is exponential in the answer)."""
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(160):
        size = int(rng.choice([1, 2, 4, 5, 7, 8, 13, 14], p=[.1, .1, .15, .15, .15, .15, .05, .15]))
        c, w = make_hand(rng, size, int(rng.choice(3)))
        opts = FLAG_SETS[rng.integers(len(FLAG_SETS))]
        fast = ref.tiles_to_win(c, w, **opts)
        if size >= 13 and fast > (1 if size == 13 else 2):
            continue
        assert ref.tiles_to_win_literal(c, w, **opts) == fast, (_fmt(c), w, opts)
        assert hand.tiles_to_win(c, w, **opts) == fast
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("seed", [8])
def test_tiles_to_win_zero_means_win_or_ready(seed):
    for sizes, p, check in ((COMPLETE_SIZES, COMPLETE_P, hand.is_win), (READY_SIZES, READY_P, None)):
        counts, wild = make_batch(seed, 3000, sizes, p)
        for opts in FLAG_SETS[::2]:
            zero = hand.tiles_to_win(counts, wild, **opts) == 0
            done = (check(counts, wild, **opts) if check else hand.waits(counts, wild, **opts).any(axis=1))
            np.testing.assert_array_equal(zero, done)


# --------------------------------------------------------------------------- riichi mahjong, no wildcards


def _riichi_batch(seed: int, n: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([make_hand(rng, size, 0)[0] for _ in range(n)], dtype=np.int8)


def test_standard_and_seven_pairs_match_riichi():
    """10,000 near-win 14-tile hands without wildcards against mahjong.agari.Agari."""
    from mahjong.agari import Agari

    counts = _riichi_batch(11, 10_000, 14)
    agari = Agari()
    riichi = np.array([agari.is_agari(list(map(int, c))) for c in counts])
    std = hand.is_win(counts, 0, seven_pairs=False)
    sp = hand.is_win(counts, 0, seven_pairs=True) & ~std
    # like with like: riichi's seven pairs are seven different kinds, and it knows kokushi
    # (thirteen orphans with any 14th tile)
    sp_distinct = ((counts == 0) | (counts == 2)).all(axis=1) & ((counts == 2).sum(axis=1) == 7)
    kokushi = hand.orphans_need(counts, extra_dragon=False) == 0
    np.testing.assert_array_equal(std | sp_distinct | kokushi, riichi)
    # seven pairs: ours also takes a four as two pairs
    all_even = (counts % 2 == 0).all(axis=1)
    has_four = (counts == 4).any(axis=1)
    np.testing.assert_array_equal(hand.seven_pairs_need(counts) == 0, sp_distinct | (all_even & has_four))
    assert sp.sum() > 100 and std.sum() > 2000 and kokushi.sum() > 50 and (all_even & has_four).sum() > 10


@pytest.mark.parametrize("size", [13, 14, 10, 8])
def test_tiles_to_win_matches_riichi_shanten(size):
    """tiles_to_win is riichi's regular shanten (+1 for a 3k+2 hand), where no kind is held
    four times (riichi does not let a four be used as a triplet plus a waiting fifth copy)."""
    from mahjong.shanten import Shanten

    counts = _riichi_batch(12 + size, 1500, size)
    counts = counts[~(counts == 4).any(axis=1)]
    shanten = np.array([Shanten.calculate_shanten_for_regular_hand(list(map(int, c))) for c in counts])
    got = hand.tiles_to_win(counts, 0, seven_pairs=False)
    np.testing.assert_array_equal(got, shanten + (size % 3 == 2))
    if size >= 13:
        chiitoi = np.array([Shanten.calculate_shanten_for_chiitoitsu_hand(list(map(int, c))) for c in counts])
        distinct = ~(counts >= 3).any(axis=1)  # riichi's seven pairs need seven different kinds
        ours = hand.tiles_to_win(counts, 0, seven_pairs=True)
        theirs = np.minimum(shanten, chiitoi) + (size % 3 == 2)
        np.testing.assert_array_equal(ours[distinct], theirs[distinct])
        kokushi = np.array([Shanten.calculate_shanten_for_kokushi_hand(list(map(int, c))) for c in counts])
        ours = hand.tiles_to_win(counts, 0, seven_pairs=False, thirteen_orphans=True, extra_dragon=False)
        np.testing.assert_array_equal(ours, np.minimum(shanten, kokushi) + (size % 3 == 2))


# --------------------------------------------------------------------------- API behaviour


def test_batch_shapes_and_broadcasting():
    counts, wild = make_batch(21, 24, COMPLETE_SIZES, COMPLETE_P)
    flat = hand.is_win(counts, wild)
    assert flat.shape == (24,) and flat.dtype == bool
    np.testing.assert_array_equal(hand.is_win(counts.reshape(2, 3, 4, 34), wild.reshape(2, 3, 4)),
                                  flat.reshape(2, 3, 4))
    one = hand.is_win(counts[0], int(wild[0]))
    assert one.shape == () and bool(one) == flat[0]
    # a wildcard count broadcast over the batch
    np.testing.assert_array_equal(hand.is_win(counts, 1), hand.is_win(counts, np.ones(24, dtype=np.int64)))
    np.testing.assert_array_equal(hand.is_win(counts.reshape(4, 6, 34), wild.reshape(4, 6)[:, :1] * 0),
                                  hand.is_win(counts, 0).reshape(4, 6))
    ready, rw = make_batch(22, 24, READY_SIZES, READY_P)
    w = hand.waits(ready.reshape(4, 6, 34), rw.reshape(4, 6))
    assert w.shape == (4, 6, 34) and w.dtype == bool
    np.testing.assert_array_equal(w.reshape(24, 34), hand.waits(ready, rw))
    for f in (hand.standard_need, hand.seven_pairs_need, hand.orphans_need):
        assert f(counts.reshape(4, 6, 34)).shape == (4, 6)
    assert hand.tiles_to_win(counts.reshape(4, 6, 34), wild.reshape(4, 6)).shape == (4, 6)
    # any integer dtype gives the same answers
    for dtype in (np.uint8, np.int16, np.int64):
        np.testing.assert_array_equal(hand.is_win(counts.astype(dtype), wild.astype(dtype)), flat)
        np.testing.assert_array_equal(hand.waits(ready.astype(dtype), rw), hand.waits(ready, rw))
    assert hand.is_win(np.zeros((0, 34), np.int8), 0).shape == (0,)
    assert hand.waits(np.zeros((0, 34), np.int8), 0).shape == (0, 34)


def test_rules_variants_read_the_rule_set():
    c = H("19m19p19s11234567z")  # thirteen orphans with a wind as the 14th tile
    assert not hand.is_win_rules(c, 0, BEIJING)
    assert hand.is_win_rules(c, 0, HEBEI.replace(orphans_extra_dragon=False))
    assert not hand.is_win_rules(c, 0, HEBEI)
    sp = H("1111m22p33p44s55z66z")
    assert hand.is_win_rules(sp, 0, QUEMEN)
    assert not hand.is_win_rules(sp, 0, BEIJING.replace(seven_pairs=False))
    ready = H("19m19p19s1234567z")
    np.testing.assert_array_equal(hand.waits_rules(ready, 0, HEBEI), hand.waits(ready, 0, thirteen_orphans=True))
    assert not hand.waits_rules(ready, 0, BEIJING).any()


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="shape"):
        hand.is_win(np.zeros(27, np.int8), 0)
    with pytest.raises(TypeError, match="integer"):
        hand.is_win(np.zeros(34), 0)
    with pytest.raises(ValueError, match="wild must be >= 0"):
        hand.is_win(np.zeros(34, np.int8), -1)
    with pytest.raises(ValueError, match="broadcast"):
        hand.is_win(np.zeros((3, 34), np.int8), [0, 1])
    neg = np.zeros(34, np.int8)
    neg[5] = -1
    with pytest.raises(ValueError, match="negative count -1 of kind 5"):
        hand.is_win(neg, 0)
    with pytest.raises(ValueError, match="negative"):
        hand.waits(neg, 0)
    with pytest.raises(ValueError, match="hand 1 has 12"):
        hand.tiles_to_win(np.stack([H("123m"), H("123m456m789m123p")]), [1, 0])
    with pytest.raises(ValueError, match="0-4"):
        hand.tiles_to_win(np.full(34, 5, np.int8), 0)


def test_counts_above_four_in_is_win_match_reference():
    """A natural fifth (or sixth) copy, at face value, as the engine never holds but waits add."""
    rng = np.random.default_rng(9)
    rows, ws = [], []
    for _ in range(300):
        c, w = make_hand(rng, int(rng.choice([5, 8, 11, 14])), int(rng.choice(3)))
        c[rng.integers(34)] = int(rng.choice([5, 6]))
        if rng.random() < 0.7:  # most at a complete size (3k+2)
            w += (2 - c.sum() - w) % 3
        rows.append(c)
        ws.append(w)
    counts, wild = np.array(rows), np.array(ws)
    want = [ref.is_win(c, int(w)) for c, w in zip(counts, wild)]
    np.testing.assert_array_equal(hand.is_win(counts, wild), want)
    np.testing.assert_array_equal(hand.standard_need(counts), [ref.standard_need(c) for c in counts])


def test_fifth_copies_in_dense_suits_match_reference():
    """Counts of 5 and 6 where sequences matter: dense single suits (and honors), 0-3 wildcards."""
    rng = np.random.default_rng(10)
    rows = []
    for _ in range(1500):
        c = np.zeros(34, dtype=np.int64)
        part = int(rng.integers(4))
        lo, n = (27, 7) if part == 3 else (9 * part, 9)
        start = int(rng.integers(0, n - 3))
        c[lo + start: lo + start + 4] = rng.integers(0, 4, 4)  # a dense run of four kinds
        c[lo + start + int(rng.integers(4))] = int(rng.choice([5, 5, 6]))
        if rng.random() < 0.5:  # and some tiles elsewhere
            c[rng.integers(34)] += int(rng.integers(1, 3))
        rows.append(c)
    counts = np.array(rows)
    wild = rng.integers(0, 4, len(counts))
    np.testing.assert_array_equal(hand.standard_need(counts), [ref.standard_need(c) for c in counts])
    np.testing.assert_array_equal(hand.is_win(counts, wild), [ref.is_win(c, int(w)) for c, w in zip(counts, wild)])


# --------------------------------------------------------------------------- the tables


def _all_digits(n_kinds):
    """(5**n, n) int32: the counts of every key."""
    keys = np.arange(5 ** n_kinds, dtype=np.int32)
    return np.stack([(keys // 5 ** i) % 5 for i in range(n_kinds)], axis=1)


def _same(a, b):
    """Exact equality of two big arrays (assert_array_equal's report is slow to build)."""
    assert a.shape == b.shape and np.array_equal(a, b), np.argwhere(a != b)[:5]


def test_honor_table_is_per_kind_arithmetic():
    need = tables.get("need")[tables.HONOR_OFFSET:].astype(np.int64)
    d = _all_digits(tables.HONOR_KINDS)
    n0, n1 = tables.honor_need_by_count()
    np.testing.assert_array_equal(need[:, 0], n0[d].sum(axis=1))
    np.testing.assert_array_equal(need[:, 1], n0[d].sum(axis=1) + (n1 - n0)[d].min(axis=1))
    assert list(n0[:6]) == [0, 2, 1, 0, 2, 1] and list(n1[:6]) == [2, 1, 0, 2, 1, 0]


def test_suit_tables_are_mirror_symmetric():
    """1-9 read as 9-1 is the same suit: every table entry equals its mirror's."""
    d = _all_digits(tables.SUIT_KINDS)
    mirror = d[:, ::-1] @ (5 ** np.arange(9))
    for name in ("need", "kept", "packed"):
        t = tables.get(name)[: tables.SUIT_KEYS]
        _same(t, t[mirror])
    plus = tables.get("plus")[:, : tables.SUIT_KEYS]
    _same(plus, plus[:, mirror, ::-1])  # one more i is one more 8-i


def test_plus_table_is_need_with_one_more_tile():
    need = tables.get("need")
    plus = tables.get("plus")
    rng = np.random.default_rng(12)
    for n_kinds, offset, seq in ((9, 0, True), (7, tables.HONOR_OFFSET, False)):
        d = _all_digits(n_kinds)
        keys = np.arange(d.shape[0])
        for i in range(n_kinds):
            room = d[:, i] < 4
            _same(plus[:, offset + keys[room], i].T, need[offset + keys[room] + 5 ** i])
            # a fifth copy: against the reference's plain search, on a sample of hand-sized parts
            full = rng.choice(np.flatnonzero(~room & (d.sum(axis=1) <= 13)), 60, replace=False)
            for k in full:
                c = d[k].copy()
                c[i] += 1
                want = (ref.part_need(tuple(c), seq, False), ref.part_need(tuple(c), seq, True))
                assert tuple(plus[:, offset + k, i]) == want, (c, i)
        assert not plus[:, offset:offset + 5 ** n_kinds, n_kinds:].any()  # unused honor columns


def test_kept_agrees_with_need_and_packed_fields_decode():
    """All of a part fits into m melds and p pairs exactly when its need fits the free slots,
    which ties the two dynamic programmes together over every key."""
    need = tables.get("need").astype(np.int64)
    kept = tables.get("kept").astype(np.int64)
    packed = tables.get("packed")
    tiles = np.concatenate([_all_digits(9).sum(axis=1), _all_digits(7).sum(axis=1)])
    odd = np.concatenate([(_all_digits(9) % 2).sum(axis=1), (_all_digits(7) % 2).sum(axis=1)])
    for m in range(tables.MAX_MELDS + 1):
        for p in (0, 1):
            fits = need[:, p] <= 3 * m + 2 * p - tiles
            _same(kept[:, m, p] == tiles, fits)
    assert (kept <= tiles[:, None, None]).all()
    assert (np.diff(kept, axis=1) >= 0).all() and (kept[:, :, 1] >= kept[:, :, 0]).all()
    _same(packed & 0xFF, need[:, 0])
    _same((packed >> 8) & 0xFF, tiles)
    _same((packed >> 16) & 0xFF, odd)
    _same((packed >> 24).astype(np.int64) - tables.DIFF_BIAS, need[:, 1] - need[:, 0])


def test_tables_load_once_and_are_read_only():
    a = tables.get("packed")
    hand.is_win(H("11m"), 0)
    assert tables.get("packed") is a
    assert not a.flags.writeable
    with pytest.raises(KeyError, match="no hand table"):
        tables.get("shanten")


def test_cache_is_built_when_missing(tmp_path, monkeypatch):
    """A fresh clone has no cache: the first use builds and saves it, into the first writable
    place; a cache of another format version or a damaged file is rebuilt, and so is one on
    ``--rebuild``. (The build itself is counted here, not run: see the next two tests.)"""
    cached = {name: tables.get(name) for name in tables.NAMES}
    builds = []
    monkeypatch.setattr(tables, "build", lambda: builds.append(1) or {k: v.copy() for k, v in cached.items()})
    target = tmp_path / "pkg" / tables.FILE_NAME
    (tmp_path / "a_file").write_text("")  # a directory cannot be made under it: not writable
    monkeypatch.setattr(tables, "cache_paths", lambda: [tmp_path / "a_file" / "data" / tables.FILE_NAME, target])
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)

    assert tables.main([]) == 0 and len(builds) == 1  # built, as on a fresh clone
    assert target.exists() and (target.stat().st_mode & 0o444) == 0o444  # readable by all
    _same(tables.get("need"), cached["need"])
    tables._cache.clear()
    _same(tables.get("kept"), cached["kept"])  # read back from the file
    assert set(tables._cache) == {"kept"} and len(builds) == 1  # one member at a time, no build
    assert tables.load() == target and len(builds) == 1  # a valid cache is used as it is

    np.savez(target, version=np.int64(tables.FORMAT_VERSION + 1), **cached)
    assert tables.read(target) is None  # a cache of another format version is not used
    assert tables.load() == target and len(builds) == 2
    assert tables.read(target) is not None
    target.write_bytes(b"not a zip file")
    tables._cache.clear()
    _same(tables.get("packed"), cached["packed"])  # damaged under a running process: rebuilt
    assert len(builds) == 3 and tables.read(target) is not None
    assert tables.main(["--rebuild"]) == 0 and len(builds) == 4


def test_cached_tables_match_a_fresh_build_of_the_honors():
    """The cache was built by this code: the honors part (78,125 keys, same code path without
    sequences) is rebuilt and compared; the suits are checked against the reference above and
    in full by the slow test below."""
    need, kept = tables.build_part(tables.HONOR_KINDS, sequences=False)
    h = slice(tables.HONOR_OFFSET, None)
    _same(tables.get("need")[h], need)
    _same(tables.get("kept")[h], kept)
    _same(tables.get("plus")[:, h], tables.build_plus(need, tables.HONOR_KINDS, sequences=False))


@pytest.mark.slow
def test_cached_tables_match_a_fresh_build():
    fresh = tables.build()
    for name in tables.NAMES:
        _same(tables.get(name), fresh[name])


def test_read_refuses_a_table_of_another_shape_or_dtype_and_a_truncated_file(tmp_path):
    """A cache holding a table of the wrong shape or dtype (of the right format version), or a
    file cut short (a zip without its directory), is not used."""
    need = tables.get("need")
    good = tables.save({"need": need}, tmp_path / "good.npz")
    assert tables.read(good, names=("need",)) is not None
    for i, bad in enumerate((need[:1000], need.astype(np.int8))):
        path = tables.save({"need": bad}, tmp_path / f"bad{i}.npz")
        assert tables.read(path, names=("need",)) is None, bad.shape
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:4096])
    assert tables.read(cut, names=()) is None


def test_a_failed_save_leaves_no_temporary_file(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError("no space left on device")

    monkeypatch.setattr(np.lib.format, "write_array", full_disk)
    with pytest.raises(OSError, match="no space left"):
        tables.save({"need": np.zeros(3, dtype=np.uint8)}, tmp_path / tables.FILE_NAME)
    assert list(tmp_path.iterdir()) == []


def test_a_save_removes_what_a_killed_builder_left_and_keeps_a_live_writers_file(tmp_path):
    """A builder killed while writing (SIGKILL) leaves its ``.tables-*.npz``; the next save in that folder
    deletes those an hour old, and leaves a fresh one (another process writing now) and other files."""
    stale, live, other = (tmp_path / name for name in (".tables-dead.npz", ".tables-live.npz", "notes.npz"))
    for path in (stale, live, other):
        path.write_bytes(b"x" * 10)
    old = time.time() - 2 * tables.STALE_SECONDS
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    tables.save({"need": np.zeros(3, dtype=np.uint8)}, tmp_path / tables.FILE_NAME)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".tables-live.npz", "notes.npz", tables.FILE_NAME])


def test_the_user_cache_is_under_xdg_cache_home_when_set(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tables.cache_paths()[1] == tmp_path / "xdg" / "mj_env" / tables.FILE_NAME
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tables.cache_paths()[1] == tmp_path / "home" / ".cache" / "mj_env" / tables.FILE_NAME


def test_load_forgets_the_tables_held_in_memory(tmp_path, monkeypatch):
    """``load`` finds a valid cache and forgets what was read before: a table is read again, from
    the file as it is now."""
    need = tables.get("need")
    target = tmp_path / tables.FILE_NAME
    monkeypatch.setattr(tables, "cache_paths", lambda: [target])
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    tables.save({"need": need}, target)
    _same(tables.get("need"), need)
    changed = need.copy()
    changed[0] = (7, 7)
    tables.save({"need": changed}, target)
    assert tables.load() == target
    _same(tables.get("need"), changed)


def test_a_table_whose_file_went_away_is_built_again_though_another_cache_is_valid(tmp_path, monkeypatch):
    """The file a table is read from went away under a running process while the other cache path
    still holds a valid file: the table is built again (not looked for in a file that lacks it)."""
    packed, need = tables.get("packed"), tables.get("need")
    builds = []
    monkeypatch.setattr(tables, "build", lambda: builds.append(1) or {"packed": packed.copy()})
    first, second = tmp_path / "a" / tables.FILE_NAME, tmp_path / "b" / tables.FILE_NAME
    monkeypatch.setattr(tables, "cache_paths", lambda: [first, second])
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    for path in (first, second):
        tables.save({"need": need[:0]}, path)  # valid for load() (it reads no member)
    assert tables.load() == first
    first.unlink()
    _same(tables.get("packed"), packed)
    assert builds == [1]


@pytest.mark.parametrize("digits", ["000000000", "123400000", "000004444", "444444444", "010203040"])
def test_kept_entries_match_reference(digits):
    c = tuple(int(x) for x in digits)
    key = sum(x * 5 ** i for i, x in enumerate(c))
    kept = tables.get("kept")[key]
    for m in range(tables.MAX_MELDS + 1):
        for p in (0, 1):
            assert kept[m, p] == ref.part_kept(c, True, m, bool(p)), (m, p)


def test_benchmark_smoke(tmp_path):
    """benchmarks/win_checks.py runs, agrees with the reference and writes its JSON."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "win_checks.py"
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, str(script), "--seconds", "0.01", "--batch-sizes", "1,8",
                          "--reference-hands", "30", "--json", str(out)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "machine:" in run.stdout and "hands/s" in run.stdout
    data = json.loads(out.read_text())
    assert data["disagreements"] == 0 and data["machine"]["cpu_count"] >= 1
    assert {(r["check"], r["impl"], r["batch"]) for r in data["results"]} == {
        (c, "mj_env.hand", b) for c in ("is_win", "waits", "tiles_to_win") for b in (1, 8)} | {
        (c, "reference", 1) for c in ("is_win", "waits", "tiles_to_win")}
    assert all(r["hands_per_sec"] > 0 for r in data["results"])


def test_small_batches_decide_as_the_batched_path():
    """Batches of one or two hands take a plain-Python path; it must decide exactly alike."""
    rng = np.random.default_rng(77)
    hands = np.zeros((3000, 34), dtype=np.int8)
    for i in range(3000):
        size = rng.choice([2, 5, 8, 11, 13, 14])
        kinds = rng.choice(34 if i % 3 else 9, size=size)  # one suit often: dense counts, fifth copies
        np.add.at(hands[i], kinds, 1)
    wild = rng.integers(0, 4, 3000).astype(np.int8)
    for opts in ({}, {"seven_pairs": False}, {"thirteen_orphans": True}, {"thirteen_orphans": True, "extra_dragon": False}):
        batched = hand.is_win(hands, wild, **opts)
        single = np.array([hand.is_win(hands[i:i + 1], wild[i:i + 1], **opts)[0] for i in range(3000)])
        pairs = np.concatenate([hand.is_win(hands[i:i + 2], wild[i:i + 2], **opts) for i in range(0, 3000, 2)])
        assert (batched == single).all() and (batched == pairs).all()
        assert batched.any() and not batched.all()


@pytest.mark.parametrize("shape", [(), (1,), (300,), (7, 9)])
def test_split_hui_against_a_plain_reference(shape):
    from mj_env.hand import split_hui

    rng = np.random.default_rng(len(shape))
    counts = rng.integers(0, 5, size=(*shape, 34)).astype(np.int16)
    hui = rng.integers(-1, 34, size=shape)
    before = counts.copy()
    nat, wild = split_hui(counts, hui)
    assert np.array_equal(counts, before)                      # the input is left as it was
    assert nat.dtype == wild.dtype == np.int8 and nat.shape == counts.shape and wild.shape == shape
    for i in np.ndindex(*shape):
        h = int(hui[i])
        want = counts[i].copy()
        if h >= 0:
            want[h] = 0
        assert np.array_equal(nat[i], want) and wild[i] == (counts[i][h] if h >= 0 else 0)
    nat5, wild5 = split_hui(counts, 5)                         # one kind for every hand
    assert np.array_equal(wild5, counts[..., 5]) and not nat5[..., 5].any()


@pytest.mark.parametrize("preset, overrides", [("quemen", {}), ("quemen", {"seven_pairs": False}),
                                               ("beijing", {"lack_suit": True, "thirteen_orphans": True})])
def test_lack_suit_distance_against_the_plain_definition(preset, overrides):
    """hand_distance under 缺一门 (the parts looked up once for the three dropped suits) against the
    definition: the cheapest suit to drop, each of its tiles one exchange, a suit a meld holds never dropped.
    (缺一门 with thirteen orphans: a beijing rule set, quemen's fan table having no pattern for the shape.)"""
    from mj_env.rules import get_rules

    rules = get_rules(preset, **overrides)
    kw = {"seven_pairs": rules.seven_pairs, "thirteen_orphans": rules.thirteen_orphans,
          "extra_dragon": rules.orphans_extra_dragon}
    rng = np.random.default_rng(11)
    hands, huis, melds = [], [], []
    while len(hands) < 150:
        size = int(rng.choice([13, 14, 10, 11, 7, 8, 2]))
        counts = np.minimum(rng.multinomial(size, rng.dirichlet(np.ones(34) * 0.3)), 4).astype(np.int8)
        if counts.sum() % 3 == 0:
            continue
        hands.append(counts)
        huis.append(int(rng.integers(-1, 34)))
        melds.append(rng.random(3) < 0.25)
    for text in ("19m19p19s1234567z", "19m19p19s123456z6z", "19m9p19s1234567z1z"):  # near 13 orphans (random hands are not)
        hands.append(H(text))
        huis.append(-1)
        melds.append(np.zeros(3, dtype=bool))
    got = hand.hand_distance(rules, np.array(hands), np.array(huis), np.array(melds))
    for counts, hui, meld, d in zip(hands, huis, melds, got, strict=True):
        nat = counts.astype(int).tolist()
        wild = 0
        if hui >= 0:
            wild, nat[hui] = nat[hui], 0
        assert d == ref.lack_suit_tiles_to_win(nat, wild, meld, **kw), (counts.tolist(), hui, meld.tolist())


def test_hand_distance_reads_the_rule_sets_thirteen_orphans():
    """hand_distance uses the rule set's shapes: in hebei the 14th tile of thirteen orphans must be a dragon
    (docs/RULES.md 5), so a doubled 1m is no win there, but it is with ``orphans_extra_dragon`` off."""
    from mj_env.rules import get_rules

    doubled_1m, doubled_7z = H("119m19p19s1234567z"), H("19m19p19s12345677z")
    assert hand.hand_distance(HEBEI, doubled_7z, -1) == 0
    assert hand.hand_distance(HEBEI, doubled_1m, -1) > 0
    assert hand.hand_distance(get_rules("hebei", orphans_extra_dragon=False), doubled_1m, -1) == 0


# --------------------------------------------------------------------------- the tables cache: a folder that cannot be listed after the save


def test_a_save_whose_folder_cannot_be_listed_afterwards_still_succeeds(tmp_path, monkeypatch):
    """3a4b910 lists the cache folder for stale temporaries after the file is in place, inside the loop that
    takes an OSError for a failed write: a listing that failed (EIO on a network share; Python 3.11's glob
    passes over PermissionError only) made a written cache "cannot write the hand tables cache"."""
    import errno
    from pathlib import Path

    from mj_env import tables

    def failing_glob(self, pattern):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Path, "glob", failing_glob)
    target = tmp_path / tables.FILE_NAME
    assert tables.save({"need": np.zeros(3, dtype=np.uint8)}, target) == target
    assert [p.name for p in tmp_path.iterdir()] == [tables.FILE_NAME]
