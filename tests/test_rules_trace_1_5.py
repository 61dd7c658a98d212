"""Rule-by-rule trace of docs/RULES.md 1-5: scripted scenarios for the rule sentences whose breakage no other
test caught (each was checked by breaking the rule in the engine and running the rule-level test files).

Each test quotes the sentence it pins and runs on every engine path (the reference engine, a one-table
``Engine`` and a table of a batch). Beijing scripts use indicator 9s (the 惠牌 is 1s; no hand holds one).
"""
from __future__ import annotations

import pytest
from scenario_helpers import BEIJING, HEBEI, meld, names, play

# Seat 1 (555m 123p 456p 789p 2s) kongs the dealer's 5m, draws 7z from the tail and discards it; seat 2 draws
# 2s and discards it: seat 1's hand (kong 5555m + 123p 456p 789p 2s) is complete on that 2s.
EXPOSED_KONG = {"hands": {0: "89m111z222z333z44z5m", 1: "555m123p456p789p2s", 2: "11m22m33m77s88s99s6z",
                          3: "147m258p369s4z5z6z7z"},
                "draws": "2s", "tail": "7z"}


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_an_exposed_kong_leaves_only_the_self_draw_win_in_beijing(new_game, rules):
    """docs/RULES.md 5 (beijing): "After any chi, pong or exposed or added kong the player may only win by
    self-draw"; (hebei): "a player may win on a discard whatever melds they declared". An exposed kong (明杠
    on a discard) opens the hand as a pong does: under beijing seat 1 is not asked about the 2s that completes
    its hand, and seat 3 draws; under hebei it may win on it."""
    g = new_game(rules, **EXPOSED_KONG)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["pass", "pong", "kong"])
    play(g, (1, "kong"), (1, "discard 7z"), (2, "discard 2s"))
    assert g.melds[1] == [meld("kong", "5555m", 0)]
    if rules is BEIJING:
        assert (g.phase, g.to_act) == ("TURN", 3)
    else:
        assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass"])
        play(g, (1, "win"))
        assert g.winners == [1]
