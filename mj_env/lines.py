"""JSON-lines input read one line at a time with a bound on a line's length.

``for line in stream`` reads a whole line before it yields it, so a stream without line breaks
(``/dev/zero``, a binary file, a runaway writer) grows one line until memory runs out. The readers of
``python -m mj_env.score`` and ``python -m mj_env.records`` use `bounded_lines` instead: a line longer
than ``limit`` bytes is read past in pieces and yields `TooLong` in its place, so it becomes one bad
line of the stream while memory stays bounded. `TooLong` comes before the rest of its line is read, so
a reader that stops there (``mj_env.records``: no hand record is that long) never reads the rest.
"""
from __future__ import annotations

from collections.abc import Iterator

MAX_LINE_BYTES = 1 << 24
"""Longest line read (16 MiB, line break included). A calculator line is under a kilobyte, a hand
record a few; this bound only stops a stream that has no line breaks."""

_PIECE = 1 << 20


class TooLong:
    """Stands for a line longer than the bound (yielded by `bounded_lines` in its place)."""

    def __init__(self, limit: int):
        self.limit = limit

    def message(self) -> str:
        return f"line longer than {self.limit:,} bytes: skipped (one JSON object per line is expected)"


def bounded_lines(stream, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | str | TooLong]:
    """The lines of ``stream`` (a binary or text file), each at most ``limit`` bytes or characters, a
    longer one as `TooLong`. An object without ``readline`` (a list of lines) is iterated as it is."""
    readline = getattr(stream, "readline", None)
    if readline is None:
        yield from stream
        return
    while True:
        line = readline(limit + 1)
        if not line:
            return
        if len(line) <= limit:
            yield line
            continue
        yield TooLong(limit)  # before the rest is read: a reader may stop here (a stream that never ends)
        end = line[-1:]
        while end not in (b"\n", "\n"):  # read past the rest of the long line, a piece at a time
            piece = readline(_PIECE)
            if not piece:
                break
            end = piece[-1:]
