"""A slow, plain reference scorer for the ``beijing`` preset, to check ``mj_env.scoring``.

Written straight from RULES.md 6.1 and the decisions in ``mj_env.fan``, sharing no code with
it but the tile parser: every wildcard is tried as EVERY one of the 34 kinds (all multisets),
each resulting hand is split in every possible way by a plain recursion, and every split is
scored. Slow on purpose; only for tests. Takes well-formed input (the default beijing rules).
"""
from __future__ import annotations

import random
from functools import cache
from itertools import combinations_with_replacement

from mj_env.tiles import CODES, format_tiles, hui_of_indicator, parse_tiles

ORDER = ("庄", "门清无惠", "推倒和", "对对和", "大钓", "捉五魁", "海底捞月", "一条龙", "七对子",
         "杠上开花", "清一色", "豪华七对子", "四惠牌", "天和", "地和")
SPECIAL = set(ORDER[3:])
FIVE_M = 4


def suit(k: int) -> int:
    return min(k // 9, 3)


@cache
def splits(counts: tuple, melds: int, pair: int) -> tuple:
    """Every split of the counts into ``melds`` melds and ``pair`` pairs: tuples of groups
    ("P", k), ("T", k), ("S", lowest), sorted."""
    i = next((j for j, n in enumerate(counts) if n), None)
    if i is None:
        return ((),) if melds == 0 and pair == 0 else ()
    out = set()
    c = list(counts)
    if pair and c[i] >= 2:
        c[i] -= 2
        out |= {tuple(sorted(s + (("P", i),))) for s in splits(tuple(c), melds, 0)}
        c[i] += 2
    if melds and c[i] >= 3:
        c[i] -= 3
        out |= {tuple(sorted(s + (("T", i),))) for s in splits(tuple(c), melds - 1, pair)}
        c[i] += 3
    if melds and i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        for j in (i, i + 1, i + 2):
            c[j] -= 1
        out |= {tuple(sorted(s + (("S", i),))) for s in splits(tuple(c), melds - 1, pair)}
    return tuple(sorted(out))


@cache
def suit_complete(counts: tuple, pair: int, seqs: bool) -> bool:
    """The tiles of one suit split into melds (and one pair if ``pair``)."""
    i = next((j for j, n in enumerate(counts) if n), None)
    if i is None:
        return pair == 0
    c = list(counts)
    if pair and c[i] >= 2:
        c[i] -= 2
        if suit_complete(tuple(c), 0, seqs):
            return True
        c[i] += 2
    if c[i] >= 3:
        c[i] -= 3
        if suit_complete(tuple(c), pair, seqs):
            return True
        c[i] += 3
    if seqs and i + 2 < len(c) and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        if suit_complete(tuple(c), pair, seqs):
            return True
    return False


def is_standard(c) -> bool:
    """Four melds and a pair: the pair's suit holds 2 tiles mod 3, every other suit 0 mod 3,
    and each suit splits completely."""
    parts = (tuple(c[0:9]), tuple(c[9:18]), tuple(c[18:27]), tuple(c[27:34]))
    mods = [sum(p) % 3 for p in parts]
    if sorted(mods) != [0, 0, 0, 2]:
        return False
    j = mods.index(2)
    return all(suit_complete(p, int(n == j), n < 3) for n, p in enumerate(parts))


def is_win(c, n_melds: int) -> bool:
    """Standard shape, or seven pairs (no melds; a four is two pairs). 14 - 3 x n_melds tiles."""
    assert sum(c) == 14 - 3 * n_melds
    if n_melds == 0 and all(n % 2 == 0 for n in c):
        return True
    return is_standard(c)


def counts_of(tiles) -> list:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return c


def ref_evaluate(obj: dict) -> dict:
    """The calculator output for a well-formed beijing input object."""
    hand = parse_tiles(obj["hand"])
    win = parse_tiles(obj["win_tile"])[0]
    melds = []
    for m in obj.get("melds", []):
        tiles = parse_tiles(m["tiles"])
        if m["type"] != "chi" and len(tiles) == 3 and m["type"] != "pong":
            tiles = tiles + tiles[:1]
        melds.append((m["type"], sorted(tiles)))
    winner, dealer = obj.get("winner", 0), obj.get("dealer", 0)
    discarder = obj.get("discarder")
    self_draw = discarder is None
    hui = parse_tiles(obj["hui"])[0] if obj.get("hui") else None
    if obj.get("indicator"):
        hui = hui_of_indicator(parse_tiles(obj["indicator"])[0])
    sit = obj.get("situation", {})
    claimed = any(t != "concealed_kong" for t, _ in melds)
    k = len(melds)

    hand_hui = hand.count(hui) if hui is not None else 0
    if not self_draw:
        if claimed:
            return {"legal": False, "reason": "claimed"}
        if hand_hui >= 3:
            return {"legal": False, "reason": "three hui"}

    if self_draw and hui is not None and hand_hui + (win == hui) == 4:
        pats = {"庄": 1, "四惠牌": 8} if winner == dealer else {"四惠牌": 8}
        return settle(obj, pats)

    wild_win = self_draw and win == hui
    natural = [t for t in hand if t != hui] + ([] if wild_win else [win])
    n_wild = hand_hui + int(wild_win)
    meld_tiles = [t for _, ts in melds for t in ts]
    meld_groups = [("S", ts[0]) if t == "chi" else ("T", ts[0]) for t, ts in melds]
    all_physical = hand + [win] + meld_tiles

    wait_cache = {}

    def only_five_wait():
        if "v" not in wait_cache:
            nat13 = [t for t in hand if t != hui]
            held = counts_of(hand + meld_tiles)
            found = False
            # every kind is tried; kinds next to the hand's tiles first, as they are the likely waits
            near = sorted(range(34), key=lambda t: min(abs(t - u) if suit(t) == suit(u) < 3 else 9 * (t != u)
                                                       for u in nat13 or [t]))
            for t in near:
                if t == FIVE_M or held[t] >= 4:
                    continue
                for extra in combinations_with_replacement(range(34), hand_hui):
                    if is_win(counts_of(nat13 + [t] + list(extra)), k):
                        found = True
                        break
                if found:
                    break
            wait_cache["v"] = not found
        return wait_cache["v"]

    first = sit.get("first_turn", False)
    tianhe = first and winner == dealer and self_draw and k == 0
    dihe = first and winner != dealer and k == 0

    def patterns(shape, concealed_groups, interp, win_kinds):
        p = {}
        if not tianhe and (winner == dealer or discarder == dealer):
            p["庄"] = 1
        if not claimed and (hui is None or hui not in all_physical):
            p["门清无惠"] = 1
        groups = list(concealed_groups) + meld_groups
        if shape == "std" and all(g[0] != "S" for g in groups):
            p["对对和"] = 2
        if k == 4:
            p["大钓"] = 2
        if (shape == "std" and obj["win_tile"] == "5m" and ("S", 3) in concealed_groups
                and FIVE_M in win_kinds and only_five_wait()):
            p["捉五魁"] = 2
        if sit.get("last_tile"):
            p["海底捞月"] = 2 if self_draw else 1
        seqs = {g[1] for g in groups if g[0] == "S"}
        if shape == "std" and any({9 * s, 9 * s + 3, 9 * s + 6} <= seqs for s in range(3)):
            p["一条龙"] = 3
        if shape == "7p":
            if max(interp) >= 4:
                p["豪华七对子"] = 8
            else:
                p["七对子"] = 4
        if sit.get("after_kong") and self_draw:
            p["杠上开花"] = 5
        suits = {suit(t) for t in range(34) if interp[t]} | {suit(t) for t in meld_tiles}
        if len(suits) == 1 and 3 not in suits:
            p["清一色"] = 6
        if tianhe:
            p["天和"] = 10
        if dihe:
            p["地和"] = 8
        if not SPECIAL & p.keys():
            p["推倒和"] = 1
        return p

    best_key, best = None, None
    base_counts = counts_of(natural)
    for extra in combinations_with_replacement(range(34), n_wild):
        c = list(base_counts)
        for t in extra:
            c[t] += 1
        if not is_win(c, k):
            continue
        # the winning tile is natural, or one of the wildcards (any of their kinds)
        win_kinds = set(extra) if wild_win else {win}
        readings = [("std", s) for s in splits(tuple(c), 4 - k, 1)]
        if k == 0 and all(n % 2 == 0 for n in c):
            readings.append(("7p", ()))
        for shape, groups in readings:
            p = patterns(shape, groups, c, win_kinds)
            key = (sum(p.values()), tuple(n in p for n in ORDER))
            if best_key is None or key > best_key:
                best_key, best = key, p
    if best is None:
        return {"legal": False, "reason": "shape"}
    return settle(obj, {n: best[n] for n in ORDER if n in best})


def settle(obj: dict, pats: dict) -> dict:
    winner, dealer = obj.get("winner", 0), obj.get("dealer", 0)
    discarder = obj.get("discarder")
    rounds, base = obj.get("shaozhuang_rounds", 0), obj.get("base", 1)
    fan = sum(pats.values())
    scores = [0, 0, 0, 0]
    partners = set()
    for a, b in obj.get("hubao", []):
        if a == winner:
            partners.add(b)
        elif b == winner:
            partners.add(a)
    whole = 3 * fan if discarder is None else fan
    if partners:
        payers = {p: whole for p in partners}
    elif discarder is None:
        payers = {s: fan for s in range(4) if s != winner}
    else:
        payers = {discarder: fan}
    for s, v in payers.items():
        scores[s] -= v
        scores[winner] += v
    line = 2 ** (rounds - 1) if rounds else 0
    for s in range(4):
        scores[s] += -3 * line if s == dealer else line
    return {"legal": True, "fan": fan, "patterns": pats, "shaozhuang": line,
            "scores": [v * base for v in scores]}


# ---------------------------------------------------------------------------------------------
# Random winning hands, by construction.

MODES = ("plain", "plain", "pure", "dragon", "five", "triplets", "pairs")


def random_beijing_input(rng: random.Random) -> dict:
    """A random beijing calculator input whose tiles are a win by construction: random melds,
    then concealed groups + a pair (or seven pairs), then some concealed tiles replaced by the
    惠牌 (single tiles, or a whole group so the wildcards form a group of their own). Modes
    bias towards 清一色, 一条龙, 捉五魁 (4m5m6m with 5m the winning tile), 对对和, seven pairs.
    Some results are illegal (a discard win after a claim, three 惠牌 on a discard)."""
    while True:
        obj = _attempt(rng)
        if obj is not None:
            return obj


def _attempt(rng: random.Random) -> dict | None:
    mode = rng.choice(MODES)
    hui = 4 if rng.random() < 0.2 else rng.randrange(34)
    pure_suit = rng.randrange(3)
    winner = rng.randrange(4)

    def kind() -> int:
        return 9 * pure_suit + rng.randrange(9) if mode == "pure" else rng.randrange(34)

    def run() -> list:
        s = 9 * (pure_suit if mode == "pure" else rng.randrange(3)) + rng.randrange(7)
        return [s, s + 1, s + 2]

    melds, meld_tiles = [], []
    for _ in range(0 if mode == "pairs" else rng.choice([0, 0, 0, 1, 1, 2, 3, 4])):
        typ = rng.choice(["chi", "pong", "kong", "added_kong", "concealed_kong"])
        if typ == "chi" and mode == "triplets":
            typ = "pong"
        if typ == "chi":
            tiles = run()
        else:
            tiles = [kind()] * (3 if typ == "pong" else 4)
        meld = {"type": typ, "tiles": format_tiles(tiles)}
        if typ == "chi":
            meld["from"] = (winner - 1) % 4
        elif typ != "concealed_kong":
            meld["from"] = rng.choice([s for s in range(4) if s != winner])
        melds.append(meld)
        meld_tiles += tiles

    groups: list[list] = []
    if mode == "pairs":
        groups = [[t, t] for t in (kind() for _ in range(7))]
    else:
        n = 4 - len(melds)
        if mode == "dragon":
            s = 9 * rng.randrange(3)
            groups = [[s, s + 1, s + 2], [s + 3, s + 4, s + 5], [s + 6, s + 7, s + 8]][:n]
        if mode == "five" and len(groups) < n:
            groups.append([3, 4, 5])
        while len(groups) < n:
            groups.append(run() if mode != "triplets" and rng.random() < 0.6 else [kind()] * 3)
        p = kind()
        groups.append([p, p])
    concealed = [t for g in groups for t in g]
    if mode == "five" and [3, 4, 5] in groups:
        win_at = concealed.index(4)
    else:
        win_at = rng.randrange(len(concealed))
    discarder = None if rng.random() < 0.5 else rng.choice([s for s in range(4) if s != winner])

    # which concealed tiles become 惠牌
    if rng.random() < 0.3:
        g = rng.randrange(len(groups))
        start = sum(len(x) for x in groups[:g])
        wild_at = list(range(start, start + len(groups[g])))
        if mode == "pairs" and rng.random() < 0.5:
            wild_at.append((start + 2) % 14)
    else:
        wild_at = rng.sample(range(len(concealed)), min(len(concealed), rng.choice([0, 0, 1, 1, 2, 2, 3])))
    if win_at in wild_at:
        if discarder is not None:
            return None  # a discarded 惠牌 is face value: the hand might not win
    elif discarder is None and wild_at and rng.random() < 0.3:
        win_at = rng.choice(wild_at)  # self-drawn 惠牌 as the winning tile
    for i in wild_at:
        concealed[i] = hui
    win = concealed.pop(win_at)
    if max(counts_of(concealed + [win] + meld_tiles)) > 4:
        return None

    obj = {"rules": "beijing", "hand": format_tiles(concealed), "win_tile": CODES[win], "melds": melds,
           "winner": winner, "dealer": winner if rng.random() < 0.4 else rng.randrange(4),
           "discarder": discarder, "hui": None if rng.random() < 0.1 else CODES[hui],
           "situation": {f: rng.random() < 0.12 for f in ("last_tile", "after_kong", "first_turn")},
           "shaozhuang_rounds": rng.choice([0, 0, 0, 1, 2, 3]),
           "hubao": [rng.sample(range(4), 2) for _ in range(rng.choice([0, 0, 0, 1, 2]))],
           "base": rng.choice([1, 1, 2, 500])}
    if discarder is not None and rng.random() < 0.1:
        obj["situation"]["robbed_kong"] = True
    return obj
