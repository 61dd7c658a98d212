"""``python -m agents.play`` reads its answers in bounded memory: ``input()`` held a whole line, so ``< /dev/zero``
(a line without end) grew one until the process was killed for memory (a MemoryError traceback under a memory
limit). An answer longer than ``agents.play.MAX_ANSWER`` characters is read past to its end and answered with one
line, and the question comes again; the prompt, the end of input, Ctrl-C and a terminal are as they were."""
from __future__ import annotations

import builtins
import io
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from test_play_cli import ROOT, TOTALS, first_option, play

from agents.play import MAX_ANSWER, PROMPT, AnswerTooLong, _bounded_line, main, read_answer

LIMIT = 512 << 20
"""The address space a subprocess gets (RLIMIT_AS): ``python -m agents.play`` plays a game in about 170 MiB of it
(VmPeak, measured); before the bounded reading, ``< /dev/zero`` ran out of it within a second of the first
question."""
ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}  # (small, steady VmPeak)
TOO_LONG = "answer too long (more than 4,096 characters)"


def _limited():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _need_a_memory_limit():
    resource = pytest.importorskip("resource")  # (not on Windows)
    if not hasattr(resource, "RLIMIT_AS") or sys.platform == "darwin":  # (macOS does not enforce RLIMIT_AS)
        pytest.skip("no RLIMIT_AS here")
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY and hard < LIMIT:
        pytest.skip("the address space is limited below the test's limit already")


def _started(stdin, out_path, **kw) -> subprocess.Popen:
    with open(out_path, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "agents.play", "--seed", "1"], stdin=stdin, stdout=out,
                                stderr=subprocess.PIPE, cwd=ROOT, env={**os.environ, **ONE_THREAD}, **kw)


def _wait_for_the_question(proc: subprocess.Popen, out_path) -> None:
    deadline = time.monotonic() + 120
    while PROMPT.encode() not in out_path.read_bytes():
        assert proc.poll() is None, f"ended before its first question: {proc.stderr.read()[-2000:]!r}"
        assert time.monotonic() < deadline, "no question within 120 s"
        time.sleep(0.05)


def test_an_endless_line_is_read_in_bounded_memory(tmp_path):
    """``< /dev/zero``: NUL characters without a line break, forever. The program reads them past (nothing played)
    under a 512 MiB address space for two seconds after its first question; it was a MemoryError traceback within
    one."""
    _need_a_memory_limit()
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    out_path = tmp_path / "out"
    with open("/dev/zero", "rb") as zero, _started(zero, out_path, preexec_fn=_limited) as proc:
        try:
            _wait_for_the_question(proc, out_path)
            time.sleep(2)
            alive = proc.poll() is None
        finally:
            proc.kill()
            _, err = proc.communicate(timeout=60)
    assert alive, f"exit status {proc.returncode}: {err[-2000:]!r}"
    out = out_path.read_bytes().decode("utf-8")
    assert out.endswith(PROMPT) and out.count(PROMPT) == 1  # still reading past the first answer
    assert "discards" not in out and err == b""


def test_a_line_longer_than_the_memory_limit_then_an_answer(tmp_path):
    """600 MiB of ``x`` and a line break (more than the process's whole address space), then answers: one line
    says the answer was too long, the question comes again, and the game plays on to its end."""
    _need_a_memory_limit()
    out_path = tmp_path / "out"
    proc = _started(subprocess.PIPE, out_path, preexec_fn=_limited)
    assert proc.stdin is not None and proc.stderr is not None

    def feed():
        try:
            piece = b"x" * (1 << 20)
            for _ in range(600):
                proc.stdin.write(piece)
            proc.stdin.write(b"\n" + b"1\n" * 400)
            proc.stdin.close()
        except (BrokenPipeError, ValueError):  # (the program ended early: the assertions below say how)
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        err = proc.stderr.read()
        proc.wait(timeout=300)
    finally:
        proc.kill()
        proc.stderr.close()
    writer.join(timeout=60)
    out = out_path.read_bytes().decode("utf-8")
    assert proc.returncode == 0 and err == b"", err[-2000:]
    assert out.count(TOO_LONG) == 1 and f"{PROMPT}{TOO_LONG}" in out and "not understood" not in out
    assert f"{TOO_LONG}: type a number from the list, an action name or a tile code (? for help)\n{PROMPT}East (you) " \
           "discards" in out
    assert TOTALS.search(out)


def test_an_answer_of_the_longest_length_is_read_and_a_longer_one_read_past():
    """``MAX_ANSWER`` characters (the line break left out) are an answer; one more is ``AnswerTooLong``, read to its
    end, so the next line is the next answer; a long last line without a line break, then the end of input."""
    longest = "1" + " " * (MAX_ANSWER - 1)
    stream = io.StringIO(f"{longest}\n{longest} \n2\n{'y' * (5 * MAX_ANSWER)}")
    assert _bounded_line(stream) == longest
    with pytest.raises(AnswerTooLong):
        _bounded_line(stream)
    assert _bounded_line(stream) == "2"
    with pytest.raises(AnswerTooLong):
        _bounded_line(stream)
    with pytest.raises(EOFError):
        _bounded_line(stream)
    assert _bounded_line(io.StringIO("last")) == "last"  # a last line without a break, as input() reads it


def test_the_output_is_the_same_as_input_gave_it(monkeypatch, capsys):
    """Standard input that is no terminal: the prompts, answers and messages come out exactly as ``input()`` wrote
    them (the prompt on standard output, no line break after it), the end of input included."""
    answers = "nonsense\n?\n" + "1\n" * 5

    def run(input_fn) -> tuple[int, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
        rc = main(["--seed", "1"], input_fn=input_fn)
        return rc, capsys.readouterr().out

    before = run(builtins.input)
    assert before[0] == 0 and "input ended: the game stops" in before[1] and before[1].count(PROMPT) == 8  # (the last one met the end)
    assert run(read_answer) == before


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_is_read_by_input(monkeypatch):
    """A terminal is read by ``input()`` itself (its prompt and line editing as they were); what it gives longer
    than ``MAX_ANSWER`` (a terminal's line holds 4,095 characters on Linux) is refused the same way."""
    asked = []
    given = iter(["5z", "x" * (MAX_ANSWER + 1)])

    def fake_input(prompt):
        asked.append(prompt)
        return next(given)

    monkeypatch.setattr(sys, "stdin", _Terminal(""))
    monkeypatch.setattr(builtins, "input", fake_input)
    assert read_answer(PROMPT) == "5z"
    with pytest.raises(AnswerTooLong):
        read_answer(PROMPT)
    assert asked == [PROMPT, PROMPT]


def test_a_long_answer_through_main_plays_nothing():
    """Through ``Game``: an input function's ``AnswerTooLong`` is one line and the question again."""
    calls = []

    def input_fn(prompt):
        calls.append(prompt)
        if len(calls) == 1:
            raise AnswerTooLong
        return first_option(prompt)

    rc, out, _ = play(["--seed", "1"], input_fn)
    assert rc == 0 and out.count(TOO_LONG) == 1 and TOTALS.search(out)
    first_discard = out.index("East (you) discards")
    assert out.index(TOO_LONG) < first_discard


@pytest.mark.skipif(not hasattr(os, "openpty") or sys.platform == "win32", reason="no pseudo-terminal here")
def test_the_entry_point_at_a_terminal():
    """On a (pseudo-)terminal the program asks and reads as before: the prompt is shown, an answer plays."""
    main_fd, sub_fd = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "agents.play", "--seed", "1"], stdin=sub_fd, stdout=sub_fd,
                                stderr=sub_fd, cwd=ROOT, env={**os.environ, **ONE_THREAD}, close_fds=True)
    finally:
        os.close(sub_fd)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        sent = 0
        while time.monotonic() < deadline:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # (EIO: the program ended, its terminal closed)
                break
            if not chunk:
                break
            seen += chunk
            if seen.count(PROMPT.encode()) > sent:
                sent += 1
                os.write(main_fd, b"1\n" if sent == 1 else b"quit\n")
        proc.wait(timeout=60)
    finally:
        proc.kill()
        os.close(main_fd)
    text = seen.decode("utf-8", "replace")
    assert proc.returncode == 0, text[-2000:]
    assert "East (you) discards" in text and "quit: the game stops" in text


@pytest.mark.skipif(sys.platform == "win32", reason="no SIGINT to send")
def test_ctrl_c_while_reading_an_answer_is_status_130(tmp_path):
    out_path = tmp_path / "out"
    with _started(subprocess.PIPE, out_path) as proc:
        try:
            _wait_for_the_question(proc, out_path)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
    assert proc.returncode == 130 and err == b"", err[-2000:]
    assert "interrupted (Ctrl-C): the game stops" in out_path.read_text(encoding="utf-8")

