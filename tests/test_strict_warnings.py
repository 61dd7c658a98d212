"""The project under the warning filters careful users run (``python -X dev``, ``-W error``,
``-W error::ResourceWarning``, ``-W error::RuntimeWarning``): a warning raised by the project's own code (an
unclosed file, a NumPy divide/invalid warning on some input, a deprecated call) is a fault. Each test here sets
its filter itself and fails without its fix; the audit's table of commands and warnings is in its commit messages."""
from __future__ import annotations

import gc
import sys
import warnings

import pytest


def _resource_warnings(fn, *args, **kwargs):
    """Call ``fn``; the messages of the ResourceWarnings raised by it or by the garbage it left (a warning in a
    finalizer is recorded here, where ``simplefilter("error")`` would only print 'Exception ignored')."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        out = fn(*args, **kwargs)
        gc.collect()
    return out, [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)]


def test_throughput_measure_closes_its_childs_pipe(monkeypatch):
    """benchmarks/throughput.py's measure() read each row's child through a pipe it never closed:
    ``python -X dev benchmarks/throughput.py`` printed 'ResourceWarning: unclosed file <_io.TextIOWrapper
    name=3>' once per row (and an error for each under ``-W error::ResourceWarning``)."""
    import throughput

    spec = {"impl": "vector", "batch": 8}
    script = f"print('{throughput.MARK}result {{\"impl\": \"vector\", \"steps_per_sec\": 1.0}}')"
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", script])
    r, seen = _resource_warnings(throughput.measure, spec, timeout=60, on_progress=print)
    assert r == {"impl": "vector", "steps_per_sec": 1.0} and seen == []
    # a child that failed (an error row) and one killed at the timeout close theirs too
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", "raise SystemExit(3)"])
    r, seen = _resource_warnings(throughput.measure, spec, timeout=60, on_progress=print)
    assert r["error"] == "exit status 3" and seen == []
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", "import time; time.sleep(10)"])
    r, seen = _resource_warnings(throughput.measure, spec, timeout=0.5, on_progress=print)
    assert r["error"].startswith("killed") and seen == []


def test_throughput_measure_leaves_no_child_running_when_its_reading_fails(monkeypatch):
    """An exception while reading the child's lines (a result line that is not JSON, Ctrl-C) left the child
    running and its pipe open: 'ResourceWarning: subprocess N is still running' and an unclosed file."""
    import throughput

    spec = {"impl": "vector", "batch": 8}
    script = f"import time; print('{throughput.MARK}result not-json', flush=True); time.sleep(30)"
    monkeypatch.setattr(throughput, "_child_cmd", lambda s: [sys.executable, "-c", script])

    def failing():
        with pytest.raises(ValueError):
            throughput.measure(spec, timeout=60, on_progress=print)

    _, seen = _resource_warnings(failing)
    assert seen == []


def test_mean_ci95_of_no_values_is_an_error_not_a_numpy_warning():
    """``agents.arena_report.mean_ci95`` of an empty batch of values gave (nan, -inf, inf) with NumPy's
    'RuntimeWarning: Mean of empty slice' (an exception under ``-W error::RuntimeWarning``): there is no mean
    to give. It says so in a ValueError, as it does for groups of the wrong shape; one value is still an interval
    that cannot be computed."""
    np = pytest.importorskip("numpy")
    from agents.arena_report import mean_ci95

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="at least one value"):
            mean_ci95(np.array([]))
        with pytest.raises(ValueError, match="at least one value"):
            mean_ci95([], groups=[])
        assert mean_ci95(np.array([2.0])) == (2.0, float("-inf"), float("inf"))


def test_reading_a_hand_table_file_cut_short_closes_it(tmp_path):
    """mj_env.tables.read of a cache file cut short (a zip without its directory) is None, as before, and leaves
    no file open: np.load had opened it and let it go before NumPy's zip reader failed ('ResourceWarning:
    unclosed file <_io.BufferedReader name=.../cut.npz>' under ``python -X dev -m pytest tests/test_hand.py``)."""
    import numpy as np

    from mj_env import tables

    good = tables.save({"need": np.zeros(3, dtype=np.uint8)}, tmp_path / "good.npz")
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    out, seen = _resource_warnings(tables.read, cut, names=())
    assert out is None and seen == []
    out, seen = _resource_warnings(tables.read, good, names=())  # a whole file: read, and closed too
    assert out == {} and seen == []
