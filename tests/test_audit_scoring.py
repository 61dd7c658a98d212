"""Calculator lines worked out by hand from docs/RULES.md (an outside audit of scoring): each test
holds a case the calculator once got wrong."""
from __future__ import annotations

import pytest

from mj_env.calculator import evaluate

QUEMEN_PINGHU = {"rules": "quemen", "hand": "123m456m789p23p55p", "win_tile": "1p"}


@pytest.mark.parametrize("winner, dealer", [(1, 0), (0, 0)])
def test_quemen_a_win_after_baoting_is_no_first_draw(winner, dealer):
    # 报听 is declared together with a discard (docs/RULES.md 4.1), so a winner who declared it has
    # discarded: the win is not on their first draw (地胡, docs/RULES.md 6.3) nor on the dealer's initial
    # 14 tiles (天胡). A line giving both `ting` and `first_turn` is read as the flags together allow,
    # as a discard by a seat that plays after the winner voids `first_turn` (docs/game_flow.md).
    line = {**QUEMEN_PINGHU, "winner": winner, "dealer": dealer, "ting": True, "situation": {"first_turn": True}}
    out = evaluate(line)
    assert out["patterns"] == {"平胡": 1}
    assert out["fan"] == 1
    assert out["scores"][winner] == 6  # 平胡 1, doubled by 报听, from each of three
    # without 报听 the same line is a first-draw win
    plain = evaluate({**line, "ting": False})
    assert plain["patterns"] == ({"平胡": 1, "地胡": 2} if winner != dealer else {"平胡": 1, "天胡": 3})


@pytest.mark.parametrize("code", ["9f", "0f"])
def test_a_flower_code_past_8f_is_no_tile_not_a_flower(code):
    # flowers are 1f-8f (docs/RULES.md 1): 9f and 0f are unknown tile codes, and the error says so
    # instead of calling them flower tiles
    with pytest.raises(ValueError, match=f"no tile {code}"):
        evaluate({"rules": "quemen", "hand": "123m456m789p23p55p", "win_tile": code})


STD = "123m456p789s234s5z"  # 13 tiles, wins on 5z; three suits (and 花龙 under hebei)
HS = "123m456m789p234s5z"  # the same without 花龙
WILD_MELDS = {"name": "beijing", "hui_wild_in_melds": True}
FOUR_PONGS = [{"type": "pong", "tiles": "111p", "from": 1}, {"type": "pong", "tiles": "222s", "from": 2},
              {"type": "pong", "tiles": "333s", "from": 3}, {"type": "pong", "tiles": "777m", "from": 1}]

# (line, patterns, scores): each worked out by hand from docs/RULES.md 1, 5, 6 alone
HAND_WORKED = [
    # beijing: 互包 with two partners, the discarder one of them, then the discarder not one of them
    ({"hand": STD, "win_tile": "5z", "winner": 1, "dealer": 0, "discarder": 2, "hubao": [[1, 3], [1, 2]]},
     {"门清无惠": 1, "推倒和": 1}, [0, 4, -2, -2]),
    ({"hand": STD, "win_tile": "5z", "winner": 1, "dealer": 0, "discarder": 0, "hubao": [[1, 2], [1, 3]]},
     {"庄": 1, "门清无惠": 1, "推倒和": 1}, [0, 6, -3, -3]),
    # 互包 to one seat on the dealer's discard, with 烧庄: the partner pays the hand, the dealer 烧庄
    ({"hand": STD, "win_tile": "5z", "winner": 1, "dealer": 0, "discarder": 0, "hubao": [[1, 2]], "shaozhuang_rounds": 1},
     {"庄": 1, "门清无惠": 1, "推倒和": 1}, [-3, 4, -2, 1]),
    # 烧庄 with the dealer at seat 3, who also dealt in
    ({"hand": STD, "win_tile": "5z", "winner": 1, "dealer": 3, "discarder": 3, "shaozhuang_rounds": 3},
     {"庄": 1, "门清无惠": 1, "推倒和": 1}, [4, 7, 4, -15]),
    # three 惠牌 (one in 789s) read as 123p for 一条龙; the same on a discard is refused below
    ({"hand": "123m456p789p9s9s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1, "dealer": 0}, {"一条龙": 3}, [-3, 9, -3, -3]),
    # a discarded 惠牌-kind winning tile is face value, and still voids 门清无惠
    ({"hand": "123m456p234s55z78s", "win_tile": "9s", "hui": "9s", "winner": 1, "dealer": 0, "discarder": 2},
     {"推倒和": 1}, [0, 1, -1, 0]),
    # 四惠牌 scores with 庄 only: not 杠上开花, 海底捞月 or 天和
    ({"hand": "9s9s9s1m4m7m2p5p8p3s", "win_tile": "9s", "hui": "9s", "winner": 1, "dealer": 0,
          "melds": [{"type": "concealed_kong", "tiles": "1111z"}], "situation": {"after_kong": True}},
     {"四惠牌": 8}, [-8, 24, -8, -8]),
    ({"hand": "9s9s9s1m4m7m2p5p8p3s6s1z2z", "win_tile": "9s", "hui": "9s", "winner": 0, "dealer": 0,
          "situation": {"first_turn": True, "last_tile": True}}, {"庄": 1, "四惠牌": 8}, [27, -9, -9, -9]),
    # 惠牌 standing in: for 1m to make 豪华七对子, for a 5z of 对对和, for 9m of 清一色
    ({"hand": "111m33m55p77p11z2z9s", "win_tile": "2z", "hui": "9s", "winner": 1, "dealer": 0, "discarder": 2},
     {"豪华七对子": 8}, [0, 8, -8, 0]),
    ({"hand": "111m999p222s55z7z6z", "win_tile": "6z", "hui": "7z"}, {"庄": 1, "对对和": 2}, [9, -3, -3, -3]),
    ({"hand": "111234567899m5z", "win_tile": "9m", "hui": "5z", "winner": 2, "dealer": 0},
     {"一条龙": 3, "清一色": 6}, [-9, -9, 27, -9]),
    # 捉五魁: only wait 5m; not when a 惠牌 lets 1z complete the hand too
    ({"hand": "12346789m11z777p", "win_tile": "5m", "winner": 1, "dealer": 0, "discarder": 3},
     {"门清无惠": 1, "捉五魁": 2, "一条龙": 3}, [0, 6, 0, -6]),
    ({"hand": "46m123p777s234s1z9s", "win_tile": "5m", "hui": "9s"}, {"庄": 1, "推倒和": 1}, [6, -2, -2, -2]),
    # 惠牌 in melds (Decision field): a pong of 5m and a chi of 456m through a 惠牌
    ({"rules": WILD_MELDS, "hand": "1123456789m", "win_tile": "1m", "hui": "9s", "winner": 1, "dealer": 0,
          "melds": [{"type": "pong", "tiles": "55m9s", "from": 2}]}, {"一条龙": 3, "清一色": 6}, [-9, 27, -9, -9]),
    ({"rules": WILD_MELDS, "hand": "123m789m111z5z", "win_tile": "5z", "hui": "9s", "winner": 1, "dealer": 0,
          "melds": [{"type": "chi", "tiles": "5m9s9s", "from": 0}]}, {"一条龙": 3}, [-3, 9, -3, -3]),
    # 地和 on a discard by a seat before the winner (dealer 2), not after it
    ({"hand": STD, "win_tile": "5z", "winner": 1, "dealer": 2, "discarder": 0, "situation": {"first_turn": True}},
     {"门清无惠": 1, "地和": 8}, [-9, 9, 0, 0]),
    ({"hand": STD, "win_tile": "5z", "winner": 3, "dealer": 2, "discarder": 0, "situation": {"first_turn": True}},
     {"门清无惠": 1, "推倒和": 1}, [-2, 0, 0, 2]),
    # 大钓 on four concealed kongs: still concealed, so a discard win is allowed
    ({"hand": "5z", "win_tile": "5z", "winner": 1, "dealer": 0, "discarder": 3,
          "melds": [{"type": "concealed_kong", "tiles": t} for t in ("1111m", "2222p", "3333s", "4444z")]},
     {"门清无惠": 1, "对对和": 2, "大钓": 2}, [0, 5, 0, -5]),
    # hebei: bonus X paid by every non-winner on a discard win; base by win type
    ({"rules": "hebei", "hand": "222m333m4m", "win_tile": "4m", "winner": 2, "dealer": 0, "discarder": 3,
          "melds": [{"type": "pong", "tiles": "111m", "from": 1}, {"type": "pong", "tiles": "999m", "from": 3}]},
     {"碰碰胡": 3, "清一色": 3}, [-6, -6, 23, -11]),
    ({"rules": {"name": "hebei", "discard_bonus_all_pay": False}, "hand": HS, "win_tile": "5z", "winner": 2, "dealer": 0,
          "discarder": 0}, {"门清": 2}, [-8, 0, 8, 0]),
    ({"rules": "hebei", "hand": "46m123p789s777z11z", "win_tile": "5m"}, {"门清": 2, "花龙": 5, "捉五": 5},
     [48, -16, -16, -16]),
    ({"rules": "hebei", "hand": "1111m2222m3355m7m", "win_tile": "7m", "winner": 1, "dealer": 0, "discarder": 0},
     {"门清": 2, "清一色": 3, "双豪华": 16}, [-27, 69, -21, -21]),
    ({"rules": "hebei", "hand": "1111m2222m3333m5z", "win_tile": "5z"}, {"门清": 2, "混一色": 2, "三豪华": 32},
     [120, -40, -40, -40]),
    ({"rules": "hebei", "hand": "5z", "win_tile": "5z", "winner": 1, "dealer": 0, "discarder": 3,
          "melds": [{"type": "concealed_kong", "tiles": t} for t in ("1111m", "2222p", "3333s", "4444z")]},
     {"门清": 2, "碰碰胡": 3, "大吊车": 2}, [-7, 26, -7, -12]),
    ({"rules": "hebei", "hand": "123m456m23p55z", "win_tile": "4p", "winner": 1, "dealer": 0, "discarder": 2,
          "melds": [{"type": "pong", "tiles": "111z", "from": 2}], "situation": {"robbed_kong": True}},
     {"抢杠胡": 2}, [-2, 11, -7, -2]),
    # quemen: 报听 doubles flowers too, from each of three; 清一色 adds to 七对
    ({"rules": "quemen", "hand": "123m456m789p23p55p", "win_tile": "1p", "winner": 2, "dealer": 0, "flowers": 8, "ting": True,
          "base": 3}, {"平胡": 1, "花牌": 8}, [-54, -54, 162, -54]),
    ({"rules": "quemen", "hand": "1122334455667m", "win_tile": "7m", "winner": 0, "dealer": 0, "situation": {"first_turn": True}},
     {"七对": 2, "清一色": 3, "天胡": 3}, [24, -8, -8, -8]),
    ({"rules": "quemen", "hand": "5z", "win_tile": "5z", "discarder": 1,
          "melds": [{"type": "concealed_kong", "tiles": "1111m"}, {"type": "kong", "tiles": "2222m", "from": 2},
                 {"type": "pong", "tiles": "333m", "from": 3}, {"type": "added_kong", "tiles": "4444m", "from": 1}]},
     {"混一色": 1, "碰碰胡": 2}, [3, -3, 0, 0]),
]


@pytest.mark.parametrize("line, patterns, scores", HAND_WORKED)
def test_hand_worked_lines(line, patterns, scores):
    out = evaluate(line)
    assert out == {"legal": True, "fan": sum(patterns.values()), "patterns": patterns,
                   "shaozhuang": out["shaozhuang"], "scores": scores}


@pytest.mark.parametrize("line", [
    {"hand": "123m456p789p9s9s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1, "dealer": 0, "discarder": 2},
    {"hand": "123m456p789p9s9s9s5z", "win_tile": "5z", "hui": "9s", "winner": 1, "dealer": 0, "discarder": 2,
         "situation": {"robbed_kong": True}},
    {"hand": "5z", "win_tile": "5z", "discarder": 1, "melds": FOUR_PONGS},
    {"rules": "hebei", "hand": "19m19p19s1123456z", "win_tile": "7z"},  # the 14th tile must be a dragon
    {"rules": "quemen", "hand": "123m456m789p5z", "win_tile": "5z", "winner": 1,
         "melds": [{"type": "pong", "tiles": "555s", "from": 2}]},  # three suits counting the meld
])
def test_hand_worked_refusals(line):
    assert evaluate(line)["legal"] is False


@pytest.mark.parametrize("kind, article", [("added_kong", "an"), ("pong", "a"), ("kong", "a")])
def test_meld_errors_give_the_meld_type_its_article(kind, article):
    # "an added_kong has 4 tiles", not "a added_kong"
    base = {"hand": "123m456m789p2s", "win_tile": "2s"}
    with pytest.raises(ValueError, match=f"; {article} {kind} is claimed from another seat"):
        evaluate({**base, "melds": [{"type": kind, "tiles": "111m", "from": 0}]})
    with pytest.raises(ValueError, match=f": {article} {kind} has"):
        evaluate({**base, "melds": [{"type": kind, "tiles": "11m", "from": 1}]})
