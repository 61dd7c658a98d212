"""Plain legality helpers of the reference engine (tests/ref_engine.py).

Written for clarity, not speed, and independent of ``mj_env/hand.py`` (the code they check).
A hand here is a count list of length 34 (index = tile kind, see ``mj_env/tiles.py``).
Wildcards (惠牌) are passed separately as a number: the caller removes them from the counts
first, so every tile left in the counts is a natural tile taken at face value.
"""
from __future__ import annotations

from functools import lru_cache

N_KINDS = 34
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)  # 1/9 of each suit, 7 honors
DRAGONS = (31, 32, 33)  # 白 发 中


def is_suited(kind: int) -> bool:
    return kind < 27


def same_suit(a: int, b: int) -> bool:
    return is_suited(a) and is_suited(b) and a // 9 == b // 9


def sequence_starts_with(kind: int) -> list[int]:
    """First tiles of the sequences (runs of three in one suit) that contain ``kind``."""
    if not is_suited(kind):
        return []
    return [s for s in (kind - 2, kind - 1, kind) if s >= 0 and same_suit(s, kind) and s % 9 <= 6]


# ---------------------------------------------------------------------------------------------
# Winning shapes
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def melds_and_pair(counts: tuple, wild: int, need_pair: bool) -> bool:
    """Can the natural tiles ``counts`` plus ``wild`` wildcards be split into melds (triplets
    or sequences) and, when ``need_pair``, exactly one pair?

    Plain recursion on the lowest natural tile left: it must belong to a pair, a triplet or a
    sequence. Wildcards fill whatever members are missing. A natural tile is always used before
    a wildcard for the same member: swapping a wildcard for an equal natural tile used elsewhere
    gives another valid split, so this loses no solution.
    """
    first = next((k for k in range(N_KINDS) if counts[k] > 0), None)
    if first is None:
        # Only wildcards are left: they form the remaining melds (and pair) among themselves.
        return wild % 3 == (2 if need_pair else 0)

    def without(uses: dict) -> tuple:
        c = list(counts)
        for k, n in uses.items():
            c[k] -= n
        return tuple(c)

    # `first` in the pair: itself twice, or itself and a wildcard.
    if need_pair:
        naturals = min(2, counts[first])
        if 2 - naturals <= wild and melds_and_pair(without({first: naturals}), wild - (2 - naturals), False):
            return True
    # `first` in a triplet.
    naturals = min(3, counts[first])
    if 3 - naturals <= wild and melds_and_pair(without({first: naturals}), wild - (3 - naturals), need_pair):
        return True
    # `first` in a sequence; the lower members have no natural tile left, so wildcards fill them.
    for start in sequence_starts_with(first):
        uses, wild_needed = {}, 0
        for k in (start, start + 1, start + 2):
            if counts[k] > 0:
                uses[k] = 1
            else:
                wild_needed += 1
        if first in uses and wild_needed <= wild:
            if melds_and_pair(without(uses), wild - wild_needed, need_pair):
                return True
    return False


def could_be_melds_and_pair(counts, wild: int) -> bool:
    """A quick necessary condition for ``melds_and_pair`` (a speed-up only).

    Every meld and the pair lie within one group: a suit, or a single honor kind. So each group
    must be filled up by wildcards to a size of 0 (mod 3), and one group (the pair's) to 2
    (mod 3). This counts the fewest wildcards that sizes alone demand.
    """
    groups = [sum(counts[9 * s: 9 * s + 9]) for s in range(3)] + [counts[k] for k in range(27, N_KINDS)]
    to_melds = [(-g) % 3 for g in groups]
    # Moving the pair into a group changes what it needs; a pair of wildcards alone costs 2.
    pair_extra = min([(2 - g) % 3 - m for g, m in zip(groups, to_melds)] + [2])
    return sum(to_melds) + pair_extra <= wild


def is_seven_pairs(counts, wild: int) -> bool:
    """14 concealed tiles as seven pairs: a four is two pairs; a wildcard pairs anything."""
    if sum(counts) + wild != 14:
        return False
    odd = sum(1 for c in counts if c % 2 == 1)
    return odd <= wild  # each odd count takes one wildcard; the wildcards left pair up


def is_thirteen_orphans(counts, wild: int, extra_dragon: bool) -> bool:
    """1 and 9 of each suit, the seven honors, plus one more (a dragon when ``extra_dragon``)."""
    if sum(counts) + wild != 14:
        return False
    if any(counts[k] > 0 for k in range(N_KINDS) if k not in ORPHANS):
        return False
    missing = sum(1 for k in ORPHANS if counts[k] == 0)
    doubles = [k for k in ORPHANS if counts[k] >= 2]
    if any(counts[k] > 2 for k in ORPHANS) or len(doubles) > 1:
        return False
    if doubles and extra_dragon and doubles[0] not in DRAGONS:
        return False
    # Wildcards fill the missing orphans, and the extra tile when no natural one is doubled.
    return missing + (0 if doubles else 1) == wild


def is_winning_shape(rules, counts, wild: int, n_melds: int) -> bool:
    """Do ``counts`` (natural concealed tiles) + ``wild`` wildcards, beside ``n_melds`` declared
    melds, make a winning shape of ``rules`` (standard, seven pairs, thirteen orphans)?"""
    if sum(counts) + wild != 14 - 3 * n_melds:
        raise ValueError(f"a hand with {n_melds} melds has {14 - 3 * n_melds} concealed tiles "
                         f"when it wins, not {sum(counts) + wild}")
    if could_be_melds_and_pair(counts, wild) and melds_and_pair(tuple(counts), wild, True):
        return True
    if n_melds == 0 and rules.seven_pairs and is_seven_pairs(counts, wild):
        return True
    if n_melds == 0 and rules.thirteen_orphans and is_thirteen_orphans(counts, wild, rules.orphans_extra_dragon):
        return True
    return False


def lacks_a_suit(counts) -> bool:
    """At most two of the three suits m, p, s among ``counts`` (honors are free; 缺一门)."""
    present = [any(counts[9 * s + n] > 0 for n in range(9)) for s in range(3)]
    return sum(present) <= 2


# ---------------------------------------------------------------------------------------------
# Melds
# ---------------------------------------------------------------------------------------------

def tiles_for_meld(hand, needed: list[int], hui, hui_fills: bool):
    """The tiles a claimer takes from ``hand`` to supply the kinds in ``needed`` (the meld's tiles
    other than the claimed one), or None if the hand cannot.

    Natural tiles (at face value, a 惠牌-kind tile included) are spent first; with ``hui_fills``
    (rule ``hui_wild_in_melds``) 惠牌 then fill the kinds still missing.
    """
    left = list(hand)
    taken, missing = [], 0
    for k in needed:
        if left[k] > 0:
            left[k] -= 1
            taken.append(k)
        else:
            missing += 1
    if missing == 0:
        return taken
    if not hui_fills or hui is None or left[hui] < missing:
        return None
    return taken + [hui] * missing
