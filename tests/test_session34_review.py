"""A hostile review of session 34's refactors (the arena split into arena_report and rules_args, train.py's run
plumbing moved to agents.training_run, mypy made clean), which were meant to leave behaviour unchanged. Compared
against 953b29d, the two differences a user could see:

- ``agents.arena`` no longer had ``rules_given``, ``duplicate_rules_given`` and ``one_hand_rules_given``, which every
  example (the templates users copy) imported from it beside ``RULES_HELP`` and ``mean_ci95``: code copied from an
  example failed with ImportError, although ``mean_ci95`` was kept for that very reason;
- the flat-observation wrappers over a single-agent env whose ``'observation'`` space has no shape (Gymnasium's
  ``Text``, ``Sequence``, ``Graph``) failed with a bare ``AssertionError`` (mypy's assert) where they raised a
  TypeError (and still did under ``python -O``)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest


@pytest.mark.parametrize("space", [gym.spaces.Text(5), gym.spaces.Sequence(gym.spaces.Discrete(2))],
                         ids=["Text", "Sequence"])
def test_flat_observations_refuse_shapeless_planes_with_a_type_error_that_names_them(space):
    from mj_env.wrappers import FlatObservationsGym

    class Shapeless(gym.Env):
        observation_space = gym.spaces.Dict({"observation": space,
                                             "action_mask": gym.spaces.Box(0, 1, (5,), dtype=np.int8)})
        action_space = gym.spaces.Discrete(5)

    with pytest.raises(TypeError, match="the flat observations need an 'observation' space with a shape"):
        FlatObservationsGym(Shapeless())
