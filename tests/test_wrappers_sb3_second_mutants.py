"""Second mutation-test round on mj_env/wrappers.py and mj_env/sb3.py (seed 4701, 150 mutants): each test pins a
documented behaviour that a one-token change of the code left unnoticed by every other test; its docstring names
the mutant by line (of the modules as they were at this round) and change."""
from __future__ import annotations

import gymnasium as gym
import pytest

import mj_env
from mj_env.wrappers import FlatObservations

# ------------------------------------------------------------------------------------------ wrappers


@pytest.mark.parametrize("space", [gym.spaces.Box(0, 1, (3,)), gym.spaces.Dict({"obs": gym.spaces.Box(0, 1, (3,))})],
                         ids=["Box", "Dict-without-observation"])
def test_flat_observations_refuse_an_aec_env_whose_spaces_are_not_mj_envs_dict(space):
    """``FlatObservations`` over an AEC env whose observation space is no Dict, or a Dict without "observation", is
    its TypeError saying what it needs (line 55: mutants forcing the check False, turning its ``and`` into ``or`` or
    dropping its Dict half, and line 56's removed raise, went unnoticed: Gymnasium's own TypeError, a KeyError or an
    AttributeError followed)."""
    env = mj_env.env()
    env.observation_space = lambda agent: space
    with pytest.raises(TypeError, match="the flat observations need a Dict space with an 'observation' space"):
        FlatObservations(env)


@pytest.mark.parametrize("bad", [None, object()], ids=["None", "object"])
def test_flat_observations_point_to_the_gym_wrapper_only_for_a_gymnasium_env(bad):
    """The hint "use FlatObservationsGym" is for a Gymnasium env given to ``FlatObservations``; an object that is no
    env at all gets the plain TypeError (line 113: a mutant dropping the ``isinstance(env, gym.Env)`` half went
    unnoticed, and pointed every wrong object to the Gymnasium wrapper)."""
    with pytest.raises(TypeError, match="FlatObservations wraps a PettingZoo AEC env of mj_env") as e:
        FlatObservations(bad)
    assert "FlatObservationsGym" not in str(e.value)
