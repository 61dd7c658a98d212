"""Hand records: one hand as plain JSON, replayed decision by decision and checked.

A record holds what decides a hand: the rules, the wall in dealing order, the dealer and every
decision in order. The engine is deterministic given these, so a record replays exactly, and its
stored settlement (docs/INTERFACES.md 2) is checked against the replay's. ``agents.arena --record
PATH`` writes one per hand played (JSON lines); the AEC env gives the current hand's as
``env.unwrapped.hand_record()``, and ``MahjongVectorEnv(..., records=True)`` that of each hand that ends in a
step in ``infos["hand_record"]`` (kept by ``HandLog``; a deal that ends at once, before any decision, has none).
To look at hands or check a file::

    python -m mj_env.records games.jsonl             # replay and check every record
    python -m mj_env.records games.jsonl --show 3    # the 4th record, table and decision by decision

A record (``"format": "mj_hand_v1"``)::

    {"format": "mj_hand_v1",
     "rules": "beijing" | {"name": "beijing", FIELD: VALUE, ...},   # the preset, and fields that differ
     "wall": ["3m", "7z", ...],           # 136 or 144 tile codes, dealing order (docs/RULES.md 3)
     "dealer": 0,
     "actions": [[0, "discard 5m"], [1, "pass"], ...],   # [seat, mj_env.actions.name], in order
     "settlement": {...},                 # the hand's settlement, when it has ended
     "players": ["rule", "random", ...]}  # optional: who sat in seats 0-3; other keys are kept, unread

Only single hands: a later hand of a match (``hands_per_episode`` > 1) starts from what the earlier
hands left (烧庄 rounds, the dealer), which a record does not hold.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import sys
from typing import BinaryIO

import numpy as np

from . import actions as A
from .engine import Engine
from .lines import (
    ArgumentParser,
    HugeInt,
    TooLong,
    bounded_lines,
    guard_output,
    load_json,
    parse_json_int,
    skip_bom,
    terminal_line,
)
from .messages import brief, integer_value, printable
from .render import render_table
from .rules import PRESETS, RuleError, RuleSet, get_rules, preset_diff
from .state import END
from .tiles import CODES
from .wall import parse_wall

FORMAT = "mj_hand_v1"
MAX_ACTIONS = 2000
"""A hand takes about 100-200 decisions; a record with more is refused before it is replayed."""
MAX_REPORTED = 20
"""The checker reports the first bad records of a file one by one, then only counts."""


class RecordError(ValueError):
    """A record that cannot be read or does not replay to what it says."""


def rules_json(rules: RuleSet):
    """The ``rules`` value of a record: the preset name, or ``{"name": preset, field: value}`` with every
    field that differs from the preset (``mj_env.calculator.rules_json`` keeps only the scoring ones)."""
    diff = preset_diff(rules)
    return {"name": rules.name, **diff} if diff else rules.name


def rules_of(value) -> RuleSet:
    """The RuleSet of a record's ``rules`` value; RecordError when it names no preset or a bad field."""
    if isinstance(value, str):
        name, fields = value, {}
    elif isinstance(value, dict) and isinstance(value.get("name"), str):
        name, fields = value["name"], {k: v for k, v in value.items() if k != "name"}
    else:
        raise RecordError("rules must be a preset name or an object with a \"name\" and rule fields")
    if name not in PRESETS:
        raise RecordError(f"rules: unknown preset {brief(name)}; choose one of {', '.join(PRESETS)}")
    preset = PRESETS[name]
    known = {f.name for f in dataclasses.fields(preset)}
    unknown = sorted(set(fields) - known, key=str)  # (a dict given in Python may mix key types)
    if unknown:
        raise RecordError(f"rules: unknown field(s) {', '.join(map(brief, unknown[:5]))}")
    try:
        return get_rules(name, **fields)
    except (RuleError, TypeError, ValueError) as e:
        raise RecordError(f"rules: {e}") from None


def _seat_int(value, what: str) -> int:
    """A seat 0-3 given as an integer (a Python or NumPy one, a 0-d integer array or tensor), as an int, or a
    RecordError naming ``what``."""
    seat = integer_value(value)
    if seat is None or not 0 <= seat <= 3:
        raise RecordError(f"{what} must be a seat 0-3 (an integer), got {brief(value)}")
    return seat


def _action_int(value):
    """An action given as a 0-d integer array or tensor as its int (``int()`` read them before ``A.name`` checked
    the action); anything else as it is, for ``A.name`` to take or refuse by its own message."""
    i = integer_value(value)
    return value if i is None else i


def hand_record(rules: RuleSet, wall, dealer: int, actions, settlement=None, players=None) -> dict:
    """A record from the hand's wall (tile indices), dealer, ``[(seat, action index or name), ...]`` and,
    when it has ended, its settlement. A tile, dealer, seat or action that is not an integer in its range is a
    RecordError naming it: ``int()`` wrote 2.7 as 2, and a tile -1 indexed the last code."""
    tiles = np.asarray(wall)
    if tiles.dtype.kind not in "iu" or tiles.ndim != 1 or ((tiles < 0) | (tiles >= len(CODES))).any():
        raise RecordError(f"wall must be tile indices 0-{len(CODES) - 1}, "
                          f"got {tiles.dtype} {brief(tiles.tolist())}")
    rec = {
        "format": FORMAT,
        "rules": rules_json(rules),
        "wall": [CODES[t] for t in tiles.tolist()],
        "dealer": _seat_int(dealer, "dealer"),
        "actions": [[_seat_int(s, f"actions[{i}]'s seat"), a if isinstance(a, str) else A.name(_action_int(a))]
                    for i, (s, a) in enumerate(actions)],
    }
    if settlement is not None:
        rec["settlement"] = settlement
    if players is not None:
        rec["players"] = [str(p) for p in players]
    return rec


class HandLog:
    """The hand at each of N tables as it is played, kept in arrays (a step writes every table's decision at
    once, with no Python loop over tables), and the record of a hand once it has ended. ``MahjongVectorEnv(...,
    records=True)`` keeps one. Call ``dealt`` after the engine deals tables, ``decided`` with the seats that
    were to act and their actions after a step the engine accepted, and ``record`` for a table whose hand
    ended in that step, before it is dealt anew."""

    def __init__(self, rules: RuleSet, num_tables: int, capacity: int = 256):
        self.rules = rules
        self.wall = np.zeros((num_tables, rules.n_tiles), dtype=np.int8)
        self.dealer = np.zeros(num_tables, dtype=np.int64)
        self.seats = np.zeros((num_tables, capacity), dtype=np.int8)
        self.actions = np.zeros((num_tables, capacity), dtype=np.int16)
        self.length = np.zeros(num_tables, dtype=np.int64)

    def dealt(self, state, tables=None) -> None:
        """The tables just dealt (all where ``tables`` is None) start their hand: its wall and dealer."""
        sel = slice(None) if tables is None else np.asarray(tables)
        self.wall[sel] = state.wall[sel]
        self.dealer[sel] = state.dealer[sel]
        self.length[sel] = 0

    def decided(self, seats: np.ndarray, actions: np.ndarray, tables: np.ndarray | None = None) -> None:
        """One decision at each table (at ``tables`` only where given): ``seats`` and ``actions`` (N,)."""
        rows = np.arange(len(self.length)) if tables is None else np.asarray(tables)
        if len(rows) and self.length[rows].max() >= self.seats.shape[1]:  # a longer hand than any yet: grow
            more = self.seats.shape[1]
            self.seats = np.concatenate([self.seats, np.zeros_like(self.seats[:, :more])], axis=1)
            self.actions = np.concatenate([self.actions, np.zeros_like(self.actions[:, :more])], axis=1)
        at = self.length[rows]
        self.seats[rows, at] = seats[rows]
        self.actions[rows, at] = actions[rows]
        self.length[rows] += 1

    def record(self, table: int | np.integer, settlement=None) -> dict:
        """The record of the hand at ``table`` (``hand_record``: its settlement copied, not shared)."""
        n = int(self.length[table])
        names = A.NAMES  # (the actions were legal, so in range: their names looked up at once)
        decisions = zip(self.seats[table, :n].tolist(), [names[a] for a in self.actions[table, :n].tolist()])
        return hand_record(self.rules, self.wall[table], int(self.dealer[table]), decisions,
                           copy.deepcopy(settlement))


def _parsed(record) -> tuple[RuleSet, np.ndarray, list[tuple[int, int]]]:
    """The rules, the wall (tile indices) and the (seat, action index) list of a record, everything checked
    that can be before replaying; RecordError naming the first problem."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, got {brief(record.get('format'))}")
    for key in ("rules", "wall", "dealer", "actions"):
        if key not in record:
            raise RecordError(f"missing field {key!r}")
    rules = rules_of(record["rules"])
    if rules.hands_per_episode != 1:
        raise RecordError("a record holds one hand: rules with hands_per_episode > 1 cannot be replayed")
    try:
        wall = parse_wall(rules, record["wall"])
    except ValueError as e:
        raise RecordError(f"wall: {e}") from None
    dealer = record["dealer"]
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer <= 3:
        raise RecordError(f"dealer must be a seat 0-3, got {brief(dealer)}")
    acts = record["actions"]
    if not isinstance(acts, list):
        raise RecordError("actions must be a list of [seat, action name] pairs")
    if len(acts) > MAX_ACTIONS:
        raise RecordError(f"{len(acts)} actions: a hand has at most {MAX_ACTIONS}")
    out = []
    for i, pair in enumerate(acts):
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int)
                and not isinstance(pair[0], bool) and 0 <= pair[0] <= 3 and isinstance(pair[1], str)):
            raise RecordError(f"actions[{i}] must be [seat 0-3, action name], got {brief(pair)}")
        try:
            out.append((pair[0], A.index(pair[1])))
        except (KeyError, ValueError):
            raise RecordError(f"actions[{i}]: {brief(pair[1])} is not an action name (mj_env.actions)") from None
    return rules, wall, out


def replay(record, visit=None) -> dict | None:
    """Replay a record and return the replay's settlement (None for a hand recorded before its end, which has
    no ``settlement``). ``visit(i, seat, action, engine)``, if given, is called before the i-th decision is
    made (the engine holds the table as it was then), and once more after the last decision as
    ``visit(n, None, None, engine)``. RecordError where a decision is not the acting
    seat's or is illegal, where decisions are left after the hand ended, or, for a record with a
    settlement, where the hand does not end with its last decision or settles otherwise."""
    rules, wall, acts = _parsed(record)
    eng = Engine(rules, num_tables=1)
    res = eng.reset(walls=[wall], dealers=[record["dealer"]])  # both checked in _parsed
    settlement = res.settlements.get(0)
    st = eng.state
    for i, (seat, a) in enumerate(acts):
        if st.phase[0] == END:
            raise RecordError(f"actions[{i}]: the hand ended after {i} decision(s), {len(acts) - i} left over")
        if int(st.to_act[0]) != seat:
            raise RecordError(f"actions[{i}]: seat {seat} acts, but seat {int(st.to_act[0])} is to act")
        if not eng.legal_mask()[0, a]:
            raise RecordError(f"actions[{i}]: {A.name(a)} by seat {seat} is illegal: {eng.explain_illegal(0, a)}")
        if visit is not None:
            visit(i, seat, a, eng)
        res = eng.step(np.array([a]))
        settlement = res.settlements.get(0, settlement)
    if visit is not None:
        visit(len(acts), None, None, eng)
    if "settlement" not in record:  # a hand recorded before its end replays to where it was
        return settlement if st.phase[0] == END else None
    if st.phase[0] != END:
        raise RecordError(f"the hand has not ended after the record's {len(acts)} decision(s)")
    assert settlement is not None  # (the hand ended: the step or the deal that ended it settled it)
    try:
        if _nested_deeper(record["settlement"], MAX_SETTLEMENT_DEPTH):
            raise RecursionError
        differs = _json(ours := _wins_by_seat(settlement)) != _json(theirs := _wins_by_seat(record["settlement"]))
    except (RecursionError, ValueError, TypeError):  # nested too deeply, or a lone surrogate
        raise RecordError("settlement: not a settlement object (nested too deeply, or unreadable)") from None
    if differs:
        where, replayed, stored = _first_difference(ours, theirs, "settlement")  # (the wins in seat order)
        raise RecordError(f"the replay settles otherwise than the record: {where} is {brief(replayed)} in the "
                          f"replay, {brief(stored)} in the record (replayed scores {settlement['scores']})")
    return settlement


MAX_SETTLEMENT_DEPTH = 64
"""Lists and objects nest at most this deep in a stored settlement (a real one: a few levels, wins, their input,
its melds, a meld). Deeper is refused as nested too deeply by this count, not by where json.dumps runs out of
recursion, which moved with the interpreter (3.13's encoder wrote a settlement nested 5000 deep that 3.10-3.12
refused, so the refusal's message differed)."""


def _nested_deeper(value, limit: int) -> bool:
    """Whether lists and dicts nest in ``value`` more than ``limit`` deep; iterative, so any depth is measured."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _wins_by_seat(settlement):
    """The settlement with several winners' ``wins`` in seat order, for comparing: their order carries no
    meaning (records written before 2026-12-02 list them by seat, the engine now in play order from the
    discarder). Anything else, a stored value that is not a list of win objects included, is as it was."""
    wins = settlement.get("wins") if isinstance(settlement, dict) else None
    if not isinstance(wins, list):
        return settlement
    try:
        key = [int(w["input"]["winner"]) for w in wins]
    except (TypeError, KeyError, ValueError, OverflowError):
        return settlement
    return {**settlement, "wins": [wins[i] for i in sorted(range(len(wins)), key=key.__getitem__)]}


def _first_difference(a, b, path: str):
    """(path, a's value, b's value) at the first place two JSON values differ (scores looked at first)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=lambda k: (k != "scores", str(k))):
            if key not in a or key not in b:
                return f"{path}.{key}", a.get(key, "(missing)"), b.get(key, "(missing)")
            if _json(a[key]) != _json(b[key]):
                return _first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and not isinstance(a[0] if a else 0, int):
        for i, (x, y) in enumerate(zip(a, b)):
            if _json(x) != _json(y):
                return _first_difference(x, y, f"{path}[{i}]")
    return path, a, b


def _json(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, default=_unwritable)


def _unwritable(value):
    if isinstance(value, HugeInt):  # compared, and shown, by its repr: never equal to a replayed number
        return repr(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def show(record, out=None) -> None:
    """Print the hand: the table before every decision, the decision, then the settlement."""
    out = out or sys.stdout
    players = record.get("players") if isinstance(record, dict) else None
    names = players if isinstance(players, list) and len(players) == 4 else None

    def visit(i, seat, a, eng):
        print(render_table(eng.rules, eng.state, 0), file=out)
        if seat is not None:
            who = f" ({_printable(names[seat])})" if names is not None else ""
            print(f"--> decision {i}: seat {seat}{who} {A.name(a)}\n", file=out)

    settlement = replay(record, visit)
    print("settlement: " + (_json(settlement) if settlement is not None else "none: the hand was recorded before its end"),
          file=out)


def _printable(value, limit: int = 60) -> str:
    """``value`` as it can be printed: at most ``limit`` characters, escapes for what is not printable (a record's
    text could otherwise drive the terminal: colours, a cleared screen, a forged line) or UTF-8 cannot encode."""
    return printable(str(value)[:limit])


def main(argv=None) -> int:
    p = ArgumentParser(prog="python -m mj_env.records", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("path", help="a JSON-lines file of hand records (agents.arena --record); - for standard input")
    p.add_argument("--show", type=int, metavar="K", help="print record K (0-based) decision by decision")
    args = p.parse_args(argv)
    if args.show is not None and args.show < 0:
        p.error(f"--show {args.show}: records are numbered from 0")
    # bytes: a line that is not UTF-8 is one bad record
    f: contextlib.AbstractContextManager[BinaryIO]
    if args.path == "-":  # standard input, left open
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:  # run with standard input closed (<&-), or a text stream put in its place
            p.error("-: standard input is closed or not a byte stream; give the records' file name")
        f = contextlib.nullcontext(stdin)
    else:
        try:
            f = open(args.path, "rb")  # noqa: SIM115 (closed below)
        except OSError as e:
            p.error(f"{args.path}: {e.strerror or e}")
        except ValueError as e:  # a NUL byte or a lone surrogate (main(argv) called from Python): no file name holds it
            p.error(f"{args.path!r}: not a file name ({e})")
    n = bad = unsettled = 0
    try:
        with f as source:
            for line in skip_bom(bounded_lines(source)):  # one line at a time: the file can be larger than memory
                if not isinstance(line, TooLong) and not line.strip():
                    continue
                k, n = n, n + 1
                if isinstance(line, TooLong):  # no hand record is that long: not a file of records (/dev/zero)
                    bad += 1
                    print(f"record {k}: line longer than {line.limit:,} bytes (a hand record is a few kilobytes): "
                          "not a file of hand records, one JSON object per line; stopped reading here",
                          file=sys.stderr)
                    break
                if args.show is not None and k != args.show:
                    continue
                try:
                    record = load_json(line.rstrip(b"\r\n").decode("utf-8"), parse_int=parse_json_int)  # (an error: "line 1 column N")
                    if args.show is not None:
                        show(record)
                        return 0
                    replay(record)
                    unsettled += "settlement" not in record
                except (ValueError, RecursionError) as e:  # JSON, UTF-8, RecordError: all ValueErrors
                    bad += 1
                    if bad <= MAX_REPORTED:
                        why = "nested too deeply" if isinstance(e, RecursionError) else _printable(e, 300)
                        print(f"record {k}: {why}", file=sys.stderr)
                    elif bad == MAX_REPORTED + 1:
                        print(f"(more bad records: only the first {MAX_REPORTED} are shown; is this a file of hand "
                              "records, one JSON object per line?)", file=sys.stderr)
    except BrokenPipeError:  # the output piped into a command that stopped reading (| head): nothing left to say
        # (sys.stdout left as it is: main(argv) called from Python leaves the caller's; under __main__,
        # guard_output drops the rest and keeps the interpreter's last flush quiet)
        return 0
    if args.show is not None:
        if bad:
            return 1
        p.error(f"--show {args.show}: the file holds {n} record(s)" + (f", 0-{n - 1}" if n else ""))
    if not n:
        print(f"{terminal_line(args.path)}: no records (hand records are JSON objects, one per line)", file=sys.stderr)
        return 1
    print(f"{n - bad - unsettled} of {n} record(s) replay to their stored settlements"
          + (f"; {unsettled} recorded before the hand ended replay without one to compare" if unsettled else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    guard_output("python -m mj_env.records")  # the summary line to a reader that left (| true): dropped, no traceback
    sys.exit(main())
