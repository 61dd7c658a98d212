"""Direct tests for readings of docs/game_flow.md that no test held before the reading-by-reading
trace of that page (the reading was broken by hand in the engine, one minimal edit, and each test here fails under that
breakage and passes on the code; engine-against-reference random play was the only test that caught two of
them)."""
from __future__ import annotations

import pytest
from scenario_helpers import BEIJING, QUEMEN, names, play, tile

# Seat 2 pongs the dealer's 5z; seat 1 keeps the fourth 5z and, drawing 1p, may 报听 by discarding 7z:
# 123m456m789m111p5z waits on 5z alone. Three 5z are in seat 2's pong, one is seat 1's own.
OTHERS_PONG = {0: "147m258p369s1234z5z", 1: "123m456m789m11p5z7z", 2: "55z123s456s789s11s",
               3: "147m258p369s1234z"}


def test_quemen_ting_counts_only_the_seats_own_copies_of_a_wait(new_game):
    # docs/game_flow.md, TURN (ting X): only the seat's own tiles make a kind "held four times"; copies in
    # another seat's meld leave it a wait (docs/RULES.md 6.4)
    g = new_game(QUEMEN, hands=OTHERS_PONG, draws="8p9p1p")
    play(g, (0, "discard 5z"))
    assert (g.phase, g.to_act) == ("CLAIM", 2) and "pong" in names(g)
    play(g, (2, "pong"), (2, "discard 1s"), (3, "discard 8p"), (0, "discard 9p"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert "ting 7z" in names(g)


# Beijing with 惠牌 (1s: indicator 9s) wild in melds; seat 1 holds two 1s and no tile near the dealer's 7m.
HUI_ALONE = {0: "7m111z222z333z4z5z6z7z", 1: "2m1s1s11p22p33p44s5s", 2: "11m22m33m77s88s99s6z",
             3: "46m123p456p22s55z7z"}


def test_hui_alone_fill_a_pong_and_a_chi_under_hui_wild_in_melds(new_game):
    # docs/game_flow.md, claim window (hui_wild_in_melds): a pong may be the claimed tile with 惠牌 alone,
    # and a chi the claimed tile with two 惠牌 ("natural tiles first, then as many 惠牌 as the meld lacks")
    g = new_game(BEIJING.replace(hui_wild_in_melds=True), hands=HUI_ALONE)
    play(g, (0, "discard 7m"))
    assert (g.phase, g.to_act) == ("CLAIM", 1)
    assert {"pong", "chi 567m", "chi 678m", "chi 789m"} <= set(names(g)), names(g)
    play(g, (1, "pong"))
    assert g.hands[1][tile("1s")] == 0 and g.hands[1][tile("2m")] == 1


# Seat 3 pongs the dealer's 7z and then waits on 5m (46m); seat 1 pongs the dealer's 5m and draws the fourth.
OPEN_ROBBER = {0: "5m7z111z222z333z44z6z", 1: "55m789p234s567s6z7z", 2: "11m22m33m77s88s99s6z",
               3: "46m123p456p77z22s9p"}


@pytest.mark.parametrize("rules", [BEIJING, BEIJING.replace(hui_wild_in_melds=True)], ids=["beijing", "hui-in-melds"])
def test_beijing_an_open_hand_cannot_rob_an_added_kong(new_game, rules):
    # docs/game_flow.md, kongs on one's own turn: the ROB window asks the seats that could win on the tile
    # "as if discarded (same conditions as a discard win)"; beijing wins on a discard only with a concealed hand
    g = new_game(rules, hands=OPEN_ROBBER, draws="5z5z5z4z5m", tail="3m")
    play(g, (0, "discard 7z"), (3, "pong"), (3, "discard 9p"), (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "pong"])  # seat 3 (open) may not win on it
    play(g, (1, "pong"), (1, "discard 7z"), (2, "discard 5z"), (3, "discard 5z"), (0, "discard 4z"))
    assert (g.phase, g.to_act) == ("TURN", 1) and "kong 5m" in names(g)
    play(g, (1, "kong 5m"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "kong")


def test_a_turn_after_the_seats_own_pong_is_not_checked_for_four_hui(new_game):
    # docs/game_flow.md, TURN: 四惠牌 wins at the start of a turn that begins with a draw; "a turn after the
    # seat's own chi or pong draws nothing and is not checked". Seat 1 is dealt all four 惠牌 (1s) and pongs
    # the dealer's first discard before its first draw: it must discard, and wins only on a later draw.
    hands = {0: "9m5z111z222z333z4z6z7z", 1: "1s1s1s1s55z123m456m7p", 2: "11m22m33m77s88s99s6z",
             3: "46m123p456p22s3z7z7z"}
    g = new_game(hands=hands, draws="8p")
    play(g, (0, "discard 5z"), (1, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert all(n.startswith("discard") for n in names(g)), names(g)
    play(g, (1, "discard 7p"), (2, "discard 8p"))
