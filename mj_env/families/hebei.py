"""The ``hebei`` family (docs/RULES.md 6.2): a base score (基础分) by win type plus bonus patterns X;
kong payments at the end of a won hand.

Decisions: 门清 needs no claimed meld (concealed kongs are fine); 海底捞月 is the last drawable
tile, self-drawn or its discard; 豪华七对 / 双豪华 / 三豪华 are one, two, three kinds held four
times, each replacing 七对 and the smaller ones; 捉五 is ``mj_env.patterns.catch_five``.
Payment (the reading of "小胡点炮则由点炮者出，大胡所有人都出"): on a self-draw each payer
pays their base + X; on a discard the discarder pays base + X and, when X > 0 and
``rules.discard_bonus_all_pay``, each other non-winner pays X.
"""
from __future__ import annotations

from ..patterns import (
    HONORS,
    ONE_SUIT,
    ONE_SUIT_AND_HONORS,
    Reading,
    Win,
    all_triplets,
    catch_five,
    dragon,
    flower_dragon,
    single_wait_all_melds,
)
from ..rules import RuleSet
from .family import Family

ORDER = ("门清", "抢杠胡", "杠上开花", "碰碰胡", "大吊车", "清一色", "混一色", "清风", "一条龙",
         "七对", "豪华七对", "双豪华", "三豪华", "十三幺", "海底捞月", "花龙", "捉五")
PATTERN_FAN = {"门清": 2, "抢杠胡": 2, "杠上开花": 2, "碰碰胡": 3, "大吊车": 2, "清一色": 3, "混一色": 2, "清风": 3,
               "一条龙": 2, "七对": 2, "豪华七对": 8, "双豪华": 16, "三豪华": 32, "十三幺": 10, "海底捞月": 2,
               "花龙": 5, "捉五": 5}

# The base score of the win type (docs/RULES.md 6.2): what each payer owes before bonus fan.
DEALER_SELF_DRAW = 4  # the dealer self-draws: each other player
SELF_DRAW_DEALER_PAYS = 4  # a non-dealer self-draws: the dealer pays 4 ...
SELF_DRAW_OTHER_PAYS = 2  # ... and the two others 2 each
DEALER_WINS_DISCARD = 8  # the dealer wins on a discard: the discarder
DEALER_DISCARDS = 6  # a non-dealer wins on the dealer's discard
OTHER_DISCARDS = 5  # a non-dealer wins on a non-dealer's discard

KONG_TABLE = {"exposed": 3, "added": 1, "concealed": 2}
"""Kong payments: exposed, the discarder pays 3; added, each other pays 1; concealed, each other 2."""


def patterns_of(win: Win, r: Reading, memo: dict) -> dict[str, int]:
    """The hebei bonus patterns of one reading (see the module docstring), each with ``PATTERN_FAN``'s fan."""
    s = win.situation
    got: set[str] = set()
    if not win.claimed:
        got.add("门清")
    if s.robbed_kong:
        got.add("抢杠胡")
    if s.after_kong and win.self_draw:
        got.add("杠上开花")
    if all_triplets(r):
        got.add("碰碰胡")
    if single_wait_all_melds(win):
        got.add("大吊车")
    suits = r.suits()
    if suits in ONE_SUIT:
        got.add("清一色")
    elif suits in ONE_SUIT_AND_HONORS:
        got.add("混一色")
    elif suits == {HONORS}:
        got.add("清风")
    if r.shape == "standard" and dragon(r):
        got.add("一条龙")
    if r.shape == "seven_pairs":  # one, two, three sets of four: each replaces 七对 and the smaller ones
        fours = sum(1 for n in r.counts if n >= 4)
        got.add(("七对", "豪华七对", "双豪华", "三豪华")[min(fours, 3)])
    if r.shape == "thirteen_orphans":
        got.add("十三幺")
    if win.last_tile:
        got.add("海底捞月")
    if r.shape == "standard" and flower_dragon(r):
        got.add("花龙")
    if catch_five(win, r, memo):
        got.add("捉五")
    return {name: PATTERN_FAN[name] for name in got}


def base_score(winner: int, dealer: int, discarder: int | None) -> dict[int, int]:
    """The base score (基础分) each payer owes the winner for the win type, before bonus fan."""
    if discarder is None:
        if winner == dealer:
            return {s: DEALER_SELF_DRAW for s in range(4) if s != winner}
        return {s: SELF_DRAW_DEALER_PAYS if s == dealer else SELF_DRAW_OTHER_PAYS
                for s in range(4) if s != winner}
    if winner == dealer:
        return {discarder: DEALER_WINS_DISCARD}
    return {discarder: DEALER_DISCARDS if discarder == dealer else OTHER_DISCARDS}


def hand_payments(rules: RuleSet, fan: int, winner: int, dealer: int, discarder: int | None) -> dict[int, int]:
    """What each payer owes the winner: the base score plus the bonus fan X (module docstring)."""
    pay = base_score(winner, dealer, discarder)
    if discarder is None:
        return {s: v + fan for s, v in pay.items()}
    if fan > 0:
        pay[discarder] += fan
        if rules.discard_bonus_all_pay:
            for s in range(4):
                if s not in (winner, discarder):
                    pay[s] = fan
    return pay


def max_points_per_base(max_line: int) -> int:
    """The largest |score| of a seat for one hebei win, per base: a dealer's self-draw takes
    4 + X from each of three (12 + 3X); every other win takes less, and a payer pays at most
    8 + X. No 烧庄 (``max_line`` does not apply), no 互包."""
    return 12 + 3 * sum(PATTERN_FAN.values())


FAMILY = Family(
    name="hebei", patterns_of=patterns_of, order=ORDER, pattern_fan=PATTERN_FAN,
    hand_payments=hand_payments, kong_table=KONG_TABLE, max_points_per_base=max_points_per_base,
)
