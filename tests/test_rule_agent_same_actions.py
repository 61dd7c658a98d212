"""The rule agent made faster with every action the same. Its claim windows weigh every claim option of every
table in one pass of the distance after the best discard (``mj_env.baselines.discard_distances``), and the
distance of passing and of an exposed kong in one ``hand_distance`` call, not one call per option kind and chi
rank (each call costs about 0.2 ms whatever its size); ``hand._maxplus`` of a few hands gathers all meld splits
at once. A table's choice is the one it makes alone (the first of equal options; docs/INTERFACES.md's agents
take any batch of tables)."""
from __future__ import annotations

import numpy as np
import pytest
from agent_obs import _claim_obs

from mj_env import actions as A
from mj_env import baselines as B
from mj_env import hand as H
from mj_env.baselines import RuleBasedAgent


def _acts_as_alone_counting(monkeypatch, function: str, rows: tuple, copies: int) -> list[int]:
    """The hands given to each call of ``mj_env.baselines.<function>`` while the rule agent acts on ``rows`` (one
    table each) stacked ``copies`` times; every table must choose as it does alone."""
    alone = [int(RuleBasedAgent().act(x, np.random.default_rng(0))[0]) for x in rows]
    calls: list[int] = []
    real = getattr(B, function)
    monkeypatch.setattr(B, function, lambda *args: calls.append(len(args[1])) or real(*args))
    obs = {k: np.concatenate([x[k] for x in rows] * copies) for k in rows[0]}
    assert RuleBasedAgent().act(obs, np.random.default_rng(0)).tolist() == alone * copies
    return calls


def test_every_claim_option_of_every_table_is_weighed_in_one_distance_pass(monkeypatch):
    """Pong and three chis of a 3m in 123345m456p789s1z, and a table with chi 123m and chi 345m only: one call
    of ``discard_distances`` for all of them (it was four: the pong, then one per chi rank), and each table
    chooses as it does alone."""
    full = _claim_obs("123345m456p789s1z", "3m", [A.PONG, A.CHI + 0, A.CHI + 1, A.CHI + 2])
    two = _claim_obs("12m45m9m456p789s11z", "3m", [A.CHI + 0, A.CHI + 2])
    calls = _acts_as_alone_counting(monkeypatch, "discard_distances", (full, two), 4)
    assert calls == [4 * 4 + 4 * 2]  # one pass: 4 tables' 4 options and 4 tables' 2


def test_the_distance_of_passing_and_of_an_exposed_kong_is_one_pass(monkeypatch):
    """An exposed kong and a pong of 3m in 1333m456p789s11z5z beside a table with a chi only: one call of
    ``hand_distance`` measures every table's hand as it is (passing) and the kong's hand (it was two), and each
    table chooses as it does alone."""
    kong = _claim_obs("1333m456p789s11z5z", "3m", [A.PONG, A.KONG])
    chi = _claim_obs("12m45m9m456p789s11z", "3m", [A.CHI + 0, A.CHI + 2])
    calls = _acts_as_alone_counting(monkeypatch, "hand_distance", (kong, chi), 3)
    assert calls == [6 + 3]  # the 6 tables' hands and the 3 kongs'


@pytest.mark.parametrize("columns", [1, 7, 100, 101, 300])
def test_maxplus_gathers_all_meld_splits_for_a_few_hands_with_the_same_sums(columns):
    """``hand._maxplus`` of a few hands (at most ``_SMALL_MAXPLUS`` columns) takes every split m1 + m2 = m in one
    gather rather than a loop over m: the same table as its definition (out[m, p] the most of a[m1, p1] +
    b[m2, p2] over m1 + m2 = m, p1 + p2 = p), for stacked tables and a broadcast part too."""
    rng = np.random.default_rng(columns)
    a = rng.integers(0, 15, (5, 2, 2, columns), dtype=np.uint8)
    b = rng.integers(0, 15, (5, 2, 2, columns), dtype=np.uint8)
    for x, y in ((a, b), (a, b[..., :1])):
        want = np.zeros_like(a)
        for m in range(5):
            for m1 in range(m + 1):
                want[m, 0] = np.maximum(want[m, 0], x[m1, 0] + y[m - m1, 0])
                want[m, 1] = np.maximum(want[m, 1], np.maximum(x[m1, 0] + y[m - m1, 1], x[m1, 1] + y[m - m1, 0]))
        assert (H._maxplus(x, y) == want).all()
    assert (columns * 2 <= H._SMALL_MAXPLUS) == (columns <= 100)  # both ways are tried, either side of the bound
