"""An independent, deliberately slow referee of the game flow (tests/test_independent_flow.py).

Written from docs/RULES.md 2-5 and 7, docs/INTERFACES.md 2 and docs/game_flow.md alone, before reading
the engine (mj_env/engine.py, claims.py, legal.py) or the reference engine in tests/ref_engine.py. Given
the wall, the dealer and the actions taken, ``Sim`` keeps the whole table in plain lists and says, for
the seat to act, the set of legal actions, which seat acts next and how the hand ends. The drivers
below play the PettingZoo AEC env and the vector env beside it with random legal actions (and the rule
agent) and report every difference: masks, the seat to act, hands and melds, the end and the winners.
"""
from __future__ import annotations

import collections
import random
from functools import cache

import numpy as np

import mj_env
from mj_env import actions as A
from mj_env.vector import MahjongVectorEnv

N_KINDS = 34
WIN, PASS, PONG, KONG, CHI, TING, KONG_SELF, DISCARD = 68, 69, 70, 71, 72, 93, 34, 0
CODES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)] + [f"{r}f" for r in range(1, 9)]


def cat(a):
    """Claim category: win 0, pong/kong 1, chi 2 (docs/RULES.md 4.2: win > kong = pong > chi)."""
    return 0 if a == WIN else 1 if a in (PONG, KONG) else 2


def successor(k):
    """docs/RULES.md 3: suit n -> n+1, 9 -> 1; E S W N E; 中 -> 发 -> 白 -> 中."""
    if k < 27:
        return k - k % 9 + (k % 9 + 1) % 9
    if k < 31:
        return 27 + (k - 27 + 1) % 4
    return {33: 32, 32: 31, 31: 33}[k]


@cache
def _std(counts, wild, sets, pair):
    """Can naturals `counts` (tuple of 34) plus `wild` wildcards make `sets` melds and `pair` pairs?"""
    i = next((k for k in range(N_KINDS) if counts[k]), None)
    if i is None:
        return wild == 3 * sets + 2 * pair
    c = list(counts)
    # pair containing i
    if pair:
        for nat in (2, 1):
            if c[i] >= nat and wild >= 2 - nat:
                c2 = c[:]
                c2[i] -= nat
                if _std(tuple(c2), wild - (2 - nat), sets, 0):
                    return True
    if sets:
        for nat in (3, 2, 1):
            if c[i] >= nat and wild >= 3 - nat:
                c2 = c[:]
                c2[i] -= nat
                if _std(tuple(c2), wild - (3 - nat), sets - 1, pair):
                    return True
        if i < 27:  # sequences holding i; tiles below i can only be wild (no natural below i is left)
            r = i % 9
            for start in (r - 2, r - 1, r):
                if start < 0 or start > 6:
                    continue
                need = 0
                c2 = c[:]
                for rr in range(start, start + 3):
                    k = i - r + rr
                    if rr == r or rr > r and c2[k] > 0:
                        c2[k] -= 1
                    else:
                        need += 1
                if need <= wild and _std(tuple(c2), wild - need, sets - 1, pair):
                    return True
    return False


ORPHANS = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]


def winning_shape(rules, conc, n_melds, wild_kind):
    """conc: 34 counts of the concealed hand with the winning tile (a discard's tile already counted as
    natural by the caller through `extra_nat`). wild_kind: the 惠牌 kind whose tiles in conc are wild, or None."""
    c = list(conc)
    w = 0
    if wild_kind is not None:
        w = c[wild_kind]
        c[wild_kind] = 0
    return _shape(rules, tuple(c), w, n_melds)


def _shape(rules, c, w, n_melds):
    if sum(c) + w + 3 * n_melds != 14:
        return False
    if _std(c, w, 4 - n_melds, 1):
        return True
    if n_melds == 0 and rules.seven_pairs:
        singles = sum(x % 2 for x in c)
        if w >= singles:
            return True
    if (n_melds == 0 and rules.thirteen_orphans and w == 0 and all(c[k] >= 1 for k in ORPHANS)
            and all(c[k] == 0 for k in range(34) if k not in ORPHANS)):
        extra = [k for k in ORPHANS if c[k] == 2]
        if len(extra) == 1 and (not rules.orphans_extra_dragon or extra[0] >= 31):
            return True
    return False


def suits_of(counts):
    return {k // 9 for k in range(27) if counts[k]}


class Sim:
    def __init__(self, rules, wall, dealer):
        self.r = rules
        self.wall = list(wall)
        self.n = len(self.wall)
        self.dealer = dealer
        self.hand = [[0] * N_KINDS for _ in range(4)]
        self.flowers = [0] * 4
        self.melds = [[] for _ in range(4)]  # dicts: type, kind, tiles(list of kinds), frm
        self.ting = [False] * 4
        self.live = 53
        self.repl = 0
        self.end = None  # ("win", winners, how) or ("draw",)
        self.hui = successor(self.wall[-1]) if (rules.hui and rules.wall_layout == "indicator") else None
        for i, seat in enumerate([dealer, (dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4]):
            for t in self.wall[13 * i:13 * i + 13]:
                self._give(seat, t)
        self._give(dealer, self.wall[52])
        self.drawn = self.wall[52]
        if rules.flowers:
            for i in range(4):
                s = (dealer + i) % 4
                while True:
                    # flowers already laid out in _give; replace them
                    need = self._pending_flowers[s]
                    if not need:
                        break
                    self._pending_flowers[s] = 0
                    for _ in range(need):
                        if self.undrawn() <= 0:
                            self.end = ("draw", "flowers at the deal")
                            return
                        t = self.wall[self.n - 1 - self.repl]
                        self.repl += 1
                        self._give(s, t)
                        if t < 34 and s == dealer:
                            self.drawn = t
        self.start_turn(dealer, after_kong=False)

    _pending_flowers = None

    def _give(self, s, t):
        if self._pending_flowers is None:
            self._pending_flowers = [0] * 4
        if t >= 34:
            self.flowers[s] += 1
            self._pending_flowers[s] += 1
        else:
            self.hand[s][t] += 1

    # ---------------------------------------------------------------- wall
    def undrawn(self):
        if self.r.wall_layout == "indicator":
            return self.n - 1 - self.r.reserve - self.live
        return self.n - self.live - self.repl

    def kong_possible(self):
        if self.r.wall_layout == "indicator":
            return self.repl < self.r.reserve
        return self.n - self.live - self.repl >= 1

    def draw_refused(self):
        if self.r.wall_layout == "indicator":
            return self.live >= self.n - 1 - self.r.reserve
        und = self.n - self.live - self.repl
        kept = 2 * self.r.tail_stacks_kept
        if kept:
            return und <= kept or (self.repl % 2 == 1 and und <= kept + 1)
        return und <= 0

    def _replace_flowers_of_draw(self, s, t):
        """t was drawn; a flower is laid out and replaced from the tail. Returns the kept tile or None (drawn)."""
        while t >= 34:
            self.flowers[s] += 1
            if self.n - self.live - self.repl <= 0:
                return None
            t = self.wall[self.n - 1 - self.repl]
            self.repl += 1
        return t

    def draw_live(self, s):
        if self.draw_refused():
            self.end = ("draw", "wall")
            return
        t = self.wall[self.live]
        self.live += 1
        t = self._replace_flowers_of_draw(s, t)
        if t is None:
            self.end = ("draw", "flower")
            return
        self.hand[s][t] += 1
        self.drawn = t
        self.start_turn(s, after_kong=False)

    def draw_replacement(self, s):
        if self.r.wall_layout == "indicator":
            t = self.wall[self.n - 2 - self.repl]
            self.repl += 1
        else:
            t = self.wall[self.n - 1 - self.repl]
            self.repl += 1
            t = self._replace_flowers_of_draw(s, t)
            if t is None:
                self.end = ("draw", "flower")
                return
        self.hand[s][t] += 1
        self.drawn = t
        self.start_turn(s, after_kong=True)

    # ---------------------------------------------------------------- turn
    def start_turn(self, s, after_kong):
        self.phase = "TURN"
        self.to_act = s
        self.after_claim = False
        if self.r.four_hui_win and self.hui is not None and self.hand[s][self.hui] == 4:
            self.end = ("win", [s], "four_hui")

    def self_win_ok(self, s):
        if self.after_claim:
            return False
        conc = self.hand[s]
        if not winning_shape(self.r, conc, len(self.melds[s]), self.hui):
            return False
        return self.lack_ok(s, conc)

    def lack_ok(self, s, conc):
        if not self.r.lack_suit:
            return True
        allc = list(conc)
        for m in self.melds[s]:
            for t in m["tiles"]:
                allc[t] += 1
        return len(suits_of(allc)) <= 2

    def discard_win_ok(self, s, t):
        if self.r.discard_win_concealed_only and any(m["type"] != "concealed_kong" for m in self.melds[s]):
            return False
        if self.hui is not None and self.r.self_draw_only_hui and self.hand[s][self.hui] >= self.r.self_draw_only_hui:
            return False
        c = list(self.hand[s])
        w = 0
        if self.hui is not None:
            w = c[self.hui]
            c[self.hui] = 0
        c[t] += 1  # face value
        if not _shape(self.r, tuple(c), w, len(self.melds[s])):
            return False
        cc = list(self.hand[s])
        cc[t] += 1
        return self.lack_ok(s, cc)

    def turn_legal(self):
        s = self.to_act
        h = self.hand[s]
        out = set()
        if self.self_win_ok(s):
            out.add(WIN)
        if self.ting[s]:
            out.add(DISCARD + self.drawn)
            return out
        for k in range(N_KINDS):
            if h[k]:
                out.add(DISCARD + k)
        if not self.after_claim and self.kong_possible():
            for k in range(N_KINDS):
                if h[k] == 4:
                    out.add(KONG_SELF + k)
                if h[k] >= 1 and any(m["type"] == "pong" and m["kind"] == k for m in self.melds[s]):
                    out.add(KONG_SELF + k)
        if self.r.ting and not self.ting[s]:
            for k in range(N_KINDS):
                if h[k] and self.ting_waits(s, k):
                    out.add(TING + k)
        return out

    def ting_waits(self, s, x):
        h = list(self.hand[s])
        own = list(h)
        for m in self.melds[s]:
            for t in m["tiles"]:
                own[t] += 1
        h[x] -= 1
        for k in range(N_KINDS):
            if own[k] >= 4:
                continue
            c = list(h)
            c[k] += 1
            w = 0
            if self.hui is not None:
                w = c[self.hui]
                c[self.hui] = 0
            if _shape(self.r, tuple(c), w, len(self.melds[s])):
                cc = list(h)
                cc[k] += 1
                if self.lack_ok(s, cc):
                    return True
        return False

    # ---------------------------------------------------------------- claims
    def claims_of(self, s, t, discarder):
        out = set()
        if self.discard_win_ok(s, t):
            out.add(WIN)
        if self.ting[s]:
            return out
        h = self.hand[s]
        hui = self.hui
        wild = self.r.hui_wild_in_melds and hui is not None and t != hui
        have = h[t] + (h[hui] if wild else 0)
        if have >= 2:
            out.add(PONG)
        if have >= 3 and self.kong_possible():
            out.add(KONG)
        if self.r.chi and s == (discarder + 1) % 4 and t < 27:
            r = t % 9
            for start in (r - 2, r - 1, r):
                if 0 <= start <= 6 and self.chi_tiles(s, t, t - r + start) is not None:
                    out.add(CHI + 7 * (t // 9) + start)
        return out

    def chi_tiles(self, s, t, low):
        """Tiles the hand spends for chi of run low..low+2 on discard t (naturals first), or None."""
        h = list(self.hand[s])
        spent = []
        missing = 0
        for k in range(low, low + 3):
            if k == t:
                continue
            if h[k] > 0:
                h[k] -= 1
                spent.append(k)
            else:
                missing += 1
        if missing:
            if not (self.r.hui_wild_in_melds and self.hui is not None) or h[self.hui] < missing:
                return None
            spent += [self.hui] * missing
        return spent

    def after_discard(self, s, t):
        self.window = {"t": t, "from": s, "rob": False}
        q = []
        for i in range(1, 4):
            o = (s + i) % 4
            cl = self.claims_of(o, t, s)
            if cl:
                q.append((min(cat(a) for a in cl), i, o, cl))
        q.sort(key=lambda x: (x[0], x[1]))
        self.queue = [(o, cl) for _, _, o, cl in q]
        self.limit = 3
        self.pending = None
        self.winners = []
        self.advance()

    def open_rob(self, s, k):
        self.window = {"t": k, "from": s, "rob": True}
        q = []
        for i in range(1, 4):
            o = (s + i) % 4
            if self.discard_win_ok(o, k):
                q.append((o, {WIN}))
        self.queue = q
        self.limit = 3
        self.pending = None
        self.winners = []
        self.advance()

    def advance(self):
        self.queue = [(o, cl) for o, cl in self.queue if any(cat(a) < self.limit for a in cl)]
        if self.queue:
            self.phase = "ROB" if self.window["rob"] else "CLAIM"
            self.to_act = self.queue[0][0]
            return
        w = self.window
        if self.winners:
            self.end = ("win", list(self.winners), "rob" if w["rob"] else "discard")
            return
        if self.pending:
            self.carry_out(*self.pending)
            return
        if w["rob"]:
            self.complete_added_kong(w["from"], w["t"])
        else:
            self.draw_live((w["from"] + 1) % 4)

    def claim_legal(self):
        cl = self.queue[0][1]
        return {a for a in cl if cat(a) < self.limit} | {PASS}

    def claim_step(self, a):
        o = self.queue.pop(0)[0]
        if a == PASS:
            self.advance()
            return
        if a == WIN:
            self.winners.append(o)
            if not self.r.multiple_winners:
                self.queue = []
                self.pending = None
            else:
                self.limit = 1
                self.pending = None
            self.advance()
            return
        c = cat(a)
        if any(min(cat(x) for x in cl2) < c for _, cl2 in self.queue):
            self.pending = (o, a)
            self.limit = c
            self.advance()
            return
        self.queue = []
        self.carry_out(o, a)

    def carry_out(self, o, a):
        w = self.window
        t, d = w["t"], w["from"]
        h = self.hand[o]
        hui = self.hui
        wild = self.r.hui_wild_in_melds and hui is not None and t != hui
        if a in (PONG, KONG):
            need = 2 if a == PONG else 3
            spent = []
            nat = min(h[t], need)
            spent += [t] * nat
            if need - nat:
                assert wild
                spent += [hui] * (need - nat)
            for x in spent:
                h[x] -= 1
            self.melds[o].append({"type": "pong" if a == PONG else "kong", "kind": t, "tiles": spent + [t], "frm": d})
        else:
            low = 9 * ((a - CHI) // 7) + (a - CHI) % 7
            spent = self.chi_tiles(o, t, low)
            for x in spent:
                h[x] -= 1
            self.melds[o].append({"type": "chi", "kind": low, "tiles": spent + [t], "frm": d})
        self.phase = "TURN"
        self.to_act = o
        if a == KONG:
            self.draw_replacement(o)
        else:
            self.after_claim = True

    def complete_added_kong(self, s, k):
        for m in self.melds[s]:
            if m["type"] == "pong" and m["kind"] == k:
                m["type"] = "added_kong"
                m["tiles"].append(k)
                break
        self.hand[s][k] -= 1
        self.draw_replacement(s)

    # ---------------------------------------------------------------- public
    def legal(self):
        if self.end:
            return set()
        if self.phase == "TURN":
            return self.turn_legal()
        return self.claim_legal()

    def step(self, a):
        assert a in self.legal(), (a, self.legal())
        if self.phase != "TURN":
            self.claim_step(a)
            return
        s = self.to_act
        if a == WIN:
            self.end = ("win", [s], "self")
            return
        if DISCARD <= a < DISCARD + N_KINDS or TING <= a < TING + N_KINDS:
            k = a - TING if a >= TING else a
            if a >= TING:
                self.ting[s] = True
            self.hand[s][k] -= 1
            self.after_discard(s, k)
            return
        k = a - KONG_SELF
        if self.hand[s][k] == 4:
            self.hand[s][k] = 0
            self.melds[s].append({"type": "concealed_kong", "kind": k, "tiles": [k] * 4, "frm": None})
            self.draw_replacement(s)
            return
        self.open_rob(s, k)


# ---------------------------------------------------------------- drivers

def ready_hand(rng, pool):
    """13 tiles one short of 4 sets + a pair, taken from pool (a Counter), or None."""
    for _ in range(50):
        take = []
        p = dict(pool)
        ok = True
        for j in range(5):
            for _ in range(20):
                if j == 4:
                    k = rng.randrange(34)
                    need = [k, k]
                elif rng.random() < 0.5:
                    k = rng.randrange(34)
                    need = [k, k, k]
                else:
                    s = rng.randrange(3)
                    r = rng.randrange(7)
                    need = [9 * s + r, 9 * s + r + 1, 9 * s + r + 2]
                c = {}
                for t in need:
                    c[t] = c.get(t, 0) + 1
                if all(p.get(t, 0) >= n for t, n in c.items()):
                    for t in need:
                        p[t] -= 1
                    take += need
                    break
            else:
                ok = False
                break
        if ok:
            take.pop(rng.randrange(len(take)))
            for t in take:
                pool[t] -= 1
            return take
    return None


def gen_ready(rng, n_tiles):
    import collections
    pool = collections.Counter(list(range(34)) * 4 + (list(range(34, 42)) if n_tiles == 144 else []))
    hands = []
    for seat in range(4):
        h = ready_hand(rng, pool) if rng.random() < 0.75 else None
        hands.append(h)
    rest = [t for t, c in pool.items() for _ in range(c)]
    rng.shuffle(rest)
    wall = []
    for h in hands:
        if h is None:
            h = [rest.pop() for _ in range(13)]
        wall += h
    wall += rest
    return wall


def gen_wall(rng, n_tiles, mode):
    kinds = list(range(34)) * 4 + (list(range(34, 42)) if n_tiles == 144 else [])
    if mode == "ready":
        return gen_ready(rng, n_tiles)
    if mode == "uniform":
        rng.shuffle(kinds)
        return kinds
    # clumpy: groups of identical tiles
    groups = []
    for k in range(34):
        left = 4
        while left:
            g = min(left, rng.choice([1, 2, 2, 3, 3, 4]))
            groups.append([k] * g)
            left -= g
    groups += [[f] for f in range(34, 42)] if n_tiles == 144 else []
    rng.shuffle(groups)
    return [t for g in groups for t in g]


KONG_HAPPY = [False]
"""Set KONG_HAPPY[0] to make choose() take pongs and kongs (to reach the wall's end with many replacements)."""


def choose(rng, legal):
    legal = sorted(legal)
    if KONG_HAPPY[0]:
        ks = [a for a in legal if a == KONG or KONG_SELF <= a < WIN or a == PONG]
        if ks and rng.random() < 0.9:
            return max(ks)
    pri = [a for a in legal if a == WIN]
    if pri and rng.random() < 0.7:
        return WIN
    cl = [a for a in legal if a in (PONG, KONG) or CHI <= a < TING or KONG_SELF <= a < WIN or TING <= a]
    if cl and rng.random() < 0.5:
        return rng.choice(cl)
    return rng.choice(legal)


def compare_state(e, sim):
    st = e.unwrapped.engine.state
    out = []
    for s in range(4):
        if list(st.hands[0, s]) != sim.hand[s]:
            out.append(("hand", s, [CODES[k] * (int(st.hands[0, s, k]) - sim.hand[s][k]) for k in range(34) if st.hands[0, s, k] != sim.hand[s][k]]))
        mc = [0] * 34
        for m in sim.melds[s]:
            for t in m["tiles"]:
                mc[t] += 1
        if list(st.meld_counts[0, s]) != mc:
            out.append(("melds", s, list(st.meld_counts[0, s]), mc))
        if int(st.flowers[0, s]) != sim.flowers[s]:
            out.append(("flowers", s, int(st.flowers[0, s]), sim.flowers[s]))
        if bool(st.ting[0, s]) != sim.ting[s]:
            out.append(("ting", s))
    if int(st.live_pos[0]) != sim.live and not sim.end:
        out.append(("live", int(st.live_pos[0]), sim.live))
    if int(st.replaced[0]) != sim.repl and not sim.end:
        out.append(("replaced", int(st.replaced[0]), sim.repl))
    return out


def play_aec(rules_name, overrides, n_hands, seed, log, rule_share=0.6):
    rng = random.Random(seed)
    from agents.rule_based import RuleBasedAgent  # (agents imports mj_env; kept out of the module's imports)
    rule = RuleBasedAgent()
    nrng = np.random.default_rng(seed)
    e = mj_env.env(rules=rules_name, **overrides)
    rules = e.unwrapped.engine.rules
    stats = collections.Counter()
    for h in range(n_hands):
        wall = gen_wall(rng, rules.n_tiles, rng.choice(["uniform", "clumpy", "ready", "ready"]))
        dealer = rng.randrange(4)
        e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
        sim = Sim(rules, wall, dealer)
        hist = []
        use_rule = rng.random() < rule_share
        while True:
            if sim.end:
                break
            seat = sim.to_act
            ag = e.agent_selection
            if not e.agents or e.terminations.get(ag):
                log.append((rules_name, overrides, h, "env ended, sim not", hist[-6:], sim.phase))
                break
            if ag != f"player_{seat}":
                log.append((rules_name, overrides, h, f"to act: env {ag} sim {seat}", hist[-6:], sim.phase))
                break
            if any(e.rewards.values()) or any(e.truncations.values()) or any("settlement" in e.infos[x] for x in e.agents):
                log.append((rules_name, overrides, h, "mid-hand reward/trunc/settlement", dict(e.rewards), hist[-3:]))
            mask = e.observe(ag)["action_mask"]
            envset = set(np.flatnonzero(mask).tolist())
            mine = sim.legal()
            for o in e.agents:
                if o != ag and e.observe(o)["action_mask"].any():
                    log.append((rules_name, overrides, h, f"{o} has a mask while {ag} acts", hist[-6:]))
            stats["decisions"] += 1
            if envset != mine:
                log.append((rules_name, overrides, h, "mask", sim.phase, seat,
                            "env-only", [A.name(a) for a in envset - mine], "sim-only", [A.name(a) for a in mine - envset],
                            hist[-6:]))
                common = envset & mine
                if not common:
                    break
                a = choose(rng, common)
            elif use_rule and rng.random() < 0.85:
                o = e.observe(ag)
                a = int(rule.act({"observation": o["observation"][None], "action_mask": o["action_mask"][None]}, nrng)[0])
                if a == WIN and rng.random() < 0.15 and PASS in mine:
                    a = PASS
            else:
                a = choose(rng, mine)
            d = compare_state(e, sim)
            if d:
                log.append((rules_name, overrides, h, "state", d[:3], hist[-4:]))
            hist.append((seat, A.name(a)))
            nm = A.name(a).split()[0]
            stats["a_" + sim.phase + "_" + nm] += 1
            if sim.phase != "TURN" and len(sim.queue) > 1:
                stats["multi_queue"] += 1
            if sim.phase != "TURN" and sim.pending:
                stats["with_pending"] += 1
            e.step(a)
            sim.step(a)
        # end
        if sim.end:
            stats["end_" + sim.end[0] + "_" + str(sim.end[-1])] += 1
            if sim.end[0] == "draw":
                stats[f"drawend_repl{sim.repl}_und{sim.n - sim.live - sim.repl}"] += 1
            if e.agents and not all(e.terminations.values()):
                log.append((rules_name, overrides, h, "sim ended, env not", sim.end, hist[-6:]))
                continue
            st = e.infos["player_0"].get("settlement")
            sts = [e.infos[f"player_{i}"].get("settlement") for i in range(4)]
            if any(x != st for x in sts):
                log.append((rules_name, overrides, h, "settlements differ between agents"))
            if st is not None:
                rw = [e.rewards[f"player_{i}"] for i in range(4)]
                cu = [e._cumulative_rewards[f"player_{i}"] for i in range(4)]
                if rw != list(st["scores"]) or cu != list(st["scores"]) or sum(rw) != 0:
                    log.append((rules_name, overrides, h, "rewards vs scores", rw, cu, st["scores"]))
                if any(e.truncations.values()):
                    log.append((rules_name, overrides, h, "truncated"))
            if st is None:
                log.append((rules_name, overrides, h, "no settlement", sim.end))
                continue
            if sim.end[0] == "draw":
                if not st.get("draw"):
                    log.append((rules_name, overrides, h, "draw expected", st.get("input", {}).get("winner"), sim.end, hist[-4:]))
            else:
                wins = st.get("wins") or ([st] if "input" in st else [])
                ws = sorted(w["input"]["winner"] for w in wins)
                if ws != sorted(sim.end[1]):
                    log.append((rules_name, overrides, h, "winners", ws, sim.end, hist[-4:]))
                how = sim.end[2]
                for w in wins:
                    inp = w["input"]
                    disc = inp.get("discarder")
                    sit = inp.get("situation", {})
                    if how in ("self", "four_hui") and disc is not None:
                        log.append((rules_name, overrides, h, "self-draw expected", inp))
                    if how in ("discard", "rob") and disc != sim.window["from"]:
                        log.append((rules_name, overrides, h, "discarder", inp, sim.window))
                    if (how == "rob") != bool(sit.get("robbed_kong")):
                        log.append((rules_name, overrides, h, "robbed flag", how, inp))
            while e.agents:
                e.step(None)
    return stats


def next_dealer(rules, dealer, end):
    if end[0] == "draw" or dealer in end[1]:
        return dealer
    return (dealer - 1) % 4 if rules.dealer_rotation == "previous" else (dealer + 1) % 4


def play_match(name, ov, n_matches, hands, seed, log):
    rng = random.Random(seed)
    e = mj_env.env(rules=name, hands_per_episode=hands, **ov)
    rules = e.unwrapped.engine.rules
    st = collections.Counter()
    for m in range(n_matches):
        wall = gen_wall(rng, rules.n_tiles, rng.choice(["uniform", "ready"]))
        dealer = rng.randrange(4)
        e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
        sim = Sim(rules, wall, dealer)
        hand_no = 0
        while True:
            if sim.end:
                hand_no += 1
                st["hands"] += 1
                exp_dealer = next_dealer(rules, dealer, sim.end)
                sts = [e.infos[f"player_{i}"].get("settlement") for i in range(4)]
                if sts[0] is None or any(x != sts[0] for x in sts):
                    log.append(("settlement missing/differs", m, hand_no))
                else:
                    rw = [e.rewards[f"player_{i}"] for i in range(4)]
                    if rw != list(sts[0]["scores"]):
                        log.append(("hand rewards", m, hand_no, rw, sts[0]["scores"]))
                if hand_no == hands:
                    if not all(e.terminations.values()):
                        log.append(("match should end", m, hand_no))
                    break
                if any(e.terminations.values()) or not e.agents:
                    log.append(("match ended early", m, hand_no, sim.end))
                    break
                eng = e.unwrapped.engine
                got = int(eng.state.dealer[0])
                if got != exp_dealer:
                    log.append(("dealer", m, hand_no, "env", got, "expected", exp_dealer, "prev", dealer, sim.end))
                dealer = got
                wall = [int(x) for x in eng.state.wall[0]]
                sim = Sim(rules, wall, dealer)
                continue
            ag = e.agent_selection
            if ag != f"player_{sim.to_act}" or e.terminations[ag]:
                log.append(("to act", m, hand_no, ag, sim.to_act))
                break
            envset = set(np.flatnonzero(e.observe(ag)["action_mask"]).tolist())
            mine = sim.legal()
            st["decisions"] += 1
            if envset != mine:
                log.append(("mask", m, hand_no, [A.name(a) for a in envset - mine], [A.name(a) for a in mine - envset]))
                break
            a = choose(rng, mine)
            e.step(a)
            sim.step(a)
    return st


def play_vector(name, ov, n_tables, n_steps, seed, log):
    rng = random.Random(seed)
    venv = MahjongVectorEnv(num_envs=n_tables, rules=name, seed=seed, autoreset_mode="NextStep", **ov)
    rules = venv.engine.rules
    stats = collections.Counter()

    def new(k):
        out = []
        while len(out) < k:
            wall = gen_wall(rng, rules.n_tiles, rng.choice(["uniform", "clumpy", "ready", "ready"]))
            d = rng.randrange(4)
            s = Sim(rules, wall, d)
            if s.end:
                continue
            out.append((wall, d, s))
        return out

    deals = new(n_tables)
    obs, _ = venv.reset(options={"walls": np.array([[CODES[t] for t in w] for w, _, _ in deals]),
                                 "dealers": np.array([d for _, d, _ in deals])})
    sims = [s for _, _, s in deals]
    for step in range(n_steps):
        acts = np.zeros(n_tables, dtype=np.int64)
        for i, s in enumerate(sims):
            mine = s.legal()
            envset = set(np.flatnonzero(obs["action_mask"][i]).tolist())
            stats["decisions"] += 1
            if int(obs["seat"][i]) != s.to_act:
                log.append((name, ov, step, i, "seat", int(obs["seat"][i]), s.to_act))
            if envset != mine:
                log.append((name, ov, step, i, "mask", [A.name(a) for a in envset - mine], [A.name(a) for a in mine - envset]))
                mine = mine & envset or envset
            acts[i] = choose(rng, mine)
            s.step(int(acts[i]))
        obs, rew, term, _trunc, infos = venv.step(acts)
        done_idx = []
        for i, s in enumerate(sims):
            if bool(term[i]) != bool(s.end):
                log.append((name, ov, step, i, "termination", bool(term[i]), s.end))
            if not s.end and rew[i].any():
                log.append((name, ov, step, i, "points in a step that ended no hand", rew[i]))
            if s.end:
                stats["end_" + s.end[0]] += 1
                st = infos["settlement"][i]
                if st is not None and list(rew[i]) != list(st["scores"]):
                    log.append((name, ov, step, i, "rewards vs settlement scores", rew[i], st["scores"]))
                if st is None:
                    log.append((name, ov, step, i, "no settlement"))
                elif s.end[0] == "draw" and not st.get("draw"):
                    log.append((name, ov, step, i, "draw expected", st))
                elif s.end[0] == "win":
                    wins = st.get("wins") or [st]
                    ws = sorted(w["input"]["winner"] for w in wins)
                    if ws != sorted(s.end[1]):
                        log.append((name, ov, step, i, "winners", ws, s.end))
                    if abs(rew[i].sum()) > 1e-9:
                        log.append((name, ov, step, i, "not zero-sum", rew[i]))
                done_idx.append(i)
        if done_idx:
            deals = new(len(done_idx))
            mask = np.zeros(n_tables, dtype=bool)
            mask[done_idx] = True
            obs, _ = venv.reset(options={"walls": np.array([[CODES[t] for t in w] for w, _, _ in deals]),
                                         "dealers": np.array([d for _, d, _ in deals]), "reset_mask": mask})
            for j, i in enumerate(done_idx):
                sims[i] = deals[j][2]
    return stats


def run_script(rules_name, overrides, wall, dealer, script, log, tail_policy="pass_discard"):
    """Play `script` [(seat, action name)], auto-passing unscripted claim windows and discarding the
    drawn tile on unscripted turns; compare masks, seat and end with the Sim. Returns the sim."""
    e = mj_env.env(rules=rules_name, **overrides)
    rules = e.unwrapped.engine.rules
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
    sim = Sim(rules, wall, dealer)
    script = list(script)
    trace = []
    while not sim.end:
        ag = e.agent_selection
        if ag != f"player_{sim.to_act}" or e.terminations[ag]:
            log.append(("to act", ag, sim.to_act, trace[-4:]))
            return sim
        envset = set(np.flatnonzero(e.observe(ag)["action_mask"]).tolist())
        mine = sim.legal()
        if envset != mine:
            log.append(("mask", sim.phase, sim.to_act, [A.name(a) for a in envset - mine], [A.name(a) for a in mine - envset], trace[-4:]))
            return sim
        if script and script[0][0] == sim.to_act and A.index(script[0][1]) in mine:
            a = A.index(script.pop(0)[1])
        elif script and sim.phase == "TURN" and script[0][0] == sim.to_act:
            log.append(("scripted action not legal", script[0], [A.name(x) for x in sorted(mine)], trace[-4:]))
            return sim
        elif sim.phase != "TURN":
            a = PASS
        elif not script and tail_policy == "stop":
            return sim
        else:
            a = discard_of(sim)
        trace.append((sim.to_act, A.name(a)))
        e.step(a)
        sim.step(a)
    if not all(e.terminations.values()):
        log.append(("sim ended, env not", sim.end, trace[-4:]))
    sim.trace = trace
    sim.env = e
    if script:
        log.append(("script left", script, trace[-6:]))
    return sim


def discard_of(sim):
    legal = sim.legal()
    if sim.drawn is not None and sim.drawn in legal:
        return sim.drawn
    return min(a for a in legal if a < 34)
