"""Tests that kill mutants the suite let live in a second mutation-test round on agents/curve.py (the
learning curve), agents/rules_args.py (the ``--rules`` flag), agents/common_random.py (the arena's common
random numbers) and agents/arena_report.py (the arena's statistics and tables): each test names the
behaviour it holds to, from the module's docstring, and the mutant it kills."""
from __future__ import annotations

import numpy as np
import pytest

from agents import curve
from agents.arena_report import format_table, short_name
from agents.common_random import CommonStreams, decision_keys

HEADER = ("update,global_step,seconds,SPS,vs_random_points,vs_random_ci_low,vs_random_ci_high,"
          "vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n")


def _progress(tmp_path, body: str, name="run"):
    d = tmp_path / name
    d.mkdir()
    (d / "progress.csv").write_text(HEADER + body, encoding="utf-8")
    return d / "progress.csv"


def _summary(names, ci95=(0.1, 0.9), walls=3) -> dict:
    """A summary as ``summarize`` writes it (or as the ``--json`` file holds it, read back)."""
    row = {"mean_points": 0.5, "ci95": list(ci95), "win_rate": 0.25, "self_draw_rate": 0.125,
           "deal_in_rate": 0.125, "avg_fan": 2.0}
    return {"agents": [{"name": n, **row} for n in names], "walls": walls,
            "seatings": [[0, 1, 0, 1], [1, 0, 1, 0]], "hands_played": 2 * walls, "draw_rate": 0.0}


# --- agents/curve.py ------------------------------------------------------------

def test_the_curve_takes_a_value_of_exactly_max_value_and_refuses_one_beyond_it(tmp_path):
    """The module docstring: "a value ... beyond 1e9 (MAX_VALUE) is refused"; 1e9 itself is not beyond it
    (mutants: curve.py line 90 ``<=`` made ``<``, which refused 1e9; line 29 MAX_VALUE 1e9 made 1e9 + 1, which
    took 1000000001)."""
    got = curve.read_curves(_progress(tmp_path, "1,100,60,5,1000000000,-1e9,1e9,0.1,0.0,0.2\n"))
    assert got["random"] == [(1.0, 1e9, -1e9, 1e9)]
    with pytest.raises(curve.CurveError, match="line 2: a value beyond 1e\\+09 in the seconds or random"):
        curve.read_curves(_progress(tmp_path, "1,100,60,5,1000000001,0,1,0.1,0.0,0.2\n", "over"))


def _drawn_figure(tmp_path, monkeypatch, progress):
    """The figure ``curve.plot`` draws for ``progress`` (the one it saves)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    from matplotlib.figure import Figure

    figures, real = [], Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (figures.append(fig), real(fig, *a, **k))[1])
    curve.plot(progress, str(tmp_path / "c.png"))
    (fig,) = figures
    return fig


def test_each_panel_names_its_axes_marks_zero_and_stays_readable(tmp_path, monkeypatch):
    """One panel per opponent, the rule agent first: points per hand (with the 95% interval) against
    wall-clock minutes, the even line at 0 points, and each panel a readable width however many there are
    (mutants: curve.py line 136 the y label deleted; line 134 the line at 0 drawn at 1; line 125 the figure's
    width 5.5 * panels made 5.5 // panels, 2 inches for two panels)."""
    body = "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n2,200,120,5,1.1,0.9,1.3,0.1,-0.1,0.3\n"
    fig = _drawn_figure(tmp_path, monkeypatch, [_progress(tmp_path, body)])
    panels = fig.axes
    assert [ax.get_title() for ax in panels] == ["against the rule agent", "against the random agent"]
    for ax, opp in zip(panels, ("rule", "random")):
        assert ax.get_xlabel() == "wall-clock minutes"
        assert ax.get_ylabel() == f"points/hand vs {opp} (95% interval)"
        flat = [list(line.get_ydata()) for line in ax.get_lines() if len(set(line.get_ydata())) == 1]
        assert flat == [[0, 0]]
    assert fig.get_size_inches()[0] / len(panels) >= 5


def test_plot_leaves_no_figure_open(tmp_path):
    """``curve.plot`` draws into a figure of its own and closes it: a notebook or a script that draws many
    curves keeps no figure (and its memory) behind, nor shows it again at its next ``plt.show()`` (mutant:
    curve.py line 143 ``plt.close(fig)`` deleted)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    curve.plot([_progress(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n")], str(tmp_path / "c.png"))
    assert plt.get_fignums() == before and (tmp_path / "c.png").stat().st_size > 0


def test_the_command_line_says_what_it_wrote(tmp_path, capsys):
    """``python -m agents.curve ... --out curve.png`` ends by naming the picture it wrote
    (mutant: curve.py line 170 the ``print(f"wrote ...")`` deleted: a silent success)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    out = tmp_path / "curve.png"
    curve.main([str(_progress(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n")), "--out", str(out)])
    assert capsys.readouterr().out == f"wrote {out}\n" and out.stat().st_size > 0


def test_the_command_line_writes_its_picture_when_the_reader_of_its_output_left(tmp_path):
    """``python -m agents.curve ... --out c.png | true``: the picture is written all the same, exit 0, no
    BrokenPipeError traceback (the module's ``guard_output``; mutant: curve.py line 174 ``guard_output(...)``
    deleted)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    from test_audit_cli import _closed_reader

    progress = _progress(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n")
    rc, err = _closed_reader(["-m", "agents.curve", str(progress), "--out", "c.png"], tmp_path)
    assert rc == 0 and "Traceback" not in err and "BrokenPipe" not in err, err
    assert (tmp_path / "c.png").stat().st_size > 0


# --- agents/common_random.py ------------------------------------------------------------

def test_a_rows_first_draw_of_no_elements_is_still_each_rows_draw():
    """The module docstring: ``random(size)`` gives each row the next numbers of its own stream when ``size``
    is rows-first (``size[0]`` = the rows), and a row's numbers depend on its key and on how many draws it has
    had. (3, 0) is rows-first: it counts as each row's draw, as (3, 1) does, so the next draw is each row's
    second (mutants: common_random.py line 103 ``min(shape) < 0`` made ``< 1`` or ``<= 0``, which sent it to
    the ordinary generator, uncounted)."""
    keys = decision_keys(6, np.arange(3), np.zeros(3, int), np.zeros(3, int))
    s, ref = CommonStreams(keys, np.random.default_rng(0)), CommonStreams(keys, np.random.default_rng(0))
    assert s.random((3, 0)).shape == (3, 0)
    ref.random((3, 1))
    assert np.array_equal(s.random((3, 2)), ref.random((3, 2)))


# --- agents/arena_report.py ------------------------------------------------------------

def test_a_name_of_exactly_the_cells_width_is_shown_whole():
    """short_name and the table's 28-column name cell cut a name only when it does not fit: one of 28
    characters is shown whole (mutants: arena_report.py line 157 ``len(name) <= width`` made ``<``; line 169
    ``_columns(name) > width`` made ``>=``: both cut it to '...' and its last 25)."""
    name = "n" * 27 + "Z"
    assert short_name(name, 28) == name
    assert format_table(_summary([name])).splitlines()[2].startswith(name + " ")


def test_a_wide_name_keeps_as_much_of_its_end_as_fits_the_cell():
    """A name of East Asian wide characters is cut from the front to the cell's 28 terminal columns: '...' and
    the most of its end that fits, here 12 wide characters and an 'x' (25 columns), not one character fewer
    (mutants: arena_report.py line 170 ``width - 3`` made ``width - 4``; line 171 ``name[1:]`` made
    ``name[2:]``)."""
    name = "训练" * 20 + "x"
    line = format_table(_summary([name])).splitlines()[2]
    assert line.startswith("..." + "训练" * 6 + "x ")


def test_a_checkpoint_path_keeps_its_run_wherever_the_runs_folder_is():
    """short_name: a checkpoint path keeps its last two parts, ``run/final.pt`` for
    ``.../run/checkpoints/final.pt`` at any depth (mutant: arena_report.py line 155 ``parts[-2]`` made
    ``parts[2]``, right only for paths of four parts)."""
    assert short_name("/home/me/runs/exp1/checkpoints/final.pt", 28) == "exp1/final.pt"
    assert short_name("runs/exp1/checkpoints/final.pt", 28) == "exp1/final.pt"


def _arena_figure(monkeypatch, tmp_path, summary):
    """The figure ``arena_report.plot`` draws for ``summary`` (the one it saves)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    from matplotlib.figure import Figure

    from agents.arena_report import plot

    figures, real = [], Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (figures.append(fig), real(fig, *a, **k))[1])
    plot(summary, str(tmp_path / "p.png"))
    (fig,) = figures
    return fig


@pytest.mark.parametrize("walls, title", [(1, "duplicate arena: 1 wall, 2 hands"),
                                          (3, "duplicate arena: 3 walls, 6 hands")])
def test_the_arena_plot_names_its_walls_and_hands_and_draws_both_rates_side_by_side(monkeypatch, tmp_path,
                                                                                    walls, title):
    """plot: "bar charts of points per hand (with the 95% intervals) and of win / deal-in rates", titled with
    the run's walls and hands (one wall: "1 wall", and no interval), the even line at 0 points, each agent's
    win and deal-in bars side by side, and the rates' axis scaled to the rates (mutants: arena_report.py line
    238 the plurals' ``!= 1`` made ``!= 0`` or ``!= 2``; line 227 the line at 0 drawn at 1; line 233 the
    deal-in bars deleted, or set ``w / 3`` off their place, over the win bars; line 235 the axis' least top
    0.05 made 1.05)."""
    summary = _summary(["a", "b"], ci95=(None, None) if walls == 1 else (0.1, 0.9), walls=walls)
    fig = _arena_figure(monkeypatch, tmp_path, summary)
    points, rates = fig.axes
    assert fig._suptitle.get_text() == title
    assert points.get_ylabel().endswith("(no interval: one wall)" if walls == 1 else "(95% CI over walls)")
    drawn = [line for line in points.get_lines() if line.get_linestyle() != "None"]  # (not the bars' caps)
    assert [list(line.get_ydata()) for line in drawn] == [[0, 0]]
    wins, deal_ins = rates.containers
    assert [wins.get_label(), deal_ins.get_label()] == ["win rate", "deal-in rate"]
    for win, deal_in in zip(wins, deal_ins):
        assert (win.get_height(), deal_in.get_height()) == (0.25, 0.125)
        assert win.get_x() + win.get_width() <= deal_in.get_x() + 1e-9     # side by side, not over each other
    assert rates.get_ylim() == pytest.approx((0, 0.25 * 1.3))


def test_a_name_with_combining_marks_keeps_the_tables_columns_in_line():
    """The name cell is 28 terminal columns wide, a combining mark taking none: 'cafe' with a combining acute
    accent is padded as 'cafe' is, so the points column stays where it is (mutant: arena_report.py line 162 a
    combining mark counted as -1 column, which padded the cell one column wider)."""
    plain, marked = (format_table(_summary([n])).splitlines()[2] for n in ("cafe", "cafe\u0301"))
    assert marked.index("+0.500") == plain.index("+0.500") + 1     # one more code point, the same columns
    assert marked[marked.index("\u0301") + 1:] == plain[4:]


def test_the_table_ends_with_the_runs_walls_seatings_hands_and_draws():
    """format_table's last line (with no note below it) says what the figures are over: walls, seatings, hands
    and the share drawn (mutant: arena_report.py line 189 that line deleted: a table of rates over nothing
    said)."""
    summary = _summary(["a", "b"])
    summary["draw_rate"] = 0.125
    assert format_table(summary).splitlines()[-1] == "3 walls x 2 seatings = 6 hands, 12.5% drawn"
