"""A calculator line and fake standard outputs for in-process tests of ``python -m mj_env.score``: the
repository's test environment sets PYTHONUNBUFFERED=1, under which subprocess pipe tests cannot see a missing
flush."""
from __future__ import annotations

CALC_LINE = '{"hand":"111m999p222s5z","melds":[{"type":"pong","tiles":"777s","from":2}],"win_tile":"5z"}'


class FailingOut:
    """A standard output whose write is buffered and whose flush fails with ``error``."""

    def __init__(self, fd, error):
        self.fd, self.error = fd, error

    def write(self, text):
        pass

    def flush(self):
        raise self.error

    def fileno(self):
        return self.fd


class Recorder:
    """A standard output that records each write and flush, in order."""

    def __init__(self):
        self.events = []

    def write(self, text):
        self.events.append(("write", text))

    def flush(self):
        self.events.append(("flush",))
