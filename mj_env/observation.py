"""Observations: count planes seen from the acting seat, for many tables at once.

Layout ``OBS_NAME`` = "mj_obs_v1": an array (N_PLANES, 34) uint8 per table. Seat offsets are
relative to the acting seat: 0 = self, 1 = the next seat (下家), 2 = opposite, 3 = the previous.
The names below (``P_`` planes, ``COL_`` columns of the scalar plane) are the layout; a slice
covers the four seat offsets (or, for ``COL_HUBAO``, offsets 1-3).

::

    plane  name          content (one value per tile kind unless said otherwise)
    0      P_HAND        own concealed hand, counts 0-4
    1-4    P_MELDS       melds of offset 0-3: tiles lying in chi, pong, exposed and added kongs,
                         counts; own concealed kongs are in plane 1, others' concealed kongs are
                         face down (COL_CONCEALED_KONGS)
    5-8    P_RIVERS      river of offset 0-3: discards not claimed, counts
    9      P_INDICATOR   the indicator 惠坯 (one-hot; zero with the tail wall layout)
    10     P_HUI         惠牌 kind (one-hot; zero without 惠牌)
    11     P_CLAIM       tile being claimed: the discard (claim window) or the added kong's tile
                         (rob window)
    12     P_DRAWN       tile drawn this turn (own turn only; after a flower or a kong, the
                         replacement tile, also for the dealer's 14th tile at the deal)
    13     P_SCALARS     scalars, by column:

    column  name                   content
    0       COL_LIVE_LEFT          live tiles left
    1       COL_REPLACEMENTS_LEFT  replacement tiles left (indicator layout: the reserve)
    2       COL_DEALER             dealer offset
    3       COL_PHASE              the table's phase: 0 a seat's own turn (also when another seat is
                                   to act on its turn), 1 claim window, 2 rob window; 2 also once
                                   the hand has ended (a final observation, whose mask is pass)
    4       COL_MUST_DISCARD       1 from a chi or pong until the next draw: on the claimer's turn it
                                   must discard (or 报听); in the claim window on that discard it
                                   says the discard followed a claim
    5       COL_ASKER              offset of the discarder / kong declarer (0 on own turn)
    6       COL_SZ_ROUNDS          烧庄 rounds
    7       COL_SZ_ALIVE           烧庄 still alive
    8       COL_HUBAO_COUNT        seats bound to self by 互包
    9-11    COL_HUBAO              互包 with offset 1-3 (0/1)
    12-15   COL_CONCEALED_KONGS    concealed kongs of offset 0-3
    16-19   COL_TING               报听 of offset 0-3
    20-23   COL_FLOWERS            flowers of offset 0-3
    24      COL_FIRST_TURN         this seat has not discarded yet and nobody has melded (天和/地和
                                   timing; per seat: others' discards do not clear it)
    25      COL_CLAIM_CATEGORY     claim window: the category of a claim already accepted on this tile
                                   and waiting for the seats asked first (1 pong/kong, 2 chi: only
                                   better claims are offered now); 1 also once a co-winner accepted a
                                   win (several winners: only win is offered); shown to the seat
                                   asked only (another seat's claim not yet carried out is hidden
                                   from the seats not asked); 3 none, for a seat not asked, and
                                   whenever no seat is asked about a tile (own turn)
    26-29   COL_CLAIMED_BY_SELF    discards self claimed from offset 0-3
    30-33   COL_CLAIMED_FROM_SELF  discards offset 0-3 claimed from self

Nothing of another seat's concealed hand or of the wall order reaches an observation, with one
exception that the rules make: a claim window opens only when some seat has a legal claim
(docs/RULES.md 4.2: a player with no legal claim is not asked). So a seat observed while another seat is asked
about a discard (``COL_PHASE`` 1, the tile in ``P_CLAIM``), or reading whose turn it is
(``agent_selection``, the vector env's ``seat``), learns that some seat may claim that tile: that
it holds a pair of it (with ``hui_wild_in_melds``, or fewer and 惠牌 to fill in), waits on it, or, under
chi rules (beijing), that the next seat holds two tiles of a run with it (with ``hui_wild_in_melds``, or fewer
and 惠牌 to fill in). A rob window (``COL_PHASE`` 2,
the added kong's tile in ``P_CLAIM``; docs/RULES.md 4.4) opens likewise only when some seat may win on
that tile, so it tells that some seat waits on it. A seat's own decisions are never told more than that.
The seat asked learns from its mask and ``COL_CLAIM_CATEGORY`` that a claim it could beat is pending (the
rules ask it for better claims only); the seats not asked are not told of that claim until it is carried out.

In the v2 layout (``mj_env.features``) the tiles a seat has seen are its hand, every meld, every
river and the indicator; the tile of an added kong being robbed (``P_CLAIM`` in a rob window) is the
fourth of a kind whose other three lie in the declarer's pong, and is counted as unseen there.

``observe`` builds the planes of many tables with batched gathers; ``observe_one`` builds the
same planes of one table from a few slices (the single-table AEC path, where the batched
gathers' fixed cost is most of the work). Both use the names above and the same helpers
(``claims.hubao_bound``, ``wall.live_left``, ``wall.replacements_left``); a test holds them equal.
"""
from __future__ import annotations

import numpy as np

from .claims import hubao_bound
from .messages import brief, shown
from .rules import RuleSet
from .state import CLAIM, NO_CATEGORY, ROB, TURN, GameState, K, S, bool_among_ints, refuse_masked, seat_rows
from .wall import live_left, replacements_left

OBS_NAME = "mj_obs_v1"
N_PLANES = 14
OBS_SHAPE = (N_PLANES, K)

P_HAND = 0
P_MELDS = slice(1, 1 + S)
P_RIVERS = slice(5, 5 + S)
P_INDICATOR = 9
P_HUI = 10
P_CLAIM = 11
P_DRAWN = 12
P_SCALARS = 13

N_SCALARS = K
COL_LIVE_LEFT = 0
COL_REPLACEMENTS_LEFT = 1
COL_DEALER = 2
COL_PHASE = 3
COL_MUST_DISCARD = 4
COL_ASKER = 5
COL_SZ_ROUNDS = 6
COL_SZ_ALIVE = 7
COL_HUBAO_COUNT = 8
COL_HUBAO = slice(9, 12)
COL_CONCEALED_KONGS = slice(12, 12 + S)
COL_TING = slice(16, 16 + S)
COL_FLOWERS = slice(20, 20 + S)
COL_FIRST_TURN = 24
COL_CLAIM_CATEGORY = 25
COL_CLAIMED_BY_SELF = slice(26, 26 + S)
COL_CLAIMED_FROM_SELF = slice(30, 30 + S)

_OTHER_MELDS = slice(P_MELDS.start + 1, P_MELDS.stop)  # melds of offsets 1-3
_REL = np.array([[(s + k) % S for k in range(S)] for s in range(S)])
"""_REL[seat] = the absolute seats of offsets 0-3."""


def _checked_ints(values, what: str, lo: int, hi: int, n: int | None) -> np.ndarray:
    """``values`` as a 1-D int64 array (of ``n`` entries unless None), each in lo-hi, or a ValueError."""
    refuse_masked(values, what)
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):  # ragged lists
        arr = np.asarray(None)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu") or (n is not None and len(arr) != n):
        size = "" if n is None else f"{n} "
        raise ValueError(f"{what} must be a 1-D array of {size}integers, got {brief(values)}")
    if (j := bool_among_ints(values)) is not None:  # ([True, 0] is the int64 [1, 0])
        raise ValueError(f"{what} must be a 1-D array of integers, got {values[j]!r} at position {j}")
    bad = arr[(arr < lo) | (arr > hi)]
    if bad.size:
        raise ValueError(f"{what}: {int(bad[0])} is not in {lo}-{hi}")
    return arr.astype(np.int64, copy=False)


def observe(rules: RuleSet, st: GameState, idx=None, seats=None, out=None) -> np.ndarray:
    """Observations (n, N_PLANES, 34) uint8 of ``seats`` (default: the seat to act) at ``idx``.

    ``out`` may be a preallocated (n, N_PLANES, 34) uint8 array to fill. ``idx`` (a 1-D integer array of table
    numbers), ``seats`` (one seat 0-3 per row of ``idx``) and ``out`` are checked: a ValueError names what is
    wrong (a negative table would otherwise read as the last one; an ``out`` of another dtype would come back
    as the observations, not uint8 planes).
    """
    idx = np.arange(st.num_tables) if idx is None else _checked_ints(idx, "idx", 0, st.num_tables - 1, None)
    n = len(idx)
    seats = st.to_act[idx].astype(np.int64) if seats is None else _checked_ints(seats, "seats", 0, S - 1, n)
    if out is not None and not (isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == (n, N_PLANES, K)
                                and out.flags.writeable):
        got = f"{out.dtype} of shape {out.shape}" if isinstance(out, np.ndarray) else brief(out)
        raise ValueError(f"out must be a writeable ({n}, {N_PLANES}, {K}) uint8 array, got {got}")
    obs = np.empty((n, N_PLANES, K), dtype=np.uint8) if out is None else out
    rows = np.arange(n)
    rel = np.take(_REL, seats, axis=0)                          # (n, 4) absolute seat of offset k
    flat = (idx[:, None] * S + rel)                             # rows of the (B*4, K) seat arrays
    by_seat = lambda a: np.take(a.reshape(-1, K), flat, axis=0)
    obs[:, P_HAND] = np.take(st.hands.reshape(-1, K), flat[:, 0], axis=0)
    obs[:, P_MELDS] = by_seat(st.meld_counts)
    n_hidden = np.take(st.n_hidden.reshape(-1), flat)           # (n, 4) concealed kongs
    h = np.flatnonzero(n_hidden[:, 1] | n_hidden[:, 2] | n_hidden[:, 3])
    if len(h):                                                   # others' concealed kongs face down
        obs[h, _OTHER_MELDS] -= np.take(st.hidden.reshape(-1, K), flat[h, 1:], axis=0).astype(np.uint8)
    obs[:, P_RIVERS] = by_seat(st.river)
    obs[:, P_INDICATOR:] = 0
    phase = st.phase[idx]
    if rules.wall_layout == "indicator":
        obs[rows, P_INDICATOR, st.indicator[idx]] = 1
    if rules.hui:
        obs[rows, P_HUI, st.hui[idx]] = 1
    asking = (phase == CLAIM) | (phase == ROB)
    a = np.flatnonzero(asking)
    obs[a, P_CLAIM, st.claim_tile[idx[a]]] = 1
    own = np.flatnonzero((phase == TURN) & (st.drawn[idx] >= 0) & (st.turn_seat[idx] == seats))
    obs[own, P_DRAWN, st.drawn[idx[own]]] = 1
    sc = obs[:, P_SCALARS]
    sc[:, COL_LIVE_LEFT] = live_left(rules, st, idx)
    sc[:, COL_REPLACEMENTS_LEFT] = replacements_left(rules, st, idx)
    sc[:, COL_DEALER] = (st.dealer[idx] - seats) % S
    sc[:, COL_PHASE] = np.minimum(phase, ROB)
    sc[:, COL_MUST_DISCARD] = st.claimed_turn[idx]
    sc[:, COL_ASKER] = np.where(asking, (st.turn_seat[idx] - seats) % S, 0)
    sc[:, COL_SZ_ROUNDS] = st.sz_rounds[idx]
    sc[:, COL_SZ_ALIVE] = st.sz_alive[idx]
    by_self = np.take(st.claims.reshape(-1), flat[:, :1] * S + rel)              # self from offset k
    from_self = np.take(st.claims.reshape(-1), flat * S + seats[:, None])         # offset k from self
    if rules.hubao:
        bound = hubao_bound(by_self, from_self, rules.hubao_claims)           # (n, 4): offset 0 False
        sc[:, COL_HUBAO] = bound[:, 1:]
        sc[:, COL_HUBAO_COUNT] = bound[:, 1].astype(np.uint8) + bound[:, 2] + bound[:, 3]  # offset 0 is never bound
    sc[:, COL_CONCEALED_KONGS] = n_hidden
    sc[:, COL_TING] = np.take(st.ting.reshape(-1), flat)
    sc[:, COL_FLOWERS] = np.take(st.flowers.reshape(-1), flat)
    sc[:, COL_FIRST_TURN] = (seat_rows(st.n_discards, idx, seats) == 0) & ~st.any_meld[idx]
    sc[:, COL_CLAIM_CATEGORY] = np.where(asking & (st.to_act[idx] == seats), st.pend_cat[idx], NO_CATEGORY)
    sc[:, COL_CLAIMED_BY_SELF] = by_self
    sc[:, COL_CLAIMED_FROM_SELF] = from_self
    return obs


def observe_one(rules: RuleSet, st: GameState, b: int, seat: int) -> np.ndarray:
    """The observation (N_PLANES, 34) uint8 of ``seat`` at table ``b``: the planes of ``observe``,
    written with a few small slices (the single-table AEC path). ``b`` and ``seat`` are checked."""
    if not (isinstance(b, (int, np.integer)) and isinstance(seat, (int, np.integer)) and 0 <= b < st.num_tables
            and 0 <= seat < S) or isinstance(b, (bool, np.bool_)) or isinstance(seat, (bool, np.bool_)):
        raise ValueError(f"observe_one: table {str(b)[:20]} and seat {str(seat)[:20]} must be integers in "
                         f"0-{st.num_tables - 1} and 0-{S - 1}")
    return _observe_one(rules, st, b, seat)


def _observe_one(rules: RuleSet, st: GameState, b: int, seat: int) -> np.ndarray:
    """``observe_one`` without its checks of ``b`` and ``seat``: for the one-table envs, which pass table 0 and a
    seat 0-3 they hold (the AEC env's agent's, the engine's ``to_act``), at every decision."""
    o = np.zeros((N_PLANES, K), dtype=np.uint8)
    o[P_HAND] = st.hands[b, seat]
    sc = o[P_SCALARS]
    phase = int(st.phase[b])
    asking = phase in (CLAIM, ROB)
    rel = _REL[seat]
    o[P_MELDS] = st.meld_counts[b, rel]
    if st.n_hidden[b].any():
        o[_OTHER_MELDS] -= st.hidden[b, rel[1:]].astype(np.uint8)
    o[P_RIVERS] = st.river[b, rel]
    sc[COL_CONCEALED_KONGS] = st.n_hidden[b, rel]
    sc[COL_TING] = st.ting[b, rel]
    sc[COL_FLOWERS] = st.flowers[b, rel]
    by_self, from_self = st.claims[b, seat, rel], st.claims[b, rel, seat]
    sc[COL_CLAIMED_BY_SELF] = by_self
    sc[COL_CLAIMED_FROM_SELF] = from_self
    if rules.hubao:
        bound = hubao_bound(by_self, from_self, rules.hubao_claims)
        sc[COL_HUBAO] = bound[1:]
        sc[COL_HUBAO_COUNT] = bound.sum()
    if rules.wall_layout == "indicator":
        o[P_INDICATOR, st.indicator[b]] = 1
    if rules.hui:
        o[P_HUI, st.hui[b]] = 1
    if asking:
        o[P_CLAIM, st.claim_tile[b]] = 1
    if phase == TURN and st.drawn[b] >= 0 and st.turn_seat[b] == seat:
        o[P_DRAWN, st.drawn[b]] = 1
    sc[COL_LIVE_LEFT] = live_left(rules, st, b)
    sc[COL_REPLACEMENTS_LEFT] = replacements_left(rules, st, b)
    sc[COL_DEALER] = (int(st.dealer[b]) - seat) % S
    sc[COL_PHASE] = min(phase, ROB)
    sc[COL_MUST_DISCARD] = st.claimed_turn[b]
    sc[COL_ASKER] = (int(st.turn_seat[b]) - seat) % S if asking else 0
    sc[COL_SZ_ROUNDS] = st.sz_rounds[b]
    sc[COL_SZ_ALIVE] = st.sz_alive[b]
    sc[COL_FIRST_TURN] = st.n_discards[b, seat] == 0 and not st.any_meld[b]
    sc[COL_CLAIM_CATEGORY] = st.pend_cat[b] if asking and int(st.to_act[b]) == seat else NO_CATEGORY
    return o


def checked_planes(planes, name: str = "planes") -> np.ndarray:
    """Observation planes from outside (an agent's or ``mj_env.features``' input) as (n, P, 34) uint8, or a
    ValueError naming ``name``: P >= N_PLANES (``mj_obs_v1`` first), whole numbers 0-255 (integral floats
    too), a hand plane of at most 4 of a kind and 14 tiles. Nothing garbage planes hold past these
    checks can crash the hand tables. A masked entry is refused (``state.refuse_masked``)."""
    refuse_masked(planes, name)
    try:
        p = np.asarray(planes)
    except Exception as e:  # noqa: BLE001 (ragged lists, a tensor that needs grad: an __array__ that raises)
        raise ValueError(f"{name} must be an array: {shown(e, 80)}") from None
    if p.ndim != 3 or p.shape[1] < N_PLANES or p.shape[2] != K or p.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be (n, {N_PLANES} or more, {K}) numbers (mj_obs_v1 planes first), got "
                         f"{p.dtype} of shape {p.shape}")
    if p.dtype != np.uint8:
        with np.errstate(invalid="ignore"):
            if not ((p >= 0) & (p <= 255) & (p == np.floor(p))).all():  # NaN fails too
                raise ValueError(f"{name} must hold whole numbers 0-255 (mj_obs planes are uint8)")
        p = p.astype(np.uint8)
    hand = p[:, P_HAND]
    if (hand > 4).any() or (hand.sum(axis=1, dtype=np.int64) > 14).any():
        raise ValueError(f"{name}: plane {P_HAND} (the seat's concealed tiles) must hold at most 4 of a kind and "
                         "14 tiles in all; these are not mj_obs planes")
    return p


def checked_mask(mask, rows: int | None, n_actions: int, name: str = "mask") -> np.ndarray:
    """An action mask from outside as (rows, n_actions) bool, or a ValueError naming ``name``: bools, or
    numbers that are all 0 or 1 (the env gives int8; NaN refused), one row per observation row (any number
    of rows where ``rows`` is None). A masked entry is refused (``state.refuse_masked``)."""
    refuse_masked(mask, name)
    try:
        m = np.asarray(mask)
    except Exception as e:  # noqa: BLE001 (ragged lists, a tensor that needs grad: an __array__ that raises)
        raise ValueError(f"{name} must be an array: {shown(e, 80)}") from None
    rows = len(m) if rows is None and m.ndim else rows
    if m.ndim != 2 or m.shape != (rows, n_actions) or m.dtype.kind not in "biuf" \
            or (m.dtype != bool and not ((m == 0) | (m == 1)).all()):
        raise ValueError(f"{name} must be ({'n' if rows is None else rows}, {n_actions}) of bools or 0s and 1s (no NaN), one row per "
                         f"observation row, got {m.dtype} of shape {m.shape}")
    return m if m.dtype == bool else m != 0


__all__ = [
    "COL_ASKER", "COL_CLAIMED_BY_SELF", "COL_CLAIMED_FROM_SELF", "COL_CLAIM_CATEGORY", "COL_CONCEALED_KONGS",
    "COL_DEALER", "COL_FIRST_TURN", "COL_FLOWERS", "COL_HUBAO", "COL_HUBAO_COUNT", "COL_LIVE_LEFT",
    "COL_MUST_DISCARD", "COL_PHASE", "COL_REPLACEMENTS_LEFT", "COL_SZ_ALIVE", "COL_SZ_ROUNDS", "COL_TING",
    "N_PLANES", "N_SCALARS", "OBS_NAME", "OBS_SHAPE", "P_CLAIM", "P_DRAWN", "P_HAND", "P_HUI", "P_INDICATOR",
    "P_MELDS", "P_RIVERS", "P_SCALARS", "checked_mask", "checked_planes", "observe", "observe_one",
]
