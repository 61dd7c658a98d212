"""Audit of what a seat observes and of the search that plays from a seat's view: a seat's view must not
depend on what it cannot see (other seats' concealed tiles, the wall's order)."""
from __future__ import annotations

import numpy as np
import pytest
from rule_play import rule_agent_play

from agents.search import RolloutSearchAgent
from mj_env.determinize import redeal
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.state import END


def _ting_positions(tables: int = 48, seed: int = 4, want: int = 12):
    """(engine, live tables where a seat other than the one to act declared 报听) of quemen rule-agent play."""
    eng = Engine("quemen", num_tables=tables, seed=seed)
    eng.reset()
    for live in rule_agent_play(eng, seed, 400):
        st = eng.state
        to_act = st.to_act[live].astype(np.int64)
        others_ting = st.ting[live].sum(axis=1) - st.ting[live, to_act]
        found = live[others_ting > 0]
        if len(found) >= want:
            return eng, found
    raise AssertionError("no position with another seat's 报听")


def _hidden_variant(eng: Engine, tables: np.ndarray) -> Engine:
    """A copy of ``eng`` whose ``tables`` hold other hidden tiles, the same view for the seat to act."""
    other = eng.clone()
    redeal(other, eng.state.to_act[tables].astype(np.int64), np.random.default_rng(99), tables=tables)
    seats = eng.state.to_act[tables].astype(np.int64)
    assert np.array_equal(observe(eng.rules, eng.state, tables, seats), observe(other.rules, other.state, tables, seats))
    assert np.array_equal(eng.legal_mask()[tables], other.legal_mask()[tables])
    assert not np.array_equal(eng.state.hands[tables], other.state.hands[tables])
    return other


def test_redeals_of_tables_differing_only_in_hidden_tiles_are_the_same_with_a_reporting_opponent():
    """mj_env/determinize.py: the seat's worlds are dealt "at random among the deals that agree with what the
    seat has seen", so two tables that differ only in what it cannot see must give the same worlds for the
    same random numbers. A 报听 opponent's hand came from a chain started at its real hand, so the worlds
    leaned towards that hand (and agents.search, whose decisions are promised not to depend on the hidden
    tiles, read it: about half its quemen decisions beside a 报听 opponent changed with the hidden tiles)."""
    eng, tables = _ting_positions()
    other = _hidden_variant(eng, tables)
    rows = np.repeat(tables, 8)
    worlds = [e.clone(rows) for e in (eng, other)]
    for w in worlds:
        redeal(w, eng.state.to_act[rows].astype(np.int64), np.random.default_rng(7))
    a, c = worlds[0].state, worlds[1].state
    assert np.array_equal(a.hands, c.hands) and np.array_equal(a.wall, c.wall)


def test_fair_search_decides_alike_beside_a_reporting_opponent_whatever_the_hidden_tiles():
    """agents/search.py: "its decision is the same whatever the hidden tiles are" (its own test covers
    beijing and hebei; under quemen a 报听 opponent's real hand seeded the worlds)."""
    eng, tables = _ting_positions(want=6)
    tables = tables[:6]
    other = _hidden_variant(eng, tables)
    agent = RolloutSearchAgent("quemen", worlds=2, z=0.0)
    a = agent.act_tables(eng, tables, np.random.default_rng(7))
    b = agent.act_tables(other, tables, np.random.default_rng(7))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("out", [np.zeros((3, 14, 34), np.int64), np.zeros((3, 14, 34), np.float32),
                                 np.zeros((4, 14, 34), np.uint8), np.zeros((3, 13, 34), np.uint8), [[0]]],
                         ids=["int64", "float32", "rows", "planes", "list"])
def test_observe_refuses_an_out_array_that_is_not_uint8_planes_of_its_tables(out):
    """mj_env/observation.py: ``out`` "may be a preallocated (n, N_PLANES, 34) uint8 array"; another dtype came
    back as the observations (int64 or float planes), other shapes failed inside NumPy without naming it."""
    eng = Engine("beijing", num_tables=3, seed=0)
    eng.reset()
    with pytest.raises(ValueError, match=r"out must be a writeable \(3, 14, 34\) uint8 array"):
        observe(eng.rules, eng.state, out=out)
    good = np.zeros((3, 14, 34), np.uint8)
    assert observe(eng.rules, eng.state, out=good) is good


def test_a_hand_ended_by_a_penalized_illegal_action_is_observed_as_ended():
    """mj_env/observation.py: ``COL_PHASE`` is "2 also once the hand has ended (a final observation)" and
    ``P_DRAWN`` is the tile drawn "this turn (own turn only)". The AEC env with ``illegal_action="penalize"``
    ends the hand (mj_env/aec.py) but showed every seat the planes of the turn still under way (phase 0, the
    offender's drawn tile), where the single-agent env, which marks such a hand ended, shows phase 2."""
    import mj_env
    from mj_env import observation as O

    e = mj_env.env("beijing", illegal_action="penalize")
    e.reset(seed=0)
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    for k, agent in enumerate(e.possible_agents):
        assert e.terminations[agent]
        planes = e.observe(agent)["observation"]
        sc = planes[O.P_SCALARS]
        assert sc[O.COL_PHASE] == 2 and not planes[O.P_DRAWN].any() and not planes[O.P_CLAIM].any()
        assert np.array_equal(e.state()[k], planes)
    assert e.unwrapped.engine.state.phase[0] != END   # the engine itself is left as it was
