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
