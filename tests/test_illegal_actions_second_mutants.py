"""Gaps found by a second mutation round over mj_env/illegal.py (seed 5601) and mj_env/actions.py (seed 5602):
each test here failed under the mutant named in its docstring and passes on the code; worked out from
docs/INTERFACES.md 2 (action names and the action space), docs/RULES.md 7 (bad input is refused naming what
is wrong) and the modules' docstrings. The first round's tests: tests/test_determinize_actions_mutants.py."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env.actions import ActionError, action_batch, refuse_bools_in


# ------------------------------------------------------------------------------------------- actions.py
def test_action_batch_refuses_an_unsigned_action_past_int64_naming_the_action_space():
    """An unsigned action that int64 cannot hold is refused naming its value, its table and the action space
    0-126 (docs/INTERFACES.md 2: one fixed Discrete(127) space). Mutants: the range in that message printed
    as ``N_ACTIONS + 1`` (0-128) or ``N_ACTIONS - 2`` (0-125)."""
    expected = r"^action 9223372036854775808 at table 1 is not an integer in 0-126$"
    with pytest.raises(ActionError, match=expected):
        action_batch(np.array([0, 2**63, 5], dtype=np.uint64), 3)


def test_action_batch_keeps_the_largest_unsigned_action_int64_holds():
    """``action_batch`` refuses an unsigned action only where it "would wrap round in int64": 2**63 - 1 still
    fits and comes back as itself (the range 0-126 is the caller's check, which names it in its own words).
    Mutant: the wrap test ``acts.max() > int64 max`` made ``>=`` (the largest value that fits was refused)."""
    got = action_batch(np.array([0, 2**63 - 1], dtype=np.uint64), 2)
    assert got.dtype == np.int64 and got.tolist() == [0, 2**63 - 1]


@pytest.mark.parametrize("unit", ["table", "row"])
def test_refuse_bools_in_lets_integers_of_any_size_pass_and_names_the_bool(unit):
    """``refuse_bools_in`` refuses a bool or "another non-integer among integers": a Python int too large for
    NumPy's integer types is still an integer (its range is the caller's check), alone or as a row of one
    action, so the error names the bool at entry 3 and not the large int. Mutants: the integer test of an
    entry (``type(a) is int or isinstance(a, np.integer)``), or of a row's one entry, joined by ``and`` (a
    large int then fell to NumPy, which reads it as an object, and was named "not an integer")."""
    expected = rf"^action True \(bool\) at {unit} 3 is not an integer in 0-126$"
    for actions in ([2**70, 5, [3], True], [4, [2**70], [-(2**70)], [True]]):
        with pytest.raises(ActionError, match=expected):
            refuse_bools_in(actions, unit=unit)
