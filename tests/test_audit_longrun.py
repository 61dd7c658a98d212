"""Audit: long runs, numeric limits, seeds at the edges and threads (what breaks after hours of training
or under unusual-but-legal configurations)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import mj_env
from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("seed", [True, -1, np.int8(-3), "3", 1.0])
def test_sb3_seed_is_refused_at_once_as_the_other_envs_refuse_it(seed):
    """SB3's VecEnv.seed stored any value and only the next reset refused it (and kept refusing, the bad seed
    still stored): True was taken as 1 (every other env refuses a bool seed), "3" failed inside SB3 with
    "can only concatenate str". Now seed() checks it with the envs' own message and keeps the earlier seed."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2, seed=0)
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer") as sb3_error:
        venv.seed(seed)
    with pytest.raises(ValueError) as aec_error:
        mj_env.env().reset(seed=seed)
    assert str(sb3_error.value) == str(aec_error.value)
    venv.seed(5)
    first = venv.reset()["observation"].copy()
    venv.seed(5)
    np.testing.assert_array_equal(venv.reset()["observation"], first)


def test_sb3_seed_at_the_top_of_uint64_does_not_wrap():
    """np.uint64(2**64 - 1) + i overflowed (a RuntimeWarning, env 1 listed seed 0); the seeds are Python ints."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(3, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seeds = venv.seed(np.uint64(2**64 - 1))
    assert seeds == [2**64 - 1, 2**64, 2**64 + 1]
    first = venv.reset()["observation"].copy()
    ref = MahjongVectorEnv(3)
    assert ref.reset(seed=2**64 - 1) is not None  # the same seed the other envs take
    venv.seed(2**64 - 1)
    np.testing.assert_array_equal(venv.reset()["observation"], first)
