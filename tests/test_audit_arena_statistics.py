"""Audit of the duplicate arena's statistics: its intervals over walls, and the examples that print intervals."""
from __future__ import annotations

import numpy as np
import pytest

from agents.arena import format_table, mean_ci95

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
