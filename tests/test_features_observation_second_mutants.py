"""Gaps found by a second mutation round on mj_env/features.py (the mj_obs_v2 planes) and mj_env/observation.py
(the mj_obs_v1 planes and the checks of outside planes and masks): seed 4801 of the project's single-node AST
mutants. Each test here failed under the mutant named in its docstring and passes on the code; the expectations
come from the modules' documented layouts (their docstrings, which docs/INTERFACES.md and the README point to)."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env import features as F
from mj_env import observation as O
from mj_env.engine import Engine
from mj_env.observation import N_PLANES, observe


def test_observe_refuses_a_read_only_out_array_by_name():
    """``out`` "must be a writeable (n, 14, 34) uint8 array": a read-only one of the right dtype and shape is named
    as such (a mutant dropping the writeable check left NumPy's "assignment destination is read-only", which names
    no argument), and nothing is written to it."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    out = np.zeros((3, N_PLANES, 34), np.uint8)
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"out must be a writeable \(3, 14, 34\) uint8 array, got uint8 of shape"):
        observe(eng.rules, eng.state, out=out)
    assert not out.any()



def test_in_layout_v2_of_v1_planes_is_observe_v2_whatever_the_number_of_rows():
    """``in_layout("v2", ...)`` of v1 planes is ``observe_v2`` of them, 18 planes, for any number of rows (mutants
    returning the 14 planes for "v2", or reading the row count where the plane count is, went unnoticed by
    test_features' check, whose expected planes came from an env that uses ``in_layout`` itself)."""
    eng = Engine("beijing", num_tables=5, seed=0)
    eng.reset()
    v1, mask = observe(eng.rules, eng.state), eng.legal_mask()
    want = F.observe_v2("beijing", v1, mask)
    assert want.shape == (5, F.N_PLANES_V2, 34) and want[:, O.N_PLANES:].any()
    assert np.array_equal(F.in_layout("v2", "beijing", v1, mask), want)
    assert np.array_equal(F.in_layout("v2", "beijing", want, mask), want)
    assert np.array_equal(F.in_layout("v1", "beijing", want, mask), v1)


@pytest.mark.parametrize("seat", [1.0, "1", True, np.bool_(True), None])
def test_observe_one_refuses_a_seat_that_is_not_an_integer_by_name(seat):
    """``observe_one``: "``b`` and ``seat`` are checked" as integers 0-3; test_observation tries tables that are not
    integers only. A mutant dropping the seat's integer check gave an IndexError for 1.0 and a TypeError for "1"
    (a bool is refused too: True would read as seat 1)."""
    from mj_env.observation import observe_one

    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    with pytest.raises(ValueError, match=r"observe_one: table 0 and seat .* must be integers in 0-1 and 0-3"):
        observe_one(eng.rules, eng.state, 0, seat)
    assert np.array_equal(observe_one(eng.rules, eng.state, 0, np.int64(1)), observe(eng.rules, eng.state, [0], [1])[0])


def test_a_ragged_mask_is_refused_by_name():
    """``checked_mask``: a mask of ragged lists, which NumPy cannot make an array of, is a ValueError naming the
    argument (as ragged planes are, tests/test_records_observation_mutants.py); a mutant dropping that raise
    failed with an UnboundLocalError."""
    planes = np.zeros((2, O.N_PLANES, 34), np.uint8)
    with pytest.raises(ValueError, match=r"^mask must be an array: "):
        F.extra_planes("beijing", planes, [[0] * A.N_ACTIONS, [0]])
    with pytest.raises(ValueError, match=r"^action_mask must be an array: "):
        O.checked_mask([[0, 1], [0]], None, A.N_ACTIONS, "action_mask")
