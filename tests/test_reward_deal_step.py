"""agents.rewards.RewardOptionVector under Gymnasium's NEXT_STEP autoreset: the step after an episode ended only
deals the table's next episode, and carries no shaping (its reward is the transform of its points alone, and the
next episode's potential starts there). The telescoping test in tests/test_reward_potential.py skips that step
with a constant potential at gamma 1, where gamma * Phi(next) - Phi(last) is 0 anyway: this test reads it with a
potential that varies and gamma < 1, so that dropping the guard (``self._starting``) shows."""
from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode

from agents.rewards import RewardOptionVector
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentVectorEnv


def pairs(planes):
    """0.1 per pair held (plane 0: the seat's own tile counts)."""
    return 0.1 * (planes[:, 0] >= 2).sum(axis=1)


def test_the_step_that_deals_the_next_episode_carries_no_shaping():
    n = 8
    env = MahjongSingleAgentVectorEnv(num_envs=n, opponents="rule", autoreset_mode=AutoresetMode.NEXT_STEP)
    venv = RewardOptionVector(env, "shaped", gamma=0.9, potential=pairs)
    obs, _ = venv.reset(seed=5)
    rng = np.random.default_rng(5)
    starting = np.zeros(n, dtype=bool)
    deal_steps = shaped_elsewhere = 0
    for _ in range(120):
        obs, r, term, trunc, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        shaping = r - np.asarray(infos["points"]) / 4.0
        assert np.all(shaping[starting] == 0.0), "the step that dealt a new episode was shaped"
        deal_steps += int(starting.sum())
        shaped_elsewhere += int(np.count_nonzero(shaping[~starting]))
        starting = term | trunc
    assert deal_steps >= 20 and shaped_elsewhere >= 100  # both kinds of step were read
