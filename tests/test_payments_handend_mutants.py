"""Tests that kill surviving mutants of mj_env/payments.py, mj_env/hand_end.py and mj_env/claims.py (a mutation
audit: each test below failed under a mutant that the rest of the suite let through). Worked out from
docs/RULES.md and docs/INTERFACES.md."""
from __future__ import annotations

import numpy as np
from walls import deals_first, four_hui_9s_wall

import mj_env.engine as engine_module
from mj_env import actions as A
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import shuffled_walls


def _pass_or_discard(mask) -> int:
    """Never win or claim: pass where asked, else discard the first tile allowed."""
    if mask[A.PASS]:
        return A.PASS
    return next(i for i in np.flatnonzero(mask) if A.name(int(i)).startswith("discard "))


def test_a_drawn_hand_then_a_deal_that_ends_in_four_hui_shows_both_in_the_vector_env(monkeypatch):
    """A two-hand beijing match: the first hand is drawn (nobody wins or claims); the dealer stays (docs/RULES.md 2)
    and the next deal gives East all four 惠牌, which wins at once (5): 庄 1 + 四惠牌 8 = 9 fan, self-draw, East +27,
    each other -9. Both hands end in one step: the vector env's settlement is the 四惠牌 win, the drawn hand is
    its ``earlier_settlements``, and the rewards hold both. (Killed a mutant that kept a drawn hand's row in
    ``Settlements`` after a later hand at the same table replaced it: the settlement read back as the draw.)"""
    wall = shuffled_walls(get_rules("beijing"), np.random.default_rng(11), 1)[0].tolist()
    v = MahjongVectorEnv(num_envs=1, rules="beijing", hands_per_episode=2)
    obs, _ = v.reset(options={"walls": [wall], "dealers": [0]})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_9s_wall(), 1))
    for _ in range(2000):
        obs, rewards, term, _, infos = v.step(np.array([_pass_or_discard(obs["action_mask"][0])]))
        if "_settlement" in infos and infos["_settlement"][0]:
            break
    else:
        raise AssertionError("the hand did not end")
    earlier = infos["earlier_settlements"][0]
    assert len(earlier) == 1 and earlier[0]["draw"] is True
    win = infos["settlement"][0]
    assert win["fan"] == 9 and win["patterns"] == {"庄": 1, "四惠牌": 8}
    assert win["scores"] == [27, -9, -9, -9]
    assert rewards[0].tolist() == [a + b for a, b in zip(earlier[0]["scores"], [27, -9, -9, -9])]
    assert term[0]
