"""The second mutation round on mj_env/hand.py and mj_env/legal.py (earlier rounds: tests/test_hand_mutants.py,
tests/test_legal_hand_wall_mutants.py, tests/test_hand_distance_changed.py): each test kills a mutant that
survived the tests of its function (mutate.py, seed 5201), except the row -1 test, which kills the sibling
mutant ``int(rows.min()) >= -1`` of the sampled ``int(kinds.min()) >= -1`` (made by hand, not sampled)."""
from __future__ import annotations

import numpy as np
import pytest
from test_hand_distance_changed import check, hands_of, legal_changes, rules_of, wild_rich_hands

from mj_env import hand


@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
def test_a_row_of_minus_one_is_the_last_hand_as_in_the_plain_call(name):
    """rows of exactly -1 (the smallest negative row) count from the end as in ``counts[rows]``; a fast path that
    took them as plain indices would read the wrong part's column."""
    rules, rng, counts, hui = hands_of(name, 7, 60)
    rows, kinds = legal_changes(rng, counts, hui, 1, 1.0)
    for j in np.unique(rows):  # each hand in turn as the last one, its changes given as row -1
        mine = kinds[rows == j]
        check(rules, counts[:j + 1], hui[:j + 1], None, np.full(len(mine), -1), mine, 1)


@pytest.mark.parametrize("hui_kind", [-1, 33])
def test_a_kind_of_minus_one_is_kind_33_as_in_the_plain_call(hui_kind):
    """A kind of exactly -1 is kind 33 (白) as in the plain call's eye[kinds]: with no 惠牌 (-1) it is no wildcard
    change, and with 白 as the 惠牌 it is one; a fast path that took -1 as a plain index read both wrongly."""
    rules = rules_of("beijing")
    rng = np.random.default_rng(11)
    counts, _ = wild_rich_hands(rng, 200)
    counts[:, 33] = rng.integers(0, 3, len(counts))
    hui = np.full(len(counts), hui_kind)
    for delta in (1, -1):
        rows, kinds = legal_changes(rng, counts, hui, delta, 1.0)
        rows = rows[kinds == 33]
        assert len(rows) >= 10
        check(rules, counts, hui, None, rows, np.full(len(rows), -1), delta)


def test_discarding_a_hui_the_hand_lacks_is_refused_as_by_the_plain_call():
    """A 惠牌-kind change of -1 in a hand without a 惠牌 leaves -1 wildcards: the fast path refuses it with the
    plain call's ValueError rather than measure a hand that cannot exist."""
    rules = rules_of("beijing")
    counts = np.zeros((2, 34), dtype=np.int8)
    counts[:, [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 29, 30]] = 1
    counts[:, 27] = 2
    hui = np.array([5, 5])
    for call in (hand._distance_changed_plainly, hand.hand_distance_changed):
        with pytest.raises(ValueError, match="wild must be >= 0, got -1"):
            call(rules, counts, hui, None, np.array([0, 1]), np.array([5, 5]), -1)


@pytest.mark.parametrize("broken", ["fewer melds", "no pair", "empty part"])
def test_a_kept_table_failing_one_property_is_not_monotone(monkeypatch, broken):
    """``_kept_monotone`` needs all three properties (more melds never keep fewer tiles, nor does a pair, and the
    empty part keeps none): a table failing any one of them sends 缺一门 to the plain call."""
    from mj_env import tables as T
    get, kept = T.get, T.get("kept").copy()
    empty = hand._part_index(np.zeros((1, 34), dtype=np.int8))[0]
    some = int(np.setdiff1d(np.arange(len(kept)), empty)[0])
    if broken == "fewer melds":
        kept[some, 0, 1] = 250
    elif broken == "no pair":
        kept[some, -1, 0] = 250
    else:
        kept[empty] += 1
    monkeypatch.setattr(T, "get", lambda name: kept if name == "kept" else get(name))
    monkeypatch.setattr(hand, "_MONOTONE", [None, False])
    assert not hand._kept_monotone() and hand._MONOTONE[0] is kept


def test_the_shared_rows_are_read_only():
    """``legal._rows`` hands out views of one array shared by every env (threads included): it is read-only, so
    no caller can change another's row indices."""
    from mj_env import legal
    rows = legal._rows(len(legal._ROWS[0]) + 5)
    assert not rows.flags.writeable and not legal._ROWS[0].flags.writeable
    with pytest.raises(ValueError):
        rows[0] = 1


def test_one_hand_not_in_a_batch_raises_the_plain_calls_error():
    """counts of one hand (34,) rather than a batch (n, 34) take the plain call and raise its IndexError, word for
    word (the fast path's reading of a 1-D hand failed elsewhere, with another message)."""
    rules = rules_of("beijing")
    counts = np.zeros(34, dtype=np.int8)
    counts[[0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 28, 29, 30]] = 1
    errors = []
    for call in (hand._distance_changed_plainly, hand.hand_distance_changed):
        with pytest.raises(IndexError) as err:
            call(rules, counts, 5, None, np.array([0, 1]), np.array([3, 4]), -1)
        errors.append(str(err.value))
    assert errors[0] == errors[1]
