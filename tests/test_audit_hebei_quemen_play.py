"""Whole hands of the ``hebei`` and ``quemen`` rule sets played through the PettingZoo AEC env
(docs/INTERFACES.md 2), each final reward worked out by hand from docs/RULES.md 6.2 / 6.3 before
the hand was run (an audit of the engine in play: base by win type, the bonus X paid by every
other non-winner on a discard win, two winners on one discard settled one by one, kong payments,
报听 doubling, 天胡, 花牌, 海底捞月 at the end of the wall).

Walls are laid out with ``walls.build_wall``; every seat's hand is given in full where a stray pair
could change the claims asked. Moves are (seat, action name); after the scripted moves every seat
passes each claim and discards the tile it just drew.
"""
from __future__ import annotations

import pytest
from scenario_helpers import unscripted_move
from walls import build_wall, swap_in

import mj_env
from mj_env import actions as A
from mj_env.rules import get_rules
from mj_env.tiles import code


def wall_of(rules: str, swaps=(), **layout) -> list[str]:
    """A wall of tile codes; ``swaps``: (position, tile) pairs, a copy of the tile from the live wall before
    that position moved there."""
    return [code(t) for t in swap_in(build_wall(get_rules(rules), **layout), swaps)]


def play(rules: str, wall, dealer: int, moves, *, win_when=None, **overrides):
    """Play one hand; returns (each seat's summed rewards, the settlement). ``win_when(seat, state)``:
    after the scripted moves, take a win offered to ``seat`` when it says so."""
    env = mj_env.env(rules=rules, **overrides)
    env.reset(options={"wall": wall, "dealer": dealer})
    totals, settlement, i = [0, 0, 0, 0], None, 0
    for agent in env.agent_iter(max_iter=1000):
        obs, reward, term, trunc, info = env.last()
        seat = int(agent[-1])
        totals[seat] += reward
        if term or trunc:
            settlement = info.get("settlement", settlement)
            env.step(None)
            continue
        legal = [A.name(a) for a in obs["action_mask"].nonzero()[0]]
        st = env.unwrapped.engine.state
        if i < len(moves):
            want_seat, action = moves[i]
            assert (seat, action in legal) == (want_seat, True), (i, seat, moves[i], legal)
            i += 1
        else:
            action = unscripted_move(seat, st, legal, win_when=win_when)
        env.step(A.index(action))
    assert i == len(moves), f"the hand ended after {i} of {len(moves)} moves"
    return totals, settlement


def test_hebei_dealer_wins_a_discard_with_concealed_hand_and_one_suit():
    # East (dealer) 123m 123m 789m 99m 67m wins on South's 8m: X = 门清 2 + 清一色 3 = 5.
    # Dealer on a discard: the discarder pays 8 + 5 = 13, West and North 5 each; East +23.
    wall = wall_of("hebei", hands={0: "123m123m789m99m67m7z", 1: "258p369s1234z147p", 2: "258m147p258s1234z",
                                   3: "369m369p147s1234z"}, draws="8m")
    scores, s = play("hebei", wall, 0, [(0, "discard 7z"), (1, "discard 8m"), (0, "win")])
    assert s["patterns"] == {"门清": 2, "清一色": 3}
    assert scores == s["scores"] == [23, -13, -5, -5]


def test_hebei_dealer_robs_an_added_kong_and_a_concealed_kong_is_paid():
    # South pongs West's 5m and later adds the fourth: East (dealer, 46m 123456789p 22s) robs it.
    # X = 门清 2 + 抢杠胡 2 + 一条龙 2 + 捉五 5 = 11; the declarer pays as the discarder 8 + 11 = 19,
    # West and North 11 each: East +41. The robbed kong pays nothing; North's concealed kong of 9s
    # is paid 2 by each other seat.
    wall = wall_of("hebei", hands={0: "46m123p456p789p22s7z", 1: "55m19m2z3z4z147s6z7z9p",
                                   2: "5m28m368s2z3z4z57s1p6z", 3: "999s37m125z48p7s6p3s"},
                   draws="8p8p1s9s1s5m", tail="3z")
    moves = [(0, "discard 7z"), (1, "discard 8p"), (2, "discard 5m"), (0, "pass"), (1, "pong"), (1, "discard 7z"),
             (2, "discard 1s"), (3, "kong 9s"), (3, "discard 3z"), (0, "discard 1s"), (1, "kong 5m"), (0, "win")]
    scores, s = play("hebei", wall, 0, moves)
    assert s["patterns"] == {"门清": 2, "抢杠胡": 2, "一条龙": 2, "捉五": 5}
    assert (s["hand_scores"], s["kong_scores"]) == ([41, -19, -11, -11], [-2, -2, -2, 6])
    assert scores == s["scores"] == [39, -21, -13, -5]


def test_hebei_two_winners_on_one_discard_the_dealer_among_them():
    # South kongs West's 9s (West pays 3). West then discards 3s: North (333s 55z shape) and East
    # (dealer, 24s) both win, each with X = 门清 2 + 一条龙 2 = 4.
    # North: non-dealer on a non-dealer's discard, West 5 + 4, East and South 4 each: +17.
    # East: dealer on a discard, West 8 + 4, South and North 4 each: +20.
    wall = wall_of("hebei", hands={0: "123m456m789m11z24s7z", 1: "999s5z6z2z3z4z1s5s8s7s6s",
                                   2: "9s3s1z7z2p5p8p3m6m9m4z6z2z", 3: "123p456p789p33s55z"},
                   draws="7m7m4m", tail="1m")
    moves = [(0, "discard 7z"), (1, "discard 7m"), (2, "discard 9s"), (1, "kong"), (1, "discard 1m"),
             (2, "discard 3s"), (3, "win"), (0, "win")]
    scores, s = play("hebei", wall, 0, moves)
    assert [w["scores"] for w in s["wins"]] == [[-4, -4, -9, 17], [20, -4, -12, -4]]
    assert (s["hand_scores"], s["kong_scores"]) == ([16, -8, -21, 13], [0, 3, -3, 0])
    assert scores == s["scores"] == [16, -5, -24, 13]


def test_hebei_two_winners_one_of_them_without_bonus_fan():
    # South (a pong of 7z, nothing else: X = 0) and West (门清: X = 2) both win on North's 3s.
    # South: North pays the base 5 alone. West: North pays 5 + 2, East and South pay 2 each.
    wall = wall_of("hebei", hands={0: "147m258p369s1234z7z", 1: "77z123m456p678s2z3s", 2: "234m567m345p99p2s4s",
                                   3: "3s58m17p15s5z6z9m3p8p6z"}, draws="1s9m")
    moves = [(0, "discard 7z"), (1, "pong"), (1, "discard 2z"), (2, "discard 1s"), (3, "discard 3s"),
             (1, "win"), (2, "win")]
    scores, s = play("hebei", wall, 0, moves)
    assert [w["patterns"] for w in s["wins"]] == [{}, {"门清": 2}]
    assert scores == s["scores"] == [-2, 3, 11, -12]


def test_hebei_thirteen_orphans_robs_an_added_dragon_kong():
    # South waits on 7z with 19m 19p 19s 1234z 55z 6z (the 14th a dragon) and passes East's 7z; West pongs
    # it and later adds its own 7z: South robs. X = 门清 2 + 抢杠胡 2 + 十三幺 10 = 14; West pays as the
    # discarder 5 + 14, East and North 14 each. The robbed kong is not paid.
    hands = {0: "2345m678m2345p68p7z", 1: "19m19p19s1234z55z6z", 2: "77z2345s678s67p3m4m",
             3: "2m5m8m3p5p9p2s5s9s1z2z3z4z"}
    moves = [(0, "discard 7z"), (1, "pass"), (2, "pong"), (2, "discard 3m"), (3, "discard 6s"), (0, "discard 7m"),
             (1, "discard 8s"), (2, "kong 7z"), (1, "win")]
    scores, s = play("hebei", wall_of("hebei", hands=hands, draws="6s7m8s7z"), 0, moves)
    assert s["patterns"] == {"门清": 2, "抢杠胡": 2, "十三幺": 10} and s["kong_scores"] == [0, 0, 0, 0]
    assert scores == s["scores"] == [-14, 47, -19, -14]


def test_hebei_self_draw_on_the_replacement_of_an_exposed_kong():
    # West kongs East's 5z and wins on the replacement 1z: 123m 456m 789m 11z + 5555z. X = 杠上开花 2 +
    # 混一色 2 + 一条龙 2 = 6 (no 门清). Non-dealer self-draw: East 4 + 6, South and North 2 + 6; the
    # exposed kong: East pays 3 more.
    hands = {0: "147m258p369s1234z5z", 1: "258m147p258s2346z", 2: "555z123m456m789m1z", 3: "369m369p147s2347z"}
    scores, s = play("hebei", wall_of("hebei", hands=hands, tail="1z"), 0, [(0, "discard 5z"), (2, "kong"), (2, "win")])
    assert s["patterns"] == {"杠上开花": 2, "混一色": 2, "一条龙": 2} and s["kong_scores"] == [-3, 0, 3, 0]
    assert scores == s["scores"] == [-13, -8, 29, -8]


def test_hebei_win_on_the_discard_of_the_last_drawable_tile():
    # 71 live draws leave the 12 kept tiles; North draws the last, wall[123] = 8m, and discards it.
    # East (dealer, 79m) wins: X = 门清 2 + 海底捞月 2 = 4; North pays 8 + 4, the others 4 each.
    hands = {0: "123m456p678s55z79m1z", 1: "8m147p258s1234z69m", 2: "8m258p369s1234z47m", 3: "8m369p147s1234z25m"}
    wall = wall_of("hebei", swaps=[(123, "8m")], hands=hands)
    scores, s = play("hebei", wall, 0, [(0, "discard 1z")], win_when=lambda seat, st: seat == 0)
    assert s["input"]["discarder"] == 3 and s["input"]["situation"]["last_tile"] is True
    assert s["patterns"] == {"门清": 2, "海底捞月": 2}
    assert scores == s["scores"] == [20, -4, -4, -12]


def test_quemen_win_after_ting_is_doubled_and_kongs_are_not():
    # West kongs East's 4s (East pays 1). South declares 报听 discarding 5p (123m 456m 78m 11z 222z,
    # waiting on 6m / 9m) and wins on North's 9m: 混一色 1, doubled: North pays 2.
    wall = wall_of("quemen", hands={0: "4s258p369s34567z1s8s", 1: "123m456m78m11z222z", 2: "444s147p369m7s2z5z6z",
                                    3: "9m5m369p258s1z3z4z7z8p"}, draws="2p5s5p8s6p", tail="7p")
    moves = [(0, "discard 4s"), (2, "kong"), (2, "discard 7p"), (3, "discard 2p"), (0, "discard 5s"), (1, "ting 5p"),
             (2, "discard 8s"), (3, "discard 9m"), (1, "win")]
    scores, s = play("quemen", wall, 0, moves)
    assert s["patterns"] == {"混一色": 1} and s["input"]["ting"] is True
    assert (s["hand_scores"], s["kong_scores"]) == ([0, 2, 0, -2], [-1, 0, 1, 0])
    assert scores == s["scores"] == [-1, 2, 1, -2]


@pytest.mark.parametrize("hand, tail, fan, patterns", [
    ("123m456m789m23p55p1f", "4p", 5, {"平胡": 1, "天胡": 3, "花牌": 1}),
    ("123m1f2f3f4f5f6f456m7f8f", "789m11z222z", 12, {"混一色": 1, "天胡": 3, "花牌": 8}),
], ids=["one-flower", "all-eight-flowers"])
def test_quemen_tianhu_counts_the_flowers_laid_out_at_the_deal(hand, tail, fan, patterns):
    # The dealer's flowers are replaced from the tail at the deal; the 14 tiles then win: each of the
    # three others pays the total.
    scores, s = play("quemen", wall_of("quemen", hands={0: hand}, tail=tail), 0, [(0, "win")])
    assert (s["fan"], s["patterns"]) == (fan, patterns)
    assert scores == s["scores"] == [3 * fan, -fan, -fan, -fan]


def test_quemen_a_flower_replaced_by_the_walls_last_tile_self_drawn_is_haidi():
    # Seven flowers are laid out at the deal (wall[137:144] replace them); 8f lies at wall[135]. North
    # draws it as the next-to-last undrawn tile and takes wall[136], the last, which completes
    # 123456789m 11z 222z: 混一色 1 + 海底捞月 1 + 花牌 4 (North's), from each other seat.
    hands = {2: "1f2f3f4f147p258s3z", 3: "5f6f7f123m456m789m1z"}
    wall = wall_of("quemen", swaps=[(135, "8f"), (136, "2z")], hands=hands, tail="4z5z6z7z1z2z2z")
    scores, s = play("quemen", wall, 0, [], win_when=lambda seat, st: seat == 3 and st.flowers[0, 3] == 4)
    assert s["input"]["situation"]["last_tile"] is True and s["input"]["flowers"] == 4
    assert s["patterns"] == {"混一色": 1, "海底捞月": 1, "花牌": 4}
    assert scores == s["scores"] == [-6, -6, -6, 18]


def test_quemen_a_win_on_the_discard_of_the_walls_last_tile_is_no_haidi():
    # docs/RULES.md 6.3: 海底捞月 is a self-draw on the last tile only. All eight flowers are laid out at the
    # deal (wall[136:144] replace them); North draws the last tile, wall[135] = 8m, and discards it. East
    # (dealer, 123m 456m 79m 111z 55z) wins on it: 混一色 1 alone, paid by North.
    hands = {0: "123m456m111z55z79m3z", 1: "8m147p258s234z69p", 2: "1f2f3f4f8m258p369s", 3: "5f6f7f8f8m147p25s3p"}
    wall = wall_of("quemen", swaps=[(135, "8m")], hands=hands, tail="7z7z7z6z6z6z4z4z")
    scores, s = play("quemen", wall, 0, [(0, "discard 3z")], win_when=lambda seat, st: seat == 0)
    assert s["input"]["discarder"] == 3 and s["input"]["situation"]["last_tile"] is True
    assert s["patterns"] == {"混一色": 1}
    assert scores == s["scores"] == [1, 0, 0, -1]


@pytest.mark.parametrize("rules, hand, patterns, each", [
    ("hebei", "1111m22m33m44m55m6m6m", {"门清": 2, "清一色": 3, "豪华七对": 8}, 4 + 13),
    ("hebei", "1111m2222m33m44m5m5m", {"门清": 2, "清一色": 3, "双豪华": 16}, 4 + 21),
    ("quemen", "1111m22m33m44m55m6m6m", {"七对": 2, "清一色": 3, "天胡": 3}, 8),
], ids=["hebei-haohua", "hebei-shuang-haohua", "quemen-qidui"])
def test_seven_pairs_with_four_alike_won_at_the_deal(rules, hand, patterns, each):
    # The four alike are two pairs (docs/RULES.md 5); the dealer may also kong them, but wins instead.
    scores, s = play(rules, wall_of(rules, hands={0: hand}), 0, [(0, "win")])
    assert s["patterns"] == patterns
    assert scores == s["scores"] == [3 * each, -each, -each, -each]
