"""Tests that kill surviving mutants of mj_env/payments.py, mj_env/hand_end.py and mj_env/claims.py (a mutation
audit: each test below failed under a mutant that the rest of the suite let through). Worked out from
docs/RULES.md and docs/INTERFACES.md."""
from __future__ import annotations

import numpy as np
import pytest
from test_audit_kongs_matches import KONG_CASES, KONG_MOVES
from walls import build_wall, deals_first, four_hui_9s_wall

import mj_env
import mj_env.engine as engine_module
from mj_env import actions as A
from mj_env.rules import get_rules
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import shuffled_walls


def _pass_or_discard(mask) -> int:
    """Never win or claim: pass where asked, else discard the first tile allowed."""
    if mask[A.PASS]:
        return A.PASS
    return next(i for i in np.flatnonzero(mask) if A.name(int(i)).startswith("discard "))


def test_a_drawn_hand_then_a_deal_that_ends_in_four_hui_shows_both_in_the_vector_env(monkeypatch):
    """A two-hand beijing match: the first hand is drawn (nobody wins or claims); the dealer stays (docs/RULES.md 2)
    and the next deal gives East all four 惠牌, which wins at once (5): 庄 1 + 四惠牌 8 = 9 fan, self-draw, East +27,
    each other -9. Both hands end in one step: the vector env's settlement is the 四惠牌 win, the drawn hand is
    its ``earlier_settlements``, and the rewards hold both. (Killed a mutant that kept a drawn hand's row in
    ``Settlements`` after a later hand at the same table replaced it: the settlement read back as the draw.)"""
    wall = shuffled_walls(get_rules("beijing"), np.random.default_rng(11), 1)[0].tolist()
    v = MahjongVectorEnv(num_envs=1, rules="beijing", hands_per_episode=2)
    obs, _ = v.reset(options={"walls": [wall], "dealers": [0]})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_9s_wall(), 1))
    for _ in range(2000):
        obs, rewards, term, _, infos = v.step(np.array([_pass_or_discard(obs["action_mask"][0])]))
        if "_settlement" in infos and infos["_settlement"][0]:
            break
    else:
        raise AssertionError("the hand did not end")
    earlier = infos["earlier_settlements"][0]
    assert len(earlier) == 1 and earlier[0]["draw"] is True
    win = infos["settlement"][0]
    assert win["fan"] == 9 and win["patterns"] == {"庄": 1, "四惠牌": 8}
    assert win["scores"] == [27, -9, -9, -9]
    assert rewards[0].tolist() == [a + b for a, b in zip(earlier[0]["scores"], [27, -9, -9, -9])]
    assert term[0]


def _play_aec(env, moves) -> dict:
    """Play ``moves`` ((seat, action name)), passing every claim window in between; the last hand's settlement."""
    for seat, action in moves:
        while env.agent_selection != f"player_{seat}" or not env.observe(env.agent_selection)["action_mask"][
                A.index(action)]:
            env.step(A.PASS)
        env.step(A.index(action))
    return env.infos["player_0"]["settlement"]


def test_two_beijing_winners_show_no_kong_lines():
    """beijing with ``multiple_winners``: South and West win on East's 5m after one round of 烧庄 (the scenario of
    test_audit_beijing_play). beijing has no kong payments (docs/RULES.md 6.1), so the hand's settlement is the
    wins, their sum and the one 烧庄 line: no ``hand_scores`` / ``kong_scores`` (6.4: those are where kong payments
    exist). (Killed a mutant that always wrote ``hand_scores`` for several winners.)"""
    wall = build_wall("beijing", hands={0: "1z5m", 1: "1z46m123p567p234s7z", 2: "1z34m456s678s11p99p", 3: "1z"},
                      draws="7z9p2z3z", indicator="8s")
    env = mj_env.env(rules="beijing", multiple_winners=True)
    env.reset(options={"wall": [CODES[t] for t in wall], "dealer": 0})
    s = _play_aec(env, [(0, "discard 1z"), (1, "discard 1z"), (2, "discard 1z"), (3, "discard 1z"),
                        (0, "discard 5m"), (1, "win"), (2, "win")])
    assert sorted(s) == ["scores", "shaozhuang", "wins"]
    assert [w["input"]["winner"] for w in s["wins"]] == [1, 2] and s["scores"] == [-10, 5, 4, 1]
    assert not set(s["wins"][0]["input"]) & {"flowers", "ting"}   # quemen fields (see below)



_BEIJING_ONLY = {"hui", "shaozhuang_rounds", "hubao"}
_QUEMEN_ONLY = {"flowers", "ting"}


@pytest.mark.parametrize("rules", ["hebei", "quemen"])
def test_a_win_input_carries_only_the_fields_its_rule_set_reads(rules):
    """docs/INTERFACES.md 1 marks ``shaozhuang_rounds``, ``hui``, ``hubao`` as beijing fields and ``flowers``,
    ``ting`` as quemen ones: a settlement's ``input`` (a calculator line, docs/RULES.md 6.4) names the fields of
    its own rule set only (the kong scenario of test_audit_kongs_matches: West wins on a kong replacement).
    (Killed mutants that wrote ``shaozhuang_rounds`` / ``flowers`` under every rule set.)"""
    hands = KONG_CASES[rules][0]
    e = mj_env.env(rules=rules)
    e.reset(options={"wall": build_wall(rules, hands=hands, tail=KONG_CASES[rules][1]), "dealer": 0})
    s = _play_aec(e, KONG_MOVES)
    assert s["input"]["winner"] == 2
    own = _QUEMEN_ONLY if rules == "quemen" else set()
    assert set(s["input"]) & (_BEIJING_ONLY | _QUEMEN_ONLY) == own


def test_a_chi_completed_by_a_hui_in_its_last_place_lists_the_hui_there():
    """beijing with ``hui_wild_in_melds`` (docs/RULES.md 5), 惠牌 9s (indicator 8s): South holds 5m 9s and chis
    East's 4m as 456m, the 9s standing for 6m (natural tiles first, the 惠牌 fills the gap). South later self-draws
    1z (123p 456p 789p 1z1z). The settlement's input lists the meld's physical tiles, 4m 5m 9s, so that it describes
    the hand (docs/INTERFACES.md 2). (Killed a mutant that marked the wildcard's place in the run wrongly.)"""
    wall = build_wall("beijing", hands={0: "4m", 1: "5m9s123p456p789p1z2z"}, draws="3z3z3z1z", indicator="8s",
                      seed=2)
    e = mj_env.env(rules="beijing", hui_wild_in_melds=True)
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": 0})
    s = _play_aec(e, [(0, "discard 4m"), (1, "chi 456m"), (1, "discard 2z"), (2, "discard 3z"), (3, "discard 3z"),
                      (0, "discard 3z"), (1, "win")])
    assert s["input"]["winner"] == 1 and s["input"]["discarder"] is None
    assert s["input"]["melds"] == [{"type": "chi", "tiles": "45m9s", "from": 0}]


def test_after_a_pending_pong_is_carried_out_the_next_discard_offers_pong_again():
    """beijing (惠牌 9s): East discards 5p. South (123m 456m 789m 5p5p 1z1z) may win on it and pong it; West
    (123s 456s 789s 4p6p 2z2z) may win on it too. South is asked first (docs/RULES.md 4.2, wins in play order) and
    pongs: the pong waits for West, who passes, and is carried out. South discards 1z; North holds 1z1z and is
    asked with pong legal (4.2: a claim is offered whenever the seat may make it). (Killed a mutant that let a
    carried-out pending claim's category linger into the next claim window, offering only a win there.)"""
    wall = build_wall("beijing", hands={0: "5p", 1: "123m456m789m5p5p1z1z", 2: "123s456s789s4p6p2z2z", 3: "1z1z"},
                      indicator="8s", seed=4)
    e = mj_env.env(rules="beijing")
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": 0})
    e.step(A.index("discard 5p"))
    assert e.agent_selection == "player_1" and e.observe("player_1")["action_mask"][[A.WIN, A.PONG]].all()
    e.step(A.PONG)
    assert e.agent_selection == "player_2" and e.observe("player_2")["action_mask"][A.WIN]
    e.step(A.PASS)
    assert e.agent_selection == "player_1"
    e.step(A.index("discard 1z"))
    assert e.agent_selection == "player_3"
    mask = e.observe("player_3")["action_mask"]
    assert mask[A.PONG] and mask[A.PASS]
