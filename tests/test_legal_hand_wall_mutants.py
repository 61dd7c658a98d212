"""Gaps found by the mutation rounds on mj_env/legal.py, mj_env/hand.py and mj_env/wall.py: each test below
fails under a small wrong change to one of those modules that the rest of the suite let through, and states the rule
(docs/RULES.md, or the documented contract of the function) that the change breaks. Round 1 covered the three
modules, round 2 hand.py's count checks, round 3 legal.py and wall.py (the mutants left untried by the earlier
rounds; round 3 on hand.py is in tests/test_hand_mutants.py)."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import hand, legal, wall
from mj_env.rules import BEIJING, HEBEI, QUEMEN
from mj_env.state import CLAIM, TURN, allocate
from mj_env.tiles import FIRST_FLOWER, index, parse_hand

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


# ============================================================================= round 2
# --------------------------------------------------------------------------- hand.py


def _hands(*texts: str, dtype) -> np.ndarray:
    return np.array([parse_hand(t) for t in texts], dtype=dtype)


def test_count_checks_read_values_not_bytes_for_every_integer_dtype():
    """hand.py takes counts of any integer dtype (module docstring), and a count outside 0-4 is refused by
    tiles_to_win with an error that says so (docs/RULES.md 7). The one-pass range check reads int8 counts
    through an unsigned byte view; that shortcut is right for int8 only: a wider count read byte by byte
    looks in range (256 is bytes 0 and 1), and a batch whose kind axis is not contiguous (a Fortran-ordered
    or transposed array) cannot be viewed as bytes at all."""
    texts = ("123m456p789s11z22z", "1112345678999m", "19m19p19s1234567z", "1133557799m1p2z3z")
    c_int8 = _hands(*texts, dtype=np.int8)
    for dtype in (np.int16, np.int32, np.int64, np.uint16):
        strided = np.asfortranarray(c_int8.astype(dtype))          # kind axis not contiguous
        assert not strided.flags.c_contiguous
        assert hand.is_win(strided, 0).tolist() == hand.is_win(c_int8, 0).tolist(), dtype
        assert hand.standard_need(strided).tolist() == hand.standard_need(c_int8).tolist(), dtype
        ready = strided.copy(order="F")
        ready[:, 0] = np.maximum(ready[:, 0] - 1, 0)
        assert (hand.waits(ready, 0) == hand.waits(np.ascontiguousarray(ready).astype(np.int8), 0)).all(), dtype
    big = parse_hand("123m456p789s1122z").astype(np.int16)
    big[33] = 256                                                 # bytes 0, 1: in range byte by byte
    with pytest.raises(ValueError, match="0-4"):
        hand.tiles_to_win(big, 0)


def test_a_negative_count_is_refused_in_every_integer_dtype():
    """docs/RULES.md 7: bad input is refused with an error that names what is wrong. A negative count of a
    kind is such input, in an int8 hand and in a wider one (hand.py takes any integer dtype): is_win,
    standard_need, waits and tiles_to_win each raise ValueError rather than read a table key that belongs
    to some other hand."""
    for dtype in (np.int8, np.int16, np.int64):
        counts = parse_hand("123m456p789s1122z").astype(dtype)
        counts[0] = -1
        for fn in (lambda c: hand.is_win(c, 1), hand.standard_need, lambda c: hand.waits(c, 1),
                   lambda c: hand.tiles_to_win(c, 1)):
            with pytest.raises(ValueError):
                fn(counts)


# ============================================================================= round 3
# --------------------------------------------------------------------------- legal.py


def test_a_kind_held_four_times_with_a_pong_and_the_discard_is_no_baoting_wait():
    """报听 (docs/RULES.md 6.4; ``ting_discards``): a discard must leave the hand waiting on a tile that can
    still come. With a pong of 8m melded, discarding the fourth 8m from 123m456m79m11z+8m leaves the closed
    wait on 8m only, and all four 8m are the seat's own (three in the pong, one discarded): no 报听 discard.
    The same hand with a pong of 5z instead waits on an 8m that can come, so discarding 8m is one."""
    st = allocate(1, 144)
    st.hands[0, 1] = parse_hand("123m456m79m11z8m")
    eight_m = index("8m")
    st.meld_counts[0, 1] = parse_hand("888m")
    assert not legal.ting_discards(QUEMEN, st, ONE, SEAT)[0, eight_m]
    st.meld_counts[0, 1] = parse_hand("555z")
    assert legal.ting_discards(QUEMEN, st, ONE, SEAT)[0, eight_m]


def test_lacking_a_suit_counts_a_chi_meld_suit_even_where_the_hand_holds_the_same_tiles():
    """缺一门 (docs/RULES.md 5, ``lacks_a_suit_with_melds``): the concealed tiles and the melds together
    must miss a suit. A quemen variant with chi (``chi=True, ting=False``) may meld 123m; a hand that also
    holds 123m, 456p and 789s concealed holds all three suits and may not win, by self-draw or on a
    discard, however its concealed tiles mirror the meld's."""
    rules = QUEMEN.replace(chi=True, ting=False)
    st = allocate(1, 144)
    st.meld_counts[0, 1] = parse_hand("123m")
    st.open_hand[0, 1] = True
    st.hands[0, 1] = parse_hand("123m456p789s11z")
    assert not legal.self_draw_win(rules, st, ONE, SEAT)[0]
    st.hands[0, 1] = parse_hand("123m456p789s1z")
    assert not legal.discard_win(rules, st, ONE, SEAT, np.array([index("1z")]))[0]
    st.hands[0, 1] = parse_hand("123m456p789p11z")                 # two suits: the same hands win
    assert legal.self_draw_win(rules, st, ONE, SEAT)[0]
    st.hands[0, 1] = parse_hand("123m456p789p1z")
    assert legal.discard_win(rules, st, ONE, SEAT, np.array([index("1z")]))[0]


# --------------------------------------------------------------------------- wall.py


def _dealt(rules, n_tables: int):
    st = allocate(n_tables, rules.n_tiles)
    idx = np.arange(n_tables)
    walls = wall.shuffled_walls(rules, np.random.default_rng(7), n_tables)
    wall.deal(rules, st, idx, walls, np.zeros(n_tables, dtype=np.int64))
    return st, idx


def test_a_replacement_draw_with_no_replacement_tile_left_draws_nothing():
    """``wall.draw`` returns the tables where no tile could be drawn and leaves them as they were: a
    replacement draw takes only from the reserve (beijing: wall[reserve_start:-1]) or from the undrawn tiles
    (hebei), never a live tile below them. Asked for one table (the plain-Python path) or for two (the
    batched path), a table whose replacement tiles are spent draws nothing."""
    for rules in (BEIJING, HEBEI):
        for n_tables in (1, 2):
            st, idx = _dealt(rules, n_tables)
            st.turn_seat[idx] = 0
            st.tail_pos[idx] = wall.replacement_floor(rules, st, idx) - 1     # every replacement tile taken
            before = st.hands.copy(), st.tail_pos.copy(), st.replaced.copy()
            empty = wall.draw(rules, st, idx, True)
            assert empty.tolist() == [True] * n_tables, (rules.name, n_tables)
            assert (st.hands == before[0]).all() and (st.tail_pos == before[1]).all(), (rules.name, n_tables)
            assert (st.replaced == before[2]).all(), (rules.name, n_tables)


# fields a deal leaves alone: the episode's (hands played, match points); the claim queue and the pending
# claim get a new state's values (``state.clear_claims``), so they are checked with the rest
_KEPT_ACROSS_DEALS = {"hands_played", "match_scores"}
# fields that hold what happened in a hand (melds, discards, claims, wins, 报听, 烧庄): a new hand starts
# them empty, as ``allocate`` does
_EMPTY_AT_A_DEAL = ("meld_type", "meld_tile", "meld_from", "meld_wild", "n_melds", "meld_counts", "hidden",
                    "n_hidden", "river", "claimed_turn", "after_kong", "last_draw", "claim_tile", "claim_last",
                    "claim_ok", "q_pos", "q_len", "pend_action", "pend_cat", "winners", "win_from", "win_tile",
                    "robbed", "ting", "ready", "open_hand", "ponged", "n_discards", "any_meld", "sz_tile",
                    "sz_count", "sz_rounds", "claims")


def test_a_deal_at_a_table_that_played_before_starts_as_at_a_fresh_table():
    """``wall.deal`` deals new hands at tables ``idx``: nothing of the hand before may carry over (a 海底 flag,
    a 惠牌 kind, a meld, a claim window ...), and tables outside ``idx`` are not touched. Two tables of
    three dealt over a state whose every field holds junk end up field for field as the same two dealt over
    a fresh state, but for the fields the deal leaves alone by design; what records the hand's play starts
    empty."""
    for rules in (BEIJING, HEBEI, QUEMEN):
        walls = wall.shuffled_walls(rules, np.random.default_rng(3), 2)
        idx, dealers = np.array([0, 2]), np.array([1, 3])
        fresh = allocate(3, rules.n_tiles)
        wall.deal(rules, fresh, idx, walls, dealers)
        empty = allocate(3, rules.n_tiles)
        for name in _EMPTY_AT_A_DEAL:
            assert (getattr(fresh, name) == getattr(empty, name)).all(), (rules.name, name)
        used = allocate(3, rules.n_tiles)
        for name, arr in vars(used).items():
            arr[...] = True if arr.dtype == bool else 2
        junk = used.copy()
        wall.deal(rules, used, idx, walls, dealers)
        for name in vars(used):
            got, want = getattr(used, name), getattr(fresh, name)
            assert (got[1] == getattr(junk, name)[1]).all(), (rules.name, name, "table 1 was not dealt")
            if name not in _KEPT_ACROSS_DEALS:
                assert (got[idx] == want[idx]).all(), (rules.name, name)


def test_a_table_whose_last_tile_is_a_flower_with_no_replacement_is_drawn_out_and_left_as_it_was():
    """``wall.draw`` (quemen, flowers): a flower drawn is laid out and replaced from the tail; when the flower
    was the wall's last tile there is no replacement, and the table is reported as drawn out (荒牌, docs/RULES.md
    3). Only the tables that got a tile become that seat's TURN with the tile as ``drawn``: the drawn-out one
    keeps its phase, seat to act and last drawn tile."""
    st, idx = _dealt(QUEMEN, 2)
    st.turn_seat[idx] = 1
    st.phase[idx] = CLAIM
    st.to_act[idx] = 3
    st.drawn[idx] = index("9s")
    st.live_pos[0] = st.tail_pos[0]                              # one tile left at table 0 ...
    st.wall[0, st.live_pos[0]] = FIRST_FLOWER                    # ... and it is a flower
    st.wall[1, st.live_pos[1]] = index("1m")
    empty = wall.draw(QUEMEN, st, idx, False)
    assert empty.tolist() == [True, False]
    assert st.flowers[0, 1] == 1 and st.hands[0, 1].sum() == 13   # the flower is laid out, no tile comes
    assert (st.phase[0], st.to_act[0], st.drawn[0]) == (CLAIM, 3, index("9s"))
    assert (st.phase[1], st.to_act[1], st.drawn[1]) == (TURN, 1, index("1m"))
