#!/usr/bin/env python
"""Throughput of mj_env and its peers under random legal play: decisions/s, hands/s, memory.

::

    python benchmarks/throughput.py                           # 5 s each, batch 1,64,1024,4096, peers
    python benchmarks/throughput.py --seconds 5 --repeat 3 \
        --impls vector,engine,aec,single_rule,rlcard,riichienv,riichienv_encode \
        --json benchmarks/results.json --plot docs/throughput.png       # the stored run
    python benchmarks/throughput.py --seconds 0.2 --batch-sizes 1,8 --no-peers --json /tmp/r.json

Measured, each in its own child process (so that its peak RSS is its own), single-threaded
(OMP/MKL/OpenBLAS/NumExpr/Rayon thread counts set to 1 in the child's environment), a warm-up
and then ``--seconds`` of timed play:

- ``vector``  MahjongVectorEnv at every ``--batch-sizes`` value: observation and mask every step;
- ``vector_records`` (with ``--impls vector_records``) the same with ``records=True``: each ended hand's record
  (``mj_env.records``) built as well, what keeping records costs;
- ``engine``  the bare Engine.step + legal_mask, no observation, at the same batch sizes;
- ``aec``     the PettingZoo AEC environment, one table;
- ``single_rule`` (with ``--impls single_rule``) the single-agent env (``mj_env.single_agent``) at every ``--batch-sizes``
  value: a random learner against three rule-based opponents, who act inside its step. A
  decision here is one of the learner's (what a trainer sees as a step); the opponents'
  decisions (about three per learner decision) and the rule agent's thinking are inside it;
- ``rlcard``, ``riichienv``, ``riichienv_encode``: the peers, if installed (``pip install -e
  '.[peers]'``), each through its own API (benchmarks/_peers.py says what a decision is).

Every loop picks uniformly random legal actions; the time spent picking them is timed inside
the loop and reported apart (``sampler``), so that what is the environment and what is the
agent can be told apart. Output: a table on stdout, ``--json PATH`` the same as JSON
(``{"results": [{"impl", "batch", "steps_per_sec", "games_per_sec", "peak_rss_mb", ...}]}``,
where steps_per_sec counts decisions and games_per_sec finished hands; ``versions``: the releases of Gymnasium,
PettingZoo and the peers), ``--plot PATH`` a PNG of decisions/s against batch size. See benchmarks/README.md for how to read the numbers.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _args
import numpy as np
from _common import (
    SINGLE_THREAD_ENV,
    MaskedSampler,
    code_line,
    code_version,
    float_argmax_sample,
    machine_info,
    machine_line,
)
from _peers import FACTORIES, read_hand_tables

PEERS = ("rlcard", "riichienv", "riichienv_encode")
BATCHED = ("vector", "vector_records", "engine", "single_rule")
ALL_IMPLS = ("vector", "vector_records", "engine", "single_rule", "aec") + PEERS
DEFAULT_IMPLS = ("vector", "engine", "aec") + PEERS  # single_rule and vector_records on request (--impls)
PEER_MODULE = {"rlcard": "rlcard", "riichienv": "riichienv", "riichienv_encode": "riichienv"}
RATIO_PEERS = ("rlcard", "riichienv")     # the "x peer" columns: the peers' plain loops
LABELS = {
    "vector": "MahjongVectorEnv (obs + masks)",
    "vector_records": "MahjongVectorEnv, records=True (obs + masks + hand records)",
    "engine": "Engine.step (no obs)",
    "single_rule": "single-agent env vs 3 rule agents (learner decisions)",
    "aec": "AEC env, 1 table",
    "rlcard": "RLCard mahjong",
    "riichienv": "RiichiEnv",
    "riichienv_encode": "RiichiEnv + obs.encode()",
}
MARK = "@@"
AIM_BATCH = 4096
AIM_DPS = 1_000_000
AIM_X_RIICHI = 15
AIM_X_RLCARD = 1.5  # issue 13: the AEC env at least 1.5x RLCard (issue 4 asked for 1x)
VERSIONED = ("gymnasium", "pettingzoo", "rlcard", "riichienv")
"""The libraries whose code a row runs besides ours and NumPy (NumPy's version is in the machine line): the vector
env is a Gymnasium VectorEnv, the AEC row goes through PettingZoo's wrappers, and a peer's figure, and every ratio to
it, is that release's (pyproject.toml asks only for rlcard>=1.2, riichienv>=0.4)."""


# ----------------------------------------------------------------------------- child process
def make_single_rule(batch: int, rules: str | dict, seed: int):
    """Step function of the single-agent env against rule-based opponents (random learner)."""
    from mj_env.single_agent import MahjongSingleAgentVectorEnv

    read_hand_tables()
    env = MahjongSingleAgentVectorEnv(batch, rules=rules, opponents="rule", seat="rotate", seed=seed)
    sampler = MaskedSampler(seed + 1)
    box = [env.reset(seed=seed)[0], np.zeros(batch, dtype=bool)]
    perf = time.perf_counter

    def step():
        t = perf()
        actions = sampler(box[0]["action_mask"])
        ts = perf() - t
        obs, _, term, trunc, _ = env.step(actions)
        # NEXT_STEP (the env's default): a table whose episode ended in the last step only deals its next one
        # in this step (its mask holds pass alone, the action is ignored), so it made no decision
        decisions = batch - int(box[1].sum())
        box[0], box[1] = obs, term | trunc
        return decisions, int(term.sum()), ts

    return step, {"state_bytes": env.engine.state.nbytes(), "last_mask": lambda: box[0]["action_mask"],
                  "decision": "one learner decision per table per step (opponents act inside); a NEXT_STEP "
                              "step that only deals a table's next episode is none"}


def _maxrss_mb() -> float:
    """This process's own peak RSS in MB: ``VmHWM`` of /proc/self/status where there is one (Linux). Not
    ``ru_maxrss`` there: a child's starts at the peak RSS of the parent that launched it (Linux keeps the
    high-water mark across exec), so every row read at least the parent's 33-42 MB and the peers' rows
    (33-37 MB in the stored run) were the parent's figure, not theirs. Elsewhere ``ru_maxrss``: in bytes on
    macOS, KiB on the BSDs (macOS's was read as KiB: 1024 times too large). NaN on Windows, which has neither
    (``import resource`` failed there, so every row was an error)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return math.nan
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def _emit(kind: str, payload: dict) -> None:
    sys.stdout.write(f"{MARK}{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


def run_child(spec: dict) -> None:
    """Measure one implementation at one batch size; print progress and one result line."""
    factories = {**FACTORIES, "single_rule": make_single_rule}
    impl, batch, seconds, warmup = spec["impl"], spec["batch"], spec["seconds"], spec["warmup"]
    perf = time.perf_counter
    baseline_rss = _maxrss_mb()
    t_setup = perf()
    step, info = factories[impl](batch, spec["rules"], spec["seed"])
    setup_s = perf() - t_setup

    t0 = perf()
    next_report = t0 + 0.5
    warm_calls = 0
    while warm_calls < 2 or perf() - t0 < warmup:
        step()
        warm_calls += 1
        if perf() >= next_report:
            _emit("progress", {"phase": "warm-up", "elapsed": perf() - t0})
            next_report = perf() + 0.5

    decisions = hands = calls = 0
    sampler_s = 0.0
    cpu0 = time.process_time()
    t0 = perf()
    next_report = t0 + 0.5
    while True:
        d, h, ts = step()
        decisions += d
        hands += h
        sampler_s += ts
        calls += 1
        now = perf()
        if now - t0 >= seconds and calls >= 2:
            break
        if now >= next_report:
            el = now - t0
            _emit("progress", {"phase": "timed", "elapsed": el, "decisions": decisions, "hands": hands,
                               "steps_per_sec": decisions / el})
            next_report = now + 0.5
    elapsed = perf() - t0
    cpu = time.process_time() - cpu0

    result = {
        "impl": impl, "batch": batch,
        "steps_per_sec": decisions / elapsed,
        "games_per_sec": hands / elapsed,
        "peak_rss_mb": None,
        "decisions": decisions, "hands": hands, "seconds": elapsed, "env_calls": calls,
        "env_calls_per_sec": calls / elapsed,
        "decisions_per_hand": decisions / hands if hands else None,
        "sampler_seconds": sampler_s,
        "sampler_share": sampler_s / elapsed,
        "sampler_ms_per_call": 1e3 * sampler_s / calls,
        "env_only_steps_per_sec": decisions / (elapsed - sampler_s) if elapsed > sampler_s else None,
        "cpu_seconds": cpu, "cpu_util": cpu / elapsed,
        "steps_per_cpu_sec": decisions / cpu if cpu > 0 else None,
        "baseline_rss_mb": baseline_rss, "setup_seconds": setup_s, "warmup_calls": warm_calls,
        "decision": info.get("decision"),
    }
    if impl in BATCHED or impl == "aec":
        result["rules"] = spec["rules"]
    if "state_bytes" in info:
        result["state_bytes"] = info["state_bytes"]
    if "last_mask" in info:
        # the sampler on its own, on the last mask of the run: ours, and the one-line float argmax
        mask = np.array(info["last_mask"]())
        rng = np.random.default_rng(0)
        sampler = MaskedSampler(0)
        for name, fn in (("masked_sampler_ms", sampler), ("argmax_sampler_ms",
                                                           lambda m: float_argmax_sample(rng, m))):
            n, t = 0, perf()
            while n < 3 or (perf() - t < 0.2 and n < 2000):
                fn(mask)
                n += 1
            result[name] = 1e3 * (perf() - t) / n
    result["peak_rss_mb"] = _maxrss_mb()
    _emit("result", result)


# ----------------------------------------------------------------------------- parent
def package_versions() -> dict:
    """The installed version of each library of ``VERSIONED`` (None where it is not installed), read from the
    package metadata without importing it; the children run the same interpreter and path."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def versions_line(versions: dict) -> str:
    """``versions: gymnasium 1.2.0, pettingzoo 1.25.0, rlcard 1.2.0, riichienv not installed``."""
    return "versions: " + ", ".join(f"{k} {v or 'not installed'}" for k, v in versions.items())


def _child_cmd(spec: dict) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]


def _child_env() -> dict:
    env = dict(os.environ)
    env.update(SINGLE_THREAD_ENV)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def make_table_cache() -> None:
    """Make sure the hand-table cache file exists before the first row of ours: on a checkout without it, the
    first row's child built it (untimed, but its peak RSS was 383 MB against 112 MB once the cache existed,
    vector@1, 2026-12-05). Built in a process of its own, so that this one stays small (see ``_maxrss_mb``)."""
    try:
        proc = subprocess.run([sys.executable, "-m", "mj_env.tables"], cwd=str(ROOT), env=_child_env(),
                              capture_output=True, text=True, check=False, timeout=600)
        why = None if proc.returncode == 0 else (proc.stderr or proc.stdout)[-2000:]
    except (OSError, subprocess.SubprocessError) as e:
        why = str(e)
    if why is not None:
        sys.stderr.write("warning: could not make the hand-table cache; the first row of ours will build it "
                         f"(its peak RSS then includes the build):\n{why}\n")


def measure(spec: dict, timeout: float, on_progress) -> dict:
    """Run one child; return its result, or {"impl", "batch", "error"} when it failed."""
    proc = subprocess.Popen(_child_cmd(spec), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=_child_env(), cwd=str(ROOT))
    assert proc.stdout is not None  # (stdout=PIPE)
    killer = threading.Timer(min(timeout, threading.TIMEOUT_MAX), proc.kill)
    killer.start()
    result, log = None, []
    try:
        for line in proc.stdout:
            if line.startswith(MARK):
                kind, _, payload = line[len(MARK):].partition(" ")
                data = json.loads(payload)
                if kind == "progress":
                    on_progress(data)
                elif kind == "result":
                    result = data
            else:
                log.append(line.rstrip("\n"))
                del log[:-40]
        rc = proc.wait()
    finally:
        killer.cancel()
        if proc.poll() is None:  # left by an exception (a result line that is not JSON, Ctrl-C): the child goes too
            proc.kill()
            proc.wait()
        proc.stdout.close()  # else 'ResourceWarning: unclosed file' under python -X dev (tests/test_strict_warnings.py)
    if result is None or rc != 0:
        why = f"exit status {rc}" if rc >= 0 else f"killed (signal {-rc}; timeout {timeout:.0f} s?)"
        return {"impl": spec["impl"], "batch": spec["batch"], "error": why, "log": log[-20:]}
    return result


def _fmt(x, spec=",.0f", none="-"):
    return none if x is None else format(x, spec)


def ratio(row: dict, peer: dict | None):
    if not peer or "error" in peer or not peer.get("steps_per_sec") or "error" in row:
        return None
    return row["steps_per_sec"] / peer["steps_per_sec"]


def round_ratios(mine: list | None, peer: list | None) -> list[float]:
    """Decisions/s over the peer's, round by round (``--repeat``: the rows of one round run minutes apart,
    those of different rounds further): on a shared machine a neighbour can slow one row of a round and
    not the other, so the spread of these says how far the best-of ratio can be trusted."""
    if not mine or not peer or len(mine) < 2:
        return []
    return [a / b for a, b in zip(mine, peer) if a is not None and b]


def table(results: list[dict], peers: dict) -> str:
    medians = any("median_steps_per_sec" in r for r in results)  # --repeat: the best, then the median of the rounds
    head = ["impl", "batch", "decisions/s"] + (["median"] if medians else []) + [
        "hands/s", "dec/hand", "sampler", "env-only dec/s", "CPU", "dec/CPU-s",
        "peak RSS MB"] + [f"x {p}" for p in RATIO_PEERS if p in peers]
    rows = []
    for r in results:
        if "error" in r:
            rows.append([r["impl"], str(r["batch"]), "error: " + r["error"]] + [""] * (len(head) - 3))
            continue
        row = [r["impl"], str(r["batch"]), _fmt(r["steps_per_sec"])]
        if medians:
            row.append(_fmt(r.get("median_steps_per_sec")))
        row += [_fmt(r["games_per_sec"], ",.1f"),
               _fmt(r["decisions_per_hand"], ".1f"), f"{100 * r['sampler_share']:.1f}%",
               _fmt(r["env_only_steps_per_sec"]), f"{100 * r['cpu_util']:.0f}%", _fmt(r["steps_per_cpu_sec"]), f"{r['peak_rss_mb']:.0f}"]
        row += [_fmt(ratio(r, peers[p]), ".2f") + ("x" if ratio(r, peers[p]) is not None else "")
                for p in RATIO_PEERS if p in peers]
        rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    left = {0}
    lines = ["  ".join(h.ljust(w) if i in left else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        if row[2].startswith("error"):
            lines.append("  ".join([row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2]]))
        else:
            lines.append("  ".join(c.ljust(w) if i in left else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(row, widths))))
    return "\n".join(lines)


def state_bytes_for(rules: str | dict, batch: int) -> int:
    from mj_env.engine import Engine

    return Engine(rules, num_tables=batch).state.nbytes()


def summary(results: list[dict], peers: dict, state_4096: int, cores: int) -> tuple[list[str], dict]:
    lines, aims = [], {}
    ok = [r for r in results if "error" not in r]
    lines.append(f"engine state for {AIM_BATCH} tables: {state_4096 / 2**20:.2f} MiB "
                 f"({state_4096 / AIM_BATCH:.0f} bytes per table; aim: well under 1 GiB)")
    aims["state_bytes_4096"] = state_4096
    aims["state_under_1gib"] = state_4096 < 2**30
    big = [r for r in ok if r["impl"] == "vector" and r["batch"] == AIM_BATCH]
    if big:
        v = big[0]
        met = v["steps_per_sec"] >= AIM_DPS
        aims["vector_4096_steps_per_sec"] = v["steps_per_sec"]
        aims["vector_4096_at_least_1m"] = met
        lines.append(f"vector env at {AIM_BATCH}: {v['steps_per_sec']:,.0f} decisions/s with observations and "
                     f"masks (aim >= {AIM_DPS:,}: {'met' if met else 'not met'}); without the sampler "
                     f"{_fmt(v['env_only_steps_per_sec'])}/s")
        x = ratio(v, peers.get("riichienv"))
        if x is not None:
            aims["vector_4096_x_riichienv"] = x
            lines.append(_ratio_line(f"vector env at {AIM_BATCH} / RiichiEnv", v, "riichienv", AIM_X_RIICHI))
            aims["vector_4096_at_least_15x_riichienv"] = judged_ratio(v, "riichienv") >= AIM_X_RIICHI
        if v.get("masked_sampler_ms") is not None:
            lines.append(f"sampler at {AIM_BATCH}: {v['sampler_ms_per_call']:.3f} ms per step in the loop "
                         f"({100 * v['sampler_share']:.1f}% of it); alone {v['masked_sampler_ms']:.3f} ms; "
                         f"the one-line float argmax sampler {v['argmax_sampler_ms']:.3f} ms")
    aec = [r for r in ok if r["impl"] == "aec"]
    if aec:
        x = ratio(aec[0], peers.get("rlcard"))
        if x is not None:
            judged = judged_ratio(aec[0], "rlcard")
            aims["aec_x_rlcard"] = x
            aims["aec_at_least_rlcard"] = judged >= 1
            aims["aec_at_least_1_5x_rlcard"] = judged >= AIM_X_RLCARD
            lines.append(_ratio_line("AEC env (1 table) / RLCard", aec[0], "rlcard", AIM_X_RLCARD))
    busy = [f"{r['impl']}@{r['batch']}" for r in ok if r["cpu_util"] < 0.9]
    if busy:
        lines.append(f"warning: CPU share under 90% for {', '.join(busy)}: other processes competed for the "
                     f"{cores} cores; those figures are lower bounds")
    lines += work_warnings(ok)
    return lines, aims


SAME_GAME = ("vector", "vector_records", "engine", "aec")
"""Our rows that play the same game with the same unit of a decision (every seat asked, claim windows included):
their decisions per hand must agree. ``single_rule`` counts the learner's decisions only; the peers play other
games."""
MIN_HANDS_COMPARED = 100
"""A row's decisions per hand is compared only over this many finished hands or more (the spread of one hand's
length is about a quarter of its mean, so 100 hands put the mean within a few percent)."""
DEC_PER_HAND_TOLERANCE = 0.15
"""How far (relative) the decisions per hand of two rows in ``SAME_GAME`` may differ before a warning."""


def work_warnings(ok: list[dict]) -> list[str]:
    """Warnings that a row's decisions/s may not stand for the game being played: a row in which no hand ended
    in its timed play (a loop or an engine path that never ends a hand would count its steps just the same), and
    rows of ours that play the same game (``SAME_GAME``: the one-table fast paths at batch 1, the batched code
    above it) but disagree on its decisions per hand, as a fast path that skipped or added decisions would."""
    lines = []
    idle = [f"{r['impl']}@{r['batch']}" for r in ok if r.get("hands") == 0]
    if idle:
        lines.append(f"warning: no hand finished in the timed play of {', '.join(idle)}: nothing shows that those "
                     "decisions made up games (too short a --seconds, or a loop that never ends a hand)")
    same = [r for r in ok if r["impl"] in SAME_GAME and (r.get("hands") or 0) >= MIN_HANDS_COMPARED
            and r.get("decisions_per_hand")]
    if len(same) >= 2:
        lo = min(same, key=lambda r: r["decisions_per_hand"])
        hi = max(same, key=lambda r: r["decisions_per_hand"])
        if hi["decisions_per_hand"] > (1 + DEC_PER_HAND_TOLERANCE) * lo["decisions_per_hand"]:
            lines.append(f"warning: decisions per hand disagree between rows of the same game: "
                         f"{lo['impl']}@{lo['batch']} {lo['decisions_per_hand']:.1f}, "
                         f"{hi['impl']}@{hi['batch']} {hi['decisions_per_hand']:.1f} (more than "
                         f"{100 * DEC_PER_HAND_TOLERANCE:.0f}% apart over {MIN_HANDS_COMPARED}+ hands each): "
                         "one of them does not play the game the others play")
    return lines


def judged_ratio(row: dict, peer: str) -> float:
    """The ratio to ``peer`` an aim is judged on: with ``--repeat``, the median of the round-by-round ratios,
    not the best-of ratio (two bests taken minutes apart); else the one ratio."""
    return row.get(f"x_{peer}_median", row[f"x_{peer}"])


def _ratio_line(what: str, row: dict, peer: str, aim: float) -> str:
    """One ratio against a peer and its aim (judged on ``judged_ratio``)."""
    best, judged = row[f"x_{peer}"], judged_ratio(row, peer)
    verdict = "met" if judged >= aim else "not met"
    rounds = row.get(f"x_{peer}_rounds")
    if not rounds:
        return f"{what}: {best:.2f}x (aim >= {aim}x: {verdict})"
    return (f"{what}: {best:.2f}x best against best; round by round median {judged:.2f}x, range "
            f"{min(rounds):.2f}x-{max(rounds):.2f}x over {len(rounds)} rounds (aim >= {aim}x on the median: "
            f"{verdict})")


def plot(results: list[dict], path: str, machine: dict, rules: str | dict) -> None:
    """The picture of ``--plot``, drawn on a ``Figure`` of its own, not pyplot's (as agents.arena_report.plot and
    agents.curve.plot): the backend, figures and current figure of a process that calls it stay as they were."""
    from matplotlib.figure import Figure

    ok = [r for r in results if "error" not in r]
    fig = Figure(figsize=(10, 5))
    ax = fig.subplots()
    batches = sorted({r["batch"] for r in ok if r["impl"] in BATCHED})
    for impl, style, color in (("vector", "o-", "tab:blue"), ("engine", "s--", "tab:orange")):
        rows = sorted((r for r in ok if r["impl"] == impl), key=lambda r: r["batch"])
        if rows:
            ax.plot([r["batch"] for r in rows], [r["steps_per_sec"] for r in rows], style, color=color,
                    label=LABELS[impl])
    rows = sorted((r for r in ok if r["impl"] == "vector" and r["env_only_steps_per_sec"]), key=lambda r: r["batch"])
    if rows:
        ax.plot([r["batch"] for r in rows], [r["env_only_steps_per_sec"] for r in rows], "o:", alpha=0.6,
                color="tab:green", label="MahjongVectorEnv, sampler time excluded")
    for r in ok:
        if r["impl"] == "aec":
            ax.plot([1], [r["steps_per_sec"]], "D", ms=8, color="black", label=f"{LABELS['aec']} ({r['steps_per_sec']:,.0f}/s)")
    colors = {"rlcard": "tab:red", "riichienv": "tab:purple", "riichienv_encode": "tab:brown"}
    for r in ok:
        if r["impl"] in PEERS:
            ax.axhline(r["steps_per_sec"], ls="--" if r["impl"] != "riichienv_encode" else ":",
                       color=colors[r["impl"]], lw=1.2,
                       label=f"{LABELS[r['impl']]}{' ' + r['version'] if r.get('version') else ''} "
                             f"({r['steps_per_sec']:,.0f}/s)")
    ax.axhline(AIM_DPS, color="gray", lw=0.8, ls="-.", label=f"aim at batch {AIM_BATCH}: {AIM_DPS:,}/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if batches:
        ax.set_xticks(batches, [str(b) for b in batches])
    ax.set_xlabel("batch size (tables stepped together)")
    ax.set_ylabel("agent decisions per second")
    utils = sorted(r["cpu_util"] for r in ok)
    busy = ""
    if utils and utils[len(utils) // 2] < 0.9:
        busy = (f"; busy machine: the median row got {100 * utils[len(utils) // 2]:.0f}% of a core "
                f"(dec/CPU-s in the JSON)")
    ax.set_title(f"mj_env random play ({rules}), one thread per implementation\n"
                 f"{machine['cpu']}, {machine['cores']} cores, {machine['date'][:10]}{busy}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    try:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    except OSError as e:
        raise SystemExit(f"error: --plot {_args.shown(path)}: cannot write: {e.strerror or e}") from None


def parse_args(argv=None):
    p = _args.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=5.0, help="timed play per implementation (default 5)")
    p.add_argument("--warmup", type=float, default=None,
                   help="warm-up seconds before timing, 0 or more (default: min(1, seconds))")
    p.add_argument("--batch-sizes", default="1,64,1024,4096",
                   help=f"comma-separated batch sizes for vector, vector_records, engine and single_rule, 1 to {_args.MAX_BATCH:,} "
                        "(default 1,64,1024,4096)")
    p.add_argument("--rules", default="beijing",
                   help=f"{_args.RULES_HELP}, of our environments (default beijing; the peers play their own game)")
    p.add_argument("--impls", default=",".join(DEFAULT_IMPLS),
                   help=f"comma-separated subset of {','.join(ALL_IMPLS)} (default: all but single_rule and vector_records)")
    p.add_argument("--no-peers", action="store_true", help="leave the peers out of --impls: only our rows (vector, vector_records, engine, aec, single_rule)")
    p.add_argument("--repeat", type=int, default=1,
                   help="measure every configuration this many times, interleaved, and keep each one's best "
                        "(1 to 100)")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**63 - 1")
    p.add_argument("--json", metavar="PATH", help="write the results as JSON (its folder must exist)")
    p.add_argument("--plot", metavar="PATH",
                   help="draw decisions/s against batch size (format from the suffix; the folder must exist)")
    p.add_argument("--timeout", type=float, default=None,
                   help="kill a measurement after this many seconds (default: 10 x (seconds + warm-up) + 120)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is None:
        _args.positive(p, "--seconds", args.seconds)
        if args.warmup is not None and not (args.warmup >= 0 and math.isfinite(args.warmup)):
            p.error(f"--warmup must be a finite number of seconds, 0 or more, got {args.warmup}")
        if args.timeout is not None:
            _args.positive(p, "--timeout", args.timeout)
        args.batch_list = _args.int_list(p, "--batch-sizes", args.batch_sizes)
        _args.no_empty_item(p, "--impls", args.impls)
        args.impl_list = [i.strip() for i in args.impls.split(",") if i.strip()]
        bad = set(args.impl_list) - set(ALL_IMPLS)
        if bad:
            p.error(f"unknown implementation(s) {', '.join(sorted(bad))}; choose from {', '.join(ALL_IMPLS)}")
        if args.no_peers:
            args.impl_list = [i for i in args.impl_list if i not in PEERS]
        if not args.impl_list:  # "--impls rlcard --no-peers", or "--impls ,": a table of nothing, refused (exit 2)
            p.error(f"nothing to measure: --impls {args.impls[:80]!r}" + (" with --no-peers" if args.no_peers else ""))
        if args.warmup is None:
            args.warmup = min(1.0, args.seconds)
        _args.in_range(p, "--repeat", args.repeat, 1, 100)  # a huge count overflowed a list after the first run
        _args.seed(p, args.seed)
        args.rules = _args.rules(p, "--rules", args.rules)  # a preset's name, or a rule set's object form (JSON-safe)
        _args.output(p, "--json", args.json)
        if args.plot is not None:
            _args.output(p, "--plot", args.plot, _args.PLOT_FORMATS)
            if importlib.util.find_spec("matplotlib") is None:
                p.error("--plot needs matplotlib: pip install matplotlib")
        if args.json and args.plot:  # the plot would overwrite the JSON: the same path, a link, a hard link
            from agents.arena import file_key  # (the arena's test of its outputs: device and inode)

            if file_key(args.json) == file_key(args.plot):
                p.error(f"--json and --plot name the same file: {args.plot}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child is not None:  # internal: the parent passes one measurement's settings as a JSON object
        try:
            spec = json.loads(args.child)
            if not isinstance(spec, dict) or not {"impl", "batch", "seconds", "warmup", "rules", "seed"} <= set(spec):
                raise ValueError("not the settings of one measurement")
            if spec["impl"] not in ALL_IMPLS:
                raise ValueError(f"unknown implementation {spec['impl']!r}")
        except ValueError as e:
            sys.exit(f"throughput.py: error: --child is internal (a JSON object of one measurement's settings): {e}")
        run_child(spec)
        return 0
    from tqdm import tqdm

    machine = machine_info()
    code = code_version(ROOT)
    versions = package_versions()
    skipped = []
    configs = []
    for impl in args.impl_list:
        if impl in PEERS and importlib.util.find_spec(PEER_MODULE[impl]) is None:
            skipped.append({"impl": impl, "reason": f"{PEER_MODULE[impl]} is not installed (pip install -e '.[peers]')"})
            continue
        for b in (args.batch_list if impl in BATCHED else [1]):
            configs.append({"impl": impl, "batch": b, "rules": args.rules, "seed": args.seed,
                            "seconds": args.seconds, "warmup": args.warmup})
    if importlib.util.find_spec("mahjax") is not None:
        skipped.append({"impl": "mahjax", "reason": "importable, but this benchmark has no mahjax loop yet"})
    timeout = args.timeout or 10 * (args.seconds + args.warmup) + 120
    if any(spec["impl"] not in PEERS for spec in configs):
        make_table_cache()

    parent_rss = _maxrss_mb()  # where VmHWM is missing, the floor of every child's peak RSS (see _maxrss_mb)
    best: dict[tuple, dict] = {}
    runs: dict[tuple, list] = {}
    total = len(configs) * args.repeat
    bar = tqdm(total=total, desc="throughput", unit="run", disable=args.no_progress, file=sys.stderr,
               dynamic_ncols=True)
    for rep in range(args.repeat):
        for spec in configs:
            key = (spec["impl"], spec["batch"])
            name = f"{spec['impl']}@{spec['batch']}" + (f" (round {rep + 1})" if args.repeat > 1 else "")
            bar.set_description(name)

            def progress(d):
                if d["phase"] == "timed":
                    bar.set_postfix_str(f"{d['steps_per_sec']:,.0f} dec/s, {d['hands']} hands, "
                                        f"{d['elapsed']:.1f}/{args.seconds:g} s")
                else:
                    bar.set_postfix_str(f"warm-up {d['elapsed']:.1f} s")

            res = measure(spec, timeout, progress)
            if "error" not in res:
                runs.setdefault(key, [None] * args.repeat)[rep] = res["steps_per_sec"]
                bar.set_postfix_str(f"{res['steps_per_sec']:,.0f} dec/s")
                prev = best.get(key)
                if prev is None or "error" in prev or res["steps_per_sec"] > prev["steps_per_sec"]:
                    best[key] = res
            else:
                best.setdefault(key, res)
                bar.write(f"{name}: {res['error']}\n  " + "\n  ".join(res.get("log", [])))
            bar.update(1)
    bar.close()

    results = []
    for spec in configs:
        key = (spec["impl"], spec["batch"])
        r = best[key]
        if key in runs and args.repeat > 1:
            r["all_steps_per_sec"] = runs[key]  # round by round (None: that round failed)
            r["median_steps_per_sec"] = statistics.median(x for x in runs[key] if x is not None)
        results.append(r)
    for r in results:
        if r["impl"] in PEERS:
            r["version"] = versions.get(PEER_MODULE[r["impl"]])
    peers = {r["impl"]: r for r in results if r["impl"] in PEERS}
    for r in results:
        for p in RATIO_PEERS:
            x = ratio(r, peers.get(p))
            if x is not None:
                r[f"x_{p}"] = x
                rounds = round_ratios(runs.get((r["impl"], r["batch"])), runs.get((p, 1)))
                if rounds:
                    r[f"x_{p}_rounds"] = rounds
                    r[f"x_{p}_median"] = statistics.median(rounds)

    state_4096 = state_bytes_for(args.rules, AIM_BATCH)
    machine["load_average_end"] = machine_info()["load_average"]
    lines, aims = summary(results, peers, state_4096, machine["cores"] or 1)
    floor = [f"{r['impl']}@{r['batch']}" for r in results
             if "error" not in r and r["peak_rss_mb"] <= parent_rss + 1]
    if floor and not Path("/proc/self/status").exists():
        lines.append(f"peak RSS of {', '.join(floor)} is this process's own ({parent_rss:.0f} MB, which every child's "
                     f"ru_maxrss starts from): theirs is at most that")
    print(f"mj_env throughput, rules={_args.rules_label(args.rules)}: random legal actions, {args.seconds:g} s timed after "
          f"{args.warmup:g} s warm-up per row, each row its own process, one thread")
    print(f"{machine_line(machine)} -> {machine['load_average_end']}")
    print(code_line(code))
    print(versions_line(versions))
    print()
    print(table(results, {p: peers.get(p) for p in RATIO_PEERS if p in peers}))
    print()
    for line in lines:
        print(line)
    for s in skipped:
        print(f"skipped {s['impl']}: {s['reason']}")

    if args.json:
        out = {
            "results": results,
            "machine": machine,
            "settings": {"seconds": args.seconds, "warmup": args.warmup, "batch_sizes": args.batch_list,
                         "rules": args.rules, "seed": args.seed, "repeat": args.repeat,
                         "threads": SINGLE_THREAD_ENV, "impls": args.impl_list},
            "state_bytes_4096": state_4096,
            "parent_peak_rss_mb": parent_rss,
            "code": code,
            "versions": versions,
            "aims": aims,
            "skipped": skipped,
        }
        from agents.arena_report import json_text  # strict: a peak RSS unknown (NaN, Windows) as null

        _args.write_text("--json", args.json, json_text(out) + "\n")
        print(f"wrote {_args.shown(args.json)}")
    if args.plot:
        plot(results, args.plot, machine, _args.rules_label(args.rules))
        print(f"wrote {_args.shown(args.plot)}")
    failed_ours = [r for r in results if "error" in r and r["impl"] not in PEERS]
    return 1 if failed_ours else 0


if __name__ == "__main__":
    if not any(a.startswith("--child") for a in sys.argv[1:]):  # a measured child loads only what it measures: mj_env (and gymnasium,
        # pettingzoo) in a peer's child was 10 MB of its peak RSS; its stdout is the parent's pipe anyway
        from mj_env.lines import guard_output  # here: NumPy is loaded by now, its threads sized

        guard_output("benchmarks/throughput.py")  # | head: the reader that left gets no more, and no traceback
    sys.exit(main())
