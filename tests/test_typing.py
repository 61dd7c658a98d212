"""``mypy mj_env agents`` reports no error: both packages ship ``py.typed`` (PEP 561), so a user's mypy reads
their annotations, and an annotation that lies gives the user a false error or hides a real one.

mypy 2.4.1 had found 110 errors in 23 files (79 in mj_env, 31 in agents): annotations narrower than what a
function takes or returns (``actions.name`` took NumPy integers, ``best_patterns`` returns a reason exactly when
it finds no patterns, ``MahjongSB3VecEnv.seed`` returns SB3's ``Sequence[int | None]``), names reused for values of
another type, optionals the checker could not see set, and libraries without stubs (pyproject.toml's
``[tool.mypy]`` names them). One was a real bug, tested below: a reward wrapper over an env whose planes
space has no shape failed with ``len(None)``. mypy is a ``dev`` extra; the test is skipped where it is missing.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from test_reward_wrappers import _PlanesEnv

from agents.rewards import RewardOption

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_typed_packages(mypy_cache_dir):
    """mypy with pyproject.toml's settings over both packages (about 20 s with a cold cache; the cache is
    conftest.py's ``mypy_cache_dir``, shared with tests/test_typing_scripts.py)."""
    pytest.importorskip("mypy")
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(mypy_cache_dir), "mj_env", "agents"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0 and "Success: no issues found" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("space", [gym.spaces.Text(5), gym.spaces.Sequence(gym.spaces.Discrete(2))],
                         ids=["Text", "Sequence"])
def test_a_reward_wrapper_refuses_planes_without_a_shape_by_name(space):
    """A Gymnasium space may have no shape (``Text``, ``Sequence``, ``Graph``: ``shape`` None); the check of the
    planes' shape took ``len`` of it and failed with ``TypeError: object of type 'NoneType' has no len()``
    instead of the ValueError that names what the wrapper needs (mypy: ``len`` of ``tuple[int, ...] | None``)."""
    env = _PlanesEnv((14, 34))
    env.observation_space = gym.spaces.Dict({"observation": space})
    with pytest.raises(ValueError, match="RewardOption needs the Dict observation of mj_env's single-agent env"):
        RewardOption(env)
