"""Rare combinations of game flow (docs/RULES.md 2, 3, 4 and 6.4) that the scripted scenarios did not
build: the last live tile meeting 四惠牌, several winners, a chi or a pong, a claim window where one seat holds
several claims while another may beat one of them, a kong whose replacement is a flower with nothing left,
a chi across the seat order's wrap. Each expectation was written from docs/RULES.md before the hand was run;
each scenario runs on the reference engine and on the batched engine (the ``new_game`` fixture), and the
claim-window ones also through the AEC env (docs/INTERFACES.md 2).
"""
from __future__ import annotations

from scenario_helpers import (
    BEIJING,
    HEBEI,
    QUEMEN,
    flower_counts,
    names,
    pass_and_discard_drawn,
    play,
    settled,
    tile,
)
from walls import build_wall, swap_in

import mj_env
from mj_env import actions as A
from mj_env.tiles import code

END = "END"


def _to_the_last_live_turn(g) -> None:
    while not (g.phase == "TURN" and g.live_next == g.live_end) and g.phase != END:
        pass_and_discard_drawn(g)


# ---------------------------------------------------------------------------------------------
# beijing: the last live tile
# ---------------------------------------------------------------------------------------------

def test_four_hui_completed_by_the_last_live_tile_scores_sihui_and_zhuang_only(new_game):
    # docs/RULES.md 5 and 6.4: the dealer holds three 惠牌 (1s, indicator 9s) and draws the fourth as the last live
    # tile (wall[120]): it wins at once, no decision asked. 四惠牌 is "scored with 庄 only" (6.1): no 海底捞月
    # beside it, though the calculator line says the win came on the last live tile. 3 x (8 + 1) from each seat.
    wall = swap_in(build_wall(BEIJING, indicator="9s", hands={0: "123m456m789m111s5z9m"}, seed=1), [(120, "1s")])
    g = new_game(wall=wall)
    _to_the_last_live_turn(g)
    assert g.phase == END and g.winners == [0] and g.live_next == 121
    (w,) = g.wins
    assert (w["win_tile"], w["discarder"], w["situation"]["last_tile"]) == ("1s", None, True)
    assert g.result["patterns"] == {"庄": 1, "四惠牌": 8} and g.result["shaozhuang"] == 0
    assert settled(g) == [27, -9, -9, -9] and g.next_dealer == 0


HAIDI_CHI = {0: "123m456m789m123p5z9m", 1: "34p6z234s567s789s1z", 2: "11m22m33m77p88p99p6z",
             3: "4m5m6m2s3s4s5s6s7s8s2z3z4z"}


def test_a_chi_of_the_last_live_tiles_discard_makes_the_next_discard_no_haidi(new_game):
    # The dealer draws the last live tile (5p) and lets it go; seat 1, the next seat, chis it (345p) and
    # discards 6z, on which seat 2 wins seven pairs: that discard came after a claim, not right after drawing
    # the last live tile (docs/RULES.md 6.1), so no 海底捞月: 门清无惠 1 + 七对子 4 = 5 from seat 1.
    wall = swap_in(build_wall(BEIJING, indicator="9s", hands=HAIDI_CHI), [(120, "5p")])
    g = new_game(wall=wall)
    _to_the_last_live_turn(g)
    assert (g.to_act, g.turn_tile, g.drew_last) == (0, tile("5p"), True)
    play(g, (0, "discard 5p"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "chi 345p"])
    play(g, (1, "chi 345p"))
    assert (g.phase, g.to_act, g.turn_source, g.drew_last) == ("TURN", 1, "claim", False)
    assert "win" not in names(g) and not [n for n in names(g) if n.startswith("kong")]
    play(g, (1, "discard 6z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass"])
    play(g, (2, "win"))
    assert g.wins[0]["situation"]["last_tile"] is False
    assert g.result["patterns"] == {"门清无惠": 1, "七对子": 4}
    assert settled(g) == [0, -5, 5, 0] and g.next_dealer == 3  # the deal passes to (dealer - 1) % 4


def test_the_discard_after_a_chi_of_the_last_live_tiles_discard_ends_the_hand_drawn(new_game):
    # Nobody wins seat 1's discard: seat 2 must draw from an empty live wall, the hand is drawn (荒牌) although
    # the reserve is full, and the dealer stays (docs/RULES.md 2, 3).
    wall = swap_in(build_wall(BEIJING, indicator="9s", hands=HAIDI_CHI), [(120, "5p")])
    g = new_game(wall=wall)
    _to_the_last_live_turn(g)
    play(g, (0, "discard 5p"), (1, "chi 345p"), (1, "discard 6z"), (2, "pass"))
    assert g.phase == END and g.wins == [] and g.result["draw"] is True
    assert settled(g) == [0, 0, 0, 0] and g.next_dealer == 0


# ---------------------------------------------------------------------------------------------
# beijing: claim windows where one seat holds several claims
# ---------------------------------------------------------------------------------------------

# Seat 1 (the next seat) may win on the dealer's 5m (46m) and chi it; seat 2 may pong it.
WIN_CHI_PONG = {0: "111z222z333z44z5m", 1: "46m123p456p789p22s", 2: "55m789m345s678s6z7z"}


def test_the_next_seat_may_win_or_chi_and_its_chi_waits_for_the_pong(new_game):
    # docs/RULES.md 4.2: seat 1 is asked first (it may win), once, with the win and the chi legal. Its chi is
    # beaten by seat 2's pong, so seat 2 is still asked, about the pong alone; seat 2 passes and the chi is
    # carried out: seat 1 discards (no win, no kong in that turn).
    g = new_game(hands=WIN_CHI_PONG)
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass", "chi 456m"])
    play(g, (1, "chi 456m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])
    play(g, (2, "pass"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "claim")
    assert all(n.startswith("discard") for n in names(g))
    # ... or seat 2 pongs, and the chi is dropped
    g = new_game(hands=WIN_CHI_PONG)
    play(g, (0, "discard 5m"), (1, "chi 456m"), (2, "pong"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "claim") and g.melds[1] == []


def test_the_same_window_through_the_aec_env():
    wall = build_wall(BEIJING, indicator="9s", hands=WIN_CHI_PONG)
    e = mj_env.env()
    e.reset(options={"wall": wall, "dealer": 0})

    def asked():
        mask = e.observe(e.agent_selection)["action_mask"]
        return e.agent_selection, [A.name(a) for a in mask.nonzero()[0]]

    e.step(A.index("discard 5m"))
    assert asked() == ("player_1", ["win", "pass", "chi 456m"])
    e.step(A.index("chi 456m"))
    assert asked() == ("player_2", ["pass", "pong"])
    e.step(A.index("pass"))
    agent, legal = asked()
    assert agent == "player_1" and all(n.startswith("discard") for n in legal)


def test_a_chi_across_the_wrap_of_the_seat_order(new_game):
    # Dealer North (seat 3) discards 5m: the next seat is East (seat 0), the only one that may chi it; seat 1,
    # holding 4m6m too, is not asked. East passes and draws (the seat after the discarder).
    g = new_game(dealer=3, hands={3: "111z222z333z44z5m", 0: "46m123p456p78p22s1z", 1: "46m789m345s678s6z7z"})
    play(g, (3, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 0, ["pass", "chi 456m"])
    play(g, (0, "pass"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 0, "live")


def test_dihe_on_a_non_dealers_first_discard_has_no_zhuang(new_game):
    # docs/RULES.md 6.1: 地和 is a non-dealer's win before its first discard with no claim by anyone; the
    # discard need not be the dealer's. Seat 1 discards its first tile (the 5m it drew) and seat 3, which has not
    # discarded, wins on it (4m6m: 5m is its only wait): 地和 8 + 门清无惠 1 + 一条龙 3 + 捉五魁 2, no 庄 (the dealer
    # is not in it), 14 from seat 1.
    g = new_game(hands={0: "111z222z333z44z7z", 1: "19m19p19s1234567z", 3: "46m123p456p789p22s"}, draws="5m")
    play(g, (0, "discard 7z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("5m"))
    play(g, (1, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "win"))
    assert g.wins[0]["situation"]["first_turn"] is True
    assert g.result["patterns"] == {"门清无惠": 1, "捉五魁": 2, "一条龙": 3, "地和": 8}
    assert settled(g) == [0, -14, 0, 14] and g.next_dealer == 3


# ---------------------------------------------------------------------------------------------
# hebei: several winners and claims beside them
# ---------------------------------------------------------------------------------------------

def test_hebei_two_winners_on_the_last_drawable_tiles_discard_both_score_haidi(new_game):
    # 71 live draws leave the 12 kept tiles; North draws the last, wall[123] = 8m, and discards it. East (the
    # dealer, 79m) and South (67m) both win on it (docs/RULES.md 4.2: 一炮多响), each with 海底捞月 2.
    # East: dealer on a discard, base 8, X = 门清 2 + 海底捞月 2 = 4: North 12, South and West 4 each.
    # South: non-dealer on a non-dealer's discard, base 5, X = 4: North 9, East and West 4 each.
    hands = {0: "123m456p678s55z79m1z", 1: "123p456p789s66z67m", 2: "2m258p369s1234z47m", 3: "5m369p147s1234z25m"}
    wall = swap_in(build_wall(HEBEI, hands=hands), [(123, "8m")])
    g = new_game(HEBEI, wall=wall)
    while not (g.phase == "TURN" and g.drew_last):
        pass_and_discard_drawn(g)
    assert (g.to_act, g.turn_tile, g.can_draw()) == (3, tile("8m"), False)
    play(g, (3, "discard 8m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 0, ["win", "pass"])
    play(g, (0, "win"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass"])
    play(g, (1, "win"))
    assert g.phase == END and g.winners == [0, 1]
    wins = g.result["wins"]
    assert [w["input"]["situation"]["last_tile"] for w in wins] == [True, True]
    assert [w["patterns"] for w in wins] == [{"门清": 2, "海底捞月": 2}] * 2
    assert [w["scores"] for w in wins] == [[20, -4, -4, -12], [-4, 17, -4, -9]]
    assert settled(g) == [16, 13, -8, -21] and g.next_dealer == 0  # the dealer is among the winners


# Seat 1 waits on 5m (46m); seat 2 holds 55m and wins on a third 5m (555m 123s 456s 789s 11z).
WIN_AND_PONG = {0: "19m19p19s1234567z5m", 1: "46m123p456p789p22s", 2: "55m123s456s789s11z"}


def test_hebei_a_seat_that_may_win_or_pong_is_asked_about_the_win_alone_once_a_win_is_taken(new_game):
    # docs/RULES.md 4.2 (hebei): once seat 1 accepts the win, every other seat that may win is asked, and only
    # about the win: seat 2's pong is gone (no meld can follow a win).
    g = new_game(HEBEI, hands=WIN_AND_PONG)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass"])
    play(g, (1, "win"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass"])
    play(g, (2, "pass"))
    assert g.phase == END and g.winners == [1] and g.next_dealer == 1
    settled(g)
    # Seat 1 passes: seat 2 is asked once with the win and the pong.
    g = new_game(HEBEI, hands=WIN_AND_PONG)
    play(g, (0, "discard 5m"), (1, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass", "pong"])


def test_hebei_a_pong_taken_by_a_seat_that_could_win_waits_for_a_later_winner(new_game):
    # Turned one seat on: seat 2 may win or pong, seat 3 may win. Seat 2 takes the pong; seat 3, who may beat it,
    # is still asked, about the win alone. Seat 3 passes: the pong is carried out, seat 2 discards.
    hands = {0: WIN_AND_PONG[0], 2: WIN_AND_PONG[2], 3: WIN_AND_PONG[1], 1: "19m19p19s1234567z"}
    g = new_game(HEBEI, hands=hands)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (2, ["win", "pass", "pong"])
    play(g, (2, "pong"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "pass"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "claim")
    assert all(n.startswith("discard") for n in names(g))
    # Seat 3 wins instead: the pending pong is dropped, one winner.
    g = new_game(HEBEI, hands=hands)
    play(g, (0, "discard 5m"), (2, "pong"), (3, "win"))
    assert g.phase == END and g.winners == [3] and g.melds[2] == []


# ---------------------------------------------------------------------------------------------
# quemen: the wall's end, flowers and first-turn patterns
# ---------------------------------------------------------------------------------------------

def test_quemen_a_kong_whose_replacement_is_a_flower_with_nothing_left_ends_drawn_and_pays_the_kong(new_game):
    # Seven flowers are dealt (seat 1 three, seat 3 four) and replaced from wall[143] down to wall[137]; the
    # eighth flower is wall[136], the last undrawn tile. Seat 3 draws the fourth 9m at wall[135] (83 draws from
    # seat 1 on) and may still kong (a tile is left for the replacement). The replacement is the flower: laid
    # out, with nothing left to replace it, so the hand is drawn (docs/RULES.md 3) and the declared concealed
    # kong is paid, each other seat 1 (6.3: drawn or won).
    hands = {0: "2z2z1p4p7p2s5s8s3s6s9s5z6z4z", 1: "1f2f3f1m4m7m2p5p8p3s1z3z4z",
             2: "1m4m7m3p6p9p2s5s8s3z4z6z7z", 3: "4f5f6f7f999m1s5s6z7z7z"}
    wall = swap_in(build_wall(QUEMEN, hands=hands, tail="5m5m5m5p5p5p1s8f"), [(135, "9m")])
    g = new_game(QUEMEN, wall=wall)
    assert g.undrawn()[-1] >= 34 and len(g.undrawn()) == 144 - 53 - 7
    while not (g.phase == "TURN" and g.to_act == 3 and "kong 9m" in names(g)):
        pass_and_discard_drawn(g)
    assert g.live_next == 136 and len(g.undrawn()) == 1
    play(g, (3, "kong 9m"))
    assert g.phase == END and g.wins == [] and g.result["draw"] is True
    assert g.kongs == [(3, "concealed", None)]
    assert settled(g) == [-1, -1, -1, 3] and g.next_dealer == 0


def test_quemen_a_win_on_the_dealers_first_discard_is_no_dihu(new_game):
    # docs/RULES.md 6.3: 地胡 is a non-dealer's self-draw on its first draw; a win on the dealer's first discard
    # is none (beijing's 地和 would count it). Seat 1 (m and p, no s) wins on 5m: 平胡 1 from the dealer.
    g = new_game(QUEMEN, hands={0: "111z222z333z44z5m", 1: "46m123p456p789p55z"})
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass"])
    play(g, (1, "win"))
    assert g.wins[0]["situation"]["first_turn"] is True
    assert g.result["patterns"] == {"平胡": 1}
    assert settled(g) == [-1, 1, 0, 0] and g.next_dealer == 1


# ---------------------------------------------------------------------------------------------
# the same end-of-wall hands through the AEC env
# ---------------------------------------------------------------------------------------------

def _aec_until(e, stop):
    """Step the AEC env with every seat passing each claim and discarding the tile it just drew (the first
    legal discard after a claim) until ``stop(e, legal names)`` holds or the hand is over; returns the summed
    rewards."""
    totals = dict.fromkeys(e.possible_agents, 0)
    while True:
        agent = e.agent_selection
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            return totals
        legal = [A.name(a) for a in obs["action_mask"].nonzero()[0]]
        if stop(e, legal):
            return totals
        drawn = int(e.unwrapped.engine.state.drawn[0])  # the discard action of a tile is its index
        if "pass" in legal:
            act = "pass"
        elif drawn >= 0 and A.name(drawn) in legal:
            act = A.name(drawn)
        else:
            act = next(n for n in legal if n.startswith("discard"))
        assert e.agent_selection == agent
        e.step(A.index(act))
        for a in e.possible_agents:
            totals[a] += e.rewards[a]


def test_aec_four_hui_on_the_last_live_tile_and_a_flower_replacing_a_kong_at_the_walls_end():
    wall = swap_in(build_wall(BEIJING, indicator="9s", hands={0: "123m456m789m111s5z9m"}, seed=1), [(120, "1s")])
    e = mj_env.env()
    e.reset(options={"wall": wall, "dealer": 0})
    totals = _aec_until(e, lambda e, legal: False)
    s = e.infos["player_0"]["settlement"]
    assert s["patterns"] == {"庄": 1, "四惠牌": 8} and s["input"]["situation"]["last_tile"] is True
    assert list(totals.values()) == s["scores"] == [27, -9, -9, -9]
    assert all(e.terminations.values())

    hands = {0: "2z2z1p4p7p2s5s8s3s6s9s5z6z4z", 1: "1f2f3f1m4m7m2p5p8p3s1z3z4z",
             2: "1m4m7m3p6p9p2s5s8s3z4z6z7z", 3: "4f5f6f7f999m1s5s6z7z7z"}
    wall = swap_in(build_wall(QUEMEN, hands=hands, tail="5m5m5m5p5p5p1s8f"), [(135, "9m")])
    e = mj_env.env(rules="quemen")
    e.reset(options={"wall": [code(t) for t in wall], "dealer": 0})
    totals = _aec_until(e, lambda e, legal: "kong 9m" in legal)
    assert e.agent_selection == "player_3"
    e.step(A.index("kong 9m"))
    for a in e.possible_agents:
        totals[a] += e.rewards[a]
    s = e.infos["player_0"]["settlement"]
    assert s["draw"] is True and s["scores"] == s["kong_scores"] == [-1, -1, -1, 3]
    assert list(totals.values()) == [-1, -1, -1, 3] and all(e.terminations.values())


def test_an_exposed_kong_offered_beside_a_win_and_a_pong_then_a_full_turn(new_game):
    # docs/RULES.md 4.2-4.3: seat 2 (555m67m123p456p99p, concealed) may win on the dealer's 5m, pong it or kong
    # it: asked once with all three. It kongs: a replacement from the reserve (8m) and a full turn, where it
    # wins by self-draw: 杠上开花 5 alone (the exposed kong opened the hand: no 门清无惠), 3 x 5.
    hands = {0: "111z222z333z44z5m", 1: "19m19p19s1234z6z", 2: "555m67m123p456p99p"}
    g = new_game(hands=hands, tail="8m")
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass", "pong", "kong"])
    play(g, (2, "kong"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 2, "kong", tile("8m"))
    assert "win" in names(g)
    play(g, (2, "win"))
    assert g.result["patterns"] == {"杠上开花": 5}
    assert settled(g) == [-5, -5, 15, -5] and g.next_dealer == 3


def test_quemen_a_seat_that_declared_ting_robs_an_added_kong_and_the_win_is_doubled(new_game):
    # docs/RULES.md 4.4 and 5: seat 3 (46m123p456p789p66z: no bamboo) passes the dealer's 5m, declares 报听 with
    # a 5z, and robs seat 1's added kong of 5m (a win is the one claim left to it): 平胡 1, doubled by 报听
    # (6.3), paid by the declarer as the discarder; the robbed kong is no kong, so no kong payment.
    hands = {0: "111z222z333z44z5m", 1: "55m789p234s567s6z7z", 2: "11m22m33m77s88s99s6z", 3: "46m123p456p789p66z"}
    g = new_game(QUEMEN, hands=hands, draws="5z5z5z5m", tail="3m")
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (3, ["win", "pass"])
    play(g, (3, "pass"), (1, "pong"), (1, "discard 7z"), (2, "discard 5z"))
    assert (g.to_act, g.turn_tile) == (3, tile("5z")) and "ting 5z" in names(g)
    play(g, (3, "ting 5z"), (0, "discard 5z"))
    assert (g.to_act, g.turn_tile) == (1, tile("5m")) and "kong 5m" in names(g)
    play(g, (1, "kong 5m"))
    assert (g.phase, g.to_act, names(g)) == ("ROB", 3, ["win", "pass"])
    play(g, (3, "win"))
    (w,) = g.wins
    assert (w["discarder"], w["ting"], w["situation"]["robbed_kong"]) == (1, True, True)
    assert g.result["patterns"] == {"平胡": 1} and g.kongs == []
    assert settled(g) == [0, -2, 0, 2] and g.next_dealer == 1


def test_aec_hebei_match_two_winners_without_the_dealer_pass_the_deal_on():
    # docs/RULES.md 2: a match of two hands (hands_per_episode=2). Seats 1 and 3 both win on the dealer's 5m
    # (test_scenarios.py's TWO_WINNERS hands): the dealer is not among the winners, so the deal passes to seat 1,
    # who acts first in the next hand; the hand's rewards come at once and the episode goes on.
    hands = {0: "111z222z333z44z5m", 1: "46m234p567p789p55z", 2: "55m789m345s678s6z7z", 3: "123p456p789p222s5m"}
    e = mj_env.env(rules="hebei", hands_per_episode=2)
    e.reset(seed=3, options={"wall": [code(t) for t in build_wall(HEBEI, hands=hands)], "dealer": 0})
    totals = dict.fromkeys(e.possible_agents, 0)
    for seat, act in [(0, "discard 5m"), (1, "win"), (3, "win")]:
        assert e.agent_selection == f"player_{seat}"
        e.step(A.index(act))
        for a in e.possible_agents:
            totals[a] += e.rewards[a]
    assert list(totals.values()) == e.infos["player_2"]["settlement"]["scores"] == [-23, 23, -11, 11]
    st = e.unwrapped.engine.state
    assert (int(st.dealer[0]), int(st.hands_played[0]), e.agent_selection) == (1, 1, "player_1")
    assert not any(e.terminations.values()) and not any(e.truncations.values())


def test_quemen_deal_flowers_from_a_dealer_other_than_east_each_seat_done_before_the_next(new_game):
    # docs/RULES.md 3: "starting with the dealer in play order, each player lays out all flowers and replaces them
    # from the tail, repeating until none is in hand". Dealer West (seat 2) holds 1f, East (seat 0) 2f. West's 1f
    # takes the tail's 3f, laid out and replaced at once by 5m, before North (none) and then East, whose 2f takes
    # 6z: West holds the 5m, East the 6z (read round by round, East would have taken the 5m).
    hands = {2: "1f123m789m123p789p", 0: "2f123s789s456p789p"}
    g = new_game(QUEMEN, dealer=2, hands=hands, tail="3f5m6z")
    assert (g.phase, g.to_act) == ("TURN", 2)
    assert g.hands[2][tile("5m")] == 1 and g.hands[0][tile("6z")] == 1
    assert sum(g.hands[2]) == 14 and sum(g.hands[0]) == 13 and g.replacements_taken == 3
    assert flower_counts(g) == [1, 0, 2, 0]
