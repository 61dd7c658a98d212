"""Matches (``hands_per_episode`` > 1) against an independent referee (tests/indep_match.py), which wraps the
single-hand referees: tests/indep_scoring.py scores every hand of a match on its own, from what the driver saw of
that hand, and the referee carries from hand to hand only what docs/RULES.md 2 carries, the dealer (kept after a
dealer win or a drawn hand, else passed on by ``dealer_rotation``), while 烧庄 rounds, 互包 claims, 报听, flowers
and kongs start again with each hand (docs/RULES.md 6.1: "the first round that breaks ends it for the hand"; 互包
"in this hand"). Hand by hand: the settlement (fan, patterns, the dealer and 烧庄 rounds of its input, scores) equals
the independent scorer's, the step's rewards are the scores of the hands it ended, the episode ends with the
``hands_per_episode``-th hand and not before; in the AEC env and the vector env also ``infos["settlement"]`` and
``infos["earlier_settlements"]`` (a match's next hand that ends at its deal, docs/INTERFACES.md 2), the
terminations, the vector env's ``deal_points``, and each agent's rewards summed over the match.

Walls: the engine's shuffles, and under beijing now and then a wall that deals the dealer four 惠牌 (the hand ends
at its deal: a match's next hand ending in the step that ended the hand before it), 天和, or the tiles of 1-3 烧庄
rounds (``indep_match.next_walls``). Play: random, the rule agent with discards that make 烧庄 rounds, and a
claim-happy rule agent.

No disagreement with the engine was found (the referee catches a dealer that rotates after a drawn hand or the
wrong way, 烧庄 rounds or 互包 claims carried into the next hand, a match one hand too long, and the points of a hand
dropped when the next ends at its deal: each checked by editing the engine by hand).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from indep_match import MatchReferee, play_aec, play_engine, play_vector
from walls import build_wall, deals_first, four_hui_9s_wall, four_hui_wall, tian_hu_wall

import mj_env
import mj_env.engine as engine_module
from mj_env import actions as A
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv


def _agree(ref, **least):
    assert not ref.bad, json.dumps(ref.bad[:3], ensure_ascii=False, default=str, indent=1)
    short = {k: (ref.stats[k], n) for k, n in least.items() if ref.stats[k] < n}
    assert not short, (short, dict(ref.stats))


@pytest.mark.parametrize("name, fields, mode, kw, least", [
    ("beijing", {"hands_per_episode": 4}, "rule", {"walls": True},
     {"matches": 6, "shaozhuang hands": 3, "next hand ended at its deal": 2, "dealer kept": 10, "drawn hands": 1}),
    ("beijing", {"hands_per_episode": 2, "dealer_rotation": "next"}, "claims", {"walls": True, "dealers": True},
     {"matches": 8, "互包": 2, "dealer kept": 5}),
    ("hebei", {"hands_per_episode": 4}, "claims", {}, {"matches": 5, "drawn hands": 2, "dealer kept": 8}),
    ("quemen", {"hands_per_episode": 4, "dealer_rotation": "previous"}, "claims", {},
     {"matches": 5, "dealer kept": 8}),
])
def test_engine_matches_agree_with_the_independent_referee(name, fields, mode, kw, least):
    _agree(play_engine(name, fields, 8, 250, 1, mode, **kw), **least)


def test_a_long_match_of_random_play_with_drawn_hands():
    """hands_per_episode 12, random play: most hands are drawn (the dealer stays), a few won."""
    _agree(play_engine("hebei", {"hands_per_episode": 12}, 4, 1200, 3, "random"), **{"drawn hands": 30, "matches": 2})


def test_aec_matches_agree_with_the_independent_referee():
    _agree(play_aec("beijing", {"hands_per_episode": 3}, 8, 1, "rule", walls=True),
           **{"aec matches": 8, "aec steps with earlier_settlements": 1})
    _agree(play_aec("quemen", {"hands_per_episode": 2}, 4, 2, "claims"), **{"aec matches": 4})


def test_vector_matches_agree_with_the_independent_referee():
    _agree(play_vector("beijing", {"hands_per_episode": 3}, 8, 300, 1, "rule", walls=True),
           **{"matches": 8, "vector steps with earlier_settlements": 1})
    _agree(play_vector("hebei", {"hands_per_episode": 2, "dealer_rotation": "previous"}, 8, 200, 2, "claims"),
           matches=8)


def test_a_match_whose_next_hand_ends_at_its_deal_and_plays_on(monkeypatch):
    """A match of three hands: East wins the first by 天和 (tests/walls.py ``tian_hu_wall``, 11 fan) and stays
    dealer; the second deal gives East four 惠牌 (``four_hui_9s_wall``, 9 fan), which wins in the same step; the
    third is played out. The AEC env shows the 四惠牌 settlement with the 天和 one in ``earlier_settlements``, and
    pays both in that step; nothing else of the first hand carries into the third."""
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_9s_wall(), 1))
    e = mj_env.env(hands_per_episode=3)
    ref = MatchReferee(e.unwrapped.engine)
    with ref.watching():
        e.reset(seed=0, options={"wall": [CODES[t] for t in tian_hu_wall()], "dealer": 0})
        e.step(A.WIN)
        info = e.infos["player_2"]
        assert [s["fan"] for s in info["earlier_settlements"]] == [11] and info["settlement"]["fan"] == 9
        assert [e.rewards[f"player_{i}"] for i in range(4)] == [60, -20, -20, -20]
        assert not any(e.terminations.values()) and int(e.unwrapped.engine.state.dealer[0]) == 0
        while not all(e.terminations.values()):
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(np.flatnonzero(mask)[-1]))
    _agree(ref, hands=3, **{"next hand ended at its deal": 1, "matches": 1})


def test_vector_a_rotated_dealer_four_hui_at_the_next_deal(monkeypatch):
    """The vector env, beijing: a non-dealer wins the first hand, so the deal passes to (dealer-1) % 4, who is dealt
    four 惠牌 (``four_hui_wall`` deals them to whoever deals) and wins at once in the same step: rewards hold both
    hands, ``earlier_settlements`` the first, the match of two hands ends."""
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_wall(), 1))
    venv = MahjongVectorEnv(num_envs=1, rules="beijing", seed=0, hands_per_episode=2)
    ref = MatchReferee(venv.engine)
    # East discards its lowest tile first, the 1m; South waits on 1m/4m (惠牌 白, none held)
    first = build_wall("beijing", hands={0: "1m", 1: "23m456p789p123s99s"}, indicator="6z", seed=2)
    with ref.watching():
        obs, _ = venv.reset(options={"walls": [[CODES[t] for t in first]], "dealers": [0]})
        for _ in range(400):
            st = venv.engine.state
            mask = obs["action_mask"][0]
            # everybody passes a claim and discards; the first to be offered a win takes it (unless the dealer)
            act = A.WIN if mask[A.WIN] and int(st.to_act[0]) != int(st.dealer[0]) else (
                A.index("pass") if mask[A.index("pass")] else int(np.flatnonzero(mask)[0]))
            obs, rew, term, _, infos = venv.step(np.array([act]))
            if infos["_settlement"][0]:
                break
        assert term[0] and infos["settlement"][0]["patterns"] == {"庄": 1, "四惠牌": 8}
        first = infos["earlier_settlements"][0][0]
        assert first["input"]["winner"] != first["input"]["dealer"] == 0
        assert infos["settlement"][0]["input"]["dealer"] == 3
        assert rew[0].tolist() == (np.array(first["scores"]) + infos["settlement"][0]["scores"]).tolist()
    _agree(ref, hands=2, matches=1, **{"next hand ended at its deal": 1})


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["engine", "aec", "vector"])
@pytest.mark.parametrize("hands", [2, 4, 16])
@pytest.mark.parametrize("rotation", ["previous", "next"])
@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
def test_matrix_of_matches(name, rotation, hands, driver):
    """Every preset, both dealer rotations, matches of 2, 4 and 16 hands, on the engine, the AEC env and the vector
    env; the play (random, rule, claim-happy) and, under beijing, stacked walls, vary with the setting."""
    seed = 11 * hands + len(name) + (rotation == "next")
    mode = ["random", "rule", "claims"][(seed + len(driver)) % 3]
    fields = {"hands_per_episode": hands, "dealer_rotation": rotation}
    walls = name == "beijing"
    tables, steps = (8, 4000) if hands == 16 else (16, 1500)
    if driver == "engine":
        ref = play_engine(name, fields, tables, steps, seed, mode, dealers=seed % 2 == 0, walls=walls)
    elif driver == "aec":
        ref = play_aec(name, fields, max(4, 48 // hands), seed, mode, walls=walls)
    else:
        ref = play_vector(name, fields, tables, steps, seed, mode, walls=walls)
    print(name, rotation, hands, driver, mode, {k: ref.stats[k] for k in ("matches", "aec matches", "hands", "drawn hands", "dealer kept", "shaozhuang hands", "several winners", "next hand ended at its deal")})
    _agree(ref, matches=1)
