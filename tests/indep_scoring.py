"""An independent, slow scorer written from docs/RULES.md 1, 5, 6 and docs/game_flow.md alone (before
reading the engine's scoring code), and a driver that plays games on the batched engine and derives each
won hand's situation from the decisions and the wall counters it sees, not from the settlement's input.

Tiles are kinds 0-33 (docs/RULES.md 1). A won hand is a ``Win``; ``best`` gives the fan of the most-scoring
reading with the pattern sets that reach it (a tie between readings of equal fan is no disagreement),
``win_payments`` the points of the win alone, ``shaozhuang_payments`` and ``kong_payments`` the hand's other
lines. Wildcards (惠牌) are enumerated by brute force over every multiset of kinds they may stand for.
tests/test_independent_scoring.py compares all of it with the engine.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations_with_replacement, product

import numpy as np

from agents.rule_based import RuleBasedAgent
from mj_env import actions as A
from mj_env.calculator import evaluate
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.rules import preset_diff
from mj_env.state import CLAIM, END, MELD_NAMES, ROB, TURN
from mj_env.tiles import CODES
from mj_env.wall import shuffled_walls

M5 = 4  # 5m
HONORS = range(27, 34)
DRAGONS = (31, 32, 33)
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def suit(k: int) -> int:
    """0, 1, 2 for the suits, 3 for honors."""
    return k // 9 if k < 27 else 3


@dataclass
class Meld:
    type: str  # chi pong kong added_kong concealed_kong
    tiles: tuple  # kinds, face values as held
    frm: int | None = None


@dataclass
class Win:
    rules: object  # a RuleSet (only its fields are read)
    hand: list  # 34 counts: the concealed tiles before the winning tile
    win_tile: int
    melds: list = field(default_factory=list)
    winner: int = 0
    dealer: int = 0
    discarder: int | None = None  # None: self-draw
    hui: int | None = None
    last_tile: bool = False
    after_kong: bool = False
    robbed_kong: bool = False
    first_turn: bool = False  # the winner has not discarded yet, and no chi/pong/kong by anyone
    shaozhuang_rounds: int = 0
    hubao: list = field(default_factory=list)  # pairs
    flowers: int = 0
    ting: bool = False
    four_hui: bool = False  # the automatic win of docs/RULES.md 5


# ---------------------------------------------------------------- shapes

@cache
def _std(counts: tuple, n_sets: int) -> tuple:
    """Every decomposition of counts into n_sets sets (('s', k) run k,k+1,k+2 / ('t', k)) and a pair.
    Returns a tuple of (pair, sets) with sets sorted."""
    out = set()

    def rec(c, sets, pair):
        i = next((k for k in range(34) if c[k]), None)
        if i is None:
            if pair is not None and len(sets) == n_sets:
                out.add((pair, tuple(sorted(sets))))
            return
        if c[i] >= 3 and len(sets) < n_sets:
            c[i] -= 3
            rec(c, sets + [("t", i)], pair)
            c[i] += 3
        if pair is None and c[i] >= 2:
            c[i] -= 2
            rec(c, sets, i)
            c[i] += 2
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2] and len(sets) < n_sets:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            rec(c, sets + [("s", i)], pair)
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    rec(list(counts), [], None)
    return tuple(sorted(out))


def _seven_pairs(counts) -> bool:
    return sum(counts) == 14 and all(c % 2 == 0 for c in counts)


def _orphans(counts, extra_dragon: bool) -> bool:
    if sum(counts) != 14 or any(counts[k] for k in range(34) if k not in ORPHANS):
        return False
    if any(counts[k] == 0 for k in ORPHANS):
        return False
    extra = [k for k in ORPHANS if counts[k] == 2]
    return len(extra) == 1 and (not extra_dragon or extra[0] in DRAGONS)


def _is_win_concealed(counts, n_melds: int, rules, n_wild: int) -> bool:
    """Is counts (natural) + n_wild wildcards a winning shape (any reading)?"""
    for assign in combinations_with_replacement(range(34), n_wild):
        c = list(counts)
        for a in assign:
            c[a] += 1
        t = tuple(c)
        if _std(t, 4 - n_melds):
            return True
        if n_melds == 0 and rules.seven_pairs and _seven_pairs(c):
            return True
        if n_melds == 0 and rules.thirteen_orphans and _orphans(c, rules.orphans_extra_dragon):
            return True
    return False


def only_wait_5m(w: Win) -> bool:
    """5m is the hand's only winning tile: no other kind, at face value, completes the hand (the hand's own
    惠牌 still wild); a kind of which the hand and its melds hold all four is no wait (docs/game_flow.md)."""
    rules = w.rules
    held = list(w.hand)
    for m in w.melds:
        for t in m.tiles:
            held[t] += 1
    nat = list(w.hand)
    n_wild = 0
    if w.hui is not None:
        n_wild = nat[w.hui]
        nat[w.hui] = 0
    for k in range(34):
        if k == M5 or held[k] >= 4:
            continue
        c = list(nat)
        c[k] += 1
        if _is_win_concealed(c, len(w.melds), rules, n_wild):
            return False
    return True


# ---------------------------------------------------------------- readings

def _meld_readings(m: Meld, hui, wild_in_melds: bool):
    """Ways to read a declared meld: ('s'|'t'|'k', kind, m) ; k = kong."""
    tiles = list(m.tiles)
    if m.type == "concealed_kong" or not wild_in_melds or hui is None or hui not in tiles:
        if m.type == "chi":
            return [("s", min(tiles))]
        return [("k" if "kong" in m.type else "t", tiles[0])]
    nat = [t for t in tiles if t != hui]
    n_h = len(tiles) - len(nat)
    outs = set()
    if m.type == "chi":
        for start in range(27):
            if start % 9 > 6:
                continue
            run = [start, start + 1, start + 2]
            # natural tiles must sit in the run; hui tiles either at face (if hui in run) or filling
            rest = list(run)
            ok = True
            for t in nat:
                if t in rest:
                    rest.remove(t)
                else:
                    ok = False
            if ok and len(rest) == n_h:
                outs.add(("s", start))
        return sorted(outs)
    kind = nat[0] if nat else hui
    return [("k" if "kong" in m.type else "t", kind)]


def readings(w: Win):
    """Yield (shape, sets, pair, counts_all, z5) for every reading of the won hand.
    sets: list of (type 's'|'t'|'k', kind, declared) ; counts_all: 34 counts of every interpreted tile
    (kong as 4); z5: the winning tile can be the 5m of a concealed 4m5m6m run of this reading."""
    r = w.rules
    nat = list(w.hand)
    n_wild = 0
    if w.hui is not None:
        n_wild = nat[w.hui]
        nat[w.hui] = 0
    win_wild = w.hui is not None and w.win_tile == w.hui and w.discarder is None
    if win_wild:
        n_wild += 1
    else:
        nat[w.win_tile] += 1
    meld_opts = [_meld_readings(m, w.hui, r.hui_wild_in_melds) for m in w.melds]
    n_sets = 4 - len(w.melds)
    for assign in combinations_with_replacement(range(34), n_wild):
        c = list(nat)
        for a in assign:
            c[a] += 1
        t = tuple(c)
        # which kinds the winning tile may be read as
        win_as = set(assign) if win_wild else {w.win_tile}
        conc = []
        for pair, sets in _std(t, n_sets):
            conc.append(("std", [(ty, k, False) for ty, k in sets], pair))
        if not w.melds and r.seven_pairs and _seven_pairs(c):
            conc.append(("7p", [], None))
        if not w.melds and r.thirteen_orphans and _orphans(c, r.orphans_extra_dragon):
            conc.append(("13o", [], None))
        for shape, sets, pair in conc:
            z5 = (w.win_tile == M5 and M5 in win_as and any(ty == "s" and k == 3 for ty, k, _ in sets))
            for mo in product(*meld_opts):
                allc = list(c)
                msets = []
                for ty, k in mo:
                    msets.append((ty, k, True))
                    if ty == "s":
                        for j in range(3):
                            allc[k + j] += 1
                    else:
                        allc[k] += 4 if ty == "k" else 3
                yield shape, sets + msets, pair, allc, z5


# ---------------------------------------------------------------- patterns

def _dragon(sets) -> bool:
    runs = {k for ty, k, _ in sets if ty == "s"}
    return any({9 * s, 9 * s + 3, 9 * s + 6} <= runs for s in range(3))


def _flower_dragon(sets) -> bool:
    runs = {k for ty, k, _ in sets if ty == "s"}
    for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        if {9 * a, 9 * b + 3, 9 * c + 6} <= runs:
            return True
    return False


def _suits(allc):
    return {suit(k) for k in range(34) if allc[k]}


def _open(w: Win) -> bool:
    """A chi, pong, exposed or added kong among the winner's melds."""
    return any(m.type != "concealed_kong" for m in w.melds)


def beijing_patterns(w: Win, reading) -> dict:
    shape, sets, _pair, allc, z5 = reading
    p = {}
    self_draw = w.discarder is None
    dealer_win = w.winner == w.dealer
    dealer_in = w.discarder == w.dealer
    if w.four_hui:
        if dealer_win:
            p["庄"] = 1
        p["四惠牌"] = 8
        return p
    tianhe = w.first_turn and dealer_win and self_draw and not w.after_kong and not w.robbed_kong and not w.melds
    dihe = (w.first_turn and not dealer_win and not w.after_kong and not w.robbed_kong and not w.melds)
    if (dealer_win or dealer_in) and not tianhe:
        p["庄"] = 1
    hui_anywhere = w.hui is not None and (w.hand[w.hui] or w.win_tile == w.hui
                                          or any(w.hui in m.tiles for m in w.melds))
    if not _open(w) and not hui_anywhere:
        p["门清无惠"] = 1
    if shape == "std" and all(ty in "tk" for ty, k, _ in sets):
        p["对对和"] = 2
    if len(w.melds) == 4:
        p["大钓"] = 2
    if z5 and only_wait_5m(w):
        p["捉五魁"] = 2
    if w.last_tile and not w.robbed_kong:
        p["海底捞月"] = 2 if self_draw else 1
    if shape == "std" and _dragon(sets):
        p["一条龙"] = 3
    if shape == "7p":
        if any(c >= 4 for c in allc):
            p["豪华七对子"] = 8
        else:
            p["七对子"] = 4
    if w.after_kong and self_draw:
        p["杠上开花"] = 5
    if len(_suits(allc)) == 1 and _suits(allc) != {3}:
        p["清一色"] = 6
    if tianhe:
        p["天和"] = 10
    if dihe:
        p["地和"] = 8
    big = {"对对和", "大钓", "捉五魁", "海底捞月", "一条龙", "七对子", "杠上开花", "清一色", "豪华七对子",
           "四惠牌", "天和", "地和"}
    if not big & set(p):
        p["推倒和"] = 1
    return p


def hebei_patterns(w: Win, reading) -> dict:
    shape, sets, _pair, allc, z5 = reading
    p = {}
    self_draw = w.discarder is None
    # docs/RULES.md 6.2 writes "门清 2 (no pong, exposed or added kong)": hebei has no chi, and docs/RULES.md 5
    # names 门清 the concealed hand (concealed kongs allowed), which a chi opens too (chi=True under hebei)
    if not _open(w):
        p["门清"] = 2
    if w.robbed_kong:
        p["抢杠胡"] = 2
    if w.after_kong and self_draw:
        p["杠上开花"] = 2
    if shape == "std" and all(ty in "tk" for ty, k, _ in sets):
        p["碰碰胡"] = 3
    if len(w.melds) == 4:
        p["大吊车"] = 2
    s = _suits(allc)
    if len(s) == 1 and 3 not in s:
        p["清一色"] = 3
    if len(s) == 2 and 3 in s:
        p["混一色"] = 2
    if s == {3}:
        p["清风"] = 3
    if shape == "std" and _dragon(sets):
        p["一条龙"] = 2
    if shape == "7p":
        n4 = sum(1 for c in allc if c >= 4)
        p[{0: "七对", 1: "豪华七对", 2: "双豪华", 3: "三豪华"}[n4]] = {0: 2, 1: 8, 2: 16, 3: 32}[n4]
    if shape == "13o":
        p["十三幺"] = 10
    if w.last_tile and not w.robbed_kong:
        p["海底捞月"] = 2
    if shape == "std" and _flower_dragon(sets):
        p["花龙"] = 5
    if z5 and only_wait_5m(w):
        p["捉五"] = 5
    return p


def quemen_patterns(w: Win, reading) -> dict:
    shape, sets, _pair, allc, _z5 = reading
    p = {}
    self_draw = w.discarder is None
    s = _suits(allc)
    qys = len(s) == 1 and 3 not in s
    hys = len(s) == 2 and 3 in s
    pph = shape == "std" and all(ty in "tk" for ty, k, _ in sets)
    if shape == "7p":
        p["七对"] = 2
        if qys:
            p["清一色"] = 3
        if hys:
            p["混一色"] = 1
    elif pph and qys:
        p["清碰"] = 4
    elif pph:
        p["碰碰胡"] = 2
        if hys:
            p["混一色"] = 1
    elif qys:
        p["清一色"] = 3
    elif hys:
        p["混一色"] = 1
    else:
        p["平胡"] = 1
    if w.after_kong and self_draw:
        p["杠上开花"] = 1
    if w.last_tile and self_draw:
        p["海底捞月"] = 1
    dealer_win = w.winner == w.dealer
    # (docs/game_flow.md: first_turn beside ting gives no 天胡/地胡, 报听 comes with a discard)
    if w.first_turn and self_draw and not w.after_kong and not w.melds and not w.ting:
        if dealer_win:
            p["天胡"] = 3
        else:
            p["地胡"] = 2
    if w.flowers:
        p["花牌"] = w.flowers
    return p


PATTERNS = {"beijing": beijing_patterns, "hebei": hebei_patterns, "quemen": quemen_patterns}


def best(w: Win):
    """(fan, [patterns, ...]) of the most-scoring readings, or None when no reading is a winning shape."""
    fam = PATTERNS[w.rules.scoring]
    if w.four_hui and w.rules.scoring == "beijing":
        p = beijing_patterns(w, ("any", [], None, [0] * 34, False))
        return sum(p.values()), [p]
    top, tops = None, []
    for rd in readings(w):
        p = fam(w, rd)
        f = sum(p.values())
        if top is None or f > top:
            top, tops = f, [p]
        elif f == top and p not in tops:
            tops.append(p)
    return None if top is None else (top, tops)


# ---------------------------------------------------------------- payments

def win_payments(w: Win, fan: int) -> list:
    """Points (base applied) of the win alone: no 烧庄, no kong payments; 报听 doubling applied."""
    r = w.rules
    s = [0] * 4
    W = w.winner
    others = [x for x in range(4) if x != W]
    if r.scoring == "beijing":
        whole = 3 * fan if w.discarder is None else fan
        bound = sorted({b for a, b in w.hubao if a == W} | {a for a, b in w.hubao if b == W}) if r.hubao else []
        if bound:
            for b in bound:
                s[b] -= whole
                s[W] += whole
        elif w.discarder is None:
            for o in others:
                s[o] -= fan
                s[W] += fan
        else:
            s[w.discarder] -= fan
            s[W] += fan
    elif r.scoring == "hebei":
        X = fan
        if w.discarder is None:
            for o in others:
                if W == w.dealer:
                    b = 4
                else:
                    b = 4 if o == w.dealer else 2
                s[o] -= b + X
                s[W] += b + X
        else:
            d = w.discarder
            if W == w.dealer:
                b = 8
            elif d == w.dealer:
                b = 6
            else:
                b = 5
            s[d] -= b + X
            s[W] += b + X
            if X > 0 and r.discard_bonus_all_pay:
                for o in others:
                    if o != d:
                        s[o] -= X
                        s[W] += X
    else:
        total = fan * (2 if w.ting else 1)
        if w.discarder is None:
            for o in others:
                s[o] -= total
                s[W] += total
        else:
            s[w.discarder] -= total
            s[W] += total
    return [x * r.base for x in s]


def shaozhuang_payments(rules, dealer: int, rounds: int) -> list:
    s = [0] * 4
    if rounds >= 1 and rules.shaozhuang:
        unit = 2 ** (rounds - 1)
        for o in range(4):
            if o != dealer:
                s[o] += unit
                s[dealer] -= unit
    return [x * rules.base for x in s]


def kong_payments(rules, kongs) -> list:
    """kongs: list of (seat, type, from_seat) of every completed kong of the hand."""
    s = [0] * 4
    for seat, ty, frm in kongs:
        if rules.scoring == "hebei":
            if ty == "kong":
                s[frm] -= 3
                s[seat] += 3
            else:
                each = 1 if ty == "added_kong" else 2
                for o in range(4):
                    if o != seat:
                        s[o] -= each
                        s[seat] += each
        elif rules.scoring == "quemen":
            if ty == "kong":
                s[frm] -= 1
                s[seat] += 1
            elif ty == "concealed_kong":
                for o in range(4):
                    if o != seat:
                        s[o] -= 1
                        s[seat] += 1
    return [x * rules.base for x in s]


# ---------------------------------------------------------------- the engine, played

WIN = A.index("win")
KONG_IDS = [i for i in range(A.N_ACTIONS) if A.name(i).startswith("kong")]


class _Hand:
    """What the driver saw of one hand: discards and claims in order, kongs, 报听, the turn's tile."""

    def __init__(self):
        self.events = []  # ("discard", seat, kind) | ("claim", seat, from, type)
        self.discarded = [0] * 4
        self.turn = None  # the current turn's tile: {"seat", "kong" (a replacement of its kong), "last"}
        self.last_discard = None  # (seat, kind, made in a turn whose tile was the last)
        self.ting = [False] * 4
        self.claims = Counter()  # (claimer, from): chi, pong and exposed kong
        self.kongs = []  # (seat, type, from)
        self.any_meld = False
        self.added_kong = None  # (seat, kind): the last added or concealed kong declared


def _meld(st, t, s, i, hui):
    """Seat s's meld i as tiles at face value (a 惠牌 filling in, hui_wild_in_melds, as the 惠牌 kind)."""
    name = MELD_NAMES[int(st.meld_type[t, s, i])]
    k, wild = int(st.meld_tile[t, s, i]), int(st.meld_wild[t, s, i])
    if name == "chi":
        tiles = tuple(hui if wild >> j & 1 else k + j for j in range(3))
    else:
        n = 3 if name == "pong" else 4
        tiles = tuple([hui] * wild + [k] * (n - wild))
    frm = int(st.meld_from[t, s, i])
    return Meld(name, tiles, None if frm < 0 else frm)


def _no_normal_draw_left(rules, st, t) -> bool:
    """After the tiles taken so far, a normal draw would be refused (docs/RULES.md 3): beijing's live wall
    is used up; hebei keeps its stacks (and the odd single tile a replacement left at the tail beside them;
    with no stacks kept, nothing is kept: the field's 'stacks ... left'); quemen keeps nothing."""
    if rules.wall_layout == "indicator":
        return int(st.live_pos[t]) >= st.wall.shape[1] - 1 - rules.reserve
    keep = 2 * rules.tail_stacks_kept
    if keep:
        keep += int(st.replaced[t]) % 2
    return int(st.tail_pos[t]) - int(st.live_pos[t]) + 1 <= keep


def shaozhuang_rounds(hand: _Hand, dealer: int) -> int:
    """docs/RULES.md 6.1 and 6.4: rounds of four equal discards by the dealer, d+1, d+2, d+3 from the hand's
    first discard, each round its own tile (docs/game_flow.md), a claim between ending it."""
    seq = [("d", e[1], e[2]) if e[0] == "discard" else ("c",) for e in hand.events]
    rounds = 0
    while True:
        chunk = seq[4 * rounds:4 * rounds + 4]
        if (len(chunk) < 4 or any(c[0] != "d" for c in chunk)
                or [c[1] for c in chunk] != [(dealer + j) % 4 for j in range(4)] or len({c[2] for c in chunk}) != 1):
            return rounds
        rounds += 1


def expected(rules, st, t, hand: _Hand, winners, discarder, robbed, win_tile, four_hui, stats):
    """The independent scorer's wins [(Win, best)] and the hand's scores."""
    dealer = int(st.dealer[t])
    hui = int(st.hui[t]) if int(st.hui[t]) >= 0 else None
    rounds = shaozhuang_rounds(hand, dealer) if rules.shaozhuang else 0
    pairs = sorted({tuple(sorted(p)) for p, n in hand.claims.items() if n >= rules.hubao_claims}) if rules.hubao else []
    wins, total = [], [0] * 4
    for W in winners:
        counts = [int(x) for x in st.hands[t, W]]
        if discarder is None:
            counts[win_tile] -= 1  # the engine's hand holds the self-drawn tile
        turn = hand.turn or {}
        self_draw = discarder is None
        if self_draw:
            last = turn.get("seat") == W and turn.get("last", False)
        else:
            last = not robbed and hand.last_discard is not None and hand.last_discard[2]
        w = Win(rules, counts, win_tile, [_meld(st, t, W, i, hui) for i in range(int(st.n_melds[t, W]))], W, dealer,
                discarder, hui, last, self_draw and turn.get("seat") == W and turn.get("kong", False), robbed,
                hand.discarded[W] == 0 and not hand.any_meld, rounds, pairs, int(st.flowers[t, W]), hand.ting[W],
                four_hui)
        b = best(w)
        wins.append((w, b))
        stats["shaozhuang rounds > 0"] += rounds > 0
        stats["互包"] += bool([p for p in pairs if W in p])
        stats["robbed kong"] += robbed
        stats["四惠牌 (automatic)"] += four_hui
        if b is not None:
            total = [x + y for x, y in zip(total, win_payments(w, b[0]))]
    won = bool(winners)
    if rules.shaozhuang and (won or rules.shaozhuang_on_draw):
        total = [x + y for x, y in zip(total, shaozhuang_payments(rules, dealer, rounds))]
    if rules.kong_payments and (won or rules.kong_payments_on_draw):
        total = [x + y for x, y in zip(total, kong_payments(rules, hand.kongs))]
    return wins, total


def step_before(st, t) -> tuple:
    """What ``track_step`` compares with after a step at table t."""
    return (int(st.phase[t]), int(st.to_act[t]), int(st.turn_seat[t]), int(st.live_pos[t]),
            int(st.replaced[t]), st.meld_type[t].copy(), int(st.claim_tile[t]))


def track_step(rules, h: _Hand, before: tuple, name: str, st, t) -> bool:
    """Add what one step at table t did (action ``name`` taken in the state ``before``; ``st`` the state after
    it, at the end of the hand where the hand ended) to the hand's record ``h``. Returns whether a tile was drawn."""
    phase, seat, _turn_seat, live_pos, replaced, meld_types, _claim_tile = before
    if phase == TURN and name.split()[0] in ("discard", "ting"):
        kind = CODES.index(name.split()[1])
        h.events.append(("discard", seat, kind))
        h.discarded[seat] += 1
        h.last_discard = (seat, kind, h.turn is not None and h.turn["seat"] == seat and h.turn["last"])
        h.ting[seat] |= name.startswith("ting")
    if phase == TURN and name.startswith("kong"):
        h.added_kong = (seat, CODES.index(name.split()[1]))
    kong_now = set()
    for s in range(4):  # melds made or grown in this step
        for i in range(4):
            if int(meld_types[s, i]) == int(st.meld_type[t, s, i]):
                continue
            mname, frm = MELD_NAMES[int(st.meld_type[t, s, i])], int(st.meld_from[t, s, i])
            h.any_meld = True
            if mname in ("chi", "pong", "kong"):
                h.claims[(s, frm)] += 1
                h.events.append(("claim", s, frm, mname))
                h.turn = None  # the claimer's turn has no tile drawn (an exposed kong's comes below)
            if "kong" in mname:
                h.kongs.append((s, mname, frm if frm >= 0 else None))
                kong_now.add(s)
    drew = int(st.live_pos[t]) != live_pos or int(st.replaced[t]) != replaced
    if drew:  # the turn's tile: a live draw, or a replacement (kong, flower)
        ts = int(st.turn_seat[t])
        live_draw = int(st.live_pos[t]) != live_pos
        h.turn = {"seat": ts, "kong": ts in kong_now,
                  # beijing's 海底 is the last live tile, never a replacement from the reserve
                  "last": _no_normal_draw_left(rules, st, t) and (live_draw or rules.wall_layout == "tail")}
    return drew


def won_hand(st, t, h: _Hand, before: tuple, name: str, drew: bool):
    """(winners, discarder, robbed, win_tile, four_hui) of a hand won in the step ``track_step`` recorded."""
    phase, _seat, turn_seat, _live, _repl, _melds, claim_tile = before
    four_hui = drew and not (phase == TURN and name == "win")
    robbed = phase == ROB and not four_hui
    if four_hui or phase == TURN:
        discarder, win_tile = None, int(st.win_tile[t])
    elif phase == CLAIM:
        discarder, win_tile = turn_seat, claim_tile
    else:
        discarder, win_tile = h.added_kong
    if four_hui or phase == TURN:
        winners = [int(st.turn_seat[t])]
    else:
        winners = [s for s in range(4) if st.winners[t, s]]
    return winners, discarder, robbed, win_tile, four_hui


def _shaozhuang_walls(rules, rng, n):
    """Shuffled walls where each seat is dealt one copy of each of 1-3 kinds: the tiles of that many 烧庄
    rounds, which the driver then discards in order (most of the time)."""
    walls, plans = shuffled_walls(rules, rng, n), []
    for w in walls:
        kinds = [int(k) for k in rng.permutation(34)[:int(rng.integers(1, 4))]]
        fixed = set()
        for j, k in enumerate(kinds):
            for i in range(4):
                pos = 13 * i + j  # seat dealer+i's j-th tile
                if w[pos] != k:
                    q = next(q for q in np.flatnonzero(w == k) if q not in fixed)
                    w[pos], w[q] = w[q], w[pos]
                fixed.add(pos)
        plans.append(kinds)
    return walls, plans


def play_and_compare(rules, n_tables=16, steps=300, seed=0, *, shaozhuang_walls=False, p_random=0.15,
                     p_kong=0.7, p_claim=0.3, p_win=0.97, max_reports=10):
    """Rule agents (with random moves, eager kongs and claims) play ``n_tables`` tables for ``steps`` steps;
    every hand that ends (wins, drawn hands, 四惠牌 in the deal) is scored independently and compared with
    the engine's settlement (fan, patterns, scores) and the step's rewards. Returns (stats, disagreements)."""
    eng = Engine(rules, num_tables=n_tables, seed=seed)
    rules = eng.rules
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(seed + 100)
    hands = [_Hand() for _ in range(n_tables)]
    plans = [[] for _ in range(n_tables)]
    stats, bad = Counter(), []

    def check(kind, settlement, rewards, wins, total):
        ok = list(settlement["scores"]) == total and list(rewards) == total
        engine_wins = sorted(settlement.get("wins", [settlement]), key=lambda x: x["input"]["winner"]) if wins else []
        for (w, b), e in zip(wins, engine_wins):
            ok = ok and b is not None and b[0] == e["fan"] and e["patterns"] in b[1]
            for name in (e["patterns"] if b is not None else ()):
                stats["pattern " + name] += 1
        stats[kind] += len(wins) or 1
        if not ok:
            stats[kind + " disagreements"] += 1
            if len(bad) < max_reports:
                bad.append({"kind": kind, "engine": settlement, "independent": total,
                            "wins": [(dict(vars(w), rules=None), b) for w, b in wins]})

    def deal(idx):
        if shaozhuang_walls:
            walls, plan = _shaozhuang_walls(rules, rng, len(idx))
            res = eng.reset(walls=walls, dealers=rng.integers(0, 4, size=len(idx)), tables=idx)
            for t, p in zip(idx, plan):
                plans[t] = p
        else:
            res = eng.reset(tables=idx)
        for t in idx:
            hands[t] = _Hand()
            if res.hand_over[t]:  # 四惠牌 on the dealer's first turn
                st = eng.state
                d = int(st.dealer[t])
                wins, total = expected(rules, st, t, hands[t], [d], None, False, int(st.win_tile[t]), True, stats)
                check("win", res.settlements[t], res.rewards[t], wins, total)

    deal(np.arange(n_tables))
    for _ in range(steps):
        st = eng.state
        live = np.flatnonzero(st.phase != END)
        mask = eng.legal_mask()
        obs = {"observation": observe(rules, st, idx=live), "action_mask": mask[live],
               "seat": st.to_act[live].astype(np.int64)}
        acts = np.zeros(n_tables, dtype=np.int64)
        acts[live] = agent.act(obs, rng)
        for t in live:
            legal = np.flatnonzero(mask[t])
            if rng.random() < p_random:
                acts[t] = rng.choice(legal)
            seat = int(st.to_act[t])
            if int(st.phase[t]) == TURN and hands[t].discarded[seat] < len(plans[t]) and rng.random() < 0.9:
                a = A.index("discard " + CODES[plans[t][hands[t].discarded[seat]]])
                if mask[t, a]:
                    acts[t] = a
            kongs = [k for k in KONG_IDS if mask[t, k]]
            if kongs and rng.random() < p_kong:
                acts[t] = rng.choice(kongs)
            claims = [i for i in legal if A.name(int(i)) in ("pong", "kong") or A.name(int(i)).startswith("chi")]
            if claims and rng.random() < p_claim:
                acts[t] = rng.choice(claims)
            if mask[t, WIN] and rng.random() < p_win:
                acts[t] = WIN
        before = {t: step_before(st, t) for t in live}
        res = eng.step(acts)
        st = eng.state
        for t in live:
            h = hands[t]
            drew = track_step(rules, h, before[t], A.name(int(acts[t])), st, t)
            if not res.hand_over[t]:
                continue
            s_ = res.settlements[t]
            if "draw" in s_:
                _, total = expected(rules, st, t, h, [], None, False, None, False, stats)
                check("draw", s_, res.rewards[t], [], total)
                continue
            winners, discarder, robbed, win_tile, four_hui = won_hand(st, t, h, before[t], A.name(int(acts[t])), drew)
            wins, total = expected(rules, st, t, h, winners, discarder, robbed, win_tile, four_hui, stats)
            stats["several winners"] += len(winners) > 1
            check("win", s_, res.rewards[t], wins, total)
        done = np.flatnonzero(st.phase == END)
        while len(done):
            deal(done)
            done = np.flatnonzero(eng.state.phase == END)
    return stats, bad


# ---------------------------------------------------------------- calculator lines

def compact(kinds) -> str:
    return "".join(CODES[k] for k in sorted(kinds))


def random_line(rng, rules):
    """(calculator object, Win) or None."""
    scoring = rules.scoring
    counts = [0] * 34
    melds = []
    concealed = []
    winner, dealer = int(rng.integers(4)), int(rng.integers(4))
    shape = rng.choice(["std", "std", "std", "7p", "13o"])
    z5_bias = rng.random() < 0.4
    dragon = None  # 一条龙 (one suit) or 花龙 (three suits): the first three sets as 123, 456, 789
    if rng.random() < 0.2:
        one = int(rng.integers(3))
        dragon = [one] * 3 if rng.random() < 0.5 else [int(x) for x in rng.permutation(3)]
    if shape == "13o" and not rules.thirteen_orphans:
        shape = "std"
    if shape == "7p" and not rules.seven_pairs:
        shape = "std"
    suits_pool = [0, 1, 2, 3]
    if rng.random() < 0.4:  # one suit (+ honors) to reach 清一色 / 混一色
        suits_pool = [int(rng.integers(3))] + ([3] if rng.random() < 0.5 else [])
    elif rng.random() < 0.1:  # honors alone (清风)
        suits_pool = [3]
    if scoring == "quemen":
        drop = int(rng.integers(3))
        suits_pool = [s for s in suits_pool if s != drop] or [3]

    def kind_in(suit_):
        return suit_ * 9 + int(rng.integers(9 if suit_ < 3 else 7))

    def take(ks):
        for k in ks:
            counts[k] += 1
        return all(c <= 4 for c in counts)

    if shape == "13o":
        extra = int(rng.choice(DRAGONS if rules.orphans_extra_dragon else ORPHANS))
        concealed = list(ORPHANS) + [extra]
        if not take(concealed):
            return None
    elif shape == "7p":
        for _ in range(7):
            k = kind_in(int(rng.choice(suits_pool)))
            concealed += [k, k]
        if not take(concealed):
            return None
    else:
        n_melds = int(rng.choice([0, 0, 1, 2, 3, 4]))
        for i in range(4):
            s = int(rng.choice(suits_pool))
            seq = s < 3 and rng.random() < 0.5
            if i == 3 and z5_bias:
                s, seq = 0, True
            if dragon is not None and i < 3:
                s, seq = dragon[i], True
            if seq:
                st = s * 9 + int(rng.integers(7))
                if i == 3 and z5_bias:
                    st = 3
                if rng.random() < 0.15:
                    st = s * 9 + int(rng.choice([0, 3, 6]))
                if dragon is not None and i < 3:
                    st = s * 9 + 3 * i
                ks = [st, st + 1, st + 2]
            else:
                k = kind_in(s)
                ks = [k, k, k]
            if i < n_melds:
                if seq and not rules.chi:
                    ks = [ks[0]] * 3
                    seq = False
                if seq:
                    melds.append(("chi", ks, (winner - 1) % 4))
                else:
                    t = str(rng.choice(["pong", "kong", "added_kong", "concealed_kong"]))
                    if "kong" in t:
                        ks = ks + [ks[0]]
                    frm = None if t == "concealed_kong" else int((winner + rng.integers(1, 4)) % 4)
                    melds.append((t, ks, frm))
                if not take(ks):
                    return None
            else:
                concealed += ks
                if not take(ks):
                    return None
        p = kind_in(int(rng.choice(suits_pool)))
        concealed += [p, p]
        if not take([p, p]):
            return None
    hui = None
    obj_hui = {}
    if rules.hui:
        hui = int(rng.integers(34)) if rng.random() < 0.7 else int(rng.choice([3, 4, 5]))
        n_h = int(rng.choice([0, 0, 0, 1, 1, 2, 3]))
        # wildcards: replace some concealed tiles by the 惠牌 kind
        idx = rng.permutation(len(concealed))[:n_h]
        for i in idx:
            concealed[i] = hui
        c = Counter(concealed)
        for _t, ks, _f in melds:
            c.update(ks)
        if any(v > 4 for v in c.values()):
            return None
        obj_hui = {"hui": CODES[hui]}
    wi = int(rng.integers(len(concealed)))
    if z5_bias and 4 in concealed and rng.random() < 0.8:
        wi = concealed.index(4)
    win_tile = concealed[wi]
    hand = concealed[:wi] + concealed[wi + 1:]
    self_draw = rng.random() < 0.5
    discarder = None if self_draw else int((winner + rng.integers(1, 4)) % 4)
    sit = {k: bool(rng.random() < 0.12) for k in ("last_tile", "after_kong", "robbed_kong", "first_turn")}
    if sit["first_turn"] and (melds or sit["after_kong"] or sit["robbed_kong"]
                              or (discarder is not None and (discarder - dealer) % 4 > (winner - dealer) % 4)):
        sit["first_turn"] = False
    if sit["after_kong"] and (discarder is not None or not any("kong" in t for t, _, _ in melds)):
        sit["after_kong"] = False
    if sit["robbed_kong"] and discarder is None:
        sit["robbed_kong"] = False
    if sit["last_tile"] and (sit["robbed_kong"] or (sit["after_kong"] and rules.wall_layout == "indicator")):
        sit["last_tile"] = False
    obj = {"rules": {"name": rules.name, **{k: v for k, v in preset_diff(rules).items()
                                             if k in ("chi", "hui_wild_in_melds", "seven_pairs", "thirteen_orphans",
                                                      "orphans_extra_dragon", "discard_bonus_all_pay", "hubao",
                                                      "shaozhuang", "four_hui_win", "self_draw_only_hui",
                                                      "discard_win_concealed_only", "lack_suit", "ting",
                                                      "hubao_claims")}},
           "hand": compact(hand), "win_tile": CODES[win_tile],
           "melds": [{"type": t, "tiles": compact(ks), **({} if f is None else {"from": f})} for t, ks, f in melds],
           "winner": winner, "dealer": dealer, "discarder": discarder, **obj_hui, "situation": sit,
           "base": int(rng.choice([1, 1, 2, 500]))}
    sz, hubao, flowers, ting = 0, [], 0, False
    if rules.shaozhuang:
        sz = int(rng.choice([0, 0, 0, 1, 2, 3]))
        obj["shaozhuang_rounds"] = sz
    if rules.hubao and rng.random() < 0.3:
        a = winner if rng.random() < 0.8 else int(rng.integers(4))
        bs = [int(x) for x in rng.permutation([x for x in range(4) if x != a])[:int(rng.integers(1, 3))]]
        hubao = [sorted((a, b)) for b in bs]
        obj["hubao"] = hubao
    if rules.flowers:
        flowers = int(rng.integers(0, 4))
        obj["flowers"] = flowers
    if rules.ting and rng.random() < 0.3:
        ting = True
        obj["ting"] = True
    hand_c = [0] * 34
    for k in hand:
        hand_c[k] += 1
    wmelds = [Meld(t, tuple(ks), f) for t, ks, f in melds]
    n_hui = (hand_c[hui] + (win_tile == hui and discarder is None)) if hui is not None else 0
    four = rules.four_hui_win and hui is not None and n_hui == 4 and discarder is None
    w = Win(rules.replace(base=obj["base"]), hand_c, win_tile, wmelds, winner, dealer, discarder, hui, sit["last_tile"], sit["after_kong"],
              sit["robbed_kong"], sit["first_turn"], sz, [tuple(p) for p in hubao], flowers, ting, four)
    return obj, w


def compare_lines(rules, n, seed=0, max_reports=10):
    """``n`` random won hands as calculator lines (docs/INTERFACES.md 1), each scored by
    ``mj_env.calculator.evaluate`` and by the independent scorer. Returns (stats, disagreements); a line the
    calculator finds illegal is counted, not compared."""
    rng = np.random.default_rng(seed)
    stats = Counter()
    bad = []
    while stats["lines"] < n:
        got = random_line(rng, rules)
        if got is None:
            continue
        obj, w = got
        stats["lines"] += 1
        out = evaluate(obj)
        if "error" in out:
            stats["error"] += 1
            if len(bad) < max_reports:
                bad.append(("error", obj, out))
            continue
        if not out["legal"]:
            stats["illegal"] += 1
            continue
        b = best(w)
        pay = win_payments(w, b[0]) if b else None
        if pay is not None and rules.shaozhuang:
            pay = [x + y for x, y in zip(pay, shaozhuang_payments(w.rules, w.dealer, w.shaozhuang_rounds))]
        if b is None or b[0] != out["fan"] or out["patterns"] not in b[1] or pay != out["scores"]:
            stats["bad"] += 1
            if len(bad) < max_reports:
                bad.append((obj, out, b, pay))
        else:
            stats["ok"] += 1
    return stats, bad
