"""The command lines' messages that quote text from outside (a file name, a checkpoint's refusal, an unrecognised
argument) are one line each, that text escaped as ``mj_env.lines.terminal_line`` writes it: a name with a line
break wrote a second, fake line, one with an escape sequence or a carriage return recoloured or overwrote the
terminal (``--agents: no such checkpoint file: NAME``, ``--record NAME: no such directory``, a checkpoint that
cannot be read, ``NAME: No such file or directory`` ...). Each command line forms its usage errors in one place,
``mj_env.lines.ArgumentParser.error`` (``benchmarks/_args.ArgumentParser`` for the benchmarks, which must not load
NumPy before they size its threads; train.py's ``usage_error``); a message that was printable already is written as
before. And the lines after the checks that name a file: ``cannot write NAME: ...`` (a write that fails, a full
disk: /dev/full here), ``NAME: no records``, ``wrote NAME``, a note naming a checkpoint, the arena's Ctrl-C line and an
agent's failure (its own exception's text). Through the real command lines where it matters, on Linux (file names
of any bytes)."""
from __future__ import annotations

import argparse
import io
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


@pytest.mark.parametrize(("argv", "shown"), [([f"--{EVIL}"], EVIL_SHOWN), ([EVIL], EVIL_SHOWN),
                                             (["--num-envs", EVIL], EVIL_SHOWN), ([b"--caf\xe9"], "--caf\\xe9")])
def test_train_pys_tyro_errors_escape_the_arguments(argv, shown, tmp_path):
    """tyro's own errors (an unrecognised option, a stray value, a value that is no number) quote the arguments:
    they were written raw, so ``--bogus$'\\e[2J'`` cleared the terminal; they are written line by line as
    ``mj_env.lines.terminal_line`` writes a line (tyro's box, its lines kept), bytes that are not UTF-8 as
    ``\\xe9``."""
    pytest.importorskip("torch")
    pytest.importorskip("tyro")
    rc, out, err = _run([str(ROOT / "train.py"), *argv], tmp_path)
    assert rc == 2 and out == "", err
    assert shown.split(" ")[-1] in err, err
    assert not any(line.startswith("warning: a fake line") for line in err.splitlines()), err
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


# --------------------------------------------------------------------------- the lines after the checks

FULL = "/dev/full"
"""A file every write to fails (ENOSPC) once it is open: a name that passed the checks, failing at the write."""


def _full_link(tmp_path, name: str) -> str:
    if not os.path.exists(FULL):
        pytest.skip("no /dev/full")
    os.symlink(FULL, tmp_path / name)
    return name


ARENA = ["-m", "agents.arena", "--agents", "rule,random", "--hands", "1", "--batch", "1", "--quiet"]
WRITE_FAILURES = {
    "arena --json": (ARENA + ["--json", "{}"], f"{EVIL}.json", 1,
                     f"python -m agents.arena: cannot write {EVIL_SHOWN}.json: No space left on device"),
    "arena --record": (ARENA + ["--record", "{}"], f"{EVIL}.jsonl", 1,
                       f"python -m agents.arena: cannot write {EVIL_SHOWN}.jsonl: No space left on device"),
    "curve --out": (["-m", "agents.curve", str(ROOT / "tests/data/compat/progress.csv"), "--out", "{}"], f"{EVIL}.png",
                    1, f"python -m agents.curve: cannot write {EVIL_SHOWN}.png: No space left on device"),
    "benchmarks --json": ([str(ROOT / "benchmarks/win_checks.py"), "--seconds", "0.01", "--batch-sizes", "1",
                           "--checks", "is_win", "--no-reference", "--json", "{}"], f"{EVIL}.json", 1,
                          f"error: --json {EVIL_SHOWN}.json: cannot write: No space left on device"),
}


@pytest.mark.parametrize("case", list(WRITE_FAILURES))
def test_a_write_that_fails_names_the_file_escaped(case, tmp_path):
    """``cannot write NAME: ...``, the one line of a write that failed after the checks (a full disk): the name
    escaped; it was written as it is."""
    argv, name, status, line = WRITE_FAILURES[case]
    if case.startswith("curve"):
        pytest.importorskip("matplotlib")
    _full_link(tmp_path, name)
    rc, out, err = _run([a.format(name) for a in argv], tmp_path)
    assert rc == status and err.splitlines()[-1] == line, err[-2000:]
    _clean(out, err)


def test_records_says_a_file_of_no_records_by_its_name_escaped(tmp_path):
    """``NAME: no records ...``: an empty file."""
    (tmp_path / EVIL).write_bytes(b"")
    rc, out, err = _run(["-m", "mj_env.records", EVIL], tmp_path)
    assert rc == 1 and out == "" and err == (f"{EVIL_SHOWN}: no records (hand records are JSON objects, one per "
                                             "line)\n"), err


def test_a_wrote_line_names_the_file_escaped(tmp_path):
    """The line that names the file written (benchmarks' ``wrote NAME``, the example's ``NAME: N decisions ...``)
    on standard output: the name escaped, the file written under its own name."""
    rc, out, err = _run([str(ROOT / "benchmarks/win_checks.py"), "--seconds", "0.01", "--batch-sizes", "1", "--checks",
                         "is_win", "--no-reference", "--json", f"{EVIL}.json"], tmp_path)
    assert rc == 0 and out.endswith(f"\nwrote {EVIL_SHOWN}.json\n"), err
    _clean(out, err)
    rc, out, err = _run([str(ROOT / "examples/offline_dataset.py"), "--smoke", "--out", f"{EVIL}.npz"], tmp_path)
    assert rc == 0 and out.startswith(f"{EVIL_SHOWN}.npz: ") and out.count("\n") == 1, err
    _clean(out, err)
    assert (tmp_path / f"{EVIL}.json").is_file() and (tmp_path / f"{EVIL}.npz").is_file()


def test_plays_record_that_cannot_be_written_is_named_escaped(tmp_path, capsys):
    """``agents.play --record NAME`` where the hand's record cannot be written: ``cannot write NAME: ...``."""
    from test_play_cli import first_option

    from agents.play import main

    path = str(tmp_path / _full_link(tmp_path, EVIL))
    assert main(["--seed", "3", "--record", path], input_fn=first_option, out=io.StringIO()) == 1
    err = capsys.readouterr().err
    assert err == f"python -m agents.play: cannot write {tmp_path}/{EVIL_SHOWN}: No space left on device\n", err


AGENT_FAILED = f"agent 'plugin' raised ValueError acting at table(s) 0: cannot read {EVIL}"
"""An AgentError: the agent's own exception's text (a plugin agent's, which may quote a file) ends it."""


def test_the_arena_and_play_tell_an_agent_error_and_ctrl_c_in_one_line(tmp_path, monkeypatch, capsys):
    """The arena's ``interrupted (Ctrl-C), no summary; NAME holds ...`` (its --record file) and an agent's failure
    (``...; NAME holds ...`` too), as ``agents.play`` tells one: each one line, escaped."""
    from agents import arena, play
    from mj_env.baselines import AgentError

    def raising(error):
        def raise_it(*args, **kwargs):
            raise error
        return raise_it

    record = str(tmp_path / EVIL)
    argv = ["--agents", "rule,random", "--hands", "1", "--quiet", "--record", record]
    monkeypatch.setattr(arena, "compare", raising(KeyboardInterrupt()))
    assert arena.main(argv) == 130
    assert capsys.readouterr().err == (f"python -m agents.arena: interrupted (Ctrl-C), no summary; {tmp_path}/"
                                       f"{EVIL_SHOWN} holds the hands of the batches played so far\n")
    monkeypatch.setattr(arena, "compare", raising(AgentError(AGENT_FAILED)))
    assert arena.main(argv) == 1
    assert capsys.readouterr().err == (f"python -m agents.arena: {terminal_text(AGENT_FAILED)}; {tmp_path}/"
                                       f"{EVIL_SHOWN} holds the hands of the batches played so far\n")
    monkeypatch.setattr(play.Game, "play", raising(AgentError(AGENT_FAILED)))
    assert play.main(["--seed", "3"], input_fn=lambda prompt: "1", out=io.StringIO()) == 1
    assert capsys.readouterr().err == f"python -m agents.play: {terminal_text(AGENT_FAILED)}\n"


def terminal_text(text: str) -> str:
    return text.replace(EVIL, EVIL_SHOWN)


def test_rollout_improvements_note_names_the_checkpoint_escaped(tmp_path):
    """examples/rollout_improvement.py's first line, ``note: --checkpoint NAME was trained under quemen ...`` (a
    checkpoint of another rule set): the name escaped. The rest of the run is not waited for."""
    pytest.importorskip("torch")
    (tmp_path / EVIL).write_bytes((ROOT / "tests/data/compat/mlp_v1_quemen.pt").read_bytes())
    with subprocess.Popen([sys.executable, str(ROOT / "examples/rollout_improvement.py"), "--checkpoint", EVIL,
                           "--smoke"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT)}) as run:
        try:
            first = run.stdout.readline().decode("utf-8")  # type: ignore[union-attr]
        finally:
            run.kill()
    assert first == (f"note: --checkpoint {EVIL_SHOWN} was trained under quemen; this run labels, trains and plays it "
                     "under beijing (--rules)\n"), first
