"""mj_env in the setups RL engineers wire it into that the examples do not show: copies and pickles of every env
class mid-hand, Gymnasium's sub-process vector envs under spawn and forkserver, Gymnasium's wrappers on the one-table
env and on make_vec's sync and async modes, SB3's save/load round trip and SubprocVecEnv, PettingZoo's conversions
and wrappers, TorchRL's spec check and ActionMask, Tianshou's sub-process vector envs. Each runs for seconds; a
library that is missing skips its tests."""
from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import mj_env
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv
from mj_env.wrappers import (
    FlatObservations,
    FlatObservationsGym,
    FlatObservationsVector,
    NumericInfos,
    ObsAndMask,
    ResetByMask,
)

AGENTS = ["player_0", "player_1", "player_2", "player_3"]


def _legal(masks, rng):
    """One uniformly drawn legal action per row of ``masks`` (n, 127)."""
    return uniform_legal(np.asarray(masks), rng)


# --- copies and pickles of every env class, mid-hand ------------------------------------------------------------

def _one_table_mask(env):
    """The legal actions of a one-table Gymnasium env, whatever wraps it (ObsAndMask renames the key)."""
    return env.unwrapped.action_masks()[None]


def _play_one_table(env, rng, steps):
    out = []
    for _ in range(steps):
        obs, rew, term, trunc, info = env.step(int(_legal(_one_table_mask(env), rng)[0]))
        out.append((pickle.dumps(obs), float(rew), term, trunc, int(info["seat"])))
        if term or trunc:
            obs, _ = env.reset()
            out.append(pickle.dumps(obs))
    return out


def _play_vector(env, rng, steps):
    out = []
    for _ in range(steps):
        obs, rew, term, trunc, _ = env.step(_legal(env.unwrapped.action_masks(), rng))
        out.append((pickle.dumps(obs), np.asarray(rew).tobytes(), term.tobytes(), trunc.tobytes()))
    return out


def _play_all_seats(env, rng, steps):
    out = []
    obs = env.last_obs
    for _ in range(steps):
        obs, rew, term, trunc, _ = env.step(_legal(obs["action_mask"], rng))
        out.append((pickle.dumps(obs), rew.tobytes(), term.tobytes(), trunc.tobytes()))
    env.last_obs = obs
    return out


def _play_sb3(env, rng, steps):
    out = []
    for _ in range(steps):
        obs, rew, done, _ = env.step(_legal(np.stack(env.env_method("action_masks")), rng))
        out.append((pickle.dumps(obs), rew.tobytes(), done.tobytes()))
    return out


def _play_aec(env, rng, steps):
    out = []
    for _ in range(steps):
        if not env.agents:
            env.reset()
        obs, rew, term, trunc, _ = env.last()
        action = None if term or trunc else int(_legal(obs["action_mask"][None], rng)[0])
        env.step(action)
        out.append((env.agent_selection, action, float(rew), pickle.dumps(obs)))
    return out


def _sb3_env():
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    env = MahjongSB3VecEnv(3, rules="hebei", opponents="rule", seat="random")
    env.seed(5)
    env.reset()
    return env


def _all_seats_env():
    env = MahjongVectorEnv(3, rules="quemen")
    env.last_obs, _ = env.reset(seed=5)
    return env


def _seeded(env):
    env.reset(seed=5)
    return env


ENVS = {
    "gym.make random": (lambda: _seeded(gym.make("mj_env/Beijing-v0", opponents="random", seat="random")), _play_one_table),
    "gym.make efficient v2": (lambda: _seeded(gym.make("mj_env/Quemen-v0", opponents="efficient", seat="rotate",
                                                       obs="v2")), _play_one_table),
    "MahjongSingleAgentEnv": (lambda: _seeded(MahjongSingleAgentEnv(rules="hebei", opponents="rule", seat="random")),
                              _play_one_table),
    "FlatObservationsGym": (lambda: _seeded(FlatObservationsGym(gym.make("mj_env/Beijing-v0", opponents="rule"))),
                            _play_one_table),
    "ObsAndMask": (lambda: _seeded(ObsAndMask(gym.make("mj_env/Beijing-v0", opponents="rule"))), _play_one_table),
    "MahjongSingleAgentVectorEnv": (lambda: _seeded(MahjongSingleAgentVectorEnv(3, opponents="rule", seat="random")),
                                    _play_vector),
    "make_vec vector_entry_point": (lambda: _seeded(gym.make_vec("mj_env/Hebei-v0", num_envs=3, opponents="random",
                                                                 vectorization_mode="vector_entry_point")), _play_vector),
    "ResetByMask": (lambda: _seeded(ResetByMask(gym.make_vec("mj_env/Beijing-v0", num_envs=3, opponents="rule",
                                                             vectorization_mode="vector_entry_point"))), _play_vector),
    "FlatObservationsVector": (lambda: _seeded(FlatObservationsVector(gym.make_vec(
        "mj_env/Beijing-v0", num_envs=3, opponents="rule", vectorization_mode="vector_entry_point"))), _play_vector),
    "MahjongVectorEnv": (_all_seats_env, _play_all_seats),
    "MahjongSB3VecEnv": (_sb3_env, _play_sb3),
    "mj_env.env": (lambda: _seeded(mj_env.env(rules="hebei")), _play_aec),
    "raw_env": (lambda: _seeded(mj_env.raw_env(rules="quemen")), _play_aec),
    "FlatObservations": (lambda: _seeded(FlatObservations(mj_env.env())), _play_aec),
    "NumericInfos": (lambda: _seeded(NumericInfos(mj_env.env(rules="hebei"))), _play_aec),
}


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("name", list(ENVS))
def test_a_copy_made_mid_hand_plays_on_exactly_as_the_original(name, how):
    """Search (MCTS from the real position), SB3's and Gymnasium's sub-process workers and checkpointing users copy or
    pickle an env in the middle of a hand: the copy must share nothing with the original (the original plays on
    first, then the copy replays the same actions) and play on identically, the opponents' generator included."""
    make, play = ENVS[name]
    env = make()
    rng = np.random.default_rng(1)
    play(env, rng, 7)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    state = rng.bit_generator.state
    first = play(env, rng, 40)
    rng.bit_generator.state = state
    assert play(twin, rng, 40) == first


def test_a_copy_of_a_closed_env_stays_closed():
    for env in (gym.make("mj_env/Beijing-v0"), MahjongVectorEnv(2), mj_env.env()):
        env.reset(seed=1)
        env.close()
        with pytest.raises(RuntimeError, match="closed"):
            pickle.loads(pickle.dumps(env)).reset(seed=1)


# --- Gymnasium's sub-process vector envs ------------------------------------------------------------------------

def _transcript(envs, steps):
    obs, _ = envs.reset(seed=11)
    rng = np.random.default_rng(0)
    out = []
    for _ in range(steps):
        masks = np.stack(envs.call("action_masks"))
        assert np.array_equal(masks, obs["action_mask"])
        obs, rew, term, trunc, info = envs.step(_legal(masks, rng))
        out.append((obs["observation"].tobytes(), rew.tobytes(), term.tobytes(), trunc.tobytes(), info["seat"].tobytes()))
    return out


@pytest.mark.parametrize("context", ["spawn", "forkserver"])
def test_async_vector_envs_started_by_spawn_or_forkserver_play_as_the_sync_one(context):
    """``make_vec(..., "async")`` pickles the env makers into fresh interpreters under spawn and forkserver (macOS and
    Windows default to spawn); with shared memory for the Dict observations they play the sync mode's games, and
    ``call("set_opponents", ...)`` reaches every worker."""
    kw = {"num_envs": 2, "opponents": "efficient", "seat": "rotate"}
    sync = gym.make_vec("mj_env/Quemen-v0", vectorization_mode="sync", **kw)
    want = _transcript(sync, 40)
    sub = gym.make_vec("mj_env/Quemen-v0", vectorization_mode="async", vector_kwargs={"context": context}, **kw)
    try:
        assert _transcript(sub, 40) == want
        sub.call("set_opponents", "random")
        sync.call("set_opponents", "random")
        assert _transcript(sub, 20) == _transcript(sync, 20)
        assert [type(o[0]).__name__ for o in sub.get_attr("opponents")] == ["RandomAgent"] * 2
    finally:
        sub.close()


def test_an_async_spawned_worker_takes_network_opponents_and_then_an_agent_object():
    pytest.importorskip("torch")
    import agents
    envs = gym.make_vec("mj_env/Hebei-v0", num_envs=2, vectorization_mode="async", opponents="pretrained",
                        vector_kwargs={"context": "spawn"})
    try:
        assert len(_transcript(envs, 5)) == 5
        envs.call("set_opponents", agents.make_agent("efficient", rules="hebei"))   # an agent object, pickled
        assert len(_transcript(envs, 5)) == 5
    finally:
        envs.close()


# --- Gymnasium's wrappers ---------------------------------------------------------------------------------------

def test_record_episode_statistics_counts_the_learners_points_and_decisions():
    from gymnasium.wrappers import RecordEpisodeStatistics
    env = RecordEpisodeStatistics(gym.make("mj_env/Beijing-v0", opponents="rule", seat="random", illegal_action="raise"))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    hands = steps = 0
    while hands < 8:
        _, _, term, trunc, info = env.step(int(_legal(_one_table_mask(env), rng)[0]))
        steps += 1
        if term or trunc:
            assert info["episode"]["r"] == info["scores"][info["seat"]] and info["episode"]["l"] == steps
            hands, steps = hands + 1, 0
            env.reset()


@pytest.mark.parametrize("wrap", [
    lambda e: __import__("gymnasium").wrappers.NormalizeReward(e),
    lambda e: __import__("gymnasium").wrappers.FrameStackObservation(e, 4),
    lambda e: __import__("gymnasium").wrappers.DtypeObservation(__import__("gymnasium").wrappers.FlattenObservation(e),
                                                                 np.float32),
    lambda e: __import__("gymnasium").wrappers.NormalizeObservation(__import__("gymnasium").wrappers.FlattenObservation(e)),
    lambda e: __import__("gymnasium").wrappers.FilterObservation(e, ["observation"]),
    lambda e: __import__("gymnasium").wrappers.DelayObservation(e, 1),
    lambda e: __import__("gymnasium").wrappers.TimeLimit(e, 5),
], ids=["NormalizeReward", "FrameStack", "Dtype(Flatten)", "NormalizeObservation(Flatten)", "FilterObservation",
        "DelayObservation", "TimeLimit"])
def test_gymnasiums_observation_and_reward_wrappers_run_on_the_one_table_env(wrap):
    """The mask stays reachable as ``get_wrapper_attr("action_masks")`` whatever the wrapper does to the observation,
    so a masked learner plays on with ``illegal_action="raise"``."""
    env = wrap(gym.make("mj_env/Beijing-v0", opponents="rule", illegal_action="raise"))
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    hands = 0
    for _ in range(60):
        obs, _, term, trunc, _ = env.step(int(_legal(env.get_wrapper_attr("action_masks")()[None], rng)[0]))
        assert env.observation_space.contains(obs)
        if term or trunc:
            hands += 1
            env.reset()
    assert hands >= 2


def test_time_limit_from_make_and_make_vec_truncates_alike_in_every_mode():
    env = gym.make("mj_env/Beijing-v0", max_episode_steps=3)
    obs, _ = env.reset(seed=0)
    for step in range(3):
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert (term, trunc) == (False, True)
    ends = {}
    for mode in ("sync", "async", "vector_entry_point"):
        envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode=mode, max_episode_steps=3)
        obs, _ = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        ends[mode] = []
        for _ in range(8):
            obs, _, term, trunc, _ = envs.step(_legal(obs["action_mask"], rng))
            ends[mode].append((term.tolist(), trunc.tolist()))
        envs.close()
    assert ends["sync"] == ends["async"] == ends["vector_entry_point"]
    assert [t for t in ends["sync"] if any(t[1])] == [([False, False], [True, True])] * 2  # steps 3 and 7 (NEXT_STEP)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasiums_vector_wrappers_on_the_one_table_envs_modes(mode):
    """The README lists the vector wrappers that work on ``vector_entry_point``; on the sync and async modes (a
    Gymnasium vector env of one-table envs) they work too, and RecordEpisodeStatistics' returns are the points paid."""
    from gymnasium.wrappers import vector as vw
    envs = vw.RecordEpisodeStatistics(vw.NormalizeReward(vw.DtypeObservation(vw.FlattenObservation(
        gym.make_vec("mj_env/Beijing-v0", num_envs=3, vectorization_mode=mode, opponents="rule", seat="random")),
        np.float32)))
    try:
        obs, _ = envs.reset(seed=1)
        assert obs.shape == (3, 127 + 14 * 34) and obs.dtype == np.float32
        rng = np.random.default_rng(0)
        hands = 0
        points = np.zeros(3)
        for _ in range(150):
            obs, _, _, _, info = envs.step(_legal(np.stack(envs.unwrapped.call("action_masks")), rng))
            assert np.array_equal(obs[:, :127], np.stack(envs.unwrapped.call("action_masks")))  # mask first
            if "episode" in info:
                for k in np.flatnonzero(info["_episode"]):
                    points[k] += info["episode"]["r"][k]
                    hands += 1
        assert hands >= 10 and points.sum() != 0
    finally:
        envs.close()


# --- Stable-Baselines3 ------------------------------------------------------------------------------------------

def test_maskable_ppo_and_vec_normalize_save_load_and_evaluate_on_the_one_table_env(tmp_path):
    """Train on the batched adapter, save the model and VecNormalize's statistics, load both on a new adapter, go on
    training; a model trained on the adapter plays the one-table env (its spaces are the adapter's)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import VecMonitor, VecNormalize

    from mj_env.sb3 import MahjongSB3VecEnv

    venv = VecNormalize(VecMonitor(MahjongSB3VecEnv(4, opponents="rule", seed=0)), norm_obs_keys=["observation"])
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    model.save(tmp_path / "m.zip")
    venv.save(tmp_path / "vn.pkl")
    again = VecNormalize.load(tmp_path / "vn.pkl", VecMonitor(MahjongSB3VecEnv(4, opponents="rule", seed=0)))
    np.testing.assert_array_equal(again.obs_rms["observation"].mean, venv.obs_rms["observation"].mean)
    loaded = MaskablePPO.load(tmp_path / "m.zip", env=again)
    loaded.learn(64, reset_num_timesteps=False)
    assert loaded.num_timesteps == 128

    plain = MaskablePPO("MultiInputPolicy", MahjongSB3VecEnv(4, opponents="rule", seed=0), n_steps=16, batch_size=32,
                        n_epochs=1, seed=0)
    plain.save(tmp_path / "plain.zip")
    one = gym.make("mj_env/Beijing-v0", opponents="rule", illegal_action="raise")
    assert one.observation_space == plain.observation_space and one.action_space == plain.action_space
    rewards, lengths = evaluate_policy(MaskablePPO.load(tmp_path / "plain.zip"), one, n_eval_episodes=2,
                                       use_masking=True, warn=False, return_episode_rewards=True)
    assert len(rewards) == 2 and min(lengths) > 0


def test_subproc_vec_env_by_spawn_plays_the_dummy_vec_envs_games():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    results = []
    for cls, kw in ((DummyVecEnv, {}), (SubprocVecEnv, {"start_method": "spawn"})):
        # the id with its module: a spawned worker imports only what the main module (here pytest) imports
        venv = make_vec_env("mj_env:mj_env/Beijing-v0", n_envs=2, seed=0, vec_env_cls=cls, vec_env_kwargs=kw,
                            env_kwargs={"opponents": "random", "seat": "random"})
        try:
            model = MaskablePPO("MultiInputPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0)
            venv.env_method("set_opponents", "rule")
            venv.seed(3)
            results.append(evaluate_policy(model, venv, n_eval_episodes=4, use_masking=True, warn=False,
                                           return_episode_rewards=True))
        finally:
            venv.close()
    assert results[0] == results[1] and len(results[0][0]) == 4


# --- PettingZoo -------------------------------------------------------------------------------------------------

def test_pettingzoos_conversions_and_checks():
    from pettingzoo.test import api_test, parallel_api_test, render_test
    from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec, turn_based_aec_to_parallel
    render_test(lambda render_mode=None: mj_env.env(render_mode=render_mode),
                custom_tests={"ansi": lambda text: isinstance(text, str) and "hand" in text})
    api_test(parallel_to_aec(turn_based_aec_to_parallel(mj_env.env(rules="hebei"))), num_cycles=150,
             verbose_progress=False)
    parallel_api_test(turn_based_aec_to_parallel(mj_env.env(illegal_action="penalize", obs="v2")), num_cycles=150)
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(mj_env.env())   # turn-based: the README sends users to turn_based_aec_to_parallel


def test_pettingzoos_own_wrappers_around_the_raw_env():
    from pettingzoo.test import api_test
    from pettingzoo.utils import wrappers as pzw
    api_test(pzw.AssertOutOfBoundsWrapper(mj_env.raw_env()), num_cycles=100, verbose_progress=False)
    env = pzw.TerminateIllegalWrapper(mj_env.raw_env(), illegal_reward=-1)
    env.reset(seed=0)
    seat = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(seat)["action_mask"] == 0)[0]))   # PettingZoo prints its warning
    assert env.rewards[seat] == -1 and all(env.terminations.values())


# --- TorchRL ----------------------------------------------------------------------------------------------------

def test_torchrl_spec_checks_pass_on_every_documented_way_in():
    pytest.importorskip("torch")
    envs_lib = pytest.importorskip("torchrl.envs")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    envs_lib.check_env_specs(envs_lib.GymEnv("mj_env/Beijing-v0", categorical_action_encoding=True), seed=0)
    envs_lib.check_env_specs(envs_lib.GymWrapper(ResetByMask(gym.make_vec(
        "mj_env/Hebei-v0", num_envs=4, vectorization_mode="vector_entry_point", opponents="rule")),
        categorical_action_encoding=True), seed=0)
    envs_lib.check_env_specs(PettingZooWrapper(mj_env.env(), use_mask=True, seed=0))
    envs_lib.check_env_specs(PettingZooWrapper(mj_env.env(), use_mask=True, group_map={"player": AGENTS}, seed=0))


def test_torchrls_action_mask_transform_samples_only_legal_actions_from_the_int8_mask():
    torch = pytest.importorskip("torch")
    envs_lib = pytest.importorskip("torchrl.envs")
    for base in (envs_lib.GymEnv("mj_env/Beijing-v0", categorical_action_encoding=True, illegal_action="raise"),
                 envs_lib.GymWrapper(ResetByMask(gym.make_vec("mj_env/Beijing-v0", num_envs=3, illegal_action="raise",
                                                              vectorization_mode="vector_entry_point")),
                                     categorical_action_encoding=True)):
        env = envs_lib.TransformedEnv(base, envs_lib.ActionMask())
        env.set_seed(0)
        torch.manual_seed(0)
        td = env.rollout(80, break_when_any_done=False)   # random actions from the masked spec; raise would fail
        assert td["next", "done"].any()


# --- Tianshou ---------------------------------------------------------------------------------------------------

def test_tianshou_subproc_vector_env_collects_the_dummy_ones_hands():
    pytest.importorskip("torch")
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv, SubprocVectorEnv

    def make():
        return PettingZooEnv(NumericInfos(mj_env.env(rules="hebei")))

    stats = []
    for cls in (DummyVectorEnv, SubprocVectorEnv):
        env = make()
        algorithm = MultiAgentOffPolicyAlgorithm(
            algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents], env=env)
        venv = cls([make, make])
        try:
            venv.seed(7)
            np.random.seed(0)
            collector = Collector(algorithm, venv, VectorReplayBuffer(2000, 2))
            collector.reset()
            got = collector.collect(n_step=120)
            stats.append((got.n_collected_episodes, got.n_collected_steps, collector.buffer.rew.tolist()))
        finally:
            venv.close()
    assert stats[0] == stats[1]


def test_tianshou_shared_memory_vector_env_takes_the_single_agent_env():
    pytest.importorskip("tianshou")
    from tianshou.env import ShmemVectorEnv
    venv = ShmemVectorEnv([lambda: ObsAndMask(gym.make("mj_env/Beijing-v0", opponents="rule", illegal_action="raise"))
                           for _ in range(2)])
    try:
        venv.seed(3)
        obs, _ = venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(30):
            obs, _, term, trunc, _ = venv.step(_legal(np.stack([o["mask"] for o in obs]), rng))
            done = np.flatnonzero(term | trunc)
            if len(done):
                fresh, _ = venv.reset(done)
                obs[done] = fresh
    finally:
        venv.close()


# --- switching a setting of the one-table envs inside a vector env ----------------------------------------------

@pytest.mark.filterwarnings("ignore:.*ERROR")   # the async mode's report of the worker that raised
def test_gymnasiums_set_attr_reaches_the_one_table_envs_seat_and_illegal_action_settings():
    """``make_vec(id, vectorization_mode="sync" | "async")`` users switch settings between rollouts with
    ``set_attr`` (as the README shows for ``opponents``). ``set_attr("seat", "random")``, ``("illegal_action",
    "raise")`` and ``("illegal_penalty", 3.0)`` found no such attribute on the one-table env, so Gymnasium put them
    on its outermost wrapper and the game went on as before, without a word (a bad value was taken as quietly).
    They now reach the game, checked as the constructor checks them (SB3's batched adapter already did so)."""
    for mode in ("sync", "async"):
        envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode=mode, opponents="random")
        try:
            _, info = envs.reset(seed=0)
            assert info["seat"].tolist() == [0, 0]
            envs.set_attr("seat", 2)
            assert envs.get_attr("seat") == (2, 2) and envs.get_attr("seat_mode") == (2, 2)
            obs, info = envs.reset(seed=0)
            assert info["seat"].tolist() == [2, 2]
            envs.set_attr("illegal_penalty", 3.0)
            bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in obs["action_mask"]])
            _, rew, term, _, info = envs.step(bad)
            assert rew.tolist() == [-3.0, -3.0] and term.all() and info["illegal_action"].all()
            envs.reset(seed=0)
            envs.set_attr("illegal_action", "raise")
            with pytest.raises(mj_env.actions.ActionError, match="is illegal"):
                envs.step(bad)
        finally:
            envs.close()
    env = gym.make("mj_env/Beijing-v0")
    for name, value, match in [("seat", 4, "seat must be 0-3"), ("seat_mode", "left", "seat must be 0-3"),
                               ("illegal_action", "bogus", "illegal_action must be"),
                               ("illegal_penalty", float("nan"), "illegal_penalty must be")]:
        with pytest.raises(ValueError, match=match):
            env.set_wrapper_attr(name, value)
    assert (env.unwrapped.seat, env.unwrapped.illegal_action, env.unwrapped.illegal_penalty) == (0, "penalize", 10.0)
    env.unwrapped.seat = "rotate"    # plain assignment works too
    assert env.unwrapped.venv.seat_mode == "rotate"


def test_sb3s_vectors_of_one_table_envs_reach_the_seat_through_set_wrapper_attr():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env
    venv = make_vec_env("mj_env/Beijing-v0", n_envs=2, seed=0)     # DummyVecEnv of Monitor-wrapped envs
    venv.env_method("set_wrapper_attr", "seat", 3)
    venv.reset()
    assert venv.env_method("get_wrapper_attr", "seat_mode") == [3, 3]
    assert [int(env.unwrapped.venv.seats[0]) for env in venv.envs] == [3, 3]


def test_the_batched_forms_settings_are_checked_when_assigned():
    """On ``make_vec(..., "vector_entry_point")`` a user switches the seat between rollouts by assigning
    ``envs.unwrapped.seat_mode``: 9 was taken and every later reset failed with an IndexError; "bogus" for
    ``illegal_action`` quietly penalized. Now each is checked as the constructor checks it (SB3's adapter's
    ``set_attr`` already did), and nothing changes on a refusal."""
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    inner = envs.unwrapped
    for name, value, match in [("seat_mode", 9, "seat must be 0-3"), ("illegal_action", "bogus", "illegal_action must"),
                               ("illegal_penalty", -1.0, "illegal_penalty must")]:
        with pytest.raises(ValueError, match=match):
            setattr(inner, name, value)
    assert (inner.seat_mode, inner.illegal_action, inner.illegal_penalty) == (0, "penalize", 10.0)
    inner.seat_mode = np.int64(3)
    inner.illegal_penalty = 2
    assert type(inner.seat_mode) is int and type(inner.illegal_penalty) is float
    _, info = envs.reset(seed=0)
    assert info["seat"].tolist() == [3, 3]


@pytest.mark.parametrize("wrap", [lambda e: e, FlatObservations, NumericInfos], ids=["env", "FlatObservations",
                                                                                  "NumericInfos"])
def test_the_aec_envs_illegal_action_setting_is_checked_and_reaches_the_game_through_its_wrappers(wrap):
    """RLlib's pre-check needs ``illegal_action="penalize"`` (README); a user holding an env already made set
    ``env.illegal_action = "penalize"`` on what ``mj_env.env()`` returns: PettingZoo's wrapper kept the name itself,
    reading it back said "penalize", and the game still raised. On the raw env "bogus" was taken (and played as
    penalize). Now the setting reaches the game through mj_env's wrappers, checked as the constructor checks it."""
    env = wrap(mj_env.env())
    env.reset(seed=0)
    for name, value, match in [("illegal_action", "bogus", "illegal_action must"),
                               ("illegal_penalty", float("inf"), "illegal_penalty must")]:
        with pytest.raises(ValueError, match=match):
            setattr(env, name, value)
    assert (env.unwrapped.illegal_action, env.unwrapped.illegal_penalty) == ("raise", 10)
    env.illegal_action = "penalize"
    env.illegal_penalty = 4.0
    assert (env.unwrapped.illegal_action, env.unwrapped.illegal_penalty) == ("penalize", 4)  # 4.0 -> 4, as made
    seat = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(seat)["action_mask"] == 0)[0]))
    assert env.rewards[seat] == -4 and all(env.terminations.values())
