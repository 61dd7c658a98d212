"""Mutation round AJ on mj_env/engine.py (third round), agents/plot_text.py and mj_env/registration.py
(second rounds): the behaviours the sampled survivors showed untested. Each test's docstring names the
mutant it kills (module, line, change)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scenario_helpers import ROB, ROB_MOVES
from test_audit_kongs_matches import KONGS_HEBEI
from walls import build_wall

from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.engine import _STATE_FIELDS, MAX_SPAWN_DEPTH, Engine, check_num_tables
from mj_env.tiles import parse_tiles
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


def _same_state(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in _STATE_FIELDS)


def _scripted(moves, preset="hebei", **layout):
    """A one-table engine dealt ``build_wall(preset, **layout)`` by dealer 0, played through ``moves``
    ((seat, action name) pairs); returns (engine, the last StepResult)."""
    eng = Engine(preset, num_tables=1, seed=0)
    eng.reset(walls=[build_wall(preset, **layout)], dealers=[0])
    res = None
    for seat, act in moves:
        assert int(eng.state.to_act[0]) == seat, (seat, act)
        res = eng.step([A.index(act)])
    return eng, res


def test_the_table_count_bound_is_four_million_tables_inclusive():
    """``num_tables`` may be 1 to 4,194,304 (``MAX_TABLES``, "4M tables"), both ends included; one more is
    refused with the bound in words. Kills the mutants of mj_env/engine.py line 48 ``1 << 22`` ->
    ``1 << 21`` and line 53 ``1 <= n <= MAX_TABLES`` -> ``1 <= n < MAX_TABLES`` (checked without
    allocating the tables)."""
    assert check_num_tables(4_194_304) == 4_194_304 and check_num_tables(1) == 1
    with pytest.raises(ValueError, match="num_tables must be an integer in 1-4,194,304, got 4194305"):
        check_num_tables(4_194_305)


def test_stepping_some_tables_plays_those_tables():
    """step(actions, tables=[0]) plays table 0's action as a step of every table would (the others wait).
    Kills the mutant of mj_env/engine.py line 501 ``chosen[sel] = True`` -> False, under which no table
    was stepped at all (the earlier test checked only that the other tables wait)."""
    eng = _engine()
    acts = uniform_legal(eng.legal_mask(), np.random.default_rng(5))
    twin = eng.clone(seed=0)
    eng.step(acts, tables=[0])
    twin.step(acts)
    for f in _STATE_FIELDS:
        assert np.array_equal(getattr(eng.state, f)[0], getattr(twin.state, f)[0]), f


def test_table_lists_that_are_not_table_numbers_are_value_errors_that_say_so():
    """``tables`` of step/reset that is a ragged list, or out of range, is a ValueError naming what is wrong
    (the first bad table and the range 0..B-1) and changes nothing. Kills the mutants of mj_env/engine.py
    line 212 (the ragged list's raise deleted: an UnboundLocalError) and line 219 (the range said 0-3 for
    three tables)."""
    eng = _engine()
    before = eng.state.copy()
    with pytest.raises(ValueError, match="tables must be a 1-D array of table numbers"):
        eng.step(np.zeros(3, dtype=np.int64), tables=[[0], [1, 2]])
    with pytest.raises(ValueError, match=r"table 5 does not exist \(tables are 0-2\)"):
        eng.reset(tables=[5, 7])
    assert _same_state(before, eng.state)


def test_copy_table_errors_name_the_first_bad_table_and_what_was_given():
    """clone/restore name the first table out of range, and a bool table number as given. Kills the
    mutants of mj_env/engine.py line 368 (``bad[0]`` -> ``bad[-1]``: the last bad table named) and line
    355 (the raise for a bool deleted: the error then named NumPy's dtype, not the value given)."""
    eng = _engine()
    with pytest.raises(ValueError, match="has no table 5 "):
        eng.clone([5, 0, 7])
    with pytest.raises(TypeError, match=r"tables must be table numbers \(integers\), got True"):
        eng.clone(True)


def test_restore_refuses_a_destination_listed_twice_and_does_nothing_for_none():
    """restore: ``dst_tables`` are distinct (a repeat is a ValueError and nothing changes); empty lists of
    tables copy nothing. Kills the mutants of mj_env/engine.py line 371 (``arr.ndim == 1`` -> ``== 2``: a
    repeated destination taken), line 361 (``np.zeros(0)`` -> ``np.zeros(-1)``) and line 360
    (``arr.ndim == 1`` -> ``== 0``: an empty list read as floats, a TypeError)."""
    eng = _engine()
    before = eng.state.copy()
    with pytest.raises(ValueError, match="dst_tables lists a table more than once"):
        eng.restore(eng, [0, 1], [2, 2])
    assert _same_state(before, eng.state)
    eng.restore(eng, [], [])
    assert _same_state(before, eng.state)


def test_restore_of_several_different_source_tables_copies_each_to_its_row():
    """restore(src, [2, 0], [0, 1]): row 0 gets table 2 and row 1 table 0 (each its own). Kills the mutant
    of mj_env/engine.py line 314 (the one-source test negated: different sources took the broadcast
    path)."""
    eng = _engine()
    src = eng.clone(seed=0)
    eng.restore(src, [2, 0], [0, 1])
    for f in _STATE_FIELDS:
        assert np.array_equal(getattr(eng.state, f)[[0, 1]], getattr(src.state, f)[[2, 0]]), f


def test_a_clone_of_one_table_number_is_a_one_table_engine():
    """clone(b) with one table number (not a list) is a clone of that table alone. Kills the mutant of
    mj_env/engine.py line 266 (``idx.reshape(1)`` -> ``reshape(2)``: a ValueError)."""
    eng = _engine()
    one = eng.clone(1, seed=0)
    assert one.num_tables == 1
    assert all(np.array_equal(getattr(one.state, f)[0], getattr(eng.state, f)[1]) for f in _STATE_FIELDS)


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


def test_an_added_kong_holds_four_tiles_and_a_robbed_one_leaves_the_rivers_alone():
    """docs/RULES.md (kongs, 抢杠): seat 1 adds 5m to its pong of 5m. Passed by the robber, the kong holds
    four 5m and no 5m is left in hand; robbed, the win takes the added tile from seat 1's hand and every
    river is as it was (no 5m was discarded). Kills the mutants of mj_env/engine.py line 600
    (``meld_counts += 1`` -> ``+= 2``: five tiles in the kong) and line 778 (``& ~robbed`` ->
    ``| ~robbed``: the robbed tile also taken out of seat 1's river, leaving it at -1)."""
    (m5,) = parse_tiles("5m")
    eng, res = _scripted([*ROB_MOVES, (1, "kong 5m"), (3, "pass")], "beijing", indicator="9s", **ROB)
    assert not res.hand_over[0] and eng.state.meld_counts[0, 1, m5] == 4 and eng.state.hands[0, 1, m5] == 0
    eng, res = _scripted([*ROB_MOVES, (1, "kong 5m"), (3, "win")], "beijing", indicator="9s", **ROB)
    assert res.hand_over[0] and eng.state.robbed[0]
    assert eng.state.river[0, :, m5].tolist() == [0, 0, 0, 0] and (eng.state.river >= 0).all()
    assert eng.state.meld_counts[0, 1, m5] == 3 and eng.state.hands[0, 1, m5] == 0


def test_a_concealed_kong_counts_one_concealed_kong():
    """The dealer's concealed kong of 5m: its seat holds one concealed kong (``n_hidden``, the observation's
    concealed-kong count), four 5m in melds, none in hand. Kills the mutant of mj_env/engine.py line 582
    (``n_hidden += 1`` -> ``+= 2``)."""
    (m5,) = parse_tiles("5m")
    eng, _ = _scripted([(0, "kong 5m")], "hebei", hands=KONGS_HEBEI, tail="3z3m")
    st = eng.state
    assert st.n_hidden[0].tolist() == [1, 0, 0, 0]
    assert st.meld_counts[0, 0, m5] == 4 and st.hands[0, 0, m5] == 0


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
    assert clone.rng.integers(0, 2**32, 3).tolist() == [3009892766, 1922808175, 61909901]
