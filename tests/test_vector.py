"""The batched vector environment: a training-style loop with autoreset, shapes and dtypes."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env.observation import N_PLANES, OBS_NAME
from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_vector_loop_with_autoreset(preset):
    N = 32
    venv = MahjongVectorEnv(num_envs=N, rules=preset, seed=0)
    assert venv.metadata["autoreset_mode"].value == "SameStep"
    assert venv.observation_layout == OBS_NAME
    obs, infos = venv.reset(seed=1)
    rng = np.random.default_rng(0)
    finished = 0
    totals = np.zeros(4)
    for step in range(1500):
        assert obs["observation"].shape == (N, N_PLANES, 34) and obs["observation"].dtype == np.uint8
        assert obs["action_mask"].shape == (N, 127) and obs["action_mask"].dtype == np.int8
        assert obs["seat"].shape == (N,) and ((obs["seat"] >= 0) & (obs["seat"] < 4)).all()
        assert obs["action_mask"].any(axis=1).all()
        assert obs in venv.observation_space
        actions = (rng.random((N, 127)) * obs["action_mask"]).argmax(axis=1)
        obs, rewards, term, trunc, infos = venv.step(actions)
        assert rewards.shape == (N, 4) and rewards.dtype == np.float64
        assert term.shape == (N,) and term.dtype == bool and not trunc.any()
        assert np.allclose(rewards.sum(axis=1), 0)
        for i in np.flatnonzero(infos["_settlement"]):
            assert list(infos["settlement"][i]["scores"]) == rewards[i].tolist()
        finished += int(term.sum())
        totals += rewards.sum(axis=0)
    assert finished > 100
    assert venv.single_observation_space["observation"].contains(obs["observation"][0])
    assert venv.single_observation_space["action_mask"].contains(obs["action_mask"][0])


def test_vector_reset_is_seeded():
    a = MahjongVectorEnv(num_envs=4)
    b = MahjongVectorEnv(num_envs=4)
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    assert (oa["observation"] == ob["observation"]).all()
    oc, _ = b.reset(seed=8)
    assert not (oa["observation"] == oc["observation"]).all()
