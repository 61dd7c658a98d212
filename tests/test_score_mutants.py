"""Gaps found by a full mutation round of mj_env/score.py (the calculator's command line; every mutant site that the
sampled audit of tests/test_sampled_mutants.py did not try). Each test here failed under the mutant named in its
docstring and passes on the code. The repository's test environment sets PYTHONUNBUFFERED=1, under which subprocess
pipe tests cannot see a missing flush or a buffer left to fail at exit, so these check in process with fake streams."""
from __future__ import annotations

import io
import json
import os

import pytest
from score_io import CALC_LINE, FailingOut, Recorder

from mj_env import score


@pytest.fixture
def pipe_fd():
    """The write end of a pipe, standing in for standard output's descriptor."""
    read_end, write_end = os.pipe()
    yield write_end
    os.close(read_end)
    os.close(write_end)


def _points_at_null(fd: int) -> bool:
    return os.path.samestat(os.fstat(fd), os.stat(os.devnull))


@pytest.mark.parametrize("error,status,said", [
    (BrokenPipeError(32, "Broken pipe"), 141, ""),
    (OSError(28, "No space left on device"), 1,
     "python -m mj_env.score: cannot write to standard output: No space left on device\n"),
    (KeyboardInterrupt(), 130, "")])
def test_a_stream_whose_output_fails_points_stdout_at_the_null_device(pipe_fd, capsys, error, status, said):
    """``python -m mj_env.score > /dev/full`` (or ``| head -1``, or Ctrl-C in a write): main returns 1 with one line
    (141 or 130 quietly) and points the descriptor at the null device, so the buffer's flush at exit cannot fail again
    with a traceback (mj_env/score.py docstring). Mutants: no _discard in main's OSError or KeyboardInterrupt
    handler."""
    assert score.main(io.BytesIO((CALC_LINE + "\n").encode()), FailingOut(pipe_fd, error)) == status
    assert _points_at_null(pipe_fd)
    assert capsys.readouterr().err == said



def test_the_answer_to_a_line_too_long_is_flushed_before_reading_on(monkeypatch):
    """A line past the length limit is answered ``{"error": "line longer than ..."}`` and flushed like any answer
    (mj_env/score.py docstring: one line out per line in, each flushed), so a caller that waits reads it. Mutant: no
    flush after the too-long answer (the next answer's flush would carry it; at the end, nothing)."""
    from mj_env import lines
    monkeypatch.setattr(lines.bounded_lines, "__defaults__", (len(CALC_LINE) + 10,))  # the limit, for a short test
    out = Recorder()
    assert score.main(io.BytesIO(b"x" * 4 * len(CALC_LINE) + b"\n" + (CALC_LINE + "\n").encode()), out) == 0
    assert [e[0] for e in out.events] == ["write", "flush", "write", "flush"]
    assert "longer than" in json.loads(out.events[0][1])["error"]
    assert json.loads(out.events[2][1])["legal"] is True


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open descriptors in /proc/self/fd")
def test_discard_leaves_no_descriptor_open(pipe_fd):
    """_discard opens the null device only to copy it onto standard output's descriptor, and closes it again (mutant:
    the descriptor of the null device left open, one more each call)."""
    before = len(os.listdir("/proc/self/fd"))
    score._discard(FailingOut(pipe_fd, OSError()))
    assert _points_at_null(pipe_fd)
    assert len(os.listdir("/proc/self/fd")) == before


def test_with_no_standard_error_a_refusal_keeps_its_own_status(monkeypatch):
    """``python -m mj_env.score --bogus 2>&-``: with no standard error there is nowhere to say why, but the exit status
    is still the refusal's 2 (and a closed standard output's 1), not an AttributeError's. Mutant: _fail wrote to
    sys.stderr even when it is None (the AttributeError ended the process with status 1, which
    tests/test_score_cli.py's ``>&- 2>&-`` run cannot tell from the right 1)."""
    monkeypatch.setattr("sys.stderr", None)
    assert score.cli(["--bogus"]) == 2
    assert score._fail("standard output is closed") == 1


def test_a_bug_is_quoted_by_the_first_200_characters_of_its_message(monkeypatch):
    """A bug in the calculator is answered "internal error: <type>: <message>", the message cut to its first 200
    characters (well within MAX_ERROR, so the answer names the type and is never cut again). Mutant: 201."""
    def boom(obj):
        raise RuntimeError("y" * 5000)

    monkeypatch.setattr(score, "evaluate", boom)
    assert score.answer(CALC_LINE) == {"error": "internal error: RuntimeError: " + "y" * 200}
