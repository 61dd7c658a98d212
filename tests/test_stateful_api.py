"""Stateful fuzz of the public environments in hostile call orders, and the regressions it found."""
from __future__ import annotations

import numpy as np
import pytest
from test_env_hardening import assert_same, engine_snapshot

from mj_env import actions as A

N_TABLES = 3


def refused(call, *types):
    """Run ``call``; it must raise one of ``types`` with a message. The exception."""
    with pytest.raises(types) as info:
        call()
    assert str(info.value).strip(), f"{type(info.value).__name__} without a message"
    return info.value


# ---------------------------------------------------------------------------------------------------------
# regressions found by the state machines


@pytest.mark.parametrize("policy", ["raise", "penalize"])
@pytest.mark.parametrize("shape", ["flat", "column"])
def test_sb3_vecenv_refuses_masked_actions_and_changes_nothing(policy, shape):
    """A masked array of actions with entries masked is no action batch (``actions.action_batch``): the batched env
    refuses it, but ``MahjongSB3VecEnv.step_async`` read it with ``np.asarray``, which drops the mask, so the data
    under the mask was played (action 0, discard 1m: played or penalized). Found by ``SB3Machine.step_junk``."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    env = MahjongSB3VecEnv(N_TABLES, rules="beijing", opponents="random", seed=1, illegal_action=policy)
    env.reset()
    legal = env.action_masks().argmax(axis=1)  # a legal action at every table, hidden under the mask
    acts = np.ma.masked_array(legal, mask=[True] + [False] * (N_TABLES - 1))
    if shape == "column":  # the (N, 1) form SB3 gives for Discrete actions
        acts = acts[:, None]
    before = {"engine": engine_snapshot(env.envs.engine), "book": {k: getattr(env.envs, k).copy()
                                                                    for k in env.envs._BOOKKEEPING}}
    err = refused(lambda: env.step(acts), A.ActionError)
    assert "masked" in str(err)
    assert_same(before["engine"], engine_snapshot(env.envs.engine))
    for k, v in before["book"].items():
        assert np.array_equal(v, getattr(env.envs, k)), k
    env.step(legal)  # and the game plays on
