#!/usr/bin/env python
"""Hand checks per second: ``mj_env.hand`` (table look-up) beside the plain reference.

::

    python benchmarks/win_checks.py                         # 1 s per measurement, batch 1,1024,4096
    python benchmarks/win_checks.py --seconds 3 --json /tmp/win_checks.json
    python benchmarks/win_checks.py --seconds 0.1 --batch-sizes 1,64 --checks is_win

What is timed, on random hands (tiles drawn from a shuffled 136-tile set, 0-4 wildcards
uniformly, wildcards taken out of the natural counts as the engine passes them):

- ``is_win``        14-tile hands (natural + wild), default shape options;
- ``waits``         13-tile hands: the 34 kinds that would complete each;
- ``tiles_to_win``  14-tile hands.

``mj_env.hand`` is called on batches of each ``--batch-sizes`` value; ``reference`` is
tests/ref_hand.py, one hand per call (its batch is 1 by nature), after a warm-up that fills its
memo caches, so its figure is a best case. Both are checked to agree on the reference's hands.
BLAS and OpenMP are held to one thread (set before NumPy loads; ``--threads`` to change), so
the figures are per core. Output: a table, and with ``--json PATH`` the same as JSON
(``{"machine": {...}, "results": [{"check", "impl", "batch", "hands_per_sec", ...}]}``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import _args

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHECK_NAMES = ("is_win", "waits", "tiles_to_win")


def _parse_args(argv=None) -> argparse.Namespace:
    p = _args.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--seconds", type=float, default=1.0, help="time per measurement (default 1)")
    p.add_argument("--batch-sizes", default="1,1024,4096",
                   help=f"comma-separated batch sizes, 1 to {_args.MAX_BATCH:,}")
    p.add_argument("--checks", default=",".join(CHECK_NAMES), help="which checks to time (comma-separated)")
    p.add_argument("--no-reference", action="store_true", help="skip the reference")
    p.add_argument("--reference-hands", type=int, default=2000,
                   help="hands the reference cycles through (and is checked on; at least 1, default 2000)")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads, 1 to 256 (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random hands (0 to 2**63 - 1)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON (its folder must exist)")
    args = p.parse_args(argv)
    _args.positive(p, "--seconds", args.seconds)
    args.batch_list = _args.int_list(p, "--batch-sizes", args.batch_sizes)
    args.check_list = _args.name_list(p, "--checks", args.checks, CHECK_NAMES)
    _args.in_range(p, "--reference-hands", args.reference_hands, 1)
    _args.in_range(p, "--threads", args.threads, 1, 256)
    _args.seed(p, args.seed)
    _args.output(p, "--json", args.json)
    return args


ARGS = _parse_args() if __name__ == "__main__" else None
if ARGS is not None:  # before NumPy is imported, or the BLAS thread pool is already sized
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[var] = str(ARGS.threads)

for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import numpy as np
import ref_hand  # pyright: ignore[reportMissingImports]  (tests/, put on sys.path above)

from mj_env import hand

POOL = 16384
"""Hands generated per check; batches cycle through them."""


def random_hands(rng: np.random.Generator, n: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, 34) int8 natural counts and (n,) int8 wildcards, ``size`` tiles per hand in all."""
    wild = rng.integers(0, 5, n).astype(np.int8)
    tiles = rng.permuted(np.tile(np.arange(136), (n, 1)), axis=1)[:, :size] // 4  # (n, size) kinds
    counts = np.zeros((n, 34), dtype=np.int8)
    keep = np.arange(size)[None, :] < (size - wild)[:, None]  # the first size - w tiles are natural
    rows = np.repeat(np.arange(n), size)[keep.ravel()]
    np.add.at(counts, (rows, tiles.ravel()[keep.ravel()]), 1)
    return counts, wild


CHECKS = {  # keys: CHECK_NAMES
    # name: (hand size, ours (batched), reference (one hand))
    "is_win": (14, lambda c, w: hand.is_win(c, w), lambda c, w: ref_hand.is_win(c, w)),
    "waits": (13, lambda c, w: hand.waits(c, w), lambda c, w: ref_hand.waits(c, w)),
    "tiles_to_win": (14, lambda c, w: hand.tiles_to_win(c, w), lambda c, w: ref_hand.tiles_to_win(c, w)),
}


def time_ours(fn, counts, wild, batch: int, seconds: float) -> dict:
    """Call ``fn`` on consecutive batches for about ``seconds``; hands per second."""
    starts = range(0, counts.shape[0] // batch * batch, batch)
    fn(counts[:batch], wild[:batch])  # warm: tables loaded, caches filled
    calls, clock = 0, time.perf_counter
    start = clock()
    while (elapsed := clock() - start) < seconds:
        i = starts[calls % len(starts)]
        fn(counts[i:i + batch], wild[i:i + batch])
        calls += 1
    return {"hands_per_sec": calls * batch / elapsed, "us_per_call": elapsed / calls * 1e6, "calls": calls}


def time_reference(fn, counts, wild, seconds: float, n_hands: int) -> tuple[dict, list]:
    """One hand per call, after a warm-up pass over the same hands; returns the timing and the
    answers (for the agreement check)."""
    n = min(len(counts), n_hands)
    answers = [fn(c, int(w)) for c, w in zip(counts[:n], wild[:n])]  # warm the memo caches
    calls, clock = 0, time.perf_counter
    start = clock()
    while (elapsed := clock() - start) < seconds:
        i = calls % n
        fn(counts[i], int(wild[i]))
        calls += 1
    return {"hands_per_sec": calls / elapsed, "us_per_call": elapsed / calls * 1e6, "calls": calls}, answers


def machine() -> dict:
    """``_common.machine_info()`` (the machine description every benchmark stores: cpu, cores, memory_gib,
    load_average, python, numpy, platform, date) with ``blas_threads``, the BLAS/OpenMP threads the figures ran
    with, and ``cpu_count``, the same number as ``cores`` under the name this script's JSON gave it before."""
    from _common import machine_info  # here: NumPy is loaded by now, its threads sized

    info = machine_info()
    return {**info, "cpu_count": info["cores"],
            "blas_threads": int(os.environ.get("OPENBLAS_NUM_THREADS", "0") or 0)}


def main(args: argparse.Namespace) -> int:
    # here: NumPy is loaded by now, its threads sized
    from _common import code_line, code_version, machine_line

    batches, checks = args.batch_list, args.check_list
    rng = np.random.default_rng(args.seed)
    info = machine()
    code = code_version(ROOT)
    print(f"{machine_line(info)}; {info['platform']}; BLAS threads {args.threads}")
    print(code_line(code))
    results, disagreements = [], 0
    for check in checks:
        size, ours, reference = CHECKS[check]
        counts, wild = random_hands(rng, max(POOL, max(batches)), size)
        for batch in batches:
            r = time_ours(ours, counts, wild, batch, args.seconds)
            results.append({"check": check, "impl": "mj_env.hand", "batch": batch, **r})
        if not args.no_reference:
            r, answers = time_reference(reference, counts, wild, args.seconds, args.reference_hands)
            results.append({"check": check, "impl": "reference", "batch": 1, **r})
            got = ours(counts[:len(answers)], wild[:len(answers)])
            bad = int((np.asarray(got) != np.asarray(answers)).reshape(len(answers), -1).any(axis=1).sum())
            disagreements += bad
            if bad:
                print(f"!! {check}: mj_env.hand and the reference disagree on {bad} of {len(answers)} hands")

    ref_rate = {r["check"]: r["hands_per_sec"] for r in results if r["impl"] == "reference"}
    print(f"\n{'check':<14}{'impl':<13}{'batch':>6}{'hands/s':>14}{'us/call':>12}{'x reference':>13}")
    for r in results:
        x = r["hands_per_sec"] / ref_rate[r["check"]] if r["check"] in ref_rate else float("nan")
        r["speedup_vs_reference"] = x if r["check"] in ref_rate else None  # JSON null: strict JSON has no NaN
        print(f"{r['check']:<14}{r['impl']:<13}{r['batch']:>6}{r['hands_per_sec']:>14,.0f}"
              f"{r['us_per_call']:>12.1f}{x:>13,.1f}")
    if args.json:
        out = {"machine": info, "code": code, "seconds": args.seconds, "seed": args.seed, "results": results,
               "disagreements": disagreements}
        _args.write_text("--json", args.json, json.dumps(out, indent=2) + "\n")
        print(f"\nwrote {_args.shown(args.json)}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    from mj_env.lines import guard_output  # here: NumPy is loaded by now, its threads sized

    guard_output("benchmarks/win_checks.py")  # | head: the reader that left gets no more, and no traceback
    assert ARGS is not None  # (parsed at the top: this is __main__)
    raise SystemExit(main(ARGS))
