"""The duplicate arena's statistics and reports: per-agent figures of a run (``summarize``, its Student-t
intervals ``mean_ci95``), the summary as strict JSON (``json_safe``, ``json_text``), as a plain-text table
(``format_table``) and as a bar chart (``plot``), and ``missing_module``, the one line that names the extra
installing scipy, tqdm or matplotlib.

``summarize`` returns Python floats, with an interval that cannot be computed (one wall, so no
spread) as ``[-inf, inf]``; the ``--json`` file is strict JSON (RFC 8259, no ``Infinity`` or
``NaN``), in which such an interval is ``[null, null]``: ``json_safe`` turns every non-finite
float into None and ``json_text`` writes with ``allow_nan=False``, so a non-finite number that
slipped past would raise rather than be written.

It imports nothing of the arena at run time (``agents.arena`` imports it; ``DuplicateResult``, the run that
``summarize`` reads, is imported for type checkers only), and scipy and matplotlib only when first needed."""
from __future__ import annotations

import importlib
import json
import math
import unicodedata
from typing import TYPE_CHECKING

import numpy as np

from agents.plot_text import drawable, rc
from mj_env.messages import printable
from mj_env.rules import RuleError, get_rules, rules_label

if TYPE_CHECKING:
    from agents.arena import DuplicateResult

PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")
"""File suffixes ``--plot`` accepts: formats matplotlib saves a figure to without a display
(its Agg backend's)."""


def missing_module(name: str, needed_for: str, extra: str = "train") -> str | None:
    """Why ``name`` cannot be imported, as one line naming what needs it and how to install it; None if it can.
    scipy and tqdm come with the ``train`` extra and matplotlib with ``plot``, not with ``pip install -e .`` (the
    environment alone), so the command lines ask before they start rather than end in a traceback (``--help``
    works without them)."""
    try:
        importlib.import_module(name)
    except ImportError:
        return (f"{name} is needed for {needed_for}: pip install {name} (it comes with the {extra} extra: "
                f"pip install -e '.[{extra}]')")
    return None


def _student_t():
    """``scipy.stats.t``, imported when first needed (this module and the arena load without scipy)."""
    try:
        from scipy import stats
    except ImportError as e:
        raise ModuleNotFoundError(missing_module("scipy", "the 95% intervals (Student-t)") or str(e)) from e
    return stats.t


def mean_ci95(values: np.ndarray, groups: np.ndarray | None = None) -> tuple[float, float, float]:
    """(mean, low, high): Student-t 95% interval (``scipy.stats.t``) of the mean of independent ``values``.
    Values all equal give that value three times: an interval of no width (``format_table`` says so); a
    single value (or group) gives (mean, -inf, inf): no interval can be computed (``summarize``); no value at all
    is a ValueError.

    With ``groups`` (one label per value), the values of one group may be correlated (the positions of one
    hand share its wall) and the groups are the independent units: the mean of all values with the
    cluster-robust standard error of a ratio of group totals, sqrt(G / (G - 1) * sum_g (T_g - mean n_g)^2) / N
    for G groups of n_g values summing to T_g, and G - 1 degrees of freedom. Groups of one value each give
    the interval without groups."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:  # no mean to give (np.mean: nan and 'RuntimeWarning: Mean of empty slice')
        raise ValueError("mean_ci95 needs at least one value, got none")
    m = float(v.mean())
    if groups is None:  # each value its own group
        g = np.arange(len(v))
    else:
        if np.shape(groups) != v.shape:
            raise ValueError(f"groups must give one label per value ({v.shape}), got shape {np.shape(groups)}")
        _, g = np.unique(np.asarray(groups), return_inverse=True)
    n_groups = int(g.max(initial=-1)) + 1
    if n_groups < 2:
        return m, float("-inf"), float("inf")
    if (v == v[0]).all():  # not v.mean() and v.std(): off by a rounding, 50 walls of 0.1 gave (0.09999999999999998,
        return float(v[0]), float(v[0]), float(v[0])  # an interval 1e-17 wide that missed 0.1, and no note)
    if n_groups == len(v):
        se = float(v.std(ddof=1)) / math.sqrt(len(v))
    else:
        resid = np.bincount(g, weights=v - m, minlength=n_groups)   # T_g - mean * n_g
        se = math.sqrt(n_groups / (n_groups - 1) * float((resid ** 2).sum())) / len(v)
    half = float(_student_t().ppf(0.975, n_groups - 1)) * se
    return m, m - half, m + half


def summarize(result: DuplicateResult) -> dict:
    """Per-agent statistics of a duplicate run, as the JSON ``--json`` writes, except that an interval
    that cannot be computed (one wall) is ``[-inf, inf]`` here and ``[null, null]`` there: write this
    with ``json_text`` (or pass it through ``json_safe``), not a bare ``json.dumps``."""
    n_walls = int(result.wall.max()) + 1 if len(result.wall) else 0
    agents = []
    for k, name in enumerate(result.names):
        mine = result.seat_agent == k                                         # (H, 4)
        count = mine.sum()
        # per wall: the agent's points over all its seats in all seatings, per hand
        wall_points = np.bincount(result.wall, weights=(result.scores * mine).sum(axis=1), minlength=n_walls)
        wall_hands = np.bincount(result.wall, weights=mine.sum(axis=1), minlength=n_walls)
        mean, low, high = mean_ci95(wall_points / wall_hands)
        wins = (result.won & mine).sum()
        agents.append({
            "name": name,
            "mean_points": mean,
            "ci95": [low, high],
            "win_rate": float(wins / count),
            "self_draw_rate": float((result.self_draw & mine).sum() / count),
            "deal_in_rate": float((result.dealt_in & mine).sum() / count),
            "avg_fan": float(result.fan[result.won & mine].mean()) if wins else None,
            "hands": int(count),
        })
    return {
        "walls": n_walls,
        "hands_played": len(result.wall),
        "seatings": result.seatings.tolist(),
        "draw_rate": float(result.drawn.mean()) if len(result.drawn) else 0.0,
        "agents": agents,
    }


def json_safe(obj):
    """``obj`` made fit for strict JSON: every non-finite float (inf, -inf, nan) becomes None, numpy
    scalars and arrays become Python numbers and lists, tuples become lists; dicts and lists are
    copied, recursively. Anything else is returned as it is (``json`` then judges it)."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def json_text(obj, indent: int | None = 2) -> str:
    """``obj`` as strict JSON text (non-finite numbers as null, see ``json_safe``), written with
    ``allow_nan=False`` so that anything non-finite left over raises ValueError instead of
    producing ``Infinity`` or ``NaN``, which JSON parsers other than Python's reject."""
    return json.dumps(json_safe(obj), indent=indent, ensure_ascii=False, allow_nan=False)


def short_name(name: str, width: int) -> str:
    """A display name: a checkpoint path keeps its last two parts (``run/final.pt``), then its end."""
    parts = name.replace("\\", "/").split("/")
    if len(parts) > 2:
        name = "/".join(parts[-3:]) if parts[-2] == "checkpoints" else "/".join(parts[-2:])
        name = name.replace("/checkpoints/", "/")
    return name if len(name) <= width else "..." + name[-(width - 3):]


def _columns(text: str) -> int:
    """Terminal columns of ``text``: East Asian wide and full-width characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _name_cell(name: str, width: int) -> str:
    """``short_name`` on one line (``printable``: control characters and bidi controls written as escapes), cut
    from the front and padded to ``width`` terminal columns, so that a CJK name keeps the table's columns in line."""
    name = printable(short_name(name, width))
    if _columns(name) > width:
        while _columns(name) > width - 3:
            name = name[1:]
        name = "..." + name
    return name + " " * (width - _columns(name))


def format_table(summary: dict) -> str:
    """A plain-text table of ``summarize``'s output (or of the ``--json`` file's summary, read back)."""
    head = (f"{'agent':<28} {'points/hand':>11} {'95% CI':>18} {'win':>7} {'self-draw':>9} {'deal-in':>8} "
            f"{'avg fan':>8}")
    lines = [head, "-" * len(head)]
    for a in summary["agents"]:
        fan = "-" if a["avg_fan"] is None else f"{a['avg_fan']:.2f}"
        # a summary read back from the --json file holds a one-wall interval as [null, null]
        low, high = (bound if bound is not None else edge for bound, edge in zip(a["ci95"], (-math.inf, math.inf)))
        ci = f"[{low:+.3f}, {high:+.3f}]"
        name = _name_cell(a["name"], 28)
        lines.append(f"{name} {a['mean_points']:>+11.3f} {ci:>18} {a['win_rate']:>7.1%} "
                     f"{a['self_draw_rate']:>9.1%} {a['deal_in_rate']:>8.1%} {fan:>8}")
    lines.append(f"{summary['walls']} walls x {len(summary['seatings'])} seatings = "
                 f"{summary['hands_played']} hands, {summary['draw_rate']:.1%} drawn")
    rules = summary.get("rules")
    if isinstance(rules, dict):  # a rule set of one's own (compare(rules=RuleSet)): never shown as its bare preset
        try:
            label = rules_label(get_rules(rules))
        except (RuleError, TypeError):  # a summary read back and edited: its rules as they are
            label = json.dumps(rules, ensure_ascii=False)[:200]
        lines.append(f"rules: {label}")
    flat = [printable(a["name"]) for a in summary["agents"] if summary["walls"] > 1 and a["ci95"][0] == a["ci95"][1]]
    if flat:  # Student-t over walls that all scored the same: an interval of no width, which is no certainty
        lines.append(f"(every wall scored the same for {', '.join(flat)}, so the interval has no width: too few "
                     "walls, or agents that play every wall alike; not certainty about other walls)")
    return "\n".join(lines)


def plot(summary: dict, path: str, title: str | None = None) -> None:
    """Bar charts of points per hand (with the 95% intervals) and of win / deal-in rates."""
    import matplotlib

    # a CJK font where one is installed; a '$' in an agent's name is a '$', not TeX
    with matplotlib.rc_context(rc()):
        _draw(summary, path, title)


def _draw(summary: dict, path: str, title: str | None) -> None:
    """A ``Figure`` of its own, not pyplot's: the caller's backend, figures and current figure stay as
    they were (``matplotlib.use("Agg")`` here switched a notebook's backend for the rest of its session)."""
    from matplotlib.figure import Figure

    ag = summary["agents"]
    names = [drawable(short_name(a["name"], 24)) for a in ag]  # 运行 1 and 训练 1 as two names, not boxes
    x = np.arange(len(ag))
    mean = np.array([a["mean_points"] for a in ag])
    ci = np.array([[np.nan if v is None else v for v in a["ci95"]] for a in ag], dtype=np.float64)
    err = np.abs(ci.T - mean)
    no_interval = not np.isfinite(err).all()  # one wall: no spread to take an interval from
    err[~np.isfinite(err)] = 0.0
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    ax1.bar(x, mean, yerr=err, capsize=6, color=["tab:blue", "tab:orange", "tab:green", "tab:red"][:len(ag)])
    ax1.axhline(0, color="black", linewidth=0.8)
    ax1.set_xticks(x, names, rotation=15)
    ax1.set_ylabel("points per hand" + (" (no interval: one wall)" if no_interval else " (95% CI over walls)"))
    w = 0.38
    wins, deal_ins = [a["win_rate"] for a in ag], [a["deal_in_rate"] for a in ag]
    ax2.bar(x - w / 2, wins, w, label="win rate")
    ax2.bar(x + w / 2, deal_ins, w, label="deal-in rate")
    ax2.set_xticks(x, names, rotation=15)
    ax2.set_ylim(0, max(max(*wins, *deal_ins) * 1.3, 0.05))  # room above the bars for the legend
    ax2.legend(loc="upper center", ncol=2)
    walls, hands = summary["walls"], summary["hands_played"]
    fig.suptitle(drawable(title) if title else f"duplicate arena: {walls} wall{'s' * (walls != 1)}, {hands} hand{'s' * (hands != 1)}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
