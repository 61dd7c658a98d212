"""The wall: shuffling, explicit walls, the deal, live and replacement draws (docs/RULES.md 3).

Where the wall ends is ``rules.wall_layout``: 'indicator' (beijing: the indicator at wall[-1],
never drawn, the reserve beside it for kong replacements) or 'tail' (replacements from wall[-1]
inward, ``tail_stacks_kept`` stacks left when the live wall ends). ``live_pos`` counts up from
the deal, ``tail_pos`` down from the end. All functions act on a subset of tables ``idx`` (an int
index array) of a GameState at once.
"""
from __future__ import annotations

import numpy as np

from .messages import brief
from .rules import RuleSet
from .state import FLAT_MIN_ROWS, TURN, GameState, K, S, clear_claims
from .tiles import CODES, FIRST_FLOWER, HUI_OF_INDICATOR, TileError, full_set
from .tiles import index as tile_index

N_DEALT = 53  # 13 x 4 + the dealer's 14th tile


class WallError(ValueError):
    """An explicit wall is not a full, valid set of tiles."""


def shuffled_walls(rules: RuleSet, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` independently shuffled walls, (n, W) int8."""
    tiles = full_set(rules.n_tiles).astype(np.int8)
    order = np.argsort(rng.random((n, tiles.size)), axis=1)
    return tiles[order]


def parse_wall(rules: RuleSet, wall) -> np.ndarray:
    """An explicit wall (tile codes or indices) checked to be exactly one full set; (W,) int8."""
    if isinstance(wall, str) or not isinstance(wall, (list, tuple, np.ndarray)):
        raise WallError("the wall must be a list of tile codes such as ['1m', '5z', ...], "
                        f"not {'one string' if isinstance(wall, str) else type(wall).__name__}")
    if isinstance(wall, np.ndarray) and wall.ndim != 1:
        raise WallError(f"the wall must be a 1-D list of tile codes or indices, got an array of shape {wall.shape}")
    if len(wall) != rules.n_tiles:  # before reading any tile: a wall of millions is refused at once
        raise WallError(f"the {rules.name} wall has {rules.n_tiles} tiles, got {len(wall)}")
    tiles = []
    for pos, t in enumerate(wall):
        given = t
        if isinstance(t, str):
            try:
                t = tile_index(t)
            except TileError:
                raise WallError(f"wall[{pos}] = {brief(t)} is not a tile code") from None
        elif isinstance(t, (int, np.integer)) and not isinstance(t, bool):
            t = int(t)
        else:
            raise WallError(f"wall[{pos}] = {brief(t)} is neither a tile code nor a tile index")
        if not 0 <= t < len(CODES) or (t >= FIRST_FLOWER and not rules.flowers):
            raise WallError(f"wall[{pos}] = {brief(given)} is not a tile of the {rules.name} set")
        tiles.append(t)
    have = np.bincount(tiles, minlength=len(CODES))
    want = np.bincount(full_set(rules.n_tiles), minlength=len(CODES))
    bad = np.flatnonzero(have != want)
    if bad.size:
        wrong = ", ".join(f"{have[t]} x {CODES[t]} (a full set has {want[t]})" for t in bad[:6])
        raise WallError(f"the {rules.name} wall holds {wrong}")
    return np.asarray(tiles, dtype=np.int8)


def _at_least_0(x):
    """max(x, 0) of an array, or of one number as an int (one table: ten times cheaper than a ufunc)."""
    return np.maximum(x, 0) if isinstance(x, np.ndarray) else max(int(x), 0)


def reserve_start(rules: RuleSet, st: GameState) -> int:
    """Indicator layout: wall index of the reserve's first tile (wall[reserve_start:-1])."""
    return st.wall.shape[1] - 1 - rules.reserve


def live_end(rules: RuleSet, st: GameState, idx):
    """Wall index one past the last tile a normal draw may take, per table in ``idx``.

    Here and in ``live_left``, ``replacement_floor``, ``replacements_left``: ``idx`` is an index
    array (the answer is an array), or one table number (the answer is a number)."""
    if rules.wall_layout == "indicator":
        # the indicator and the reserve beside it are never drawn normally
        start = reserve_start(rules, st)
        return start if np.ndim(idx) == 0 else np.full(len(idx), start, dtype=np.int64)
    kept = 2 * rules.tail_stacks_kept
    if kept:
        # hebei: 6 stacks stay; an odd replacement tile at the tail is not a stack.
        kept = kept + (st.replaced[idx] % 2)
    return st.tail_pos[idx].astype(np.int64) + 1 - kept


def _counts_as_live(rules: RuleSet, replacement: bool) -> bool:
    """Whether a draw can be the 海底 tile, the last tile drawn before the wall ends. A normal draw can.
    A kong replacement can on a tail-layout wall, where it is taken from the same undrawn tiles that
    decide the end: under quemen the wall's last tile (牌墙最后一张牌); under hebei a replacement after
    which no normal draw is left (by docs/RULES.md 3's count of kept tiles, 12 or 13) is the last drawable
    tile (6.2). Not from beijing's reserve: its 海底 is the last live tile (6.1)."""
    return not replacement or rules.wall_layout == "tail"


def live_left(rules: RuleSet, st: GameState, idx):
    """Tiles a normal draw may still take, per table in ``idx``."""
    return _at_least_0(live_end(rules, st, idx) - st.live_pos[idx])


def replacement_floor(rules: RuleSet, st: GameState, idx):
    """Lowest wall index a replacement draw may take, per table in ``idx``: the reserve's start
    (indicator layout: one number for every table) or the next live tile (tail layout)."""
    if rules.wall_layout == "indicator":
        return reserve_start(rules, st)
    return st.live_pos[idx]


def replacements_left(rules: RuleSet, st: GameState, idx):
    """Tiles a replacement draw may still take, per table in ``idx`` (the reserve, or every undrawn
    tile of a tail-layout wall)."""
    return _at_least_0(st.tail_pos[idx] + 1 - replacement_floor(rules, st, idx))


def kong_possible(rules: RuleSet, st: GameState, idx) -> np.ndarray:
    """A kong may be declared: a replacement tile is there to draw (indicator layout: the reserve;
    tail layout: any undrawn tile, hebei's kept stacks included: docs/RULES.md 6.4). (n,) bool."""
    return st.tail_pos[idx] >= replacement_floor(rules, st, idx)


def _wall_at(st: GameState, idx, pos) -> np.ndarray:
    """``st.wall[idx, pos]``, read as one flat ``take`` at hundreds of tables or more (faster there)."""
    if len(idx) < FLAT_MIN_ROWS:        # few tables: NumPy's two-index read is the cheaper
        return st.wall[idx, pos]
    return np.take(st.wall.reshape(-1), idx * st.wall.shape[1] + pos.astype(np.int64))


def _add_tiles(st: GameState, idx, seats, tiles) -> None:
    """Put non-flower ``tiles`` (n,) into hands (``idx`` distinct tables); flowers are counted as laid out."""
    flower = tiles >= FIRST_FLOWER
    if flower.any():
        st.flowers[idx[flower], seats[flower]] += 1
        keep = ~flower
        idx, seats, tiles = idx[keep], seats[keep], tiles[keep]
    if len(idx) >= FLAT_MIN_ROWS and st.hands.flags.c_contiguous:  # one flat write (a view): the cells are distinct
        st.hands.reshape(-1)[(idx * S + seats) * K + tiles] += 1
    else:
        st.hands[idx, seats, tiles] += 1


def _replace_flowers(st: GameState, idx, seats, pending) -> tuple[np.ndarray, np.ndarray]:
    """Replace ``pending`` (n,) flowers per table from the tail until none is left.

    Returns (last non-flower tile drawn per table or -1, tables whose wall ran out).
    """
    last = np.full(len(idx), -1, dtype=np.int8)
    empty = np.zeros(len(idx), dtype=bool)
    pending = pending.astype(np.int64).copy()
    while True:
        need = (pending > 0) & ~empty
        if not need.any():
            return last, empty
        j = np.flatnonzero(need)
        b = idx[j]
        out = st.tail_pos[b] < st.live_pos[b]  # flowers come with the tail layout (RuleSet)
        empty[j[out]] = True
        j, b = j[~out], b[~out]
        t = _wall_at(st, b, st.tail_pos[b])
        st.tail_pos[b] -= 1
        st.replaced[b] += 1
        _add_tiles(st, b, seats[j], t)
        got = t < FIRST_FLOWER
        pending[j[got]] -= 1
        last[j[got]] = t[got]


def deal(rules: RuleSet, st: GameState, idx, walls: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """Deal new hands at tables ``idx`` from ``walls`` (n, W); the dealer's first turn follows.

    Returns a bool (n,) of tables whose wall ran out while replacing flowers (quemen only).
    """
    n = len(idx)
    W = walls.shape[1]
    st.wall[idx] = walls
    st.dealer[idx] = dealers
    for name in ("hands", "meld_counts", "hidden", "n_hidden", "river", "flowers", "n_melds",
                 "n_discards", "claims", "ting", "ready", "open_hand", "ponged", "winners",
                 "sz_count", "sz_rounds", "replaced"):
        getattr(st, name)[idx] = 0
    st.meld_type[idx] = 0
    st.meld_wild[idx] = 0
    st.meld_tile[idx] = -1
    st.meld_from[idx] = -1
    st.any_meld[idx] = False
    st.claimed_turn[idx] = False
    st.after_kong[idx] = False
    st.last_draw[idx] = False
    st.claim_tile[idx] = -1
    st.claim_last[idx] = False
    st.win_from[idx] = -1
    st.win_tile[idx] = -1
    st.robbed[idx] = False
    clear_claims(st, idx)
    st.sz_alive[idx] = rules.shaozhuang
    st.sz_tile[idx] = -1
    # Hands: seat dealer+k gets wall[13k:13k+13]; the dealer also wall[52].
    n_kinds = len(CODES)
    seat_of_pos = np.concatenate([np.repeat(np.arange(4), 13), [0]])  # offset from the dealer
    seats = (dealers[:, None].astype(np.int64) + seat_of_pos[None, :]) % S
    flat = (np.arange(n)[:, None] * S + seats) * n_kinds + walls[:, :N_DEALT].astype(np.int64)
    counts = np.bincount(flat.ravel(), minlength=n * S * n_kinds).reshape(n, S, n_kinds)
    st.hands[idx] = counts[:, :, :K]
    flowers = counts[:, :, K:].sum(axis=2)
    st.live_pos[idx] = N_DEALT
    if rules.wall_layout == "indicator":
        st.indicator[idx] = walls[:, -1]
        st.hui[idx] = HUI_OF_INDICATOR[walls[:, -1]] if rules.hui else -1
        st.tail_pos[idx] = W - 2
    else:
        st.indicator[idx] = -1
        st.hui[idx] = -1
        st.tail_pos[idx] = W - 1
    drawn = walls[:, N_DEALT - 1].copy()
    empty = np.zeros(n, dtype=bool)
    if rules.flowers:
        for k in range(S):
            seat = ((dealers.astype(np.int64) + k) % S)
            st.flowers[idx, seat] += flowers[np.arange(n), seat]
            last, ran_out = _replace_flowers(st, idx, seat, flowers[np.arange(n), seat])
            empty |= ran_out
            if k == 0:
                swap = (drawn >= FIRST_FLOWER)
                drawn[swap] = last[swap]
    st.phase[idx] = TURN
    st.to_act[idx] = dealers
    st.turn_seat[idx] = dealers
    st.drawn[idx] = drawn
    return empty


def _draw_one(rules: RuleSet, st: GameState, b: int, replacement: bool) -> np.ndarray:
    """``draw`` at one table without flowers, on Python numbers (the single-table envs draw at nearly
    every decision; ``live_left`` and ``replacement_floor`` answer in numbers for one table number).
    A test holds one-table engines equal to the batched path (tests/test_engine.py)."""
    if replacement:
        pos = int(st.tail_pos[b])
        if pos < replacement_floor(rules, st, b):
            return np.ones(1, dtype=bool)
        st.tail_pos[b] = pos - 1
        st.replaced[b] += 1
    else:
        if live_left(rules, st, b) <= 0:
            return np.ones(1, dtype=bool)
        pos = int(st.live_pos[b])
        st.live_pos[b] = pos + 1
    t = int(st.wall[b, pos])
    seat = int(st.turn_seat[b])
    st.hands[b, seat, t] += 1
    st.drawn[b] = t
    st.after_kong[b] = replacement
    st.last_draw[b] = live_left(rules, st, b) == 0 if _counts_as_live(rules, replacement) else False
    st.claimed_turn[b] = False
    st.phase[b] = TURN
    st.to_act[b] = seat
    return np.zeros(1, dtype=bool)


def draw(rules: RuleSet, st: GameState, idx, replacement: bool) -> np.ndarray:
    """The seat ``turn_seat`` draws at tables ``idx``: from the live wall, or a replacement from
    the tail (indicator layout: the reserve). Flowers are laid out and replaced (quemen).

    Returns a bool (n,) of tables where no tile could be drawn (the hand is drawn: 荒牌); at the
    others the seat now holds the tile and it is their TURN.
    """
    if len(idx) == 1 and not rules.flowers:
        return _draw_one(rules, st, int(idx[0]), replacement)
    return _draw_batch(rules, st, idx, replacement)


def _draw_batch(rules: RuleSet, st: GameState, idx, replacement: bool) -> np.ndarray:
    """``draw`` for any number of tables."""
    seats = st.turn_seat[idx].astype(np.int64)
    if replacement:
        empty = st.tail_pos[idx] < replacement_floor(rules, st, idx)
    else:
        empty = np.asarray(live_left(rules, st, idx) <= 0)  # (an array: idx is one)
    ok = np.flatnonzero(~empty)
    b = idx[ok]
    if replacement:
        t = _wall_at(st, b, st.tail_pos[b])
        st.tail_pos[b] -= 1
        st.replaced[b] += 1
    else:
        t = _wall_at(st, b, st.live_pos[b])
        st.live_pos[b] += 1
    _add_tiles(st, b, seats[ok], t)
    t = t.copy()
    if rules.flowers:
        flower = t >= FIRST_FLOWER
        last, ran_out = _replace_flowers(st, b, seats[ok], flower.astype(np.int64))
        t[flower] = last[flower]
        empty[ok[ran_out]] = True
        keep = ~ran_out
        ok, b, t = ok[keep], b[keep], t[keep]
    st.drawn[b] = t
    st.after_kong[b] = replacement
    st.last_draw[b] = (live_left(rules, st, b) == 0) if _counts_as_live(rules, replacement) else False
    st.claimed_turn[b] = False
    st.phase[b] = TURN
    st.to_act[b] = st.turn_seat[b]
    return empty

