"""JSON-lines input read one line at a time with a bound on a line's length.

``for line in stream`` reads a whole line before it yields it, so a stream without line breaks
(``/dev/zero``, a binary file, a runaway writer) grows one line until memory runs out. The readers of
``python -m mj_env.score`` and ``python -m mj_env.records`` use `bounded_lines` instead: a line longer
than ``limit`` bytes is read past in pieces and yields `TooLong` in its place, so it becomes one bad
line of the stream while memory stays bounded. `TooLong` comes before the rest of its line is read, so
a reader that stops there (``mj_env.records``: no hand record is that long) never reads the rest.

`skip_bom` drops a byte-order mark at the start of such a stream.

`load_json` reads one line's JSON as the calculator and the records checker both take it: an object that gives a
key twice is refused (`KeyGivenTwice`, naming the field and where), not read as its last value.

`guard_output` is for the other end of a command line: output to a reader that has gone away is dropped
(`DropWhenReaderGone`), so that the program finishes its work instead of dying of a broken pipe.
`json_line` writes one value of JSON Lines as one line for every line splitter.
`terminal_line` and `ArgumentParser` are for its standard error: a message that quotes a file name, or text
from a file, as one line with that text escaped.
"""
from __future__ import annotations

import argparse
import codecs
import itertools
import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn, TypeVar

from .messages import printable

MAX_LINE_BYTES = 1 << 24
"""Longest line read (16 MiB, line break included). A calculator line is under a kilobyte, a hand
record a few; this bound only stops a stream that has no line breaks."""

_PIECE = 1 << 20

_Line = TypeVar("_Line", bytes, str)  # a binary stream's lines or a text stream's


class TooLong:
    """Stands for a line longer than the bound (yielded by `bounded_lines` in its place)."""

    def __init__(self, limit: int):
        self.limit = limit

    def message(self) -> str:
        return f"line longer than {self.limit:,} bytes: skipped (one JSON object per line is expected)"


def bounded_lines(stream: Iterable[_Line], limit: int = MAX_LINE_BYTES) -> Iterator[_Line | TooLong]:
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


BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte-order mark, which an editor may put at the start of a file (RFC 8259 lets a reader skip it)."""


def skip_bom(lines: Iterable[_Line | TooLong]) -> Iterator[_Line | TooLong]:
    """``lines`` (of `bounded_lines`) with a byte-order mark at the start of the first line removed: a file saved
    "UTF-8 with BOM" reads as the same file without it."""
    first = True
    for line in lines:
        if first and not isinstance(line, TooLong):
            if isinstance(line, bytes):
                line = line.removeprefix(BOM)
            else:
                line = line.removeprefix(BOM.decode())
        first = False
        yield line


class KeyGivenTwice(ValueError):
    """A JSON object gives a key twice (which value was meant?): ``field 'type' is given twice in melds[1]``."""


class _Twice(dict):
    """A JSON object that gave ``key`` twice (the text is refused once it is read whole, naming where)."""

    key = ""


def _pairs(pairs, twice: list):
    """One JSON object as a dict; one that gives a key twice is a ``_Twice``, also noted in ``twice``."""
    obj: dict = {}
    for k, v in pairs:
        if k in obj:
            obj = _Twice(obj)
            obj.key = k
            twice.append(obj)
            break
        obj[k] = v
    return obj


def _short_key(k: str) -> str:
    text = repr(k[:40])
    return text + "..." if len(k) > 40 else text


def _check_no_key_twice(obj) -> None:
    """`KeyGivenTwice` naming the first field given twice and where: ``field 'type' is given twice in
    melds[1]``. Where a value lies is kept as its container's place and its own key or index, and written out
    only for the one named: a text for each value on the way (as before) took memory growing as their number
    times their depth (a line of 98 KB, a list of 40,000 numbers 400 objects deep, took 635 MB; one of
    megabytes, all)."""
    stack: list = [(obj, None, None)]  # (value, its container's place, its key or index there)
    while stack:
        value, parent, step = stack.pop()
        if isinstance(value, (dict, list)):
            place = (parent, step) if step is not None else None  # (a linked list, from the value up)
            if isinstance(value, _Twice):
                where = _where(place)
                at = f" in {where}" if where else ""
                raise KeyGivenTwice(f"field {_short_key(value.key)} is given twice{at}")
            if isinstance(value, dict):
                stack.extend((v, place, k) for k, v in reversed(value.items()))
            else:
                stack.extend((value[i], place, i) for i in range(len(value) - 1, -1, -1))


def _where(place) -> str:
    """A place of `_check_no_key_twice` as text: ``melds[1].tiles``, each key cut to 40 characters."""
    steps = []
    while place is not None:
        place, step = place
        steps.append(step)
    where = ""
    for step in reversed(steps):
        if isinstance(step, int):
            where = f"{where}[{step}]"
        else:
            where = f"{where}.{printable(step[:40])}" if where else printable(step[:40])
    return where


def load_json(text: str, **kwargs):
    """``json.loads(text, **kwargs)``, refusing an object that gives a key twice: `KeyGivenTwice` (a ValueError)
    naming the first such field and where. (The walk to say where is made only when one was given twice.)"""
    twice: list = []
    obj = json.loads(text, object_pairs_hook=lambda pairs: _pairs(pairs, twice), **kwargs)
    if twice:
        _check_no_key_twice(obj)
    return obj


# Characters that JSON leaves raw with ensure_ascii=False but that some line splitters (Python's str.splitlines)
# take for line ends: `json_line` writes them as \\u escapes, so that one value is one line.
LINE_BREAK_ESCAPES = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(obj) -> str:
    """``obj`` as one line of JSON Lines, without its newline: UTF-8 text as it is (``ensure_ascii=False``) but
    for `LINE_BREAK_ESCAPES` (JSON escapes every other line break), which can only stand inside a string."""
    return json.dumps(obj, ensure_ascii=False).translate(LINE_BREAK_ESCAPES)


def utf8_text(value):
    """``value`` as text that UTF-8 can encode: the bytes of a file name that are not UTF-8, which Python reads as
    lone surrogates (``surrogateescape``: ``caf\\udce9.pt`` for the Latin-1 ``caf\\xe9.pt``), as ``\\xe9``
    escapes, for the names and paths that go into JSON, TensorBoard and plots (a UnicodeEncodeError there,
    ``surrogates not allowed``). Anything but a str is returned as it is."""
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a surrogate that stands for no byte
            return value.encode("utf-8", "backslashreplace").decode("utf-8")


def terminal_line(message) -> str:
    """A message for a terminal (a warning's, or an error naming a file) as one line: the file names and the
    text from files in it are the user's, or an archive's, and may hold anything, so a line break, a carriage
    return or an escape sequence (a fake second line, a recoloured or cleared terminal) is written as its
    backslash escape (`printable`), and bytes of a name that are not UTF-8 as ``\\xe9`` (`utf8_text`), as
    ``repr`` shows them. Text that is printable already comes back as it is."""
    return printable(utf8_text(str(message)))


MAX_OPTIONS = 1000
"""The most options (arguments beginning with ``-``, before a ``--``) `ArgumentParser` reads from one command
line. Python 3.10's and 3.11's argparse looks for the next option among all of them at each one, a time
growing as the square of their number (10,000 took 2-4 s here, 100,000 over a minute); the command lines here
take a few dozen."""


def too_many_options(args) -> str | None:
    """The problem with the command line ``args`` (a list of str) that gives more than `MAX_OPTIONS` options;
    None: it gives fewer."""
    n = sum(isinstance(t, str) and len(t) > 1 and t[0] == "-" for t in itertools.takewhile("--".__ne__, args))
    if n > MAX_OPTIONS:
        return f"{n:,} options on the command line; at most {MAX_OPTIONS:,} are read"
    return None


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose error (``p.error``: the command lines' usage errors, and argparse's own,
    such as ``unrecognized arguments``) is written as `terminal_line`: a message naming a file (``--record NAME``,
    ``no such checkpoint file: NAME``) or quoting one (a checkpoint's refusal) is one line, its control
    characters and escape sequences escaped; a message without them is written as before. A command line of
    more than `MAX_OPTIONS` options is refused before argparse reads it (`too_many_options`)."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:  # (argparse's overloads, passed on as given)
        given = args[0] if args else kwargs.get("args")
        given = sys.argv[1:] if given is None else given
        problem = too_many_options(given) if isinstance(given, (list, tuple)) else None
        if problem:
            self.error(problem)
        return super().parse_known_args(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(terminal_line(message))


class DropWhenReaderGone:
    """Standard output for a command-line program whose work is more than what it prints (a training run,
    an arena run with ``--json``): once the reader of the output has gone away (a broken pipe: ``| head -1``,
    ``| true``), what is printed is dropped instead of raising ``BrokenPipeError``, so the program goes on,
    writes its files and ends with its own exit status, without a traceback. Any other failure to write
    (``> /dev/full``) is said once on standard error, ``PROG: cannot write to standard output: <why>; ...``,
    and the output dropped the same way. The stream's file descriptor is then pointed at the null device, so
    that the interpreter's last flush is quiet too. ``gone``: that happened. ``prog`` None: no message (the
    stream is standard error itself). Everything else is the wrapped stream's."""

    def __init__(self, stream, prog: str | None = "python"):
        self.stream = stream
        self.prog = prog
        self.gone = False

    def write(self, text):
        if not self.gone:
            try:
                return self.stream.write(text)
            except OSError as e:
                self._drop(e)
        return len(text)

    def flush(self):
        if not self.gone:
            try:
                self.stream.flush()
            except OSError as e:
                self._drop(e)

    def _drop(self, error: OSError):
        self.gone = True
        if self.prog is not None and not isinstance(error, BrokenPipeError):
            try:
                sys.stderr.write(f"{self.prog}: cannot write to standard output: {error.strerror or error}; the "
                                 "rest of its output is dropped\n")
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass
        try:
            null = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            return
        try:
            os.dup2(null, self.stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        finally:
            os.close(null)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _escape(error: UnicodeError):
    """The error handler "mj_env.escape": the bytes back for what ``surrogateescape`` made of bytes that were not
    text (a file name in the command line under an ASCII locale), a backslash escape for any other character
    the encoding lacks."""
    if not isinstance(error, UnicodeEncodeError):
        return codecs.backslashreplace_errors(error)
    out = bytearray()
    for c in error.object[error.start:error.end]:
        out += bytes([ord(c) - 0xDC00]) if "\udc80" <= c <= "\udcff" else c.encode("ascii", "backslashreplace")
    return bytes(out), error.end


codecs.register_error("mj_env.escape", _escape)


def escape_unencodable(stream) -> None:
    """Make ``stream`` (standard output) write a backslash escape for a character its encoding lacks: the Chinese
    names (惠牌) and tile glyphs under Windows' cp1252 or cp936 (output redirected), or an ASCII locale
    (``LANG=C PYTHONUTF8=0``, ``PYTHONIOENCODING=ascii``), instead of a UnicodeEncodeError (as standard error
    already does)."""
    if getattr(stream, "errors", None) in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="mj_env.escape")
        except (OSError, ValueError):  # (a stream that cannot change now: left as it is)
            pass


def guard_output(prog: str) -> None:
    """Put `DropWhenReaderGone` around ``sys.stdout`` and, quietly (there is nowhere left to say it), around
    ``sys.stderr``: progress bars write there, and ``prog 2>&1 | head -1`` breaks both. A stream that is closed
    (``>&-``, ``2>&-``: Python makes it None, on which a progress bar fails) becomes the null device. Once only;
    ``prog``: the program's name in the message of a failed write. Standard output escapes what its encoding
    cannot hold (`escape_unencodable`)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, DropWhenReaderGone):
            continue
        if name == "stdout":
            escape_unencodable(stream)
        if stream is None:
            try:
                stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the life of the process)
            except OSError:
                continue
        setattr(sys, name, DropWhenReaderGone(stream, prog if name == "stdout" else None))


class HugeInt:
    """Stands for a JSON integer with more digits than any field takes (``python -m mj_env.score``
    and ``python -m mj_env.records`` decode those as this, never as an int): it is refused by every
    field, and its repr names only its first digits, so no message prints or converts the whole number."""

    __slots__ = ("digits",)
    MAX_DIGITS = 40  # no calculator field takes more than 7 digits, no record field more than 13

    def __init__(self, digits: str) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"{self.digits[:20]}... ({len(self.digits.lstrip('-'))} digits)"


def parse_json_int(text: str):
    """``parse_int`` for ``json.loads`` of outside lines (the calculator's, hand records): an integer of more
    than ``HugeInt.MAX_DIGITS`` digits as a ``HugeInt``, which every field refuses by name, instead of an int
    Python may refuse to convert (4,300 digits) or that no field takes anyway."""
    return HugeInt(text) if len(text) > HugeInt.MAX_DIGITS else int(text)
