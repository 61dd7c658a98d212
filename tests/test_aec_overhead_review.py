"""A hostile review of the one-table envs' fast paths (deb7a43, 5274e06): each input the checks refused at 4b73506 is
still refused with the same message, and copies of an env keep playing. Transcripts of a battery of hostile inputs
(odd agent names, int subclasses, NumPy and 0-d actions, bools, out-of-range ints, action arrays of other dtypes,
strides and flags, calls after close() through PettingZoo's wrappers and turn_based_aec_to_parallel, penalized hands,
v1/v2 observations edited by the caller, hebei, quemen, matches, pickles and deep copies) were diffed against
4b73506's and are identical; the tests below pin the cases the existing tests (tests/test_aec_overhead.py) leave out,
and the one regression found: an order-enforcing wrapper pickled before it kept its game (``_game``)."""
from __future__ import annotations

import copy
import enum
import pickle

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import mj_env
from mj_env import actions as A
from mj_env.aec import OrderEnforcing, raw_env


def _old_form(env):
    """``env`` (``mj_env.env()``) as 4b73506 pickled it: the order-enforcing wrapper without ``_game``."""
    del env.__dict__["_game"]
    return env


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_wrapper_pickled_before_it_kept_its_game_still_plays(how):
    """An env pickled at 4b73506 or earlier holds no ``_game``: PettingZoo's ``__getattr__`` refused it ('accessing
    private attribute') at every last() and step() of the loaded env. Loaded, it plays on and sees its game closed."""
    env = mj_env.env()
    env.reset(seed=3)
    twin = copy.deepcopy(env)
    old = _old_form(env)
    loaded = pickle.loads(pickle.dumps(old)) if how == "pickle" else copy.deepcopy(old)
    assert loaded._game is loaded.unwrapped
    for e in (loaded, twin):  # plays as the copy made with _game does
        obs = e.last()[0]
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert loaded.unwrapped.hand_record() == twin.unwrapped.hand_record()
    loaded.unwrapped.close()
    for call in (loaded.last, lambda: loaded.step(0)):
        with pytest.raises(RuntimeError, match=r"after close\(\)"):
            call()


class _Str(str):
    pass


class _Five(enum.IntEnum):
    FIVE = 5


class _Lies(int):
    """An int subclass whose comparisons say it is in range whatever it is."""

    def __lt__(self, other):
        return True

    def __le__(self, other):
        return True

    def __ge__(self, other):
        return True


@pytest.mark.parametrize("agent", [_Str("player_2"), np.str_("player_2")])
def test_str_subclasses_name_the_agent_as_its_str_does(agent):
    """Not a ``str`` by type: observe() takes the checked path, which reads them as the agent they spell."""
    env = mj_env.env()
    env.reset(seed=1)
    got, want = env.observe(agent), env.observe("player_2")
    assert all(np.array_equal(got[k], want[k]) for k in want)


@pytest.mark.parametrize("action, message", [
    (_Lies(500), r"action 500 is not in the action space"),
    (_Lies(-1), r"action -1 is not in the action space"),
    (np.uint64(2 ** 64 - 1), r"not in the action space"),
    (np.array(3, dtype=np.uint64).reshape(1, 1), r"is not an integer in 0-126"),
    (np.timedelta64(3), r"is not an integer in 0-126"),
])
def test_int_look_alikes_are_still_refused_by_the_aec_env(action, message):
    env = mj_env.env()
    env.reset(seed=0)
    before = env.unwrapped.engine.state.hands.copy()
    with pytest.raises(A.ActionError, match=message):
        env.step(action)
    assert np.array_equal(env.unwrapped.engine.state.hands, before) and env.agent_selection == "player_0"


def test_an_int_enum_action_is_played_as_its_value():
    env, twin = mj_env.env(), mj_env.env()
    for e in (env, twin):
        e.reset(seed=0)
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    assert _Five.FIVE in legal  # (seed 0: the dealer may discard 6m)
    env.step(_Five.FIVE)
    twin.step(5)
    assert env.unwrapped.hand_record() == twin.unwrapped.hand_record()


@pytest.mark.parametrize("obs", ["v1", "v2"])
def test_editing_an_observation_changes_neither_the_game_nor_a_later_observation(obs):
    env = mj_env.env(rules="hebei", obs=obs)
    env.reset(seed=4)
    first = env.last()[0]
    kept = {k: v.copy() for k, v in first.items()}
    first["observation"][...] = 99
    first["action_mask"][...] = 1
    again = env.last()[0]
    assert all(np.array_equal(again[k], kept[k]) for k in kept)
    with pytest.raises(A.ActionError):  # the edited mask allowed nothing
        env.step(int(np.flatnonzero(kept["action_mask"] == 0)[0]))


@pytest.mark.parametrize("make", [lambda: wrappers.OrderEnforcingWrapper(raw_env()),
                                  lambda: wrappers.TerminateIllegalWrapper(mj_env.env(), illegal_reward=-1),
                                  lambda: OrderEnforcing(OrderEnforcing(raw_env()))],
                         ids=["pettingzoo_order_enforcing", "terminate_illegal", "twice"])
def test_a_closed_game_is_refused_under_other_wrapper_stacks(make):
    env = make()
    env.reset(seed=0)
    env.close()
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), lambda: env.reset(seed=0)):
        with pytest.raises(RuntimeError, match=r"after close\(\): this mj_env AEC env is closed"):
            call()
