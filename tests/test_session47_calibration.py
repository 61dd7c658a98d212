"""Do the 95% intervals cover 95%? (interval calibration audit, session 47, helper BN)

The long measurements (null pairs of identical agents under beijing, hebei and quemen; rule against random
against a 20,000-wall estimate of its mean; rollout gains that are 0 by construction) are too slow for the
suite; what is kept here is fast and uses fixed seeds only, so nothing depends on luck:

- ``agents.arena_report.mean_ci95`` without groups is Student-t with n - 1 degrees of freedom: on normal samples
  of 2, 3, 5 and 10 values it covers the mean 95% of the time (t with n degrees of freedom, or the normal
  quantile, covers too little at 2 and 3 values and fails here);
- with groups (``agents.rollouts.deviation_table``'s hands) it covers 95% when the values of a group share a
  group effect, which the interval without groups does not;
- the duplicate arena's interval is over walls with the two seatings of a wall together: the two agents' figures
  are exactly opposite, wall by wall, without common random numbers too.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("scipy")
from scipy import stats

from agents.arena import play_duplicate
from agents.arena_report import mean_ci95, summarize
from mj_env.baselines import RuleBasedAgent


def _bounds(runs: int) -> tuple[float, float]:
    """Coverage counts that a calibrated 95% interval gives with probability 0.999 in ``runs`` runs."""
    return stats.binom.ppf(0.0005, runs, 0.95) / runs, stats.binom.ppf(0.9995, runs, 0.95) / runs


@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_the_interval_over_n_walls_covers_95_percent_of_normal_samples(n):
    """2,000 samples of n normal values (fixed seed): the share of intervals holding the true mean is within the
    binomial bounds around 0.95. Wrong degrees of freedom (n instead of n - 1) fail at 2 and 3 values."""
    rng = np.random.default_rng([47, n])
    runs, mu = 2000, 1.5
    x = rng.normal(mu, 2.0, size=(runs, n))
    covered = 0
    for row in x:
        _, lo, hi = mean_ci95(row)
        covered += lo <= mu <= hi
    low, high = _bounds(runs)
    assert low <= covered / runs <= high, (n, covered / runs)


@pytest.mark.parametrize("n_groups", [3, 20])
def test_the_interval_grouped_by_hand_covers_95_percent_where_positions_share_their_hand(n_groups):
    """Positions of one hand share a group effect (as rollout gains share a wall): 2,000 runs of ``n_groups`` hands
    of 4 positions (3 hands) or 1-8 (20 hands). Grouped, the interval covers the true mean 95% of the time (within
    binomial bounds; without the G / (G - 1) factor or with G degrees of freedom, 3 hands fall below them); not
    grouped, far less."""
    rng = np.random.default_rng([47, 1, n_groups])
    runs, mu = 4000, -0.25
    grouped = plain = 0
    for _ in range(runs):
        sizes = np.full(n_groups, 4) if n_groups == 3 else rng.integers(1, 9, size=n_groups)
        groups = np.repeat(np.arange(n_groups), sizes)
        values = mu + rng.normal(0, 1.0, size=n_groups)[groups] + rng.normal(0, 0.3, size=len(groups))
        _, lo, hi = mean_ci95(values, groups)
        grouped += lo <= mu <= hi
        _, lo, hi = mean_ci95(values)
        plain += lo <= mu <= hi
    low, high = _bounds(runs)
    assert low <= grouped / runs <= high, grouped / runs
    assert plain / runs < 0.85, plain / runs


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_two_copies_of_the_rule_agent_score_exact_opposites_on_every_wall_without_common_random(rules):
    """Without common random numbers the two copies draw different tie-breaks, so the walls do not all score 0;
    still each wall's two seatings hold two seats of each agent and the points of a hand sum to 0, so agent 1's
    figure of every wall, its mean and its interval are agent 0's negated (the interval is over the walls'
    figures, a seating pair per wall: agents/arena.py's module docstring)."""
    res = play_duplicate([RuleBasedAgent(rules), RuleBasedAgent(rules)], 60, seed=47, rules=rules, batch_walls=64)
    mine = [res.seat_agent == k for k in range(2)]
    per_wall = [np.bincount(res.wall, weights=(res.scores * m).sum(axis=1), minlength=60)
                / np.bincount(res.wall, weights=m.sum(axis=1), minlength=60) for m in mine]
    assert np.array_equal(per_wall[0], -per_wall[1])
    assert np.any(per_wall[0] != 0)  # not the trivial case
    a, b = summarize(res)["agents"]
    assert a["mean_points"] == -b["mean_points"]
    assert a["ci95"] == [-b["ci95"][1], -b["ci95"][0]]
