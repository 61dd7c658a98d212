"""Batched shape, wait and distance checks over tile count arrays (docs/RULES.md 5).

Every function takes ``counts`` of shape (..., 34), any integer dtype (int8 from the engine is
the fast case): the *natural* tiles of a concealed hand, i.e. without the 惠牌 that are held as
wildcards. ``wild`` is the number of wildcards held besides, an integer 0-``MAX_WILD`` broadcastable to (...)
(a bool is refused, as for ``counts``).
Nothing loops over the batch in Python: a hand costs a few table gathers (``mj_env.tables``).

A wildcard may stand for any tile, a fifth copy of a kind included, so the shapes are:

- standard: melds (triplets, sequences within a suit, 9 -> 1 never wraps) and one pair;
- seven pairs: seven pairs, four identical tiles counting as two pairs;
- thirteen orphans: 1 and 9 of each suit, the seven honors, and one more of them (a dragon
  5z/6z/7z when ``extra_dragon``).

Declared melds are not part of ``counts``: a concealed part of 2, 5, 8, 11 or 14 tiles is a
standard win when it is melds plus a pair; seven pairs and thirteen orphans need all 14 tiles
concealed (natural plus wild), which is how they are told apart from a hand with declared melds.

Public functions (shapes with ``...`` the batch shape):

==========================  ===========  ===================================================
function                    returns      meaning
==========================  ===========  ===================================================
standard_need(c)            (...) int16  fewest wildcards for melds plus one pair
seven_pairs_need(c)         (...) int16  fewest wildcards for seven pairs (odd counts)
orphans_need(c)             (...) int16  fewest wildcards for 13 orphans, IMPOSSIBLE if none
is_win(c, w)                (...) bool   the hand (3k+2 tiles) is a winning shape
waits(c, w)                 (..., 34)    kinds that, added at face value, make a win
tiles_to_win(c, w)          (...) int16  fewest tiles to exchange; 0: win (3k+2) or ready (3k+1)
is_win_rules, waits_rules                the same, shapes chosen by a RuleSet
==========================  ===========  ===================================================
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from . import tables as _tables
from .messages import integer_value
from .state import bool_among_ints, refuse_masked
from .tables import (
    DIFF_BIAS,
    DIFF_SHIFT,
    HONOR_OFFSET,
    MAX_COUNT,
    MAX_MELDS,
    ODD_SHIFT,
    SUIT_KINDS,
    TILES_SHIFT,
)
from .tiles import N_KINDS, N_SUITED, N_SUITS, SUIT_OF, SUIT_SIZE

IMPOSSIBLE = 99
"""orphans_need of a hand that can never be thirteen orphans (more wildcards than any hand)."""
ORPHAN_KINDS = np.concatenate([(np.arange(N_SUITS)[:, None] * SUIT_SIZE + [0, SUIT_SIZE - 1]).ravel(),
                               np.arange(N_SUITED, N_KINDS)])
"""1m 9m 1p 9p 1s 9s and the seven honors; the last three (5z 6z 7z) are the dragons. Read-only."""
ORPHAN_KINDS.flags.writeable = False  # the win checks and scoring read it: a write is refused, never shared
_N_ORPHANS = ORPHAN_KINDS.size
_DRAGON_SLOTS = slice(10, 13)
_IS_DRAGON = np.arange(_N_ORPHANS) >= _DRAGON_SLOTS.start
_NON_ORPHAN = np.setdiff1d(np.arange(N_KINDS), ORPHAN_KINDS)

# Part of each kind (0-2 suits m p s, 3 honors) and its place value in that part's key.
_PART_OF = SUIT_OF
_POS_OF = np.arange(N_KINDS) - SUIT_SIZE * _PART_OF
_PLACE_OF = (5 ** _POS_OF).astype(np.int32)
_PART_COLS = [np.flatnonzero(_PART_OF == j) for j in range(N_SUITS + 1)]

# counts (N, 34) @ _WEIGHTS (34, 4) + _OFFSETS = part indices (N, 4). float32 because the matrix
# product then runs in BLAS, several times faster than numpy's integer matmul; every key is an
# integer below 2**24, so float32 holds it (and every partial sum) exactly.
_WEIGHTS = np.zeros((N_KINDS, 4), dtype=np.float32)
_WEIGHTS[np.arange(N_KINDS), _PART_OF] = _PLACE_OF
_OFFSETS = np.array([0, 0, 0, HONOR_OFFSET], dtype=np.float32)

# Fields of the packed values. Plain integers: on the uint32 arrays NumPy keeps uint32, and the
# small-batch path evaluates the same expressions on Python integers.
_BYTE = 0xFF
_TILES = TILES_SHIFT
_ODD = ODD_SHIFT
_DIFF = DIFF_SHIFT
_BIAS = DIFF_BIAS


# --------------------------------------------------------------------------- input handling


def _counts_array(counts) -> np.ndarray:
    """counts as an array of shape (..., 34), or a ValueError naming the shape or the masked entry
    (``state.refuse_masked``): the checks every hand function makes before its dtype's."""
    refuse_masked(counts, "counts")
    c = np.asarray(counts)
    if c.ndim == 0 or c.shape[-1] != N_KINDS:
        raise ValueError(f"counts must have shape (..., {N_KINDS}), got {c.shape}")
    return c


def _flat_counts(counts) -> tuple[np.ndarray, tuple[int, ...]]:
    """counts as (N, 34) and the batch shape (...)."""
    c = _counts_array(counts)
    if c.dtype.kind not in "iu":  # (dtype.kind: a cheap np.issubdtype(dtype, np.integer))
        raise TypeError(f"counts must be an integer array, got dtype {c.dtype}")
    return c.reshape(-1, N_KINDS), c.shape[:-1]


MAX_WILD = 2 ** 24
"""Most wildcards a hand may be given (``wild``). The win decisions add ``wild`` to the packed fields in
uint32 and int32, which a count of 2**31 or more would wrap (``is_win`` of 11 tiles and 2**32 wildcards
read them as none); a hand holds at most 14, so anything above this bound is refused, not wrapped."""


def _flat_wild(wild, lead: tuple[int, ...]) -> np.ndarray:
    """wild broadcast to the batch shape, as (N,) uint32 (checked to be 0 to MAX_WILD). A bool is refused as
    counts' are (True was read as one wildcard; a list's, ``[True, 0]``, is NumPy's int64 ``[1, 0]``)."""
    refuse_masked(wild, "wild")
    w = np.asarray(wild)
    if w.dtype.kind not in "iu":
        raise TypeError(f"wild must be an integer count, got dtype {w.dtype}")
    if (j := bool_among_ints(wild)) is not None:
        raise TypeError(f"wild must be integer counts, got {wild[j]!r} at position {j}")
    if w.shape == lead:
        w = w.reshape(-1)
    else:
        try:
            w = np.broadcast_to(w, lead).reshape(-1)
        except ValueError:
            raise ValueError(f"wild of shape {w.shape} does not broadcast to the batch shape {lead}") \
                from None
    if w.size and w.dtype.kind == "i" and w.min() < 0:
        raise ValueError(f"wild must be >= 0, got {int(w.min())}")
    if w.size and w.dtype.itemsize > 2 and w.dtype.kind in "iu" and int(w.max()) > MAX_WILD:
        raise ValueError(f"wild must be at most {MAX_WILD:,} (mj_env.hand.MAX_WILD), got {int(w.max()):,}")
    return w.astype(np.uint32)


def _in_table_range(c2: np.ndarray) -> bool:
    """Every count is 0-4, so every part has a key. One pass over the counts."""
    if c2.size == 0:
        return True
    if c2.dtype == np.int8:  # negatives become >= 128 in the unsigned view: one reduction
        return int(c2.view(np.uint8).max()) <= MAX_COUNT
    return int(c2.min()) >= 0 and int(c2.max()) <= MAX_COUNT


def _check_non_negative(c2: np.ndarray) -> None:
    if c2.size and c2.min() < 0:
        row, kind = np.argwhere(c2 < 0)[0]
        raise ValueError(f"negative count {int(c2[row, kind])} of kind {kind} in hand {row}")


_BLOCK = 4096
"""Rows per block of the large batches of ``_part_index`` and the distance functions. A block's arrays stay in
the cache, and OpenBLAS runs a product this small on one thread: a 50,000-hand ``_part_index`` took 2.6 ms
in one product and 0.7 ms in blocks of 4,096 (the shared 2-core machine, 2026-12-06)."""


def _part_index(c2: np.ndarray) -> np.ndarray:
    """(N, 4) int32 table indices of the four parts; every count must be 0-4."""
    if len(c2) <= _BLOCK:
        k = c2.astype(np.float32) @ _WEIGHTS
        k += _OFFSETS
        return k.astype(np.int32)
    out = np.empty((len(c2), 4), dtype=np.int32)
    for s in range(0, len(c2), _BLOCK):
        k = c2[s:s + _BLOCK].astype(np.float32) @ _WEIGHTS
        k += _OFFSETS
        out[s:s + _BLOCK] = k  # float32 -> int32 as astype does: every key is exact
    return out


# --------------------------------------------------------------------------- counts above 4


def _need_general(pc: np.ndarray, honors: bool) -> np.ndarray:
    """(n, 2) need0/need1 of part counts ``pc`` (n, 9 or 7), counts above 4 allowed (the
    slow path: ``tables.need_of`` reduces a fifth copy to table keys)."""
    need = _tables.get("need")
    part = need[HONOR_OFFSET:] if honors else need[:HONOR_OFFSET]
    return _tables.need_of(pc, part, sequences=not honors)


def _pack(need: np.ndarray, tiles: np.ndarray, odd: np.ndarray) -> np.ndarray:
    """Pack per-part values as in ``tables.packed``."""
    diff = need[:, 1] - need[:, 0] + DIFF_BIAS
    return (need[:, 0] | (tiles << TILES_SHIFT) | (odd << ODD_SHIFT) | (diff << DIFF_SHIFT)).astype(np.uint32)


def _packed_general(c2: np.ndarray) -> np.ndarray:
    """(N, 4) packed part values for counts >= 0 of any size (the slow path)."""
    _check_non_negative(c2)
    out = np.empty((c2.shape[0], 4), dtype=np.uint32)
    for j, cols in enumerate(_PART_COLS):
        pc = c2[:, cols].astype(np.int64)
        need = _need_general(pc, honors=(j == 3))
        out[:, j] = _pack(need, pc.sum(axis=1), (pc % 2).sum(axis=1))
    return out


MAX_EXTRA_COPIES = MAX_COUNT
"""Most copies above 4 a hand may hold in all (``counts`` of 5 or more: a fifth copy at face value). The slow
path's reduction (``tables.need_of``) branches at each such copy: one ``is_win`` of 11 of 5m took 0.28 s, of
14 of 5m 7.9 s, and of nine kinds held 7 times each had not ended after two minutes, where the hands tried
within this bound (8 of 5m, two kinds held 6 times, four held 5 times) took under 0.03 s each (the shared
2-core machine, 2026-12-07). It also keeps a hand under 256 tiles, which the packed tile field (one byte)
holds."""


def _check_general(c2: np.ndarray, extra: int = 0) -> None:
    """Refuse a hand holding more than MAX_EXTRA_COPIES copies above 4 (``extra``: the one ``waits`` may add),
    naming it by its row in ``c2``. Each count is capped before the int64 sum: a uint64 count of 2**63 or
    more read as negative in int64 (2**64 - 1 as -1: is_win answered False), and four counts of 2**62 summed
    to 0 (a RecursionError, or waits answering no wait)."""
    capped = np.minimum(c2, MAX_COUNT + MAX_EXTRA_COPIES + 1).astype(np.int64)
    above = np.maximum(capped - MAX_COUNT, 0).sum(axis=1)
    bad = (above > 0) & (above + extra > MAX_EXTRA_COPIES)
    if bad.any():
        row = int(np.argmax(bad))
        held = sum(max(int(x) - MAX_COUNT, 0) for x in c2[row].tolist())  # exact, in Python integers
        added = " and the tile waits adds" if extra else ""
        raise ValueError(f"counts above {MAX_COUNT} (a fifth copy at face value) are taken up to "
                         f"{MAX_EXTRA_COPIES} copies above {MAX_COUNT} in a hand "
                         f"(mj_env.hand.MAX_EXTRA_COPIES); hand {row} holds {held:,}{added}")


def _check_counts(c2: np.ndarray) -> None:
    """Refuse the counts ``_packed_parts`` refuses (``standard_need``'s, ``is_win``'s): a negative count, and more
    than MAX_EXTRA_COPIES copies above 4 in a hand. One reduction when every count is 0-4."""
    if not _in_table_range(c2):
        _check_non_negative(c2)
        _check_general(c2)


def _packed_parts(c2: np.ndarray) -> np.ndarray:
    """(N, 4) uint32 packed values of the four parts of each hand."""
    if _in_table_range(c2):
        return _tables.get("packed").take(_part_index(c2))
    _check_non_negative(c2)
    _check_general(c2)
    out = np.empty((c2.shape[0], 4), dtype=np.uint32)
    fast = (c2 >= 0).all(axis=1) & (c2 <= MAX_COUNT).all(axis=1)
    out[fast] = _tables.get("packed").take(_part_index(c2[fast]))
    out[~fast] = _packed_general(c2[~fast])
    return out


# --------------------------------------------------------------------------- deciding


def _sum_min(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Field-wise sum and the min (by the pair field) of the four parts. Column operations are
    several times faster than reductions over a length-4 axis."""
    a, b, c, d = P[:, 0], P[:, 1], P[:, 2], P[:, 3]
    return a + b + c + d, np.minimum(np.minimum(a, b), np.minimum(c, d))


def _decide(S, M, w, orphans, seven_pairs: bool):
    """The win decision from summed (S) and min (M) packed fields, wildcards w, and the
    thirteen-orphans need (or None): (N,) uint32 arrays for a batch, or Python integers for one
    hand (the small-batch path of ``is_win``); returns bool of the same kind."""
    total = ((S >> _TILES) & _BYTE) + w
    # standard: need0 summed over parts, plus the cheapest part's extra for the pair
    # (biased by +1 in the table; the bias moves to the right-hand side to stay unsigned)
    win = ((S & _BYTE) + (M >> _DIFF) <= w + _BIAS) & (total % 3 == 2)
    if seven_pairs or orphans is not None:
        full = total == 14
        if seven_pairs:
            win |= full & (((S >> _ODD) & _BYTE) <= w)
        if orphans is not None:
            win |= full & (orphans <= w)
    return win


# --------------------------------------------------------------------------- needs


def standard_need(counts) -> np.ndarray:
    """Fewest wildcards that make the natural tiles melds plus one pair. (..., 34) -> (...) int16.

    The pair may be two wildcards. Tile-count parity is not checked: the answer is the need of a
    hand of ``counts.sum() + need`` tiles, which has (sum + need - 2) / 3 melds.
    """
    c2, lead = _flat_counts(counts)
    S, M = _sum_min(_packed_parts(c2))
    need = (S & _BYTE).astype(np.int16) + (M >> _DIFF).astype(np.int16) - DIFF_BIAS
    return need.reshape(lead)


def seven_pairs_need(counts) -> np.ndarray:
    """Fewest wildcards for seven pairs: the number of odd counts (a four is two pairs).
    (..., 34) -> (...) int16. Meaningful for 14-tile hands (natural plus wild). Counts as ``is_win`` takes them:
    a negative count is refused (it was read by its parity), and counts above 4 up to MAX_EXTRA_COPIES."""
    c2, lead = _flat_counts(counts)
    _check_counts(c2)
    return (c2 & 1).sum(axis=1, dtype=np.int16).reshape(lead)


def _orphans_from_counts(t13: np.ndarray, stray: np.ndarray, extra_dragon: bool) -> np.ndarray:
    """Orphans need from the counts of the 13 orphan kinds (..., 13) and whether any other kind
    is held (...)."""
    two = t13 == 2
    n_two = two.sum(axis=-1)
    bad = stray | (t13 > 2).any(axis=-1) | (n_two > 1)
    if extra_dragon:  # the one doubled kind must be a dragon
        bad |= two[..., :_DRAGON_SLOTS.start].any(axis=-1)
    # a wildcard for each missing kind, and one for the 14th tile unless a kind is doubled
    need = (t13 == 0).sum(axis=-1) + (n_two == 0)
    return np.where(bad, IMPOSSIBLE, need).astype(np.int16)


def orphans_need(counts, extra_dragon: bool = True) -> np.ndarray:
    """Fewest wildcards for thirteen orphans, or IMPOSSIBLE. (..., 34) -> (...) int16.

    Impossible when a kind outside the 13 is held, a kind is held three times or more, two
    kinds twice, or (``extra_dragon``) the doubled kind is not a dragon. Counts as ``is_win`` takes them: a
    negative count is refused (-1 of a kind was read as missing it), and counts above 4 up to MAX_EXTRA_COPIES.
    """
    c2, lead = _flat_counts(counts)
    _check_counts(c2)
    return _orphans_need(c2, extra_dragon).reshape(lead)


def _orphans_need(c2: np.ndarray, extra_dragon: bool) -> np.ndarray:
    """``orphans_need`` of checked counts (N, 34) -> (N,) int16."""
    stray = (c2[:, _NON_ORPHAN] != 0).any(axis=1)
    return _orphans_from_counts(c2[:, ORPHAN_KINDS], stray, extra_dragon)


# --------------------------------------------------------------------------- wins and waits


def is_win(counts, wild, *, seven_pairs: bool = True, thirteen_orphans: bool = False,
           extra_dragon: bool = True) -> np.ndarray:
    """Whether each hand is a winning shape. counts (..., 34), wild (...) -> (...) bool.

    ``counts``: the concealed natural tiles, the winning tile included; ``wild``: wildcards held
    besides. Standard shape when (tiles + wild) % 3 == 2 and standard_need <= wild (the spare
    wildcards then make triplets of their own); seven pairs and thirteen orphans when
    tiles + wild == 14. Counts above 4 are allowed (a fifth copy at face value), up to MAX_EXTRA_COPIES
    copies above 4 in a hand; ``wild`` is at most MAX_WILD.
    """
    c2, lead = _flat_counts(counts)
    w = _flat_wild(wild, lead)
    P = _packed_parts(c2)
    if c2.shape[0] <= _SMALL:
        return _decide_few(P, w, c2, seven_pairs, thirteen_orphans, extra_dragon).reshape(lead)
    S, M = _sum_min(P)
    orphans = _orphans_need(c2, extra_dragon) if thirteen_orphans else None  # (c2 checked by _packed_parts)
    return _decide(S, M, w, orphans, seven_pairs).reshape(lead)


_SMALL = 2
"""Batches up to this size are decided on Python integers (``_decide_few``): a single-table engine
step checks one or two hands at a time, where the decision's dozen NumPy calls on length-1 arrays
cost more than the work (benchmarks/throughput.py, engine and AEC at one table)."""


def _decide_few(P: np.ndarray, w: np.ndarray, c2: np.ndarray, seven_pairs: bool, thirteen_orphans: bool,
                extra_dragon: bool) -> np.ndarray:
    """``_decide`` hand by hand on Python integers, from the packed parts ``P`` (n, 4) of the
    counts ``c2`` (n, 34); the thirteen-orphans need is computed only where nothing else wins."""
    out = np.zeros(len(P), dtype=bool)
    for i, (parts, wi) in enumerate(zip(P.tolist(), w.tolist())):
        S = sum(parts)
        win = _decide(S, min(parts), wi, None, seven_pairs)
        if not win and thirteen_orphans and ((S >> _TILES) & _BYTE) + wi == 14:
            win = _decide(S, min(parts), wi, int(_orphans_need(c2[i:i + 1], extra_dragon)[0]), False)
        out[i] = win
    return out


def waits(counts, wild, *, seven_pairs: bool = True, thirteen_orphans: bool = False,
          extra_dragon: bool = True) -> np.ndarray:
    """Which kinds win when added at face value. counts (..., 34), wild (...) -> (..., 34) bool.

    ``waits(c, w)[..., t] == is_win(c + e_t, w)`` for every kind t: shape only, so a kind the
    hand holds four of still counts when a fifth copy completes the shape. Only a hand of
    3k+1 tiles (natural plus wild) can have a wait.

    One batched computation: adding kind t changes only t's part, and the ``plus`` table holds
    a part's needs with one more of each of its kinds in one row; so a hand costs a few
    gathers and some (N, 36) byte operations, not 34 hand checks.
    """
    c2, lead = _flat_counts(counts)
    w = _flat_wild(wild, lead)
    kw = {"seven_pairs": seven_pairs, "thirteen_orphans": thirteen_orphans, "extra_dragon": extra_dragon}
    if not _in_table_range(c2):
        # counts outside 0-4 come from no real game: check all 34 extended hands directly
        _check_non_negative(c2)
        _check_general(c2, extra=1)
        plus = c2[:, None, :].astype(np.int16) + np.eye(N_KINDS, dtype=np.int16)
        return is_win(plus, w[:, None], **kw).reshape(lead + (N_KINDS,))

    n = c2.shape[0]
    idx = _part_index(c2)
    P = _tables.get("packed").take(idx)  # (N, 4)
    S, _ = _sum_min(P)
    # Per hand and part j, what the other three parts contribute: their need0 sum, and that
    # sum plus their cheapest pair extra (biased by +1 as in the table).
    need0 = P & _BYTE
    diff = P >> _DIFF
    d01, d23 = np.minimum(diff[:, 0], diff[:, 1]), np.minimum(diff[:, 2], diff[:, 3])
    diff_other = np.stack([np.minimum(diff[:, 1], d23), np.minimum(diff[:, 0], d23),
                           np.minimum(d01, diff[:, 3]), np.minimum(d01, diff[:, 2])], axis=1)
    need0_other = (S & _BYTE)[:, None] - need0
    # Each part's rows of the plus tables: its need0 and need1 with one more of each kind. The
    # need with t added is the cheaper of: the pair in another part, or in t's part. (N, 36):
    # 9 columns per part, flat so that every operation runs along one long contiguous axis.
    plus = _tables.get("plus")
    need = np.repeat((need0_other + diff_other).astype(np.uint8), SUIT_KINDS, axis=1)  # pair elsewhere
    need += plus[0].take(idx, axis=0).reshape(n, 4 * SUIT_KINDS)
    here = np.repeat((need0_other + _BIAS).astype(np.uint8), SUIT_KINDS, axis=1)  # pair in t's part
    here += plus[1].take(idx, axis=0).reshape(n, 4 * SUIT_KINDS)
    need = np.minimum(need, here, out=need)[:, :N_KINDS]  # honors have 7 kinds of 9: drop 2

    # a win needs the biased need <= wild + 1, and 3k+2 tiles with t; need >= 1, so a limit
    # of 0 rules a hand of the wrong size out in the same comparison
    total = ((S >> _TILES) & _BYTE) + w + 1
    limit = np.where(total % 3 == 2, np.minimum(w, 250) + DIFF_BIAS, 0).astype(np.uint8)
    win = need <= limit[:, None]
    if seven_pairs or thirteen_orphans:
        full = total == 14
        if seven_pairs:
            # one more t adds an odd count, or removes one where t was held an odd number of
            # times: odd + 1 - 2 * (c_t & 1) <= w holds for every t (0), for odd c_t (1), or none (2)
            excess = ((S >> _ODD) & _BYTE).astype(np.int32) + 1 - w.astype(np.int32)
            need_odd = np.where(~full | (excess > 2), 2, np.where(excess <= 0, 0, 1)).astype(c2.dtype)
            win |= (c2 & 1) >= need_odd[:, None]
        if thirteen_orphans:
            win[:, ORPHAN_KINDS] |= full[:, None] & (_orphans_plus_one(c2, extra_dragon) <= w[:, None])
    return win.reshape(lead + (N_KINDS,))


def _orphans_plus_one(c2: np.ndarray, extra_dragon: bool) -> np.ndarray:
    """(N, 13) thirteen-orphans need with one more of each orphan kind (IMPOSSIBLE where none)."""
    t13 = c2[:, ORPHAN_KINDS].astype(np.int16)
    once, twice = t13 == 1, t13 == 2
    n_two = twice.sum(axis=1, dtype=np.int16)[:, None] + once  # kinds held twice with t added
    bad = ((c2[:, _NON_ORPHAN] != 0).any(axis=1) | (t13 > 2).any(axis=1))[:, None]
    bad = bad | (t13 >= 2) | (n_two > 1)  # t held twice already makes three
    if extra_dragon:  # the doubled kind, held or made by t, must be a dragon
        bad |= twice[:, ~_IS_DRAGON].any(axis=1)[:, None] | (once & ~_IS_DRAGON)
    missing = (t13 == 0).sum(axis=1, dtype=np.int16)[:, None] - (t13 == 0)
    return np.where(bad, IMPOSSIBLE, missing + (n_two == 0))


def is_win_rules(counts, wild, rules) -> np.ndarray:
    """``is_win`` with the shapes a RuleSet allows (seven_pairs, thirteen_orphans,
    orphans_extra_dragon). counts (..., 34), wild (...) -> (...) bool."""
    return is_win(counts, wild, seven_pairs=rules.seven_pairs, thirteen_orphans=rules.thirteen_orphans,
                  extra_dragon=rules.orphans_extra_dragon)


def waits_rules(counts, wild, rules) -> np.ndarray:
    """``waits`` with the shapes a RuleSet allows. counts (..., 34), wild (...) -> (..., 34) bool."""
    return waits(counts, wild, seven_pairs=rules.seven_pairs, thirteen_orphans=rules.thirteen_orphans,
                 extra_dragon=rules.orphans_extra_dragon)


# --------------------------------------------------------------------------- distance


_SMALL_MAXPLUS = 200
"""``_maxplus`` of tables of at most this many columns (hands times stacked tables) takes all meld splits in one
gather, fewer NumPy calls: on one machine 0.4 of the loop's time at 32 columns, 0.85 at 200, even at 256, slower
above (the loop's calls cost the same for any size; the gather's copies grow)."""
_MELD_SPLITS: dict = {}


def _meld_splits(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(m1, m2, where each m starts) of every split m1 + m2 = m of m = 0..n-1 melds between two parts, m by m."""
    if n not in _MELD_SPLITS:
        first = np.array([m1 for m in range(n) for m1 in range(m + 1)])
        second = np.array([m - m1 for m in range(n) for m1 in range(m + 1)])
        _MELD_SPLITS[n] = (first, second, np.array([m * (m + 1) // 2 for m in range(n)]))
    return _MELD_SPLITS[n]


def _maxplus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Combine two parts' kept tables (5, 2, N): out[m, p] = max over m1 + m2 = m and
    p1 + p2 = p of a[m1, p1] + b[m2, p2] (melds and the pair shared out between the parts).
    The batch is the last axis, so every operation runs along long contiguous rows. The tables stay
    uint8 (the table's dtype: twice as fast as int16): no sum overflows, a hand keeps at most 14 tiles."""
    out = np.empty_like(a)
    if a[0, 0].size <= _SMALL_MAXPLUS:  # a few hands: all meld splits at once, fewer NumPy calls (same sums)
        first, second, starts = _meld_splits(a.shape[0])
        x, y = a[first], b[second]
        np.maximum.reduceat(x[:, 0] + y[:, 0], starts, axis=0, out=out[:, 0])
        np.maximum.reduceat(np.maximum(x[:, 0] + y[:, 1], x[:, 1] + y[:, 0]), starts, axis=0, out=out[:, 1])
        return out
    for m in range(a.shape[0]):
        a0, a1, b0, b1 = a[:m + 1, 0], a[:m + 1, 1], b[m::-1, 0], b[m::-1, 1]
        out[m, 0] = (a0 + b0).max(axis=0)
        out[m, 1] = np.maximum(a0 + b1, a1 + b0).max(axis=0)
    return out


def _with_part(acc: np.ndarray, part: np.ndarray) -> np.ndarray:
    """``_maxplus(acc, part[..., None])`` of a batch's tables acc (5, 2, N) and one part's table (5, 2); a part
    of zeros (the empty part) costs a running max, not the products."""
    if part.any():
        return _maxplus(acc, part[..., None])
    out = np.empty_like(acc)  # out[m, p] = max of acc[m1, p1] over m1 <= m, p1 <= p
    out[0, 0] = acc[0, 0]
    np.maximum(acc[0, 0], acc[0, 1], out=out[0, 1])
    for m in range(1, len(acc)):  # (row by row: maximum.accumulate down a strided axis is several times slower)
        np.maximum(out[m - 1, 0], acc[m, 0], out=out[m, 0])
        np.maximum(out[m - 1, 1], acc[m, 1], out=out[m, 1])
        np.maximum(out[m, 1], out[m, 0], out=out[m, 1])
    return out


def _melds_of(size: np.ndarray) -> np.ndarray:
    """The melds m of the 3m+2 target for hands of ``size`` tiles (natural plus wild); refuses a size that
    is 3k or above 14."""
    bad = (size % 3 == 0) | (size > 3 * MAX_MELDS + 2)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"tiles_to_win needs 3k+1 or 3k+2 tiles, at most 14 (natural plus wild); "
                         f"hand {i} has {int(size[i])}")
    return (size - 1) // 3


def tiles_to_win(counts, wild, *, seven_pairs: bool = True, thirteen_orphans: bool = False,
                 extra_dragon: bool = True) -> np.ndarray:
    """Fewest tiles to exchange before the hand wins. counts (..., 34), wild (...) -> (...) int16.

    Definition. Let n be the natural tiles and T = n + wild, which must be 3k+1 or 3k+2 and at
    most 14. The target is a winning shape of 3m+2 tiles, m = (T - 1) // 3: a 3k+2 hand keeps
    its size, a 3k+1 hand is allowed the one tile it is about to draw or claim. An exchange
    removes one natural tile and adds one tile of our choice (a wildcard's freedom; the added
    tile may be a fifth copy, as in ``waits``). ``tiles_to_win`` is the fewest exchanges after
    which the hand is a win (3k+2) or ready, i.e. has a wait (3k+1). Equivalently it is
    n - K, where K is the most natural tiles that fit into m melds and a pair (or, when
    T is 13 or 14, into seven pairs / thirteen orphans), every other slot being free.

    So 0 means ``is_win`` (3k+2) or ``waits(...).any()`` (3k+1); for a 14-tile hand without
    wildcards it is the riichi shanten number plus one, for a 13-tile hand the shanten number
    (where four copies of a kind are not special). Counts must be 0-4.
    """
    c2, lead = _flat_counts(counts)
    w = _flat_wild(wild, lead).astype(np.int64)  # (int16 read 2**16 wildcards as none: refused by size below)
    if not _in_table_range(c2):
        raise ValueError("tiles_to_win takes counts of 0-4 per kind")
    idx = _part_index(c2)
    S, _ = _sum_min(_tables.get("packed").take(idx))  # tile and odd-count sums, cheaply
    n = ((S >> _TILES) & _BYTE).astype(np.int16)
    size = n + w
    melds = _melds_of(size)

    best = np.empty(len(c2), dtype=np.int16)
    table = _tables.get("kept")
    for s in range(0, len(c2), _BLOCK):  # blocks: the (4, 5, 2, block) arrays stay in the cache
        kept = table.take(idx[s:s + _BLOCK], axis=0)  # (B, 4, 5, 2)
        kept = np.ascontiguousarray(kept.transpose(1, 2, 3, 0))  # (4, 5, 2, B) uint8: batch innermost
        acc = kept[0]
        for j in range(1, 4):
            acc = _maxplus(acc, kept[j])
        best[s:s + _BLOCK] = acc[melds[s:s + _BLOCK], 1, np.arange(kept.shape[-1])]

    full = size >= 13  # every tile concealed: the special shapes count
    if seven_pairs:
        singles = ((S >> _ODD) & _BYTE).astype(np.int16)
        best = np.where(full, np.maximum(best, _seven_pairs_kept(n, singles)), best)
    if thirteen_orphans:
        best = np.where(full, np.maximum(best, _orphans_kept(c2[:, ORPHAN_KINDS], extra_dragon)), best)
    return (n - best).astype(np.int16).reshape(lead)


def _seven_pairs_kept(n: np.ndarray, singles: np.ndarray) -> np.ndarray:
    """Natural tiles that fit seven pairs, of hands of ``n`` natural tiles, ``singles`` of them in odd counts."""
    pairs = np.minimum((n - singles) // 2, 7)  # whole pairs: a four is two
    return 2 * pairs + np.minimum(singles, 7 - pairs)


def _orphans_kept(t13: np.ndarray, extra_dragon: bool) -> np.ndarray:
    """Natural tiles that fit thirteen orphans, from the counts (N, 13) of the ORPHAN_KINDS."""
    doubled = t13[:, _DRAGON_SLOTS] if extra_dragon else t13
    return (t13 > 0).sum(axis=1, dtype=np.int16) + (doubled >= 2).any(axis=1)


def _int8_counts(counts) -> np.ndarray:
    """counts as int8 (the array itself when it is int8), or a ValueError where the cast would change a count:
    NumPy's cast wraps, so a count of 260 would be read as 4 and -252 as 4 (the functions below take 0-4).
    A shape other than (..., 34) is a ValueError naming it, and a masked entry is refused (``_counts_array``, as
    ``_flat_counts``: 33 columns failed in NumPy's reshape, "cannot reshape array of size 33 into shape (34)")."""
    c = _counts_array(counts)
    if c.dtype == np.int8:
        return c
    if c.dtype.kind not in "iufO":  # (a bool array was read as counts 0 and 1, which is_win refuses; a
        # structured one failed in NumPy's "Cannot compare structured or void to non-void arrays")
        raise TypeError(f"counts must be an integer array, got dtype {c.dtype}")
    with np.errstate(invalid="ignore"):  # (a float NaN or 2**63: NumPy warns, and the check below refuses it)
        out = c.astype(np.int8)
    if c.dtype.kind in "iu":  # by range, where comparing out with c took 11 times the cast (int64 counts):
        # one reduction of the unsigned view when no count is negative (0-127: the cast keeps them), else two
        changed = bool(c.size) and int(c.view(c.dtype.str.replace("i", "u")).max()) > 127 \
            and (c.dtype.kind == "u" or c.min() < -128 or c.max() > 127)
    else:  # (floats: 1.7, NaN)
        changed = bool(c.size) and not (out == c).all()
    if changed:
        bad = np.argwhere(out != c)[0]
        raise ValueError(f"counts must be whole numbers 0-4, got {c[tuple(bad)].item()!r} "
                         f"at index {tuple(bad.tolist())}")
    return out


def split_hui(counts: np.ndarray, hui: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(natural counts without the 惠牌, number of 惠牌). counts (..., 34), hui (...) kind or -1. Another hui is
    an error (a kind of 34 or more was read as none; True failed as a bool index, 2.7 as a float one)."""
    counts = _int8_counts(counts)
    lead = counts.shape[:-1]
    nat = counts.astype(np.int8).reshape(-1, N_KINDS)  # astype copies: the caller's counts stay as they are
    refuse_masked(hui, "hui")
    kind = np.broadcast_to(np.asarray(hui), lead).reshape(-1)
    if kind.dtype.kind not in "iu":
        raise TypeError(f"hui must be 惠牌 kinds 0-{N_KINDS - 1} or -1 (none) as integers, "
                        f"got dtype {kind.dtype}")
    rows = np.flatnonzero((kind >= 0) & (kind < N_KINDS))
    if len(rows) != len(kind) and np.count_nonzero(kind == -1) != len(kind) - len(rows):  # (the cheapest)
        bad = kind[(kind < -1) | (kind >= N_KINDS)][0]
        raise ValueError(f"hui must be a 惠牌 kind 0-{N_KINDS - 1} or -1 (none), got {bad.item()}")
    wild = np.zeros(len(nat), dtype=np.int8)
    wild[rows] = nat[rows, kind[rows]]
    nat[rows, kind[rows]] = 0
    return nat.reshape(counts.shape), wild.reshape(lead)[()]  # one hand: an int8 scalar, as before


NO_WIN = 20
"""``hand_distance`` of a hand that can no longer win: under 缺一门 its declared melds hold all three suits."""


def hand_distance(rules, counts: np.ndarray, hui: np.ndarray, meld_suits: np.ndarray | None = None) -> np.ndarray:
    """Distance of concealed hands: counts (..., 34) with the 惠牌 tiles in them, hui (...) the
    惠牌 kind or -1. Returns (...) int16 (``tiles_to_win`` with the rule set's shapes, and with
    缺一门 when ``rules.lack_suit``). The rule agent and the mj_obs_v2 planes both use it.

    ``meld_suits`` (..., 3) bool: the suits the hand's declared melds hold (tiles as they are; None:
    no melds). Under 缺一门 a suit a meld holds cannot be the one dropped; when the melds hold all
    three, the distance is `NO_WIN`."""
    counts = _int8_counts(counts)
    refuse_masked(hui, "hui")  # (before broadcast_to, which drops the mask)
    nat, wild = split_hui(counts, np.broadcast_to(hui, counts.shape[:-1]))
    kw = {"seven_pairs": rules.seven_pairs, "thirteen_orphans": rules.thirteen_orphans,
          "extra_dragon": rules.orphans_extra_dragon}
    if not rules.lack_suit:
        return tiles_to_win(nat, wild, **kw)
    return _lack_suit_distance(nat, wild, meld_suits, **kw)


def _lack_suit_distance(nat, wild, meld_suits, *, seven_pairs: bool, thirteen_orphans: bool,
                        extra_dragon: bool) -> np.ndarray:
    """``hand_distance`` under 缺一门: for each suit, ``tiles_to_win`` of the hand with that suit's tiles
    made free slots (still counted in the size), plus one exchange for each of them; the cheapest suit
    a declared meld does not hold. The parts are looked up once: dropping a suit swaps its part for
    the empty one, so the three drops share the other parts' tables."""
    c2, lead = _flat_counts(nat)
    w = _flat_wild(wild, lead).astype(np.int16)
    if not _in_table_range(c2):
        raise ValueError("tiles_to_win takes counts of 0-4 per kind")
    idx = _part_index(c2)
    packed = _tables.get("packed").take(idx)                          # (N, 4)
    n_part = ((packed >> _TILES) & _BYTE).astype(np.int16)
    odd_part = ((packed >> _ODD) & _BYTE).astype(np.int16)
    n = n_part.sum(axis=1, dtype=np.int16)
    size = n + w                     # the dropped suit's tiles stay in the size as free slots
    melds = _melds_of(size)
    table = _tables.get("kept")
    empty = table[_part_index(np.zeros((1, N_KINDS), dtype=np.int8))[0]]  # (4, 5, 2)
    kept_by_drop = np.empty((N_SUITS, len(c2)), dtype=np.int16)  # kept tiles with each suit dropped
    for s in range(0, len(c2), _BLOCK):  # blocks: the (4, 5, 2, block) arrays stay in the cache
        kept = np.ascontiguousarray(table.take(idx[s:s + _BLOCK], axis=0).transpose(1, 2, 3, 0))  # uint8
        rows = np.arange(kept.shape[-1])
        m = melds[s:s + _BLOCK]
        # the three drops share their products (max-plus combination is exact, in any order): the
        # suits and honors other than the dropped suit
        pair = _maxplus(kept[2], kept[3])
        accs = (_maxplus(kept[1], pair), _maxplus(kept[0], pair), _maxplus(_maxplus(kept[0], kept[1]), kept[3]))
        for suit, acc in enumerate(accs):
            kept_by_drop[suit, s:s + _BLOCK] = _with_part(acc, empty[suit])[m, 1, rows]  # dropped: no tiles
    full = size >= 13
    banned = None if meld_suits is None else np.asarray(meld_suits).reshape(-1, N_SUITS)
    best = np.full(len(c2), NO_WIN, dtype=np.int16)
    for suit in range(N_SUITS):
        kept_tiles = kept_by_drop[suit]
        rest = n - n_part[:, suit]
        if seven_pairs:
            singles = odd_part.sum(axis=1, dtype=np.int16) - odd_part[:, suit]
            kept_tiles = np.where(full, np.maximum(kept_tiles, _seven_pairs_kept(rest, singles)), kept_tiles)
        if thirteen_orphans:  # no preset has both; kept for a RuleSet that asks for it
            t13 = c2[:, ORPHAN_KINDS].copy()
            t13[:, 2 * suit:2 * suit + 2] = 0  # the suit's 1 and 9 (ORPHAN_KINDS lists the suits first)
            kept_tiles = np.where(full, np.maximum(kept_tiles, _orphans_kept(t13, extra_dragon)), kept_tiles)
        d = (rest - kept_tiles) + n_part[:, suit]   # exchanges for the rest, one per dropped tile
        if banned is not None:
            d = np.where(banned[:, suit], NO_WIN, d)
        best = np.minimum(best, d)
    return best.astype(np.int16).reshape(lead)


_ORPHAN_SLOT = np.full(N_KINDS, -1)
_ORPHAN_SLOT[ORPHAN_KINDS] = np.arange(_N_ORPHANS)


def _leave_one_out(kept: np.ndarray) -> np.ndarray:
    """(10, 5 * N) uint8 from the parts' tables kept (5, 2, 4, N): row 2 m + p, column j N + i the [m, p]
    entry of hand i's combination of the parts other than j (j = 0-3) or of all four (j = 4). Two calls of
    ``_maxplus`` on stacked tables (it is exact and commutative: any order gives the same)."""
    pairs = _maxplus(kept[:, :, [0, 2]], kept[:, :, [1, 3]])  # (5, 2, 2, N): parts 0+1 and 2+3
    low, high = pairs[:, :, :1], pairs[:, :, 1:]
    a = np.concatenate([kept[:, :, 1:2], kept[:, :, 0:1], low, low, low], axis=2)
    b = np.concatenate([high, high, kept[:, :, 3:4], kept[:, :, 2:3], high], axis=2)
    return _maxplus(a, b).reshape(2 * (MAX_MELDS + 1), -1)


def _last_entry(a: np.ndarray, b: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Entry [m, 1] of the combination (``_maxplus``) of tables a and b (10, V) (row 2 m + p), m (V,)."""
    at = np.zeros((MAX_MELDS + 1, len(m)), dtype=np.uint8)
    for M in np.flatnonzero(np.bincount(m, minlength=MAX_MELDS + 1)):  # only the meld counts asked for
        for m1 in range(M + 1):   # m1 + m2 = M melds, the pair in either
            m2 = M - m1
            np.maximum(at[M], np.maximum(a[2 * m1] + b[2 * m2 + 1], a[2 * m1 + 1] + b[2 * m2]), out=at[M])
    return at[m, np.arange(len(m))]


def _change_blocks(rows: np.ndarray, n_hands: int) -> Iterator[tuple[int, np.ndarray | slice]]:
    """(first hand, the changes of it and the next ``_BLOCK - 1`` hands) for each block of the ``n_hands`` base
    hands that some change of ``rows`` (the changed hands' base hands) touches: the changes of a block's hands
    together. Up to ``_BLOCK`` hands are one block and every change, as a slice."""
    if n_hands <= _BLOCK:
        yield 0, slice(None)
        return
    order = np.argsort(rows, kind="stable")
    bounds = np.searchsorted(rows[order], np.arange(0, n_hands + _BLOCK, _BLOCK))
    for b in range(len(bounds) - 1):
        if bounds[b + 1] > bounds[b]:
            yield b * _BLOCK, order[bounds[b]:bounds[b + 1]]


def _distance_changed_plainly(rules, counts, hui, meld_suits, rows, kinds, delta) -> np.ndarray:
    """``hand_distance_changed`` as its definition reads: the changed hands built and measured."""
    changed = counts[rows]
    changed[np.arange(len(rows)), kinds] += delta
    return hand_distance(rules, changed, hui[rows], None if meld_suits is None else np.asarray(meld_suits)[rows])


def _plain_indices(rows: np.ndarray, n_hands: int, kinds: np.ndarray) -> bool:
    """Whether rows and kinds are integer indices within 0 to n_hands - 1 and 0-33, as the fast path reads them.
    A negative index (from the end, in the plain call) or one out of range takes the plain call: its answer
    or its IndexError."""
    return (rows.ndim == 1 and kinds.shape == rows.shape and rows.dtype.kind in "iu" and kinds.dtype.kind in "iu"
            and int(rows.min()) >= 0 and int(rows.max()) < n_hands and int(kinds.min()) >= 0
            and int(kinds.max()) < N_KINDS)


def _index_array(values, name: str) -> np.ndarray:
    """``values`` (``rows``, ``kinds``) as an integer array, or a TypeError naming it: a float index failed as an
    IndexError naming nothing, and a bool was read as a mask or as 1. An empty list (NumPy's float64) is no
    change."""
    a = np.asarray(values)
    if a.size == 0:
        return a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integer indices, got dtype {a.dtype}")
    if (j := bool_among_ints(values)) is not None:
        raise TypeError(f"{name} must be integer indices, got {values[j]!r} at position {j}")
    return a


def hand_distance_changed(rules, counts: np.ndarray, hui: np.ndarray, meld_suits: np.ndarray | None,
                          rows: np.ndarray, kinds: np.ndarray, delta: int) -> np.ndarray:
    """``hand_distance(rules, counts[rows] + delta * eye[kinds], hui[rows], meld_suits[rows])`` (delta +1: a
    tile drawn; -1: a tile discarded) -> (len(rows),) int16, for many changes of the same few hands.

    Equal to that call, and cheaper: each hand's parts are looked up and combined once, leaving out one part
    at a time; a change touches one part (or only the wildcards, for the 惠牌 kind), so each changed hand
    costs one lookup and one last combination (under 缺一门, one for each dropped suit: ``_lack_suit_changed``).
    缺一门 with thirteen orphans (no preset), counts that leave 0-4 or a size ``tiles_to_win`` refuses, and rows
    or kinds that are not plain 0-based indices (negative, out of range) take that call as it is (its answer, or
    its error)."""
    if integer_value(delta) is None:  # (True was read as +1; 0.5 failed as a float index)
        raise TypeError(f"delta must be an integer (+1: a tile drawn, -1: a tile discarded), got {delta!r}")
    counts = _int8_counts(counts)
    rows, kinds = _index_array(rows, "rows"), _index_array(kinds, "kinds")
    refuse_masked(hui, "hui")
    hui = np.broadcast_to(np.asarray(hui), counts.shape[:-1])
    if (counts.ndim != 2 or len(rows) == 0 or not _plain_indices(rows, len(counts), kinds)
            or (rules.lack_suit and (rules.thirteen_orphans or not _kept_monotone()))):
        return _distance_changed_plainly(rules, counts, hui, meld_suits, rows, kinds, delta)
    nat, wild = split_hui(counts, hui)
    wild = np.asarray(wild, dtype=np.int16).reshape(-1)
    is_hui = kinds == hui[rows]
    after = nat[rows, kinds].astype(np.int16) + delta
    size = nat.sum(axis=1, dtype=np.int16)[rows] + wild[rows] + delta
    if (not _in_table_range(nat) or (~is_hui & ((after < 0) | (after > MAX_COUNT))).any()
            or (is_hui & (wild[rows] + delta < 0)).any() or ((size % 3 == 0) | (size > 3 * MAX_MELDS + 2)).any()):
        return _distance_changed_plainly(rules, counts, hui, meld_suits, rows, kinds, delta)
    idx = _part_index(nat)
    packed = _tables.get("packed").take(idx)
    nat_tile = ~is_hui
    step = np.where(nat_tile, delta, 0).astype(np.int16)
    melds = (size - 1) // 3
    part = np.where(nat_tile, _PART_OF[kinds], 4)  # the 惠牌 kind: the parts stay, only the wildcards change
    new_idx = idx[rows, np.minimum(part, 3)] + step * _PLACE_OF[kinds]
    if rules.lack_suit:
        return _lack_suit_changed(rules, idx, packed, rows, part, new_idx, step, after - step, size, melds,
                                  meld_suits)
    S, _ = _sum_min(packed)
    n0 = ((S >> _TILES) & _BYTE).astype(np.int16)
    table = _tables.get("kept")
    n = n0[rows] + step
    best = np.empty(len(rows), dtype=np.int16)
    for lo, sel in _change_blocks(rows, len(nat)):
        base = idx[lo:lo + _BLOCK]
        kept = np.ascontiguousarray(table.take(base, axis=0).transpose(2, 3, 1, 0))   # (5, 2, 4, B)
        others = _leave_one_out(kept).take(part[sel] * len(base) + rows[sel] - lo, axis=1)  # (10, V)
        new = table.take(new_idx[sel], axis=0).reshape(-1, 2 * (MAX_MELDS + 1))        # (V, 10)
        new = np.ascontiguousarray(new.T)                            # (10, V)
        m = melds[sel]
        v = np.arange(len(m))
        best[sel] = np.where(part[sel] == 4, others[2 * m + 1, v], _last_entry(others, new, m))  # 惠牌: all four
    full = size >= 13
    if rules.seven_pairs:
        singles0 = ((S >> _ODD) & _BYTE).astype(np.int16)
        odd = (after - step) % 2 == 1                              # the changed kind's count before
        singles = singles0[rows] + np.where(nat_tile, np.where(odd, -1, 1), 0).astype(np.int16)
        best = np.where(full, np.maximum(best, _seven_pairs_kept(n, singles)), best)
    if rules.thirteen_orphans:
        # _orphans_kept of the changed hands from the hands' own: the kinds held and the kinds held twice
        # (the dragons only, with extra_dragon) move only where the changed kind is one of them
        t13 = nat[:, ORPHAN_KINDS]
        twice = _IS_DRAGON if rules.orphans_extra_dragon else np.ones(_N_ORPHANS, dtype=bool)
        held = (t13 > 0).sum(axis=1, dtype=np.int16)[rows]
        doubled = ((t13 >= 2) & twice).sum(axis=1, dtype=np.int16)[rows]
        slot = _ORPHAN_SLOT[kinds]
        orphan = nat_tile & (slot >= 0)
        before = after - step
        held += orphan * ((after > 0).astype(np.int16) - (before > 0))
        doubled += (orphan & twice[slot]) * ((after >= 2).astype(np.int16) - (before >= 2))
        best = np.where(full, np.maximum(best, held + (doubled > 0)), best)
    return (n - best).astype(np.int16)


_MONOTONE: list = [None, False]


def _kept_monotone() -> bool:
    """Whether every entry of the ``kept`` table is at least the entries of fewer melds or no pair (true of the
    table by its definition: a slot may stay free) and the empty part's are 0, so that combining a
    combination with the empty part changes nothing. Checked once per table object (``_lack_suit_changed``
    relies on it; ``_lack_suit_distance`` combines with the empty part as it is)."""
    table = _tables.get("kept")
    if _MONOTONE[0] is not table:
        empty = table[_part_index(np.zeros((1, N_KINDS), dtype=np.int8))[0]]
        ok = (table[:, 1:] >= table[:, :-1]).all() and (table[:, :, 1] >= table[:, :, 0]).all() and not empty.any()
        _MONOTONE[:] = [table, bool(ok)]
    return _MONOTONE[1]


_PAIRS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
_PAIR_WITHOUT = np.full((4, 4), -1)  # [s, j]: the pair of parts other than s and j
for _k, (_a, _b) in enumerate(_PAIRS):
    _rest = sorted(set(range(4)) - {_a, _b})
    _PAIR_WITHOUT[_rest[0], _rest[1]] = _PAIR_WITHOUT[_rest[1], _rest[0]] = _k


def _lack_suit_changed(rules, idx, packed, rows, part, new_idx, step, before, size, melds, meld_suits) -> np.ndarray:
    """``hand_distance_changed`` under 缺一门 (``_lack_suit_distance`` of the changed hands), from the base
    hands' part indices idx (m, 4) and packed values (m, 4). For each dropped suit s the parts other than s are
    combined: the base hand's three (the changed part is s, or only the wildcards changed) or the two parts
    other than s and the changed one, with the changed one. The empty part of the dropped suit adds nothing
    (``_kept_monotone``)."""
    table = _tables.get("kept")
    nat_tile = part < 4
    j = np.minimum(part, 3)
    # (4, V) layouts: a row per part, so that the loops over suits read contiguous rows
    n_part = ((packed.T >> _TILES) & _BYTE).astype(np.int16).take(rows, axis=1)
    odd_part = ((packed.T >> _ODD) & _BYTE).astype(np.int16).take(rows, axis=1)
    v = np.arange(len(rows))
    flip = np.where(nat_tile, np.where(before % 2 == 1, -1, 1), 0).astype(np.int16)
    n_part[j, v] += step
    odd_part[j, v] += flip
    n = n_part[0] + n_part[1] + n_part[2] + n_part[3]
    odd = odd_part[0] + odd_part[1] + odd_part[2] + odd_part[3]
    full = size >= 13
    kept_by_drop = np.empty((N_SUITS, len(rows)), dtype=np.int16)
    for lo, sel in _change_blocks(rows, len(idx)):
        base = idx[lo:lo + _BLOCK]
        kept = np.ascontiguousarray(table.take(base, axis=0).transpose(2, 3, 1, 0))   # (5, 2, 4, B)
        pairs = _maxplus(kept[:, :, [a for a, _ in _PAIRS]], kept[:, :, [b for _, b in _PAIRS]])  # (5, 2, 6, B)
        threes = _maxplus(np.concatenate([kept[:, :, 1:2], kept[:, :, 0:1], pairs[:, :, 0:1]], axis=2),
                          np.concatenate([pairs[:, :, 5:6], pairs[:, :, 5:6], kept[:, :, 3:4]], axis=2))
        combos = np.concatenate([pairs, threes], axis=2).reshape(2 * (MAX_MELDS + 1), -1)  # (10, 9 B)
        new = np.ascontiguousarray(table.take(new_idx[sel], axis=0).reshape(-1, 2 * (MAX_MELDS + 1)).T)
        r, m, js, nt = rows[sel] - lo, melds[sel], j[sel], nat_tile[sel]
        w = np.arange(len(r))
        for suit in range(N_SUITS):
            own = ~nt | (js == suit)  # the parts other than the suit are the base hand's
            group = np.where(own, 6 + suit, _PAIR_WITHOUT[suit, js])
            others = combos.take(group * len(base) + r, axis=1)
            kept_by_drop[suit, sel] = np.where(own, others[2 * m + 1, w], _last_entry(others, new, m))
    banned = None if meld_suits is None else np.asarray(meld_suits).reshape(-1, N_SUITS).T.take(rows, axis=1)
    best = np.full(len(rows), NO_WIN, dtype=np.int16)
    for suit in range(N_SUITS):
        kept_tiles = kept_by_drop[suit]
        rest = n - n_part[suit]
        if rules.seven_pairs:
            singles = odd - odd_part[suit]
            kept_tiles = np.where(full, np.maximum(kept_tiles, _seven_pairs_kept(rest, singles)), kept_tiles)
        d = (rest - kept_tiles) + n_part[suit]
        if banned is not None:
            d = np.where(banned[suit], NO_WIN, d)
        best = np.minimum(best, d)
    return best.astype(np.int16)
