"""The printed statistics against independent computations (a statistician's audit, 2026-12-06).

Each check recomputes a figure another way than the code does: the cluster-robust interval of
``agents.arena_report.mean_ci95`` as the matrix sandwich of a regression on a constant (CR1, Stata's small-sample
factor), the duplicate arena's A-against-B symmetry under common random numbers, and the standard error
that examples/tianshou_pettingzoo.py prints against ``scipy.stats.sem`` (the sample standard deviation).
All fixed data or fixed seeds: nothing here depends on luck.
"""
from __future__ import annotations

import numpy as np
import pytest
from example_modules import load_example
from scipy import stats

from agents.arena import play_duplicate
from agents.arena_report import mean_ci95, summarize
from mj_env.baselines import EfficientAgent, RuleBasedAgent


def _sandwich_ci95(y: np.ndarray, groups: np.ndarray) -> tuple[float, float, float]:
    """OLS of ``y`` on a constant with the CR1 cluster-robust variance, written as matrices:
    (X'X)^-1 (sum_g X_g' e_g e_g' X_g) (X'X)^-1 * G / (G - 1) * (N - 1) / (N - K), t with G - 1 df."""
    X = np.ones((len(y), 1))
    beta = np.linalg.solve(X.T @ X, X.T @ y)
    e = y - X @ beta
    labels = np.unique(groups)
    G, (N, K) = len(labels), X.shape
    meat = sum(np.outer(X[groups == g].T @ e[groups == g], X[groups == g].T @ e[groups == g]) for g in labels)
    bread = np.linalg.inv(X.T @ X)
    V = G / (G - 1) * (N - 1) / (N - K) * bread @ meat @ bread
    half = stats.t.ppf(0.975, G - 1) * np.sqrt(V[0, 0])
    return float(beta[0]), float(beta[0] - half), float(beta[0] + half)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_grouped_interval_is_the_cr1_sandwich_of_a_regression_on_a_constant(seed):
    """agents/rollouts.py's intervals (``mean_ci95`` with the hands as groups) against the textbook sandwich,
    on groups of unequal sizes (1 to 9 values) whose values share a group effect."""
    rng = np.random.default_rng([seed, 77])
    sizes = rng.integers(1, 10, size=23)
    groups = np.repeat(rng.permutation(1000)[:23], sizes)           # labels neither sorted nor 0..G-1
    y = np.repeat(rng.normal(size=23), sizes) + rng.normal(size=sizes.sum())
    order = rng.permutation(len(y))                                  # the values of a group not adjacent
    y, groups = y[order], groups[order]
    assert mean_ci95(y, groups) == pytest.approx(_sandwich_ci95(y, groups), abs=1e-12)


def test_the_grouped_interval_of_singleton_groups_is_the_plain_student_t():
    y = np.array([0.5, -1.0, 2.0, 3.5, -0.25, 1.0])
    m, lo, hi = mean_ci95(y, np.arange(len(y))[::-1])
    half = stats.t.ppf(0.975, len(y) - 1) * stats.sem(y)
    assert (m, lo, hi) == pytest.approx((y.mean(), y.mean() - half, y.mean() + half), abs=1e-12)
    assert (m, lo, hi) == pytest.approx(mean_ci95(y), abs=1e-12)


def test_swapping_the_agents_negates_every_figure_exactly_under_common_random_numbers():
    """A against B and B against A on the same walls and seed: with ``common_random`` a decision's numbers come
    from its wall, seat and place in the hand, not from the agent's place in the list, so the two runs play the
    same hands and A's row is the same in both (within a run, the two rows are exact negatives). Without it,
    agent k draws from ``default_rng([seed, 1, k])``, so the swap changes the numbers (documented in the arena's
    docstring): that run is not expected to repeat."""
    ab = summarize(play_duplicate([EfficientAgent(), RuleBasedAgent()], 6, seed=5, batch_walls=6,
                                  common_random=True))
    ba = summarize(play_duplicate([RuleBasedAgent(), EfficientAgent()], 6, seed=5, batch_walls=6,
                                  common_random=True))
    a_first, a_second = ab["agents"][0], ba["agents"][1]
    assert {k: v for k, v in a_first.items() if k != "name"} == {k: v for k, v in a_second.items() if k != "name"}
    assert ab["agents"][1]["mean_points"] == -a_first["mean_points"]
    assert ab["agents"][1]["ci95"] == [-a_first["ci95"][1], -a_first["ci95"][0]]


def test_tianshous_printed_spread_is_the_sample_standard_error():
    """examples/tianshou_pettingzoo.py's "± se" is given Tianshou's ``returns_stat.std`` and NumPy's ``std()``,
    both the population standard deviation (ddof 0); it divided that by sqrt(hands), sqrt((n - 1) / n) of the
    standard error (0.829 for 2, 2, 4, 6 instead of 0.957), where torchrl_ppo.py's "± se" uses torch's sample
    std. Now it is scipy's ``sem`` (ddof 1)."""
    pytest.importorskip("tianshou")
    module = load_example("tianshou_pettingzoo")
    rng = np.random.default_rng(3)
    for x in (np.array([2.0, 2.0, 4.0, 6.0]), np.array([1.0, -3.0]), rng.normal(size=7) * 5):
        assert module.spread(float(np.std(x)), len(x)) == f" ± {stats.sem(x):.3f}"
    assert module.spread(0.0, 1) == ""
