"""Rule sets: one frozen dataclass, three presets (RULES.md).

A preset is data: the engine, the scorer and the masks read these fields and nothing else
decides what differs between ``beijing``, ``hebei`` and ``quemen``. Every **Decision** of
RULES.md is a field (marked "Decision" below), so a user can change it::

    from mj_env.rules import get_rules
    rules = get_rules("beijing", hui_wild_in_melds=True, base=500)

Fields are validated on construction; a bad value raises RuleError naming the field.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Literal

Scoring = Literal["beijing", "hebei", "quemen"]


class RuleError(ValueError):
    """A rule-set field has a bad value, or the rule set is unknown."""


@dataclass(frozen=True)
class RuleSet:
    """One rule set. Field names follow RULES.md's glossary."""

    name: str
    """Preset name this rule set derives from: 'beijing', 'hebei' or 'quemen'."""
    scoring: Scoring
    """Which fan table and settlement of RULES.md 6 applies."""
    n_tiles: int = 136
    """136, or 144 with 8 flowers (quemen)."""
    flowers: bool = False
    """Flowers are laid out and replaced from the tail (RULES.md 3, quemen)."""
    chi: bool = True
    """Chi (吃) by the next player is allowed."""
    hui: bool = True
    """An indicator 惠坯 is turned up and its successor 惠牌 is wild (beijing)."""
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
    """Decision: several players may win on one discard (一炮多响). RULES.md 4.2."""
    discard_win_concealed_only: bool = True
    """Only a concealed hand (门清; concealed kongs allowed) may win on a discard or rob a kong."""
    self_draw_only_hui: int = 3
    """A player holding this many 惠牌 or more may only win by self-draw (0 disables)."""
    four_hui_win: bool = True
    """四惠牌: holding all four 惠牌 at the start of a turn wins at once."""
    hui_wild_in_melds: bool = False
    """Decision: 惠牌 in hand may complete a chi, pong or exposed kong. RULES.md 5."""
    shaozhuang: bool = True
    """烧庄 is detected and settled (beijing)."""
    shaozhuang_on_draw: bool = True
    """Decision: 烧庄 is settled in a drawn hand too. RULES.md 6.1."""
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
    ('小胡点炮则由点炮者出，大胡所有人都出'). RULES.md 6.2."""
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
            if want is not None and (type(value) is not want):
                raise RuleError(f"rule field {f.name!r} must be {want.__name__}, got {value!r}")
        _check(self.name in PRESET_NAMES, "name", f"must be one of {PRESET_NAMES}, got {self.name!r}")
        _check(self.scoring in PRESET_NAMES, "scoring", f"must be one of {PRESET_NAMES}, got {self.scoring!r}")
        _check(self.n_tiles in (136, 144), "n_tiles", f"must be 136 or 144, got {self.n_tiles}")
        _check(self.flowers == (self.n_tiles == 144), "flowers", "flowers need n_tiles=144 and 144 tiles need flowers")
        _check(0 <= self.reserve <= 40, "reserve", f"must be 0-40, got {self.reserve}")
        _check(not (self.reserve and not self.hui), "reserve", "a reserve sits beside the indicator; it needs hui=True")
        _check(0 <= self.tail_stacks_kept <= 20, "tail_stacks_kept", f"must be 0-20, got {self.tail_stacks_kept}")
        _check(0 <= self.self_draw_only_hui <= 4, "self_draw_only_hui", f"must be 0-4, got {self.self_draw_only_hui}")
        _check(not (self.hui_wild_in_melds and not self.hui), "hui_wild_in_melds", "needs hui=True")
        _check(not (self.four_hui_win and not self.hui), "four_hui_win", "needs hui=True")
        _check(1 <= self.hubao_claims <= 8, "hubao_claims", f"must be 1-8, got {self.hubao_claims}")
        _check(self.dealer_rotation in ("previous", "next"), "dealer_rotation",
               f"must be 'previous' or 'next', got {self.dealer_rotation!r}")
        _check(self.first_dealer in ("east", "random"), "first_dealer",
               f"must be 'east' or 'random', got {self.first_dealer!r}")
        _check(self.base >= 1, "base", f"must be a positive integer, got {self.base}")
        _check(1 <= self.hands_per_episode <= 10_000, "hands_per_episode",
               f"must be 1-10000, got {self.hands_per_episode}")
        _check(not (self.ting and self.chi), "ting", "报听 is only defined for rule sets without chi")

    def replace(self, **changes) -> RuleSet:
        """A copy with some fields changed (validated again)."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise RuleError(f"unknown rule field(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)

    @property
    def live_wall_start(self) -> int:
        """Index in the wall of the first live draw after the deal (dealer 14, others 13)."""
        return 53


def _check(ok: bool, field: str, message: str) -> None:
    if not ok:
        raise RuleError(f"rule field {field!r}: {message}")


PRESET_NAMES = ("beijing", "hebei", "quemen")

BEIJING = RuleSet(name="beijing", scoring="beijing")

HEBEI = RuleSet(
    name="hebei", scoring="hebei", chi=False, hui=False, reserve=0, tail_stacks_kept=6,
    thirteen_orphans=True, multiple_winners=True, discard_win_concealed_only=False,
    self_draw_only_hui=0, four_hui_win=False, shaozhuang=False, hubao=False,
    dealer_rotation="next", first_dealer="random", kong_payments=True,
)

QUEMEN = RuleSet(
    name="quemen", scoring="quemen", n_tiles=144, flowers=True, chi=False, hui=False,
    reserve=0, lack_suit=True, ting=True, discard_win_concealed_only=False,
    self_draw_only_hui=0, four_hui_win=False, shaozhuang=False, hubao=False,
    dealer_rotation="next", first_dealer="random", kong_payments=True,
    kong_payments_on_draw=True,
)

PRESETS = {"beijing": BEIJING, "hebei": HEBEI, "quemen": QUEMEN}


def get_rules(rules: str | RuleSet = "beijing", **overrides) -> RuleSet:
    """A preset by name (or a RuleSet as is), with optional field overrides."""
    if isinstance(rules, RuleSet):
        base = rules
    else:
        try:
            base = PRESETS[rules]
        except (KeyError, TypeError):
            raise RuleError(f"unknown rules {rules!r}; choose one of {', '.join(PRESET_NAMES)}") from None
    return base.replace(**overrides) if overrides else base
