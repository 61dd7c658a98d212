"""Kong payments (docs/RULES.md 6.2, 6.3, 6.4) and matches (docs/RULES.md 2, 6.1; ``hands_per_episode`` > 1)
through the AEC env and the vector env, on hand-built walls, with every expected figure worked out by hand
from docs/RULES.md (an outside audit; these pin what it checked and found right)."""
from __future__ import annotations

import numpy as np
import pytest
from scenario_helpers import ROB, ROB_MOVES
from walls import build_wall, deals_first, four_hui_wall

import mj_env
import mj_env.engine as engine_module
from mj_env.actions import PASS, WIN, index
from mj_env.vector import MahjongVectorEnv

# The dealer declares a concealed kong of 5m and discards 4z; seat 2 makes an exposed kong of it and
# self-draws 3m (hebei) or 3s (quemen) on the replacement: 杠上开花 with one kong of each payer kind.
KONGS_HEBEI = {0: "5555m123p789p77z4z1z", 1: "11m22m33m88s99s5z6z3z", 2: "444z789p789s12m55s",
               3: "12345p234567s9p6z"}
KONGS_QUEMEN = {**KONGS_HEBEI, 2: "444z123p789p12s55s"}  # two suits (缺门)
KONG_MOVES = [(0, "kong 5m"), (0, "discard 4z"), (2, "kong"), (2, "win")]


def _play(e, moves):
    """Play (seat, action) moves; returns every seat's points summed over the steps."""
    total = np.zeros(4, dtype=np.int64)
    for seat, act in moves:
        assert e.agent_selection == f"player_{seat}", (e.agent_selection, seat, act)
        e.step(index(act))
        total += [e.rewards[a] for a in e.possible_agents]
    return total


def _env(rules, hands, tail="", dealer=0, hands_per_episode=1, draws="", **kw):
    layout = {"indicator": "9s"} if rules == "beijing" else {}
    layout["draws"] = draws
    e = mj_env.env(rules=rules, hands_per_episode=hands_per_episode, **kw)
    e.reset(options={"wall": build_wall(rules, hands=hands, tail=tail, dealer=dealer, **layout), "dealer": dealer})
    return e


# (hand_scores, kong_scores) at base 1, by hand from docs/RULES.md:
# hebei: non-dealer self-draw, base dealer 4 / others 2, X = 杠上开花 2 (no 门清: an exposed kong), each pays
#   base + X: [-6, -4, 14, -4]; concealed kong, each other 2: [6, -2, -2, -2]; exposed kong, the discarder 3:
#   [-3, 0, 3, 0].
# quemen: 平胡 1 + 杠上开花 1 = 2, each other pays 2: [-2, -2, 6, -2]; concealed kong each other 1, exposed kong
#   the discarder 1.
KONG_CASES = {"hebei": (KONGS_HEBEI, "3z3m", [-6, -4, 14, -4], [3, -2, 1, -2]),
              "quemen": (KONGS_QUEMEN, "3z3s", [-2, -2, 6, -2], [2, -1, 0, -1])}


@pytest.mark.parametrize("base", [1, 3])
@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_each_kong_is_paid_by_whom_the_rules_name_times_base(rules, base):
    hands, tail, hand_scores, kong_scores = KONG_CASES[rules]
    e = _env(rules, hands, tail=tail, base=base)
    total = _play(e, KONG_MOVES)
    s = e.infos["player_0"]["settlement"]
    assert s["hand_scores"] == [base * x for x in hand_scores]
    assert s["kong_scores"] == [base * x for x in kong_scores]
    assert s["scores"] == total.tolist() == [base * (a + b) for a, b in zip(hand_scores, kong_scores)]
    assert all(e.terminations.values())


@pytest.mark.parametrize("rules, hand_scores, kong_scores", [
    # hebei: dealer self-draw 4 each + X (门清 2: concealed kongs allowed, 杠上开花 2); two concealed kongs, 2 + 2 each
    ("hebei", [24, -8, -8, -8], [12, -4, -4, -4]),
    # quemen: 平胡 1 + 杠上开花 1 (no 天胡 after kongs), each pays 2; two concealed kongs, 1 + 1 each
    ("quemen", [6, -2, -2, -2], [6, -2, -2, -2]),
])
def test_several_kongs_by_one_seat_are_each_paid(rules, hand_scores, kong_scores):
    e = _env(rules, {0: "5555m6666m123p77z4z"}, tail="4z4z", hands_per_episode=2)
    total = _play(e, [(0, "kong 5m"), (0, "kong 6m"), (0, "win")])
    s = e.infos["player_1"]["settlement"]
    assert (s["hand_scores"], s["kong_scores"]) == (hand_scores, kong_scores)
    assert total.tolist() == [a + b for a, b in zip(hand_scores, kong_scores)]
    # the dealer won: the dealer stays, and the match goes on
    assert int(e.unwrapped.engine.state.dealer[0]) == 0 and not any(e.terminations.values())


def _play_to_a_draw(e):
    """Pass every claim and discard the tile just drawn until the hand ends; returns the points."""
    st = e.unwrapped.engine.state
    start = int(st.hands_played[0])
    total = np.zeros(4, dtype=np.int64)
    while int(st.hands_played[0]) == start:
        obs, _, term, _, _ = e.last()
        assert not term
        mask = obs["action_mask"]
        drawn = np.flatnonzero(obs["observation"][12])
        act = PASS if mask[PASS] else int(drawn[0]) if len(drawn) and mask[drawn[0]] else int(np.flatnonzero(mask[:34])[0])
        e.step(act)
        total += [e.rewards[a] for a in e.possible_agents]
    return total


@pytest.mark.parametrize("rules, paid", [("hebei", [0, 0, 0, 0]), ("quemen", [3, -1, -1, -1])])
def test_a_drawn_hand_with_a_kong_keeps_the_dealer_and_pays_kongs_only_under_quemen(rules, paid):
    """docs/RULES.md 6.2: hebei kongs are void in a drawn hand; 6.3: quemen's are settled drawn or won;
    2: the dealer stays after a drawn hand."""
    e = _env(rules, {0: "5555m123p789p1234z"}, hands_per_episode=2)
    e.step(index("kong 5m"))
    total = _play_to_a_draw(e)
    s = e.infos["player_2"]["settlement"]
    assert s["draw"] is True and s["scores"] == total.tolist() == paid
    assert ("kong_scores" in s) == (rules == "quemen")
    assert int(e.unwrapped.engine.state.dealer[0]) == 0 and not any(e.terminations.values())


# beijing, dealer 3 (惠牌 9s): the dealer lets 1z go and the three others follow with 1z (one round of 烧庄), then
# the dealer self-draws 5s: 庄 1 + 门清无惠 1 + 一条龙 3 = 5, +15 / -5 each; 烧庄 1 round: dealer -3, others +1.
SZ_HANDS = {3: "123m456m789m123p5s1z", **{s: "1z2z3z4z5z6z7z147m258p" for s in range(3)}}
SZ_MOVES = [(3, "discard 1z"), (0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "win")]
SZ_SCORES = [-4, -4, -4, 12]


def _sz_wall():
    return build_wall("beijing", dealer=3, indicator="8s", draws="3s6s9p5s", hands=SZ_HANDS)


def test_beijing_match_passes_the_deal_to_the_previous_seat_then_keeps_it(monkeypatch):
    """docs/RULES.md 2: seat 3 wins hand 1 by robbing seat 1's added kong: the deal passes from East to seat 3
    ((dealer - 1) mod 4); seat 3 then wins as dealer with one round of 烧庄 and keeps the deal. Each hand's
    rewards are its settlement's scores, and the episode ends after the second hand exactly."""
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, _sz_wall(), 3))
    e = mj_env.env(rules="beijing", hands_per_episode=2)
    e.reset(options={"wall": build_wall("beijing", indicator="9s", **ROB), "dealer": 0})
    first = _play(e, [*ROB_MOVES, (1, "kong 5m"), (3, "win")])
    assert first.tolist() == e.infos["player_0"]["settlement"]["scores"] == [0, -6, 0, 6]
    assert int(e.unwrapped.engine.state.dealer[0]) == 3 and not any(e.terminations.values())
    second = _play(e, SZ_MOVES)
    s = e.infos["player_0"]["settlement"]
    assert second.tolist() == s["scores"] == SZ_SCORES and s["shaozhuang"] == 1
    assert all(e.terminations.values()) and int(e.unwrapped.engine.state.dealer[0]) == 3


def test_shaozhuang_rounds_start_afresh_in_each_hand_of_a_match(monkeypatch):
    """docs/RULES.md 6.1: 烧庄 is counted per hand; three hands of one round each pay one round each (not 1, 2, 3)."""
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, _sz_wall(), 2))
    e = mj_env.env(rules="beijing", hands_per_episode=3)
    e.reset(options={"wall": _sz_wall(), "dealer": 3})
    for hand in range(3):
        assert _play(e, SZ_MOVES).tolist() == SZ_SCORES
        assert e.infos["player_1"]["settlement"]["shaozhuang"] == 1
        assert all(e.terminations.values()) == (hand == 2)


@pytest.mark.parametrize("on_draw, paid", [(True, [-3, 1, 1, 1]), (False, [0, 0, 0, 0])])
def test_shaozhuang_on_a_drawn_hand_follows_the_field_and_keeps_the_dealer(on_draw, paid):
    hands = {s: SZ_HANDS[(s + 3) % 4] for s in range(4)}  # the same hands with East dealing
    e = mj_env.env(rules="beijing", hands_per_episode=2, shaozhuang_on_draw=on_draw)
    e.reset(options={"wall": build_wall("beijing", hands=hands, indicator="8s", draws="3s6s9p"), "dealer": 0})
    _play(e, [(0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "discard 1z")])
    assert _play_to_a_draw(e).tolist() == paid
    assert int(e.unwrapped.engine.state.dealer[0]) == 0 and not any(e.terminations.values())


def test_a_match_whose_last_hand_ends_at_its_deal_ends_there_the_same_in_aec_and_vector(monkeypatch):
    """Hand 1: seat 3 robs seat 1's kong (+6 / -6); the deal passes to seat 3, whose hand 2 is dealt all four 惠牌
    (四惠牌 8 + 庄 1, self-draw: +27 / -9 each). Both hands are paid in the step of the rob, the episode ends
    there, and the AEC env and the vector env agree."""
    wall = build_wall("beijing", indicator="9s", **ROB)
    moves = [*ROB_MOVES, (1, "kong 5m"), (3, "win")]
    expected = [-9, -15, -9, 33]
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_wall(), 1))
    e = mj_env.env(rules="beijing", hands_per_episode=2)
    e.reset(options={"wall": wall, "dealer": 0})
    assert _play(e, moves).tolist() == expected and all(e.terminations.values())
    info = e.infos["player_0"]
    assert [s["scores"] for s in info["earlier_settlements"]] == [[0, -6, 0, 6]]
    assert info["settlement"]["scores"] == [-9, -9, -9, 27] and info["settlement"]["input"]["dealer"] == 3

    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_wall(), 1))
    v = MahjongVectorEnv(num_envs=1, rules="beijing", hands_per_episode=2, autoreset_mode="NextStep")
    obs, _ = v.reset(options={"walls": [wall], "dealers": [0]})
    for seat, act in moves:
        assert int(obs["seat"][0]) == seat
        obs, rewards, term, _, infos = v.step(np.array([index(act)]))
    assert rewards[0].tolist() == expected and term[0]
    assert [s["scores"] for s in infos["earlier_settlements"][0]] == [[0, -6, 0, 6]]
    assert infos["settlement"][0]["scores"] == [-9, -9, -9, 27]


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_kong_payments_and_the_next_dealer_turn_with_the_table(rules, dealer):
    """The same hand dealt by each seat: every figure turns with the seats, and after the non-dealer's win the deal
    passes to (dealer + 1) mod 4 (docs/RULES.md 2)."""
    hands, tail, hand_scores, kong_scores = KONG_CASES[rules]
    e = _env(rules, {(s + dealer) % 4: h for s, h in hands.items()}, tail=tail, dealer=dealer, hands_per_episode=2)
    total = _play(e, [((s + dealer) % 4, act) for s, act in KONG_MOVES])
    turn = [(s - dealer) % 4 for s in range(4)]
    assert e.infos["player_0"]["settlement"]["kong_scores"] == [kong_scores[k] for k in turn]
    assert total.tolist() == [hand_scores[k] + kong_scores[k] for k in turn]
    assert int(e.unwrapped.engine.state.dealer[0]) == (dealer + 1) % 4 and not any(e.terminations.values())


def test_quemen_ting_doubles_the_win_but_not_the_kong_payments():
    """docs/RULES.md 6.3: a win after 报听 is doubled ("the whole total" of the win's fan: 平胡 1 -> 2, each other
    pays 2), while the dealer's concealed kong stays at 1 from each other (the kongs are their own line, 6.4)."""
    other = "2z3z4z5z6z7z147m258s3s"
    e = _env("quemen", {0: "5555m123p789p11z45p", 1: other, 2: other, 3: other}, draws="1s1s1s6p", tail="9m")
    total = _play(e, [(0, "kong 5m"), (0, "ting 9m"), (1, "discard 1s"), (2, "discard 1s"), (3, "discard 1s")])
    assert e.observe("player_0")["action_mask"][WIN]
    total += _play(e, [(0, "win")])
    s = e.infos["player_1"]["settlement"]
    assert (s["fan"], s["input"]["ting"]) == (1, True)
    assert (s["hand_scores"], s["kong_scores"]) == ([6, -2, -2, -2], [3, -1, -1, -1])
    assert total.tolist() == s["scores"] == [9, -3, -3, -3]
