"""mj_env.wrappers: PettingZoo's API test on each adapter, and what each changes."""
from __future__ import annotations

import numpy as np
from pettingzoo.test import api_test

import mj_env
from mj_env.wrappers import N_FLAT, FlatObservations, NumericInfos


def test_flat_observations_pass_the_api_test_and_keep_the_mask():
    e = FlatObservations(mj_env.env())
    api_test(e, num_cycles=100, verbose_progress=False)
    e.reset(seed=0)
    o = e.observe(e.agent_selection)
    assert o["observations"].shape == (N_FLAT,) and o["observations"].dtype == np.float32
    assert o["action_mask"].dtype == np.int8 and o["action_mask"].any()
    assert o in e.observation_space(e.agent_selection)


def test_numeric_infos_hold_numbers_only():
    e = NumericInfos(mj_env.env())
    api_test(e, num_cycles=100, verbose_progress=False)
    rng = np.random.default_rng(0)
    e.reset(seed=1)
    scores = None
    for agent in e.agent_iter(max_iter=3000):
        obs, _, term, trunc, info = e.last()
        assert "settlement" not in info
        if "scores" in info:
            scores = info["scores"]
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert scores is not None and scores.dtype == np.int64 and scores.sum() == 0
