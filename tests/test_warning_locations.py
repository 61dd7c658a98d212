"""Where a ``CheckpointWarning`` (a checkpoint with keys beside those of its format: ``agents.checkpoints``) points.
On the command lines that load agents (``python -m agents.arena``, ``python -m agents.play``: ``loading_agents``)
it is one ``warning:`` line on standard error that begins with the checkpoint's file; it named
``agents/checkpoints.py:<line>``, a line of the library that tells the user nothing (and, through a user's
``runpy.run_module``, that user's line). A Python user of ``load_checkpoint`` or ``make_agent`` still gets a
warning naming the calling line, which the warning filters control."""
from __future__ import annotations

import io
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_warning_lines import _checkpoint_with_a_key_beside_its_format

from agents import make_agent
from agents.arena import loading_agents
from agents.checkpoints import CheckpointWarning, load_checkpoint
from agents.play import main as play_main

ROOT = Path(__file__).resolve().parents[1]


def _said(path) -> str:
    return (f"warning: {path}: its key 'normalizer' is not of format mj_agents.policy/1 and left out (written by a "
            "later version of this package, or by another tool?)")


def _arena(path, tmp_path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"{path},rule", "--hands", "1",
                           "--quiet"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_the_arena_names_the_checkpoint_file(tmp_path):
    """``python -m agents.arena --agents LATER.pt,rule``: one line on standard error, naming the file (it was
    ``.../agents/checkpoints.py:371: CheckpointWarning: ...`` and the library's source line under it); the same under
    ``PYTHONWARNINGS=default``."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    for env in ({}, {"PYTHONWARNINGS": "default"}):
        done = _arena(path, tmp_path, **env)
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == [_said(path)], (env, done.stderr)


def test_the_arenas_line_follows_the_warning_filters(tmp_path):
    """The filters in force still choose: ``-W ignore::UserWarning`` says nothing."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    done = _arena(path, tmp_path, PYTHONWARNINGS="ignore::UserWarning")
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_arena_through_runpy_names_the_checkpoint_file(tmp_path, monkeypatch, capsys):
    """The arena run by a user's ``runpy.run_module`` (as ``python -m`` runs it) is the command line: the same one
    line (it was a warning naming the user's ``run_module`` line; before that, ``<frozen runpy>``)."""
    from mj_env import lines

    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    monkeypatch.setattr(lines, "guard_output", lambda prog: None)  # (it would wrap pytest's sys.stdout)
    monkeypatch.setattr(sys, "argv", ["arena", "--agents", f"{path},rule", "--hands", "1", "--quiet"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(SystemExit) as e:
            runpy.run_module("agents.arena", run_name="__main__")
    assert e.value.code == 0
    assert not [w for w in caught if issubclass(w.category, CheckpointWarning)]
    assert capsys.readouterr().err.splitlines() == [_said(path)]


def test_play_names_the_checkpoint_file(tmp_path, capsys):
    """``python -m agents.play --opponents LATER.pt,rule,rule``: the same line (``loading_agents``)."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        rc = play_main(["--opponents", f"{path},rule,rule", "--seed", "1"], input_fn=lambda prompt: "quit",
                       out=io.StringIO())
    assert rc == 0
    assert capsys.readouterr().err.splitlines() == [_said(path)]


def test_other_warnings_while_loading_go_on_as_python_shows_them():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with loading_agents():
            warnings.warn("something else", UserWarning, stacklevel=1)
    assert [(str(w.message), w.category) for w in caught] == [("something else", UserWarning)]


CALLS = {"load_checkpoint": lambda path: load_checkpoint(path), "make_agent": lambda path: make_agent(str(path))}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_python_user_gets_a_warning_naming_the_callers_line(call, tmp_path):
    """``load_checkpoint`` and ``make_agent`` from Python: a ``CheckpointWarning`` naming the line that called."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CALLS[call](path)
    named = [(w.filename, w.lineno, str(w.message)) for w in caught if issubclass(w.category, CheckpointWarning)]
    assert named == [(__file__, CALLS[call].__code__.co_firstlineno, _said(path).removeprefix("warning: "))]


def test_a_python_user_can_filter_the_warning(tmp_path):
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", CheckpointWarning)
        load_checkpoint(path)
    assert caught == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)
        with pytest.raises(CheckpointWarning, match="its key 'normalizer'"):
            load_checkpoint(path)


def test_user_stacklevel_passes_over_runpys_frames(tmp_path):
    """A module of the library run by ``runpy`` (as ``python -m`` runs one) that warns with ``user_stacklevel``: the
    frames of runpy are passed over as the library's are, and the warning names the line that called runpy, not
    ``<frozen runpy>``. (The arena's CheckpointWarning through a user's ``runpy.run_module`` checked this until the
    arena told that warning itself.)"""
    script = tmp_path / "library_main.py"
    script.write_text("import types, warnings\nfrom mj_env.messages import user_stacklevel\n"
                      "here = types.SimpleNamespace(__file__=__file__)\n"
                      "warnings.warn('from the library', UserWarning, stacklevel=user_stacklevel(here))\n",
                      encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runpy.run_path(str(script), run_name="__main__")
    line = sys._getframe().f_lineno - 1  # the line above: the run_path call
    assert [(w.filename, w.lineno, str(w.message)) for w in caught] == [(__file__, line, "from the library")]



def _train(path, tmp_path, name, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), "--init-from", str(path), "--total-steps", "0",
                           "--final-eval-hands", "0", "--eval-every", "0", "--exp-name", name, "--no-progress"],
                          check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_train_py_names_the_checkpoint_file_of_init_from(tmp_path):
    """``python train.py --init-from LATER.pt``: the same one line on standard error as the arena's (it was Python's
    ``train.py:1158: CheckpointWarning: ...`` and train.py's source line under it); the filters still choose."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    done = _train(path, tmp_path, "told")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [_said(path)], done.stderr
    done = _train(path, tmp_path, "filtered", PYTHONWARNINGS="ignore::UserWarning")
    assert done.returncode == 0 and done.stderr == "", done.stderr
