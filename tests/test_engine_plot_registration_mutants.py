"""Mutation round AJ on mj_env/engine.py (third round), agents/plot_text.py and mj_env/registration.py
(second rounds): the behaviours the sampled survivors showed untested. Each test's docstring names the
mutant it kills (module, line, change). Survivors of the per-mutant test set that tests/test_clone.py,
tests/test_observation.py or tests/test_engine.py already kill have no test here."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_clone import assert_same, snapshot
from walls import build_wall

from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.engine import MAX_SPAWN_DEPTH, Engine, check_num_tables
from mj_env.wall import WallError

# --------------------------------------------------------------------------- agents.plot_text


def test_a_chosen_font_that_is_not_installed_lends_no_glyphs_to_what_is_drawn(tmp_path, monkeypatch):
    """``font.family`` naming a font this machine lacks (a setting copied from another machine), with an
    installed CJK font behind it (here cmr10's file under a CJK font's name: no 'é'): matplotlib draws with
    the font it found, so 'é' is escaped and no glyph is reported missing (the module docstring of
    agents/plot_text.py). Kills the mutant of agents/plot_text.py line 45 ``fallback_to_default=False`` ->
    True, which counted DejaVu Sans's glyphs for the missing font: 'é' was kept and matplotlib warned
    "Glyph 233 ... missing from font(s) cmr10"."""
    mpl = pytest.importorskip("matplotlib")
    from matplotlib import font_manager
    from matplotlib.figure import Figure

    from agents import plot_text

    cmr = next(f for f in font_manager.fontManager.ttflist if f.name == "cmr10")
    fake = font_manager.FontEntry(fname=cmr.fname, name="WenQuanYi Zen Hei", style=cmr.style,
                                  variant=cmr.variant, weight=cmr.weight, stretch=cmr.stretch, size=cmr.size)
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in plot_text.CJK_FONTS]
                        + [fake])
    plot_text._fonts.cache_clear()
    try:
        # (cmr10 asks for mathtext tick labels: set so that its own advice is no warning here)
        with mpl.rc_context({"font.family": ["No Such Font"], "axes.formatter.use_mathtext": True}):
            assert plot_text.fonts()[0] == ("No Such Font", "WenQuanYi Zen Hei")
            label = plot_text.drawable("rule é")
            assert label == "rule \\xe9"
            with mpl.rc_context(plot_text.rc()):
                fig = Figure()
                fig.subplots().set_title(label)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    fig.savefig(tmp_path / "p.png")
    finally:
        plot_text._fonts.cache_clear()


# --------------------------------------------------------------------------- mj_env.engine


def _engine(preset="beijing", tables=3, seed=0, moves=3) -> Engine:
    """An engine of ``tables`` tables a few uniformly random legal moves into its hands."""
    eng = Engine(preset, num_tables=tables, seed=seed)
    eng.reset()
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))
    return eng


def test_the_table_count_bound_is_four_million_tables_inclusive():
    """``num_tables`` may be 1 to 4,194,304 (``MAX_TABLES``, "4M tables"), both ends included; one more is
    refused with the bound in words. Kills the mutants of mj_env/engine.py line 48 ``1 << 22`` ->
    ``1 << 21`` and line 53 ``1 <= n <= MAX_TABLES`` -> ``1 <= n < MAX_TABLES`` (checked without
    allocating the tables)."""
    assert check_num_tables(4_194_304) == 4_194_304 and check_num_tables(1) == 1
    with pytest.raises(ValueError, match="num_tables must be an integer in 1-4,194,304, got 4194305"):
        check_num_tables(4_194_305)


def test_table_lists_that_are_not_table_numbers_are_value_errors_that_say_so():
    """``tables`` of step/reset that is a ragged list, or out of range, is a ValueError naming what is wrong
    (the first bad table and the range 0..B-1) and changes nothing. Kills the mutants of mj_env/engine.py
    line 212 (the ragged list's raise deleted: an UnboundLocalError) and line 219 (the range said 0-3 for
    three tables)."""
    eng = _engine()
    before = snapshot(eng)
    with pytest.raises(ValueError, match="tables must be a 1-D array of table numbers"):
        eng.step(np.zeros(3, dtype=np.int64), tables=[[0], [1, 2]])
    with pytest.raises(ValueError, match=r"table 5 does not exist \(tables are 0-2\)"):
        eng.reset(tables=[5, 7])
    assert_same(before, snapshot(eng))


def test_copy_table_errors_name_the_first_bad_table_and_what_was_given():
    """clone/restore name the first table out of range, and a bool table number as given. Kills the
    mutants of mj_env/engine.py line 368 (``bad[0]`` -> ``bad[-1]``: the last bad table named) and line
    355 (the raise for a bool deleted: the error then named NumPy's dtype, not the value given)."""
    eng = _engine()
    with pytest.raises(ValueError, match="has no table 5 "):
        eng.clone([5, 0, 7])
    with pytest.raises(TypeError, match=r"tables must be table numbers \(integers\), got True"):
        eng.clone(True)


def test_wrong_numbers_of_walls_and_dealers_are_value_errors_that_say_so():
    """reset with two walls (lists of tiles) for one table is a WallError counting them; a dealers string
    is a ValueError asking for a list of seats. Kills the mutants of mj_env/engine.py line 233
    (``'s' * ...`` -> ``'s' // ...``: a TypeError) and line 92 (the dealers raise deleted: the string's
    characters were read as seats)."""
    eng = Engine("beijing", num_tables=1, seed=0)
    w = build_wall("beijing")
    with pytest.raises(WallError, match="2 walls given for 1 table"):
        eng.reset(walls=[w, w])
    with pytest.raises(ValueError, match="dealers must be a list of 1 seat, got '0'"):
        eng.reset(dealers="0")


def test_an_illegal_action_lists_up_to_twelve_legal_ones_and_marks_only_a_longer_list_cut():
    """explain_illegal lists the legal actions, the first 12, with " ..." only where more were left out.
    Kills the mutant of mj_env/engine.py line 474 (``> 12`` -> ``> 11``: a list of exactly 12 marked as
    cut)."""
    eng = _engine(tables=64, seed=2, moves=0)
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(40):
        mask = eng.legal_mask()
        for b in np.flatnonzero(mask.sum(axis=1) >= 12):
            n = int(mask[b].sum())
            names = [A.name(i) for i in np.flatnonzero(mask[b])]
            text = eng.explain_illegal(int(b), int(np.flatnonzero(~mask[b])[0]))
            assert text.endswith("legal now: " + ", ".join(names[:12]) + (" ..." if n > 12 else "")), text
            seen.add(min(n, 13))
        eng.step(uniform_legal(mask, rng, empty_ok=True))
    assert seen == {12, 13}


def test_a_clone_deeper_than_the_spawn_depth_draws_the_same_numbers_as_before():
    """Same seed, same games, for searches too: the 33rd clone of clones of a seed-0 engine
    (``MAX_SPAWN_DEPTH`` 32: reseeded from its own first words, ``_spawned``) draws the numbers it drew
    when the reseeding was made. Kills the mutant of mj_env/engine.py line 76 (``generate_state(4)`` ->
    ``generate_state(3)``: another, still reproducible, stream, so the walls such a search deals would
    change under the same seed)."""
    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset()
    clone = eng
    for _ in range(MAX_SPAWN_DEPTH + 1):
        clone = clone.clone()
    assert len(clone.rng.bit_generator.seed_seq.spawn_key) == 0
    # (the bit generator's raw words: PCG64 and SeedSequence keep their streams across NumPy versions)
    assert clone.rng.bit_generator.random_raw(2).tolist() == [8258398231116337566, 578556464477547405]
