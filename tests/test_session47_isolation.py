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
torch.set_num_threads(3)
code = pytest.main(["-q", "-p", "no:xdist", "-p", "no:cacheprovider", sys.argv[1]])
print("threads after:", torch.get_num_threads())
sys.exit(int(code))
"""


@pytest.mark.parametrize("path, name", [
    ("tests/test_bc.py", "test_cloning_plays_its_steps_and_hands_ppo_its_rate_and_no_chains"),
    # no threads fixture: ppo_update's torch.set_num_threads(--threads) stayed
    ("tests/test_train_internals_more_mutants.py",
     "test_a_ratio_exactly_at_the_clip_bound_is_not_counted_as_clipped"),
    # the threads fixture's own set_num_threads, made before monkeypatch's undo, went to the test's spy
    ("tests/test_train_internals_mutants.py",
     "test_cloning_trains_and_logs_only_rollouts_with_decisions_whose_outcome_is_known"),
])
def test_a_test_calling_train_puts_torchs_thread_count_back(path, name):
    """train.py's seed_everything, rollouts and updates set torch's thread count; tests calling them left the
    rest of their process on the count they asked for (tests/conftest.py's ``_torch_threads_put_back``)."""
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, "-c", _AFTER, f"{path}::{name}"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "threads after: 3"


def test_the_pretrained_tests_pass_in_either_order():
    """test_pretrained.py's tests took hebei out of agents.pretrained.PLAYERS with monkeypatch.delitem, whose
    undo put it back last: run after one of them (reversed order, or twice in one process), the check that
    available() is ('beijing', 'hebei', 'quemen') failed with ('beijing', 'quemen', 'hebei')."""
    pytest.importorskip("torch")
    later = "tests/test_pretrained.py::test_bad_pretrained_shares_are_usage_errors"
    first = "tests/test_pretrained.py::test_unknown_rule_sets_and_names_are_clear_errors"
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                          later, first], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stdout[-3000:]
    assert "4 passed" in out.stdout
