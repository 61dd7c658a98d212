"""Smoke tests of the benchmarks (benchmarks/throughput.py, benchmarks/profile_step.py) and of the
random legal-action sampler they use. No speed is asserted: only that the scripts run, write
what they promise, and that the sampler is legal and uniform."""
from __future__ import annotations

import json
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
    assert set(data["code"]) == {"commit", "mj_env_uncommitted_changes"}
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

    before = F.tiles_needed
    rows = features_cost.main(["--rules", "beijing,quemen", "--batch", "8", "--steps", "2"])
    assert [r["rules"] for r in rows] == ["beijing", "quemen"]
    assert all(r["features_ms"] > 0 and r["rule_agent_ms"] > 0 for r in rows)
    assert F.tiles_needed is before


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
    ("throughput", "parse_args", ["--seed", str(2**63)], "--seed"),
    ("throughput", "parse_args", ["--plot", "out.bogus"], "--plot"),
    ("throughput", "parse_args", ["--impls", "rlcard", "--no-peers"], "nothing to measure"),
    ("throughput", "parse_args", ["--impls", ","], "--impls: item 1 of ',' is empty"),
    ("throughput", "parse_args", ["--impls", ""], "nothing to measure"),
    # an empty item in a list is refused, as agents.arena's --agents refuses one
    ("throughput", "parse_args", ["--batch-sizes", "1,,8"], "--batch-sizes: item 2 of '1,,8' is empty"),
    ("win_checks", "_parse_args", ["--checks", ","], "--checks: item 1"),
    ("fast_paths", "main", ["--rules", "beijing,"], "--rules: item 2"),
]


@pytest.mark.parametrize("module,parser,argv,flag", BAD_ARGS,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_benchmarks_refuse_bad_arguments(module, parser, argv, flag, capsys):
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
