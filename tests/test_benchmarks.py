"""Smoke tests of the benchmarks (benchmarks/throughput.py, benchmarks/profile_step.py) and of the
random legal-action sampler they use. No speed is asserted: only that the scripts run, write
what they promise, and that the sampler is legal and uniform."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"

import _common
import profile_step
from _common import MaskedSampler


def _run(args, timeout=120):
    proc = subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def test_throughput_smoke(tmp_path):
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    stdout = _run([BENCH / "throughput.py", "--seconds", "0.2", "--warmup", "0.1", "--batch-sizes", "1,8",
                   "--no-peers", "--no-progress", "--json", out_json, "--plot", out_png])
    data = json.loads(out_json.read_text())
    rows = data["results"]
    assert {(r["impl"], r["batch"]) for r in rows} == {("vector", 1), ("vector", 8), ("engine", 1),
                                                       ("engine", 8), ("aec", 1)}
    for r in rows:
        assert "error" not in r, r
        assert isinstance(r["impl"], str) and isinstance(r["batch"], int)
        for key in ("steps_per_sec", "games_per_sec", "peak_rss_mb", "sampler_share", "cpu_util"):
            assert isinstance(r[key], float), (key, r)
        assert r["steps_per_sec"] > 0 and r["games_per_sec"] >= 0 and r["peak_rss_mb"] > 0
        assert r["decisions"] > 0 and r["seconds"] >= 0.2
        assert r["steps_per_sec"] == pytest.approx(r["decisions"] / r["seconds"])
        assert 0 <= r["sampler_share"] < 1
        assert r["env_only_steps_per_sec"] >= r["steps_per_sec"]
        assert r["peak_rss_mb"] >= r["baseline_rss_mb"]
        if r["impl"] in ("vector", "engine"):
            # one decision per table per step (engine: per live table)
            assert r["decisions"] <= r["batch"] * r["env_calls"]
            assert r["state_bytes"] > 0
            assert r["masked_sampler_ms"] > 0 and r["argmax_sampler_ms"] > 0
        if r["impl"] == "vector":
            assert r["decisions"] == r["batch"] * r["env_calls"]
    assert data["state_bytes_4096"] > 0 and data["aims"]["state_bytes_4096"] == data["state_bytes_4096"]
    assert data["settings"]["batch_sizes"] == [1, 8] and data["machine"]["cores"] >= 1
    assert set(data["code"]) == {"commit", "mj_env_uncommitted_changes", "benchmarks_uncommitted_changes"}
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    header = next(line for line in stdout.splitlines() if line.startswith("impl"))
    for col in ("decisions/s", "hands/s", "dec/hand", "sampler", "peak RSS MB"):
        assert col in header


def test_ratio_aims_are_judged_round_by_round():
    """With --repeat, an aim against a peer is judged on the median of the ratios of the same round, not on
    best against best (two bests taken minutes apart on a shared machine)."""
    import throughput

    assert throughput.round_ratios([10.0, 20.0, 30.0], [1.0, 4.0, 2.0]) == [10.0, 5.0, 15.0]
    assert throughput.round_ratios([10.0, None, 30.0], [1.0, 4.0, None]) == [10.0]  # failed rounds skipped
    assert throughput.round_ratios([10.0], [1.0]) == []  # one round: no spread to show
    peers = {"riichienv": {"impl": "riichienv", "batch": 1, "steps_per_sec": 4.0}}
    row = {"impl": "vector", "batch": throughput.AIM_BATCH, "steps_per_sec": 64.0, "env_only_steps_per_sec": 70.0,
           "cpu_util": 1.0,
           "x_riichienv": 16.0, "x_riichienv_rounds": [16.0, 12.0, 14.0], "x_riichienv_median": 14.0}
    lines, aims = throughput.summary([row], peers, state_4096=1, cores=2)
    assert aims["vector_4096_x_riichienv"] == 16.0 and aims["vector_4096_at_least_15x_riichienv"] is False
    line = next(x for x in lines if "RiichiEnv" in x)
    assert "16.00x best against best" in line and "median 14.00x" in line and "12.00x-16.00x" in line
    assert line.endswith("not met)")
    del row["x_riichienv_rounds"], row["x_riichienv_median"]  # one round: the ratio itself
    lines, aims = throughput.summary([row], peers, state_4096=1, cores=2)
    assert aims["vector_4096_at_least_15x_riichienv"] is True


def test_single_rule_counts_no_step_that_only_deals_the_next_episode():
    # NEXT_STEP (the single-agent env's default): the step after a table's episode ends deals its next one, with
    # pass alone in the mask; an outside audit found these counted as learner decisions (1 row in about 11)
    import throughput

    step, _ = throughput.make_single_rule(8, "beijing", 0)
    results = [step() for _ in range(120)]
    ended_before = 0
    for decisions, ended, _ in results:
        assert decisions == 8 - ended_before
        ended_before = ended
    assert sum(e for _, e, _ in results) >= 20


def test_throughput_rejects_bad_arguments():
    proc = subprocess.run([sys.executable, BENCH / "throughput.py", "--impls", "vector,nope"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "nope" in proc.stderr


def test_profile_step_smoke(tmp_path):
    out_json = tmp_path / "p.json"
    stdout = _run([BENCH / "profile_step.py", "--batch", "16", "--steps", "6", "--warmup-steps", "2",
                   "--interval-ms", "0.5", "--top", "5", "--json", out_json])
    data = json.loads(out_json.read_text())
    assert data["baseline"]["ms_per_step"] > 0
    for mode in ("sample", "cprofile"):
        cats = data[mode]["categories"]
        assert [c["category"] for c in cats] == profile_step.ORDER
        # a loaded machine may leave the sampler no sample inside the 6 steps: then no shares at all
        in_loop = data[mode].get("sampled_seconds_in_loop", 1.0)
        assert sum(c["share"] for c in cats) == pytest.approx(1.0 if in_loop > 0 else 0.0, abs=1e-6)
        assert len(data[mode]["functions"]) <= 5
    # cProfile sees every call: the engine's step and the observation must be there
    shares = {c["category"]: c["share"] for c in data["cprofile"]["categories"]}
    assert shares["observation"] > 0 and shares["step glue"] > 0 and shares["sampler"] > 0
    assert "top 5 functions by own time" in stdout


def test_profile_categories_by_file_and_function():
    mj, cat = profile_step.MJ_DIR, profile_step.category
    assert cat(str(mj / "hand.py"), "is_win") == "win tables"
    assert cat(str(mj / "tables.py"), "anything") == "win tables"
    assert cat(str(mj / "engine.py"), "_update_masks") == "masks"
    assert cat(str(mj / "legal.py"), "claim_options") == "claims"
    assert cat(str(mj / "observation.py"), "observe") == "observation"
    assert cat(str(mj / "wall.py"), "draw") == "draw"
    assert cat(str(mj / "hand_end.py"), "hand_results") == "settlement"
    assert cat(str(mj / "legal.py"), "split_wild") is None          # a helper: its caller's category
    assert cat("/elsewhere/hand.py", "is_win") is None             # same name, another package


def test_profile_sample_attribution():
    mj, bench = str(profile_step.MJ_DIR), str(profile_step.BENCH_DIR)
    loop = (f"{bench}/profile_step.py", "run_steps", 1)
    step = (f"{mj}/engine.py", "step", 1)
    # innermost first, as the sampler records: numpy -> hand.is_win -> legal helpers -> claims
    win = (("/usr/lib/numpy/core.py", "take", 5), (f"{mj}/hand.py", "is_win", 280), (f"{mj}/legal.py", "shape_win", 50),
           (f"{mj}/legal.py", "discard_win", 80), (f"{mj}/legal.py", "claim_options", 150),
           (f"{mj}/engine.py", "_discard", 270), step, loop)
    helper = ((f"{mj}/legal.py", "split_wild", 33), (f"{mj}/engine.py", "_update_masks", 120), step, loop)
    outside = ((f"{mj}/engine.py", "step", 1), (f"{bench}/profile_step.py", "main", 9))
    res = profile_step.analyse_samples({win: 2.0, helper: 1.0, outside: 5.0})
    assert res["total"] == pytest.approx(3.0)                     # the sample outside the loop is dropped
    assert res["categories"] == {"win tables": 2.0, "masks": 1.0}
    assert res["win_tables_by_caller"] == {"claims": 2.0}
    assert res["own"][(f"{mj}/hand.py", "is_win")] == 2.0          # numpy time folded into the caller
    assert res["uncategorised"] == {(f"{mj}/legal.py", "split_wild"): {"masks": 1.0}}


def test_profile_stale_names_detects_missing_functions(monkeypatch):
    monkeypatch.setattr(profile_step, "CATEGORIES",
                        [("claims", {"legal.py": {"claim_options", "no_such_function"}})])
    assert profile_step.stale_names() == ["legal.py:no_such_function"]


@pytest.mark.parametrize("n", [1, 5, _common.TINY_BATCH + 3, _common.SMALL_BATCH + 7])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8])
def test_sampler_legal_and_uniform(n, dtype):
    rng = np.random.default_rng(n)
    mask = rng.random((n, 127)) < 0.08
    mask[:, 69] = True
    mask[0] = False
    mask[0, [3, 40, 68, 100, 126]] = True                  # row 0: five legal actions, across words
    if n > 1:
        mask[1] = False                                    # a row with nothing legal gets 0
    mask = mask.astype(dtype)
    sampler = MaskedSampler(1)
    live = mask.any(axis=1)
    for _ in range(20):
        a = sampler(mask)
        assert a.shape == (n,) and np.issubdtype(a.dtype, np.integer)
        assert mask[np.flatnonzero(live), a[live]].all()
        assert (a[~live] == 0).all()
    # uniformity of row 0, through the same code path (a batch of n copies of it)
    copies = np.repeat(mask[:1], n, axis=0)
    counts = np.zeros(127, dtype=np.int64)
    while counts.sum() < 20_000:
        counts += np.bincount(sampler(copies), minlength=127)
    legal = [3, 40, 68, 100, 126]
    assert counts[legal].sum() == counts.sum()
    # chi-square, 4 degrees of freedom: 18.47 is the 0.999 quantile
    expected = counts.sum() / 5
    chi2 = (((counts[legal] - expected) ** 2) / expected).sum()
    assert chi2 < 18.47, counts[legal]


def test_fast_paths_smoke_and_every_path_switches_back():
    import fast_paths

    from mj_env import hand, legal, wall
    from mj_env.engine import Engine

    before = (legal.claim_options, hand._SMALL, Engine._step_one, wall._draw_one, Engine._update_mask_one)
    out = fast_paths.main(["--rules", "beijing", "--seconds", "0.1", "--repeat", "1"])
    variants = {r["variant"] for r in out["rows"]}
    assert {"all fast paths", "step off", "draw off", "masks off", "all off"} <= variants
    assert all(r["decisions_per_s"] > 0 for r in out["rows"])
    assert (legal.claim_options, hand._SMALL, Engine._step_one, wall._draw_one, Engine._update_mask_one) == before


def test_features_cost_smoke_and_tiles_needed_switches_back():
    import features_cost

    from mj_env import features as F

    before = F.tiles_needed, F.tiles_needed_changed
    rows = features_cost.main(["--rules", "beijing,quemen", "--batch", "8", "--steps", "2"])
    assert [r["rules"] for r in rows] == ["beijing", "quemen"]
    assert all(r["features_ms"] > 0 and r["rule_agent_ms"] > 0 for r in rows)
    assert (F.tiles_needed, F.tiles_needed_changed) == before


def test_features_cost_measures_every_preset_by_default():
    """Its --rules default is "all" (its help), so a fourth rule set joins it without an edit here."""
    import features_cost

    from mj_env.rules import PRESET_NAMES

    rows = features_cost.main(["--batch", "4", "--steps", "1"])
    assert [r["rules"] for r in rows] == list(PRESET_NAMES)


# ----------------------------------------------------------------------------- bad arguments
# (module, its argument parser, arguments, the flag the message must name): each exits 2 through
# p.error before anything is built, measured or written
BAD_ARGS = [
    ("fast_paths", "main", ["--rules", "bogus"], "--rules"),
    ("fast_paths", "main", ["--seconds", "nan"], "--seconds"),
    ("features_cost", "main", ["--batch", "abc"], "--batch"),
    ("features_cost", "main", ["--batch", "0"], "--batch"),
    ("features_cost", "main", ["--steps", "0"], "--steps"),
    ("win_checks", "_parse_args", ["--batch-sizes", "0"], "--batch-sizes"),
    ("win_checks", "_parse_args", ["--reference-hands", "0"], "--reference-hands"),
    ("win_checks", "_parse_args", ["--seed", "-1"], "--seed"),
    ("win_checks", "_parse_args", ["--seconds", "nan"], "--seconds"),
    ("win_checks", "_parse_args", ["--checks", "bogus"], "--checks"),
    ("search", "parse_args", ["--seconds", "nan"], "--seconds"),
    ("search", "parse_args", ["--batch-sizes", "abc"], "--batch-sizes"),
    ("search", "parse_args", ["--seed", "-1"], "--seed"),
    ("search", "parse_args", ["--ting-positions", "0"], "--ting-positions"),
    ("profile_step", "main", ["--interval-ms", "0"], "--interval-ms"),
    ("profile_step", "main", ["--interval-ms", "nan"], "--interval-ms"),
    ("profile_step", "main", ["--seed", "-1"], "--seed"),
    ("profile_step", "main", ["--batch", "10000000"], "--batch"),
    ("throughput", "parse_args", ["--seconds", "nan"], "--seconds"),
    ("throughput", "parse_args", ["--warmup", "nan"], "--warmup"),
    ("throughput", "parse_args", ["--timeout", "-1"], "--timeout"),
    ("throughput", "parse_args", ["--repeat", "0"], "--repeat"),
    # was an OverflowError traceback after the first measurement ([None] * repeat)
    ("throughput", "parse_args", ["--repeat", str(2**70)], "--repeat"),
    ("throughput", "parse_args", ["--seed", str(2**63)], "--seed"),
    ("throughput", "parse_args", ["--plot", "out.bogus"], "--plot"),
    # the plot was written over the JSON
    ("throughput", "parse_args", ["--json", "out.png", "--plot", "./out.png"], "--json and --plot name the same file"),
    ("throughput", "parse_args", ["--impls", "rlcard", "--no-peers"], "nothing to measure"),
    ("throughput", "parse_args", ["--impls", ","], "--impls: item 1 of ',' is empty"),
    ("throughput", "parse_args", ["--impls", ""], "nothing to measure"),
    # an empty item in a list is refused, as agents.arena's --agents refuses one
    ("throughput", "parse_args", ["--batch-sizes", "1,,8"], "--batch-sizes: item 2 of '1,,8' is empty"),
    ("win_checks", "_parse_args", ["--checks", ","], "--checks: item 1"),
    ("fast_paths", "main", ["--rules", "beijing,"], "--rules: item 2"),
    ("throughput", "parse_args", ["--batch-sizes", "1,65537"], "--batch-sizes"),   # above MAX_BATCH
    ("throughput", "parse_args", ["--seconds", "inf"], "--seconds"),               # would never end
    ("throughput", "parse_args", ["--seconds", "0"], "--seconds"),
    ("throughput", "parse_args", ["--warmup", "inf"], "--warmup"),
    ("throughput", "parse_args", ["--repeat", "0"], "--repeat"),
    ("features_cost", "main", ["--rules", ""], "--rules"),                         # a table of nothing
    ("throughput", "parse_args", ["--json", ""], "--json '': an empty file name"),  # was taken as "no --json"
    ("throughput", "parse_args", ["--plot", "  "], "--plot '  ': an empty file name"),  # as agents.arena refuses it
]


@pytest.mark.parametrize("module,parser,argv,flag", BAD_ARGS,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_benchmarks_refuse_bad_arguments(module, parser, argv, flag, capsys):
    if "--plot" in argv and argv[argv.index("--plot") + 1].endswith(".png"):  # a plot that may be drawn
        pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    import importlib

    with pytest.raises(SystemExit) as e:
        getattr(importlib.import_module(module), parser)(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and flag in err.strip().splitlines()[-1] and "Traceback" not in err
    assert out == ""


@pytest.mark.parametrize("module,parser", [("throughput", "parse_args"), ("profile_step", "main"),
                                           ("search", "parse_args"), ("win_checks", "_parse_args"),
                                           ("fast_paths", "main")])
def test_benchmarks_refuse_an_output_folder_that_does_not_exist(module, parser, tmp_path, capsys):
    import importlib

    missing = tmp_path / "missing" / "x.json"
    too_long = tmp_path / ("a" * 300 + ".json")            # ENAMETOOLONG: was an OSError traceback
    for target in (missing, tmp_path, too_long):           # a missing folder; a folder as the file
        with pytest.raises(SystemExit) as e:
            getattr(importlib.import_module(module), parser)(["--json", str(target)])
        err = capsys.readouterr().err
        assert e.value.code == 2 and f"--json {str(target)[:80]}" in err and "Traceback" not in err
    assert not missing.parent.exists()                     # no folder is made


def test_benchmark_write_failures_are_one_line_and_exit_1(tmp_path):
    import _args

    targets = [tmp_path] + [Path("/dev/full")] * Path("/dev/full").exists()
    for target in targets:                                 # a folder (made after the check), a full disk
        with pytest.raises(SystemExit) as e:
            _args.write_text("--json", target, "{}\n")
        assert isinstance(e.value.code, str)
        assert e.value.code.startswith(f"error: --json {target}: cannot write")
        assert "\n" not in e.value.code                    # exit status 1, one line on stderr


def test_benchmark_argument_checks_take_their_edges():
    """The ends of every allowed range are allowed, one step past them is not (called directly: the limits
    themselves, not only the flags the parametrized cases reach)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    import argparse

    import _args
    import throughput

    class Refused(Exception):
        pass

    p = argparse.ArgumentParser()
    p.error = lambda msg: (_ for _ in ()).throw(Refused(msg))
    assert _args.int_list(p, "--b", f"1,{_args.MAX_BATCH}") == [1, 65_536]
    for bad in (f"{_args.MAX_BATCH + 1}", "0", "abc", ""):
        with pytest.raises(Refused, match="--b"):
            _args.int_list(p, "--b", bad)
    _args.in_range(p, "--r", 100, 1, 100)
    _args.in_range(p, "--r", 1, 1)
    for bad in (101, 0, float("nan")):
        with pytest.raises(Refused, match="--r"):
            _args.in_range(p, "--r", bad, 1, 100)
    _args.seed(p, 0)
    _args.seed(p, 2**63 - 1)
    _args.positive(p, "--s", 1e-9)
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(Refused, match="--s"):
            _args.positive(p, "--s", bad)
    assert "no such directory" in _args.output_problem("--json", Path("/nonexistent-dir/x.json"))
    assert "is a directory" in _args.output_problem("--json", Path("/"))
    with pytest.raises(Refused, match="--rules needs at least one"):
        _args.name_list(p, "--rules", " ", ("beijing",))
    # through throughput's parser: a plot's suffix in any case, a warm-up of 0, the default warm-up
    args = throughput.parse_args(["--batch-sizes", f"1,{_args.MAX_BATCH}", "--seed", str(2**63 - 1),
                                  "--plot", "out.PNG", "--warmup", "0"])
    assert args.batch_list == [1, 65_536] and args.warmup == 0 and args.seed == 2**63 - 1
    assert throughput.parse_args(["--seconds", "0.3"]).warmup == 0.3      # min(1, seconds)
    assert throughput.parse_args(["--seconds", "7"]).warmup == 1.0


def test_run_child_counts_only_the_timed_calls(monkeypatch, capsys):
    """On a fake clock (each step takes 1 s, 0.25 s of it picking actions): the warm-up (at least 2 calls)
    is excluded from every figure, the timed loop runs at least --seconds and 2 calls, and each figure is
    the decisions, hands and time of the timed calls."""
    import time

    import throughput

    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    calls = []

    def make(batch, rules, seed):
        def step():
            clock[0] += 1.0
            calls.append(clock[0])
            return 3, 1 if len(calls) % 2 else 0, 0.25    # 3 decisions; a hand ends every other call
        return step, {"decision": "a test decision", "state_bytes": 123}

    monkeypatch.setitem(throughput.FACTORIES, "aec", make)

    def run(seconds, warmup):
        calls.clear()
        throughput.run_child({"impl": "aec", "batch": 1, "seconds": seconds, "warmup": warmup,
                              "rules": "hebei", "seed": 0})
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(throughput.MARK + "result"))
        return json.loads(line.split(" ", 1)[1])

    r = run(seconds=5, warmup=3)
    assert r["warmup_calls"] == 3 and len(calls) == 3 + 5
    assert r["env_calls"] == 5 and r["seconds"] == 5.0
    assert r["decisions"] == 15 and r["steps_per_sec"] == 3.0
    assert r["hands"] == 2 and r["games_per_sec"] == 0.4 and r["decisions_per_hand"] == 7.5   # calls 5 and 7
    assert r["sampler_seconds"] == 1.25 and r["sampler_share"] == 0.25 and r["sampler_ms_per_call"] == 250.0
    assert r["env_only_steps_per_sec"] == 15 / 3.75
    assert r["rules"] == "hebei" and r["state_bytes"] == 123 and r["decision"] == "a test decision"
    r = run(seconds=0.5, warmup=0)                       # at least 2 calls each, even when one is long enough
    assert r["warmup_calls"] == 2 and r["env_calls"] == 2 and r["seconds"] == 2.0 and r["decisions"] == 6


def test_measure_reports_a_child_that_failed_or_hung(monkeypatch):
    """A child that printed its result and then failed, or that outlived --timeout, is an error row."""
    import throughput

    spec = {"impl": "vector", "batch": 8}
    script = f"print('{throughput.MARK}result {{\"impl\": \"vector\", \"steps_per_sec\": 1.0}}'); raise SystemExit(3)"
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", script])
    r = throughput.measure(spec, timeout=60, on_progress=print)
    assert r["error"] == "exit status 3" and (r["impl"], r["batch"]) == ("vector", 8)
    script = "for i in range(50): print(f'line {i}')\nraise SystemExit(1)"       # the log's last 20 lines
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", script])
    r = throughput.measure(spec, timeout=60, on_progress=print)
    assert r["error"] == "exit status 1" and r["log"] == [f"line {i}" for i in range(30, 50)]
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", "import time; time.sleep(10)"])
    r = throughput.measure(spec, timeout=0.5, on_progress=print)
    assert r["error"].startswith("killed")


def test_child_env_holds_every_library_to_one_thread():
    import throughput

    env = throughput._child_env()
    assert {k: env[k] for k in _common.SINGLE_THREAD_ENV} == dict.fromkeys(_common.SINGLE_THREAD_ENV, "1")
    assert {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"} <= set(env)
    assert env["PYTHONPATH"].split(":")[:2] == [str(BENCH), str(ROOT)]


def test_summary_judges_each_aim_on_its_own_row():
    import throughput

    def row(impl, batch, dps, **kw):
        return {"impl": impl, "batch": batch, "steps_per_sec": dps, "env_only_steps_per_sec": dps, "cpu_util": 1.0,
                **kw}

    peers = {"rlcard": row("rlcard", 1, 10.0)}
    results = [row("vector", 1, 5.0), row("vector", throughput.AIM_BATCH, 2e6),
               row("aec", 1, 20.0, x_rlcard=2.0, x_rlcard_rounds=[1.2, 1.4, 2.0], x_rlcard_median=1.4),
               row("engine", 8, 1.0, cpu_util=0.5), {"impl": "engine", "batch": 1, "error": "exit status 1"}]
    lines, aims = throughput.summary(results, peers, state_4096=2**30 - 1, cores=2)
    assert aims["state_under_1gib"] is True
    assert aims["vector_4096_steps_per_sec"] == 2e6 and aims["vector_4096_at_least_1m"] is True
    assert aims["aec_x_rlcard"] == 2.0 and aims["aec_at_least_rlcard"] is True
    assert aims["aec_at_least_1_5x_rlcard"] is False                 # judged on the median of the rounds, 1.4
    assert [x for x in lines if x.startswith("warning")] == [next(x for x in lines if "engine@8" in x)]
    assert "vector@" not in next(x for x in lines if x.startswith("warning"))
    assert throughput.summary(results[:1], {}, state_4096=2**30, cores=2)[1] == {
        "state_bytes_4096": 2**30, "state_under_1gib": False}        # no 4096 row: no throughput aim
    # an error row has no ratio (it has no decisions/s)
    assert throughput.ratio(results[-1], peers["rlcard"]) is None
    assert throughput.ratio(results[2], {"impl": "rlcard", "steps_per_sec": 0.0}) is None


def test_throughput_main_keeps_each_rows_best_and_writes_what_it_promises(tmp_path, monkeypatch, capsys):
    """main() with the children replaced by canned results (no measuring): --repeat keeps each row's best and
    the round-by-round figures, a failed round keeps the good ones, ratios pair a row with the peer's same
    round, and the JSON holds the settings, machine (load at start and end), commit and aims."""
    pytest.importorskip("tqdm")  # the train extra: skipped in a core-only install
    import importlib.util

    import throughput

    dps = {("vector", 1): [10.0, None, 5.0], ("vector", 4096): [100.0, 300.0, 200.0], ("aec", 1): [12.0, 12.0, 40.0],
           ("rlcard", 1): [10.0, 10.0, 20.0], ("riichienv", 1): [None, None, None]}
    seen = []

    def fake_measure(spec, timeout, on_progress):
        key = (spec["impl"], spec["batch"])
        seen.append((key, spec["seed"], spec["seconds"], spec["warmup"], spec["rules"], timeout))
        x = dps[key][sum(k == key for k, *_ in seen) - 1]
        if x is None:
            return {"impl": key[0], "batch": key[1], "error": "exit status 1", "log": []}
        return {"impl": key[0], "batch": key[1], "steps_per_sec": x, "games_per_sec": 1.0, "decisions_per_hand": x,
                "sampler_share": 0.1, "env_only_steps_per_sec": x, "cpu_util": 1.0, "steps_per_cpu_sec": x,
                "peak_rss_mb": 50.0}

    loads = iter([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    real_info, real_spec, installed = throughput.machine_info, importlib.util.find_spec, {"rlcard", "riichienv"}
    monkeypatch.setattr(throughput, "machine_info", lambda: {**real_info(), "load_average": next(loads)})
    monkeypatch.setattr(throughput, "measure", fake_measure)
    monkeypatch.setattr(throughput, "state_bytes_for", lambda rules, batch: 1000)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name in installed else real_spec(name, *a))
    out = tmp_path / "r.json"
    rc = throughput.main(["--impls", "vector,aec,rlcard,riichienv", "--batch-sizes", "1,4096", "--repeat", "3",
                          "--seconds", "0.5", "--seed", "7", "--rules", "quemen", "--no-progress", "--json", str(out)])
    assert rc == 0                                                   # only a peer failed
    assert {s[1:] for s in seen} == {(7, 0.5, 0.5, "quemen", 10 * (0.5 + 0.5) + 120)} and len(seen) == 15
    data = json.loads(out.read_text())
    rows = {(r["impl"], r["batch"]): r for r in data["results"]}
    assert list(rows) == list(dps)                                   # every row, the failed peer's too
    assert "error" in rows["riichienv", 1]
    v1, v4096, aec = rows["vector", 1], rows["vector", 4096], rows["aec", 1]
    assert v1["steps_per_sec"] == 10.0 and v1["all_steps_per_sec"] == [10.0, None, 5.0]
    assert v1["median_steps_per_sec"] == 7.5
    assert v4096["steps_per_sec"] == 300.0 and v4096["all_steps_per_sec"] == [100.0, 300.0, 200.0]
    assert v4096["median_steps_per_sec"] == 200.0
    assert v4096["x_rlcard"] == 15.0 and v4096["x_rlcard_rounds"] == [10.0, 30.0, 10.0]
    assert v4096["x_rlcard_median"] == 10.0
    assert aec["x_rlcard"] == 2.0 and aec["x_rlcard_median"] == 1.2
    assert data["aims"]["aec_at_least_rlcard"] is True and data["aims"]["aec_at_least_1_5x_rlcard"] is False
    assert data["settings"] == {"seconds": 0.5, "warmup": 0.5, "batch_sizes": [1, 4096], "rules": "quemen", "seed": 7,
                                "repeat": 3, "threads": _common.SINGLE_THREAD_ENV,
                                "impls": ["vector", "aec", "rlcard", "riichienv"]}
    assert data["machine"]["load_average"] == [1.0, 1.0, 1.0] and data["machine"]["load_average_end"] == [2.0] * 3
    assert data["state_bytes_4096"] == 1000
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert data["code"]["commit"] == head
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if x.split()[:2] == ["vector", "4096"])
    assert line.split()[2:4] == ["300", "200"]                       # best, then the median of the rounds
    # one of ours failing every round is exit status 1
    dps[("aec", 1)] = [None] * 3
    seen.clear()
    loads = iter([[1.0] * 3, [1.0] * 3])
    assert throughput.main(["--impls", "aec", "--repeat", "3", "--no-progress"]) == 1
    # a peer that is not installed is skipped, with the reason, not measured
    installed.discard("rlcard")
    seen.clear()
    loads = iter([[1.0] * 3, [1.0] * 3])
    assert throughput.main(["--impls", "vector,rlcard", "--batch-sizes", "4096", "--timeout", "9", "--no-progress",
                            "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [s[0] for s in seen] == [("vector", 4096)] and seen[0][-1] == 9
    assert [(r["impl"], r["batch"]) for r in data["results"]] == [("vector", 4096)]
    skipped = [s for s in data["skipped"] if s["impl"] != "mahjax"]      # mahjax: skipped wherever installed
    assert [s["impl"] for s in skipped] == ["rlcard"] and "not installed" in skipped[0]["reason"]


def test_code_version_names_the_uncommitted_engine_files(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

    (tmp_path / "mj_env").mkdir()
    for name in ("mj_env/a.py", "mj_env/b.py", "README.md"):
        (tmp_path / name).write_text("x\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "c")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert _common.code_version(tmp_path) == {"commit": head, "mj_env_uncommitted_changes": [],
                                              "benchmarks_uncommitted_changes": []}
    for name in ("mj_env/a.py", "mj_env/b.py", "README.md"):       # README.md is not the engine
        (tmp_path / name).write_text("y\n")
    (tmp_path / "mj_env" / "new.py").write_text("")
    assert _common.code_version(tmp_path) == {"commit": head, "mj_env_uncommitted_changes": [
        "mj_env/a.py", "mj_env/b.py", "mj_env/new.py"], "benchmarks_uncommitted_changes": []}


def test_machine_info_describes_this_machine():
    info = _common.machine_info()
    assert info["cores"] == os.cpu_count()
    if Path("/proc/meminfo").exists():
        ram_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        assert info["memory_gib"] == pytest.approx(ram_gib, abs=0.2)


def test_sampler_takes_any_integer_mask_and_an_empty_last_row():
    rng = np.random.default_rng(3)
    for n in (4, _common.TINY_BATCH + 3, _common.SMALL_BATCH + 7):
        mask = rng.random((n, 127)) < 0.1
        mask[:, 5] = True
        mask[-1] = False                                     # the last row has nothing legal
        for dtype in (np.int32, np.uint8, np.bool_):
            a = MaskedSampler(0)(mask.astype(dtype))
            assert a.shape == (n,) and a[-1] == 0 and mask[np.arange(n - 1), a[:-1]].all()
        a = _common.float_argmax_sample(rng, mask[:-1])      # the one-line sampler it is compared with
        assert mask[np.arange(n - 1), a].all()


def test_features_cost_figures_on_a_fake_clock(monkeypatch):
    """Each step's planes take 1 s and the rule agent's decision 2 s on a fake clock: the figures are per
    batch over --steps, tiles_to_win hands are counted per call, and the positions move on each step."""
    import time

    import features_cost

    from mj_env import features as F

    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    real_planes, real_needed, seen = F.extra_planes, F.tiles_needed, []
    hands = [0]

    def planes(*a, **kw):
        clock[0] += 1.0
        return real_planes(*a, **kw)

    def needed(r, h, *a, **kw):
        hands[0] += len(h)
        return real_needed(r, h, *a, **kw)

    real_changed = F.tiles_needed_changed

    def changed(r, h, hui, ms, rows, *a):  # one hand per changed row
        hands[0] += len(rows)
        return real_changed(r, h, hui, ms, rows, *a)

    class Agent(features_cost.RuleBasedAgent):
        def act(self, obs, rng):
            clock[0] += 2.0
            seen.append(obs["observation"].copy())
            return super().act(obs, rng)

    monkeypatch.setattr(F, "extra_planes", planes)
    monkeypatch.setattr(F, "tiles_needed", needed)
    monkeypatch.setattr(F, "tiles_needed_changed", changed)
    monkeypatch.setattr(features_cost, "RuleBasedAgent", Agent)
    [r] = features_cost.main(["--rules", "beijing", "--batch", "4", "--steps", "3"])
    assert (r["rules"], r["batch"]) == ("beijing", 4)
    assert r["features_ms"] == 1000.0 and r["rule_agent_ms"] == 2000.0 and r["features_per_s"] == 4.0
    assert hands[0] > 0 and r["hands_per_batch"] == hands[0] / 3
    assert len(seen) == 3 and not all(np.array_equal(seen[0], s) for s in seen[1:])


# --------------------------------------------------------------------------- throughput.py's two outputs


def _throughput_refuses(argv, capsys) -> str:
    throughput = importlib.import_module("throughput")
    with pytest.raises(SystemExit) as e:
        throughput.parse_args(argv)
    assert e.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("how", ["hard link", "symbolic link"])
def test_throughput_refuses_a_plot_that_is_the_json_under_another_name(how, tmp_path, capsys):
    """``--json r.json --plot r.png`` with r.png a hard link of r.json: the names resolve apart, so the plot was
    drawn over the JSON just written. Compared by device and inode now, as agents.arena compares its outputs."""
    pytest.importorskip("matplotlib")  # the plot extra: --plot is refused without it, before this check
    out = tmp_path / "r.json"
    out.write_text("{}\n")
    other = tmp_path / "r.png"
    (os.link if how == "hard link" else os.symlink)(out, other)
    err = _throughput_refuses(["--json", str(out), "--plot", str(other)], capsys)
    assert "--json and --plot name the same file" in err


def test_throughput_takes_two_files_that_differ(tmp_path):
    pytest.importorskip("matplotlib")
    throughput = importlib.import_module("throughput")
    (tmp_path / "r.json").write_text("{}\n")
    (tmp_path / "r.png").write_text("")
    args = throughput.parse_args(["--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png")])
    assert args.json.endswith("r.json") and args.plot.endswith("r.png")
