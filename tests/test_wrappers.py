"""mj_env.wrappers: PettingZoo's API test on each adapter, and what each changes."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper

import mj_env
from mj_env import actions as A
from mj_env.wrappers import (
    N_FLAT,
    FlatObservations,
    FlatObservationsGym,
    FlatObservationsVector,
    NumericInfos,
    ObsAndMask,
)


def test_flat_observations_pass_the_api_test_and_keep_the_mask():
    e = FlatObservations(mj_env.env())
    api_test(e, num_cycles=100, verbose_progress=False)
    e.reset(seed=0)
    o = e.observe(e.agent_selection)
    assert o["observations"].shape == (N_FLAT,) and o["observations"].dtype == np.float32
    assert o["action_mask"].dtype == np.int8 and o["action_mask"].any()
    assert o in e.observation_space(e.agent_selection)
    assert all(e.observation_spaces[a] is e.observation_space(a) for a in e.possible_agents)  # not the Dict space


def test_flat_observations_gym_on_the_single_agent_env():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    inner = gym.make("mj_env/Hebei-v0", opponents="rule")
    e = FlatObservationsGym(gym.make("mj_env/Hebei-v0", opponents="rule"))
    check_env(e, skip_render_check=True)
    obs, _ = e.reset(seed=3)
    raw, _ = inner.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert e.observation_space.contains(obs)
        assert np.array_equal(obs["observations"], raw["observation"].reshape(-1).astype(np.float32))
        assert np.array_equal(obs["action_mask"], raw["action_mask"])
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, r, term, trunc, _ = e.step(a)
        raw, r2, *_ = inner.step(a)
        assert r == r2
        if term or trunc:
            seed = int(rng.integers(1000))
            obs, _ = e.reset(seed=seed)
            raw, _ = inner.reset(seed=seed)
    with pytest.raises(TypeError, match="FlatObservationsGym wraps a single-agent env of mj_env"):
        FlatObservationsGym(gym.make("CartPole-v1"))


def test_flat_observations_vector_on_the_batched_env():
    import gymnasium as gym

    def make():
        return gym.make_vec("mj_env/Beijing-v0", num_envs=16, vectorization_mode="vector_entry_point", opponents="rule")
    e, inner = FlatObservationsVector(make()), make()
    assert e.single_observation_space == FlatObservationsGym(gym.make("mj_env/Beijing-v0")).observation_space
    obs, _ = e.reset(seed=3)
    raw, _ = inner.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        assert e.observation_space.contains(obs)
        assert np.array_equal(obs["observations"], raw["observation"].reshape(16, N_FLAT).astype(np.float32))
        assert np.array_equal(obs["action_mask"], raw["action_mask"]) and obs["action_mask"].dtype == np.int8
        a = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, r, term, _, _ = e.step(a)
        raw, r2, term2, *_ = inner.step(a)
        assert np.array_equal(r, r2) and np.array_equal(term, term2)
        ended += int(term.sum())
    assert ended > 10  # NEXT_STEP restarts went through the wrapper too
    with pytest.raises(TypeError, match="FlatObservationsVector wraps the batched single-agent env"):
        FlatObservationsVector(gym.make_vec("CartPole-v1", num_envs=2))


def test_numeric_infos_hold_numbers_only():
    e = NumericInfos(mj_env.env())
    api_test(e, num_cycles=100, verbose_progress=False)
    rng = np.random.default_rng(0)
    e.reset(seed=1)
    scores = None
    for agent in e.agent_iter(max_iter=3000):
        obs, _, term, trunc, info = e.last()
        assert "settlement" not in info
        if "scores" in info:
            scores = info["scores"]
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert scores is not None and scores.dtype == np.int64 and scores.sum() == 0


def _numbers_only(info: dict) -> bool:
    return all(isinstance(v, (int, float, np.number, np.ndarray)) and getattr(v, "dtype", np.int64) != object
               for v in info.values())


def test_numeric_infos_turn_earlier_settlements_and_illegal_names_into_numbers(monkeypatch):
    """A match hand that ends at its deal (East's 天和, then 四惠牌 at the next deal) left the list of earlier
    settlement dicts in the infos, and illegal_action="penalize" the action's name: both are numbers now."""
    from walls import deals_first, four_hui_9s_wall, tian_hu_wall

    import mj_env.engine as engine_module
    four_hui = four_hui_9s_wall()
    tian_hu = [mj_env.tiles.CODES[t] for t in tian_hu_wall()]
    e = NumericInfos(mj_env.env(hands_per_episode=2))
    e.reset(seed=0, options={"wall": tian_hu, "dealer": 0})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui, 1))
    e.step(A.WIN)
    for agent in e.possible_agents:
        info = e.infos[agent]
        assert _numbers_only(info), info
        assert info["earlier_scores"].tolist() == [[33, -11, -11, -11]] and info["scores"].tolist() == [27, -9, -9, -9]
        assert info["earlier_scores"].dtype == np.int64  # (k, 4) int64, as documented
    p = NumericInfos(mj_env.env(illegal_action="penalize"))
    p.reset(seed=0)
    agent = p.agent_selection
    bad = int(np.flatnonzero(p.observe(agent)["action_mask"] == 0)[0])
    p.step(bad)
    assert p.infos[agent]["illegal_action"] == bad and _numbers_only(p.infos[agent])
    assert p.unwrapped.infos[agent]["illegal_action"] == A.name(bad)  # the env itself keeps the name


def _reset_by_mask(num_envs=8, opponents="random"):
    import gymnasium as gym

    from mj_env.wrappers import ResetByMask
    return ResetByMask(gym.make_vec("mj_env/Beijing-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
                                    opponents=opponents))


def _masked_random(mask, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask])


def test_obs_and_mask_gives_tianshous_keys_and_its_dqn_plays_only_legal_actions():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env
    env = ObsAndMask(gym.make("mj_env/Beijing-v0", opponents="random", obs="v2"))
    check_env(env.unwrapped)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"obs", "mask"} and obs in env.observation_space and obs["obs"].shape == (18, 34)
    np.testing.assert_array_equal(obs["mask"], env.unwrapped.action_masks())
    with pytest.raises(TypeError, match="ObsAndMask wraps a single-agent env"):
        ObsAndMask(gym.make("CartPole-v1"))
    # Tianshou's DQN reads batch.obs.mask: with illegal actions raising, a collection that explores at
    # random (epsilon 1) and one that plays greedily both go through without one illegal action
    pytest.importorskip("tianshou")
    import torch
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    class Q(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(14 * 34, 127)

        def forward(self, obs, state=None, info=None, **kw):  # Tianshou hands the model obs.obs
            return self.net(torch.as_tensor(np.asarray(obs), dtype=torch.float32).flatten(1)), state

    def make():
        return ObsAndMask(gym.make("mj_env/Beijing-v0", opponents="random", illegal_action="raise"))
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    for eps in (1.0, 0.0):
        policy = DiscreteQLearningPolicy(model=Q(), action_space=envs.action_space[0], eps_training=eps,
                                         eps_inference=eps)
        collector = Collector(policy, envs, VectorReplayBuffer(2000, 2), exploration_noise=True)
        collector.reset()
        stats = collector.collect(n_step=400)
        assert stats.n_collected_steps >= 400 and stats.n_collected_episodes > 0


def test_reset_by_mask_deals_only_the_masked_tables():
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    from mj_env.wrappers import ResetByMask
    envs = _reset_by_mask()
    assert envs.autoreset_mode == AutoresetMode.DISABLED == envs.metadata["autoreset_mode"]
    rng = np.random.default_rng(0)
    obs, _ = envs.reset(seed=0)
    ended = np.zeros(envs.num_envs, dtype=bool)
    for _ in range(200):
        obs, _, term, trunc, _ = envs.step(_masked_random(obs["action_mask"], rng))
        ended |= term | trunc
        if ended.any() and not ended.all():
            break
    assert ended.any() and not ended.all()
    pass_only = obs["action_mask"].sum(1) == 1
    assert pass_only[ended].all() and not pass_only[~ended].any()  # final observations wait for the reset
    again, _ = envs.reset(options={"reset_mask": ended})
    assert not (again["action_mask"].sum(1) == 1).any()  # the ended tables were dealt anew
    assert (again["observation"][~ended] == obs["observation"][~ended]).all()  # the others untouched
    with pytest.raises(ValueError, match="NEXT_STEP"):
        ResetByMask(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point",
                                 autoreset_mode=AutoresetMode.SAME_STEP))


def test_reset_by_mask_under_torchrl_gym_wrapper():
    torch = pytest.importorskip("torch")
    envs_lib = pytest.importorskip("torchrl.envs")
    env = envs_lib.GymWrapper(_reset_by_mask(opponents="rule"), categorical_action_encoding=True)
    env.set_seed(0)
    torch.manual_seed(0)
    assert env.batch_size == (8,)

    def policy(td):
        mask = td["action_mask"].bool()
        td["action"] = torch.where(mask, torch.rand(mask.shape), torch.tensor(-1.0)).argmax(-1)
        return td

    td = env.rollout(120, policy=policy, break_when_any_done=False)
    done = td["next", "done"].squeeze(-1)
    assert done.sum() >= 8
    after = td["action_mask"][:, 1:][done[:, :-1]]  # the observation after each ended hand
    assert ((after.sum(-1)) > 1).all()  # a new deal, not the final observation (pass only)
    assert td["next", "reward"][done].ne(0).any()  # the points are paid when the hand ends (rule agents win)


def test_torchrl_pettingzoo_wrapper_needs_no_adapter():
    """TorchRL's own PettingZoo path (the AEC env as one "player" group, masked) takes the env as it is."""
    torch = pytest.importorskip("torch")
    pz = pytest.importorskip("torchrl.envs.libs.pettingzoo")
    env = pz.PettingZooWrapper(mj_env.env(), use_mask=True, group_map={"player": list(mj_env.raw_env().possible_agents)},
                               seed=0)

    def policy(td):
        mask = td["player", "action_mask"].bool()
        td["player", "action"] = torch.where(mask, torch.rand(mask.shape), torch.tensor(-1.0)).argmax(-1)
        return td

    td = env.rollout(150, policy=policy, break_when_any_done=False)
    assert td.shape == (150,) and td["next", "done"].any()
    assert (td["player", "mask"].sum(-1) == 1).all()  # one seat acts at a time


def test_flat_observations_take_the_v2_layout_size():
    import gymnasium as gym
    e = FlatObservationsGym(gym.make("mj_env/Beijing-v0", obs="v2"))
    obs, _ = e.reset(seed=0)
    assert e.observation_space["observations"].shape == (18 * 34,) and e.observation_space.contains(obs)
    v = FlatObservationsVector(gym.make_vec("mj_env/Beijing-v0", num_envs=3, vectorization_mode="vector_entry_point",
                                            obs="v2"))
    obs, _ = v.reset(seed=0)
    assert obs["observations"].shape == (3, 18 * 34) and v.observation_space.contains(obs)


def test_the_aec_wrappers_refuse_what_is_not_an_aec_env():
    """A probe's FlatObservations(gym.make(...)) failed with an AttributeError and NumericInfos(None) was taken."""
    import gymnasium as gym

    from mj_env.wrappers import FlatObservations, NumericInfos
    with pytest.raises(TypeError, match="use FlatObservationsGym"):
        FlatObservations(gym.make("mj_env/Beijing-v0"))
    with pytest.raises(TypeError, match="NumericInfos wraps a PettingZoo AEC env of mj_env .*got NoneType"):
        NumericInfos(None)
    env = FlatObservations(NumericInfos(mj_env.env()))
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"].shape == (127,)


def test_the_single_agent_wrappers_refuse_other_dict_observations():
    """ObsAndMask and FlatObservationsGym wrap envs whose observations are {'observation', 'action_mask'}; a Dict
    of other keys is refused by name (from an outside mutation test: dropping the key check went unnoticed)."""
    import gymnasium as gym
    from gymnasium import spaces

    from mj_env.wrappers import FlatObservationsGym, ObsAndMask

    class OtherKeys(gym.Env):
        observation_space = spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Discrete(2)})
        action_space = spaces.Discrete(2)

    for wrapper in (ObsAndMask, FlatObservationsGym):
        with pytest.raises(TypeError, match=f"{wrapper.__name__} wraps a single-agent env of mj_env .*'observation', "
                                            "'action_mask'"):
            wrapper(OtherKeys())


def test_the_flat_and_tianshou_layouts_keep_their_documented_dtypes():
    """FlatObservationsVector: observations float32 (RLlib's layout); ObsAndMask: the env's int8 mask as it is
    (Box.contains would take uint8 planes or a bool mask too, so the dtypes are checked here)."""
    import gymnasium as gym
    v = FlatObservationsVector(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point",
                                            opponents="random"))
    obs, _ = v.reset(seed=0)
    assert obs["observations"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    e = ObsAndMask(gym.make("mj_env/Beijing-v0", opponents="random"))
    obs, _ = e.reset(seed=0)
    assert obs["mask"].dtype == np.int8 and obs["obs"].dtype == np.uint8


def test_numeric_infos_leave_the_wrapped_envs_infos_as_they_are():
    """NumericInfos reads the settlement into ``scores`` on a copy: the env's own infos keep the settlement."""
    e = NumericInfos(mj_env.env())
    e.reset(seed=0)
    while e.agents:
        obs, _rew, term, trunc, _info = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        if any("settlement" in i for i in e.unwrapped.infos.values()):
            break
    assert all("scores" in i for i in e.infos.values())
    assert all("settlement" in i and "scores" not in i for i in e.unwrapped.infos.values())
    assert all("scores" in i for i in e.infos.values())   # and a second read finds them again


def test_the_flat_spaces_are_float32_and_int8_as_documented():
    """The flat layout's spaces say what the observations are, ``(476,) float32`` and ``(127,) int8``, in all three
    forms (a float64 Box would still contain the float32 observations, so the dtypes are read here)."""
    import gymnasium as gym
    spaces = [FlatObservations(mj_env.env()).observation_space("player_0"),
              FlatObservationsGym(gym.make("mj_env/Beijing-v0")).observation_space]
    v = FlatObservationsVector(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point"))
    spaces += [v.single_observation_space, v.observation_space]
    for space in spaces:
        assert space["observations"].dtype == np.float32 and space["action_mask"].dtype == np.int8
        assert space["observations"].shape[-1] == N_FLAT


def test_the_aec_wrappers_need_both_agents_and_observation_spaces():
    """An object with ``possible_agents`` but no ``observation_space()`` is not an AEC env; a gymnasium env given
    to NumericInfos is refused without pointing to a ``NumericInfosGym`` that does not exist."""
    import types

    import gymnasium as gym
    with pytest.raises(TypeError, match="FlatObservations wraps a PettingZoo AEC env"):
        FlatObservations(types.SimpleNamespace(possible_agents=["player_0"]))
    with pytest.raises(TypeError, match="NumericInfos wraps a PettingZoo AEC env") as e:
        NumericInfos(gym.make("mj_env/Beijing-v0"))
    assert "NumericInfosGym" not in str(e.value)


def test_numeric_infos_twice_is_numeric_infos_once():
    """NumericInfos over NumericInfos changes nothing more: the illegal action's integer stays that integer."""
    p = NumericInfos(NumericInfos(mj_env.env(illegal_action="penalize")))
    p.reset(seed=0)
    agent = p.agent_selection
    bad = int(np.flatnonzero(p.observe(agent)["action_mask"] == 0)[0])
    p.step(bad)
    assert p.infos[agent] == {"illegal_action": bad}


# --------------------------------------------------------------------------- a setting past a PettingZoo wrapper


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


# --------------------------------------------------------------------------- last() after close() through mj_env's wrappers


def _play_out_penalized(env) -> None:
    env.unwrapped.illegal_action = "penalize"
    env.reset(seed=2)
    mask = env.last()[0]["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    while env.agents:
        env.step(None)


@pytest.mark.parametrize("make", [mj_env.env, lambda: FlatObservations(mj_env.env()),
                                  lambda: NumericInfos(BaseWrapper(mj_env.env()))],
                         ids=["env", "FlatObservations", "NumericInfos(BaseWrapper)"])
def test_last_after_close_is_the_close_error_through_every_mj_env_wrapper(make):
    # ForwardsSettings.last said "the hand ended" (an ActionError) once the env was closed, where mj_env.env()
    # and raw_env say it is closed (a RuntimeError)
    env = make()
    _play_out_penalized(env)
    with pytest.raises(A.ActionError, match="after the hand ended"):
        env.last()
    env.close()
    with pytest.raises(RuntimeError, match=r"last\(\) after close\(\)"):
        env.last()


_MAKERS = [mj_env.env, lambda: FlatObservations(mj_env.env()), lambda: NumericInfos(BaseWrapper(mj_env.env())),
           lambda: FlatObservations(NumericInfos(mj_env.env()))]


_IDS = ["env", "FlatObservations", "NumericInfos(BaseWrapper)", "FlatObservations(NumericInfos)"]


@pytest.mark.parametrize("make", _MAKERS, ids=_IDS)
@pytest.mark.parametrize("when", ["mid-hand", "before reset"])
def test_last_after_close_is_the_close_error_wherever_the_hand_was(make, when):
    env = make()
    if when == "mid-hand":
        env.reset(seed=4)
        obs = env.last()[0]
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert env.agents  # the hand goes on
    env.close()
    with pytest.raises(RuntimeError, match=r"^last\(\) after close\(\): this mj_env AEC env is closed"):
        env.last()


# --------------------------------------------------------------------------- flat observations of a shapeless 'observation' space


@pytest.mark.parametrize("space", [gym.spaces.Text(5), gym.spaces.Sequence(gym.spaces.Discrete(2))],
                         ids=["Text", "Sequence"])
def test_flat_observations_refuse_shapeless_planes_with_a_type_error_that_names_them(space):
    from mj_env.wrappers import FlatObservationsGym

    class Shapeless(gym.Env):
        observation_space = gym.spaces.Dict({"observation": space,
                                             "action_mask": gym.spaces.Box(0, 1, (5,), dtype=np.int8)})
        action_space = gym.spaces.Discrete(5)

    with pytest.raises(TypeError, match="the flat observations need an 'observation' space with a shape"):
        FlatObservationsGym(Shapeless())
