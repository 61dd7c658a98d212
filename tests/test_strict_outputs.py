"""Machine-readable outputs parse with a strict JSON parser (jq, JavaScript's JSON.parse, pandas' and other
languages' readers refuse ``NaN`` and ``Infinity``), and progress.csv leaves a figure it cannot give empty
(audit BA; docs/INTERFACES.md for the outputs)."""
from __future__ import annotations

import json
import math

import pytest


def _refuse(constant: str):
    raise ValueError(f"{constant} is not JSON")


def strict_load(path):
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse)


def test_throughput_json_is_strict_where_peak_rss_is_unknown(monkeypatch, tmp_path, capsys):
    """Windows has neither /proc nor ``resource``, so benchmarks/throughput.py's peak RSS is NaN there
    (``_maxrss_mb``): ``--json`` wrote ``"peak_rss_mb": NaN``, which a strict parser refuses. Now null."""
    import throughput

    real = throughput.measure

    def measure(spec, timeout, on_progress):  # the child as on Windows: its peak RSS unknown
        res = real(spec, timeout, on_progress)
        res["peak_rss_mb"] = math.nan
        return res

    monkeypatch.setattr(throughput, "measure", measure)
    monkeypatch.setattr(throughput, "_maxrss_mb", lambda: math.nan)
    out = tmp_path / "t.json"
    code = throughput.main(["--seconds", "0.001", "--warmup", "0", "--batch-sizes", "1", "--impls", "vector",
                            "--json", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr()
    data = strict_load(out)
    assert data["parent_peak_rss_mb"] is None
    assert data["results"][0]["peak_rss_mb"] is None
    assert data["results"][0]["steps_per_sec"] > 0


def test_progress_csv_leaves_a_loss_figure_that_is_not_finite_empty(tmp_path, monkeypatch):
    """train.py's ppo_update gives explained_variance NaN where the returns do not vary (one trainable
    decision, or none), and approx_kl is inf where a ratio overflowed: progress.csv had ``nan`` and ``inf``
    cells where every other unknown figure is an empty cell (``progress_row``: "unknown and left empty").
    Now empty, so that every cell of a row is a finite number or empty, and TensorBoard gets none of them."""
    import csv

    pytest.importorskip("torch")
    from test_networks_run_mutants import _run_args

    import train
    from agents import training_run

    monkeypatch.chdir(tmp_path)
    losses = {"samples": 1, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
              "approx_kl": math.inf, "clipfrac": 0.0, "explained_variance": math.nan}
    stats = {"hands": 4, "drawn": 1, "self_hands": 8, "self_wins": 2, "self_fan": 6.0, "pool_hands": 4,
             "pool_points": -2.0, "pool_wins": 1, "pool_deal_ins": 1}
    row = train.progress_row(1, 512, 10.0, 3e-4, losses, stats, 1, 1.0, {})
    log = training_run.RunLog(_run_args("strict"), 1)
    written = []
    monkeypatch.setattr(log.writer, "add_scalar", lambda tag, value, step: written.append((tag, value, step)))
    try:
        log.update(row, 512, False, {})
    finally:
        log.release()
    with (tmp_path / "runs" / "strict" / "progress.csv").open(newline="", encoding="utf-8") as f:
        (cells,) = list(csv.DictReader(f))
    assert cells["explained_variance"] == "" and cells["approx_kl"] == "", cells
    assert all(v == "" or math.isfinite(float(v)) for v in cells.values()), cells
    assert float(cells["value_loss"]) == 1.0
    tags = {tag for tag, _, _ in written}
    assert "losses/value_loss" in tags and "losses/approx_kl" not in tags and "losses/explained_variance" not in tags


def test_arena_record_is_one_line_per_hand_for_every_line_splitter(tmp_path):
    """agents.arena --record is JSON Lines, one hand record per line; with ``ensure_ascii=False`` a player's name
    holding U+2028, U+2029 or U+0085 (a checkpoint path may) was written raw, and Python's str.splitlines (and
    other splitters) cut the record there. Now written as \\u escapes, as ``python -m mj_env.score`` writes them;
    the names read back the same."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("torch")  # (the checkpoint player)
    root = Path(__file__).resolve().parents[1]
    name = "x\u2028y\u2029z\x85.pt"
    (tmp_path / name).write_bytes((root / "agents" / "data" / "pretrained_beijing.pt").read_bytes())
    out = tmp_path / "r.jsonl"
    run = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"random,{tmp_path / name}",
                          "--hands", "1", "--batch", "1", "--record", str(out), "--quiet"],
                         cwd=root, capture_output=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) == 2 == text.count("\n"), len(lines)
    records = [json.loads(line, parse_constant=_refuse) for line in lines]
    assert str(tmp_path / name) in records[0]["players"]
