"""A CheckpointWarning (a checkpoint with keys beside its format's) that the warning filters in force make an
exception (``python -W error``, ``PYTHONWARNINGS=error::UserWarning``): every command line that loads a checkpoint
refuses the file in one line and exit status 2, as it refuses a file it cannot use, where it printed a traceback
(``agents.checkpoints.warning_refused``). train.py refuses it while checking its arguments, before its run
directory is made. A Python caller of ``load_checkpoint`` still gets the warning itself, raised as the filters say.
Where the warning is only shown (the filters' default), tests/test_warning_locations.py."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_warning_lines import _checkpoint_with_a_key_beside_its_format

from agents.arena import loading_agents
from agents.checkpoints import CheckpointError, CheckpointWarning, load_checkpoint
from agents.play import main as play_main

ROOT = Path(__file__).resolve().parents[1]
REFUSED = "; refused, as the warning filters in force (-W error) make this warning an error"


def _said(path) -> str:
    return (f"{path}: its key 'normalizer' is not of format mj_agents.policy/1 and left out (written by a later "
            f"version of this package, or by another tool?){REFUSED}")


def _run(args: list[str], cwd: Path, warnings_filter: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": warnings_filter})


COMMANDS = {
    "arena": (["-m", "agents.arena", "--agents", "{path},rule", "--hands", "1", "--quiet"],
              "python -m agents.arena: error: --agents: "),
    "train.py": ([str(ROOT / "train.py"), "--init-from", "{path}", "--total-steps", "0", "--final-eval-hands", "0",
                  "--eval-every", "0", "--exp-name", "refused", "--no-progress"], "train.py: error: --init-from: "),
    "duplicate_baseline": ([str(ROOT / "examples" / "duplicate_baseline.py"), "--agent", "{path}", "--walls", "2"],
                           "error: --agent '{path}': "),
    "rollout_improvement": ([str(ROOT / "examples" / "rollout_improvement.py"), "--checkpoint", "{path}", "--smoke"],
                            "rollout_improvement.py: error: --checkpoint: "),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_line_refuses_the_file_in_one_line(command, tmp_path):
    """(``-W error``, every warning an error, for the arena: torch's loading raises none of its own.)"""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    args, prefix = COMMANDS[command]
    done = _run([a.format(path=path) for a in args], tmp_path, "error" if command == "arena" else "error::UserWarning")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1] == prefix.format(path=path) + _said(path), done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "runs").exists()  # train.py refused it before making its run directory


def test_play_refuses_the_file_in_one_line(tmp_path, capsys):
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)
        with pytest.raises(SystemExit) as e:
            play_main(["--opponents", f"rule,{path},rule", "--seed", "1"], input_fn=lambda prompt: "quit",
                      out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"python -m agents.play: error: --opponents: {_said(path)}"


def test_loading_agents_turns_only_a_checkpoint_warning_into_the_refusal(tmp_path):
    """Another warning made an exception goes on as raised (a UserWarning of a plugin agent's, say): it is not
    the checkpoint's to refuse."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CheckpointError) as refused, loading_agents():
            load_checkpoint(path)
        assert str(refused.value) == _said(path)
        with pytest.raises(UserWarning, match="^something else$"), loading_agents():
            warnings.warn("something else", UserWarning, stacklevel=1)


def test_a_python_caller_still_gets_the_warning_raised(tmp_path):
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)
        with pytest.raises(CheckpointWarning, match="its key 'normalizer'"):
            load_checkpoint(path)
