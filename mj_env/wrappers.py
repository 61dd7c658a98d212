"""Small adapters between the PettingZoo environment and RL libraries' expectations.

==========================  ===========================================================
wrapper                     for
==========================  ===========================================================
``FlatObservations(env)``   Ray RLlib's action-masking RLModule: observations as
                            ``{"observations": (476,) float32, "action_mask": (127,) int8}``
                            (RLlib has no default encoder for the (14, 34) planes)
``NumericInfos(env)``       Tianshou (its collector checks infos for NaN, and the settlement
                            object holds ``None``): ``infos[agent]["settlement"]`` becomes
                            ``infos[agent]["scores"]``, the four seats' points
``ResetByMask(envs)``       TorchRL's ``GymWrapper`` over the batched single-agent env
                            (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``):
                            ``autoreset_mode`` ``DISABLED``, the caller deals ended tables anew
                            with ``reset(options={"reset_mask": ...})``, as TorchRL does
==========================  ===========================================================

The first two wrap the AEC env of ``mj_env.env(...)``, the third the ``NEXT_STEP`` vector form of
``mj_env.single_agent``; each keeps everything else as it is. The single-agent Gymnasium
environment needs no adapter for Stable-Baselines3 or Gymnasium's wrappers.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorWrapper
from pettingzoo.utils import BaseWrapper

from . import actions as A
from .observation import N_PLANES
from .tiles import N_KINDS

N_FLAT = N_PLANES * N_KINDS


class FlatObservations(BaseWrapper):
    """Observations as RLlib's action-masking examples read them (see the module docstring)."""

    def __init__(self, env):
        super().__init__(env)
        self._space = spaces.Dict({
            "observations": spaces.Box(0.0, 255.0, (N_FLAT,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), dtype=np.int8),
        })

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        o = super().observe(agent)
        return {"observations": o["observation"].reshape(-1).astype(np.float32),
                "action_mask": o["action_mask"]}


class NumericInfos(BaseWrapper):
    """Infos with numbers only: the settlement object is replaced by its ``scores``."""

    @property
    def infos(self):
        out = {}
        for agent, info in self.env.infos.items():
            info = dict(info)
            s = info.pop("settlement", None)
            if s is not None:
                info["scores"] = np.asarray(s["scores"], dtype=np.int64)
            out[agent] = info
        return out

    def last(self, observe=True):
        obs, rew, term, trunc, _ = super().last(observe)
        return obs, rew, term, trunc, self.infos.get(self.agent_selection, {})


class ResetByMask(VectorWrapper):
    """The batched single-agent env with ``AutoresetMode.DISABLED`` (what TorchRL's ``GymWrapper``
    prefers; it refuses ``NEXT_STEP`` and cannot read ``SAME_STEP``'s Dict ``final_obs``).

    The wrapped env must run ``NEXT_STEP`` (its default): a table whose episode ended keeps its
    final observation (mask: ``pass`` only) until ``reset(options={"reset_mask": m})`` deals the
    tables of ``m`` anew and leaves the others as they are. Stepping an ended table without that
    reset deals it anew too (the env's ``NEXT_STEP`` behaviour; Gymnasium leaves it undefined)."""

    def __init__(self, env):
        super().__init__(env)
        mode = getattr(env, "autoreset_mode", env.metadata.get("autoreset_mode"))
        if mode != AutoresetMode.NEXT_STEP:
            raise ValueError(f"ResetByMask wraps a NEXT_STEP vector env, got autoreset_mode={mode}")
        self.metadata = {**env.metadata, "autoreset_mode": AutoresetMode.DISABLED}

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return AutoresetMode.DISABLED
