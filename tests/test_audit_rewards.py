"""Outside audit of the reward options (agents/rewards.py): uses a researcher may try that the other reward
tests leave out (an observation wrapper put first, a single observation given to the potential, large
settled points)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mj_env  # noqa: F401 (registers the ids)
from agents.rewards import RewardOption, RewardOptionVector, RewardTransform


def test_stacked_planes_are_refused_when_the_wrapper_is_made():
    """An observation wrapper put before RewardOption is refused by name (the module's advice: wrap the env
    before any observation wrapper). Gymnasium's FrameStackObservation keeps the Dict and its key but stacks the
    planes to (4, 14, 34): that passed the check (only the last two sizes were read) and the first reset failed
    with numpy's "index 10 is out of bounds for axis 1 with size 4"."""
    stacked = gym.wrappers.FrameStackObservation(gym.make("mj_env/Beijing-v0"), 4)
    with pytest.raises(ValueError, match="RewardOption needs the Dict observation .* before any observation wrapper"):
        RewardOption(stacked, "shaped")
    venv = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    venv.single_observation_space = gym.spaces.Dict({
        "observation": gym.spaces.Box(0, 255, (4, 14, 34), np.uint8),
        "action_mask": gym.spaces.Box(0, 1, (4, 127), np.int8)})
    with pytest.raises(ValueError, match="RewardOptionVector needs the Dict observation"):
        RewardOptionVector(venv, "shaped")


@pytest.mark.parametrize("kind", ["shaped", "points"])
@pytest.mark.parametrize("shape", [(14, 34), (2, 14, 33), (2, 5, 34), (1, 4, 14, 34)])
def test_potential_names_the_planes_it_takes(kind, shape):
    """RewardTransform.potential takes (n, 14 or 18, 34) planes (its docstring). One observation's (14, 34) planes
    failed with numpy's "axis 1 is out of bounds for array of dimension 1" (shaped), or gave 14 potentials for
    one observation (the other kinds); other shapes with a reshape or index error."""
    with pytest.raises(ValueError, match=r"potential takes observation planes \(n, 14 or 18, 34\), got shape"):
        RewardTransform(kind).potential(np.zeros(shape, np.uint8))
    assert RewardTransform(kind).potential(np.zeros((0, 18, 34), np.uint8)).shape == (0,)
