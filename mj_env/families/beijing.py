"""The ``beijing`` family (docs/RULES.md 6.1): fan patterns added together, 四惠牌, fan paid by the
discarder or by each other seat; 互包 and 烧庄 (``mj_env.payments``); no kong payments.

Decisions, following docs/RULES.md 6.1:

- 庄 1: the winner is the dealer, or the dealer discarded the winning tile (or had the kong
  robbed); not when a non-dealer self-draws; not with 天和.
- 门清无惠 1: no chi, pong, exposed or added kong (concealed kongs are fine) and no tile of
  the 惠牌 kind anywhere: concealed tiles, melds, winning tile.
- 对对和 2: standard shape, every group a triplet or kong, declared melds included.
- 大钓 2: four declared melds (concealed kongs count), winning on the single tile left.
- 捉五魁 2: see ``mj_env.patterns.catch_five``.
- 海底捞月: 2 for a self-draw on the last live tile, 1 for a win on its discard.
- 一条龙 3: 123, 456 and 789 of one suit among the sequences, chi melds included.
- 七对子 4, or 豪华七对子 8 in its place when some kind is held four times or more (a
  wildcard may make the four); only without declared melds.
- 杠上开花 5: a self-draw with ``situation.after_kong``.
- 清一色 6: all tiles, melds included, wildcards as read, of one suit, no honors.
- 天和 10: ``first_turn``, the dealer self-draws, no melds. 地和 8: ``first_turn``, a
  non-dealer, no melds, on a self-draw or a discard. ``after_kong`` or ``robbed_kong`` voids
  ``first_turn`` (a kong was declared: ``Win.first_turn``), and a robbed kong is no 海底 discard.
- 推倒和 1: only when none of the patterns above but 庄 and 门清无惠 applies.
- 四惠牌 8 (`four_hui`): settled before any reading, whatever the shape.
"""
from __future__ import annotations

from ..patterns import ONE_SUIT, Reading, Win, all_triplets, catch_five, dragon, single_wait_all_melds
from .family import Family, fan_from_each_payer

ORDER = ("庄", "门清无惠", "推倒和", "对对和", "大钓", "捉五魁", "海底捞月", "一条龙", "七对子",
         "杠上开花", "清一色", "豪华七对子", "四惠牌", "天和", "地和")
PATTERN_FAN = {"庄": 1, "门清无惠": 1, "推倒和": 1, "对对和": 2, "大钓": 2, "捉五魁": 2, "海底捞月": 2,
               "一条龙": 3, "七对子": 4, "杠上开花": 5, "清一色": 6, "豪华七对子": 8, "四惠牌": 8, "天和": 10,
               "地和": 8}
_NOT_TUIDAO = set(ORDER[3:])


HAIDI_ON_DISCARD = 1
"""海底捞月 of a win on the discard made right after drawing the last live tile (a self-draw on that tile
scores ``PATTERN_FAN``'s 2)."""


def patterns_of(win: Win, r: Reading, memo: dict) -> dict[str, int]:
    """The beijing fan of one reading (see the module docstring); every fan is ``PATTERN_FAN``'s, but
    海底捞月 on a discard (``HAIDI_ON_DISCARD``)."""
    s = win.situation
    tianhe = win.first_turn and win.winner == win.dealer and win.self_draw
    dihe = win.first_turn and win.winner != win.dealer
    got: set[str] = set()
    if not tianhe and (win.winner == win.dealer or win.discarder == win.dealer):
        got.add("庄")
    if not win.claimed and win.hui_tiles == 0:
        got.add("门清无惠")
    if all_triplets(r):
        got.add("对对和")
    if single_wait_all_melds(win):
        got.add("大钓")
    if catch_five(win, r, memo):
        got.add("捉五魁")
    if win.last_tile:
        got.add("海底捞月")
    if r.shape == "standard" and dragon(r):
        got.add("一条龙")
    if r.shape == "seven_pairs":
        got.add("豪华七对子" if max(r.counts) >= 4 else "七对子")
    if s.after_kong and win.self_draw:
        got.add("杠上开花")
    if r.suits() in ONE_SUIT:
        got.add("清一色")
    if tianhe:
        got.add("天和")
    if dihe:
        got.add("地和")
    if not _NOT_TUIDAO & got:
        got.add("推倒和")
    p = {name: PATTERN_FAN[name] for name in got}
    if win.last_tile and not win.self_draw:
        p["海底捞月"] = HAIDI_ON_DISCARD
    return p


def four_hui(win: Win) -> dict[str, int] | None:
    """四惠牌: a self-draw with all four 惠牌 in hand + winning tile wins whatever the shape,
    scored 四惠牌 8 plus 庄 1 when the winner is the dealer, nothing else (no 天和)."""
    if not (win.rules.four_hui_win and win.hui is not None and win.self_draw):
        return None
    if win.hand_hui + int(win.win_tile == win.hui) < 4:
        return None
    names = ("庄", "四惠牌") if win.winner == win.dealer else ("四惠牌",)
    return {name: PATTERN_FAN[name] for name in names}


def max_points_per_base(max_line: int) -> int:
    """The largest |score| of a seat for one beijing win, per base. The hand settlement is at
    most 3F (a self-draw), F <= the most fan. Under 互包 each of the winner's (at most 3)
    partners pays it whole, so the winner gets at most 9F and a payer pays at most 3F; 烧庄
    (line L <= ``max_line``) adds +L to each non-dealer and -3L to the dealer. Largest: the
    dealer paying a self-draw's 3F plus 3L, or a non-dealer winner's 9F + L (a dealer winner's
    9F - 3L is smaller in size)."""
    fan = sum(PATTERN_FAN.values())
    return max(3 * fan + 3 * max_line, 9 * fan + max_line)


FAMILY = Family(
    name="beijing", patterns_of=patterns_of, order=ORDER, pattern_fan=PATTERN_FAN,
    hand_payments=fan_from_each_payer, kong_table=None, max_points_per_base=max_points_per_base,
    special_win=four_hui,
)
