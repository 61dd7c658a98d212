"""Outside trainers' tools on mj_env's library-facing classes: cases an ecosystem audit found."""
from __future__ import annotations

import gymnasium as gym
import pytest

import mj_env  # noqa: F401 (registers the ids)
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
