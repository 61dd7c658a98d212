"""The hand calculator: one won hand in, its fan, patterns and settled points out.

This is the library behind ``python -m mj_env.score`` (INTERFACES.md 1); the engine calls
`evaluate` once per won hand with the same input object it stores in the settlement info.

::

    evaluate(obj: dict) -> dict
        obj: the calculator input of INTERFACES.md 1 (JSON-decoded), e.g.
             {"hand": "123m456m789p23s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1,
              "discarder": 0, "shaozhuang_rounds": 3, "hubao": [[1, 3]], "base": 500}
        -> {"legal": True, "fan": F, "patterns": {"庄": 1, ...}, "shaozhuang": S, "scores": [4 ints]}
         | {"legal": False, "reason": "..."}
        raises InputError (a ValueError) naming the field, tile or count that is malformed.

    settle_draw(rules, dealer, shaozhuang_rounds=0, base=None) -> {"draw": True, "shaozhuang": S, "scores": [...]}
    shaozhuang_line(rounds) -> 2^(R-1), 0 when R = 0
    kong_payments(rules, kongs, base=None, drawn=False) -> [4 ints]   (hebei, quemen)
    rules_json(rules) -> the ``rules`` field value that names a RuleSet in an input object

Input decisions (where INTERFACES.md leaves room):

- ``rules`` is a preset name, or an object ``{"name": "beijing", <RuleSet field>: value, ...}``
  naming a preset plus field overrides (so a non-default rule set round-trips through JSON;
  `rules_json` writes it); Python callers may pass a RuleSet. ``base`` defaults to the rule
  set's ``base`` (1 in the presets).
- A kong meld may be written with three tiles (``"555m"``) as shorthand for four.
- Melds list their physical tiles. With ``hui_wild_in_melds`` a 惠牌 in a meld stands for the
  tile it completes (``"77m5z"`` with 惠牌 5z: a pong of 7m); a chi that more than one run
  fits is read as the run that scores most.
- A meld's ``from`` is optional; when given it must be another seat, and a chi's must be the
  seat before the winner (``(winner - 1) % 4``). A concealed kong has no ``from``.
- ``hui`` and ``indicator`` may both be given only if they agree. Fields a rule set does not
  use (``hui`` / ``indicator`` without 惠牌, ``shaozhuang_rounds`` without 烧庄, ``hubao``
  without 互包, ``flowers`` without flowers, ``ting`` without 报听, a chi without chi) are
  errors when set to anything but their default, and ``null`` counts as the default.
- ``situation.robbed_kong`` needs a ``discarder`` (the kong's declarer).
- Counting hand + melds + winning tile, no kind may have more than 4 tiles; the hand holds
  13 - 3 x (number of melds) tiles; at most 4 melds.

Scoring decisions are in the docstrings of ``mj_env.fan`` (readings, patterns) and
``mj_env.settlement`` (payments).
"""
from __future__ import annotations

import dataclasses

from .fan import KONG, SEQ, TRIPLET, Meld, Situation, Win, best_patterns, four_hui
from .rules import PRESETS, RuleError, RuleSet, get_rules
from .settlement import kong_payments, settle_draw, shaozhuang_line, win_scores
from .tiles import CODES, N_KINDS, TileError, hui_of_indicator, parse_tiles

__all__ = [
    "FIELDS",
    "InputError",
    "evaluate",
    "kong_payments",
    "parse_input",
    "rules_json",
    "score_win",
    "settle_draw",
    "shaozhuang_line",
]


class InputError(ValueError):
    """The calculator input is malformed; the message says what is wrong and where."""


FIELDS = ("rules", "hand", "win_tile", "melds", "winner", "dealer", "discarder", "hui", "indicator",
          "situation", "shaozhuang_rounds", "hubao", "flowers", "ting", "base")
REQUIRED = ("hand", "win_tile")
MELD_TYPES = ("chi", "pong", "kong", "added_kong", "concealed_kong")
MELD_FIELDS = ("type", "tiles", "from")
SITUATION_FIELDS = tuple(f.name for f in dataclasses.fields(Situation))
MAX_SHAOZHUANG_ROUNDS = 34  # 136 tiles, 4 discards a round
MAX_FLOWERS = 8


# ---------------------------------------------------------------------------------------------
# Public entry points.


def evaluate(obj) -> dict:
    """Score one calculator input object (INTERFACES.md 1); see the module docstring."""
    return score_win(parse_input(obj))


def score_win(win: Win) -> dict:
    """The calculator output for a validated `Win`.

    A win on a discard or a robbed kong (``discarder`` set) is refused (``legal: false``) when
    ``rules.discard_win_concealed_only`` and the hand has a chi, pong, exposed or added kong
    (concealed kongs are fine), or when ``rules.self_draw_only_hui`` > 0 and the hand held that
    many 惠牌 before the winning tile (a 惠牌-kind winning tile is not counted). Then 四惠牌
    (beijing), then the best reading (``mj_env.fan``), then the settlement
    (``mj_env.settlement``)."""
    rules = win.rules
    if win.discarder is not None:
        if rules.discard_win_concealed_only and win.claimed:
            return _illegal("after chi, pong or an exposed or added kong the hand may only win by "
                            "self-draw, not on a discard or a robbed kong")
        if win.hui is not None and rules.self_draw_only_hui and win.hand_hui >= rules.self_draw_only_hui:
            return _illegal(f"a hand holding {win.hand_hui} 惠牌 ({CODES[win.hui]}) may only win by "
                            f"self-draw, not on a discard or a robbed kong")
    patterns = four_hui(win) if rules.scoring == "beijing" else None
    if patterns is None:
        patterns, shaped = best_patterns(win)
        if patterns is None:
            if shaped:
                return _illegal("the hand holds all three suits; a win must lack one (缺一门)")
            return _illegal("the tiles do not form a winning shape")
    fan = sum(patterns.values())
    rounds = win.shaozhuang_rounds if rules.shaozhuang else 0
    scores = win_scores(rules, fan, win.winner, win.dealer, win.discarder, hubao=win.hubao,
                        shaozhuang_rounds=rounds, ting=win.ting, base=win.base)
    return {"legal": True, "fan": fan, "patterns": patterns, "shaozhuang": shaozhuang_line(rounds),
            "scores": scores}


def rules_json(rules: RuleSet | str) -> str | dict:
    """The ``rules`` value of an input object for a rule set: the preset name when it is one,
    else ``{"name": preset, field: value, ...}`` with the fields that differ from the preset."""
    rules = get_rules(rules)
    preset = PRESETS[rules.name]
    if rules == preset:
        return rules.name
    diff = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)
            if getattr(rules, f.name) != getattr(preset, f.name)}
    return {"name": rules.name, **diff}


def _illegal(reason: str) -> dict:
    return {"legal": False, "reason": reason}


# ---------------------------------------------------------------------------------------------
# Input validation.


def parse_input(obj) -> Win:
    """Validate a calculator input object and build the `Win`; raises InputError."""
    if not isinstance(obj, dict):
        raise InputError(f"input must be a JSON object, got {_kind(obj)}")
    unknown = [k for k in obj if k not in FIELDS]
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(map(repr, unknown))}; known fields: {', '.join(FIELDS)}")
    for name in REQUIRED:
        if name not in obj:
            raise InputError(f"missing required field {name!r}")
    rules = _rules(obj.get("rules"))

    winner = _seat(obj.get("winner", 0), "winner", default=0)
    dealer = _seat(obj.get("dealer", 0), "dealer", default=0)
    discarder = obj.get("discarder")
    if discarder is not None:
        discarder = _seat(discarder, "discarder")
        if discarder == winner:
            raise InputError(f"discarder {discarder} is the winner; use null for a self-draw")

    hand = _tiles(obj["hand"], "hand")
    win_tile = _tiles(obj["win_tile"], "win_tile")
    if len(win_tile) != 1:
        raise InputError(f"win_tile must be exactly one tile, got {len(win_tile)} in {obj['win_tile']!r}")
    hui = _hui(obj, rules)

    raw_melds = obj.get("melds")
    raw_melds = [] if raw_melds is None else raw_melds
    if not isinstance(raw_melds, list):
        raise InputError(f"melds must be a list of meld objects, got {_kind(raw_melds)}")
    if len(raw_melds) > 4:
        raise InputError(f"melds: a hand has at most 4 melds, got {len(raw_melds)}")
    melds = tuple(_meld(m, n, rules, winner, hui) for n, m in enumerate(raw_melds))

    want = 13 - 3 * len(melds)
    if len(hand) != want:
        raise InputError(f"hand holds {len(hand)} tiles; with {len(melds)} meld(s) it must hold {want} "
                         f"(13 - 3 per meld, a kong counting as one meld)")
    _check_copies(hand, win_tile[0], melds)

    situation = _situation(obj.get("situation"))
    if situation.robbed_kong and discarder is None:
        raise InputError("situation.robbed_kong needs a discarder: the seat whose added kong was robbed")

    rounds = _int(obj.get("shaozhuang_rounds", 0), "shaozhuang_rounds", 0, MAX_SHAOZHUANG_ROUNDS, default=0)
    if rounds and not rules.shaozhuang:
        raise InputError(f"shaozhuang_rounds: rules {rules.name!r} have no 烧庄")
    hubao = _hubao(obj.get("hubao"))
    if hubao and not rules.hubao:
        raise InputError(f"hubao: rules {rules.name!r} have no 互包")
    flowers = _int(obj.get("flowers", 0), "flowers", 0, MAX_FLOWERS, default=0)
    if flowers and not rules.flowers:
        raise InputError(f"flowers: rules {rules.name!r} have no flowers")
    ting = obj.get("ting", False)
    ting = False if ting is None else ting
    if type(ting) is not bool:
        raise InputError(f"ting must be true or false, got {ting!r}")
    if ting and not rules.ting:
        raise InputError(f"ting: rules {rules.name!r} have no 报听")
    base = _int(obj.get("base", rules.base), "base", 1, None, default=rules.base)

    return Win(rules=rules, hand=tuple(sorted(hand)), win_tile=win_tile[0], melds=melds, winner=winner,
               dealer=dealer, discarder=discarder, hui=hui, situation=situation,
               shaozhuang_rounds=rounds, hubao=hubao, flowers=flowers, ting=ting, base=base)


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _rules(value) -> RuleSet:
    try:
        if value is None:
            return get_rules("beijing")
        if isinstance(value, RuleSet):
            return value
        if isinstance(value, str):
            return get_rules(value)
        if isinstance(value, dict):
            if "name" not in value:
                raise InputError('rules: an object must name its preset, e.g. {"name": "beijing", ...}')
            overrides = {k: v for k, v in value.items() if k != "name"}
            return get_rules(value["name"], **overrides)
    except (RuleError, TypeError) as e:
        raise InputError(f"rules: {e}") from None
    raise InputError(f"rules must be 'beijing', 'hebei', 'quemen' or an object, got {_kind(value)}")


def _int(value, name: str, lo: int, hi: int | None, *, default: int) -> int:
    if value is None:
        return default
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        span = f"{lo}-{hi}" if hi is not None else f">= {lo}"
        raise InputError(f"{name} must be an integer {span}, got {value!r}")
    return value


def _seat(value, name: str, *, default: int | None = None) -> int:
    if value is None and default is not None:
        return default
    if type(value) is not int or not 0 <= value <= 3:
        raise InputError(f"{name} must be a seat 0-3, got {value!r}")
    return value


def _tiles(text, name: str) -> list[int]:
    if not isinstance(text, str):
        raise InputError(f"{name} must be a string in compact notation like '123m55z', got {_kind(text)}")
    try:
        return parse_tiles(text)
    except TileError as e:
        raise InputError(f"{name}: {e}") from None


def _hui(obj: dict, rules: RuleSet) -> int | None:
    hui = ind = None
    if obj.get("hui") is not None:
        t = _tiles(obj["hui"], "hui")
        if len(t) != 1:
            raise InputError(f"hui must be exactly one tile code, got {obj['hui']!r}")
        hui = t[0]
    if obj.get("indicator") is not None:
        t = _tiles(obj["indicator"], "indicator")
        if len(t) != 1:
            raise InputError(f"indicator must be exactly one tile code, got {obj['indicator']!r}")
        ind = hui_of_indicator(t[0])
        if hui is not None and hui != ind:
            raise InputError(f"hui {CODES[hui]} does not follow indicator {obj['indicator']} "
                             f"(its 惠牌 is {CODES[ind]})")
        hui = ind
    if hui is not None and not rules.hui:
        raise InputError(f"hui / indicator: rules {rules.name!r} have no 惠牌")
    return hui


def _meld(raw, n: int, rules: RuleSet, winner: int, hui: int | None) -> Meld:
    where = f"melds[{n}]"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object like {{\"type\": \"pong\", \"tiles\": \"555m\", "
                         f"\"from\": 2}}, got {_kind(raw)}")
    unknown = [k for k in raw if k not in MELD_FIELDS]
    if unknown:
        raise InputError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; known: type, tiles, from")
    kind = raw.get("type")
    if kind not in MELD_TYPES:
        raise InputError(f"{where}.type must be one of {', '.join(MELD_TYPES)}, got {kind!r}")
    if "tiles" not in raw:
        raise InputError(f"{where}: missing field 'tiles'")
    tiles = sorted(_tiles(raw["tiles"], f"{where}.tiles"))
    text = raw["tiles"]
    if kind == "chi" and not rules.chi:
        raise InputError(f"{where}: rules {rules.name!r} have no chi")
    source = raw.get("from")
    if kind == "concealed_kong":
        if source is not None:
            raise InputError(f"{where}: a concealed kong is claimed from nobody; drop 'from' (got {source!r})")
    elif source is not None:
        source = _seat(source, f"{where}.from")
        if source == winner:
            raise InputError(f"{where}.from is {source}, the winner's own seat; a {kind} is claimed from another seat")
        if kind == "chi" and source != (winner - 1) % 4:
            raise InputError(f"{where}.from is {source}; a chi is claimed from the seat before the winner, "
                             f"{(winner - 1) % 4}")
    is_kong = kind in ("kong", "added_kong", "concealed_kong")
    if is_kong and len(tiles) == 3 and len(set(tiles)) == 1:
        tiles = [tiles[0]] * 4  # shorthand: "555m" is the kong of 5m
    size = 4 if is_kong else 3
    if len(tiles) != size:
        raise InputError(f"{where}: a {kind} has {size} tiles, got {len(tiles)} in {text!r}")
    wild = hui if (rules.hui_wild_in_melds and hui is not None) else None
    readings = _meld_readings(kind, tiles, wild)
    if not readings:
        what = "a run of three consecutive tiles of one suit" if kind == "chi" else f"{size} identical tiles"
        raise InputError(f"{where}: {text!r} is not a valid {kind}: it must be {what}")
    return Meld(type=kind, tiles=tuple(tiles), source=source, readings=readings)


def _meld_readings(kind: str, tiles: list[int], wild: int | None) -> tuple:
    """The groups a meld may stand for. ``wild``: the 惠牌 kind when 惠牌 are wild in melds."""
    natural = [t for t in tiles if t != wild]
    if kind == "chi":
        out = []
        for s in range(N_KINDS - 2):
            if s >= 27 or s % 9 > 6:
                continue
            run = (s, s + 1, s + 2)
            if len(set(natural)) == len(natural) and all(t in run for t in natural):
                out.append((SEQ, s))
        return tuple(out)
    letter = TRIPLET if kind == "pong" else KONG
    kinds = set(natural) or {wild}
    return ((letter, kinds.pop()),) if len(kinds) == 1 else ()


def _check_copies(hand: list[int], win_tile: int, melds: tuple[Meld, ...]) -> None:
    counts = {}
    for t in hand + [win_tile] + [t for m in melds for t in m.tiles]:
        counts[t] = counts.get(t, 0) + 1
    for t, n in sorted(counts.items()):
        if n > 4:
            parts = [f"hand {hand.count(t)}"]
            in_melds = sum(m.tiles.count(t) for m in melds)
            if in_melds:
                parts.append(f"melds {in_melds}")
            if win_tile == t:
                parts.append("win_tile 1")
            raise InputError(f"too many {CODES[t]}: {n} counting {', '.join(parts)}; a set has 4")


def _situation(raw) -> Situation:
    if raw is None:
        return Situation()
    if not isinstance(raw, dict):
        raise InputError(f"situation must be an object of booleans {', '.join(SITUATION_FIELDS)}, got {_kind(raw)}")
    unknown = [k for k in raw if k not in SITUATION_FIELDS]
    if unknown:
        raise InputError(f"situation: unknown field(s) {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(SITUATION_FIELDS)}")
    for k, v in raw.items():
        if type(v) is not bool:
            raise InputError(f"situation.{k} must be true or false, got {v!r}")
    return Situation(**raw)


def _hubao(raw) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError(f"hubao must be a list of seat pairs like [[1, 3]], got {_kind(raw)}")
    out = []
    for n, pair in enumerate(raw):
        if not isinstance(pair, list) or len(pair) != 2:
            raise InputError(f"hubao[{n}] must be a pair of seats like [1, 3], got {pair!r}")
        a, b = (_seat(x, f"hubao[{n}]") for x in pair)
        if a == b:
            raise InputError(f"hubao[{n}] binds seat {a} to itself")
        out.append((a, b))
    return tuple(out)
