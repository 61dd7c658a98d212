"""Bad values as error messages show them: short whatever they are, and never an error of their own.

``shown`` is ``str(value)`` cut short (for a value known to be a number, or where the caller quotes it),
``brief`` is ``repr(value)`` cut in length and depth as it is written: the form for a value a user gave,
so that the integer 4 (``got 4``) and the string "4" (``got '4'``) read apart. Neither writes out a string of millions of characters or a value
nested thousands deep, and an integer too long for Python to write (``str`` refuses one of more than
4,300 digits, with a ValueError that names no argument) is described by its size.
"""
from __future__ import annotations

import operator
import os
import reprlib
import sys
import unicodedata

_REPR = reprlib.Repr()  # (Python 3.11's Repr takes no keywords)
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 3, 4, 4, 4, 4
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 1000  # cut at the end below, not in the middle
# (a checkpoint's weights load as these; reprlib would write them in full)
_REPR.repr_OrderedDict = _REPR.repr_dict  # type: ignore[attr-defined]  # reprlib finds repr_<type name> by getattr


def _huge(value) -> str | None:
    # type(), not isinstance: an object may name int as its __class__ (a Mock(spec=int)) and not compare as one
    if issubclass(type(value), int) and not -10**30 < int(value) < 10**30:
        return f"an integer of {int.bit_length(value)} bits"
    return None


def printable(text: str) -> str:
    """``text`` with each character that ``str.isprintable`` rejects written as its backslash escape (as ``repr``
    writes it: ``\\x1b``, ``\\n``, ``\\u202e``, ``\\ud800``), others (惠牌, accents, emoji, and the spaces
    and joiners of ``_shown_as_is``: an ideographic space, an emoji family) as they are: for text from
    a file (a record's player names, a checkpoint's names, a CSV header) shown on a terminal, where an escape
    sequence would recolour, clear or retitle it, a carriage return overwrite the line, a bidi override reverse it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or _shown_as_is(c) else repr(c)[1:-1] for c in text)


_JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: format characters that ``isprintable`` rejects but that steer no terminal;
the joiner holds an emoji sequence together (a family, a rainbow flag), the non-joiner a Persian or Hindi word."""


def _shown_as_is(c: str) -> bool:
    """A character ``str.isprintable`` rejects that ``printable`` keeps: a space of another width (the
    ideographic space of Chinese text U+3000, a no-break space: category Zs) or a joiner (``_JOINERS``). Neither
    moves the cursor, changes colours or reorders a line; bidi controls, line and paragraph separators, control
    characters and the other invisible format characters are still escaped."""
    return c in _JOINERS or unicodedata.category(c) == "Zs"


def shown(value, limit: int = 40) -> str:
    """``str(value)`` cut to ``limit`` characters (on one line, unless the value is a string: callers quote
    it with ``!r``, which escapes its line breaks)."""
    huge = _huge(value)
    if huge:
        return huge
    if isinstance(value, str):
        return value[:limit]
    try:
        return " ".join(str(value).split())[:limit]
    except Exception:  # noqa: BLE001 - a message must not fail on what it describes (a list nested too deep)
        return f"<a {type(value).__name__}>"


def brief(value, limit: int = 40) -> str:
    """``repr(value)`` on one line, at most ``limit`` characters (a longer one is cut and ends in "...")."""
    huge = _huge(value)
    if huge:
        return huge
    try:
        text = " ".join(_REPR.repr(value).split())  # (NumPy writes a long array on several lines)
    except Exception:  # noqa: BLE001 - as above
        text = f"<a {type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def integer_value(value) -> int | None:
    """``value`` as an int when it is an integer: a Python or NumPy integer, or a 0-d integer array or tensor
    (what ``operator.index`` takes, as ``int()`` took them before the checks of integers); None for anything
    else: a bool (True, np.True_, a bool array or tensor), a float (even 4.0), a string, a 1-element list."""
    if type(value) is int:  # (the common case, at once)
        return value
    if isinstance(value, bool):
        return None
    try:
        i = operator.index(value)
    except Exception:  # noqa: BLE001 (a TypeError, or whatever an odd __index__ raises: no integer)
        return None
    dtype = getattr(value, "dtype", None)  # a NumPy dtype's kind "b", or torch.bool (no kind): a bool
    kind = getattr(dtype, "kind", None)
    if kind == "b" or (kind is None and dtype is not None and str(dtype) == "torch.bool"):
        return None
    return i


def user_stacklevel(*modules) -> int:
    """The ``stacklevel`` for a ``warnings.warn`` made by this function's caller that names the first frame
    outside the folders of ``modules`` (packages or modules, such as ``mj_env`` and ``gymnasium``): the user's
    line, however many of the library's own calls lie between (Python 3.12's ``skip_file_prefixes`` does this;
    3.10 and 3.11 lack it). ``runpy``'s frames are passed over too: under ``python -m agents.arena`` no user's line
    lies above the library's, and the warning names the caller's own line (the ``warnings.warn``), where it named
    ``<frozen runpy>``; a user's ``runpy.run_module`` call is named as the user's line."""
    folders = tuple(os.path.dirname(f) + os.sep for f in (getattr(m, "__file__", None) for m in modules)
                    if isinstance(f, str))  # as co_filename spells them; a module of no file (a notebook's __main__) has no folder
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and (frame.f_code.co_filename.startswith(folders) or _runpy(frame)):
        frame, level = frame.f_back, level + 1
    return 1 if _runpy(frame) else level


def _runpy(frame) -> bool:
    """Whether ``frame`` runs ``runpy``'s code (``python -m``; ``<frozen runpy>`` from Python 3.11 on)."""
    return frame.f_globals.get("__name__") == "runpy"


def refuse_arguments(given, refused: dict) -> None:
    """A ValueError ``"name: why"`` for the first name of ``refused`` (in its order) that ``given``, a constructor's
    keywords, holds: an argument that another of the package's environments takes (``num_envs``, ``opponents``,
    ``seat``, ``illegal_action``...), which would otherwise reach the rule set and be refused as an unknown rule
    field."""
    for name, why in refused.items():
        if name in given:
            raise ValueError(f"{name}: {why}")
