"""One concept, every entry point: the same bad argument, lifecycle call, setting or seed gets the same answer
from mj_env.env() / raw_env, MahjongVectorEnv, the single-agent envs (gym.make, make_vec, the vector class),
SB3's adapter, the wrappers and agents.make_agent, or a difference that the docstrings say."""
from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import agents
import mj_env
from mj_env.actions import ActionError
from mj_env.rules import RuleError
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv
from mj_env.wrappers import FlatObservations, NumericInfos


def _sb3(**kwargs):
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    return MahjongSB3VecEnv(2, **kwargs)


MAKERS = {
    "env": lambda **k: mj_env.env(**k),
    "raw_env": lambda **k: mj_env.raw_env(**k),
    "vector": lambda **k: MahjongVectorEnv(**{"num_envs": 2, **k}),
    "single_vector": lambda **k: MahjongSingleAgentVectorEnv(**{"num_envs": 2, **k}),
    "make_vec": lambda **k: gym.make_vec("mj_env/Beijing-v0", **{"num_envs": 2,
                                                                  "vectorization_mode": "vector_entry_point", **k}),
    "gym.make": lambda **k: gym.make("mj_env/Beijing-v0", **k),
    "sb3": lambda **k: _sb3(**k),
}


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("kwargs, error, match", [
    ({"rules": "beijng"}, RuleError, "unknown rules 'beijng'; choose one of beijing, hebei, quemen"),
    ({"hui_wild_in_meld": True}, TypeError, "unknown rule field.*hui_wild_in_meld"),
    ({"base": "x"}, RuleError, "rule field 'base' must be int"),
    ({"obs": "v3"}, ValueError, "obs must be 'v1'.*or 'v2'"),
    ({"seed": -1}, ValueError, "seed"),
])
def test_the_same_bad_argument_gets_the_same_error_everywhere(maker, kwargs, error, match):
    if maker == "gym.make" and "seed" in kwargs:  # refused by name: the one-table env is seeded by reset()
        match = "seed: a one-table env is seeded by reset"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match):
            MAKERS[maker](**kwargs)


@pytest.mark.parametrize("maker, kwargs, match", [
    # arguments of the other environments: refused by their name and pointing at the env that takes them (they
    # used to be "unknown rule field(s): num_envs", and num_tables a TypeError naming mj_env.engine.Engine())
    ("env", {"num_envs": 4}, "^num_envs: the AEC environment plays one table.*MahjongVectorEnv"),
    ("raw_env", {"num_envs": 4}, "^num_envs: the AEC environment plays one table"),
    ("env", {"opponents": "rule"}, "^opponents: .*every seat.*gymnasium.make"),
    ("env", {"seat": 2}, "^seat: .*every seat.*seat=..."),
    ("vector", {"illegal_action": "penalize"}, "^illegal_action: MahjongVectorEnv always refuses an illegal action"),
    ("vector", {"illegal_penalty": 5}, "^illegal_penalty: MahjongVectorEnv always refuses"),
    ("vector", {"opponents": "rule"}, "^opponents: MahjongVectorEnv plays all four seats.*MahjongSingleAgentVectorEnv"),
    ("vector", {"seat": 1}, "^seat: MahjongVectorEnv plays all four seats"),
    ("vector", {"num_tables": 4}, "^num_tables: the number of tables is num_envs"),
    ("single_vector", {"num_tables": 4}, "^num_tables: the number of tables is num_envs"),
    ("make_vec", {"num_tables": 4}, "^num_tables: the number of tables is num_envs"),
    ("sb3", {"num_tables": 4}, "^num_tables: the number of tables is num_envs"),
    ("gym.make", {"num_tables": 4}, "num_tables: the one-table env plays one table"),
])
def test_an_argument_of_another_environment_is_refused_by_its_name(maker, kwargs, match):
    with pytest.raises(ValueError, match=match):
        MAKERS[maker](**kwargs)


def _played_out(env):
    env.reset(seed=3)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return env


@pytest.mark.parametrize("layer", [mj_env.raw_env, mj_env.env, lambda: FlatObservations(mj_env.env()),
                                   lambda: NumericInfos(mj_env.env())],
                         ids=["raw_env", "env", "FlatObservations", "NumericInfos"])
def test_last_after_the_hand_ended_is_the_same_action_error_on_every_aec_layer(layer):
    # mj_env.env() said "call reset() first" with an ActionError; raw_env and the wrappers failed with a bare
    # KeyError: 'player_0' from PettingZoo's last()
    env = _played_out(layer())
    with pytest.raises(ActionError, match=r"last\(\) after the hand ended.*reset"):
        env.last()
    env.reset(seed=4)  # and the env plays on after a reset
    assert env.last()[0]["action_mask"].any()


@pytest.mark.parametrize("spec", ["random", "rule", "efficient"])
def test_make_agent_refuses_misspelt_rules_for_every_baseline(spec):
    # "random" plays the same under any rules, but took rules="beijng" (or 5) without a word where "rule" refused it
    with pytest.raises(RuleError, match="unknown rules 'beijng'"):
        agents.make_agent(spec, rules="beijng")
    assert agents.make_agent(spec, rules="hebei").name == spec


def test_seat_is_the_same_setting_on_both_single_agent_forms():
    # the one-table env reads and sets `seat` (the constructor's name) as seat_mode; on the vector form
    # `envs.seat = "random"` set a plain attribute the game never read
    one, many = MahjongSingleAgentEnv(seat=2), MahjongSingleAgentVectorEnv(2, seat=2)
    assert one.seat == many.seat == many.seat_mode == 2
    many.seat = "random"
    assert many.seat_mode == "random"
    with pytest.raises(ValueError, match="seat must be 0-3, 'rotate' or 'random', got 4"):
        many.seat = 4
    assert many.seat == "random"
    seats = set()
    for s in range(40):
        seats.update(many.reset(seed=s)[1]["seat"].tolist())
    assert seats == {0, 1, 2, 3}


def test_sb3_reads_seat_back_as_it_sets_it():
    env = _sb3()
    env.set_attr("seat", "rotate")
    assert env.get_attr("seat") == env.get_attr("seat_mode") == ["rotate", "rotate"]


@pytest.mark.parametrize("maker", ["single_vector", "make_vec", "sb3"])
def test_a_render_mode_is_a_string_on_the_single_agent_forms_too(maker):
    # the single-agent envs take any mode string (SB3's make_vec_env asks for "rgb_array": documented), but took
    # render_mode=5, which the AEC and self-play envs refuse (and gym.make fails on inside Gymnasium)
    with pytest.raises(ValueError, match="render_mode must be None or a str"):
        MAKERS[maker](render_mode=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert MAKERS[maker](render_mode="rgb_array") is not None


def _wall(env):
    inner = getattr(env, "unwrapped", env)
    inner = getattr(inner, "envs", inner)
    inner = getattr(inner, "venv", inner)
    return inner.engine.state.wall[0].copy()


def test_reset_seed_deals_the_same_wall_in_every_env_but_the_one_table_single_agent_env():
    # docstring of MahjongSingleAgentEnv: its reset(seed=N) goes through Gymnasium's np_random (reproducible,
    # another wall); the others seed the engine with N itself
    walls = {}
    for name in ("env", "vector", "single_vector", "gym.make"):
        env = MAKERS[name]()
        env.reset(seed=5)
        first = _wall(env)
        env.reset(seed=6)
        env.reset(seed=5)
        assert (first == _wall(env)).all(), name
        walls[name] = first
    assert (walls["env"] == walls["vector"]).all() and (walls["env"] == walls["single_vector"]).all()
    assert not (walls["env"] == walls["gym.make"]).all()


@pytest.mark.parametrize("bad", [127, -1, 3.0, True, np.bool_(True), "3", None, np.array([3, 3])],
                         ids=["127", "-1", "3.0", "True", "np.True_", "str", "None", "shape(2,)"])
def test_what_is_no_action_is_refused_under_penalize_too_in_every_env(bad):
    # docstrings of mj_env.aec and mj_env.single_agent: refused (ActionError), never penalized, nothing changed
    aec = mj_env.env(illegal_action="penalize")
    aec.reset(seed=0)
    with pytest.raises(ActionError):
        aec.step(bad)
    _, reward, term, _, info = aec.last()
    assert (reward, term, info) == (0, False, {})
    one = gym.make("mj_env/Beijing-v0", illegal_action="penalize")
    one.reset(seed=0)
    with pytest.raises(ActionError):
        one.step(bad)
    many = MahjongSingleAgentVectorEnv(2, illegal_action="penalize")
    obs, _ = many.reset(seed=0)
    legal = int(np.flatnonzero(obs["action_mask"][1])[0])
    with pytest.raises(ActionError):
        many.step([bad, legal])
    # each still plays a legal action as usual afterwards
    aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"])[0]))
    one.step(int(np.flatnonzero(one.unwrapped.action_masks())[0]))
    _, rewards, terms, _, _ = many.step(many.action_masks().argmax(axis=1))
    assert not terms.any() or (rewards > -10).all()


@pytest.mark.parametrize("wrong", [mj_env.env, lambda: gym.make("mj_env/Beijing-v0")], ids=["aec", "gym.make"])
def test_every_adapter_refuses_the_wrong_kind_of_env_with_a_type_error(wrong):
    # the other five adapters of mj_env.wrappers say what they wrap in a TypeError; ResetByMask let Gymnasium's
    # VectorWrapper fail with "AssertionError: Expected env to be a `gymnasium.vector.VectorEnv`"
    from mj_env.wrappers import FlatObservationsVector, ResetByMask

    for adapter in (FlatObservationsVector, ResetByMask):
        with pytest.raises(TypeError, match=f"^{adapter.__name__} wraps the batched single-agent env of mj_env"):
            adapter(wrong())
