"""Machine-readable outputs parse with a strict JSON parser (jq, JavaScript's JSON.parse, pandas' and other
languages' readers refuse ``NaN`` and ``Infinity``), and progress.csv leaves a figure it cannot give empty
(audit BA; docs/INTERFACES.md for the outputs)."""
from __future__ import annotations

import json
import math


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
