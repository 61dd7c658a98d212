"""Determinization for imperfect-information search (ISMCTS, rollouts from one seat's view).

A seat sees its own concealed hand, every river, the exposed melds, how many concealed kongs
the others hold (not of which kind), the 惠坯 indicator (beijing), the flowers laid out
(quemen), who declared 报听 and how many tiles are left; not the other seats' concealed hands,
the kinds of their concealed kongs, nor the order of the undrawn wall. ``determinize`` copies a
table n times and in each copy deals those unseen tiles afresh, at random among the deals that
agree with what the seat has seen; ``redeal`` does the same in place, at chosen tables of an
engine (one copy per table, e.g. after ``Engine.restore``).

What a redeal keeps and changes:

- every other seat keeps its number of concealed tiles and of concealed kongs; a concealed
  kong gets a kind of which all four tiles are unseen (a 报听 seat's from its chain, below; in a claim
  window the claimers' below keep theirs). The seat's
  own tiles, every visible tile
  and all public state (rivers, melds, claims, 烧庄, scores, positions in the wall) are kept;
- the undrawn part of the wall, ``wall[live_pos:tail_pos + 1]`` (live wall, reserve or tail
  still to draw), is refilled; the indicator (wall[-1]) stays, and the places already dealt or
  drawn (which the engine never reads again) get the tiles out of the wall in sorted order, no
  random draw: their real order was the real deal, which a search reading the copy would see.
  So each copy's wall is still a full set. Flowers (quemen) stay in the wall: a hand never holds one;
- on a turn, the claims, queue and pending claim of the last window (``claim_ok``, ``queue_seat``, ...,
  ``pend_action``: a chi that waited and was beaten by a pong was never shown, yet tells the tiles its seat
  held), read from the real hands and not read again before the next window sets them, are cleared as at a deal;
- the unseen tiles are dealt uniformly at random: each arrangement of the unseen physical
  tiles over the hidden places (hands, concealed kongs, undrawn wall) that keeps the rules
  below is equally likely. A seat that has begun a turn this hand (the dealer, or any draw)
  may not hold all four 惠牌 (四惠牌 would have won at the start of that turn, and a hand only
  loses tiles between draws): such deals are drawn again (rejection sampling, which keeps the
  draw uniform); a non-dealer before its first draw may hold them. For the same reason no
  concealed kong is of the 惠牌 kind;
- a seat that declared 报听 (quemen) must hold a hand with a wait as 报听 requires
  (``legal.ting_discards``) beside its melds, its concealed kongs among them (it declares no kong after its
  报听, ``legal.self_kongs``: they stood beside its hand when it declared).
  Such hands are too rare for rejection (about 1 in 10,000 random 13-tile hands), so that seat's hand and the
  kinds of its concealed kongs come from a Metropolis chain started at a waiting hand and kong kinds built
  from the 报听 seats' tiles, the tiles of their concealed kongs and the unseen ones alone (``_ting_starts``:
  the same whatever the hidden tiles are, so a search from these copies does not lean towards the real hand
  or kinds; about 1 table in 300 of quemen play, where that construction finds no hands, starts at the real
  hands and kinds): ``mcmc_steps`` proposals (default 500), mostly swaps of one tile with an unseen one, one
  in eight a whole hand drawn afresh with new kinds for its kongs (swaps alone cannot cross between some sets
  of waiting hands), and at a seat with concealed kongs one in eight (``KONG_SHARE``) a new kind for one of them, drawn
  among the kinds all four of which are unseen; each accepted when the hand still waits (weighted by
  the concealed-kong kinds left to the others, so that the chain's stationary distribution is the uniform
  one above). The chain forgets its start slowly (``benchmarks/search.py --ting-mixing``,
  benchmarks/README.md, measured when it started at the real hand: after 500 steps a redealt hand still
  shared about 0.36-0.54 of its tiles, against about 0.33-0.44 after 5,000): raise ``mcmc_steps`` when that
  matters; 0 keeps the real hand and kong kinds. (The kong kinds used to be kept, so a search read them: about
  1 position in 60 of rule-agent quemen play beside another seat's 报听 has such a kong. On 20 of them the
  share of copies whose kongs have their real kinds was 0.31 after 500 steps and 0.29 after 5,000 (0.36 and 0.30
  while a kong move drew its kind out of all 34, most of them refused), and determinize(n=64) took about 1.4-1.7
  times as long as when the kinds were kept: measured 2026-12-05 on the shared 2-core machine);
- another seat's turn (it drew): its drawn tile is one of its new tiles;
- a claim (or rob) window is redealt only from the view of the seat being asked. The other
  seats' claims on the tile are recomputed from their new hands and the queue rebuilt in the
  engine's order (``claims.open_window``): the seats ahead of the asked seat count as asked
  (they passed), the ones after it with a claim the pending one does not beat are still to be
  asked. A seat whose accepted claim waits as the pending one and seats that accepted a win
  (several winners, hebei) keep their concealed hands and the kinds of their concealed kongs, which the
  window's state depends on (a search reads them there);
  the added kong's tile in a rob window stays in its declarer's hand. ``drawn`` is cleared
  there (-1): the engine does not read it before the next draw.

So the seat's observation (``observation.observe`` for that seat) and its legal mask are
bit-identical in every copy, and every kind still totals four tiles (flowers one each).

Vectorized over tables: the loops run over the four seats, retry rounds and chain steps.
"""
from __future__ import annotations

import functools
import itertools
from typing import cast, overload

import numpy as np

from . import hand, legal
from .claims import best_category
from .engine import MAX_TABLES, Engine
from .messages import brief, shown
from .state import (
    CLAIM,
    CLAIM_CATEGORY,
    END,
    MELD_ADDED_KONG,
    MELD_CHI,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PONG,
    NO_CATEGORY,
    ROB,
    TURN,
    K,
    M,
    S,
    bool_among_ints,
    clear_claims,
    refuse_masked,
)
from .tiles import FIRST_FLOWER, N_FLOWERS, N_SUITED, N_SUITS, SUIT_OF, SUIT_SIZE, full_set, suits_held

N_CODES = FIRST_FLOWER + N_FLOWERS  # tile indices a wall may hold (0-41)
_OFFSETS = np.arange(1, S)


def determinize(engine: Engine, table: int, seat: int, n: int = 1, rng=None, *,
                max_tries: int = 64, mcmc_steps: int = 500) -> Engine:
    """A new Engine of ``n`` copies of ``table``, each with the tiles ``seat`` cannot see dealt
    afresh (module docstring). ``rng``: a np.random.Generator, an int seed or None (fresh
    entropy). The copies' own generator (for ``reset`` and the next hand of a match) is seeded
    from ``rng``. ``max_tries``: deals tried per copy before a copy that keeps breaking the
    四惠牌 rule would keep its real tiles: then nothing is returned and RuntimeError says so (never seen
    at the default; ``redeal`` reports such tables instead).

    >>> eng = Engine("beijing", num_tables=1, seed=0)
    >>> _ = eng.reset()
    >>> worlds = determinize(eng, 0, seat=int(eng.state.to_act[0]), n=256, rng=1)
    """
    if not isinstance(engine, Engine):
        raise TypeError(f"engine must be an Engine, got {type(engine).__name__}")
    b = _int_in(table, "table", engine.num_tables)
    s = _int_in(seat, "seat", S)
    count = _int_in(n, "n", MAX_TABLES + 1, low=1)
    gen = _generator(rng)
    _check_positions(engine, np.array([b]), np.array([s]))
    _check_budget(max_tries, mcmc_steps)
    out = engine.clone(np.full(count, b), seed=int(gen.integers(2**63)))
    done = redeal(out, s, gen, max_tries=max_tries, mcmc_steps=mcmc_steps)
    if not done.all():  # such a copy would hold the real hidden tiles: a search on it would cheat
        raise RuntimeError(f"determinize: {int((~done).sum())} of {count} copies found no deal keeping the 四惠牌 "
                           f"rule in max_tries={max_tries} tries; raise max_tries")
    return out


def redeal(engine: Engine, seat, rng=None, tables=None, *, max_tries: int = 64,
           mcmc_steps: int = 500) -> np.ndarray:
    """In place: at each of ``tables`` (default all), deal the tiles ``seat`` (one seat, or one
    per table) cannot see afresh (module docstring). Checked first: a refused call changes
    nothing. Returns (len(tables),) bool: True where the table was redealt, False where every
    one of ``max_tries`` deals broke the 四惠牌 rule and the table kept its tiles."""
    if not isinstance(engine, Engine):
        raise TypeError(f"engine must be an Engine, got {type(engine).__name__}")
    idx = engine._rows if tables is None else engine._table_arg(tables, "tables", repeats=False).reshape(-1)
    seats = _seats(seat, len(idx))
    gen = _generator(rng)
    _check_positions(engine, idx, seats)
    _check_budget(max_tries, mcmc_steps)
    if not len(idx):
        return np.zeros(0, dtype=bool)
    return _redeal(engine, idx, seats, gen, max_tries, mcmc_steps)


def shuffle_wall(engine: Engine, rng=None, tables=None) -> None:
    """In place: at each of ``tables`` (default all), put the undrawn part of the wall,
    ``wall[live_pos:tail_pos + 1]``, in a new order, uniformly at random; the hands, concealed kongs and
    everything else stay. The new order depends on the tiles there and ``rng`` only, not on their old
    order: a world for a player who knows every hand but not the order of the wall (the ``hands`` mode of
    ``agents.search``). Checked first, as ``redeal``: a refused call changes nothing."""
    if not isinstance(engine, Engine):
        raise TypeError(f"engine must be an Engine, got {type(engine).__name__}")
    idx = engine._rows if tables is None else engine._table_arg(tables, "tables", repeats=False).reshape(-1)
    gen = _generator(rng)
    _check_positions(engine, idx, engine.state.to_act[idx].astype(np.int64))
    if not len(idx):
        return
    st = engine.state
    wall = st.wall[idx]
    pos = np.arange(wall.shape[1])
    lo, hi = st.live_pos[idx].astype(np.int64)[:, None], st.tail_pos[idx].astype(np.int64)[:, None]
    undrawn = (pos >= lo) & (pos <= hi)
    k = undrawn.sum(axis=1, keepdims=True)
    tiles = np.sort(np.where(undrawn, wall, np.iinfo(wall.dtype).max), axis=1)  # the undrawn tiles, sorted: the
    order = np.argsort(np.where(pos < k, gen.random(wall.shape), np.inf), axis=1)  # real order is never read
    r, c = np.nonzero(pos < k)
    wall[r, lo[r, 0] + c] = tiles[r, order[r, c]]
    st.wall[idx] = wall


# ----------------------------------------------------------------------------- checks
def _int_in(value, what: str, upper: int, low: int = 0) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, got {brief(value)}")
    if not low <= value < upper:
        raise ValueError(f"{what} must be in {low}-{upper - 1}, got {shown(value)}")
    return int(value)


def _seats(seat, n: int) -> np.ndarray:
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)):
        return np.full(n, _int_in(seat, "seat", S), dtype=np.int64)
    refuse_masked(seat, "seat")
    try:
        arr = np.asarray(seat)
    except Exception:  # noqa: BLE001 (ragged lists, an object whose __array__ raises: no seats)
        raise TypeError(f"seat must be a seat number or an array of them, got {brief(seat)}") from None
    if arr.dtype.kind not in "iu":
        raise TypeError(f"seat must be a seat number or an array of them, got dtype {arr.dtype}")
    if (j := bool_among_ints(seat)) is not None:  # ([True, 1] is the int64 [1, 1])
        given = cast("list", seat)[j]  # (a list or tuple: what bool_among_ints reads)
        raise TypeError(f"seat must be a seat number or an array of them, got {given!r} at position {j}")
    if arr.shape != (n,):
        raise ValueError(f"seat must be one seat or one per table ({n}), got shape {arr.shape}")
    if ((arr < 0) | (arr >= S)).any():
        raise ValueError(f"seat must be 0-3, got {int(arr[(arr < 0) | (arr >= S)][0])}")
    return arr.astype(np.int64)


def _generator(rng) -> np.random.Generator:
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng() if rng is None else rng
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be a np.random.Generator, an int seed or None, got {brief(rng)}")
    if rng < 0:
        raise ValueError(f"rng seed must be non-negative, got {shown(rng)}")
    return np.random.default_rng(int(rng))


def _check_budget(max_tries, mcmc_steps) -> None:
    for what, v, low in (("max_tries", max_tries, 1), ("mcmc_steps", mcmc_steps, 0)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{what} must be an integer, got {brief(v)}")
        if not low <= v <= 1_000_000:
            raise ValueError(f"{what} must be in {low}-1,000,000, got {shown(v)}")


def _check_positions(engine: Engine, idx, seats) -> None:
    st = engine.state
    never = idx[~engine._dealt_ever[idx]]
    if len(never):
        raise ValueError(f"table {int(never[0])} has never been dealt: reset() it first")
    over = idx[st.phase[idx] == END]
    if len(over):
        raise ValueError(f"table {int(over[0])} is in END (the hand is over): nothing is hidden to redeal")
    window = (st.phase[idx] == CLAIM) | (st.phase[idx] == ROB)
    other = np.flatnonzero(window & (st.to_act[idx] != seats))
    if len(other):
        j = int(other[0])
        raise ValueError(f"table {int(idx[j])} is in a claim window asking seat {int(st.to_act[idx[j]])}: "
                         f"it can be redealt only from the asked seat's view, not seat {int(seats[j])}'s")


# ----------------------------------------------------------------------------- the redeal
def _redeal(engine: Engine, idx, seats, rng, max_tries: int, mcmc_steps: int) -> np.ndarray:
    rules, st = engine.rules, engine.state
    n = len(idx)
    rows = np.arange(n)
    phase = st.phase[idx]
    window = (phase == CLAIM) | (phase == ROB)
    hands = st.hands[idx].astype(np.int64)                                    # (n, S, K)

    # Who is redealt, and which of their concealed tiles stay.
    other = np.arange(S)[None, :] != seats[:, None]                           # (n, S)
    kept = window[:, None] & (st.winners[idx] | ((st.pend_action[idx] >= 0)[:, None]
                                                 & (np.arange(S)[None, :] == st.pend_seat[idx, None])))
    redealt = other & ~kept
    fixed = np.where(redealt[:, :, None], 0, hands)
    rob = np.flatnonzero(phase == ROB)
    if len(rob):                                   # the added kong's tile, shown to everyone
        fixed[rob, st.turn_seat[idx[rob]], st.claim_tile[idx[rob]]] += 1
    free = hands - fixed                                                      # redealt seats' tiles
    ting = redealt & st.ting[idx]
    kong = np.where(redealt & ~ting, st.n_hidden[idx], 0).astype(np.int64)   # (n, S) kongs _deal deals
    turn_seat = st.turn_seat[idx].astype(np.int64)
    drawn = st.drawn[idx].astype(np.int64)
    drawn_seat = np.where((phase == TURN) & redealt[rows, turn_seat] & (drawn >= 0), turn_seat, -1)

    pool = np.zeros((n, N_CODES), dtype=np.int64)
    pool[:, :K] = free.sum(axis=1) + np.where(redealt[:, :, None], st.hidden[idx], 0).sum(axis=1)
    lo = st.live_pos[idx].astype(np.int64)
    width = np.maximum(st.tail_pos[idx].astype(np.int64) + 1 - lo, 0)
    W = st.wall.shape[1]
    undrawn = (np.arange(W)[None, :] >= lo[:, None]) & (np.arange(W)[None, :] < (lo + width)[:, None])
    r_w, c_w = np.nonzero(undrawn)
    pool += np.bincount(r_w * N_CODES + st.wall[idx[r_w], c_w], minlength=n * N_CODES).reshape(n, N_CODES)

    hui = st.hui[idx].astype(np.int64)
    check_hui = rules.hui and rules.four_hui_win
    no_kong = np.where(check_hui, hui, -1)  # nobody can have declared a concealed kong of the 4 惠牌: they won

    # 报听 seats: their hand (less a drawn tile) and their concealed kongs' kinds from the chain; only the
    # drawn tile is dealt below.
    part = np.zeros((n, S, K), dtype=np.int64)
    slots = free.sum(axis=2)                                                  # (n, S) places to deal
    t_kinds = np.full((n, S, M), -1, dtype=np.int64)                          # 报听 seats' kong kinds
    if ting.any():
        part = np.where(ting[:, :, None], free, 0)
        d = np.flatnonzero(drawn_seat >= 0)
        on_turn = d[ting[d, drawn_seat[d]]]
        part[on_turn, drawn_seat[on_turn], drawn[on_turn]] -= 1
        t_kinds = np.where(ting[:, :, None], _concealed_kinds(st, idx), -1)
        pool[:, :K] -= part.sum(axis=1) + np.where(ting[:, :, None], st.hidden[idx], 0).sum(axis=1)
        slots = np.where(ting, (drawn_seat[:, None] == np.arange(S)[None, :]).astype(np.int64), slots)
        t_rows = np.flatnonzero(ting.any(axis=1))
        face_up = (st.meld_counts[idx[t_rows]] - st.hidden[idx[t_rows]]).astype(np.int16)   # melds, kongs aside
        t_ting, t_others = ting[t_rows], kong[t_rows].sum(axis=1)
        if mcmc_steps:  # the chain starts from hands and kongs built from what the seat sees, not the real ones
            part[t_rows], pool[t_rows], t_kinds[t_rows] = _ting_starts(
                rules, face_up, t_ting, part[t_rows], pool[t_rows], t_others, no_kong[t_rows], t_kinds[t_rows])
        part[t_rows], pool[t_rows], t_kinds[t_rows] = _ting_chain(
            rules, face_up, t_ting, part[t_rows], pool[t_rows], t_others, mcmc_steps, rng, no_kong[t_rows],
            t_kinds[t_rows])
    all_kong = np.where(ting, st.n_hidden[idx], kong).astype(np.int64)       # kongs written below

    # Deal the rest; retry the rows whose deal breaks 四惠牌.
    # seats that began a turn held fewer than four 惠牌 since (below; read only with the 四惠牌 check)
    began = _began_a_turn(st, idx) if check_hui else np.zeros((n, S), dtype=bool)
    done = np.zeros(n, dtype=bool)
    todo = rows
    tries = np.zeros(n, dtype=np.int64)
    batch = 1
    while len(todo):
        cand = np.repeat(todo, batch)
        deal = _deal(pool[cand], slots[cand], kong[cand], width[cand], drawn_seat[cand], rng, no_kong[cand])
        new_hands = fixed[cand] + part[cand] + deal["hands"]
        ok = np.ones(len(cand), dtype=bool)
        if check_hui:
            four = (new_hands[np.arange(len(cand)), :, hui[cand]] == 4) & redealt[cand] & began[cand]
            ok = ~four.any(axis=1)
        first = ok.reshape(len(todo), batch)
        got = first.any(axis=1)
        pick = np.arange(len(todo)) * batch + first.argmax(axis=1)
        win_rows, win_cand = todo[got], pick[got]
        kinds = np.where(ting[win_rows, :, None], t_kinds[win_rows], deal["kinds"][win_cand])
        _write(engine, idx[win_rows], redealt[win_rows], new_hands[win_cand], all_kong[win_rows],
               kinds, deal["wall"][win_cand], lo[win_rows], width[win_rows],
               drawn_seat[win_rows], deal["drawn"][win_cand], window[win_rows])
        done[win_rows] = True
        tries[todo] += batch
        todo = todo[~got & (tries[todo] < max_tries)]
        batch = int(min(batch * 8, max_tries - tries[todo].max() if len(todo) else 1))
    ok_rows = np.flatnonzero(done)
    b_ok = idx[ok_rows]
    _scrub_dealt(rules, st, b_ok)
    # on a turn, the last window's claims, queue and pending claim (a chi a pong beat unseen) were read from the
    # real hands: cleared as at a deal
    clear_claims(st, b_ok[~window[ok_rows]])
    _recompute_ready(rules, st, b_ok, redealt[ok_rows])
    w = ok_rows[window[ok_rows]]
    if len(w):
        _rebuild_windows(rules, st, idx[w], seats[w])
    engine._update_masks(b_ok)
    return done


@functools.lru_cache(maxsize=4)  # one entry per wall size (136, 144): a bounded cache, as every cache in mj_env
def _sorted_set(n_tiles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every tile of a set, sorted; each one's copy number among its kind; the count of each code."""
    tiles = np.sort(full_set(n_tiles))
    out = tiles, np.arange(n_tiles) - np.searchsorted(tiles, tiles), np.bincount(tiles, minlength=N_CODES)
    for a in out:
        a.flags.writeable = False                          # shared by every call
    return out


def _scrub_dealt(rules, st, b) -> None:
    """The places of the wall already dealt or drawn at tables ``b`` (outside ``wall[live_pos:tail_pos + 1]``,
    the indicator aside) get the tiles out of the wall, in sorted order: their real order is the real deal,
    and the tiles once there, with the undrawn ones redealt, would tell the real hidden tiles. No random draw."""
    if not len(b):
        return
    wall = st.wall[b]
    n, W = wall.shape
    pos = np.arange(W)[None, :]
    dealt = (pos < st.live_pos[b, None]) | (pos > st.tail_pos[b, None])
    dealt[:, -1] &= st.indicator[b] < 0                   # the 惠坯 stays at wall[-1]
    tiles, copy_no, counts = _sorted_set(W)
    r, c = np.nonzero(~dealt)
    left = counts - np.bincount(r * N_CODES + wall[r, c], minlength=n * N_CODES).reshape(n, N_CODES)
    _, k = np.nonzero(copy_no[None, :] < left[:, tiles])   # per row, the tiles out of the wall, sorted
    r, c = np.nonzero(dealt)                               # as many places per row, in order
    wall[r, c] = tiles[k]
    st.wall[b] = wall


def _concealed_kinds(st, idx) -> np.ndarray:
    """(n, S, M): the kinds of each seat's concealed kongs at tables ``idx``, in the order of their meld
    slots (as ``_deal`` gives them and ``_write`` writes them), -1 after the last."""
    conc = st.meld_type[idx] == MELD_CONCEALED_KONG
    rank = np.cumsum(conc, axis=2) - 1
    out = np.full(conc.shape, -1, dtype=np.int64)
    r, o, j = np.nonzero(conc)
    out[r, o, rank[r, o, j]] = st.meld_tile[idx[r], o, j]
    return out


def _kong_tiles(kinds) -> np.ndarray:
    """(..., K): four tiles of each kind of ``kinds`` (..., M) (distinct kinds, -1: none)."""
    flat = kinds.reshape(-1, kinds.shape[-1])
    out = np.zeros((len(flat), K), dtype=np.int64)
    r, j = np.nonzero(flat >= 0)
    out[r, flat[r, j]] = 4
    return out.reshape(kinds.shape[:-1] + (K,))


def _began_a_turn(st, idx) -> np.ndarray:
    """(n, S) bool: the seat has begun a turn this hand (the dealer's first, or any draw), so 四惠牌 was
    checked then and its hand cannot hold all four 惠牌 now (it only loses tiles between draws). A
    non-dealer before its first draw may: it holds what it was dealt, less claims and discards. A
    discard follows a draw or the seat's own chi or pong; every kong is followed by a replacement draw,
    and an added kong (robbed or not) is declared on a turn that began with a draw."""
    seats = np.arange(S)[None, :]
    types = st.meld_type[idx]
    on_turn = st.turn_seat[idx, None] == seats
    # chis and pongs whose discard is made (on the turn after a claim the discard is still to come)
    phase = st.phase[idx]
    after_claim = (st.claimed_turn[idx] & (phase == TURN))[:, None] & on_turn
    claimed = ((types == MELD_CHI) | (types == MELD_PONG)).sum(axis=2) - after_claim
    kongs = ((types == MELD_KONG) | (types == MELD_ADDED_KONG) | (types == MELD_CONCEALED_KONG)).any(axis=2)
    # on its turn after a draw, or asked whether its added kong is robbed (declared only on a turn that drew)
    drawing = (((phase == TURN) & (st.drawn[idx] >= 0)) | (phase == ROB))[:, None] & on_turn
    return ((st.dealer[idx, None] == seats) | kongs | (st.n_discards[idx] > claimed) | drawing)


def _deal(pool, slots, kong, width, drawn_seat, rng, no_kong=None) -> dict:
    """m random deals: ``pool`` (m, 42) unseen tile counts, ``slots`` (m, S) concealed places per
    seat, ``kong`` (m, S) concealed kongs per seat, ``width`` (m,) undrawn wall places,
    ``drawn_seat`` (m,) a seat whose last place is its drawn tile, or -1; ``no_kong`` (m,) a kind
    no concealed kong can be of (the 惠牌 where four of them win at once), or -1.

    Concealed kongs first (distinct kinds of which all four are in the pool, uniformly), then
    the natural tiles in a uniform random order: the first ``slots.sum()`` go to the seats'
    places in seat order, the rest with the flowers to the wall in a second uniform order.
    Returns hands (m, S, K), kong kinds (m, S, M) (-1 unused), wall (m, max width), drawn (m,).
    """
    m = len(pool)
    rows = np.arange(m)
    pool = pool.copy()
    kinds = np.full((m, S, M), -1, dtype=np.int64)
    n_kong = kong.sum(axis=1)
    if n_kong.any():
        keys = rng.random((m, K))
        keys[~_kong_kinds(pool, no_kong)] = 2.0
        most = int(n_kong.max())
        order = np.argsort(keys, axis=1)[:, :most]                            # (m, most) kinds
        j = np.arange(most)
        cum = np.cumsum(kong, axis=1)
        seat_of = (j[None, :, None] >= cum[:, None, :]).sum(axis=2)           # (m, most)
        rank = j[None, :] - (cum - kong)[rows[:, None], np.minimum(seat_of, S - 1)]
        use = j[None, :] < n_kong[:, None]
        r, c = np.nonzero(use)
        kinds[r, seat_of[r, c], rank[r, c]] = order[r, c]
        pool[r, order[r, c]] -= 4
    owner, tiles, pos, start = _shuffled(pool[:, :K], rng)
    cum = np.cumsum(slots, axis=1)
    placed = slots.sum(axis=1)
    in_hand = pos < placed[owner]
    seat_at = (pos[:, None] >= cum[owner]).sum(axis=1)
    hands = np.bincount(((owner * S + np.minimum(seat_at, S - 1)) * K + tiles)[in_hand],
                        minlength=m * S * K).reshape(m, S, K)
    drawn = np.full(m, -1, dtype=np.int64)
    d = np.flatnonzero(drawn_seat >= 0)
    drawn[d] = tiles[start[d] + cum[d, drawn_seat[d]] - 1]
    # the wall: the natural tiles left, and the flowers, in a second random order per row
    rest_owner, rest_tiles = owner[~in_hand], tiles[~in_hand]
    n_flowers = pool[:, FIRST_FLOWER:]
    if n_flowers.any():
        f_flat = np.repeat(np.tile(np.arange(FIRST_FLOWER, N_CODES), m), n_flowers.ravel())
        f_owner = np.repeat(rows, n_flowers.sum(axis=1))
        rest_owner = np.concatenate([rest_owner, f_owner])
        rest_tiles = np.concatenate([rest_tiles, f_flat])
        order = np.argsort(rest_owner + rng.random(len(rest_owner)), kind="stable")
        rest_owner, rest_tiles = rest_owner[order], rest_tiles[order]
    wall = np.full((m, max(int(width.max(initial=0)), 1)), -1, dtype=np.int64)
    w_start = np.cumsum(width) - width
    wall[rest_owner, np.arange(len(rest_owner)) - w_start[rest_owner]] = rest_tiles
    return {"hands": hands, "kinds": kinds, "wall": wall, "drawn": drawn}


def _write(engine: Engine, b, redealt, new_hands, kong, kinds, wall, lo, width, drawn_seat, drawn, window) -> None:
    """Write accepted deals into tables ``b`` (only the redealt seats' tiles change)."""
    st = engine.state
    if not len(b):
        return
    n = len(b)
    rows = np.arange(n)
    old = st.hands[b]
    st.hands[b] = np.where(redealt[:, :, None], new_hands, old).astype(np.int8)
    r, o = np.nonzero(kong > 0)
    if len(r):
        tb = b[r]
        new_hidden = _kong_tiles(kinds[r, o])
        st.meld_counts[tb, o] += (new_hidden - st.hidden[tb, o]).astype(np.int8)
        st.hidden[tb, o] = new_hidden
        conc = st.meld_type[tb, o] == MELD_CONCEALED_KONG                    # (len(r), M)
        rank = np.cumsum(conc, axis=1) - 1
        rr, slot = np.nonzero(conc)
        st.meld_tile[tb[rr], o[rr], slot] = kinds[r[rr], o[rr], rank[rr, slot]]
    cols = np.arange(wall.shape[1])
    rw, cw = np.nonzero(cols[None, :] < width[:, None])
    st.wall[b[rw], lo[rw] + cw] = wall[rw, cw]
    d = np.flatnonzero(drawn_seat >= 0)
    st.drawn[b[d]] = drawn[d]
    st.drawn[b[window[rows]]] = -1


def _recompute_ready(rules, st, b, redealt) -> None:
    """``ready`` of the redealt seats from their new hands: the 3k+1 hand (less the drawn tile on
    its own turn); False for a 3k+2 hand the engine does not read it for (after a chi or pong,
    or a rob window's declarer) until its next discard recomputes it."""
    for o in range(S):
        t = b[redealt[:, o]]
        if not len(t):
            continue
        seat = np.full(len(t), o, dtype=np.int64)
        size = st.hands[t, o].sum(axis=1, dtype=np.int64)
        own = (st.phase[t] == TURN) & (st.turn_seat[t] == o) & (st.drawn[t] >= 0)
        res = np.zeros(len(t), dtype=bool)
        plain = np.flatnonzero(size % 3 == 1)
        if len(plain):
            res[plain] = legal.ready(rules, st, t[plain], seat[plain])
        d = np.flatnonzero(own & (size % 3 == 2))
        if len(d):
            td, tile = t[d], st.drawn[t[d]].astype(np.int64)
            st.hands[td, o, tile] -= 1
            res[d] = legal.ready(rules, st, td, seat[d])
            st.hands[td, o, tile] += 1
        st.ready[t, o] = res


def _rebuild_windows(rules, st, b, seats) -> None:
    """The claim (rob) windows at ``b``, asking ``seats``, with the other seats' claims from
    their new hands (module docstring)."""
    asker = st.turn_seat[b].astype(np.int64)
    tile = st.claim_tile[b].astype(np.int64)
    ok = np.zeros((len(b), S, len(CLAIM_CATEGORY)), dtype=bool)
    for phase, robbing in ((CLAIM, False), (ROB, True)):
        j = np.flatnonzero(st.phase[b] == phase)
        if len(j):
            ok[j] = legal.claim_options(rules, st, b[j], asker[j], tile[j], robbing=robbing)
    n = len(b)
    rows = np.arange(n)
    if not (ok[rows, seats] == st.claim_ok[b, seats]).all():
        raise RuntimeError("determinize: the asked seat's claims changed with the others' tiles (a bug)")
    if (best_category(ok[rows, seats]) >= NO_CATEGORY).any():
        raise RuntimeError("determinize: the asked seat has no claim (a bug)")
    play = (asker[:, None] + _OFFSETS[None, :]) % S                           # (n, 3) play order
    cats = best_category(ok)[rows[:, None], play]
    order = np.argsort(cats * S + _OFFSETS[None, :], axis=1, kind="stable")
    queue, qcat = play[rows[:, None], order], cats[rows[:, None], order]
    pos = np.argmax(queue == seats[:, None], axis=1)
    later = (np.arange(S - 1)[None, :] > pos[:, None]) & (qcat < st.pend_cat[b, None])
    st.claim_ok[b] = ok
    st.queue_seat[b] = queue
    st.queue_cat[b] = qcat
    st.q_pos[b] = pos
    st.q_len[b] = pos + 1 + later.sum(axis=1)


# ----------------------------------------------------------------------------- 报听 hands
def ting_waits(rules, counts, melds, discards=None) -> np.ndarray:
    """Whether concealed 3k+1 ``counts`` (m, K) with the seat's ``melds`` (m, K) wait as 报听
    requires: some kind completes the shape, not one the seat holds all four of, and (缺一门)
    the win lacks a suit. With ``discards`` (m,), the kinds discarded with the 报听, those copies count
    among the seat's own: the test ``legal.ting_discards`` applies after each discard. A redeal does
    not know which river tile went with the 报听 and leaves them out, which admits only hands whose
    every wait is on a kind of which that discard was the fourth copy. (m,) bool. A count the int8 cast
    would change (256 read as 0, 1.7 as 1) is a ValueError (``hand._int8_counts``)."""
    counts = hand._int8_counts(counts)
    waits = hand.waits(counts, np.zeros(len(counts), dtype=np.int8), seven_pairs=rules.seven_pairs,
                       thirteen_orphans=rules.thirteen_orphans, extra_dragon=rules.orphans_extra_dragon)
    total = counts.astype(np.int16) + np.asarray(melds)  # (a torch tensor failed in NumPy's + of the two)
    own = total if discards is None else total + (np.arange(K) == np.asarray(discards)[:, None])
    waits &= own < 4
    if rules.lack_suit:
        present = suits_held(total)
        adds_suit = np.zeros_like(waits)
        adds_suit[:, :N_SUITED] = ~present[:, SUIT_OF[:N_SUITED]]
        waits &= (present.sum(axis=1)[:, None] + adds_suit) < N_SUITS
    return cast(np.ndarray, waits.any(axis=1))  # (waits is 2-D: an array)


def _kong_kinds(pool, no_kong=None) -> np.ndarray:
    """(m, K) bool: the kinds a concealed kong may be of: all four in the pool, not ``no_kong`` (m,)."""
    ok = pool[:, :K] == 4
    if no_kong is not None:
        r = np.flatnonzero(no_kong >= 0)
        ok[r, no_kong[r]] = False
    return ok


def _kong_weight(pool, n_kong, no_kong=None) -> np.ndarray:
    """Ways to give ``n_kong`` concealed kongs distinct kinds they may be of (``_kong_kinds``)."""
    e = _kong_kinds(pool, no_kong).sum(axis=1)
    w = np.ones(len(pool))
    for j in range(int(n_kong.max(initial=0))):
        w *= np.where(j < n_kong, np.maximum(e - j, 0), 1)
    return w


INDEPENDENT_SHARE = 0.125
"""The share of the 报听 chain's steps that propose a whole new hand (and new kinds for the seat's concealed
kongs) rather than one swap (``_ting_chain``)."""

KONG_SHARE = 0.125
"""The share of the 报听 chain's steps, at a 报听 seat with concealed kongs, that propose a new kind for one of
its kongs, taken from the swaps (``_ting_chain``)."""


KONG_TRIES = 64
"""``_ting_hand``: the most sets of kinds it tries for the seat's concealed kongs."""

_UP, _DOWN = range(K), range(K - 1, -1, -1)   # (runs are read upwards from t: from the top, t = 6 of a suit first)


def _ting_hand(rules, avail, size: int, melds, n_kong: int = 0, no_kong: int = -1):
    """A 报听 hand of ``size`` (3k+1) tiles and the kinds of the seat's ``n_kong`` concealed kongs, out of
    ``avail`` (K,), beside its face-up ``melds`` (K,), such that the hand waits as ``ting_waits`` requires
    with the kongs among its melds, found the same way whatever else is known: under 缺一门, for each suit
    the face-up melds lack, only the kinds of the other two suits and the honors (every kind otherwise); the
    kongs of kinds of which all four are in ``avail`` (not ``no_kong``), the sets of them in a fixed order
    (the first ``KONG_TRIES``, from the honors down); then k triplets or runs taken greedily (triplets first,
    or runs first) from the lowest or the highest kind, and one single tile to wait on (or k - 1 of them and
    a pair with another pair or two tiles of a run). (hand (K,), kinds (n_kong,)), or None when none is found this way."""
    k = (size - 1) // 3
    held = suits_held(melds[None])[0]
    drops = [d for d in range(N_SUITS) if not held[d]] if rules.lack_suit else [None]
    for drop in drops:
        allowed = SUIT_OF != drop
        fours = [t for t in _DOWN if allowed[t] and avail[t] == 4 and t != no_kong]
        for combination in itertools.islice(itertools.combinations(fours, n_kong), KONG_TRIES):
            kinds = list(combination)
            rest = np.asarray(avail, dtype=np.int64).copy()
            mk = np.asarray(melds, dtype=np.int64).copy()
            rest[kinds] -= 4
            mk[kinds] += 4
            for runs_first, order in ((False, _UP), (True, _UP), (False, _DOWN), (True, _DOWN)):
                a = np.where(allowed, rest, 0)
                h = np.zeros(K, dtype=np.int64)
                groups = 0
                for kind_of_group in ((1, 0) if runs_first else (0, 1)):
                    for t in order:
                        while groups < k:
                            if kind_of_group == 0 and a[t] >= 3:
                                a[t] -= 3
                                h[t] += 3
                            elif (kind_of_group == 1 and t < N_SUITED and t % 9 <= 6
                                  and a[t] and a[t + 1] and a[t + 2]):
                                a[t:t + 3] -= 1
                                h[t:t + 3] += 1
                            else:
                                break
                            groups += 1
                if groups == k:    # and a single tile
                    rests = [[t] for t in np.flatnonzero((a > 0) & (h == 0) & (mk == 0)).tolist()]
                elif groups == k - 1:  # and a pair with a second pair or two tiles of a run
                    pairs = np.flatnonzero(a >= 2).tolist()
                    rests = [[p, p, q, q] for p in pairs for q in pairs if q > p]
                    rests += [[p, p, t, t + d] for p in pairs for t in range(N_SUITED) for d in (1, 2)
                              if t % SUIT_SIZE + d < SUIT_SIZE and a[t] > (t == p) * 2 and a[t + d] > (t + d == p) * 2]
                else:
                    continue
                if rests:            # the first of them that waits
                    cand = np.repeat(h[None], len(rests), axis=0)
                    for j, r in enumerate(rests):
                        np.add.at(cand[j], r, 1)
                    ok = np.flatnonzero(ting_waits(rules, cand, np.repeat(mk[None], len(rests), axis=0)))
                    if len(ok):
                        return cand[ok[0]], np.array(kinds, dtype=np.int64)
    return None


def _ting_starts(rules, melds, ting, part, pool, n_kong, no_kong=None, kongs=None):
    """Where the 报听 chain starts (``_ting_chain``'s arguments; returns part, pool, kongs): each 报听 seat's
    hand and the kinds of its concealed kongs rebuilt by ``_ting_hand`` out of every 报听 seat's tiles, the
    tiles of their concealed kongs and the unseen ones together, which are the same whatever the hidden tiles
    are (the seats one after another, in the first order of them that works), so that the worlds a search
    plays do not lean towards the real hands or kong kinds, which it would otherwise read. ``melds``: the
    face-up melds (the 报听 seats' concealed kongs aside: they are in ``kongs``). A table where that finds no
    hands, or leaves no kinds for the others' concealed kongs, keeps its real hands and kong kinds (about 1
    in 300 tables with a 报听 seat in rule-agent quemen play, mostly with two or more 报听 seats late in the
    wall; 74 of 25,570 positions beside another seat's 报听 since the kong kinds are rebuilt too, 9 of them
    among the 481 whose 报听 seat holds a concealed kong: two tables with three 报听 seats, at several steps)."""
    part, pool = part.copy(), pool.copy()
    kongs = np.full(part.shape[:2] + (M,), -1, dtype=np.int64) if kongs is None else kongs.copy()
    n_own = (kongs >= 0).sum(axis=2)
    done: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray] | None] = {}  # copies of one table (a search's worlds) share their inputs: each is worked out once
    for r in range(len(part)):
        banned = -1 if no_kong is None else int(no_kong[r])
        own_tiles = _kong_tiles(kongs[r]).sum(axis=0)
        key = (pool[r].tobytes(), part[r].sum(axis=0).tobytes(), part[r].sum(axis=1).tobytes(), melds[r].tobytes(),
               own_tiles.tobytes(), n_own[r].tobytes(), ting[r].tobytes(), int(n_kong[r]), banned)
        if key in done:
            kept = done[key]
            if kept is not None:
                part[r], pool[r], kongs[r] = kept
            continue
        done[key] = None
        for seats in itertools.permutations(np.flatnonzero(ting[r]).tolist()):  # the first order that works
            avail = pool[r, :K] + part[r].sum(axis=0) + own_tiles
            new, new_k = part[r].copy(), kongs[r].copy()
            for o in seats:
                got = _ting_hand(rules, avail, int(part[r, o].sum()), melds[r, o], int(n_own[r, o]), banned)
                if got is None:
                    break
                new[o] = got[0]
                new_k[o] = -1
                new_k[o, :len(got[1])] = got[1]
                avail = avail - got[0] - _kong_tiles(new_k[o])
            else:
                left = pool[r:r + 1].copy()
                left[0, :K] = avail
                if _kong_weight(left, n_kong[r:r + 1], None if no_kong is None else no_kong[r:r + 1])[0] > 0:
                    part[r], pool[r], kongs[r] = new, left[0], new_k
                    done[key] = (new, left[0], new_k)
                    break
    return part, pool, kongs


@overload
def _ting_chain(rules, melds, ting, part, pool, n_kong, steps: int, rng, no_kong=None,
                kongs: None = None) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def _ting_chain(rules, melds, ting, part, pool, n_kong, steps: int, rng, no_kong,
                kongs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def _ting_chain(rules, melds, ting, part, pool, n_kong, steps: int, rng, no_kong=None, kongs=None):
    """Metropolis over 报听 hands and the kinds of the 报听 seats' concealed kongs. Each step, at every table,
    one of its 报听 seats (at random) proposes a new hand or new kong kinds:

    - mostly (``1 - INDEPENDENT_SHARE``, less ``KONG_SHARE`` at a seat with concealed kongs) by swapping a
      random tile of its hand with a random unseen natural tile;
    - ``KONG_SHARE`` (a seat with concealed kongs): one of its kongs, at random, takes a kind drawn uniformly
      among the eligible ones: all four unseen (in ``pool``), not ``no_kong``. The move gives the old kind's
      four back to the pool and takes the new one's, so as many kinds are eligible after it as before: the
      proposal is symmetric (no move where none is eligible);
    - ``INDEPENDENT_SHARE``: its whole hand drawn afresh, and its kongs' kinds: distinct kinds, uniformly,
      among those all four of which are in its hand, its kongs and the unseen natural tiles (not
      ``no_kong``), then the hand from what is left (each physical tile alike).

    Every proposal is symmetric over the arrangements of physical tiles (a kong holds all four of its
    kind), so the new state is accepted when the hand still waits beside its face-up ``melds`` and kongs,
    with probability min(1, w'/w) for the weight w of the others' concealed kongs (``_kong_weight``). The
    swaps and kong moves explore near the current state; the fresh draws connect states no chain of single
    moves through waiting hands joins (the waiting hands can fall apart into such islands), so the chain
    reaches every waiting state and its stationary distribution is the uniform one over the deals that
    keep the rules. melds (m, S, K): face-up melds; ting (m, S); part (m, S, K), pool (m, 42): the hands
    and the rest of the unseen tiles (not the 报听 seats' kongs); n_kong (m,): the others' concealed kongs;
    no_kong as for ``_deal``; kongs (m, S, M): the 报听 seats' kong kinds (-1 after the last). Returns
    (part, pool), and kongs when given."""
    part, pool = part.copy(), pool.copy()
    m = len(part)
    rows = np.arange(m)
    has_kongs = bool(n_kong.any())
    # the 报听 seats' kong kinds as the chain moves them (none given: none, and no kong move is ever made)
    own_kongs = np.full(part.shape[:2] + (M,), -1, dtype=np.int64) if kongs is None else kongs.copy()
    own = bool((own_kongs >= 0).any())
    n_own = (own_kongs >= 0).sum(axis=2)                                   # (m, S)
    full = melds.astype(np.int16) + _kong_tiles(own_kongs).astype(np.int16) if own else melds
    banned = np.full(m, -1, dtype=np.int64) if no_kong is None else np.asarray(no_kong, dtype=np.int64)
    # the chosen seat's kong count, kinds, new kinds and kong tiles (old less new): set each step where own, and
    # read only then (bound here once, so that a chain without kongs does no kong work at any step)
    cnt, ko, new_k, delta = n_own[:, 0], own_kongs[:, 0], own_kongs[:, 0], np.zeros((m, K), dtype=np.int64)
    for _ in range(steps):
        o = np.argmax(np.where(ting, rng.random((m, S)), -1.0), axis=1)
        h = part[rows, o]
        nat = pool[:, :K]
        give = np.minimum(_pick(h, rng), K - 1)                    # a tile of the hand
        take = np.minimum(_pick(nat, rng), K - 1)                  # an unseen natural tile (none: no move)
        new = h.copy()
        new[rows, give] -= 1
        new[rows, take] += 1
        moved = (give != take) & (nat.sum(axis=1) > 0)
        u = rng.random(m)
        fresh = u < INDEPENDENT_SHARE
        if own:
            cnt = n_own[rows, o]                                    # (m,) the seat's concealed kongs
            ko = own_kongs[rows, o]                                 # (m, M) the seat's kong kinds
            new_k = ko.copy()
            delta = np.zeros((m, K), dtype=np.int64)                # its kong tiles, old less new
            kr = np.flatnonzero((u < INDEPENDENT_SHARE + KONG_SHARE) & ~fresh & (cnt > 0))
            if len(kr):                                             # one kong, a kind out of the eligible ones
                slot = np.minimum((rng.random(len(kr)) * cnt[kr]).astype(np.int64), cnt[kr] - 1)
                elig = _kong_kinds(pool[kr], banned[kr])
                c = np.argmax(np.where(elig, rng.random((len(kr), K)), -1.0), axis=1)
                valid = elig[np.arange(len(kr)), c]
                v = kr[valid]
                delta[v, ko[v, slot[valid]]] = 4
                delta[v, c[valid]] = -4
                new_k[v, slot[valid]] = c[valid]
                new[kr] = h[kr]
                moved[kr] = valid
        if fresh.any():
            f = np.flatnonzero(fresh)
            avail = h[f] + nat[f]
            fk, enough = f[:0], np.ones(0, dtype=bool)             # rows whose kongs move too; kinds found
            if own:
                pk = np.flatnonzero(cnt[f] > 0)
                fk = f[pk]
                if len(fk):                                         # kinds for all its kongs, then the hand
                    had = _kong_tiles(ko[fk])
                    whole = avail[pk] + had
                    keys = rng.random((len(fk), K))
                    keys[~_kong_kinds(whole, banned[fk])] = 2.0
                    order = np.argsort(keys, axis=1)[:, :M]
                    use = np.arange(M)[None, :] < cnt[fk][:, None]
                    enough = ((np.take_along_axis(keys, order, axis=1) < 2.0) | ~use).all(axis=1)
                    pick = np.where(use & enough[:, None], order, np.where(enough[:, None], -1, ko[fk]))
                    new_k[fk] = pick
                    delta[fk] = had - _kong_tiles(pick)
                    avail[pk] = whole - had + delta[fk]
            new[f] = _draw_hands(avail, h[f].sum(axis=1), rng)
            moved[f] = (new[f] != h[f]).any(axis=1)
            if len(fk):
                moved[fk] = enough & ((new[fk] != h[fk]).any(axis=1) | (new_k[fk] != ko[fk]).any(axis=1))
        after = pool.copy()
        after[:, :K] += h - new
        new_melds = full[rows, o]
        if own:
            after[:, :K] += delta
            new_melds -= delta.astype(np.int16)
        ok = moved.copy()
        ok[ok] = ting_waits(rules, new[ok], new_melds[ok])
        if has_kongs:
            ratio = _kong_weight(after, n_kong, no_kong) / np.maximum(_kong_weight(pool, n_kong, no_kong), 1)
            ok &= rng.random(m) < ratio
        a = rows[ok]
        part[a, o[ok]] = new[ok]
        pool[a] = after[a]
        if own:
            own_kongs[a, o[ok]] = new_k[ok]
            full[a, o[ok]] = new_melds[ok]
    return (part, pool) if kongs is None else (part, pool, own_kongs)


def _shuffled(counts, rng):
    """The physical tiles of each row of ``counts`` (m, K) in a uniform random order: flat arrays of
    their row (``owner``, rows in order), kind (``tiles``) and place in the row's order (``pos``), and
    each row's first index (``start``, (m,))."""
    m = len(counts)
    n = counts.sum(axis=1)
    flat = np.repeat(np.tile(np.arange(K), m), counts.ravel())
    owner = np.repeat(np.arange(m), n)
    tiles = flat[np.argsort(owner + rng.random(len(owner)), kind="stable")]   # rows stay in order
    start = np.cumsum(n) - n
    return owner, tiles, np.arange(len(owner)) - start[owner], start


def _draw_hands(counts, size, rng) -> np.ndarray:
    """(m, K): ``size`` (m,) tiles drawn per row from ``counts`` (m, K) without replacement, each physical
    tile alike."""
    owner, tiles, pos, _ = _shuffled(counts, rng)
    keep = pos < size[owner]
    return np.bincount(owner[keep] * K + tiles[keep], minlength=len(counts) * K).reshape(len(counts), K)


def _pick(counts, rng) -> np.ndarray:
    """One kind per row, each physical tile of ``counts`` (m, K) equally likely."""
    cum = np.cumsum(counts, axis=1)
    u = rng.random(len(counts)) * cum[:, -1]
    return (cum <= u[:, None]).sum(axis=1)


__all__ = ["determinize", "redeal", "ting_waits"]
