"""What is legal: wins with the 惠牌 wild, kongs, discards, 报听 and claims, for many tables at once.

Every function takes a subset of tables ``idx`` (int array, n tables) and the seats concerned
(n,), and returns arrays with a leading n. The win tests are the rules core's (``mj_env.hand``);
this module only says which tiles are natural, which are wild, and which restrictions apply
(docs/RULES.md 5, docs/game_flow.md). Whether a kong is possible at all is the wall's
(``wall.kong_possible``); who is asked about a claim, and in which order, is ``claims.py``.

``claim_options`` has a plain-Python path for one table (``_claim_options_one``), which the
single-table environments take at every discard; it uses the same helpers (``discard_win``,
``_natural_chi``, ``kong_possible``) and a test holds it equal to the batched path.
"""
from __future__ import annotations

import numpy as np

from . import hand
from .rules import RuleSet
from .state import (
    C_CHI,
    C_KONG,
    C_PONG,
    C_WIN,
    C,
    GameState,
    K,
    S,
    seat_rows,
)
from .tiles import N_SUITED, N_SUITS, SUIT_OF, SUIT_SIZE, lacks_a_suit, suits_held
from .wall import kong_possible

_ROWS = [np.arange(0)]  # one read-only arange, grown to the largest batch seen (memory stays bounded)


def _rows(n: int) -> np.ndarray:
    """``np.arange(n)`` without allocating it at every call: a read-only view of one shared array. The array is
    read once: envs stepped in threads share it, and one that grows it to a smaller size meanwhile (it looked
    before this one grew it) must not cut this call's rows short."""
    rows = _ROWS[0]
    if len(rows) < n:
        rows = np.arange(n)
        rows.flags.writeable = False
        _ROWS[0] = rows
    return rows[:n]


def split_wild(rules: RuleSet, st: GameState, idx, seats) -> tuple[np.ndarray, np.ndarray]:
    """(natural counts (n, K) int8 with the 惠牌 removed, number of 惠牌 held (n,))."""
    counts = seat_rows(st.hands, idx, seats)
    if not rules.hui:
        return counts, np.zeros(len(idx), dtype=np.int8)
    hui = st.hui[idx].astype(np.int64)
    rows = _rows(len(idx))
    wild = counts[rows, hui].copy()
    counts[rows, hui] = 0
    return counts, wild


def concealed(st: GameState, idx, seats) -> np.ndarray:
    """No chi, pong, exposed or added kong (门清; concealed kongs allowed). (n,) bool."""
    return ~seat_rows(st.open_hand, idx, seats)


def lacks_a_suit_with_melds(st: GameState, idx, seats, counts) -> np.ndarray:
    """缺一门 (``tiles.lacks_a_suit``) of concealed ``counts`` (n, K) plus the seat's melds. (n,) bool."""
    return lacks_a_suit(counts.astype(np.int16) + seat_rows(st.meld_counts, idx, seats))


def shape_win(rules: RuleSet, nat, wild) -> np.ndarray:
    """Natural counts (n, K) and wildcards (n,) form a winning shape the rule set allows (no 缺一门 here). (n,) bool."""
    return hand.is_win(nat, wild, seven_pairs=rules.seven_pairs,
                       thirteen_orphans=rules.thirteen_orphans, extra_dragon=rules.orphans_extra_dragon)


def ready(rules: RuleSet, st: GameState, idx, seats) -> np.ndarray:
    """The seat's 3k+1-tile concealed hand plus one wildcard is a winning shape: (n,) bool.

    A necessary condition for any one more tile (drawn, discarded or robbed) to win, so the
    engine computes it once per changed hand and runs the exact test only on ready seats.
    """
    nat, wild = split_wild(rules, st, idx, seats)
    return shape_win(rules, nat, wild + 1)


def self_draw_win(rules: RuleSet, st: GameState, idx, seats) -> np.ndarray:
    """The seat's concealed hand (惠牌 wild) wins as it stands. (n,) bool."""
    nat, wild = split_wild(rules, st, idx, seats)
    ok = shape_win(rules, nat, wild)
    if rules.lack_suit:
        ok &= lacks_a_suit_with_melds(st, idx, seats, seat_rows(st.hands, idx, seats))
    return ok


def discard_win(rules: RuleSet, st: GameState, idx, seats, tile) -> np.ndarray:
    """The seat may win on ``tile`` (n,) taken from a discard or a robbed kong (face value)."""
    nat, wild = split_wild(rules, st, idx, seats)
    rows = _rows(len(idx))
    nat[rows, tile] += 1
    ok = shape_win(rules, nat, wild)
    if rules.discard_win_concealed_only:
        ok &= concealed(st, idx, seats)
    if rules.self_draw_only_hui:
        ok &= wild < rules.self_draw_only_hui
    if rules.lack_suit:
        full = seat_rows(st.hands, idx, seats)
        full[rows, tile] += 1
        ok &= lacks_a_suit_with_melds(st, idx, seats, full)
    return ok


def chi_fill(rules: RuleSet, st: GameState, idx, seats, tile, which: int):
    """Chi of ``tile`` as the low (0), middle (1) or high (2) tile of a run.

    Returns (possible (n,), start tile of the run (n,), other two tiles (n, 2), 惠牌 used for
    each of them (n, 2) bool).
    """
    start = tile - which
    in_suit = ((tile < N_SUITED) & (start >= 0) & (start // SUIT_SIZE == tile // SUIT_SIZE)
               & (start % SUIT_SIZE <= _LAST_RUN_START))
    others = np.stack([start + (1 if which == 0 else 0), start + (2 if which != 2 else 1)], axis=1)
    others = np.where(in_suit[:, None], others, 0)
    counts = seat_rows(st.hands, idx, seats)
    rows = _rows(len(idx))
    have = counts[rows[:, None], others] > 0
    if not rules.hui_wild_in_melds:
        return in_suit & have.all(axis=1), start, others, np.zeros_like(have)
    hui = st.hui[idx].astype(np.int64)
    # a natural tile of the 惠牌 kind used at face value is not available as a wildcard
    wild = counts[rows, hui].astype(np.int64) - ((others == hui[:, None]) & have).sum(axis=1)
    missing = ~have
    return in_suit & (missing.sum(axis=1) <= wild), start, others, missing


def claim_options(rules: RuleSet, st: GameState, idx, discarder, tile, robbing: bool) -> np.ndarray:
    """Every seat's possible claims on ``tile`` (n,) discarded (or added to a kong) by
    ``discarder`` (n,): (n, S, C) bool; the discarder's row is all False.

    The three other seats are handled together; the exact win test runs only for seats whose
    hand is ready (``st.ready``) and may win on a discard at all.
    """
    if len(idx) == 1 and not rules.hui_wild_in_melds:
        return _claim_options_one(rules, st, int(idx[0]), int(discarder[0]), int(tile[0]), robbing)
    return claim_options_batched(rules, st, idx, discarder, tile, robbing)


def claim_options_batched(rules: RuleSet, st: GameState, idx, discarder, tile, robbing: bool) -> np.ndarray:
    """``claim_options`` over arrays, for any number of tables (benchmarks/fast_paths.py times it
    against the one-table path). The options are worked out per offset 1-3 from the discarder
    (flat reads of the (table, seat) arrays) and put in their seats' rows once at the end."""
    n = len(idx)
    tile = tile.astype(np.int64)
    others = _OTHERS_OF[discarder]                                       # (n, 3) seats in play order
    flat = idx[:, None] * S + others                                     # (n, 3) rows of (B*S, ...) arrays
    by_offset = np.zeros((n, S - 1, C), dtype=bool)
    may_win = st.ready.reshape(-1)[flat]
    if rules.discard_win_concealed_only:
        may_win &= ~st.open_hand.reshape(-1)[flat]
    r, k = np.nonzero(may_win)
    if len(r):
        by_offset[r, k, C_WIN] = discard_win(rules, st, idx[r], others[r, k], tile[r])
    if not robbing:
        free = ~st.ting.reshape(-1)[flat]                                # (n, 3)
        counts = st.hands.reshape(-1)
        have = counts[flat * K + tile[:, None]]                          # (n, 3) naturals of tile
        if rules.hui_wild_in_melds:
            hui = st.hui[idx].astype(np.int64)
            wild = np.where((tile == hui)[:, None], 0, counts[flat * K + hui[:, None]])
            have = have.astype(np.int64) + wild
        by_offset[:, :, C_PONG] = free & (have >= 2)
        by_offset[:, :, C_KONG] = free & (have >= 3) & kong_possible(rules, st, idx)[:, None]
        if rules.chi:
            nxt = others[:, 0]
            if rules.hui_wild_in_melds:
                for which, c in enumerate(C_CHI):
                    by_offset[:, 0, c] = free[:, 0] & chi_fill(rules, st, idx, nxt, tile, which)[0]
            else:
                # natural tiles only: the next seat's tiles two below .. two above the discard
                have_near = counts[flat[:, :1] * K + _NEAR_KINDS[tile]] > 0   # (n, 4)
                chi_ok = free[:, 0] & (tile < N_SUITED)
                for c, run in zip(C_CHI, _natural_chi(tile % SUIT_SIZE, *have_near.T)):
                    by_offset[:, 0, c] = chi_ok & run
    ok = np.zeros((n, S, C), dtype=bool)
    ok[_rows(n)[:, None], others] = by_offset
    return ok


_OTHERS = np.arange(1, S)
_OTHERS_OF = (np.arange(S)[:, None] + _OTHERS[None, :]) % S   # _OTHERS_OF[d]: the seats after d, in play order
_NEAR = np.array([-2, -1, 1, 2])
_NEAR_KINDS = np.clip(np.arange(K)[:, None] + _NEAR[None, :], 0, K - 1)  # kinds two below .. two above, clipped
_LAST_RUN_START = SUIT_SIZE - 3  # the rank of 7 in 789


def _natural_chi(rank, below2, below1, above1, above2):
    """Chi of a suited discard of ``rank`` (0-8) with natural tiles, from whether the claimer holds
    the tiles two below, one below, one above and two above it (bools, or bool arrays of one
    shape). Returns whether it completes a run with the discard as the lowest, the middle and the
    highest tile (C_CHI's order)."""
    return ((rank <= _LAST_RUN_START) & above1 & above2,
            (rank >= 1) & (rank <= _LAST_RUN_START + 1) & below1 & above1,
            (rank >= 2) & below2 & below1)


def _claim_options_one(rules: RuleSet, st: GameState, b: int, d: int, t: int, robbing: bool) -> np.ndarray:
    """``claim_options`` for one table with natural-tile melds, in plain Python: the single-table
    environments ask this at every discard, where the batched path's NumPy calls on length-1
    arrays cost about ten times the work (benchmarks/throughput.py, engine and AEC at one table).
    Same helpers as the batched path; the batch-equivalence test holds the two together."""
    ok = np.zeros((1, S, C), dtype=bool)
    one = np.array([b])
    can_kong = None
    for k in (1, 2, 3):
        s = (d + k) % S
        if st.ready[b, s] and not (rules.discard_win_concealed_only and st.open_hand[b, s]):
            ok[0, s, C_WIN] = discard_win(rules, st, one, np.array([s]), np.array([t]))[0]
        if robbing or st.ting[b, s]:
            continue
        hand_s = st.hands[b, s]
        have = int(hand_s[t])
        if have >= 2:
            ok[0, s, C_PONG] = True
            if have >= 3:
                if can_kong is None:
                    can_kong = bool(kong_possible(rules, st, one)[0])
                ok[0, s, C_KONG] = can_kong
        if rules.chi and k == 1 and t < N_SUITED:
            h = hand_s.tolist()  # a neighbour outside the suit (t - 2 may wrap) is masked by the rank
            runs = _natural_chi(t % SUIT_SIZE, h[t - 2] > 0, h[t - 1] > 0, h[t + 1] > 0, h[t + 2] > 0)
            for c, run in zip(C_CHI, runs):
                ok[0, s, c] = run
    return ok


def self_kongs(rules: RuleSet, st: GameState, idx, seats) -> np.ndarray:
    """Kinds the seat may kong on its turn (concealed: four in hand; added: a pong and one in
    hand): (n, K) bool."""
    counts = seat_rows(st.hands, idx, seats)
    ok = (counts == 4) | ((counts > 0) & seat_rows(st.ponged, idx, seats))
    allowed = kong_possible(rules, st, idx) & ~st.claimed_turn[idx] & ~seat_rows(st.ting, idx, seats)
    return ok & allowed[:, None]


def ting_discards(rules: RuleSet, st: GameState, idx, seats) -> np.ndarray:
    """报听 (quemen): discards after which the hand waits on at least one tile (docs/RULES.md 6.4) whose
    win lacks a suit; a kind the seat holds all four of, counting the discard, cannot come and is no wait. (n, K).

    Two stages keep this cheap: a discard X can only be ready if the hand minus X plus one
    wildcard wins (one batched check of (n, K) hands); only those (table, X) pairs get the
    exact waits, each wait checked for 缺一门 with the seat's melds.
    """
    n = len(idx)
    counts = seat_rows(st.hands, idx, seats).astype(np.int8)
    eye = np.eye(K, dtype=np.int8)
    after = counts[:, None, :] - eye[None]                       # (n, K discard, K)
    valid = (counts > 0) & ~seat_rows(st.ting, idx, seats)[:, None]
    cand = valid & shape_win(rules, np.maximum(after, 0), np.ones((n, K), dtype=np.int8))
    out = np.zeros((n, K), dtype=bool)
    r, x = np.nonzero(cand)
    if not len(r):
        return out
    rest = after[r, x]                                           # (m, K) hand minus X
    waits = hand.waits(rest, np.zeros(len(r), dtype=np.int8), seven_pairs=rules.seven_pairs,
                       thirteen_orphans=rules.thirteen_orphans, extra_dragon=rules.orphans_extra_dragon)
    # a kind of which the seat holds all four (hand, melds and the discard X itself) cannot come: not a wait
    total = rest.astype(np.int16) + st.meld_counts[idx[r], seats[r]]
    waits &= (total + eye[x]) < 4
    if rules.lack_suit:
        present = suits_held(total)                                         # (m, 3)
        adds_suit = np.zeros((len(r), K), dtype=bool)
        adds_suit[:, :N_SUITED] = ~present[:, SUIT_OF[:N_SUITED]]
        waits &= (present.sum(axis=1)[:, None] + adds_suit) < N_SUITS
    out[r, x] = waits.any(axis=1)
    return out

