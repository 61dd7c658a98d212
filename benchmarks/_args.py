"""Command-line checks shared by the benchmarks: every argument is checked before anything is built,
measured or written, and a bad one ends the program through ``p.error`` (exit status 2, a message that
names the flag and what it allows). No NumPy here: win_checks.py and search.py parse their arguments
before NumPy loads (to size its thread pool first).
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
from pathlib import Path
from typing import Any, NoReturn


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are ``mj_env.lines.ArgumentParser``'s: one line, a file name's
    line breaks, carriage returns and escape sequences escaped (``--json NAME: no such directory``). The helper is
    imported only when an error is told: the program is ending then, and NumPy (which ``mj_env`` loads) must not
    load before win_checks.py and search.py size its threads."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:  # (argparse's overloads, passed on as given)
        """A command line of more than ``MAX_OPTIONS`` options is refused before argparse reads it, as
        ``mj_env.lines.ArgumentParser`` refuses it (counted here: ``mj_env`` loads NumPy)."""
        given = args[0] if args else kwargs.get("args")
        given = sys.argv[1:] if given is None else given
        if isinstance(given, (list, tuple)):  # as mj_env.lines.too_many_options counts them
            before_end = itertools.takewhile("--".__ne__, given)
            n = sum(isinstance(t, str) and len(t) > 1 and t[0] == "-" for t in before_end)
            if n > MAX_OPTIONS:
                self.error(f"{n:,} options on the command line; at most {MAX_OPTIONS:,} are read")
        return super().parse_known_args(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        from mj_env.lines import terminal_line

        super().error(terminal_line(message))


MAX_OPTIONS = 1000
"""As ``mj_env.lines.MAX_OPTIONS``: Python 3.10's and 3.11's argparse takes time growing as the square of the
number of options (10,000 took 2-4 s here)."""


def shown(path) -> str:
    """A file name for a message (``wrote NAME``, ``cannot write``), as ``mj_env.lines.terminal_line`` writes it:
    one line, its control characters escaped. Call it once NumPy may load (the measurements are done)."""
    from mj_env.lines import terminal_line

    return terminal_line(path)


MAX_BATCH = 65_536
"""The largest batch (tables, hands, rows) a benchmark takes: 16 times the 4096 the aims are stated at."""
MAX_SEED = 2**63 - 1
"""The largest --seed: NumPy's generators and the Engine take any non-negative integer; the benchmarks add
small offsets to it."""
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")
"""File suffixes a plot may have: what matplotlib's Agg backend writes (as the arena's --plot, agents/arena_report.py)."""


def int_list(p: argparse.ArgumentParser, flag: str, text: str, lo: int = 1, hi: int = MAX_BATCH) -> list[int]:
    """``text`` as comma-separated integers, each in [lo, hi], at least one; else ``p.error`` (an empty item
    too: ``1,,8`` is a slip, not two sizes)."""
    no_empty_item(p, flag, text)
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or not all(lo <= v <= hi for v in values):
        p.error(f"{flag} takes comma-separated integers from {lo:,} to {hi:,}, got {text!r}")
    return values


def name_list(p: argparse.ArgumentParser, flag: str, text: str, allowed) -> list[str]:
    """``text`` as comma-separated names, each one of ``allowed``, at least one; else ``p.error`` (an empty item
    too)."""
    no_empty_item(p, flag, text)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in allowed]
    if not names:
        p.error(f"{flag} needs at least one of {', '.join(allowed)}")
    if bad:
        p.error(f"{flag}: unknown {', '.join(map(repr, bad))}; choose from {', '.join(allowed)}")
    return names


RULES_HELP = ("rule set: a preset (beijing, hebei, quemen), or one of one's own as a JSON object of a preset and the "
              "fields changed (agents.arena's --rules), e.g. '{\"name\": \"beijing\", \"chi\": false}'")
"""The ``--rules`` help of the benchmarks that measure one rule set (``rules``)."""
RULES_LIST_HELP = ("rule sets: comma-separated preset names (beijing, hebei, quemen), or one rule set of one's own as "
                   "a JSON object of a preset and the fields changed, e.g. '{\"name\": \"beijing\", \"chi\": false}' "
                   "(a value starting with '{' is that one object, its commas included)")
"""The ``--rules`` help of the benchmarks that take a list of rule sets (``rule_sets``)."""


def rules(p: argparse.ArgumentParser, flag: str, text: str):
    """The rule set ``text`` names, read by ``agents.rules_args.rules_option`` (a preset's name, or the JSON object form
    of docs/INTERFACES.md 1), as ``mj_env.records.rules_json`` gives it: the preset's name (a str, as the
    benchmarks took it before, so a preset's rows are measured and printed as they were) or the object form (a
    dict: JSON-safe for --json and the child processes, and taken by ``Engine`` and the environments); else
    ``p.error`` naming the flag and the field. Imports NumPy (agents.rules_args): call it once the threads are sized."""
    from agents.rules_args import rules_option
    from mj_env.records import rules_json

    try:
        return rules_json(rules_option(text))
    except ValueError as e:  # a RuleError: the preset, the JSON, the field (the one meant, if misspelt), its value
        p.error(f"{flag}: {e}")


def rule_sets(p: argparse.ArgumentParser, flag: str, text: str) -> list:
    """``text`` as rule sets, each as ``rules`` gives it: a value that starts with '{' is one rule set of one's
    own (a JSON object has commas of its own); any other is comma-separated preset names, at least one, no empty
    item, no object among them; else ``p.error``."""
    if text.lstrip().startswith("{"):
        return [rules(p, flag, text)]
    if "{" in text:  # 'beijing,{"name": ...}': else split at the object's commas, "bad JSON" at a fragment's column
        p.error(f"{flag}: a rule set of one's own is the value alone, one JSON object ('{{\"name\": \"beijing\", "
                f"\"chi\": false}}'), not an item of the comma-separated preset names: measure it in a run of its own")
    no_empty_item(p, flag, text)
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        p.error(f"{flag} needs at least one rule set")
    return [rules(p, flag, n) for n in names]


def rules_label(value) -> str:
    """A rule set as ``rules`` gives it, as text shows it: the preset's name, or the name and the fields changed
    (``beijing with chi=False``)."""
    from mj_env.rules import get_rules
    from mj_env.rules import rules_label as label

    return label(get_rules(value))


def no_empty_item(p: argparse.ArgumentParser, flag: str, text: str) -> None:
    """``p.error`` where a comma-separated ``text`` has an empty item (``1,,8``, ``a,``), as agents.arena's
    --agents refuses one. A blank ``text`` is left to the caller, whose message says what the list needs."""
    if not text.strip():
        return
    items = text.split(",")
    empty = [i for i, v in enumerate(items) if not v.strip()]
    if empty:
        p.error(f"{flag}: item {empty[0] + 1} of {text[:80]!r} is empty; give comma-separated values, no empty one")


def in_range(p: argparse.ArgumentParser, flag: str, value, lo, hi=None) -> None:
    """``p.error`` unless lo <= value (<= hi, if given); a NaN is outside every range."""
    if not (lo <= value and (hi is None or value <= hi)):
        allowed = f"between {lo:,} and {hi:,}" if hi is not None else f"at least {lo:,}"
        p.error(f"{flag} must be {allowed}, got {value}")


def positive(p: argparse.ArgumentParser, flag: str, value: float) -> None:
    """``p.error`` unless ``value`` is a finite number above 0 (NaN and inf are refused)."""
    if not (value > 0 and math.isfinite(value)):
        p.error(f"{flag} must be a finite number above 0, got {value}")


def seed(p: argparse.ArgumentParser, value: int, flag: str = "--seed") -> None:
    if not 0 <= value <= MAX_SEED:
        p.error(f"{flag} must be between 0 and 2**63 - 1, got {value}")


def output_problem(flag: str, path) -> str | None:
    """Why ``path`` cannot be written (a name the file system refuses, a missing or unwritable folder, a folder
    itself), or None. No folder is ever created. ``agents.arena.output_problem`` says the same; this copy
    exists because importing ``agents`` would load NumPy before win_checks.py and search.py size its threads."""
    if not str(path).strip():  # as agents.arena: a name of spaces is a slip too
        return f"{flag} {str(path)!r}: an empty file name; give a file, or leave {flag} out"
    target = Path(path)
    try:
        target.exists()
    except OSError as e:  # ENAMETOOLONG: is_dir() and exists() raise instead of answering False
        return f"{flag} {str(path)[:80]}{'...' if len(str(path)) > 80 else ''}: {e.strerror or type(e).__name__}"
    parent = target.parent
    if target.is_dir():
        return f"{flag} {path}: is a directory; give a file name"
    if target.is_symlink() and not target.exists():  # a link to a file not there yet: written in the link's target
        parent = Path(os.path.realpath(target)).parent
    if not parent.is_dir():
        return f"{flag} {path}: no such directory: {parent}"
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"{flag} {path}: not writable"
    return None


def output(p: argparse.ArgumentParser, flag: str, path, formats: tuple[str, ...] | None = None) -> None:
    """``p.error`` unless ``path`` (if given) can be written, and, with ``formats``, ends in one of them."""
    if path is None:
        return
    if formats is not None and str(path).strip() and Path(path).suffix.lower().lstrip(".") not in formats:
        p.error(f"{flag} {path}: the file name must end in one of {', '.join('.' + f for f in formats)}")
    problem = output_problem(flag, path)
    if problem:
        p.error(problem)


def write_text(flag: str, path, text: str) -> None:
    """Write ``text`` to ``path``; a failure (a full disk, the folder gone) ends the program with one line
    that names the flag, exit status 1. Callers make the text first, so only the write itself can fail."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"error: {flag} {shown(path)}: cannot write: {e.strerror or e}") from None
