"""mj_env.payments: the 烧庄 line and points on ints and on arrays are one computation; drawn
hands settle 烧庄 only."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env.payments import draw_scores, hubao_partners, settle_draw, shaozhuang_line, shaozhuang_scores
from mj_env.rules import get_rules


def test_shaozhuang_line_on_ints_and_arrays():
    rounds = list(range(-2, 22))
    lines = [shaozhuang_line(r) for r in rounds]
    assert lines[:8] == [0, 0, 0, 1, 2, 4, 8, 16] and lines[-1] == 2 ** 20
    assert all(type(x) is int for x in lines)
    got = shaozhuang_line(np.array(rounds, dtype=np.int64))
    assert got.dtype == np.int64 and got.tolist() == lines


def test_shaozhuang_scores_on_ints_and_arrays():
    rng = np.random.default_rng(0)
    dealer = rng.integers(0, 4, 200)
    rounds = rng.integers(0, 22, 200)
    batch = shaozhuang_scores(dealer, rounds, base=7)
    assert batch.shape == (200, 4) and batch.dtype == np.int64
    for d, r, row in zip(dealer.tolist(), rounds.tolist(), batch.tolist()):
        assert shaozhuang_scores(d, r, base=7) == row
        assert sum(row) == 0 and row[d] == -3 * 7 * shaozhuang_line(r)


@pytest.mark.parametrize("preset,overrides,settled", [
    ("beijing", {}, True),
    ("beijing", {"shaozhuang_on_draw": False}, False),
    ("beijing", {"shaozhuang": False}, False),
    ("hebei", {}, False),
])
def test_draw_scores_batched_equal_settle_draw(preset, overrides, settled):
    rules = get_rules(preset, **overrides)
    dealer = np.array([0, 1, 2, 3, 2], dtype=np.int64)
    rounds = np.array([0, 1, 3, 21, 2], dtype=np.int64) if rules.shaozhuang or settled else np.zeros(5, np.int64)
    lines, scores = draw_scores(rules, dealer, rounds, 500)
    for j in range(5):
        one = settle_draw(rules, int(dealer[j]), int(rounds[j]), 500)
        assert one == {"draw": True, "shaozhuang": int(lines[j]), "scores": scores[j].tolist()}
        assert (one["shaozhuang"] > 0) == (settled and rounds[j] > 0)


def test_hubao_partners():
    rules = get_rules("beijing")
    assert hubao_partners(rules, 1, [(1, 3), (2, 1), (3, 1), (0, 2)]) == [2, 3]
    assert hubao_partners(rules.replace(hubao=False), 1, [(1, 3)]) == []


def test_defaults_are_no_shaozhuang_and_base_1():
    """settle_draw and win_scores without 烧庄 rounds or base: none, and base 1 (docs/INTERFACES.md 1's defaults)."""
    from mj_env.payments import win_scores

    assert settle_draw("beijing", 0) == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}
    assert win_scores(get_rules("beijing"), 2, 1, 0, 0) == [-2, 2, 0, 0]  # 推倒和 + 庄 on the dealer's discard
