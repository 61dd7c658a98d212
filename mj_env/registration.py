"""Gymnasium ids of the single-agent environment (``mj_env.single_agent``), one per rule set.

``import mj_env`` registers them; only Gymnasium's registry is loaded here (the environment
classes are named by string), so importing ``mj_env`` stays cheap for the calculator.
"""
from __future__ import annotations

import gymnasium as gym

RULE_IDS = {"beijing": "mj_env/Beijing-v0", "hebei": "mj_env/Hebei-v0", "quemen": "mj_env/Quemen-v0"}
"""Rule preset -> its registered id."""


def register_envs() -> None:
    """Register every id of ``RULE_IDS`` (kept if already registered)."""
    for preset, env_id in RULE_IDS.items():
        if env_id in gym.registry:
            continue
        gym.register(id=env_id, entry_point="mj_env.single_agent:MahjongSingleAgentEnv",
                     vector_entry_point="mj_env.single_agent:MahjongSingleAgentVectorEnv",
                     kwargs={"rules": preset})
