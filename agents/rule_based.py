"""The rule-based baselines (they live in ``mj_env.baselines``, which documents its rules; the
single-agent environment plays it as an opponent without importing ``agents``)."""
from __future__ import annotations

from mj_env.baselines import (
    HUI_DISCARD,
    UNREACHABLE,
    EfficientAgent,
    RuleBasedAgent,
    connectedness,
    discard_distances,
    hand_distance,
    split_hui,
)

__all__ = ["HUI_DISCARD", "UNREACHABLE", "EfficientAgent", "RuleBasedAgent", "connectedness", "discard_distances",
           "hand_distance", "split_hui"]
