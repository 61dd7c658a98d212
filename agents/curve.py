"""The learning curve of a ``train.py`` run: points per hand against the baselines over wall-clock minutes.

::

    python -m agents.curve runs/<exp>/progress.csv --out docs/learning_curve.png
    python -m agents.curve runs/a/progress.csv runs/b/progress.csv --labels "seed 1,seed 2" --out curve.png

Reads the quick evaluations ``train.py`` logs every ``--eval-every`` updates (columns
``vs_<opponent>_points`` with ``vs_<opponent>_ci_low`` / ``_ci_high``, and ``seconds``) and draws,
for each run and each opponent (``rule`` first), the mean with its 95% band; rows without an
evaluation are skipped, and an evaluation of one wall, which has no interval (its interval cells are
empty), is drawn without a band. A file with a row cut short or longer than its header, or a value that is not
a number, not finite or beyond 1e9 (``MAX_VALUE``) is refused, naming the file and line. Needs the ``plot`` extra (matplotlib).
"""
from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

from agents import path_problem
from agents.plot_text import drawable, rc
from mj_env.lines import ArgumentParser, TooLong, bounded_lines, guard_output, terminal_line, utf8_text
from mj_env.messages import printable

MAX_PANELS = 8
"""Opponents one picture draws, a panel each."""
MAX_VALUE = 1e9
"""The largest size of a number drawn (seconds, points, interval ends): a file holding a bigger one is refused
(train.py's are a few points and at most months of seconds; matplotlib fails on values near the float limit)."""

MAX_LINE = 1 << 20
"""The longest line read (train.py's are under a kilobyte): a file without line breaks is refused, not read whole."""


class CurveError(ValueError):
    """A progress file that cannot be drawn (missing, no evaluation columns, bad numbers)."""


def _text_lines(f, path):
    """The lines of the binary file ``f`` as text, each at most `MAX_LINE` bytes (else a CurveError, before the
    rest of the line is read)."""
    for i, line in enumerate(bounded_lines(f, MAX_LINE), 1):
        if isinstance(line, TooLong):
            raise CurveError(f"{path}, line {i}: longer than {MAX_LINE:,} bytes: not a train.py progress.csv")
        yield line.decode("utf-8")


def read_curves(path) -> dict[str, list[tuple[float, float, float, float]]]:
    """``{opponent: [(minutes, points, ci_low, ci_high), ...]}`` from one progress.csv; ci_low and ci_high are
    nan where both interval cells are empty (an evaluation of one wall has no interval)."""
    problem = path_problem(str(path))  # a NUL byte or a lone surrogate, which open() raises a ValueError for
    if problem:
        raise CurveError(problem)
    path = Path(path)
    try:
        with path.open("rb") as f:  # a line at most MAX_LINE bytes: a file without line breaks (/dev/zero) is refused
            reader = csv.DictReader(_text_lines(f, path))
            columns, rows = reader.fieldnames or [], list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise CurveError(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    if not columns:
        raise CurveError(f"{path}: empty: the run logged no PPO update (a cloning-only run, --total-steps 0, has "
                         "no curve; its agreement is in TensorBoard, bc/agreement)")
    if "seconds" not in columns:
        raise CurveError(f"{path}: not a train.py progress.csv (no 'seconds' column)")
    opponents = [c[3:-7] for c in columns if c.startswith("vs_") and c.endswith("_points")]
    if not opponents:
        raise CurveError(f"{path}: no evaluation columns (vs_<opponent>_points)")
    out: dict[str, list[tuple[float, float, float, float]]] = {}
    for i, row in enumerate(rows, 2):
        if None in row.values():  # csv.DictReader's value of the cells a short row lacks
            raise CurveError(f"{path}, line {i}: {sum(v is not None for v in row.values())} cells where the header "
                             f"has {len(columns)} (a row cut short)")
        if None in row:  # csv.DictReader's key of the cells past the header's: the columns no longer line up
            raise CurveError(f"{path}, line {i}: {len(columns) + len(row[None])} cells where the header has "
                             f"{len(columns)} (a row with cells past the header's)")
        for opp in opponents:
            cells = [row.get(f"vs_{opp}_{k}") or "" for k in ("points", "ci_low", "ci_high")]
            if not cells[0]:
                continue  # not evaluated at this update
            no_interval = not cells[1] and not cells[2]  # one wall: train.py leaves the interval's cells empty
            try:
                values = [float(row["seconds"]), *map(float, cells[:1] if no_interval else cells)]
            except ValueError:
                raise CurveError(f"{path}, line {i}: a number was expected in the seconds and {printable(opp)} columns") from None
            if not all(math.isfinite(v) for v in values):
                raise CurveError(f"{path}, line {i}: non-finite value in the seconds or {printable(opp)} columns")
            if not all(abs(v) <= MAX_VALUE for v in values):
                raise CurveError(f"{path}, line {i}: a value beyond {MAX_VALUE:g} in the seconds or {printable(opp)} columns; "
                                 "not a train.py evaluation")
            values[0] /= 60
            out.setdefault(opp, []).append((values[0], values[1], math.nan, math.nan) if no_interval
                                           else (values[0], values[1], values[2], values[3]))
    if not out:
        raise CurveError(f"{path}: no row has an evaluation yet")
    return out


def plot(paths, out: str, labels=None, title: str | None = None) -> None:
    """Draw every run's curves into one PNG (one panel per opponent, the rule agent first)."""
    import matplotlib

    runs = [read_curves(p) for p in paths]
    # (the run directories by default, ./progress.csv too; a name that is not UTF-8 with \xe9 escapes: the fonts
    # take no lone surrogates)
    labels = [utf8_text(x) for x in labels] if labels else [utf8_text(Path(p).resolve().parent.name) for p in paths]
    title = utf8_text(title)
    labels, title = [drawable(x) for x in labels], title and drawable(title)  # 运行 1 and 训练 1 as two names, not boxes
    if len(labels) != len(runs):
        raise CurveError(f"{len(labels)} labels for {len(runs)} runs")
    opponents = sorted({o for r in runs for o in r}, key=lambda o: (o != "rule", o))  # a panel each, rule first
    if len(opponents) > MAX_PANELS:  # one panel each: thousands of columns would draw for minutes
        raise CurveError(f"{len(opponents)} opponents in the evaluation columns; a picture has at most {MAX_PANELS} "
                         "panels (train.py logs random, rule and pretrained)")
    # a CJK font where one is installed; a '$' in a run's name is a '$', not TeX
    with matplotlib.rc_context(rc()):
        _draw(runs, labels, opponents, out, title)


def _draw(runs, labels, opponents, out, title) -> None:
    """A ``Figure`` of its own, not pyplot's: the caller's backend, figures and current figure stay as
    they were (``matplotlib.use("Agg")`` here switched a notebook's backend for the rest of its session)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5 * len(opponents), 4))
    axes = fig.subplots(1, len(opponents), squeeze=False)
    for ax, opp in zip(axes[0], opponents):
        for run, label in zip(runs, labels):
            pts = run.get(opp)
            if not pts:
                continue
            t, m, lo, hi = zip(*pts)
            ax.plot(t, m, marker="o", ms=3, label=label)
            ax.fill_between(t, lo, hi, alpha=0.2)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel("wall-clock minutes")
        ax.set_ylabel(f"points/hand vs {opp} (95% interval)")
        ax.set_title(f"against the {opp} agent")
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv=None) -> None:
    p = ArgumentParser(prog="python -m agents.curve", description=(__doc__ or "").split("\n")[0])
    p.add_argument("progress", nargs="+", help="progress.csv of one or more train.py runs")
    p.add_argument("--out", required=True, help="the picture to write (.png; .pdf and .svg work too)")
    p.add_argument("--labels", default=None, help="comma-separated run names (default: the run directories)")
    p.add_argument("--title", default=None)
    a = p.parse_args(argv)
    from agents.arena import output_problem
    from agents.arena_report import PLOT_FORMATS, missing_module

    problem = missing_module("matplotlib", "the curve", extra="plot")
    if problem:
        p.error(problem)
    if Path(a.out).suffix.lower().lstrip(".") not in PLOT_FORMATS:  # else matplotlib adds .png or refuses late
        p.error(f"--out {a.out}: the file name must end in one of {', '.join('.' + f for f in PLOT_FORMATS)}")
    problem = output_problem("--out", a.out)
    if problem:
        p.error(problem)
    try:
        plot(a.progress, a.out, a.labels.split(",") if a.labels else None, a.title)
    except CurveError as e:
        p.error(str(e))
    except OSError as e:  # passed the checks, failed at the write (a full disk)
        sys.exit(f"python -m agents.curve: cannot write {terminal_line(a.out)}: {e.strerror or e}")
    print(f"wrote {terminal_line(a.out)}")


if __name__ == "__main__":
    guard_output("python -m agents.curve")  # "wrote PATH" to a reader that left: the picture is written all the same, no traceback
    main()
