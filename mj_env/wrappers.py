"""Small adapters between the PettingZoo environment and RL libraries' expectations.

==========================  ===========================================================
wrapper                     for
==========================  ===========================================================
``FlatObservations(env)``   Ray RLlib's action-masking RLModule: observations as
                            ``{"observations": (476,) float32, "action_mask": (127,) int8}``
                            (612 with the env's ``obs="v2"``; so for the two below)
                            (RLlib has no default encoder for the (14, 34) planes)
``FlatObservationsGym(env)``  the same layout for the single-agent Gymnasium env
                            (``gymnasium.make("mj_env/Beijing-v0", ...)``), for RLlib's
                            single-agent PPO
``FlatObservationsVector(envs)``  the same for its batched form (``gymnasium.make_vec(...,
                            vectorization_mode="vector_entry_point")``), for RLlib's env
                            runners with ``gym_env_vectorize_mode="vector_entry_point"``
``NumericInfos(env)``       Tianshou (its replay buffer stacks every step's infos into one
                            ``Batch``, and two wins' settlements of different shapes, other
                            patterns or a discarder against none, make it raise, e.g. ``Batch
                            does not supported tensor assignment``): ``infos[agent]["settlement"]`` becomes
                            ``infos[agent]["scores"]``, the four seats' points
``ObsAndMask(env)``         Tianshou's masked algorithms (DQN and its kin mask by
                            ``batch.obs.mask``) on the single-agent Gymnasium env:
                            observations as ``{"obs": planes, "mask": (127,) int8}``
``ResetByMask(envs)``       TorchRL's ``GymWrapper`` over the batched single-agent env
                            (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``):
                            ``autoreset_mode`` ``DISABLED``, the caller deals ended tables anew
                            with ``reset(options={"reset_mask": ...})``, as TorchRL does
==========================  ===========================================================

``FlatObservations`` and ``NumericInfos`` wrap the AEC env of ``mj_env.env(...)``,
``FlatObservationsGym`` and ``ObsAndMask`` one single-agent env, ``FlatObservationsVector`` and ``ResetByMask`` the
``NEXT_STEP`` vector form of ``mj_env.single_agent``; each keeps everything else as it is. The single-agent Gymnasium
environment needs no adapter for Stable-Baselines3 or Gymnasium's wrappers; for SB3 at speed,
``mj_env.sb3.MahjongSB3VecEnv`` gives it the batched form as SB3's own ``VecEnv``.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorObservationWrapper, VectorWrapper
from gymnasium.vector.utils import batch_space
from pettingzoo.utils import BaseWrapper

from . import actions as A
from .aec import ForwardsSettings
from .observation import N_PLANES
from .tiles import N_KINDS

N_FLAT = N_PLANES * N_KINDS


def _flat_space(space: spaces.Space) -> spaces.Dict:
    """The flat layout of an env's ``{"observation", "action_mask"}`` space (either observation layout)."""
    if not (isinstance(space, spaces.Dict) and "observation" in space.spaces):
        raise TypeError(f"the flat observations need a Dict space with an 'observation' space (mj_env's), got {space}")
    shape = space["observation"].shape
    if shape is None:  # (the envs of mj_env observe a Box; a custom Space may have none: Text, Graph, Sequence)
        raise TypeError(f"the flat observations need an 'observation' space with a shape (mj_env's planes, a Box), "
                        f"got {space['observation']}")
    return spaces.Dict({
        "observations": spaces.Box(0.0, 255.0, (int(np.prod(shape)),), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), dtype=np.int8),
    })


def _flat(o: dict) -> dict:
    """One seat's ``{"observation": (14, 34) uint8, "action_mask"}`` in RLlib's masking layout."""
    return {"observations": o["observation"].reshape(-1).astype(np.float32), "action_mask": o["action_mask"]}


class FlatObservations(ForwardsSettings, BaseWrapper):
    """Observations as RLlib's action-masking examples read them (see the module docstring)."""

    def __init__(self, env):
        _check_aec_env(env, "FlatObservations")
        super().__init__(env)
        # one space per agent (seeding one agent's space leaves the others' samples alone)
        self._spaces = {agent: _flat_space(env.observation_space(agent)) for agent in env.possible_agents}

    def observation_space(self, agent):
        space = self._spaces.get(agent) if isinstance(agent, str) else None
        return space if space is not None else self.env.observation_space(agent)  # its KeyError, naming the agents

    @property
    def observation_spaces(self) -> dict:  # pyright: ignore[reportIncompatibleVariableOverride] (read-only, derived)
        """The flat space for every agent (not the wrapped env's Dict spaces)."""
        return dict(self._spaces)

    def observe(self, agent):
        # (PettingZoo types observe() as Optional; mj_env's raw_env always gives a dict)
        return _flat(super().observe(agent))  # pyright: ignore[reportArgumentType]


class FlatObservationsGym(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """``FlatObservations`` for one single-agent Gymnasium env (``gymnasium.make``, not ``make_vec``);
    ``action_masks()`` stays reachable through ``env.unwrapped``."""

    def __init__(self, env: gym.Env):
        space = _checked_single_agent_env(env, "FlatObservationsGym")
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = _flat_space(space)

    def observation(self, observation: dict) -> dict:
        return _flat(observation)


def _check_aec_env(env, wrapper: str) -> None:
    """A TypeError unless ``env`` is a PettingZoo AEC env (``mj_env.env()``, wrapped or not)."""
    if not (hasattr(env, "possible_agents") and callable(getattr(env, "observation_space", None))):
        raise TypeError(f"{wrapper} wraps a PettingZoo AEC env of mj_env (mj_env.env()), got {type(env).__name__}"
                        + (f"; for gymnasium.make(\"mj_env/Beijing-v0\") use {wrapper}Gym" if isinstance(env, gym.Env)
                           and wrapper == "FlatObservations" else ""))


def _checked_single_agent_env(env, wrapper: str) -> spaces.Dict:
    """``env``'s observation space, or a TypeError unless ``env`` is a single-agent env of mj_env."""
    if not (isinstance(env, gym.Env) and isinstance(env.observation_space, spaces.Dict)
            and env.observation_space.spaces.keys() == {"observation", "action_mask"}):
        raise TypeError(f"{wrapper} wraps a single-agent env of mj_env (gymnasium.make(\"mj_env/Beijing-v0\")), "
                        f"whose observations are {{'observation', 'action_mask'}}; got {env.observation_space}")
    return env.observation_space


class ObsAndMask(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The single-agent env's observations under Tianshou's keys: ``{"obs": planes, "mask": (127,) int8}``.

    Tianshou's DQN (and the algorithms built on it) masks actions by ``batch.obs.mask``, and its networks
    get ``batch.obs.obs``; under the env's own keys the mask goes unread and, with the single-agent env's
    default ``illegal_action="penalize"``, every illegal pick silently ends its episode at -10. The planes
    and the mask are the env's, unchanged (either observation layout); ``action_masks()`` stays reachable
    through ``env.unwrapped``."""

    def __init__(self, env: gym.Env):
        space = _checked_single_agent_env(env, "ObsAndMask")
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = spaces.Dict({"obs": space["observation"], "mask": space["action_mask"]})

    def observation(self, observation: dict) -> dict:
        return {"obs": observation["observation"], "mask": observation["action_mask"]}


class FlatObservationsVector(VectorObservationWrapper):
    """``FlatObservations`` for the batched single-agent env (``gymnasium.make_vec(id, num_envs=N,
    vectorization_mode="vector_entry_point")``, its default ``NEXT_STEP`` autoreset): what RLlib's env
    runners step when ``gym_env_vectorize_mode="vector_entry_point"`` (all of a runner's tables in one
    engine, instead of one env per table)."""

    def __init__(self, env):
        space = getattr(env, "single_observation_space", None)
        if not (isinstance(space, spaces.Dict) and space.spaces.keys() == {"observation", "action_mask"}):
            raise TypeError("FlatObservationsVector wraps the batched single-agent env of mj_env (gymnasium.make_vec("
                            "\"mj_env/Beijing-v0\", num_envs=N, vectorization_mode=\"vector_entry_point\")), whose "
                            f"observations are {{'observation', 'action_mask'}}; got {space}")
        mode = env.metadata.get("autoreset_mode")
        if mode is not None and mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
            # Gymnasium's VectorObservationWrapper asserts this with a bare AssertionError; a SAME_STEP env's
            # final_obs would also stay unflattened
            raise ValueError(f"FlatObservationsVector wraps a NEXT_STEP vector env (the default of gymnasium.make_vec"
                             f"(..., vectorization_mode=\"vector_entry_point\")), got autoreset_mode={mode}")
        super().__init__(env)
        self.single_observation_space = _flat_space(space)
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    # (Gymnasium types it with a TypeVar that its class leaves unbound: no override can match)
    def observations(self, observations: dict) -> dict:  # type: ignore[override]
        obs = observations["observation"]
        return {"observations": obs.reshape(len(obs), -1).astype(np.float32),
                "action_mask": observations["action_mask"]}


class NumericInfos(ForwardsSettings, BaseWrapper):
    """Infos with numbers only: the settlement object is replaced by its ``scores`` ((4,) int64), the
    ``earlier_settlements`` of a match hand that ended at its deal by ``earlier_scores`` ((k, 4) int64, one row
    each), and an illegal action's name (``illegal_action="penalize"``) by its integer."""

    def __init__(self, env):
        _check_aec_env(env, "NumericInfos")
        super().__init__(env)

    @property
    def infos(self):  # pyright: ignore[reportIncompatibleVariableOverride] (read-only: the wrapped env's, made numeric)
        out = {}
        for agent, info in self.env.infos.items():
            info = dict(info)
            s = info.pop("settlement", None)
            if s is not None:
                info["scores"] = np.asarray(s["scores"], dtype=np.int64)
            earlier = info.pop("earlier_settlements", None)
            if earlier is not None:
                info["earlier_scores"] = np.array([e["scores"] for e in earlier], dtype=np.int64).reshape(-1, 4)
            if isinstance(info.get("illegal_action"), str):
                info["illegal_action"] = A.index(info["illegal_action"])
            out[agent] = info
        return out


class ResetByMask(VectorWrapper):
    """The batched single-agent env with ``AutoresetMode.DISABLED`` (what TorchRL's ``GymWrapper``
    prefers; it refuses ``NEXT_STEP``, and under ``SAME_STEP`` it files the final observation under the key
    ``"observation"``, which collides with the Dict observation's key of that name; with the key renamed it
    runs but loses a Dict observation's final value).

    The wrapped env must run ``NEXT_STEP`` (its default): a table whose episode ended keeps its
    final observation (mask: ``pass`` only where the hand ended; a truncated one keeps its real mask) until ``reset(options={"reset_mask": m})`` deals the
    tables of ``m`` anew and leaves the others as they are. Stepping an ended table without that
    reset deals it anew too (the env's ``NEXT_STEP`` behaviour; Gymnasium leaves it undefined)."""

    def __init__(self, env):
        if not isinstance(env, gym.vector.VectorEnv):  # as the other adapters refuse the wrong kind of env (Gymnasium's
            # VectorWrapper asserts it with a bare AssertionError, which python -O drops)
            raise TypeError("ResetByMask wraps the batched single-agent env of mj_env (gymnasium.make_vec("
                            "\"mj_env/Beijing-v0\", num_envs=N, vectorization_mode=\"vector_entry_point\")), a "
                            f"Gymnasium VectorEnv; got {type(env).__name__}")
        super().__init__(env)
        mode = getattr(env, "autoreset_mode", env.metadata.get("autoreset_mode"))
        if mode != AutoresetMode.NEXT_STEP:
            raise ValueError(f"ResetByMask wraps a NEXT_STEP vector env, got autoreset_mode={mode}")
        self.metadata = {**env.metadata, "autoreset_mode": AutoresetMode.DISABLED}

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return AutoresetMode.DISABLED
