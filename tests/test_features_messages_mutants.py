"""Mutation round on mj_env/messages.py, mj_env/features.py and agents/plot_text.py: the behaviours no earlier
test pinned down (each test here fails on a mutant of the module that the rest of the suite let through)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mj_env.messages import brief, printable, shown

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- mj_env.messages


def test_brief_cuts_each_container_after_four_items_and_three_levels():
    assert brief([1, 2, 3, 4, 5, 6]) == "[1, 2, 3, 4, ...]"
    assert brief((1, 2, 3, 4, 5)) == "(1, 2, 3, 4, ...)"
    assert brief({1: 1, 2: 2, 3: 3, 4: 4, 5: 5}) == "{1: 1, 2: 2, 3: 3, 4: 4, ...}"
    assert brief({1, 2, 3, 4, 5}) == "{1, 2, 3, 4, ...}"
    assert brief([1, 2, 3, 4]) == "[1, 2, 3, 4]"
    assert brief([[[1]]]) == "[[[1]]]" and brief([[[[1]]]]) == "[[[[...]]]]"


def test_brief_cuts_a_long_string_at_its_end_not_in_its_middle():
    text = "x" * 998  # repr: 1000 characters, written whole under a limit that allows them
    assert brief(text, limit=1000) == repr(text)


def test_brief_and_shown_cut_at_40_characters_by_default_and_mark_only_a_cut_text():
    assert brief("x" * 38) == repr("x" * 38)           # exactly 40 characters: not cut, no "..."
    assert brief("x" * 39) == repr("x" * 39)[:40] + "..."
    assert brief("x" * 100) == "'" + "x" * 39 + "..."
    assert shown("y" * 100) == "y" * 40 and shown(list(range(100))) == str(list(range(100)))[:40]


def test_integers_from_ten_to_the_thirty_are_described_by_their_size():
    assert brief(10**30) == shown(10**30) == "an integer of 100 bits"
    assert brief(-(10**30)) == "an integer of 100 bits"
    assert brief(10**30 - 1) == "9" * 30 and brief(-(10**30) + 1) == "-" + "9" * 30
    assert shown(10**30 - 1) == ("9" * 30)


def test_shown_keeps_a_strings_line_breaks_and_joins_other_values_on_one_line():
    """Callers quote a string with ``!r`` (which escapes its line breaks); anything else is put on one line."""
    assert shown("a\nb  c") == "a\nb  c"
    assert shown("z" * 50, limit=5) == "zzzzz"

    class Two:
        def __str__(self):
            return "first\n  second"

    assert shown(Two()) == "first second"


def test_shown_of_a_value_whose_str_fails_names_its_type():
    class Bad:
        def __str__(self):
            raise RuntimeError("no")

    assert shown(Bad()) == "<a Bad>"


def test_printable_escapes_only_what_it_must_and_leaves_a_backslash_single():
    """A Windows path's backslash beside an escape sequence stays one backslash (``repr`` would double it)."""
    assert printable("C:\\runs\x1b[2J") == "C:\\runs\\x1b[2J"
    assert printable("'quoted' \"and\"\x07") == "'quoted' \"and\"\\x07"


def test_user_stacklevel_under_python_m_names_the_warn_line_itself(tmp_path):
    """``python -m pkg.mod``: no user's line lies above the library's (runpy's frames are at the bottom of the
    stack), so the warning names the line of the ``warnings.warn`` call (stacklevel 1), not the line that called
    the function around it nor a line of warnings' or runpy's own."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "mod.py").write_text(
        "import sys, warnings\n"
        "import pkg\n"
        "from mj_env.messages import user_stacklevel\n"
        "def tell():\n"
        "    warnings.warn('from the library', UserWarning, stacklevel=user_stacklevel(pkg))\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    tell()\n"
        "print([(w.filename.endswith('mod.py'), w.lineno) for w in caught])\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pkg.mod"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[(True, 5)]"


# --------------------------------------------------------------------------- agents.plot_text


def test_a_cjk_font_the_user_chose_is_listed_once(monkeypatch):
    """``font.family`` naming an installed CJK font: the fonts drawn with hold it once (it was put behind itself)."""
    mpl = pytest.importorskip("matplotlib")
    from matplotlib import font_manager

    from agents import plot_text

    dejavu = next(f for f in font_manager.fontManager.ttflist if f.name == "DejaVu Sans")
    fake = font_manager.FontEntry(fname=dejavu.fname, name="WenQuanYi Zen Hei", style=dejavu.style,
                                  variant=dejavu.variant, weight=dejavu.weight, stretch=dejavu.stretch,
                                  size=dejavu.size)
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [*font_manager.fontManager.ttflist, fake])
    plot_text._fonts.cache_clear()
    try:
        with mpl.rc_context({"font.family": ["WenQuanYi Zen Hei", "sans-serif"]}):
            families = plot_text.fonts()[0]
            assert families.count("WenQuanYi Zen Hei") == 1 and families[:2] == ("WenQuanYi Zen Hei", "sans-serif")
            assert plot_text.rc()["font.family"] == list(families)
    finally:
        plot_text._fonts.cache_clear()


# --------------------------------------------------------------------------- mj_env.features


def test_hui_kind_is_minus_one_without_a_huipai_and_the_kind_with_one():
    from mj_env import features as F
    from mj_env import observation as O

    planes = np.zeros((2, O.N_PLANES, 34), dtype=np.uint8)
    planes[1, O.P_HUI, 27] = 1
    assert F.hui_kind(planes).tolist() == [-1, 27]


def test_tiles_needed_of_no_hands_and_of_no_changes_are_empty_int16():
    from mj_env import features as F
    from mj_env.rules import get_rules

    rules = get_rules("beijing")
    hands = np.zeros((2, 34), dtype=np.int8)
    hands[:, :13] = 1
    none = np.zeros(0, dtype=np.int64)
    for got in (F.tiles_needed(rules, hands[:0], np.full(0, -1)),
                F.tiles_needed_changed(rules, hands, np.full(2, -1), None, none, none, 1),
                F.tiles_needed_changed(rules, hands, np.full(2, -1), None, none, none, -1)):
        assert got.shape == (0,) and got.dtype == np.int16


def test_an_exposed_kong_of_three_natural_copies_under_hui_wild_in_melds_is_measured():
    """hui_wild_in_melds: an exposed kong on a claimed 5p with 555p in hand takes the three naturals and no 惠牌
    (a kong that took a fourth tile from the hand, the 惠牌 5z, was not a claim the hand could make: left at 0)."""
    from test_features import check_position, claim_position

    from mj_env import actions as A
    from mj_env import features as F
    from mj_env import observation as O
    from mj_env.rules import get_rules

    rules = get_rules("beijing", hui_wild_in_melds=True)
    planes, mask = claim_position("555p5z123s456s789s", 13, [A.PASS, A.PONG, A.KONG], hui=31)  # 5p claimed, 惠牌 5z
    extra = F.extra_planes(rules, planes, mask)
    assert check_position(rules, planes[0], mask[0], extra[0]) == "claim"
    assert extra[0, F.P_OPTION_NEED - O.N_PLANES, F.OPT_KONG] == 1  # 123s456s789s and the 惠牌: one tile to win
