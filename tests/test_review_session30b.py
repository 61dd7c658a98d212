"""A hostile review of session 30's later changes: aec.OrderEnforcing put over another PettingZoo wrapper (its
``last()`` and ``step()`` asked the wrapped env for the private ``_check_open``), a masked array of actions of the
wrong shape (refused as a masked entry that names no table), and examples/offline_dataset.py's step budget (a
run whose last step ends the last hand needed was called a shortfall)."""
from __future__ import annotations

import numpy as np
import pytest
from example_modules import load_example

from mj_env import actions as A
from mj_env.engine import _STATE_FIELDS

od = load_example("offline_dataset")


def _state(engine) -> dict:
    return {f: getattr(engine.state, f).copy() for f in _STATE_FIELDS}


# ----------------------------------------------------------------------------- aec.OrderEnforcing over a wrapper




# ----------------------------------------------------------------------------- masked action batches


@pytest.mark.parametrize("make", ["vector", "sb3"])
@pytest.mark.parametrize("shape", [(6,), (3, 2)])
def test_a_masked_batch_of_the_wrong_shape_is_refused_for_its_shape(make, shape):
    """A masked array with a masked entry but not of shape (N,) was refused as 'entry 4 masked' (a flat index) at 3
    tables: no such table. It is refused for its shape, as the same array unmasked is; nothing changes."""
    if make == "vector":
        from mj_env.vector import MahjongVectorEnv
        env = MahjongVectorEnv(num_envs=3, seed=0)
        env.reset(seed=0)
        engine, step = env.engine, env.step
    else:
        pytest.importorskip("stable_baselines3")  # the sb3 extra: skipped without it (tests/test_newer_python.py)
        from mj_env.sb3 import MahjongSB3VecEnv
        env = MahjongSB3VecEnv(num_envs=3, seed=0)
        env.reset()
        engine = env.envs.engine

        def step(a):
            env.step_async(a)
            return env.step_wait()
    before = _state(engine)
    mask = np.zeros(shape, dtype=bool)
    mask.flat[4] = True
    acts = np.ma.masked_array(np.full(shape, A.PASS), mask=mask)
    with pytest.raises(A.ActionError, match=rf"got shape \({shape[0]},") as e:
        step(acts)
    assert "masked" not in str(e.value)
    assert all(np.array_equal(before[f], getattr(engine.state, f)) for f in _STATE_FIELDS)
    with pytest.raises(A.ActionError, match="entry 1 masked"):     # the right shape: its masked entry, as before
        step(np.ma.masked_array(np.full(3, A.PASS), mask=[False, True, False]))


# ----------------------------------------------------------------------------- examples/offline_dataset.py


def test_a_run_whose_last_allowed_step_ends_the_last_hand_is_no_shortfall(monkeypatch):
    """collect() stops once ``hands`` hands have ended, within MAX_STEPS_PER_HAND x hands steps; it checked the
    count only before each step, so a run whose last allowed step ended the last hand raised 'fewer than 1 hands
    ended in k steps' about a hand that had ended."""
    data = od.collect("hebei", 1, 1, seed=3)
    k = len(data["action"])                      # one table: one decision a step
    monkeypatch.setattr(od, "MAX_STEPS_PER_HAND", k)
    again = od.collect("hebei", 1, 1, seed=3)
    assert all(np.array_equal(again[key], data[key]) for key in data)
    monkeypatch.setattr(od, "MAX_STEPS_PER_HAND", k - 1)
    with pytest.raises(RuntimeError, match=f"fewer than 1 hands ended in {k - 1} steps"):
        od.collect("hebei", 1, 1, seed=3)
