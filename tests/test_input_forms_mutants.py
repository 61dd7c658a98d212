"""Mutation round AX: the lines audit AU and review AW changed (56e6392..2e723a7) in mj_env and agents,
sampled per module (seeds 6301-6310, 400 mutants each, the first 15 on changed lines kept) and run against
tests/test_input_forms.py, tests/test_session45_keeps_valid_input.py and the module's main test file. Each
test here kills a survivor its docstring names; they extend tests/test_input_forms.py, not repeat it."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import features as F
from mj_env import hand
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.rules import get_rules


def test_a_masked_array_refusal_names_its_first_masked_entry():
    """With several entries masked, the refusal names the first in reading order, as ``actions.action_batch``
    names the first masked action (``state.refuse_masked``: "refuses masked actions alike"). Kills
    mj_env/state.py line 156, ``np.argwhere(...)[0]`` -> ``[-1]`` (named the last)."""
    rules = get_rules("beijing")
    counts = np.zeros((4, 34), dtype=np.int8)
    counts[:, :13] = 1
    hidden = np.ma.masked_array(counts, mask=np.zeros(counts.shape, bool))
    hidden[1, 5] = np.ma.masked
    hidden[3, 2] = np.ma.masked
    with pytest.raises(ValueError, match=r"counts must be plain values, got a masked array with "
                                         r"entry \(1, 5\) masked"):
        hand.hand_distance(rules, hidden, -1)
    eng = Engine("beijing", num_tables=4, seed=0)
    eng.reset()
    with pytest.raises(ValueError, match=r"tables must be plain values, got a masked array with "
                                         r"entry \(1,\)"):
        eng.reset(tables=np.ma.masked_array([0, 1, 2, 3], mask=[False, True, False, True]))


def test_a_claim_tile_refusal_names_the_first_kind_outside_0_33():
    """Among claimed kinds ``[0, 34, -1]`` the refusal names 34: not 0, a kind in range (the selection of the
    bad kinds read ``t < 1``), and not -1, the last bad one (the project names the first bad entry:
    ``Engine``'s "has no table", ``actions.action_batch``). Kills mj_env/features.py line 159, ``t < 0`` ->
    ``t < 1`` and ``.flat[0]`` -> ``.flat[-1]``."""
    rules = get_rules("beijing")
    hands = np.zeros((3, 34), dtype=np.int8)
    hands[:, 0] = 2
    tile = np.array([0, 34, -1])
    with pytest.raises(ValueError, match=r"tile must be tile kinds 0-33, got 34$"):
        F.claim_hands(rules, hands, np.full(3, -1), tile, np.arange(3), F.OPT_PONG)
    with pytest.raises(ValueError, match=r"tile must be tile kinds 0-33, got 34$"):
        F.suits_after_claim(np.zeros((3, 3), bool), hands, hands, tile)


@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.float64, ">i4"])
def test_unseen_counts_check_planes_of_other_dtypes(dtype):
    """``unseen_counts`` skips the planes check only for the observations' own uint8 ndarrays: planes of
    another dtype holding 65,539 (read as 3 by the int16 cast) or 2.7 (read as 2) are refused, and valid ones
    answer as the uint8 planes. Kills mj_env/features.py line 133, ``planes.dtype != np.uint8`` -> ``==``
    (every non-uint8 ndarray went unchecked)."""
    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    planes = observe(eng.rules, eng.state)
    want = F.unseen_counts(planes)
    assert (F.unseen_counts(planes.astype(dtype)) == want).all()
    bad = planes.astype(dtype)
    bad[0, 5, 7] = 2.7 if np.dtype(dtype).kind == "f" else (65_539 if np.dtype(dtype).itemsize > 2 else -1)
    with pytest.raises(ValueError, match="planes must hold whole numbers 0-255"):
        F.unseen_counts(bad)
