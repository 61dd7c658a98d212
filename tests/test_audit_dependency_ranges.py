"""The floors pyproject.toml declares are releases the project works with (found by the dependency-ranges
audit: a fresh venv of every floor, Python 3.11, running the core test files, the README's commands and
PettingZoo's and Gymnasium's checkers; each floor below was found by installing the releases one by one)."""
from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (the declared floor) has no tomllib; pytest requires tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _requirement(name: str, extra: str | None = None) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    (req,) = [r for r in map(Requirement, listed) if r.name == name]
    return req


def test_the_pettingzoo_floor_has_the_wrappers_and_the_api_test_the_project_uses():
    """Under ``pettingzoo>=1.24`` an install with 1.24.0-1.24.2 kept: ``BaseWrapper.reset`` assigns
    ``self.infos``, so ``NumericInfos(mj_env.env()).reset()`` (the README's Tianshou adapter) raised
    "AttributeError: property 'infos' of 'NumericInfos' object has no setter", and the order-enforcing
    wrapper of ``mj_env.env()`` did not pass attributes such as ``env.rules`` through. With 1.24.3 those
    work, but its ``api_test`` reads ``observation_space(agent)["observation"]`` of every Dict space, so
    ``api_test(FlatObservations(mj_env.env()))`` (RLlib's ``"observations"`` key) failed with KeyError.
    1.24.4 is the first release under which all of tests/test_wrappers.py passes."""
    spec = _requirement("pettingzoo").specifier
    assert not spec.contains("1.24.3") and spec.contains("1.24.4") and spec.contains("1.27.0")


def test_the_ruff_floor_passes_the_projects_own_lint():
    """``.ci/run`` runs ``ruff check mj_env agents tests benchmarks examples train.py`` with ruff's default rules
    (pyproject.toml selects none). Ruff 0.16 changed those defaults: under the old floor ``ruff>=0.4`` a dev
    install that kept ruff 0.4.0 found 68 errors (E402 imports after ``pytest.importorskip``, E721, E731), 0.15.22
    33, 0.16.0 one (B008); 0.16.1 and later pass."""
    spec = _requirement("ruff", "dev").specifier
    assert not spec.contains("0.15.22") and not spec.contains("0.16.0")
    assert spec.contains("0.16.1") and spec.contains("0.17.6")


@pytest.mark.parametrize("name", ["stable-baselines3", "sb3-contrib"])
def test_the_sb3_floor_admits_the_gymnasium_floor(name):
    """Stable-Baselines3 2.4.0 and 2.5.0 (and their sb3-contrib) require ``gymnasium<1.1``, the core's
    ``gymnasium>=1.1`` excludes every release they admit: pip upgrades a kept 2.4 or 2.5 (or, forced with
    ``--no-deps``, ``pip check`` reports the conflict), so the extra's floor ``>=2.4`` was one no install could
    hold. 2.6.0 is the first whose metadata admits gymnasium 1.1; tests/test_sb3.py passes under it with
    gymnasium 1.1.0 and numpy 1.25.0."""
    spec = _requirement(name, "sb3").specifier
    assert not spec.contains("2.5.0") and spec.contains("2.6.0") and spec.contains("2.9.2")


def test_the_ray_floor_runs_the_rllib_example():
    """``ray[rllib]`` 2.40 to 2.48 pin ``gymnasium==1.0.0``, which the core's ``gymnasium>=1.1`` excludes, so no
    install held the old floor ``>=2.40``; 2.49 to 2.51 (gymnasium 1.1.1) install, but
    ``examples/rllib_ppo.py --smoke --single-agent`` failed there: RLlib's config check refused
    ``gym_env_vectorize_mode="vector_entry_point"`` (ValueError), and with the enum its env runner found no
    vector entry point. Under 2.52.0 the rllib tests of test_examples and test_examples_trainers pass."""
    spec = _requirement("ray", "examples").specifier
    assert not spec.contains("2.51.2") and spec.contains("2.52.0") and spec.contains("2.60.0")


def test_the_torchrl_floor_runs_the_torchrl_example():
    """``examples/torchrl_ppo.py`` imports ``torchrl.collectors.Collector`` (ImportError under torchrl 0.8.0 to
    0.10.x) and passes ``Collector(..., auto_register_policy_transforms=False)`` ("TypeError: Keys
    ['auto_register_policy_transforms'] are unknown to Collector" under 0.11.0 and 0.12.0); under torchrl 0.13.1
    with tensordict 0.13.0 the torchrl tests pass. The old floors were ``torchrl>=0.8`` and ``tensordict>=0.8``."""
    assert not _requirement("torchrl", "examples").specifier.contains("0.12.0")
    assert _requirement("torchrl", "examples").specifier.contains("0.13.1")
    assert not _requirement("tensordict", "examples").specifier.contains("0.12.4")
    assert _requirement("tensordict", "examples").specifier.contains("0.13.0")


def test_the_examples_extra_installs_on_python_3_10_without_tianshou():
    """``requires-python >=3.10``, but tianshou 2.0 (the examples extra's floor) requires Python 3.11: without a
    marker ``pip install -e '.[dev,examples]'`` could not resolve on 3.10. Its tests skip where it is missing."""
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"] == ">=3.10"
    marker = _requirement("tianshou", "examples").marker
    assert marker is not None
    assert not marker.evaluate({"python_version": "3.10"}) and marker.evaluate({"python_version": "3.11"})
