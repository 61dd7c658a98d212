"""Mutation-testing round on the environment layers (mj_env/aec.py, vector.py, single_agent.py, sb3.py):
tests that kill mutants which the other tests let through. Each test names what a wrong change got past."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from walls import four_hui_wall

import mj_env
from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.rules import get_rules
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import shuffled_walls


def _wall(rules="beijing", seed=0):
    return shuffled_walls(get_rules(rules), np.random.default_rng(seed), 1)[0]


# ---------------------------------------------------------------------------------------------- AEC env
@pytest.mark.parametrize(("rules", "seed", "n"), [("beijing", 0, 1), ("hebei", 1, 2), ("quemen", 2, 2), ("beijing", 3, 3)])
def test_aec_plays_as_the_vector_env_decision_by_decision(rules, seed, n):
    """AEC envs and an n-table vector env on the same walls: the same seat to act, the same observation and
    mask at every decision, nothing paid and nobody done before the end, then the same points and settlement
    (mutants: the planes of every observation drawn as an ended hand's; rewards starting at 1 after reset; the
    vector env's one-table observation path taken for two tables)."""
    walls = [_wall(rules, seed * 10 + i) for i in range(n)]
    dealers = [(seed + i) % 4 for i in range(n)]
    aecs = [mj_env.env(rules=rules) for _ in range(n)]
    for e, wall, dealer in zip(aecs, walls, dealers):
        e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
        assert e.rewards == dict.fromkeys(e.possible_agents, 0)
        assert e.truncations == dict.fromkeys(e.possible_agents, False)
    venv = MahjongVectorEnv(num_envs=n, rules=rules)
    vobs, _ = venv.reset(options={"walls": walls, "dealers": dealers})
    rng = np.random.default_rng(seed)
    live = set(range(n))
    for _ in range(1000):
        assert vobs["observation"].shape[0] == n
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in vobs["action_mask"]])
        for b in live:
            e, agent = aecs[b], f"player_{int(vobs['seat'][b])}"
            assert e.agent_selection == agent
            obs = e.observe(agent)
            assert np.array_equal(obs["observation"], vobs["observation"][b])
            assert np.array_equal(obs["action_mask"], vobs["action_mask"][b])
            assert not any(e.observe(o)["action_mask"].any() for o in e.possible_agents if o != agent)
            e.step(int(actions[b]))
        vobs, vrew, vterm, _, infos = venv.step(actions)
        for b in sorted(live):
            e = aecs[b]
            if vterm[b]:
                assert [e.rewards[a] for a in e.possible_agents] == vrew[b].tolist()
                assert all(e.terminations.values()) and not any(e.truncations.values())
                for a in e.possible_agents:
                    assert e.infos[a]["settlement"]["scores"] == infos["settlement"][b]["scores"]
                live.discard(b)
            else:
                assert all(r == 0 for r in e.rewards.values()) and not any(e.terminations.values())
                assert not any(e.truncations.values()) and not vrew[b].any()
        if not live:
            break
    else:
        pytest.fail("a hand did not end")


def test_an_action_for_an_agent_whose_episode_is_over_is_refused_naming_it():
    """After the hand (here ended at its deal, 四惠牌) a step with an action other than None is an ActionError
    naming the agent and the action, and changes nothing; None steps the agent out (mutants: the check of the
    action skipped, so the action was silently taken as a dead step; the action's name left unset)."""
    e = mj_env.env()
    e.reset(options={"wall": [CODES[t] for t in four_hui_wall()], "dealer": 0})
    assert all(e.terminations.values())
    agent = e.agent_selection
    with pytest.raises(A.ActionError, match=rf"{agent}: action 'discard 6m' after {agent}'s episode is over"):
        e.step(5)
    with pytest.raises(A.ActionError, match=rf"{agent}: action 'five' after .* \(terminated\)"):
        e.step("five")
    assert e.agent_selection == agent and agent in e.agents
    e.step(None)
    assert agent not in e.agents


@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_reset_and_step_print_and_warn_nothing_outside_human_mode(render_mode, capsys):
    """Only a "human" env draws itself at reset and step (mutants: drawing in every mode, which under
    render_mode=None is Gymnasium's 'no render mode' warning at every call)."""
    e = mj_env.env(render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.reset(seed=0)
        for _ in range(8):
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------------------------------------- SB3 VecEnv
def test_sb3_time_limit_truncated_is_false_at_every_step_that_was_not_cut():
    """SB3's ``TimeLimit.truncated`` is True only for an episode cut by ``max_episode_steps``: False at every
    step that goes on and at every episode the rules ended (mutant: ``truncated or not terminated``)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(4, seed=0, max_episode_steps=6)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    cut = 0
    for _ in range(20):
        obs, _, dones, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        for done, info in zip(dones, infos):
            cut += info["TimeLimit.truncated"]
            assert info["TimeLimit.truncated"] == (bool(done) and "scores" not in info)
    assert cut > 0
