"""Helpers of the agents' tests that need no torch (tests/test_agents_core.py, tests/test_agents.py and the baselines' mutation tests use
them): a vector env played by one agent, hand-made own-turn and claim observations, the actions an agent picks
over several seeds. Kept apart from tests/test_agents.py, which needs torch, so that the baselines' tests still
run (rather than fail to collect) where torch is not installed (tests/test_python_runtime.py)."""
from __future__ import annotations

import numpy as np

from mj_env import actions as A
from mj_env.observation import N_PLANES
from mj_env.tiles import parse_hand
from mj_env.vector import MahjongVectorEnv


def play(agent, rules: str, num_envs: int = 24, steps: int = 250, seed: int = 0):
    """Step a vector env with ``agent`` everywhere; yield (obs, actions) of every step. The engine
    raises on an illegal action, and the mask is checked here too."""
    env = MahjongVectorEnv(num_envs=num_envs, rules=rules, seed=seed)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        a = agent.act(obs, rng)
        assert a.shape == (num_envs,) and a.dtype == np.int64
        assert obs["action_mask"][np.arange(num_envs), a].all(), "an illegal action was chosen"
        yield obs, a
        obs, _, term, _, _ = env.step(a)
        ended += int(term.sum())
    assert ended > 0, "no hand ended: the test did not exercise whole hands"


def _turn_obs(hand: str, hui: str | None = None, drawn: str | None = None):
    """One own-turn observation with ``hand`` (14 tiles written in compact form) and its mask."""
    counts = parse_hand(hand)
    o = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    o[0, 0] = counts
    if hui is not None:
        o[0, 10, parse_hand(hui).argmax()] = 1
    if drawn is not None:
        o[0, 12, parse_hand(drawn).argmax()] = 1
    o[0, 13, 0] = 50
    mask = np.zeros((1, A.N_ACTIONS), dtype=np.int8)
    mask[0, :34] = counts > 0
    return {"observation": o, "action_mask": mask, "seat": np.zeros(1, dtype=np.int64)}


def _claim_obs(hand: str, tile: str, legal: list[int], hui: str | None = None):
    counts = parse_hand(hand)
    o = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    o[0, 0] = counts
    if hui is not None:
        o[0, 10, parse_hand(hui).argmax()] = 1
    o[0, 11, parse_hand(tile).argmax()] = 1
    o[0, 13, 3] = 1
    mask = np.zeros((1, A.N_ACTIONS), dtype=np.int8)
    mask[0, [A.PASS] + legal] = 1
    return {"observation": o, "action_mask": mask, "seat": np.zeros(1, dtype=np.int64)}


def _choices(agent, obs, seeds=range(20)) -> set[str]:
    """The actions ``agent`` takes in ``obs`` over several seeds (its ties are broken with the rng)."""
    return {A.name(int(agent.act(obs, np.random.default_rng(s))[0])) for s in seeds}


def _allow(obs, action: int):
    obs["action_mask"][0, action] = 1
    return obs
