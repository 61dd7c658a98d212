"""The hand calculator: one won hand in, its fan, patterns and settled points out.

This is the library behind ``python -m mj_env.score`` (docs/INTERFACES.md 1); the engine calls
`evaluate` once per won hand with the same input object it stores in the settlement info.

::

    evaluate(obj: dict) -> dict
        obj: the calculator input of docs/INTERFACES.md 1 (JSON-decoded), e.g.
             {"hand": "123m456m789p23s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1,
              "discarder": 0, "shaozhuang_rounds": 3, "hubao": [[1, 3]], "base": 500}
        -> {"legal": True, "fan": F, "patterns": {"庄": 1, ...}, "shaozhuang": S, "scores": [4 ints]}
         | {"legal": False, "reason": "..."}
        raises InputError (a ValueError) naming the field, tile or count that is malformed.

    rules_json(rules) -> the ``rules`` field value that names a RuleSet in an input object

    and from ``mj_env.payments``, for a hand's other points:
    settle_draw(rules, dealer, shaozhuang_rounds=0, base=None) -> {"draw": True, "shaozhuang": S, "scores": [...]}
    shaozhuang_line(rounds) -> 2^(R-1), 0 when R = 0
    kong_payments(rules, kongs, base=None, drawn=False) -> [4 ints]   (hebei, quemen)

Input decisions (where docs/INTERFACES.md leaves room):

- ``rules`` is a preset name, or an object ``{"name": "beijing", <field>: value, ...}`` naming a
  preset plus overrides of the rule fields that bear on a hand's score (`SCORE_RULE_FIELDS`,
  the fields this calculator reads; docs/RULES.md 6.4). `rules_json` writes it. Other RuleSet fields
  (``hands_per_episode``, ``reserve``, ``multiple_winners``, ``kong_payments``, ...) are taken too,
  checked as a rule set checks them (a value no rule set takes is an error), and change nothing the
  calculator computes; ``base`` is the line's own field and is refused inside the object. ``n_tiles`` follows
  ``flowers`` (144 with flowers, else 136). Python callers may pass a RuleSet. ``base``
  defaults to the rule set's ``base`` (1 in the presets).
- Numbers are bounded so that no input can make a huge score: ``base`` 1-`MAX_BASE`,
  ``shaozhuang_rounds`` 0-`MAX_SHAOZHUANG_ROUNDS`, ``flowers`` 0-`MAX_FLOWERS`; ``hubao``
  holds at most `MAX_HUBAO_PAIRS` pairs (a pair given twice binds the same two seats: it
  counts once; a winner has at most 3 partners). Every settled score is then at most
  `MAX_POINTS_PER_BASE` x base in absolute value.
- Error messages quote a bad value cut to a short prefix (`short`), never in full.
- A kong meld may be written with three tiles (``"555m"``) as shorthand for four.
- Melds list their physical tiles. With ``hui_wild_in_melds`` a 惠牌 in a meld stands for the
  tile it completes (``"77m5z"`` with 惠牌 5z: a pong of 7m); a chi that more than one run
  fits is read as the run that scores most. A chi is claimed and a claimed 惠牌 counts at face
  value, so a chi of 惠牌-kind tiles only (``"555m"`` with 惠牌 5m) is a run through that kind
  (345m, 456m or 567m), never one in another suit.
- A meld's ``from`` is optional (a chi without it is taken as claimed from the seat before the winner);
  when given it must be another seat (else an error). A chi from
  another seat than the one before the winner (``(winner - 1) % 4``), and a chi under rules
  without chi (hebei, quemen), are well-formed tiles that make no win the rules allow:
  ``legal: false`` (docs/INTERFACES.md 1), not errors. A concealed kong has no ``from``.
- ``hui`` and ``indicator`` may both be given only if they agree. Fields a rule set does not
  use (``hui`` / ``indicator`` without 惠牌, ``shaozhuang_rounds`` without 烧庄, ``hubao``
  without 互包, ``flowers`` without flowers, ``ting`` without 报听) are errors when set to
  anything but their default, and ``null`` counts as the default.
- ``situation.robbed_kong`` needs a ``discarder`` (the kong's declarer). Flags that contradict
  each other are read together, not refused: ``first_turn`` with ``after_kong``, ``robbed_kong``
  or a meld of the winner's, or with a discard by a seat that plays after the winner from the dealer,
  or with ``ting`` (报听 comes with a discard), scores no 天和 / 地和 / 地胡, ``last_tile`` with ``robbed_kong`` no 海底捞月 (``Win.first_turn``,
  ``Win.last_tile``; docs/game_flow.md); ``after_kong`` without a kong among the melds scores
  杠上开花 as the flag says.
- Counting hand + melds + winning tile (+ the ``indicator`` 惠坯 when given: a physical tile,
  face up and never drawn), no kind may have more than 4 tiles; the hand holds
  13 - 3 x (number of melds) tiles; at most 4 melds.

Scoring decisions are in the docstrings of ``mj_env.patterns`` (readings), the rule families
(``mj_env.families``: patterns and payment rules of each) and ``mj_env.payments`` (互包, 烧庄).
"""
from __future__ import annotations

import dataclasses
import reprlib

from .families import FAMILIES
from .lines import HugeInt
from .patterns import KONG, SEQ, TRIPLET, Meld, Situation, Win, best_patterns
from .payments import kong_payments, settle_draw, shaozhuang_line, win_scores
from .rules import MAX_BASE, PRESET_NAMES, RuleError, RuleSet, get_rules, preset_diff
from .tiles import CODES, N_FLOWERS, N_KINDS, TileError, hui_of_indicator, parse_tiles

__all__ = [
    "FIELDS",
    "MAX_POINTS_PER_BASE",
    "MAX_SHAOZHUANG_ROUNDS",
    "SCORE_RULE_FIELDS",
    "HugeInt",
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


class _ShortRepr(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict = 2, 4, 4, 4
        self.maxstring, self.maxother, self.maxlong = 20, 40, 40

    def repr_int(self, x, level):  # reprlib converts the whole int first: refuse huge ones
        if x.bit_length() > 128:
            return f"<an integer of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return super().repr_int(x, level)

    def repr_str(self, x, level):  # a prefix, not reprlib's middle cut
        return repr(x[:self.maxstring]) + ("..." if len(x) > self.maxstring else "")


_SHORT = _ShortRepr()


def short(value, limit: int = 40) -> str:
    """A value as an error message quotes it: its repr, cut to a prefix of ``limit``
    characters + '...' (containers to a few items, huge integers to their size: never
    converted in full)."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("..." if len(value) > limit else "")
    try:
        text = _SHORT.repr(value)
    except Exception:  # noqa: BLE001 -- a value that cannot be shown is named by its type
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


FIELDS = ("rules", "hand", "win_tile", "melds", "winner", "dealer", "discarder", "hui", "indicator",
          "situation", "shaozhuang_rounds", "hubao", "flowers", "ting", "base")
REQUIRED = ("hand", "win_tile")
MELD_TYPES = ("chi", "pong", "kong", "added_kong", "concealed_kong")
MELD_FIELDS = ("type", "tiles", "from")
SITUATION_FIELDS = tuple(f.name for f in dataclasses.fields(Situation))
MAX_TILES_TEXT = 64
"""Longest tile string taken (``hand``, ``win_tile``, a meld's ``tiles``, ``hui``): the longest
well-formed one, 13 tiles each with its own suit letter, is 26 characters."""

MAX_SHAOZHUANG_ROUNDS = (136 - 4 * 13 + 1) // 4
"""= 21. R rounds of 烧庄 are 4R discards made from the dealer's first discard on with no
claim in between, so only the last of them can have left the discard pile (won, or claimed
once its round was complete). When the hand ends each of the four players holds at least 13
tiles (melds included), none of them a discard of the rounds but that last one: 4R <= 136 -
4 x 13 + 1 = 85, so R <= 21 (beijing sets have 136 tiles; the 惠坯 is never drawn, which
only lowers it). Each round also spends all four copies of one kind: 34, the weaker bound."""

MAX_HUBAO_PAIRS = 12
"""Longest ``hubao`` list: each of the 6 pairs of seats, either way round."""

MAX_FLOWERS = N_FLOWERS
"""Flowers a winner can lay out (``quemen``: 8 flower tiles, one copy each); 花牌 scores one each."""

SCORE_RULE_FIELDS = ("chi", "hui", "seven_pairs", "thirteen_orphans", "orphans_extra_dragon", "lack_suit",
                     "flowers", "ting", "discard_win_concealed_only", "self_draw_only_hui", "four_hui_win",
                     "hui_wild_in_melds", "shaozhuang", "hubao", "discard_bonus_all_pay")
"""The RuleSet fields that bear on a hand's score: exactly those the calculator reads (besides
``name``, which fixes ``scoring``, and ``base``, the line's own field). The others are read by
the engine only (wall, dealing, turn order, episodes, kong payments, drawn hands)."""

_SHAOZHUANG_MAX_LINE = 2 ** (MAX_SHAOZHUANG_ROUNDS - 1)  # 2^20 = 1,048,576

# Each family bounds one win's points (``Family.max_points_per_base``): beijing with F <= 63
# and the 烧庄 line L <= 2^20 at most max(3F + 3L, 9F + L); hebei 12 + 3X with X <= 101; quemen
# 2T from each of three with T <= 28.
MAX_POINTS_PER_BASE = max(f.max_points_per_base(_SHAOZHUANG_MAX_LINE) for f in FAMILIES.values())
"""= 3 x 63 + 3 x 2^20 = 3,145,917 (beijing's): no seat's settled score for one calculator line
exceeds this many times ``base`` in absolute value, for any input the calculator accepts under
any rule set (``tests/test_calculator_hardening.py`` checks it by enumerating the settlement
over every seat arrangement, 互包 set and the extreme fans and 烧庄 rounds). The environment's
per-hand settlements stay under it too: a drawn hand settles 烧庄 only (at most 3L), and the
kong payments and several winners of hebei / quemen add at most a few hundred. With
``base`` <= MAX_BASE = 10^6 a hand moves at most ~3.1e12 points (exact in float64, < 2^53
~ 9.0e15); 10,000 hands sum to at most ~3.1e16 (fits int64, < 2^63 ~ 9.2e18, though no longer
exact in float64)."""


# ---------------------------------------------------------------------------------------------
# Public entry points.


def evaluate(obj) -> dict:
    """Score one calculator input object (docs/INTERFACES.md 1); see the module docstring."""
    return score_win(parse_input(obj))


def score_win(win: Win) -> dict:
    """The calculator output for a validated `Win`.

    A hand with a chi under rules without chi (hebei, quemen), or with a chi from another seat than the one
    before the winner, is refused (``legal: false``: well-formed tiles, a hand the rules cannot make). A win on a discard or a robbed kong (``discarder`` set) is
    refused (``legal: false``) when
    ``rules.discard_win_concealed_only`` and the hand has a chi, pong, exposed or added kong
    (concealed kongs are fine), or when ``rules.self_draw_only_hui`` > 0 and the hand held that
    many 惠牌 before the winning tile (a 惠牌-kind winning tile is not counted). Then the best
    reading under the rule set's family (``mj_env.patterns``, ``mj_env.families``; 四惠牌 first
    in beijing), then the settlement (``mj_env.payments``)."""
    rules = win.rules
    chi = [n for n, m in enumerate(win.melds) if m.type == "chi"]
    if chi and not rules.chi:  # well-formed tiles, a hand the rules cannot make: not a malformed line
        return _illegal(f"melds[{chi[0]}] is a chi, and {_rules_without(rules, 'chi')} have no chi")
    before = (win.winner - 1) % 4
    wrong = [n for n in chi if win.melds[n].source not in (None, before)]  # no from: the seat before
    if wrong:  # docs/RULES.md 4.2: only the next player may chi
        return _illegal(f"melds[{wrong[0]}].from is {win.melds[wrong[0]].source}; a chi is claimed from the seat "
                        f"before the winner, {before}")
    if win.discarder is not None:
        if rules.discard_win_concealed_only and win.claimed:
            return _illegal("after chi, pong or an exposed or added kong the hand may only win by "
                            "self-draw, not on a discard or a robbed kong")
        if win.hui is not None and rules.self_draw_only_hui and win.hand_hui >= rules.self_draw_only_hui:
            return _illegal(f"a hand holding {win.hand_hui} 惠牌 ({CODES[win.hui]}) may only win by "
                            f"self-draw, not on a discard or a robbed kong")
    family = FAMILIES[rules.scoring]
    patterns, why = best_patterns(win, family)
    if patterns is None:
        assert why is not None  # (best_patterns: no patterns, a reason)
        return _illegal(why)
    fan = sum(patterns.values())
    rounds = win.shaozhuang_rounds if rules.shaozhuang else 0
    scores = win_scores(rules, fan, win.winner, win.dealer, win.discarder, hubao=win.hubao,
                        shaozhuang_rounds=rounds, ting=win.ting, base=win.base)
    return {"legal": True, "fan": fan, "patterns": patterns, "shaozhuang": shaozhuang_line(rounds),
            "scores": scores}


def rules_json(rules: RuleSet | str) -> str | dict:
    """The ``rules`` value of a calculator line for a rule set (docs/RULES.md 6.4): the preset name,
    unless a rule field that bears on the score (`SCORE_RULE_FIELDS`) differs from the preset;
    then ``{"name": preset, field: value, ...}`` holding only such fields. ``base`` is never in
    it (it travels as the line's own field)."""
    rules = get_rules(rules)
    diff = preset_diff(rules, SCORE_RULE_FIELDS)
    return {"name": rules.name, **diff} if diff else rules.name


def _rules_without(rules: RuleSet, field: str) -> str:
    """The rules named in a refusal for lacking ``field``: the preset, and the field where the line turned it off
    (``rules 'beijing' with shaozhuang=false``), so that a preset that has it is never said to lack it."""
    return f"rules {rules.name!r}" + (f" with {field}=false" if preset_diff(rules, [field]) else "")


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
        raise InputError(f"unknown field(s) {_names(unknown)}; known fields: {', '.join(FIELDS)}")
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
        raise InputError(f"win_tile must be exactly one tile, got {len(win_tile)} in {short(obj['win_tile'])}")
    hui, indicator = _hui(obj, rules)

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
    _check_copies(hand, win_tile[0], melds, indicator)

    situation = _situation(obj.get("situation"))
    if situation.robbed_kong and discarder is None:
        raise InputError("situation.robbed_kong needs a discarder: the seat whose added kong was robbed")

    rounds = _int(obj.get("shaozhuang_rounds", 0), "shaozhuang_rounds", 0, MAX_SHAOZHUANG_ROUNDS, default=0)
    if rounds and not rules.shaozhuang:
        raise InputError(f"shaozhuang_rounds: {_rules_without(rules, 'shaozhuang')} have no 烧庄")
    hubao = _hubao(obj.get("hubao"))
    if hubao and not rules.hubao:
        raise InputError(f"hubao: {_rules_without(rules, 'hubao')} have no 互包")
    flowers = _int(obj.get("flowers", 0), "flowers", 0, MAX_FLOWERS, default=0)
    if flowers and not rules.flowers:
        raise InputError(f"flowers: {_rules_without(rules, 'flowers')} have no flowers")
    ting = obj.get("ting", False)
    ting = False if ting is None else ting
    if type(ting) is not bool:
        raise InputError(f"ting must be true or false, got {short(ting)}")
    if ting and not rules.ting:
        raise InputError(f"ting: {_rules_without(rules, 'ting')} have no 报听")
    base = _int(obj.get("base", rules.base), "base", 1, MAX_BASE, default=rules.base)

    return Win(rules=rules, hand=tuple(sorted(hand)), win_tile=win_tile[0], melds=melds, winner=winner,
               dealer=dealer, discarder=discarder, hui=hui, situation=situation,
               shaozhuang_rounds=rounds, hubao=hubao, flowers=flowers, ting=ting, base=base)


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null", HugeInt: "an integer too large"}.get(type(value), type(value).__name__)


def _names(keys: list) -> str:
    """Field names for a message: the first few, each cut short."""
    out = ", ".join(short(k, 30) for k in keys[:5])
    return out + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


_RULE_FIELD_TYPES = {f.name: str(f.type) for f in dataclasses.fields(RuleSet)}  # (names: rules.py postpones annotations)


def _rules(value) -> RuleSet:
    if value is None:
        return get_rules("beijing")
    if isinstance(value, RuleSet):
        return value
    if isinstance(value, str):
        if value not in PRESET_NAMES:
            raise InputError(f"unknown rules {short(value)}; choose one of {', '.join(PRESET_NAMES)}")
        return get_rules(value)
    if not isinstance(value, dict):
        raise InputError(f"rules must be {', '.join(map(repr, PRESET_NAMES))} or an object, got {_kind(value)}")
    if "name" not in value:
        raise InputError('rules: an object must name its preset, e.g. {"name": "beijing", ...}')
    name = value["name"]
    if not isinstance(name, str) or name not in PRESET_NAMES:
        raise InputError(f"rules.name must be one of {', '.join(PRESET_NAMES)}, got {short(name)}")
    unknown = [k for k in value if k not in _RULE_FIELD_TYPES]
    if unknown:
        raise InputError(f"rules: unknown rule field(s): {_names(unknown)}")
    overrides = {}
    for k, v in value.items():
        if k == "name":
            continue
        if k == "base":
            raise InputError('rules.base: base is a field of the line itself ("base": 500), not of the rules object')
        want = {"bool": bool, "int": int}.get(_RULE_FIELD_TYPES[k], str)  # the rest are names (wall_layout, ...)
        if type(v) is not want:
            said = {bool: "true or false", int: "an integer", str: "a string"}[want]
            raise InputError(f"rules.{k} must be {said}, got {short(v)}")
        overrides[k] = v
    try:  # the object form: get_rules pairs flowers alone with its 144 or 136 tiles (RuleSet checks the pair)
        return get_rules({"name": name, **overrides})
    except RuleError as e:
        raise InputError(f"rules: {e}") from None


def _int(value, name: str, lo: int, hi: int, *, default: int) -> int:
    if value is None:
        return default
    if type(value) is not int or not lo <= value <= hi:
        raise InputError(f"{name} must be an integer {lo}-{hi}, got {short(value)}")
    return value


def _a(kind: str) -> str:
    """The meld type with its article, as an error message reads it: 'a pong', 'an added_kong'."""
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _seat(value, name: str, *, default: int | None = None) -> int:
    if value is None and default is not None:
        return default
    if type(value) is not int or not 0 <= value <= 3:
        raise InputError(f"{name} must be a seat 0-3, got {short(value)}")
    return value


def _tiles(text, name: str) -> list[int]:
    if not isinstance(text, str):
        raise InputError(f"{name} must be a string in compact notation like '123m55z', got {_kind(text)}")
    if len(text) > MAX_TILES_TEXT:
        raise InputError(f"{name} is {len(text)} characters long; no tiles of a hand take more than "
                         f"{MAX_TILES_TEXT}: {short(text)}")
    try:
        return parse_tiles(text)
    except TileError as e:
        raise InputError(f"{name}: {e}") from None


def _hui(obj: dict, rules: RuleSet) -> tuple[int | None, int | None]:
    """(the 惠牌 kind, the indicator tile when ``indicator`` is given); None where absent."""
    hui = ind = indicator = None
    if obj.get("hui") is not None:
        t = _tiles(obj["hui"], "hui")
        if len(t) != 1:
            raise InputError(f"hui must be exactly one tile code, got {short(obj['hui'])}")
        hui = t[0]
    if obj.get("indicator") is not None:
        t = _tiles(obj["indicator"], "indicator")
        if len(t) != 1:
            raise InputError(f"indicator must be exactly one tile code, got {short(obj['indicator'])}")
        indicator = t[0]
        ind = hui_of_indicator(indicator)
        if hui is not None and hui != ind:
            raise InputError(f"hui {CODES[hui]} does not follow indicator {obj['indicator']} "
                             f"(its 惠牌 is {CODES[ind]})")
        hui = ind
    if hui is not None and not rules.hui:
        raise InputError(f"hui / indicator: {_rules_without(rules, 'hui')} have no 惠牌")
    return hui, indicator


def _meld(raw, n: int, rules: RuleSet, winner: int, hui: int | None) -> Meld:
    where = f"melds[{n}]"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object like {{\"type\": \"pong\", \"tiles\": \"555m\", "
                         f"\"from\": 2}}, got {_kind(raw)}")
    unknown = [k for k in raw if k not in MELD_FIELDS]
    if unknown:
        raise InputError(f"{where}: unknown field(s) {_names(unknown)}; known: type, tiles, from")
    kind = raw.get("type")
    if kind not in MELD_TYPES:
        raise InputError(f"{where}.type must be one of {', '.join(MELD_TYPES)}, got {short(kind)}")
    if "tiles" not in raw:
        raise InputError(f"{where}: missing field 'tiles'")
    tiles = sorted(_tiles(raw["tiles"], f"{where}.tiles"))
    text = raw["tiles"]
    source = raw.get("from")
    if kind == "concealed_kong":
        if source is not None:
            raise InputError(f"{where}: a concealed kong is claimed from nobody; drop 'from' (got {short(source)})")
    elif source is not None:
        source = _seat(source, f"{where}.from")
        if source == winner:
            raise InputError(f"{where}.from is {source}, the winner's own seat; {_a(kind)} is claimed from another seat")
    is_kong = kind in ("kong", "added_kong", "concealed_kong")
    if is_kong and len(tiles) == 3 and len(set(tiles)) == 1:
        tiles = [tiles[0]] * 4  # shorthand: "555m" is the kong of 5m
    size = 4 if is_kong else 3
    if len(tiles) != size:
        raise InputError(f"{where}: {_a(kind)} has {size} tiles, got {len(tiles)} in {text!r}")
    # a concealed kong is four tiles of one kind at face value: 惠牌 complete only a chi, pong or exposed
    # kong (docs/RULES.md 5; an added kong tops up a pong, which may hold one)
    wild = hui if (rules.hui_wild_in_melds and hui is not None and kind != "concealed_kong") else None
    readings = _meld_readings(kind, tiles, wild)
    if not readings:
        what = "a run of three consecutive tiles of one suit" if kind == "chi" else f"{size} identical tiles"
        raise InputError(f"{where}: {text!r} is not a valid {kind}: it must be {what}")
    return Meld(type=kind, tiles=tuple(tiles), source=source, readings=readings)


def _meld_readings(kind: str, tiles: list[int], wild: int | None) -> tuple:
    """The groups a meld may stand for. ``wild``: the 惠牌 kind when 惠牌 are wild in melds.

    A chi is a claimed meld, and a claimed 惠牌 counts at face value (docs/RULES.md 5): so when
    every tile of a chi is of the 惠牌 kind, the run holds that kind (one of them, the claimed
    one, is at face value). When some are natural, the claimed tile may be any of them or a
    惠牌-kind tile, and every run through all the natural tiles is a way the chi was made."""
    natural = [t for t in tiles if t != wild]
    if kind == "chi":
        if not natural:  # every tile is of the 惠牌 kind (a meld has tiles, so wild is a kind)
            if wild is None:
                return ()
            natural = [wild]
        out = []
        for s in range(N_KINDS - 2):
            if s >= 27 or s % 9 > 6:
                continue
            run = (s, s + 1, s + 2)
            if len(set(natural)) == len(natural) and all(t in run for t in natural):
                out.append((SEQ, s))
        return tuple(out)
    letter = TRIPLET if kind == "pong" else KONG
    kinds = set(natural) or ({wild} if wild is not None else set())
    return ((letter, kinds.pop()),) if len(kinds) == 1 else ()


def _check_copies(hand: list[int], win_tile: int, melds: tuple[Meld, ...], indicator: int | None = None) -> None:
    """No kind has more than 4 tiles among hand, winning tile, melds and the indicator 惠坯 (a
    physical tile, face up, never drawn) when it is given."""
    counts: dict[int, int] = {}
    extra = [] if indicator is None else [indicator]
    for t in hand + [win_tile] + [t for m in melds for t in m.tiles] + extra:
        counts[t] = counts.get(t, 0) + 1
    for t, n in sorted(counts.items()):
        if n > 4:
            parts = [f"hand {hand.count(t)}"]
            in_melds = sum(m.tiles.count(t) for m in melds)
            if in_melds:
                parts.append(f"melds {in_melds}")
            if win_tile == t:
                parts.append("win_tile 1")
            if indicator == t:
                parts.append("indicator 1")
            raise InputError(f"too many {CODES[t]}: {n} counting {', '.join(parts)}; a set has 4")


def _situation(raw) -> Situation:
    if raw is None:
        return Situation()
    if not isinstance(raw, dict):
        raise InputError(f"situation must be an object of booleans {', '.join(SITUATION_FIELDS)}, got {_kind(raw)}")
    unknown = [k for k in raw if k not in SITUATION_FIELDS]
    if unknown:
        raise InputError(f"situation: unknown field(s) {_names(unknown)}; "
                         f"known: {', '.join(SITUATION_FIELDS)}")
    for k, v in raw.items():
        if type(v) is not bool:
            raise InputError(f"situation.{k} must be true or false, got {short(v)}")
    return Situation(**raw)


def _hubao(raw) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError(f"hubao must be a list of seat pairs like [[1, 3]], got {_kind(raw)}")
    if len(raw) > MAX_HUBAO_PAIRS:
        raise InputError(f"hubao lists {len(raw)} pairs; four seats make at most {MAX_HUBAO_PAIRS} "
                         f"(each of 6 pairs, either way round)")
    out = []
    for n, pair in enumerate(raw):
        if not isinstance(pair, list) or len(pair) != 2:
            raise InputError(f"hubao[{n}] must be a pair of seats like [1, 3], got {short(pair)}")
        a, b = (_seat(x, f"hubao[{n}][{k}]") for k, x in enumerate(pair))
        if a == b:
            raise InputError(f"hubao[{n}] binds seat {a} to itself")
        out.append((a, b))
    return tuple(out)
