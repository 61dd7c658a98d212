"""Second mutation round on mj_env/hand_end.py and mj_env/tables.py (seed 5101): tests that kill mutants which the
rest of the suite let through. Each test names what a wrong change got past. (Every sampled mutant of hand_end.py
was killed by the suite or changes nothing a caller can see: no test here.)

The suite checks the suit tables as they are read from the cache (tests/test_hand.py), and rebuilds only the
honors (no sequences) outside the slow test, so a wrong change to the building of a suit part went unseen until the
cache was next rebuilt. The builders take the number of kinds as an argument: a suit of five kinds (3,125 keys)
builds in a moment and is checked here, key by key, against the plain recursive search of tests/ref_hand.py."""
from __future__ import annotations

from functools import cache

import numpy as np
import ref_hand as ref

from mj_env import tables

SMALL = 5
"""Kinds of the small suit built here: windows start at 0-2, so every sequence case of build_part (a window below,
through and above the lowest kind, and the last window) occurs."""


@cache
def _small_suit():
    """(digits, need, kept) of a five-kind suit part, sequences allowed, freshly built."""
    need, kept = tables.build_part(SMALL, sequences=True)
    return tables._digits(SMALL).astype(np.int64), need, kept


def _ref_need(part, pair: bool) -> int:
    return ref.part_need(tuple(int(x) for x in part), True, pair)


# ---------------------------------------------------------------------------------------------- mj_env.tables
def test_a_suit_parts_need_is_the_fewest_wildcards_of_a_plain_search():
    """Got past: sequences never tried (``if sequences`` read as False), a window of two kinds, the window's tiles
    looked for one kind off or never found, the window's tiles not taken out of the key, and the wildcards a sequence
    lacks counted as 2 - used or 3 + used. need[k, 0] is the fewest wildcards that make the part complete melds,
    need[k, 1] melds and exactly one pair (the tables' docstring; a wildcard is any tile, docs/RULES.md 5)."""
    digits, need, _ = _small_suit()
    assert need.shape == (5 ** SMALL, 2) and need.dtype == np.uint8
    want = np.array([[_ref_need(d, False), _ref_need(d, True)] for d in digits])
    bad = np.flatnonzero((need != want).any(axis=1))
    assert not len(bad), [(digits[k].tolist(), need[k].tolist(), want[k].tolist()) for k in bad[:3]]
    assert need[0].tolist() == [0, 2]  # nothing: melds need none, the pair two wildcards
    assert need[1 + 5 + 25].tolist() == [0, 2]  # 123: a sequence, then two wildcards for the pair


def test_a_suit_parts_kept_is_the_most_tiles_that_fit_of_a_plain_search():
    """The same mutants of the sequence windows also broke ``kept``, which the suite read only from the cache.
    kept[k, m, p] is the most tiles of the part that fit into m melds (0-4) and p pairs (0-1), the other slots
    free."""
    digits, _, kept = _small_suit()
    want = np.array([[[ref.part_kept(tuple(int(x) for x in d), True, m, bool(p)) for p in (0, 1)]
                      for m in range(tables.MAX_MELDS + 1)] for d in digits])
    bad = np.flatnonzero((kept != want).any(axis=(1, 2)))
    assert not len(bad), [digits[k].tolist() for k in bad[:3]]


def test_plus_of_a_suit_part_is_its_need_with_one_more_tile_a_fifth_copy_included():
    """``build_plus`` of a suit, which the suite read only from the cache (the sequence mutants above broke it too).
    plus[:, k, i] is (need0, need1) of the part with one more tile of kind i, a fifth copy included (``need_of``)."""
    digits, need, _ = _small_suit()
    plus = tables.build_plus(need, SMALL, sequences=True)
    assert plus.shape == (2, 5 ** SMALL, tables.SUIT_KINDS)
    assert not plus[:, :, SMALL:].any()  # the columns past the part's kinds stay 0
    for i in range(SMALL):
        more = digits.copy()
        more[:, i] += 1
        want = np.array([[_ref_need(d, False) for d in more], [_ref_need(d, True) for d in more]])
        bad = np.flatnonzero((plus[:, :, i] != want).any(axis=0))
        assert not len(bad), (i, [(more[k].tolist(), plus[:, k, i].tolist(), want[:, k].tolist()) for k in bad[:3]])


def test_build_packs_the_tables_of_its_parts(monkeypatch):
    """Got past: ``build`` storing need1 - need0 less its bias instead of plus it, or need1 + need0 (the packed word's
    top byte, which ``hand.is_win`` reads to place the pair), and building the suits' ``plus`` without sequences.
    ``build`` is run on a five-kind suit and three honors (the number of kinds is read at call time): its tables are
    the parts' tables, suits then honors, and ``packed`` holds need0, the tiles, the odd counts and
    need1 - need0 + DIFF_BIAS in its four bytes (the tables' docstring)."""
    monkeypatch.setattr(tables, "SUIT_KINDS", SMALL)
    monkeypatch.setattr(tables, "HONOR_KINDS", 3)
    built = tables.build()
    s_need, s_kept = tables.build_part(SMALL, sequences=True)
    h_need, h_kept = tables.build_part(3, sequences=False)
    n_suit = 5 ** SMALL
    assert np.array_equal(built["need"], np.concatenate([s_need, h_need]))
    assert np.array_equal(built["kept"], np.concatenate([s_kept, h_kept]))
    assert np.array_equal(built["plus"][:, :n_suit], tables.build_plus(s_need, SMALL, True))
    assert np.array_equal(built["plus"][:, n_suit:], tables.build_plus(h_need, 3, False))
    digits = np.concatenate([tables._digits(SMALL), np.pad(tables._digits(3), ((0, 0), (0, SMALL - 3)))])
    need = built["need"].astype(np.int64)
    packed = built["packed"]
    assert packed.dtype == np.uint32
    assert np.array_equal(packed & 0xFF, need[:, 0])
    assert np.array_equal((packed >> 8) & 0xFF, digits.sum(axis=1))
    assert np.array_equal((packed >> 16) & 0xFF, (digits % 2).sum(axis=1))
    assert np.array_equal((packed >> 24).astype(np.int64), need[:, 1] - need[:, 0] + tables.DIFF_BIAS)
    assert ((packed >> 24) <= 3).all()
