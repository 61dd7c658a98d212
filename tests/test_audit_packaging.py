"""The package as ``pip install`` gives it, not as a checkout: its metadata and what it does from
site-packages (found by the packaging audit)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]


def _requirement(name: str) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (req,) = [r for r in map(Requirement, project["dependencies"]) if r.name == name]
    return req


def test_the_numpy_floor_has_generator_spawn():
    """``Engine.clone`` (and so ``agents.search`` and the determinizer) calls ``Generator.spawn``, new in
    NumPy 1.25: under the old floor ``numpy>=1.24`` an install with 1.24.4 played, but every clone failed
    with AttributeError (18 tests of test_engine, test_search and test_common_random)."""
    assert hasattr(np.random.default_rng(0), "spawn")
    spec = _requirement("numpy").specifier
    assert not spec.contains("1.24.4") and spec.contains("1.25.0") and spec.contains("2.4.0")
