"""Cost of the mj_obs_v2 planes (mj_env.features) per batch, next to the rule-based agent's decision.

::

    python benchmarks/features_cost.py                      # beijing, hebei, quemen; batches 64, 256, 1024
    python benchmarks/features_cost.py --rules beijing --batch 256 --steps 40

Positions come from four rule-based agents playing (the decisions a trainer sees); each row times
``extra_planes`` and ``RuleBasedAgent.act`` on the same batches, in milliseconds per batch, and the
hands ``hand.tiles_to_win`` evaluated per batch (``features.tiles_needed``'s hands, and the changed hands
of ``features.tiles_needed_changed``, measured without being built). The machine's load average is printed with it: on a
shared machine the numbers are upper bounds. NumPy's BLAS threads are not held to one here (user time
ran to about twice the wall time on 2 cores, 2026-12-03), so the figures need the other cores free.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import _args
import numpy as np
from _common import code_line, code_version, machine_info, machine_line
from _peers import read_hand_tables

import mj_env.features as F
from mj_env.baselines import RuleBasedAgent
from mj_env.rules import PRESET_NAMES
from mj_env.vector import MahjongVectorEnv


def measure(rules: str | dict, batch: int, steps: int, seed: int = 0) -> dict:
    env = MahjongVectorEnv(num_envs=batch, rules=rules, seed=seed)
    obs, _ = env.reset(seed=seed)
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(seed)
    t_feat = t_rule = 0.0
    evals = 0
    counted, counted_changed = F.tiles_needed, F.tiles_needed_changed

    def counting(r, hands, hui, meld_suits=None):
        nonlocal evals
        evals += len(hands)
        return counted(r, hands, hui, meld_suits)

    def counting_changed(r, hands, hui, meld_suits, rows, kinds, delta):  # one hand per changed row
        nonlocal evals
        evals += len(rows)
        return counted_changed(r, hands, hui, meld_suits, rows, kinds, delta)

    F.tiles_needed, F.tiles_needed_changed = counting, counting_changed
    try:
        for _ in range(steps):
            t0 = time.perf_counter()
            F.extra_planes(rules, obs["observation"], obs["action_mask"])
            t1 = time.perf_counter()
            actions = agent.act(obs, rng)
            t2 = time.perf_counter()
            t_feat, t_rule = t_feat + t1 - t0, t_rule + t2 - t1
            obs, *_ = env.step(actions)
    finally:
        F.tiles_needed, F.tiles_needed_changed = counted, counted_changed
    return {"rules": rules, "batch": batch, "features_ms": 1000 * t_feat / steps, "rule_agent_ms": 1000 * t_rule / steps,
            "features_per_s": batch * steps / t_feat, "hands_per_batch": evals / steps}


def main(argv=None) -> list[dict]:
    p = _args.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--rules", default=",".join(PRESET_NAMES), help=f"{_args.RULES_LIST_HELP} (default all presets)")
    p.add_argument("--batch", default="64,256,1024",
                   help=f"comma-separated batch sizes, 1 to {_args.MAX_BATCH:,} (default 64,256,1024)")
    p.add_argument("--steps", type=int, default=30, help="steps timed per row, at least 1 (default 30)")
    a = p.parse_args(argv)
    rule_sets = _args.rule_sets(p, "--rules", a.rules)  # a preset's name, or a rule set's object form
    batches = _args.int_list(p, "--batch", a.batch)
    _args.in_range(p, "--steps", a.steps, 1)
    read_hand_tables()  # untimed: else the first row's first steps read them (0.2 s of the rule agent's time)
    m = machine_info()
    print(f"{machine_line(m)}; BLAS threads not pinned (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})")
    print(code_line(code_version(Path(__file__).resolve().parents[1])))
    print(f"{a.steps} steps timed per row")
    print("| rules | batch | mj_obs_v2 planes ms/batch | rule agent ms/batch | observations/s | tiles_to_win hands/batch |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = []
    for rules in rule_sets:
        for batch in batches:
            r = measure(rules, batch, a.steps)
            rows.append(r)
            print(f"| {_args.rules_label(rules)} | {batch} | {r['features_ms']:.1f} | {r['rule_agent_ms']:.1f} | "
                  f"{r['features_per_s']:,.0f} | {r['hands_per_batch']:,.0f} |", flush=True)
    return rows


if __name__ == "__main__":
    from mj_env.lines import guard_output  # here: NumPy is loaded by now, its threads sized

    guard_output("benchmarks/features_cost.py")  # | head: the reader that left gets no more, and no traceback
    main()
