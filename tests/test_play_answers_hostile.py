"""A hostile review of ``python -m agents.play``'s bounded answer reading (``agents.play.read_answer``), through the
real command line where it matters.

A fault found and fixed: an answer file with CRLF line ends had a shorter limit than one with LF ends (the longest
answer, ``MAX_ANSWER`` characters and its CR LF line break, was refused as too long, the same answer with an LF break
was played). The rest pins what held."""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from test_play_cli import ROOT, TOTALS
from test_play_cli_input_limits import ONE_THREAD

from agents.play import MAX_ANSWER, PROMPT, AnswerTooLong, _bounded_line

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
