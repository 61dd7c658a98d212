"""Stateful fuzz (hypothesis ``RuleBasedStateMachine``) of the public environments in hostile call orders: the
PettingZoo AEC env (``mj_env.env``, ``raw_env`` and the AEC wrappers of ``mj_env.wrappers``), the self-play
``MahjongVectorEnv`` and the single-agent envs (batched and one-table), under the three rule sets.

Each machine drives the env under test and a shadow env made alike with the same calls, and checks after
every rule (docs/RULES.md 7, docs/INTERFACES.md 2, and the envs' docstrings):

- a refused call raises a documented error (``ActionError``, a ValueError, or a RuntimeError after
  ``close()``) whose message says what is wrong, and changes nothing observable (observations, masks,
  rewards, agents, the engine's arrays and generator);
- while a hand runs the acting seat has a legal action (and only it, docs/game_flow.md: the mask is all
  zero in END), and every tile is somewhere: hands, melds, rivers, flowers laid out, the undrawn wall and
  the 惠坯 hold 4 of each kind (and the 8 flowers under ``quemen``);
- rewards are finite, and a settled hand's rewards sum to zero (docs/RULES.md 6: every settlement is
  zero-sum; a penalized illegal action is not, as the AEC docstring says, so it is checked on its own);
- the shadow, given the same seeds and calls, shows the same thing (determinism).

The default run keeps the examples few (about 30 s on one core); ``-m slow`` runs a longer profile (about ten
minutes)."""
from __future__ import annotations

import copy
import dataclasses
import math
import pickle

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from test_env_hardening import assert_same, engine_snapshot

import mj_env
from mj_env import actions as A
from mj_env import records
from mj_env.baselines import AgentError, uniform_legal
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv
from mj_env.state import END
from mj_env.tiles import CODES, FIRST_FLOWER, N_KINDS
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import shuffled_walls
from mj_env.wrappers import (
    FlatObservations,
    FlatObservationsGym,
    FlatObservationsVector,
    NumericInfos,
    ObsAndMask,
    ResetByMask,
)

RULE_SETS = ("beijing", "hebei", "quemen")

# what is no action of Discrete(127), in any env (the AEC docstring: an ActionError that changes nothing in
# either illegal-action mode)
JUNK_ACTIONS = [127, -1, 2**70, 3.0, float("nan"), np.float32("nan"), True, np.bool_(False), "3", b"3", [3], (3,),
                np.array([1, 2]), np.array([[0]]), np.array(3.5), np.array(np.nan), np.uint64(2**64 - 1), object(),
                {"action": 3}, np.datetime64("2020-01-01"), np.timedelta64(3)]
# what is no action batch of N tables (A.action_batch)
JUNK_BATCHES = ["float", "nan", "inf", "short", "long", "2d", "bool", "str", "object", "neg", "big", "list_bool",
                "scalar", "ragged", "masked"]
BAD_PENALTIES = [float("nan"), float("inf"), -1, "10", None, 1e16, 10**400, True, [1], complex(1, 1)]
BAD_SEATS = [4, -1, 1.5, "East", None, True, np.bool_(True), [0], "rotate ", np.float64(0)]


def junk_batch(kind: str, n: int):
    good = np.zeros(n, dtype=np.int64)
    return {
        "float": good.astype(np.float64), "nan": np.full(n, np.nan), "inf": np.full(n, np.inf),
        "short": good[:-1], "long": np.zeros(n + 1, dtype=np.int64), "2d": good[:, None].repeat(2, axis=1),
        "bool": np.zeros(n, dtype=bool), "str": np.array(["0"] * n), "object": np.array([object()] * n),
        "neg": np.full(n, -1), "big": np.full(n, A.N_ACTIONS), "list_bool": [True] + [0] * (n - 1),
        "scalar": 0, "ragged": [[0, 1]] + [[0]] * (n - 1), "masked": np.ma.masked_array(good, mask=[True] * n),
    }[kind]


# ---------------------------------------------------------------------------------------------------------
# invariants shared by every machine


def check_tiles(rules, state, b: int) -> None:
    """Every tile of table ``b`` is somewhere (docs/RULES.md 1 and 3): 4 of each kind, 8 flowers under quemen."""
    undrawn = state.wall[b, int(state.live_pos[b]):int(state.tail_pos[b]) + 1].astype(np.int64)
    kinds = (state.hands[b].sum(axis=0) + state.meld_counts[b].sum(axis=0) + state.river[b].sum(axis=0)
             + np.bincount(undrawn[undrawn < FIRST_FLOWER], minlength=N_KINDS)).astype(np.int64)
    if state.indicator[b] >= 0:
        kinds[int(state.indicator[b])] += 1
    if state.phase[b] == END and state.winners[b].any() and state.win_from[b] >= 0:
        kinds[int(state.win_tile[b])] += 1  # a discard won on (or a robbed kong's tile) leaves its river (or hand)
    assert (kinds == 4).all(), f"table {b}: tile counts {kinds.tolist()}"
    flowers = int(state.flowers[b].sum()) + int((undrawn >= FIRST_FLOWER).sum())
    assert flowers == rules.n_tiles - 4 * N_KINDS, f"table {b}: {flowers} flowers"
    assert state.hands[b].min() >= 0


def check_mask_row(mask_row, running: bool, where: str) -> None:
    assert mask_row.dtype == np.int8 and set(np.unique(mask_row)) <= {0, 1}, where
    if running:
        assert mask_row.sum() >= 1, f"{where}: no legal action while the hand runs"


def same_tree(a, b, where="") -> None:
    """``a`` and ``b`` alike, NumPy arrays compared by value (NaN-free data)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys {sorted(map(str, a))} {sorted(map(str, b))}"
        for k in a:
            same_tree(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same_tree(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, where
        if a.dtype == object:
            same_tree(list(a), list(b), where)
        else:
            assert np.array_equal(a, b), where
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


def refused(call, *types):
    """Run ``call``; it must raise one of ``types`` with a message. The exception."""
    with pytest.raises(types) as info:
        call()
    assert str(info.value).strip(), f"{type(info.value).__name__} without a message"
    return info.value


def twin(env_call, shadow_call):
    """Run a call on the env and on its shadow: the same result or the same refusal (type and message)."""
    outcome = []
    for call in (env_call, shadow_call):
        try:
            outcome.append(("ok", call()))
        except Exception as e:  # noqa: BLE001 (compared below, then raised again)
            outcome.append(("err", e))
    (k1, v1), (k2, v2) = outcome
    assert k1 == k2, f"env {outcome[0]!r}, shadow {outcome[1]!r}"
    if k1 == "err":
        assert type(v1) is type(v2) and str(v1) == str(v2)
        raise v1
    return v1, v2


DOCUMENTED = (A.ActionError, ValueError, RuntimeError, KeyError, records.RecordError)


# ---------------------------------------------------------------------------------------------------------
# the AEC env


def make_aec(rules, wrapper, policy, penalty, render_mode, hands, obs="v1"):
    overrides = {"obs": obs} if hands == 1 else {"hands_per_episode": hands, "obs": obs}
    if wrapper == "raw":
        return mj_env.raw_env(rules=rules, render_mode=render_mode, illegal_action=policy, illegal_penalty=penalty,
                              **overrides)
    e = mj_env.env(rules=rules, render_mode=render_mode, illegal_action=policy, illegal_penalty=penalty, **overrides)
    return {"env": e, "flat": FlatObservations(e) if wrapper == "flat" else e,
            "numeric": NumericInfos(e) if wrapper == "numeric" else e}[wrapper]


class AECMachine(RuleBasedStateMachine):
    """``mj_env.env`` (or ``raw_env``, or wrapped) and a shadow, driven alike."""

    @initialize(rules=st.sampled_from(RULE_SETS), wrapper=st.sampled_from(["env", "raw", "flat", "numeric"]),
                policy=st.sampled_from(["raise", "penalize"]), penalty=st.sampled_from([10, 0, 2.5]),
                render_mode=st.sampled_from([None, "ansi"]), hands=st.sampled_from([1, 1, 2]),
                seed=st.integers(0, 2**20), obs=st.sampled_from(["v1", "v1", "v1", "v2"]),
                deal=st.sampled_from([True, True, True, False]))
    def make(self, rules, wrapper, policy, penalty, render_mode, hands, seed, obs="v1", deal=True):
        self.params = {"wrapper": wrapper, "policy": policy, "penalty": penalty, "render_mode": render_mode,
                       "hands": hands, "obs": obs}
        self.rules = get_rules(rules)
        self.env, self.shadow = (make_aec(rules, wrapper, policy, penalty, render_mode, hands, obs)
                                 for _ in range(2))
        self.closed = False
        self.dealt = False
        self.penalized = False
        self.first_obs = {}
        self.seed = seed
        if deal:
            self.reset_both(seed, None)

    @precondition(lambda self: not self.dealt and not self.closed)
    @rule(call=st.sampled_from(["step", "observe", "last", "state", "render", "hand_record"]))
    def use_before_reset(self, call):
        """Before the first reset nothing is dealt: every call but ``reset`` is refused, naming reset. ``raw_env``
        raises its own errors; ``mj_env.env()`` keeps PettingZoo's order-enforcing checks there (its ``OrderEnforcing``
        docstring), an AssertionError ("reset() needs to be called before step.") or, from ``last()``, an
        AttributeError."""
        wrapped = () if self.params["wrapper"] == "raw" else (AssertionError,)
        calls = {"step": (lambda: self.env.step(0), (A.ActionError, *wrapped)), "state": (self.raw.state, RuntimeError),
                 "observe": (lambda: self.env.observe("player_0"), (RuntimeError, *wrapped)),
                 "last": (lambda: self.env.last(), (RuntimeError, AttributeError)),
                 "render": (lambda: self.env.render(), (RuntimeError, *wrapped)),
                 "hand_record": (self.raw.hand_record, records.RecordError)}
        if call == "render" and self.env.render_mode is None:
            return
        fn, types = calls[call]
        err = refused(fn, *(types if isinstance(types, tuple) else (types,)))
        assert "reset" in str(err), str(err)

    # --- helpers
    @property
    def raw(self):
        return self.env.unwrapped

    def reset_both(self, seed, options):
        twin(lambda: self.env.reset(seed=seed, options=copy.deepcopy(options)),
             lambda: self.shadow.reset(seed=seed, options=copy.deepcopy(options)))
        self.dealt = True
        self.penalized = False
        self.check_end_of_hand()
        if seed is not None and options is None:
            obs = self.env.observe(self.env.agent_selection)
            if seed in self.first_obs:  # seeding twice deals the same hand again
                same_tree(obs, self.first_obs[seed], "observation after a second reset with the same seed")
            self.first_obs[seed] = obs

    def snapshot(self, env) -> dict:
        raw = env.unwrapped
        snap = {"engine": engine_snapshot(raw.engine), "agents": list(raw.agents),
                "rewards": dict(raw.rewards), "cumulative": dict(raw._cumulative_rewards),
                "terminations": dict(getattr(raw, "terminations", {})), "infos": copy.deepcopy(getattr(raw, "infos", None)),
                "policy": (raw.illegal_action, raw.illegal_penalty), "hand": copy.deepcopy(getattr(raw, "_hand", None))}
        if self.dealt and not self.closed:
            snap["selection"] = raw.agent_selection
            snap["obs"] = {a: env.observe(a) for a in raw.possible_agents}
            if raw.agents:
                snap["last"] = env.last()
        return snap

    def assert_unchanged(self, before: dict) -> None:
        after = self.snapshot(self.env)
        assert_same(before["engine"], after["engine"])
        same_tree({k: v for k, v in before.items() if k != "engine"}, {k: v for k, v in after.items() if k != "engine"})

    def live(self) -> bool:
        return self.dealt and not self.closed and bool(self.raw.agents)

    def acting(self):
        a = self.raw.agent_selection
        return a, self.raw.terminations[a] or self.raw.truncations[a]

    def check_end_of_hand(self) -> None:
        """Rewards finite; a hand settled in this call pays zero-sum rewards (docs/RULES.md 6)."""
        raw = self.raw
        rewards = list(raw.rewards.values())
        assert all(isinstance(r, (int, float)) and math.isfinite(r) for r in rewards), rewards
        assert all(math.isfinite(r) for r in raw._cumulative_rewards.values())
        if not self.penalized:
            assert sum(rewards) == 0, rewards
            settled = [i.get("settlement") for i in raw.infos.values() if isinstance(i, dict)]
            for s in settled:
                if isinstance(s, dict) and "scores" in s:
                    assert sum(s["scores"]) == 0, s

    # --- rules
    @precondition(lambda self: not self.closed)
    @rule(seed=st.one_of(st.none(), st.integers(0, 2**20)), explicit=st.booleans(), dealer=st.integers(0, 3),
          wall_seed=st.integers(0, 2**20), form=st.sampled_from(["ints", "codes", "array"]))
    def reset(self, seed, explicit, dealer, wall_seed, form):
        options = None
        if explicit:  # docs/INTERFACES.md 2: a wall of tile codes; tile indices (a list or an array) are taken too
            wall = shuffled_walls(self.rules, np.random.default_rng(wall_seed), 1)[0]
            wall = {"ints": [int(t) for t in wall], "codes": [CODES[t] for t in wall], "array": wall}[form]
            options = {"wall": wall, "dealer": dealer}
        if not self.dealt and seed is None:  # the envs were made unseeded: the shadow deals alike only once seeded
            seed = self.seed
        self.reset_both(seed, options)

    @precondition(lambda self: not self.closed)
    @rule(bad=st.sampled_from(["short_wall", "dup_wall", "code_wall", "dealer4", "dealer_float", "dealer_bool",
                               "not_dict", "near_key", "rules_key", "base_key", "seed_neg", "seed_float",
                               "seed_str", "seed_bool", "wall_str", "wall_nested"]))
    def reset_refused(self, bad):
        n = self.rules.n_tiles
        wall = [int(t) for t in shuffled_walls(self.rules, np.random.default_rng(0), 1)[0]]
        kwargs = {"options": {
            "short_wall": {"wall": wall[:-1]}, "dup_wall": {"wall": [wall[0]] * n},
            "code_wall": {"wall": ["9x"] + wall[1:]}, "dealer4": {"dealer": 4}, "dealer_float": {"dealer": 1.0},
            "dealer_bool": {"dealer": True}, "not_dict": [("wall", wall)], "near_key": {"walls": wall},
            "rules_key": {"rules": "hebei"}, "base_key": {"base": 2}, "wall_str": {"wall": "1m" * n},
            "wall_nested": {"wall": [wall]},
        }.get(bad)}
        kwargs.update({"seed_neg": {"seed": -1}, "seed_float": {"seed": 1.5}, "seed_str": {"seed": "1"},
                       "seed_bool": {"seed": True}}.get(bad, {}))
        before = self.snapshot(self.env)
        refused(lambda: self.env.reset(**kwargs), ValueError)
        self.assert_unchanged(before)

    @precondition(lambda self: self.live())
    @rule(data=st.data())
    def step_legal(self, data):
        agent, done = self.acting()
        if done:
            action = None
        else:
            mask = self.env.observe(agent)["action_mask"]
            action = int(data.draw(st.sampled_from(np.flatnonzero(mask).tolist())))
        twin(lambda: self.env.step(action), lambda: self.shadow.step(action))
        self.check_end_of_hand()

    @precondition(lambda self: self.live())
    @rule(data=st.data(), k=st.integers(1, 60))
    def play_on(self, data, k):
        """Up to ``k`` legal steps (None for agents that are done), checking the table after each."""
        for _ in range(k):
            if not self.live():
                return
            self.step_legal(data)
            self.table_is_sound()

    @precondition(lambda self: self.live() and not self.acting()[1])
    @rule(data=st.data())
    def step_illegal(self, data):
        agent, _ = self.acting()
        mask = self.env.observe(agent)["action_mask"]
        action = int(data.draw(st.sampled_from(np.flatnonzero(mask == 0).tolist())))
        if self.raw.illegal_action == "raise":
            before = self.snapshot(self.env)
            err = refused(lambda: self.env.step(action), A.ActionError)
            assert A.name(action) in str(err) and agent in str(err), str(err)
            self.assert_unchanged(before)
            return
        twin(lambda: self.env.step(action), lambda: self.shadow.step(action))
        self.penalized = True
        raw = self.raw
        assert raw.rewards[agent] == -raw.illegal_penalty
        assert all(raw.rewards[a] == 0 for a in raw.agents if a != agent)
        assert raw.infos[agent] == {"illegal_action": A.name(action)}
        assert all(raw.terminations.values())
        for a in raw.agents:
            assert not self.env.observe(a)["action_mask"].any(), "a penalized hand is over: no legal action"
        refused(lambda: raw.hand_record(), records.RecordError)

    @precondition(lambda self: self.dealt and not self.closed)
    @rule(junk=st.sampled_from(range(len(JUNK_ACTIONS))))
    def step_junk(self, junk):
        action = JUNK_ACTIONS[junk]
        before = self.snapshot(self.env)
        if self.raw.agents:
            err = refused(lambda: self.env.step(action), A.ActionError)
            assert self.acting()[0] in str(err), str(err)
        else:
            refused(lambda: self.env.step(action), A.ActionError)
        self.assert_unchanged(before)

    @precondition(lambda self: self.live() and not self.acting()[1])
    @rule()
    def step_none_while_live(self):
        before = self.snapshot(self.env)
        refused(lambda: self.env.step(None), A.ActionError)
        self.assert_unchanged(before)

    @precondition(lambda self: self.live() and self.acting()[1])
    @rule(action=st.integers(0, A.N_ACTIONS - 1))
    def step_dead_agent_with_an_action(self, action):
        before = self.snapshot(self.env)
        err = refused(lambda: self.env.step(action), A.ActionError)
        assert "step(None)" in str(err)
        self.assert_unchanged(before)

    @precondition(lambda self: self.dealt and not self.closed and not self.raw.agents)
    @rule(action=st.sampled_from([None, 0, A.PASS]))
    def use_after_the_episode(self, action):
        before = self.snapshot(self.env)
        refused(lambda: self.env.step(action), A.ActionError)
        refused(lambda: self.env.last(), A.ActionError)
        for a in self.raw.possible_agents:  # observe still reads what the table shows
            assert not self.env.observe(a)["action_mask"].any()
        self.assert_unchanged(before)

    @precondition(lambda self: self.dealt and not self.closed)
    @rule(agent=st.sampled_from(["player_0", "player_3", "player_4", 0, None]))
    def observe_any(self, agent):
        before = self.snapshot(self.env)
        if agent in self.raw.possible_agents:
            self.env.observe(agent)
            self.env.observation_space(agent)
        else:
            refused(lambda: self.env.observe(agent), KeyError)
            refused(lambda: self.env.action_space(agent), KeyError)
        self.assert_unchanged(before)

    @precondition(lambda self: self.dealt and not self.closed)
    @rule()
    def render_and_state(self):
        before = self.snapshot(self.env)
        if self.env.render_mode == "ansi":
            assert isinstance(self.env.render(), str)
        state = self.raw.state()
        assert state.shape == (4, 14, 34) and state.dtype == np.uint8
        self.assert_unchanged(before)

    @precondition(lambda self: not self.closed)
    @rule(field=st.sampled_from(["illegal_action", "illegal_penalty"]), good=st.booleans(), data=st.data())
    def change_setting(self, field, good, data):
        if good:
            value = data.draw(st.sampled_from(["raise", "penalize"]) if field == "illegal_action"
                              else st.sampled_from([0, 1, 7.5, 10]))
            twin(lambda: setattr(self.env, field, value), lambda: setattr(self.shadow, field, value))
            assert getattr(self.raw, field) == value and getattr(self.env, field) == value
            return
        value = data.draw(st.sampled_from(["Raise", "ignore", None, 1, True]) if field == "illegal_action"
                          else st.sampled_from(BAD_PENALTIES))
        before = self.snapshot(self.env)
        refused(lambda: setattr(self.env, field, value), ValueError)
        self.assert_unchanged(before)

    @precondition(lambda self: self.dealt and not self.closed)
    @rule()
    def record_replays(self):
        """The hand record replays to the same settlement (None while the hand runs); refused in a match or
        after a penalized action (the ``hand_record`` docstring)."""
        before = self.snapshot(self.env)
        if self.raw.rules.hands_per_episode != 1 or self.penalized:
            refused(self.raw.hand_record, records.RecordError)
        else:
            rec = self.raw.hand_record()
            same_tree(records.replay(rec), rec.get("settlement"), "replayed settlement")
        self.assert_unchanged(before)

    @precondition(lambda self: self.dealt and not self.closed)
    @rule(how=st.sampled_from(["deepcopy", "pickle"]), data=st.data())
    def copies_are_independent(self, how, data):
        """A copy of the env (where it can be made) plays on alone: the original is left as it was."""
        before = self.snapshot(self.env)
        dup = copy.deepcopy(self.env) if how == "deepcopy" else pickle.loads(pickle.dumps(self.env))
        if dup.unwrapped.agents:
            a = dup.unwrapped.agent_selection
            done = dup.unwrapped.terminations[a] or dup.unwrapped.truncations[a]
            mask = dup.observe(a)["action_mask"]
            action = None if done else int(data.draw(st.sampled_from(np.flatnonzero(mask).tolist())))
            dup.step(action)
        self.assert_unchanged(before)

    @rule(call=st.sampled_from(["reset", "step", "observe", "last", "state", "render"]), seed=st.integers(0, 2**20))
    def close(self, call, seed):
        """close() (twice); then every call but ``hand_record`` is a RuntimeError (the AEC docstring). Then the
        machine goes on with new envs made alike."""
        for _ in range(2):
            self.env.close()
            self.shadow.close()
        self.closed = True
        calls = {"reset": lambda: self.env.reset(seed=1), "step": lambda: self.env.step(0),
                 "observe": lambda: self.env.observe("player_0"), "last": lambda: self.env.last(),
                 "state": lambda: self.raw.state(), "render": lambda: self.env.render()}
        for name in (call, *calls):
            if name == "render" and self.env.render_mode is None:
                continue  # no render mode: a warning and None (the AEC docstring)
            refused(calls[name], RuntimeError)
        if self.dealt and self.raw.rules.hands_per_episode == 1 and not self.penalized:
            self.raw.hand_record()
        self.make(self.raw.rules.name, seed=seed, **self.params)

    # --- invariants
    @invariant()
    def table_is_sound(self):
        if not getattr(self, "dealt", False) or self.closed:
            return
        raw = self.raw
        state = raw.engine.state
        check_tiles(self.rules, state, 0)
        live = bool(raw.agents) and not self.acting()[1]
        for a in raw.possible_agents:
            mask = self.env.observe(a)["action_mask"]
            running = live and a == raw.agent_selection
            check_mask_row(mask, running, a)
            if not running:
                assert not mask.any(), f"{a} has legal actions but is not asked"
        if state.phase[0] == END:
            assert not raw.engine.legal_mask()[0].any()

    @invariant()
    def shadow_agrees(self):
        if not getattr(self, "dealt", False) or self.closed:
            return
        a, b = self.snapshot(self.env), self.snapshot(self.shadow)
        assert_same(a["engine"], b["engine"])
        same_tree({k: v for k, v in a.items() if k != "engine"}, {k: v for k, v in b.items() if k != "engine"})


# ---------------------------------------------------------------------------------------------------------
# the self-play vector env


N_TABLES = 3


class VectorMachine(RuleBasedStateMachine):
    """``MahjongVectorEnv`` of three tables and a shadow."""

    @initialize(rules=st.sampled_from(RULE_SETS), mode=st.sampled_from(["SameStep", "NextStep"]),
                seed=st.integers(0, 2**20), hands=st.sampled_from([1, 1, 2]), obs=st.sampled_from(["v1", "v1", "v1", "v2"]))
    def make(self, rules, mode, seed, hands, obs="v1"):
        self.params = {"mode": mode, "hands": hands, "obs": obs}
        self.rules = get_rules(rules)
        overrides = {"obs": obs} if hands == 1 else {"hands_per_episode": hands, "obs": obs}
        self.env, self.shadow = (MahjongVectorEnv(N_TABLES, rules=rules, seed=seed, autoreset_mode=mode,
                                                  render_mode="ansi", **overrides) for _ in range(2))
        self.next_step = mode == "NextStep"
        self.closed = False
        self.obs = None
        self.reset_both(seed, None)

    def reset_both(self, seed, options):
        (o1, _), (o2, _) = twin(lambda: self.env.reset(seed=seed, options=copy.deepcopy(options)),
                                lambda: self.shadow.reset(seed=seed, options=copy.deepcopy(options)))
        same_tree(o1, o2, "reset observation")
        self.obs = o1

    def snapshot(self) -> dict:
        e = self.env
        return {"engine": engine_snapshot(e.engine), "pending": e.pending_rewards.copy(), "over": e._over.copy(),
                "obs": e._obs()}

    def assert_unchanged(self, before):
        after = self.snapshot()
        assert_same(before["engine"], after["engine"])
        same_tree({k: v for k, v in before.items() if k != "engine"}, {k: v for k, v in after.items() if k != "engine"})

    @precondition(lambda self: not self.closed)
    @rule(seed=st.one_of(st.none(), st.integers(0, 2**20)), mask=st.lists(st.booleans(), min_size=N_TABLES,
                                                                           max_size=N_TABLES),
          explicit=st.booleans(), wall_seed=st.integers(0, 2**20))
    def reset(self, seed, mask, explicit, wall_seed):
        options = {"reset_mask": np.array(mask)}
        n = int(np.sum(mask))
        if explicit:
            walls = shuffled_walls(self.rules, np.random.default_rng(wall_seed), n)
            options.update({"walls": walls, "dealers": np.arange(n) % 4})
        self.reset_both(seed, options)

    @precondition(lambda self: not self.closed)
    @rule(bad=st.sampled_from(["mask_int", "mask_short", "walls_count", "dealers_5", "unknown", "seed_neg",
                               "wall_dup"]))
    def reset_refused(self, bad):
        n = self.rules.n_tiles
        kwargs = {"options": {
            "mask_int": {"reset_mask": np.ones(N_TABLES, dtype=int)}, "mask_short": {"reset_mask": [True]},
            "walls_count": {"walls": shuffled_walls(self.rules, np.random.default_rng(0), N_TABLES + 1)},
            "dealers_5": {"dealers": [5] * N_TABLES}, "unknown": {"wall": None},
            "wall_dup": {"walls": np.zeros((N_TABLES, n), dtype=int)},
        }.get(bad)}
        if bad == "seed_neg":
            kwargs = {"seed": -3}
        before = self.snapshot()
        refused(lambda: self.env.reset(**kwargs), ValueError)
        self.assert_unchanged(before)

    @precondition(lambda self: not self.closed)
    @rule(data=st.data())
    def step_legal(self, data):
        mask = self.obs["action_mask"]
        acts = np.array([data.draw(st.sampled_from(np.flatnonzero(row).tolist())) for row in mask], dtype=np.int64)
        out1, out2 = twin(lambda: self.env.step(acts.copy()), lambda: self.shadow.step(acts.copy()))
        same_tree(out1, out2, "step")
        obs, rewards, term, trunc, infos = out1
        assert rewards.shape == (N_TABLES, 4) and np.isfinite(rewards).all()
        assert (rewards.sum(axis=1) == 0).all(), rewards
        for b in np.flatnonzero(infos["_settlement"]):
            assert sum(infos["settlement"][b]["scores"]) == 0
        assert not trunc.any()
        assert not (term & ~infos["_settlement"]).any(), "an episode ended with no settlement"
        self.obs = obs

    @precondition(lambda self: not self.closed)
    @rule(data=st.data(), k=st.integers(1, 60))
    def play_on(self, data, k):
        for _ in range(k):
            self.step_legal(data)
            self.tables_are_sound()

    @precondition(lambda self: not self.closed)
    @rule(data=st.data())
    def step_illegal(self, data):
        mask = self.obs["action_mask"]
        live = np.flatnonzero(~self.env._over) if self.next_step else np.arange(N_TABLES)
        if not len(live):
            return
        b = data.draw(st.sampled_from(live.tolist()))
        acts = np.array([np.flatnonzero(row)[0] for row in mask], dtype=np.int64)
        acts[b] = data.draw(st.sampled_from(np.flatnonzero(mask[b] == 0).tolist()))
        before = self.snapshot()
        err = refused(lambda: self.env.step(acts), A.ActionError)
        assert A.name(int(acts[b])) in str(err), str(err)
        self.assert_unchanged(before)

    @precondition(lambda self: not self.closed)
    @rule(kind=st.sampled_from(JUNK_BATCHES))
    def step_junk(self, kind):
        before = self.snapshot()
        refused(lambda: self.env.step(junk_batch(kind, N_TABLES)), A.ActionError)
        self.assert_unchanged(before)

    @precondition(lambda self: not self.closed)
    @rule()
    def render(self):
        before = self.snapshot()
        assert isinstance(self.env.render(), str)
        self.assert_unchanged(before)

    @rule(seed=st.integers(0, 2**20))
    def close(self, seed):
        """close() (twice); then reset, step and render are RuntimeErrors. The machine goes on with new envs."""
        for _ in range(2):
            self.env.close()
            self.shadow.close()
        self.closed = True
        refused(lambda: self.env.step(np.zeros(N_TABLES, dtype=np.int64)), RuntimeError)
        refused(lambda: self.env.reset(seed=0), RuntimeError)
        refused(lambda: self.env.render(), RuntimeError)
        self.make(self.rules.name, seed=seed, **self.params)

    @invariant()
    def tables_are_sound(self):
        if getattr(self, "obs", None) is None or self.closed:
            return
        st_ = self.env.engine.state
        mask = self.obs["action_mask"]
        for b in range(N_TABLES):
            check_tiles(self.rules, st_, b)
            ended = self.next_step and self.env._over[b]
            check_mask_row(mask[b], True, f"table {b}")
            if ended:
                assert mask[b].tolist() == [int(i == A.PASS) for i in range(A.N_ACTIONS)]
            else:
                assert st_.phase[b] != END, f"table {b} ended but was not dealt anew"
                assert np.array_equal(mask[b].astype(bool), self.env.engine.legal_mask()[b])
                assert self.obs["seat"][b] == st_.to_act[b]

    @invariant()
    def shadow_agrees(self):
        if getattr(self, "obs", None) is None or self.closed:
            return
        assert_same(engine_snapshot(self.env.engine), engine_snapshot(self.shadow.engine))
        assert np.array_equal(self.env.pending_rewards, self.shadow.pending_rewards)


# ---------------------------------------------------------------------------------------------------------
# the single-agent envs


class FlakyAgent:
    """An opponent (the batched agent protocol, ``mj_env.baselines``) that plays uniformly at random, or, when
    ``mode`` says so, raises, answers an illegal action, or answers what is no action batch."""

    name = "flaky"

    def __init__(self):
        self.mode = "ok"

    def act(self, obs, rng):
        mask = obs["action_mask"]
        if self.mode == "raise":
            raise ZeroDivisionError("the flaky opponent fails")
        if self.mode == "illegal":
            return (mask == 0).argmax(axis=1).astype(np.int64)
        if self.mode == "floats":
            return np.zeros(len(mask))
        return uniform_legal(mask, rng)


def opponents_of(spec):
    return FlakyAgent() if spec == "flaky" else spec


class SingleAgentMachine(RuleBasedStateMachine):
    """``MahjongSingleAgentVectorEnv`` of three tables (or the one-table ``MahjongSingleAgentEnv``) and a shadow;
    the settings ``seat``, ``illegal_action``, ``illegal_penalty`` and ``opponents`` change mid-episode."""

    @initialize(rules=st.sampled_from(RULE_SETS), one=st.booleans(), mode=st.sampled_from(["NextStep", "SameStep"]),
                policy=st.sampled_from(["raise", "penalize"]), seat=st.sampled_from([0, 1, 2, 3, "rotate", "random"]),
                opponents=st.sampled_from(["random", "rule", "flaky"]), seed=st.integers(0, 2**20),
                wrapper=st.sampled_from([None, None, "flat", "reset_by_mask"]), limit=st.sampled_from([None, None, 4]))
    def make(self, rules, one, mode, policy, seat, opponents, seed, wrapper=None, limit=None):
        self.params = {"rules": rules, "one": one, "mode": mode, "policy": policy, "seat": seat,
                       "opponents": opponents, "wrapper": wrapper, "limit": limit}
        self.rules = get_rules(rules)
        self.one = one
        kw = {"seat": seat, "illegal_action": policy, "render_mode": "ansi"}
        if one:  # gym.make's one-table env, behind Gymnasium's own wrappers
            self.env, self.shadow = (gym.make(f"mj_env/{rules.capitalize()}-v0", opponents=opponents_of(opponents),
                                              **kw) for _ in range(2))
            assert isinstance(self.env.unwrapped, MahjongSingleAgentEnv)
            if wrapper is not None:  # mj_env.wrappers' adapters of the one-table env
                wrap = FlatObservationsGym if wrapper == "flat" else ObsAndMask
                self.env, self.shadow = wrap(self.env), wrap(self.shadow)
        else:
            self.env, self.shadow = (MahjongSingleAgentVectorEnv(N_TABLES, rules=rules, seed=seed, autoreset_mode=mode,
                                                                 opponents=opponents_of(opponents),
                                                                 max_episode_steps=limit, **kw)
                                     for _ in range(2))
            if wrapper is not None and mode == "NextStep":  # mj_env.wrappers' adapters of the NEXT_STEP form
                wrap = FlatObservationsVector if wrapper == "flat" else ResetByMask
                self.env, self.shadow = wrap(self.env), wrap(self.shadow)
        self.closed = False
        self.done = np.zeros(self.n, dtype=bool)
        self.reset_both(seed)

    @property
    def n(self) -> int:
        return 1 if self.one else N_TABLES

    @property
    def venv(self):
        return self.env.unwrapped.venv if self.one else self.env.unwrapped

    def reset_both(self, seed, options=None):
        (o1, i1), (o2, i2) = twin(lambda: self.env.reset(seed=seed, options=copy.deepcopy(options)),
                                  lambda: self.shadow.reset(seed=seed, options=copy.deepcopy(options)))
        same_tree((o1, i1), (o2, i2), "reset")
        self.obs = o1
        self.done[:] = False

    def shadow_venv(self):
        return self.shadow.unwrapped.venv if self.one else self.shadow.unwrapped

    def plain_reset(self):
        return self.env.reset(seed=0)

    def set_setting(self, env, field, value):
        if self.one:  # through Gymnasium's wrappers, Gymnasium's way (a plain setattr stays on the outer wrapper)
            env.set_wrapper_attr(field, value)
        else:
            setattr(env.unwrapped, field, value)

    def illegal_flag(self, infos, b: int) -> bool:
        if self.one:
            return bool(infos["illegal_action"])
        where = infos if "illegal_action" in infos else infos["final_info"]
        return bool(where["illegal_action"][b])

    def masks(self) -> np.ndarray:
        mask = self.obs["mask"] if "mask" in self.obs else self.obs["action_mask"]  # (ObsAndMask's key)
        return mask.reshape(self.n, A.N_ACTIONS)

    def snapshot(self) -> dict:
        v = self.venv
        snap = {"engine": engine_snapshot(v.engine), "rng": copy.deepcopy(v.rng.bit_generator.state),
                "book": {k: getattr(v, k).copy() for k in v._BOOKKEEPING}, "mask": v._last_mask.copy(),
                "settings": (v.seat_mode, v.illegal_action, v.illegal_penalty, v.opponents),
                "settlements": copy.deepcopy(v.last_settlements)}
        if self.one:
            snap["done"] = self.env.unwrapped._done
        return snap

    def assert_unchanged(self, before):
        after = self.snapshot()
        assert_same(before["engine"], after["engine"])
        for k in ("rng", "book", "mask", "settlements"):
            same_tree(before[k], after[k], k)
        assert before["settings"] == after["settings"]
        assert before.get("done") == after.get("done")

    def step_both(self, act):
        out1, out2 = twin(lambda: self.env.step(copy.deepcopy(act)), lambda: self.shadow.step(copy.deepcopy(act)))
        same_tree(out1, out2, "step")
        obs, reward, term, trunc, infos = out1
        assert np.isfinite(np.asarray(reward, dtype=float)).all()
        assert not (np.asarray(term) & np.asarray(trunc)).any()
        ended = infos.get("final_info", infos) if not self.one else {}
        if "_scores" in ended:  # a truncated episode's hand is abandoned unsettled: no hand keys (module docstring)
            assert not (ended["_scores"] & np.asarray(trunc)).any()
        scores = infos.get("scores")
        if scores is not None:
            scores = np.asarray(scores).reshape(-1, 4)
            assert (scores.sum(axis=1) == 0).all(), scores
        self.obs = obs
        self.done = np.asarray(term, dtype=bool).reshape(self.n).copy()
        return out1

    def learner_live(self) -> np.ndarray:
        """The tables where the learner's next action is played (not an ended table waiting to be dealt anew)."""
        if self.one:
            return ~self.done
        return ~self.venv._over

    @precondition(lambda self: not self.closed)
    @rule(seed=st.one_of(st.none(), st.integers(0, 2**20)), explicit=st.booleans(), wall_seed=st.integers(0, 2**20),
          mask=st.one_of(st.none(), st.lists(st.booleans(), min_size=N_TABLES, max_size=N_TABLES)))
    def reset(self, seed, explicit, wall_seed, mask):
        """A reset (of the tables a ``reset_mask`` marks, in the batched form: NEXT_STEP's partial reset)."""
        options = None
        if self.one:
            mask = None
        n = self.n if mask is None else int(np.sum(mask))
        if explicit:
            walls = shuffled_walls(self.rules, np.random.default_rng(wall_seed), n)
            options = {"wall": walls[0], "dealer": 1} if self.one else {"walls": walls, "dealers": [1] * n}
        if mask is not None:
            options = {**(options or {}), "reset_mask": np.array(mask)}
        self.reset_both(seed, options)

    @precondition(lambda self: not self.closed and not (self.one and self.done.all()))
    @rule(data=st.data())
    def step_legal(self, data):
        acts = np.array([data.draw(st.sampled_from(np.flatnonzero(row).tolist())) for row in self.masks()])
        self.step_both(int(acts[0]) if self.one else acts)

    @precondition(lambda self: not self.closed)
    @rule(data=st.data(), k=st.integers(1, 30))
    def play_on(self, data, k):
        for _ in range(k):
            if self.one and self.done.all():
                return
            self.step_legal(data)
            self.tables_are_sound()

    @precondition(lambda self: not self.closed and self.learner_live().any())
    @rule(data=st.data())
    def step_illegal(self, data):
        masks = self.masks()
        live = np.flatnonzero(self.learner_live())
        b = data.draw(st.sampled_from(live.tolist()))
        acts = np.array([np.flatnonzero(row)[0] for row in masks], dtype=np.int64)
        acts[b] = data.draw(st.sampled_from(np.flatnonzero(masks[b] == 0).tolist()))
        act = int(acts[0]) if self.one else acts
        if self.venv.illegal_action == "raise":
            before = self.snapshot()
            err = refused(lambda: self.env.step(act), A.ActionError)
            assert A.name(int(acts[b])) in str(err), str(err)
            self.assert_unchanged(before)
            return
        penalty, pending = self.venv.illegal_penalty, self.venv._pending[b]
        _, reward, term, _, infos = self.step_both(act)
        reward, term = np.asarray(reward).reshape(self.n), np.asarray(term).reshape(self.n)
        assert term[b]
        assert reward[b] == -penalty + pending, (reward[b], penalty, pending)  # the module docstring
        assert self.illegal_flag(infos, b)

    @precondition(lambda self: not self.closed)
    @rule(junk=st.sampled_from(range(len(JUNK_ACTIONS))), kind=st.sampled_from(JUNK_BATCHES))
    def step_junk(self, junk, kind):
        if self.one and self.done.all():
            return
        act = JUNK_ACTIONS[junk] if self.one else junk_batch(kind, self.n)
        if not self.one and kind in ("neg", "big") and not self.learner_live().any():
            return  # NEXT_STEP: ended tables ignore their action, whatever it is (the module docstring)
        before = self.snapshot()
        refused(lambda: self.env.step(act), A.ActionError)
        self.assert_unchanged(before)

    def flaky(self) -> bool:
        return not self.closed and isinstance(self.venv.opponents[0], FlakyAgent)

    @precondition(lambda self: self.flaky())
    @rule(mode=st.sampled_from(["raise", "illegal", "floats"]), reset=st.booleans(), data=st.data())
    def opponent_misbehaves(self, mode, reset, data):
        """An opponent that raises or answers an illegal action fails the whole step or reset, which changes
        nothing (the single_agent docstring); where no opponent is asked, the call plays as usual."""
        before = self.snapshot()
        self.venv.opponents[0].mode = self.shadow_venv().opponents[0].mode = mode
        try:
            if reset:
                self.reset_both(data.draw(st.one_of(st.none(), st.integers(0, 2**20))))
            elif not (self.one and self.done.all()):
                self.step_legal(data)
        except (AgentError, TypeError, A.ActionError) as e:
            assert "flaky" in str(e), str(e)
            self.assert_unchanged(before)
        finally:
            self.venv.opponents[0].mode = self.shadow_venv().opponents[0].mode = "ok"

    @precondition(lambda self: not self.closed)
    @rule(field=st.sampled_from(["seat", "seat_mode", "illegal_action", "illegal_penalty", "opponents"]),
          good=st.booleans(), data=st.data())
    def change_setting(self, field, good, data):
        if good:
            value = data.draw({"seat": st.sampled_from([0, 3, "rotate", "random"]),
                               "seat_mode": st.sampled_from([1, 2, "random"]),
                               "illegal_action": st.sampled_from(["raise", "penalize"]),
                               "illegal_penalty": st.sampled_from([0, 1.5, 10.0]),
                               "opponents": st.sampled_from(["random", "rule", ["random", "rule", "random"]])}[field])
            twin(lambda: self.set_setting(self.env, field, value), lambda: self.set_setting(self.shadow, field, value))
            return
        value = data.draw({"seat": st.sampled_from(BAD_SEATS), "seat_mode": st.sampled_from(BAD_SEATS),
                           "illegal_action": st.sampled_from(["Raise", None, 0]),
                           "illegal_penalty": st.sampled_from(BAD_PENALTIES),
                           "opponents": st.sampled_from(["nobody", ["random"] * 2, 3, None])}[field])
        before = self.snapshot()
        refused(lambda: self.set_setting(self.env, field, value), ValueError, TypeError)
        self.assert_unchanged(before)

    @precondition(lambda self: not self.closed)
    @rule()
    def read_only_calls(self):
        before = self.snapshot()
        assert isinstance(self.env.render(), str)
        masks = self.env.unwrapped.action_masks()
        assert np.array_equal(np.asarray(masks).reshape(self.n, -1), self.masks().astype(bool))
        self.assert_unchanged(before)

    @rule(seed=st.integers(0, 2**20))
    def close(self, seed):
        """close() (twice); then step, reset and action_masks are RuntimeErrors. The machine goes on with new envs."""
        for _ in range(2):
            self.env.close()
            self.shadow.close()
        self.closed = True
        step = 0 if self.one else np.zeros(self.n, dtype=np.int64)
        refused(lambda: self.env.step(step), RuntimeError)
        refused(self.plain_reset, RuntimeError)
        refused(lambda: self.env.unwrapped.action_masks(), RuntimeError)  # (gym.make's wrappers do not pass it on)
        self.make(seed=seed, **self.params)
        self.closed = False

    @invariant()
    def tables_are_sound(self):
        if getattr(self, "obs", None) is None or self.closed:
            return
        v = self.venv
        st_ = v.engine.state
        masks = self.masks()
        live = self.learner_live()
        for b in range(self.n):
            check_tiles(self.rules, st_, b)
            check_mask_row(masks[b], True, f"table {b}")
            if live[b] and st_.phase[b] != END:
                assert st_.to_act[b] == v.seats[b], "the learner is not the seat asked"
                assert np.array_equal(masks[b].astype(bool), v.engine.legal_mask()[b])
            else:
                assert masks[b].tolist() == [int(i == A.PASS) for i in range(A.N_ACTIONS)] or not live[b]

    @invariant()
    def shadow_agrees(self):
        if getattr(self, "obs", None) is None or self.closed:
            return
        v, w = self.venv, self.shadow_venv()
        assert_same(engine_snapshot(v.engine), engine_snapshot(w.engine))
        for k in v._BOOKKEEPING:
            assert np.array_equal(getattr(v, k), getattr(w, k)), k


class SB3Machine(SingleAgentMachine):
    """``mj_env.sb3.MahjongSB3VecEnv`` (SB3's ``VecEnv`` over the batched single-agent env): seeds and options
    through ``seed`` and ``set_options``, settings through ``set_attr``, steps through ``step``."""

    @initialize(rules=st.sampled_from(RULE_SETS), policy=st.sampled_from(["raise", "penalize"]),
                seat=st.sampled_from([0, 2, "rotate", "random"]), opponents=st.sampled_from(["random", "rule"]),
                seed=st.integers(0, 2**20))
    def make(self, rules, policy, seat, opponents, seed, one=False, mode="SameStep"):
        from mj_env.sb3 import MahjongSB3VecEnv

        self.params = {"rules": rules, "policy": policy, "seat": seat, "opponents": opponents}
        self.rules = get_rules(rules)
        self.one = False
        kw = {"rules": rules, "opponents": opponents, "seat": seat, "illegal_action": policy, "render_mode": "ansi"}
        self.env, self.shadow = (MahjongSB3VecEnv(N_TABLES, seed=seed, **kw) for _ in range(2))
        self.closed = False
        self.done = np.zeros(self.n, dtype=bool)
        self.reset_both(seed)

    @property
    def venv(self):
        return self.env.envs

    def shadow_venv(self):
        return self.shadow.envs

    def plain_reset(self):
        return self.env.reset()

    def reset_both(self, seed, options=None):
        def reset(env):
            if seed is not None:
                env.seed(seed)
            if options is not None:
                env.set_options(copy.deepcopy(options))
            return env.reset()

        o1, o2 = twin(lambda: reset(self.env), lambda: reset(self.shadow))
        same_tree(o1, o2, "reset")
        self.obs = o1
        self.done[:] = False

    def set_setting(self, env, field, value):
        env.set_attr(field, value)

    def illegal_flag(self, infos, b: int) -> bool:
        return bool(infos[b]["illegal_action"])

    def step_both(self, act):
        out1, out2 = twin(lambda: self.env.step(copy.deepcopy(act)), lambda: self.shadow.step(copy.deepcopy(act)))
        same_tree(out1, out2, "step")
        obs, reward, dones, infos = out1
        assert reward.dtype == np.float32 and np.isfinite(reward).all()
        for b, info in enumerate(infos):
            if "scores" in info:
                assert info["scores"].sum() == 0, info
            if dones[b]:
                assert "terminal_observation" in info
        self.obs = obs
        self.done = dones.copy()
        return obs, reward, dones, None, infos

    @precondition(lambda self: not self.closed)
    @rule(seed=st.sampled_from([-1, 1.5, "1", True]))
    def seed_refused(self, seed):
        before = self.snapshot()
        refused(lambda: self.env.seed(seed), ValueError)
        self.assert_unchanged(before)

    @precondition(lambda self: not self.closed)
    @rule(step=st.booleans(), data=st.data())
    def step_wait_alone(self, step, data):
        """``step_wait`` with no ``step_async`` before it is refused and changes nothing; after a legal
        ``step_async`` it plays as ``step`` would."""
        if step:
            self.step_legal(data)
        before = self.snapshot()
        refused(self.env.step_wait, RuntimeError)
        self.assert_unchanged(before)


# ---------------------------------------------------------------------------------------------------------
# the engine and its copies (README "Search: copies and determinization")


def engine_rows(eng: Engine, rows) -> dict:
    """Every state field and the legal mask of ``rows``, copied."""
    rows = np.asarray(rows, dtype=np.int64)
    out = {f.name: getattr(eng.state, f.name)[rows].copy() for f in dataclasses.fields(eng.state)}
    out["mask"] = eng.legal_mask()[rows].copy()
    return out


def legal_or_zero(eng: Engine, data) -> np.ndarray:
    """A legal action at every table (drawn), 0 at ended tables (the bare engine ignores their action)."""
    return np.array([data.draw(st.sampled_from(np.flatnonzero(row).tolist())) if row.any() else 0
                     for row in eng.legal_mask()], dtype=np.int64)


class EngineMachine(RuleBasedStateMachine):
    """``mj_env.engine.Engine`` of three tables and a shadow: resets and steps of some tables, refused calls,
    ``clone``, ``restore`` (also from a clone, and into itself), and pickling."""

    @initialize(rules=st.sampled_from(RULE_SETS), seed=st.integers(0, 2**20), hands=st.sampled_from([1, 1, 2]))
    def make(self, rules, seed, hands):
        overrides = {} if hands == 1 else {"hands_per_episode": hands}
        self.eng, self.shadow = (Engine(rules, num_tables=N_TABLES, seed=seed, **overrides) for _ in range(2))
        twin(self.eng.reset, self.shadow.reset)

    def both(self, call):
        return twin(lambda: call(self.eng), lambda: call(self.shadow))

    @rule(tables=st.lists(st.integers(0, N_TABLES - 1), unique=True), seed=st.one_of(st.none(), st.integers(0, 99)),
          explicit=st.booleans(), wall_seed=st.integers(0, 2**20))
    def reset_some(self, tables, seed, explicit, wall_seed):
        rules = self.eng.rules
        walls = shuffled_walls(rules, np.random.default_rng(wall_seed), len(tables)) if explicit else None
        dealers = [t % 4 for t in tables] if explicit else None
        res, _ = self.both(lambda e: e.reset(seed=seed, walls=walls, dealers=dealers, tables=tables))
        assert (res.rewards.sum(axis=1) == 0).all()

    @rule(data=st.data(), some=st.booleans())
    def step(self, data, some):
        acts = legal_or_zero(self.eng, data)
        tables = None
        if some:
            tables = data.draw(st.lists(st.integers(0, N_TABLES - 1), unique=True, min_size=1))
        res1, res2 = self.both(lambda e: e.step(acts.copy(), tables=tables))
        assert np.isfinite(res1.rewards).all() and (res1.rewards.sum(axis=1) == 0).all()
        assert np.array_equal(res1.rewards, res2.rewards)
        for b in np.flatnonzero(res1.hand_over):
            assert sum(res1.settlements.get(int(b))["scores"]) == 0

    @rule(data=st.data(), junk=st.sampled_from(JUNK_BATCHES))
    def step_refused(self, data, junk):
        live = [b for b in range(N_TABLES) if self.eng.legal_mask()[b].any()]
        before = engine_snapshot(self.eng)
        if live and data.draw(st.booleans()):
            acts = legal_or_zero(self.eng, data)
            b = data.draw(st.sampled_from(live))
            acts[b] = data.draw(st.sampled_from(np.flatnonzero(~self.eng.legal_mask()[b]).tolist()))
            err = refused(lambda: self.eng.step(acts), A.ActionError)
            assert A.name(int(acts[b])) in str(err)
        elif junk not in ("neg", "big") or live:
            refused(lambda: self.eng.step(junk_batch(junk, N_TABLES)), A.ActionError, ValueError, TypeError)
        assert_same(before, engine_snapshot(self.eng))

    @rule(bad=st.sampled_from(["table_3", "table_neg", "tables_twice", "tables_float", "walls_short", "dealer_4",
                               "seed_neg"]))
    def reset_refused(self, bad):
        kw = {"table_3": {"tables": [3]}, "table_neg": {"tables": [-1]}, "tables_twice": {"tables": [0, 0]},
              "tables_float": {"tables": [0.0]}, "walls_short": {"walls": [[0] * 10] * N_TABLES},
              "dealer_4": {"dealers": [4] * N_TABLES}, "seed_neg": {"seed": -1}}[bad]
        before = engine_snapshot(self.eng)
        refused(lambda: self.eng.reset(**kw), ValueError, TypeError)
        assert_same(before, engine_snapshot(self.eng))

    @rule(tables=st.lists(st.integers(0, N_TABLES - 1), min_size=1, max_size=5), seed=st.one_of(st.none(),
                                                                                              st.integers(0, 99)),
          data=st.data(), k=st.integers(0, 40))
    def clone_and_play(self, tables, seed, data, k):
        """A clone holds copies of the tables asked for, row by row, and plays on alone."""
        before = engine_snapshot(self.eng)
        rows = engine_rows(self.eng, tables)
        c1, c2 = self.both(lambda e: e.clone(tables, seed=seed))
        same_tree(engine_rows(c1, range(len(tables))), rows, "clone")
        for _ in range(k):
            if not c1.legal_mask().any():
                break
            acts = legal_or_zero(c1, data)
            r1, r2 = c1.step(acts.copy()), c2.step(acts.copy())
            assert np.array_equal(r1.rewards, r2.rewards) and (r1.rewards.sum(axis=1) == 0).all()
            for b in range(len(tables)):
                check_tiles(c1.rules, c1.state, b)
        assert_same(engine_snapshot(c1), engine_snapshot(c2))
        bs = engine_snapshot(self.eng)
        assert before["mask"].tolist() == bs["mask"].tolist()
        for name, arr in before["state"].items():
            assert np.array_equal(arr, bs["state"][name]), f"state.{name} changed by playing a clone"

    @rule(data=st.data(), from_clone=st.booleans())
    def restore(self, data, from_clone):
        """``restore`` copies source rows into destination rows and leaves the rest, and the generator, alone."""
        dst = data.draw(st.lists(st.integers(0, N_TABLES - 1), unique=True, min_size=1))
        src = data.draw(st.one_of(st.integers(0, N_TABLES - 1),
                                  st.lists(st.integers(0, N_TABLES - 1), min_size=len(dst), max_size=len(dst))))
        sources = (self.eng.clone(), self.shadow.clone()) if from_clone else (self.eng, self.shadow)
        expected = engine_rows(sources[0], [src] * len(dst) if isinstance(src, int) else src)
        others = [b for b in range(N_TABLES) if b not in dst]
        kept = engine_rows(self.eng, others)
        rng = copy.deepcopy(self.eng.rng.bit_generator.state)
        twin(lambda: self.eng.restore(sources[0], src, dst), lambda: self.shadow.restore(sources[1], src, dst))
        same_tree(engine_rows(self.eng, dst), expected, "restored rows")
        same_tree(engine_rows(self.eng, others), kept, "other rows")
        assert self.eng.rng.bit_generator.state == rng

    @rule(bad=st.sampled_from(["rules", "dst_twice", "dst_out", "lengths", "not_engine", "src_float"]))
    def restore_refused(self, bad):
        other = Engine("quemen" if self.eng.rules.name != "quemen" else "hebei", num_tables=1, seed=0)
        other.reset()
        args = {"rules": (other, 0, [0]), "dst_twice": (self.eng, 0, [1, 1]), "dst_out": (self.eng, 0, [N_TABLES]),
                "lengths": (self.eng, [0, 1], [2]), "not_engine": ("engine", 0, [0]),
                "src_float": (self.eng, 0.0, [0])}[bad]
        before = engine_snapshot(self.eng)
        refused(lambda: self.eng.restore(*args), ValueError, TypeError)
        assert_same(before, engine_snapshot(self.eng))

    @rule(data=st.data())
    def pickled_copy_plays_alike(self, data):
        """A pickled and unpickled engine is the same game: the same step gives the same result."""
        before = engine_snapshot(self.eng)
        dup = pickle.loads(pickle.dumps(self.eng))
        assert_same(before, engine_snapshot(dup))
        if dup.legal_mask().any():
            acts = legal_or_zero(dup, data)
            ref = copy.deepcopy(self.eng)
            r1, r2 = dup.step(acts.copy()), ref.step(acts.copy())
            assert np.array_equal(r1.rewards, r2.rewards)
            assert_same(engine_snapshot(dup), engine_snapshot(ref))
        assert_same(before, engine_snapshot(self.eng))

    @invariant()
    def tables_are_sound(self):
        if not hasattr(self, "eng"):
            return
        mask = self.eng.legal_mask()
        for b in range(N_TABLES):
            check_tiles(self.eng.rules, self.eng.state, b)
            if self.eng.state.phase[b] == END:
                assert not mask[b].any()
            else:
                assert mask[b].any(), f"table {b}: no legal action while the hand runs"

    @invariant()
    def shadow_agrees(self):
        if hasattr(self, "eng"):
            assert_same(engine_snapshot(self.eng), engine_snapshot(self.shadow))


# ---------------------------------------------------------------------------------------------------------

QUICK = settings(max_examples=15, stateful_step_count=30, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
LONG = settings(max_examples=150, stateful_step_count=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
MACHINES = [AECMachine, VectorMachine, SingleAgentMachine, SB3Machine, EngineMachine]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.__name__)
def test_hostile_call_orders(machine):
    if machine is SB3Machine:
        pytest.importorskip("stable_baselines3")
    run_state_machine_as_test(machine, settings=QUICK)


@pytest.mark.slow
@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.__name__)
def test_hostile_call_orders_long(machine):
    if machine is SB3Machine:
        pytest.importorskip("stable_baselines3")
    run_state_machine_as_test(machine, settings=LONG)


# ---------------------------------------------------------------------------------------------------------
# regressions found by the state machines


@pytest.mark.parametrize("policy", ["raise", "penalize"])
@pytest.mark.parametrize("shape", ["flat", "column"])
def test_sb3_vecenv_refuses_masked_actions_and_changes_nothing(policy, shape):
    """A masked array of actions with entries masked is no action batch (``actions.action_batch``): the batched env
    refuses it, but ``MahjongSB3VecEnv.step_async`` read it with ``np.asarray``, which drops the mask, so the data
    under the mask was played (action 0, discard 1m: played or penalized). Found by ``SB3Machine.step_junk``."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    env = MahjongSB3VecEnv(N_TABLES, rules="beijing", opponents="random", seed=1, illegal_action=policy)
    env.reset()
    legal = env.action_masks().argmax(axis=1)  # a legal action at every table, hidden under the mask
    acts = np.ma.masked_array(legal, mask=[True] + [False] * (N_TABLES - 1))
    if shape == "column":  # the (N, 1) form SB3 gives for Discrete actions
        acts = acts[:, None]
    before = {"engine": engine_snapshot(env.envs.engine), "book": {k: getattr(env.envs, k).copy()
                                                                    for k in env.envs._BOOKKEEPING}}
    err = refused(lambda: env.step(acts), A.ActionError)
    assert "masked" in str(err)
    assert_same(before["engine"], engine_snapshot(env.envs.engine))
    same_tree(before["book"], {k: getattr(env.envs, k).copy() for k in env.envs._BOOKKEEPING})
    env.step(legal)  # and the game plays on


@pytest.mark.parametrize("wrapper", ["env", "flat", "numeric"])
@pytest.mark.parametrize("call", ["observe", "state", "render"])
def test_closed_aec_env_never_reset_says_closed_through_the_wrapper(wrapper, call):
    """The AEC docstring: after ``close()`` every later observe, state or render (in a render mode) is a
    RuntimeError, through the order-enforcing wrapper too. For an env closed before its first reset, the wrapper's
    own check came first: PettingZoo's AssertionError "reset() needs to be called before observe.", which a reset
    would not cure (reset is refused too). Found by ``AECMachine`` (``close`` after ``make(deal=False)``)."""
    e = make_aec("beijing", wrapper, "raise", 10, "ansi", 1)
    e.close()
    fn = {"observe": lambda: e.observe("player_0"), "state": e.state, "render": e.render}[call]
    with pytest.raises(RuntimeError, match=rf"{call}\(\) after close\(\)"):
        fn()
    with pytest.raises(RuntimeError, match=r"reset\(\) after close\(\)"):
        e.reset(seed=0)


@pytest.mark.parametrize("wrapper", ["env", "flat", "numeric"])
def test_a_refused_first_reset_leaves_the_aec_env_as_never_reset(wrapper):
    """docs/RULES.md 7: a refused call changes no state. PettingZoo's order-enforcing wrapper marks itself reset
    before the env's ``reset`` runs, so a refused first reset left ``mj_env.env()`` thinking a hand had been
    dealt: ``last()`` and ``step()`` then said "after the hand ended: every agent is done" (through
    ``FlatObservations``: "'raw_env' object has no attribute 'agent_selection'") instead of what a fresh env
    says, that reset() comes first. Found by ``AECMachine`` (``reset_refused`` then ``use_before_reset``)."""
    def errors(e):
        out = []
        for call in (e.last, lambda: e.step(0), lambda: e.observe("player_0"), e.state, e.render,
                     lambda: e.agent_selection):
            with pytest.raises(Exception) as info:  # (compared with a fresh env's below)
                call()
            out.append((type(info.value), str(info.value)))
        return out

    fresh = errors(make_aec("beijing", wrapper, "raise", 10, "ansi", 1))
    e = make_aec("beijing", wrapper, "raise", 10, "ansi", 1)
    with pytest.raises(ValueError, match="wall"):
        e.reset(options={"wall": ["1m"] * 10})
    assert errors(e) == fresh
    assert all("reset" in message for _, message in fresh), fresh
    e.reset(seed=0)  # and a good reset deals
    assert e.agents
