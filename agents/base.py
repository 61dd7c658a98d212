"""The batched agent protocol shared by the baselines, trained policies, the arena and train.py.

An agent decides for many tables at once from observations alone::

    actions = agent.act(obs, rng)      # obs: dict of batched arrays, rng: np.random.Generator

| key | shape, dtype | meaning |
| --- | --- | --- |
| ``obs["observation"]`` | (n, 14, 34) uint8 | planes of ``mj_obs_v1`` (``mj_env.observation``), seat to act; (n, 18, 34) from an env made with ``obs="v2"`` (``mj_obs_v2``, whose first 14 planes are ``mj_obs_v1``: every agent here takes either) |
| ``obs["action_mask"]`` | (n, 127) int8 or bool | its legal actions |
| ``obs["seat"]`` | (n,) int | the seat to act (0-3); the planes are already relative to it |

It returns (n,) int64 actions, each legal under its row of the mask. Acting from observations
only (never from engine state) is what lets one agent object play in ``MahjongVectorEnv``, in the
arena (which builds the same dict from the engine with ``mj_env.observation.observe``) and in the
PettingZoo env, and play opponents inside ``mj_env.single_agent``. All randomness comes from
``rng``, so a seeded generator makes a run repeatable. Draw with ``rng.random(size)`` (float64, no ``out``) or
``rng.gumbel(size=...)`` with a rows-first ``size`` (``size[0]`` = n), and for some of the rows only through
``mj_env.baselines.rows_of(rng, rows)``: the arena's common random numbers (``agents.common_random``)
then give each row the numbers of its own table, seat and decision. The helpers below live in
``mj_env.baselines`` (the NumPy baselines moved there so that ``mj_env`` never imports ``agents``).
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from mj_env.baselines import (
    Actor,
    RulesMismatchWarning,
    as_bool_mask,
    check_rows_have_actions,
    rows_of,
    uniform_legal,
)

__all__ = ["Actor", "Agent", "RulesMismatchWarning", "as_bool_mask", "check_rows_have_actions", "rows_of",
           "uniform_legal"]


@runtime_checkable
class Agent(Actor, Protocol):
    """Anything with a ``name`` and a batched ``act``: ``mj_env.baselines.Actor`` (what the envs'
    ``opponents`` take) plus the ``name`` the arena and train.py print."""

    name: str

    def act(self, obs: dict, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64 legal actions for the n observations in ``obs``."""
        ...
