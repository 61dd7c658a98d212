"""The single-agent env (mj_env/single_agent.py) against the independent referees of this suite.

Expectations, written from docs/INTERFACES.md 2, the README's single-agent section and the module's docstrings
before its code was read:

- ``seat``: 0-3 is the learner's seat in every episode; ``"rotate"``: "table i starts at seat i % 4 and moves on one
  seat each episode", a seeded reset starting it over; a hand that ends before the learner's first decision "is not
  an episode" (it keeps its seat);
- "the opponents act inside ``step``": each step returns the learner's next decision, so at every table whose
  episode goes on the referee's table (tests/indep_flow.py's ``Sim``, as tests/indep_observation.py's ``ObsSim``)
  has the learner's seat to act, the env's mask is the referee's legal set and the observation its planes;
  every decision in between is an opponent's, at an opponent's seat, legal by the referee;
- reward: "the learner's settled points when a hand ends (float; exact), else 0", the points scored by
  tests/indep_scoring.py (through tests/indep_match.py's ``MatchReferee``); "the points of a hand the learner never
  decided in (redealt, below) come with the next episode's first reward", "in the seat it had there", and
  ``redealt`` counts those hands in the step or reset that dealt again;
- terminated when the learner's hand ends; infos ``seat``, ``scores`` (every seat's, the referee's), ``win``,
  ``deal_in``, ``draw``, ``fan``; an illegal action (``illegal_action="penalize"``) ends the episode with
  ``-illegal_penalty``, zero ``scores`` and ``illegal_action``;
- ``NEXT_STEP``: an ended table's row holds the final observation, mask ``pass`` only, its next action ignored;
  ``SAME_STEP``: ``final_obs``/``final_info`` hold the ended step's, the top level the new episode's ``seat``;
- the same seed gives the same episodes.

The referee hooks the env's inner engine (``venv.engine``: its ``reset`` and ``step``) to follow every table hand
by hand with the walls and dealers dealt there and every decision made, learner's and opponents' alike; under
beijing ``indep_match.stacked`` deals now and then four 惠牌 or 天和 (hands that end before the learner decides).
Gymnasium's wrappers (FlattenObservation, RecordEpisodeStatistics, NormalizeReward, TimeLimit; their vector forms)
sit outside, and RecordEpisodeStatistics' returns and lengths are checked against the referee's rewards.

No disagreement with the env was found. The two found on the way were the checker's: ``MatchReferee._step``
follows every live table, so a table waiting on the learner while opponents acted elsewhere was recorded as having
discarded (a 天和 then read as not first-turn); and the points of a redealt hand are paid in the episode's first
step even where that step's action is illegal and penalized (docs: "come with the next episode's first reward").
"""
from __future__ import annotations

import copy
import random
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from indep_flow import PASS, choose
from indep_match import MatchReferee, stacked
from indep_observation import ObsSim, check_seat
from indep_scoring import step_before

import mj_env  # noqa: F401  (registers the ids)
from mj_env import actions as A
from mj_env.state import END

IDS = {"beijing": "mj_env/Beijing-v0", "hebei": "mj_env/Hebei-v0", "quemen": "mj_env/Quemen-v0"}


class _Scores(MatchReferee):
    """MatchReferee on an engine stepped at some tables only (``Engine.step(actions, tables=...)``)."""

    def __init__(self, eng):
        super().__init__(eng)
        self.last_wins = {}

    def _step(self, actions, tables=None):
        """``MatchReferee._step`` with only the tables stepped followed (a waiting table took no action)."""
        st = self.eng.state
        live = np.flatnonzero(st.phase != END)
        if tables is not None:
            live = np.intersect1d(live, np.asarray(tables).reshape(-1))
        before = {t: step_before(st, t) for t in live.tolist()}
        self._snaps = {}
        res = self._real_step(actions, tables=tables)
        for t in range(self.eng.num_tables):
            self.step_hands[t] = []
        for t in live.tolist():
            self._ended(t, res, before[t], A.name(int(actions[t])), True)
        return res

    def _compare(self, t, settlement, wins, total):
        self.last_wins.setdefault(t, []).append(wins)
        super()._compare(t, settlement, wins, total)


class SingleReferee:
    """Follows every table of a ``MahjongSingleAgentVectorEnv``; ``bad`` collects disagreements."""

    def __init__(self, venv, seat_mode, max_reports=20):
        self.venv, self.seat_mode = venv, seat_mode
        eng = venv.engine
        self.rules = eng.rules
        self.score = _Scores(eng)                        # the scoring referee, innermost
        self._inner_step, self._inner_reset = eng.step, eng.reset
        eng.step, eng.reset = self._engine_step, self._engine_reset
        self._real_vstep, self._real_vreset = venv.step, venv.reset
        venv.step, venv.reset = self.step, self.reset
        n = venv.num_envs
        self.sims = [None] * n
        self.seat = [None] * n          # the learner's seat the referee expects for the hand in play
        self.decided = [False] * n      # the learner decided in the hand in play
        self.deals = [0] * n            # episodes dealt since the last seeded reset ("rotate")
        self.redeal_due = [False] * n   # the hand before ended before the learner's first decision
        self.pending = [0] * n          # points of such hands, the learner's seat there
        self.reward = np.zeros(n)       # expected rewards of the env call in progress
        self.ended = [[] for _ in range(n)]   # the learner's hands ended in this call: (total, seat, sim, wins)
        self.redealt = [0] * n
        self.learner_moves = [0] * n
        self.acts = None
        self.stats, self.bad, self.max_reports = Counter(), [], max_reports

    def report(self, *what):
        self.stats["disagreements"] += 1
        if len(self.bad) < self.max_reports:
            self.bad.append(what)

    # ---------------------------------------------------------------- the engine, hand by hand
    def _engine_reset(self, seed=None, walls=None, dealers=None, tables=None):
        res = self.score._reset(seed=seed, walls=walls, dealers=dealers, tables=tables)
        st = self.venv.engine.state
        idx = range(self.venv.num_envs) if tables is None else np.asarray(tables).reshape(-1).tolist()
        for t in idx:
            if self.redeal_due[t]:
                self.redeal_due[t] = False          # same seat ("rotate"): no episode of the learner's
                self.redealt[t] += 1
                if self.seat_mode == "random":
                    self.seat[t] = None
            else:
                k = self.deals[t]
                self.deals[t] += 1
                if self.seat_mode == "rotate":
                    self.seat[t] = (t + k) % 4
                elif self.seat_mode == "random":
                    self.seat[t] = None             # drawn by the env: read after the call
                else:
                    self.seat[t] = self.seat_mode
            self.sims[t] = ObsSim(self.rules, [int(x) for x in st.wall[t]], int(st.dealer[t]))
            self.decided[t] = False
            self._hand_end(t, at_deal=True)
        return res

    def _engine_step(self, actions, tables=None):
        st = self.venv.engine.state
        idx = np.flatnonzero(st.phase != END) if tables is None else np.asarray(tables).reshape(-1)
        for t in idx.tolist():
            if int(st.phase[t]) == END:
                continue
            sim, a = self.sims[t], int(actions[t])
            if self.seat[t] is None:
                self.seat[t] = int(self.venv.seats[t])
            if int(st.to_act[t]) != sim.to_act:
                self.report("seat to act", t, int(st.to_act[t]), sim.to_act)
            if sim.to_act == self.seat[t]:
                self.learner_moves[t] += 1
                if self.acts is None or tables is not None or a != int(self.acts[t]) or self.learner_moves[t] > 1:
                    self.report("a decision at the learner's seat that is not the learner's action", t, a)
                self.decided[t] = True
                self.stats["learner decisions"] += 1
            else:
                self.stats["opponent decisions"] += 1
            if a not in sim.legal():
                self.report("illegal by the referee", t, a, sorted(sim.legal()))
                continue
            sim.step(a)
        res = self.score._step(actions, tables)
        for t in idx.tolist():
            if self.sims[t] is not None and not self.sims[t].end and int(st.phase[t]) == END:
                self.report("the engine ended a hand the referee did not", t)
            self._hand_end(t, at_deal=False)
        return res

    def _hand_end(self, t, at_deal):
        hands = self.score.step_hands[t]
        self.score.step_hands[t] = []
        wins = self.score.last_wins.pop(t, [])
        sim = self.sims[t]
        if bool(hands) != bool(sim is not None and sim.end):
            self.report("hand ended (engine scored / referee)", t, bool(hands), sim and sim.end, at_deal)
        if not hands:
            return
        total = [int(x) for x in np.sum(hands, axis=0)]
        seat = self.seat[t] if self.seat[t] is not None else int(self.venv.seats[t])
        self.stats["hands"] += 1
        if self.decided[t]:
            self.ended[t].append((total, seat, sim, wins[-1] if wins else []))
            self.reward[t] += total[seat]
            self.stats["learner hands"] += 1
            self.stats["end " + sim.end[0]] += 1
        else:
            self.pending[t] += total[seat]
            self.redeal_due[t] = True
            self.stats["hands before the learner's first decision"] += 1
            self.stats["redealt at the deal" if at_deal else "redealt after opponents' decisions"] += 1

    # ---------------------------------------------------------------- the env's calls
    def _begin(self, acts=None):
        n = self.venv.num_envs
        self.reward = np.zeros(n)
        self.ended = [[] for _ in range(n)]
        self.redealt = [0] * n
        self.learner_moves = [0] * n
        self.acts = acts

    _STATE = ("sims", "seat", "decided", "deals", "redeal_due", "pending", "reward", "ended", "redealt",
              "learner_moves", "acts", "stats", "bad")
    _SCORE_STATE = ("hands", "played", "dealer", "match", "step_hands", "stats", "bad", "last_wins")

    def _undoable(self, call, *args, **kwargs):
        """``call``; where the env refuses it (and so changes nothing), the referee is put back as it was too."""
        if not self.transactional:
            return call(*args, **kwargs)
        saved = copy.deepcopy(({k: getattr(self, k) for k in self._STATE},
                               {k: getattr(self.score, k) for k in self._SCORE_STATE}))
        try:
            return call(*args, **kwargs)
        except BaseException:
            for obj, state in zip((self, self.score), saved):
                for k, v in state.items():
                    setattr(obj, k, v)
            raise

    transactional = False

    def reset(self, *, seed=None, options=None):
        return self._undoable(self._reset, seed=seed, options=options)

    def step(self, actions):
        return self._undoable(self._step, actions)

    def _reset(self, *, seed=None, options=None):
        self._begin()
        if seed is not None:
            self.deals = [0] * self.venv.num_envs
        obs, infos = self._real_vreset(seed=seed, options=options)
        tables = None if not options or "reset_mask" not in options else np.flatnonzero(options["reset_mask"])
        self._check_obs(obs, infos, np.zeros(self.venv.num_envs, dtype=bool), "reset", tables)
        return obs, infos

    def _step(self, actions):
        acts = A.action_batch(actions, self.venv.num_envs)
        over = self.venv._over.copy()   # NEXT_STEP: tables whose episode ended (their action is ignored)
        illegal = [t for t in range(len(acts)) if not over[t] and acts[t] not in self.sims[t].legal()]
        self._begin(acts)
        for t in range(len(acts)):
            if not over[t] and not self.decided[t]:   # the episode's first reward (its action legal or not)
                self.reward[t] += self.pending[t]
                self.pending[t] = 0
        for t in illegal:   # the hand is abandoned: no points, a new episode next
            self.reward[t] -= self.venv.illegal_penalty
            self.decided[t] = True
            self.sims[t] = None
            self.stats["illegal actions"] += 1
        out = self._real_vstep(actions)
        obs, rew, term, trunc, infos = out
        n = self.venv.num_envs
        same = str(self.venv.metadata["autoreset_mode"]).endswith("SAME_STEP")
        for t in range(n):
            if over[t]:
                if term[t] or rew[t] != self.reward[t]:
                    self.report("NEXT_STEP restart step", t, bool(term[t]), rew[t], self.reward[t])
                continue
            ended = bool(self.ended[t]) or t in illegal
            if bool(term[t]) != ended:
                self.report("terminated", t, bool(term[t]), ended)
            if rew[t] != self.reward[t]:
                self.report("reward", t, float(rew[t]), float(self.reward[t]), self.seat[t])
            self.stats["steps"] += 1
            self.stats["nonzero rewards"] += rew[t] != 0
            if not ended:
                continue
            info = infos["final_info"] if same else infos
            if not info.get("_scores", np.zeros(n, bool))[t]:
                self.report("no hand keys at the episode's end", t)
                continue
            if t in illegal:
                if info["scores"][t].any() or not info["illegal_action"][t]:
                    self.report("penalized infos", t, info["scores"][t])
                continue
            total, seat, sim, wins = self.ended[t][-1]
            if info["scores"][t].tolist() != total:
                self.report("infos scores", t, info["scores"][t].tolist(), total)
            winners = sim.end[1] if sim.end[0] == "win" else []
            if bool(info["win"][t]) != (seat in winners) or bool(info["draw"][t]) != (sim.end[0] == "draw"):
                self.report("win/draw", t, bool(info["win"][t]), bool(info["draw"][t]), sim.end, seat)
            if sim.end[0] == "win" and sim.end[2] in ("discard", "rob"):
                if bool(info["deal_in"][t]) != (sim.window["from"] == seat):
                    self.report("deal_in", t, bool(info["deal_in"][t]), sim.window["from"], seat)
            elif info["deal_in"][t]:
                self.report("deal_in without a discard", t)
            fan = next((b[0] for w, b in wins if w.winner == seat and b is not None), 0)
            if int(info["fan"][t]) != fan:
                self.report("fan", t, int(info["fan"][t]), fan)
            if same:
                fo = infos["final_obs"][t]
                if np.flatnonzero(fo["action_mask"]).tolist() != [PASS]:
                    self.report("final_obs mask", t)
            elif np.flatnonzero(obs["action_mask"][t]).tolist() != [PASS]:
                self.report("final observation mask", t)
            self.stats["episodes"] += 1
        final_rows = np.asarray(term, bool) | np.asarray(trunc, bool) if not same else np.zeros(n, bool)
        self._check_obs(obs, infos, final_rows, "step", None)
        return out

    def _check_obs(self, obs, infos, ended, where, tables):
        n = self.venv.num_envs
        for t in range(n) if tables is None else tables:
            if ended[t]:
                continue
            seat = self.seat[t] if self.seat[t] is not None else int(self.venv.seats[t])
            self.seat[t] = seat
            if int(infos["seat"][t]) != seat:
                self.report(where, "infos seat", t, int(infos["seat"][t]), seat)
            r = infos.get("redealt", np.zeros(n, int))[t] if infos.get("_redealt", np.zeros(n, bool))[t] else 0
            if r != self.redealt[t]:
                self.report(where, "redealt", t, int(r), self.redealt[t])
            sim = self.sims[t]
            if sim.end or sim.to_act != seat:
                self.report(where, "not the learner's decision", t, sim.end, sim.to_act, seat)
                continue
            mask = obs["action_mask"][t]
            if set(np.flatnonzero(mask).tolist()) != sim.legal():
                self.report(where, "mask", t, sorted(np.flatnonzero(mask).tolist()), sorted(sim.legal()))
            log = []
            check_seat(sim, seat, obs["observation"][t], mask, log, "single", self.stats)
            if log:
                self.report(where, "observation", t, log[0])


def _learner(rng, sim, p_illegal):
    legal = sim.legal()
    if p_illegal and rng.random() < p_illegal:
        return rng.choice([a for a in range(127) if a not in legal])
    return choose(rng, legal)


def play(rules="beijing", opponents="rule", seat=0, n_tables=8, steps=60, seed=0, mode="NextStep",
         one_table=False, p_illegal=0.0, stacked_walls=False, obs="v1", max_episode_steps=None, wrappers=False):
    """Random legal learner actions (from the referee's legal set) for ``steps`` steps; returns (stats, bad).
    ``wrappers``: Gymnasium's RecordEpisodeStatistics (and FlattenObservation, NormalizeReward) outside the env,
    whose episode returns and lengths are checked against the referee's rewards."""
    rng = random.Random(seed)
    kw = {"opponents": opponents, "seat": seat, "obs": obs}
    if one_table:
        env = gym.make(IDS[rules], max_episode_steps=max_episode_steps, **kw)
        venv = env.unwrapped.venv
        if wrappers:
            env = gym.wrappers.NormalizeReward(gym.wrappers.RecordEpisodeStatistics(
                gym.wrappers.FlattenObservation(env)))
    else:
        env = gym.make_vec(IDS[rules], num_envs=n_tables, vectorization_mode="vector_entry_point",
                           autoreset_mode=gym.vector.AutoresetMode(mode), max_episode_steps=max_episode_steps, **kw)
        venv = env
        if wrappers:
            env = gym.wrappers.vector.NormalizeReward(gym.wrappers.vector.RecordEpisodeStatistics(
                gym.wrappers.vector.FlattenObservation(env)))
    ref = SingleReferee(venv, seat)
    n = venv.num_envs
    ret, length = np.zeros(n), np.zeros(n, dtype=np.int64)

    def episode_stats(t, info):
        ref.stats["episode statistics"] += 1
        if not np.isclose(info["r"], ret[t]) or int(info["l"]) != length[t]:
            ref.report("RecordEpisodeStatistics", t, info["r"], ret[t], info["l"], length[t])

    with stacked(venv.engine.rules, stacked_walls), ref.score.watching():
        env.reset(seed=seed)
        for _ in range(steps):
            over = venv._over.copy()
            acts = np.array([_learner(rng, s, p_illegal) if s is not None and not s.end else PASS
                             for s in ref.sims], dtype=np.int64)
            if one_table:
                _ob, _r, term, trunc, info = env.step(int(acts[0]))
            else:
                _ob, _r, term, trunc, info = env.step(acts)
            live = ~over
            ret[live] += ref.reward[live]      # the referee's rewards: checked equal to the env's
            length[live] += 1
            done = np.flatnonzero(np.atleast_1d(term) | np.atleast_1d(trunc))
            for t in done.tolist():
                if wrappers:
                    episode_stats(t, {k: (v if one_table else v[t]) for k, v in info["episode"].items()})
                ret[t], length[t] = 0, 0
            if one_table and len(done):
                env.reset()
    ref.stats.update({"scoring " + k: v for k, v in ref.score.stats.items() if "disagree" in k})
    bad = ref.bad + [("scoring",) + b for b in ref.score.bad]
    env.close()
    return ref.stats, bad


MIX = ["rule", "random", "efficient"]
FAST = [  # (rules, opponents, seat, keywords): every preset, fixed seats, rotate, random, one table and vector
    ("beijing", "rule", "rotate", {"steps": 80, "stacked_walls": True, "p_illegal": 0.01}),
    ("beijing", MIX, 2, {"steps": 40, "mode": "SameStep", "stacked_walls": True}),
    ("beijing", "efficient", 1, {"steps": 12, "n_tables": 4, "obs": "v2"}),
    ("hebei", "random", "random", {"steps": 60, "wrappers": True, "max_episode_steps": 25}),
    ("quemen", MIX, 3, {"steps": 30, "n_tables": 4, "mode": "SameStep", "p_illegal": 0.02, "max_episode_steps": 12}),
    ("quemen", "rule", "rotate", {"steps": 40, "one_table": True, "wrappers": True, "max_episode_steps": 15}),
]


@pytest.mark.parametrize("rules,opponents,seat,kw", FAST, ids=[f"{r}-{s}-{k.get('mode', 'one' if k.get('one_table') else 'NextStep')}" for r, _o, s, k in FAST])
def test_single_agent_against_referee(rules, opponents, seat, kw):
    stats, bad = play(rules, opponents, seat, seed=1, **kw)
    assert not bad, bad[:3]
    assert stats["learner decisions"] >= 40 and stats["opponent decisions"] > stats["learner decisions"], stats


def test_same_seed_same_episodes():
    """docs: a seeded reset repeats its episode ("rotate" starts over): the same seed and actions give the same
    steps, in a fresh env and in the same env reset again."""
    def run(env, rng):
        out = [env.reset(seed=11)]
        for _ in range(30):
            out.append(env.step(np.array([rng.choice(np.flatnonzero(m)) for m in out[-1][0]["action_mask"]])))
        return out
    kw = {"num_envs": 4, "vectorization_mode": "vector_entry_point", "opponents": MIX, "seat": "rotate"}
    a, b = gym.make_vec(IDS["beijing"], **kw), gym.make_vec(IDS["beijing"], **kw)
    first = run(a, random.Random(0))
    _same(first, run(b, random.Random(0)), "fresh env")
    _same(first, run(a, random.Random(0)), "same env, seeded again")
    assert first[0][1]["seat"].tolist() == [0, 1, 2, 3]


SLOW = [(r, o, s, m, one) for r in ("beijing", "hebei", "quemen") for o, s in (("rule", 0), ("random", 1), (MIX, 2), ("efficient", 3), ("rule", "rotate"), (["random", "rule", "rule"], "random")) for m, one in (("NextStep", False), ("SameStep", False), ("NextStep", True))]


@pytest.mark.slow
@pytest.mark.parametrize("rules,opponents,seat,mode,one", SLOW)
def test_single_agent_against_referee_matrix(rules, opponents, seat, mode, one):
    stats, bad = play(rules, opponents, seat, n_tables=8, steps=300 if one else 150, seed=7, mode=mode, one_table=one,
                      p_illegal=0.01, stacked_walls=rules == "beijing", wrappers=mode == "NextStep",
                      max_episode_steps=20 if seat == 3 else None, obs="v2" if seat == 2 else "v1")
    assert not bad, bad[:3]
    assert stats["episodes"] > 5, stats


class _Raising:
    """A batched opponent that fails on its first call."""

    name = "raising"

    def act(self, obs, rng):
        raise RuntimeError("opponent broke")


class _Illegal:
    """A batched opponent that answers an illegal action (the first action it is not allowed)."""

    name = "illegal"

    def act(self, obs, rng):
        return np.argmin(obs["action_mask"], axis=1).astype(np.int64)


def _same(x, y, where):
    if isinstance(x, dict):
        assert x.keys() == y.keys(), where
        for k in x:
            if not where.endswith("/episode") or k != "t":   # RecordEpisodeStatistics' wall-clock time
                _same(x[k], y[k], f"{where}/{k}")
    elif isinstance(x, (tuple, list)) or isinstance(x, np.ndarray) and x.dtype == object:
        assert len(x) == len(y), where
        for i, (u, v) in enumerate(zip(x, y)):
            _same(u, v, f"{where}[{i}]")
    else:
        assert np.array_equal(np.asarray(x), np.asarray(y)), where


def _hostile_calls(env, n):
    """(call, exception, words its message must hold) refused by the vector env ``env`` of ``n`` tables."""
    bad_wall = [["1m"] * 136] * n
    return [
        (lambda: env.step(np.array([0] * (n - 1) + [-1])), A.ActionError, ["-1", f"table {n - 1}", "0-126"]),
        (lambda: env.step(np.array([127] + [0] * (n - 1))), A.ActionError, ["127", "table 0"]),
        (lambda: env.step(np.zeros(n + 1, dtype=np.int64)), A.ActionError, [f"expected {n}", f"({n + 1},)"]),
        (lambda: env.step(np.zeros(n)), A.ActionError, ["integer", "float64"]),
        (lambda: env.step("discard 1m"), A.ActionError, ["integer"]),
        (lambda: env.reset(options={"walls": bad_wall}), ValueError, ["wall of table 0"]),
        (lambda: env.reset(options={"reset_mask": np.ones(n + 1, dtype=bool)}), ValueError, ["reset_mask"]),
        (lambda: env.reset(options={"dealers": [4] * n}), ValueError, ["4"]),
        (lambda: env.reset(seed=-1), ValueError, ["-1"]),
        (lambda: env.set_opponents("no-such-agent"), Exception, ["no-such-agent"]),
        (lambda: env.set_opponents(["rule", "rule"]), Exception, ["three"]),
        (lambda: setattr(env, "seat_mode", 7), ValueError, ["seat", "7"]),
    ]


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_hostile_input_changes_nothing_vector(mode):
    """Refused calls (bad actions, resets, settings; an opponent that raises or plays an illegal action) name what
    is wrong and where, and change nothing: the env then plays on exactly as a twin that never saw them, and the
    referee follows it without a disagreement."""
    n, rng = 4, random.Random(5)
    kw = {"num_envs": n, "vectorization_mode": "vector_entry_point", "opponents": "rule", "seat": "rotate",
          "autoreset_mode": gym.vector.AutoresetMode(mode)}
    env, twin = gym.make_vec(IDS["beijing"], **kw), gym.make_vec(IDS["beijing"], **kw)
    ref = SingleReferee(env, "rotate")
    ref.transactional = True
    _same(env.reset(seed=3), twin.reset(seed=3), "reset")
    for step in range(40):
        if step % 10 == 3:
            calls = _hostile_calls(env, n)
            for opp in (_Raising(), _Illegal()):
                def call(opp=opp):
                    env.set_opponents(opp)
                    try:
                        env.step(np.array([PASS if s.end else choose(rng, s.legal()) for s in ref.sims]))
                    finally:
                        env.set_opponents("rule")
                calls.append((call, Exception, ["table", opp.name if opp.name != "raising" else "opponent broke"]))
            for call, exc, words in calls:
                state = env.engine._save()
                with pytest.raises(exc) as e:
                    call()
                for w in words:
                    assert w in str(e.value), (str(e.value), w)
                assert all(np.array_equal(a, b) for a, b in zip(state, env.engine._save())
                           if isinstance(a, np.ndarray)), str(e.value)
        acts = np.array([PASS if s is None or s.end else choose(rng, s.legal()) for s in ref.sims], dtype=np.int64)
        _same(env.step(acts), twin.step(acts), f"step {step}")
    assert not ref.bad and not ref.score.bad, (ref.bad + ref.score.bad)[:3]


def test_hostile_input_changes_nothing_one_table():
    """The one-table env through gym.make's wrappers (PassiveEnvChecker, OrderEnforcing, TimeLimit) and
    FlattenObservation, RecordEpisodeStatistics: gymnasium's check_env passes, refused actions name what is wrong
    and change nothing (the env plays on as its twin), and the referee follows the learner's table throughout."""
    from gymnasium.utils.env_checker import check_env
    check_env(gym.make(IDS["hebei"], seat="rotate").unwrapped, skip_render_check=True)

    def make():
        return gym.wrappers.RecordEpisodeStatistics(gym.wrappers.FlattenObservation(
            gym.make(IDS["hebei"], seat="rotate", opponents=["rule", "random", "efficient"], max_episode_steps=15)))
    env, twin = make(), make()
    ref = SingleReferee(env.unwrapped.venv, "rotate")
    ref.transactional = True
    rng = random.Random(2)
    _same(env.reset(seed=9), twin.reset(seed=9), "reset")
    for step in range(120):
        if step % 25 == 1:
            for a in (-1, 127, 1.5, "win", None, np.array([1, 2])):
                with pytest.raises(A.ActionError, match="not"):
                    env.step(a)
        s = ref.sims[0]
        a = PASS if s is None or s.end else choose(rng, s.legal())
        out = env.step(a)
        _same(out, twin.step(a), f"step {step}")
        if out[2] or out[3]:
            _same(env.reset(), twin.reset(), "reset")
    assert ref.stats["episodes"] > 3 and not ref.bad and not ref.score.bad, (ref.bad + ref.score.bad)[:3]
