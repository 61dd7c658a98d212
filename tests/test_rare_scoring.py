"""Rare combinations of winning and scoring (docs/RULES.md 1, 5, 6.1-6.4), each worked out by hand from
the spec before the calculator was asked.

The case tables (tests/cases/*_hands.json) hold each pattern alone and the common pairs; these lines
hold what they leave out: 惠牌 wildcards standing for themselves, for a whole group or for the fourth
copy of several kinds at once, 四惠牌 with 互包 or 烧庄, 天和 / 地和 stacked with seven pairs and one
suit, 捉五魁 with 一条龙, 互包 with a robbed kong, the hebei bonus patterns that stack
(十三幺 + 门清 + 抢杠胡, 三豪华 + 清一色, 清风 + 碰碰胡 + 大吊车, 花龙 + 捉五, ...) under every row of the
base-score table, quemen 报听 doubling a total with flowers, 天胡 + 清碰, and 缺一门 broken by a meld
or by the winning tile. Each line is also scored by the plain reference scorer (tests/ref_scoring.py,
every wildcard tried as every kind), which must agree. One engine scenario plays 地和 on a non-dealer's
first discard through a full settlement in the three rule sets.
"""
from __future__ import annotations

import pytest
from ref_scoring import ref_evaluate, ref_evaluate_hebei, ref_evaluate_quemen
from scenario_helpers import BEIJING, HEBEI, QUEMEN, names, play, settled

from mj_env.calculator import evaluate

HUI_WILD_IN_MELDS = {"name": "beijing", "hui_wild_in_melds": True}
FOUR_HUI = {"hand": "9s9s9s123m456m78p12z", "win_tile": "9s", "hui": "9s"}  # all four 惠牌 once 9s is drawn
PLAIN = {"hand": "123m456p789s23s55z", "win_tile": "4s", "hui": "9p"}  # 推倒和, no 惠牌 anywhere: 门清无惠
FOUR_PONGS = [{"type": "pong", "tiles": "111m", "from": 2}, {"type": "pong", "tiles": "222p", "from": 3},
              {"type": "pong", "tiles": "333s", "from": 0}, {"type": "pong", "tiles": "444z", "from": 2}]

# (id, calculator line, patterns, scores); fan is the patterns' sum. Seat 0 is the dealer unless the line says.
WINS = [
    # --- beijing: 四惠牌 (docs/RULES.md 5, 6.1: 8, with 庄 only) ---
    ("4hui-hubao-one", {**FOUR_HUI, "winner": 1, "hubao": [[1, 2]]},
     {"四惠牌": 8}, [0, 24, -24, 0]),  # the one bound seat pays the whole 3F
    ("4hui-hubao-two", {**FOUR_HUI, "winner": 1, "hubao": [[1, 2], [3, 1]]},
     {"四惠牌": 8}, [0, 48, -24, -24]),  # each bound seat pays 3F
    ("4hui-after-kong", {**FOUR_HUI, "hand": "9s9s9s123m456m1z", "winner": 1, "situation": {"after_kong": True},
                         "melds": [{"type": "concealed_kong", "tiles": "1111p"}]},
     {"四惠牌": 8}, [-8, 24, -8, -8]),  # on a replacement: no 杠上开花 beside it
    ("4hui-last-tile", {**FOUR_HUI, "winner": 1, "situation": {"last_tile": True}},
     {"四惠牌": 8}, [-8, 24, -8, -8]),  # on the 海底 tile: no 海底捞月 beside it
    ("4hui-dealer-shaozhuang", {**FOUR_HUI, "winner": 0, "shaozhuang_rounds": 2},
     {"庄": 1, "四惠牌": 8}, [27 - 6, -9 + 2, -9 + 2, -9 + 2]),  # 烧庄 line 2: dealer -6, others +2
    # --- beijing: 惠牌 standing for a pair, a group, themselves ---
    ("dadiao-drawn-hui-pairs", {"hand": "7p", "melds": FOUR_PONGS, "win_tile": "9s", "hui": "9s", "winner": 1},
     {"对对和": 2, "大钓": 2}, [-4, 12, -4, -4]),
    ("dadiao-held-hui-pairs", {"hand": "9s", "melds": FOUR_PONGS, "win_tile": "7p", "hui": "9s", "winner": 1},
     {"对对和": 2, "大钓": 2}, [-4, 12, -4, -4]),
    ("seven-pairs-hui-pairs-an-honor", {"hand": "11m22m33p44p55s66s7z", "win_tile": "9s", "hui": "9s", "winner": 1},
     {"七对子": 4}, [-4, 12, -4, -4]),
    ("three-hui-seven-pairs", {"hand": "9s9s9s11m22m33p44p5s6s", "win_tile": "7z", "hui": "9s", "winner": 3},
     {"七对子": 4}, [-4, -4, -4, 12]),
    # three 惠牌, each the fourth of a triplet: 1111m 2222p 3333s 44z is seven pairs with fours (8), more
    # than the triplets' 对对和 (2)
    ("three-hui-make-three-fours", {"hand": "9s9s9s111m222p333s4z", "win_tile": "4z", "hui": "9s", "winner": 3},
     {"豪华七对子": 8}, [-8, -8, -8, 24]),
    ("honor-hui-makes-one-suit", {"hand": "1112345678999m", "win_tile": "1z", "hui": "1z", "winner": 2},
     {"清一色": 6, "一条龙": 3}, [-9, -9, 27, -9]),
    ("hui-stands-for-itself", {"hand": "34m456p789s11z555z", "win_tile": "2m", "hui": "2m", "winner": 1},
     {"推倒和": 1}, [-1, 3, -1, -1]),  # 2m drawn: 234m either way; a 惠牌-kind tile: no 门清无惠
    ("dragon-from-two-chis-and-a-hui", {"hand": "78m11p234s", "win_tile": "9s", "hui": "9s", "winner": 1,
                                        "melds": [{"type": "chi", "tiles": "123m", "from": 0},
                                                  {"type": "chi", "tiles": "456m", "from": 0}]},
     {"一条龙": 3}, [-3, 9, -3, -3]),
    # --- beijing: 天和 / 地和 stacked with shapes (docs/RULES.md 6: they stack; 天和 without 庄) ---
    ("tianhe-seven-pairs-one-suit", {"hand": "1122334455667m", "win_tile": "7m", "hui": "1z", "winner": 0,
                                     "situation": {"first_turn": True}},
     {"天和": 10, "七对子": 4, "清一色": 6, "门清无惠": 1}, [63, -21, -21, -21]),
    ("tianhe-three-hui-as-789m", {"hand": "9s9s9s123m456m789p1z", "win_tile": "1z", "hui": "9s", "winner": 0,
                                  "situation": {"first_turn": True}},
     {"天和": 10, "一条龙": 3}, [39, -13, -13, -13]),
    ("dihe-seven-pairs-dealer-deals-in", {"hand": "11m22m33p44p55s66s7z", "win_tile": "7z", "hui": "9s",
                                          "winner": 1, "discarder": 0, "situation": {"first_turn": True}},
     {"地和": 8, "七对子": 4, "门清无惠": 1, "庄": 1}, [-14, 14, 0, 0]),
    ("dihe-on-a-non-dealers-discard", {**PLAIN, "winner": 2, "discarder": 1, "situation": {"first_turn": True}},
     {"门清无惠": 1, "地和": 8}, [0, -9, 9, 0]),  # seat 2 has not discarded yet; no 庄
    # --- beijing: other stacks ---
    ("luxury-one-suit-dealer-deals-in", {"hand": "1111m223344556m", "win_tile": "6m", "hui": "5z", "winner": 1,
                                         "discarder": 0},
     {"庄": 1, "门清无惠": 1, "清一色": 6, "豪华七对子": 8}, [-16, 16, 0, 0]),  # beats 456 456 123 123 11 (9)
    ("catch-five-and-dragon", {"hand": "12346789m11p234s", "win_tile": "5m", "hui": "7z", "winner": 1,
                               "discarder": 0},
     {"庄": 1, "门清无惠": 1, "捉五魁": 2, "一条龙": 3}, [-7, 7, 0, 0]),
    # a held 惠牌 (9s, standing for 1s or 4s beside 23s) makes other waits: 一条龙 without 捉五魁
    ("held-hui-no-catch-five", {"hand": "12346789m11p23s9s", "win_tile": "5m", "hui": "9s", "winner": 1},
     {"一条龙": 3}, [-3, 9, -3, -3]),
    ("dealer-haidi-discard", {**PLAIN, "winner": 0, "discarder": 1, "situation": {"last_tile": True}},
     {"庄": 1, "门清无惠": 1, "海底捞月": 1}, [3, -3, 0, 0]),
    ("gangshang-one-suit-concealed-kong", {"hand": "1112345678m", "win_tile": "8m", "hui": "5z", "winner": 1,
                                           "melds": [{"type": "concealed_kong", "tiles": "9999m"}],
                                           "situation": {"after_kong": True}},
     {"杠上开花": 5, "清一色": 6, "门清无惠": 1}, [-12, 36, -12, -12]),
    # --- beijing: 互包 and 烧庄 ---
    ("hubao-two-discarder-outside", {**PLAIN, "winner": 1, "discarder": 0, "hubao": [[1, 2], [1, 3]]},
     {"庄": 1, "门清无惠": 1, "推倒和": 1}, [0, 6, -3, -3]),
    ("hubao-dealer-self-draw-shaozhuang", {**PLAIN, "winner": 1, "hubao": [[1, 0]], "shaozhuang_rounds": 2},
     {"门清无惠": 1, "推倒和": 1}, [-6 - 6, 6 + 2, 2, 2]),  # 互包: dealer pays 3F = 6; 烧庄 not redirected
    ("robbed-dealer-kong-hubao", {**PLAIN, "winner": 1, "discarder": 0, "hubao": [[1, 2]],
                                  "situation": {"robbed_kong": True}},
     {"庄": 1, "门清无惠": 1, "推倒和": 1}, [0, 3, -3, 0]),  # the dealer dealt in (庄) but the bound seat pays
    # --- beijing, hui_wild_in_melds: 惠牌 in melds read as the tile they stand for ---
    ("melds-hui-in-chi-one-suit", {"rules": HUI_WILD_IN_MELDS, "hand": "111m234m789m5m", "win_tile": "5m",
                                   "hui": "1z", "winner": 1, "melds": [{"type": "chi", "tiles": "45m1z", "from": 0}]},
     {"清一色": 6}, [-6, 18, -6, -6]),
    ("melds-hui-in-pong-all-triplets", {"rules": HUI_WILD_IN_MELDS, "hand": "111m222p333s4z", "win_tile": "4z",
                                        "hui": "1z", "winner": 1,
                                        "melds": [{"type": "pong", "tiles": "77p1z", "from": 2}]},
     {"对对和": 2}, [-2, 6, -2, -2]),
    ("melds-hui-in-chi-dragon", {"rules": HUI_WILD_IN_MELDS, "hand": "123p456p5p", "win_tile": "5p", "hui": "9s",
                                 "winner": 1, "melds": [{"type": "chi", "tiles": "12p9s", "from": 0},
                                                        {"type": "chi", "tiles": "789p", "from": 0}]},
     {"一条龙": 3, "清一色": 6}, [-9, 27, -9, -9]),
    # --- hebei: base score + X (docs/RULES.md 6.2); every row of the base table ---
    ("hebei-orphans-dealer-self-draw", {"rules": "hebei", "hand": "19m19p19s1234567z", "win_tile": "5z"},
     {"十三幺": 10, "门清": 2}, [48, -16, -16, -16]),  # each pays 4 + 12
    ("hebei-orphans-other-discards", {"rules": "hebei", "hand": "19m19p19s1234567z", "win_tile": "6z",
                                      "winner": 2, "discarder": 3},
     {"十三幺": 10, "门清": 2}, [-12, -12, 41, -17]),  # discarder 5 + 12, the others 12
    ("hebei-orphans-robbing", {"rules": "hebei", "hand": "19m19p19s1234567z", "win_tile": "7z", "winner": 2,
                               "discarder": 3, "situation": {"robbed_kong": True}},
     {"门清": 2, "抢杠胡": 2, "十三幺": 10}, [-14, -14, 47, -19]),
    ("hebei-triple-luxury-one-suit", {"rules": "hebei", "hand": "1111222233334m", "win_tile": "4m", "winner": 1},
     {"三豪华": 32, "清一色": 3, "门清": 2}, [-41, 119, -39, -39]),  # dealer 4 + 37, the others 2 + 37
    ("hebei-double-luxury-mixed", {"rules": "hebei", "hand": "1111m2222m33m44z5z", "win_tile": "5z", "winner": 3},
     {"双豪华": 16, "混一色": 2, "门清": 2}, [-24, -22, -22, 68]),
    ("hebei-honors-luxury", {"rules": "hebei", "hand": "1111z22z33z44z55z6z", "win_tile": "6z"},
     {"清风": 3, "豪华七对": 8, "门清": 2}, [51, -17, -17, -17]),
    ("hebei-honors-pongs-single-wait", {"rules": "hebei", "hand": "5z", "win_tile": "5z", "winner": 1,
                                        "discarder": 3,
                                        "melds": [{"type": "pong", "tiles": "111z", "from": 3},
                                                  {"type": "pong", "tiles": "222z", "from": 2},
                                                  {"type": "pong", "tiles": "333z", "from": 3},
                                                  {"type": "pong", "tiles": "444z", "from": 2}]},
     {"清风": 3, "碰碰胡": 3, "大吊车": 2}, [-8, 29, -8, -13]),
    ("hebei-four-concealed-kongs", {"rules": "hebei", "hand": "5z", "win_tile": "5z", "winner": 1, "discarder": 2,
                                    "melds": [{"type": "concealed_kong", "tiles": t} for t in
                                              ("1111m", "2222p", "3333s", "4444z")]},
     {"门清": 2, "大吊车": 2, "碰碰胡": 3}, [-7, 26, -12, -7]),
    ("hebei-catch-five-dragon", {"rules": "hebei", "hand": "12346789m11p234s", "win_tile": "5m", "winner": 2,
                                 "discarder": 1},
     {"捉五": 5, "一条龙": 2, "门清": 2}, [-9, -14, 32, -9]),
    ("hebei-flower-dragon-catch-five", {"rules": "hebei", "hand": "123p46m789s11z222z", "win_tile": "5m",
                                        "winner": 2, "discarder": 3},
     {"花龙": 5, "捉五": 5, "门清": 2}, [-12, -12, 41, -17]),
    ("hebei-robbing-the-dealer", {"rules": "hebei", **PLAIN, "hui": None, "winner": 1, "discarder": 0,
                                  "situation": {"robbed_kong": True}},
     {"抢杠胡": 2, "门清": 2, "花龙": 5}, [-15, 33, -9, -9]),  # 123m 456p 789s is a 花龙; dealer 6 + 9
    ("hebei-gangshang-haidi", {"rules": "hebei", "hand": "234m567m78s55z", "win_tile": "9s", "winner": 1,
                               "melds": [{"type": "concealed_kong", "tiles": "1111p"}],
                               "situation": {"after_kong": True, "last_tile": True}},
     {"门清": 2, "杠上开花": 2, "海底捞月": 2}, [-10, 26, -8, -8]),
    ("hebei-dealer-wins-seven-pairs-mixed", {"rules": "hebei", "hand": "11m22m33m44m55m11z2z", "win_tile": "2z",
                                             "discarder": 2},
     {"混一色": 2, "七对": 2, "门清": 2}, [26, -6, -14, -6]),  # discarder 8 + 6, the others 6
    ("hebei-haidi-discard-open", {"rules": "hebei", "hand": "123m456m11z55z", "win_tile": "5z", "winner": 1,
                                  "discarder": 3, "melds": [{"type": "pong", "tiles": "777s", "from": 3}],
                                  "situation": {"last_tile": True}},
     {"海底捞月": 2}, [-2, 11, -2, -7]),
    ("hebei-triplets-beat-runs", {"rules": "hebei", "hand": "111m222m333m444m5m", "win_tile": "5m", "winner": 1,
                                  "discarder": 0},
     {"碰碰胡": 3, "清一色": 3, "门清": 2}, [-14, 30, -8, -8]),  # dealer 6 + 8
    ("hebei-no-bonus-self-draw", {"rules": "hebei", "hand": "123m456m78p55z", "win_tile": "9p", "winner": 1,
                                  "melds": [{"type": "pong", "tiles": "777s", "from": 3}]},
     {}, [-4, 8, -2, -2]),
    # --- quemen (docs/RULES.md 6.3) ---
    ("quemen-ting-pure-pongs-haidi-flowers", {"rules": "quemen", "hand": "222m333m444m5m", "win_tile": "5m",
                                              "winner": 1, "flowers": 2, "ting": True,
                                              "melds": [{"type": "concealed_kong", "tiles": "1111m"}],
                                              "situation": {"last_tile": True}},
     {"清碰": 4, "海底捞月": 1, "花牌": 2}, [-14, 42, -14, -14]),  # 7 doubled, from each of three
    ("quemen-mixed-pongs", {"rules": "quemen", "hand": "111m999m111z22z55z", "win_tile": "5z", "winner": 1,
                            "discarder": 2},
     {"混一色": 1, "碰碰胡": 2}, [0, 3, -3, 0]),
    ("quemen-pure-seven-pairs-with-four", {"rules": "quemen", "hand": "1111m223344556m", "win_tile": "6m"},
     {"清一色": 3, "七对": 2}, [15, -5, -5, -5]),
    ("quemen-tianhu-mixed-pairs-flower", {"rules": "quemen", "hand": "11m22m33m44m55m11z2z", "win_tile": "2z",
                                          "flowers": 1, "situation": {"first_turn": True}},
     {"天胡": 3, "混一色": 1, "七对": 2, "花牌": 1}, [21, -7, -7, -7]),
    ("quemen-tianhu-pure-pongs-flowers", {"rules": "quemen", "hand": "111m222m333m444m5m", "win_tile": "5m",
                                          "flowers": 3, "situation": {"first_turn": True}},
     {"清碰": 4, "天胡": 3, "花牌": 3}, [30, -10, -10, -10]),
    ("quemen-dihu-pinghu", {"rules": "quemen", "hand": "123m456m789m23p55z", "win_tile": "4p", "winner": 1,
                            "situation": {"first_turn": True}},
     {"平胡": 1, "地胡": 2}, [-3, 9, -3, -3]),
    ("quemen-pinghu-gangshang-haidi", {"rules": "quemen", "hand": "234m567p78p55z", "win_tile": "9p", "winner": 2,
                                       "melds": [{"type": "concealed_kong", "tiles": "1111m"}],
                                       "situation": {"after_kong": True, "last_tile": True}},
     {"平胡": 1, "杠上开花": 1, "海底捞月": 1}, [-3, -3, 9, -3]),
    ("quemen-ting-discard-doubled", {"rules": "quemen", "hand": "11m22m33m44m55m11z2z", "win_tile": "2z",
                                     "winner": 1, "discarder": 3, "ting": True},
     {"混一色": 1, "七对": 2}, [0, 6, 0, -6]),
    ("quemen-pure-pongs-from-melds", {"rules": "quemen", "hand": "333p444p5p", "win_tile": "5p", "winner": 1,
                                      "melds": [{"type": "pong", "tiles": "111p", "from": 0},
                                                {"type": "kong", "tiles": "2222p", "from": 3}]},
     {"清碰": 4}, [-4, 12, -4, -4]),
]

# (id, calculator line): well-formed hands the rules do not let win
REFUSED = [
    ("three-hui-rob-a-kong", {**FOUR_HUI, "win_tile": "9p", "winner": 1, "discarder": 0,
                              "situation": {"robbed_kong": True}}),  # docs/RULES.md 5: self-draw only
    ("quemen-pong-brings-the-third-suit", {"rules": "quemen", "hand": "123m456p11z55z", "win_tile": "5z",
                                           "winner": 1, "discarder": 2,
                                           "melds": [{"type": "pong", "tiles": "777s", "from": 3}]}),
    ("quemen-win-tile-brings-the-third-suit", {"rules": "quemen", "hand": "123m456p789p111z5s", "win_tile": "5s",
                                               "winner": 1, "discarder": 2}),
]

REFERENCE = {"beijing": ref_evaluate, "hebei": ref_evaluate_hebei, "quemen": ref_evaluate_quemen}


def _line(line: dict) -> dict:
    out = {"winner": 0, "dealer": 0, **line}
    if out.get("hui", "") is None:
        del out["hui"]
    return out


def _preset(line: dict) -> str:
    rules = line.get("rules", "beijing")
    return rules if isinstance(rules, str) else rules["name"]


@pytest.mark.parametrize("line, patterns, scores", [w[1:] for w in WINS], ids=[w[0] for w in WINS])
def test_rare_combination_scores_as_worked_out(line, patterns, scores):
    out = evaluate(_line(line))
    assert out["legal"] is True, out
    assert out["patterns"] == patterns
    assert out["fan"] == sum(patterns.values())
    assert out["scores"] == scores


@pytest.mark.parametrize("line", [w[1] for w in WINS] + [r[1] for r in REFUSED],
                         ids=[w[0] for w in WINS] + [r[0] for r in REFUSED])
def test_the_reference_scorer_agrees(line):
    line = _line(line)
    got, ref = evaluate(line), REFERENCE[_preset(line)](line)
    assert got["legal"] == ref["legal"]
    if got["legal"]:
        assert (got["patterns"], got["scores"]) == (ref["patterns"], ref["scores"])


@pytest.mark.parametrize("line", [r[1] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_rare_refusals(line):
    out = evaluate(_line(line))
    assert out["legal"] is False and out["reason"], out


# ---------------------------------------------------------------------------------------------
# 地和 on a non-dealer's first discard, played out. The dealer discards 4z (nobody claims it); seat 1
# draws 7z and lets it go as its first discard; seat 2, which has not discarded yet, wins on it with
# seven pairs. docs/RULES.md 6.1: 地和 is any win of a non-dealer before its first discard with no meld
# yet, so also one on another non-dealer's discard, and 庄 does not come with it (the dealer neither won
# nor dealt in); hebei has no 地和 pattern, quemen's 地胡 is a self-draw only.
DIHE_ON_A_NON_DEALERS_DISCARD = {0: "19m19p19s1234567z1m", 1: "234p567p345s789s6s", 2: "11m22m33m44p55p66p7z",
                                 3: "77m88m99m77p88p99p6z"}
DIHE_RESULTS = {
    # 地和 8 + 七对子 4 + 门清无惠 1 = 13, paid by the discarder alone
    "beijing": ({"门清无惠": 1, "七对子": 4, "地和": 8}, [0, -13, 13, 0]),
    # X = 七对 2 + 门清 2 = 4: the discarder (a non-dealer) 5 + 4, each other non-winner 4
    "hebei": ({"门清": 2, "七对": 2}, [-4, -9, 17, -4]),
    # 七对 2 (m and p: no 混一色), no 地胡 on a discard
    "quemen": ({"七对": 2}, [0, -2, 2, 0]),
}


@pytest.mark.parametrize("rules", [BEIJING, HEBEI, QUEMEN], ids=["beijing", "hebei", "quemen"])
def test_dihe_on_a_non_dealers_first_discard(new_game, rules):
    g = new_game(rules, hands=DIHE_ON_A_NON_DEALERS_DISCARD, draws="7z")
    assert "win" not in names(g)
    play(g, (0, "discard 4z"))
    assert (g.phase, g.to_act) == ("TURN", 1) and "win" not in names(g)
    play(g, (1, "discard 7z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass"])
    play(g, (2, "win"))
    (w,) = g.wins
    assert (w["winner"], w["discarder"], w["situation"]["first_turn"]) == (2, 1, True)
    patterns, scores = DIHE_RESULTS[rules.name]
    assert g.result["patterns"] == patterns
    assert settled(g) == scores
