"""The per-decision overhead of the one-table envs (the AEC env, the vector env at one table), and the checks that
its fast paths keep.

At 4b73506 an AEC decision made 85 calls into mj_env's own functions (25038b3: 61): the after-close checks went
through ``unwrapped`` and ``_check_open`` five times a decision, the read-only ``rules`` descriptor ran three times,
``observe_one`` and ``one_action`` checked what the env itself had made. The checks now cost a flag read where they
pass; they still refuse what they refused (below), and the outputs are unchanged (200 random-agent games diffed byte
for byte against 4b73506). The budget counts only mj_env's own Python functions, so that NumPy's or PettingZoo's
releases do not move it."""
from __future__ import annotations

import copy
import enum
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import mj_env
from mj_env import actions as A
from mj_env.aec import OrderEnforcing, raw_env
from mj_env.vector import MahjongVectorEnv

MJ_DIR = str(Path(mj_env.__file__).resolve().parent)


def _mj_calls(play) -> float:
    """Calls into mj_env's own Python functions per decision while ``play()`` runs (it returns its decisions)."""
    calls = [0]

    def hook(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(MJ_DIR):
            calls[0] += 1

    sys.setprofile(hook)
    try:
        decisions = play()
    finally:
        sys.setprofile(None)
    return calls[0] / decisions


def _aec_games(env, games=5, seed=0) -> int:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    decisions = 0
    for g in range(games):
        if g:
            env.reset()
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
    return decisions


def test_an_aec_decision_stays_within_its_call_budget():
    """60 calls a decision now (4b73506: 85, 25038b3: 61); a check that runs at every decision belongs where it
    costs a flag read when it passes."""
    per = _mj_calls(lambda: _aec_games(mj_env.env()))
    assert per < 66, f"{per:.1f} calls into mj_env per AEC decision (budget 66; 4b73506 made 85)"


def test_a_one_table_vector_step_stays_within_its_call_budget():
    """58 calls a step now (4b73506: 67, 25038b3: 57)."""
    def play():
        venv = MahjongVectorEnv(1, seed=0)
        obs, _ = venv.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(400):
            obs = venv.step(np.array([rng.choice(np.flatnonzero(obs["action_mask"][0]))]))[0]
        return 400

    per = _mj_calls(play)
    assert per < 63, f"{per:.1f} calls into mj_env per one-table vector step (budget 63; 4b73506 made 67)"


# ----------------------------------------------------------------------------- the checks the fast paths keep

@pytest.mark.parametrize("make", [
    lambda: mj_env.env(),
    lambda: raw_env(),
    lambda: OrderEnforcing(wrappers.AssertOutOfBoundsWrapper(raw_env())),
], ids=["env", "raw_env", "over_another_wrapper"])
@pytest.mark.parametrize("mid_hand", [True, False])
def test_closing_the_game_itself_is_seen_by_every_layer(make, mid_hand):
    """The order-enforcing wrapper reads the closed flag of the raw_env it was built on: closing that raw_env
    directly (not through the wrapper) is refused at the next last(), observe() and step() too."""
    env = make()
    if mid_hand:
        env.reset(seed=3)
    env.unwrapped.close()
    for call in ("last", "step", "observe"):
        with pytest.raises(RuntimeError, match=rf"{call}\(\) after close\(\)"):
            if call == "last":
                env.last()
            elif call == "step":
                env.step(0)
            else:
                env.observe("player_0")


@pytest.mark.parametrize("action", [A.N_ACTIONS, -1, True, 3.0, "3", np.array([3])])
def test_the_aec_env_still_refuses_what_is_no_action(action):
    env = mj_env.env()
    env.reset(seed=0)
    before = env.unwrapped.engine.state.hands.copy()
    with pytest.raises(A.ActionError, match="player_"):
        env.step(action)
    assert np.array_equal(env.unwrapped.engine.state.hands, before)


def test_the_aec_env_takes_every_integer_kind_alike():
    """A plain int (the fast path), a NumPy integer and a 0-d array play the same game."""
    records = []
    for kind in (int, np.int64, np.asarray):
        env = mj_env.env()
        env.reset(seed=5)
        rng = np.random.default_rng(1)
        for _ in range(60):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(kind(int(rng.choice(np.flatnonzero(obs["action_mask"])))))
        records.append(env.unwrapped.hand_record())
    assert records[0] == records[1] == records[2]


def test_unknown_agents_are_still_refused_by_observe():
    env = mj_env.env()
    env.reset(seed=0)
    for agent in ("player_4", ["player_0"], 0, None):
        with pytest.raises(KeyError, match="unknown agent"):
            env.observe(agent)


@pytest.mark.parametrize("actions", [np.array([True]), np.array([3.0]), np.array([[3]]),
                                     np.array([2 ** 63], dtype=np.uint64), [True]])
def test_a_one_table_engine_step_still_refuses_what_is_no_action_batch(actions):
    venv = MahjongVectorEnv(1, seed=0)
    venv.reset(seed=0)
    with pytest.raises(A.ActionError):
        venv.step(actions)


def test_aec_observations_are_fresh_arrays_the_caller_may_keep():
    """The v1 planes are returned as observe_one made them (no longer a view of them): each call a new, writeable
    array equal to state()'s row of that seat."""
    env = mj_env.env()
    env.reset(seed=2)
    first, again = env.observe("player_1")["observation"], env.observe("player_1")["observation"]
    assert first is not again and not np.shares_memory(first, again)
    assert first.flags.writeable and first.flags.c_contiguous and first.shape == (14, 34)
    first[:] = 0
    assert np.array_equal(again, env.state()[1])


# --- hostile inputs to the fast paths (deb7a43, 5274e06) --------------------------------------------------------------
# Each input the checks refused at 4b73506 is still refused with the same message, and copies of an env keep playing.
# Transcripts of a battery of hostile inputs (odd agent names, int subclasses, NumPy and 0-d actions, bools,
# out-of-range ints, action arrays of other dtypes, strides and flags, calls after close() through PettingZoo's
# wrappers and turn_based_aec_to_parallel, penalized hands, v1/v2 observations edited by the caller, hebei, quemen,
# matches, pickles and deep copies) were diffed against 4b73506's and are identical; the tests below pin the cases the
# tests above leave out, and the one regression found: an order-enforcing wrapper pickled before it kept its game
# (``_game``).
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
