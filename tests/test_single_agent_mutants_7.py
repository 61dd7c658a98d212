"""Gaps in the single-agent envs' tests found by a mutation round of ``mj_env/single_agent.py`` (round 7:
``_undoable``, the constructors and the small helpers; each test fails under the mutant it names and passes on
the code)."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentVectorEnv


def test_an_interrupt_after_a_step_recorded_its_mask_leaves_the_masks_as_before(monkeypatch):
    """A step that fails, even at its very end (an interrupt after the new mask was recorded, while the infos
    are made), changes nothing (docs/RULES.md 7; ``_undoable``): ``action_masks()`` still gives the masks of
    the decision the learner has not yet made, and the env plays on as a twin that never failed. The mutants
    that never put the saved mask back (``if mask is not None`` negated or False, the assignment dropped) left
    the failed step's masks in place."""
    envs = MahjongSingleAgentVectorEnv(2, seed=0)
    twin = MahjongSingleAgentVectorEnv(2, seed=0)
    obs, _ = envs.reset(seed=0)
    twin.reset(seed=0)
    before = envs.action_masks().copy()
    acts = uniform_legal(obs["action_mask"], np.random.default_rng(0))

    def interrupted(extra=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(envs, "_infos", interrupted)
    with pytest.raises(KeyboardInterrupt):
        envs.step(acts)
    monkeypatch.undo()
    assert np.array_equal(envs.action_masks(), before)
    assert np.array_equal(envs.action_masks(), twin.action_masks())
    o1, r1, t1, _, _ = envs.step(acts)
    o2, r2, t2, _, _ = twin.step(acts)
    assert np.array_equal(o1["observation"], o2["observation"]) and np.array_equal(r1, r2) and np.array_equal(t1, t2)
    assert np.array_equal(envs.action_masks(), twin.action_masks())


def test_a_same_step_table_whose_episode_ended_shows_no_redeal_of_its_own_new_deal_unless_there_was_one():
    """Under ``SAME_STEP`` an ended table's top-level infos are its new episode's reset infos: ``redealt`` only
    where the new deal was dealt again (module docstring; ``_forget_hands`` clears the count before the deal). An
    illegal action at every table ends every episode; seed 0 deals no hand that ends before the learner decides,
    so no ``redealt`` at all. The mutant that set the count to 1 instead of 0 showed ``redealt`` = 1 everywhere."""
    from gymnasium.vector import AutoresetMode
    envs = MahjongSingleAgentVectorEnv(4, seed=0, autoreset_mode=AutoresetMode.SAME_STEP)
    obs, infos = envs.reset(seed=0)
    assert "redealt" not in infos
    _, _, terminated, _, infos = envs.step(np.argmin(obs["action_mask"], axis=1))  # illegal everywhere
    assert terminated.all() and infos["final_info"]["illegal_action"].all()
    assert "redealt" not in infos and "redealt" not in infos["final_info"]


def test_a_closed_vector_env_refuses_action_masks():
    """``action_masks()`` of a closed vector env raises as its ``step`` and ``reset`` do, rather than answering
    the masks of a table no longer played (the one-table env already did); the mutant without the check gave the
    last masks."""
    envs = MahjongSingleAgentVectorEnv(2, seed=0)
    envs.reset(seed=0)
    envs.close()
    with pytest.raises(RuntimeError, match="is closed"):
        envs.action_masks()


def test_the_observation_spaces_are_the_documented_boxes():
    """The module docstring's table: ``{"observation": Box(0, 255, (14, 34), uint8), "action_mask": Box(0, 1,
    (127,), int8)}`` ((18, 34) with ``obs="v2"``), in the one-table env and per table in the vector env. The
    mutant ``Box(0, 2, ...)`` for the mask went unnoticed (every mask still lies inside it). The action spaces are
    ``Discrete(127)`` and, batched, its ``batch_space`` (only the TorchRL example's test, skipped where TorchRL is
    not installed, noticed the vector env without its ``action_space``)."""
    import gymnasium as gym
    from gymnasium import spaces

    from mj_env.single_agent import MahjongSingleAgentEnv
    mask = spaces.Box(0, 1, (127,), dtype=np.int8)
    for obs, planes in (("v1", 14), ("v2", 18)):
        expected = spaces.Dict({"observation": spaces.Box(0, 255, (planes, 34), dtype=np.uint8), "action_mask": mask})
        envs = MahjongSingleAgentVectorEnv(2, obs=obs)
        assert envs.single_observation_space == expected
        assert envs.observation_space == gym.vector.utils.batch_space(expected, 2)
        assert (envs.observation_space["action_mask"].high == 1).all()
        assert MahjongSingleAgentEnv(obs=obs).observation_space == expected
        assert envs.single_action_space == spaces.Discrete(127) == MahjongSingleAgentEnv(obs=obs).action_space
        assert envs.action_space == gym.vector.utils.batch_space(spaces.Discrete(127), 2)


def test_the_one_table_env_names_its_observation_layout():
    """``observation_layout`` names the ``obs`` layout (module docstring), in the one-table env as in the vector
    form and the AEC env; the mutant that left the one-table env without it went unnoticed."""
    import gymnasium as gym

    from mj_env.single_agent import MahjongSingleAgentEnv
    assert MahjongSingleAgentEnv().observation_layout == "mj_obs_v1"
    assert MahjongSingleAgentEnv(obs="v2").observation_layout == "mj_obs_v2"
    assert gym.make("mj_env/Beijing-v0", obs="v2").unwrapped.observation_layout == "mj_obs_v2"


def test_the_one_table_env_refuses_a_step_before_its_first_reset_with_its_own_message():
    """A one-table env steps only after ``reset()``: before it, any action (in the action space or not) is refused
    with the one-table env's own ``ActionError`` ("the episode is over (or not started)"), as after an episode's
    end. The mutant that started with ``_done = False`` let the step through to the action check and the vector
    form, whose messages speak of an action space or of ``step() before reset()``."""
    from mj_env.actions import ActionError
    from mj_env.single_agent import MahjongSingleAgentEnv
    env = MahjongSingleAgentEnv()
    for action in (0, 500):
        with pytest.raises(ActionError, match=r"the episode is over \(or not started\): call reset\(\) first"):
            env.step(action)
    obs, _ = env.reset(seed=0)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
