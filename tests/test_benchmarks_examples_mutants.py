"""The benchmarks (benchmarks/) and the examples (examples/) where a mutation-test round on them found no test: tests
that kill mutants the suite let live. Nothing here measures a speed: the figures are checked on a fake clock or
with canned work, and only what a run computes, records and refuses is asserted."""
from __future__ import annotations

import io
import subprocess

import _args
import _common
import numpy as np
import pytest
from _common import MaskedSampler


# ----------------------------------------------------------------------------- benchmarks/_common.py
def test_one_sampler_takes_batches_of_every_size_in_turn():
    """The batched sampler keeps its word buffer between calls; a call with another batch size or action count
    (live tables only, say) gets a buffer of its own shape, not the last one's (from a mutation test: reusing
    the buffer of another shape went unnoticed, each test drew one shape per sampler)."""
    sampler = MaskedSampler(0)
    rng = np.random.default_rng(1)
    for n, a in [(600, 127), (700, 127), (600, 127), (520, 40), (900, 9)]:
        mask = rng.random((n, a)) < 0.2
        mask[np.arange(n), rng.integers(0, a, n)] = True
        mask[-1] = False                                   # a row with no legal action: 0
        got = sampler(mask)
        assert got.shape == (n,)
        assert mask[np.arange(n - 1), got[:-1]].all() and got[-1] == 0


def test_cpu_model_is_the_model_name_line(monkeypatch):
    """The machine line names the CPU from /proc/cpuinfo's ``model name``, not the first line's value, and falls
    back to the platform's name where no such line is."""
    cpuinfo = "processor\t: 0\nvendor_id\t: FakeVendor\nmodel name\t: Fake CPU @ 1.00GHz\nflags\t: a b\n"
    monkeypatch.setattr(_common, "open", lambda *a, **k: io.StringIO(cpuinfo), raising=False)
    assert _common.cpu_model() == "Fake CPU @ 1.00GHz"
    monkeypatch.setattr(_common, "open", lambda *a, **k: io.StringIO("processor\t: 0\n"), raising=False)
    monkeypatch.setattr(_common.platform, "processor", lambda: "fallback-cpu")
    assert _common.cpu_model() == "fallback-cpu"


def test_code_version_without_git_or_outside_a_checkout(monkeypatch, tmp_path):
    """Where no commit can be read, results.json records ``"commit": null`` and no changed files (the code line
    prints ``?``): outside a git checkout, and on a machine with no git at all (from a mutation test: an empty
    string for the commit, and a crash without git, went unnoticed)."""
    empty = {"commit": None, "mj_env_uncommitted_changes": [], "benchmarks_uncommitted_changes": []}
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert _common.code_version(tmp_path) == empty
    assert _common.code_line(empty) == "code: commit ?"

    def no_git(*a, **k):
        raise FileNotFoundError("git")

    monkeypatch.setattr(_common.subprocess, "run", no_git)
    assert _common.code_version(tmp_path) == empty


# ----------------------------------------------------------------------------- benchmarks/_args.py
def _refused(fn, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        fn()
    assert e.value.code == 2
    return capsys.readouterr().err


def test_rule_sets_takes_one_rule_set_of_ones_own_and_refuses_it_among_presets(capsys):
    """features_cost.py and fast_paths.py take ``--rules`` as presets or one JSON object (its commas its own);
    an object among preset names is refused in words that say so, not as a fragment's bad JSON."""
    p = _args.ArgumentParser(prog="bench")
    own = '{"name": "beijing", "chi": false}'
    got = _args.rule_sets(p, "--rules", own)
    assert len(got) == 1 and isinstance(got[0], dict) and got[0]["chi"] is False
    assert _args.rule_sets(p, "--rules", "beijing, hebei") == ["beijing", "hebei"]
    err = _refused(lambda: _args.rule_sets(p, "--rules", "hebei," + own), capsys)
    assert "is the value alone, one JSON object" in err


def test_an_output_in_a_folder_one_cannot_write_is_refused(monkeypatch, tmp_path):
    """``--json`` in a folder the user may not write to is refused before anything is measured (checked with
    ``os.access`` answering no: the tests may run as root, whom the file system lets write anywhere)."""
    real = _args.os.access
    monkeypatch.setattr(_args.os, "access", lambda path, mode: False if str(path) == str(tmp_path) else real(path, mode))
    assert _args.output_problem("--json", tmp_path / "r.json") == f"--json {tmp_path / 'r.json'}: not writable"
    (tmp_path / "r.json").write_text("{}")
    assert _args.output_problem("--json", tmp_path / "r.json") == f"--json {tmp_path / 'r.json'}: not writable"


# ----------------------------------------------------------------------------- benchmarks/throughput.py
def _child_result(monkeypatch, capsys, make, seconds=2, warmup=1):
    """throughput.run_child on a fake clock (``clock[0]``, advanced by ``make``'s set-up and steps) with the
    ``aec`` factory replaced by ``make``: the result line as a dict."""
    import json

    import throughput

    monkeypatch.setitem(throughput.FACTORIES, "aec", make)
    throughput.run_child({"impl": "aec", "batch": 1, "seconds": seconds, "warmup": warmup, "rules": "beijing",
                          "seed": 0})
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(throughput.MARK + "result"))
    return json.loads(line.split(" ", 1)[1])


def test_run_child_records_the_set_up_time_apart_from_the_timed_play(monkeypatch, capsys):
    """``setup_seconds`` is the time the factory took to build the loop (untimed, before the warm-up), on a fake
    clock 7 s; the timed figures do not include it (from a mutation test: a sum in place of the difference went
    unnoticed)."""
    import time

    clock = [100.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])

    def make(batch, rules, seed):
        clock[0] += 7.0                                     # building the env

        def step():
            clock[0] += 1.0
            return 2, 0, 0.0
        return step, {"decision": "d"}

    r = _child_result(monkeypatch, capsys, make, seconds=2, warmup=1)
    assert r["setup_seconds"] == 7.0
    assert r["seconds"] == 2.0 and r["decisions"] == 4 and r["steps_per_sec"] == 2.0


def test_run_child_gives_no_rate_per_cpu_second_when_no_cpu_time_was_read(monkeypatch, capsys):
    """A process clock too coarse to see the timed play (15.6 ms ticks on Windows) reads 0 CPU seconds: the row
    then has no decisions per CPU second (JSON null, "-" in the table) rather than a division by zero."""
    import time

    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(time, "process_time", lambda: 5.0)

    def make(batch, rules, seed):
        def step():
            clock[0] += 1.0
            return 1, 0, 0.0
        return step, {"decision": "d"}

    r = _child_result(monkeypatch, capsys, make)
    assert r["cpu_seconds"] == 0.0 and r["cpu_util"] == 0.0 and r["steps_per_cpu_sec"] is None


def test_the_table_has_a_ratio_column_for_each_peer_measured():
    """The stdout table gives each of our rows its decisions/s over each measured peer's (``x rlcard``)."""
    import throughput

    def row(impl, dps):
        return {"impl": impl, "batch": 1, "steps_per_sec": dps, "games_per_sec": 1.0, "decisions_per_hand": 80.0,
                "sampler_share": 0.1, "env_only_steps_per_sec": dps, "cpu_util": 1.0, "steps_per_cpu_sec": dps,
                "peak_rss_mb": 50.0}

    peer = row("rlcard", 1000.0)
    lines = throughput.table([row("aec", 2500.0), peer], {"rlcard": peer}).splitlines()
    assert lines[0].split()[-2:] == ["x", "rlcard"]
    assert lines[2].split()[0] == "aec" and lines[2].split()[-1] == "2.50x"
    assert lines[3].split()[-1] == "1.00x"


def test_a_plot_that_cannot_be_written_ends_the_run_in_one_line(tmp_path):
    """``--plot`` whose folder went away after the checks: one line naming the flag and the file, not a
    "wrote" line for a file that is not there (from a mutation test: dropping the exit went unnoticed)."""
    pytest.importorskip("matplotlib")
    import throughput

    row = {"impl": "vector", "batch": 1, "steps_per_sec": 10.0, "env_only_steps_per_sec": 12.0, "cpu_util": 1.0}
    machine = {"cpu": "cpu", "cores": 2, "date": "2026-12-07T00:00:00"}
    path = tmp_path / "gone" / "t.png"
    with pytest.raises(SystemExit) as e:
        throughput.plot([row], str(path), machine, "beijing")
    assert str(e.value).startswith(f"error: --plot {path}: cannot write: ")
    assert not path.exists()



def test_the_plot_draws_the_vector_env_without_the_sampler_beside_its_figure(tmp_path, monkeypatch):
    """docs/throughput.png: the vector env's decisions/s against batch size, and the same rows with the sampler's
    time taken out (``env_only_steps_per_sec``), each point where the rows put it (the figure caught as it is
    saved)."""
    pytest.importorskip("matplotlib")
    import throughput
    from matplotlib.figure import Figure

    figs = []
    real_savefig = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: figs.append(fig) or real_savefig(fig, *a, **k))
    rows = [{"impl": "vector", "batch": b, "steps_per_sec": 10.0 * b, "env_only_steps_per_sec": 12.0 * b,
             "cpu_util": 1.0} for b in (64, 1)]
    machine = {"cpu": "cpu", "cores": 2, "date": "2026-12-07T00:00:00"}
    throughput.plot(rows, str(tmp_path / "t.png"), machine, "beijing")
    assert (tmp_path / "t.png").stat().st_size > 0
    lines = {line.get_label(): line for line in figs[0].axes[0].get_lines()}
    assert list(lines[throughput.LABELS["vector"]].get_xydata().tolist()) == [[1.0, 10.0], [64.0, 640.0]]
    assert list(lines["MahjongVectorEnv, sampler time excluded"].get_xydata().tolist()) == [[1.0, 12.0], [64.0, 768.0]]


def test_run_child_times_the_sampler_alone_per_call_on_the_last_mask(monkeypatch, capsys):
    """``masked_sampler_ms`` and ``argmax_sampler_ms`` (the summary's "sampler ... alone") are milliseconds per
    call over about 0.2 s of calls on the run's last mask: on a fake clock where our sampler takes 10 ms and the
    float argmax 30 ms a call, 10 and 30."""
    import time

    import throughput

    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    masks = []

    class Sampler:
        def __init__(self, seed):
            pass

        def __call__(self, mask):
            masks.append(mask)
            clock[0] += 0.01
            return np.zeros(len(mask), dtype=np.int64)

    def argmax(rng, mask):
        clock[0] += 0.03
        return np.zeros(len(mask), dtype=np.int64)

    monkeypatch.setattr(throughput, "MaskedSampler", Sampler)
    monkeypatch.setattr(throughput, "float_argmax_sample", argmax)
    last = np.ones((4, 127), dtype=np.int8)

    def make(batch, rules, seed):
        def step():
            clock[0] += 1.0
            return 4, 0, 0.0
        return step, {"decision": "d", "last_mask": lambda: last}

    r = _child_result(monkeypatch, capsys, make)
    assert r["masked_sampler_ms"] == pytest.approx(10.0) and r["argmax_sampler_ms"] == pytest.approx(30.0)
    assert masks and all(np.array_equal(m, last) for m in masks)


def test_single_rules_last_mask_is_the_learners_action_mask():
    """The single_rule row times the sampler alone on its last observation's action mask (batch, 127)."""
    import throughput

    step, info = throughput.make_single_rule(2, "beijing", 0)
    step()
    mask = info["last_mask"]()
    assert mask.shape == (2, 127) and mask.any(axis=1).all()


@pytest.mark.parametrize("platform,peak,mb", [("darwin", 3 * 2**20, 3.0), ("freebsd14", 3 * 1024, 3.0)])
def test_peak_rss_without_proc_reads_ru_maxrss_in_its_units(monkeypatch, platform, peak, mb):
    """Where there is no /proc (macOS, the BSDs), the peak RSS is ``ru_maxrss``: bytes on macOS, KiB elsewhere."""
    import resource
    import sys

    import throughput

    def no_proc(*a, **k):
        raise OSError("no /proc")

    monkeypatch.setattr(throughput, "open", no_proc, raising=False)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(resource, "getrusage", lambda who: type("Usage", (), {"ru_maxrss": peak})())
    assert throughput._maxrss_mb() == mb


def test_a_table_cache_that_cannot_be_made_is_a_warning_with_the_childs_words(monkeypatch, capsys):
    """The hand-table cache built before the rows: a build that fails is a warning carrying the build's own
    error output, and the run goes on."""
    import throughput

    def run(cmd, **kw):
        if kw.get("check"):
            raise subprocess.CalledProcessError(1, cmd, "", "boom: disk full")
        return subprocess.CompletedProcess(cmd, 1, "", "boom: disk full")

    monkeypatch.setattr(throughput.subprocess, "run", run)
    throughput.make_table_cache()
    err = capsys.readouterr().err
    assert err.startswith("warning: could not make the hand-table cache") and "boom: disk full" in err

# ----------------------------------------------------------------------------- benchmarks/features_cost.py
def test_features_cost_times_its_stated_default_of_30_steps_per_row(monkeypatch, capsys):
    """``--steps`` left out is the 30 its help states, passed to every row (the measuring replaced)."""
    import features_cost

    seen = []

    def measure(rules, batch, steps, seed=0):
        seen.append((rules, batch, steps))
        return {"rules": rules, "batch": batch, "features_ms": 1.0, "rule_agent_ms": 2.0, "features_per_s": 3.0,
                "hands_per_batch": 4.0}

    monkeypatch.setattr(features_cost, "measure", measure)
    monkeypatch.setattr(features_cost, "read_hand_tables", lambda: None)
    features_cost.main(["--rules", "beijing", "--batch", "2,8"])
    assert seen == [("beijing", 2, 30), ("beijing", 8, 30)]
    out = capsys.readouterr().out
    assert "30 steps timed per row" in out
    with pytest.raises(SystemExit):
        features_cost.main(["--help"])
    assert "(default 30)" in capsys.readouterr().out


# ----------------------------------------------------------------------------- benchmarks/_peers.py
def test_the_vector_records_row_is_the_vector_loop_with_records():
    """``--impls vector_records`` measures the vector env of that batch keeping hand records: one decision per
    table per step, and each ended hand's record in the step's infos."""
    import _peers

    step, info = _peers.make_vector_records(3, "beijing", 0)
    assert "record" in info["decision"] and info["last_mask"]().shape == (3, 127)
    hands = 0
    for _ in range(400):
        d, h, ts = step()
        assert d == 3 and ts >= 0
        hands += h
    assert hands > 0


# ----------------------------------------------------------------------------- benchmarks/search.py
def test_search_help_on_an_ascii_terminal_escapes_its_chinese_and_states_its_defaults():
    """``search.py --help`` names 报听: on a standard output that cannot encode it, a backslash escape and exit 0,
    not a UnicodeEncodeError; and the 32 root positions its help states is what it takes."""
    import os
    import sys
    from pathlib import Path

    import search

    script = Path(search.__file__)
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "\\u62a5\\u542c" in proc.stdout and "(default 32)" in proc.stdout
    assert search.parse_args([]).tables == 32


# ----------------------------------------------------------------------------- benchmarks/fast_paths.py
def test_fast_paths_defaults_and_its_largest_repeat(monkeypatch, capsys):
    """Left out, the flags are what the help states (beijing and hebei, 2 s, 3 rounds), each rule set warmed up
    before the first timed variant; ``--repeat 100``, the top of its stated range, is taken (the timed play and
    the warm-up replaced: only the calls are counted)."""
    import fast_paths

    events = []
    monkeypatch.setattr(fast_paths, "warm_up", lambda rules: events.append(("warm", rules)))
    monkeypatch.setattr(fast_paths, "aec_rate", lambda rules, seconds, seed: events.append((rules, seconds, seed))
                        or 100.0 + seed)
    out = fast_paths.main([])
    V = len(fast_paths.VARIANTS)
    assert events[:2] == [("warm", "beijing"), ("warm", "hebei")]
    assert events[2:] == [(r, 2.0, s) for s in range(3) for r in ("beijing", "hebei") for _ in range(V)]
    assert out["seconds"] == 2.0 and out["repeat"] == 3
    assert {r["decisions_per_s"] for r in out["rows"]} == {102}           # each variant's best round
    assert "best of 3 round(s)" in capsys.readouterr().out
    events.clear()
    assert fast_paths.main(["--rules", "quemen", "--repeat", "100", "--seconds", "0.1"])["repeat"] == 100
    assert len(events) == 1 + 100 * V


# ----------------------------------------------------------------------------- examples/offline_dataset.py
def test_offline_dataset_defaults_and_the_ends_of_its_ranges(tmp_path, capsys):
    """examples/offline_dataset.py's flags left out are what its help states (64 tables, 1000 hands, seed 0,
    v1 planes, the rule agent in every seat, dataset.npz), and the top of each stated range is taken while one
    past it is refused (only the arguments are read: nothing is played)."""
    from example_modules import load_example

    od = load_example("offline_dataset")
    a = od.parse_args([])
    assert (a.tables, a.hands, a.seed, a.obs, a.agents, a.out) == (64, 1000, 0, "v1", ("rule",) * 4, "dataset.npz")
    out = str(tmp_path / "d.npz")
    a = od.parse_args(["--tables", str(od.MAX_TABLES), "--hands", str(od.MAX_HANDS), "--seed", str(2**32 - 1),
                       "--out", out])
    assert (a.tables, a.hands, a.seed) == (4096, 1_000_000, 2**32 - 1)
    for flag, bad in [("--tables", od.MAX_TABLES + 1), ("--hands", od.MAX_HANDS + 1), ("--seed", 2**32)]:
        with pytest.raises(SystemExit):
            od.parse_args([flag, str(bad), "--out", out])
        assert flag in capsys.readouterr().err


# ----------------------------------------------------------------------------- examples/rule_variants.py
@pytest.mark.parametrize("ready", [False, True])
def test_defend_breaks_ties_in_safety_by_the_rule_agents_own_order(monkeypatch, ready):
    """Threatened, ``defend`` discards the safest kind of the rule agent's nearest bracket; among kinds as safe,
    the rule agent's own order decides (its smaller key first), whether or not the hand is ready (the rule
    agent's keys, the threat and the safety replaced by chosen ones)."""
    from example_modules import load_example

    from mj_env.baselines import RuleBasedAgent

    rv = load_example("rule_variants")
    illegal = RuleBasedAgent.ILLEGAL_KEY
    base = 0.0 if ready else 1000.0
    key = np.full((1, 34), float(illegal))
    key[0, [3, 7, 9, 20]] = [base + 60.0, base + 10.0, base + 40.0, base + 1000.0]   # 20: a tile farther
    best = np.array([0 if ready else 1])
    monkeypatch.setattr(RuleBasedAgent, "_discard_keys", lambda self, o, hands, hui, ok, rng: (key.copy(), best))
    monkeypatch.setattr(rv, "threats", lambda o, rules, melds, late: np.ones((len(o), 4), dtype=bool))
    safety = np.zeros((1, 34))
    safety[0, [3, 7, 9, 20]] = [0.5, 0.5, 0.5, 1.0]                                 # 3, 7, 9 as safe
    monkeypatch.setattr(rv, "discard_safety", lambda o, threat: safety)
    agent = rv.DefendAgent("beijing")
    got, _ = agent._discard_keys(np.zeros((1, 1, 34)), None, None, None, None)
    order = np.argsort(got[0])[:3]
    assert order.tolist() == [7, 9, 3]


# ----------------------------------------------------------------------------- examples/rollout_improvement.py
def test_rollout_improvement_collect_keeps_the_legal_mask_and_pads_the_candidates(monkeypatch):
    """``collect`` turns labelled play into training data: the mask is the legal actions (``action_mask != 0``),
    batches with fewer candidates are padded with -1 (no candidate) and their Q with NaN, and a batch with no
    labelled table adds nothing (the labelled play and the network's input planes replaced)."""
    pytest.importorskip("torch")
    from example_modules import load_example

    ri = load_example("rollout_improvement")
    m1 = np.array([[1, 0, 1, 0], [0, 1, 1, 1]], dtype=np.int8)
    m2 = np.array([[0, 0, 1, 1]], dtype=np.int8)
    batches = [
        {"table": np.array([0, 1]), "observation": np.zeros((2, 3)), "action_mask": m1,
         "candidates": np.array([[0, 2], [1, 3]]), "q": np.array([[0.5, -0.5], [1.0, 2.0]])},
        {"table": np.array([], dtype=int), "observation": np.zeros((0, 3)), "action_mask": np.zeros((0, 4), np.int8),
         "candidates": np.zeros((0, 5), int), "q": np.zeros((0, 5))},
        {"table": np.array([3]), "observation": np.ones((1, 3)), "action_mask": m2,
         "candidates": np.array([[2, 3, 0]]), "q": np.array([[3.0, 4.0, 5.0]])},
    ]
    monkeypatch.setattr(ri, "labelled_play", lambda rules, tables, seconds, seed: iter(batches))
    monkeypatch.setattr(ri, "model_inputs", lambda model, obs, mask, rules: obs * 10)
    got = ri.collect(None, "beijing", 1.0, 4, 0)
    assert got["mask"].dtype == bool and got["mask"].tolist() == (np.concatenate([m1, m2]) != 0).tolist()
    assert got["obs"].tolist() == [[0.0] * 3, [0.0] * 3, [10.0] * 3]
    assert got["cand"].tolist() == [[0, 2, -1], [1, 3, -1], [2, 3, 0]]
    assert np.array_equal(got["q"], np.array([[0.5, -0.5, np.nan], [1.0, 2.0, np.nan], [3.0, 4.0, 5.0]]),
                          equal_nan=True)
    monkeypatch.setattr(ri, "labelled_play", lambda rules, tables, seconds, seed: iter(batches[1:2]))
    with pytest.raises(SystemExit, match="no position with a choice was labelled"):
        ri.collect(None, "beijing", 1.0, 4, 0)


def test_rollout_improvement_counts_action_0_as_a_candidate(monkeypatch, capsys):
    """The training data marks every candidate as valid, action 0 (a discard of the first kind) included, and only
    the padding (-1) as none; padded Q reads 0 (the labelled play replaced, stopped at the first held-out gain)."""
    torch = pytest.importorskip("torch")
    from example_modules import load_example

    ri = load_example("rollout_improvement")
    raw = {"obs": np.zeros((20, 5), np.float32), "mask": np.ones((20, 5), bool),
           "cand": np.tile([[0, 3, -1], [2, 0, 4]], (10, 1)), "q": np.tile([[1.0, 2.0, np.nan], [0.5, 1.5, 2.5]], (10, 1))}
    seen = {}

    class Stop(Exception):
        pass

    def gain(model, data, idx):
        seen.update(data=data, hold=idx)
        raise Stop

    monkeypatch.setattr(ri, "load_checkpoint", lambda path: (torch.nn.Linear(5, 5), {}))
    monkeypatch.setattr(ri, "collect", lambda *a: raw)
    monkeypatch.setattr(ri, "held_out_gain", gain)
    with pytest.raises(Stop):
        ri.main(["--checkpoint", "x", "--seed", "3"])
    data = seen["data"]
    assert data["valid"].tolist() == (raw["cand"] >= 0).tolist()
    assert data["cand"].tolist() == np.maximum(raw["cand"], 0).tolist()
    assert data["q"][0].tolist() == [1.0, 2.0, 0.0]
    assert sorted(seen["hold"].tolist()) == sorted(np.random.default_rng(3).permutation(20)[:2].tolist())
    assert "20 positions labelled, 50 rollouts" in capsys.readouterr().out
