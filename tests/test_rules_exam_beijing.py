"""A black-box rules exam of the ``beijing`` rule set, written from docs/RULES.md and docs/INTERFACES.md alone
before the implementation was read: every expected figure below was worked out by hand from the spec (惠坯 and
its successor 惠牌 with the wrap-around of suits, winds and dragons, 惠牌 as wildcards in every shape and at face
value when taken from a discard, the three-惠牌 and opened-hand limits on discard wins, each fan item and what it
excludes, 互包 and 烧庄 payments), then checked through the public interfaces only: the calculator
(``mj_env.score.answer``, one line of ``python -m mj_env.score``) and the PettingZoo AEC env (``mj_env.env``) on
walls laid out with ``tests/walls.build_wall`` (through ``wall_of`` and ``play`` of
tests/test_audit_hebei_quemen_play.py). No figure here was taken from the code's output.
"""
from __future__ import annotations

import pytest
from test_audit_hebei_quemen_play import play, wall_of
from test_rules_exam_hebei_quemen import calc, pong

import mj_env
from mj_env import actions as A


def bj(**fields) -> dict:
    return calc("beijing", **fields)


def meld(kind: str, tiles: str, frm=None) -> dict:
    return {"type": kind, "tiles": tiles, **({} if frm is None else {"from": frm})}


def legal_win(out: dict, patterns: dict, scores: list) -> None:
    assert out.get("legal") is True, out
    assert out["patterns"] == patterns
    assert out["fan"] == sum(patterns.values())
    assert out["scores"] == scores


# ---- 惠坯 -> 惠牌: the successor, wrapping inside suits, winds and dragons (docs/RULES.md 3) ----

@pytest.mark.parametrize("indicator, hui", [
    ("1m", "2m"), ("8p", "9p"), ("9m", "1m"), ("9p", "1p"), ("9s", "1s"),
    ("1z", "2z"), ("3z", "4z"), ("4z", "1z"), ("7z", "6z"), ("6z", "5z"), ("5z", "7z"),
])
def test_the_indicators_successor_is_the_wildcard(indicator, hui):
    # 234m 567m 345p 34s + the 惠牌 (2s or 5s) + 8p, South wins West's 8p: 推倒和 only (a 惠牌 is held).
    line = {"hand": "234m567m345p8p34s" + hui, "win_tile": "8p", "winner": 1, "dealer": 0, "discarder": 2}
    legal_win(bj(**line, indicator=indicator), {"推倒和": 1}, [0, 1, -1, 0])
    assert bj(**line, hui=hui)["scores"] == [0, 1, -1, 0]
    # the indicator's own kind is no wildcard
    assert bj(**line, hui=indicator)["legal"] is False


# ---- 惠牌 as wildcards, and at face value when taken from a discard (docs/RULES.md 5) ----

def test_a_self_drawn_wildcard_completes_a_sequence():
    out = bj(hand="234m567m345p88s46s", win_tile="9p", hui="9p", winner=1, dealer=0)
    legal_win(out, {"推倒和": 1}, [-1, 3, -1, -1])


def test_a_discarded_wildcard_is_its_face_value():
    out = bj(hand="234m567m345p88s46s", win_tile="9p", hui="9p", winner=1, dealer=0, discarder=2)
    assert out["legal"] is False and "reason" in out
    # at face value it may still complete the hand; the 惠牌 kind in hand then voids 门清无惠
    out = bj(hand="234m567m345p88s78p", win_tile="9p", hui="9p", winner=1, dealer=0, discarder=2)
    legal_win(out, {"推倒和": 1}, [0, 1, -1, 0])


def test_a_wildcard_makes_a_pair_of_seven_pairs():
    out = bj(hand="11m22m33p44p55s66s9p", win_tile="7z", hui="9p", winner=1, dealer=0)
    legal_win(out, {"七对子": 4}, [-4, 12, -4, -4])


def test_a_wildcard_makes_four_alike_in_seven_pairs():
    # 111m + the self-drawn 惠牌 as 1m: 1111m 22m 33p 44p 55s 66s, 豪华七对子 replaces 七对子.
    out = bj(hand="111m22m33p44p55s66s", win_tile="9p", hui="9p", winner=1, dealer=0)
    legal_win(out, {"豪华七对子": 8}, [-8, 24, -8, -8])


def test_three_wildcards_read_as_a_dragon_self_draw_only():
    # 234m 567m 345p 44s + 999p (惠牌 9p): the three wildcards as 1m 8m 9m give 123m 456m 789m: 一条龙.
    line = {"hand": "234m567m345p4s999p", "win_tile": "4s", "hui": "9p", "winner": 1, "dealer": 0}
    legal_win(bj(**line), {"一条龙": 3}, [-3, 9, -3, -3])
    # three 惠牌 held: a concealed hand may still only self-draw
    assert bj(**line, discarder=2)["legal"] is False


def test_two_wildcards_held_and_a_third_on_the_discard_may_win():
    # the count is of the 惠牌 held before the win; the discarded 9p is a plain 9p: 999p 44s.
    out = bj(hand="234m567m345p44s99p", win_tile="9p", hui="9p", winner=1, dealer=0, discarder=2)
    legal_win(out, {"推倒和": 1}, [0, 1, -1, 0])


def test_wildcards_as_interpreted_make_a_full_flush():
    # 123m 345m 567m 78m 11m + the self-drawn 惠牌 (1z) as 9m: all 14 tiles 万.
    out = bj(hand="123m345m567m78m11m", win_tile="1z", hui="1z", winner=1, dealer=0)
    legal_win(out, {"清一色": 6}, [-6, 18, -6, -6])


# ---- concealed hands and discard wins ----

def test_menqing_wuhui_and_a_concealed_kong_keeps_it():
    legal_win(bj(hand="234m567m345p88s46s", win_tile="5s", hui="9p", winner=1, dealer=0, discarder=2),
              {"推倒和": 1, "门清无惠": 1}, [0, 2, -2, 0])
    legal_win(bj(hand="234m567m88s46s", win_tile="5s", hui="9p", winner=1, dealer=0, discarder=2,
                 melds=[meld("concealed_kong", "1111z")]),
              {"推倒和": 1, "门清无惠": 1}, [0, 2, -2, 0])


@pytest.mark.parametrize("m", [pong("111z", 3), meld("chi", "123p", 0), meld("kong", "1111z", 3),
                               meld("added_kong", "1111z", 3)], ids=["pong", "chi", "kong", "added_kong"])
def test_an_opened_hand_wins_by_self_draw_only(m):
    line = {"hand": "234m567m88s46s", "win_tile": "5s", "hui": "9p", "winner": 1, "dealer": 0, "melds": [m]}
    assert bj(**line, discarder=2)["legal"] is False
    legal_win(bj(**line), {"推倒和": 1}, [-1, 3, -1, -1])


# ---- the fan table (docs/RULES.md 6.1) ----

@pytest.mark.parametrize("hand, win, melds, discarder, patterns", [
    ("111m999p222s777s5z", "5z", [], 2, {"对对和": 2, "门清无惠": 1}),
    ("5z", "5z", [pong("111m", 2), pong("999p", 3), pong("222s", 2), pong("777s", 3)], None,
     {"大钓": 2, "对对和": 2}),
    ("5z", "5z", [meld("chi", "123m", 0), meld("chi", "456p", 0), pong("222s", 2), pong("777s", 3)], None,
     {"大钓": 2}),
    ("46m123p789p111s55z", "5m", [], 2, {"捉五魁": 2, "门清无惠": 1}),
    # the hand's own 惠牌 (9s) may be 5m, so 5z also wins: no 捉五魁
    ("46m123p789p111s5z9s", "5m", [], 2, {"推倒和": 1}),
    # 4666m waits on 5m and 4m
    ("4666m123p789p111s", "5m", [], 2, {"推倒和": 1, "门清无惠": 1}),
    ("123m456m789m345p5z", "5z", [], 2, {"一条龙": 3, "门清无惠": 1}),
    ("11m22m33p44p55s66s7z", "7z", [], 2, {"七对子": 4, "门清无惠": 1}),
    ("1111m22m33p44p55s6s", "6s", [], 2, {"豪华七对子": 8, "门清无惠": 1}),
    ("123m345m567m789m9m", "9m", [], 2, {"清一色": 6, "门清无惠": 1}),
])
def test_fan_items(hand, win, melds, discarder, patterns):
    out = bj(hand=hand, win_tile=win, melds=melds, hui="9s", winner=1, dealer=0, discarder=discarder)
    f = sum(patterns.values())
    legal_win(out, patterns, [0, f, -f, 0] if discarder == 2 else [-f, 3 * f, -f, -f])


@pytest.mark.parametrize("discarder, patterns, scores", [
    (None, {"海底捞月": 2, "门清无惠": 1}, [-3, 9, -3, -3]),
    (2, {"海底捞月": 1, "门清无惠": 1}, [0, 2, -2, 0]),
])
def test_haidi(discarder, patterns, scores):
    out = bj(hand="234m567m345p88s46s", win_tile="5s", hui="9p", winner=1, dealer=0, discarder=discarder,
             situation={"last_tile": True})
    legal_win(out, patterns, scores)


def test_gangshang_kaihua():
    out = bj(hand="123m456m89p55z", win_tile="7p", hui="9s", winner=1, dealer=0,
             melds=[meld("kong", "7777s", 2)], situation={"after_kong": True})
    legal_win(out, {"杠上开花": 5}, [-5, 15, -5, -5])


@pytest.mark.parametrize("winner, discarder, patterns, scores", [
    (0, 2, {"庄": 1, "推倒和": 1, "门清无惠": 1}, [3, 0, -3, 0]),       # dealer wins a discard
    (1, 0, {"庄": 1, "推倒和": 1, "门清无惠": 1}, [-3, 3, 0, 0]),       # the dealer deals in
    (0, None, {"庄": 1, "推倒和": 1, "门清无惠": 1}, [9, -3, -3, -3]),  # dealer self-draws
    (1, None, {"推倒和": 1, "门清无惠": 1}, [-2, 6, -2, -2]),            # non-dealer self-draw: no 庄
])
def test_zhuang(winner, discarder, patterns, scores):
    out = bj(hand="234m567m345p88s46s", win_tile="5s", hui="9p", winner=winner, dealer=0, discarder=discarder)
    legal_win(out, patterns, scores)


@pytest.mark.parametrize("winner, discarder, patterns, scores", [
    (0, None, {"天和": 10, "门清无惠": 1}, [33, -11, -11, -11]),
    (1, None, {"地和": 8, "门清无惠": 1}, [-9, 27, -9, -9]),
    (1, 0, {"地和": 8, "庄": 1, "门清无惠": 1}, [-10, 10, 0, 0]),   # South wins East's first discard
])
def test_tianhe_dihe(winner, discarder, patterns, scores):
    out = bj(hand="234m567m345p88s46s", win_tile="5s", hui="9p", winner=winner, dealer=0, discarder=discarder,
             situation={"first_turn": True})
    legal_win(out, patterns, scores)


@pytest.mark.parametrize("winner, scores", [(1, [-8, 24, -8, -8]), (0, [27, -9, -9, -9])])
def test_four_wildcards_score_only_themselves(winner, scores):
    # 999p + the drawn 9p: four 惠牌 whatever the rest; 四惠牌 8 (+庄 for the dealer).
    out = bj(hand="999p147m258s1357z", win_tile="9p", hui="9p", winner=winner, dealer=0)
    legal_win(out, {"四惠牌": 8} if winner else {"庄": 1, "四惠牌": 8}, scores)


# ---- 互包 and 烧庄 ----

PLAIN = {"hand": "234m567m345p88s46s", "win_tile": "5s", "hui": "9p", "dealer": 0}   # F = 2 for a non-dealer


@pytest.mark.parametrize("winner, discarder, hubao, scores", [
    (1, None, [[1, 3]], [0, 6, 0, -6]),               # bound to one: it pays the whole 3F
    (1, 2, [[3, 1]], [0, 2, 0, -2]),                  # bound to one who did not deal in: it pays F, West nothing
    (1, None, [[1, 2], [3, 1]], [0, 12, -6, -6]),     # bound to two: each pays a whole settlement
    (1, 2, [[1, 2], [1, 3]], [0, 4, -2, -2]),         # the discarder among them pays only its share
    (1, 2, [[0, 3]], [0, 2, -2, 0]),                  # a pair without the winner changes nothing
])
def test_hubao(winner, discarder, hubao, scores):
    assert bj(**PLAIN, winner=winner, discarder=discarder, hubao=hubao)["scores"] == scores


def test_shaozhuang_beside_hubao_and_base():
    # F = 2 paid by North (互包); 烧庄 R=2: East pays 6, each other gets 2; base 3.
    out = bj(**PLAIN, winner=1, discarder=2, hubao=[[1, 3]], shaozhuang_rounds=2, base=3)
    assert out["shaozhuang"] == 2
    assert out["scores"] == [-18, 12, 6, 0]


# ---- the environment ----

def test_kong_replacement_is_the_first_reserve_tile_and_wins_gangshang():
    # East (dealer) holds 1111m 234p 567p 88s 46s; it kongs 1m and its replacement is wall[-2] (the first tile of
    # the reserve beside the 惠坯), a 5s: 杠上开花 5 + 庄 1 + 门清无惠 1 (惠牌 9p), 3F = 21 from the others.
    hands = {0: "1111m234p567p88s46s"}
    totals, s = play("beijing", wall_of("beijing", hands=hands, indicator="8p", tail="5s"), 0,
                     [(0, "kong 1m"), (0, "win")])
    assert s["patterns"] == {"庄": 1, "杠上开花": 5, "门清无惠": 1}
    assert totals == s["scores"] == [21, -7, -7, -7]


def legal_now(env) -> set:
    return {A.name(a) for a in env.observe(env.agent_selection)["action_mask"].nonzero()[0]}


def test_an_opened_seat_is_not_asked_about_a_discard_that_completes_it():
    # South pongs East's 1z and discards 9p; West draws 7z and discards 5s, which completes South's 46s 88s:
    # an opened hand may only self-draw (docs/RULES.md 5), so nobody is asked and North draws.
    hands = {0: "1z147m258p369s234z", 1: "11z234m567m88s46s9p", 2: "5s258m369p28s5z6z7z3m",
             3: "19m19p19s1234567z"}
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall_of("beijing", hands=hands, indicator="1p", draws="7z"), "dealer": 0})
    for seat, action in [(0, "discard 1z"), (1, "pong"), (1, "discard 9p"), (2, "discard 5s")]:
        assert env.agent_selection == f"player_{seat}", (seat, action, legal_now(env))
        env.step(A.index(action))
        if action == "pong":   # after a pong the claimer only discards: no win, no kong (docs/RULES.md 4.3)
            assert all(a.startswith("discard") for a in legal_now(env))
    assert env.agent_selection == "player_3" and "pass" not in legal_now(env)


def test_three_wildcards_held_no_discard_win_offered():
    # South holds 234m 567m 345p 4s + 999p (惠牌 9p) and waits on 4s, but with three 惠牌 only by self-draw:
    # East's 4s is not offered to South, who draws next (and may then self-draw).
    hands = {0: "4s147m258p369s234z", 1: "234m567m345p4s999p"}
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall_of("beijing", hands=hands, indicator="8p", draws="4s"), "dealer": 0})
    env.step(A.index("discard 4s"))
    assert env.agent_selection == "player_1" and "pass" not in legal_now(env) and "win" in legal_now(env)


def test_one_round_of_shaozhuang_then_a_drawn_hand():
    # East discards 7z, South, West, North each discard 7z in turn: one round; then every seat discards its draw.
    hands = {0: "7z", 1: "7z", 2: "7z", 3: "7z"}
    totals, s = play("beijing", wall_of("beijing", hands=hands, indicator="1p", draws="1m2m3m"), 0,
                     [(0, "discard 7z"), (1, "discard 7z"), (2, "discard 7z"), (3, "discard 7z")])
    assert s["draw"] is True and s["shaozhuang"] == 1
    assert totals == s["scores"] == [-3, 1, 1, 1]


def test_a_concealed_kong_between_the_rounds_discards_keeps_shaozhuang():
    # docs/RULES.md 6.4: South draws, declares a concealed kong of 1m, draws its replacement and discards 7z.
    hands = {0: "7z", 1: "1111m7z", 2: "7z", 3: "7z"}
    totals, s = play("beijing", wall_of("beijing", hands=hands, indicator="1p", draws="1s2s3s"), 0,
                     [(0, "discard 7z"), (1, "kong 1m"), (1, "discard 7z"), (2, "discard 7z"), (3, "discard 7z")])
    assert s["draw"] is True and s["shaozhuang"] == 1
    assert totals == s["scores"] == [-3, 1, 1, 1]


def test_two_rounds_of_shaozhuang():
    hands = {0: "7z6z", 1: "7z6z", 2: "7z6z", 3: "7z6z"}
    moves = [(seat, f"discard {t}") for t in ("7z", "6z") for seat in range(4)]
    totals, s = play("beijing", wall_of("beijing", hands=hands, indicator="1p", draws="1s2s3s4s5s6s7s"), 0, moves)
    assert s["draw"] is True and s["shaozhuang"] == 2
    assert totals == s["scores"] == [-6, 2, 2, 2]


def test_haidi_self_draw_of_the_last_live_tile_by_a_wildcard():
    # The live wall is wall[53:121]; its 68th tile, wall[120], is East's. East waits on 5z alone (all other 5z
    # held by South and West) and draws the 惠牌 1z (indicator 4z) there: 海底捞月 2 + 庄 1 (a 惠牌 is held).
    hands = {0: "123m456m789p234s5z7z", 1: "55z1z", 2: "5z1z", 3: "1z"}
    wall = wall_of("beijing", hands=hands, indicator="4z")
    j = next(i for i, t in enumerate(wall) if t == "1z" and i not in (15, 27, 39))   # the filler's 1z
    wall[j], wall[120] = wall[120], wall[j]
    totals, s = play("beijing", wall, 0, [(0, "discard 7z")], win_when=lambda seat, st: seat == 0)
    assert s["patterns"] == {"庄": 1, "海底捞月": 2} and s["input"]["situation"]["last_tile"] is True
    assert totals == s["scores"] == [9, -3, -3, -3]


# East discards 5m; South holds one 5m and the 惠牌 9p (indicator 8p); nobody else may claim it.
PONG_WITH_HUI = {0: "5m", 1: "5m9p147p258s1234z7z", 2: "19m19p19s1234567z", 3: "28m28p28s234567z1m"}


@pytest.mark.parametrize("fields, south", [({}, None), ({"hui_wild_in_melds": True}, {"pong", "pass"})])
def test_a_wildcard_completes_a_pong_only_under_hui_wild_in_melds(fields, south):
    env = mj_env.env(rules="beijing", **fields)
    env.reset(options={"wall": wall_of("beijing", hands=PONG_WITH_HUI, indicator="8p"), "dealer": 0})
    env.step(A.index("discard 5m"))
    assert env.agent_selection == "player_1"
    if south is None:
        assert "pass" not in legal_now(env)          # no claim: South simply draws
    else:
        assert legal_now(env) == south
        env.step(A.index("pong"))
        assert env.agent_selection == "player_1" and all(a.startswith("discard") for a in legal_now(env))


# ---- more readings: the best one scored, and the special wins' exclusions ----

@pytest.mark.parametrize("line, patterns, scores", [
    # 捉五魁 also on a self-draw
    ({"hand": "46m123p789p111s55z", "win_tile": "5m", "winner": 1}, {"捉五魁": 2, "门清无惠": 1}, [-3, 9, -3, -3]),
    # four concealed kongs are four declared melds: 大钓, and the hand stays concealed, so it may win a discard
    ({"hand": "5z", "win_tile": "5z", "winner": 1, "discarder": 2,
      "melds": [meld("concealed_kong", t) for t in ("1111m", "9999p", "2222s", "7777z")]},
     {"大钓": 2, "对对和": 2, "门清无惠": 1}, [0, 5, -5, 0]),
    # seven pairs (4) beats the standard reading 123m 123m 456m 456m 77m; both are 清一色
    ({"hand": "1122334455667m", "win_tile": "7m", "winner": 1, "discarder": 2},
     {"七对子": 4, "清一色": 6, "门清无惠": 1}, [0, 11, -11, 0]),
    # triplets (对对和 2) beat three sequences 123m 123m 123m (推倒和 1)
    ({"hand": "111m222m333m999p5z", "win_tile": "5z", "winner": 1, "discarder": 2},
     {"对对和": 2, "门清无惠": 1}, [0, 3, -3, 0]),
    # a 惠牌 of another suit (9p) read as 5m: 123m 456m 789m 234m 55m, 一条龙 and 清一色
    ({"hand": "123m456m789m234m9p", "win_tile": "5m", "winner": 1, "discarder": 2, "hui": "9p"},
     {"一条龙": 3, "清一色": 6}, [0, 9, -9, 0]),
    # the dealer's 四惠牌 on its first turn is 庄 + 四惠牌, not 天和; a non-dealer's is no 地和
    ({"hand": "999p147m258s1357z", "win_tile": "9p", "winner": 0, "hui": "9p", "situation": {"first_turn": True}},
     {"庄": 1, "四惠牌": 8}, [27, -9, -9, -9]),
    ({"hand": "999p147m258s1357z", "win_tile": "9p", "winner": 1, "hui": "9p", "situation": {"first_turn": True}},
     {"四惠牌": 8}, [-8, 24, -8, -8]),
    # a dealer's self-draw bound by 互包 to one seat: that seat pays the whole 3F
    ({"hand": "234m567m345p88s46s", "win_tile": "5s", "winner": 0, "hui": "9p", "hubao": [[0, 2]]},
     {"庄": 1, "推倒和": 1, "门清无惠": 1}, [9, 0, -9, 0]),
])
def test_best_readings_and_exclusions(line, patterns, scores):
    legal_win(bj(**{"hui": "9s", "dealer": 0, **line}), patterns, scores)


def test_a_fourth_wildcard_on_a_discard_is_no_win():
    # three 惠牌 held: self-draw only; and a discarded 惠牌 is no 四惠牌
    out = bj(hand="999p147m258s1357z", win_tile="9p", hui="9p", winner=1, dealer=0, discarder=2)
    assert out["legal"] is False


def test_a_non_dealer_win_passes_the_deal_to_the_previous_seat():
    # docs/RULES.md 2: East -> North. South self-draws 5s on its first draw (地和); the next hand's dealer is North.
    hands = {0: "1z", 1: "234m567m345p88s46s"}
    env = mj_env.env(rules="beijing", hands_per_episode=2)
    env.reset(options={"wall": wall_of("beijing", hands=hands, indicator="8p", draws="5s"), "dealer": 0})
    for seat, action in [(0, "discard 1z"), (1, "win")]:
        assert env.agent_selection == f"player_{seat}", legal_now(env)
        env.step(A.index(action))
    assert env.infos["player_1"]["settlement"]["patterns"] == {"地和": 8, "门清无惠": 1}
    assert env.agent_selection == "player_3"
    assert not any(env.terminations.values())


def test_a_concealed_kong_by_anyone_voids_dihe():
    # docs/RULES.md 6.4: East declares a concealed kong of 1m on its first turn and discards 1z; South then
    # self-draws 5s on its first draw: no 地和, only 推倒和 + 门清无惠 (2F from each, 3F = 6).
    hands = {0: "1111m1z", 1: "234m567m345p88s46s", 2: "1z", 3: "1z"}
    wall = wall_of("beijing", hands=hands, indicator="8p", draws="5s1z", tail="1s")
    totals, s = play("beijing", wall, 0, [(0, "kong 1m"), (0, "discard 1z"), (1, "win")])
    assert s["patterns"] == {"推倒和": 1, "门清无惠": 1}
    assert totals == s["scores"] == [-2, 6, -2, -2]


def test_a_concealed_hand_robs_an_added_kong_and_the_declarer_pays():
    # docs/RULES.md 4.4 and 5: West (46m 123p 789p 111s 55z, concealed) passes East's 5m, South pongs it, and later
    # adds its drawn 5m to the pong; West robs it: 捉五魁 2 + 门清无惠 1, paid by South as the discarder.
    hands = {0: "5m128m369p247s1z3z6z7z", 1: "55m1z19p19s23z56z8p8s", 2: "46m123p789p111s55z",
             3: "369m258p258s1z3z6z9m"}
    moves = [(0, "discard 5m"), (2, "pass"), (1, "pong"), (1, "discard 2z"), (2, "discard 7z"), (3, "discard 7z"),
             (0, "discard 7z"), (1, "kong 5m"), (2, "win")]
    totals, s = play("beijing", wall_of("beijing", hands=hands, indicator="3z", draws="7z7z7z5m"), 0, moves)
    assert s["patterns"] == {"捉五魁": 2, "门清无惠": 1}
    assert (s["input"]["discarder"], s["input"]["situation"]["robbed_kong"]) == (1, True)
    assert totals == s["scores"] == [0, -3, 3, 0]


def test_pong_is_asked_before_chi_and_chi_is_the_next_seats_alone():
    # docs/RULES.md 4.2: East's 5s may be ponged by West (55s) or chied by South (46s): West is asked first; when
    # West passes, South is asked with the one sequence it can form.
    hands = {0: "5s147m258p1z2z3z6z7z9s9m", 1: "46s258m369p4z5z6z7z1p", 2: "55s369m147p2z3z4z8s9s",
             3: "258m369p1z2z3z4z5z6z7z"}
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall_of("beijing", hands=hands, indicator="8p"), "dealer": 0})
    env.step(A.index("discard 5s"))
    assert (env.agent_selection, legal_now(env)) == ("player_2", {"pong", "pass"})
    env.step(A.index("pass"))
    assert (env.agent_selection, legal_now(env)) == ("player_1", {"chi 456s", "pass"})
    env.step(A.index("chi 456s"))
    assert env.agent_selection == "player_1" and all(a.startswith("discard") for a in legal_now(env))


@pytest.mark.parametrize("line", [
    {"hand": "1111m234p567s789s", "win_tile": "1m"},          # a fifth 1m
    {"hand": "1111m234p567s789s", "win_tile": "0m"},          # no such tile
    {"hand": "234m567m345p88s4s", "win_tile": "5s"},          # 11 tiles without melds
])
def test_malformed_lines_are_errors(line):
    out = bj(**line, hui="9p", winner=1, dealer=0)
    assert set(out) == {"error"} and out["error"]


def test_a_win_on_the_fourth_tile_of_a_kind_through_a_wildcard_is_a_fifth_copy():
    # docs/RULES.md 5: a 惠牌 may be a fifth copy: 1111m + the self-drawn 惠牌 9p completes only as 111m + 11m,
    # the 惠牌 read as a fifth 1m, beside 234p 567s 789s: a legal 推倒和.
    legal_win(bj(hand="1111m234p567s789s", win_tile="9p", hui="9p", winner=1, dealer=0), {"推倒和": 1},
              [-1, 3, -1, -1])
