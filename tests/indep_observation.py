"""An independent, deliberately slow observer of what each seat sees (tests/test_independent_observation.py).

Written from the documentation alone: docs/RULES.md, docs/INTERFACES.md, docs/game_flow.md, the README's
"What an agent sees" and the plane tables in the module docstrings of mj_env/observation.py (``mj_obs_v1``)
and mj_env/features.py (``mj_obs_v2``), not from the code below those docstrings. The table is tracked by
``tests/indep_flow.py``'s ``Sim`` (the flow referee, replayed from the wall, the dealer and the actions);
``ObsSim`` adds what the planes need and Sim does not keep (rivers, 烧庄, claim counts, the first-turn and
must-discard flags, whether this turn drew), and ``planes_v1`` / ``planes_v2_extra`` build a seat's planes
from it.

Readings the documentation leaves open, taken here as the env takes them (none hides or shows more):
- ``COL_LIVE_LEFT``: the normal draws still possible (hebei: the undrawn tiles above the kept stacks, one
  fewer after an odd number of replacements); ``COL_REPLACEMENTS_LEFT`` under the tail layout: the undrawn
  tiles (a replacement may take any of them, docs/RULES.md 6.4).
- A discard lies in its discarder's river from the discard until it is claimed (also during its window).
- ``P_DRAWN`` at the deal under quemen: the dealer's 14th tile, or where that was a flower its replacement
  (not the replacement of a flower among the first 13).
- 烧庄's columns are 0 where the rule set has no 烧庄, the 互包 columns where it has no 互包; the claim counts
  (``COL_CLAIMED_BY_SELF`` / ``FROM_SELF``) are kept under every rule set.
- In a rob window the added kong's tile stays in the declarer's hand (``P_HAND``) until no one robs it, and
  the v2 planes follow the size of the concealed hand (mj_env/features.py), so the declarer observed there
  gets the planes of a 3k+2 hand.
A final observation (the hand over) is checked for its space and ``COL_PHASE`` 2 only.

The v2 measure (*tiles needed*) is computed here by brute force from the winning-hand definition of
docs/RULES.md 5 with the held 惠牌 as wildcards: the fewest tiles the hand must take in so that its natural
tiles plus its wildcards cover some winning shape (four sets and a pair less the declared melds, seven pairs,
hebei's thirteen orphans; under 缺一门 a shape lacking a suit that the declared melds do not hold).
"""
from __future__ import annotations

import collections
import random
from functools import cache

import indep_flow as F
import numpy as np

import mj_env
from mj_env import actions as A
from mj_env.vector import MahjongVectorEnv

N = 34
KONG_CLAIM = F.KONG
ORPH = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)

# v1 scalar columns (mj_env/observation.py docstring)
LIVE, REPL, DEALER, PHASE, MUSTD, ASKER, SZR, SZA, HBC = range(9)
HUBAO0, CKONG0, TING0, FLOW0, FIRST, CCAT, CBY0, CFROM0 = 9, 12, 16, 20, 24, 25, 26, 30


class ObsSim(F.Sim):
    """Sim plus the public history the observation planes need."""

    def __init__(self, rules, wall, dealer):
        self.river = [[0] * N for _ in range(4)]
        self.claims = [[0] * 4 for _ in range(4)]  # claims[a][b]: discards a claimed from b
        self.discarded = [False] * 4
        self.melded = False
        self.must_discard = False
        self.drew = False
        self.sz_alive = bool(rules.shaozhuang)
        self.sz_rounds = 0
        self.sz_round = None  # discards of the current round, None before the dealer's first discard
        self.window = None
        self.queue, self.pending, self.winners = [], None, []
        super().__init__(rules, wall, dealer)
        if wall[52] < N:
            # P_DRAWN at the deal: the dealer's 14th tile; where that was a flower, its replacement (Sim keeps
            # the dealer's last replacement, which may replace a flower among the first 13 instead)
            self.drawn = wall[52]

    def start_turn(self, s, after_kong):
        self.must_discard = False
        self.drew = True
        super().start_turn(s, after_kong)

    def carry_out(self, o, a):
        t, d = self.window["t"], self.window["from"]
        self.river[d][t] -= 1
        self.claims[o][d] += 1
        self.sz_alive = False
        self.melded = True
        super().carry_out(o, a)
        if a != KONG_CLAIM:
            self.must_discard = True
            self.drew = False

    def _shaozhuang(self, s, k):
        if not self.sz_alive:
            return
        if self.sz_round is None or not self.sz_round:
            if s != self.dealer:
                self.sz_alive = False
                return
            self.sz_round = [k]
            return
        if s != (self.dealer + len(self.sz_round)) % 4 or k != self.sz_round[0]:
            self.sz_alive = False
            return
        self.sz_round.append(k)
        if len(self.sz_round) == 4:
            self.sz_rounds += 1
            self.sz_round = []

    def step(self, a):
        if self.phase == "TURN" and not self.end:
            s = self.to_act
            if F.DISCARD <= a < F.DISCARD + N or F.TING <= a < F.TING + N:
                k = a - F.TING if a >= F.TING else a
                self.river[s][k] += 1
                self.discarded[s] = True
                self._shaozhuang(s, k)
            elif F.KONG_SELF <= a < F.WIN and self.hand[s][a - F.KONG_SELF] == 4:
                self.melded = True
        super().step(a)

    # ------------------------------------------------------------ derived public values
    def live_left(self):
        r = self.r
        if r.wall_layout == "indicator":
            return self.n - 1 - r.reserve - self.live
        und = self.n - self.live - self.repl
        kept = 2 * r.tail_stacks_kept
        if kept:
            return max(0, und - kept - (self.repl % 2))
        return max(0, und)

    def repl_left(self):
        if self.r.wall_layout == "indicator":
            return self.r.reserve - self.repl
        return self.n - self.live - self.repl

    def phase_code(self):
        if self.end:
            return 2
        return {"TURN": 0, "CLAIM": 1, "ROB": 2}[self.phase]


def planes_v1(sim: ObsSim, seat: int) -> np.ndarray:
    """The 14 mj_obs_v1 planes of `seat` (not for an ended hand)."""
    p = np.zeros((14, N), dtype=np.int64)
    rel = [(seat + j) % 4 for j in range(4)]
    p[0] = sim.hand[seat]
    for j, s in enumerate(rel):
        for m in sim.melds[s]:
            if m["type"] == "concealed_kong" and j:
                continue
            for t in m["tiles"]:
                p[1 + j, t] += 1
        p[5 + j] = sim.river[s]
    if sim.r.wall_layout == "indicator":
        p[9, sim.wall[-1]] = 1
    if sim.hui is not None:
        p[10, sim.hui] = 1
    window = sim.phase in ("CLAIM", "ROB")
    if window:
        p[11, sim.window["t"]] = 1
    if sim.phase == "TURN" and sim.to_act == seat and sim.drew:
        p[12, sim.drawn] = 1
    sc = p[13]
    sc[LIVE] = sim.live_left()
    sc[REPL] = sim.repl_left()
    sc[DEALER] = (sim.dealer - seat) % 4
    sc[PHASE] = sim.phase_code()
    sc[MUSTD] = int(sim.must_discard)
    sc[ASKER] = (sim.window["from"] - seat) % 4 if window else 0
    sc[SZR] = sim.sz_rounds
    sc[SZA] = int(sim.sz_alive)
    if sim.r.hubao:
        k = sim.r.hubao_claims
        bound = [int(sim.claims[seat][o] >= k or sim.claims[o][seat] >= k) for o in rel[1:]]
        sc[HBC] = sum(bound)
        sc[HUBAO0:HUBAO0 + 3] = bound
    for j, s in enumerate(rel):
        sc[CKONG0 + j] = sum(m["type"] == "concealed_kong" for m in sim.melds[s])
        sc[TING0 + j] = int(sim.ting[s])
        sc[FLOW0 + j] = sim.flowers[s]
        sc[CBY0 + j] = sim.claims[seat][s]
        sc[CFROM0 + j] = sim.claims[s][seat]
    sc[FIRST] = int(not sim.discarded[seat] and not sim.melded)
    cat = 3
    if window and sim.to_act == seat:
        if sim.pending:
            cat = F.cat(sim.pending[1])
        elif sim.winners:
            cat = 1
    sc[CCAT] = cat
    return p


# ---------------------------------------------------------------- v2: tiles needed, by brute force

@cache
def _part_overlap(c, sets, pair, suited):
    """Most natural tiles of one part (a suit's 9 counts, or the 7 honors) that `sets` melds and `pair` pairs can
    hold: each block is part of a triplet, a run (suits only) or a pair; the rest of each block comes from draws
    or wildcards. The lowest kind held is either left out of every block or put in one, then the rest again."""
    i = next((k for k in range(len(c)) if c[k]), None)
    if i is None:
        return 0

    def less(*ks):
        x = list(c)
        for k in ks:
            x[k] -= 1
        return tuple(x)

    best = _part_overlap(less(*[i] * c[i]), sets, pair, suited)  # the copies of i left in no block
    if pair:
        for n in (1, 2):
            if c[i] >= n:
                best = max(best, n + _part_overlap(less(*[i] * n), sets, 0, suited))
    if sets:
        for n in (1, 2, 3):
            if c[i] >= n:
                best = max(best, n + _part_overlap(less(*[i] * n), sets - 1, pair, suited))
        if suited:
            for start in (i - 2, i - 1, i):
                if not 0 <= start <= 6:
                    continue
                others = [x for x in range(start, start + 3) if x != i]
                for use in ((), (0,), (1,), (0, 1)):
                    ks = [others[u] for u in use]
                    if all(c[k] for k in ks):
                        best = max(best, 1 + len(ks) + _part_overlap(less(i, *ks), sets - 1, pair, suited))
    return best


def _overlap(c, sets, pair):
    """_part_overlap over the whole hand: every block lies in one part (a suit or the honors), so the sets and
    the pair are shared out among the four parts."""
    parts = [(c[0:9], True), (c[9:18], True), (c[18:27], True), (c[27:34], False)]
    best = {(0, 0): 0}
    for part, suited in parts:
        nxt = {}
        for (s0, p0), v0 in best.items():
            for s1 in range(sets - s0 + 1):
                for p1 in range(pair - p0 + 1):
                    v = v0 + _part_overlap(part, s1, p1, suited)
                    key = (s0 + s1, p0 + p1)
                    if v > nxt.get(key, -1):
                        nxt[key] = v
        best = nxt
    return max(best.values())


@cache
def need(rules, hand, wild_kind, meld_suits, n_melds):
    """Tiles the hand must still take in to win (docs of mj_env/features.py), by brute force.

    hand: 34 counts of the concealed hand (3k+1 or 3k+2 tiles); wild_kind: 惠牌 kind or None;
    meld_suits: (3,) whether the seat's declared melds hold each suit (缺一门 looks at them)."""
    nat = list(hand)
    w = 0
    if wild_kind is not None:
        w = nat[wild_kind]
        nat[wild_kind] = 0
    size = sum(hand)
    target = 14 - 3 * n_melds  # tiles of the winning concealed part
    drop_choices = [None]
    if rules.lack_suit:
        msuits = {x for x in range(3) if meld_suits[x]}
        drop_choices = [s for s in range(3) if s not in msuits]
        if not drop_choices:
            return 20 + (1 if size % 3 == 1 else 0)
    best = None
    for drop in drop_choices:
        mask = (1 << N) - 1
        if drop is not None:
            for k in range(9 * drop, 9 * drop + 9):
                mask &= ~(1 << k)
        c = tuple(nat[k] if mask >> k & 1 else 0 for k in range(N))
        ov = _overlap(c, 4 - n_melds, 1)
        if n_melds == 0 and rules.seven_pairs:
            pairs = sum(x // 2 for x in c)
            odd = sum(x % 2 for x in c)
            ov = max(ov, 14 if pairs >= 7 else 2 * pairs + min(odd, 7 - pairs))
        if n_melds == 0 and rules.thirteen_orphans and drop is None:
            distinct = sum(1 for k in ORPH if c[k])
            extra = 1 if any(c[k] >= 2 for k in (31, 32, 33) if rules.orphans_extra_dragon) or (
                not rules.orphans_extra_dragon and any(c[k] >= 2 for k in ORPH)) else 0
            ov = max(ov, distinct + extra)
        missing = target - ov - w
        best = missing if best is None else min(best, missing)
    return max(best, 0)


def planes_v2_extra(sim: ObsSim, seat: int, v1: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Planes 14-17 of mj_obs_v2 for `seat`, from the table and the seat's mask."""
    r = sim.r
    out = np.zeros((4, N), dtype=np.int64)
    hui = sim.hui
    seen = v1[0] + v1[1:5].sum(0) + v1[5:9].sum(0) + v1[9]
    unseen = np.maximum(0, 4 - seen)
    own_melds = [0] * N
    for m in sim.melds[seat]:
        for t in m["tiles"]:
            own_melds[t] += 1
    n_melds = len(sim.melds[seat])
    hand = list(sim.hand[seat])

    def nd(h, mt, nm):
        suits = tuple(int(any(mt[k] for k in range(9 * x, 9 * x + 9))) for x in range(3))  # all 缺一门 looks at
        return need(r, tuple(h), hui, suits, nm)

    def improve(h, mt, nm):
        base = nd(h, mt, nm)
        tot = 0
        for y in range(N):
            if not unseen[y]:
                continue  # adds nothing to the sum
            h2 = list(h)
            h2[y] += 1
            if nd(h2, mt, nm) < base:
                tot += int(unseen[y])
        return tot

    def after_best_discard(h, mt, nm):
        """(need, improve) after the best discard of a 3k+2 hand: least need, most improve among them."""
        res = {}
        for x in range(N):
            if h[x]:
                h2 = list(h)
                h2[x] -= 1
                res[x] = nd(h2, mt, nm)
        m = min(res.values())
        imp = max(improve([h[k] - (k == x) for k in range(N)], mt, nm) for x, v in res.items() if v == m)
        return m, imp, res

    size = sum(hand)
    if size % 3 == 2:
        # a discard is due: the seat's own turn, or an added kong's declarer while the others are asked whether
        # to rob it (its tile is still in the hand): planes 14, 15 and OPT_NOW as the seat's own need
        m, imp, res = after_best_discard(hand, own_melds, n_melds)
        for x, v in res.items():
            out[0, x] = v
            if v == m:
                out[1, x] = improve([hand[k] - (k == x) for k in range(N)], own_melds, n_melds)
        out[2, 0] = nd(hand, own_melds, n_melds)
        out[3, 0] = imp
        return out
    out[2, 0] = nd(hand, own_melds, n_melds)  # a 3k+1 hand: as it stands (a seat not asked too: its mask is empty)
    out[3, 0] = improve(hand, own_melds, n_melds)
    if sim.phase == "CLAIM" and sim.to_act == seat:
        t = sim.window["t"]

        def take(k_list):
            h = list(hand)
            mt = list(own_melds)
            for k in k_list:
                if h[k] > 0:
                    h[k] -= 1
                    mt[k] += 1
                else:
                    h[hui] -= 1
                    mt[hui] += 1
            mt[t] += 1
            return h, mt

        if mask[F.PONG]:
            h, mt = take([t, t])
            m, imp, _ = after_best_discard(h, mt, n_melds + 1)
            out[2, 1], out[3, 1] = m, imp
        if mask[F.KONG]:
            h, mt = take([t, t, t])
            out[2, 2] = nd(h, mt, n_melds + 1)
            out[3, 2] = improve(h, mt, n_melds + 1)
        for c in range(21):
            if mask[F.CHI + c]:
                low = 9 * (c // 7) + c % 7
                h, mt = take([k for k in range(low, low + 3) if k != t])
                m, imp, _ = after_best_discard(h, mt, n_melds + 1)
                out[2, 3 + c], out[3, 3 + c] = m, imp
    return out


# ---------------------------------------------------------------- drivers: the envs beside the observer

PLANE_NAMES = ["hand", "melds+0", "melds+1", "melds+2", "melds+3", "river+0", "river+1", "river+2", "river+3",
               "indicator", "hui", "claim", "drawn"]


def diff_v1(got, mine):
    """Where the env's planes (14, 34) differ from the observer's: [(plane, [(tile or column, env, mine)])]."""
    out = []
    for i, name in enumerate(PLANE_NAMES):
        if not np.array_equal(got[i], mine[i]):
            out.append((name, [(F.CODES[k], int(got[i, k]), int(mine[i, k])) for k in range(N) if got[i, k] != mine[i, k]]))
    if not np.array_equal(got[13], mine[13]):
        out.append(("scalars", [(c, int(got[13, c]), int(mine[13, c])) for c in range(N) if got[13, c] != mine[13, c]]))
    return out


def diff_v2(got, mine):
    return [(14 + i, [(k, int(got[i, k]), int(mine[i, k])) for k in range(N) if got[i, k] != mine[i, k]])
            for i in range(4) if not np.array_equal(got[i], mine[i])]


def check_space(space, o, log, where):
    """dtype, shape and bounds of one observation against its env's observation_space."""
    ob, m = o["observation"], o["action_mask"]
    if ob.dtype != space["observation"].dtype or ob.shape != space["observation"].shape or not space["observation"].contains(ob):
        log.append((where, "observation outside the space", ob.dtype, ob.shape))
    if m.dtype != np.int8 or not space["action_mask"].contains(m):
        log.append((where, "mask outside the space", m.dtype))


def check_seat(sim, seat, ob, mask, log, where, stats, v2=True):
    """Compare one seat's observation (v1 planes, and v2's extra planes when ob has 18) with the observer's."""
    mine = planes_v1(sim, seat)
    stats[where] += 1
    stats["phase " + sim.phase] += 1
    stats["asked" if seat == sim.to_act else "not asked"] += 1
    if sim.phase != "TURN" and sim.pending:
        stats["pending claim"] += 1
    if sim.phase != "TURN" and sim.winners:
        stats["co-winner accepted"] += 1
    if sim.live_left() == 0:
        stats["no live tile left"] += 1
    if any(m["type"] == "concealed_kong" for o in range(4) if o != seat for m in sim.melds[o]):
        stats["another seat's concealed kong"] += 1
    d = diff_v1(ob[:14], mine)
    if d:
        log.append((where, "v1", seat, sim.phase, d, getattr(sim, "hist", [])[-4:]))
    if len(ob) > 14 and v2:
        stats[where + " v2 extra"] += 1
        d2 = diff_v2(ob[14:], planes_v2_extra(sim, seat, mine, mask))
        if d2:
            log.append((where, "v2", seat, sim.phase, d2, getattr(sim, "hist", [])[-4:]))


def _key(name, ov):
    return name + "".join(f",{k}={v}" for k, v in ov.items())


def _wall(rng, rules):
    return F.gen_wall(rng, rules.n_tiles, rng.choice(["uniform", "clumpy", "ready", "ready"]))


def play_aec(name, ov, n_hands, seed, log, v2_every=1, stats=None, rule_share=0.6):
    """The AEC env in both layouts side by side (the same walls and actions), every seat observed at every
    decision (the seat asked and the three others), v2's extra planes every v2_every-th observation, and
    ``state()``."""
    from agents.rule_based import RuleBasedAgent  # (agents imports mj_env; kept out of the module's imports)
    rng = random.Random(seed)
    rule, nrng = RuleBasedAgent(), np.random.default_rng(seed)
    e1, e2 = mj_env.env(rules=name, **ov), mj_env.env(rules=name, obs="v2", **ov)
    rules = e1.unwrapped.engine.rules
    stats = stats if stats is not None else collections.Counter()
    where = "aec/" + _key(name, ov)
    n = 0
    for _ in range(n_hands):
        wall, dealer = _wall(rng, rules), rng.randrange(4)
        opts = {"wall": [F.CODES[t] for t in wall], "dealer": dealer}
        e1.reset(options=opts)
        e2.reset(options=opts)
        sim = ObsSim(rules, wall, dealer)
        sim.hist = []
        use_rule = rng.random() < rule_share
        while not sim.end:
            ag = e1.agent_selection
            if ag != f"player_{sim.to_act}":
                log.append((where, "seat to act", ag, sim.to_act))
                break
            for s in range(4):
                o1, o2 = e1.observe(f"player_{s}"), e2.observe(f"player_{s}")
                check_space(e1.observation_space(f"player_{s}"), o1, log, where + " v1")
                check_space(e2.observation_space(f"player_{s}"), o2, log, where + " v2")
                if not np.array_equal(o2["observation"][:14], o1["observation"]) or not np.array_equal(
                        o1["action_mask"], o2["action_mask"]):
                    log.append((where, "v2's planes 0-13 or mask differ from v1's", s))
                n += 1
                check_seat(sim, s, o2["observation"], o2["action_mask"], log, where, stats, v2=n % v2_every == 0)
            st = e1.state()  # docs (mj_env/aec.py "State"): the v1 planes of seats 0-3, in that order
            if not e1.state_space.contains(st) or not all(np.array_equal(st[s], planes_v1(sim, s)) for s in range(4)):
                log.append((where, "state() is not the four seats' planes"))
            legal = sim.legal()
            if set(np.flatnonzero(e1.observe(ag)["action_mask"]).tolist()) != legal:
                log.append((where, "mask (tests/test_independent_flow.py checks these)"))
                break
            if use_rule and rng.random() < 0.85:
                o = e1.observe(ag)
                a = int(rule.act({"observation": o["observation"][None], "action_mask": o["action_mask"][None]}, nrng)[0])
            else:
                a = F.choose(rng, legal)
            sim.hist.append((sim.to_act, A.name(a)))
            e1.step(a)
            e2.step(a)
            sim.step(a)
        for e in (e1, e2):
            for s in range(4):
                o = e.observe(f"player_{s}")  # the final observations: in the space, phase 2 (mj_env/observation.py)
                check_space(e.observation_space(f"player_{s}"), o, log, where + " final")
                if o["observation"][13, PHASE] != 2:
                    log.append((where, "final observation's phase", int(o["observation"][13, PHASE])))
            while e.agents:
                e.step(None)
    return stats


def _deals(rng, rules, k):
    out = []
    while len(out) < k:
        wall, d = _wall(rng, rules), rng.randrange(4)
        s = ObsSim(rules, wall, d)
        if not s.end:
            out.append((wall, d, s))
    return out


def play_vector(name, ov, n_tables, n_steps, seed, log, obs="v1", stats=None, v2_every=1):
    """MahjongVectorEnv (NEXT_STEP): the seat to act at every table, every step; ended tables' final
    observations (phase 2, mask pass); the batch within observation_space."""
    rng = random.Random(seed)
    venv = MahjongVectorEnv(num_envs=n_tables, rules=name, seed=seed, autoreset_mode="NextStep", obs=obs, **ov)
    rules = venv.engine.rules
    stats = stats if stats is not None else collections.Counter()
    where = f"vector {obs}/" + _key(name, ov)

    def deal(mask=None):
        deals = _deals(rng, rules, n_tables if mask is None else int(mask.sum()))
        opts = {"walls": np.array([[F.CODES[t] for t in w] for w, _, _ in deals]), "dealers": np.array([d for _, d, _ in deals])}
        if mask is not None:
            opts["reset_mask"] = mask
        return venv.reset(options=opts)[0], [s for _, _, s in deals]

    obs_, sims = deal()
    space = venv.single_observation_space
    n = 0
    for _ in range(n_steps):
        if not venv.observation_space.contains(obs_):
            log.append((where, "the batch is outside observation_space"))
        acts = np.zeros(n_tables, dtype=np.int64)
        for i, s in enumerate(sims):
            check_space(space, {"observation": obs_["observation"][i], "action_mask": obs_["action_mask"][i]}, log, where)
            if int(obs_["seat"][i]) != s.to_act:
                log.append((where, "seat", i))
            n += 1
            check_seat(s, s.to_act, obs_["observation"][i], obs_["action_mask"][i], log, where, stats, v2=n % v2_every == 0)
            acts[i] = F.choose(rng, s.legal())
            s.step(int(acts[i]))
        obs_, *_ = venv.step(acts)
        done = np.array([s.end is not None for s in sims])
        for i in np.flatnonzero(done):
            o = {"observation": obs_["observation"][i], "action_mask": obs_["action_mask"][i]}
            check_space(space, o, log, where + " final")
            stats["final observations"] += 1
            if o["observation"][13, PHASE] != 2 or np.flatnonzero(o["action_mask"]).tolist() != [F.PASS]:
                log.append((where, "final observation: phase 2, mask pass", int(o["observation"][13, PHASE])))
        if done.any():
            obs_, new = deal(done)
            for j, i in enumerate(np.flatnonzero(done)):
                sims[i] = new[j]
    return stats


class Recorder:
    """A batched opponent (mj_env.baselines' protocol) playing random legal actions, recording what it saw."""

    name = "recorder"

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.log = []

    def act(self, obs, rng):
        out = []
        for i in range(len(obs["action_mask"])):
            a = F.choose(self.rng, set(np.flatnonzero(obs["action_mask"][i]).tolist()))
            self.log.append((int(obs["seat"][i]), a, np.array(obs["observation"][i]), np.array(obs["action_mask"][i])))
            out.append(a)
        return np.array(out, dtype=np.int64)


def play_single(name, ov, n_eps, seed, log, obs="v1", stats=None):
    """gymnasium.make("mj_env/<Rules>-v0") with a recording opponent: the learner's observations (either layout)
    and the opponents' (v1, mj_env/single_agent.py), replayed on the observer in the order they were made."""
    import gymnasium as gym

    from mj_env.rules import get_rules
    ids = {"beijing": "mj_env/Beijing-v0", "hebei": "mj_env/Hebei-v0", "quemen": "mj_env/Quemen-v0"}
    rng = random.Random(seed)
    rec = Recorder(seed)
    rules = get_rules(name, **ov)
    stats = stats if stats is not None else collections.Counter()
    where = f"single {obs}/" + _key(name, ov)
    for ep in range(n_eps):
        seat = ep % 4
        env = gym.make(ids[name], opponents=rec, obs=obs, seat=seat, illegal_action="raise", **ov)
        wall, dealer = _wall(rng, rules), rng.randrange(4)
        rec.log = []
        ob, info = env.reset(seed=ep, options={"wall": [F.CODES[t] for t in wall], "dealer": dealer})
        if info.get("redealt"):
            stats["redealt (not followed)"] += 1
            env.close()
            continue
        sim = ObsSim(rules, wall, dealer)

        def replay(sim=sim):
            for s, a, o, m in rec.log:
                if s != sim.to_act:
                    log.append((where, "opponent's seat", s, sim.to_act))
                check_seat(sim, s, o, m, log, where + " opponents", stats)
                sim.step(a)
            rec.log = []

        replay()
        while True:
            check_space(env.observation_space, ob, log, where)
            if sim.end:
                stats["final observations"] += 1
                if ob["observation"][13, PHASE] != 2 or np.flatnonzero(ob["action_mask"]).tolist() != [F.PASS]:
                    log.append((where, "final observation: phase 2, mask pass"))
                break
            if sim.to_act != seat:
                log.append((where, "learner not to act", sim.to_act, seat))
                break
            check_seat(sim, seat, ob["observation"], ob["action_mask"], log, where, stats)
            a = F.choose(rng, sim.legal())
            sim.step(a)
            ob, _r, term, trunc, _info = env.step(a)
            replay()
            if (term or trunc) != bool(sim.end):
                log.append((where, "env ended, sim not" if term or trunc else "sim ended, env not"))
                break
        env.close()
    return stats


def run_script_obs(name, ov, wall, dealer, script, log, stats=None, after=2):
    """indep_flow.run_script (scripted actions, other claim windows passed, other turns discarding the drawn tile)
    with every seat's v1 and v2 observation checked at every decision, up to `after` decisions past the script."""
    stats = stats if stats is not None else collections.Counter()
    e1, e2 = mj_env.env(rules=name, **ov), mj_env.env(rules=name, obs="v2", **ov)
    rules = e1.unwrapped.engine.rules
    opts = {"wall": [F.CODES[t] for t in wall], "dealer": dealer}
    e1.reset(options=opts)
    e2.reset(options=opts)
    sim = ObsSim(rules, wall, dealer)
    sim.hist = []
    script = list(script)
    where = "script/" + name
    while not sim.end and after > 0:
        after -= not script
        for s in range(4):
            o1, o2 = e1.observe(f"player_{s}"), e2.observe(f"player_{s}")
            if not np.array_equal(o2["observation"][:14], o1["observation"]):
                log.append((where, "v2's planes 0-13 differ from v1's", s))
            # v2's brute force where it is new here: the windows, and a declarer's 3k+2 hand in a rob window
            check_seat(sim, s, o2["observation"], o2["action_mask"], log, where, stats, v2=sim.phase != "TURN")
        legal = sim.legal()
        if script and script[0][0] == sim.to_act and A.index(script[0][1]) in legal:
            a = A.index(script.pop(0)[1])
        elif sim.phase != "TURN":
            a = F.PASS
        else:
            a = F.discard_of(sim)
        sim.hist.append((sim.to_act, A.name(a)))
        e1.step(a)
        e2.step(a)
        sim.step(a)
    if script:
        log.append((where, "script left", script))
    return sim, stats
