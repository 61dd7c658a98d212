"""``python -m mj_env.score``: the hand calculator (docs/INTERFACES.md 1).

Reads one JSON object per line on standard input and writes one JSON object per line on
standard output, in the same order, flushing each; exits 0 when input ends. Every input line
gets exactly one output line, so a bad line (not JSON, not an object, malformed fields, even an
empty line) answers ``{"error": "<what is wrong and where>"}`` and never stops the stream.
Output is UTF-8 with the Chinese pattern names as written in docs/RULES.md (``ensure_ascii=False``).
It takes no arguments: ``--help`` prints the input format (`USAGE`), anything else exits with status 2.

    $ echo '{"hand":"111m999p222s5z","melds":[{"type":"pong","tiles":"777s","from":2}],"win_tile":"5z"}' \\
        | python -m mj_env.score
    {"legal": true, "fan": 3, "patterns": {"庄": 1, "对对和": 2}, "shaozhuang": 0, "scores": [9, -3, -3, -3]}

The whole cycle of a line (decoding, parsing, scoring and writing the answer as JSON) runs
inside `respond`, which returns a line whatever happens, so nothing a line holds can end the
stream: not bytes that are not UTF-8, NUL bytes, JSON nested past the recursion limit, ``NaN``
or ``Infinity`` (not JSON: refused), an integer of 10,000 digits (decoded as a
`~mj_env.lines.HugeInt` that every field refuses, so Python's int/str conversion limit is
never met), nor a bug. An error message is at most `MAX_ERROR` characters and quotes a bad
value only by a short prefix.

The process around the stream never ends in a traceback:

- the reader goes away (``python -m mj_env.score < big.jsonl | head -1``: a broken pipe): it
  stops at once, quietly, with exit status `EXIT_BROKEN_PIPE` = 141, the status the shell shows
  for a tool killed by SIGPIPE (``cat``, ``grep``); so ``set -o pipefail`` treats it the same;
- standard input or output is closed (``<&-``, ``>&-``), a read or a write fails (``> /dev/full``):
  one line on standard error (when there is one), ``python -m mj_env.score: <why>``, and exit
  status 1;
- a line longer than 16 MiB (`mj_env.lines.MAX_LINE_BYTES`; input without line breaks, such as
  ``/dev/zero``) is read past in pieces and answered ``{"error": "line longer than ..."}``, so memory
  stays bounded and the stream goes on;
- Ctrl-C once it is reading lines: exit status 130, no traceback (a SIGINT that the system
  hands to another thread, e.g. a numpy one, is only seen at exit, after the input ends).
"""
from __future__ import annotations

import io
import json
import os
import sys

from .calculator import InputError, evaluate
from .lines import KeyGivenTwice, TooLong, bounded_lines, json_line, load_json, parse_json_int, skip_bom

EXIT_BROKEN_PIPE = 141
"""Exit status when the reader of standard output goes away (128 + SIGPIPE, as the shell shows
a tool that SIGPIPE ended)."""

EXIT_FAILURE = 1
"""Exit status when standard input or output is closed, or reading or writing fails."""

MAX_ERROR = 300
"""Longest error message; a longer one is cut (only a bug could make one)."""

_FALLBACK = '{"error": "internal error: the answer to this line could not be written"}'


def _no_constant(name: str):
    raise InputError(f"bad JSON: {name} is not a JSON number")


def answer(line: str | bytes) -> dict:
    """The output object for one input line (never raises an Exception)."""
    try:
        out = _answer(line)
    except InputError as e:
        out = {"error": str(e)}
    except RecursionError:
        out = {"error": "input is nested too deeply"}
    except Exception as e:  # noqa: BLE001 -- a bug must not stop the stream; say what happened
        out = {"error": f"internal error: {type(e).__name__}: {_safe_str(e)}"}
    if "error" in out:
        message = out["error"]
        if len(message) > MAX_ERROR:
            out = {"error": message[:MAX_ERROR - 3] + "..."}
    return out


def _safe_str(e: Exception) -> str:
    try:
        return str(e)[:200]
    except Exception:  # noqa: BLE001
        return "(no message)"


def _answer(line: str | bytes) -> dict:
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return {"error": f"line is not valid UTF-8: {e.reason} at byte {e.start}"}
    text = line.strip()
    if not text:
        return {"error": "empty line: expected a JSON object"}
    try:
        obj = load_json(text, parse_int=parse_json_int, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        return {"error": f"bad JSON: {e.msg.removesuffix(' at')} at column {e.colno}"}
    except KeyGivenTwice as e:
        return {"error": str(e)}
    return evaluate(obj)


def respond(line: str | bytes) -> str:
    """The output line for one input line, without its newline: one JSON object, always."""
    try:
        out = answer(line)
        try:
            text = json_line(out)  # (U+2028 and its kin escaped: one answer one line for str.splitlines)
            text.encode("utf-8")  # a lone surrogate (from a \\ud800 escape) cannot be written raw
        except UnicodeEncodeError:
            text = json.dumps(out)  # (ASCII: every line break escaped)
        return text
    except Exception as e:  # noqa: BLE001 -- e.g. a number json cannot write
        try:
            return json.dumps({"error": f"internal error: the answer could not be written ({type(e).__name__})"})
        except Exception:  # noqa: BLE001
            return _FALLBACK


def main(stdin=None, stdout=None) -> int:
    """Answer every line of ``stdin`` (bytes; default standard input) on ``stdout`` (text; default
    standard output); the exit status: 0 at the end of input, else as the module docstring says."""
    if stdin is None:
        if sys.stdin is None:
            return _fail("standard input is closed")
        stdin = sys.stdin.buffer
    if stdout is None:
        if sys.stdout is None:
            return _fail("standard output is closed")
        stdout = sys.stdout
    lines = skip_bom(bounded_lines(stdin))  # a line past 16 MiB (no line breaks: /dev/zero) is one bad line
    try:
        while True:
            try:
                line = next(lines)
            except StopIteration:
                return 0
            except OSError as e:
                return _fail(f"cannot read standard input: {_reason(e)}")
            if isinstance(line, TooLong):
                stdout.write(json.dumps({"error": line.message()}) + "\n")
                stdout.flush()
                continue
            stdout.write(respond(line) + "\n")
            stdout.flush()
    except BrokenPipeError:
        _discard(stdout)
        return EXIT_BROKEN_PIPE
    except OSError as e:
        _discard(stdout)
        return _fail(f"cannot write to standard output: {_reason(e)}")
    except KeyboardInterrupt:
        _discard(stdout)
        return 130


def _reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _fail(message: str, status: int = EXIT_FAILURE) -> int:
    """Say on standard error (if there is one) why the stream stops; the exit status."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(f"python -m mj_env.score: {message}\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return status


def _discard(stdout) -> None:
    """Point the file descriptor under ``stdout`` at the null device, so that what is left in its
    buffer is dropped at exit instead of failing again there (a traceback-free end)."""
    try:
        fd = stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)


USAGE = """usage: python -m mj_env.score < lines.jsonl

The hand calculator of docs/INTERFACES.md 1: one JSON object per line on standard input (required
fields "hand" and "win_tile"; optional "rules", "melds", "winner", "dealer", "discarder", "hui" or
"indicator", "situation", "shaozhuang_rounds", "hubao", "flowers", "ting", "base"), one JSON object
per line on standard output: {"legal": true, "fan", "patterns", "shaozhuang", "scores"}, {"legal":
false, "reason"} or {"error"}. It takes no arguments; it exits 0 when input ends.

example:
  echo '{"hand":"111m999p222s5z","melds":[{"type":"pong","tiles":"777s","from":2}],"win_tile":"5z"}' \\
    | python -m mj_env.score
"""


def cli(argv: list[str]) -> int:
    """The command line: ``-h``/``--help`` (among any arguments) prints `USAGE`; other arguments are
    refused (exit 2, as argparse does) rather than ignored while the process waits on standard input."""
    if "-h" in argv or "--help" in argv:
        try:  # as the stream's answers: a reader that left (| head -0) or a failed write ends without a traceback
            if sys.stdout is None:
                return _fail("standard output is closed")
            sys.stdout.write(USAGE)
            sys.stdout.flush()
        except BrokenPipeError:
            _discard(sys.stdout)
            return EXIT_BROKEN_PIPE
        except OSError as e:
            _discard(sys.stdout)
            return _fail(f"cannot write to standard output: {_reason(e)}")
        return 0
    if argv:
        return _fail(f"takes no arguments, got {argv[0][:40]!r}; it reads JSON lines on standard input "
                     "(--help shows the format)", status=2)
    return main()


if __name__ == "__main__":
    if isinstance(sys.stdout, io.TextIOWrapper):  # (not None, as under pythonw; a file's text stream)
        sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(cli(sys.argv[1:]))
