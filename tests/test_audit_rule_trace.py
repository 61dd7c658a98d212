"""Rule-by-rule trace of docs/RULES.md 3, 4, 5 and 6.4: scripted scenarios for rule sentences that no other
test pinned on every engine path (the reference engine, a one-table ``Engine`` and a table of a batch).

Each test quotes the sentence it pins. Beijing scripts use indicator 9s (the 惠牌 is 1s).
"""
from __future__ import annotations

import pytest
from scenario_helpers import BEIJING, HEBEI, QUEMEN, ROB, flower_counts, meld, names, play, settled, tile


def _claims(g) -> list[str]:
    return [n for n in names(g) if not n.startswith("discard")]


def test_no_win_in_the_turn_after_ones_own_pong(new_game):
    """docs/RULES.md 4 (item 3): "After pong or chi the claimer discards (no kong and no win in that same
    turn)". Under hebei seat 2 (55m 123p 456p 789p 11s) may win on the dealer's 5m; it pongs instead, and
    its hand (555m pong + 123p 456p 789p 11s) is a complete shape: still no win is offered."""
    g = new_game(HEBEI, hands={0: "111z222z333z44z5m", 2: "55m123p456p789p11s"})
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (2, ["win", "pass", "pong"])
    play(g, (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2) and _claims(g) == []
    assert all(n.startswith("discard") for n in names(g))


def test_no_win_in_the_turn_after_ones_own_chi(new_game):
    """docs/RULES.md 4 (item 3): "After pong or chi the claimer discards (no kong and no win in that same
    turn)". Under beijing seat 1 (46m 123p 456p 789p 11m, concealed) may win on the dealer's 5m or chi it;
    after the chi its hand (chi 456m + 123p 456p 789p 11m) is complete, yet only discards are legal."""
    g = new_game(BEIJING, hands={0: "111z222z333z44z5m", 1: "46m123p456p789p11m"})
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass", "chi 456m"])
    play(g, (1, "chi 456m"))
    assert (g.phase, g.to_act) == ("TURN", 1) and _claims(g) == []


def test_an_added_kong_of_a_copy_held_since_the_pong(new_game):
    """docs/RULES.md 4 (item 1): the player to act may declare an "added kong (补杠) of a tile matching an
    own pong" -- any such tile in hand, not only the one just drawn. Seat 1 holds 555m, pongs the dealer's
    5m (keeping the third 5m), and in its next turn (having drawn 7z) may add the 5m it held all along."""
    g = new_game(HEBEI, hands={0: "111z222z333z44z5m", 1: "555m789p234s567s6z"}, draws="7z7z7z")
    play(g, (0, "discard 5m"), (1, "pong"))
    assert _claims(g) == []  # no kong in the pong's own turn
    play(g, (1, "discard 6z"), (2, "discard 7z"), (3, "discard 7z"), (0, "discard 7z"))
    assert (g.phase, g.to_act) == ("TURN", 1) and _claims(g) == ["kong 5m"]
    play(g, (1, "kong 5m"))
    assert g.melds[1] == [meld("added_kong", "5555m", 0)]


def test_a_flower_drawn_as_a_flowers_replacement_is_laid_out_and_replaced_again(new_game):
    """docs/RULES.md 3 (quemen): "each player lays out all flowers and replaces them from the tail, repeating
    until none is in hand". The dealer's 1f is replaced by 2f, which is replaced by 3f, which is replaced
    by 5m: three flowers laid out, the 5m in hand, 14 tiles."""
    g = new_game(QUEMEN, hands={0: "123m456m789m11z22z1f"}, tail="2f3f5m")
    assert flower_counts(g) == [3, 0, 0, 0]
    assert (g.phase, g.to_act) == ("TURN", 0) and g.hands[0][tile("5m")] == 2 and sum(g.hands[0]) == 14


def test_after_ting_a_flowers_replacement_is_the_tile_just_drawn(new_game):
    """docs/RULES.md 5 (quemen): after 报听 "each turn they win or discard the tile just drawn"; with
    docs/RULES.md 3, "a flower drawn later is laid out and replaced at once", so the tile just drawn is the
    flower's replacement. The dealer declares 报听 (waiting on 7z), later draws 1f, replaced by 8m: the only
    legal action is to discard 8m."""
    hands = {0: "123m456m789m555z7z1z", 1: "22m33m44p55p66s77s8s", 2: "258m147p258s2z3z4z1p",
             3: "369m369p369s2z3z4z8p"}
    g = new_game(QUEMEN, hands=hands, draws="6z6z6z1f", tail="8m")
    play(g, (0, "ting 1z"), (1, "discard 6z"), (2, "discard 6z"), (3, "discard 6z"))
    assert flower_counts(g)[0] == 1
    assert (g.phase, g.to_act, names(g)) == ("TURN", 0, ["discard 8m"])


def test_beijing_a_hand_with_a_concealed_kong_still_wins_on_a_discard(new_game):
    """docs/RULES.md 5 (beijing): "After any chi, pong or exposed or added kong the player may only win by
    self-draw; a concealed hand (门清; concealed kongs allowed) may also win on a discard". Seat 1 declares a
    concealed kong of 2m, draws 3m from the reserve and waits on 3m/9p; the dealer's 9p is a discard win:
    庄 1 (the dealer dealt in) + 门清无惠 1 (a concealed kong keeps 门清; no 1s anywhere) + 推倒和 1 = 3."""
    hands = {0: "19m19p19s1234567z1m", 1: "2222m345p678p99p3m", 2: "147m258p369s5678s", 3: "147m258p369s2468p"}
    g = new_game(BEIJING, hands=hands, draws="6z5z5z4z", tail="3m")
    play(g, (0, "discard 7z"), (1, "kong 2m"), (1, "discard 6z"), (2, "discard 5z"), (3, "discard 5z"),
         (0, "discard 9p"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass", "pong", "chi 789p"])
    play(g, (1, "win"))
    assert g.result["patterns"] == {"庄": 1, "门清无惠": 1, "推倒和": 1} and settled(g) == [-3, 3, 0, 0]


def test_beijing_a_hand_with_a_concealed_kong_still_robs_a_kong(new_game):
    """docs/RULES.md 5 (beijing): "a concealed hand (门清; concealed kongs allowed) may also win on a discard
    and rob a kong"; 4 (item 4): "the kong's declarer pays as the discarder". In the ROB script
    (tests/scenario_helpers.py) seat 3 instead holds 3333p, declares it, draws 2s from the reserve and waits
    on 5m (46m); it robs seat 1's added kong of 5m: 捉五魁 2 + 门清无惠 1 = 3, paid by seat 1."""
    g = new_game(BEIJING, hands={**ROB["hands"], 3: "46m3333p456p789p2s"}, draws=ROB["draws"], tail="2s")
    play(g, (0, "discard 5m"), (1, "pong"), (1, "discard 7z"), (2, "discard 5z"), (3, "kong 3p"),
         (3, "discard 5z"), (0, "discard 5z"), (1, "kong 5m"))
    assert (g.phase, g.to_act, names(g)) == ("ROB", 3, ["win", "pass"])
    play(g, (3, "win"))
    assert g.result["patterns"] == {"门清无惠": 1, "捉五魁": 2} and settled(g) == [0, -3, 0, 3]


def test_beijing_each_kong_replacement_takes_the_next_reserve_tile_inward(new_game):
    """docs/RULES.md 3 (beijing): "Kong replacements start at wall[-2] and move inward"; "Each kong replacement
    takes one tile of the reserve; the reserve shrinks and is never refilled. With the reserve empty, no more
    kongs may be declared". The dealer holds 5555m and 6666m; with a reserve of two, its first kong draws
    wall[-2] (3z), its second wall[-3] (2z), and then the reserve is empty: seat 2 (444z) may only pong the 4z."""
    hands = {0: "5555m6666m123p77z4z", 1: "11m22m33m88s99s5z6z", 2: "444z789p789s12m", 3: "12345p234567s9p"}
    g = new_game(BEIJING.replace(reserve=2), hands=hands, tail="3z2z")
    play(g, (0, "kong 5m"))
    assert g.hands[0][tile("3z")] == 1 and g.hands[0][tile("2z")] == 0 and g.kong_possible()
    play(g, (0, "kong 6m"))
    assert g.hands[0][tile("2z")] == 1 and g.replacements_taken == 2 and not g.kong_possible()
    play(g, (0, "discard 4z"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong"])


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_an_exposed_kongs_replacement_turn_is_a_full_turn(new_game, rules):
    """docs/RULES.md 4 (item 3): "After an exposed kong the claimer draws a replacement and takes a full turn"
    (unlike pong and chi, whose claimer only discards). Seat 2 (444z 789p 789s 123m 5s) kongs the dealer's 4z
    and draws 5s: it may win by self-draw (杠上开花), also under beijing, where a claimed hand may still win
    by self-draw (docs/RULES.md 5).
    beijing: 杠上开花 5 alone (no 门清无惠 after an exposed kong, no 庄 on a non-dealer self-draw, no 地和 after
    a kong): each other seat pays 5. hebei: a non-dealer self-draw with X = 杠上开花 2: the dealer pays 4 + 2,
    the others 2 + 2; the exposed kong on the dealer's discard adds 3 from the dealer (docs/RULES.md 6.2)."""
    hands = {0: "19m19p19s123567z9m4z", 2: "444z789p789s123m5s"}
    g = new_game(rules, hands=hands, tail="5s")
    play(g, (0, "discard 4z"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong", "kong"])
    play(g, (2, "kong"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "kong") and "win" in names(g)
    play(g, (2, "win"))
    if rules is BEIJING:
        assert g.result["patterns"] == {"杠上开花": 5} and settled(g) == [-5, -5, 15, -5]
    else:
        assert g.result["patterns"] == {"杠上开花": 2} and settled(g) == [-6 - 3, -4, 14 + 3, -4]


def test_hui_wild_in_melds_never_fills_a_concealed_or_added_kong(new_game):
    """docs/RULES.md 5 (**Decision** ``hui_wild_in_melds``): "When True, 惠牌 in hand may complete a chi, pong
    or exposed kong" -- those three only. The dealer holds 555m and a 惠牌 (1s): no concealed kong of 5m; seat 1
    pongs the dealer's 7m with 7m + 1s, keeps its other 1s, and in its next turn (no 7m drawn) may not add the
    惠牌 to its pong. Seat 2 (55m + 1s) may take an exposed kong of the 5m the dealer discards."""
    rules = BEIJING.replace(hui_wild_in_melds=True)
    hands = {0: "555m1s19p19s12345z9m"}
    g = new_game(rules, hands=hands)
    assert _claims(g) == []
    hands = {0: "7m111z222z333z4z5z6z7z", 1: "7m1s1s11p22p33p44s5s", 2: "11m22m33m77s88s99s6z",
             3: "46m123p456p22s55z7z"}
    g = new_game(rules, hands=hands, draws="9p9p9p8p")
    play(g, (0, "discard 7m"), (1, "pong"), (1, "discard 5s"), (2, "discard 9p"), (3, "discard 9p"),
         (0, "discard 9p"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.hands[1][tile("1s")] == 1 and _claims(g) == []
    g = new_game(rules, hands={0: "5m9m19p19s1234567z", 2: "55m1s258p369s147p"})
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong", "kong"])
