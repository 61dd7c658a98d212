"""A slow, plainly correct reference for ``mj_env.hand``: recursive search, no tables.

This is the tests' one winning-shape checker: the reference engine (tests/ref_engine_rules.py)
and the reference scorers (tests/ref_scoring.py) ask it too, so that a hand is judged a win by
one plain piece of code everywhere outside ``mj_env``.

One hand at a time, as plain tuples of 34 counts. Nothing here is clever: every group that
can hold the lowest tile left is tried, with every choice of natural tile or wildcard for each
of its other slots. Only two facts are used, both plain from the rules: a meld never spans two
suits (or a suit and the honors), and a wildcard may be any tile, a fifth copy included, so
wildcards not needed by the natural tiles can make triplets (or the pair) of their own.
"""
from __future__ import annotations

from functools import cache
from itertools import product

N_KINDS = 34
INF = 10 ** 6
PARTS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))
"""(first kind, end, sequences allowed) of m, p, s and the honors."""
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
DRAGONS = (31, 32, 33)


def _groups(part: tuple[int, ...], sequences: bool, with_pair: bool):
    """Every group holding one copy of the lowest tile of ``part``.

    Yields (part left, wildcards used, 'meld' or 'pair'). A group's other slots are each
    either a natural tile (if one is left) or a wildcard.
    """
    i = next(k for k, c in enumerate(part) if c)
    for naturals in range(1, min(part[i], 3) + 1):  # triplet of i
        rest = list(part)
        rest[i] -= naturals
        yield tuple(rest), 3 - naturals, "meld"
    if with_pair:
        for naturals in range(1, min(part[i], 2) + 1):
            rest = list(part)
            rest[i] -= naturals
            yield tuple(rest), 2 - naturals, "pair"
    if sequences:
        for start in range(i - 2, i + 1):
            if start < 0 or start + 2 >= len(part):
                continue
            others = [q for q in (start, start + 1, start + 2) if q != i]
            for natural in product((False, True), repeat=2):
                if any(nat and part[q] == 0 for q, nat in zip(others, natural)):
                    continue
                rest = list(part)
                rest[i] -= 1
                for q, nat in zip(others, natural):
                    rest[q] -= nat
                yield tuple(rest), natural.count(False), "meld"


@cache
def part_need(part: tuple[int, ...], sequences: bool, pair: bool) -> int:
    """Fewest wildcards that make ``part`` complete melds, plus exactly one pair if ``pair``."""
    if not any(part):
        return 2 if pair else 0  # the pair, if still wanted, is two wildcards
    best = INF
    for rest, wild, kind in _groups(part, sequences, pair):
        best = min(best, wild + part_need(rest, sequences, pair and kind != "pair"))
    return best


def _ints(counts) -> tuple[int, ...]:
    """Counts as a tuple of Python ints (a tuple is taken to be one already)."""
    return counts if type(counts) is tuple else tuple(map(int, counts))


def _parts(counts: tuple[int, ...]) -> list[tuple[tuple[int, ...], bool]]:
    return [(counts[a:b], seq) for a, b, seq in PARTS]


def standard_need(counts) -> int:
    """Fewest wildcards for melds plus one pair: the pair in one part, melds in the others."""
    parts = _parts(_ints(counts))
    melds_only = [part_need(p, seq, False) for p, seq in parts]
    with_pair = [part_need(p, seq, True) for p, seq in parts]
    return sum(melds_only) + min(w - m for m, w in zip(melds_only, with_pair))


def seven_pairs_need(counts) -> int:
    """Each kind held an odd number of times needs one wildcard; a four is two pairs."""
    return sum(c % 2 for c in _ints(counts))


def orphans_need(counts, extra_dragon: bool = True) -> int:
    """Thirteen orphans: try every 14th tile; the hand's tiles must all fit the target."""
    counts = _ints(counts)
    best = INF
    for extra in (DRAGONS if extra_dragon else ORPHANS):
        target = [0] * N_KINDS
        for k in ORPHANS:
            target[k] = 1
        target[extra] += 1
        if all(c <= t for c, t in zip(counts, target)):
            best = min(best, sum(target) - sum(counts))
    return best


def is_win(counts, wild: int, *, seven_pairs=True, thirteen_orphans=False, extra_dragon=True,
           melds: int | None = None) -> bool:
    """The natural tiles ``counts`` and ``wild`` wildcards make a winning shape (docs/RULES.md 5):
    standard (melds + one pair), or, with all 14 tiles concealed, seven pairs (a four is two
    pairs) or thirteen orphans (the 14th tile a dragon when ``extra_dragon``).

    ``melds``: the declared melds beside these concealed tiles, if the caller wants the tile
    count checked: the concealed tiles must then number 14 - 3 x melds (ValueError otherwise).
    Either way seven pairs and thirteen orphans need 14 concealed tiles, i.e. no declared meld.
    """
    counts = _ints(counts)
    total = sum(counts) + wild
    if melds is not None and total != 14 - 3 * melds:
        raise ValueError(f"a hand with {melds} declared melds has {14 - 3 * melds} concealed tiles "
                         f"when it wins, not {total}")
    need = standard_need(counts)
    # the wildcards the natural tiles do not need must make whole triplets
    if need <= wild and (wild - need) % 3 == 0:
        return True
    if total == 14 and seven_pairs and seven_pairs_need(counts) <= wild:
        return True
    return total == 14 and thirteen_orphans and orphans_need(counts, extra_dragon) <= wild


def waits(counts, wild: int, **kw) -> list[bool]:
    """For each kind t: adding one t at face value makes a winning shape."""
    counts = _ints(counts)
    return [is_win(counts[:t] + (counts[t] + 1,) + counts[t + 1:], wild, **kw) for t in range(N_KINDS)]


# --------------------------------------------------------------------------- tiles to win


@cache
def part_kept(part: tuple[int, ...], sequences: bool, melds: int, pair: bool) -> int:
    """Most tiles of ``part`` that fit into ``melds`` melds and (if ``pair``) one pair."""
    if not any(part):
        return 0
    i = next(k for k, c in enumerate(part) if c)
    rest = list(part)
    rest[i] -= 1
    best = part_kept(tuple(rest), sequences, melds, pair)  # this copy of i is given up
    for rest, wild, kind in _groups(part, sequences, pair):
        size = 2 if kind == "pair" else 3
        if kind == "meld" and melds == 0:
            continue
        kept = size - wild + part_kept(rest, sequences, melds - (kind == "meld"), pair and kind != "pair")
        best = max(best, kept)
    return best


def kept_standard(counts, melds: int) -> int:
    """Most natural tiles that fit into ``melds`` melds and a pair, shared out between parts: for each
    part that may hold the pair, every way to give the parts their melds, part by part."""
    parts = _parts(_ints(counts))
    best = 0
    for pair_part in range(len(parts)):
        # kept[m]: most tiles the parts so far keep with m melds between them
        kept = [0] + [-1] * melds
        for j, (p, seq) in enumerate(parts):
            kept = [max(kept[m - k] + part_kept(p, seq, k, j == pair_part) for k in range(m + 1) if kept[m - k] >= 0)
                    for m in range(melds + 1)]
        best = max(best, kept[melds])
    return best


def tiles_to_win(counts, wild: int, *, seven_pairs=True, thirteen_orphans=False, extra_dragon=True) -> int:
    """Natural tiles minus the most that can stay in a winning shape of 3m+2 tiles."""
    counts = [int(c) for c in counts]
    n = sum(counts)
    size = n + wild
    assert size % 3 != 0 and size <= 14
    melds = (size - 1) // 3
    kept = kept_standard(counts, melds)
    if size >= 13 and seven_pairs:
        # seven pair slots: whole pairs first (two tiles each), then lone tiles (one each)
        pairs = min(sum(c // 2 for c in counts), 7)
        lone = sum(c % 2 for c in counts)
        kept = max(kept, 2 * pairs + min(lone, 7 - pairs))
    if size >= 13 and thirteen_orphans:
        for extra in (DRAGONS if extra_dragon else ORPHANS):
            target = [1 if k in ORPHANS else 0 for k in range(N_KINDS)]
            target[extra] += 1
            kept = max(kept, sum(min(c, t) for c, t in zip(counts, target)))
    return n - kept


def lack_suit_tiles_to_win(counts, wild: int, meld_suits=(False, False, False), **kw) -> int:
    """``tiles_to_win`` under 缺一门: drop the cheapest suit, each of its natural tiles one exchange (a
    free slot); a suit a declared meld holds cannot be dropped; with none left, 20 (``hand.NO_WIN``)."""
    best = 20
    for suit in range(3):
        if meld_suits[suit]:
            continue
        cols = range(9 * suit, 9 * suit + 9)
        dropped = sum(int(counts[k]) for k in cols)
        rest = [0 if k in cols else int(c) for k, c in enumerate(counts)]
        best = min(best, tiles_to_win(rest, wild + dropped, **kw) + dropped)
    return best


def tiles_to_win_literal(counts, wild: int, **kw) -> int:
    """``tiles_to_win`` by its definition: the fewest natural tiles to give up, each replaced by a
    tile of our choice (a wildcard), before the hand wins (3k+2) or has a wait (3k+1).
    Exponential; for small hands or hands close to a win."""
    counts = [int(c) for c in counts]
    ready = (lambda c, w: is_win(c, w, **kw)) if (sum(counts) + wild) % 3 == 2 else (
        lambda c, w: any(waits(c, w, **kw)))
    level = {tuple(counts)}
    for k in range(sum(counts) + 1):
        if any(ready(list(c), wild + k) for c in level):
            return k
        level = {c[:t] + (c[t] - 1,) + c[t + 1:] for c in level for t in range(N_KINDS) if c[t]}
    raise AssertionError("unreachable: giving up every tile leaves only wildcards")
