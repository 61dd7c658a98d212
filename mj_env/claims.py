"""The claim window: who is asked about a discard (or an added kong's tile), in which order, with
which claims, and what an accepted claim does (docs/RULES.md 4.2; docs/game_flow.md, "After a
discard: the claim window").

A window is a queue of at most Q = 3 seats per table (state.py: ``queue_seat``, ``queue_cat``,
``q_pos``, ``q_len``): the seats with any claim, ordered by their best claim category (CAT_WIN,
then CAT_PONG_KONG, then CAT_CHI), then by play order from the discarder. The seat at ``q_pos``
is asked, offered its claims of a category better than the pending claim's (``pend_cat``) and
``pass``. An accepted claim that higher-priority seats could still beat waits as the pending
claim (``pend_action``, ``pend_seat``); seats it beats leave the queue.

Every function acts on a subset of tables ``idx`` (an int array, n tables) of a GameState and
only moves the window's state. The engine keeps the flow around it: it opens a window after a
discard or an added kong, records wins, and decides what follows when ``advance`` reports a
window closed (the hand ends, the added kong completes, the pending claim is carried out with
``take_meld`` and a replacement draw for a kong, or the next seat draws).

The claims between seats that a carried-out claim counts (``state.claims``) also decide 互包;
``hubao_bound`` is that rule, for the engine's settlement and the observation alike.
"""
from __future__ import annotations

import numpy as np

from . import actions as A
from .rules import RuleSet
from .state import (
    C_CHI,
    C_CHI_LOW,
    C_KONG,
    C_PONG,
    C_WIN,
    CAT_CHI,
    CAT_PONG_KONG,
    CAT_WIN,
    CLAIM_CATEGORY,
    MELD_CHI,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PONG,
    NO_CATEGORY,
    TURN,
    GameState,
    K,
    Q,
    S,
    seat_rows,
)

_CHI_ACTION = np.full(K + 3, -1, dtype=np.int64)
_CHI_ACTION[A.CHI_START] = A.CHI + np.arange(A.N_CHI)
"""_CHI_ACTION[t]: the chi action of the run starting at tile t (-1 where no run starts)."""
_PLACES = np.arange(Q)
_OFFSETS = np.arange(1, S)  # the other seats, in play order from the discarder


def hubao_bound(claimed, claimed_back, hubao_claims: int) -> np.ndarray:
    """互包: seats a and b are bound when a claimed ``hubao_claims`` or more discards from b, or b
    from a. ``claimed`` (...) is claims[a, b], ``claimed_back`` (...) claims[b, a], any integer
    arrays of one shape; returns (...) bool. (A seat never claims from itself, so a == b is never
    bound: ``hubao_claims`` is at least 1.)"""
    return (np.asarray(claimed) >= hubao_claims) | (np.asarray(claimed_back) >= hubao_claims)


def best_category(ok: np.ndarray) -> np.ndarray:
    """Each seat's best claim category from its claims ``ok`` (..., C) bool: (...) int,
    NO_CATEGORY for a seat with none."""
    return np.where(ok[..., C_WIN], CAT_WIN,
                    np.where(ok[..., C_PONG] | ok[..., C_KONG], CAT_PONG_KONG,
                             np.where(ok[..., C_CHI_LOW:].any(axis=-1), CAT_CHI, NO_CATEGORY)))


def open_window(st: GameState, idx, asker, tile, ok, phase: int) -> None:
    """Open a window (``phase`` CLAIM or ROB) on ``tile`` (n,) discarded or added to a kong by
    ``asker`` (n,), with every seat's claims ``ok`` (n, S, C): queue the seats that may claim
    and ask the first. Every table in ``idx`` must have a seat with a claim."""
    n = len(idx)
    rows = np.arange(n)[:, None]
    seats = (asker[:, None] + _OFFSETS[None, :]) % S                    # (n, 3) play order
    cats = best_category(ok)[rows, seats]                               # (n, 3)
    order = np.argsort(cats * S + _OFFSETS[None, :], axis=1, kind="stable")
    st.queue_seat[idx] = seats[rows, order]
    st.queue_cat[idx] = cats[rows, order]
    st.q_len[idx] = (cats < NO_CATEGORY).sum(axis=1)
    st.q_pos[idx] = 0
    st.claim_ok[idx] = ok
    st.claim_tile[idx] = tile
    st.pend_action[idx] = -1
    st.pend_cat[idx] = NO_CATEGORY
    st.winners[idx] = False
    st.turn_seat[idx] = asker
    st.phase[idx] = phase
    st.to_act[idx] = st.queue_seat[idx, 0]


def window_mask(st: GameState, idx, mask: np.ndarray) -> None:
    """Write into ``mask`` rows ``idx`` (cleared before) what the seat asked may do: its claims of
    a category better than the pending one, and ``pass``."""
    s = st.to_act[idx].astype(np.int64)
    ok = seat_rows(st.claim_ok, idx, s) & (CLAIM_CATEGORY[None, :] < st.pend_cat[idx, None])
    mask[idx, A.WIN] = ok[:, C_WIN]
    mask[idx, A.PONG] = ok[:, C_PONG]
    mask[idx, A.KONG] = ok[:, C_KONG]
    mask[idx, A.PASS] = True
    t = st.claim_tile[idx].astype(np.int64)
    for which, c in enumerate(C_CHI):      # the claimed tile is the run's lowest, middle, highest
        rows = np.flatnonzero(ok[:, c])
        mask[idx[rows], _CHI_ACTION[t[rows] - which]] = True


def _keep_better(st: GameState, idx, below) -> np.ndarray:
    """The seats after the one asked whose best category is ``below`` (n,) or worse leave the
    queue. Returns (n,) how many seats are still to be asked."""
    pos = st.q_pos[idx].astype(np.int64)
    keep = ((_PLACES[None, :] > pos[:, None]) & (_PLACES[None, :] < st.q_len[idx, None])
            & (st.queue_cat[idx] < below[:, None]))
    remaining = keep.sum(axis=1)
    st.q_len[idx] = pos + 1 + remaining    # the queue is sorted: the seats kept come next
    return remaining


def accept(st: GameState, idx, action, seat) -> np.ndarray:
    """The seat asked accepted the pong, exposed kong or chi ``action`` (n,). Seats that only a
    better claim would let in leave the queue. Returns (n,) bool: seats with a better claim are
    still to be asked, so the claim waits as the pending one (replacing any earlier); where
    False, the engine carries it out now (``take_meld``)."""
    cat = np.where(action >= A.CHI, CAT_CHI, CAT_PONG_KONG)
    pending = _keep_better(st, idx, cat) > 0
    p = idx[pending]
    st.pend_action[p] = action[pending]
    st.pend_seat[p] = seat[pending]
    st.pend_cat[p] = cat[pending]
    return pending


def accept_win(st: GameState, idx) -> None:
    """Several winners (``multiple_winners``, hebei): the seat asked accepted a win; the other seats
    that may win stay in the queue and are asked about the win only, the rest leave."""
    _keep_better(st, idx, np.full(len(idx), CAT_WIN + 1))
    st.pend_cat[idx] = CAT_WIN + 1


def advance(st: GameState, idx) -> np.ndarray:
    """The seat asked is done (passed, or its claim waits): ask the next seat in the queue.
    Returns the tables of ``idx`` whose queue is exhausted: their window closes."""
    st.q_pos[idx] += 1
    done = st.q_pos[idx] >= st.q_len[idx]
    ask = idx[~done]
    st.to_act[ask] = st.queue_seat[ask, st.q_pos[ask].astype(np.int64)]
    return idx[done]


def add_meld(st: GameState, idx, seat, kind, tile, frm, wild: int | np.ndarray = 0) -> None:
    """Declare a meld (a MELD_ type, scalar or (n,)) of ``tile`` (chi: the run's lowest) taken
    from seat ``frm`` (-1 for a concealed kong) at ``idx`` for ``seat``; ``wild`` as in
    ``state.meld_wild``. The tiles' counts are the caller's to move."""
    slot = st.n_melds[idx, seat].astype(np.int64)
    st.meld_wild[idx, seat, slot] = wild
    st.meld_type[idx, seat, slot] = kind
    st.meld_tile[idx, seat, slot] = tile
    st.meld_from[idx, seat, slot] = frm
    st.n_melds[idx, seat] += 1
    st.any_meld[idx] = True
    st.open_hand[idx, seat] |= np.asarray(kind) != MELD_CONCEALED_KONG


def take_meld(rules: RuleSet, st: GameState, idx, seat, action) -> None:
    """Carry out the accepted pong, exposed kong or chi ``action`` (n,) of ``seat`` (n,) on the
    claim tile: the tile leaves the discarder's river and forms a meld with the claimer's tiles
    (natural ones first, then 惠牌 with ``hui_wild_in_melds``); the claim is counted (互包), 烧庄
    ends, and it is the claimer's TURN (discard only after a pong or chi). A kong's replacement
    draw is the engine's."""
    d = st.turn_seat[idx].astype(np.int64)
    t = st.claim_tile[idx].astype(np.int64)
    st.river[idx, d, t] -= 1
    st.meld_counts[idx, seat, t] += 1
    hui = st.hui[idx].astype(np.int64)
    chi = action >= A.CHI
    same = ~chi
    if same.any():
        b, bs, bt = idx[same], seat[same], t[same]
        kong = action[same] == A.KONG
        need = np.where(kong, 3, 2)
        nat = np.minimum(st.hands[b, bs, bt], need)
        wild = need - nat
        st.hands[b, bs, bt] -= nat
        st.meld_counts[b, bs, bt] += nat
        if rules.hui_wild_in_melds and wild.any():
            bh = hui[same]
            st.hands[b, bs, bh] -= wild
            st.meld_counts[b, bs, bh] += wild
        add_meld(st, b, bs, np.where(kong, MELD_KONG, MELD_PONG), bt, d[same],
                 wild if rules.hui_wild_in_melds else 0)
        st.ponged[b, bs, bt] = ~kong
    if chi.any():
        b, bs, bt, bh = idx[chi], seat[chi], t[chi], hui[chi]
        start = A.CHI_START[action[chi] - A.CHI]
        wild_bits = np.zeros(len(b), dtype=np.int64)
        for k in range(3):
            o = start + k
            other = o != bt
            have = st.hands[b, bs, o] > 0
            use_nat = other & have
            use_wild = other & ~have
            st.hands[b[use_nat], bs[use_nat], o[use_nat]] -= 1
            st.meld_counts[b[use_nat], bs[use_nat], o[use_nat]] += 1
            st.hands[b[use_wild], bs[use_wild], bh[use_wild]] -= 1
            st.meld_counts[b[use_wild], bs[use_wild], bh[use_wild]] += 1
            wild_bits |= use_wild.astype(np.int64) << k
        add_meld(st, b, bs, MELD_CHI, start, d[chi], wild_bits)
    st.claims[idx, seat, d] += 1
    st.sz_alive[idx] = False
    st.turn_seat[idx] = seat
    st.to_act[idx] = seat
    st.drawn[idx] = -1
    st.after_kong[idx] = False
    st.last_draw[idx] = False
    st.claimed_turn[idx] = action != A.KONG
    st.phase[idx] = TURN
