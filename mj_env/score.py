"""``python -m mj_env.score``: the hand calculator (INTERFACES.md 1).

Reads one JSON object per line on standard input and writes one JSON object per line on
standard output, in the same order, flushing each; exits 0 when input ends. Every input line
gets exactly one output line, so a bad line (not JSON, not an object, malformed fields, even an
empty line) answers ``{"error": "<what is wrong and where>"}`` and never stops the stream.
Output is UTF-8 with the Chinese pattern names as written in RULES.md (``ensure_ascii=False``).

    $ echo '{"hand":"111m999p222s5z","melds":[{"type":"pong","tiles":"777s","from":2}],"win_tile":"5z"}' \\
        | python -m mj_env.score
    {"legal": true, "fan": 3, "patterns": {"庄": 1, "对对和": 2}, "shaozhuang": 0, "scores": [9, -3, -3, -3]}
"""
from __future__ import annotations

import json
import sys

from .scoring import InputError, evaluate


def _pairs(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise InputError(f"field {k!r} is given twice")
        obj[k] = v
    return obj


def answer(line: str | bytes) -> dict:
    """The output object for one input line."""
    try:
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                return {"error": f"line is not valid UTF-8: {e}"}
        text = line.strip()
        if not text:
            return {"error": "empty line: expected a JSON object"}
        try:
            obj = json.loads(text, object_pairs_hook=_pairs)
        except json.JSONDecodeError as e:
            return {"error": f"bad JSON: {e.msg} at column {e.colno}"}
        return evaluate(obj)
    except InputError as e:
        return {"error": str(e)}
    except RecursionError:
        return {"error": "input is nested too deeply"}
    except Exception as e:  # noqa: BLE001 -- a bug must not stop the stream; say what happened
        return {"error": f"internal error: {type(e).__name__}: {e}"}


def main(stdin=None, stdout=None) -> int:
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    for line in stdin:
        stdout.write(json.dumps(answer(line), ensure_ascii=False) + "\n")
        stdout.flush()
    return 0


if __name__ == "__main__":
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main())
