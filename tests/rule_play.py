"""Batched rule-agent play for tests that need positions of real play (not of random play)."""
from __future__ import annotations

import numpy as np

from agents.rule_based import RuleBasedAgent
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.state import END


def rule_agent_play(eng: Engine, seed: int, limit: int):
    """Rule agents play every table of ``eng`` for ``limit`` steps, finished tables dealt again: yields the live
    tables before each step, for the caller to look at the position (and stop when it has what it wants)."""
    agent, rng = RuleBasedAgent(eng.rules), np.random.default_rng(seed)
    for _ in range(limit):
        st = eng.state
        live = np.flatnonzero(st.phase != END)
        yield live
        obs = {"observation": observe(eng.rules, st, idx=live), "action_mask": eng.legal_mask()[live],
               "seat": st.to_act[live].astype(np.int64)}
        acts = np.zeros(eng.num_tables, dtype=np.int64)
        acts[live] = agent.act(obs, rng)
        eng.step(acts)
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
