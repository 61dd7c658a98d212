"""Durations and time budgets are measured on a clock that does not jump (``time.monotonic``): the wall clock
(``time.time``) can be stepped back by NTP or a user setting the date, or forward by a suspended laptop or a
migrated VM. Measured on it, a jump back made train.py's elapsed time negative (negative seconds and SPS in
progress.csv, a negative train_seconds, a --max-minutes that never ended the run, an agents.rollouts --seconds
that never ended) and a jump forward ended them at once."""
import csv
import re
import time
from pathlib import Path

import pytest

from agents import rollouts as R
from agents import search
from mj_env.rules import get_rules

BACK_AN_HOUR, FORWARD_A_DAY = -3600.0, 86400.0


def jumpable_wall_clock(monkeypatch) -> list[float]:
    """``time.time`` made the real time plus ``offset[0]``, which the test moves: the jump."""
    real, offset = time.time, [0.0]
    monkeypatch.setattr(time, "time", lambda: real() + offset[0])
    return offset


def jumping_after(monkeypatch, module, name: str, offset: list[float], step: float) -> None:
    """``module.name`` moves the wall clock ``step`` seconds (back an hour, forward a day) each time it
    returns."""
    real = getattr(module, name)

    def jumped(*args, **kwargs):
        try:
            return real(*args, **kwargs)
        finally:
            offset[0] += step

    monkeypatch.setattr(module, name, jumped)


@pytest.mark.parametrize("step", [BACK_AN_HOUR, FORWARD_A_DAY])
def test_train_measures_its_run_on_a_clock_that_does_not_jump(step, tmp_path, monkeypatch, capsys):
    """A run of 3 updates with --max-minutes 1, the wall clock jumping in every rollout and in the final
    evaluation: all 3 updates are made (a day forward ended it after the first), and progress.csv's seconds,
    SPS and rollout_seconds, final_eval.json's train_seconds and the final evaluation's seconds are the real
    ones, never negative (hours back made them negative)."""
    pytest.importorskip("torch")
    from test_train_interrupt import TINY

    import train

    monkeypatch.chdir(tmp_path)
    offset = jumpable_wall_clock(monkeypatch)
    jumping_after(monkeypatch, train, "collect_rollout", offset, step)  # in each update's rollout timing
    jumping_after(monkeypatch, train, "evaluate", offset, step)  # in the final evaluation's
    t = time.monotonic()
    result = train.main(["--exp-name", "jumps", "--total-steps", "1536", "--max-minutes", "1",
                         "--final-eval-hands", "1", *TINY])
    took = time.monotonic() - t
    out = capsys.readouterr().out
    assert took < 50, f"the tiny run took {took:.0f} s: too close to --max-minutes 1 for this test"
    assert result["updates"] == 3 and "minutes (--max-minutes)" not in out, out
    assert 0 <= result["train_seconds"] <= took + 0.1
    with open(Path("runs", "jumps", "progress.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["update"]) for r in rows] == [1, 2, 3]
    for r in rows:
        assert 0 <= float(r["seconds"]) <= took + 0.1 and 0 <= float(r["rollout_seconds"]) <= took + 0.01, r
        assert int(r["SPS"]) >= int(r["global_step"]) / (took + 0.1), r
    evaluation = re.search(r"final evaluation \(1 walls, .*, (-?\d+) s\):", out)
    assert evaluation and 0 <= int(evaluation[1]) <= took + 1, out


@pytest.mark.parametrize("step", [BACK_AN_HOUR, FORWARD_A_DAY])
def test_labelled_play_labels_for_its_seconds_whatever_the_wall_clock_does(step, monkeypatch):
    """agents.rollouts' --seconds budget: labelled_play plays 0.3 s, no less (a day forward ended it after one
    step) and not for ever (an hour back never ended it)."""
    offset = jumpable_wall_clock(monkeypatch)
    t = time.monotonic()
    for _ in R.labelled_play(get_rules("beijing"), 1, 0.3, seed=0):
        offset[0] += step  # at every step
        assert time.monotonic() - t < 10, "still labelling after 10 s of a 0.3 s budget"
    assert time.monotonic() - t >= 0.3


def test_rollouts_and_search_print_the_seconds_they_took(monkeypatch, capsys):
    """agents.rollouts' "... rollouts in N s" and agents.search's last "..., N s" are the real seconds, with
    the wall clock a day further after every step labelled and after the search's games (they said 86,400 s
    and more)."""
    offset = jumpable_wall_clock(monkeypatch)
    jumping_after(monkeypatch, R, "label_positions", offset, FORWARD_A_DAY)
    jumping_after(monkeypatch, search, "play_duplicate", offset, FORWARD_A_DAY)
    t = time.monotonic()
    assert R.main(["--seconds", "0.01", "--tables", "1", "--seed", "1"]) == 0
    took = re.search(r" rollouts in (-?\d+) s ", capsys.readouterr().out)
    assert took and 0 <= int(took[1]) <= time.monotonic() - t + 1
    t = time.monotonic()
    assert search.main(["--walls", "1", "--worlds", "2", "--batch-walls", "1", "--z", "0"]) == 0
    took = re.search(r", z 0\.0, (-?\d+) s\n", capsys.readouterr().out)
    assert took and 0 <= int(took[1]) <= time.monotonic() - t + 1
