"""Audit of the duplicate arena's statistics: its intervals over walls, and the examples that print intervals."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from example_modules import load_example

from agents.arena_report import format_table, mean_ci95

pytest.importorskip("scipy")


@pytest.mark.parametrize("x, n", [(0.1, 50), (1 / 3, 50), (0.7, 1000), (-0.35, 50)])
def test_walls_that_all_score_the_same_give_that_value_and_an_interval_of_no_width(x, n):
    """Every wall scoring x: the mean is x and the interval [x, x]. NumPy's mean of 50 copies of 0.1 is
    0.09999999999999998 and the sample sd about 1e-17, so the interval was 1e-17 wide and missed 0.1 itself, and
    format_table, which notes an interval of no width by its two ends being equal, said nothing."""
    m, lo, hi = mean_ci95(np.full(n, x))
    assert (m, lo, hi) == (x, x, x)
    summary = {"walls": n, "hands_played": 36 * n, "seatings": [[0, 0, 1, 2]] * 36, "draw_rate": 0.0,
               "agents": [{"name": "a", "mean_points": m, "ci95": [lo, hi], "win_rate": 0.0, "self_draw_rate": 0.0,
                           "deal_in_rate": 0.0, "avg_fan": None}]}
    assert "every wall scored the same for a" in format_table(summary)


def test_duplicate_baseline_has_no_interval_from_one_wall_and_prints_no_nan(capsys):
    """examples/duplicate_baseline.py resamples walls for its intervals: one wall resampled is always that wall, so
    it printed intervals of no width ("0.00 [0.00, 0.00]") as if certain; and where the player's points G never
    vary (random as the player, one wall of seed 0: G is -1 in all four of its seat-hands) rho is undefined and
    it printed "nan [nan, nan]". Now one wall has the arena's (-inf, inf) and an undefined value reads n/a."""
    db = load_example("duplicate_baseline")
    assert db.main(["--agent", "random", "--walls", "1", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "| correlation rho of G and B | n/a [-inf, inf] |" in out
    assert "| variance of G | 0.00 [-inf, inf] |" in out
    assert "nan" not in out.lower()


def test_duplicate_baseline_with_rho_undefined_on_every_resample_warns_nothing(capsys):
    """Two walls (seed 7) on which the random player's points never vary: no bootstrap draw has a rho, and
    NumPy's "All-NaN slice" warning is not the reader's business; the interval reads n/a."""
    db = load_example("duplicate_baseline")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert db.main(["--agent", "random", "--walls", "2", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "| correlation rho of G and B | n/a [n/a, n/a] |" in out and "nan" not in out.lower()
