"""Gaps found by mutating mj_env/aec.py's near_option and _one_edit_apart (never mutated before), and by a
seeded random sample of mutants of engine.py, claims.py, score.py, calculator.py and determinize.py (an
audit of earlier mutation rounds). Each test here failed under the mutant named in its docstring."""
from __future__ import annotations

import itertools

import pytest

import mj_env
from mj_env import actions as A
from mj_env.aec import _one_edit_apart, near_option
from mj_env.engine import Engine


def _within_one_edit(b: str, alphabet: str) -> set[str]:
    """Every string one insertion, deletion, substitution or swap of neighbouring letters from ``b`` (and ``b``)."""
    out = {b}
    for i in range(len(b) + 1):
        for c in alphabet:
            out.add(b[:i] + c + b[i:])
    for i in range(len(b)):
        out.add(b[:i] + b[i + 1:])
        for c in alphabet:
            out.add(b[:i] + c + b[i + 1:])
        if i + 1 < len(b):
            out.add(b[:i] + b[i + 1] + b[i] + b[i + 2:])
    return out


@pytest.mark.parametrize("alphabet,longest", [("ab", 4), ("abc", 3)])
def test_one_edit_apart_is_exactly_one_edit(alphabet, longest):
    """_one_edit_apart against brute force over short strings: its docstring's contract (at most one insertion,
    deletion, substitution or neighbour swap). Mutants: the scan starting at i = 1 ("aa" vs "bb" one edit), stepping
    i by 2 or by -1, and the swap test's ``and`` made ``or`` ("abb" vs "baa")."""
    words = ["".join(p) for n in range(longest + 1) for p in itertools.product(alphabet, repeat=n)]
    for b in words:
        near = _within_one_edit(b, alphabet)
        for a in words:
            assert _one_edit_apart(a, b) == (a in near), (a, b)


@pytest.mark.parametrize("key", ["dxaxer", "dxyler", "dxxxxr", "daelre", "wxyl", "wlla", "wxlx", "walxx"])
def test_reset_ignores_keys_two_slips_from_an_option(key):
    """A key with the option's first letter but two slips from it is no near miss: reset ignores it like any other
    key (PettingZoo's api_test passes foreign keys). Mutants of _one_edit_apart that took these for one slip
    (i stepped by 2 or -1, the swap test's ``and`` made ``or``) refused them."""
    assert near_option(key) is None
    e = mj_env.env()
    e.reset(seed=0, options={key: 0})
    assert e.agents


# ---------------------------------------------------------------------------------------- engine.py sample
def test_explain_illegal_names_the_table_of_an_unknown_action_only_with_several_tables():
    """An action number outside the action space is explained by actions.name's own words; " (table N)" is added
    only when the engine has several tables, as its other answers add " at table N" (mutant: the one-table
    engine's answer also ended in " (table 0)")."""
    with pytest.raises(A.ActionError) as err:
        A.name(A.N_ACTIONS)
    one = Engine()
    one.reset(seed=0)
    assert one.explain_illegal(0, A.N_ACTIONS) == str(err.value)
    two = Engine(num_tables=2)
    two.reset(seed=0)
    assert two.explain_illegal(1, A.N_ACTIONS) == f"{err.value} (table 1)"
