"""Outside trainers' tools on mj_env's library-facing classes: cases an ecosystem audit found."""
from __future__ import annotations

import gymnasium as gym
import pytest

import mj_env
from mj_env.wrappers import FlatObservationsVector


def test_flat_observations_vector_refuses_a_same_step_env_in_words():
    """Over a SAME_STEP env, Gymnasium's VectorObservationWrapper failed with a bare AssertionError (no message);
    ResetByMask already names the mode it needs."""
    for mode in ("vector_entry_point", "sync"):
        kw = ({"autoreset_mode": "SAME_STEP"} if mode == "vector_entry_point"
              else {"vector_kwargs": {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}})
        env = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode=mode, **kw)
        with pytest.raises(ValueError, match="FlatObservationsVector wraps a NEXT_STEP vector env"):
            FlatObservationsVector(env)
    ok = FlatObservationsVector(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point"))
    obs, _ = ok.reset(seed=0)
    assert obs["observations"].shape == (2, 14 * 34)


def test_each_agent_has_its_own_spaces_so_seeding_one_leaves_the_others_alone():
    """The four agents shared one Discrete object (and one Dict observation space): seeding player_1's action
    space reseeded player_0's samples, so PettingZoo's seed_test idiom (``action_space(agent).seed(42 + i)``)
    gave every agent the last seed's one interleaved stream."""
    from gymnasium.spaces import Discrete

    from mj_env.wrappers import FlatObservations

    def first_samples(space):
        return [int(space.sample()) for _ in range(5)]

    env = mj_env.env()
    env.action_space("player_0").seed(7)
    env.action_space("player_1").seed(8)
    assert first_samples(env.action_space("player_0")) == first_samples(Discrete(127, seed=7))
    for wrapped in (env, FlatObservations(mj_env.env())):
        obs = [wrapped.observation_space(a) for a in wrapped.possible_agents]
        acts = [wrapped.action_space(a) for a in wrapped.possible_agents]
        assert len({id(s) for s in obs}) == 4 and len({id(s) for s in acts}) == 4
        assert all(s == obs[0] for s in obs) and all(s == acts[0] for s in acts)  # alike, not one object
    flat = FlatObservations(mj_env.env())
    assert all(flat.observation_spaces[a] is flat.observation_space(a) for a in flat.possible_agents)
    with pytest.raises(KeyError, match="unknown agent 'player_9'"):
        flat.observation_space("player_9")


def test_render_after_close_is_refused_as_in_the_aec_env():
    """After close() the Gymnasium envs refused reset, step and action_masks but still rendered the old tables in
    "ansi" (and printed them in "human"), where the AEC env, whose docstring says it does so "as in the Gymnasium
    envs", raises a RuntimeError."""
    pytest.importorskip("stable_baselines3")  # the sb3 extra: skipped in a core-only install
    from mj_env.sb3 import MahjongSB3VecEnv
    from mj_env.vector import MahjongVectorEnv

    envs = [gym.make("mj_env/Beijing-v0", render_mode="ansi"), MahjongVectorEnv(2, render_mode="ansi"),
            gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point", render_mode="ansi"),
            MahjongSB3VecEnv(2, render_mode="ansi")]
    for env in envs:
        env.reset()
        assert isinstance(env.render(), str)
        env.close()
        with pytest.raises(RuntimeError, match="is closed"):
            env.render()
    aec = mj_env.env(render_mode="ansi")
    aec.reset(seed=0)
    aec.close()
    with pytest.raises(RuntimeError, match="closed"):
        aec.render()
    quiet = MahjongVectorEnv(1)     # no render mode: nothing to render, before or after close
    quiet.close()
    assert quiet.render() is None
