"""agents.rewards.RewardOption and RewardOptionVector: train.py's reward options for other trainers, checked
against the step formula (one-table env) and the episode identity of potential-based shaping (vector env)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import mj_env  # noqa: F401 (registers the ids)
from agents.rewards import RewardOption, RewardOptionVector, RewardTransform
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv


def _phi(transform, planes) -> float:
    return float(transform.potential(np.asarray(planes)[None])[0])


@pytest.mark.parametrize("kind, env_id, obs, gamma", [
    ("points", "mj_env/Beijing-v0", "v1", 0.9), ("scaled", "mj_env/Beijing-v0", "v1", 0.9),
    ("sign", "mj_env/Beijing-v0", "v1", 0.9), ("shaped", "mj_env/Beijing-v0", "v1", 0.9),
    ("shaped", "mj_env/Quemen-v0", "v2", 0.9), ("shaped", "mj_env/Hebei-v0", "v1", 0.9),
    ("shaped", "mj_env/Hebei-v0", "v1", 0),  # train.py's --gamma takes 0 too: the term is then -Phi(s)
])
def test_each_step_pays_the_transformed_points_plus_the_shaping_term(kind, env_id, obs, gamma):
    # a twin env on the same seed and actions gives the points and observations the formula reads; beijing's
    # episodes are cut at 9 steps (Gymnasium's TimeLimit): a truncation keeps Phi(s')
    scale, coef = 2.5, 0.4
    kw = {"obs": obs, "hands_per_episode": 2, "opponents": "rule",
          "max_episode_steps": 9 if env_id == "mj_env/Beijing-v0" else None}
    env = RewardOption(gym.make(env_id, **kw), kind, scale=scale, shaping_coef=coef, gamma=gamma)
    twin = gym.make(env_id, **kw)
    ref = RewardTransform(kind, twin.unwrapped.rules, scale=scale, shaping_coef=coef)
    rng = np.random.default_rng(0)
    o, _ = env.reset(seed=3)
    t, _ = twin.reset(seed=3)
    shaped_steps = paid = truncations = 0
    for _ in range(150):
        a = int(uniform_legal(o["action_mask"][None], rng)[0])
        o, r, term, trunc, info = env.step(a)
        t_next, points, *_ = twin.step(a)
        expected = float(ref.hand_end(points))
        if kind == "shaped":
            expected += gamma * (0.0 if term else _phi(ref, t_next["observation"])) - _phi(ref, t["observation"])
            shaped_steps += expected != float(ref.hand_end(points))
        assert r == pytest.approx(expected, abs=1e-6) and info["points"] == points
        paid += points != 0
        t = t_next
        truncations += trunc and not term
        if term or trunc:
            o, _ = env.reset()
            t, _ = twin.reset()
    assert kind != "shaped" or shaped_steps > 50
    assert paid >= 3  # hands settled with points, so the transform was tested
    assert truncations >= 5 if env_id == "mj_env/Beijing-v0" else truncations == 0


def test_telescoping_over_a_one_table_episode_at_gamma_one():
    # with gamma 1 the shaping terms of a terminated episode sum to -Phi(first decision)
    env = RewardOption(gym.make("mj_env/Beijing-v0", opponents="random"), "shaped", gamma=1.0)
    rng = np.random.default_rng(1)
    for episode in range(6):
        o, _ = env.reset(seed=episode)
        first = _phi(env.transform, o["observation"])
        total = points = 0.0
        done = False
        while not done:
            o, r, term, trunc, info = env.step(int(uniform_legal(o["action_mask"][None], rng)[0]))
            total, points, done = total + r, points + info["points"], term or trunc
        assert first < 0 and total == pytest.approx(points / 4.0 - first, abs=1e-5)


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_vector_episodes_telescope_in_both_autoreset_modes_with_truncation(mode, rules):
    # per table and episode of T steps, the shaping terms F_t = r_t - points_t / scale, discounted, sum to
    # gamma^T Phi(last) - Phi(first), Phi(last) = 0 at a termination and the final observation's at a
    # truncation (its value is bootstrapped); NEXT_STEP's reset step pays points alone; partial resets
    # (reset_mask, leaving out tables that just ended) start the tables they name afresh
    n, gamma = 6, 0.9
    env = RewardOptionVector(MahjongSingleAgentVectorEnv(n, rules=rules, seed=5, autoreset_mode=mode,
                                                         max_episode_steps=7, opponents="rule"), "shaped",
                             gamma=gamma)
    tr = env.transform
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(2)
    first = tr.potential(obs["observation"]).astype(np.float64)
    shaping, disc = np.zeros(n), np.ones(n)
    starting = np.zeros(n, dtype=bool)
    checked = {"terminated": 0, "truncated": 0, "partial": 0}
    for step in range(150):
        if step % 5 == 4:                         # a partial reset of the tables that did not just end
            mask = ~starting & (rng.random(n) < 0.5)
            obs, _ = env.reset(options={"reset_mask": mask})
            first[mask] = tr.potential(obs["observation"][mask])
            shaping[mask], disc[mask] = 0.0, 1.0
            checked["partial"] += int(mask.sum())
        obs, r, term, trunc, infos = env.step(uniform_legal(obs["action_mask"], rng, empty_ok=True))
        term_f = r - infos["points"] / 4.0
        if mode == AutoresetMode.NEXT_STEP:        # the step that deals a table's new episode: points alone
            assert np.allclose(term_f[starting], 0.0)
            first[starting] = tr.potential(obs["observation"][starting])
            shaping[starting], disc[starting] = 0.0, 1.0
        live = ~starting
        shaping[live] += disc[live] * term_f[live]
        disc[live] *= gamma
        for b in np.flatnonzero(term | trunc):
            last = 0.0
            if trunc[b]:
                final = infos["final_obs"][b]["observation"] if mode == AutoresetMode.SAME_STEP \
                    else obs["observation"][b]
                last = _phi(tr, final)
            assert shaping[b] == pytest.approx(disc[b] * last - first[b], abs=1e-4)
            checked["truncated" if trunc[b] else "terminated"] += 1
            if mode == AutoresetMode.SAME_STEP:    # obs at an ended table is its new episode's first
                first[b], shaping[b], disc[b] = _phi(tr, obs["observation"][b]), 0.0, 1.0
        starting = (term | trunc) if mode == AutoresetMode.NEXT_STEP else starting
    assert checked["terminated"] >= 5 and checked["truncated"] >= 20 and checked["partial"] >= 5


@pytest.mark.parametrize("full", [True, False])
def test_next_step_a_table_reset_after_its_episode_ended_is_shaped_from_its_first_step(full):
    """NEXT_STEP: a table whose episode just ended and that the caller resets (reset(), or a reset_mask naming it)
    starts its new episode there, so its next step is an ordinary shaped step, not the unshaped step that deals
    a new episode (an outside mutation test: a reset that left the table marked as starting went unnoticed; the
    vector test above never resets a table that just ended)."""
    n, gamma = 4, 0.9
    env = RewardOptionVector(MahjongSingleAgentVectorEnv(n, seed=1, autoreset_mode=AutoresetMode.NEXT_STEP,
                                                         max_episode_steps=3, opponents="rule"), "shaped", gamma=gamma)
    tr, rng = env.transform, np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    ended = np.zeros(n, dtype=bool)
    while not ended.any():
        obs, _, term, trunc, _ = env.step(uniform_legal(obs["action_mask"], rng, empty_ok=True))
        ended = term | trunc
    obs, _ = env.reset() if full else env.reset(options={"reset_mask": ended})
    before = tr.potential(obs["observation"]).astype(np.float64)
    obs, r, term, trunc, infos = env.step(uniform_legal(obs["action_mask"], rng, empty_ok=True))
    after = np.where(term, 0.0, tr.potential(obs["observation"]))
    b = np.flatnonzero(ended)
    assert np.allclose(r[b], infos["points"][b] / 4.0 + gamma * after[b] - before[b], atol=1e-5)
    assert not np.allclose(r[b], infos["points"][b] / 4.0)  # the shaping term is there to see


def test_points_kind_leaves_the_vector_rewards_as_they_are():
    env = RewardOptionVector(gym.make_vec("mj_env/Hebei-v0", num_envs=4, vectorization_mode="vector_entry_point"),
                             "points")
    twin = gym.make_vec("mj_env/Hebei-v0", num_envs=4, vectorization_mode="vector_entry_point")
    obs, _ = env.reset(seed=0)
    twin.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        a = uniform_legal(obs["action_mask"], rng, empty_ok=True)
        obs, r, *_ = env.step(a)
        assert np.array_equal(r, twin.step(a)[1])


def test_bad_arguments_and_other_observations_are_refused():
    with pytest.raises(ValueError, match="unknown reward 'bogus'"):
        RewardOption(gym.make("mj_env/Beijing-v0"), "bogus")
    for gamma in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="gamma must be a finite number in \\[0, 1\\]"):
            RewardOption(gym.make("mj_env/Beijing-v0"), gamma=gamma)
    with pytest.raises(TypeError, match="gamma must be"):
        RewardOption(gym.make("mj_env/Beijing-v0"), gamma="0.9")
    flat = gym.wrappers.FlattenObservation(gym.make("mj_env/Beijing-v0"))
    with pytest.raises(ValueError, match="RewardOption needs the Dict observation .* before any observation wrapper"):
        RewardOption(flat)
    with pytest.raises(ValueError, match="RewardOptionVector needs the Dict observation"):
        RewardOptionVector(gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"))
    with pytest.raises(ValueError, match="not SyncVectorEnv; for a sync or async vector env give each env RewardOption"):
        RewardOptionVector(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync"))
    # the one-table and the batched env swapped: a TypeError naming the other wrapper (it was an AttributeError,
    # "'OrderEnforcing' object has no attribute 'single_observation_space'", and Gymnasium's bare assertion)
    with pytest.raises(TypeError, match="RewardOptionVector wraps a vector env .* not OrderEnforcing: use RewardOption"):
        RewardOptionVector(gym.make("mj_env/Beijing-v0"))
    with pytest.raises(TypeError, match="RewardOption wraps a one-table env .* use RewardOptionVector"):
        RewardOption(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point"))
    # the self-play vector env (rewards (N, 4)) passed the checks and failed at the first step with numpy's
    # "operands could not be broadcast together"
    with pytest.raises(TypeError, match="not the self-play MahjongVectorEnv, whose rewards are \\(N, 4\\)"):
        RewardOptionVector(MahjongVectorEnv(num_envs=2), "shaped", gamma=0.9)


class _PlanesEnv(gym.Env):
    """A Dict-observation env with planes of another shape (and rules, so that only the space is wrong)."""

    def __init__(self, shape):
        self.observation_space = gym.spaces.Dict({"observation": gym.spaces.Box(0, 4, shape, np.uint8)})
        self.action_space = gym.spaces.Discrete(2)
        self.rules = "beijing"


@pytest.mark.parametrize("shape", [(14, 33), (14, 35), (13, 34), (34,)])
def test_planes_that_are_not_14_or_18_by_34_are_refused(shape):
    """The potential reads (14 or 18, 34) planes: any other shape is refused when the wrapper is made (with
    34 columns unchecked, (14, 33) planes passed and failed at the first step)."""
    with pytest.raises(ValueError, match="RewardOption needs the Dict observation of mj_env's single-agent env"):
        RewardOption(_PlanesEnv(shape))


def test_vector_infos_mark_every_table_as_having_points():
    """infos["points"] comes with Gymnasium's vector-info mask "_points" (every table: each step pays each)."""
    env = RewardOptionVector(gym.make_vec("mj_env/Hebei-v0", num_envs=3, vectorization_mode="vector_entry_point"),
                             "scaled", scale=2.0, gamma=0.5)
    obs, _ = env.reset(seed=0)
    _, r, _, _, infos = env.step(uniform_legal(obs["action_mask"], np.random.default_rng(0), empty_ok=True))
    assert infos["_points"].dtype == bool and infos["_points"].tolist() == [True] * 3
    assert r.dtype == infos["points"].dtype and np.array_equal(r, infos["points"] / 2.0)
    assert env._saved_kwargs == {"kind": "scaled", "scale": 2.0, "shaping_coef": 0.25, "gamma": 0.5}


def test_a_sync_vector_env_takes_the_one_table_wrapper():
    venv = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync",
                        wrappers=[lambda e: RewardOption(e, "scaled", scale=2.0)])
    twin = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync")
    obs, _ = venv.reset(seed=4)
    twin.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        a = uniform_legal(obs["action_mask"], rng)
        obs, r, *_ = venv.step(a)
        assert np.allclose(r, twin.step(a)[1] / 2.0)


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_the_wrapped_env_passes_gymnasiums_checker():
    from gymnasium.utils.env_checker import check_env

    env = RewardOption(gym.make("mj_env/Quemen-v0", obs="v2", opponents="random"), "shaped")
    check_env(env, skip_render_check=True)
    assert env.spec.additional_wrappers[-1].kwargs == {"kind": "shaped", "scale": 4.0, "shaping_coef": 0.25,
                                                        "gamma": 0.99}


def test_maskable_ppo_trains_on_the_wrapped_env():
    # SB3 finds the env's action_masks() through the wrapper (get_wrapper_attr)
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(lambda: RewardOption(gym.make("mj_env/Beijing-v0", opponents="random"), "shaped"), n_envs=2)
    MaskablePPO("MultiInputPolicy", venv, n_steps=32, batch_size=64, seed=0).learn(64)
