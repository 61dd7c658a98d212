"""``mypy train.py benchmarks examples`` reports no error: the scripts a user runs directly, checked as
``tests/test_typing.py`` checks the packages.

mypy 2.4.1 had found 50 errors in 10 files there, none a bug at run time: annotations narrower than what a function
is given (``Rollout``'s observation shape, the networks ``train.py``'s rollout and update take, which shared
``PolicyValueNet.get_action_and_value`` with ``TileNet`` under a ``self`` of the first only), containers and
optionals the checker could not infer (``Popen``'s piped stdout, the main thread's ident), a name reused for another
type, a monkeypatching benchmark's method assignments (ignores with their code), and libraries without type
information or not installed (torchrl, tensordict, rlcard, riichienv: pyproject.toml's ``[tool.mypy]``, which
also puts ``tests`` on mypy's path for ``benchmarks/win_checks.py``'s ``import ref_hand``). mypy is a ``dev``
extra; the test is skipped where it is missing.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_scripts(mypy_cache_dir):
    """mypy with pyproject.toml's settings over train.py, benchmarks/ and examples/ (about 20 s with a cold
    cache)."""
    pytest.importorskip("mypy")
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(mypy_cache_dir),
               "train.py", "benchmarks", "examples"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0 and "Success: no issues found" in run.stdout, run.stdout + run.stderr
