"""Rule sets: one frozen dataclass, three presets (docs/RULES.md).

A preset is data: the engine, the scorer and the masks read these fields and nothing else
decides what differs between ``beijing``, ``hebei`` and ``quemen``. Every **Decision** of
docs/RULES.md is a field (marked "Decision" below), so a user can change it::

    from mj_env.rules import get_rules
    rules = get_rules("beijing", hui_wild_in_melds=True, base=500)

Fields are validated on construction; a bad value raises RuleError naming the field.
"""
from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, fields
from typing import Literal, TypeAlias

import numpy as np

from .lines import HugeInt
from .messages import brief

Scoring = Literal["beijing", "hebei", "quemen"]
WallLayout = Literal["indicator", "tail"]
WALL_LAYOUTS = ("indicator", "tail")


class RuleError(ValueError):
    """A rule-set field has a bad value, or the rule set is unknown."""


class UnknownRuleField(RuleError, TypeError):
    """A keyword given as a rule field that no rule set has. Also a ``TypeError`` worded as Python words an
    unexpected keyword argument, since environment constructors pass their unknown keywords on as rule
    fields: wrappers that retry without an argument a constructor refuses (TorchRL's ``GymEnv`` and its
    ``frameskip``) look for exactly that."""


@dataclass(frozen=True)
class RuleSet:
    """One rule set. Field names follow docs/RULES.md's glossary."""

    name: str
    """Preset name this rule set derives from: 'beijing', 'hebei' or 'quemen'."""
    scoring: Scoring
    """Which fan table and settlement of docs/RULES.md 6 applies."""
    n_tiles: int = 136
    """136, or 144 with 8 flowers (quemen)."""
    flowers: bool = False
    """Flowers are laid out and replaced from the tail (docs/RULES.md 3, quemen)."""
    chi: bool = True
    """Chi (吃) by the next player is allowed."""
    hui: bool = True
    """The successor of the indicator 惠坯 is the wildcard 惠牌 (beijing); needs the indicator layout."""
    wall_layout: WallLayout = "indicator"
    """How the wall ends (docs/RULES.md 3). 'indicator' (beijing): wall[-1] is the indicator 惠坯, turned
    up and never drawn, and the ``reserve`` beside it gives the kong replacements. 'tail' (hebei,
    quemen): replacement draws (kongs, flowers) come from wall[-1] inward, and the hand is drawn
    when only the ``tail_stacks_kept`` are left."""
    reserve: int = 14
    """Tiles next to the indicator kept for kong replacements, never drawn normally (保留牌)."""
    tail_stacks_kept: int = 0
    """hebei: stacks (2 tiles each) at the tail that end the hand when only they are left."""
    seven_pairs: bool = True
    """Seven pairs (七对) is a winning shape."""
    thirteen_orphans: bool = False
    """Thirteen orphans (十三幺) is a winning shape (hebei)."""
    orphans_extra_dragon: bool = True
    """Thirteen orphans needs a dragon as the 14th tile, as seed 001 states."""
    lack_suit: bool = False
    """A winning hand holds at most two of the three suits (缺一门, quemen)."""
    ting: bool = False
    """报听 (declare ready with a discard) exists and doubles a win (quemen)."""
    multiple_winners: bool = False
    """Decision: several players may win on one discard (一炮多响). docs/RULES.md 4.2."""
    discard_win_concealed_only: bool = True
    """Only a concealed hand (门清; concealed kongs allowed) may win on a discard or rob a kong."""
    self_draw_only_hui: int = 3
    """A player holding this many 惠牌 or more may only win by self-draw (0 disables)."""
    four_hui_win: bool = True
    """四惠牌: holding all four 惠牌 at the start of a turn wins at once."""
    hui_wild_in_melds: bool = False
    """Decision: 惠牌 in hand may complete a chi, pong or exposed kong. docs/RULES.md 5."""
    shaozhuang: bool = True
    """烧庄 is detected and settled (beijing)."""
    shaozhuang_on_draw: bool = True
    """Decision: 烧庄 is settled in a drawn hand too. docs/RULES.md 6.1."""
    hubao: bool = True
    """互包 binds two seats after enough claims between them (beijing)."""
    hubao_claims: int = 3
    """Claims from one seat that bind two seats by 互包."""
    dealer_rotation: Literal["previous", "next"] = "previous"
    """Decision: after a non-dealer win the deal passes to (dealer-1)%4 ('previous',
    East -> North -> West -> South, as seed 000 states) or (dealer+1)%4 ('next')."""
    first_dealer: Literal["east", "random"] = "east"
    """The first hand's dealer: East, or drawn at random from the seed."""
    discard_bonus_all_pay: bool = True
    """Decision (hebei): on a discard win with bonus fan X > 0, each other non-winner pays X
    ('小胡点炮则由点炮者出，大胡所有人都出'). docs/RULES.md 6.2."""
    kong_payments: bool = False
    """Kongs are paid at the end of the hand (hebei, quemen)."""
    kong_payments_on_draw: bool = False
    """Kong payments are settled in a drawn hand too (quemen) or void (hebei)."""
    base: int = 1
    """底分: points = fan x base."""
    hands_per_episode: int = 1
    """Hands in one episode (a match): dealer carried over, scores summed."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            want = {"str": str, "int": int, "bool": bool}.get(str(f.type))
            plain = _plain_scalar(value)
            if plain is not value:  # a NumPy scalar (np.int64(500), np.True_): kept as the plain Python value
                object.__setattr__(self, f.name, plain)
                value = plain
            if want is int and isinstance(value, HugeInt):  # a JSON integer too long to read (lines.parse_json_int)
                raise RuleError(f"rule field {f.name!r} must be an integer in its range (mj_env.rules), "
                                f"got {brief(value)}")  # (out of range, as a 40-digit one is: not 'must be int')
            if want is not None and (type(value) is not want):
                raise RuleError(f"rule field {f.name!r} must be {want.__name__}, got {brief(value)}")
            if want is None and not isinstance(value, str):  # the Literal fields: one of their strings
                raise RuleError(f"rule field {f.name!r} must be a str, got {brief(value)}")
        _check(self.name in PRESET_NAMES, "name", f"must be one of {PRESET_NAMES}, got {brief(self.name)}")
        _check(self.scoring in PRESET_NAMES, "scoring", f"must be one of {PRESET_NAMES}, got {brief(self.scoring)}")
        _check(self.name == self.scoring, "scoring",
               f"the fan table and payments are the preset's: {brief(self.name)} scores as {brief(self.name)}, "
               f"got {brief(self.scoring)} (start from the preset {brief(self.scoring)} instead)")
        _check(self.n_tiles in (136, 144), "n_tiles", f"must be 136 or 144, got {brief(self.n_tiles)}")
        _check(self.flowers == (self.n_tiles == 144), "flowers", "flowers need n_tiles=144 and 144 tiles need flowers")
        _check(not self.flowers or self.scoring == "quemen", "flowers",
               "flowers are scored only by the quemen fan table (花牌)")
        _check(not self.hui or self.scoring == "beijing", "hui",
               "惠牌 (the indicator, its reserve and the 惠牌 patterns) exist only under beijing scoring")
        _check(self.wall_layout in WALL_LAYOUTS, "wall_layout",
               f"must be 'indicator' or 'tail', got {brief(self.wall_layout)}")
        _check(not self.hui or self.wall_layout == "indicator", "wall_layout",
               "the 惠牌 is named by the indicator at the wall's end: hui=True needs wall_layout='indicator'")
        _check(not self.flowers or self.wall_layout == "tail", "wall_layout",
               "flowers are replaced from the tail: flowers=True needs wall_layout='tail'")
        _check(not self.ting or self.scoring == "quemen", "ting", "报听 and its doubling exist only in quemen")
        _check(not self.ting or not self.chi, "chi",
               "chi=True with ting=True: 报听 is only defined for rule sets without chi (set ting=False to allow chi)")
        _check(not self.thirteen_orphans or self.scoring != "quemen", "thirteen_orphans",
               "the quemen fan table (docs/RULES.md 6.3) has no pattern for thirteen orphans: "
               "such a win would score 0 fan and pay nothing")
        _check(not self.shaozhuang or self.scoring == "beijing", "shaozhuang", "烧庄 is a beijing payment")
        _check(not self.hubao or self.scoring == "beijing", "hubao", "互包 is a beijing payment")
        _check(not self.kong_payments or self.scoring != "beijing", "kong_payments",
               "beijing has no kong payments (docs/RULES.md 6.1)")
        _check(0 <= self.reserve <= 40, "reserve", f"must be 0-40, got {brief(self.reserve)}")
        _check(0 <= self.tail_stacks_kept <= 20, "tail_stacks_kept", f"must be 0-20, got {brief(self.tail_stacks_kept)}")
        _check(0 <= self.self_draw_only_hui <= 4, "self_draw_only_hui", f"must be 0-4, got {brief(self.self_draw_only_hui)}")
        # a seat claims at most 4 discards in a hand (four melds), so 5 or more would never bind
        _check(1 <= self.hubao_claims <= 4, "hubao_claims",
               f"must be 1-4 (a seat makes at most 4 claims in a hand; to turn 互包 off: hubao=False), "
               f"got {brief(self.hubao_claims)}")
        _check(self.dealer_rotation in ("previous", "next"), "dealer_rotation",
               f"must be 'previous' or 'next', got {brief(self.dealer_rotation)}")
        _check(self.first_dealer in ("east", "random"), "first_dealer",
               f"must be 'east' or 'random', got {brief(self.first_dealer)}")
        _check(1 <= self.base <= MAX_BASE, "base", f"must be an integer in 1-{MAX_BASE:,}, got {brief(self.base)}")
        _check(1 <= self.hands_per_episode <= MAX_HANDS_PER_EPISODE, "hands_per_episode",
               f"must be 1-{MAX_HANDS_PER_EPISODE}, got {brief(self.hands_per_episode)}")
        preset = PRESETS.get(self.name)
        if preset is not None:  # (the presets themselves are built before PRESETS exists)
            for name, (used, when) in _USED_WHEN.items():
                # an ignored field may keep its preset's value, or the value of a preset that
                # ignores it too (hui=False with four_hui_win=False is fine; tail_stacks_kept=3
                # under beijing is not)
                harmless = {getattr(preset, name)} | {getattr(p, name) for p in PRESETS.values() if not used(p)}
                if not used(self) and getattr(self, name) not in harmless:
                    raise RuleError(f"rule field {name!r} is only read {when}; under these rules it would be "
                                    f"ignored, so it cannot be set (got {brief(getattr(self, name))})")

    def replace(self, **changes) -> RuleSet:
        """A copy with some fields changed (validated again)."""
        known = [f.name for f in fields(self)]
        unknown = set(changes) - set(known)
        if unknown:
            first = min(unknown)
            close = difflib.get_close_matches(first, known, n=1) if len(first) <= 100 else []
            hint = f"; did you mean {close[0]!r}?" if close else "; the fields are those of mj_env.rules.RuleSet"
            raise UnknownRuleField(f"unknown rule field(s): {', '.join(sorted(unknown))[:80]} "
                                   f"(unexpected keyword argument {brief(first)}){hint}")
        new, scoring = changes.get("name", self.name), changes.get("scoring", self.scoring)
        if type(new) is str and new != self.name and new in PRESET_NAMES and not (type(scoring) is str and scoring == new):
            # (the scoring check would name 'scoring' and send the user back to the preset they started from)
            raise RuleError(f"rule field 'name': a rule set derived from {brief(self.name)} cannot be renamed "
                            f"{brief(new)}; start from the preset {brief(new)} instead (get_rules({new!r}, ...))")
        return dataclasses.replace(self, **changes)

    @property
    def live_wall_start(self) -> int:
        """Index in the wall of the first live draw after the deal (dealer 14, others 13)."""
        return 53


def _plain_scalar(value):
    """A NumPy integer, bool or str scalar as the Python value it holds (a rule set stays plain JSON);
    anything else unchanged. A NumPy bool stays a bool, so it is refused for an int field as True is."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.str_):
        return str(value)
    return value


def _check(ok: bool, field: str, message: str) -> None:
    if not ok:
        raise RuleError(f"rule field {field!r}: {message}")


MAX_BASE = 10**6
"""Largest 底分. One hand moves at most MAX_POINTS_PER_BASE x base points per seat (mj_env.calculator),
so with this bound every reward is an exact integer in float64 (< 2**53) and a match of
MAX_HANDS_PER_EPISODE hands sums exactly in int64."""
MAX_HANDS_PER_EPISODE = 10_000

# Fields that only some rule sets read: (is it read?, where it is read). Setting one that the
# rules would ignore is refused instead of being silently dropped.
_USED_WHEN = {
    "reserve": (lambda r: r.wall_layout == "indicator",
                "with the indicator wall layout (wall_layout='indicator'): the reserve lies beside the indicator"),
    "hui_wild_in_melds": (lambda r: r.hui, "with 惠牌 (hui=True)"),
    "four_hui_win": (lambda r: r.hui, "with 惠牌 (hui=True)"),
    "self_draw_only_hui": (lambda r: r.hui, "with 惠牌 (hui=True)"),
    "tail_stacks_kept": (lambda r: r.wall_layout == "tail",
                         "with the tail wall layout (wall_layout='tail'): an indicator wall ends at its reserve"),
    "shaozhuang_on_draw": (lambda r: r.shaozhuang, "with 烧庄 (shaozhuang=True)"),
    "hubao_claims": (lambda r: r.hubao, "with 互包 (hubao=True)"),
    "kong_payments_on_draw": (lambda r: r.kong_payments, "with kong payments (kong_payments=True)"),
    "discard_bonus_all_pay": (lambda r: r.scoring == "hebei", "by hebei scoring"),
    "orphans_extra_dragon": (lambda r: r.thirteen_orphans, "with thirteen orphans (thirteen_orphans=True)"),
}


PRESET_NAMES = ("beijing", "hebei", "quemen")
PRESETS: dict[str, RuleSet] = {}

BEIJING = RuleSet(name="beijing", scoring="beijing")

HEBEI = RuleSet(
    name="hebei", scoring="hebei", chi=False, hui=False, wall_layout="tail", reserve=0, tail_stacks_kept=6,
    thirteen_orphans=True, multiple_winners=True, discard_win_concealed_only=False,
    self_draw_only_hui=0, four_hui_win=False, shaozhuang=False, hubao=False,
    dealer_rotation="next", first_dealer="random", kong_payments=True,
)

QUEMEN = RuleSet(
    name="quemen", scoring="quemen", n_tiles=144, flowers=True, chi=False, hui=False,
    wall_layout="tail", reserve=0, lack_suit=True, ting=True, discard_win_concealed_only=False,
    self_draw_only_hui=0, four_hui_win=False, shaozhuang=False, hubao=False,
    dealer_rotation="next", first_dealer="random", kong_payments=True,
    kong_payments_on_draw=True,
)

PRESETS.update(beijing=BEIJING, hebei=HEBEI, quemen=QUEMEN)


def preset_diff(rules: RuleSet, names=None) -> dict:
    """The fields of ``rules`` (all of them, or those ``names``) whose values differ from its preset's."""
    preset = PRESETS[rules.name]
    names = [f.name for f in fields(rules)] if names is None else names
    return {name: getattr(rules, name) for name in names if getattr(rules, name) != getattr(preset, name)}


def rules_label(rules: RuleSet) -> str:
    """The rule set as text shows it: the preset's name, or the name and every field changed from the preset
    (``"beijing with chi=False, base=500"``), so that a rule set of one's own is never shown as its preset."""
    diff = preset_diff(rules)
    return rules.name + (" with " + ", ".join(f"{k}={v!r}" for k, v in diff.items()) if diff else "")


# What every ``rules`` argument takes (``get_rules`` reads it): a preset's name, the object form of a
# calculator line or a settlement's ``input`` (docs/INTERFACES.md 1), or a RuleSet
RulesSpec: TypeAlias = str | dict | RuleSet


def get_rules(rules: RulesSpec = "beijing", **overrides) -> RuleSet:
    """A preset by name (or a RuleSet as is), with optional field overrides. ``rules`` may also be the object
    form of a calculator line or a settlement's ``input`` (docs/INTERFACES.md 1): ``{"name": preset, field:
    value, ...}``, its fields applied as overrides (a field given there and as a keyword is refused); as the
    calculator reads it, ``flowers`` without ``n_tiles`` sets 144 or 136 tiles to match."""
    if isinstance(rules, dict):
        fields_ = dict(rules)
        name = fields_.pop("name", None)
        if not isinstance(name, str) or name not in PRESETS:
            raise RuleError(f'rules given as an object need "name": one of {", ".join(PRESET_NAMES)}; '
                            f"got {brief(name)}")
        odd = [k for k in fields_ if not isinstance(k, str)]
        if odd:
            raise RuleError(f"rule field names are strings, got {brief(odd[0])}")
        both = sorted(set(fields_) & set(overrides))
        if both:
            raise RuleError(f"rule field(s) {', '.join(both)[:80]} given both in the rules object and as "
                            "keyword arguments; give each once")
        flowers = _plain_scalar(fields_.get("flowers"))
        if type(flowers) is bool and "n_tiles" not in fields_ and "n_tiles" not in overrides:
            # the object form names flowers alone (n_tiles bears on no score, so rules_json leaves it
            # out): 144 tiles go with flowers, as the calculator reads the same object
            fields_["n_tiles"] = 144 if flowers else 136
        rules, overrides = name, {**fields_, **overrides}
    if isinstance(rules, RuleSet):
        base = rules
    else:
        try:
            base = PRESETS[rules]
        except (KeyError, TypeError):
            raise RuleError(f"unknown rules {brief(rules)}; choose one of {', '.join(PRESET_NAMES)}") from None
    return base.replace(**overrides) if overrides else base
