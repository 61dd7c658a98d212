"""The random baseline: uniform over the legal actions, batched (lives in ``mj_env.baselines``)."""
from __future__ import annotations

from mj_env.baselines import RandomAgent, uniform_legal

__all__ = ["RandomAgent", "uniform_legal"]
