"""A hostile review of ``python -m agents.play``'s bounded answer reading (``agents.play.read_answer``) and of the
command lines' one-line warnings (``agents.arena.tell_warning``), through the real command line where it matters.

Faults found and fixed: an answer file with CRLF line ends had a shorter limit than one with LF ends (the
longest answer, ``MAX_ANSWER`` characters and its CR LF line break, was refused as too long, the same answer with an
LF break was played); and a checkpoint's file name went into the ``warning:`` and ``note:`` lines (and train.py's
lines naming ``--init-from``) as it was, so a name with a line break wrote a second, fake line and one with an escape
sequence steered the terminal. And a documented exit status that did not hold: standard output that cannot be
written (``> /dev/full``, ``| head``) is exit status 1; the game went on to no one and ended with 0. The rest pins
what held."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings

import pytest
from test_play_cli import ROOT, TOTALS
from test_play_cli_input_limits import ONE_THREAD

from agents.play import MAX_ANSWER, PROMPT, AnswerTooLong, _bounded_line
from agents.play import main as play_main

TOO_LONG = "answer too long (more than 4,096 characters)"
LONGEST = " " * (MAX_ANSWER - 1) + "1"
"""The longest answer: the first option, ``MAX_ANSWER`` characters."""


def _play(stdin: bytes | None, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agents.play", "--seed", "1", *args], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=300, check=False,
                          env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT), **env})


# --------------------------------------------------------------------------- answers: the fault


def test_a_crlf_line_break_is_left_out_of_the_limit_as_an_lf_one_is():
    """``MAX_ANSWER`` characters before a CR LF are an answer, as they are before an LF (the CR is whitespace to
    the answer, as ``input()`` gives it); one character more is too long either way."""
    for end in ("\n", "\r\n"):
        stream = io.StringIO(f"{LONGEST}{end}{LONGEST} {end}2{end}")
        assert _bounded_line(stream).rstrip("\r") == LONGEST, repr(end)
        with pytest.raises(AnswerTooLong):
            _bounded_line(stream)
        assert _bounded_line(stream).rstrip("\r") == "2"  # (the long one was read to its end)
        with pytest.raises(EOFError):
            _bounded_line(stream)


@pytest.mark.skipif(sys.platform == "win32", reason="standard input splits lines at LF only where it is not Windows")
def test_an_answers_file_with_crlf_line_ends_plays_as_one_with_lf():
    """Through the command line: the longest answer and ``quit``, written with either line end, play one discard."""
    outs = []
    for end in (b"\n", b"\r\n"):
        done = _play(LONGEST.encode() + end + b"quit" + end)
        out = done.stdout.decode("utf-8")
        assert done.returncode == 0 and done.stderr == b"", done.stderr[-2000:]
        assert TOO_LONG not in out and "East (you) discards" in out and "quit: the game stops" in out, end
        outs.append(out)
    assert outs[0] == outs[1]


# --------------------------------------------------------------------------- answers: what held


def _answers_read(stdin: bytes, **env: str) -> str:
    done = _play(stdin, **env)
    assert done.returncode == 0 and done.stderr == b"", done.stderr[-2000:]
    out = done.stdout.decode("utf-8")
    assert "input ended: the game stops. totals after 0 of 1 hand(s)" in out
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="standard input splits lines at LF only where it is not Windows")
@pytest.mark.parametrize(("stdin", "env", "said"), [
    (b"\x00\x00\n", {}, "not understood: '\\x00\\x00'"),
    (b"\xff\xfe\n", {}, "not understood: '\\udcff\\udcfe'"),
    (b"\xff\xfe\n", {"PYTHONIOENCODING": "ascii"}, "not understood: '\\udcff\\udcfe'"),
    (b"\xff\xfe\n", {"LANG": "C", "LC_ALL": "C"}, "not understood: '\\udcff\\udcfe'"),
    (b"1\r2\n", {}, "not understood: '1 2'"),  # (a lone CR is no line break here)
    (b" \t \n", {}, "an empty answer"),
    # 4,096 three-byte characters: the reader's 8,192-byte chunk ends inside one; a whole answer, not understood
    ("惠".encode() * MAX_ANSWER + b"\n", {}, "not understood: '" + "惠" * 40 + "...'"),
    ("惠".encode() * (MAX_ANSWER + 1) + b"\n", {}, TOO_LONG),
    (b"x" * (MAX_ANSWER + 1), {}, TOO_LONG),  # a long last line, then the end of input
])
def test_hostile_answers_are_answered_in_one_line_and_the_question_comes_again(stdin, env, said):
    out = _answers_read(stdin, **env)
    assert f"{PROMPT}{said}" in out and "discards" not in out


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell's redirections")
@pytest.mark.parametrize("redirect", ["<&-", "</dev/null"])
def test_no_input_is_the_end_of_input(redirect):
    done = subprocess.run(f'"{sys.executable}" -m agents.play --seed 1 {redirect}', shell=True, capture_output=True,
                          cwd=ROOT, timeout=300, check=False, env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stderr == b"", done.stderr[-2000:]
    assert b"input ended: the game stops. totals after 0 of 1 hand(s)" in done.stdout


def test_many_long_answers_in_a_row_are_each_told_once():
    """200 answers of 100,000 characters, then the first option to every question: each is told in one line and
    the game plays to its end (20 MB read past in pieces; measured: well under a second, no growth in memory)."""
    done = _play((b"x" * 100_000 + b"\n") * 200 + b"1\n" * 400)
    out = done.stdout.decode("utf-8")
    assert done.returncode == 0 and done.stderr == b"", done.stderr[-2000:]
    assert out.count(TOO_LONG) == 200 and TOTALS.search(out)


# --------------------------------------------------------------------------- an output that fails


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_an_output_that_cannot_be_written_stops_the_game_with_status_1(tmp_path):
    """``> /dev/full``: the documented exit status 1 (``agents.play``'s doc, ``--help``), after the one line of
    ``guard_output``; the game stops there, no hand played (``--record`` gets none). It was exit status 0 after a
    whole game played to no one."""
    record = tmp_path / "hands.jsonl"
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "agents.play", "--seed", "1", "--record", str(record)],
                              input=b"1\n" * 400, stdout=full, stderr=subprocess.PIPE, cwd=ROOT, timeout=300,
                              check=False, env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr == (b"python -m agents.play: cannot write to standard output: No space left on device; the "
                           b"rest of its output is dropped\n")
    assert record.read_bytes() == b""


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pipe's broken end")
def test_a_reader_that_left_stops_the_game_with_status_1(tmp_path):
    """``| head``: the reader leaves while the program waits for its first answer; the answer is read, the next
    line cannot be written: exit status 1 and nothing said (no traceback), the game stopped (it played on to its
    end, exit status 0)."""
    record = tmp_path / "hands.jsonl"
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "agents.play", "--seed", "1", "--record", str(record)],
                            stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT,
                            env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT)})
    os.close(write_end)
    reading = True
    try:
        seen = b""
        while PROMPT.encode() not in seen:
            chunk = os.read(read_end, 65536)
            assert chunk, "ended before its first question"
            seen += chunk
        os.close(read_end)  # the reader leaves
        reading = False
        _, err = proc.communicate(b"1\n" * 400, timeout=300)
    finally:
        proc.kill()
        if reading:
            os.close(read_end)
    assert proc.returncode == 1 and err == b"", err[-2000:]
    assert record.read_bytes() == b""


class _GoneAt(io.StringIO):
    """``guard_output``'s stream, as the game sees it: ``gone`` once a text with ``at`` in it is written."""

    def __init__(self, at: str):
        super().__init__()
        self.at, self.gone = at, False

    def write(self, s):
        self.gone = self.gone or self.at in s
        return super().write(s)


def test_a_hand_that_ends_as_the_output_fails_is_recorded(tmp_path):
    """The output fails as the first hand of two ends: that hand is in ``--record`` all the same; the game stops at
    the next question, status 1. The same output failing after the last hand: status 1 too."""
    out = _GoneAt("=== hand 1 of 2 over")
    asked = []
    rc = play_main(["--seed", "1", "--hands", "2", "--record", str(tmp_path / "two.jsonl")],
                   input_fn=lambda prompt: asked.append(out.gone) or "1", out=out)
    assert rc == 1 and len((tmp_path / "two.jsonl").read_text(encoding="utf-8").splitlines()) == 1
    assert asked and not any(asked)  # never asked once it was gone
    assert play_main(["--seed", "1"], input_fn=lambda prompt: "1", out=_GoneAt("=== game over")) == 1
    assert play_main(["--seed", "1"], input_fn=lambda prompt: "1", out=_GoneAt("no such text")) == 0


# --------------------------------------------------------------------------- the warning lines

EVIL = "nl\nwarning: a fake line \x1b[31mred\x1b[0m \rover.pt"
EVIL_SHOWN = "nl\\nwarning: a fake line \\x1b[31mred\\x1b[0m \\rover.pt"


def _evil_checkpoint(tmp_path, name: str | bytes = EVIL):
    pytest.importorskip("torch")
    from test_warning_lines import _checkpoint_with_a_key_beside_its_format
    if sys.platform == "win32":
        pytest.skip("no line breaks or escapes in Windows file names")
    later = _checkpoint_with_a_key_beside_its_format(tmp_path)
    path = os.path.join(os.fsencode(tmp_path), name if isinstance(name, bytes) else os.fsencode(name))
    os.rename(later, path)
    return os.fsdecode(path)


def _said(shown: str) -> str:
    return (f"warning: {shown}: its key 'normalizer' is not of format mj_agents.policy/1 and left out (written by a "
            "later version of this package, or by another tool?)")


def _one_line(stderr: str, shown: str) -> None:
    assert stderr.splitlines() == [_said(shown)], stderr
    assert "\x1b" not in stderr and "\r" not in stderr


@pytest.mark.skipif(sys.platform == "win32", reason="no line breaks or escapes in Windows file names")
def test_the_arenas_warning_line_escapes_the_file_name(tmp_path):
    """A checkpoint named with a line break, escape sequences and a carriage return: one ``warning:`` line with
    those escaped (``mj_env.messages.printable``); it was a second line, ``warning: a fake line ...``, in red."""
    path = _evil_checkpoint(tmp_path)
    done = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"{path},rule", "--hands", "1",
                           "--quiet"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    _one_line(done.stderr, f"{tmp_path}/{EVIL_SHOWN}")


@pytest.mark.skipif(sys.platform == "win32", reason="no line breaks or escapes in Windows file names")
def test_the_arenas_note_line_escapes_the_file_name(tmp_path):
    """A checkpoint trained under beijing playing under quemen: the ``note:`` line (a RulesMismatchWarning, which
    begins with the file) is one line too."""
    path = _evil_checkpoint(tmp_path)
    done = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"{path},rule", "--hands", "1",
                           "--rules", "quemen", "--quiet"], check=False, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    note = f"note: {tmp_path}/{EVIL_SHOWN} was trained for rule set 'beijing' and plays under 'quemen'"
    assert done.stderr.splitlines() == [_said(f"{tmp_path}/{EVIL_SHOWN}"), note], done.stderr


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names of any bytes: Linux")
def test_plays_warning_line_escapes_the_file_name(tmp_path, capsys):
    """The same through ``agents.play``; a name that is not UTF-8 (``caf\\xe9``: Latin-1) is shown as its bytes'
    escapes (``mj_env.lines.utf8_text``)."""
    for name, shown in ((EVIL, EVIL_SHOWN), (b"caf\xe9.pt", "caf\\xe9.pt")):
        path = _evil_checkpoint(tmp_path, name)
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            rc = play_main(["--opponents", f"{path},rule,rule", "--seed", "1"], input_fn=lambda prompt: "quit",
                           out=io.StringIO())
        assert rc == 0
        _one_line(capsys.readouterr().err, f"{tmp_path}/{shown}")
        os.remove(path)


@pytest.mark.skipif(sys.platform == "win32", reason="no line breaks or escapes in Windows file names")
def test_train_pys_lines_escape_the_file_name(tmp_path):
    """``train.py --init-from`` that file under quemen: the ``warning:`` line on standard error, and on standard
    output the plan's ``start from`` and the ``note: --init-from ... was trained under beijing`` line, each one line
    with the name escaped."""
    path = _evil_checkpoint(tmp_path)
    done = subprocess.run([sys.executable, str(ROOT / "train.py"), "--init-from", path, "--rules", "quemen",
                           "--total-steps", "0", "--final-eval-hands", "0", "--eval-every", "0", "--exp-name", "evil",
                           "--no-progress"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    shown = f"{tmp_path}/{EVIL_SHOWN}"
    _one_line(done.stderr, shown)
    assert "\x1b" not in done.stdout and "\r" not in done.stdout and "a fake line" not in done.stdout.replace(shown, "")
    assert f"start from {shown}" in done.stdout
    assert f"note: --init-from {shown} was trained under beijing; this run trains it under quemen\n" in done.stdout
