"""Audit of the benchmarks' counting and bookkeeping (2026-12-05): what a decision is in each loop, that one-off
costs are paid before any timed play, that every script records the commit and which measured files were
edited, and that a bad internal argument is one line, not a traceback. Nothing is timed here: counts, call
orders and fake clocks only."""
from __future__ import annotations

import json
import subprocess
import sys
from types import ModuleType, SimpleNamespace

import _common
import _peers
import fast_paths
import features_cost
import numpy as np
import pytest
import throughput
import win_checks

import mj_env
from mj_env import tables


# ----------------------------------------------------------------------------- what a decision is
@pytest.mark.parametrize("make", [_peers.make_vector, _peers.make_engine], ids=["vector", "engine"])
def test_batched_loops_count_one_decision_per_row_that_has_a_legal_action(make):
    """The count a batched row reports is the rows whose mask (the one the sampler reads) holds a legal
    action, step by step: no ended table, no row without a choice is counted, and none is missed. Forced
    decisions (one legal action) are rare, so no count is padded with non-choices."""
    step, info = make(8, "beijing", 5)
    counted = legal_rows = forced = hands = 0
    for _ in range(150):
        mask = np.asarray(info["last_mask"]()).astype(bool)
        legal_rows += int(mask.any(1).sum())
        forced += int((mask.sum(1) == 1).sum())
        d, h, _ = step()
        counted += d
        hands += h
    assert counted == legal_rows == 8 * 150
    assert hands >= 8 and forced <= 0.01 * counted


def test_aec_loop_counts_each_step_with_an_action_and_no_step_of_a_finished_agent(monkeypatch):
    """``aec``: one decision per ``env.step(action)``; the ``None`` steps of terminated agents and the reset
    are timed but not counted; one hand per reset."""
    calls = {"action": 0, "none": 0}
    real = mj_env.env

    class Counting:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def step(self, action):
            calls["none" if action is None else "action"] += 1
            return self._inner.step(action)

    monkeypatch.setattr(mj_env, "env", lambda **kw: Counting(real(**kw)))
    step, _ = _peers.make_aec(1, "beijing", 2)
    decisions = hands = 0
    while hands < 3:
        d, h, _ = step()
        decisions += d
        hands += h
    assert decisions == calls["action"] and calls["none"] == 4 * 3


def test_rlcard_loop_counts_one_decision_per_step_and_one_hand_per_game(monkeypatch):
    """``rlcard`` (a fake module): every ``env.step(action)`` is one decision, the step that ends the game too;
    the pick comes from the state's legal actions."""
    picked = []

    class Env:
        def __init__(self):
            self.n = 0

        def reset(self):
            self.n = 0
            return {"legal_actions": {7: None, 9: None}}, 0

        def step(self, action):
            picked.append(action)
            self.n += 1
            return {"legal_actions": {7: None, 9: None}}, 0

        def is_over(self):
            return self.n == 3

    fake = ModuleType("rlcard")
    fake.make = lambda name, config: Env()
    monkeypatch.setitem(sys.modules, "rlcard", fake)
    step, info = _peers.make_rlcard(1, "beijing", 0)
    out = [step()[:2] for _ in range(6)]
    assert out == [(1, 0), (1, 0), (1, 1)] * 2 and set(picked) <= {7, 9}
    assert "one per env.step" in info["decision"]


def test_every_loop_reports_decisions_hands_and_sampler_time_in_that_order():
    """The step functions all return (decisions, hands, sampler seconds): the same unit in every row of the
    table, whatever the implementation."""
    for make in (_peers.make_vector, _peers.make_engine, _peers.make_aec, throughput.make_single_rule):
        step, info = make(2, "beijing", 0)
        d, h, ts = step()
        assert isinstance(d, int) and isinstance(h, int) and 0 <= d <= 2 and h >= 0 and ts >= 0
        assert info["decision"]


# ----------------------------------------------------------------------------- one-off costs before timing
def test_fast_paths_warms_up_every_rule_set_before_the_first_timed_variant(monkeypatch, tmp_path):
    """A hand table read at its first use (about 0.1 s) was charged to round 1's first variant, "all fast
    paths", the baseline of every ratio: warm_up now runs for every rule set before any aec_rate."""
    order = []
    monkeypatch.setattr(fast_paths, "warm_up", lambda rules: order.append(("warm", rules)))
    monkeypatch.setattr(fast_paths, "aec_rate", lambda rules, seconds, seed: order.append(("timed", rules)) or 1.0)
    fast_paths.main(["--rules", "beijing,hebei", "--seconds", "0.1", "--repeat", "1",
                     "--json", str(tmp_path / "f.json")])
    assert order[:2] == [("warm", "beijing"), ("warm", "hebei")]
    assert all(kind == "timed" for kind, _ in order[2:]) and len(order) == 2 + 2 * len(fast_paths.VARIANTS)
    assert (tmp_path / "f.json").read_text().endswith("\n")


def test_fast_paths_warm_up_reads_the_tables_plays_both_forms_and_switches_back(monkeypatch):
    seen, real = [], fast_paths.switched_off
    monkeypatch.setattr(fast_paths, "read_hand_tables", lambda: seen.append("tables"))

    def spy(paths):
        seen.append(paths)
        return real(paths)

    monkeypatch.setattr(fast_paths, "switched_off", spy)
    before = (fast_paths.legal.claim_options, fast_paths.hand._SMALL)
    fast_paths.warm_up("beijing", decisions=20)
    assert seen == ["tables", (), fast_paths.PATHS]
    assert (fast_paths.legal.claim_options, fast_paths.hand._SMALL) == before


def test_features_cost_reads_the_hand_tables_before_the_first_row(monkeypatch, capsys):
    order = []
    monkeypatch.setattr(features_cost, "read_hand_tables", lambda: order.append("tables"))
    monkeypatch.setattr(features_cost, "measure", lambda rules, batch, steps: order.append("row") or {
        "rules": rules, "batch": batch, "features_ms": 1.0, "rule_agent_ms": 1.0, "features_per_s": 1.0,
        "hands_per_batch": 1.0})
    features_cost.main(["--rules", "beijing", "--batch", "4,8", "--steps", "1"])
    assert order == ["tables", "row", "row"]
    out = capsys.readouterr().out
    assert "machine: " in out and "numpy" in out and "code: commit " in out and "BLAS threads not pinned" in out


def test_throughput_makes_the_hand_table_cache_before_any_row_of_ours(monkeypatch, tmp_path):
    """On a fresh checkout the first row's child built the cache: not timed, but its peak RSS (379-383 MB
    against 112 MB). The parent now makes sure the cache exists first, in a process of its own."""
    pytest.importorskip("tqdm")  # the train extra: skipped in a core-only install
    order = []
    monkeypatch.setattr(throughput, "make_table_cache", lambda: order.append("cache"))

    def measure(spec, timeout, on_progress):
        order.append(spec["impl"])
        return {"impl": spec["impl"], "batch": spec["batch"], "error": "not measured in a test", "log": []}

    monkeypatch.setattr(throughput, "measure", measure)
    throughput.main(["--seconds", "0.1", "--impls", "engine", "--batch-sizes", "2", "--no-progress",
                     "--json", str(tmp_path / "t.json")])
    assert order == ["cache", "engine"]
    assert json.loads((tmp_path / "t.json").read_text())["parent_peak_rss_mb"] > 0


def test_throughput_builds_the_cache_in_a_process_of_its_own(monkeypatch):
    """A child's ru_maxrss starts at its parent's peak (Linux keeps the high-water mark across exec): built in
    the parent, the tables' few hundred MB would show in every row's peak RSS."""
    ran = []
    monkeypatch.setattr(throughput.subprocess, "run",
                        lambda cmd, **kw: ran.append((cmd, kw)) or subprocess.CompletedProcess(cmd, 0, "", ""))
    loads = []
    monkeypatch.setattr(tables, "load", lambda **kw: loads.append(kw))
    throughput.make_table_cache()
    [(cmd, kw)] = ran
    assert cmd == [sys.executable, "-m", "mj_env.tables"] and kw["env"]["OMP_NUM_THREADS"] == "1"
    assert loads == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM and the carried-over ru_maxrss: Linux")
def test_a_rows_peak_rss_is_its_own_not_its_parents():
    """A child's ru_maxrss starts at its parent's peak (Linux keeps the high-water mark across exec): the
    stored run's rows all read at least the parent's 33 MB. _maxrss_mb reads VmHWM, the child's own."""
    from pathlib import Path

    bench = str(Path(throughput.__file__).parent)
    child = (f"import resource, sys; sys.path.insert(0, {bench!r}); import throughput; "
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, int(throughput._maxrss_mb()))")
    code = ("import subprocess, sys\n"
            "x = bytearray(300 * 2**20)\n"
            "x[::4096] = b'1' * len(x[::4096])\n"
            f"print(subprocess.run([sys.executable, '-c', {child!r}], capture_output=True, text=True).stdout)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    inherited, own = map(int, out.split())
    assert inherited > 250 and own < 200          # MB: the parent's 300 MB, against the child's own


def test_throughput_child_refuses_an_unknown_implementation_in_one_line():
    spec = {"impl": "bogus", "batch": 1, "seconds": 1, "warmup": 0, "rules": "beijing", "seed": 0}
    with pytest.raises(SystemExit) as e:
        throughput.main(["--child", json.dumps(spec)])
    assert "unknown implementation 'bogus'" in str(e.value) and "--child is internal" in str(e.value)


# ----------------------------------------------------------------------------- what a result records
def _repo(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

    for d in ("mj_env", "benchmarks", "docs"):
        (tmp_path / d).mkdir()
    for name in ("mj_env/a.py", "benchmarks/loop.py", "benchmarks/results.json", "docs/x.md", "README.md"):
        (tmp_path / name).write_text("x\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "c")
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_code_version_names_edited_benchmark_code_but_not_results_or_docs(tmp_path):
    head = _repo(tmp_path)
    clean = _common.code_version(tmp_path)
    assert clean == {"commit": head, "mj_env_uncommitted_changes": [], "benchmarks_uncommitted_changes": []}
    assert _common.code_line(clean) == f"code: commit {head[:10]}"
    for name in ("benchmarks/loop.py", "benchmarks/results.json", "docs/x.md", "README.md"):
        (tmp_path / name).write_text("y\n")
    (tmp_path / "benchmarks" / "new.py").write_text("")
    code = _common.code_version(tmp_path)
    assert code["mj_env_uncommitted_changes"] == []
    assert code["benchmarks_uncommitted_changes"] == ["benchmarks/loop.py", "benchmarks/new.py"]
    assert _common.code_line(code) == (f"code: commit {head[:10]} with uncommitted changes in "
                                       "benchmarks/loop.py, benchmarks/new.py")
    (tmp_path / "mj_env" / "a.py").write_text("y\n")
    assert _common.code_line(_common.code_version(tmp_path)).endswith(
        "in mj_env/a.py, benchmarks/loop.py, benchmarks/new.py")


def test_code_line_of_a_tree_without_git_and_of_an_old_result():
    assert _common.code_line({"commit": None, "mj_env_uncommitted_changes": []}) == "code: commit ?"
    # results.json of 25038b3 has no benchmarks_uncommitted_changes key
    assert _common.code_line({"commit": "25038b300817", "mj_env_uncommitted_changes": ["mj_env/x.py"]}) == (
        "code: commit 25038b3008 with uncommitted changes in mj_env/x.py")


def test_win_checks_json_records_the_commit_and_the_date(tmp_path, capsys):
    args = win_checks._parse_args(["--seconds", "0.001", "--batch-sizes", "2", "--checks", "is_win",
                                   "--no-reference", "--json", str(tmp_path / "w.json")])
    assert win_checks.main(args) == 0
    data = json.loads((tmp_path / "w.json").read_text())
    assert set(data["code"]) == {"commit", "mj_env_uncommitted_changes", "benchmarks_uncommitted_changes"}
    assert data["machine"]["date"][:2] == "20" and {"python", "numpy", "cpu"} <= set(data["machine"])
    assert "code: commit " in capsys.readouterr().out


def test_stored_results_carry_machine_commit_settings_and_consistent_statistics():
    """benchmarks/results.json as throughput.py writes it: the machine, the commit, the settings, and per row
    the best of its rounds with the median of the same rounds (the README's Speed table quotes both)."""
    from pathlib import Path

    data = json.loads((Path(throughput.__file__).parent / "results.json").read_text())
    assert {"cpu", "cores", "python", "numpy", "date", "load_average"} <= set(data["machine"])
    assert len(data["code"]["commit"]) == 40 and data["code"]["mj_env_uncommitted_changes"] == []
    assert data["settings"]["repeat"] >= 1 and data["settings"]["batch_sizes"]
    for r in data["results"]:
        rounds = [x for x in r.get("all_steps_per_sec", [r["steps_per_sec"]]) if x is not None]
        assert r["steps_per_sec"] == pytest.approx(max(rounds))
        assert r["steps_per_sec"] == pytest.approx(r["decisions"] / r["seconds"])
        if "median_steps_per_sec" in r:
            assert r["median_steps_per_sec"] == pytest.approx(float(np.median(rounds)))
        assert r["batch"] >= 1 and r["decision"]


def test_machine_info_names_versions():
    info = _common.machine_info()
    assert info["python"] == sys.version.split()[0] and info["numpy"] == np.__version__
    assert SimpleNamespace(**info).cpu


def test_a_measured_child_does_not_import_mj_env_for_a_peer():
    """Each child loads only what it measures (benchmarks/_peers.py): the pipe guard's ``mj_env.lines`` import
    (mj_env, gymnasium, pettingzoo: 10 MB) is the parent's alone, else a peer's row carried our imports."""
    from pathlib import Path

    script = str(Path(throughput.__file__))
    spec = json.dumps({"impl": "bogus", "batch": 1, "seconds": 1, "warmup": 0, "rules": "beijing", "seed": 0})
    code = ("import runpy, sys\n"
            f"sys.argv = [{script!r}, '--child', {spec!r}]\n"
            "try:\n"
            f"    runpy.run_path({script!r}, run_name='__main__')\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mj_env', 'gymnasium', 'pettingzoo')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
