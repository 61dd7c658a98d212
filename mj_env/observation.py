"""Observations: count planes seen from the acting seat, for many tables at once.

Layout ``OBS_NAME`` = "mj_obs_v1": an array (N_PLANES, 34) uint8 per table. Seat offsets are
relative to the acting seat: 0 = self, 1 = the next seat (下家), 2 = opposite, 3 = the previous.

::

    plane  content (one value per tile kind unless said otherwise)
    0      own concealed hand, counts 0-4
    1-4    melds of offset 0-3: tiles lying in chi, pong, exposed and added kongs, counts;
           own concealed kongs are in plane 1, others' concealed kongs are face down (row 13)
    5-8    river of offset 0-3: discards not claimed, counts
    9      indicator 惠坯 (one-hot; zero without 惠牌)
    10     惠牌 kind (one-hot; zero without 惠牌)
    11     tile being claimed: the discard (claim window) or the added kong's tile (rob window)
    12     tile drawn this turn (own turn only)
    13     scalars, by column:
             0 live tiles left   1 replacement tiles left (beijing: the reserve)
             2 dealer offset     3 phase (0 own turn, 1 claim window, 2 rob window)
             4 must discard (turn after own chi/pong)   5 offset of the discarder / kong declarer
             6 烧庄 rounds      7 烧庄 still alive      8 seats bound to self by 互包
             9-11 互包 with offset 1-3 (0/1)            12-15 concealed kongs of offset 0-3
             16-19 报听 of offset 0-3                   20-23 flowers of offset 0-3
             24 no discard yet and no meld by anyone (天和/地和 timing)
             25 best claim category still open (0 win, 1 pong/kong, 2 chi, 3 any)
             26-29 discards self claimed from offset 0-3   30-33 discards offset 0-3 claimed from self

Nothing of another seat's concealed hand or of the wall order reaches an observation.
"""
from __future__ import annotations

import numpy as np

from .rules import RuleSet
from .state import CLAIM, ROB, TURN, GameState, K
from .wall import live_left

OBS_NAME = "mj_obs_v1"
N_PLANES = 14
OBS_SHAPE = (N_PLANES, K)


def observe(rules: RuleSet, st: GameState, idx=None, seats=None, out=None) -> np.ndarray:
    """Observations (n, N_PLANES, 34) uint8 of ``seats`` (default: the seat to act) at ``idx``.

    ``out`` may be a preallocated (n, N_PLANES, 34) uint8 array to fill.
    """
    if idx is None:
        idx = np.arange(st.num_tables)
    n = len(idx)
    seats = st.to_act[idx].astype(np.int64) if seats is None else np.asarray(seats, dtype=np.int64)
    obs = np.empty((n, N_PLANES, K), dtype=np.uint8) if out is None else out
    rows = np.arange(n)
    rel = (seats[:, None] + np.arange(4)[None, :]) % 4          # (n, 4) absolute seat of offset k
    flat = (idx[:, None] * 4 + rel)                             # rows of the (B*4, K) seat arrays
    by_seat = lambda a: np.take(a.reshape(-1, K), flat, axis=0)
    obs[:, 0] = np.take(st.hands.reshape(-1, K), flat[:, 0], axis=0)
    obs[:, 1:5] = by_seat(st.meld_counts)
    n_hidden = np.take(st.n_hidden.reshape(-1), flat)           # (n, 4) concealed kongs
    h = np.flatnonzero(n_hidden[:, 1:].any(axis=1))
    if len(h):                                                   # others' concealed kongs face down
        obs[h, 2:5] -= by_seat(st.hidden)[h, 1:].astype(np.uint8)
    obs[:, 5:9] = by_seat(st.river)
    obs[:, 9:14] = 0
    phase = st.phase[idx]
    if rules.hui:
        obs[rows, 9, st.indicator[idx]] = 1
        obs[rows, 10, st.hui[idx]] = 1
    asking = (phase == CLAIM) | (phase == ROB)
    a = np.flatnonzero(asking)
    obs[a, 11, st.claim_tile[idx[a]]] = 1
    own = np.flatnonzero((phase == TURN) & (st.drawn[idx] >= 0) & (st.turn_seat[idx] == seats))
    obs[own, 12, st.drawn[idx[own]]] = 1
    sc = obs[:, 13]
    sc[:, 0] = live_left(rules, st, idx)
    if rules.hui:
        sc[:, 1] = np.maximum(st.tail_pos[idx] - (st.wall.shape[1] - 2 - rules.reserve), 0)
    else:
        sc[:, 1] = np.maximum(st.tail_pos[idx] + 1 - st.live_pos[idx], 0)
    sc[:, 2] = (st.dealer[idx] - seats) % 4
    sc[:, 3] = np.minimum(phase, 2)
    sc[:, 4] = st.claimed_turn[idx]
    sc[:, 5] = np.where(asking, (st.turn_seat[idx] - seats) % 4, 0)
    sc[:, 6] = st.sz_rounds[idx]
    sc[:, 7] = st.sz_alive[idx]
    claims = st.claims.reshape(-1, 4)                            # rows: (table, claimer)
    by_self = claims[flat[:, :1], rel]                                        # self from offset k
    from_self = claims[flat, seats[:, None]]                                  # offset k from self
    if rules.hubao:
        bound = (by_self >= rules.hubao_claims) | (from_self >= rules.hubao_claims)
        bound[:, 0] = False
        sc[:, 9:12] = bound[:, 1:]
        sc[:, 8] = np.count_nonzero(bound, axis=1)
    else:
        sc[:, 8:12] = 0
    sc[:, 12:16] = n_hidden
    sc[:, 16:20] = np.take(st.ting.reshape(-1), flat)
    sc[:, 20:24] = np.take(st.flowers.reshape(-1), flat)
    sc[:, 24] = (st.n_discards[idx, seats] == 0) & ~st.any_meld[idx]
    sc[:, 25] = np.where(asking, st.pend_cat[idx], 3)
    sc[:, 26:30] = by_self
    sc[:, 30:34] = from_self
    return obs


_REL = np.array([[(s + k) % 4 for k in range(4)] for s in range(4)])
"""_REL[seat] = the absolute seats of offsets 0-3."""


def observe_one(rules: RuleSet, st: GameState, b: int, seat: int) -> np.ndarray:
    """The observation (N_PLANES, 34) uint8 of ``seat`` at table ``b``: the same planes as
    ``observe``, written with a few small slices (the single-table AEC path, where the fixed
    cost of the batched gathers dominates); tested equal to ``observe``."""
    o = np.zeros((N_PLANES, K), dtype=np.uint8)
    o[0] = st.hands[b, seat]
    sc = o[13]
    phase = int(st.phase[b])
    asking = phase in (CLAIM, ROB)
    rel = _REL[seat]
    o[1:5] = st.meld_counts[b, rel]
    if st.n_hidden[b].any():
        o[2:5] -= st.hidden[b, rel[1:]].astype(np.uint8)
    o[5:9] = st.river[b, rel]
    sc[12:16] = st.n_hidden[b, rel]
    sc[16:20] = st.ting[b, rel]
    sc[20:24] = st.flowers[b, rel]
    by_self, from_self = st.claims[b, seat, rel], st.claims[b, rel, seat]
    sc[26:30] = by_self
    sc[30:34] = from_self
    if rules.hubao:
        bound = (by_self >= rules.hubao_claims) | (from_self >= rules.hubao_claims)
        bound[0] = False
        sc[9:12] = bound[1:]
        sc[8] = bound.sum()
    if rules.hui:
        o[9, st.indicator[b]] = 1
        o[10, st.hui[b]] = 1
    if asking:
        o[11, st.claim_tile[b]] = 1
    if phase == TURN and st.drawn[b] >= 0 and st.turn_seat[b] == seat:
        o[12, st.drawn[b]] = 1
    one = np.array([b])
    sc[0] = live_left(rules, st, one)[0]
    if rules.hui:
        sc[1] = max(int(st.tail_pos[b]) - (st.wall.shape[1] - 2 - rules.reserve), 0)
    else:
        sc[1] = max(int(st.tail_pos[b]) + 1 - int(st.live_pos[b]), 0)
    sc[2] = (int(st.dealer[b]) - seat) % 4
    sc[3] = min(phase, 2)
    sc[4] = st.claimed_turn[b]
    sc[5] = (int(st.turn_seat[b]) - seat) % 4 if asking else 0
    sc[6] = st.sz_rounds[b]
    sc[7] = st.sz_alive[b]
    sc[24] = st.n_discards[b, seat] == 0 and not st.any_meld[b]
    sc[25] = st.pend_cat[b] if asking else 3
    return o


__all__ = ["N_PLANES", "OBS_NAME", "OBS_SHAPE", "observe", "observe_one"]
