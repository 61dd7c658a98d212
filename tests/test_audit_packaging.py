"""The package as ``pip install`` gives it, not as a checkout: its metadata and what it does from
site-packages (found by the packaging audit)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (the declared floor) has no tomllib; pytest requires tomli there
    import tomli as tomllib

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


def _no_home(monkeypatch):
    """No HOME and a user id that the passwd database does not know (a container under an arbitrary uid)."""
    import pwd

    def unknown(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", unknown)


def test_no_home_directory_leaves_out_the_user_cache_instead_of_crashing(tmp_path, monkeypatch):
    """``cache_paths`` asked ``Path.home()`` unguarded: with no home directory it raised RuntimeError
    (KeyError before Python 3.11), and the first table lookup, so the first ``reset``, crashed even where
    the package's own data folder was writable. The user cache is left out instead."""
    from mj_env import tables

    _no_home(monkeypatch)
    paths = tables.cache_paths()
    assert paths == [Path(tables.__file__).resolve().parent / "data" / tables.FILE_NAME]

    # and the tables are still had: built and kept in memory, with a warning, when no path is writable
    cached = {name: tables.get(name) for name in tables.NAMES}
    monkeypatch.setattr(tables, "build", lambda: {k: v.copy() for k, v in cached.items()})
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    (tmp_path / "a_file").write_text("")  # no folder can be made under a file: the package data is not writable
    monkeypatch.setattr(tables, "__file__", str(tmp_path / "a_file" / "mj_env" / "tables.py"))
    with pytest.warns(RuntimeWarning, match="hand tables not cached"):
        need = tables.get("need")
    assert np.array_equal(need, cached["need"])


def _tables_at(monkeypatch, package: Path):
    from mj_env import tables

    monkeypatch.setattr(tables, "__file__", str(package / "tables.py"))
    return tables


def test_an_installed_copy_writes_its_cache_to_the_user_cache_not_into_site_packages(tmp_path, monkeypatch):
    """An installed copy wrote its 7 MiB cache into ``site-packages/mj_env/data/``, a file pip's RECORD
    does not list: ``pip uninstall mj-env`` left it behind, and with it a ``mj_env/`` folder that
    ``import mj_env`` then took for an empty namespace package. Installed, the user cache comes first;
    in a checkout (``pyproject.toml`` beside the package) the package's git-ignored data folder, as before."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    user = tmp_path / "xdg" / "mj_env"
    site = tmp_path / "site-packages" / "mj_env"
    site.mkdir(parents=True)
    tables = _tables_at(monkeypatch, site)
    assert tables.cache_paths() == [user / tables.FILE_NAME, site / "data" / tables.FILE_NAME]

    cached = {name: tables.get(name) for name in tables.NAMES}
    monkeypatch.setattr(tables, "build", lambda: {k: v.copy() for k, v in cached.items()})
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    assert tables.load() == user / tables.FILE_NAME
    assert [p.name for p in site.iterdir()] == []  # nothing written into the installed package

    repo = tmp_path / "repo"
    (repo / "mj_env").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("[project]\n")
    tables = _tables_at(monkeypatch, repo / "mj_env")
    assert tables.cache_paths() == [repo / "mj_env" / "data" / tables.FILE_NAME, user / tables.FILE_NAME]


def test_the_wheel_holds_the_players_and_no_local_cache_and_runs_from_outside_the_checkout(tmp_path):
    """A wheel built from a checkout (the package sources as they are, with the hand-table cache that any
    run leaves in the git-ignored ``mj_env/data/``) holds the three shipped players and nothing of the
    checkout's own: ``mj_env = ["data/*.npz"]`` in package-data carried the 7 MiB cache into the wheel
    whenever the builder had run the env (7.5 MB instead of 0.7), so what a wheel held depended on the
    builder's machine (and once a build had listed it in ``mj_env.egg-info/SOURCES.txt``, setuptools kept
    carrying it until MANIFEST.in pruned it). Unpacked outside the checkout it imports from there, its entry point gives the
    pretrained players, and its cache goes to the user cache."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 68:
        pytest.skip("pyproject.toml's build-system needs setuptools>=68")
    try:  # setuptools builds wheels itself from 70.1 on, before that with the wheel package
        import setuptools.command.bdist_wheel
    except ImportError:
        pytest.importorskip("wheel")
    import shutil
    import subprocess
    import sys
    import zipfile

    from mj_env import tables

    src = tmp_path / "src"
    for name in ("mj_env", "agents"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy(ROOT / name, src / name)
    (src / "mj_env" / "data").mkdir(exist_ok=True)
    (src / "mj_env" / "data" / tables.FILE_NAME).write_bytes(b"a checkout's cache")

    def build(dist):
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                        "-w", str(tmp_path / dist), str(src)], check=True, timeout=300, capture_output=True)
        shutil.rmtree(src / "build")
        (wheel,) = (tmp_path / dist).glob("mj_env-*.whl")
        return wheel

    # a checkout built once under the old package-data: its egg-info's SOURCES.txt lists the cache, which
    # setuptools reads again on the next build (MANIFEST.in prunes it)
    config = (src / "pyproject.toml").read_text()
    old = config.replace('agents = ["data/*.pt"]', 'mj_env = ["data/*.npz"]\nagents = ["data/*.pt"]', 1)
    assert old != config
    (src / "pyproject.toml").write_text(old)
    with zipfile.ZipFile(build("old")) as z:
        assert f"mj_env/data/{tables.FILE_NAME}" in z.namelist()
    (src / "pyproject.toml").write_text(config)
    wheel = build("dist")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        z.extractall(tmp_path / "site")
    assert {n.split("/")[0] for n in names} == {"mj_env", "agents", wheel.name.split("-py3")[0] + ".dist-info"}
    assert {n for n in names if "/data/" in n} == {f"agents/data/pretrained_{r}.pt" for r in ("beijing", "hebei", "quemen")}
    assert not [n for n in names if n.endswith((".npz", ".pyc")) or "tests" in n]

    script = (
        "import mj_env, agents.pretrained, mj_env.tables as t\n"
        "from mj_env.baselines import plugin_agent_names\n"
        "print(mj_env.__file__, agents.pretrained.DATA, t.cache_paths()[0], plugin_agent_names(), sep='\\n')\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("PYTHONPATH", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(tmp_path / "site"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300, check=True)
    module, data, cache, plugins = run.stdout.splitlines()
    assert Path(module) == tmp_path / "site" / "mj_env" / "__init__.py"
    assert sorted(p.name for p in Path(data).iterdir()) == [f"pretrained_{r}.pt" for r in ("beijing", "hebei", "quemen")]
    assert Path(cache) == tmp_path / "xdg" / "mj_env" / tables.FILE_NAME and "pretrained" in plugins


def test_the_readme_says_what_only_a_checkout_holds():
    """The wheel holds ``mj_env`` and ``agents`` only (the test above); the README's quick start ran
    ``train.py`` and its tests as if everyone had the repository, and never said that ``pip install .``
    leaves ``train.py``, ``examples/``, ``benchmarks/`` and ``tests/`` behind."""
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("```", 1)[0]
    assert "checkout" in quick_start and "pip install ." in quick_start
    for part in ("`train.py`", "`examples/`", "`benchmarks/`", "`tests/`"):
        assert part in quick_start, part


def test_git_ignores_what_building_the_package_leaves_in_the_checkout(tmp_path):
    """``pip install .`` and ``pip wheel .`` build in the checkout: setuptools leaves ``build/`` (and a wheel
    goes to ``dist/`` with ``python -m build``), which ``git status`` listed as untracked files to commit."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("no git")
    (tmp_path / "build" / "lib").mkdir(parents=True)
    (tmp_path / "build" / "lib" / "x.py").write_text("")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "mj_env-0.1.0-py3-none-any.whl").write_text("")
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path, check=True,
                            capture_output=True, text=True, timeout=60).stdout.split()
    assert status == ["??", ".gitignore"], status
