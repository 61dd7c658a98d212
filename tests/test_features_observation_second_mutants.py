"""Gaps found by a second mutation round on mj_env/features.py (the mj_obs_v2 planes) and mj_env/observation.py
(the mj_obs_v1 planes and the checks of outside planes and masks): seed 4801 of the project's single-node AST
mutants. Each test here failed under the mutant named in its docstring and passes on the code, but the chi test,
which failed on the code itself (a bug of ``features.claim_hands``, fixed with it); the expectations come from the
modules' documented layouts (their docstrings, which docs/INTERFACES.md and the README point to)."""
from __future__ import annotations

import numpy as np
import pytest
from test_features import claim_position

from mj_env import actions as A
from mj_env import features as F
from mj_env import observation as O
from mj_env.engine import Engine
from mj_env.observation import N_PLANES, observe
from mj_env.rules import get_rules
from mj_env.tiles import parse_hand


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


@pytest.mark.parametrize(("rules", "hand", "hui"), [
    (get_rules("beijing"), "4p5z123s456s789s11s", 31),  # a 惠牌 5z, but beijing's 惠牌 are face value in melds
    (get_rules("hebei"), "1m4p123s456s789s11s", None),   # no 惠牌 at all: a 1m stood in for the 2p
], ids=["beijing-face-value", "hebei-no-huipai"])
def test_a_chi_the_hand_lacks_a_copy_for_is_left_at_0_where_no_huipai_may_fill_it(rules, hand, hui):
    """An outside mask offering chi 234p on a claimed 3p to a hand without a 2p: the chi cannot be made (docs/RULES.md:
    惠牌 count at face value in melds unless ``hui_wild_in_melds``), so "an option the hand cannot take ... is left
    at 0" (features.py), as for the pong of test_features. The chi filled the gap with the 惠牌 whatever
    ``hui_wild_in_melds`` said, and with kind 0 (1m) where the planes had no 惠牌 (found by a mutant of
    ``claim_hands``' ``np.maximum(hui, 0)``): the option read 1. The same hand under ``hui_wild_in_melds`` keeps
    its chi (test_features)."""
    c = int(np.flatnonzero(A.CHI_START == parse_hand("2p").argmax())[0])  # chi 234p
    planes, mask = claim_position(hand, int(parse_hand("3p").argmax()), A.CHI + c, hui=hui)
    out = F.extra_planes(rules, planes, mask)[0]
    assert out[F.P_OPTION_NEED - O.N_PLANES, F.OPT_CHI + c] == 0
    assert out[F.P_OPTION_IMPROVE - O.N_PLANES, F.OPT_CHI + c] == 0
    hands = planes[:, O.P_HAND].astype(np.int8)
    after = F.claim_hands(rules, hands, F.hui_kind(planes), np.array([11]), np.array([0]), F.OPT_CHI + c)
    assert not F.claim_takeable(hands, after, False).any()
    if hui is not None:  # where 惠牌 are wild in melds the same chi is an option
        wild = F.extra_planes(get_rules("beijing", hui_wild_in_melds=True), planes, mask)[0]
        assert wild[F.P_OPTION_NEED - O.N_PLANES, F.OPT_CHI + c] == 1


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
