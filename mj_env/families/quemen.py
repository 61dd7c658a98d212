"""The ``quemen`` family (docs/RULES.md 6.3): a win must lack a suit (缺一门); one shape pattern plus
additive ones; doubled after 报听; kong payments at the end of the hand, drawn or won.

Shape: 平胡 1, 混一色 1, 碰碰胡 2, 七对 2, 清一色 3, 清碰 4 (清一色 + 碰碰胡, replacing both);
混一色 adds to 碰碰胡 or 七对, 清一色 adds to 七对. Additive: 杠上开花 1, 海底捞月 1 (self-draw on
the last tile only), 天胡 3 (dealer, first turn, self-draw, no melds), 地胡 2 (non-dealer
self-draws on the first draw, no melds), 花牌 1 per flower. Readings that do not lack a suit
(``rules.lack_suit``) are no win (``mj_env.patterns.best_patterns`` skips them, for any family). Win on a discard: the discarder pays the total; self-draw:
each of the three others pays it.
"""
from __future__ import annotations

from ..patterns import ONE_SUIT, ONE_SUIT_AND_HONORS, Reading, Win, all_triplets
from ..tiles import N_FLOWERS
from .family import Family, fan_from_each_payer

ORDER = ("平胡", "混一色", "碰碰胡", "七对", "清一色", "清碰", "杠上开花", "海底捞月", "天胡", "地胡", "花牌")
PATTERN_FAN = {"平胡": 1, "混一色": 1, "碰碰胡": 2, "七对": 2, "清一色": 3, "清碰": 4, "杠上开花": 1, "海底捞月": 1,
               "天胡": 3, "地胡": 2, "花牌": N_FLOWERS}
"""花牌 scores one per flower laid out, at most the 8 flower tiles."""

KONG_TABLE = {"exposed": 1, "added": 0, "concealed": 1}
"""Kong payments: exposed, the discarder pays 1; concealed, each other pays 1; added, nothing."""


def patterns_of(win: Win, r: Reading, memo: dict) -> dict[str, int] | None:
    """The quemen fan of one reading that lacks a suit (module docstring), each with ``PATTERN_FAN``'s fan
    but 花牌, one per flower laid out."""
    s = win.situation
    got: set[str] = set()
    suits = r.suits()
    pure = suits in ONE_SUIT
    mixed = suits in ONE_SUIT_AND_HONORS
    if r.shape == "seven_pairs":
        got.add("七对")
        if pure:
            got.add("清一色")
        elif mixed:
            got.add("混一色")
    elif r.shape == "standard":
        pph = all_triplets(r)
        if pure and pph:
            got.add("清碰")
        elif pure:
            got.add("清一色")
        else:
            if mixed:
                got.add("混一色")
            if pph:
                got.add("碰碰胡")
            if not got:
                got.add("平胡")
    first_draw = win.first_turn and win.self_draw
    if s.after_kong and win.self_draw:
        got.add("杠上开花")
    if win.last_tile and win.self_draw:
        got.add("海底捞月")
    if first_draw and win.winner == win.dealer:
        got.add("天胡")
    if first_draw and win.winner != win.dealer:
        got.add("地胡")
    p = {name: PATTERN_FAN[name] for name in ORDER if name in got}
    if win.flowers:
        p["花牌"] = win.flowers
    return p


def max_points_per_base(max_line: int) -> int:
    """The largest |score| of a seat for one quemen win, per base: a self-draw after 报听 takes
    the doubled total 2T from each of three. No 烧庄 (``max_line`` does not apply), no 互包."""
    return 3 * 2 * sum(PATTERN_FAN.values())


FAMILY = Family(
    name="quemen", patterns_of=patterns_of, order=ORDER, pattern_fan=PATTERN_FAN,
    hand_payments=fan_from_each_payer, kong_table=KONG_TABLE, max_points_per_base=max_points_per_base,
    ting_doubles=True,
)
