"""Observation planes (mj_obs_v1): each documented plane holds what the docstring says."""
from __future__ import annotations

import numpy as np

from mj_env import actions as A
from mj_env.engine import Engine
from mj_env.observation import N_PLANES, OBS_NAME, observe
from mj_env.state import CLAIM, TURN
from mj_env.tiles import HUI_OF_INDICATOR
from mj_env.wall import live_left


def test_planes_match_the_state_from_every_seat():
    eng = Engine("beijing", num_tables=8, seed=3)
    eng.reset()
    rng = np.random.default_rng(1)
    seen_claim = seen_turn = 0
    for _ in range(200):
        st = eng.state
        live = np.flatnonzero(st.phase != 3)
        for seat in range(4):
            obs = observe(eng.rules, st, live, np.full(len(live), seat))
            assert obs.shape == (len(live), N_PLANES, 34) and obs.dtype == np.uint8
            for j, b in enumerate(live):
                o = obs[j]
                assert (o[0] == st.hands[b, seat]).all()
                for k in range(4):
                    other = (seat + k) % 4
                    assert (o[5 + k] == st.river[b, other]).all()
                    shown = st.meld_counts[b, other] - (st.hidden[b, other] if k else 0)
                    assert (o[1 + k] == shown).all()
                    assert o[13, 12 + k] == st.n_hidden[b, other]
                assert o[9].argmax() == st.indicator[b] and o[9].sum() == 1
                assert o[10].argmax() == HUI_OF_INDICATOR[st.indicator[b]] and o[10].sum() == 1
                assert o[13, 0] == live_left(eng.rules, st, np.array([b]))[0]
                assert o[13, 2] == (st.dealer[b] - seat) % 4
                if st.phase[b] == CLAIM:
                    assert o[11].argmax() == st.claim_tile[b] and o[11].sum() == 1
                    assert o[13, 5] == (st.turn_seat[b] - seat) % 4
                    seen_claim += 1
                else:
                    assert o[11].sum() == 0
                if st.phase[b] == TURN and st.turn_seat[b] == seat and st.drawn[b] >= 0:
                    assert o[12].argmax() == st.drawn[b] and o[12].sum() == 1
                    seen_turn += 1
                elif st.turn_seat[b] != seat:
                    assert o[12].sum() == 0  # another seat's drawn tile is never shown
                by_me = st.claims[b, seat, [(seat + k) % 4 for k in range(4)]]
                assert (o[13, 26:30] == by_me).all()
        mask = eng.legal_mask()
        eng.step((rng.random(mask.shape) * mask).argmax(axis=1))
        done = np.flatnonzero(eng.state.phase == 3)
        if len(done):
            eng.reset(tables=done)
    assert seen_claim > 20 and seen_turn > 20
    assert OBS_NAME == "mj_obs_v1"


def test_actions_names_round_trip():
    for i in range(A.N_ACTIONS):
        assert A.index(A.name(i)) == i
    assert A.name(A.index("chi 789s")) == "chi 789s"
    assert A.index("kong") == A.KONG and A.index("kong 5m") == A.KONG_SELF + 4


def test_single_table_path_equals_the_batched_one():
    from mj_env.observation import observe_one

    for preset in ("beijing", "hebei", "quemen"):
        eng = Engine(preset, num_tables=6, seed=2)
        eng.reset()
        rng = np.random.default_rng(4)
        for _ in range(150):
            st = eng.state
            for seat in range(4):
                batched = observe(eng.rules, st, np.arange(6), np.full(6, seat))
                for b in range(6):
                    assert (observe_one(eng.rules, st, b, seat) == batched[b]).all()
            mask = eng.legal_mask()
            eng.step((rng.random(mask.shape) * mask).argmax(axis=1))
            done = np.flatnonzero(eng.state.phase == 3)
            if len(done):
                eng.reset(tables=done)
