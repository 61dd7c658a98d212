"""Gaps found by a second mutation pass over agents/arena.py and agents/play.py (a seeded sample of single-node AST
mutants, weighted to logic, run against the tests that name each module; earlier passes:
tests/test_arena_cli_mutants.py, tests/test_arena_pretrained_mutants.py, tests/test_play_training_checks_mutants.py).
Each test here failed under the mutant named in its docstring and passes on the code; the expectations come from
the modules' docstrings and --help. The arena's summary needs scipy (its intervals): the tests that make one skip
without it."""
from __future__ import annotations

import builtins
import os
import sys

import numpy as np
import pytest
from test_play_cli import play
from test_play_cli_input_limits import _Terminal
from test_plugin_agents import installed  # noqa: F401 (the fixture: one more installed agent, "highest")

from agents import RandomAgent, RuleBasedAgent, arena
from agents.arena import check_run, compare, main, play_duplicate
from agents.play import MAX_ANSWER, PROMPT, AnswerTooLong, action_text, read_answer
from mj_env import actions as A
from mj_env.tiles import CODES, glyph


def test_check_run_takes_the_documented_largest_seed_itself():
    """arena.MAX_SEED made ``2**31 - 1``: tests/test_arena_pretrained_mutants.py takes the module's own MAX_SEED as
    the bound, so a seed of 2**31 or more, within the documented 0 to 2**32 - 1, could be refused unseen."""
    check_run(2, 1, 1, 2**32 - 1)
    check_run(2, 1, 1, 2**31)
    with pytest.raises(ValueError, match=r"^seed must be between 0 and 2\*\*32 - 1"):
        check_run(2, 1, 1, 2**32)
    assert arena.MAX_SEED == 2**32 - 1


def test_play_duplicate_keeps_no_records_and_draws_ordinary_random_numbers_by_default():
    """play_duplicate's defaults ``record_hands=False`` made True, or ``common_random=False`` made True: a plain call
    kept every hand's record in memory (``records`` is documented as kept only with ``record_hands=True``), or drew
    the common random numbers the module docstring says are off by default (which keeps published runs repeatable)."""
    agents = [RandomAgent(), RuleBasedAgent()]
    plain = play_duplicate(agents, 3, seed=11, batch_walls=2)
    assert plain.records is None and plain.deals is None
    ordinary = play_duplicate(agents, 3, seed=11, batch_walls=2, record_hands=False, common_random=False)
    common = play_duplicate(agents, 3, seed=11, batch_walls=2, common_random=True)
    assert np.array_equal(plain.scores, ordinary.scores)
    assert not np.array_equal(plain.scores, common.scores)  # (so the comparison above tells the two apart)


def test_a_batch_whose_every_hand_ends_at_its_deal_is_recorded():
    """arena._hand_records' ``np.zeros(0)`` for a batch with no decision at all made ``np.zeros(-1)``: a batch of one
    wall whose hands all end at the deal (四惠牌, tests/walls.py) stopped the run with a ValueError instead of
    recording its hands (tests/test_independent_arena.py batches that wall with others, which have decisions)."""
    from walls import deals_first, four_hui_9s_wall

    patched = deals_first(arena.shuffled_walls, four_hui_9s_wall(), 1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(arena, "shuffled_walls", patched)
        result = play_duplicate([RuleBasedAgent(), RandomAgent()], 2, seed=1, batch_walls=1, record_hands=True)
    assert result.records is not None and len(result.records) == 4
    first = [r for r in result.records if r["wall_index"] == 0]
    assert [r["seating"] for r in first] == [0, 1]
    assert all(r["actions"] == [] and r["settlement"]["fan"] == 9 for r in first)
    assert all(r["actions"] for r in result.records if r["wall_index"] == 1)


class _NeverEmpty:
    """A rule agent that refuses to be asked about no table at all (a user's agent may index its first row)."""

    name = "never-empty"

    def __init__(self):
        self.inner = RuleBasedAgent()

    def act(self, obs, rng):
        assert len(obs["action_mask"]) > 0, "asked about no table"
        return self.inner.act(obs, rng)


def test_an_agent_is_asked_only_about_the_tables_where_it_acts():
    """arena._play_batch's ``continue`` for an agent with no table to act at in a step removed: every agent was
    asked at every step, with empty arrays where it had nothing to do, which an agent that reads its first row (or a
    network run on an empty batch) fails on."""
    result = play_duplicate([_NeverEmpty(), RandomAgent()], 2, seed=4, batch_walls=2)
    assert result.scores.shape == (4, 4)


def test_compare_keeps_no_hand_records_unless_given_a_callable_for_them(monkeypatch):
    """arena.compare's ``record_hands=records or False`` made ``records or True``: without ``records``, every hand's
    record of the run was kept in memory (a few hundred bytes to kilobytes a hand, for up to 12,000,000 hands), where
    the docstrings say records are made only for a ``records`` callable (the command line's --record)."""
    pytest.importorskip("scipy")
    kept = []

    def spy(*args, **kwargs):
        result = play_duplicate(*args, **kwargs)
        kept.append((kwargs.get("record_hands"), result.records))
        return result

    monkeypatch.setattr(arena, "play_duplicate", spy)
    compare(["rule", "random"], 2, seed=3)
    assert kept == [(False, None)]
    batches = []
    compare(["rule", "random"], 2, seed=3, records=batches.append)
    assert kept[1][0] == batches.append and kept[1][1] is None and len(batches) == 1 and len(batches[0]) == 4


@pytest.mark.parametrize("spec,told", [("{loop}", "a loop of symbolic links"),
                                       (":greedy", "the path is empty: it names no file")])
def test_an_agent_path_the_file_system_refuses_is_named_as_such(spec, told, tmp_path, capsys):
    """arena.check_args' ``if problem: raise ValueError(f"--agents: {problem}")`` forced False or its raise removed:
    an agent's path that cannot be looked up at all (a loop of symbolic links, an empty path before ``:greedy``) was
    told as a missing checkpoint, or as a directory (the empty path is the current folder), not as what it is."""
    loop = tmp_path / "loop.pt"
    loop.symlink_to(loop)
    with pytest.raises(SystemExit) as stop:
        main(["--agents", f"{spec.replace('{loop}', str(loop))},rule", "--hands", "1", "--quiet"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("python -m agents.arena: error: --agents: ") and err.endswith(told)


@pytest.mark.usefixtures("installed")
def test_an_installed_packages_agent_plays_whatever_the_device_says():
    """arena.check_args with ``and not is_plugin_spec(s)`` dropped: an installed package's agent, which is made
    without a device (mj_env.baselines.make_named_agent), had --device checked as a network's would be, so a run of
    it beside a baseline was refused for a device it never uses (or without torch installed)."""
    pytest.importorskip("scipy")
    assert main(["--agents", "highest,random", "--hands", "1", "--device", "bogus", "--quiet"]) == 0


def test_a_plot_without_matplotlib_is_a_usage_error_before_a_wall_is_played(monkeypatch, tmp_path, capsys):
    """arena.check_args' ``if problem: raise ValueError(problem)`` for a missing matplotlib forced False or its raise
    removed: --plot without the plot extra played the whole run and failed only when drawing, after the table."""
    monkeypatch.setattr(arena, "missing_module", lambda name, needed_for, extra=None: f"{name} is missing: {needed_for}"
                        if name == "matplotlib" else None)
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a wall was played"))
    with pytest.raises(SystemExit) as stop:
        main(["--agents", "random,rule", "--hands", "1", "--quiet", "--plot", str(tmp_path / "chart.png")])
    assert stop.value.code == 2 and "matplotlib is missing: --plot" in capsys.readouterr().err
    assert not (tmp_path / "chart.png").exists()


def test_a_record_file_that_is_a_device_is_written_as_it_is():
    """arena.open_records' ``if stat.S_ISREG(...)`` forced True: a special file (--record /dev/null, /dev/stdout, a
    pipe), which its docstring says is written as it is, was locked and emptied like a regular file, and emptying a
    device fails (EINVAL): the run was refused with 'cannot write /dev/null'."""
    pytest.importorskip("scipy")
    assert main(["--agents", "random,rule", "--hands", "1", "--quiet", "--record", os.devnull]) == 0


def test_a_terminals_answer_of_the_longest_length_is_an_answer(monkeypatch):
    """agents.play.read_answer's ``len(text) > MAX_ANSWER`` for a terminal made ``>=``: an answer of exactly
    MAX_ANSWER characters, the longest the module says is read (as it is from a file or pipe), was refused at a
    terminal; one more is refused (tests/test_play_cli_input_limits.py)."""
    longest = "1" + " " * (MAX_ANSWER - 1)
    given = iter([longest, longest + " "])
    monkeypatch.setattr(sys, "stdin", _Terminal(""))
    monkeypatch.setattr(builtins, "input", lambda prompt: next(given))
    assert read_answer(PROMPT) == longest
    with pytest.raises(AnswerTooLong):
        read_answer(PROMPT)


def test_every_tile_of_an_action_is_shown_with_its_glyph_the_last_one_too():
    """agents.play.action_text's ``CODES[:34]`` made ``CODES[:33]``: the options naming 7z (红中, the last of the 34
    kinds) were listed without the tile's glyph that every other tile's option shows."""
    for t in (0, 33):
        assert action_text(A.DISCARD + t) == f"discard {CODES[t]} {glyph(t)}"
        assert action_text(A.index(f"kong {CODES[t]}")) == f"kong {CODES[t]} {glyph(t)}"
    assert action_text(A.index("pass")) == "pass"


@pytest.mark.parametrize("seed", [0, 5])
def test_every_seats_melds_are_told_as_they_come_onto_the_table_norths_too(seed, tmp_path):
    """agents.play.Game._melds' ``range(4)`` made ``range(3)``: the melds North (seat 3) claimed or declared were never
    told ("North (rule) declares pong ..."), though the module says the other seats' melds are told once they lie on
    the table. Each seat's lines are counted against its meld-making actions in the hand's record."""
    rc, out, records = play(["--seed", str(seed)], tmp_path=tmp_path)
    assert rc == 0 and len(records) == 1
    names = ["East (you)", "South (rule)", "West (rule)", "North (rule)"]
    made = [sum(1 for s, a in records[0]["actions"] if s == seat and (a in ("pong", "kong") or a.startswith(("chi ", "kong "))))
            for seat in range(4)]
    assert [out.count(f"{name} declares ") for name in names] == made
    assert made[3] > 0  # (the seeds where North makes a meld)
