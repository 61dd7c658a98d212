"""Do the single-table fast paths pay? The AEC env (one table, what RLCard-style loops step) with
each one switched off in turn, in the same run.

::

    python benchmarks/fast_paths.py                         # beijing and hebei, 3 interleaved rounds
    python benchmarks/fast_paths.py --rules hebei --seconds 3 --repeat 5

Six code paths answer one table in plain Python beside their batched form; each has a test
holding it equal to the batched one (tests/test_claims.py, tests/test_observation.py,
tests/test_hand.py, and tests/test_engine.py's one-table engine against two copies of its table
for the last three). A path stays only while this benchmark shows it pays:

- ``claims``: ``legal.claim_options`` for one table (``_claim_options_one``) instead of
  ``legal.claim_options_batched`` (every discard asks it);
- ``observe``: ``observation.observe_one`` instead of ``observe`` on a length-1 batch (every
  ``last()``);
- ``hand``: ``hand._decide_few`` on Python integers for batches of up to ``hand._SMALL`` hands;
- ``step``: ``Engine._step_one``, the one action checked and its phase's function called directly,
  instead of ``Engine._step_batch``;
- ``draw``: ``wall._draw_one`` on Python numbers instead of ``wall._draw_batch``;
- ``masks``: ``Engine._update_mask_one`` instead of ``Engine._update_masks_batch``.

Each variant plays random legal actions (one sampler, ``mj_env.baselines.uniform_legal``) for
``--seconds``; the rounds are interleaved and each variant keeps its best, so that a shared
machine's load spreads over all of them. Decisions per second; higher is better.
"""
from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import _args
import numpy as np
from _common import code_line, code_version, machine_info, machine_line
from _peers import read_hand_tables

import mj_env
import mj_env.aec as aec_mod
from mj_env import hand, legal, wall
from mj_env.baselines import uniform_legal
from mj_env.engine import Engine
from mj_env.observation import observe

ROOT = Path(__file__).resolve().parents[1]


def _observe_batched(rules, st, b, seat):
    return observe(rules, st, np.array([b]), np.array([seat]))[0]


@contextlib.contextmanager
def switched_off(paths: tuple[str, ...]):
    """Route the named single-table paths to their batched forms for the duration."""
    saved = (legal.claim_options, aec_mod.observe_one, hand._SMALL, Engine._step_one, wall._draw_one,
             Engine._update_mask_one)
    # (the type: ignore[method-assign] below: replacing Engine's methods, and restoring them, is the point here)
    try:
        if "claims" in paths:
            legal.claim_options = legal.claim_options_batched
        if "observe" in paths:
            aec_mod.observe_one = _observe_batched
        if "hand" in paths:
            hand._SMALL = 0
        if "step" in paths:
            Engine._step_one = lambda self, acts: self._step_batch(acts, None)  # type: ignore[method-assign]
        if "draw" in paths:
            wall._draw_one = lambda rules, st, b, replacement: wall._draw_batch(rules, st, np.array([b]), replacement)
        if "masks" in paths:
            Engine._update_mask_one = lambda self: self._update_masks_batch(None)  # type: ignore[method-assign]
        yield
    finally:
        (legal.claim_options, aec_mod.observe_one, hand._SMALL,
         Engine._step_one,  # type: ignore[method-assign]
         wall._draw_one,
         Engine._update_mask_one) = saved  # type: ignore[method-assign]


def random_play(env, rng: np.random.Generator, more) -> int:
    """Random legal play of the AEC env ``env`` (reset already) while ``more(decisions so far)`` holds (asked
    every 500 steps), dealing again where a match ends; returns the decisions made."""
    decisions = 0
    while more(decisions):
        for _agent in env.agent_iter(max_iter=500):
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(uniform_legal(obs["action_mask"][None], rng)[0]))
            decisions += 1
        if not env.agents:
            env.reset(seed=int(rng.integers(1 << 31)))
    return decisions


def aec_rate(rules: str | dict, seconds: float, seed: int) -> float:
    """Decisions per second of the AEC env under random legal play."""
    env = mj_env.env(rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    decisions = random_play(env, rng, lambda _n: time.perf_counter() - t0 < seconds)
    return decisions / (time.perf_counter() - t0)


PATHS = ("claims", "observe", "hand", "step", "draw", "masks")
VARIANTS = {"all fast paths": (), **{f"{p} off": (p,) for p in PATHS}, "all off": PATHS}
WARMUP_DECISIONS = 300
"""Untimed decisions per rule set and code path before the first round, at least (about three hands)."""


def warm_up(rules: str | dict, decisions: int = WARMUP_DECISIONS) -> None:
    """Untimed play before the rounds: every hand table read, then ``decisions`` decisions with every one-table
    path on and as many with every path off, so that no variant's timed play pays a one-off cost (a table read
    at its first use, about 0.1 s, was charged to the first variant, "all fast paths", of round 1: the
    baseline every ratio divides by)."""
    read_hand_tables()
    for paths in ((), PATHS):
        with switched_off(paths):
            env = mj_env.env(rules=rules)
            env.reset(seed=0)
            random_play(env, np.random.default_rng(0), lambda n: n < decisions)


def main(argv=None) -> dict:
    p = _args.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    p.add_argument("--rules", default="beijing,hebei", help=f"{_args.RULES_LIST_HELP} (default beijing,hebei)")
    p.add_argument("--seconds", type=float, default=2.0, help="play per variant and round (default 2)")
    p.add_argument("--repeat", type=int, default=3, help="interleaved rounds, 1 to 100 (default 3)")
    p.add_argument("--json", metavar="PATH", help="also write the rows as JSON (its folder must exist)")
    a = p.parse_args(argv)
    given = {_args.rules_label(r): r for r in _args.rule_sets(p, "--rules", a.rules)}  # label: name or object form
    rule_sets = list(given)
    _args.positive(p, "--seconds", a.seconds)
    _args.in_range(p, "--repeat", a.repeat, 1, 100)
    _args.output(p, "--json", a.json)
    for rules in rule_sets:
        warm_up(given[rules])
    best: dict[tuple[str, str], float] = {}
    for rnd in range(a.repeat):
        for rules in rule_sets:
            for name, paths in VARIANTS.items():
                with switched_off(paths):
                    rate = aec_rate(given[rules], a.seconds, seed=rnd)
                best[rules, name] = max(best.get((rules, name), 0.0), rate)
    out = {"machine": machine_info(), "code": code_version(ROOT), "seconds": a.seconds, "repeat": a.repeat,
           "rows": [{"rules": given[r], "variant": v, "decisions_per_s": round(x)} for (r, v), x in best.items()]}
    m = out["machine"]
    print(f"{machine_line(m)}\n{code_line(out['code'])}\n"
          f"the AEC env (one table), {a.seconds:g} s per variant and round, best of {a.repeat} round(s)")
    print(f"{'rules':8} {'variant':16} {'decisions/s':>12} {'vs all fast paths':>18}")
    for (rules, name), rate in best.items():
        print(f"{rules:8} {name:16} {rate:12,.0f} {rate / best[rules, 'all fast paths']:17.2f}x")
    if a.json:
        _args.write_text("--json", a.json, json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    from mj_env.lines import guard_output  # here: NumPy is loaded by now, its threads sized

    guard_output("benchmarks/fast_paths.py")  # | head: the reader that left gets no more, and no traceback
    main()
