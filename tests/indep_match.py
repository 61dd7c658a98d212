"""An independent referee of matches (``hands_per_episode`` > 1), wrapping the single-hand referees.

The expectations come from docs/RULES.md 2 and 6, docs/INTERFACES.md 2 and docs/game_flow.md; the engine's match
code (``Engine._finish``) was read only to find where a hand's end can be seen (below). What the spec says carries
from one hand of a match to the next, and what not:

- the dealer (docs/RULES.md 2: "a match of several hands (dealer carried over, scores summed)"): it stays after a
  dealer win (hebei: the dealer among the winners, docs/game_flow.md) or a drawn hand (连庄), else passes to
  (dealer-1) % 4 under ``dealer_rotation="previous"`` (beijing's default) or (dealer+1) % 4 under ``"next"``
  (``tests/indep_flow.next_dealer``); the first hand's dealer is East under ``first_dealer="east"`` unless
  ``reset`` names one, any seat under ``"random"``;
- nothing else: 烧庄 rounds are counted in a hand ("the first round that breaks ends it for the hand",
  docs/RULES.md 6.1), and so are 互包 claims ("in this hand"), 报听, flowers and kongs (kong payments are "settled at
  the end of the hand"). Each hand is scored alone by ``tests/indep_scoring.expected`` on a fresh record;
- scores are summed: every hand's points are paid in the step that ended it (docs/INTERFACES.md 2: "rewards of the
  environment are these settled points"), and the episode ends with the ``hands_per_episode``-th hand.

The engine deals a match's next hand inside the step that ended a hand (and the next hand may end at its deal:
四惠牌, or a quemen wall emptied by flowers). The referee sees the hand's end state by a stand-in for
``mj_env.engine.deal`` that copies the table's state before each next deal; it wraps ``Engine.step`` and
``Engine.reset`` of one engine, so the same referee checks the engine alone, the AEC env and the vector env.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from contextlib import contextmanager

import numpy as np
from indep_flow import next_dealer
from indep_scoring import _Hand, _shaozhuang_walls, expected, step_before, track_step, won_hand
from walls import four_hui_wall, tian_hu_wall

import mj_env
import mj_env.engine as engine_module
from agents.rule_based import RuleBasedAgent
from mj_env import actions as A
from mj_env.observation import observe
from mj_env.state import END, TURN
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv

WIN = A.index("win")
CLAIMS = [i for i in range(A.N_ACTIONS) if A.name(i) in ("pong", "kong") or A.name(i).startswith(("chi", "kong "))]


class MatchReferee:
    """Follows every table of ``eng`` through its matches; ``bad`` collects disagreements, ``stats`` counts."""

    def __init__(self, eng, max_reports=10):
        self.eng, self.rules = eng, eng.rules
        n = eng.num_tables
        self.hands = [_Hand() for _ in range(n)]
        self.played = [0] * n               # hands ended in the current match
        self.dealer = [None] * n            # the dealer the referee expects of the hand in play (None: any seat)
        self.match = np.zeros((n, 4), dtype=np.int64)    # the match's points so far
        self.step_hands = [[] for _ in range(n)]         # the last step's ended hands: expected scores each
        self.stats, self.bad, self.max_reports = Counter(), [], max_reports
        self._snaps = {}
        self._skip_deal = False
        self._real_step, self._real_reset = eng.step, eng.reset
        eng.step, eng.reset = self._step, self._reset

    # ---------------------------------------------------------------- hooks
    @contextmanager
    def watching(self):
        """Copy the table's state before each next deal of a match (a stand-in for ``mj_env.engine.deal``)."""
        real = engine_module.deal

        def deal(rules, st, idx, walls, dealers):
            if st is self.eng.state:
                if self._skip_deal:   # reset's own deal: no hand ended before it
                    self._skip_deal = False
                else:
                    snap = copy.deepcopy(st)
                    for t in np.asarray(idx).tolist():
                        self._snaps.setdefault(t, []).append(snap)
            return real(rules, st, idx, walls, dealers)
        engine_module.deal = deal
        try:
            yield self
        finally:
            engine_module.deal = real

    def report(self, *what):
        self.stats["disagreements"] += 1
        if len(self.bad) < self.max_reports:
            self.bad.append(what)

    # ---------------------------------------------------------------- reset and step
    def _reset(self, seed=None, walls=None, dealers=None, tables=None):
        self._snaps, self._skip_deal = {}, True
        res = self._real_reset(seed=seed, walls=walls, dealers=dealers, tables=tables)
        self._skip_deal = False
        idx = np.arange(self.eng.num_tables) if tables is None else np.asarray(tables).reshape(-1)
        given = None if dealers is None else np.broadcast_to(np.asarray(dealers), (len(idx),))
        for j, t in enumerate(idx.tolist()):
            # (step_hands keeps what an earlier reset of the same vector-env step ended: an autoreset whose whole
            # match ended at its deal is dealt again at once, and the vector env pays both with the next step)
            self.hands[t], self.played[t], self.match[t] = _Hand(), 0, 0
            if given is not None:
                self.dealer[t] = int(given[j])
            else:
                self.dealer[t] = 0 if self.rules.first_dealer == "east" else None
            self._ended(t, res, None, None, False)
        return res

    def _step(self, actions):
        st = self.eng.state
        live = np.flatnonzero(st.phase != END)
        before = {t: step_before(st, t) for t in live.tolist()}
        acts = np.asarray(actions)
        self._snaps = {}
        res = self._real_step(actions)
        for t in range(self.eng.num_tables):
            self.step_hands[t] = []
        for t in live.tolist():
            self._ended(t, res, before[t], A.name(int(acts[t])), True)
        return res

    # ---------------------------------------------------------------- one table after a step or a reset
    def _end_state(self, t, j):
        snaps = self._snaps.get(t, [])
        return snaps[j] if j < len(snaps) else self.eng.state

    def _ended(self, t, res, before, name, stepped):
        rules = self.rules
        n_ended = len(res.settlements.every(t)) if res.hand_over[t] else 0
        if stepped:  # the step's own action, in the hand it was taken in
            st0 = self._end_state(t, 0) if n_ended else self.eng.state
            drew = track_step(rules, self.hands[t], before, name, st0, t)
        ended = res.settlements.every(t)
        if len(ended) != n_ended:
            self.report("hand_over vs settlements", t, bool(res.hand_over[t]), len(ended))
        if len(self._snaps.get(t, [])) not in (n_ended, n_ended - 1):
            self.report("next deals vs hands ended", t, len(self._snaps.get(t, [])), n_ended)
        total_step = np.zeros(4, dtype=np.int64)
        for j, settlement in enumerate(ended):
            st = self._end_state(t, j)
            h = self.hands[t]
            dealer = int(st.dealer[t])
            if self.dealer[t] is not None and dealer != self.dealer[t]:
                self.report("dealer", t, "hand", self.played[t] + 1, "engine", dealer, "expected", self.dealer[t])
            at_deal = j > 0 or not stepped
            if at_deal:  # a hand that ended at its deal: 四惠牌 of the dealer, or a quemen wall emptied by flowers
                hui = int(st.hui[t])
                four = bool(rules.hui and rules.four_hui_win and hui >= 0 and int(st.hands[t, dealer, hui]) == 4)
                winners, discarder, robbed, win_tile, four_hui = ([dealer], None, False, int(st.win_tile[t]), True) \
                    if four else ([], None, False, None, False)
                self.stats["hands ended at the deal"] += 1
                self.stats["next hand ended at its deal"] += j > 0
            elif "draw" in settlement:
                winners, discarder, robbed, win_tile, four_hui = [], None, False, None, False
            else:
                winners, discarder, robbed, win_tile, four_hui = won_hand(st, t, h, before, name, drew)
            if ("draw" in settlement) != (not winners):
                self.report("drawn vs won", t, settlement, winners)
            wins, total = expected(rules, st, t, h, winners, discarder, robbed, win_tile, four_hui, self.stats)
            self._compare(t, settlement, wins, total)
            self.step_hands[t].append(total)
            total_step += total
            self.played[t] += 1
            self.match[t] += total
            self.stats["hands"] += 1
            self.stats["drawn hands"] += not winners
            self.stats["several winners"] += len(winners) > 1
            self.stats["dealer won"] += dealer in winners
            self.stats["dealer kept"] += self.played[t] < rules.hands_per_episode and next_dealer(
                rules, dealer, ("win", winners) if winners else ("draw",)) == dealer
            self.dealer[t] = next_dealer(rules, dealer, ("win", winners) if winners else ("draw",))
            self.hands[t] = _Hand()
        if list(res.rewards[t]) != total_step.tolist():
            self.report("step rewards", t, res.rewards[t].tolist(), total_step.tolist())
        over = self.played[t] >= rules.hands_per_episode
        if bool(res.episode_over[t]) != (bool(ended) and over):
            self.report("episode end", t, "engine", bool(res.episode_over[t]), "hands played", self.played[t])
        if over and ended:
            self.stats["matches"] += 1
            if int(self.eng.state.phase[t]) != END:
                self.report("a table plays on after its match", t)
        elif ended and int(self.eng.state.phase[t]) == END:
            self.report("a match stops early", t, self.played[t])
        elif ended and int(self.eng.state.dealer[t]) != self.dealer[t]:
            self.report("next dealer", t, int(self.eng.state.dealer[t]), self.dealer[t])

    def _compare(self, t, settlement, wins, total):
        ok = list(settlement["scores"]) == total
        engine_wins = sorted(settlement.get("wins", [settlement]), key=lambda x: x["input"]["winner"]) if wins else []
        for (w, b), e in zip(wins, engine_wins):
            ok = ok and b is not None and b[0] == e["fan"] and e["patterns"] in b[1]
            ok = ok and e["input"]["dealer"] == w.dealer and e["input"].get("shaozhuang_rounds", 0) == w.shaozhuang_rounds
        self.stats["shaozhuang hands"] += bool(settlement.get("shaozhuang"))
        if not ok:
            self.report("settlement", t, settlement, total, [(dict(vars(w), rules=None), b) for w, b in wins])


# -------------------------------------------------------------------- play

def pick(eng, ref, agent, rng, mode):
    """Actions for every table of ``eng`` (0 where the table is in END). ``mode``: "random" (uniform over the
    legal actions), "rule" (the rule agent, now and then a random action, and discards that make 烧庄 rounds where
    the tiles allow: the dealer opening a round with a kind each other seat holds, the others copying it),
    "claims" (as "rule", with every claim, kong and win taken eagerly)."""
    st = eng.state
    live = np.flatnonzero(st.phase != END)
    acts = np.zeros(eng.num_tables, dtype=np.int64)
    if not len(live):
        return acts
    mask = eng.legal_mask()
    if mode != "random":
        obs = {"observation": observe(eng.rules, st, idx=live), "action_mask": mask[live],
               "seat": st.to_act[live].astype(np.int64)}
        acts[live] = agent.act(obs, rng)
    for t in live.tolist():
        legal = np.flatnonzero(mask[t])
        if mode == "random" or rng.random() < 0.1:
            acts[t] = rng.choice(legal)
            continue
        ev, seat = ref.hands[t].events, int(st.to_act[t])
        if int(st.phase[t]) == TURN and eng.rules.shaozhuang and rng.random() < 0.9:
            kind = None
            if seat == int(st.dealer[t]) and len(ev) % 4 == 0 and all(e[0] == "discard" for e in ev):
                held = [k for k in range(34) if all(st.hands[t, s, k] for s in range(4))]
                kind = held[0] if held else None
            elif ev and ev[-1][0] == "discard" and ev[-1][1] == (seat - 1) % 4:
                kind = ev[-1][2]
            if kind is not None and mask[t, A.index("discard " + CODES[kind])]:
                acts[t] = A.index("discard " + CODES[kind])
        if mode == "claims":
            claims = [a for a in CLAIMS if mask[t, a]]
            if claims and rng.random() < 0.6:
                acts[t] = rng.choice(claims)
            if mask[t, WIN] and rng.random() < 0.95:
                acts[t] = WIN
    return acts


def next_walls(rules, p_four=0.1, p_tian=0.05, p_shao=0.3):
    """A stand-in for ``mj_env.engine.shuffled_walls`` (the walls of resets and of a match's next hands) under
    rules with 惠牌 and 烧庄: now and then a wall whose dealer is dealt all four 惠牌 (the hand ends at its deal),
    one that deals the dealer 天和, or one that deals each seat the tiles of 1-3 烧庄 rounds."""
    real = engine_module.shuffled_walls

    def shuffled(rules_, rng, n):
        out = real(rules_, rng, n)
        for j in range(n):
            u = rng.random()
            if u < p_four:
                out[j] = four_hui_wall(seed=int(rng.integers(1 << 30)))
            elif u < p_four + p_tian:
                out[j] = tian_hu_wall()
            elif u < p_four + p_tian + p_shao:
                out[j] = _shaozhuang_walls(rules_, rng, 1)[0][0]
        return out
    return shuffled


@contextmanager
def stacked(rules, on):
    if not on:
        yield
        return
    real = engine_module.shuffled_walls
    engine_module.shuffled_walls = next_walls(rules)
    try:
        yield
    finally:
        engine_module.shuffled_walls = real


def play_engine(rules_name, overrides, n_tables, steps, seed, mode, dealers=False, walls=False):
    """The engine alone: ``n_tables`` tables play matches for ``steps`` steps; each match is restarted by a reset
    (with given dealers where ``dealers``). Returns the referee."""
    eng = engine_module.Engine(rules_name, num_tables=n_tables, seed=seed, **overrides)
    ref = MatchReferee(eng)
    agent, rng = RuleBasedAgent(eng.rules), np.random.default_rng(seed + 7)
    with ref.watching(), stacked(eng.rules, walls):
        eng.reset(dealers=rng.integers(0, 4, n_tables) if dealers else None)
        for _ in range(steps):
            eng.step(pick(eng, ref, agent, rng, mode))
            done = np.flatnonzero(eng.state.phase == END)
            while len(done):
                eng.reset(tables=done, dealers=rng.integers(0, 4, len(done)) if dealers else None)
                done = np.flatnonzero(eng.state.phase == END)
    return ref


def play_aec(rules_name, overrides, n_matches, seed, mode, walls=False):
    """The PettingZoo AEC env: ``n_matches`` matches; every step's rewards, settlements (and earlier settlements),
    terminations and each agent's rewards summed over the match are compared with the referee's."""
    e = mj_env.env(rules=rules_name, **overrides)
    eng = e.unwrapped.engine
    ref = MatchReferee(eng)
    agent, rng, prng = RuleBasedAgent(eng.rules), np.random.default_rng(seed + 7), random.Random(seed)
    agents = [f"player_{i}" for i in range(4)]
    with ref.watching(), stacked(eng.rules, walls):
        for m in range(n_matches):
            dealer = prng.randrange(4) if prng.random() < 0.5 else None
            e.reset(seed=seed * 1000 + m, options=None if dealer is None else {"dealer": dealer})
            got = np.zeros(4, dtype=np.int64)
            got += [int(e.rewards[a]) for a in agents]   # a first hand ended at its deal
            steps = 0
            while not all(e.terminations.values()):
                e.step(int(pick(eng, ref, agent, rng, mode)[0]))
                steps += 1
                rw = [int(e.rewards[a]) for a in agents]
                got += rw
                hands = ref.step_hands[0]
                if rw != (np.sum(hands, axis=0, dtype=np.int64).tolist() if hands else [0] * 4):
                    ref.report("aec rewards", m, steps, rw, hands)
                infos = [e.infos[a] for a in agents]
                if hands:
                    for a, info in zip(agents, infos):
                        shown = [*info.get("earlier_settlements", []), info.get("settlement")]
                        if [list(s["scores"]) for s in shown if s is not None] != [list(x) for x in hands]:
                            ref.report("aec settlements", m, steps, a, shown, hands)
                    ref.stats["aec steps with earlier_settlements"] += "earlier_settlements" in infos[0]
                if bool(all(e.terminations.values())) != (ref.played[0] >= eng.rules.hands_per_episode):
                    ref.report("aec termination", m, steps, dict(e.terminations), ref.played[0])
                if any(e.truncations.values()):
                    ref.report("aec truncation", m, steps)
            if got.tolist() != ref.match[0].tolist():
                ref.report("aec match total", m, got.tolist(), ref.match[0].tolist())
            ref.stats["aec matches"] += 1
    return ref


def play_vector(rules_name, overrides, n_tables, steps, seed, mode, walls=False):
    """The vector env (autoreset NextStep): every step's rewards, settlements, earlier settlements and terminations
    per table against the referee; a hand that ended at a (auto)reset's deal is paid with the table's next step
    (``deal_points``, mj_env/vector.py); so is a whole match that ended at an autoreset's deal (all its hands 四惠牌),
    which the vector env deals again at once and never shows as an episode: its points come in the next match's
    first step (as a single hand's do under ``hands_per_episode=1``)."""
    venv = MahjongVectorEnv(num_envs=n_tables, rules=rules_name, seed=seed, autoreset_mode="NextStep", **overrides)
    eng = venv.engine
    ref = MatchReferee(eng)
    agent, rng = RuleBasedAgent(eng.rules), np.random.default_rng(seed + 7)
    owed = np.zeros((n_tables, 4), dtype=np.int64)   # points of hands ended at a reset's deal, not yet paid
    with ref.watching(), stacked(eng.rules, walls):
        venv.reset(seed=seed)
        for i in range(n_tables):  # hands that ended at the first deal
            owed[i] += np.sum(ref.step_hands[i], axis=0, dtype=np.int64) if ref.step_hands[i] else 0
        for step in range(steps):
            before_over = eng.state.phase == END
            _obs, rew, term, _trunc, infos = venv.step(pick(eng, ref, agent, rng, mode))
            for i in range(n_tables):
                hands = ref.step_hands[i] if not before_over[i] else []
                exp = np.sum(hands, axis=0, dtype=np.int64) if hands else np.zeros(4, dtype=np.int64)
                dp = infos.get("_deal_points")
                if dp is not None and dp[i]:
                    if infos["deal_points"][i].tolist() != owed[i].tolist():
                        ref.report("vector deal points", step, i, infos["deal_points"][i].tolist(), owed[i].tolist())
                    exp = exp + owed[i]
                    owed[i] = 0
                if rew[i].tolist() != exp.tolist():
                    ref.report("vector rewards", step, i, rew[i].tolist(), exp.tolist())
                if bool(infos["_settlement"][i]) != bool(hands):
                    ref.report("vector _settlement", step, i)
                if hands:
                    earlier = infos.get("earlier_settlements")
                    shown = [*(earlier[i] if earlier is not None and earlier[i] is not None else []), infos["settlement"][i]]
                    if [list(s["scores"]) for s in shown] != [list(x) for x in hands]:
                        ref.report("vector settlements", step, i, shown, hands)
                    ref.stats["vector steps with earlier_settlements"] += len(shown) > 1
                if bool(term[i]) != (bool(hands) and ref.played[i] >= eng.rules.hands_per_episode):
                    ref.report("vector termination", step, i, bool(term[i]), ref.played[i])
                if before_over[i]:   # autoreset in this step: hands its deal ended are paid with the next step
                    owed[i] += np.sum(ref.step_hands[i], axis=0, dtype=np.int64) if ref.step_hands[i] else 0
    return ref
