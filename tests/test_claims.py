"""mj_env.claims: the claim window's queue order, pending claims, several winners, the offered
actions, and the 互包 binding, on hand-set states (docs/game_flow.md, "After a discard")."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env import claims
from mj_env.rules import BEIJING
from mj_env.state import (
    C_CHI,
    C_CHI_HIGH,
    C_CHI_LOW,
    C_CHI_MID,
    C_KONG,
    C_PONG,
    C_WIN,
    CAT_CHI,
    CAT_PONG_KONG,
    CAT_WIN,
    CLAIM,
    MELD_PONG,
    NO_CATEGORY,
    TURN,
    C,
    allocate,
)

ONE = np.array([0])


def window(discarder: int, offers: dict, tile: int = 4):
    """A state with one table whose claim window on ``tile`` is open; ``offers``: seat -> claim kinds."""
    st = allocate(1, 136)
    ok = np.zeros((1, 4, C), dtype=bool)
    for seat, kinds in offers.items():
        ok[0, seat, list(kinds)] = True
    claims.open_window(st, ONE, np.array([discarder]), np.array([tile]), ok, CLAIM)
    return st


def queue(st) -> list[tuple[int, int]]:
    """(seat, best category) of the places still to be asked, the one asked first."""
    places = range(int(st.q_pos[0]), int(st.q_len[0]))
    return [(int(st.queue_seat[0, q]), int(st.queue_cat[0, q])) for q in places]


def offered(st) -> list[str]:
    mask = np.zeros((1, A.N_ACTIONS), dtype=bool)
    claims.window_mask(st, ONE, mask)
    return [A.name(a) for a in np.flatnonzero(mask[0])]


QUEUES = [
    # discarder, claims per seat, queue: wins in play order, then pong/kong, then chi
    (0, {1: [C_CHI_LOW], 2: [C_PONG], 3: [C_WIN]}, [(3, CAT_WIN), (2, CAT_PONG_KONG), (1, CAT_CHI)]),
    (2, {3: [C_WIN], 0: [C_WIN, C_PONG]}, [(3, CAT_WIN), (0, CAT_WIN)]),
    (3, {2: [C_WIN], 1: [C_WIN], 0: [C_CHI_MID, C_PONG, C_KONG]},
     [(1, CAT_WIN), (2, CAT_WIN), (0, CAT_PONG_KONG)]),
    (1, {2: [C_CHI_HIGH]}, [(2, CAT_CHI)]),
]


@pytest.mark.parametrize("discarder, offers, want", QUEUES)
def test_queue_order(discarder, offers, want):
    st = window(discarder, offers)
    assert queue(st) == want
    assert int(st.to_act[0]) == want[0][0] and int(st.turn_seat[0]) == discarder
    assert st.pend_action[0] == -1 and st.pend_cat[0] == NO_CATEGORY


def test_best_category_of_each_seat():
    ok = np.zeros((4, C), dtype=bool)
    ok[0, [C_WIN, C_PONG]] = ok[1, C_KONG] = ok[2, C_CHI_MID] = True
    assert claims.best_category(ok).tolist() == [CAT_WIN, CAT_PONG_KONG, CAT_CHI, NO_CATEGORY]


def test_the_seat_asked_is_offered_its_claims_and_pass():
    st = window(0, {1: [C_CHI_LOW, C_CHI_MID, C_CHI_HIGH, C_PONG]}, tile=4)  # 5m
    assert offered(st) == ["pass", "pong", "chi 345m", "chi 456m", "chi 567m"]


def test_a_claim_beaten_by_a_later_seat_waits_as_pending():
    # seat 1 may chi, seat 3 may pong: seat 3 is asked first (pong beats chi)
    st = window(0, {1: [C_CHI_LOW], 2: [C_WIN], 3: [C_PONG]})
    assert queue(st) == [(2, CAT_WIN), (3, CAT_PONG_KONG), (1, CAT_CHI)]
    assert claims.advance(st, ONE).size == 0  # seat 2 passes the win
    pending = claims.accept(st, ONE, np.array([A.PONG]), np.array([3]))
    assert not pending[0]  # nobody better is left: carried out at once
    assert queue(st) == [(3, CAT_PONG_KONG)]   # seat 1's chi left the queue


def test_a_claim_that_a_later_seat_could_beat_waits_as_pending():
    # the next seat may win or chi 5m; seat 2 may pong it
    st = window(0, {1: [C_WIN, C_CHI_LOW], 2: [C_PONG]}, tile=4)
    assert queue(st) == [(1, CAT_WIN), (2, CAT_PONG_KONG)]
    assert offered(st) == ["win", "pass", "chi 567m"]
    chi = A.index("chi 567m")
    assert claims.accept(st, ONE, np.array([chi]), np.array([1]))[0]  # seat 2's pong beats a chi
    assert (st.pend_action[0], st.pend_seat[0], st.pend_cat[0]) == (chi, 1, CAT_CHI)
    assert claims.advance(st, ONE).size == 0 and int(st.to_act[0]) == 2
    assert offered(st) == ["pass", "pong"]  # only what beats the pending chi
    passed = st.copy()
    assert claims.advance(passed, ONE).tolist() == [0]  # seat 2 passes: the window closes on the chi
    # seat 2 pongs instead: nobody is left who could beat it, so it is carried out at once
    assert not claims.accept(st, ONE, np.array([A.PONG]), np.array([2]))[0]



def test_a_kong_beats_a_pending_chi_as_a_pong_does():
    """A kong claim is of the pong/kong category (CLAIM_CATEGORY): like a pong it is still offered
    to a later seat over a chi accepted and pending."""
    st = window(0, {1: [C_WIN, C_CHI_LOW], 2: [C_PONG, C_KONG]}, tile=4)
    assert claims.accept(st, ONE, np.array([A.index("chi 567m")]), np.array([1]))[0]
    assert claims.advance(st, ONE).size == 0 and int(st.to_act[0]) == 2
    assert offered(st) == ["pass", "pong", "kong"]


def test_several_winners_are_each_asked_about_the_win_only():
    st = window(0, {1: [C_WIN], 2: [C_WIN, C_PONG], 3: [C_PONG]})
    assert queue(st) == [(1, CAT_WIN), (2, CAT_WIN), (3, CAT_PONG_KONG)]
    claims.accept_win(st, ONE)
    assert queue(st) == [(1, CAT_WIN), (2, CAT_WIN)]  # the pong left
    assert claims.advance(st, ONE).size == 0 and int(st.to_act[0]) == 2
    assert offered(st) == ["win", "pass"]
    assert claims.advance(st, ONE).tolist() == [0]


def test_taking_a_pong_makes_a_meld_and_counts_the_claim():
    st = window(0, {2: [C_PONG]}, tile=4)
    st.river[0, 0, 4] = 1
    st.hands[0, 2, 4] = 2
    st.sz_alive[0] = True
    claims.take_meld(BEIJING, st, ONE, np.array([2]), np.array([A.PONG]))
    assert (st.hands[0, 2, 4], st.meld_counts[0, 2, 4], st.river[0, 0, 4]) == (0, 3, 0)
    assert (st.meld_type[0, 2, 0], st.meld_tile[0, 2, 0], st.meld_from[0, 2, 0]) == (MELD_PONG, 4, 0)
    assert st.claims[0, 2, 0] == 1 and st.ponged[0, 2, 4] and not st.sz_alive[0]
    assert (st.phase[0], st.to_act[0], st.claimed_turn[0]) == (TURN, 2, True)


HUBAO = [
    # claims[a, b] = discards a claimed from b; hubao_claims; bound pairs
    ({(0, 1): 3}, 3, {(0, 1)}),
    ({(1, 0): 3}, 3, {(0, 1)}),
    ({(0, 1): 2, (1, 0): 2}, 3, set()),          # claims in both directions do not add up
    ({(2, 3): 1, (3, 0): 4}, 1, {(2, 3), (0, 3)}),
    ({}, 1, set()),
]


@pytest.mark.parametrize("counts, n, want", HUBAO)
def test_hubao_binding(counts, n, want):
    c = np.zeros((4, 4), dtype=np.int8)
    for (a, b), k in counts.items():
        c[a, b] = k
    bound = claims.hubao_bound(c, c.T, n)
    assert {(a, b) for a in range(4) for b in range(a + 1, 4) if bound[a, b]} == want
    assert (bound == bound.T).all() and not bound.diagonal().any()
    # any leading shape: a batch of tables at once
    many = claims.hubao_bound(np.stack([c, c]), np.stack([c.T, c.T]), n)
    assert many.shape == (2, 4, 4) and (many == bound).all()


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_one_table_claim_options_equal_the_batched_path(preset):
    """legal.claim_options answers one table in plain Python; it must equal the batched path on every
    claim and rob window that random play reaches (every seat's claims, pong/kong/chi/win)."""
    from mj_env import legal
    from mj_env.baselines import uniform_legal
    from mj_env.engine import Engine
    from mj_env.state import ROB

    eng = Engine(preset, num_tables=32, seed=5)
    eng.reset()
    rng = np.random.default_rng(1)
    windows, offered = 0, 0
    for _ in range(400):
        st = eng.state
        for b in np.flatnonzero((st.phase == CLAIM) | (st.phase == ROB)).tolist():
            args = (np.array([b]), st.turn_seat[[b]].astype(np.int64), st.claim_tile[[b]].astype(np.int64))
            robbing = bool(st.phase[b] == ROB)
            one = legal.claim_options(eng.rules, st, *args, robbing=robbing)
            assert (one == legal.claim_options_batched(eng.rules, st, *args, robbing=robbing)).all()
            windows += 1
            offered += int(one.any())
        eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))
    assert windows > 200 and offered > 50


def test_a_discard_win_lacking_a_suit_counts_the_claimed_tile():
    """缺一门 with a 惠牌 wildcard (a custom rule set, beijing with ``lack_suit``): two suits in hand
    plus one 惠牌 would pair a discard of the third suit, but the winning hand, the claimed tile
    included, would hold all three suits (docs/RULES.md 5, quemen: at most two of the three suits)."""
    from mj_env import legal
    from mj_env.tiles import index, parse_hand

    rules = BEIJING.replace(lack_suit=True)
    st = allocate(1, 136)
    st.hui[0] = index("9p")
    st.hands[0, 1] = parse_hand("123456789m123p9p")
    seat = np.array([1])
    assert legal.discard_win(rules, st, ONE, seat, np.array([index("5p")]))[0]      # two suits: wins
    assert not legal.discard_win(rules, st, ONE, seat, np.array([index("1s")]))[0]  # the 1s is a third suit


@pytest.mark.parametrize("tile, which, run", [(1, C_CHI_MID, "chi 123m"), (0, C_CHI_LOW, "chi 123m"),
                                              (26, C_CHI_HIGH, "chi 789s")])
def test_every_chi_action_is_beaten_by_a_later_pong(tile, which, run):
    # docs/RULES.md 4.2: win > kong = pong > chi, for every chi action (123m is action A.CHI itself)
    st = window(0, {1: [C_WIN, which], 2: [C_PONG]}, tile=tile)
    chi = A.index(run)
    assert claims.accept(st, ONE, np.array([chi]), np.array([1]))[0]  # seat 2's pong beats the chi
    assert st.pend_cat[0] == CAT_CHI
    assert claims.advance(st, ONE).size == 0 and int(st.to_act[0]) == 2
    assert offered(st) == ["pass", "pong"]


@pytest.mark.parametrize("held, discard", [("8m1p2p", "9m"), ("9m1p", "8m"), ("8m9m", "1p"), ("9p1s2s", "9p"),
                                           ("8s9s", "1z"), ("2z3z", "1z"), ("5z6z", "7z")])
def test_a_chi_never_runs_across_a_suits_end_or_over_honors(held, discard):
    """docs/RULES.md 4.2: chi takes a discard that completes a sequence, and a sequence is three ranks of
    one suit. The next seat's tiles beside the discard in the 34-array (9m then 1p, 9s then 1z, winds
    and dragons) make no chi, on the one-table path and the batched path alike."""
    from mj_env import legal
    from mj_env.tiles import index, parse_hand

    st = allocate(1, 136)
    st.hands[0, 1] = parse_hand(held)
    args = (ONE, np.array([0]), np.array([index(discard)]))
    for options in (legal.claim_options, legal.claim_options_batched):
        assert not options(BEIJING, st, *args, robbing=False)[0, 1, list(C_CHI)].any(), options.__name__


def test_a_chi_at_a_suits_end_is_offered():
    """The counterpart of the test above, so that it cannot pass by offering no chi at all: 7m8m9m and
    1p2p3p are runs, each with the discard as low, middle or high tile."""
    from mj_env import legal
    from mj_env.tiles import index, parse_hand

    for held, discard, which in [("8m9m", "7m", C_CHI_LOW), ("7m9m", "8m", C_CHI_MID), ("7m8m", "9m", C_CHI_HIGH),
                                 ("2p3p", "1p", C_CHI_LOW), ("1p3p", "2p", C_CHI_MID), ("1p2p", "3p", C_CHI_HIGH)]:
        st = allocate(1, 136)
        st.hands[0, 1] = parse_hand(held)
        args = (ONE, np.array([0]), np.array([index(discard)]))
        for options in (legal.claim_options, legal.claim_options_batched):
            got = options(BEIJING, st, *args, robbing=False)[0, 1]
            assert got[which] and got[list(C_CHI)].sum() == 1, (held, discard, options.__name__)


def test_a_discarded_hui_counts_at_face_value_for_a_discard_win():
    """docs/RULES.md 5: a 惠牌 taken from a discard counts as its face value only. A hand waiting on 1s
    alone does not win on a discarded 9p when 9p is the 惠牌 (as a wildcard it would be the 1s)."""
    from mj_env import legal
    from mj_env.tiles import index, parse_hand

    st = allocate(1, 136)
    st.hui[0] = index("9p")
    st.hands[0, 1] = parse_hand("123456789m123p1s")
    seat = np.array([1])
    assert legal.discard_win(BEIJING, st, ONE, seat, np.array([index("1s")]))[0]
    assert not legal.discard_win(BEIJING, st, ONE, seat, np.array([index("9p")]))[0]


@pytest.mark.parametrize("win", ["self_draw", "discard"])
def test_lacking_a_suit_counts_the_declared_melds(win):
    """docs/RULES.md 5, quemen: the winning hand, declared melds included, holds at most two suits. A
    concealed 123m456m11z (one suit, honors free) with a declared pong of 5p and one of 9s holds three suits
    and may not win; with both pongs in the s suit it may."""
    from mj_env import legal
    from mj_env.rules import QUEMEN
    from mj_env.tiles import index, parse_hand

    seat = np.array([1])
    for pongs, want in [("555p999s", False), ("777s999s", True)]:
        st = allocate(1, 144)
        st.meld_counts[0, 1] = parse_hand(pongs)
        st.open_hand[0, 1] = True
        if win == "self_draw":
            st.hands[0, 1] = parse_hand("123m456m11z")
            assert legal.self_draw_win(QUEMEN, st, ONE, seat)[0] == want, pongs
        else:
            st.hands[0, 1] = parse_hand("123m456m1z")
            assert legal.discard_win(QUEMEN, st, ONE, seat, np.array([index("1z")]))[0] == want, pongs
