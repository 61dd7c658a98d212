"""Audit of copies, pickling, seeding and determinism: what search and multiprocessing users rely on."""
from __future__ import annotations

import copy

import numpy as np
import pytest

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


def test_clone_is_bounded_like_the_constructor(monkeypatch):
    """``Engine(num_tables=n)`` and ``determinize(n=...)`` refuse more than ``MAX_TABLES`` tables (about 1 KB of state
    each); ``clone`` took any number of rows (``clone([b] * 10**8)``: an allocation of about 100 GB, a MemoryError or
    the OOM killer instead of the clear refusal). It now refuses them first, changing nothing."""
    import mj_env.engine as engine_module

    eng = engine_module.Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    monkeypatch.setattr(engine_module, "MAX_TABLES", 4)
    assert eng.clone([1, 0, 1, 1]).num_tables == 4
    with pytest.raises(ValueError, match="clone of 5 tables: an engine holds 1-4 tables"):
        eng.clone([0] * 5)
    with pytest.raises(ValueError, match="num_tables must be an integer in 1-4"):
        engine_module.Engine("beijing", num_tables=5)
