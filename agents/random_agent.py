"""The random baseline: uniform over the legal actions, batched."""
from __future__ import annotations

import numpy as np

from .base import as_bool_mask, uniform_legal


class RandomAgent:
    """Picks each legal action with equal probability (a claim window's ``pass`` included)."""

    name = "random"

    def act(self, obs: dict, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64 uniform legal actions for the n rows of ``obs["action_mask"]``."""
        return uniform_legal(as_bool_mask(obs["action_mask"]), rng)
