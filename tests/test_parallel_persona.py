"""An RL engineer moving from one process to many (sub-process workers, seeds per worker), from the README alone:
what the README's paragraph on copies and workers (after the Ray cluster section) says holds. Every env, wrapper and
agent pickles (pickle and cloudpickle, as Gymnasium's and SB3's sub-process workers send them) and plays on as the
original would; copies of one env deal the same walls until each gets a seed of its own; the vector envs seed their
envs or tables apart; an async worker's refused action reaches the parent, and the vector env is then of no further
use. Each test runs for seconds."""
from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from test_trainer_setups import ENVS

from agents.rewards import RewardOption, RewardOptionVector
from mj_env.actions import ActionError
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv

cloudpickle = pytest.importorskip("cloudpickle")  # Gymnasium's and SB3's sub-process workers send env makers with it


def pairs(planes):
    """A potential of the planes (agents/rewards.py's example): 0.1 per pair held."""
    return 0.1 * (planes[:, 0] >= 2).sum(axis=1)


def _replays(env, play, dumps):
    """``play`` 40 steps on ``env`` and on its copy through ``dumps`` made after 7: the same transcript?"""
    rng = np.random.default_rng(1)
    play(env, rng, 7)
    twin = pickle.loads(dumps(env))
    state = rng.bit_generator.state
    first = play(env, rng, 40)
    rng.bit_generator.state = state
    return play(twin, rng, 40) == first


@pytest.mark.parametrize("name", list(ENVS))
def test_every_env_and_wrapper_round_trips_through_cloudpickle_mid_hand(name):
    make, play = ENVS[name]  # the envs and wrappers tests/test_trainer_setups.py copies with pickle and deepcopy
    assert _replays(make(), play, cloudpickle.dumps)


def _play_rewards(env, rng, steps):
    out = []
    for _ in range(steps):
        vector = isinstance(env, RewardOptionVector)
        actions = uniform_legal(np.atleast_2d(env.unwrapped.action_masks()), rng)
        obs, rew, term, trunc, info = env.step(actions if vector else int(actions[0]))
        out.append((obs["observation"].tobytes(), np.asarray(rew).tobytes(), np.asarray(term).tobytes(),
                    np.asarray(info["points"]).tobytes()))
        if not vector and (term or trunc):
            env.reset()
    return out


def _one_table_rewards(kind, potential=None):
    env = RewardOption(gym.make("mj_env/Hebei-v0", opponents="rule", seat="random"), kind, potential=potential)
    env.reset(seed=3)
    return env


def _vector_rewards(mode):
    env = RewardOptionVector(gym.make_vec("mj_env/Quemen-v0", num_envs=3, vectorization_mode="vector_entry_point",
                                          opponents="efficient", autoreset_mode=mode, max_episode_steps=9), "shaped")
    env.reset(seed=3)
    return env


@pytest.mark.parametrize("make", [
    lambda: _one_table_rewards("shaped", pairs), lambda: _one_table_rewards("sign"),
    lambda: _vector_rewards("SAME_STEP"), lambda: _vector_rewards("NEXT_STEP")],
    ids=["RewardOption shaped", "RewardOption sign", "RewardOptionVector SAME_STEP", "RewardOptionVector NEXT_STEP"])
@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_the_reward_option_wrappers_round_trip_mid_episode(make, dumps):
    """agents.rewards' wrappers keep Phi and the autoreset flags of the hand under way in their copies."""
    assert _replays(make(), _play_rewards, dumps)


def test_a_lambda_potential_needs_cloudpickle_as_the_readme_says():
    env = _one_table_rewards("shaped", lambda planes: 0.1 * (planes[:, 0] >= 2).sum(axis=1))
    with pytest.raises((pickle.PicklingError, AttributeError), match="lambda"):
        pickle.dumps(env)
    assert _replays(env, _play_rewards, cloudpickle.dumps)


@pytest.mark.parametrize("spec", ["random", "rule", "efficient", "pretrained", "pretrained:sample"])
@pytest.mark.parametrize("how", ["pickle", "cloudpickle", "deepcopy"])
def test_every_agent_copy_picks_the_originals_actions(spec, how):
    if spec.startswith("pretrained"):
        pytest.importorskip("torch")
    import agents
    agent = agents.make_agent(spec)
    twin = copy.deepcopy(agent) if how == "deepcopy" else pickle.loads(
        (pickle.dumps if how == "pickle" else cloudpickle.dumps)(agent))
    env = MahjongVectorEnv(16)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(9):
        obs, *_ = env.step(uniform_legal(obs["action_mask"], rng, empty_ok=True))
    rows = obs["action_mask"].any(axis=1)
    part = {k: v[rows] for k, v in obs.items()}
    assert np.array_equal(agent.act(part, np.random.default_rng(5)), twin.act(part, np.random.default_rng(5)))



@pytest.mark.parametrize("how", ["pickle", "cloudpickle"])
def test_the_search_agents_copy_searches_as_the_original(how):
    from agents.search import RolloutSearchAgent
    from mj_env.engine import Engine
    agent = RolloutSearchAgent(worlds=4, z=0.0)
    twin = pickle.loads((pickle.dumps if how == "pickle" else cloudpickle.dumps)(agent))
    engine = Engine("beijing", num_tables=4, seed=0)
    engine.reset()
    tables = np.flatnonzero(engine.legal_mask().any(axis=1))
    assert np.array_equal(agent.act_tables(engine, tables, np.random.default_rng(5)),
                          twin.act_tables(engine, tables, np.random.default_rng(5)))

# --- seeds across workers ---------------------------------------------------------------------------------------

def _first_hands(obs) -> list[bytes]:
    return [planes.tobytes() for planes in np.asarray(obs["observation"])[:, 0]]


def test_make_vec_seeds_env_i_with_seed_plus_i_as_gymnasium_does_and_repeats():
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=6, vectorization_mode="sync", opponents="random")
    hands = _first_hands(envs.reset(seed=7)[0])
    assert len(set(hands)) == 6 and _first_hands(envs.reset(seed=7)[0]) == hands
    for i in range(6):
        alone = gym.make("mj_env/Beijing-v0", opponents="random").reset(seed=7 + i)[0]
        assert alone["observation"][0].tobytes() == hands[i]
    assert _first_hands(envs.reset()[0]) != _first_hands(envs.reset()[0])  # no seed: walls of their own streams


@pytest.mark.filterwarnings("ignore:.*render_mode")   # SB3 asks every env for "rgb_array" (README)
def test_sb3s_make_vec_env_seeds_env_i_with_seed_plus_i():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env
    hands = _first_hands(make_vec_env("mj_env/Hebei-v0", n_envs=3, seed=11).reset())
    assert hands == [gym.make("mj_env/Hebei-v0").reset(seed=11 + i)[0]["observation"][0].tobytes() for i in range(3)]


def test_tianshous_reset_seed_gives_every_env_the_same_walls_and_its_seed_does_not():
    """The README's warning: Tianshou's ``reset(seed=s)`` passes s to every env; its ``seed(s)`` gives s + i."""
    pytest.importorskip("tianshou")
    from tianshou.env import DummyVectorEnv

    from mj_env.wrappers import ObsAndMask
    envs = DummyVectorEnv([lambda: ObsAndMask(gym.make("mj_env/Beijing-v0"))] * 3)
    assert len({np.asarray(o["obs"])[0].tobytes() for o in envs.reset(seed=3)[0]}) == 1
    envs.seed(3)
    assert len({np.asarray(o["obs"])[0].tobytes() for o in envs.reset()[0]}) == 3


@pytest.mark.parametrize("cls", [MahjongVectorEnv, MahjongSingleAgentVectorEnv])
def test_batched_envs_of_neighbouring_seeds_share_no_walls(cls):
    """RLlib's env runners get seed + worker index: tables of seeds s and s + 1 must not deal the same walls (as
    Gymnasium's seed + i would, had each table been seeded with seed + table)."""
    hands = []
    for seed in (0, 1):
        hands += _first_hands(cls(200).reset(seed=seed)[0])
    assert len(set(hands)) == 400
    assert _first_hands(cls(50).reset()[0]) != _first_hands(cls(50).reset()[0])


def test_copies_of_one_env_deal_the_same_walls_until_each_gets_its_own_seed():
    """As the README warns: a copy is exact, its generators included, even of an env made without a seed."""
    env = MahjongSingleAgentVectorEnv(4, opponents="random")
    copies = [pickle.loads(pickle.dumps(env)) for _ in range(2)]
    assert _first_hands(copies[0].reset()[0]) == _first_hands(copies[1].reset()[0])
    assert set(_first_hands(copies[0].reset(seed=0)[0])).isdisjoint(_first_hands(copies[1].reset(seed=1)[0]))


@pytest.mark.filterwarnings("ignore:.*ERROR")   # Gymnasium's report of the worker that raised
def test_an_async_workers_refused_action_reaches_the_parent_and_leaves_the_vector_env_unusable():
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="async", illegal_action="raise")
    try:
        obs, _ = envs.reset(seed=1)
        illegal = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
        with pytest.raises(ActionError, match="is illegal for seat"):
            envs.step(np.array([int(np.flatnonzero(obs["action_mask"][0])[0]), illegal]))
        with pytest.raises(AttributeError):  # Gymnasium closed the failed worker: make a new vector env
            envs.reset(seed=1)
    finally:
        envs.close()
