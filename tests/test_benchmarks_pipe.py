"""Every benchmark piped into a reader that left (``| head -1``, ``| true``) finishes its work and writes its
JSON (where it has one), with no BrokenPipeError traceback."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"

SMALLEST = {
    "throughput.py": ["--seconds", "0.1", "--warmup", "0.05", "--batch-sizes", "1", "--impls", "vector",
                      "--no-peers", "--no-progress"],
    "fast_paths.py": ["--rules", "beijing", "--seconds", "0.05", "--repeat", "1"],
    "features_cost.py": ["--rules", "beijing", "--batch", "8", "--steps", "2"],
    "profile_step.py": ["--batch", "8", "--steps", "3", "--warmup-steps", "1", "--interval-ms", "1", "--top", "3"],
    "win_checks.py": ["--seconds", "0.05", "--batch-sizes", "1", "--reference-hands", "20"],
    "search.py": ["--seconds", "0.05", "--batch-sizes", "8", "--tables", "2"],
}


@pytest.mark.parametrize("script", sorted(SMALLEST))
def test_a_benchmark_whose_reader_left_finishes_and_writes_its_json(script, tmp_path):
    pytest.importorskip("tqdm")  # the train extra: skipped in a core-only install
    out = tmp_path / "out.json"
    json_flag = [] if script == "features_cost.py" else ["--json", str(out)]  # it prints its table only
    with subprocess.Popen([sys.executable, str(BENCH / script), *SMALLEST[script], *json_flag],
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        proc.stdout.close()  # the reader is gone before the first line
        err = proc.stderr.read()
        assert proc.wait(timeout=300) == 0, err[-2000:]
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert not json_flag or json.loads(out.read_text())
