"""agents.rewards: a researcher's own shaping potential (``potential=``) in RewardTransform, RewardOption and
RewardOptionVector, checked against the built-in potential, the shaping formula and the telescoping identity,
and refused with a clear error where it is not a function of the planes returning n finite numbers."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import mj_env  # noqa: F401 (registers the ids)
from agents.rewards import RewardOption, RewardOptionVector, RewardTransform
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.tiles import CODES, parse_hand


def observation_planes(concealed: str, melds: str = "", hui: str | None = None) -> np.ndarray:
    """One observation's planes: plane 0 the concealed tiles, plane 1 the declared melds' tiles, plane 10 the 惠牌
    (one-hot) where one is given."""
    p = np.zeros((14, 34), np.uint8)
    p[0] = parse_hand(concealed)
    if melds:
        p[1] = parse_hand(melds)
    if hui is not None:
        p[10, CODES.index(hui)] = 1
    return p


def pairs(planes):
    """The module docstring's example: 0.1 per pair held (plane 0: the seat's own tile counts)."""
    return 0.1 * (planes[:, 0] >= 2).sum(axis=1)


def _play(env, steps: int, seed: int):
    """(rewards, infos, terminated) of ``steps`` uniformly random legal steps, resetting at an episode's end."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        a = int(uniform_legal(obs["action_mask"][None], rng)[0])
        obs, r, term, trunc, info = env.step(a)
        out.append((r, info, term, trunc))
        if term or trunc:
            obs, _ = env.reset()
    return out


@pytest.mark.parametrize("env_id", ["mj_env/Beijing-v0", "mj_env/Hebei-v0", "mj_env/Quemen-v0"])
def test_the_built_in_potential_given_as_a_function_pays_the_same_rewards(env_id):
    # the same Phi passed as potential= must give the built-in option's rewards step for step
    builtin = RewardTransform("shaped", gym.make(env_id).unwrapped.rules, shaping_coef=0.3)
    mine = RewardOption(gym.make(env_id, opponents="rule"), "shaped", gamma=0.9, potential=builtin.potential)
    ref = RewardOption(gym.make(env_id, opponents="rule"), "shaped", gamma=0.9, shaping_coef=0.3)
    a, b = _play(mine, 120, 4), _play(ref, 120, 4)
    assert [x[0] for x in a] == [x[0] for x in b]
    assert sum(x[0] != x[1]["points"] / 4.0 for x in a) > 40  # the shaping term was paid, not only the points


def test_each_step_adds_gamma_phi_next_minus_phi_of_the_own_function():
    gamma = 0.8
    env = RewardOption(gym.make("mj_env/Beijing-v0", opponents="rule"), "shaped", gamma=gamma, potential=pairs)
    twin = gym.make("mj_env/Beijing-v0", opponents="rule")
    rng = np.random.default_rng(1)
    o, _ = env.reset(seed=7)
    t, _ = twin.reset(seed=7)
    nonzero = 0
    for _ in range(200):
        act = int(uniform_legal(o["action_mask"][None], rng)[0])
        o, r, term, trunc, info = env.step(act)
        t_next, points, *_ = twin.step(act)
        phi_next = 0.0 if term else float(pairs(t_next["observation"][None])[0])
        shaping = gamma * phi_next - float(pairs(t["observation"][None])[0])
        assert r == pytest.approx(points / 4.0 + shaping, abs=1e-6) and info["points"] == points
        nonzero += abs(shaping) > 1e-9
        t = t_next
        if term or trunc:
            o, _ = env.reset()
            t, _ = twin.reset()
    assert nonzero > 30


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_a_constant_potential_telescopes_to_minus_itself_over_each_vector_episode(mode):
    # gamma = 1, Phi = c at every decision and 0 at the end: each terminated episode's shaping sums to -c
    c, n = 0.37, 8
    venv = RewardOptionVector(MahjongSingleAgentVectorEnv(num_envs=n, opponents="rule", autoreset_mode=mode),
                              "shaped", gamma=1.0, potential=lambda planes: np.full(len(planes), c))
    obs, _ = venv.reset(seed=2)
    rng = np.random.default_rng(2)
    shaping_sum, ended_sums, starting = np.zeros(n), [], np.zeros(n, dtype=bool)
    # 100 steps end 69 (SAME_STEP) and 65 (NEXT_STEP) episodes with points of both kinds the 400 steps this
    # took before ended (nil and negative: the uniform learner never wins); each episode's sum is checked alone
    for _ in range(100):
        acts = uniform_legal(obs["action_mask"], rng)
        obs, r, term, trunc, infos = venv.step(acts)
        assert not trunc.any()
        term_shaping = np.where(starting, 0.0, r - np.asarray(infos["points"]) / 4.0)
        shaping_sum += term_shaping
        for b in np.flatnonzero(term):
            ended_sums.append(shaping_sum[b])
            shaping_sum[b] = 0.0
        if mode == AutoresetMode.NEXT_STEP:
            starting = term.copy()
    assert len(ended_sums) >= 8
    np.testing.assert_allclose(ended_sums, -c, atol=1e-5)


def test_the_function_gets_read_only_planes_and_cannot_change_the_observation():
    seen = []

    def scribbler(planes):
        seen.append(planes.flags.writeable)
        planes[:, 0] = 0  # a user's mistake: numpy refuses it on the read-only view
        return np.zeros(len(planes))

    env = RewardOption(gym.make("mj_env/Beijing-v0"), "shaped", potential=scribbler)
    with pytest.raises(ValueError, match="read-only"):
        env.reset(seed=0)
    assert seen == [False]


@pytest.mark.parametrize("returned, error, match", [
    (lambda n: np.zeros(n + 1), ValueError, r"one number per observation, shape \(1,\), got shape \(2,\)"),
    (lambda n: 0.5, ValueError, r"shape \(1,\), got shape \(\)"),
    (lambda n: np.full(n, np.nan), ValueError, "finite numbers .* got nan for observation 0"),
    (lambda n: np.full(n, 1e7), ValueError, "finite numbers from -1e\\+06 to 1e\\+06"),
    (lambda n: ["a"] * n, TypeError, "must return 1 real numbers"),
    (lambda n: None, TypeError, "must return 1 real numbers"),
    (lambda n: [[1.0], [1.0, 2.0]], TypeError, "must return 1 real numbers"),  # ragged
])
def test_a_function_returning_other_than_n_finite_numbers_is_refused_by_name(returned, error, match):
    env = RewardOption(gym.make("mj_env/Beijing-v0"), "shaped", potential=lambda planes: returned(len(planes)))
    with pytest.raises(error, match=match):
        env.reset(seed=0)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"kind": "shaped", "potential": 3.0}, TypeError, "potential must be a function of the observation planes"),
    ({"kind": "shaped", "potential": "pairs"}, TypeError, "potential must be a function"),
    ({"kind": "points", "potential": pairs}, ValueError, "Phi of the 'shaped' reward; with kind 'points'"),
    ({"kind": "sign", "potential": pairs}, ValueError, "with kind 'sign' nothing would read it"),
])
def test_a_potential_that_is_not_a_function_or_for_another_kind_is_refused_at_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        RewardTransform(rules="beijing", **kwargs)
    with pytest.raises(error, match=match):
        RewardOption(gym.make("mj_env/Beijing-v0"), **kwargs)
    with pytest.raises(error, match=match):
        RewardOptionVector(MahjongSingleAgentVectorEnv(num_envs=2), **kwargs)


def test_an_eighteen_plane_observation_reaches_the_function_whole():
    shapes = []

    def record(planes):
        shapes.append(planes.shape)
        return np.zeros(len(planes))

    venv = RewardOptionVector(MahjongSingleAgentVectorEnv(num_envs=3, obs="v2"), "shaped", potential=record)
    venv.reset(seed=0)
    assert shapes == [(3, 18, 34)]


def test_the_potential_is_recorded_among_the_constructor_arguments():
    env = RewardOption(gym.make("mj_env/Beijing-v0"), "shaped", potential=pairs)
    assert env._saved_kwargs["potential"] is pairs


def test_without_a_potential_the_recorded_arguments_and_the_spec_json_are_as_before():
    env = RewardOption(gym.make("mj_env/Beijing-v0"), "shaped")
    assert "potential" not in env._saved_kwargs
    assert "potential" not in env.spec.to_json()
