"""Valid input the checks added after 841f190 must still take (review AW): answers as before."""
import numpy as np

from mj_env import features as F
from mj_env.rules import get_rules


def test_claim_hands_reads_only_the_claimed_rows_tiles():
    """claim_hands reads ``tile[rows]`` only: a row it does not claim for may hold -1 (no claim), as
    before the range check of the claimed kinds; a -1 among the rows read is still refused."""
    rules = get_rules("beijing")
    hands = np.zeros((3, 34), np.int8)
    hands[:, 5] = 2
    hands[:, 0:11] += 1
    tile = np.array([5, -1, 5])
    rows = np.array([0, 2])
    after = F.claim_hands(rules, hands, np.full(3, -1), tile, rows, F.OPT_PONG)
    want = hands[rows].copy()
    want[:, 5] -= 2
    np.testing.assert_array_equal(after, want)
    try:
        F.claim_hands(rules, hands, np.full(3, -1), tile, np.array([1]), F.OPT_PONG)
    except ValueError as e:
        assert "tile must be tile kinds 0-33, got -1" in str(e)
    else:
        raise AssertionError("a -1 claimed tile among the rows read was taken")
