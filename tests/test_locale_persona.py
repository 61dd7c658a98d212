"""A user on another machine: other locales and encodings, terminals, and paths (train.py's command line).

What the earlier portability tests (tests/test_audit_portability.py) do not hold: ``NO_COLOR`` on a terminal, and an
``--exp-name`` whose bytes are not text in the locale's encoding (``LC_ALL=C PYTHONUTF8=0`` and a UTF-8 name)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHON_TYRO_ANSI_CODES")}
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


def _on_a_terminal(argv: list[str], env: dict) -> bytes:
    """What ``python train.py ARGV`` writes to a terminal (standard output and error on one pseudo-terminal)."""
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *argv], stdin=subprocess.DEVNULL,
                                stdout=slave, stderr=slave, env=env, cwd=str(ROOT))
    finally:
        os.close(slave)
    out = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the program has closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        proc.wait(timeout=120)
    return out


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")
@pytest.mark.parametrize("argv", [["--help"], ["--no-such-flag", "3"]], ids=["help", "error"])
def test_train_command_line_on_a_terminal_honours_no_color(argv):
    """``NO_COLOR=1`` (https://no-color.org) asks for output without colour. tyro (1.0), which reads train.py's
    command line, colours ``--help`` (cyan flags, dim defaults) and its error boxes (red) whenever standard output
    is a terminal whose TERM is not ``dumb``, whatever NO_COLOR says; train.py now turns its ANSI codes off
    there."""
    pytest.importorskip("torch")
    pytest.importorskip("tyro")
    plain = _on_a_terminal(argv, _env(TERM="xterm"))
    if b"\x1b[" not in plain:
        pytest.skip("this tyro writes no ANSI codes on a terminal")
    quiet = _on_a_terminal(argv, _env(TERM="xterm", NO_COLOR="1"))
    assert b"\x1b[" not in quiet, quiet[:300]
    assert (b"--exp-name" if argv == ["--help"] else b"no-such-flag") in quiet


def test_exp_name_that_is_not_text_in_the_locale_is_refused_for_what_it_is(tmp_path):
    """Under an ASCII locale without UTF-8 mode (``LC_ALL=C PYTHONUTF8=0``) a UTF-8 ``--exp-name`` reaches Python as
    lone surrogates. It was refused as holding "control characters" (it holds none); the message now says that the
    name is not text in this locale's encoding and what to do (an ASCII name, or a UTF-8 locale)."""
    pytest.importorskip("torch")
    run = subprocess.run([sys.executable, str(ROOT / "train.py"), "--exp-name", "运行 é".encode()], check=False,
                         capture_output=True, timeout=120, cwd=str(tmp_path),
                         env=_env(LC_ALL="C", LANG="C", PYTHONUTF8="0"))
    err = run.stderr.decode("ascii", "replace")
    assert run.returncode == 2 and "Traceback" not in err, err
    assert "control characters" not in err and "--exp-name" in err and "UTF-8 locale" in err, err
    assert "\\u8fd0\\u884c \\xe9" in err, err  # the name as the user typed it (escaped on this ASCII stderr)
    assert not (tmp_path / "runs").exists()


def test_exp_name_of_undecodable_bytes_message_in_any_locale():
    """The same refusal where the locale is UTF-8 and the name's bytes are not (a Latin-1 ``caf\\xe9``), from
    check_args itself: the bytes are shown as ``\\xe9`` escapes."""
    pytest.importorskip("torch")
    import train

    problem = train.check_args(train.Args(exp_name=os.fsdecode(b"caf\xe9")))
    assert problem is not None and "control characters" not in problem and "caf\\xe9" in problem, problem


def test_tiny_run_with_a_non_ascii_name_on_an_ascii_stdout_reads_back_identically(tmp_path):
    """(Holds already; the whole path once, as a user meets it.) ``PYTHONIOENCODING=ascii`` (an old terminal; a
    Windows console redirected is alike with cp1252): a run named ``运行 é`` trains, evaluates and prints its tables
    with escapes, no UnicodeEncodeError; its args.json, progress.csv and final_eval.json are UTF-8 and read back
    under any locale; its progress bar (standard error, not a terminal) is one line rewritten, not one per update."""
    pytest.importorskip("torch")
    pytest.importorskip("scipy")
    name = "运行 é"
    run = subprocess.run([sys.executable, str(ROOT / "train.py"), "--exp-name", name, "--num-envs", "8",
                          "--num-steps", "8", "--bc-steps", "1", "--bc-epochs", "1", "--total-steps", "128",
                          "--eval-every", "1", "--eval-hands", "2", "--final-eval-hands", "2",
                          "--num-minibatches", "1", "--update-epochs", "1", "--no-eval-pretrained"],
                         check=False, capture_output=True, timeout=300, cwd=str(tmp_path),
                         env=_env(PYTHONIOENCODING="ascii"))
    err = run.stderr.decode("ascii", "replace")
    assert run.returncode == 0 and "Traceback" not in err, err[-2000:]
    out = run.stdout.decode("ascii")
    assert out.startswith("\\u8fd0\\u884c \\xe9: beijing;") and "trained vs rule" in out
    d = tmp_path / "runs" / name
    assert json.loads((d / "args.json").read_bytes().decode("utf-8"))["exp_name"] == name
    assert (d / "progress.csv").read_bytes().decode("utf-8").startswith("update,")
    assert json.loads((d / "final_eval.json").read_bytes().decode("utf-8"))["updates"] == 2
    assert err.count("\n") <= 3, err  # the bar's redraws are carriage returns
