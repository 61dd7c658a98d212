"""Bad input to the engine and the environments: refused with a clear error, nothing changed.

Every refusal is checked against a twin: the state arrays, the generator, the legal masks and
the rewards not yet read are equal to those of a copy that never saw the bad input.
"""
from __future__ import annotations

import copy
import dataclasses
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from walls import build_wall, four_hui_wall

import mj_env
from mj_env import actions as A
from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent, uniform_legal
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.rules import MAX_BASE, PRESETS, RuleError, RuleSet, get_rules
from mj_env.state import END
from mj_env.vector import MahjongVectorEnv

HYPO = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def engine_snapshot(eng: Engine) -> dict:
    st = {f.name: getattr(eng.state, f.name).copy() for f in dataclasses.fields(eng.state)}
    return {"state": st, "rng": copy.deepcopy(eng.rng.bit_generator.state), "mask": eng.legal_mask().copy()}


def assert_same(a: dict, b: dict) -> None:
    assert a["rng"] == b["rng"], "the generator moved"
    assert np.array_equal(a["mask"], b["mask"])
    for name, arr in a["state"].items():
        assert np.array_equal(arr, b["state"][name]), f"state.{name} changed"


def greedy_random(mask, rng) -> np.ndarray:
    """A random legal action, but always win when a win is legal (so that hands get won)."""
    act = uniform_legal(mask, rng, empty_ok=True)
    return np.where(mask[:, A.WIN] > 0, A.WIN, act)


def random_actions(eng: Engine, rng) -> np.ndarray:
    return greedy_random(eng.legal_mask(), rng)


def played_engine(rules="beijing", n=6, steps=30, **kw) -> Engine:
    eng = Engine(rules, num_tables=n, seed=3, **kw)
    eng.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        res = eng.step(random_actions(eng, rng))
        if res.episode_over.any():
            eng.reset(tables=np.flatnonzero(res.episode_over))
    return eng


# ----------------------------------------------------------------------------- large numbers
def test_base_bound_is_refused_with_the_limit_named():
    for bad in (MAX_BASE + 1, 10**9, 2**40, 10**5000, 0, -1):
        with pytest.raises(RuleError, match="base"):
            get_rules("beijing", base=bad)
    with pytest.raises(RuleError, match="base"):
        mj_env.env(base=2**40)
    with pytest.raises(RuleError, match="base"):
        MahjongVectorEnv(num_envs=2, base=10**9)
    # the error quotes no 5000-digit number
    with pytest.raises(RuleError) as info:
        get_rules("beijing", base=10**5000)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_rewards_exact_and_zero_sum_at_the_largest_base(preset):
    eng = Engine(preset, num_tables=64, seed=1, base=MAX_BASE)
    eng.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(400):
        res = eng.step(random_actions(eng, rng))
        assert res.rewards.dtype == np.int64
        assert (res.rewards.sum(axis=1) == 0).all()
        for t in np.flatnonzero(res.hand_over):
            assert res.settlements[t]["scores"] == res.rewards[t].tolist()
            ended += 1
        if res.episode_over.any():
            eng.reset(tables=np.flatnonzero(res.episode_over))
    assert ended > 20


def test_vector_rewards_exact_in_float64():
    venv = MahjongVectorEnv(num_envs=32, seed=0, base=MAX_BASE)
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(300):
        obs, rew, _term, _, infos = venv.step(greedy_random(obs["action_mask"], rng))
        assert rew.dtype == np.float64
        for t in np.flatnonzero(infos["_settlement"]):
            assert [int(x) for x in rew[t]] == infos["settlement"][t]["scores"]
            seen += int(any(infos["settlement"][t]["scores"]))
    assert seen > 0


# ----------------------------------------------------------------------------- engine.reset
@pytest.mark.parametrize("dealers", [[1.0], [1.5], ["1"], [True], [np.True_], [4], [-1], "1", 1, [None], [[1]]])
def test_engine_reset_refuses_bad_dealers_and_keeps_the_generator(dealers):
    eng = played_engine(n=1)
    before = engine_snapshot(eng)
    with pytest.raises(ValueError, match="dealer"):
        eng.reset(seed=5, dealers=dealers)
    assert_same(before, engine_snapshot(eng))


def test_engine_reset_names_the_table_with_a_bad_wall():
    eng = played_engine(n=3)
    good = build_wall("beijing")
    bad = list(good)
    bad[10] = bad[11]  # one kind five times... or at least a wrong count
    before = engine_snapshot(eng)
    with pytest.raises(ValueError, match="table 2"):
        eng.reset(seed=9, walls=[good, good, bad])
    assert_same(before, engine_snapshot(eng))
    with pytest.raises(ValueError, match="table 7 does not exist"):
        eng.reset(tables=[0, 7])
    with pytest.raises(ValueError, match="more than once"):
        eng.reset(tables=[1, 1])
    with pytest.raises(ValueError, match="seed"):
        eng.reset(seed=-3)
    assert_same(before, engine_snapshot(eng))
    # check_reset is the same checks alone, and names a bad wall entry briefly
    with pytest.raises(ValueError, match=r"wall\[0\] = array\(\[.{20,40}\.\.\. is neither"):
        eng.check_reset(walls=[list(np.zeros((136, 136), dtype=int))] * 3)  # a list of 136 arrays
    with pytest.raises(ValueError, match=r"table 0 of this reset: the wall must be a 1-D .* shape \(136, 136\)"):
        eng.check_reset(walls=[np.zeros((136, 136), dtype=int)] * 3)
    with pytest.raises(ValueError, match=r"wall\[0\] = an integer of \d+ bits is not a tile"):
        eng.check_reset(walls=[[10**5000, *good[1:]]] * 3)
    assert_same(before, engine_snapshot(eng))


def test_aec_reset_refuses_float_and_bool_dealers():
    e = mj_env.env()
    for d in (1.0, True, "1", [1]):
        with pytest.raises(ValueError, match="dealer"):
            e.reset(seed=0, options={"dealer": d})
    e.reset(seed=0, options={"dealer": 2})
    assert e.unwrapped.engine.state.dealer[0] == 2


# ----------------------------------------------------------------------------- stepping
def test_step_before_reset_is_an_error():
    with pytest.raises(A.ActionError, match="reset"):
        Engine("beijing", num_tables=2, seed=0).step(np.zeros(2, dtype=np.int64))
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    with pytest.raises(A.ActionError, match="reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    raw = mj_env.raw_env()
    with pytest.raises(A.ActionError, match="reset"):
        raw.step(0)


BAD_BATCHES = {
    "(N, 1)": lambda a: a.reshape(-1, 1),
    "(1, N)": lambda a: a.reshape(1, -1),
    "(2, N/2)": lambda a: a.reshape(2, -1),
    "float": lambda a: a.astype(np.float64) + 0.7,
    "float exact": lambda a: a.astype(np.float32),
    "nan": lambda a: np.full(a.shape, np.nan),
    "strings": lambda a: a.astype(str),
    "bools": lambda a: a.astype(bool),
    "objects": lambda a: a.astype(object),
    "short": lambda a: a[:-1],
    "scalar": lambda a: a[0],
    "list of floats": lambda a: [float(x) for x in a],
}


@pytest.mark.parametrize("kind", list(BAD_BATCHES))
def test_vector_step_takes_only_an_integer_array_of_shape_n(kind):
    venv = MahjongVectorEnv(num_envs=4, seed=0)
    obs, _ = venv.reset(seed=0)
    good = obs["action_mask"].argmax(axis=1)
    before = engine_snapshot(venv.engine)
    with pytest.raises(A.ActionError, match="integer actions"):
        venv.step(BAD_BATCHES[kind](good))
    assert_same(before, engine_snapshot(venv.engine))
    venv.step(good)            # the game goes on
    venv.step(list(venv._obs()["action_mask"].argmax(axis=1)))   # a list of ints is a batch too


@given(actions=hst.lists(hst.one_of(hst.integers(-2**70, 2**70), hst.floats(allow_nan=True), hst.text(max_size=3),
                                    hst.none(), hst.booleans()), min_size=0, max_size=6))
@HYPO
def test_vector_step_with_arbitrary_values_changes_nothing_or_plays(actions):
    venv = MahjongVectorEnv(num_envs=4, seed=0)
    _obs, _ = venv.reset(seed=0)
    before = engine_snapshot(venv.engine)
    pending = venv.pending_rewards.copy()
    try:
        venv.step(actions)
    except A.ActionError:
        assert_same(before, engine_snapshot(venv.engine))
        assert np.array_equal(pending, venv.pending_rewards)
        return
    # accepted: it was a legal integer batch
    assert len(actions) == 4 and all(type(a) is int for a in actions)


@given(options=hst.dictionaries(hst.sampled_from(["wall", "dealer", "other"]),
                                hst.one_of(hst.integers(-5, 5), hst.floats(), hst.text(max_size=4), hst.none(),
                                           hst.lists(hst.integers(0, 40), max_size=140),
                                           hst.lists(hst.text(max_size=2), max_size=5))),
       seed=hst.one_of(hst.none(), hst.integers(-3, 2**64), hst.floats(), hst.text(max_size=3)))
@HYPO
def test_aec_reset_with_arbitrary_options_is_played_or_refused_unchanged(options, seed):
    e = mj_env.env()
    e.reset(seed=0)
    raw = e.unwrapped
    before = engine_snapshot(raw.engine)
    try:
        e.reset(seed=seed, options=options)
    except (ValueError, TypeError):
        assert_same(before, engine_snapshot(raw.engine))
        return
    assert raw.engine.state.phase[0] != END or raw.terminations["player_0"]


def test_aec_step_takes_a_0d_integer_array():
    # SB3's predict gives a 0-d array for one observation; other arrays stay refused
    e = mj_env.env()
    e.reset(seed=0)
    action = np.array(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    before = e.agent_selection
    e.step(action)
    assert e.agent_selection != before
    mask = e.observe(e.agent_selection)["action_mask"]
    for bad in (np.array([int(np.flatnonzero(mask)[0])]), np.array(1.0), np.array(True)):
        with pytest.raises(A.ActionError, match="is not an integer"):
            e.step(bad)


@pytest.mark.parametrize("agent", ["player_9", "player_", 0, None, ("player_0",)])
def test_aec_names_its_agents_when_asked_about_another(agent):
    # a KeyError, as PettingZoo's own environments raise, but one that says which agents there are
    e = mj_env.env()
    e.reset(seed=0)
    for ask in (e.observe, e.observation_space, e.action_space):
        with pytest.raises(KeyError, match="the agents are player_0, player_1, player_2, player_3"):
            ask(agent)
    assert e.observation_space("player_3")["action_mask"].shape == (A.N_ACTIONS,)


@pytest.mark.parametrize("key", ["walls", "Wall", "dealers", "Dealer", "WALLS", "dealr", "delaer", "dealler",
                                 "deaker", "wal", "wlal", "walll", "Dealr"])
def test_aec_reset_refuses_a_near_miss_of_its_options(key):
    # other keys are ignored (PettingZoo's api_test passes {"options": 1}); a misspelt "wall" or "dealer"
    # (another case, a plural, one slip past the first letter) would deal a random wall without a word, so
    # it is refused, and the hand in play is kept
    e = mj_env.env()
    e.reset(seed=0, options={"options": 1, "seed": 3, "all": 1, "deal": 2, "ball": 0, "dealerss": 1,
                             "ealer": 0, 3: 1, None: 2})  # ignored, as before
    raw = e.unwrapped
    before = engine_snapshot(raw.engine)
    with pytest.raises(ValueError, match=f"unknown reset option '{key}': did you mean"):
        e.reset(seed=1, options={key: 0})
    assert_same(before, engine_snapshot(raw.engine))


def test_aec_refused_action_keeps_the_reward_not_yet_read():
    """In a match, a hand's reward waits for each agent; an illegal action must not wipe it."""
    rng = np.random.default_rng(0)
    for seed in range(40):
        e = mj_env.env(hands_per_episode=3)
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _info = e.last()
            if term or trunc:
                break
            if reward != 0:          # a hand ended and this agent has not acted since
                illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
                before = dict(e.unwrapped._cumulative_rewards)
                with pytest.raises(A.ActionError):
                    e.step(illegal)
                with pytest.raises(A.ActionError):
                    e.step(-1)
                assert e.unwrapped._cumulative_rewards == before
                assert e.last()[1] == reward
                return
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pytest.fail("no hand of a match ended with a reward in 40 matches")


@pytest.mark.parametrize("penalty", [-1, float("nan"), float("inf"), "10", True, None, 1e300])
def test_illegal_penalty_is_checked_when_given(penalty):
    with pytest.raises(ValueError, match="illegal_penalty"):
        mj_env.env(illegal_action="penalize", illegal_penalty=penalty)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "4", 2**40])
def test_num_tables_is_checked(bad):
    with pytest.raises(ValueError, match="num_tables"):
        Engine("beijing", num_tables=bad)
    with pytest.raises(ValueError, match="one table"):
        mj_env.env(num_tables=bad)


# ----------------------------------------------------------------------------- hands ended at the deal

def test_aec_pays_a_hand_that_ends_at_the_deal():
    e = mj_env.env()
    e.reset(options={"wall": four_hui_wall(), "dealer": 0})
    rewards = {}
    for agent in e.agent_iter():
        _obs, reward, term, _trunc, info = e.last()
        assert term
        rewards[agent] = reward
        assert info["settlement"]["patterns"]["四惠牌"] == 8
        e.step(None)
    assert rewards["player_0"] > 0 and sum(rewards.values()) == 0


def test_aec_match_pays_a_first_hand_that_ends_at_the_deal():
    e = mj_env.env(hands_per_episode=2)
    e.reset(seed=0, options={"wall": four_hui_wall(), "dealer": 0})
    total = dict.fromkeys(e.possible_agents, 0)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _info = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    # the match total is the engine's match score, first hand (四惠牌) included
    assert [total[a] for a in e.possible_agents] == e.unwrapped.engine.state.match_scores[0].tolist()
    assert total["player_0"] != 0


@pytest.mark.parametrize("hands", [1, 2])
def test_vector_pays_hands_that_end_at_the_deal(hands):
    N = 3
    venv = MahjongVectorEnv(num_envs=N, seed=0, hands_per_episode=hands)
    walls = [four_hui_wall(), build_wall("beijing", seed=1), four_hui_wall(dealer=2)]
    obs, _ = venv.reset(seed=0, options={"walls": walls, "dealers": [0, 0, 2]})
    pending = venv.pending_rewards.copy()
    assert pending[0, 0] > 0 and pending[2, 2] > 0 and not pending[1].any()
    assert (pending.sum(axis=1) == 0).all()
    obs, rew, _term, _trunc, infos = venv.step(obs["action_mask"].argmax(axis=1))
    for t in range(N):   # the points waiting are paid with the next step's rewards
        this_step = infos["settlement"][t]["scores"] if infos["_settlement"][t] else [0, 0, 0, 0]
        assert (rew[t] - pending[t]).tolist() == this_step
    assert not venv.pending_rewards.any()
    # and named apart, so that a learner can tell them from the points its decisions earned
    assert infos["_deal_points"].tolist() == [True, False, True]
    assert np.array_equal(infos["deal_points"], pending) and infos["deal_points"].dtype == np.float64
    obs, rew, *_, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert "deal_points" not in infos   # only in a step that pays such points, as Gymnasium's info keys go


def test_train_leaves_the_points_of_a_hand_ended_at_its_deal_to_no_decision():
    pytest.importorskip("torch")  # the train extra's
    import train

    venv = MahjongVectorEnv(num_envs=2, seed=0)
    obs, _ = venv.reset(seed=0, options={"walls": [four_hui_wall(), build_wall("beijing", seed=1)],
                                         "dealers": [0, 0]})
    obs, rew, _term, _trunc, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert rew[0].any() and not infos["_settlement"][0]
    assert not train.decided(rew, infos).any()          # nobody decided anything in the 四惠牌 hand
    obs, rew, _term, _trunc, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert train.decided(rew, infos) is rew             # a step without such points: the rewards as they are


# ----------------------------------------------------------------------------- rule-field combinations
def test_named_combinations():
    with pytest.raises(RuleError, match="hui"):
        get_rules("quemen", hui=True)
    with pytest.raises(RuleError, match="tail_stacks_kept"):
        get_rules("beijing", tail_stacks_kept=3)
    with pytest.raises(RuleError, match="hubao_claims"):
        get_rules("hebei", hubao_claims=2)
    with pytest.raises(RuleError, match="discard_bonus_all_pay"):
        get_rules("beijing", discard_bonus_all_pay=False)
    with pytest.raises(RuleError, match="kong_payments"):
        get_rules("beijing", kong_payments=True)
    with pytest.raises(RuleError, match="unknown"):
        get_rules("beijing", no_such_field=1)
    # harmless: the value a preset that ignores the field also has
    get_rules("beijing", hui=False, four_hui_win=False, self_draw_only_hui=0, reserve=0)


FIELD_VALUES = {
    f.name: hst.one_of(hst.booleans(), hst.integers(-2, 45), hst.sampled_from(["previous", "next", "east", "random",
                                                                              "beijing", "hebei", "quemen", "x"]))
    for f in dataclasses.fields(RuleSet) if f.name != "name"
}


@given(preset=hst.sampled_from(sorted(PRESETS)),
       overrides=hst.fixed_dictionaries({}, optional=FIELD_VALUES))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_rule_combination_is_played_or_refused(preset, overrides):
    try:
        rules = get_rules(preset, **overrides)
    except RuleError as e:
        assert len(str(e)) < 300
        return
    eng = Engine(rules, num_tables=8, seed=0)
    res = eng.reset()
    rng = np.random.default_rng(0)
    hands = 0
    for _ in range(150):
        assert (res.rewards.sum(axis=1) == 0).all()
        live = eng.state.phase != END
        assert eng.legal_mask()[live].any(axis=1).all()
        res = eng.step(random_actions(eng, rng))
        hands += int(res.hand_over.sum())
        if res.episode_over.any():
            eng.reset(tables=np.flatnonzero(res.episode_over))
    env = mj_env.env(rules=rules)
    env.reset(seed=0)


@given(options=hst.one_of(hst.none(), hst.dictionaries(
    hst.sampled_from(["walls", "dealers", "reset_mask", "x"]),
    hst.one_of(hst.integers(-5, 5), hst.floats(), hst.text(max_size=3), hst.none(),
               hst.lists(hst.integers(-1, 4), max_size=4),
               hst.lists(hst.lists(hst.integers(0, 33), max_size=136), max_size=3)))),
       seed=hst.one_of(hst.none(), hst.integers(-3, 2**40), hst.floats(), hst.text(max_size=3)))
@HYPO
def test_vector_reset_with_arbitrary_values_is_played_or_refused_unchanged(options, seed):
    venv = MahjongVectorEnv(num_envs=3, seed=0)
    obs, _ = venv.reset(seed=0)
    venv.step(greedy_random(obs["action_mask"], np.random.default_rng(0)))
    before = engine_snapshot(venv.engine)
    pending = venv.pending_rewards.copy()
    try:
        venv.reset(seed=seed, options=options)
    except (ValueError, TypeError):
        assert_same(before, engine_snapshot(venv.engine))
        assert np.array_equal(pending, venv.pending_rewards)
        return
    assert (venv.engine.state.phase != END).all()


def test_legal_row_indices_stay_one_bounded_array():
    from mj_env import legal

    for n in (5, 3000, 17, 4096, 1):
        rows = legal._rows(n)
        assert rows.tolist() == list(range(n)) and not rows.flags.writeable
    assert len(legal._ROWS) == 1 and len(legal._ROWS[0]) >= 4096
    for n in range(1, 300):  # many distinct batch sizes allocate nothing new
        legal._rows(n)
    assert len(legal._ROWS) == 1


@pytest.mark.parametrize("penalty", [float("nan"), float("inf"), -5, "abc", True, None, 3 + 4j, np.complex128(3)])
def test_every_env_refuses_a_bad_illegal_penalty(penalty):
    # a negative penalty would reward an illegal move; NaN would poison the returns
    import gymnasium as gym
    for make in (lambda: mj_env.env(illegal_penalty=penalty),
                 lambda: gym.make("mj_env/Beijing-v0", illegal_penalty=penalty)):
        with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
            make()


def test_single_agent_env_refuses_huge_actions_and_unknown_reset_options():
    import gymnasium as gym
    env = gym.make("mj_env/Beijing-v0").unwrapped
    env.reset(seed=0)
    before = env.venv.engine.state.copy()
    for action in (2**64, -2**70, np.uint64(2**63 + 5)):
        with pytest.raises(A.ActionError, match=r"not in the action space Discrete\(127\): an integer in 0-126"):
            env.step(action)
    st = env.venv.engine.state
    assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)
    with pytest.raises(ValueError, match="unknown reset option\\(s\\): foo; use 'wall' and 'dealer'"):
        env.reset(options={"foo": 1})


def test_every_batched_env_refuses_unknown_reset_options_in_a_short_message_and_plays_on():
    import gymnasium as gym
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    single = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    for env, names in ((venv, "'walls', 'dealers' and 'reset_mask'"), (single, "'reset_mask', 'walls' and 'dealers'")):
        env.reset(seed=0)
        before = env.engine.state.copy()
        for options in ({"x" * 10_000: 1}, {"wall": [0] * 136, "walls": None}, "walls"):
            with pytest.raises(ValueError) as err:
                env.reset(options=options)
            msg = str(err.value)
            assert len(msg) < 200, msg
            assert names in msg or "options must be a dict" in msg
        st = env.engine.state
        assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)
        env.step(uniform_legal(np.asarray(env.engine.legal_mask()), np.random.default_rng(0)))
    with pytest.raises(ValueError, match="num_envs: the one-table env plays one table; .*make_vec"):
        gym.make("mj_env/Beijing-v0", num_envs=2)


@pytest.mark.parametrize("wall", [5, 3.5, {"1m": 4}, b"1m2m"])
def test_a_wall_that_is_not_a_list_is_a_wall_error(wall):
    env = mj_env.env()
    env.reset(seed=1)
    before = env.unwrapped.engine.state.copy()
    with pytest.raises(ValueError, match="the wall must be a list of tile codes"):
        env.reset(options={"wall": wall})
    st = env.unwrapped.engine.state
    assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_envs": 0}, "num_envs must be an integer in 1-"),
    ({"num_envs": 2.5}, "num_envs must be an integer in 1-"),
    ({"num_envs": 4, "autoreset_mode": "bogus"}, "autoreset_mode must be .*'NextStep', 'SameStep'"),
])
def test_batched_envs_name_their_own_arguments(kwargs, message):
    from mj_env.single_agent import MahjongSingleAgentVectorEnv
    for make in (MahjongVectorEnv, MahjongSingleAgentVectorEnv):
        with pytest.raises(ValueError, match=message):
            make(**kwargs)


def test_the_engine_mask_is_read_only_and_odd_reset_arguments_are_refused():
    """A probe wrote into ``legal_mask()`` and the next step discarded a tile the seat did not hold; dealers given
    as a dict (its keys taken as seats) or a set were accepted; explain_illegal read table -1 as the last one."""
    eng = Engine(num_tables=3, seed=0)
    eng.reset(seed=1)
    before = eng.state.copy()
    with pytest.raises(ValueError, match="read-only"):
        eng.legal_mask()[:, :] = True
    editable = eng.legal_mask().copy()
    editable[:, :] = True
    assert not eng.legal_mask().all()
    for dealers in ({0: 3, 1: 3, 2: 3}, {0, 1, 2}, np.array(0), np.zeros((3, 1), dtype=int)):
        with pytest.raises(ValueError, match="dealers must be a list of 3 seats"):
            eng.reset(dealers=dealers)
    for walls in ({0: [0] * 136}, np.array(0)):
        with pytest.raises(mj_env.wall.WallError, match="walls must be a list of 3 walls"):
            eng.reset(walls=walls)
    with pytest.raises(ValueError, match="tables must be a 1-D array"):
        eng.reset(tables=[[0], [1, 2]])
    for table, err in ((-1, ValueError), (3, ValueError), (1.5, TypeError), ("a", TypeError), ([0, 1], ValueError)):
        with pytest.raises(err, match="table"):
            eng.explain_illegal(table, 0)
    st = eng.state
    assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)
    assert "illegal" in eng.explain_illegal(np.int64(2), int(np.flatnonzero(~eng.legal_mask()[2])[0]))


def test_editing_the_observed_mask_does_not_change_action_masks():
    import gymnasium as gym
    env = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    obs, _ = env.reset(seed=0)
    want = env.action_masks().copy()
    obs["action_mask"][:] = 1
    assert (env.action_masks() == want).all()


@pytest.mark.parametrize("make", [RandomAgent, RuleBasedAgent, EfficientAgent])
def test_baseline_agents_check_what_they_are_given(make):
    """A probe gave planes of 255 (the rule agent raised AssertionError, blaming itself), a 50-column mask (the
    random agent answered), fewer observation rows than mask rows, and a NaN mask (read as all legal)."""
    eng = Engine(num_tables=3, seed=0)
    eng.reset(seed=1)
    o, m = observe(eng.rules, eng.state), eng.legal_mask()
    agent, rng = make(), np.random.default_rng(0)
    assert agent.act({"observation": o[:0], "action_mask": m[:0]}, rng).shape == (0,)
    assert m[np.arange(3), agent.act({"observation": o, "action_mask": m.astype(np.float32)}, rng)].all()
    nan_mask = m.astype(float)
    nan_mask[0, 0] = np.nan
    assert (agent.act({"observation": o.astype(float), "action_mask": m}, np.random.default_rng(0))
            == agent.act({"observation": o, "action_mask": m}, np.random.default_rng(0))).all()  # whole floats
    for bad, match in [({"observation": np.full_like(o, 255), "action_mask": m}, "at most 4 of a kind"),
                       ({"observation": o, "action_mask": m[:, :50]}, "action_mask must be"),
                       ({"observation": o[:2], "action_mask": m}, "one row per observation row"),
                       ({"observation": o, "action_mask": nan_mask}, "no NaN"),
                       ({"observation": o + 0.5, "action_mask": m}, "whole numbers 0-255"),
                       ({"observation": o.astype(complex), "action_mask": m}, "observation must be"),
                       (o, "obs must be a dict")]:
        with pytest.raises(ValueError, match=match):
            agent.act(bad, rng)


@pytest.mark.parametrize("make", [RandomAgent, RuleBasedAgent, EfficientAgent])
def test_baseline_agents_refuse_odd_arrays_with_a_value_error(make):
    """Observations and masks of odd types and shapes (None, scalars, strings, ragged or nested lists, object,
    complex or masked arrays, an extra axis): a ValueError, never another exception (an observation of None
    reached the rule agent as None and raised TypeError, once the planes check moved to one place)."""
    eng = Engine(num_tables=3, seed=0)
    eng.reset(seed=1)
    o, m = observe(eng.rules, eng.state), eng.legal_mask()
    odd_o = [None, 5, "x", [], [[1, 2], [3]], o.astype(object), o[..., None], o.astype(np.complex64), o[:, :, :10]]
    odd_m = [None, 5, "x", [], m.astype(object), m[:, :, None], m.astype(np.float32) * np.nan]
    agent = make()
    for obs in [{"observation": x, "action_mask": m} for x in odd_o] + [{"observation": o, "action_mask": x}
                                                                       for x in odd_m]:
        with pytest.raises(ValueError):
            agent.act(obs, np.random.default_rng(0))


def _turn_or_claim_positions(rng, n: int, rules: str):
    """Planes that are garbage but for a hand plane, a phase and a mask that make a position the engine could
    ask about: an own turn of 3k+2 tiles discarding kinds it holds, or a claim or rob window of 3k+1."""
    from mj_env.baselines import _CLAIM_ACTIONS, _TURN_ACTIONS
    from mj_env.observation import COL_PHASE, N_PLANES, P_HAND, P_SCALARS
    planes = rng.integers(0, 256, (n, N_PLANES, 34)).astype(np.uint8)
    phase = rng.integers(0, 3, n)
    mask = (rng.random((n, A.N_ACTIONS)) < rng.random((n, 1))) & np.where(phase[:, None] == 0, _TURN_ACTIONS,
                                                                         _CLAIM_ACTIONS)
    for i in range(n):
        size = 3 * int(rng.integers(0, 5)) + (2 if phase[i] == 0 else 1)
        hand = np.bincount(rng.choice(np.repeat(np.arange(34), 4), size, replace=False), minlength=34)
        planes[i, P_HAND] = hand
        if phase[i] == 0:
            for lo in (A.DISCARD, A.KONG_SELF, A.TING):
                mask[i, lo:lo + 34] &= hand > 0
            mask[i, A.DISCARD + rng.choice(np.flatnonzero(hand))] = True
        else:
            mask[i, A.PASS] = True
    planes[:, P_SCALARS, COL_PHASE] = phase
    if rules != "quemen":
        mask[:, A.TING:] = False
    return planes, mask


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_rule_agents_play_any_position_legally(rules):
    """Garbage planes around a real position (the hand, the phase, a mask of legal-looking actions): the rule
    and efficient agents answer with an action their mask allows, never a crash deep in the hand tables or the
    agent's own illegal-choice guard (a probe got "wild must be >= 0", "tiles_to_win takes counts of 0-4"
    and AssertionError "rule agent chose illegal action")."""
    rng = np.random.default_rng(7)
    for agent in (RuleBasedAgent(rules), EfficientAgent(rules)):
        for _ in range(20):
            planes, mask = _turn_or_claim_positions(rng, 32, rules)
            actions = agent.act({"observation": planes, "action_mask": mask}, rng)
            assert mask[np.arange(32), actions].all()


def test_rule_agents_refuse_a_row_that_is_no_position():
    from mj_env.observation import COL_PHASE, P_HAND, P_SCALARS
    eng = Engine(num_tables=1, seed=0)
    eng.reset(seed=1)
    o, m = observe(eng.rules, eng.state), eng.legal_mask()  # the dealer's first turn: 14 tiles
    assert o[0, P_SCALARS, COL_PHASE] == 0 and not m[0, A.PASS]
    claim = o.copy()
    claim[0, P_SCALARS, COL_PHASE] = 1
    phase_200 = o.copy()
    phase_200[0, P_SCALARS, COL_PHASE] = 200
    phase_3 = o.copy()  # one past ROB, with a mask a rob window could have
    phase_3[0, P_SCALARS, COL_PHASE] = 3
    pass_only = np.zeros_like(m)
    pass_only[0, A.PASS] = True
    thirteen = o.copy()
    thirteen[0, P_HAND, np.flatnonzero(o[0, P_HAND])[0]] -= 1
    claim_13 = thirteen.copy()  # a claim window of 13 tiles whose mask allows pong but not pass
    claim_13[0, P_SCALARS, COL_PHASE] = 1
    claim_no_pass = np.zeros_like(m)
    claim_no_pass[0, A.PONG] = True
    unheld = m.copy()
    unheld[0, A.DISCARD + np.flatnonzero(o[0, P_HAND] == 0)[0]] = True
    with_pass = m.copy()
    with_pass[0, A.PASS] = True
    for planes, mask, says in [(claim, m, "a claim or rob window's mask allows pass"),
                               (o, with_pass, "an own turn's mask allows a discard and only"),
                               (phase_200, m, "the phase is 0-2"),
                               (phase_3, pass_only, "the phase is 0-2"),
                               (claim_13, claim_no_pass, "a claim or rob window's mask allows pass"),
                               (thirteen, m, "an own turn holds 3k+2 concealed tiles"),
                               (o, unheld, "an own turn discards and kongs only kinds it holds")]:
        for agent in (RuleBasedAgent(), EfficientAgent()):
            with pytest.raises(ValueError, match=re.escape(says)):
                agent.act({"observation": planes, "action_mask": mask}, np.random.default_rng(0))


def test_redeal_refuses_a_ragged_seat_list():
    from mj_env.determinize import redeal
    eng = Engine(num_tables=3, seed=0)
    eng.reset(seed=1)
    with pytest.raises(TypeError, match="seat must be a seat number or an array of them"):
        redeal(eng, seat=[[0], [1, 2]], rng=np.random.default_rng(0))


def test_autoreset_mode_is_taken_by_member_name_value_or_member():
    """The README writes SAME_STEP / NEXT_STEP: those names are taken as strings too, as are Gymnasium's values."""
    from gymnasium.vector import AutoresetMode

    from mj_env.single_agent import MahjongSingleAgentVectorEnv
    from mj_env.vector import MahjongVectorEnv

    for arg, mode in [("NEXT_STEP", AutoresetMode.NEXT_STEP), ("NextStep", AutoresetMode.NEXT_STEP),
                      ("SAME_STEP", AutoresetMode.SAME_STEP), (AutoresetMode.NEXT_STEP, AutoresetMode.NEXT_STEP)]:
        assert MahjongVectorEnv(2, autoreset_mode=arg).metadata["autoreset_mode"] == mode
        assert MahjongSingleAgentVectorEnv(2, opponents="random", autoreset_mode=arg).autoreset_mode == mode
    for bad in ("DISABLED", "next_step", 3, None):
        with pytest.raises(ValueError, match="autoreset_mode must be"):
            MahjongVectorEnv(2, autoreset_mode=bad)


@pytest.mark.parametrize("dealer, shown", [(4, "got 4"), ("4", "got '4'"), (1.0, "got 1.0"), (True, "got True")])
def test_a_bad_dealer_is_shown_as_given(dealer, shown):
    """The integer 4 and the string '4' read apart in the error (both used to read "got '4'")."""
    env = mj_env.env()
    with pytest.raises(ValueError, match=f"must be a seat 0-3 \\(an integer\\), {shown}$"):
        env.reset(seed=1, options={"dealer": dealer})


@pytest.mark.parametrize("wall, words", [
    (np.array(5), "1-D list of tile codes or indices, got an array of shape \\(\\)"),
    (np.zeros((4, 34), np.int8), "got an array of shape \\(4, 34\\)"),
    (np.zeros(10**7, np.int8), "the beijing wall has 136 tiles, got 10000000")])
def test_a_wall_of_the_wrong_shape_or_size_is_refused_before_its_tiles_are_read(wall, words):
    env = mj_env.env()
    env.reset(seed=3)
    before = env.state().copy()
    with pytest.raises(mj_env.wall.WallError, match=words):
        env.reset(options={"wall": wall})
    assert np.array_equal(env.state(), before)


@pytest.mark.parametrize("mode", ["rgb_array", 5, ""])
def test_the_self_play_vector_env_refuses_a_render_mode_it_cannot_draw(mode):
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi' or 'human'"):
        MahjongVectorEnv(2, render_mode=mode)
