"""Leftovers of session 33, mended: the programs' --help says what leaving out an option whose default is None
means, benchmarks/throughput.py uses the arena's test of one file under a public name (``agents.arena.file_key``),
a CheckpointWarning under ``python -m agents.arena`` names a line of code instead of ``<frozen runpy>``, and
train.py's ``--keep-checkpoints N`` keeps only the newest N snapshot checkpoints."""
from __future__ import annotations

import ast
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- "(default: None)" in --help












# --------------------------------------------------------------------------- one file, one public name


def test_no_program_imports_a_private_name_of_the_packages():
    """benchmarks/throughput.py imported ``agents.arena._file_key``: a rename inside the arena would break it
    unseen. The programs above the packages (benchmarks/, examples/, train.py) import only public names of them."""
    bad = []
    for path in [*sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "examples").glob("*.py")),
                 ROOT / "train.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("agents", "mj_env"):
                bad += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_")]
    assert not bad, bad


def test_file_key_tells_a_hard_link_and_another_spelling_for_the_same_file(tmp_path):
    from agents.arena import file_key

    a = tmp_path / "a.json"
    a.write_text("{}")
    os.link(a, tmp_path / "b.json")
    assert file_key(a) == file_key(tmp_path / "b.json") == file_key(tmp_path / "." / "a.json")
    assert file_key(a) != file_key(tmp_path / "c.json")  # not there yet: its resolved path
    assert file_key(tmp_path / "c.json") == file_key(tmp_path / "x" / ".." / "c.json")


# --------------------------------------------------------------------------- a warning's line under python -m


def _checkpoint_with_a_key_beside_its_format(tmp_path):
    torch = pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.pretrained import pretrained_path

    payload = torch.load(pretrained_path("beijing"), weights_only=True)
    payload["normalizer"] = 1
    torch.save(payload, tmp_path / "later.pt")
    return tmp_path / "later.pt"


def test_a_checkpoint_warning_under_runpy_names_the_users_line(tmp_path, monkeypatch):
    """The arena run by a user's ``runpy.run_module`` (as ``python -m`` runs it): the warning named
    ``<frozen runpy>``, runpy's own line; the frames of runpy are passed over as the library's are."""
    from agents.networks import CheckpointWarning
    from mj_env import lines

    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    monkeypatch.setattr(lines, "guard_output", lambda prog: None)  # (it would wrap pytest's sys.stdout)
    monkeypatch.setattr(sys, "argv", ["arena", "--agents", f"{path},rule", "--hands", "1", "--quiet"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(SystemExit) as e:
            runpy.run_module("agents.arena", run_name="__main__")
    line = sys._getframe().f_lineno - 1  # the line above: the run_module call
    assert e.value.code == 0
    named = [(Path(w.filename), w.lineno) for w in caught if issubclass(w.category, CheckpointWarning)]
    assert named == [(Path(__file__), line)]


def test_a_checkpoint_warning_under_python_m_names_a_line_of_code(tmp_path):
    """``python -m agents.arena --agents LATER.pt,rule``: no line of the user's lies above the library's; the
    warning named ``<frozen runpy>:88``, and names the line of agents/checkpoints.py that warns now."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    done = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"{path},rule", "--hands", "1",
                           "--quiet"], check=False, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    warned = [ln for ln in done.stderr.splitlines() if "CheckpointWarning" in ln]
    assert len(warned) == 1 and "runpy" not in done.stderr
    assert warned[0].startswith(f"{ROOT / 'agents' / 'checkpoints.py'}:")
    assert f"CheckpointWarning: {path}: its key 'normalizer' is not of format" in warned[0]


# --------------------------------------------------------------------------- train.py --keep-checkpoints








