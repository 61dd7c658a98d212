"""mj_env.patterns: 缺一门 over counts against a plain reference."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env.patterns import lacks_a_suit, suits_held
from mj_env.tiles import parse_hand


def test_lacks_a_suit_over_counts():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 3, size=(500, 34)) * (rng.random((500, 34)) < 0.15)
    want = [len({t // 9 for t in range(27) if row[t]}) <= 2 for row in counts.tolist()]
    assert lacks_a_suit(counts).tolist() == want
    assert [bool(lacks_a_suit(tuple(row))) for row in counts.tolist()] == want
    assert lacks_a_suit(counts.astype(np.int8).reshape(5, 100, 34)).shape == (5, 100)
    assert suits_held(counts[:1]).tolist() == [[bool(counts[0, 9 * s:9 * s + 9].any()) for s in range(3)]]


@pytest.mark.parametrize("text,lacks", [("123m456p789s11z", False), ("123m456p11z", True), ("1234567z", True)])
def test_lacks_a_suit_examples(text, lacks):
    assert bool(lacks_a_suit(parse_hand(text))) is lacks
