"""The batched engine: B tables, one decision each per ``step``, no Python loop over tables.

``Engine.step(actions)`` takes one action per table (for the seat ``state.to_act``), applies
each kind of update to the subset of tables that chose it (boolean masks and fancy indexing),
then runs every table on through draws, empty claim windows and automatic wins until it waits
on a real decision again (docs/game_flow.md), and computes the legal masks for the next step.
Loops in here run over the 4 seats or a few phases, never over tables.

The engine owns the flow of a hand: the own turn (discard, kongs, self-draw win), draws and
replacement draws (``wall.py``), when a claim window opens and what follows when it closes, and
the end of a hand: ``_finish(idx, won=...)`` settles it (``hand_end.py``, which calls the rules
core once per won hand) and deals the next hand of a match. What is legal is ``legal.py``; the
claim window itself (queue, priorities, pending claims, taking a meld) is ``claims.py``.

An illegal action raises ``ActionError`` naming the table, the seat, the action and why, and
changes nothing.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import overload

import numpy as np

from . import actions as A
from . import claims, illegal, legal
from .hand_end import Settlements, hand_results
from .messages import brief
from .rules import RuleSet, RulesSpec, get_rules
from .state import (
    C_WIN,
    CLAIM,
    END,
    MELD_ADDED_KONG,
    MELD_CONCEALED_KONG,
    MELD_PONG,
    PHASE_NAMES,
    ROB,
    TURN,
    GameState,
    K,
    allocate,
    bool_among_ints,
    refuse_masked,
    seat_rows,
)
from .wall import WallError, deal, draw, parse_wall, shuffled_walls

MAX_TABLES = 1 << 22  # 4M tables: about 4 GiB of state


def check_num_tables(n, name: str = "num_tables") -> int:
    """``n`` as a table count, or a ValueError that calls it ``name`` (the environments say num_envs)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_TABLES:
        raise ValueError(f"{name} must be an integer in 1-{MAX_TABLES:,}, got {brief(n)}")
    return int(n)


_STATE_FIELDS = tuple(f.name for f in fields(GameState))


MAX_SPAWN_DEPTH = 32
"""Spawn keys longer than this are folded into a fresh seed by ``Engine.clone`` (``_spawned``)."""


def _spawned(rng: np.random.Generator) -> np.random.Generator:
    """A child of ``rng`` (``Generator.spawn``) for a clone. Each spawn adds one entry to the child's spawn key,
    so a chain of clones of clones (a search that keeps the chosen child as its next root, move after move,
    hand after hand) grew the key without bound: every clone then hashed the whole key, 0.16 ms at depth 0 and
    35 ms at depth 20,000 (measured), and each kept generator held its key. Beyond ``MAX_SPAWN_DEPTH`` the
    child is reseeded from its own first words with an empty key: still reproducible and apart from its
    siblings, and the same child as before for every shallower clone."""
    child = rng.spawn(1)[0]
    seq = child.bit_generator.seed_seq
    if len(getattr(seq, "spawn_key", ())) <= MAX_SPAWN_DEPTH:
        return child
    return np.random.Generator(type(child.bit_generator)(np.random.SeedSequence(seq.generate_state(4))))


def _new_rng(seed, accepted: str = "None or a non-negative integer") -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        per_table = " (one seed deals every table: the tables share one generator, so a seed per table, " \
            "as Gymnasium's vector envs of sub-envs take, has nothing to seed)" if isinstance(seed, (list, tuple)) else ""
        raise ValueError(f"seed must be {accepted}, got {brief(seed)}{per_table}")
    return np.random.default_rng(int(seed))


def _parse_dealers(dealers, n: int, one_table: bool = False) -> np.ndarray:
    """``n`` seats 0-3 given as Python or NumPy integers (not floats, strings or bools); ``one_table``: the
    engine has one table (an error then names no table)."""
    if isinstance(dealers, (str, bytes, dict, set, frozenset)) or not hasattr(dealers, "__len__") \
            or (isinstance(dealers, np.ndarray) and dealers.ndim != 1):
        raise ValueError(f"dealers must be a list of {n} seat{'s' * (n != 1)}, got {brief(dealers)}")
    if len(dealers) != n:
        raise ValueError(f"{len(dealers)} dealer{'s' * (len(dealers) != 1)} given for {n} table{'s' * (n != 1)}")
    out = np.empty(n, dtype=np.int8)
    for j, d in enumerate(dealers):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or not 0 <= d <= 3:
            raise ValueError(f"{'the dealer' if one_table else f'dealer of table {j} of this reset'} must be a "
                             "seat 0-3 (an integer), "
                             f"got {brief(d)}")
        out[j] = d
    return out


class EngineRules:
    """The ``rules`` attribute of an environment built on an `Engine` (its ``engine``, or its ``venv``'s): the
    engine's rule set, read-only. A rule set is fixed when the environment is made: setting the attribute
    (``env.rules = ...``, or Gymnasium's ``set_attr("rules", ...)``, which sets it where it is found) is an
    AttributeError, so that the observations, opponents and records never read another rule set than the one
    the engine plays."""

    @staticmethod
    def _rules(obj) -> RuleSet:
        engine = obj.__dict__.get("engine") or getattr(obj.__dict__.get("venv"), "engine", None)
        if engine is None:  # (an environment whose construction failed before its engine was made)
            raise AttributeError("rules: this environment has no engine (it was not made)")
        return engine.rules

    @overload
    def __get__(self, obj: None, owner=None) -> EngineRules: ...
    @overload
    def __get__(self, obj: object, owner=None) -> RuleSet: ...
    def __get__(self, obj, owner=None) -> EngineRules | RuleSet:
        if obj is None:
            return self
        return self._rules(obj)

    def __set__(self, obj, value) -> None:
        raise AttributeError(f"rules: an environment's rule set is fixed when it is made (this one plays "
                             f"{self._rules(obj).name}); make a new environment with rules=... instead")


@dataclass
class StepResult:
    """What one step produced, per table."""

    rewards: np.ndarray        # (B, 4) int64 settled points of the hands that ended in this step
    hand_over: np.ndarray      # (B,) bool    a hand ended at this table in this step
    episode_over: np.ndarray   # (B,) bool    the episode (match of hands_per_episode) ended
    settlements: Settlements = field(default_factory=Settlements)  # table -> settlement (docs/INTERFACES.md 2)


class Engine:
    """B tables of one rule set.

    >>> eng = Engine("beijing", num_tables=8, seed=0)
    >>> _ = eng.reset()                  # a StepResult: the deal's rewards (zeros), no hand over
    >>> mask = eng.legal_mask()          # (8, N_ACTIONS) bool, for the seat state.to_act
    >>> res = eng.step(mask.argmax(axis=1))   # the first legal action of each table
    """

    def __init__(self, rules: RulesSpec = "beijing", num_tables: int = 1, seed=None, **overrides):
        self.rules = get_rules(rules, **overrides)
        self.num_tables = check_num_tables(num_tables)
        self.rng = np.random.default_rng() if seed is None else _new_rng(seed)
        self.state: GameState = allocate(self.num_tables, self.rules.n_tiles)
        self._mask = np.zeros((self.num_tables, A.N_ACTIONS), dtype=bool)
        self._rows = np.arange(self.num_tables)
        self._dealt_ever = np.zeros(self.num_tables, dtype=bool)  # step() needs every table dealt

    # ------------------------------------------------------------------ reset
    def reset(self, seed=None, walls=None, dealers=None, tables=None) -> StepResult:
        """Start new episodes at ``tables`` (default: all).

        Returns a StepResult for hands that ended at the deal itself (四惠牌 on the dealer's first
        turn, or quemen flowers emptying the wall): those tables are in END with their rewards and
        settlements here, and need another reset to play on.

        walls: None (shuffled from the engine's generator), or an array/list (n, W) of tile
        indices or codes, each a full set (docs/RULES.md 3). dealers: None (docs/RULES.md 2: East, or at
        random for hebei/quemen) or (n,) seats.
        """
        # Everything is checked before anything changes: a refused reset leaves the tables and
        # the generator exactly as they were.
        rng, idx, walls_arr, dealers_arr = self.check_reset(seed, walls, dealers, tables)
        n = len(idx)
        self.rng = rng
        if walls_arr is None:
            walls_arr = shuffled_walls(self.rules, self.rng, n)
        if dealers_arr is None:
            if self.rules.first_dealer == "random":
                dealers_arr = self.rng.integers(0, 4, size=n).astype(np.int8)
            else:
                dealers_arr = np.zeros(n, dtype=np.int8)
        self._dealt_ever[idx] = True
        st = self.state
        st.hands_played[idx] = 0
        st.match_scores[idx] = 0
        empty = deal(self.rules, st, idx, walls_arr, dealers_arr)
        self._dealt(idx)
        res = self._new_result()
        self._start_turn(idx, res)
        self._finish(idx[empty], res, won=False)
        self._update_masks(None if tables is None else idx)
        return res

    def check_reset(self, seed=None, walls=None, dealers=None, tables=None):
        """Check ``reset``'s arguments without changing anything: a ValueError (``WallError`` for a
        wall) names what is wrong. Returns (generator, table rows, walls or None, dealers or None);
        environments that keep their own state next to the engine call it before they touch it."""
        rng = self.rng if seed is None else _new_rng(seed)
        idx = self._rows if tables is None else self._table_index(tables)
        walls_arr = None if walls is None else self._parse_walls(walls, len(idx))
        dealers_arr = None if dealers is None else _parse_dealers(dealers, len(idx), self.num_tables == 1)
        return rng, idx, walls_arr, dealers_arr

    def _table_index(self, tables) -> np.ndarray:
        """``tables`` as distinct int64 row numbers of this engine, or a ValueError."""
        refuse_masked(tables, "tables")
        try:
            arr = np.asarray(tables)
        except Exception:  # noqa: BLE001 (ragged lists, an __array__ that raises: no table numbers)
            raise ValueError(f"tables must be a 1-D array of table numbers, got {brief(tables)}") from None
        if arr.ndim > 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise ValueError(f"tables must be a 1-D array of table numbers, got dtype {arr.dtype} "
                             f"shape {arr.shape}")
        if (j := bool_among_ints(tables)) is not None:
            raise ValueError(f"tables[{j}] is {tables[j]!r}, not a table number (an integer)")
        arr = arr.reshape(-1)
        bad = arr[(arr < 0) | (arr >= self.num_tables)]  # before the int64 cast (uint64 2**64 - 1 read -1)
        if bad.size:
            raise ValueError(f"table {int(bad[0])} does not exist (tables are 0-{self.num_tables - 1})")
        arr = arr.astype(np.int64)
        if len(np.unique(arr)) != len(arr):
            raise ValueError("tables lists a table more than once")
        return arr

    def _parse_walls(self, walls, n: int) -> np.ndarray:
        wanted = f"walls must be a list of {n} wall{'s' * (n != 1)} (one per table)"
        if isinstance(walls, (str, bytes, dict, set, frozenset)) or not hasattr(walls, "__len__") \
                or (isinstance(walls, np.ndarray) and walls.ndim == 0):
            raise WallError(f"{wanted}, got {type(walls).__name__}")
        if len(walls) != n and len(walls) and isinstance(walls[0], (str, int, np.integer)):  # tiles: one flat wall
            raise WallError(f"{wanted}; got one list of {len(walls)} tiles (the same wall at every table: "
                            f"[wall] * {n})")
        if len(walls) != n:
            raise WallError(f"{len(walls)} wall{'s' * (len(walls) != 1)} given for {n} "
                            f"table{'s' * (n != 1)}")
        out = np.empty((n, self.rules.n_tiles), dtype=np.int8)
        for j, w in enumerate(walls):
            try:
                out[j] = parse_wall(self.rules, w)
            except WallError as e:
                where = "the wall" if self.num_tables == 1 else f"wall of table {j} of this reset"
                raise WallError(f"{where}: {e}") from None
        return out

    # ------------------------------------------------------------ copies (search)
    def clone(self, tables=None, seed=None) -> Engine:
        """A new, independent Engine of ``len(tables)`` tables holding copies of this engine's
        tables ``tables`` (default: all, in order): row j of the clone is table ``tables[j]``. A
        table may be listed several times (``clone([b] * 256)``: 256 copies of one position).

        The clone has the same rules, a copy of every GameState field of those tables, their
        legal masks, and shares no array with this engine: playing on either leaves the other as
        it was. Its random generator (used only to deal the next hand of a match, and by
        ``reset``) is its own: ``seed`` None spawns a child of this engine's generator (NumPy
        ``Generator.spawn``: this engine's own draws are not advanced, each clone gets a
        different stream, reproducible when this engine was seeded; a clone more than
        ``MAX_SPAWN_DEPTH`` clones deep is reseeded, ``_spawned``); an int seeds a new one;
        a ``np.random.Generator`` is used as is.

        Refused (ValueError or TypeError, nothing changes) for tables that are not table
        numbers of this engine or were never dealt (``reset`` first), and for more than
        ``MAX_TABLES`` of them (the bound of ``num_tables``).
        """
        rng = self._clone_rng(seed)
        idx = self._rows if tables is None else self._table_arg(tables, "tables", repeats=True)
        if idx.ndim == 0:
            idx = idx.reshape(1)
        if not len(idx):
            raise ValueError("clone needs at least one table (tables is empty)")
        if len(idx) > MAX_TABLES:  # as the constructor and determinize bound them, before any allocation
            raise ValueError(f"clone of {len(idx):,} tables: an engine holds 1-{MAX_TABLES:,} tables")
        self._check_dealt(idx, "")
        new = Engine.__new__(Engine)
        new.rules = self.rules
        new.num_tables = len(idx)
        new.rng = rng if rng is not None else _spawned(self.rng)
        st = self.state
        new.state = st.copy() if tables is None else GameState(**{f: getattr(st, f)[idx] for f in _STATE_FIELDS})
        new._mask = self._mask[idx]
        new._rows = np.arange(new.num_tables)
        new._dealt_ever = self._dealt_ever[idx]
        return new

    def restore(self, source: Engine, src_tables, dst_tables) -> None:
        """Copy the state of tables ``src_tables`` of ``source`` (an Engine with the same rules;
        this engine itself is allowed) into this engine's tables ``dst_tables``: every GameState
        field and the legal masks. ``src_tables`` may repeat a table, or be one table number
        for all of ``dst_tables`` (``eng.restore(root, 0, range(256))``: one position in 256
        rows); ``dst_tables`` are distinct. This engine's generator and its other tables are
        left as they are.

        Everything is checked first; a refused call (TypeError for a non-Engine or non-integer
        table numbers, ValueError for other rules, tables out of range, repeated destinations,
        lengths that differ, never-dealt source tables) changes nothing.
        """
        if not isinstance(source, Engine):
            raise TypeError(f"source must be an Engine, got {type(source).__name__}")
        if source.rules != self.rules:
            diff = [f"{f.name}={getattr(source.rules, f.name)!r} (here {getattr(self.rules, f.name)!r})"
                    for f in fields(self.rules) if getattr(source.rules, f.name) != getattr(self.rules, f.name)]
            raise ValueError("restore needs the same rules; the source engine has " + ", ".join(diff[:6]))
        src = source._table_arg(src_tables, "src_tables", repeats=True, where="the source engine")
        dst = self._table_arg(dst_tables, "dst_tables", repeats=False)
        dst = dst.reshape(-1)
        if src.ndim == 0:
            src = np.full(len(dst), int(src), dtype=np.int64)
        elif len(src) != len(dst):
            raise ValueError(f"{len(src)} source tables given for {len(dst)} destination tables "
                             "(give as many, or one source table number for all)")
        source._check_dealt(src, " of the source engine")
        if not len(dst):
            return
        mine, theirs = self.state, source.state
        one = int(src[0]) if len(src) and (src == src[0]).all() else None
        if one is not None:     # one position into many rows: broadcast its row (a view, or a copy here)
            own = source is self
            for f in _STATE_FIELDS:
                row = getattr(theirs, f)[one]
                getattr(mine, f)[dst] = row.copy() if own else row
        else:                   # fancy indexing reads the source rows into a new array first
            for f in _STATE_FIELDS:
                getattr(mine, f)[dst] = getattr(theirs, f)[src]
        self._mask[dst] = source._mask[src]
        self._dealt_ever[dst] = True

    def _save(self) -> tuple:
        """A copy of everything ``reset`` and ``step`` change (every table's state, the legal masks, the
        generator), for ``_load``: a caller that runs other code between engine calls (the single-agent
        env's opponents) puts the engine back with it when that code fails."""
        return (self.state.copy(), self._mask.copy(), self._dealt_ever.copy(), self.rng,
                copy.deepcopy(self.rng.bit_generator.state))

    def _load(self, saved: tuple) -> None:
        """Put back what ``_save`` copied, in place (the state's arrays keep their identity)."""
        state, mask, dealt, rng, rng_state = saved
        for f in _STATE_FIELDS:
            getattr(self.state, f)[...] = getattr(state, f)
        self._mask[...] = mask
        self._dealt_ever[...] = dealt
        self.rng = rng
        self.rng.bit_generator.state = rng_state

    def _clone_rng(self, seed) -> np.random.Generator | None:
        """The clone's generator from ``seed`` (None: spawned later, after every check)."""
        if seed is None:
            return None
        if isinstance(seed, np.random.Generator):
            return seed
        return _new_rng(seed, "None, a numpy Generator or a non-negative integer")

    def _table_arg(self, tables, what: str, *, repeats: bool, where: str = "") -> np.ndarray:
        """``tables`` (one table number or a 1-D list of them) as int64, checked against this
        engine: TypeError for anything but integers, ValueError out of range or (unless
        ``repeats``) listed twice. A single number comes back 0-dimensional."""
        if isinstance(tables, (bool, np.bool_, str, bytes)):
            raise TypeError(f"{what} must be table numbers (integers), got {brief(tables)}")
        refuse_masked(tables, what)
        try:
            arr = np.asarray(tables)
        except Exception as e:  # noqa: BLE001 (ragged lists, an __array__ that raises: no table numbers)
            raise TypeError(f"{what} must be table numbers (integers): {str(e)[:80]}") from None
        if arr.size == 0 and arr.ndim == 1:
            return np.zeros(0, dtype=np.int64)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{what} must be table numbers (integers), got dtype {arr.dtype}")
        if (j := bool_among_ints(tables)) is not None:  # ([True, 0] is the int64 [1, 0])
            raise TypeError(f"{what} must be table numbers (integers), got {tables[j]!r} at position {j}")
        if arr.ndim > 1:
            raise ValueError(f"{what} must be one table number or a 1-D list of them, got shape {arr.shape}")
        bad = arr[(arr < 0) | (arr >= self.num_tables)].reshape(-1)
        if bad.size:
            raise ValueError(f"{what}: {where or 'this engine'} has no table {int(bad[0])} "
                             f"(its tables are 0-{self.num_tables - 1})")
        arr = arr.astype(np.int64)
        if not repeats and arr.ndim == 1 and len(np.unique(arr)) != len(arr):
            raise ValueError(f"{what} lists a table more than once")
        return arr

    def _check_dealt(self, idx, where: str) -> None:
        never = np.asarray(idx).reshape(-1)[~self._dealt_ever[idx].reshape(-1)]
        if never.size:
            raise ValueError(f"table {int(never[0])}{where} has never been dealt: reset() it before copying")

    # ------------------------------------------------------------------ masks
    def legal_mask(self) -> np.ndarray:
        """(B, N_ACTIONS) bool: the legal actions of each table's seat ``to_act`` (END: none). A read-only view
        of the engine's own masks (no copy; it follows the engine's steps): writing into it would let ``step``
        take an action the rules refuse, so NumPy refuses the write; ``.copy()`` it to edit."""
        view = self._mask.view()
        view.flags.writeable = False
        return view

    def _update_masks(self, tables=None) -> None:
        """Refresh the legal masks of ``tables`` (None: all) from the state."""
        if self.num_tables == 1:
            return self._update_mask_one()
        return self._update_masks_batch(tables)

    def _update_masks_batch(self, tables=None) -> None:
        rules, st = self.rules, self.state
        mask = self._mask
        if tables is None:
            mask[:] = False
            phase = st.phase
            base = self._rows
        else:
            mask[tables] = False
            phase = st.phase[tables]
            base = tables
        turn = base[phase == TURN]
        if len(turn):
            s = st.to_act[turn].astype(np.int64)
            counts = seat_rows(st.hands, turn, s)
            claimed = st.claimed_turn[turn]
            disc = counts > 0
            tinged = seat_rows(st.ting, turn, s)
            if tinged.any():
                t_rows = np.flatnonzero(tinged)
                disc[t_rows] = False
                disc[t_rows, st.drawn[turn[t_rows]]] = True
            mask[turn, A.DISCARD:A.DISCARD + K] = disc
            mask[turn, A.KONG_SELF:A.KONG_SELF + K] = legal.self_kongs(rules, st, turn, s)
            # Only a hand that was ready before its draw, a kong replacement turn or the dealer's
            # first turn can hold a win: the exact test runs on those alone.
            first = (seat_rows(st.n_discards, turn, s) == 0) & (s == st.dealer[turn])
            maybe = np.flatnonzero(~claimed & (seat_rows(st.ready, turn, s) | st.after_kong[turn] | first))
            if len(maybe):
                mask[turn[maybe], A.WIN] = legal.self_draw_win(rules, st, turn[maybe], s[maybe])
            if rules.ting:
                mask[turn, A.TING:A.TING + K] = legal.ting_discards(rules, st, turn, s)
        asked = base[(phase == CLAIM) | (phase == ROB)]
        if len(asked):
            claims.window_mask(st, asked, mask)

    def _update_mask_one(self) -> None:
        """``_update_masks`` of a one-table engine: the same legal helpers and the same conditions on
        table 0, read as Python numbers instead of selected out of a batch (benchmarks/fast_paths.py;
        tests/test_engine.py holds one-table engines equal to the batched path)."""
        rules, st, mask = self.rules, self.state, self._mask
        mask[0] = False
        phase = st.phase[0]
        if phase == TURN:
            one = self._rows
            s = st.to_act[:1].astype(np.int64)
            seat = int(s[0])
            if st.ting[0, seat]:  # 报听: only the tile just drawn may go
                mask[0, A.DISCARD + st.drawn[0]] = True
            else:
                mask[0, A.DISCARD:A.DISCARD + K] = st.hands[0, seat] > 0
            mask[0, A.KONG_SELF:A.KONG_SELF + K] = legal.self_kongs(rules, st, one, s)[0]
            first = st.n_discards[0, seat] == 0 and seat == st.dealer[0]
            if not st.claimed_turn[0] and (st.ready[0, seat] or st.after_kong[0] or first):
                mask[0, A.WIN] = legal.self_draw_win(rules, st, one, s)[0]
            if rules.ting:
                mask[0, A.TING:A.TING + K] = legal.ting_discards(rules, st, one, s)[0]
        elif phase == CLAIM or phase == ROB:
            claims.window_mask(st, self._rows, mask)

    def explain_illegal(self, table: int, action: int) -> str:
        """Why ``action`` is not legal at ``table`` now, in words (a TypeError or ValueError for a ``table`` that is
        not one table number of this engine); for an action that is legal, a line that says so."""
        checked = self._table_arg(table, "table", repeats=True)
        if checked.ndim:
            raise ValueError(f"table must be one table number, got {checked.size}")
        table = int(checked)
        st = self.state
        try:
            name = A.name(action)
        except A.ActionError as e:
            return f"{e} (table {table})" if self.num_tables > 1 else str(e)
        phase = PHASE_NAMES[st.phase[table]]
        if st.phase[table] == END:
            return f"action '{name}' at table {table}: the hand is over; reset first"
        where = f" at table {table}" if self.num_tables > 1 else ""
        if self._mask[table, int(action)]:  # asked about an action that is allowed: say so, not "illegal"
            return f"action '{name}' is legal{where} for seat {st.to_act[table]} in phase {phase}"
        legal_names = [A.name(i) for i in np.flatnonzero(self._mask[table])]
        listed = ", ".join(legal_names[:12]) + (" ..." if len(legal_names) > 12 else "")
        reason = illegal.why(self.rules, st, table, int(action))
        return (f"action '{name}' is illegal{where} for seat {st.to_act[table]} in phase {phase}"
                f"{': ' + reason if reason else ''}; legal now: {listed}")

    # ------------------------------------------------------------------ step
    def step(self, actions, tables=None) -> StepResult:
        """Apply one action per table (ignored at tables in END). Returns rewards and ends.

        ``tables``: step only these tables (distinct table numbers); the others wait as they are
        and their entries of ``actions`` are ignored (``actions`` is still one per table). Used where
        some tables wait on a decision made elsewhere (the single-agent env's opponents' turns)."""
        sel = None if tables is None else self._table_index(tables)
        acts = A.action_batch(actions, self.num_tables)
        if not self._dealt_ever.all():
            raise A.ActionError(f"table {int(np.flatnonzero(~self._dealt_ever)[0])} has not been dealt: "
                                "call reset() before step()")
        if self.num_tables == 1 and sel is None:
            return self._step_one(acts)
        return self._step_batch(acts, sel)

    def _step_batch(self, acts: np.ndarray, sel) -> StepResult:
        """``step`` after its argument checks, for any number of tables (``sel``: the tables to step, None: all)."""
        st = self.state
        live = st.phase != END
        if sel is not None:
            chosen = np.zeros(self.num_tables, dtype=bool)
            chosen[sel] = True
            live &= chosen
        in_range = (acts >= 0) & (acts < A.N_ACTIONS)
        ok = ~live | (in_range & self._mask[self._rows, np.where(in_range, acts, 0)])
        if not ok.all():
            b = int(np.flatnonzero(~ok)[0])
            raise A.ActionError(self.explain_illegal(b, int(acts[b])))
        res = self._new_result()
        phase = np.where(live, st.phase, END) if sel is not None else st.phase.copy()
        touched = self._rows[live]
        self._do_turn(self._rows[phase == TURN], acts, res)
        self._do_claim(self._rows[phase == CLAIM], acts, res)
        self._do_rob(self._rows[phase == ROB], acts, res)
        self._update_masks(touched if len(touched) < self.num_tables else None)
        return res

    def _step_one(self, acts: np.ndarray) -> StepResult:
        """``step`` of a one-table engine (the AEC env, the vector env at one table): the same checks
        and the same phase functions, without the batch's selections (benchmarks/fast_paths.py)."""
        res = self._new_result()
        phase = self.state.phase[0]
        if phase == END:
            return res
        a = int(acts[0])
        if not (0 <= a < A.N_ACTIONS and self._mask[0, a]):
            raise A.ActionError(self.explain_illegal(0, a))
        one = self._rows
        if phase == TURN:  # _do_turn's three cases, chosen on the one action
            s = self.state.to_act[:1].astype(np.int64)
            if a == A.WIN:
                self._self_draw_win(one, s, res)
            elif A.KONG_SELF <= a < A.KONG_SELF + K:
                self._self_kong(one, s, acts - A.KONG_SELF, res)
            else:
                self._turn_discard(one, s, acts, res)
        elif phase == CLAIM:
            self._do_claim(one, acts, res)
        else:
            self._do_rob(one, acts, res)
        self._update_masks(None)
        return res

    def _new_result(self) -> StepResult:
        B = self.num_tables
        return StepResult(np.zeros((B, 4), dtype=np.int64), np.zeros(B, dtype=bool), np.zeros(B, dtype=bool))

    # ---------------------------------------------------------------- own turn
    def _do_turn(self, idx, acts, res) -> None:
        if not len(idx):
            return
        a = acts[idx]
        s = self.state.to_act[idx].astype(np.int64)
        win = a == A.WIN
        if win.any():
            self._self_draw_win(idx[win], s[win], res)
        kong = (a >= A.KONG_SELF) & (a < A.KONG_SELF + K)
        if kong.any():
            self._self_kong(idx[kong], s[kong], a[kong] - A.KONG_SELF, res)
        disc = (a < A.DISCARD + K) | ((a >= A.TING) & (a < A.TING + K))
        if disc.any():
            self._turn_discard(idx[disc], s[disc], a[disc], res)

    def _self_draw_win(self, idx, s, res) -> None:
        self._record_win(idx, s, np.full(len(idx), -1), self.state.drawn[idx].astype(np.int64))
        self._finish(idx, res, won=True)

    def _turn_discard(self, idx, s, a, res) -> None:
        """Discard actions ``a`` (discard or 报听 + discard) of the seats ``s`` to act at ``idx``."""
        tile = np.where(a >= A.TING, a - A.TING, a)
        if self.rules.ting:
            self.state.ting[idx, s] |= a >= A.TING
        self._discard(idx, s, tile, res)

    def _self_kong(self, idx, s, tile, res) -> None:
        st = self.state
        conc = st.hands[idx, s, tile] == 4
        if conc.any():
            c, cs, ct = idx[conc], s[conc], tile[conc]
            st.hands[c, cs, ct] = 0
            st.meld_counts[c, cs, ct] += 4
            st.hidden[c, cs, ct] += 4
            st.n_hidden[c, cs] += 1
            claims.add_meld(st, c, cs, MELD_CONCEALED_KONG, ct, -1)
            self._replacement(c, res)
        added = ~conc
        if added.any():
            b, bs, bt = idx[added], s[added], tile[added]
            st.any_meld[b] = True
            ok = legal.claim_options(self.rules, st, b, bs, bt, robbing=True)
            robbers = ok[:, :, C_WIN].any(axis=1)
            if robbers.any():
                claims.open_window(st, b[robbers], bs[robbers], bt[robbers], ok[robbers], ROB)
            if (~robbers).any():
                self._complete_added_kong(b[~robbers], bs[~robbers], bt[~robbers], res)

    def _complete_added_kong(self, idx, s, tile, res) -> None:
        st = self.state
        st.ponged[idx, s, tile] = False
        st.hands[idx, s, tile] -= 1
        st.meld_counts[idx, s, tile] += 1
        pong = (st.meld_type[idx, s] == MELD_PONG) & (st.meld_tile[idx, s] == tile[:, None])
        slot = np.argmax(pong, axis=1)
        st.meld_type[idx, s, slot] = MELD_ADDED_KONG
        self._replacement(idx, res)

    def _discard(self, idx, s, tile, res) -> None:
        st, rules = self.state, self.rules
        st.hands[idx, s, tile] -= 1
        st.river[idx, s, tile] += 1
        st.n_discards[idx, s] += 1
        st.ready[idx, s] = legal.ready(rules, st, idx, s)
        st.claim_last[idx] = st.last_draw[idx]
        if rules.shaozhuang:
            self._shaozhuang(idx, s, tile)
        ok = legal.claim_options(rules, st, idx, s, tile, robbing=False)
        anyone = ok.any(axis=(1, 2))
        if anyone.any():
            claims.open_window(st, idx[anyone], s[anyone], tile[anyone], ok[anyone], CLAIM)
        rest = idx[~anyone]
        if len(rest):
            self._next_draw(rest, res)

    def _shaozhuang(self, idx, s, tile) -> None:
        """烧庄: rounds of four equal discards, dealer first, in turn, no claim in between."""
        st = self.state
        alive = st.sz_alive[idx]
        if not alive.any():
            return
        idx, s, tile = idx[alive], s[alive], tile[alive]
        dealer = st.dealer[idx].astype(np.int64)
        count = st.sz_count[idx].astype(np.int64)
        start = (s == dealer) & (count == 0)
        cont = (count > 0) & (tile == st.sz_tile[idx]) & (s == (dealer + count) % 4)
        st.sz_tile[idx[start]] = tile[start]
        st.sz_count[idx[start]] = 1
        c = idx[cont]
        st.sz_count[c] += 1
        done = c[st.sz_count[c] == 4]
        st.sz_rounds[done] += 1
        st.sz_count[done] = 0
        st.sz_alive[idx[~(start | cont)]] = False

    # ------------------------------------------------------------ claim window
    def _do_claim(self, idx, acts, res) -> None:
        if not len(idx):
            return
        st, rules = self.state, self.rules
        a = acts[idx]
        s = st.to_act[idx].astype(np.int64)
        win = a == A.WIN
        if win.any():
            w = idx[win]
            self._record_win(w, s[win], st.turn_seat[w].astype(np.int64), st.claim_tile[w].astype(np.int64))
            if not rules.multiple_winners:
                self._finish(w, res, won=True)
        meld = (a == A.PONG) | (a == A.KONG) | ((a >= A.CHI) & (a < A.CHI + A.N_CHI))
        if meld.any():
            m, ma, ms = idx[meld], a[meld], s[meld]
            pending = claims.accept(st, m, ma, ms)
            if (~pending).any():
                self._carry_out(m[~pending], ms[~pending], ma[~pending], res)
            if pending.any():
                self._advance(m[pending], res)
        passed = idx[a == A.PASS]
        if len(passed):
            self._advance(passed, res)
        if rules.multiple_winners and win.any():
            claims.accept_win(st, idx[win])
            self._advance(idx[win], res)

    def _advance(self, idx, res) -> None:
        """Ask the next seat in the queue; where the window closes, play on."""
        closed = claims.advance(self.state, idx)
        if len(closed):
            self._close_window(closed, res)

    def _close_window(self, idx, res) -> None:
        """Nobody is left to ask: winners end the hand; else a robbed kong's window completes the
        kong, a pending claim is carried out, or the seat after the discarder draws."""
        st = self.state
        won = st.winners[idx].any(axis=1)
        if won.any():
            self._finish(idx[won], res, won=True)
        idx = idx[~won]
        rob = st.phase[idx] == ROB
        if rob.any():
            r = idx[rob]
            self._complete_added_kong(r, st.turn_seat[r].astype(np.int64), st.claim_tile[r].astype(np.int64),
                                      res)
        idx = idx[~rob]
        pend = st.pend_action[idx] >= 0
        if pend.any():
            p = idx[pend]
            self._carry_out(p, st.pend_seat[p].astype(np.int64), st.pend_action[p].astype(np.int64), res)
        rest = idx[~pend]
        if len(rest):
            self._next_draw(rest, res)

    def _carry_out(self, idx, s, a, res) -> None:
        """The accepted pong, exposed kong or chi of the claim tile; a kong draws its replacement."""
        claims.take_meld(self.rules, self.state, idx, s, a)
        kong = a == A.KONG
        if kong.any():
            self._replacement(idx[kong], res)

    # -------------------------------------------------------------- rob window
    def _do_rob(self, idx, acts, res) -> None:
        if not len(idx):
            return
        st = self.state
        a = acts[idx]
        win = a == A.WIN
        if win.any():
            w = idx[win]
            self._record_win(w, st.to_act[w].astype(np.int64), st.turn_seat[w].astype(np.int64),
                             st.claim_tile[w].astype(np.int64))
            st.robbed[w] = True
            if self.rules.multiple_winners:
                claims.accept_win(st, w)
                self._advance(w, res)
            else:
                self._finish(w, res, won=True)
        passed = idx[a == A.PASS]
        if len(passed):
            self._advance(passed, res)

    # ------------------------------------------------------------------ draws
    def _next_draw(self, idx, res) -> None:
        st = self.state
        st.turn_seat[idx] = (st.turn_seat[idx] + 1) % 4
        empty = draw(self.rules, st, idx, replacement=False)
        self._finish(idx[empty], res, won=False)
        self._start_turn(idx[~empty], res)

    def _replacement(self, idx, res) -> None:
        empty = draw(self.rules, self.state, idx, replacement=True)
        self._finish(idx[empty], res, won=False)
        self._start_turn(idx[~empty], res)

    def _dealt(self, idx) -> None:
        """After a deal: the three non-dealers' 13-tile hands get their ``ready`` flag."""
        st = self.state
        for k in (1, 2, 3):
            seats = (st.dealer[idx].astype(np.int64) + k) % 4
            st.ready[idx, seats] = legal.ready(self.rules, st, idx, seats)

    def _start_turn(self, idx, res) -> None:
        """A turn that begins with a draw or the dealer's first turn: 四惠牌 wins at once."""
        st, rules = self.state, self.rules
        if not (rules.hui and rules.four_hui_win) or not len(idx):
            return
        s = st.turn_seat[idx].astype(np.int64)
        four = st.hands[idx, s, st.hui[idx].astype(np.int64)] == 4
        if four.any():
            w = idx[four]
            self._record_win(w, s[four], np.full(len(w), -1), st.drawn[w].astype(np.int64))
            self._finish(w, res, won=True)

    # ------------------------------------------------------------ end of hand
    def _record_win(self, idx, seat, frm, tile) -> None:
        st = self.state
        st.winners[idx, seat] = True
        st.win_from[idx] = frm
        st.win_tile[idx] = tile

    def _finish(self, idx, res, *, won: bool) -> None:
        """Settle the hands at ``idx`` that ended, ``won`` (the winners recorded) or drawn (荒牌),
        then deal the next hand of a match."""
        if not len(idx):
            return
        st, rules = self.state, self.rules
        if won:
            r = idx[st.robbed[idx]]  # the robbed tile goes from the declarer to the winner
            if len(r):
                st.hands[r, st.win_from[r].astype(np.int64), st.win_tile[r].astype(np.int64)] -= 1
            # a discard won on leaves the discarder's river, as a claimed one does (the river holds the discards
            # not claimed); several winners of one discard (hebei) take the one tile
            d = idx[(st.win_from[idx] >= 0) & ~st.robbed[idx]]
            if len(d):
                st.river[d, st.win_from[d].astype(np.int64), st.win_tile[d].astype(np.int64)] -= 1
        else:
            st.winners[idx] = False
        scores = hand_results(rules, st, idx, np.full(len(idx), won), res.settlements)
        res.rewards[idx] += scores
        res.hand_over[idx] = True
        st.match_scores[idx] += scores
        st.hands_played[idx] += 1
        st.phase[idx] = END
        # Dealer: stays after a dealer win or a drawn hand (连庄), else rotates.
        dealer = st.dealer[idx].astype(np.int64)
        keep = st.winners[idx, dealer] if won else np.ones(len(idx), dtype=bool)
        step = -1 if rules.dealer_rotation == "previous" else 1
        next_dealer = np.where(keep, dealer, (dealer + step) % 4).astype(np.int8)
        more = st.hands_played[idx] < rules.hands_per_episode
        res.episode_over[idx[~more]] = True
        if more.any():
            m = idx[more]
            walls = shuffled_walls(rules, self.rng, len(m))
            empty = deal(rules, st, m, walls, next_dealer[more])
            self._dealt(m)
            self._start_turn(m, res)
            self._finish(m[empty], res, won=False)
