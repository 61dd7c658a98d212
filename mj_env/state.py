"""The batched game state: one set of NumPy arrays with a leading table dimension.

Named dimensions::

    B  tables stepped together            S = 4 seats (0 East .. 3 North)
    K  = 34 tile kinds (tiles.py)          W = wall length (136, or 144 with flowers)
    M  = 4 declared melds per seat         Q = 3 places in the claim queue
    C  = 6 claim kinds per seat: win, pong, kong, chi with the discard lowest / middle / highest

Every array below is (B, ...) and is documented where it is allocated. Tile values are kind
indices (0-33, flowers 34-41); -1 means "none". Phases, meld types, claim kinds and claim
categories are small ints named here.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .tiles import N_KINDS

S = 4
K = N_KINDS
M = 4
Q = 3
C = 6

# phase (docs/RULES.md 4; docs/game_flow.md)
TURN, CLAIM, ROB, END = 0, 1, 2, 3
PHASE_NAMES = ("TURN", "CLAIM", "ROB", "END")

# meld_type (MELD_KONG is the exposed kong 明杠). Not the actions A.CHI, A.PONG, A.KONG.
NO_MELD, MELD_CHI, MELD_PONG, MELD_KONG, MELD_ADDED_KONG, MELD_CONCEALED_KONG = 0, 1, 2, 3, 4, 5
MELD_NAMES = ("", "chi", "pong", "kong", "added_kong", "concealed_kong")
"""MELD_NAMES[meld_type]: the meld's ``type`` in a calculator input (docs/INTERFACES.md 1)."""
KONG_MELDS = (MELD_KONG, MELD_ADDED_KONG, MELD_CONCEALED_KONG)

# claim kinds (last axis of claim_ok)
C_WIN, C_PONG, C_KONG, C_CHI_LOW, C_CHI_MID, C_CHI_HIGH = range(C)
C_CHI = (C_CHI_LOW, C_CHI_MID, C_CHI_HIGH)
"""The chi kinds, by the place of the claimed tile in the run (lowest, middle, highest)."""
# claim categories (queue_cat, pend_cat): the priority of a claim, lower is asked first
CAT_WIN, CAT_PONG_KONG, CAT_CHI, NO_CATEGORY = 0, 1, 2, 3
CLAIM_CATEGORY = np.array([CAT_WIN, CAT_PONG_KONG, CAT_PONG_KONG, CAT_CHI, CAT_CHI, CAT_CHI], dtype=np.int8)
"""CLAIM_CATEGORY[claim kind]: its category (read-only)."""
CLAIM_CATEGORY.flags.writeable = False  # every claim window reads it: a write is refused, never shared


@dataclass
class GameState:
    """All state of B tables. Shapes in the field comments; see the module docstring."""

    wall: np.ndarray            # (B, W) int8   the wall, in dealing order (docs/RULES.md 3)
    hands: np.ndarray           # (B, S, K) int8 concealed tiles
    meld_type: np.ndarray       # (B, S, M) int8 NO_MELD or a MELD_ type
    meld_tile: np.ndarray       # (B, S, M) int8 the kind (chi: its lowest tile)
    meld_from: np.ndarray       # (B, S, M) int8 seat the claimed tile came from, -1 for own kongs
    meld_wild: np.ndarray       # (B, S, M) int8 惠牌 filling in (hui_wild_in_melds): pong/kong: how many;
                                #               chi: bit k set when tile k of the run is a 惠牌
    n_melds: np.ndarray         # (B, S) int8
    meld_counts: np.ndarray     # (B, S, K) int8 tiles physically lying in each seat's melds
    hidden: np.ndarray          # (B, S, K) int8 the part of meld_counts in concealed kongs (face down)
    n_hidden: np.ndarray        # (B, S) int8   concealed kongs declared
    river: np.ndarray           # (B, S, K) int8 each seat's discards not claimed by anyone
    flowers: np.ndarray         # (B, S) int8   flowers laid out (quemen)
    indicator: np.ndarray       # (B,) int8     惠坯 (wall[-1], indicator layout), -1 with the tail layout
    hui: np.ndarray             # (B,) int8     惠牌 kind, -1 without 惠牌
    live_pos: np.ndarray        # (B,) int16    wall index of the next live draw
    tail_pos: np.ndarray        # (B,) int16    wall index of the next replacement draw (moves down)
    replaced: np.ndarray        # (B,) int16    replacement tiles taken (kongs and flowers)
    phase: np.ndarray           # (B,) int8     TURN/CLAIM/ROB/END
    to_act: np.ndarray          # (B,) int8     seat asked for the next decision
    turn_seat: np.ndarray       # (B,) int8     seat whose turn it is (the discarder in a claim window)
    claimed_turn: np.ndarray    # (B,) bool     this turn follows the seat's own chi/pong: discard only
    drawn: np.ndarray           # (B,) int8     tile drawn this turn, -1 after a claim
    after_kong: np.ndarray      # (B,) bool     this turn's tile is a kong replacement
    last_draw: np.ndarray       # (B,) bool     this turn's tile was the last live tile (海底)
    claim_tile: np.ndarray      # (B,) int8     discard (CLAIM) or added-kong tile (ROB) asked about
    claim_last: np.ndarray      # (B,) bool     that discard was made in a last-draw turn
    claim_ok: np.ndarray        # (B, S, C) bool each seat's possible claims on claim_tile
    queue_seat: np.ndarray      # (B, Q) int8   seats to ask, in order
    queue_cat: np.ndarray       # (B, Q) int8   their best claim category (CAT_, NO_CATEGORY)
    q_pos: np.ndarray           # (B,) int8     place in the queue being asked
    q_len: np.ndarray           # (B,) int8     places still in the queue
    pend_action: np.ndarray     # (B,) int16    accepted claim waiting for higher-priority seats, -1
    pend_seat: np.ndarray       # (B,) int8
    pend_cat: np.ndarray        # (B,) int8     its category, NO_CATEGORY when none
    winners: np.ndarray         # (B, S) bool   seats that accepted a win in this window (hebei: several)
    win_from: np.ndarray        # (B,) int8     seat that discarded the winning tile / was robbed;
                                #               -1 self-draw
    win_tile: np.ndarray        # (B,) int8     the winning tile
    robbed: np.ndarray          # (B,) bool     the win robs an added kong (抢杠)
    ting: np.ndarray            # (B, S) bool   报听 declared (quemen)
    ready: np.ndarray           # (B, S) bool   the seat's hand after its last discard (or the deal)
                                #               plus one wildcard wins: only then can one more tile win
    open_hand: np.ndarray       # (B, S) bool   the seat declared a chi, pong, exposed or added kong
    ponged: np.ndarray          # (B, S, K) bool kinds the seat holds as a pong (an added kong's candidates)
    n_discards: np.ndarray      # (B, S) int16  discards made this hand
    any_meld: np.ndarray        # (B,) bool     someone declared a chi, pong or kong this hand
    sz_alive: np.ndarray        # (B,) bool     烧庄 may still grow
    sz_tile: np.ndarray         # (B,) int8     tile of the 烧庄 round in progress
    sz_count: np.ndarray        # (B,) int8     equal discards so far in that round (0-3)
    sz_rounds: np.ndarray       # (B,) int8     complete 烧庄 rounds
    claims: np.ndarray          # (B, S, S) int8 claims[a, b]: discards seat a claimed from seat b (互包)
    dealer: np.ndarray          # (B,) int8
    hands_played: np.ndarray    # (B,) int16    hands finished in this episode (match)
    match_scores: np.ndarray    # (B, S) int64  points summed over the episode's hands

    @property
    def num_tables(self) -> int:
        return self.wall.shape[0]

    def copy(self) -> GameState:
        return GameState(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, idx) -> GameState:
        """The state of the tables ``idx`` (a copy)."""
        return GameState(**{f.name: getattr(self, f.name)[idx].copy() for f in fields(self)})

    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in fields(self))


FLAT_MIN_ROWS = 256
"""From this many rows on, reading or writing (table, seat, ...) cells through one flat index beats
NumPy's multi-index form (measured at 4096 tables, benchmarks/profile_step.py); below it the
multi-index form is the cheaper. ``seat_rows`` and the wall's draws use it."""


def seat_rows(arr: np.ndarray, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``arr[idx, seats]`` of a (B, S, ...) state array for index arrays ``idx`` and ``seats`` (n,): a new
    array, read with one ``take`` along the flattened (table, seat) axis, which at thousands of
    tables is three to four times faster than NumPy's two-index read (benchmarks/profile_step.py). Below
    a few hundred rows (one per-seat number: a thousand) the two-index read is the cheaper, and is used."""
    if len(idx) < (4 * FLAT_MIN_ROWS if arr.ndim == 2 else FLAT_MIN_ROWS):
        return arr[idx, seats]
    flat = np.asarray(idx, dtype=np.int64) * S + seats
    return np.take(arr.reshape(arr.shape[0] * S, *arr.shape[2:]), flat, axis=0)


def bool_among_ints(values) -> int | None:
    """The position of the first bool (True, np.True_) in a list or tuple of table or seat numbers, else None.
    NumPy reads ``[True, 0]`` as the int64 ``[1, 0]``, so the bool would be taken as table or seat 1; a bool
    array keeps its dtype and is refused by it."""
    if not isinstance(values, (list, tuple)) or set(map(type, values)) <= {int}:  # the common case, at once
        return None
    return next((j for j, v in enumerate(values) if isinstance(v, (bool, np.bool_))), None)


def refuse_masked(values, name: str) -> None:
    """A ValueError naming ``name`` and the entry where ``values`` is a masked array with an entry masked:
    NumPy's ``asarray`` drops the mask and reads the value under it, which is no value of the caller's (a
    masked array with nothing masked is read as its values). ``actions.action_batch`` refuses masked actions
    alike."""
    if isinstance(values, np.ma.MaskedArray) and np.ma.getmaskarray(values).any():
        at = tuple(int(i) for i in np.argwhere(np.ma.getmaskarray(values))[0])
        raise ValueError(f"{name} must be plain values, got a masked array with entry {at} masked")


def clear_claims(st: GameState, idx) -> None:
    """No claim window at tables ``idx``: the last window's claims, queue and pending claim get the values of a new
    state. The engine reads them only in a window, which sets them anew; they were read from the real hands, so a
    deal clears them and so does a redeal of the hidden tiles (``mj_env.determinize``) on a turn."""
    st.claim_ok[idx] = False
    st.queue_seat[idx] = 0
    st.queue_cat[idx] = NO_CATEGORY
    st.q_pos[idx] = 0
    st.q_len[idx] = 0
    st.pend_action[idx] = -1
    st.pend_seat[idx] = 0
    st.pend_cat[idx] = NO_CATEGORY


def meld_tiles(st: GameState, b: int, seat: int, m: int) -> list[int]:
    """The tiles physically lying in meld ``m`` of ``seat`` at table ``b``, in run order: a 惠牌 that fills
    in with ``hui_wild_in_melds`` (``meld_wild``) is itself, not the tile it stands for."""
    kind, t, wild, hui = int(st.meld_type[b, seat, m]), int(st.meld_tile[b, seat, m]), \
        int(st.meld_wild[b, seat, m]), int(st.hui[b])
    if kind == MELD_CHI:
        return [hui if wild >> k & 1 else t + k for k in range(3)]
    return [t] * ((3 if kind == MELD_PONG else 4) - wild) + [hui] * wild


def allocate(num_tables: int, wall_len: int) -> GameState:
    """Zeroed state for ``num_tables`` tables (dtypes fixed here, once)."""
    B = num_tables

    def z(shape, dtype):
        return np.zeros((B, *shape), dtype=dtype)

    def full(shape, value, dtype):
        return np.full((B, *shape), value, dtype=dtype)

    return GameState(
        wall=z((wall_len,), np.int8), hands=z((S, K), np.int8),
        meld_type=z((S, M), np.int8), meld_tile=full((S, M), -1, np.int8),
        meld_from=full((S, M), -1, np.int8), meld_wild=z((S, M), np.int8), n_melds=z((S,), np.int8),
        meld_counts=z((S, K), np.int8), hidden=z((S, K), np.int8), n_hidden=z((S,), np.int8),
        river=z((S, K), np.int8), flowers=z((S,), np.int8),
        indicator=full((), -1, np.int8), hui=full((), -1, np.int8),
        live_pos=z((), np.int16), tail_pos=z((), np.int16), replaced=z((), np.int16),
        phase=full((), END, np.int8), to_act=z((), np.int8), turn_seat=z((), np.int8),
        claimed_turn=z((), bool), drawn=full((), -1, np.int8), after_kong=z((), bool),
        last_draw=z((), bool), claim_tile=full((), -1, np.int8), claim_last=z((), bool),
        claim_ok=z((S, C), bool), queue_seat=z((Q,), np.int8), queue_cat=full((Q,), NO_CATEGORY, np.int8),
        q_pos=z((), np.int8), q_len=z((), np.int8), pend_action=full((), -1, np.int16),
        pend_seat=z((), np.int8), pend_cat=full((), NO_CATEGORY, np.int8), winners=z((S,), bool),
        win_from=full((), -1, np.int8), win_tile=full((), -1, np.int8), robbed=z((), bool),
        ting=z((S,), bool), ready=z((S,), bool), open_hand=z((S,), bool), ponged=z((S, K), bool),
        n_discards=z((S,), np.int16), any_meld=z((), bool),
        sz_alive=z((), bool), sz_tile=full((), -1, np.int8), sz_count=z((), np.int8),
        sz_rounds=z((), np.int8), claims=z((S, S), np.int8), dealer=z((), np.int8),
        hands_played=z((), np.int16), match_scores=z((S,), np.int64),
    )
