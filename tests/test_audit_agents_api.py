"""An outside audit of the agents' Python API as a researcher uses it (agents.make_agent, the agents' act,
agents.arena's compare and play_duplicate, the pretrained players): each test is a case that failed."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch

from agents.networks import NetworkAgent, PolicyValueNet, TileNet
from mj_env.features import FEATURES_NAME
from mj_env.vector import MahjongVectorEnv

torch.set_num_threads(1)


@pytest.mark.parametrize("obs", ["v1", "v2"])
@pytest.mark.parametrize("planes_of", [
    lambda p: np.where(np.arange(34) == 0, np.nan, p.astype(np.float64)),
    lambda p: np.full(p.shape, np.inf),
    lambda p: p.astype(np.int64) - 3,
    lambda p: p.astype(np.int64) * 1000,
    lambda p: p / 2,
], ids=["nan", "inf", "negative", "over-255", "halves"])
def test_network_agent_refuses_planes_that_are_no_mj_obs_planes(obs, planes_of):
    """A network agent checked its planes' shape only: planes of a v1 network (or v2 planes, passed through)
    holding NaN reached the network and were refused as "its weights are out of range" (NonFiniteLogits),
    and -3, 1000 or 0.5 were played as if they were planes; the baselines refuse all of them with
    ``checked_planes``' message, and so does a v2 network given v1 planes (its features check them)."""
    env_obs = MahjongVectorEnv(num_envs=2, rules="beijing", obs=obs).reset(seed=0)[0]
    bad = {"observation": planes_of(env_obs["observation"]), "action_mask": env_obs["action_mask"]}
    torch.manual_seed(0)
    for net in (PolicyValueNet(hidden=(8,)), TileNet(channels=4, blocks=1),
                TileNet(channels=4, blocks=1, obs=FEATURES_NAME)):
        agent = NetworkAgent(net, name="net")
        assert agent.act(env_obs, np.random.default_rng(0)).shape == (2,)
        with pytest.raises(ValueError, match="agent 'net': obs\\['observation'\\] must hold whole numbers 0-255"):
            agent.act(bad, np.random.default_rng(0))


def test_compare_refuses_rules_of_a_match_before_it_loads_an_agent(monkeypatch):
    """compare's docstring: "Everything is checked before an agent is loaded: ... rules". Rules with
    hands_per_episode=2 (which play_duplicate refuses) were refused only after every agent was loaded
    (the shipped network, torch and all)."""
    from agents import arena

    loaded = []
    monkeypatch.setattr(arena, "make_agent", lambda spec, **kw: loaded.append(spec))
    with pytest.raises(ValueError, match="plays one hand per wall: rules with hands_per_episode=2"):
        arena.compare(["pretrained", "rule"], 2, rules={"name": "beijing", "hands_per_episode": 2})
    assert loaded == []


def _claim_window_rows():
    """Observations of seats asked about a discard (claim-window rows only), from a few random steps."""
    from mj_env.baselines import RandomAgent
    from mj_env.observation import COL_PHASE, P_SCALARS
    from mj_env.state import CLAIM

    env = MahjongVectorEnv(num_envs=16, rules="beijing")
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        claim = np.flatnonzero(obs["observation"][:, P_SCALARS, COL_PHASE] == CLAIM)
        if len(claim):
            return {k: v[claim] for k, v in obs.items()}
        obs = env.step(RandomAgent().act(obs, rng))[0]
    raise AssertionError("no claim window in 200 steps")


@pytest.mark.parametrize("rng", [None, 0, "seed"])
def test_baselines_refuse_an_rng_that_is_no_generator_by_name(rng):
    """agents.base: ``act(obs, rng)``, rng a np.random.Generator. The baselines failed on a None or a seed
    with "AttributeError: 'NoneType' object has no attribute 'random'" from inside, and only where a row drew
    (own turns): claim-window rows were played with it. The network agent refuses it with a TypeError naming
    itself; so do they now, wherever the rows are."""
    from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent

    turn = MahjongVectorEnv(num_envs=2, rules="beijing").reset(seed=0)[0]
    claim = _claim_window_rows()
    for agent in (RandomAgent(), RuleBasedAgent(), EfficientAgent()):
        for obs in (turn, claim):
            assert agent.act(obs, np.random.default_rng(0)).shape == (len(obs["action_mask"]),)
            with pytest.raises(TypeError, match=f"agent '{agent.name}': rng must be a np.random.Generator"):
                agent.act(obs, rng)


@pytest.mark.parametrize("wrap", [lambda o, info: (o, info), lambda o, info: [o["observation"], o["action_mask"]]],
                         ids=["reset-tuple", "list"])
def test_baselines_refuse_an_obs_that_is_no_dict_by_saying_so(wrap):
    """``obs = env.reset(seed=0)`` without unpacking ``infos`` hands an agent a tuple: the baselines raised
    "TypeError: tuple indices must be integers or slices, not str" (``checked_obs`` refused other non-dicts
    with its own message, a tuple or list slipped past), where the network agent says what obs must be."""
    from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent

    obs, info = MahjongVectorEnv(num_envs=2, rules="beijing").reset(seed=0)
    for agent in (RandomAgent(), RuleBasedAgent(), EfficientAgent()):
        with pytest.raises(ValueError, match='obs must be a dict with "observation" and "action_mask", got '
                                             f"{type(wrap(obs, info)).__name__}"):
            agent.act(wrap(obs, info), np.random.default_rng(0))


def test_play_duplicate_keeps_the_records_for_a_numpy_true():
    """``record_hands`` is checked to be True, False or a callable, and NumPy's True passes that check
    (as it does for ``record_deals``, whose deals it keeps), but the records were kept only for ``is True``:
    ``record_hands=np.True_`` played and recorded every hand and returned ``records=None``."""
    from agents.arena import play_duplicate
    from mj_env.baselines import RandomAgent, RuleBasedAgent

    res = play_duplicate([RuleBasedAgent(), RandomAgent()], 2, record_hands=np.True_, record_deals=np.True_)
    assert res.deals.shape == (4, 4, 34)
    assert res.records is not None and len(res.records) == 4
    assert play_duplicate([RuleBasedAgent(), RandomAgent()], 1, record_hands=np.False_).records is None
