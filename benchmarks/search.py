#!/usr/bin/env python
"""Copies for search: Engine.clone / Engine.restore per second, random rollouts from a copied
position per second, and determinizations per second (mj_env.determinize).

::

    python benchmarks/search.py                                  # beijing, 3 s per row, batches 256,1024
    python benchmarks/search.py --seconds 0.2 --batch-sizes 16 --json /tmp/search.json
    python benchmarks/search.py --ting-mixing                    # quemen: how far the 报听 chain moves

Rows (one process, one thread; the positions are mid-hand tables of random play, ``--tables``
of them, used in turn):

- ``clone 1 table``      ``root.clone([b])``: a new one-table Engine (its generator spawned
  from the root's, as by default);
- ``restore 1 -> N``     ``rows.restore(root, b, range(N))``: one position into N rows of an
  existing engine, at every ``--batch-sizes`` value N;
- ``rollout N``          restore one position into N rows, then play every row to the end of the
  hand with uniformly random legal actions (``MaskedSampler``, benchmarks/_common.py, timed
  inside); rollouts/s = N x rounds / time, the restore included;
- ``determinize N``      ``determinize(root, b, seat, n=N)`` for the seat to act (a new Engine of
  N worlds); with ``--rules quemen`` the 报听 chain runs where another seat declared 报听.

``--ting-mixing`` (quemen, rule-based play until positions with another seat's 报听 come up):
for several chain lengths, the share of the 报听 seat's real concealed hand that its redealt
hand keeps (mean over copies and positions, by hand size), the same share for exact uniform
samples where rejection can find them (hands of 7 tiles or fewer), and the time per
determinize(n=64). Output: a table on stdout and with ``--json PATH`` the same as JSON, with
the machine, the load average and the commit.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _args


def size_threads(a: argparse.Namespace) -> None:
    """The BLAS/OpenMP thread pool to ``--threads``: before NumPy is imported, or it is sized already."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[var] = str(a.threads)


def parse_args(argv=None, before_numpy=None) -> argparse.Namespace:
    """The checked flags; ``before_numpy(a)`` (the program's ``size_threads``) is called once the other flags are
    checked and before --rules is read, which imports NumPy (agents.rules_args)."""
    p = _args.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    p.add_argument("--rules", default="beijing", help=f"{_args.RULES_HELP} (default beijing)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed work per row (default 3)")
    p.add_argument("--batch-sizes", default="256,1024",
                   help=f"rows restored / rolled out / determinized, 1 to {_args.MAX_BATCH:,} each")
    p.add_argument("--tables", type=int, default=32,
                   help=f"root positions used in turn, 1 to {_args.MAX_BATCH:,} (default 32)")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**63 - 1")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads, 1 to 256 (default 1)")
    p.add_argument("--ting-mixing", action="store_true", help="measure the 报听 chain instead (quemen)")
    p.add_argument("--ting-steps", default="0,100,200,500,1000,5000",
                   help="chain lengths for --ting-mixing, comma-separated, 0 to 1,000,000")
    p.add_argument("--ting-positions", type=int, default=40,
                   help="positions for --ting-mixing, 1 to 1,000 (default 40)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON (its folder must exist)")
    a = p.parse_args(argv)
    _args.positive(p, "--seconds", a.seconds)
    a.batch_list = _args.int_list(p, "--batch-sizes", a.batch_sizes)
    _args.in_range(p, "--tables", a.tables, 1, _args.MAX_BATCH)
    _args.seed(p, a.seed)
    _args.in_range(p, "--threads", a.threads, 1, 256)
    a.ting_steps_list = _args.int_list(p, "--ting-steps", a.ting_steps, lo=0, hi=1_000_000)
    _args.in_range(p, "--ting-positions", a.ting_positions, 1, 1_000)
    _args.output(p, "--json", a.json)
    if before_numpy is not None:
        before_numpy(a)
    a.rules = _args.rules(p, "--rules", a.rules)  # a preset's name, or a rule set's object form (JSON-safe)
    return a


if (__name__ == "__main__" and getattr(sys.stdout, "errors", None) in ("strict", "surrogateescape")
        and hasattr(sys.stdout, "reconfigure")):
    # --help names 报听: on a standard output that cannot encode it (PYTHONIOENCODING=ascii, Windows' cp1252),
    # a backslash escape, not a UnicodeEncodeError (mj_env.lines.guard_output, below, imports NumPy)
    sys.stdout.reconfigure(errors="backslashreplace")  # pyright: ignore[reportAttributeAccessIssue]  (hasattr above)
ARGS = parse_args(before_numpy=size_threads) if __name__ == "__main__" else None  # threads sized before NumPy

import numpy as np
from _common import MaskedSampler, code_line, code_version, machine_info, machine_line

from mj_env.baselines import RuleBasedAgent
from mj_env.determinize import determinize, ting_waits
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.state import END, TURN


def roots(rules: str | dict, tables: int, seed: int) -> Engine:
    """``tables`` mid-hand positions: random play from a deal, each table stopped at its own step."""
    eng = Engine(rules, num_tables=tables, seed=seed)
    eng.reset()
    sampler = MaskedSampler(seed)
    stop = np.random.default_rng(seed).integers(8, 60, size=tables)
    frozen = Engine(rules, num_tables=tables, seed=seed)
    for step in range(int(stop.max()) + 1):
        at = np.flatnonzero((stop == step) & (eng.state.phase != END))
        if len(at):
            frozen.restore(eng, at, at)
        eng.step(sampler(eng.legal_mask()))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    missing = np.flatnonzero(~frozen._dealt_ever)
    if len(missing):
        frozen.restore(eng, missing, missing)
    return frozen


CPU: dict[str, float] = {}
"""The CPU share (process CPU time / wall time) of the last timed loop: under 1 when other work
on the machine took the core, and the wall-clock figures are then lower bounds."""


def timed(fn, seconds: float, warmup: int = 0, after_warmup=None) -> tuple[int, float]:
    """Call ``fn(i)`` for i = 0, 1, ... until ``seconds`` have passed (at least twice), after one
    untimed ``fn(warmup)`` and then ``after_warmup()`` if given; returns (calls, seconds)."""
    fn(warmup)
    if after_warmup is not None:
        after_warmup()
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while True:
        fn(n)
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds and n >= 2:
            CPU["share"] = (time.process_time() - c0) / dt
            return n, dt


def clone_row(root: Engine, seconds: float) -> dict:
    T = root.num_tables
    n, dt = timed(lambda i: root.clone([i % T]), seconds)
    return {"row": "clone 1 table", "batch": 1, "per_sec": n / dt, "us_each": 1e6 * dt / n}


def restore_row(root: Engine, N: int, seconds: float) -> dict:
    T = root.num_tables
    rows, dst = Engine(root.rules, num_tables=N), np.arange(N)
    n, dt = timed(lambda i: rows.restore(root, i % T, dst), seconds)
    return {"row": f"restore 1 -> {N}", "batch": N, "per_sec": n / dt, "us_each": 1e6 * dt / n,
            "rows_per_sec": N * n / dt}


def rollout_row(root: Engine, N: int, seconds: float, seed: int) -> dict:
    T = root.num_tables
    rows, dst = Engine(root.rules, num_tables=N), np.arange(N)
    sampler = MaskedSampler(seed)
    stats = {"decisions": 0, "sampler": 0.0, "restore": 0.0}

    def rollout(i):
        t0 = time.perf_counter()
        rows.restore(root, i % T, dst)
        stats["restore"] += time.perf_counter() - t0
        while True:
            live = rows.state.phase != END
            if not live.any():
                return
            stats["decisions"] += int(live.sum())
            t1 = time.perf_counter()
            acts = sampler(rows.legal_mask())
            stats["sampler"] += time.perf_counter() - t1
            rows.step(acts)

    n, dt = timed(rollout, seconds, warmup=T - 1,
                  after_warmup=lambda: stats.update(decisions=0, sampler=0.0, restore=0.0))
    return {"row": f"rollout {N}", "batch": N, "per_sec": N * n / dt, "us_each": 1e6 * dt / (N * n),
            "decisions_per_sec": stats["decisions"] / dt, "decisions_per_rollout": stats["decisions"] / (N * n),
            "sampler_share": stats["sampler"] / dt, "restore_share": stats["restore"] / dt}


def determinize_row(root: Engine, N: int, seconds: float) -> dict:
    live = np.flatnonzero(root.state.phase != END)
    seats = root.state.to_act[live].astype(int)
    n, dt = timed(lambda i: determinize(root, int(live[i % len(live)]), int(seats[i % len(live)]), n=N, rng=i),
                  seconds)
    return {"row": f"determinize {N}", "batch": N, "per_sec": N * n / dt, "us_each": 1e6 * dt / (N * n),
            "calls_per_sec": n / dt}


def measure(a) -> list[dict]:
    root = roots(a.rules, a.tables, a.seed)
    out = []

    def row(r):
        r["cpu_share"] = CPU["share"]
        out.append(r)

    row(clone_row(root, a.seconds))
    for N in a.batch_list:
        row(restore_row(root, N, a.seconds))
    for N in a.batch_list:
        row(rollout_row(root, N, a.seconds, a.seed + N))
    for N in a.batch_list:
        row(determinize_row(root, N, a.seconds))
    return out


def ting_positions(count: int, seed: int) -> list[tuple[Engine, int, int]]:
    """(one-table copy, seat to act, a 报听 seat) from quemen play by the rule-based agent."""
    eng = Engine("quemen", num_tables=64, seed=seed)
    eng.reset()
    agent, rng = RuleBasedAgent("quemen"), np.random.default_rng(seed)
    found: list[tuple[Engine, int, int]] = []
    for _ in range(2000):
        st = eng.state
        live = np.flatnonzero(st.phase != END)
        for b in live:
            s = int(st.to_act[b])
            others = [o for o in range(4) if o != s and st.ting[b, o]
                      and not (st.turn_seat[b] == o and st.phase[b] == TURN and st.drawn[b] >= 0)]
            if others and rng.random() < 0.05 and len(found) < count:
                found.append((eng.clone([b]), s, others[0]))
        if len(found) >= count:
            return found
        mask = eng.legal_mask()
        acts = np.zeros(64, dtype=np.int64)
        acts[live] = agent.act({"observation": observe(eng.rules, st, live), "action_mask": mask[live]}, rng)
        eng.step(acts)
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    return found


def unseen_pool(root: Engine, seat: int) -> np.ndarray:
    """(34,) the tiles ``seat`` cannot see at table 0: the other seats' concealed hands and kongs and the undrawn
    wall (flowers left out)."""
    st = root.state
    pool = np.zeros(34, dtype=np.int64)
    for q in range(4):
        if q != seat:
            pool += st.hands[0, q] + st.hidden[0, q]
    undrawn = st.wall[0, st.live_pos[0]: st.tail_pos[0] + 1]
    return pool + np.bincount(undrawn[undrawn < 34], minlength=34)


def exact_share(root: Engine, seat: int, o: int, rng, samples: int = 200_000) -> float | None:
    """The share of the real hand kept by exact uniform 报听 hands (rejection), or None. Every tile the seat to
    act cannot see is in the pool, the 报听 seat's concealed kongs too: their kinds are drawn first (distinct
    kinds of which all four are in the pool, uniformly: each takes all four of its tiles, so every choice
    leaves as many ways to draw the hand), then the hand from the rest, kept when it waits beside the face-up
    melds and those kongs. (The other seats' concealed kongs are in the pool as tiles, their kind-count weight
    left out: the reference is exact up to that.)"""
    st = root.state
    true = st.hands[0, o]
    size = int(true.sum())
    if size > 7:
        return None
    pool = unseen_pool(root, seat)
    melds = np.repeat((st.meld_counts[0, o] - st.hidden[0, o])[None].astype(np.int16), samples, axis=0)
    n_kong = int(st.n_hidden[0, o])
    left = np.repeat(pool[None], samples, axis=0)
    if n_kong:
        fours = np.flatnonzero(pool == 4)
        kinds = fours[np.argpartition(rng.random((samples, len(fours))), n_kong - 1, axis=1)[:, :n_kong]]
        for j in range(n_kong):
            melds[np.arange(samples), kinds[:, j]] += 4
            left[np.arange(samples), kinds[:, j]] -= 4
    tiles = np.repeat(np.tile(np.arange(34, dtype=np.int8), samples), left.ravel()).reshape(samples, -1)
    pick = np.argpartition(rng.random(tiles.shape), size, axis=1)[:, :size]
    counts = np.zeros((samples, 34), dtype=np.int8)
    for j in range(size):
        np.add.at(counts, (np.arange(samples), tiles[np.arange(samples), pick[:, j]]), 1)
    ok = ting_waits(root.rules, counts, melds)
    if not ok.any():
        return None
    return float((np.minimum(counts[ok], true).sum(axis=1) / size).mean())


def ting_mixing(seed: int, steps_list, positions: int, n: int = 64) -> list[dict]:
    found = ting_positions(positions, seed)
    if not found:
        raise SystemExit("error: no position with another seat's 报听 came up in 2,000 steps of play")
    rng = np.random.default_rng(seed)
    rows = []
    sizes = sorted({int(r.state.hands[0, o].sum()) for r, _, o in found})
    exact: dict[int, list[float]] = {}
    for r, s, o in found:
        share = exact_share(r, s, o, rng)
        if share is not None:
            exact.setdefault(int(r.state.hands[0, o].sum()), []).append(share)
    for steps in steps_list:
        by_size: dict[int, list[float]] = {}
        t = 0.0
        for r, s, o in found:
            t0 = time.perf_counter()
            worlds = determinize(r, 0, s, n=n, rng=1, mcmc_steps=steps)
            t += time.perf_counter() - t0
            true = r.state.hands[0, o]
            kept = np.minimum(worlds.state.hands[:, o], true).sum(axis=1) / true.sum()
            by_size.setdefault(int(true.sum()), []).append(float(kept.mean()))
        rows.append({"mcmc_steps": steps, "ms_per_call": 1000 * t / len(found), "n": n,
                     "kept_by_size": {k: float(np.mean(v)) for k, v in sorted(by_size.items())},
                     "positions_by_size": {k: len(v) for k, v in sorted(by_size.items())}})
    rows.append({"mcmc_steps": "exact", "kept_by_size": {k: float(np.mean(v)) for k, v in sorted(exact.items())},
                 "positions_by_size": {k: len(v) for k, v in sorted(exact.items())}})
    print("| chain steps | ms per determinize(n=64) | " + " | ".join(f"{k}-tile hands" for k in sizes) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in sizes) + " |")
    for row in rows:
        cells = [f"{row['kept_by_size'][k]:.2f}" if k in row["kept_by_size"] else "" for k in sizes]
        ms = f"{row['ms_per_call']:.0f}" if "ms_per_call" in row else ""
        print(f"| {row['mcmc_steps']} | {ms} | " + " | ".join(cells) + " |")
    counts = rows[0]["positions_by_size"]
    print("positions: " + ", ".join(f"{v} with {k}-tile hands" for k, v in counts.items()))
    return rows


def main(a) -> None:
    machine, code = machine_info(), code_version(ROOT)
    print(f"mj_env search copies, rules={_args.rules_label(a.rules) if not a.ting_mixing else 'quemen'}; "
          f"{a.seconds:g} s per row, one thread")
    print(machine_line(machine))
    print(code_line(code))
    print()
    if a.ting_mixing:
        results = ting_mixing(a.seed, a.ting_steps_list, a.ting_positions)
    else:
        results = measure(a)
        print("| row | per second | us each | CPU | notes |")
        print("| --- | ---: | ---: | ---: | --- |")
        for r in results:
            unit = {"clone": "copies", "restore": "calls", "rollout": "rollouts", "determinize": "worlds"}[r["row"].split()[0]]
            notes = ""
            if "rows_per_sec" in r:
                notes = f"{r['rows_per_sec']:,.0f} rows/s"
            if "decisions_per_sec" in r:
                notes = (f"{r['decisions_per_sec']:,.0f} decisions/s, {r['decisions_per_rollout']:.0f} per rollout; "
                         f"sampler {100 * r['sampler_share']:.0f}%, restore {100 * r['restore_share']:.1f}%")
            if "calls_per_sec" in r:
                notes = f"{r['calls_per_sec']:,.1f} calls/s"
            print(f"| {r['row']} | {r['per_sec']:,.0f} {unit} | {r['us_each']:,.1f} | {100 * r['cpu_share']:.0f}% "
                  f"| {notes} |")
    machine["load_average_end"] = machine_info()["load_average"]
    print(f"\nload average at the end: {machine['load_average_end']}")
    if a.json:
        text = json.dumps({"results": results, "machine": machine, "code": code,
                           "settings": {k: v for k, v in vars(a).items()}}, indent=2)
        _args.write_text("--json", a.json, text + "\n")
        print(f"wrote {_args.shown(a.json)}")


if __name__ == "__main__":
    from mj_env.lines import guard_output  # here: NumPy is loaded by now, its threads sized

    guard_output("benchmarks/search.py")  # | head: the reader that left gets no more, and no traceback
    main(ARGS)
