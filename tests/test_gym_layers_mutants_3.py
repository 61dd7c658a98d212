"""Mutation-test round 3 on the Gymnasium-facing layers (mj_env/vector.py, mj_env/single_agent.py, mj_env/sb3.py):
tests that kill mutants the suite let live."""
from __future__ import annotations

import numpy as np
from walls import deals_first, four_hui_9s_wall, tian_hu_wall

import mj_env.engine as engine_module
from mj_env import actions as A
from mj_env.vector import MahjongVectorEnv


def test_vector_earlier_settlements_list_every_hand_before_the_last_when_three_end_in_one_step(monkeypatch):
    """A match of three hands: East wins the first by 天和, and the next two deals give East 四惠牌 (it keeps the
    deal), each ending at its deal in the same step. ``earlier_settlements`` holds both hands before the last
    (mutant: ``every(b)[:-1]`` as ``[:1]``, the same with two hands, dropped the second)."""
    venv = MahjongVectorEnv(num_envs=1, seed=0, hands_per_episode=3)
    venv.reset(seed=0, options={"walls": [tian_hu_wall()], "dealers": [0]})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_9s_wall(), 2))
    _, rewards, term, _, infos = venv.step(np.array([A.WIN]))
    assert term[0] and infos["_earlier_settlements"][0]
    assert [s["fan"] for s in infos["earlier_settlements"][0]] == [11, 9]
    assert infos["settlement"][0]["fan"] == 9
    assert rewards[0].tolist() == [3 * (11 + 9 + 9), -(11 + 9 + 9), -(11 + 9 + 9), -(11 + 9 + 9)]


def test_same_step_autoreset_lets_the_opponents_play_up_to_the_learners_turn_in_the_new_episode():
    """SAME_STEP: a table whose episode ended is dealt anew and the opponents act there until the learner decides,
    so the returned row is the learner's decision (its seat to act, its mask), as after ``reset``. With seat 2 under
    beijing East deals, so a new hand opens on an opponent's turn (mutant: the ``_advance`` after the SAME_STEP deal
    deleted; the returned mask was East's)."""
    from mj_env.single_agent import MahjongSingleAgentVectorEnv

    venv = MahjongSingleAgentVectorEnv(4, seat=2, seed=0, opponents="random", autoreset_mode="SameStep")
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, _, term, trunc, _ = venv.step(acts)
        ended += int((term | trunc).sum())
        np.testing.assert_array_equal(venv.engine.state.to_act, venv.seats)
        np.testing.assert_array_equal(obs["action_mask"], venv.engine.legal_mask().view(np.int8))
        if ended >= 3:
            break
    assert ended >= 3
