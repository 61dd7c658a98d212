"""Whole hands and matches of the ``beijing`` rule set played through the PettingZoo AEC env
(docs/INTERFACES.md 2), each reward worked out by hand from docs/RULES.md 2-6 before the hand was run:
the seed's second worked example played out tile by tile (3 rounds of 烧庄, 互包 from three pongs),
互包 to one and to two seats (the discarder of a win bound elsewhere pays nothing), 四惠牌 on an exposed
kong's replacement, 惠牌 as wildcards (豪华七对子 by a self-drawn 惠牌, a discarded 惠牌 at face value,
three 惠牌 barring a discard win), 海底捞月 both ways, 烧庄 across a concealed kong and a passed chi,
dealer rotation over a three-hand match, 大钓 with 互包, and 捉五魁 with and without a wildcard wait.

Walls are laid out with ``walls.build_wall`` (indicator 8s: 惠牌 9s, unless a test says otherwise).
Moves are (seat, action name). A claim window of a seat whose next scripted move is not a claim is
passed; every turn up to the last scripted move is scripted; after it every seat passes each claim,
discards the tile it just drew, and wins only where ``win_when`` says so.
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from scenario_helpers import ROB, unscripted_move
from walls import build_wall, swap_in

import mj_env
import mj_env.engine as engine_module
from mj_env import actions as A
from mj_env.actions import ActionError
from mj_env.score import answer
from mj_env.tiles import code, parse_tiles

CLAIMS = {"win", "pass", "pong", "kong"}


def _is_claim(action: str) -> bool:
    return action in CLAIMS or action.startswith("chi ")


def wall_of(swaps=(), **layout) -> list[str]:
    """A beijing wall of tile codes; ``swaps``: (position, tile) pairs, a copy of the tile from the live wall
    before that position moved there."""
    return [code(t) for t in swap_in(build_wall("beijing", **layout), swaps)]


def _legal(env) -> list[str]:
    return [A.name(a) for a in env.observe(env.agent_selection)["action_mask"].nonzero()[0]]


def play_hands(env, scripts, claim=None):
    """Play hands of ``env`` (already reset), one ``(moves, win_when)`` script per hand, until the episode ends;
    returns (each seat's summed rewards, [(settlement, dealer after the hand)]). After the scripted moves a claim
    window is passed unless ``claim(seat, state, legal)`` names a claim to take."""
    totals, hands, h, i = [0, 0, 0, 0], [], 0, 0
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, term, trunc, _ = env.last()
        seat = int(agent[-1])
        totals[seat] += reward
        if term or trunc:
            env.step(None)
            continue
        st = env.unwrapped.engine.state
        moves, win_when = scripts[h]
        legal = [A.name(a) for a in obs["action_mask"].nonzero()[0]]
        window = "pass" in legal  # a claim window
        nxt = moves[i] if i < len(moves) else None
        if nxt is not None and (not window or (nxt[0] == seat and _is_claim(nxt[1]))):
            assert nxt[0] == seat and nxt[1] in legal, (h, i, seat, nxt, legal)
            action, i = nxt[1], i + 1
        else:  # (a scripted move waiting is a claim of another seat: on a turn it was taken above)
            action = unscripted_move(seat, st, legal, win_when=win_when, claim=claim)
        before = int(st.hands_played[0])
        env.step(A.index(action))
        st = env.unwrapped.engine.state
        if int(st.hands_played[0]) > before:
            assert i == len(moves), f"hand {h} ended after {i} of {len(moves)} moves"
            hands.append((copy.deepcopy(env.infos["player_0"]["settlement"]), int(st.dealer[0])))
            h, i = h + 1, 0
    assert h == len(scripts), f"{h} hands played, {len(scripts)} scripted"
    return totals, hands


def play(wall, dealer, moves, *, win_when=None, claim=None, env=None, **overrides):
    """One hand; returns (each seat's summed rewards, the settlement). A won hand's settlement ``input`` must
    give the same settlement back through the calculator (docs/INTERFACES.md 2)."""
    if env is None:
        env = mj_env.env(rules="beijing", **overrides)
        env.reset(options={"wall": wall, "dealer": dealer})
    totals, [(settlement, _)] = play_hands(env, [(moves, win_when)], claim)
    if "input" in settlement:
        again = answer(json.dumps(settlement["input"], ensure_ascii=False))
        assert again == {k: v for k, v in settlement.items() if k != "input"}, again
    return totals, settlement


def _worked_example_two():
    hands = {0: "1z2z3z2m5m8m1p4p7p5s6s8s3p6p", 1: "1z2z3z123m456m789p9s",
             2: "1z2z3z1m4m7m2p5p8p1s4s7s9m", 3: "1z2z3z44z66z77z3m6m9m2s"}
    wall = wall_of(hands=hands, draws="2s2m4p" "1m3s5s7s" "8p5z9p3s" "8m4z9s6z6p7z5z", indicator="8s")
    rounds = [(s, f"discard {t}") for t in ("1z", "2z", "3z") for s in range(4)]
    moves = [*rounds, (0, "discard 8m"), (1, "discard 4z"), (3, "pong"), (3, "discard 3m"),
             (0, "discard 9s"), (1, "discard 6z"), (3, "pong"), (3, "discard 6m"),
             (0, "discard 6p"), (1, "discard 7z"), (3, "pong"), (3, "discard 9m"), (0, "discard 5z"), (1, "win")]
    return wall, moves


def test_the_seeds_second_worked_example_played_out():
    # docs/RULES.md 6.1 example 2, base 500: three rounds of 烧庄 (1z, 2z, 3z; the fourth round breaks at South's 4z),
    # North then pongs South's 4z, 6z and 7z (互包 South-North), East discards 5z and South (123m 456m 789p 23s
    # 9s 5z, the 9s wild) wins: 庄 1 + 推倒和 1 = 2, paid by North alone; 烧庄 East -12, others +4.
    wall, moves = _worked_example_two()
    scores, s = play(wall, 0, moves, base=500)
    assert (s["fan"], s["patterns"], s["shaozhuang"]) == (2, {"庄": 1, "推倒和": 1}, 4)
    assert s["input"]["hubao"] == [[1, 3]] and s["input"]["shaozhuang_rounds"] == 3
    assert scores == s["scores"] == [-6000, 3000, 2000, 1000]


def test_the_rendered_settlement_prints_shaozhuang_beside_a_win():
    # docs/RULES.md 6.1: 烧庄 is shown as its own line in the settlement, "the seed requires the settlement view to
    # print it" (seed 000: 需要在算分界面中打印出烧庄产生的番数). The ANSI picture's hand-over line printed it for a
    # drawn hand ("drawn (烧庄 2)") but left it out beside a win, whose points it explains (West's +2000 here).
    wall, moves = _worked_example_two()
    env = mj_env.env(rules="beijing", render_mode="ansi", base=500)
    env.reset(options={"wall": wall, "dealer": 0})
    play(None, 0, moves, env=env)
    assert env.render().splitlines()[-1] == ("hand over: seat 1 (South) wins on seat 0's discard 🀆 5z: 2 fan "
                                              "(庄 1, 推倒和 1); 烧庄 4 | scores -6000 +3000 +2000 +1000")


# East (dealer, 惠牌 6z: indicator 7z) discards 3s, 6s, 3m, each chi'd by South, then 1z, 2z, 3z, each ponged by
# West; East (123m 567m 234p 789p, 5s) wins on North's 5s: 庄 1 + 门清无惠 1 + 推倒和 1 = 3.
HUBAO_HANDS = {0: "3s123m567m234p789p5s", 1: "1s2s7s8s4m5m4z5z7z9m1p5p9p", 2: "11z22z33z2m6m8m3p6p8p4s",
               3: "3m4m9m2p6p9p1s4s6s8s9s7z4z"}
HUBAO_CHIS = [(0, "discard 3s"), (1, "chi 123s"), (1, "discard 4z"), (2, "discard 9s"), (3, "discard 1p"),
              (0, "discard 6s"), (1, "chi 678s"), (1, "discard 5z"), (2, "discard 1m"), (3, "discard 5p"),
              (0, "discard 3m"), (1, "chi 345m"), (1, "discard 7z"), (2, "discard 4p")]


def test_hubao_to_one_seat_the_discarder_pays_nothing():
    # East is bound to South alone (three chis): South pays the whole settlement F = 3, North (the discarder) 0.
    wall = wall_of(hands=HUBAO_HANDS, draws="9s1p6s1m5p3m4p5s", indicator="7z")
    scores, s = play(wall, 0, [*HUBAO_CHIS, (3, "discard 5s"), (0, "win")])
    assert s["patterns"] == {"庄": 1, "门清无惠": 1, "推倒和": 1} and s["input"]["hubao"] == [[0, 1]]
    assert scores == s["scores"] == [3, -3, 0, 0]


def test_hubao_to_two_seats_each_pays_a_whole_settlement():
    # East is bound to South (three chis) and West (three pongs): each pays F = 3, North (the discarder) 0.
    wall = wall_of(hands=HUBAO_HANDS, draws="9s1p6s1m5p3m4p9p1z7m2z4s3z5s", indicator="7z")
    pongs = [(3, "discard 9p"), (0, "discard 1z"), (2, "pong"), (2, "discard 2m"), (3, "discard 7m"),
             (0, "discard 2z"), (2, "pong"), (2, "discard 6m"), (3, "discard 4s"),
             (0, "discard 3z"), (2, "pong"), (2, "discard 8m"), (3, "discard 5s"), (0, "win")]
    scores, s = play(wall, 0, [*HUBAO_CHIS, *pongs])
    assert s["fan"] == 3 and s["input"]["hubao"] == [[0, 1], [0, 2]]
    assert scores == s["scores"] == [6, -3, -3, 0]


def test_dadiao_by_four_pongs_with_hubao_on_the_last_three():
    # South pongs East's 1z and West's 2z, 3z, 4z (互包 South-West), keeps only its 惠牌 9s and self-draws 6m:
    # 大钓 2 + 对对和 2 = 4 (the 9s stands for 6m; no 推倒和); West pays 3 x 4 alone.
    wall = wall_of(hands={1: "11z22z33z44z9s5m7m1p3p", 0: "1z", 2: "2z3z4z"}, draws="5p6p7p8p2s3s6m", indicator="8s")
    moves = [(0, "discard 1z"), (1, "pong"), (1, "discard 5m"), (2, "discard 2z"), (1, "pong"), (1, "discard 7m"),
             (2, "discard 3z"), (1, "pong"), (1, "discard 1p"), (2, "discard 4z"), (1, "pong"), (1, "discard 3p"),
             (2, "discard 8p"), (3, "discard 2s"), (0, "discard 3s"), (1, "win")]
    scores, s = play(wall, 0, moves)
    assert s["patterns"] == {"对对和": 2, "大钓": 2} and s["input"]["hubao"] == [[1, 2]]
    assert scores == s["scores"] == [0, 12, -12, 0]


def test_four_hui_on_an_exposed_kongs_replacement():
    # South (999s: three 惠牌, 555p) kongs East's first discard 5p; the replacement wall[-2] is the fourth 9s:
    # 四惠牌 at once, no decision asked, 8 fan alone (no 杠上开花, no 庄 for a non-dealer self-draw).
    wall = wall_of(hands={0: "5p", 1: "999s555p1m4m7m1z2z3z4z"}, indicator="8s", tail="9s")
    scores, s = play(wall, 0, [(0, "discard 5p"), (1, "kong")])
    assert s["patterns"] == {"四惠牌": 8} and s["input"]["situation"]["after_kong"] is True
    assert scores == s["scores"] == [-8, 24, -8, -8]


def test_a_self_drawn_hui_completes_luxury_seven_pairs_of_one_suit():
    # South 1111m 2m 33m 55m 77m 99m draws 7z (discards it), then the 惠牌 9s, which stands for 2m:
    # 豪华七对子 8 + 清一色 6 = 14 (the 惠牌 in hand rules out 门清无惠), each other seat pays 14.
    wall = wall_of(hands={0: "1z", 1: "1111m2m33m55m77m99m"}, draws="7z2z3z4z9s", indicator="8s")
    moves = [(0, "discard 1z"), (1, "discard 7z"), (2, "discard 2z"), (3, "discard 3z"), (0, "discard 4z"), (1, "win")]
    scores, s = play(wall, 0, moves)
    assert s["patterns"] == {"豪华七对子": 8, "清一色": 6}
    assert scores == s["scores"] == [-14, 42, -14, -14]


def test_a_discarded_hui_is_a_plain_tile_to_pong_or_win_on():
    # South holds two 惠牌 (99s) 123m 456m 789p 55z; East's first discard 9s is a plain 9s: South may pong it
    # (its own 9s count at face value in a pong) or win on it (999s 55z; two 惠牌 held, fewer than three):
    # 地和 8 + 庄 1 = 9, no 门清无惠 (惠牌 in hand).
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall_of(hands={0: "9s", 1: "99s123m456m789p55z"}, indicator="8s"), "dealer": 0})
    env.step(A.index("discard 9s"))
    assert (env.agent_selection, _legal(env)) == ("player_1", ["win", "pass", "pong"])
    scores, s = play(None, 0, [(1, "win")], env=env)
    assert s["patterns"] == {"庄": 1, "地和": 8} and scores == s["scores"] == [-9, 9, 0, 0]


def test_a_winning_tile_of_the_hui_kind_rules_out_menqing_wuhui():
    # South holds no 惠牌 (123m 456m 789p 555z 9s) and wins on East's 9s: 9s is the 惠牌 kind, so no 门清无惠
    # ("winning tile included"): 地和 8 + 庄 1 = 9.
    scores, s = play(wall_of(hands={0: "9s", 1: "123m456m789p555z9s"}, indicator="8s"), 0,
                     [(0, "discard 9s"), (1, "win")])
    assert s["patterns"] == {"庄": 1, "地和": 8} and scores == s["scores"] == [-9, 9, 0, 0]


def test_three_hui_are_not_asked_about_a_discard_and_win_by_self_draw():
    # South (999s 123m 456m 789p 1z) would be complete with any tile, but holds three 惠牌: East's 2z asks nobody
    # (no pong), South draws 7m and wins: 一条龙 3 (789m from the three 惠牌, 1z + a 惠牌 the pair) + 地和 8.
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall_of(hands={0: "2z", 1: "999s123m456m789p1z"}, draws="7m", indicator="8s"),
                       "dealer": 0})
    env.step(A.index("discard 2z"))
    assert env.agent_selection == "player_1" and "win" in _legal(env) and "pass" not in _legal(env)
    scores, s = play(None, 0, [(1, "win")], env=env)
    assert s["patterns"] == {"一条龙": 3, "地和": 8} and scores == s["scores"] == [-11, 33, -11, -11]


def test_three_hui_may_kong_a_discarded_hui_but_not_win_on_it():
    # South 999s 123m 456m 789p 1z: East's 9s offers pong and kong, not win; 'win' is refused with a reason and
    # changes nothing. South kongs (face value) and the replacement 1z wins: 杠上开花 5 alone.
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall_of(hands={0: "9s", 1: "999s123m456m789p1z"}, indicator="8s", tail="1z"),
                       "dealer": 0})
    env.step(A.index("discard 9s"))
    assert (env.agent_selection, _legal(env)) == ("player_1", ["pass", "pong", "kong"])
    before = env.state().copy()
    with pytest.raises(ActionError, match="3 惠牌"):
        env.step(A.index("win"))
    assert (env.state() == before).all() and _legal(env) == ["pass", "pong", "kong"]
    scores, s = play(None, 0, [(1, "kong"), (1, "win")], env=env)
    assert s["patterns"] == {"杠上开花": 5} and s["input"]["melds"] == [{"type": "kong", "tiles": "9999s", "from": 0}]
    assert scores == s["scores"] == [-5, 15, -5, -5]


@pytest.mark.parametrize("wild, legal", [(False, None), (True, ["pass", "pong", "chi 567p"])])
def test_hui_wild_in_melds_fills_a_pong_and_the_input_names_the_field(wild, legal):
    # South 5p 9s(惠牌) 123m 456m 789p 1z 2z and East's 5p: at face value no claim (one 5p, no 6p); with
    # hui_wild_in_melds the 9s fills a pong 55p or the 6p of 567p. The pong and a later self-drawn 1z:
    # 推倒和 1, and the settlement's input carries the rule field.
    wall = wall_of(hands={0: "5p", 1: "5p9s123m456m789p1z2z"}, indicator="8s", draws="3z4z6z1z")
    env = mj_env.env(rules="beijing", hui_wild_in_melds=wild)
    env.reset(options={"wall": wall, "dealer": 0})
    env.step(A.index("discard 5p"))
    if not wild:
        assert env.agent_selection == "player_1" and "pong" not in _legal(env)
        return
    assert (env.agent_selection, _legal(env)) == ("player_1", legal)
    scores, s = play(None, 0, [(1, "pong"), (1, "discard 2z")], env=env, win_when=lambda seat, st: seat == 1)
    assert s["input"]["rules"] == {"name": "beijing", "hui_wild_in_melds": True}
    assert s["input"]["melds"] == [{"type": "pong", "tiles": "55p9s", "from": 0}]
    assert scores == s["scores"] == [-1, 3, -1, -1]


def test_haidi_self_draw_on_the_last_live_tile():
    # wall[120], the last live tile, is East's (the dealer's 68th live draw is seat 0's): 5z completes 123m 456m
    # 789p 123s 5z: 庄 1 + 门清无惠 1 + 海底捞月 2 = 4 (no 推倒和).
    wall = wall_of(swaps=[(120, "5z")], hands={0: "123m456m789p123s5z7z"}, indicator="8s")
    scores, s = play(wall, 0, [], win_when=lambda seat, st: seat == 0 and st.live_pos[0] == 121)
    assert s["patterns"] == {"庄": 1, "门清无惠": 1, "海底捞月": 2}
    assert scores == s["scores"] == [12, -4, -4, -4]


def test_a_three_hand_match_haidi_discard_drawn_shaozhuang_and_the_deal(monkeypatch):
    # Hand 1 (East deals): East draws the last live tile 6z and discards it; South (123m 456m 789p 123s 6z) wins:
    # 海底捞月 1 + 庄 1 + 门清无惠 1 = 3, East pays. The deal passes to North (dealer - 1).
    # Hand 2 (North deals): one round of 1z (North, East, South, West), then nobody wins: drawn, 烧庄 North -3,
    # others +1; North keeps the deal.
    # Hand 3 (North deals): West (123m 456m 789p 123s 5z) wins on North's first discard 5z:
    # 地和 8 + 庄 1 + 门清无惠 1 = 10. Match: [-3+1, 3+1, 1+10, -3-10].
    first = wall_of(swaps=[(120, "6z")], hands={1: "123m456m789p123s6z"}, indicator="8s")
    later = [build_wall("beijing", hands={3: "1z", 0: "1z", 1: "1z", 2: "1z"}, indicator="8s", dealer=3, seed=2),
             build_wall("beijing", hands={3: "5z", 2: "123m456m789p123s5z"}, indicator="8s", dealer=3, seed=3)]
    shuffled = engine_module.shuffled_walls

    def walls_in_turn(rules, rng, n):
        out = shuffled(rules, rng, n)
        for k in range(min(n, len(later))):
            out[k] = np.asarray(later.pop(0), dtype=np.int8)
        return out
    monkeypatch.setattr(engine_module, "shuffled_walls", walls_in_turn)
    env = mj_env.env(rules="beijing", hands_per_episode=3)
    env.reset(options={"wall": first, "dealer": 0})
    totals, hands = play_hands(env, [
        ([], lambda seat, st: seat == 1 and st.claim_last[0]),
        ([(3, "discard 1z"), (0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z")], None),
        ([(3, "discard 5z"), (2, "win")], None)])
    (h1, d1), (h2, d2), (h3, _) = hands
    assert (h1["patterns"], h1["scores"], d1) == ({"庄": 1, "门清无惠": 1, "海底捞月": 1}, [-3, 3, 0, 0], 3)
    assert h1["input"]["rules"] == "beijing" and h1["input"]["situation"]["last_tile"] is True
    assert (h2, d2) == ({"draw": True, "shaozhuang": 1, "scores": [1, 1, 1, -3]}, 3)
    assert (h3["patterns"], h3["scores"], h3["input"]["dealer"]) == ({"庄": 1, "门清无惠": 1, "地和": 8}, [0, 0, 10, -10], 3)
    assert totals == [-2, 4, 11, -13] and all(env.terminations.values())


def test_shaozhuang_survives_a_passed_chi_and_the_dealers_concealed_kong():
    # Round 1 (5m): South could chi 456m and passes (a pass is no claim). Round 2: East declares a concealed kong
    # of 1p before discarding 1z (docs/RULES.md 6.4: a kong does not end it). Round 3 breaks at South's 9m.
    # Nobody wins: drawn, 2 rounds: East -6, others +2.
    wall = wall_of(hands={0: "5m1111p1z2z", 1: "46m5m1z", 2: "5m1z", 3: "5m1z"}, indicator="8s",
                   draws="2p3p4p" "6z" "6p7p8p" "6z" "9m", tail="7s")
    moves = [(0, "discard 5m"), (1, "pass"), (1, "discard 5m"), (2, "discard 5m"), (3, "discard 5m"),
             (0, "kong 1p"), (0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "discard 1z"),
             (0, "discard 2z"), (1, "discard 9m")]
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall, "dealer": 0})
    scores, s = play(None, 0, moves, env=env)
    assert s == {"draw": True, "shaozhuang": 2, "scores": [-6, 2, 2, 2]} and scores == s["scores"]
    # the kong's replacement came from the reserve: all 68 live tiles were still drawn (wall[53:121])
    st = env.unwrapped.engine.state
    assert (int(st.live_pos[0]), int(st.replaced[0])) == (121, 1)


def test_a_dealer_other_than_east_burns_and_wins_seven_pairs_with_a_hui():
    # West deals: one round of 1z (West, North, East, South); West draws 6s: 11m 22m 33p 44p 55s 66s 7z + 9s for
    # 7z: 庄 1 + 七对子 4 = 5 from each; 烧庄 West -3, others +1.
    wall = wall_of(hands={2: "1z11m22m33p44p55s6s7z9s", 3: "1z", 0: "1z", 1: "1z"}, draws="2z3z4z6s", indicator="8s",
                   dealer=2)
    moves = [(2, "discard 1z"), (3, "discard 1z"), (0, "discard 1z"), (1, "discard 1z"), (2, "win")]
    scores, s = play(wall, 2, moves)
    assert (s["patterns"], s["shaozhuang"]) == ({"庄": 1, "七对子": 4}, 1)
    assert scores == s["scores"] == [-4, -4, 12, -4]


@pytest.mark.parametrize("hand, patterns", [
    ("46m123p567p234s1z1z", {"庄": 1, "门清无惠": 1, "捉五魁": 2, "地和": 8}),
    ("46m123p567p234s1z9s", {"庄": 1, "地和": 8}),  # the 惠牌 9s makes 1z a wait too: no 捉五魁
], ids=["only-5m", "hui-makes-1z-a-wait"])
def test_zhuo_wu_kui_on_the_dealers_5m(hand, patterns):
    scores, s = play(wall_of(hands={0: "5m", 1: hand}, indicator="8s"), 0, [(0, "discard 5m"), (1, "win")])
    fan = sum(patterns.values())
    assert s["patterns"] == patterns and scores == s["scores"] == [-fan, fan, 0, 0]


def test_the_dealer_wins_on_the_fourth_discard_of_a_shaozhuang_round():
    # East (dealer) discards 5m, South and West follow (East passes its wins on them), North's 5m completes the
    # round and East wins on it (46m 123p 567p 234s 11z, 5m the only wait): 庄 1 + 门清无惠 1 + 捉五魁 2 = 4 from
    # North; the round counts (its four discards were made): East -3, others +1.
    wall = wall_of(hands={0: "5m46m123p567p234s11z", 1: "5m", 2: "5m", 3: "5m"}, indicator="8s", draws="1z2z3z")
    moves = [(0, "discard 5m"), (1, "discard 5m"), (0, "pass"), (2, "discard 5m"), (0, "pass"), (3, "discard 5m"),
             (0, "win")]
    scores, s = play(wall, 0, moves)
    assert (s["patterns"], s["shaozhuang"]) == ({"庄": 1, "门清无惠": 1, "捉五魁": 2}, 1)
    assert scores == s["scores"] == [1, 1, 1, -3]


@pytest.mark.parametrize("hand, draws", [("9999s123m456m78p", "5m"), ("999s123m456m78p5z", "9s")],
                         ids=["dealt-four", "draws-the-fourth"])
def test_four_hui_on_a_non_dealers_first_draw_is_no_dihe(hand, draws):
    # docs/RULES.md 6.1: 四惠牌 is scored with 庄 only, so South's automatic win at its first draw is 8, not 8 + 地和.
    scores, s = play(wall_of(hands={0: "1z", 1: hand}, draws=draws, indicator="8s"), 0, [(0, "discard 1z")])
    assert s["patterns"] == {"四惠牌": 8} and scores == s["scores"] == [-8, 24, -8, -8]


@pytest.mark.parametrize("chi, patterns", [("chi 456p", {"一条龙": 3}), ("chi 345p", {"推倒和": 1})])
def test_hui_wild_in_melds_a_chi_spends_natural_tiles_first(chi, patterns):
    # hui_wild_in_melds: South (123p 789p 4p 9s 11z 22z 3z) chis East's 5p. 456p takes 4p and the 惠牌 (as 6p):
    # with 123p and 789p a 一条龙 once South self-draws 2z. 345p takes the natural 3p and 4p (natural first),
    # which breaks 123p (the kept 9s then stands for 3p): 推倒和 only.
    wall = wall_of(hands={0: "5p", 1: "123p789p4p9s11z22z3z"}, indicator="8s", draws="4z5z6z2z")
    scores, s = play(wall, 0, [(0, "discard 5p"), (1, chi), (1, "discard 3z")], win_when=lambda seat, st: seat == 1,
                     hui_wild_in_melds=True)
    fan = sum(patterns.values())
    assert s["patterns"] == patterns and scores == s["scores"] == [-fan, 3 * fan, -fan, -fan]


def test_three_hui_cannot_rob_an_added_kong():
    # The ROB hands (tests/scenario_helpers.py, indicator 9s: 惠牌 1s) with seat 3 holding 46m 123p 456p 111s 22s:
    # complete with 5m and more, but three 惠牌 bar a discard win and a robbery (docs/RULES.md 5, seed: 抢杠 counts as
    # 捉铳). Seat 3 is asked neither about East's 5m nor about South's added kong of 5m, which completes: South
    # draws the replacement wall[-2] and takes its turn.
    wall = wall_of(indicator="9s", hands={**ROB["hands"], 3: "46m123p456p111s22s"}, draws=ROB["draws"], tail=ROB["tail"])
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall, "dealer": 0})
    for seat, action in [(0, "discard 5m"), (1, "pong"), (1, "discard 7z"), (2, "discard 5z"), (3, "discard 5z"),
                         (0, "discard 5z"), (1, "kong 5m")]:
        assert env.agent_selection == f"player_{seat}" and action in _legal(env), (seat, action, _legal(env))
        env.step(A.index(action))
    st = env.unwrapped.engine.state
    assert env.agent_selection == "player_1" and "discard 3m" in _legal(env) and "pass" not in _legal(env)
    assert (int(st.replaced[0]), int(st.hands[0, 1, parse_tiles("3m")[0]])) == (1, 1)


def test_gangshang_kaihua_on_an_added_kong_with_hubao_and_shaozhuang():
    # Base 100. One round of 1z; East's next discards 5m, 6m, 7m are each ponged by South (the first claim ends
    # 烧庄 at 1 round; the third binds South and East by 互包). South draws the fourth 5m, adds it to its pong and
    # wins on the replacement 1p (88m 23p): 杠上开花 5 alone; a self-draw, 3 x 5 = 15 paid by East alone.
    # 烧庄: East -3, others +1. Totals x 100: East -1800, South +1600, West +100, North +100.
    wall = wall_of(hands={0: "1z5m", 1: "1z55m66m77m88m2p3p3z4z", 2: "1z", 3: "1z"}, indicator="8s", tail="1p",
                   draws="6z9p9m1s2s3s6m4s5s7m6s7s2z5m")
    moves = [(0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "discard 1z"),
             (0, "discard 5m"), (1, "pong"), (1, "discard 3z"), (2, "discard 2s"), (3, "discard 3s"),
             (0, "discard 6m"), (1, "pong"), (1, "discard 4z"), (2, "discard 4s"), (3, "discard 5s"),
             (0, "discard 7m"), (1, "pong"), (1, "discard 6z"), (2, "discard 6s"), (3, "discard 7s"),
             (0, "discard 2z"), (1, "kong 5m"), (1, "win")]
    scores, s = play(wall, 0, moves, base=100)
    assert (s["patterns"], s["shaozhuang"], s["input"]["hubao"]) == ({"杠上开花": 5}, 1, [[0, 1]])
    assert scores == s["scores"] == [-1800, 1600, 100, 100]


def test_an_exposed_kong_of_the_haidi_discard_wins_on_its_replacement_without_haidi():
    # East draws the last live tile wall[120] = 5z and discards it; South (555z 123m 456m 789p 1s) may pong or kong
    # it: the kong's replacement wall[-2] = 1s comes from the reserve, though the live wall is empty, and wins:
    # 杠上开花 5 alone (a self-draw on a replacement, not on the last live tile: no 海底捞月), 3 x 5 from the others.
    wall = wall_of(swaps=[(120, "5z")], hands={1: "555z123m456m789p1s"}, indicator="8s", tail="1s", seed=1)
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall, "dealer": 0})
    seen = []

    def kong_last(seat, st):  # (called only where 'win' is legal: record the moment, then take the win)
        seen.append((int(st.live_pos[0]), bool(st.after_kong[0])))
        return seat == 1
    scores, s = play(wall, 0, [], win_when=kong_last, env=env,
                     claim=lambda seat, st, legal: "kong" if "kong" in legal and st.claim_last[0] else None)
    assert seen == [(121, True)]
    assert s["patterns"] == {"杠上开花": 5} and s["input"]["situation"]["last_tile"] is False
    assert scores == s["scores"] == [-5, 15, -5, -5]


def test_two_winners_under_multiple_winners_pay_shaozhuang_once():
    # multiple_winners=True: one round of 1z, then East's 5m is won by South (46m 123p 567p 234s 77z: 庄 1 +
    # 门清无惠 1 + 捉五魁 2 = 4) and West (34m 456s 678s 11p 999p: 庄 1 + 门清无惠 1 + 推倒和 1 = 3), each from East.
    # Each win's object carries the hand's 烧庄 line; the hand pays it once: East -3, others +1.
    wall = wall_of(hands={0: "1z5m", 1: "1z46m123p567p234s7z", 2: "1z34m456s678s11p99p", 3: "1z"}, draws="7z9p2z3z",
                   indicator="8s")
    env = mj_env.env(rules="beijing", multiple_winners=True, render_mode="ansi")
    env.reset(options={"wall": wall, "dealer": 0})
    moves = [(0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "discard 1z"), (0, "discard 5m"),
             (1, "win"), (2, "win")]
    scores, s = play(None, 0, moves, env=env)
    assert [(w["fan"], w["scores"]) for w in s["wins"]] == [(4, [-7, 5, 1, 1]), (3, [-6, 1, 4, 1])]
    assert [answer(json.dumps(w["input"], ensure_ascii=False))["scores"] for w in s["wins"]] == [[-7, 5, 1, 1],
                                                                                                 [-6, 1, 4, 1]]
    assert s["shaozhuang"] == 1 and scores == s["scores"] == [-10, 5, 4, 1]
    assert env.render().splitlines()[-1].endswith("; 烧庄 1 | scores -10 +5 +4 +1")


@pytest.mark.parametrize("west, robs", [("123m456m999p78s11z", True), ("123m456m999p55p11z", False)],
                         ids=["waits-on-9s", "9s-only-as-wildcard"])
def test_an_added_kong_of_the_hui_kind_is_robbed_at_face_value(west, robs):
    # South pongs East's 9s (the 惠牌 kind, face value) and adds the fourth 9s. West waiting on 6s/9s (78s) robs
    # it as a plain 9s: 推倒和 1 (the winning tile is of the 惠牌 kind: no 门清无惠), South pays as the discarder.
    # West waiting on 5p/1z would need the 9s as a wildcard, which a tile from another seat never is: not asked;
    # the kong completes and South takes its replacement turn.
    wall = wall_of(hands={0: "9s", 1: "99s1z2z3z4z5z6z7z1m4m7m1p", 2: west}, draws="2p3p4p9s", indicator="8s", tail="5s")
    moves = [(0, "discard 9s"), (1, "pong"), (1, "discard 2z"), (2, "discard 2p"), (3, "discard 3p"),
             (0, "discard 4p")]
    env = mj_env.env(rules="beijing")
    env.reset(options={"wall": wall, "dealer": 0})
    if robs:
        scores, s = play(None, 0, [*moves, (1, "kong 9s"), (2, "win")], env=env)
        assert s["patterns"] == {"推倒和": 1} and s["input"]["situation"]["robbed_kong"] is True
        assert scores == s["scores"] == [0, -1, 1, 0]
        return
    for seat, action in moves:
        while action != "pong" and "pass" in _legal(env):  # a claim window on the discard before: pass
            env.step(A.index("pass"))
        assert env.agent_selection == f"player_{seat}"
        env.step(A.index(action))
    env.step(A.index("kong 9s"))
    assert env.agent_selection == "player_1" and "discard 5s" in _legal(env)


def test_the_seeds_first_worked_example_played_out_and_piped_to_the_calculator():
    # docs/RULES.md 6.1 example 1, base 2000: one round of 1z (South's 6m breaks the second), East pongs West's 7s and
    # self-draws 5z: 111m 999p 222s 55z + 777s: 庄 1 + 对对和 2 = 3, +9 / -3 each; 烧庄 East -3, others +1:
    # East +12000, the others -4000. Its input, piped to `python -m mj_env.score`, gives the same settlement.
    import subprocess
    import sys
    wall = wall_of(hands={0: "1z111m999p222s77s5z3z", 1: "1z", 2: "1z", 3: "1z"}, draws="2m3m4m4z6m7s8m2p3p5z",
                   indicator="8s")
    moves = [(0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "discard 1z"), (0, "discard 4z"),
             (1, "discard 6m"), (2, "discard 7s"), (0, "pong"), (0, "discard 3z"), (1, "discard 8m"),
             (2, "discard 2p"), (3, "discard 3p"), (0, "win")]
    scores, s = play(wall, 0, moves, base=2000)
    assert (s["patterns"], s["shaozhuang"]) == ({"庄": 1, "对对和": 2}, 1)
    assert scores == s["scores"] == [12000, -4000, -4000, -4000]
    out = subprocess.run([sys.executable, "-m", "mj_env.score"], check=False, input=json.dumps(s["input"]) + "\n",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout) == {k: v for k, v in s.items() if k != "input"}
