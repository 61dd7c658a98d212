"""agents/checkpoints.py, the checkpoint files split out of agents/networks.py: each module imports alone (no
import cycle), the names users were told about stay importable from agents.networks as the checkpoint module's
own objects, and a CheckpointWarning still names the user's line, however many of the package's frames lie
between (agents/__init__, agents/networks.py, agents/checkpoints.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_checkpoints import rewrite

import agents
from agents import checkpoints, networks
from agents.networks import PolicyValueNet

ROOT = Path(__file__).resolve().parents[1]
OLD_NAMES = ("CheckpointError", "CheckpointWarning", "load_checkpoint", "save_checkpoint")


def _python(code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    return subprocess.run([sys.executable, "-c", code, *args], check=False, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _with_a_key_beside_its_format(tmp_path: Path) -> str:
    saved = checkpoints.save_checkpoint(tmp_path / "good.pt", PolicyValueNet(hidden=(8,)), rules="beijing")
    return rewrite(saved, tmp_path, lambda p: p.__setitem__("normalizer", 1))


def test_the_checkpoint_module_imports_alone():
    """agents.checkpoints imports the networks; were agents.networks to import it back at its top, importing
    agents.checkpoints first would stop on a partly made module ("cannot import name ... partially initialized")."""
    done = _python("import agents.checkpoints as c; print(c.load_checkpoint.__module__, c.CHECKPOINT_FORMAT)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["agents.checkpoints", "mj_agents.policy/1"]


def test_networks_imports_alone_and_loads_the_checkpoint_module_only_for_a_checkpoint():
    """agents.networks alone leaves agents.checkpoints unloaded, and ``NetworkAgent.from_checkpoint`` (which
    imports it where it runs) still loads the shipped player in a process that never imported it."""
    done = _python("import sys\n"
                   "from agents.networks import NetworkAgent\n"
                   "from agents.pretrained import pretrained_path\n"
                   "print('agents.checkpoints' in sys.modules)\n"
                   "agent = NetworkAgent.from_checkpoint(pretrained_path('beijing'))\n"
                   "print('agents.checkpoints' in sys.modules, type(agent.model).__name__)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False", "True TileNet"]


def test_the_names_users_were_told_about_are_the_checkpoint_modules_own():
    """``from agents.networks import load_checkpoint`` (README, examples, error messages of earlier versions)
    gives agents.checkpoints' object itself: ``except networks.CheckpointError`` catches what the loader raises.
    A name it does not have is still an AttributeError (``hasattr`` and ``getattr``'s default go on working)."""
    for name in OLD_NAMES:
        assert getattr(networks, name) is getattr(checkpoints, name), name
        assert name in dir(networks)
    with pytest.raises(networks.CheckpointError, match="no such file"):
        checkpoints.load_checkpoint("no_such_file.pt")
    assert not hasattr(networks, "no_such_name") and getattr(networks, "_read", None) is None


def test_a_checkpoint_warning_names_the_users_line_through_the_packages_frames(tmp_path):
    """``agents.make_agent(path)``: agents/__init__, then networks' ``NetworkAgent.from_checkpoint``, then
    checkpoints' ``load_checkpoint`` warn; the warning names the line below, not one of theirs."""
    path = _with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agents.make_agent(path)
    line = sys._getframe().f_lineno - 1  # the line above
    named = [(Path(w.filename), w.lineno) for w in caught if issubclass(w.category, checkpoints.CheckpointWarning)]
    assert named == [(Path(__file__), line)]


def test_a_checkpoint_warning_names_the_line_of_a_users_script(tmp_path):
    """``python script.py`` loading by the old name ``agents.networks.load_checkpoint``: its line 3 is named."""
    path = _with_a_key_beside_its_format(tmp_path)
    (tmp_path / "script.py").write_text("import sys\nfrom agents.networks import load_checkpoint\n"
                                        "load_checkpoint(sys.argv[1])\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    done = subprocess.run([sys.executable, "script.py", path], check=False, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    warned = [ln for ln in done.stderr.splitlines() if "CheckpointWarning" in ln]
    assert len(warned) == 1 and warned[0].startswith(f"{tmp_path / 'script.py'}:3: CheckpointWarning: "), done.stderr
    assert f"{path}: its key 'normalizer' is not of format mj_agents.policy/1 and left out" in warned[0]
