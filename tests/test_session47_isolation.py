"""Tests that leave process-wide state behind for the tests after them in the same process (pytest -n 2 puts
different tests together from run to run), found by running the suite's tests in other orders and comparing
that state before and after each test (helper BL's isolation audit)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_AFTER = """
import sys, pytest, torch
torch.set_num_threads(2)
code = pytest.main(["-q", "-p", "no:xdist", "-p", "no:cacheprovider", sys.argv[1]])
print("threads after:", torch.get_num_threads())
sys.exit(int(code))
"""


@pytest.mark.parametrize("nodeid", [
    "tests/test_bc.py::test_cloning_plays_its_steps_and_hands_ppo_its_rate_and_no_chains",
])
def test_a_test_running_train_with_threads_1_puts_torchs_thread_count_back(nodeid):
    """train.seed_everything sets torch's thread count (--threads 1); a test without conftest.py's ``threads``
    fixture left the rest of its process on one thread."""
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, "-c", _AFTER, nodeid], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "threads after: 2"
