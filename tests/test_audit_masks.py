"""The legal-action masks against an independent reading of docs/RULES.md 4, 5 and 6.4 (an outside audit).

The checker below was written from the spec's words alone (not from mj_env/legal.py, claims.py or hand.py):
a brute-force win test that tries every reading of the 惠牌 wildcards, the claim window as docs/RULES.md 4.2
orders it (wins first in play order from the discarder, then pong/kong, then chi; a seat asked once with
all its claims; a claim that waits on higher-priority seats), and each rule set's own conditions
(beijing's discard wins, 3 惠牌, reserve; hebei's undrawn tiles; quemen's 缺一门 and 报听). Random play,
biased toward claims, kongs, wins and 报听, on shuffled walls and on walls crafted to be full of pairs,
triplets, ready hands and 惠牌, compares its set of action names with the engine's mask at every decision,
and the seat it expects to act with the engine's.
"""
from __future__ import annotations

import functools
import random

import numpy as np
import pytest
from walls import build_wall

from mj_env import actions as A
from mj_env.engine import Engine
from mj_env.state import (
    CLAIM,
    END,
    MELD_ADDED_KONG,
    MELD_CHI,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PONG,
    ROB,
    TURN,
)
from mj_env.tiles import HUI_OF_INDICATOR, full_set

CODES = [f"{i % 9 + 1}{'mps'[i // 9]}" for i in range(27)] + [f"{i + 1}z" for i in range(7)]
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
KONGS = (MELD_KONG, MELD_ADDED_KONG, MELD_CONCEALED_KONG)


def cat(name: str) -> int:
    """Claim priority: win 0 > pong = kong 1 > chi 2 (docs/RULES.md 4.2)."""
    return 0 if name == "win" else 1 if name in ("pong", "kong") else 2


def chi_name(a: int) -> str:
    return f"chi {a % 9 + 1}{a % 9 + 2}{a % 9 + 3}{'mps'[a // 9]}"


# ----------------------------------------------------------------------------- win shapes (docs/RULES.md 5)
@functools.lru_cache(maxsize=200_000)
def _sets(counts: tuple, jokers: int, sets: int, pair: int) -> bool:
    """The natural tiles ``counts`` and ``jokers`` wildcards (any kind, also a fifth copy) make exactly
    ``sets`` sets and ``pair`` pairs. Brute force: the first tile left goes into some group, every
    group holding it is tried, with every split of its other members into naturals and wildcards."""
    i = next((k for k in range(34) if counts[k]), None)
    if i is None:
        return jokers == 3 * sets + 2 * pair
    for size, p, s in ((2, 1, 0), (3, 0, 1)):
        if pair >= p and sets >= s:
            for k in range(1, min(counts[i], size) + 1):
                if size - k <= jokers:
                    c = list(counts)
                    c[i] -= k
                    if _sets(tuple(c), jokers - size + k, sets - s, pair - p):
                        return True
    if sets and i < 27:
        for a in range(max(i - 2, i - i % 9), min(i, i - i % 9 + 6) + 1):
            others = [m for m in (a, a + 1, a + 2) if m != i]
            for use in range(4):
                c = list(counts)
                c[i] -= 1
                j = 0
                for bit, m in enumerate(others):
                    if use >> bit & 1 and c[m] > 0:
                        c[m] -= 1
                    else:
                        j += 1
                if j <= jokers and _sets(tuple(c), jokers - j, sets - 1, pair):
                    return True
    return False


def win_shape(nat, jokers: int, n_melds: int, rules) -> bool:
    nat = [int(x) for x in nat]
    assert sum(nat) + jokers + 3 * n_melds == 14
    if _sets(tuple(nat), jokers, 4 - n_melds, 1):
        return True
    if rules.seven_pairs and n_melds == 0 and sum(x % 2 for x in nat) <= jokers:
        return True
    if rules.thirteen_orphans and n_melds == 0 and jokers == 0 and all(nat[k] for k in ORPHANS) \
            and sum(nat[k] for k in ORPHANS) == 14:
        extra = [k for k in ORPHANS if nat[k] == 2]
        return not rules.orphans_extra_dragon or extra[0] >= 31
    return False


# ----------------------------------------------------------------------------- one table, read-only
class Table:
    def __init__(self, rules, st, b):
        self.rules = rules
        self.hands = st.hands[b].astype(int)
        self.n_melds = st.n_melds[b].astype(int)
        self.melds = [[(int(st.meld_type[b, s, m]), int(st.meld_tile[b, s, m])) for m in range(self.n_melds[s])]
                      for s in range(4)]
        self.meld_counts = st.meld_counts[b].astype(int)
        self.out = int(st.hands[b].sum() + st.meld_counts[b].sum() + st.river[b].sum() + st.flowers[b].sum())
        self.W = st.wall.shape[1]
        self.hui = int(st.hui[b])
        self.ting = st.ting[b].copy()
        self.phase, self.to_act = int(st.phase[b]), int(st.to_act[b])

    def open_hand(self, s):
        return any(t in (MELD_CHI, MELD_PONG, MELD_KONG, MELD_ADDED_KONG) for t, _ in self.melds[s])

    def kong_possible(self):
        if self.rules.wall_layout == "indicator":  # each kong takes one reserve tile (docs/RULES.md 3)
            return sum(t in KONGS for ms in self.melds for t, _ in ms) < self.rules.reserve
        return self.W - self.out >= 1  # an undrawn tile, kept stacks included (docs/RULES.md 6.4)

    def lacks_suit(self, s, extra=None):
        tiles = self.hands[s] + self.meld_counts[s]
        if extra is not None:
            tiles = tiles.copy()
            tiles[extra] += 1
        return not self.rules.lack_suit or len({k // 9 for k in range(27) if tiles[k]}) <= 2

    def can_win(self, s, tile=None):
        """Self-draw (tile None) or on a discarded / robbed ``tile`` at face value."""
        r, nat = self.rules, self.hands[s].copy()
        jokers = 0
        if r.hui:
            jokers, nat[self.hui] = int(nat[self.hui]), 0
        if tile is not None:
            if r.discard_win_concealed_only and self.open_hand(s):
                return False
            if r.self_draw_only_hui and jokers >= r.self_draw_only_hui:
                return False
            nat[tile] += 1
        return win_shape(nat, jokers, self.n_melds[s], r) and self.lacks_suit(s, tile)

    def waits(self, s, x):
        """After discarding x, a kind the seat does not hold four of completes the hand (docs/RULES.md 6.4)."""
        h = self.hands[s].copy()
        h[x] -= 1
        own = self.hands[s] + self.meld_counts[s]
        # without wildcards (quemen) only a kind held, or a suited neighbour within two, can complete the hand
        near = {j for k in range(34) if h[k] for j in ((k - 2, k - 1, k, k + 1, k + 2) if k < 27 else (k,))
                if j == k or (0 <= j < 27 and j // 9 == k // 9)}
        for k in sorted(near):
            if own[k] < 4:
                h[k] += 1
                suits = {j // 9 for j in range(27) if (h + self.meld_counts[s])[j]}
                ok = win_shape(h, 0, self.n_melds[s], self.rules) and (not self.rules.lack_suit or len(suits) <= 2)
                h[k] -= 1
                if ok:
                    return True
        return False

    def turn(self, s, claimed, drawn):
        hand, out = self.hands[s], set()
        if self.ting[s]:
            return {f"discard {CODES[drawn]}"} | ({"win"} if self.can_win(s) else set())
        if not claimed and self.can_win(s):
            out.add("win")
        if not claimed and self.kong_possible():
            out |= {f"kong {CODES[k]}" for k in range(34) if hand[k] == 4}
            out |= {f"kong {CODES[t]}" for m, t in self.melds[s] if m == MELD_PONG and hand[t]}
        out |= {f"discard {CODES[k]}" for k in range(34) if hand[k]}
        if self.rules.ting:
            out |= {f"ting {CODES[k]}" for k in range(34) if hand[k] and self.waits(s, k)}
        return out

    def claims(self, s, t, discarder, rob):
        r, out = self.rules, set()
        if self.can_win(s, t):
            out.add("win")
        if rob or self.ting[s]:
            return out
        hand = self.hands[s]
        hui = self.hui if r.hui and r.hui_wild_in_melds else -1
        have = hand[t] + (hand[hui] if hui >= 0 and t != hui else 0)
        if have >= 2:
            out.add("pong")
        if have >= 3 and self.kong_possible():
            out.add("kong")
        if r.chi and s == (discarder + 1) % 4 and t < 27:
            for a in range(max(t - 2, t - t % 9), min(t, t - t % 9 + 6) + 1):
                left, missing = hand.copy(), 0
                for m in (a, a + 1, a + 2):
                    if m != t:
                        if left[m]:
                            left[m] -= 1
                        else:
                            missing += 1
                if missing <= (left[hui] if hui >= 0 else 0):
                    out.add(chi_name(a))
        return out


def window(tb: Table, tile, discarder, rob):
    queue = []
    for d in (1, 2, 3):
        s = (discarder + d) % 4
        opts = tb.claims(s, tile, discarder, rob)
        if opts:
            queue.append([s, min(map(cat, opts)), opts])
    queue.sort(key=lambda q: q[1])  # stable: play order from the discarder within a priority
    return {"rob": rob, "discarder": discarder, "queue": queue, "pending": None, "winners": 0, "limit": 3}


class Seat:
    """What the checker remembers of one table between decisions."""

    def __init__(self):
        self.win, self.claimed, self.after = None, False, [None] * 4


def expected(tb: Table, mem: Seat):
    if mem.win is not None:
        s, opts = mem.win["queue"][0][0], mem.win["queue"][0][2]
        return s, {o for o in opts if cat(o) < mem.win["limit"]} | {"pass"}
    s = tb.to_act
    drawn = None
    if mem.after[s] is not None and not mem.claimed:
        diff = tb.hands[s] - mem.after[s]
        if (diff >= 0).all() and diff.sum() == 1:
            drawn = int(np.flatnonzero(diff)[0])
    return s, tb.turn(s, mem.claimed, drawn)


def advance(mem: Seat, tb: Table, name: str, hands_after, multiple_winners: bool):
    s = tb.to_act
    if tb.phase == TURN:
        mem.claimed = False
        what, _, code = name.partition(" ")
        if what in ("discard", "ting"):
            mem.after[s] = hands_after[s].astype(int).copy()
            w = window(tb, CODES.index(code), s, rob=False)
            mem.win = w if w["queue"] else None
        elif what == "kong":
            mem.after[s] = None
            t = CODES.index(code)
            w = window(tb, t, s, rob=True) if tb.hands[s][t] < 4 else None
            mem.win = w if w and w["queue"] else None
        return
    w = mem.win
    w["queue"].pop(0)
    if name == "win":
        if not multiple_winners:
            mem.win = None
            return
        w["winners"] += 1
        w["pending"] = None
        w["queue"] = [q for q in w["queue"] if "win" in q[2]]
        w["limit"] = 1
    elif name != "pass":
        c = cat(name)
        w["pending"] = (s, name)
        w["queue"] = [q for q in w["queue"] if q[1] < c]
        w["limit"] = c
    if w["queue"]:
        return
    mem.win = None
    if w["pending"] and not w["winners"]:
        seat, act = w["pending"]
        mem.claimed = act != "kong"
        mem.after[seat] = None
    elif w["rob"]:
        mem.after[w["discarder"]] = None


# ----------------------------------------------------------------------------- walls and play
def crafted(rules, rng: random.Random) -> list[int]:
    tiles = [int(t) for t in full_set(rules.n_tiles)]
    kind = rng.choice(["shuffled", "clumpy", "hui" if rules.hui else "clumpy"])
    rng.shuffle(tiles)
    if kind == "clumpy":  # nearly sorted 13-tile chunks: pairs, triplets, runs, many claims and kongs
        plain = sorted(t for t in tiles if t < 34)
        for _ in range(rng.randint(5, 60)):
            i = rng.randrange(len(plain))
            j = min(len(plain) - 1, max(0, i + rng.randint(-12, 12)))
            plain[i], plain[j] = plain[j], plain[i]
        chunks = [plain[i:i + 13] for i in range(0, len(plain), 13)]
        rng.shuffle(chunks)
        deck = [t for c in chunks for t in c]
        rest = deck[52:]
        rng.shuffle(rest)
        tiles = deck[:52] + rest
        for f in (t for t in full_set(rules.n_tiles) if t >= 34):
            tiles.insert(rng.randrange(40, len(tiles)), int(f))
    elif kind == "hui" and tiles[-1] < 34:  # all four 惠牌 dealt or drawn early
        hui = int(HUI_OF_INDICATOR[tiles[-1]])
        for p, q in zip([i for i, t in enumerate(tiles) if t == hui], rng.sample(range(60), 4)):
            tiles[p], tiles[q] = tiles[q], tiles[p]
    return tiles


def choose(rng, names, tb: Table, s):
    for key, p in (("win", 0.6), ("kong ", 0.7), ("kong", 0.6), ("pong", 0.5), ("chi ", 0.35), ("ting ", 0.5)):
        cands = [n for n in names if n == key or (key.endswith(" ") and n.startswith(key))]
        if cands and rng.random() < p:
            return rng.choice(cands)
    discards = [n for n in names if n.startswith("discard ")]
    if discards and rng.random() < 0.75:  # keep pairs and neighbours, and the 惠牌: hands get ready
        hand = tb.hands[s]

        def keep(n):
            k = CODES.index(n.split()[1])
            near = sum(hand[j] for j in (k - 2, k - 1, k + 1, k + 2) if k < 27 and 0 <= j < 27 and j // 9 == k // 9)
            return 3 * hand[k] + near + 20 * (k == tb.hui) + rng.random()
        return min(discards, key=keep)
    return rng.choice(sorted(names))


def play_and_compare(preset, seed, decisions, num_tables=8, **overrides):
    eng = Engine(preset, num_tables=num_tables, seed=seed, **overrides)
    rules, rng = eng.rules, random.Random(seed)
    mems = [Seat() for _ in range(num_tables)]
    logs = [[] for _ in range(num_tables)]
    walls = {}

    def deal(tables):
        ws = [crafted(rules, rng) for _ in tables]
        ds = [rng.randrange(4) for _ in tables]
        eng.reset(walls=ws, dealers=ds, tables=tables)
        for b, w, d in zip(tables, ws, ds):
            mems[b], logs[b], walls[b] = Seat(), [], (w, d)

    deal(list(range(num_tables)))
    seen = 0
    while seen < decisions:
        st, mask = eng.state, eng.legal_mask()
        acts = np.zeros(num_tables, dtype=np.int64)
        tables = {b: Table(rules, st, b) for b in range(num_tables)}
        ended = [b for b in range(num_tables) if tables[b].phase == END]
        for b in ended:
            assert not mask[b].any(), "a hand that ended has no legal action"
        live = [b for b in range(num_tables) if b not in ended]
        for b in live:
            tb = tables[b]
            seat, want = expected(tb, mems[b])
            got = {A.name(int(i)) for i in np.flatnonzero(mask[b])}
            where = f"{preset} {overrides} seed {seed} table {b}: wall, dealer {walls[b]}; actions {logs[b]}"
            assert (tb.to_act, tb.phase in (CLAIM, ROB)) == (seat, mems[b].win is not None), where
            assert got == want, f"engine only {sorted(got - want)}, spec only {sorted(want - got)}; {where}"
            name = choose(rng, sorted(got), tb, tb.to_act)
            acts[b] = A.index(name)
            logs[b].append(name)
            seen += 1
        if ended:
            deal(ended)
        if live:
            eng.step(acts, tables=np.array(live))
            for b in live:
                advance(mems[b], tables[b], A.name(int(acts[b])), eng.state.hands[b], rules.multiple_winners)
    return seen


CASES = [("beijing", {}), ("beijing", {"hui_wild_in_melds": True}), ("beijing", {"reserve": 1}),
         ("hebei", {}), ("hebei", {"tail_stacks_kept": 0}), ("quemen", {})]


@pytest.mark.parametrize("preset, overrides", CASES)
def test_masks_match_an_independent_reading_on_random_play(preset, overrides):
    n = 150 if preset == "quemen" else 300  # quemen's 报听 asks for a wait test per discard
    assert play_and_compare(preset, seed=11, decisions=n, **overrides) >= n


@pytest.mark.slow
@pytest.mark.parametrize("preset, overrides", CASES + [
    ("beijing", {"discard_win_concealed_only": False, "multiple_winners": True}),
    ("beijing", {"self_draw_only_hui": 1, "chi": False}), ("hebei", {"chi": True, "orphans_extra_dragon": False})])
def test_masks_match_an_independent_reading_on_long_random_play(preset, overrides):
    n = 3_000 if preset == "quemen" else 20_000  # quemen's 报听 wait tests: about 4 minutes at 20,000
    assert play_and_compare(preset, seed=5, decisions=n, num_tables=32, **overrides) >= n


def test_win_shape_brute_force_agrees_with_trying_every_wildcard():
    # the checker's own check: _sets against assigning every wildcard every kind, on near-complete hands
    rng = random.Random(3)

    def plain(c, sets=4, pair=1):
        i = next((k for k in range(34) if c[k]), None)
        if i is None:
            return sets == pair == 0
        for size, p, s in ((2, 1, 0), (3, 0, 1)):
            if pair >= p and sets >= s and c[i] >= size:
                c[i] -= size
                ok = plain(c, sets - s, pair - p)
                c[i] += size
                if ok:
                    return True
        if sets and i < 27 and i % 9 < 7 and c[i + 1] and c[i + 2]:
            for d in range(3):
                c[i + d] -= 1
            ok = plain(c, sets - 1, pair)
            for d in range(3):
                c[i + d] += 1
            return ok
        return False

    for _ in range(150):
        j = rng.choice([1, 2])
        base = 9 * rng.randrange(3)
        nat = [0] * 34
        for _ in range(14 - j):
            nat[base + rng.randrange(9) if rng.random() < 0.85 else rng.randrange(34)] += 1
        brute = any(plain([n + (k == a) + (k == b) for k, n in enumerate(nat)])
                    for a in range(34) for b in (range(34) if j == 2 else [None]))
        assert _sets(tuple(nat), j, 4, 1) == brute, (nat, j)


def test_beijing_kong_robbing_is_offered_to_a_concealed_hand_only_with_fewer_than_three_hui():
    # indicator 7z: 惠牌 6z. West (2) waits on 1s concealed; North (3) holds three 惠牌, so it may only
    # win by self-draw (docs/RULES.md 5), even on the 1s that South adds to its pong of 1s.
    wall = build_wall("beijing", hands={0: "1s2m3m4m5m6m7m8m9m1p2p3p4p9p", 1: "1s1s1m1m1m4z4z4z7p7p8p9p5z",
                                        2: "2s3s4p5p6p7p8p9p1z1z1z2z2z", 3: "6z6z6z2s3s4m5m6m7m8m9m3z3z"},
                      draws="2p5p8p1s", indicator="7z", seed=3)
    eng = Engine("beijing", seed=0)
    eng.reset(walls=[wall], dealers=[0])

    def do(name):
        eng.step(np.array([A.index(name)]))

    for name in ("discard 1s", "pass", "pong", "discard 5z", "discard 2p", "discard 5p", "pass", "discard 8p",
                 "pass", "kong 1s"):
        do(name)
    st = eng.state
    assert (int(st.phase[0]), int(st.to_act[0])) == (ROB, 2)
    assert {A.name(int(i)) for i in np.flatnonzero(eng.legal_mask()[0])} == {"win", "pass"}
    do("pass")  # North is not asked: the kong completes and South draws its replacement
    assert (int(st.phase[0]), int(st.to_act[0])) == (TURN, 1)
