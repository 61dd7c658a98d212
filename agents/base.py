"""The batched agent protocol shared by the baselines, trained policies, the arena and train.py.

An agent decides for many tables at once from observations alone::

    actions = agent.act(obs, rng)      # obs: dict of batched arrays, rng: np.random.Generator

| key | shape, dtype | meaning |
| --- | --- | --- |
| ``obs["observation"]`` | (n, 14, 34) uint8 | planes of ``mj_obs_v1`` (``mj_env.observation``), seat to act |
| ``obs["action_mask"]`` | (n, 127) int8 or bool | its legal actions |
| ``obs["seat"]`` | (n,) int | the seat to act (0-3); the planes are already relative to it |

It returns (n,) int64 actions, each legal under its row of the mask. Acting from observations
only (never from engine state) is what lets one agent object play in ``MahjongVectorEnv``, in the
arena (which builds the same dict from the engine with ``mj_env.observation.observe``) and in the
PettingZoo env. All randomness comes from ``rng``, so a seeded generator makes a run repeatable.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and a batched ``act``."""

    name: str

    def act(self, obs: dict, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64 legal actions for the n observations in ``obs``."""
        ...


def as_bool_mask(mask) -> np.ndarray:
    """The action mask as a bool array (the env gives int8)."""
    m = np.asarray(mask)
    return m if m.dtype == bool else m != 0


def check_rows_have_actions(mask: np.ndarray) -> None:
    """Raise if a row of the mask allows nothing (a table that ended was passed to an agent)."""
    empty = ~mask.any(axis=1)
    if empty.any():
        raise ValueError(f"row {int(np.flatnonzero(empty)[0])} of the action mask has no legal action; "
                         "pass only tables that wait on a decision")


def uniform_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row drawn uniformly from the legal ones. mask (n, A) bool -> (n,) int64.

    Gumbel-max over the mask: argmax of independent uniforms restricted to legal entries picks
    each legal action with equal probability, with one vectorised draw for the whole batch.
    """
    check_rows_have_actions(mask)
    u = rng.random(mask.shape)
    return np.where(mask, u, -1.0).argmax(axis=1).astype(np.int64)
