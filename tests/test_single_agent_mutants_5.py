"""Gaps in the single-agent envs' tests found by a mutation round of ``mj_env/single_agent.py`` (each test
fails under the mutant it names and passes on the code)."""
from __future__ import annotations

import numpy as np
from walls import tian_hu_wall

from mj_env.single_agent import MahjongSingleAgentVectorEnv


def test_rotate_keeps_the_seat_of_a_hand_an_opponent_won_before_the_learners_first_decision():
    """seat="rotate": a hand that ends before the learner's first decision was no episode, so the seat it gave
    is kept for the hand dealt again (module docstring; ``_deal(redeal=True)``). Here the dealer's 天和 at
    table 1, where the learner sits South: the mutant ``_deal(redeal, redeal=False)`` in ``_advance`` moved
    it on to West (the 四惠牌-at-the-deal path was already tested)."""
    wall = tian_hu_wall()
    envs = MahjongSingleAgentVectorEnv(2, opponents="rule", seat="rotate")
    _, info = envs.reset(seed=0, options={"walls": [wall, wall], "dealers": [0, 0]})
    assert info["redealt"].tolist() == [0, 1]          # table 0: the learner is the dealer and decides
    assert info["seat"].tolist() == [0, 1]
    assert envs._episodes.tolist() == [1, 1]


def _random_run(envs, steps: int = 6) -> list:
    rng = np.random.default_rng(3)
    obs, info = envs.reset()          # no seed: the constructor's seed goes on
    out = [info["seat"].copy(), obs["observation"].copy()]
    for _ in range(steps):
        legal = obs["action_mask"].astype(bool)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        obs, rew, *_ = envs.step(acts)
        out += [obs["observation"].copy(), rew.copy()]
    return out


def test_an_unseeded_reset_keeps_the_constructors_seed_for_opponents_and_seats():
    """``MahjongSingleAgentVectorEnv(seed=N)`` then ``reset()`` repeats: the opponents' and seats' generator is
    the constructor's, and only a seeded reset replaces it (the mutant ``if True:`` before
    ``self.rng = _players_rng(seed)`` gave an unseeded reset a fresh, unseeded generator)."""
    runs = [_random_run(MahjongSingleAgentVectorEnv(4, opponents="random", seat="random", seed=7)) for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
