"""Game flow through the AEC env, checked against docs/RULES.md and docs/INTERFACES.md 2 on hand-built walls
(an outside audit: each test holds one finding)."""
from __future__ import annotations

import numpy as np
from walls import build_wall

import mj_env
from mj_env.actions import index, name
from mj_env.tiles import code

# The dealer (East) discards 5m; seat 3 may win on it (46m), seat 2 may pong it, seat 1 may chi it.
CLAIMS = {0: "5m111p999p789s5z6z7z", 1: "3467m147p258s34z9m", 2: "55m2p3p5p6p8p6s7s8s5z6z7z",
          3: "123s456s789s11z46m"}


def _env(hands, rules="beijing", dealer=0, **kw):
    wall = build_wall(rules, hands=hands, indicator="1z" if rules == "beijing" else None, dealer=dealer)
    e = mj_env.env(rules=rules, **kw)
    e.reset(options={"wall": [code(t) for t in wall], "dealer": dealer})
    return e


def _legal(e, agent):
    return [name(i) for i in np.flatnonzero(e.observe(agent)["action_mask"])]


def test_a_hand_ended_by_a_penalized_action_offers_no_legal_action():
    """docs/INTERFACES.md 2: ``illegal_action="penalize"`` ends the hand. The engine never plays the illegal action,
    so it still waited on the offender, and the offender's mask kept offering 'win' and 'pass' (with
    termination True) in a hand that is over; an ended hand offers nothing (as after a win or a draw)."""
    e = _env(CLAIMS, illegal_action="penalize", illegal_penalty=5)
    e.step(index("discard 5m"))
    assert e.agent_selection == "player_3" and _legal(e, "player_3") == ["win", "pass"]
    e.step(index("pong"))  # seat 3 holds no 5m
    assert all(e.terminations.values()) and e.rewards["player_3"] == -5
    assert all(_legal(e, a) == [] for a in e.possible_agents)
    obs, _, term, _, _ = e.last()
    assert term and not obs["action_mask"].any()


def test_a_penalized_hand_renders_as_over():
    """The picture of a hand ended by a penalized illegal action says it is over and why, and marks no seat
    as the one to act (it showed 'CLAIM: seat 3 to act')."""
    e = _env(CLAIMS, illegal_action="penalize", render_mode="ansi")
    e.step(index("discard 5m"))
    assert "CLAIM: seat 3" in e.render().splitlines()[-1]
    e.step(index("pong"))
    text = e.render()
    assert text.splitlines()[-1] == "hand over: player_3's illegal action 'pong' was penalized"
    assert not any(line.startswith(">") for line in text.splitlines())
