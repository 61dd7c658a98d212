"""An audit of what benchmarks/throughput.py's figures stand for (2026-12-06). No speed is measured or asserted:
the measuring children are replaced by canned results, and only what the script records and warns about is
checked.

- A peer's figure, and every ratio to it, is that release's, and pyproject.toml asks only for rlcard>=1.2 and
  riichienv>=0.4: the run records the version of every library a row goes through (the peers, Gymnasium,
  PettingZoo), on stdout, in the JSON and with each peer's row. Before, no run said which release it measured.
- A row's decisions/s is checked against the games it played: a row in which no hand ended, or rows of our
  same game (vector, engine, aec: the one-table fast paths at batch 1, the batched code above) whose decisions
  per hand disagree, are warned about. Before, a loop or fast path that never ended a hand, or skipped
  decisions, reported its decisions/s without a word.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from importlib import metadata

import pytest
import throughput


def _row(impl, batch, dps=1000.0, hands=200, dec_per_hand=88.0, **kw):
    return {"impl": impl, "batch": batch, "steps_per_sec": dps, "games_per_sec": 1.0, "hands": hands,
            "decisions_per_hand": dec_per_hand if hands else None, "sampler_share": 0.1,
            "env_only_steps_per_sec": dps, "cpu_util": 1.0, "steps_per_cpu_sec": dps, "peak_rss_mb": 50.0, **kw}


def _warnings(results):
    lines, _ = throughput.summary(results, {}, state_4096=1000, cores=2)
    return [x for x in lines if x.startswith("warning")]


def test_throughput_records_the_version_of_every_library_a_row_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("tqdm")  # the train extra (throughput.main's progress bar)
    fake = {"rlcard": "1.2.0", "riichienv": "0.4.11", "gymnasium": "1.2.2", "pettingzoo": "1.25.0"}

    def version(name):
        if name in fake:
            return fake[name]
        raise metadata.PackageNotFoundError(name)

    real_spec = importlib.util.find_spec
    monkeypatch.setattr(metadata, "version", version)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name in ("rlcard", "riichienv") else real_spec(name, *a))
    monkeypatch.setattr(throughput, "measure", lambda spec, timeout, on_progress: _row(spec["impl"], spec["batch"]))
    monkeypatch.setattr(throughput, "state_bytes_for", lambda rules, batch: 1000)
    monkeypatch.setattr(throughput, "make_table_cache", lambda: None)
    out = tmp_path / "r.json"
    assert throughput.main(["--impls", "vector,aec,rlcard,riichienv,riichienv_encode", "--batch-sizes", "4096",
                            "--seconds", "0.1", "--no-progress", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "versions: gymnasium 1.2.2, pettingzoo 1.25.0, rlcard 1.2.0, riichienv 0.4.11" in text
    data = json.loads(out.read_text())
    assert data["versions"] == fake
    rows = {r["impl"]: r for r in data["results"]}
    assert rows["rlcard"]["version"] == "1.2.0"
    assert rows["riichienv"]["version"] == rows["riichienv_encode"]["version"] == "0.4.11"
    assert "version" not in rows["vector"]                            # ours: the commit says which code ran
    # a library that is not installed is named as such, not left out
    del fake["riichienv"]
    assert throughput.package_versions()["riichienv"] is None
    assert throughput.versions_line(throughput.package_versions()).endswith("riichienv not installed")


def test_a_row_in_which_no_hand_ended_is_warned_about():
    results = [_row("vector", 4096), _row("engine", 4096, hands=0), _row("rlcard", 1, hands=0)]
    (line,) = _warnings(results)
    assert "no hand finished" in line and "engine@4096" in line and "rlcard@1" in line
    assert "vector@4096" not in line
    assert _warnings(results[:1]) == []
    # a result without the count (an older child's) is not accused
    assert _warnings([{k: v for k, v in _row("vector", 1).items() if k != "hands"}]) == []


def test_rows_of_the_same_game_that_disagree_on_decisions_per_hand_are_warned_about():
    # a one-table fast path that skipped a third of the decisions: batch 1 against the batched code
    results = [_row("vector", 1, dec_per_hand=60.0), _row("vector", 4096), _row("aec", 1, dec_per_hand=88.5)]
    (line,) = _warnings(results)
    assert "decisions per hand disagree" in line and "vector@1 60.0" in line and "aec@1 88.5" in line
    # within the tolerance: the same game
    assert _warnings([_row("vector", 1, dec_per_hand=84.0), _row("engine", 4096, dec_per_hand=92.0)]) == []
    # too few hands to tell, or rows that count another unit (single_rule: the learner's) or play another game
    assert _warnings([_row("vector", 1, hands=99, dec_per_hand=60.0), _row("vector", 4096)]) == []
    assert _warnings([_row("single_rule", 64, dec_per_hand=10.2), _row("riichienv", 1, dec_per_hand=40.0),
                      _row("vector", 64)]) == []


def test_no_peers_help_says_it_only_drops_the_peers():
    """--no-peers leaves the peers out of --impls; its help named a fixed set of rows ("measure only mj_env
    (vector, engine, aec)") that --impls vector --no-peers does not measure."""
    args = throughput.parse_args(["--impls", "vector,rlcard", "--no-peers"])
    assert args.impl_list == ["vector"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
        throughput.parse_args(["--help"])
    help_text = " ".join(buf.getvalue().split())
    assert "--no-peers leave the peers out of --impls" in help_text
    assert "measure only mj_env (vector, engine, aec)" not in help_text
