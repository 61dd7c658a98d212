"""What a rule family is: the `Family` record each family module fills in, and the payment rule
that two of them share."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..patterns import Reading, Win
    from ..rules import RuleSet

KONG_TYPES = ("exposed", "added", "concealed")
"""The kong types of a kong table: 明杠 on a discard, 补杠 (added to a pong), 暗杠."""

PatternFn = Callable[["Win", "Reading", dict], "dict[str, int] | None"]
PaymentFn = Callable[["RuleSet", int, int, int, "int | None"], "dict[int, int]"]


@dataclass(frozen=True)
class Family:
    """One rule family (a RuleSet's ``scoring`` field): everything about scoring and paying a
    hand that differs from family to family. The generic code (``mj_env.patterns``,
    ``mj_env.payments``, ``mj_env.calculator``) reads these fields and nothing else of it."""

    name: str
    """The ``scoring`` value that selects the family (also its preset's name)."""
    patterns_of: PatternFn
    """``(win, reading, memo) -> {pattern: fan}`` of one reading, or None when the family
    refuses the reading as a win (``refusal`` says why; readings without 缺一门 under
    ``rules.lack_suit`` never get here, ``mj_env.patterns.best_patterns`` skips them for every
    family). ``memo`` is shared by the readings of one hand, for facts computed once (the 捉五魁
    wait test)."""
    order: tuple[str, ...]
    """Every pattern, in the order the calculator writes them; between readings of equal fan
    the pattern set that comes first in this order wins."""
    pattern_fan: Mapping[str, int]
    """The most fan each pattern can score (its sum bounds a hand's fan, `max_fan`)."""
    hand_payments: PaymentFn
    """``(rules, fan, winner, dealer, discarder) -> {payer: amount}``: what each payer owes the
    winner for the hand itself (``discarder`` None: a self-draw), before 报听 doubling, 互包,
    烧庄 and base, which ``mj_env.payments`` applies."""
    kong_table: Mapping[str, int] | None
    """Points each payer pays per kong, by type (`KONG_TYPES`); None: kongs are not paid."""
    max_points_per_base: Callable[[int], int]
    """``(largest 烧庄 line) -> int``: no seat's score for one win exceeds this many times base,
    for any seats, 互包 set and fan the family's rules allow (``mj_env.calculator`` takes the
    largest over the families as its bound)."""
    special_win: Callable[[Win], dict[str, int] | None] | None = None
    """A win whatever the shape, scored on its own (beijing: 四惠牌), or None."""
    ting_doubles: bool = False
    """A win after 报听 pays double (the whole total; ``fan`` and ``patterns`` stay un-doubled)."""
    refusal: str = "no reading of the hand is a win under these rules"
    """The calculator's reason when the tiles have a winning shape but ``patterns_of`` refuses
    every reading."""

    def __post_init__(self) -> None:
        if set(self.order) != set(self.pattern_fan) or len(set(self.order)) != len(self.order):
            raise ValueError(f"family {self.name!r}: order and pattern_fan must name the same patterns, once")
        if self.kong_table is not None and set(self.kong_table) != set(KONG_TYPES):
            raise ValueError(f"family {self.name!r}: kong_table must give {', '.join(KONG_TYPES)}")

    @property
    def max_fan(self) -> int:
        """An upper bound on a hand's fan: every pattern at its most (loose: many patterns
        exclude each other)."""
        return sum(self.pattern_fan.values())


def fan_from_each_payer(rules: RuleSet, fan: int, winner: int, dealer: int,
                        discarder: int | None) -> dict[int, int]:
    """The payment rule of beijing and quemen: on a self-draw each other seat pays the fan, on
    a discard the discarder pays it."""
    if discarder is None:
        return {s: fan for s in range(4) if s != winner}
    return {discarder: fan}
