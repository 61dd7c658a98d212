"""Scripted scenarios that pin rules which, before them, only the engine-against-reference
random test caught (from a spec audit and AST mutation runs over mj_env/legal.py,
mj_env/engine.py and mj_env/claims.py). Each runs on both engines through ``new_game``
(tests/conftest.py) unless it needs the batched engine's next hand.

Beijing scripts use indicator 9s, so the 惠牌 (wildcard) is 1s.
"""
from __future__ import annotations

import numpy as np
import pytest
from ref_engine import END
from scenario_helpers import (
    BEIJING,
    HEBEI,
    QUEMEN,
    ROB,
    ROB_MOVES,
    flower_counts,
    meld,
    names,
    play,
    settled,
    tile,
    tiles,
)
from walls import build_wall

from mj_env.actions import index
from mj_env.engine import Engine
from mj_env.render import render_table
from mj_env.rules import get_rules
from mj_env.state import TURN as FAST_TURN
from mj_env.tiles import glyph

# Seat 0 (dealer) holds four 5m; seat 3 waits on 5m (46m) with a concealed hand.
CONCEALED_KONG = {0: "5555m111z222z333z4z", 1: "11m22m33m77s88s99s6z", 2: "234s567s789s12m7z7z",
                  3: "46m123p456p789p22s"}


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_a_concealed_kong_cannot_be_robbed(new_game, rules):
    # docs/RULES.md 4 (item 4): only an added kong can be robbed; seat 3, waiting on 5m, is not asked
    g = new_game(rules, hands=CONCEALED_KONG, tail="3m")
    play(g, (0, "kong 5m"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 0, "kong")
    assert g.kongs == [(0, "concealed", None)] and g.turn_tile == tile("3m")


# Seat 1 holds two 惠牌 (1s) and waits on 1s at face value (23s); the dealer discards a 1s.
HUI_ON_THE_DISCARD = {0: "1s111z222z333z4z5z6z7z", 1: "123m456m789p23s1s1s", 2: "11m22m33m77s88s99s6z",
                      3: "46m123p456p22s55z7z"}


def test_a_discarded_hui_kind_tile_is_not_a_third_hui(new_game):
    # docs/RULES.md 5: three 惠牌 win only by self-draw. A 1s on the discard counts at face value,
    # so seat 1 holds two 惠牌, not three, and may win on it.
    g = new_game(hands=HUI_ON_THE_DISCARD)
    play(g, (0, "discard 1s"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass", "pong", "chi 123s"])
    play(g, (1, "win"))
    assert g.phase == END and g.winners == [1] and g.wins[0]["discarder"] == 0
    # 庄 1 (the dealer pays) + 地和 8, which takes the place of 推倒和; no 门清无惠 (惠牌 held)
    assert g.result["patterns"] == {"庄": 1, "地和": 8} and settled(g) == [-9, 9, 0, 0]


def test_the_dealer_stays_when_among_several_winners():
    # docs/RULES.md 2: the dealer keeps the deal when the dealer wins, also as one of several
    # winners on one discard (hebei). Seats 1 and 2 (the dealer) both wait on 5m.
    rules = get_rules("hebei", hands_per_episode=2)
    hands = {2: "46m123s456s789s66z1z", 3: "5m11m22m33m77p88p2z3z", 0: "99m11p99p44s77s3z4z7z",
             1: "46m234p567p789p55z"}
    eng = Engine(rules, num_tables=1, seed=0)
    eng.reset(walls=[build_wall(rules, hands=hands, dealer=2, draws="7z")], dealers=[2])
    res = None
    for action in ["discard 1z", "discard 5m", "win", "win"]:
        res = eng.step(np.array([index(action)]))
    assert res.hand_over[0] and not res.episode_over[0]
    wins = res.settlements[0]["wins"]
    assert [w["input"]["winner"] for w in wins] == [1, 2]
    assert int(eng.state.dealer[0]) == 2 and int(eng.state.hands_played[0]) == 1
    assert (eng.state.phase[0], int(eng.state.to_act[0])) == (FAST_TURN, 2)


def test_no_kong_in_the_turn_after_ones_own_pong(new_game):
    # docs/RULES.md 4 (item 3): after a pong the claimer discards, no kong in that turn. Seat 1 holds
    # four 1p and pongs the dealer's 7m: its turn offers discards only, not "kong 1p".
    hands = {0: "7m111z222z333z4z5z6z7z", 1: "77m1111p22p3p44s5s6s", 2: "11m22m33m77s88s99s6z",
             3: "46m234p456p22s55z7z"}
    g = new_game(hands=hands)
    play(g, (0, "discard 7m"))
    assert (g.to_act, names(g)) == (1, ["pass", "pong"])
    play(g, (1, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert all(n.startswith("discard") for n in names(g)), names(g)


def test_pong_under_hui_wild_in_melds_spends_natural_tiles_first(new_game):
    # one natural 7m and two 惠牌 (1s): a pong of the discarded 7m takes the natural 7m and one
    # 惠牌, leaving the other 惠牌 in hand
    rules = BEIJING.replace(hui_wild_in_melds=True)
    hands = {0: "7m111z222z333z4z5z6z7z", 1: "7m1s1s11p22p33p44s5s", 2: "11m22m33m77s88s99s6z",
             3: "46m123p456p22s55z7z"}
    g = new_game(rules, hands=hands)
    play(g, (0, "discard 7m"))
    assert g.to_act == 1 and "pong" in names(g)
    play(g, (1, "pong"))
    assert g.melds[1] == [meld("pong", "777m", 0)]
    assert g.hands[1][tile("7m")] == 0 and g.hands[1][tile("1s")] == 1


def test_no_second_kong_on_an_added_kong_under_hui_wild_in_melds(new_game):
    # docs/RULES.md 4 (item 1): an added kong needs an own pong of the tile. With hui_wild_in_melds a pong of
    # 7m holds two natural 7m and a 惠牌 (1s), so two 7m are still to come: seat 1 draws the third and adds
    # it to the pong (a kong now), then draws the fourth as the kong's replacement: no kong of 7m any more.
    rules = BEIJING.replace(hui_wild_in_melds=True)
    hands = {0: "7m111z222z333z4z5z6z7z", 1: "7m1s1s11p22p33p44s5s", 2: "11m22m33m77s88s99s6z",
             3: "46m123p456p22s55z7z"}
    g = new_game(rules, hands=hands, draws="9p9p9p7m", tail="7m")
    play(g, (0, "discard 7m"), (1, "pong"), (1, "discard 5s"), (2, "discard 9p"), (3, "discard 9p"),
         (0, "discard 9p"))
    assert (g.phase, g.to_act) == ("TURN", 1) and "kong 7m" in names(g)
    play(g, (1, "kong 7m"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.hands[1][tile("7m")] == 1
    assert "kong 7m" not in names(g) and "discard 7m" in names(g)


def test_quemen_flowers_are_replaced_in_play_order_from_the_dealer(new_game):
    # docs/RULES.md 3: flowers are laid out and replaced seat by seat from the dealer, each
    # replacement from the tail; seat 1's flower is replaced before seat 3's
    hands = {1: "1f123m789m123p789p", 3: "2f123s789s123p789p"}
    g = new_game(QUEMEN, hands=hands, tail="5m6z")
    assert g.hands[1][tile("5m")] == 1 and g.hands[3][tile("6z")] == 1


def test_no_kong_after_ting(new_game):
    # docs/RULES.md 5 (quemen): after 报听 the seat wins or discards the tile just drawn. Seat 0
    # declares 报听 waiting on 7z with 555z in hand and then draws the fourth 5z: no "kong 5z".
    hands = {0: "123m456m789m555z7z1z", 1: "22m33m44p55p66s77s8s", 2: "258m147p258s2z3z4z1p",
             3: "369m369p369s2z3z4z8p"}
    g = new_game(QUEMEN, hands=hands, draws="6z6z6z5z")
    assert "ting 1z" in names(g)
    play(g, (0, "ting 1z"), (1, "discard 6z"), (2, "discard 6z"), (3, "discard 6z"))
    assert (g.phase, g.to_act, names(g)) == ("TURN", 0, ["discard 5z"])


@pytest.mark.parametrize("ting", [True, False], ids=["ting", "no-ting"])
def test_no_claim_but_a_win_after_ting(new_game, ting):
    # docs/RULES.md 5 (quemen): after 报听 a seat "make[s] no claim but a win". The dealer holds 222p and
    # discards 1m, with 报听 or without; seat 1 discards the 2p it draws. Only the seat that did not
    # declare is asked for the pong and the exposed kong (from a mutation test of the batched claim
    # options, which BatchedFastGame takes).
    g = new_game(QUEMEN, hands={0: "1m222p567p789p11z22z", 1: "13579m13579s246z"}, draws="2p")
    play(g, (0, "ting 1m" if ting else "discard 1m"), (1, "discard 2p"))
    if ting:
        assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "live")
    else:
        assert (g.phase, g.to_act, names(g)) == ("CLAIM", 0, ["pass", "pong", "kong"])


def test_a_discard_win_after_a_kong_replacement_is_not_after_a_kong(new_game):
    # hebei: 杠上开花 is a self-draw on the kong's replacement; seat 3 winning on the tile the
    # dealer discarded after its kong replacement is a plain discard win (situation.after_kong off)
    hands = {0: "5555m111z222z333z4z", 1: "11m22m33m77s88s99s7z", 2: "234s567s789s12m7z7z",
             3: "123p456p789p222s6z"}
    g = new_game(HEBEI, hands=hands, tail="6z")
    play(g, (0, "kong 5m"))
    assert g.turn_tile == tile("6z")
    play(g, (0, "discard 6z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "win"))
    (w,) = g.wins
    assert w["discarder"] == 0 and w["situation"]["after_kong"] is False
    assert "杠上开花" not in g.result["patterns"]


def test_quemen_flowers_laid_out_count_in_a_self_draw(new_game):
    # docs/RULES.md 6.3: 花牌 +1 per flower laid out. Seat 1 is dealt two flowers, replaced from
    # the tail by 5z 5z, and self-draws 1z on its first draw.
    hands = {0: "19m19p19s1234567z9m", 1: "1f2f123m456m789m11z", 2: "22m33m44p55p66s77s8s",
             3: "369m369p369s2z3z4z8p"}
    g = new_game(QUEMEN, hands=hands, tail="5z5z", draws="1z")
    assert flower_counts(g) == [0, 2, 0, 0]
    play(g, (0, "discard 7z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("1z")) and "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["flowers"] == 2 and w["discarder"] is None
    # 混一色 1 + 地胡 2 + 花牌 2 = 5; a self-draw: each of the three others pays 5
    assert g.result["patterns"] == {"混一色": 1, "地胡": 2, "花牌": 2} and settled(g) == [-5, 15, -5, -5]


def test_a_chi_with_a_hui_lists_its_physical_tiles_in_the_win(new_game):
    # hui_wild_in_melds: seat 1 chis the dealer's 5m with 4m and a 惠牌 (1s) standing for 3m, then
    # self-draws 2z. The win's input lists the meld's physical tiles: 4m 5m and the 1s (3m is not
    # in it), so the calculator sees which tiles the meld took.
    rules = BEIJING.replace(hui_wild_in_melds=True)
    hands = {0: "5m111z333z444z5z9m9p8p", 1: "4m1s123p456p789s2z7z", 2: "11m22m33m77s88s99s3p",
             3: "46p55p88p23s56s2m7m9m"}
    g = new_game(rules, hands=hands, draws="6z6z6z2z")
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act) == ("CLAIM", 1) and "chi 345m" in names(g)
    play(g, (1, "chi 345m"))
    if hasattr(g, "engine"):  # the batched engine's text picture shows the same physical tiles, in run order
        assert "melds chi " + "".join(glyph(t) for t in tiles("1s4m5m")) in render_table(rules, g.engine.state, 0)
    play(g, (1, "discard 7z"), (2, "discard 6z"), (3, "discard 6z"), (0, "discard 6z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("2z")) and "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["melds"] == [{"type": "chi", "tiles": "45m1s", "from": 0}] and w["discarder"] is None


# 烧庄 in 3m: the dealer discards its 3m, seats 1-3 each draw a 3m and discard it; the dealer, next after
# seat 3, can chi the fourth 3m with its 45m. The second round is led by the dealer's 6z.
SHAOZHUANG_3M = {"hands": {0: "345m1z2z3z4z258p369s7z", 1: "77m88m66p77p88s99s2z", 2: "66m678p678s22z33z4z",
                           3: "99m11p22p33s44s55s1z"}, "draws": "3m3m3m"}


def test_a_shaozhuang_round_counts_when_its_fourth_discard_is_claimed(new_game):
    # docs/RULES.md 6.1: "if the three others discard the same tile kind in turn, with no claim in between,
    # that is one round"; the claim comes after the round's fourth discard, so the round stands and the
    # claim ends 烧庄 for the rounds after it (docs/game_flow.md)
    g = new_game(**SHAOZHUANG_3M)
    play(g, (0, "discard 3m"), (1, "discard 3m"), (2, "discard 3m"), (3, "discard 3m"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 0, ["pass", "chi 345m"])
    play(g, (0, "chi 345m"))
    assert g.shaozhuang_rounds == 1 and not g.shaozhuang_alive
    assert (g.phase, g.to_act) == ("TURN", 0) and g.melds[0] == [meld("chi", "345m", 3)]


def test_each_shaozhuang_round_may_have_its_own_tile(new_game):
    # docs/RULES.md 6.1: "each further consecutive round of four equal discards adds one": four 3m, then four
    # 6z (the dealer's, then three drawn and discarded) are two rounds (docs/game_flow.md: *Reading*)
    g = new_game(hands={**SHAOZHUANG_3M["hands"], 0: "3m6z1z2z3z4z258p369s7z7z", 2: "66m678p678s22z33z4z"},
                 draws="3m3m3m" + "9p" + "6z6z6z")  # the dealer draws 9p before leading 6z
    play(g, (0, "discard 3m"), (1, "discard 3m"), (2, "discard 3m"), (3, "discard 3m"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive and (g.phase, g.to_act) == ("TURN", 0)
    play(g, (0, "discard 6z"), (1, "discard 6z"), (2, "discard 6z"), (3, "discard 6z"))
    assert g.shaozhuang_rounds == 2 and g.shaozhuang_alive


def test_quemen_a_flower_drawn_first_and_its_replacement_win_is_dihu(new_game):
    # docs/RULES.md 6.3: 地胡 +2, "a non-dealer self-draws on their first draw". *Reading*
    # (docs/game_flow.md): a flower's replacement belongs to the draw that brought the flower, so
    # seat 1, whose first draw is the flower 3f replaced by 1z from the tail, self-draws on its first draw
    hands = {0: "19m19p19s1234567z9m", 1: "123m456m789m11z55z", 2: "22m33m44p55p66s77s8s",
             3: "369m369p369s2z3z4z8p"}
    g = new_game(QUEMEN, hands=hands, draws="3f", tail="1z")
    play(g, (0, "discard 7z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("1z")) and "win" in names(g)
    assert flower_counts(g) == [0, 1, 0, 0]
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["discarder"] is None and w["situation"]["first_turn"] is True
    # 混一色 1 + 地胡 2 + 花牌 1 = 4; a self-draw: each of the three others pays 4
    assert g.result["patterns"] == {"混一色": 1, "地胡": 2, "花牌": 1} and settled(g) == [-4, 12, -4, -4]


def test_quemen_a_flower_between_a_kong_and_the_winning_tile_keeps_gangshang_kaihua(new_game):
    # docs/RULES.md 6.3: 杠上开花 +1. *Reading* (docs/game_flow.md): the kong's replacement is
    # the flower 1f, laid out and replaced by 5z, which wins: still the kong's replacement
    hands = {0: "1111z123m456m789p5z", 1: "2467m2467p2467s6z", 2: "888s135m135p1s234z",
             3: "1357s1357p23467z"}
    g = new_game(QUEMEN, hands=hands, tail="1f5z")
    play(g, (0, "kong 1z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tile("5z")) and "win" in names(g)
    assert flower_counts(g) == [1, 0, 0, 0]
    play(g, (0, "win"))
    (w,) = g.wins
    assert w["situation"]["after_kong"] is True and w["situation"]["first_turn"] is False
    # 平胡 1 + 杠上开花 1 + 花牌 1 = 3 from each other seat (no 天胡: a kong was declared,
    # docs/RULES.md 6.4), and the concealed kong 1 from each other seat
    assert g.result["patterns"] == {"平胡": 1, "杠上开花": 1, "花牌": 1}
    assert settled(g) == [12, -4, -4, -4]


@pytest.mark.parametrize("rules", [BEIJING, BEIJING.replace(hui_wild_in_melds=True)], ids=["beijing", "hui-in-melds"])
def test_the_rob_window_asks_only_about_the_win(new_game, rules):
    """docs/RULES.md 4.4: on an added kong only the players who may win on its tile are asked. Seat 2,
    next after the kong's declarer, holds 34m and could chi the 5m: once seat 3 passes the robbery
    the kong completes, seat 2 is not asked about a chi (with hui_wild_in_melds the batched claim_options path)."""
    layout = {**ROB, "hands": {**ROB["hands"], 2: "34m22m33m77s88s99s6z"}}
    g = new_game(rules, **layout)
    play(g, *ROB_MOVES, (1, "kong 5m"))
    assert (g.phase, g.to_act, names(g)) == ("ROB", 3, ["win", "pass"])
    play(g, (3, "pass"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert g.melds[1][0].type != "pong"  # the added kong completed
