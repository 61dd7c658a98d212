"""Names in any script in the pictures (`agents.plot_text`): drawn with a CJK font where one is installed, with
escapes for what no font at hand has, never as boxes that make two names look alike."""
from __future__ import annotations

import csv
import warnings

import pytest

pytest.importorskip("matplotlib")
from matplotlib import font_manager
from matplotlib.figure import Figure

from agents import plot_text
from agents.arena_report import plot
from agents.curve import plot as plot_curve


@pytest.fixture
def fresh_fonts():
    plot_text._fonts.cache_clear()
    yield
    plot_text._fonts.cache_clear()


def _summary(names):
    return {"agents": [{"name": n, "mean_points": 0.1 * i, "ci95": [0.0, 0.2], "win_rate": 0.2, "deal_in_rate": 0.1}
                       for i, n in enumerate(names)], "walls": 2, "hands_played": 8}


def _drawn(monkeypatch):
    """The tick labels and titles of every figure saved."""
    seen = []
    real = Figure.savefig

    def savefig(fig, *a, **k):
        for ax in fig.axes:
            seen.extend(t.get_text() for t in ax.get_xticklabels())
            seen.append(ax.get_legend().get_texts()[0].get_text() if ax.get_legend() else "")
        seen.append(fig._suptitle.get_text() if fig._suptitle else "")
        return real(fig, *a, **k)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return seen


def test_names_no_font_has_are_escaped_and_warn_of_no_missing_glyph(tmp_path, monkeypatch, fresh_fonts):
    """matplotlib's DejaVu Sans has no CJK glyphs: 运行 1 and 训练 1 were two rows of the same boxes (and 16
    'Glyph ... missing' warnings). Where no installed font has them, they are drawn as escapes."""
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in plot_text.CJK_FONTS])
    seen = _drawn(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot(_summary(["运行 1", "训练 1", "rule ±é", "rule"]), str(tmp_path / "p.png"), title="对局")
    assert "\\u8fd0\\u884c 1" in seen and "\\u8bad\\u7ec3 1" in seen and "rule ±é" in seen  # DejaVu has ± and é
    assert "\\u5bf9\\u5c40" in seen


def test_the_curve_escapes_run_names_no_font_has(tmp_path, monkeypatch, fresh_fonts):
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in plot_text.CJK_FONTS])
    run = tmp_path / "运行 1"
    run.mkdir()
    with open(run / "progress.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["seconds", "vs_rule_points", "vs_rule_ci_low", "vs_rule_ci_high"])
        w.writerow([60, -0.5, -0.7, -0.3])
        w.writerow([120, -0.2, -0.4, 0.0])
    seen = _drawn(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_curve([str(run / "progress.csv")], str(tmp_path / "c.png"))
    assert "\\u8fd0\\u884c 1" in seen


def test_an_installed_cjk_font_is_put_behind_the_default_and_its_glyphs_drawn(monkeypatch, fresh_fonts):
    """A machine with a CJK font (here: DejaVu Sans's file listed under a CJK font's name, with a charmap that
    has 运) draws the names as written, the font behind the user's choice."""
    dejavu = next(f for f in font_manager.fontManager.ttflist if f.name == "DejaVu Sans")
    fake = font_manager.FontEntry(fname=dejavu.fname, name="WenQuanYi Zen Hei", style=dejavu.style,
                                  variant=dejavu.variant, weight=dejavu.weight, stretch=dejavu.stretch,
                                  size=dejavu.size)
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [*font_manager.fontManager.ttflist, fake])
    families, covered = plot_text.fonts()
    assert families[-1] == "WenQuanYi Zen Hei" and families[0] != "WenQuanYi Zen Hei"
    assert plot_text.rc()["font.family"] == list(families) and plot_text.rc()["text.parse_math"] is False
    monkeypatch.setattr(plot_text, "fonts", lambda: (families, covered | {ord("运"), ord("行")}))
    assert plot_text.drawable("运行 1\t") == "运行 1\\t"


def test_a_font_family_chosen_after_an_earlier_picture_is_the_one_drawn_with(tmp_path, monkeypatch, fresh_fonts):
    """The fonts were looked up once per process: a user who set ``font.family`` to serif after a first picture
    (or drew one inside an ``rc_context``) got the first picture's sans-serif in every later one, where before
    agents.plot_text the pictures followed the user's settings."""
    import matplotlib

    drawn_with = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: drawn_with.append(
        fig.axes[0].get_xticklabels()[0].get_fontfamily()[0]) or real(fig, *a, **k))
    plot(_summary(["rule"]), str(tmp_path / "a.png"))
    with matplotlib.rc_context({"font.family": "serif"}):
        plot(_summary(["rule"]), str(tmp_path / "b.png"))
    assert drawn_with == ["sans-serif", "serif"]


def test_a_cjk_font_whose_file_is_gone_is_not_offered(monkeypatch, fresh_fonts):
    """A CJK font still in matplotlib's font list after its file was removed was put in ``font.family``: every
    character drawn logged "findfont: Font family 'Noto Sans CJK SC' not found" (hundreds of lines a picture)."""
    dejavu = next(f for f in font_manager.fontManager.ttflist if f.name == "DejaVu Sans")
    gone = font_manager.FontEntry(fname="/nonexistent/NotoSansCJK-Regular.ttc", name="Noto Sans CJK SC",
                                  style=dejavu.style, variant=dejavu.variant, weight=dejavu.weight,
                                  stretch=dejavu.stretch, size=dejavu.size)
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in plot_text.CJK_FONTS] + [gone])
    assert "Noto Sans CJK SC" not in plot_text.fonts()[0]
