"""Plain legality helpers of the reference engine (tests/ref_engine.py).

Written for clarity, not speed, and independent of ``mj_env/hand.py`` (the code they check).
A hand here is a count list of length 34 (index = tile kind, see ``mj_env/tiles.py``).
Wildcards (惠牌) are passed separately as a number: the caller removes them from the counts
first, so every tile left in the counts is a natural tile taken at face value.
"""
from __future__ import annotations

from functools import cache

N_KINDS = 34
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)  # 1/9 of each suit, 7 honors
DRAGONS = (31, 32, 33)  # 白 发 中


# ---------------------------------------------------------------------------------------------
# Winning shapes
# ---------------------------------------------------------------------------------------------

def melds_and_pair(counts, wild: int, need_pair: bool = True) -> bool:
    """Can the natural tiles ``counts`` plus ``wild`` wildcards be split into melds (triplets
    or sequences) and, when ``need_pair``, exactly one pair?

    A meld or pair never mixes groups (a suit, or one honor kind), so each group is split on its
    own (`fewest_wildcards`) and the wildcards are shared out: one group holds the pair (or two
    wildcards alone make it), the others melds only. Wildcards left over form triplets among
    themselves: the tile count (3k + 2) makes their number a multiple of 3.
    """
    groups = [tuple(counts[9 * s: 9 * s + 9]) for s in range(3)] + [(counts[k],) for k in range(27, N_KINDS)]
    for_melds = [fewest_wildcards(g, False) for g in groups]
    needed = sum(for_melds)
    if need_pair:
        needed += min([fewest_wildcards(g, True) - m for g, m in zip(groups, for_melds)] + [2])
    return needed <= wild


@cache
def fewest_wildcards(group: tuple, need_pair: bool) -> int:
    """The fewest wildcards that turn one group into melds (and one pair when ``need_pair``).

    ``group``: the 9 counts of a suit, or ``(count,)`` for one honor kind (no sequences).
    Plain recursion on the lowest tile left: it is in the pair, a triplet or a sequence, and
    wildcards fill the members that are missing. A natural tile is always used before a wildcard
    for the same member: swapping a wildcard for an equal natural tile used elsewhere gives
    another valid split, so this loses no solution.
    """
    first = next((k for k in range(len(group)) if group[k] > 0), None)
    if first is None:
        return 2 if need_pair else 0  # only the pair is left to make, of two wildcards

    def without(*members) -> tuple:
        g = list(group)
        for k in members:
            g[k] -= 1
        return tuple(g)

    options = []
    if need_pair:  # `first` in the pair: twice, or once with a wildcard
        naturals = min(2, group[first])
        options.append(2 - naturals + fewest_wildcards(without(*[first] * naturals), False))
    naturals = min(3, group[first])  # `first` in a triplet
    options.append(3 - naturals + fewest_wildcards(without(*[first] * naturals), need_pair))
    if len(group) == 9:  # `first` in a sequence; the members below it have no tile left
        for start in range(max(0, first - 2), min(first, 6) + 1):
            members = [k for k in (start, start + 1, start + 2) if group[k] > 0]
            options.append(3 - len(members) + fewest_wildcards(without(*members), need_pair))
    return min(options)


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
    if melds_and_pair(counts, wild):
        return True
    if n_melds > 0:
        return False  # seven pairs and thirteen orphans hold no declared meld
    return ((rules.seven_pairs and is_seven_pairs(counts, wild))
            or (rules.thirteen_orphans and is_thirteen_orphans(counts, wild, rules.orphans_extra_dragon)))


def lacks_a_suit(counts) -> bool:
    """At most two of the three suits m, p, s among ``counts`` (honors are free; 缺一门)."""
    return sum(1 for s in range(3) if any(counts[9 * s: 9 * s + 9])) <= 2


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
