"""Engine checks and bookkeeping that a second mutation round of mj_env/engine.py found untested:
seeds, row subsets, clone/restore, per-table match bookkeeping and what step returns."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env.actions import N_ACTIONS, ActionError
from mj_env.baselines import uniform_legal
from mj_env.engine import _STATE_FIELDS, Engine
from mj_env.state import END


def _play(eng: Engine, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))


@pytest.mark.parametrize("seed", [True, False, np.True_])
def test_a_bool_seed_is_refused(seed):
    with pytest.raises(ValueError, match="seed must be"):
        Engine("beijing", num_tables=2, seed=seed)
    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    state = eng.rng.bit_generator.state
    with pytest.raises(ValueError, match="seed must be"):
        eng.reset(seed=seed)
    assert eng.rng.bit_generator.state == state


def test_reset_of_some_tables_starts_their_match_and_leaves_the_others_counts():
    """reset(tables=...) starts a new match at those tables only: hands_played and match_scores go to 0
    there, and the other tables keep theirs; a full reset zeroes every table's."""
    eng = Engine("beijing", num_tables=4, seed=1, hands_per_episode=8)
    eng.reset()
    rng = np.random.default_rng(1)
    st = eng.state
    _play(eng, rng, 40)
    st.hands_played[:] = [1, 2, 3, 4]  # as if a few hands of each match were settled already
    st.match_scores[:] = np.arange(16).reshape(4, 4) - 5
    played, scores = st.hands_played.copy(), st.match_scores.copy()
    eng.reset(tables=[2, 0])
    assert (st.hands_played[[0, 2]] == 0).all() and not st.match_scores[[0, 2]].any()
    assert np.array_equal(st.hands_played[[1, 3]], played[[1, 3]])
    assert np.array_equal(st.match_scores[[1, 3]], scores[[1, 3]])
    _play(eng, rng, 5)
    eng.reset()
    assert not st.hands_played.any() and not st.match_scores.any()


def test_a_partial_reset_whose_deal_ends_the_hand_clears_that_tables_mask():
    """A table reset into a hand that ends at its deal (四惠牌) is in END: its legal mask is empty, not the
    mask of the position it held before the reset; the other table keeps its mask."""
    from walls import four_hui_wall

    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    _play(eng, np.random.default_rng(0), 3)
    assert eng.legal_mask().any(axis=1).all()
    other = eng.legal_mask()[1].copy()
    res = eng.reset(walls=[four_hui_wall()], dealers=[0], tables=[0])
    assert res.hand_over.tolist() == [True, False] and eng.state.phase[0] == END
    assert not eng.legal_mask()[0].any()
    assert np.array_equal(eng.legal_mask()[1], other)


def test_a_reset_of_several_tables_deals_every_one_of_them():
    """reset(tables=[0, 1]) of a fresh engine marks both tables dealt: once the last table is reset too the
    engine steps, and either table can be cloned."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset(tables=[0, 1])
    with pytest.raises(ValueError, match="table 2 has never been dealt"):
        eng.clone([2])
    eng.clone([1, 0])
    eng.reset(tables=[2])
    eng.step(uniform_legal(eng.legal_mask(), np.random.default_rng(0)))


def test_step_refuses_while_any_table_is_undealt():
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset(tables=[0, 2])
    before = eng.state.copy()
    with pytest.raises(ActionError, match="table 1 has not been dealt"):
        eng.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ActionError, match="table 1 has not been dealt"):
        eng.step(np.zeros(3, dtype=np.int64), tables=[0])
    assert all(np.array_equal(getattr(before, f), getattr(eng.state, f)) for f in _STATE_FIELDS)


def test_a_one_table_engine_stepping_no_tables_changes_nothing():
    """step(actions, tables=[]) steps no table, at a one-table engine (its fast path) too."""
    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset()
    before, mask = eng.state.copy(), eng.legal_mask().copy()
    a = uniform_legal(mask, np.random.default_rng(0))
    res = eng.step(a, tables=[])
    assert not res.hand_over.any() and not res.rewards.any()
    assert all(np.array_equal(getattr(before, f), getattr(eng.state, f)) for f in _STATE_FIELDS)
    assert np.array_equal(eng.legal_mask(), mask)



def test_restore_refuses_more_sources_than_destinations():
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    before = eng.state.copy()
    with pytest.raises(ValueError, match="3 source tables given for 2 destination tables"):
        eng.restore(eng, [0, 1, 2], [0, 1])
    assert all(np.array_equal(getattr(before, f), getattr(eng.state, f)) for f in _STATE_FIELDS)



def test_a_declared_ting_lasts_until_the_hand_ends():
    """quemen 报听: once a seat has declared it, its later discards (only the drawn tile) keep it declared
    for the rest of the hand."""
    eng = Engine("quemen", num_tables=16, seed=5)
    eng.reset()
    st = eng.state
    rng = np.random.default_rng(5)
    kept = 0
    for _ in range(400):
        before, hands = st.ting.copy(), st.hands_played.copy()
        res = eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))
        same_hand = ~res.hand_over & (st.hands_played == hands)
        assert (st.ting[same_hand] | ~before[same_hand]).all()
        kept += int((before[same_hand] & st.ting[same_hand]).sum())
        if res.episode_over.any():
            eng.reset(tables=np.flatnonzero(res.episode_over))
    assert kept > 5


def test_step_of_some_tables_ignores_the_actions_of_the_others():
    """step(actions, tables=...) checks only the chosen tables' actions: an illegal entry at a table that is
    not stepped is ignored, as the docstring says."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    rng = np.random.default_rng(0)
    _play(eng, rng, 4)
    acts = uniform_legal(eng.legal_mask(), rng)
    acts[1] = 999
    acts[2] = int(np.flatnonzero(~eng.legal_mask()[2])[0])
    before = eng.state.copy()
    eng.step(acts, tables=[0])
    for f in _STATE_FIELDS:
        assert np.array_equal(getattr(eng.state, f)[1:], getattr(before, f)[1:]), f


def test_the_first_illegal_table_is_named():
    """With illegal actions at several tables, the error names the lowest one."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    acts = uniform_legal(eng.legal_mask(), np.random.default_rng(0))
    acts[1] = acts[2] = 999
    with pytest.raises(ActionError, match=r"\(table 1\)"):
        eng.step(acts)



def test_explaining_an_action_at_an_ended_table_says_the_hand_is_over():
    eng = Engine("beijing", num_tables=2, seed=3)
    eng.reset()
    rng = np.random.default_rng(3)
    while eng.state.phase[1] != END:
        res = eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))
        if res.hand_over[0]:
            eng.reset(tables=[0])
    assert eng.explain_illegal(1, 0) == "action 'discard 1m' at table 1: the hand is over; reset first"


def test_load_puts_back_the_masks_and_which_tables_were_dealt():
    """_load(_save()) puts back the legal masks and the dealt-ever flags as they were at the save, however
    the engine moved on in between (a step, a reset of the table never dealt)."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset(tables=[0, 1])
    saved = eng._save()
    mask, state = eng.legal_mask().copy(), eng.state.copy()
    eng.reset(tables=[2])
    eng.step(uniform_legal(eng.legal_mask(), np.random.default_rng(0)))
    eng._load(saved)
    assert np.array_equal(eng.legal_mask(), mask)
    assert all(np.array_equal(getattr(state, f), getattr(eng.state, f)) for f in _STATE_FIELDS)
    with pytest.raises(ActionError, match="table 2 has not been dealt"):
        eng.step(np.zeros(3, dtype=np.int64))


def test_an_empty_list_of_tables_steps_and_resets_nothing():
    """tables=[] (a plain empty list, float to NumPy) selects no table: step and reset change nothing."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    before, mask = eng.state.copy(), eng.legal_mask().copy()
    res = eng.step(uniform_legal(mask, np.random.default_rng(0)), tables=[])
    assert not res.hand_over.any()
    res = eng.reset(tables=[])
    assert not res.hand_over.any()
    assert all(np.array_equal(getattr(before, f), getattr(eng.state, f)) for f in _STATE_FIELDS)
    assert np.array_equal(eng.legal_mask(), mask)



@pytest.mark.parametrize("num_tables", [1, 3])
def test_a_negative_action_is_refused_even_where_it_would_wrap_to_a_legal_one(num_tables):
    """-N_ACTIONS + a would index the mask at a (a legal action): it is still out of range, refused with
    nothing changed, at a one-table engine (its own path) as at a batch."""
    eng = Engine("beijing", num_tables=num_tables, seed=0)
    eng.reset()
    rng = np.random.default_rng(0)
    _play(eng, rng, 2)
    acts = uniform_legal(eng.legal_mask(), rng)
    before = eng.state.copy()
    bad = acts.copy()
    bad[-1] -= N_ACTIONS
    with pytest.raises(ActionError, match=str(int(bad[-1]))):
        eng.step(bad)
    assert all(np.array_equal(getattr(before, f), getattr(eng.state, f)) for f in _STATE_FIELDS)
    eng.step(acts)


def test_reset_errors_name_the_table_within_a_reset_of_one_table_of_many():
    """At a many-table engine, a bad wall or dealer of a one-table reset is named by its place in the reset;
    one flat list of tiles is told apart from a list of walls."""
    from walls import build_wall

    from mj_env.wall import WallError

    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    before = eng.state.copy()
    with pytest.raises(ValueError, match="^dealer of table 0 of this reset must be a seat 0-3"):
        eng.reset(tables=[1], dealers=[7])
    bad = list(build_wall("beijing"))
    bad[10] = bad[11] = bad[12] = bad[13] = bad[14] = bad[0]
    with pytest.raises(WallError, match="^wall of table 0 of this reset: "):
        eng.reset(tables=[2], walls=[bad])
    with pytest.raises(WallError, match=r"got one list of 136 tiles .*\[wall\] \* 2"):
        eng.reset(tables=[0, 2], walls=build_wall("beijing"))
    assert all(np.array_equal(getattr(before, f), getattr(eng.state, f)) for f in _STATE_FIELDS)


def test_copies_take_one_table_number_and_refuse_a_2d_empty_list():
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    _play(eng, np.random.default_rng(0), 3)
    eng.restore(eng, 0, 2)  # one destination as one number
    for f in _STATE_FIELDS:
        assert np.array_equal(getattr(eng.state, f)[2], getattr(eng.state, f)[0]), f
    with pytest.raises(ValueError, match="1-D list"):
        eng.clone(np.zeros((1, 0), dtype=np.int64))


def test_explaining_a_legal_action_says_it_is_legal():
    """It said "is illegal" and then listed the same action among the legal ones."""
    eng = Engine("beijing", num_tables=2, seed=3)
    eng.reset()
    legal = int(np.flatnonzero(eng.legal_mask()[1])[0])
    seat = int(eng.state.to_act[1])
    assert eng.explain_illegal(1, legal) == f"action '{A.name(legal)}' is legal at table 1 for seat {seat} in phase TURN"
    illegal_action = int(np.flatnonzero(~eng.legal_mask()[1])[0])
    assert " is illegal at table 1 " in eng.explain_illegal(1, illegal_action)
