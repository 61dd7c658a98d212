"""Gaps found by a mutation round on mj_env/legal.py, mj_env/hand.py and mj_env/wall.py: each test below
fails under a small wrong change to one of those modules that the rest of the suite let through, and
states the rule (docs/RULES.md) that the change breaks."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import hand, legal
from mj_env.rules import BEIJING, QUEMEN
from mj_env.state import allocate
from mj_env.tiles import index, parse_hand

ONE = np.array([0])
SEAT = np.array([1])


# --------------------------------------------------------------------------- legal.py


def test_discard_win_itself_refuses_an_open_hand_where_only_concealed_hands_win_on_discards():
    """docs/RULES.md 5 (beijing): after a chi, pong or exposed kong a player may only win by self-draw.
    ``discard_win`` is the exact test (claim_options only pre-filters with it), so it must say no on
    its own: an open 123m456m789m1p hand waiting on 1p wins on a discarded 1p when concealed only."""
    st = allocate(1, 136)
    st.hui[0] = index("7z")                                    # a 惠牌 the hand does not hold
    st.hands[0, 1] = parse_hand("123m456m789m1p")
    one_p = np.array([index("1p")])
    assert legal.discard_win(BEIJING, st, ONE, SEAT, one_p)[0]         # concealed: wins on the discard
    st.open_hand[0, 1] = True
    assert not legal.discard_win(BEIJING, st, ONE, SEAT, one_p)[0]     # after a claim: self-draw only
    assert legal.discard_win(BEIJING.replace(discard_win_concealed_only=False), st, ONE, SEAT, one_p)[0]


def test_ting_discards_check_lacking_a_suit_only_where_the_rule_set_asks_for_it():
    """报听 (docs/RULES.md 6.4): a discard after which the hand waits on a tile whose win the rule set
    allows. Under quemen the win must lack a suit; a quemen variant with ``lack_suit=False`` keeps 报听
    but drops that condition, so a three-suit wait is a 报听 discard there and not under quemen."""
    st = allocate(1, 144)
    st.hands[0, 1] = parse_hand("123m456p789s1122z5z")        # discard 5z: waits on 1z / 2z, three suits
    five_z = index("5z")
    assert not legal.ting_discards(QUEMEN, st, ONE, SEAT)[0].any()
    got = legal.ting_discards(QUEMEN.replace(lack_suit=False), st, ONE, SEAT)[0]
    assert got[five_z] and got.sum() == 1


def test_chi_fill_takes_natural_tiles_only_where_hui_are_not_wild_in_melds():
    """docs/RULES.md 5: in chi the 惠牌 count at face value only (``hui_wild_in_melds=False``, beijing's
    default). ``chi_fill`` is that rule's test for one run: holding 1m and a 惠牌 (5p) does not chi a
    discarded 2m as 123m, while holding 1m and 3m does; with ``hui_wild_in_melds=True`` the 惠牌 fills
    the 3m and is reported as used."""
    st = allocate(1, 136)
    st.hui[0] = index("5p")
    two_m = np.array([index("2m")])
    st.hands[0, 1] = parse_hand("1m5p")
    ok, start, others, used = legal.chi_fill(BEIJING, st, ONE, SEAT, two_m, 1)
    assert not ok[0] and not used.any()
    ok, start, others, used = legal.chi_fill(BEIJING.replace(hui_wild_in_melds=True), st, ONE, SEAT, two_m, 1)
    assert ok[0] and used[0].tolist() == [False, True]
    st.hands[0, 1] = parse_hand("1m3m")
    ok, start, others, used = legal.chi_fill(BEIJING, st, ONE, SEAT, two_m, 1)
    assert ok[0] and start[0] == index("1m") and others[0].tolist() == [index("1m"), index("3m")]
    assert not used.any()


# --------------------------------------------------------------------------- hand.py


def test_hand_distance_under_lacking_a_suit_refuses_counts_above_four():
    """tiles_to_win takes counts of 0-4 per kind (a fifth copy has no table key); hand_distance under 缺一门
    (quemen) has its own lookup of the parts and must refuse such a hand the same way, not read a wrong key."""
    five = np.zeros(34, np.int8)
    five[0] = 5
    five[9:13] = 2
    with pytest.raises(ValueError, match="0-4"):
        hand.hand_distance(QUEMEN, five, -1)
    with pytest.raises(ValueError, match="0-4"):
        hand.hand_distance(BEIJING, five, -1)


def test_hand_distance_under_lacking_a_suit_takes_no_meld_suits():
    """hand_distance's ``meld_suits`` may be left out (None: no declared melds), also under 缺一门 (quemen),
    where it then equals passing no suit held. 123m456p789s1122z is ready but holds three suits: the cheapest
    drop trades one suit's 3 tiles (distance 3); 123m456m789m1122z lacks two suits and is ready (0)."""
    for held, want in [("123m456p789s1122z", 3), ("123m456m789m1122z", 0)]:
        counts = parse_hand(held)
        assert hand.hand_distance(QUEMEN, counts, -1) == want, held
        assert hand.hand_distance(QUEMEN, counts, -1, np.zeros(3, bool)) == want, held


# --------------------------------------------------------------------------- wall.py


def test_an_indicator_wall_without_hui_names_no_hui_kind():
    """GameState.hui is the 惠牌 kind, -1 without 惠牌 (mj_env/state.py). A beijing variant with ``hui=False``
    still turns the indicator up at wall[-1] (the indicator layout, docs/RULES.md 3) but has no 惠牌, so the
    deal leaves hui at -1; with 惠牌 it is the indicator's successor."""
    from mj_env.engine import Engine
    from mj_env.rules import get_rules
    from mj_env.tiles import hui_of_indicator

    for hui in (False, True):
        eng = Engine(get_rules("beijing", hui=hui), num_tables=3, seed=4)
        eng.reset()
        st = eng.state
        assert (st.indicator == st.wall[:, -1]).all()
        want = [hui_of_indicator(int(i)) if hui else -1 for i in st.indicator]
        assert st.hui.tolist() == want, hui
