"""Audit of copies, pickling, seeding and determinism: what search and multiprocessing users rely on."""
from __future__ import annotations

import copy

import numpy as np

from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentVectorEnv


def _play(env, steps: int, seed: int = 0) -> list:
    """A transcript of ``steps`` random legal learner steps (observations, rewards, ends, seats)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        obs, rew, term, _, infos = env.step(uniform_legal(env.action_masks(), rng))
        out.append((obs["observation"].tobytes(), rew.tobytes(), term.tobytes(), infos["seat"].tobytes()))
    return out


def test_a_seeded_single_agent_env_keeps_its_opponents_stream_apart_from_the_walls():
    """``MahjongSingleAgentVectorEnv(seed=S)`` seeded the opponents' and seats' generator with ``default_rng(S)``,
    the very stream the engine shuffles the walls from (``default_rng(S)``): a random opponent's first draws were
    the keys that ordered the wall. ``reset(seed=S)`` keeps them apart (``default_rng([S, 1])``); the constructor's
    seed now does the same, so a seed given at construction deals and plays as the same seed given to reset."""
    env = MahjongSingleAgentVectorEnv(4, opponents="random", seat="random", seed=7)
    ours, walls = copy.deepcopy(env.rng), copy.deepcopy(env.engine.rng)
    assert not np.array_equal(ours.random(64), walls.random(64))
    env.reset()
    twin = MahjongSingleAgentVectorEnv(4, opponents="random", seat="random")
    twin.reset(seed=7)
    assert _play(env, 40) == _play(twin, 40)
