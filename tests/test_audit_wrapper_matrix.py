"""Gymnasium, PettingZoo and SB3 wrappers around mj_env's environments: cases a wrapper-matrix audit found."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mj_env
from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("make", [
    lambda **kw: gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point", **kw),
    lambda **kw: MahjongVectorEnv(2, **kw),
])
def test_a_seeded_vector_env_reports_its_seed_as_gymnasiums_vector_envs_do(make):
    """``envs.reset(seed=5)`` left ``envs.np_random_seed`` a random 39-digit number (the batched envs' ``reset``
    never reached ``VectorEnv.reset``, which records it), where Gymnasium's own vector envs (its
    ``CartPoleVectorEnv``, and ``make_vec``'s sync mode over the one-table env) report 5."""
    envs = make()
    envs.reset(seed=5)
    assert envs.np_random_seed == 5
    envs.reset()                                   # an unseeded reset keeps it, as in Gymnasium
    assert envs.np_random_seed == 5
    with pytest.raises(ValueError):
        envs.reset(seed=-1)                        # refused: nothing changes
    assert envs.np_random_seed == 5
    assert make(seed=7).np_random_seed == 7       # the constructor's seed deals the first reset


def test_the_batched_envs_metadata_carry_render_fps_as_the_one_table_envs_do():
    """``make_vec``'s sync mode showed the one-table env's ``render_fps`` in its metadata and the
    ``vector_entry_point`` mode (and ``MahjongVectorEnv``) left it out, although all render the same "ansi" and
    "human" pictures; Gymnasium's vector ``HumanRendering`` and ``RecordVideo`` read it (the AEC env has it too)."""
    kinds = {mode: gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode=mode)
             for mode in ("sync", "vector_entry_point")}
    want = {k: v for k, v in kinds["sync"].metadata.items() if k != "autoreset_mode"}
    for envs in (kinds["vector_entry_point"], MahjongVectorEnv(2)):
        assert {k: v for k, v in envs.metadata.items() if k != "autoreset_mode"} == want
    assert mj_env.env().metadata["render_fps"] == want["render_fps"]


def test_the_one_table_env_shows_the_settlement_of_the_hand_that_ended():
    """The vector form keeps each ended hand's settlement object in ``last_settlements``; the one-table env that
    ``gym.make`` builds had none, so its users (a wrapper-matrix audit) reached it only through the undocumented
    ``env.unwrapped.venv``."""
    env = gym.make("mj_env/Beijing-v0")
    _, info = env.reset(seed=3)
    assert "redealt" not in info and env.get_wrapper_attr("last_settlement") is None
    ended = False
    while not ended:
        assert env.unwrapped.last_settlement is None  # none while the hand goes on
        _, reward, ended, _, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    settlement = env.get_wrapper_attr("last_settlement")
    np.testing.assert_array_equal(settlement["scores"], info["scores"])
    assert settlement["scores"][info["seat"]] == reward
    env.reset(seed=3)
    assert env.unwrapped.last_settlement is None  # a new hand: the last one's is gone
