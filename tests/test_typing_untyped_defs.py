"""mypy checks the bodies of functions without annotations too (pyproject.toml's ``check_untyped_defs``, for every
module), so that tests/test_typing.py's ``mypy mj_env agents`` and tests/test_typing_scripts.py's ``mypy train.py
benchmarks examples`` cover them; mypy's default skips such bodies.

Turning it on found 18 errors in mj_env, none of them a wrong result: values mypy could not see set (the AEC
env's dealt hand, now returned by the check that a hand is dealt; the seats read for a vector env's hand log;
a search's cached worlds; the single-agent env's saved generator), attributes and dicts it could not type
(PettingZoo's wrapper flags, the AEC env's action spaces and infos), loop names reused for another type, and
``HandLog.record``'s ``table: int`` for the NumPy integers the vector env passes it (checked below). In agents it
found one: the arena's record writer reading a file that mypy saw as possibly None.
"""
from __future__ import annotations

import subprocess
import sys
import typing

import numpy as np
import pytest
from test_typing_persona import admits

from mj_env.records import HandLog

UNTYPED_BODY = 'def f():\n    return 1 + "a"\n'  # an error only where mypy checks untyped bodies


@pytest.mark.parametrize("name", ["mj_env", "agents"])
def test_mypy_checks_the_untyped_bodies_of_the_packages_modules(name, tmp_path):
    """A package named mj_env or agents (a module and a submodule, each with an error inside a function without
    annotations), checked with the project's pyproject.toml: both errors are reported. Without the override
    mypy says "Success" (checked by removing it)."""
    pytest.importorskip("mypy")
    from test_typing import ROOT

    package = tmp_path / "src" / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(UNTYPED_BODY)
    (package / "sub.py").write_text(UNTYPED_BODY)
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(tmp_path / "mypy_cache"), name]
    run = subprocess.run(command, cwd=tmp_path / "src", capture_output=True, text=True, timeout=300, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    for path in (f"{name}/__init__.py:2", f"{name}/sub.py:2"):
        assert f"{path}: error: Unsupported operand types" in out, out


def test_a_hand_log_record_takes_the_numpy_integers_the_vector_env_passes():
    """``MahjongVectorEnv.step`` records each ended table by an index from ``np.flatnonzero`` (a NumPy integer),
    which ``HandLog.record`` uses as an index: its annotation said ``int``."""
    hint = typing.get_type_hints(HandLog.record)["table"]
    assert admits(hint, np.flatnonzero([True])[0]) and admits(hint, 0)


def test_mypy_checks_the_untyped_bodies_of_the_scripts(tmp_path):
    """A script at the root and one in a folder (as train.py and benchmarks/, examples/ are), each with an error
    inside a function without annotations, checked with the project's pyproject.toml: both errors are reported.
    Checking the scripts' bodies found 14 errors (a list of Tianshou algorithms typed by its first item, its test
    statistics read without their None case, two containers mypy could not infer, NumPy's ``any`` typed as
    possibly a scalar), none a wrong result. Without the setting mypy says "Success" (checked by removing it)."""
    pytest.importorskip("mypy")
    from test_typing import ROOT

    (tmp_path / "folder").mkdir()
    (tmp_path / "script.py").write_text(UNTYPED_BODY)
    (tmp_path / "folder" / "tool.py").write_text(UNTYPED_BODY)
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(tmp_path / "mypy_cache"), "script.py", "folder"]
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    for path in ("script.py:2", "folder/tool.py:2"):
        assert f"{path}: error: Unsupported operand types" in out, out
