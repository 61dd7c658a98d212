"""Plain legality helpers of the reference engine (tests/ref_engine.py).

Written for clarity, not speed, and independent of ``mj_env/hand.py`` (the code they check).
A hand here is a count list of length 34 (index = tile kind, see ``mj_env/tiles.py``).
Wildcards (惠牌) are passed separately as a number: the caller removes them from the counts
first, so every tile left in the counts is a natural tile taken at face value.

Winning shapes are judged by the tests' one reference checker, ``ref_hand.is_win``; this module
only reads the rule set's shape fields for it.
"""
from __future__ import annotations

from ref_hand import is_win

# ---------------------------------------------------------------------------------------------
# Winning shapes
# ---------------------------------------------------------------------------------------------

def is_winning_shape(rules, counts, wild: int, n_melds: int) -> bool:
    """Do ``counts`` (natural concealed tiles) + ``wild`` wildcards, beside ``n_melds`` declared
    melds, make a winning shape of ``rules`` (standard; seven pairs and thirteen orphans where
    the rules have them, with no declared meld)? ValueError unless there are 14 - 3 x n_melds
    concealed tiles."""
    return is_win(counts, wild, melds=n_melds, seven_pairs=rules.seven_pairs,
                  thirteen_orphans=rules.thirteen_orphans, extra_dragon=rules.orphans_extra_dragon)


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
