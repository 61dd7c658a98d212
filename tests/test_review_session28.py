"""Review of session 28's entry-point changes (mj_env/aec.py ForwardsSettings, mj_env/single_agent.py settings):
each test fails on the code before its fix."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper

import mj_env
from mj_env.wrappers import FlatObservations, NumericInfos


@pytest.mark.parametrize("between", [BaseWrapper, AssertOutOfBoundsWrapper])
def test_a_setting_through_mj_env_wrappers_reaches_the_game_past_a_pettingzoo_wrapper(between):
    # ForwardsSettings set the name on the env it wraps: a PettingZoo wrapper there kept it as a plain attribute,
    # so the outer wrapper read back "penalize" while the game went on raising, and a penalty of -3 was taken
    env = NumericInfos(FlatObservations(between(mj_env.env())))
    env.illegal_action = "penalize"
    assert env.unwrapped.illegal_action == "penalize"
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        env.illegal_penalty = -3
    env.illegal_penalty = 4
    assert env.unwrapped.illegal_penalty == env.illegal_penalty == 4
    env.reset(seed=0)
    obs = env.last()[0]
    offender = env.agent_selection
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # an illegal action: penalized, not raised
    assert env.rewards[offender] == -4
