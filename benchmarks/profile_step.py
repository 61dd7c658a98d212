#!/usr/bin/env python
"""Where a batched step spends its time: a per-phase profile of the random-play loop.

::

    python benchmarks/profile_step.py                        # beijing, batch 4096, 200 steps, both profilers
    python benchmarks/profile_step.py --rules quemen --batch 1024 --steps 300 --mode sample
    python benchmarks/profile_step.py --env engine --json /tmp/profile.json
    python benchmarks/profile_step.py --list-categories

It runs the same loop as ``throughput.py`` (MahjongVectorEnv, or the bare Engine with ``--env
engine``: random legal actions from the batched sampler, tables desynchronised first, then
``--warmup-steps`` untimed steps), times ``--steps`` steps without any profiler (the baseline),
then profiles the same number of further steps with

- a wall-clock stack sampler (``sample``): a thread reads the main thread's Python stack every
  ``--interval-ms``; each sample is weighted by the wall time since the previous one;
- cProfile (``cprofile``): exact call counts and per-function times, but its per-call overhead
  inflates code that makes many small Python calls.

Time is put in categories by the engine's module file and function name (CATEGORIES below): a
moment belongs to the innermost function on the stack that has a category, so the win-table look-ups
made from the claim checks count as "win tables", and the NumPy work a claim function does itself
counts as "claims". Project functions without a category (helpers such as ``legal.split_wild``)
pass their time to the category of their caller and are listed, so that a new engine function is
seen rather than silently folded. Time in no category is "other". "Own time" of a function
includes the NumPy (and other library) calls it makes directly. Category times per step are
shares of the profiled run times the unprofiled baseline's CPU time per step (on an idle
machine, equal to its wall time; on a busy one, the cost of the code itself).
"""
from __future__ import annotations

import argparse
import ast
import cProfile
import json
import os
import pstats
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

for _k, _v in {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}.items():
    os.environ.setdefault(_k, _v)   # before NumPy loads: one thread, as in throughput.py

import _args
from _common import code_line, code_version, machine_info, machine_line
from _peers import make_engine, make_vector

import mj_env

MJ_DIR = Path(mj_env.__file__).resolve().parent
BENCH_DIR = HERE

ALL = "*"
# (category, {module file in mj_env/ (or benchmarks/): function names, or ALL}), in report order.
CATEGORIES: list[tuple[str, dict]] = [
    ("draw", {"wall.py": {"draw", "deal", "shuffled_walls", "parse_wall", "_add_tiles", "_replace_flowers"},
              "engine.py": {"_next_draw", "_replacement", "_start_turn", "_dealt"}}),
    ("claims", {"legal.py": {"claim_options", "claim_options_batched", "_claim_options_one", "discard_win", "chi_fill"},
                "claims.py": {"open_window", "best_category", "accept", "accept_win", "_keep_better", "advance",
                              "take_meld"},
                "engine.py": {"_do_claim", "_advance", "_close_window", "_carry_out", "_do_rob"}}),
    ("win tables", {"hand.py": ALL, "tables.py": ALL}),
    ("masks", {"engine.py": {"_update_masks", "legal_mask"},
               "legal.py": {"self_kongs", "ting_discards", "self_draw_win"}}),
    ("observation", {"observation.py": ALL, "vector.py": {"_obs"}}),
    ("settlement", {"hand_end.py": ALL, "calculator.py": ALL, "patterns.py": ALL, "payments.py": ALL,
                    "families/family.py": ALL, "families/beijing.py": ALL, "families/hebei.py": ALL,
                    "families/quemen.py": ALL,
                    "engine.py": {"_finish", "_record_win"}}),
    ("turn actions", {"engine.py": {"_do_turn", "_discard", "_self_kong", "_complete_added_kong", "_shaozhuang"}}),
    ("reset", {"engine.py": {"reset"}, "vector.py": {"reset", "_redeal_instant"}}),
    ("step glue", {"engine.py": {"step", "_new_result"}, "vector.py": {"step"}}),
    ("sampler", {"_common.py": ALL}),
    ("loop", {"_peers.py": ALL, "profile_step.py": ALL}),
]
CATEGORY_NOTES = {
    "draw": "dealing and drawing tiles, the turn that starts with a draw",
    "claims": "who may claim a discard / rob a kong, the claim queue, carrying out claims",
    "win tables": "shape and wait checks by table look-up (hand.py, tables.py), from any caller",
    "masks": "legal-action masks of the next decision (self-draw win, kongs, 报听)",
    "observation": "observation planes (and the vector env's mask copy in _obs)",
    "settlement": "ending a hand: calculator input, scoring, fan, payments",
    "turn actions": "discards, self kongs, 烧庄 bookkeeping",
    "reset": "re-dealing finished tables (Engine.reset / vector autoreset), not the deal itself",
    "step glue": "Engine.step / MahjongVectorEnv.step own code: checks, result arrays, infos",
    "sampler": "the agent: random legal actions (benchmarks/_common.py)",
    "loop": "the benchmark loop's own bookkeeping (counting decisions and hands)",
    "other": "no category on the stack",
}
ORDER = [c for c, _ in CATEGORIES] + ["other"]
DIRS = {"_common.py": BENCH_DIR, "_peers.py": BENCH_DIR, "profile_step.py": BENCH_DIR}


def _index():
    table: dict[str, dict] = {}
    for cat, files in CATEGORIES:
        for fname, funcs in files.items():
            path = str(DIRS.get(fname, MJ_DIR) / fname)
            table[path] = table.get(path, {})
            if funcs == ALL:
                table[path][ALL] = cat
            else:
                for f in funcs:
                    table[path][f] = cat
    return table


_TABLE = _index()


def _norm(filename: str) -> str:
    try:
        return str(Path(filename).resolve())
    except (OSError, ValueError):
        return filename


_norm_cache: dict[str, str] = {}


def norm(filename: str) -> str:
    r = _norm_cache.get(filename)
    if r is None:
        r = _norm_cache[filename] = _norm(filename)
    return r


def is_project(path: str) -> bool:
    return path.startswith((str(MJ_DIR) + os.sep, str(BENCH_DIR) + os.sep))


def category(path: str, func: str) -> str | None:
    """The category of function ``func`` of file ``path`` (normalised), None if it has none."""
    funcs = _TABLE.get(path)
    if not funcs:
        return None
    return funcs.get(func) or funcs.get(ALL)


def stale_names() -> list[str]:
    """Functions named in CATEGORIES that their file no longer defines (renamed or removed)."""
    out = []
    for _, files in CATEGORIES:
        for fname, funcs in files.items():
            if funcs == ALL:
                continue
            path = DIRS.get(fname, MJ_DIR) / fname
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, SyntaxError):
                out += [f"{fname}:{f}" for f in sorted(funcs)]
                continue
            defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            out += [f"{fname}:{f}" for f in sorted(funcs - defined)]
    return out


def label(path: str, func: str) -> str:
    p = Path(path)
    if is_project(path):
        return f"{p.parent.name}/{p.name}:{func}"
    return f"{p.name}:{func}" if path not in ("~", "") else func


# ----------------------------------------------------------------------------- the loop
def build(env: str, batch: int, rules: str | dict, seed: int):
    make = make_vector if env == "vector" else make_engine
    step, info = make(batch, rules, seed)
    return step, info


def run_steps(step, n: int) -> None:
    for _ in range(n):
        step()


def timed(step, n: int) -> dict:
    t, c = time.perf_counter(), time.process_time()
    run_steps(step, n)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return {"ms_per_step": 1e3 * wall / n, "cpu_ms_per_step": 1e3 * cpu / n}


# ----------------------------------------------------------------------------- stack sampler
class StackSampler:
    """Samples the main thread's Python stack from a helper thread (wall clock)."""

    def __init__(self, interval: float):
        self.interval = interval
        self.stacks: dict[tuple, float] = defaultdict(float)
        self.samples = 0
        self._stop = threading.Event()
        main = threading.main_thread().ident
        assert main is not None  # (set once a thread has started, and the main thread has)
        self._main = main
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        frames = sys._current_frames
        while not self._stop.is_set():
            time.sleep(self.interval)
            frame = frames().get(self._main)
            now = time.perf_counter()
            weight, last = now - last, now
            stack = []
            while frame is not None:
                code = frame.f_code
                stack.append((code.co_filename, code.co_name, frame.f_lineno))
                frame = frame.f_back
            self.stacks[tuple(stack)] += weight
            self.samples += 1

    def __enter__(self):
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch, self.interval / 2))
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        sys.setswitchinterval(self._switch)


def analyse_samples(stacks: dict) -> dict:
    """Categories, own time per project function and line, win-table callers, uncategorised."""
    cats: defaultdict[str, float] = defaultdict(float)
    own: defaultdict[tuple[str, str], float] = defaultdict(float)
    lines: defaultdict[tuple[str, str, int], float] = defaultdict(float)
    win_by: defaultdict[str, float] = defaultdict(float)
    uncat: defaultdict[tuple[str, str], defaultdict[str, float]] = defaultdict(lambda: defaultdict(float))
    total = 0.0
    for stack, w in stacks.items():
        # keep the frames inside the profiled loop (innermost first)
        inner = []
        for fname, func, line in stack:
            path = norm(fname)
            if func == "run_steps" and path == str(BENCH_DIR / "profile_step.py"):
                break
            inner.append((path, func, line))
        else:
            continue  # not inside the loop (before it started / after it ended)
        total += w
        proj = [(p, f, ln) for p, f, ln in inner if is_project(p)]
        if proj:
            p, f, ln = proj[0]
            own[(p, f)] += w
            lines[(p, f, ln)] += w
        cat = None
        for i, (p, f, _) in enumerate(proj):
            cat = category(p, f)
            if cat is not None:
                if cat == "win tables":
                    outer = next((c for c in (category(p2, f2) for p2, f2, _ in proj[i + 1:])
                                  if c is not None and c != "win tables"), "other")
                    win_by[outer] += w
                break
        cat = cat or "other"
        cats[cat] += w
        if proj and category(proj[0][0], proj[0][1]) is None:
            uncat[(proj[0][0], proj[0][1])][cat] += w
    return {"total": total, "categories": dict(cats), "own": dict(own), "lines": dict(lines),
            "win_tables_by_caller": dict(win_by),
            "uncategorised": {k: dict(v) for k, v in uncat.items()}}


# ----------------------------------------------------------------------------- cProfile
def analyse_cprofile(prof: cProfile.Profile) -> dict:
    """Fold cProfile's per-function own time into project functions, then into categories.

    A library or builtin function's own time goes to its callers in proportion to the own time
    it spent under each (cProfile records that per caller), up to the nearest project function;
    an uncategorised project function's own time goes to its callers' categories in proportion to
    the time spent under each caller.
    """
    # {(file, line, name): (cc, nc, tt, ct, callers)}; the attribute is undocumented, and typeshed leaves it out
    st = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    key_path = {k: norm(k[0]) for k in st}

    def is_proj(k):
        return is_project(key_path[k])

    loop_keys = {k for k in st if k[2] == "run_steps" and key_path[k] == str(BENCH_DIR / "profile_step.py")}

    # owner distribution: for non-project functions, over project functions (by caller edges)
    owner_memo: dict = {}

    def owner(k, depth=0, seen=frozenset()):
        if is_proj(k):
            return {k: 1.0}
        if k in owner_memo:
            return owner_memo[k]
        callers = st[k][4]
        out: defaultdict[object, float] = defaultdict(float)
        tot = sum(e[3] for e in callers.values())
        if not callers or tot <= 0 or depth > 60:
            out[None] = 1.0
        else:
            for c, e in callers.items():
                if c in seen:
                    out[None] += e[3] / tot
                    continue
                for o, f in owner(c, depth + 1, seen | {k}).items():
                    out[o] += f * e[3] / tot
        owner_memo[k] = dict(out)
        return owner_memo[k]

    own: defaultdict[tuple[str, int, str] | None, float] = defaultdict(float)  # None: unattributed
    for k, (cc, nc, tt, ct, callers) in st.items():
        if tt <= 0 or k in loop_keys:
            continue
        if is_proj(k):
            own[k] += tt
            continue
        # first step exact: own time under each caller
        for c, e in callers.items():
            for o, f in owner(c).items():
                own[o] += e[2] * f
        rest = tt - sum(e[2] for e in callers.values())
        if rest > 1e-12:
            own[None] += rest

    # category distribution of project functions
    cat_memo: dict = {}

    def catdist(k, depth=0, seen=frozenset()):
        if k is None or k in loop_keys:
            return {"other": 1.0}
        c = category(key_path[k], k[2])
        if c is not None:
            return {c: 1.0}
        if k in cat_memo:
            return cat_memo[k]
        callers = {c: e for c, e in st[k][4].items() if c not in seen}
        tot = sum(e[3] for e in callers.values())
        out = defaultdict(float)
        if not callers or tot <= 0 or depth > 60:
            out["other"] = 1.0
        else:
            for c2, e in callers.items():
                for cat, f in catdist(c2, depth + 1, seen | {k}).items():
                    out[cat] += f * e[3] / tot
        cat_memo[k] = dict(out)
        return cat_memo[k]

    cats: defaultdict[str, float] = defaultdict(float)
    uncat = {}
    for k, t in own.items():
        d = catdist(k)
        for c, f in d.items():
            cats[c] += t * f
        if k is not None and k not in loop_keys and category(key_path[k], k[2]) is None:
            uncat[(key_path[k], k[2])] = {c: t * f for c, f in d.items()}
    total = sum(own.values())
    calls = {(key_path[k], k[2]): st[k][1] for k in own if k is not None}
    return {"total": total, "categories": dict(cats),
            "own": {(key_path[k], k[2]) if k else ("", "(unattributed)"): t for k, t in own.items()},
            "calls": calls, "uncategorised": uncat}


# ----------------------------------------------------------------------------- report
def _cat_rows(res: dict, base_ms: float) -> list[dict]:
    total = res["total"] or 1.0
    rows = []
    for c in ORDER:
        t = res["categories"].get(c, 0.0)
        rows.append({"category": c, "share": t / total, "ms_per_step": base_ms * t / total})
    return rows


def _top(d: dict, total: float, base_ms: float, n: int, key_label) -> list[dict]:
    items = sorted(d.items(), key=lambda kv: -kv[1])[:n]
    return [{"where": key_label(k), "share": t / (total or 1.0), "ms_per_step": base_ms * t / (total or 1.0)}
            for k, t in items]


def report(name: str, res: dict, base: dict, prof: dict, steps: int, top: int, extra: str = "") -> tuple[str, dict]:
    base_ms = base["cpu_ms_per_step"]
    out = [(f"{name}: {prof['ms_per_step']:.2f} ms/step wall, {prof['cpu_ms_per_step']:.2f} ms CPU while profiled "
            f"({100 * (prof['cpu_ms_per_step'] / base_ms - 1):+.0f}% CPU over the baseline){extra}"),
           f"  ms/step below = share of the profiled time x the baseline's CPU time per step ({base_ms:.2f} ms)"]
    rows = _cat_rows(res, base_ms)
    out.append(f"  {'category':<14}{'ms/step':>9}{'share':>8}   what")
    for r in rows:
        out.append(f"  {r['category']:<14}{r['ms_per_step']:>9.3f}{100 * r['share']:>7.1f}%   "
                   f"{CATEGORY_NOTES[r['category']]}")
    data = {"profiled": prof, "scale_ms_per_step": base_ms, "categories": rows}
    if res.get("win_tables_by_caller"):
        wt = res["win_tables_by_caller"]
        tot = res["total"] or 1.0
        parts = ", ".join(f"{c} {base_ms * t / tot:.3f} ms" for c, t in sorted(wt.items(), key=lambda kv: -kv[1]))
        out.append(f"  win tables by the category that called them: {parts}")
        data["win_tables_by_caller"] = {c: base_ms * t / tot for c, t in wt.items()}
    if res.get("uncategorised"):
        tot = res["total"] or 1.0
        items = sorted(res["uncategorised"].items(), key=lambda kv: -sum(kv[1].values()))
        shown = [f"{label(*k)} {base_ms * sum(v.values()) / tot:.3f} ms -> "
                 + "/".join(c for c, _ in sorted(v.items(), key=lambda kv: -kv[1]))
                 for k, v in items if base_ms * sum(v.values()) / tot >= 0.0005]
        if shown:
            out.append("  project functions without a category (own time, given to their callers' categories):")
            out += [f"    {s}" for s in shown]
        data["uncategorised"] = [{"where": label(*k), "ms_per_step": base_ms * sum(v.values()) / tot,
                                  "given_to": {c: base_ms * t / tot for c, t in v.items()}} for k, v in items]
    own = _top(res["own"], res["total"], base_ms, top, lambda k: label(*k))
    calls = res.get("calls", {})
    out.append(f"  top {top} functions by own time (incl. the library calls they make directly):")
    for (k, t), r in zip(sorted(res["own"].items(), key=lambda kv: -kv[1])[:top], own):
        c = calls.get(k)
        per = f"   {c / steps:8.1f} calls/step" if c else ""
        out.append(f"    {r['ms_per_step']:8.3f} ms {100 * r['share']:5.1f}%  {r['where']}{per}")
    data["functions"] = own
    if res.get("lines"):
        lines = _top(res["lines"], res["total"], base_ms, top, lambda k: f"{label(k[0], k[1])}:{k[2]}")
        out.append(f"  top {top} lines (the line the function was at; a NumPy operator that holds the GIL may "
                   f"be charged to the next line that calls something):")
        for r in lines:
            out.append(f"    {r['ms_per_step']:8.3f} ms {100 * r['share']:5.1f}%  {r['where']}")
        data["lines"] = lines
    return "\n".join(out), data


def list_categories() -> str:
    out = []
    for cat, files in CATEGORIES:
        spec = "; ".join(f"{f}: {'all' if fn == ALL else ', '.join(sorted(fn))}" for f, fn in files.items())
        out.append(f"{cat:<14}{spec}")
    out.append(f"{'other':<14}anything else")
    return "\n".join(out)


def main(argv=None) -> int:
    p = _args.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=4096,
                   help=f"tables per step, 1 to {_args.MAX_BATCH:,} (default 4096)")
    p.add_argument("--steps", type=int, default=200,
                   help="steps timed / profiled in each pass, at least 1 (default 200)")
    p.add_argument("--warmup-steps", type=int, default=50, help="untimed steps first, 0 or more (default 50)")
    p.add_argument("--rules", default="beijing", help=f"{_args.RULES_HELP} (default beijing)")
    p.add_argument("--env", default="vector", choices=["vector", "engine"],
                   help="vector: MahjongVectorEnv with observations (default); engine: bare Engine.step")
    p.add_argument("--mode", default="both", choices=["both", "sample", "cprofile"])
    p.add_argument("--interval-ms", type=float, default=1.0,
                   help="stack sampling interval, 0.01 to 1000 ms (default 1 ms)")
    p.add_argument("--top", type=int, default=15, help="functions and lines to list, at least 1 (default 15)")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**63 - 1")
    p.add_argument("--json", metavar="PATH", help="write the profile as JSON (its folder must exist)")
    p.add_argument("--list-categories", action="store_true", help="print the category map and exit")
    args = p.parse_args(argv)
    if args.list_categories:
        print(list_categories())
        return 0
    _args.in_range(p, "--batch", args.batch, 1, _args.MAX_BATCH)
    _args.in_range(p, "--steps", args.steps, 1)
    _args.in_range(p, "--warmup-steps", args.warmup_steps, 0)
    _args.in_range(p, "--interval-ms", args.interval_ms, 0.01, 1000)
    _args.in_range(p, "--top", args.top, 1)
    _args.seed(p, args.seed)
    _args.output(p, "--json", args.json)
    args.rules = _args.rules(p, "--rules", args.rules)  # a preset's name, or a rule set's object form (JSON-safe)

    machine = machine_info()
    code = code_version(ROOT)
    t = time.perf_counter()
    step, _ = build(args.env, args.batch, args.rules, args.seed)
    setup_s = time.perf_counter() - t
    run_steps(step, args.warmup_steps)
    base = timed(step, args.steps)
    dps = args.batch * 1e3 / base["ms_per_step"]
    busy = base["cpu_ms_per_step"] < 0.9 * base["ms_per_step"]
    head = (f"profile_step: {args.env} env, rules={_args.rules_label(args.rules)}, batch {args.batch}, {args.steps} steps per pass "
            f"after {args.warmup_steps} warm-up steps (tables desynchronised first; set-up {setup_s:.1f} s)\n"
            f"{machine_line(machine)}\n"
            + code_line(code) + "\n"
            f"baseline (no profiler): {base['ms_per_step']:.2f} ms/step wall, {base['cpu_ms_per_step']:.2f} ms CPU "
            f"= {dps:,.0f} decisions/s"
            + ("\nwarning: the process got under 90% of a core (other processes compete); wall times are "
               "inflated, CPU times and shares are the figures to read" if busy else ""))
    stale = stale_names()
    if stale:
        head += ("\nwarning: the category map names functions the engine no longer defines (renamed or removed?): "
                 + ", ".join(stale) + "; update CATEGORIES in benchmarks/profile_step.py")
    print(head)
    out = {"stale_category_names": stale, "code": code,
           "settings": vars(args) | {"setup_seconds": setup_s}, "machine": machine, "baseline": base,
           "decisions_per_sec": dps}

    if args.mode in ("both", "sample"):
        sampler = StackSampler(args.interval_ms / 1e3)
        t, c = time.perf_counter(), time.process_time()
        with sampler:
            run_steps(step, args.steps)
        prof = {"ms_per_step": 1e3 * (time.perf_counter() - t) / args.steps,
                "cpu_ms_per_step": 1e3 * (time.process_time() - c) / args.steps}
        res = analyse_samples(sampler.stacks)
        text, data = report("wall-clock sampler", res, base, prof, args.steps, args.top,
                            f", {sampler.samples} samples every {args.interval_ms:g} ms")
        data["samples"] = sampler.samples
        data["sampled_seconds_in_loop"] = res["total"]     # 0 when no sample fell inside the steps
        print()
        print(text)
        out["sample"] = data
    if args.mode in ("both", "cprofile"):
        profiler = cProfile.Profile()
        t, c = time.perf_counter(), time.process_time()
        profiler.enable()
        run_steps(step, args.steps)
        profiler.disable()
        prof = {"ms_per_step": 1e3 * (time.perf_counter() - t) / args.steps,
                "cpu_ms_per_step": 1e3 * (time.process_time() - c) / args.steps}
        res = analyse_cprofile(profiler)
        text, data = report("cProfile", res, base, prof, args.steps, args.top)
        print()
        print(text)
        out["cprofile"] = data
    if args.json:
        _args.write_text("--json", args.json, json.dumps(out, indent=2, default=str) + "\n")
        print(f"\nwrote {_args.shown(args.json)}")
    return 0


if __name__ == "__main__":
    from mj_env.lines import guard_output  # here: NumPy is loaded by now, its threads sized

    guard_output("benchmarks/profile_step.py")  # | head: the reader that left gets no more, and no traceback
    sys.exit(main())
