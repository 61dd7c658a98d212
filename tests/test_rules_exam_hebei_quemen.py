"""A black-box rules exam of the ``hebei`` and ``quemen`` rule sets and the **Decision** fields, written from
docs/RULES.md and docs/INTERFACES.md alone before the implementation was read: every expected figure below was
worked out by hand from the spec (base score by win type, bonus fan X, who pays on a discard win, 缺一门, 报听
doubling, kong payments, the kept stacks, the fixed readings of docs/RULES.md 6.4), then checked through the
public interfaces only: the calculator (``mj_env.score.answer``, one line of ``python -m mj_env.score``) and the
PettingZoo AEC env (``mj_env.env``) on walls laid out with ``tests/walls.build_wall`` (through ``wall_of`` and
``play`` of tests/test_audit_hebei_quemen_play.py). No figure here was taken from the code's output.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from scenario_helpers import TWO_ROBBERS, TWO_ROBBERS_MOVES
from test_audit_hebei_quemen_play import play, wall_of

import mj_env
from mj_env import actions as A
from mj_env.score import answer


def calc(rules="hebei", **fields) -> dict:
    """The calculator's answer to one line (docs/INTERFACES.md 1)."""
    return answer(json.dumps({"rules": rules, **fields}))


def pong(tiles: str, frm: int) -> dict:
    return {"type": "pong", "tiles": tiles, "from": frm}


# A concealed hebei hand with no bonus pattern but 门清 (mixed suits, a pair of 5z): 123m456m789p234s55z.
PLAIN = {"hand": "123m456m789p234s5z", "win_tile": "5z"}
# The same shape opened by a pong of 7s, no bonus pattern at all: X = 0.
OPENED = {"hand": "123m456m89p55z", "melds": [pong("777s", 2)], "win_tile": "7p"}


# ---- hebei: the base score by win type, and who pays X (docs/RULES.md 6.2) ----

@pytest.mark.parametrize("winner, discarder, scores", [
    (0, None, [18, -6, -6, -6]),   # dealer self-draws: each pays 4 + X(2)
    (1, None, [-6, 14, -4, -4]),   # non-dealer self-draws: dealer 4 + 2, the others 2 + 2
    (1, 2, [-2, 11, -7, -2]),      # non-dealer on a non-dealer's discard, X > 0: 5 + 2, the others 2
    (0, 1, [14, -10, -2, -2]),     # dealer on a discard: 8 + 2, the others 2
    (2, 0, [-8, -2, 12, -2]),  # non-dealer on the dealer's discard: 6 + 2, others 2
])
def test_hebei_base_by_win_type_with_menqing(winner, discarder, scores):
    out = calc(**PLAIN, winner=winner, dealer=0, discarder=discarder)
    assert out["legal"] is True, out
    assert out["patterns"] == {"门清": 2} and out["fan"] == 2
    assert out["scores"] == scores


@pytest.mark.parametrize("winner, discarder, scores", [
    (1, 2, [0, 5, -5, 0]),    # small win on a discard: the discarder alone pays the base
    (1, 0, [-6, 6, 0, 0]),
    (0, 2, [8, 0, -8, 0]),
    (3, 1, [0, -5, 0, 5]),
])
def test_hebei_opened_hand_wins_on_a_discard_and_only_the_discarder_pays(winner, discarder, scores):
    out = calc(**OPENED, winner=winner, dealer=0, discarder=discarder)
    assert out["legal"] is True, out
    assert out["patterns"] == {} and out["fan"] == 0
    assert out["scores"] == scores


def test_hebei_base_multiplies_every_score():
    out = calc(**OPENED, winner=1, dealer=0, discarder=2, base=3)
    assert out["scores"] == [0, 15, -15, 0]


def test_hebei_patterns_are_never_beijings():
    out = calc(**PLAIN, winner=0, dealer=0)
    assert "庄" not in out["patterns"] and "推倒和" not in out["patterns"]


# ---- hebei bonus patterns (X) ----

@pytest.mark.parametrize("hand, win, melds, patterns", [
    ("19m19p19s1234567z", "7z", [], {"十三幺": 10, "门清": 2}),
    ("19m19p19s1234567z", "5z", [], {"十三幺": 10, "门清": 2}),
    ("123m345m567m789m9m", "9m", [], {"清一色": 3, "门清": 2}),
    ("123m345m567m111z9m", "9m", [], {"混一色": 2, "门清": 2}),
    ("111z222z333z555z7z", "7z", [], {"清风": 3, "碰碰胡": 3, "门清": 2}),
    ("123m456m789m234p5z", "5z", [], {"一条龙": 2, "门清": 2}),
    ("123m456p789s111z5z", "5z", [], {"花龙": 5, "门清": 2}),
    ("11m22m33p44p55s66s7z", "7z", [], {"七对": 2, "门清": 2}),
    ("1111m22m33p44p55s6s", "6s", [], {"豪华七对": 8, "门清": 2}),
    ("1111m2222m33p44p5s", "5s", [], {"双豪华": 16, "门清": 2}),
    ("1111m2222m3333p4p", "4p", [], {"三豪华": 32, "门清": 2}),
    ("46m123p789p111s55z", "5m", [], {"捉五": 5, "门清": 2}),
    ("5p", "5p", [pong("111m", 0), pong("999p", 2), pong("222s", 3), pong("777z", 0)], {"大吊车": 2, "碰碰胡": 3}),
    ("111m999p777z5z", "5z", [pong("222s", 3)], {"碰碰胡": 3}),
    # four concealed kongs are four declared melds and keep the hand 门清
    ("5p", "5p", [{"type": "concealed_kong", "tiles": t} for t in ("1111m", "9999p", "2222s", "7777z")],
     {"门清": 2, "碰碰胡": 3, "大吊车": 2}),
    ("1z", "1z", [pong("222z", 2), pong("333z", 3), pong("555z", 0), pong("777z", 2)],
     {"清风": 3, "碰碰胡": 3, "大吊车": 2}),
    # the reading that scores most: seven pairs (2) over 123m 123m 456m 456m 77m
    ("1122m3344m5566m7m", "7m", [], {"门清": 2, "清一色": 3, "七对": 2}),
    ("111m222m333m444m5m", "5m", [], {"门清": 2, "碰碰胡": 3, "清一色": 3}),
])
def test_hebei_bonus_patterns(hand, win, melds, patterns):
    out = calc(hand=hand, win_tile=win, melds=melds, winner=1, dealer=0, discarder=2)
    assert out["legal"] is True, out
    assert out["patterns"] == patterns
    x = sum(patterns.values())
    assert out["fan"] == x
    assert out["scores"] == [-x, 5 + 3 * x, -5 - x, -x]


def test_hebei_zhuowu_needs_5m_to_be_the_only_winning_tile():
    # 4666m waits on 5m (46m + 66m) and on 4m (44m + 666m): 5m is not the only winning tile.
    out = calc(hand="4666m123p789p111s", win_tile="5m", winner=1, dealer=0, discarder=2)
    assert out["legal"] is True, out
    assert "捉五" not in out["patterns"]


def test_hebei_concealed_kong_keeps_menqing():
    out = calc(hand="123m456m789p5z", win_tile="5z", melds=[{"type": "concealed_kong", "tiles": "2222s"}],
               winner=1, dealer=0, discarder=2)
    assert out["patterns"] == {"门清": 2}


@pytest.mark.parametrize("situation, discarder, patterns", [
    ({"robbed_kong": True}, 2, {"抢杠胡": 2}),
    ({"after_kong": True}, None, {"杠上开花": 2}),
    ({"last_tile": True}, None, {"海底捞月": 2}),
    ({"last_tile": True}, 2, {"海底捞月": 2}),
])
def test_hebei_situation_patterns(situation, discarder, patterns):
    melds = [pong("777s", 2)] if "after_kong" not in situation else [{"type": "kong", "tiles": "7777s", "from": 2}]
    out = calc(hand="123m456m89p55z", win_tile="7p", melds=melds, winner=1, dealer=0, discarder=discarder,
               situation=situation)
    assert out["legal"] is True, out
    assert out["patterns"] == patterns


def test_hebei_thirteen_orphans_needs_a_dragon_as_its_fourteenth_tile():
    assert calc(hand="19m19p19s1234567z", win_tile="1z", winner=1, dealer=0, discarder=2)["legal"] is False


def test_thirteen_orphans_is_no_win_in_beijing_or_quemen():
    for rules in ("beijing", "quemen"):
        out = calc(rules, hand="19m19p19s1234567z", win_tile="7z", winner=1, dealer=0, discarder=2)
        assert out["legal"] is False, (rules, out)


# ---- quemen (docs/RULES.md 6.3) ----

@pytest.mark.parametrize("hand, win, melds, patterns", [
    ("123m456m789p111z5z", "5z", [], {"平胡": 1}),
    ("123m456m789m111z5z", "5z", [], {"混一色": 1}),
    ("111m222m333p444p5z", "5z", [], {"碰碰胡": 2}),
    ("111m333m555m111z5z", "5z", [], {"碰碰胡": 2, "混一色": 1}),
    ("11m22m33p44p55p66p7z", "7z", [], {"七对": 2}),
    ("11m22m33m44m55m66m7z", "7z", [], {"七对": 2, "混一色": 1}),
    ("11m22m33m44m55m66m7m", "7m", [], {"七对": 2, "清一色": 3}),
    ("123m234m345m678m9m", "9m", [], {"清一色": 3}),
    ("111m333m555m777m9m", "9m", [], {"清碰": 4}),
    ("123m456m5z", "5z", [pong("777p", 2), pong("111z", 3)], {"平胡": 1}),
    ("111m999m777m5m", "5m", [pong("222m", 2)], {"清碰": 4}),
    ("1111m22m33m44m55m6m", "6m", [], {"七对": 2, "清一色": 3}),   # quemen has no 豪华七对
    ("5p", "5p", [pong("111m", 0), pong("999m", 2), pong("222m", 3), pong("777z", 0)], {"碰碰胡": 2}),
])
def test_quemen_shape_patterns(hand, win, melds, patterns):
    out = calc("quemen", hand=hand, win_tile=win, melds=melds, winner=1, dealer=0, discarder=2)
    assert out["legal"] is True, out
    assert out["patterns"] == patterns
    f = sum(patterns.values())
    assert out["fan"] == f and out["scores"] == [0, f, -f, 0]


@pytest.mark.parametrize("hand, win, melds", [
    ("123m456p789s111z5z", "5z", []),
    ("11m22m33p44p55s66s7z", "7z", []),
    ("123m456m5z", "5z", [pong("777p", 2), pong("111s", 3)]),
    ("123m456m77s55z", "5z", [pong("777p", 2)]),
])
def test_quemen_needs_a_missing_suit_melds_included(hand, win, melds):
    out = calc("quemen", hand=hand, win_tile=win, melds=melds, winner=1, dealer=0, discarder=2)
    assert out["legal"] is False, out


def test_quemen_self_draw_each_pays_the_total_and_the_dealer_gets_no_more():
    assert calc("quemen", hand="123m456m789p111z5z", win_tile="5z", winner=0, dealer=0)["scores"] == [3, -1, -1, -1]
    assert calc("quemen", hand="123m456m789p111z5z", win_tile="5z", winner=2, dealer=0)["scores"] == [-1, -1, 3, -1]


@pytest.mark.parametrize("situation, winner, discarder, extra", [
    ({"after_kong": True}, 1, None, {"杠上开花": 1}),
    ({"last_tile": True}, 1, None, {"海底捞月": 1}),
    ({"last_tile": True}, 1, 2, {}),
    ({"first_turn": True}, 0, None, {"天胡": 3}),
    ({"first_turn": True}, 1, None, {"地胡": 2}),
    ({"first_turn": True}, 1, 0, {}),
])
def test_quemen_additive_patterns(situation, winner, discarder, extra):
    melds = [{"type": "concealed_kong", "tiles": "7777p"}] if "after_kong" in situation else []
    hand = "123m456m111z5z" if melds else "123m456m789p111z5z"
    out = calc("quemen", hand=hand, win_tile="5z", melds=melds, winner=winner, dealer=0, discarder=discarder,
               situation=situation)
    assert out["legal"] is True, out
    assert out["patterns"] == {"平胡": 1, **extra}


def test_quemen_gangshang_kaihua_on_an_exposed_kongs_replacement():
    out = calc("quemen", hand="123m456m111z2z", win_tile="2z", melds=[{"type": "kong", "tiles": "5555p", "from": 2}],
               winner=1, dealer=0, situation={"after_kong": True})
    assert out["patterns"] == {"平胡": 1, "杠上开花": 1} and out["scores"] == [-2, 6, -2, -2]


def test_quemen_flowers_add_one_each():
    out = calc("quemen", hand="123m456m789p111z5z", win_tile="5z", winner=1, dealer=0, discarder=2, flowers=3)
    assert out["fan"] == 4 and out["scores"] == [0, 4, -4, 0]


@pytest.mark.parametrize("discarder, scores", [(None, [-2, 6, -2, -2]), (2, [0, 2, -2, 0])])
def test_quemen_ting_doubles_scores_not_fan(discarder, scores):
    out = calc("quemen", hand="123m456m789p111z5z", win_tile="5z", winner=1, dealer=0, discarder=discarder,
               ting=True)
    assert out["fan"] == 1 and out["patterns"] == {"平胡": 1}
    assert out["scores"] == scores


def test_quemen_and_hebei_win_on_a_discard_after_a_pong():
    assert calc("quemen", hand="123m456m5z", win_tile="5z", melds=[pong("777p", 2), pong("111z", 3)],
                winner=1, dealer=0, discarder=2)["legal"] is True
    assert calc("beijing", **OPENED, winner=1, dealer=0, discarder=2, hui="9s")["legal"] is False


# ---- Decision fields as calculator rule fields (docs/INTERFACES.md 1, the object form of "rules") ----

def test_hebei_discard_bonus_all_pay_off_leaves_the_others_out_of_a_discard_win_only():
    rules = {"name": "hebei", "discard_bonus_all_pay": False}
    assert calc(rules, **PLAIN, winner=1, dealer=0, discarder=2)["scores"] == [0, 7, -7, 0]
    # a self-draw is not a discard win: every payer still pays base + X
    assert calc(rules, **PLAIN, winner=1, dealer=0)["scores"] == [-6, 14, -4, -4]
    # a robbed kong's declarer pays as the discarder: X = 门清 2 + 抢杠胡 2, alone with the field off
    robbed = {**PLAIN, "winner": 1, "dealer": 0, "discarder": 2, "situation": {"robbed_kong": True}}
    assert calc(rules, **robbed)["scores"] == [0, 9, -9, 0]
    assert calc("hebei", **robbed)["scores"] == [-4, 17, -9, -4]


def test_hebei_thirteen_orphans_fields():
    line = {"hand": "19m19p19s1234567z", "winner": 1, "dealer": 0, "discarder": 2}
    assert calc({"name": "hebei", "thirteen_orphans": False}, **line, win_tile="5z")["legal"] is False
    out = calc({"name": "hebei", "orphans_extra_dragon": False}, **line, win_tile="1z")
    assert out["legal"] is True and out["patterns"] == {"十三幺": 10, "门清": 2}


def test_quemen_without_lack_suit_wins_with_three_suits():
    out = calc({"name": "quemen", "lack_suit": False}, hand="123m456p789s111z5z", win_tile="5z",
               winner=1, dealer=0, discarder=2)
    assert out["legal"] is True and out["patterns"] == {"平胡": 1}


def test_beijing_discard_win_concealed_only_off_lets_an_opened_hand_win_a_discard():
    out = calc({"name": "beijing", "discard_win_concealed_only": False}, **OPENED, hui="1z",
               winner=1, dealer=0, discarder=2)
    assert out["legal"] is True, out


# ---- the env: Decision fields in play (docs/INTERFACES.md 2, walls from tests/walls.py) ----

# South (seat 1: a pong of 7z, no bonus: X = 0) and West (seat 2: 门清, X = 2) can both win on North's 3s.
TWO_WINNERS = {"hands": {0: "147m258p369s1234z7z", 1: "77z123m456p678s2z3s", 2: "234m567m345p99p2s4s",
                         3: "3s58m17p15s5z6z9m3p8p6z"}, "draws": "1s9m"}
TO_THE_3S = [(0, "discard 7z"), (1, "pong"), (1, "discard 2z"), (2, "discard 1s"), (3, "discard 3s")]


def same_as_the_calculator(s):
    """Each win of a settlement, piped to the calculator, gives back its figures (docs/INTERFACES.md 2); where kongs
    are paid the calculator's scores are the win's ``hand_scores`` (docs/RULES.md 6.4)."""
    for w in s.get("wins", [s]):
        again = answer(json.dumps(w["input"]))
        assert {k: again[k] for k in ("legal", "fan", "patterns")} == {k: w[k] for k in ("legal", "fan", "patterns")}
        assert again["scores"] == w.get("hand_scores", w["scores"])


@pytest.mark.parametrize("moves, scores", [
    ([(1, "win")], [0, 5, 0, -5]),                # the first in play order from North wins; West is not asked
    ([(1, "pass"), (2, "win")], [-2, -2, 11, -7]),
], ids=["first-accepts", "first-passes"])
def test_hebei_with_one_winner_per_discard(moves, scores):
    totals, s = play("hebei", wall_of("hebei", **TWO_WINNERS), 0, TO_THE_3S + moves, multiple_winners=False)
    assert totals == s["scores"] == scores
    assert "wins" not in s and s["input"]["rules"] == "hebei"  # multiple_winners does not bear on the score
    same_as_the_calculator(s)


def test_hebei_two_winners_with_discard_bonus_all_pay_off():
    # South: North pays 5. West (X = 2): North pays 5 + 2, nobody else pays.
    totals, s = play("hebei", wall_of("hebei", **TWO_WINNERS), 0, TO_THE_3S + [(1, "win"), (2, "win")],
                     discard_bonus_all_pay=False)
    assert [w["scores"] for w in s["wins"]] == [[0, 5, 0, -5], [0, 0, 7, -7]]
    assert totals == s["scores"] == [0, 5, 7, -12]
    assert all(w["input"]["rules"] == {"name": "hebei", "discard_bonus_all_pay": False} for w in s["wins"])
    same_as_the_calculator(s)


# South (123m456m789m 11z, 46p) and West (111s222s333s 55z, 46p) both wait on 5p, each lacking a suit: 平胡 1.
QUEMEN_TWO = {"hands": {0: "258m147p369s2z3z4z6z7z", 1: "123m456m789m46p11z", 2: "111s222s333s46p55z",
                        3: "5p1m4m7m2s5s8s3z4z6z7z9p9p"}, "draws": "3z4z2z"}
QUEMEN_TO_THE_5P = [(0, "discard 7z"), (1, "discard 3z"), (2, "discard 4z"), (3, "discard 5p")]


@pytest.mark.parametrize("fields, moves, scores", [
    ({}, [(1, "win")], [0, 1, 0, -1]),                                        # default: one winner
    ({"multiple_winners": True}, [(1, "win"), (2, "win")], [0, 1, 1, -2]),   # each settles with North
], ids=["default", "multiple_winners"])
def test_quemen_winners_on_one_discard(fields, moves, scores):
    totals, s = play("quemen", wall_of("quemen", **QUEMEN_TWO), 0, QUEMEN_TO_THE_5P + moves, **fields)
    assert totals == s["scores"] == scores
    same_as_the_calculator(s)


@pytest.mark.parametrize("rotation, next_dealer", [("next", 1), ("previous", 3)])
def test_hebei_two_non_dealer_winners_pass_the_deal_by_dealer_rotation(rotation, next_dealer):
    # docs/RULES.md 2: hebei passes the deal to dealer + 1; the field turns it to dealer - 1. The next hand
    # starts with its dealer to act (14 tiles).
    env = mj_env.env(rules="hebei", hands_per_episode=2, dealer_rotation=rotation)
    env.reset(options={"wall": wall_of("hebei", **TWO_WINNERS), "dealer": 0})
    for seat, action in TO_THE_3S + [(1, "win"), (2, "win")]:
        assert env.agent_selection == f"player_{seat}"
        env.step(A.index(action))
    assert env.agent_selection == f"player_{next_dealer}"
    assert not any(env.terminations.values())


def first_to_act(rules, seed, **fields) -> int:
    env = mj_env.env(rules=rules, **fields)
    env.reset(seed=seed)
    return int(env.agent_selection[-1])


@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_the_first_dealer_is_drawn_from_the_seed(rules):
    # docs/RULES.md 2: hebei and quemen choose the first dealer at random (seeded); beijing's is East.
    dealers = [first_to_act(rules, seed) for seed in range(12)]
    assert len(set(dealers)) > 1
    assert dealers == [first_to_act(rules, seed) for seed in range(12)]
    assert {first_to_act(rules, seed, first_dealer="east") for seed in range(6)} == {0}
    assert {first_to_act("beijing", seed) for seed in range(6)} == {0}


@pytest.mark.parametrize("rules, fields, scores", [
    ("hebei", {}, [0, 0, 0, 0]),                                 # kongs void in a drawn hand
    ("hebei", {"kong_payments_on_draw": True}, [6, -2, -2, -2]),
    ("quemen", {}, [3, -1, -1, -1]),                             # quemen kongs are paid drawn or won
    ("quemen", {"kong_payments_on_draw": False}, [0, 0, 0, 0]),
])
def test_a_concealed_kong_in_a_drawn_hand(rules, fields, scores):
    # East declares a concealed kong of 1m at once; nobody wins, every seat discards what it draws.
    totals, s = play(rules, wall_of(rules, hands={0: "1111m"}), 0, [(0, "kong 1m")], **fields)
    assert s["draw"] is True
    assert totals == s["scores"] == scores


def test_quemen_after_ting_only_the_drawn_tile_or_a_win():
    # docs/RULES.md 5: after 报听 the hand may not change: on its turn the seat discards the tile just drawn (or
    # wins); on others' discards it makes no claim but a win. South holds 123m 456m 78m 11z 22z 5p, draws 2z and
    # declares 报听 discarding 5p (waiting on 6m / 9m): the only 报听 that leaves a wait (docs/RULES.md 6.4).
    hands = {0: "1z258p369s34567z1s8s", 1: "123m456m78m11z22z5p", 2: "147p369m7s3m5z6z4s4s8p",
             3: "1z5m369p258s3z4z7z8p9p"}
    env = mj_env.env(rules="quemen")
    env.reset(options={"wall": wall_of("quemen", hands=hands, draws="2z3p3s6p2z1p"), "dealer": 0})

    def legal():
        return {A.name(a) for a in env.observe(env.agent_selection)["action_mask"].nonzero()[0]}

    def step(seat, action):
        assert env.agent_selection == f"player_{seat}", (seat, action, legal())
        env.step(A.index(action))

    step(0, "discard 1z")
    assert legal() == {"pong", "pass"}          # before 报听 South may pong East's 1z
    step(1, "pass")
    assert {a for a in legal() if a.startswith("ting")} == {"ting 5p"}
    step(1, "ting 5p")
    step(2, "discard 3p")
    step(3, "discard 1z")                      # South holds 11z but makes no claim after 报听: East draws
    step(0, "discard 6p")
    assert legal() == {"discard 2z"}           # South drew its fourth 2z: no kong, no other discard after 报听
    step(1, "discard 2z")
    step(2, "discard 9m")
    assert legal() == {"win", "pass"}
    step(1, "win")
    s = env.infos["player_1"]["settlement"]
    assert s["patterns"] == {"混一色": 1} and s["fan"] == 1 and s["input"]["ting"] is True
    assert s["scores"] == [0, 2, -2, 0]        # doubled after 报听


def test_hebei_base_multiplies_the_win_and_the_kong_payments():
    # docs/RULES.md 6: points = fan x base, kong payments (in fan, docs/RULES.md 6.2) included. West kongs East's
    # 5z and wins on the replacement 1z: X = 杠上开花 2 + 混一色 2 + 一条龙 2 = 6; East pays 4 + 6 and 3 for the
    # kong, South and North 2 + 6 each; all doubled at base 2. The input keeps the preset name, base beside it.
    hands = {0: "147m258p369s1234z5z", 1: "258m147p258s2346z", 2: "555z123m456m789m1z", 3: "369m369p147s2347z"}
    totals, s = play("hebei", wall_of("hebei", hands=hands, tail="1z"), 0,
                     [(0, "discard 5z"), (2, "kong"), (2, "win")], base=2)
    assert (s["hand_scores"], s["kong_scores"]) == ([-20, -16, 52, -16], [-6, 0, 6, 0])
    assert totals == s["scores"] == [-26, -16, 58, -16]
    assert (s["input"]["rules"], s["input"]["base"]) == ("hebei", 2)
    same_as_the_calculator(s)


def test_quemen_settlement_input_names_a_scoring_field_that_differs():
    # docs/RULES.md 6.4: the input's rules are the preset name unless a field that bears on the score differs.
    # Without 缺一门 South wins North's 3s with three suits (77z pong, 123m 456p 678s 3s): 平胡 1.
    totals, s = play("quemen", wall_of("quemen", **TWO_WINNERS), 0, TO_THE_3S + [(1, "win")], lack_suit=False)
    assert s["input"]["rules"] == {"name": "quemen", "lack_suit": False}
    assert s["patterns"] == {"平胡": 1} and totals == s["scores"] == [0, 1, 0, -1]
    same_as_the_calculator(s)


def test_hebei_a_concealed_kong_is_never_robbed_even_by_thirteen_orphans():
    # South waits on 7z with thirteen orphans (19m 19p 19s 1234z 55z 6z); East declares a concealed kong of 7z:
    # no seat is asked (docs/RULES.md 4.4), East draws its replacement and plays on.
    hands = {0: "7777z2345m678m258p", 1: "19m19p19s1234z55z6z"}
    env = mj_env.env(rules="hebei")
    env.reset(options={"wall": wall_of("hebei", hands=hands, tail="9s"), "dealer": 0})
    env.step(A.index("kong 7z"))
    assert env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    assert mask[A.index("discard 9s")] and not mask[A.index("pass")]


@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_no_chi_is_ever_offered_and_a_hand_settles_to_zero(rules):
    # docs/RULES.md 4.2: chi is beijing's alone. Seeded random legal play of a whole hand.
    env = mj_env.env(rules=rules)
    rng = np.random.default_rng(7)
    for seed in range(3):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter(max_iter=2000):
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            assert not any(A.name(a).startswith("chi") for a in legal)
            env.step(int(rng.choice(legal)))
        assert sum(totals.values()) == 0


# South (123m 456p 789p 33s 55z) may win North's 3s or pong it; West (234m 567m 345p 99p 2s4s) may win it.
WIN_OR_PONG = {"hands": {0: "147m258p369s1234z7z", 1: "123m456p789p33s55z", 2: "234m567m345p99p24s",
                         3: "3s58m17p15s5z6z9m3p8p6z"}, "draws": "1s9m2p"}
TO_NORTHS_3S = [(0, "discard 7z"), (1, "discard 1s"), (2, "discard 9m"), (3, "discard 3s")]


@pytest.mark.parametrize("west, scores", [("win", [-2, -2, 11, -7]), ("pass", None)])
def test_hebei_a_seat_that_pongs_instead_of_winning_waits_for_the_later_winner(west, scores):
    # docs/RULES.md 4.2: South is asked once with every claim it has (win, pong); a pong is below a win, so West,
    # who may win, is still asked. West's win (门清: North 5 + 2, East and South 2) ends the hand and the pong
    # is not made; if West passes, South's pong is carried out and South discards.
    env = mj_env.env(rules="hebei")
    env.reset(options={"wall": wall_of("hebei", **WIN_OR_PONG), "dealer": 0})

    def legal():
        return {A.name(a) for a in env.observe(env.agent_selection)["action_mask"].nonzero()[0]}

    for seat, action in TO_NORTHS_3S:
        assert env.agent_selection == f"player_{seat}"
        env.step(A.index(action))
    assert (env.agent_selection, legal()) == ("player_1", {"win", "pong", "pass"})
    env.step(A.index("pong"))
    assert (env.agent_selection, legal()) == ("player_2", {"win", "pass"})
    env.step(A.index(west))
    if scores is None:
        assert env.agent_selection == "player_1" and all(a.startswith("discard") for a in legal())
    else:
        s = env.infos["player_2"]["settlement"]
        assert s["input"]["winner"] == 2 and s["scores"] == scores and all(env.terminations.values())


@pytest.mark.parametrize("fields, next_seat", [({}, "player_3"), ({"multiple_winners": False}, None)])
def test_hebei_robbers_of_one_added_kong_follow_multiple_winners(fields, next_seat):
    # South's added kong of 5m can be robbed by West and North (tests/scenario_helpers.TWO_ROBBERS). hebei asks
    # every robber (docs/RULES.md 4.2, 4.4); with one winner per discard the first to accept (West) ends the hand.
    env = mj_env.env(rules="hebei", **fields)
    env.reset(options={"wall": wall_of("hebei", **TWO_ROBBERS), "dealer": 0})
    for seat, action in TWO_ROBBERS_MOVES + [(2, "win")]:
        assert env.agent_selection == f"player_{seat}"
        env.step(A.index(action))
    if next_seat is not None:
        assert env.agent_selection == next_seat
        assert env.observe(next_seat)["action_mask"].nonzero()[0].tolist() == sorted([A.index("win"), A.index("pass")])
    else:
        s = env.infos["player_2"]["settlement"]
        assert s["patterns"] == {"门清": 2, "抢杠胡": 2} and s["input"]["discarder"] == 1
        assert s["scores"] == [-4, -9, 17, -4] and all(env.terminations.values())
