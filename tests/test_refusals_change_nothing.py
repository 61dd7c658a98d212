"""A refusal changes nothing, and says what and where (audit AK).

The developers' guide promises that bad input "gets a clear error that says what is wrong and where, and
changes nothing: check everything before changing anything". Expectation written before reading the code,
for every entry point that changes state and takes outside input (the engine's ``step``, ``reset``,
``clone``, ``restore``; the vector env's and the single-agent envs' ``step``, ``reset`` and settings; the
SB3 VecEnv's ``step_async``/``step_wait``; ``determinize.redeal``):

1. the error is the documented kind (``ActionError`` for actions, ``ValueError``/``TypeError`` for other
   arguments, docs/INTERFACES.md 2) and its message names the bad value's table or argument;
2. the whole object is bit-for-bit as it was: every NumPy array reachable from it, every generator's
   ``bit_generator.state``, counters, settings (``deep_snapshot`` below walks them all), and the next legal
   call gives what a twin that never saw the refused call gives;
3. nothing is half-applied (rewards waiting, autoreset flags, hand records).

What the audit found, each fixed and pinned here (each test below fails without its fix):

- An object whose ``__array__`` raises, given as ``tables`` (``Engine.step``, ``reset``, ``clone``,
  ``restore``), as ``reset_mask``, as the SB3 VecEnv's actions or as ``redeal``'s seats, escaped as the
  object's own RuntimeError, naming neither the argument nor a documented error type; ``action_batch``
  already turned it into an ActionError. Now: ValueError/TypeError/ActionError naming the argument.
- ``MahjongSingleAgentVectorEnv.max_episode_steps`` was a plain attribute: ``0`` (which the constructor
  refuses) truncated every later step, and ``"x"`` failed at the next step with NumPy's UFuncTypeError.
  Now it is checked when assigned, as the constructor checks it (``seat_mode`` and the illegal-action
  settings already were).
- A bool among table numbers (``Engine.step``/``reset``/``clone``/``restore``'s tables, ``redeal``'s and
  ``shuffle_wall``'s) or among ``redeal``'s seats was read as 1 (NumPy reads ``[0, True]`` as ``[0, 1]``),
  where a bool dealer, wall tile or action is refused: now refused by name, nothing changed.
- ``RolloutSearchAgent.act_tables`` given a legacy ``RandomState`` counted its decisions in ``stats`` and
  then failed with an AttributeError in the search; now any ``rng`` but a Generator is a TypeError first.
- The agents' ``act`` (the baselines through ``observation.checked_planes``/``checked_mask``, and
  ``NetworkAgent``) let such an object's RuntimeError out too, where their other refusals of the planes
  and mask are ValueErrors naming the key: now a ValueError naming it (nothing is changed either way: the
  agents keep no state, and the generator does not move).

The other tests sweep many kinds of refused action batches (wrong shape, dtype, NaN, negative, out of
range, bools among ints, ``None``, strings, lying or raising objects, masked entries, an illegal action at
the LAST table only) through the vector env (with and without hand records, both autoreset modes), the
batched single-agent env and the SB3 VecEnv, against a twin; they passed before this audit.
"""
from __future__ import annotations

import types

import numpy as np
import pytest
from test_clone import assert_same, snapshot
from unreadable import Unreadable

from mj_env import actions as A
from mj_env.determinize import redeal, shuffle_wall
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv


class LyingIndex:
    """Says it is the integer 3 through ``__index__``, but is no number NumPy reads as one."""

    def __index__(self) -> int:
        return 3


def deep_snapshot(obj, _seen=None, _depth: int = 0):
    """Everything reachable from ``obj`` as comparable values: arrays by dtype, shape and bytes, generators by
    their ``bit_generator.state``, objects by their attributes. Gymnasium's spaces are left out (their own
    generators are seeded on first use, and no entry point here touches them)."""
    seen = {} if _seen is None else _seen
    if _depth > 12 or isinstance(obj, (int, float, str, bytes, type(None), np.generic)):
        return repr(obj)
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return ("objects", obj.shape, [deep_snapshot(x, seen, _depth + 1) for x in obj.reshape(-1)])
        return ("array", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, np.random.Generator):
        return ("generator", repr(obj.bit_generator.state))
    if isinstance(obj, (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type, types.ModuleType)):
        return ("function", getattr(obj, "__qualname__", repr(obj)))
    if type(obj).__module__.startswith("gymnasium.spaces"):
        return ("space", repr(obj))
    if id(obj) in seen:
        return ("seen", seen[id(obj)])
    seen[id(obj)] = len(seen)
    if isinstance(obj, dict):
        return ("dict", [(repr(k), deep_snapshot(v, seen, _depth + 1)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [deep_snapshot(v, seen, _depth + 1) for v in obj])
    attrs = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    return (type(obj).__name__, [(k, deep_snapshot(v, seen, _depth + 1)) for k, v in sorted(attrs.items())])


def legal_actions(masks, seed: int) -> np.ndarray:
    """One legal action per row of ``masks`` (a random one of each row's legal actions)."""
    rng = np.random.default_rng(seed)
    return np.array([rng.choice(np.flatnonzero(row)) for row in np.asarray(masks)], dtype=np.int64)


def bad_batches(good: np.ndarray) -> list:
    """Refused action batches for ``len(good)`` tables, most of them wrong at the LAST table only."""
    n, g = len(good), [int(a) for a in good]
    return [
        good[:-1], np.concatenate([good, good[:1]]), good[None], good.astype(float), [float(a) for a in g],
        np.full(n, np.nan), np.array(g[:-1] + [-1]), np.array(g[:-1] + [A.N_ACTIONS]), np.array(g[:-1] + [2**40]),
        g[:-1] + [True], g[:-1] + [np.bool_(True)], np.ones(n, dtype=bool), [str(a) for a in g], g[:-1] + [None],
        np.array(g[0]), g[0], np.int64(g[0]), np.array(g, dtype=object), g[:-1] + [LyingIndex()],
        g[:-1] + [Unreadable()], Unreadable(), np.array(g[:-1] + [2**63], dtype=np.uint64),
        good.astype(complex), np.ma.masked_array(good, mask=[False] * (n - 1) + [True]), good.astype("m8[s]"),
        (*g[:-1], 1.0), [[a] for a in g[:-1]] + [[True]],
    ]


# ------------------------------------------------------------------ the faults found (each fixed)
def _dealt_engine(n: int = 3) -> Engine:
    eng = Engine("beijing", num_tables=n, seed=5)
    eng.reset()
    for i in range(7):
        eng.step(legal_actions(eng.legal_mask(), i))
    return eng


@pytest.mark.parametrize("call", [
    lambda e: e.step(legal_actions(e.legal_mask(), 0), tables=Unreadable()),
    lambda e: e.reset(tables=Unreadable()),
    lambda e: e.clone(tables=Unreadable()),
    lambda e: e.restore(e, Unreadable(), [0]),
    lambda e: e.restore(e, 0, Unreadable()),
    lambda e: e.explain_illegal(Unreadable(), 0),
], ids=["step", "reset", "clone", "restore-src", "restore-dst", "explain_illegal"])
def test_engine_tables_whose_array_raises_are_refused_by_name_and_change_nothing(call):
    eng, twin = _dealt_engine(), _dealt_engine()
    before = snapshot(eng)
    with pytest.raises((ValueError, TypeError), match="tables|table must") as info:
        call(eng)
    assert not isinstance(info.value, A.ActionError) or "tables" in str(info.value)
    assert_same(before, snapshot(eng))
    acts = legal_actions(eng.legal_mask(), 1)
    assert np.array_equal(eng.step(acts).rewards, twin.step(acts).rewards)
    assert_same(snapshot(twin), snapshot(eng))


@pytest.mark.parametrize("true", [True, np.True_], ids=["True", "np.True_"])
@pytest.mark.parametrize(("call", "error", "what"), [
    (lambda e, t: e.step(legal_actions(e.legal_mask(), 0), tables=[0, t]), ValueError, "tables"),
    (lambda e, t: e.reset(tables=[0, t]), ValueError, "tables"),
    (lambda e, t: e.clone([0, t]), TypeError, "tables"),
    (lambda e, t: e.restore(e, [0, t], [1, 2]), TypeError, "src_tables"),
    (lambda e, t: e.restore(e, 0, (1, t)), TypeError, "dst_tables"),
    (lambda e, t: redeal(e, [0, t, 0], 0), TypeError, "seat"),
    (lambda e, t: redeal(e, 0, 0, tables=[0, t]), TypeError, "tables"),
    (lambda e, t: shuffle_wall(e, 0, tables=[0, t]), TypeError, "tables"),
], ids=["step", "reset", "clone", "restore-src", "restore-dst", "redeal-seats", "redeal-tables", "shuffle_wall"])
def test_a_bool_among_table_numbers_or_seats_is_refused_not_read_as_1(call, error, what, true):
    """NumPy reads ``[0, True]`` as ``[0, 1]``: table or seat 1 was played, reset, copied or redealt (as a bool
    dealer, wall tile or action already was refused)."""
    eng = Engine("beijing", num_tables=3, seed=1)
    eng.reset()  # every table on the dealer's first turn: redeal may take any seat
    before = snapshot(eng)
    with pytest.raises(error, match=rf"{what}(\[1\] is | must be .*, got )(np\.True_|True)"):
        call(eng, true)
    assert_same(before, snapshot(eng))


def _played_vector_env(records: bool = False, mode: str = "SameStep") -> MahjongVectorEnv:
    env = MahjongVectorEnv(3, seed=3, records=records, autoreset_mode=mode)
    obs, _ = env.reset(seed=3)
    for i in range(40):
        obs, *_ = env.step(legal_actions(obs["action_mask"], i))
    env.last_masks = obs["action_mask"]
    return env


def _same_next_step(env, twin, actions) -> None:
    """The refused env and its twin give the same step and are alike after it."""
    assert deep_snapshot(env.step(actions)) == deep_snapshot(twin.step(actions))
    assert deep_snapshot(env) == deep_snapshot(twin)


def test_a_reset_mask_whose_array_raises_is_a_value_error_and_changes_nothing():
    env, twin = _played_vector_env(), _played_vector_env()
    before = deep_snapshot(env)
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": Unreadable()})
    assert deep_snapshot(env) == before
    _same_next_step(env, twin, legal_actions(env.last_masks, 99))


def test_redeal_seats_whose_array_raises_are_a_type_error_and_change_nothing():
    eng = _dealt_engine()
    before, rng = snapshot(eng), np.random.default_rng(0)
    rng_state = rng.bit_generator.state
    with pytest.raises(TypeError, match="seat"):
        redeal(eng, Unreadable(), rng)
    assert_same(before, snapshot(eng))
    assert rng.bit_generator.state == rng_state


def _played_single_agent_env(**kw) -> MahjongSingleAgentVectorEnv:
    env = MahjongSingleAgentVectorEnv(3, seed=4, seat="random", **kw)
    obs, _ = env.reset(seed=4)
    for i in range(12):
        obs, *_ = env.step(legal_actions(obs["action_mask"], i))
    env.last_masks = obs["action_mask"]
    return env


@pytest.mark.parametrize("bad", [0, -1, "x", True, np.bool_(True), 2.5, np.int64(0)])
def test_max_episode_steps_is_checked_when_assigned_as_the_constructor_checks_it(bad):
    with pytest.raises(ValueError, match="max_episode_steps"):
        MahjongSingleAgentVectorEnv(2, max_episode_steps=bad)
    env, twin = _played_single_agent_env(max_episode_steps=50), _played_single_agent_env(max_episode_steps=50)
    before = deep_snapshot(env)
    with pytest.raises(ValueError, match=r"max_episode_steps must be None or an integer >= 1, got "):
        env.max_episode_steps = bad
    assert deep_snapshot(env) == before and env.max_episode_steps == 50
    _same_next_step(env, twin, legal_actions(env.last_masks, 99))


def test_max_episode_steps_assigned_a_good_value_truncates_from_then_on():
    env = _played_single_agent_env()
    env.max_episode_steps = np.int64(1)
    assert type(env.max_episode_steps) is int
    live = ~env._over  # (NEXT_STEP: a table whose episode ended is dealt anew by this step, its first)
    *_, terminated, truncated, _ = env.step(legal_actions(env.last_masks, 5))
    assert live.any() and (terminated | truncated)[live].all()  # each learner's step 1 or later of its episode
    env.max_episode_steps = None
    assert env.max_episode_steps is None


def test_the_sb3_vecenv_refuses_actions_whose_array_raises_and_changes_nothing():
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    def made():
        venv = MahjongSB3VecEnv(3, seed=2, illegal_action="raise")
        venv.seed(2)
        venv.reset()
        for i in range(10):
            venv.step_async(legal_actions(venv.action_masks(), i))
            venv.step_wait()
        return venv

    venv, twin = made(), made()
    before = deep_snapshot(venv)
    with pytest.raises(A.ActionError, match="expected 3 integer actions"):
        venv.step_async(Unreadable())
    assert deep_snapshot(venv) == before
    good = legal_actions(venv.action_masks(), 99)
    for v in (venv, twin):
        v.step_async(good)
    assert deep_snapshot(venv.step_wait()) == deep_snapshot(twin.step_wait())
    assert deep_snapshot(venv) == deep_snapshot(twin)


# ------------------------------------------------------------------ sweeps that held before the audit
def _message_names_where(message: str, n: int) -> bool:
    """An action batch's refusal says what it expected, or which table holds the bad action."""
    return f"expected {n} integer actions" in message or f"table {n - 1}" in message


@pytest.mark.parametrize(("records", "mode"), [(False, "SameStep"), (True, "NextStep")])
def test_every_kind_of_bad_action_batch_leaves_the_vector_env_as_it_was(records, mode):
    env, twin = _played_vector_env(records, mode), _played_vector_env(records, mode)
    good = legal_actions(env.last_masks, 99)
    illegal = good.copy()
    illegal[-1] = int(np.flatnonzero(env.last_masks[-1] == 0)[0])
    before = deep_snapshot(env)
    for bad in [*bad_batches(good), illegal]:
        with pytest.raises(A.ActionError) as info:
            env.step(bad)
        assert _message_names_where(str(info.value), 3), str(info.value)
        assert deep_snapshot(env) == before, f"changed by {bad!r}"
    _same_next_step(env, twin, good)


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_every_kind_of_bad_action_batch_leaves_the_single_agent_env_as_it_was(illegal_action):
    env = _played_single_agent_env(illegal_action=illegal_action, max_episode_steps=50)
    twin = _played_single_agent_env(illegal_action=illegal_action, max_episode_steps=50)
    good = legal_actions(env.last_masks, 99)
    bads = bad_batches(good)
    if illegal_action == "raise":
        illegal = good.copy()
        illegal[-1] = int(np.flatnonzero(env.last_masks[-1] == 0)[0])
        bads.append(illegal)
    before = deep_snapshot(env)
    for bad in bads:
        with pytest.raises(A.ActionError) as info:
            env.step(bad)
        assert _message_names_where(str(info.value), 3), str(info.value)
        assert deep_snapshot(env) == before, f"changed by {bad!r}"
    _same_next_step(env, twin, good)


@pytest.mark.parametrize("options", [
    {"reset_mask": np.array([False, True, True]), "walls": [list(range(34)) * 4, [0] * 136]},
    {"dealers": [0, 1, 4]}, {"reset_mask": [True, False, 1]}, {"reset_mask": np.ones(3, dtype=int)},
])
def test_a_reset_refused_at_its_last_table_leaves_both_batched_envs_as_they_were(options):
    for made in (_played_vector_env, _played_single_agent_env):
        env, twin = made(), made()
        before = deep_snapshot(env)
        with pytest.raises(ValueError, match="table 1|table 2|reset_mask"):
            env.reset(options=options)
        assert deep_snapshot(env) == before
        _same_next_step(env, twin, legal_actions(env.last_masks, 99))


@pytest.mark.parametrize("name", ["random", "rule", "efficient", "pretrained"])
@pytest.mark.parametrize("key", ["observation", "action_mask"])
def test_an_agent_given_planes_or_a_mask_numpy_cannot_read_says_which_as_a_value_error(name, key):
    if name == "pretrained":
        pytest.importorskip("torch")
    import agents

    agent = agents.make_agent(name, rules="beijing")
    env = _played_vector_env()
    obs = {"observation": observe(env.rules, env.engine.state), "action_mask": env.last_masks}
    obs[key] = Unreadable()
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=rf"{key}'?\]? must be an array: Can't call numpy\(\)"):
        agent.act(obs, rng)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("rng", [np.random.RandomState(0), None, 3])
def test_the_search_agent_refuses_a_generator_it_cannot_use_before_counting_anything(rng):
    from agents.search import RolloutSearchAgent

    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    agent = RolloutSearchAgent(worlds=2)
    before, stats = snapshot(eng), repr(agent.stats)
    with pytest.raises(TypeError, match=r"agent 'search': rng must be a np.random.Generator"):
        agent.act_tables(eng, [0, 1], rng)
    assert_same(before, snapshot(eng))
    assert repr(agent.stats) == stats  # a RandomState failed in the search, its 2 decisions already counted
