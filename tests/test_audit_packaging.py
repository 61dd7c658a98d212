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
