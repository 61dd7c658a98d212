"""Third mutation round on mj_env/legal.py and mj_env/wall.py (the mutants left untried by the earlier
rounds): each test below fails under a small wrong change to one of those modules that the rest of the
suite let through, and states the rule (docs/RULES.md, or the documented contract of the function) that
the change breaks."""
from __future__ import annotations

import numpy as np

from mj_env import legal, wall
from mj_env.rules import BEIJING, HEBEI, QUEMEN
from mj_env.state import CLAIM, TURN, allocate
from mj_env.tiles import FIRST_FLOWER, index, parse_hand

ONE = np.array([0])
SEAT = np.array([1])

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


# fields a deal leaves alone: the episode's (hands played, match points) and the claim queue's scratch,
# read only below q_len / while pend_action >= 0, both of which the deal resets
_KEPT_ACROSS_DEALS = {"hands_played", "match_scores", "queue_seat", "queue_cat", "pend_seat"}
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
