"""The command lines' messages that quote text from outside (a file name, a checkpoint's refusal, an unrecognised
argument) are one line each, that text escaped as ``mj_env.lines.terminal_line`` writes it: a name with a line
break wrote a second, fake line, one with an escape sequence or a carriage return recoloured or overwrote the
terminal (``--agents: no such checkpoint file: NAME``, ``--record NAME: no such directory``, a checkpoint that
cannot be read, ``NAME: No such file or directory`` ...). Each command line forms its usage errors in one place,
``mj_env.lines.ArgumentParser.error`` (``benchmarks/_args.ArgumentParser`` for the benchmarks, which must not load
NumPy before they size its threads; train.py's ``usage_error``); a message that was printable already is written as
before. Through the real command lines, on Linux (file names of any bytes)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest
from test_play_answers_hostile import EVIL, EVIL_SHOWN
from test_play_cli import ROOT
from test_play_cli_input_limits import ONE_THREAD

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names of any bytes: Linux")


def _run(argv: list[str], cwd, stdin: bytes = b"") -> tuple[int, str, str]:
    """The exit status, standard output and standard error of ``python ARGV`` in ``cwd`` (both streams must be
    UTF-8: a name that is not is written as its bytes' escapes)."""
    done = subprocess.run([sys.executable, *argv], input=stdin, capture_output=True, cwd=cwd, timeout=300,
                          check=False, env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT), "COLUMNS": "300"})
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


def _clean(*streams: str) -> None:
    """No terminal control reached the streams and no line begins as the name's fake line does."""
    for text in streams:
        assert "\x1b" not in text and "\r" not in text and "\x07" not in text, text[-2000:]
        assert not any(line.startswith("warning: a fake line") for line in text.splitlines()), text[-2000:]


USAGE_ERRORS = {
    "arena --agents": (["-m", "agents.arena", "--agents", f"nodir/{EVIL},rule"],
                       f"python -m agents.arena: error: --agents: no such checkpoint file: nodir/{EVIL_SHOWN}"),
    "arena --record": (["-m", "agents.arena", "--agents", "rule,random", "--record", f"nodir/{EVIL}"],
                       f"python -m agents.arena: error: --record nodir/{EVIL_SHOWN}: no such directory: nodir"),
    "arena unrecognized": (["-m", "agents.arena", "--agents", "rule,random", EVIL],
                           f"python -m agents.arena: error: unrecognized arguments: {EVIL_SHOWN}"),
    "play --record": (["-m", "agents.play", "--record", f"nodir/{EVIL}"],
                      f"python -m agents.play: error: --record nodir/{EVIL_SHOWN}: no such directory: nodir"),
    "curve progress.csv": (["-m", "agents.curve", f"nodir/{EVIL}", "--out", "x.png"],
                           (f"python -m agents.curve: error: nodir/{EVIL_SHOWN}: cannot read it (No such file or "
                            "directory)")),
    "curve --out": (["-m", "agents.curve", str(ROOT / "tests/data/compat/progress.csv"), "--out", f"{EVIL}.xyz"],
                    (f"python -m agents.curve: error: --out {EVIL_SHOWN}.xyz: the file name must end in one of .png, "
                     ".pdf, .svg, .svgz, .eps, .ps, .jpg, .jpeg, .tif, .tiff, .webp")),
    "records": (["-m", "mj_env.records", f"nodir/{EVIL}"],
                f"python -m mj_env.records: error: nodir/{EVIL_SHOWN}: No such file or directory"),
    "search unrecognized": (["-m", "agents.search", EVIL],
                            f"python -m agents.search: error: unrecognized arguments: {EVIL_SHOWN}"),
    "rollouts unrecognized": (["-m", "agents.rollouts", EVIL],
                              f"python -m agents.rollouts: error: unrecognized arguments: {EVIL_SHOWN}"),
    "benchmarks --json": ([str(ROOT / "benchmarks/win_checks.py"), "--json", f"nodir/{EVIL}"],
                          f"win_checks.py: error: --json nodir/{EVIL_SHOWN}: no such directory: nodir"),
    "benchmarks --plot": ([str(ROOT / "benchmarks/throughput.py"), "--plot", f"{EVIL}.xyz"],
                          (f"throughput.py: error: --plot {EVIL_SHOWN}.xyz: the file name must end in one of .png, "
                           ".pdf, .svg, .svgz, .eps, .ps, .jpg, .jpeg, .tif, .tiff, .webp")),
    "examples --out": ([str(ROOT / "examples/offline_dataset.py"), "--out", f"nodir/{EVIL}.npz"],
                       f"offline_dataset.py: error: --out nodir/{EVIL_SHOWN}.npz: no such directory: nodir"),
}


@pytest.mark.parametrize("case", list(USAGE_ERRORS))
def test_a_usage_error_naming_a_file_is_one_line_with_the_name_escaped(case, tmp_path):
    """The usage line(s), then the one error line, the name escaped; nothing on standard output. It was the name as
    it is: a second line ``warning: a fake line ...`` in red, a carriage return back over the line."""
    argv, line = USAGE_ERRORS[case]
    rc, out, err = _run(argv, tmp_path)
    assert rc == 2 and out == "", err
    assert err.startswith("usage: ") and err.endswith("\n") and err.splitlines()[-1] == line, err[-2000:]
    _clean(err)


def test_a_file_name_that_is_not_utf8_is_shown_as_its_bytes(tmp_path):
    """``caf\\xe9`` (Latin-1) as ``repr`` of its bytes shows it (``mj_env.lines.utf8_text``): it was the lone
    surrogate's escape, ``caf\\udce9``, which names no byte of the file."""
    name = os.fsdecode(b"caf\xe9")
    rc, _, err = _run(["-m", "mj_env.records", f"nodir/{name}"], tmp_path)
    assert rc == 2 and err.splitlines()[-1] == ("python -m mj_env.records: error: nodir/caf\\xe9: No such file or "
                                                "directory"), err


def test_train_pys_usage_error_escapes_the_file_name(tmp_path):
    """train.py's ``usage_error`` (its own, argparse's form): ``--init-from`` a file that is not there."""
    pytest.importorskip("torch")
    pytest.importorskip("tyro")
    rc, out, err = _run([str(ROOT / "train.py"), "--init-from", f"nodir/{EVIL}"], tmp_path)
    assert rc == 2 and out == "", err
    assert err.splitlines() == ["usage: train.py [-h] [OPTIONS]",
                                f"train.py: error: --init-from: nodir/{EVIL_SHOWN}: no such file"], err
    _clean(err)


@pytest.mark.parametrize("argv", [["-m", "agents.arena", "--agents", "{},rule"],
                                  ["-m", "agents.play", "--opponents", "{},rule,rule"],
                                  [str(ROOT / "examples/duplicate_baseline.py"), "--agent", "{}"]],
                         ids=["arena", "play", "duplicate_baseline"])
def test_a_checkpoint_that_cannot_be_read_is_refused_in_one_line(argv, tmp_path):
    """A file that is no checkpoint, named with a line break and escapes: the refusal (a CheckpointError, which
    begins with the file's name) is one line, as it is for a file of a plain name; it was two, the second ``warning:
    a fake line`` in red. (examples/duplicate_baseline.py writes its own ``error: --agent ...`` line.)"""
    pytest.importorskip("torch")
    lines = []
    for name in ("plain.pt", EVIL):
        (tmp_path / name).write_bytes(b"junk")
        rc, out, err = _run([a.format(name) for a in argv], tmp_path)
        assert rc == 2 and out == "", err
        _clean(err)
        lines.append(err.splitlines())
    plain, evil = lines
    assert len(evil) == len(plain) and evil[:-1] == plain[:-1]
    assert evil[-1] == plain[-1].replace("plain.pt", EVIL_SHOWN), (plain[-1], evil[-1])


def test_the_parser_writes_a_printable_message_as_argparse_does(capsys):
    """``mj_env.lines.ArgumentParser``: argparse's own error for a message without anything to escape (the tests
    that pin the command lines' messages hold the rest); a message with a line break is one line."""
    from mj_env.lines import ArgumentParser, terminal_line  # (here: the command-line tests run without it)

    for message, shown in (("--hands must be 1 to 1,000, got 0 (惠牌, é)", "--hands must be 1 to 1,000, got 0 (惠牌, é)"),
                           (f"--record {EVIL}: no such directory", f"--record {EVIL_SHOWN}: no such directory")):
        for parser in (argparse.ArgumentParser(prog="prog"), ArgumentParser(prog="prog")):
            with pytest.raises(SystemExit) as stop:
                parser.error(message)
            assert stop.value.code == 2
        plain, ours = capsys.readouterr().err.split("usage: prog [-h]\n")[1:]
        assert ours == f"prog: error: {shown}\n"
        assert plain == f"prog: error: {message}\n"
    assert terminal_line(EVIL) == EVIL_SHOWN and terminal_line(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
