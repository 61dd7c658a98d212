"""Outside audit of the reward options (agents/rewards.py): uses a researcher may try that the other reward
tests leave out (an observation wrapper put first, a single observation given to the potential, large
settled points)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mj_env
from agents.rewards import RewardOption, RewardOptionVector, RewardTransform


def test_stacked_planes_are_refused_when_the_wrapper_is_made():
    """An observation wrapper put before RewardOption is refused by name (the module's advice: wrap the env
    before any observation wrapper). Gymnasium's FrameStackObservation keeps the Dict and its key but stacks the
    planes to (4, 14, 34): that passed the check (only the last two sizes were read) and the first reset failed
    with numpy's "index 10 is out of bounds for axis 1 with size 4"."""
    stacked = gym.wrappers.FrameStackObservation(gym.make("mj_env/Beijing-v0"), 4)
    with pytest.raises(ValueError, match="RewardOption needs the Dict observation .* before any observation wrapper"):
        RewardOption(stacked, "shaped")
    venv = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    venv.single_observation_space = gym.spaces.Dict({
        "observation": gym.spaces.Box(0, 255, (4, 14, 34), np.uint8),
        "action_mask": gym.spaces.Box(0, 1, (4, 127), np.int8)})
    with pytest.raises(ValueError, match="RewardOptionVector needs the Dict observation"):
        RewardOptionVector(venv, "shaped")


@pytest.mark.parametrize("kind", ["shaped", "points"])
@pytest.mark.parametrize("shape", [(14, 34), (2, 14, 33), (2, 5, 34), (1, 4, 14, 34)])
def test_potential_names_the_planes_it_takes(kind, shape):
    """RewardTransform.potential takes (n, 14 or 18, 34) planes (its docstring). One observation's (14, 34) planes
    failed with numpy's "axis 1 is out of bounds for array of dimension 1" (shaped), or gave 14 potentials for
    one observation (the other kinds); other shapes with a reshape or index error."""
    with pytest.raises(ValueError, match=r"potential takes observation planes \(n, 14 or 18, 34\), got shape"):
        RewardTransform(kind).potential(np.zeros(shape, np.uint8))
    assert RewardTransform(kind).potential(np.zeros((0, 18, 34), np.uint8)).shape == (0,)


def test_points_and_scaled_keep_large_settled_points_exact():
    """'points' is "the settled points of the hand" and 'scaled' "points / scale"; the env pays them exactly
    (float64, mj_env.single_agent). Worked out in float32, a hand of 37,999,962 points under hebei with base
    999,999 (a rule override, up to 10^6: mj_env.rules.MAX_BASE) was paid 37,999,960 by RewardOption."""
    from agents.rule_based import RuleBasedAgent

    pts = np.array([[37_999_962.0, -12_666_654.0, -12_666_654.0, -12_666_654.0]])
    assert np.array_equal(RewardTransform("points").hand_end(pts), pts)
    assert np.array_equal(RewardTransform("scaled", scale=4.0).hand_end(pts), pts / 4.0)
    env = RewardOption(gym.make("mj_env/Hebei-v0", base=999_999, opponents="random"), "points")
    agent, rng = RuleBasedAgent("hebei"), np.random.default_rng(4)
    o, _ = env.reset(seed=4)
    done = False
    while not done:  # the rule agent's seat wins a large hand on this wall
        batch = {"observation": o["observation"][None], "action_mask": o["action_mask"][None],
                 "seat": np.zeros(1, np.int64)}
        o, r, term, trunc, info = env.step(int(agent.act(batch, rng)[0]))
        done = term or trunc
    assert info["points"] == 37_999_962.0 and r == info["points"]


@pytest.mark.filterwarnings("ignore")
def test_one_table_under_gymnasiums_autoreset_pays_the_reset_step_unshaped():
    """Gymnasium's Autoreset under RewardOption (NEXT_STEP: the step after an episode ended deals the next and
    returns its first observation, reward 0). As RewardOptionVector does under NEXT_STEP, that step pays its
    points alone and only sets Phi; it paid gamma * Phi(the next episode's first observation), which no decision
    earned (the rewards between two episode ends, that step included, no longer summed to points - Phi(first))."""
    from mj_env.baselines import uniform_legal

    env = RewardOption(gym.wrappers.Autoreset(gym.make("mj_env/Beijing-v0", opponents="random")), "shaped",
                       gamma=1.0)
    rng = np.random.default_rng(0)

    def play_episode(o):
        total = points = 0.0
        while True:
            o, r, term, trunc, info = env.step(int(uniform_legal(o["action_mask"][None], rng)[0]))
            total, points = total + r, points + info["points"]
            if term or trunc:
                return total, points

    o, _ = env.reset(seed=0)
    play_episode(o)
    for _episode in range(3):
        o, r, term, trunc, info = env.step(0)  # the autoreset step: no decision, a new episode's first observation
        assert r == info["points"] / 4.0 and not (term or trunc)
        first = float(env.transform.potential(o["observation"][None])[0])
        total, points = play_episode(o)
        assert first < 0 and total == pytest.approx(points / 4.0 - first, abs=1e-6)


@pytest.mark.filterwarnings("ignore")
def test_what_is_not_a_gymnasium_env_is_refused_by_name():
    """The PettingZoo env (mj_env.env()), an id string or None given for the env: a TypeError that says what the
    wrapper takes. The AEC env was told it needed "the Dict observation ... got <bound method ...>: wrap the env
    before any observation wrapper", and RewardOptionVector sent it to RewardOption, which refused it; an id
    string or None failed with "'str' object has no attribute 'observation_space'"."""
    for env in (mj_env.env(), "mj_env/Beijing-v0", None):
        with pytest.raises(TypeError, match=r"RewardOption wraps a one-table Gymnasium env .*, not "):
            RewardOption(env)
        with pytest.raises(TypeError, match=r"RewardOptionVector wraps a vector env") as err:
            RewardOptionVector(env)
        assert "use RewardOption" not in str(err.value)
    with pytest.raises(TypeError, match="use RewardOption for a one-table env"):  # a one-table Gymnasium env
        RewardOptionVector(gym.make("mj_env/Beijing-v0"))


def test_dict_info_to_list_inside_the_vector_option_is_refused_when_the_wrapper_is_made():
    """Gymnasium's DictInfoToList turns the infos into a list, which the option's first step failed on
    ("'list' object is not a mapping"); outside it, it works."""
    from gymnasium.wrappers.vector import DictInfoToList

    env = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(TypeError, match=r"put DictInfoToList outside it"):
        RewardOptionVector(DictInfoToList(env))
    # (a fresh env: Gymnasium closes the first when the refused DictInfoToList around it is collected)
    env = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    outside = DictInfoToList(RewardOptionVector(env))
    obs, infos = outside.reset(seed=0)
    first = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    _, rewards, *_, infos = outside.step(first)
    assert isinstance(infos, list) and rewards.shape == (2,)
    outside.close()
