"""Slow, plain reference scorers for the three presets, to check ``mj_env.calculator``.

Written straight from docs/RULES.md 6.1-6.3 (for ``beijing`` also the decisions ``mj_env.patterns`` documents),
sharing no code with ``mj_env``'s patterns and calculator modules: only the tile parser is shared, and
winning shapes are judged by the tests' one reference checker, ``ref_hand.is_win``. Each hand
is read in every possible way: every wildcard as every one of the 34 kinds (all multisets; a
multiset is only followed while ``ref_hand.is_win`` says the wildcards still left can finish
the hand), every split of the tiles into melds and a pair by a plain recursion (`splits`), and
seven pairs / thirteen orphans where they apply; every pattern is scored on every reading and
the reading that scores most is taken (docs/RULES.md 6). Slow on purpose; only for tests. Takes
well-formed input.

- `ref_evaluate`: ``beijing`` (the default rules); `random_beijing_input` makes test hands.
- `ref_evaluate_hebei`, `ref_evaluate_quemen`: ``hebei`` (docs/RULES.md 6.2) and ``quemen`` (6.3);
  `random_plain_input` makes test hands for both.
"""
from __future__ import annotations

import random
from functools import cache
from itertools import permutations, product

from ref_hand import is_win, orphans_need

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


def counts_of(tiles) -> list:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return c


def fillings(counts: list, wild: int, n_melds: int, lowest: int = 0, **shapes):
    """Every multiset of ``wild`` kinds (a sorted tuple of kinds >= ``lowest``) that, added to
    ``counts``, makes a winning shape at face value (a fifth copy allowed). A kind is added only
    while the wildcards left can still finish the hand (``ref_hand.is_win``), so the search
    does not walk all 34^wild multisets; the last check is without wildcards. ``counts`` is
    changed while the generator runs. ``shapes``: ``ref_hand.is_win``'s shape switches (the rule set's)."""
    if not is_win(counts, wild, melds=n_melds, **shapes):
        return
    if wild == 0:
        yield ()
        return
    for t in range(lowest, 34):
        counts[t] += 1
        for rest in fillings(counts, wild - 1, n_melds, t, **shapes):
            yield (t,) + rest
        counts[t] -= 1


def meld_readings(kind: str, tiles: list, wild) -> list:
    """The (group, tiles it stands for) a declared meld may be read as. ``wild``: the 惠牌 kind where
    惠牌 fill chi, pong and exposed kongs (``hui_wild_in_melds``, docs/RULES.md 5), else None. The
    claimed tile is at face value: it is one of the natural tiles, or a 惠牌-kind tile when all are."""
    natural = sorted(t for t in tiles if t != wild) or [wild]
    if kind == "chi":
        return [(("S", s), [s, s + 1, s + 2]) for s in range(27) if s % 9 <= 6
                and len(set(natural)) == len(natural) and set(natural) <= {s, s + 1, s + 2}]
    if len(set(natural)) != 1:
        return []
    return [(("T", natural[0]), natural[:1] * len(tiles))]


def ref_evaluate(obj: dict) -> dict:
    """The calculator output for a well-formed beijing input object (the score-bearing rule fields of
    ``PLAIN_RULES["beijing"]`` read from an object form)."""
    rules = plain_rules(obj)
    shapes = {"seven_pairs": rules["seven_pairs"], "thirteen_orphans": rules["thirteen_orphans"],
              "extra_dragon": rules["orphans_extra_dragon"]}
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
    if not rules["chi"] and any(t == "chi" for t, _ in melds):
        return {"legal": False, "reason": "no chi"}

    hand_hui = hand.count(hui) if hui is not None else 0
    if not self_draw:
        if claimed and rules["discard_win_concealed_only"]:
            return {"legal": False, "reason": "claimed"}
        if rules["self_draw_only_hui"] and hand_hui >= rules["self_draw_only_hui"]:
            return {"legal": False, "reason": "three hui"}

    if rules["four_hui_win"] and self_draw and hui is not None and hand_hui + (win == hui) == 4:
        pats = {"庄": 1, "四惠牌": 8} if winner == dealer else {"四惠牌": 8}
        return settle(obj, pats)

    wild_win = self_draw and win == hui
    natural = [t for t in hand if t != hui] + ([] if wild_win else [win])
    n_wild = hand_hui + int(wild_win)
    meld_tiles = [t for _, ts in melds for t in ts]  # the tiles as they are
    all_physical = hand + [win] + meld_tiles
    # 缺一门 (a quemen rule, docs/RULES.md 5) counts the tiles held, a 惠牌 as itself; as mj_env reads it,
    # after 四惠牌 (which wins whatever the hand)
    if rules["lack_suit"] and {0, 1, 2} <= {suit(t) for t in all_physical}:
        return {"legal": False, "reason": "all three suits"}
    meld_wild = hui if rules["hui_wild_in_melds"] else None
    meld_choices = list(product(*(meld_readings(t, ts, None if t == "concealed_kong" else meld_wild)
                                  for t, ts in melds)))

    wait_cache = {}

    def only_five_wait():
        if "v" not in wait_cache:
            nat13 = counts_of([t for t in hand if t != hui])
            held = counts_of(hand + meld_tiles)
            found = False
            for t in range(34):  # a kind held four times cannot come
                if t == FIVE_M or held[t] >= 4:
                    continue
                nat13[t] += 1
                found = is_win(nat13, hand_hui, melds=k, **shapes)
                nat13[t] -= 1
                if found:
                    break
            wait_cache["v"] = not found
        return wait_cache["v"]

    # 天和 / 地和 are void once a kong was declared: a win on its replacement or a robbed kong (6.4); and on
    # a discard made after the winner's own first discard (a seat that plays after the winner from the dealer)
    discarded_first = discarder is None or (discarder - dealer) % 4 < (winner - dealer) % 4
    first = sit.get("first_turn", False) and not sit.get("after_kong") and not sit.get("robbed_kong") \
        and discarded_first
    tianhe = first and winner == dealer and self_draw and k == 0
    dihe = first and winner != dealer and k == 0

    def patterns(shape, concealed_groups, interp, win_kinds, meld_groups, meld_read):
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
        if sit.get("last_tile") and not sit.get("robbed_kong"):  # a robbed kong is no discard
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
        suits = {suit(t) for t in range(34) if interp[t]} | {suit(t) for t in meld_read}
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
    for extra in list(fillings(list(base_counts), n_wild, k, **shapes)):
        c = list(base_counts)
        for t in extra:
            c[t] += 1
        # the winning tile is natural, or one of the wildcards (any of their kinds)
        win_kinds = set(extra) if wild_win else {win}
        readings = [("std", s) for s in splits(tuple(c), 4 - k, 1)]
        if k == 0 and rules["seven_pairs"] and all(n % 2 == 0 for n in c):
            readings.append(("7p", ()))
        if k == 0 and rules["thirteen_orphans"] and orphans_need(c, rules["orphans_extra_dragon"]) == 0:
            readings.append(("13", ()))
        for shape, groups in readings:
            for choice in meld_choices:
                p = patterns(shape, groups, c, win_kinds, [g for g, _ in choice], [t for _, ts in choice for t in ts])
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


# ---------------------------------------------------------------------------------------------
# hebei and quemen (docs/RULES.md 6.2, 6.3): no wildcards, so a hand's readings are its splits into
# melds and a pair, seven pairs, and (hebei) thirteen orphans.

HEBEI_ORDER = ("门清", "抢杠胡", "杠上开花", "碰碰胡", "大吊车", "清一色", "混一色", "清风", "一条龙", "七对",
               "十三幺", "海底捞月", "豪华七对", "双豪华", "三豪华", "花龙", "捉五")
"""The bonus patterns in the order docs/RULES.md 6.2 lists them."""
QUEMEN_ORDER = ("平胡", "混一色", "碰碰胡", "七对", "清一色", "清碰", "杠上开花", "海底捞月", "天胡", "地胡", "花牌")
"""The patterns in the order docs/RULES.md 6.3 lists them."""
SEVEN_PAIRS_FAN = {0: ("七对", 2), 1: ("豪华七对", 8), 2: ("双豪华", 16), 3: ("三豪华", 32)}
"""hebei: seven pairs by the number of fours among them (each replaces the smaller ones)."""
PLAIN_RULES = {"beijing": {"chi": True, "seven_pairs": True, "thirteen_orphans": False, "orphans_extra_dragon": True,
                           "lack_suit": False, "discard_win_concealed_only": True, "self_draw_only_hui": 3,
                           "four_hui_win": True, "hui_wild_in_melds": False, "shaozhuang": True, "hubao": True,
                           "hui": True},
               "hebei": {"chi": False, "lack_suit": False, "discard_win_concealed_only": False, "seven_pairs": True, "thirteen_orphans": True, "orphans_extra_dragon": True,
                         "discard_bonus_all_pay": True},
               "quemen": {"chi": False, "discard_win_concealed_only": False, "seven_pairs": True, "lack_suit": True, "flowers": True, "ting": True}}
"""The rule fields these references read, with the presets' values (docs/RULES.md 5, 6). ``hui``, ``flowers`` and
``ting`` only say whether a line may give 惠牌, flowers or 报听 (the calculator refuses them otherwise)."""


def plain_rules(obj: dict) -> dict:
    """The rule fields of a hebei / quemen input: its preset's, with the object form's overrides."""
    raw = obj.get("rules", "beijing")
    name = raw if isinstance(raw, str) else raw["name"]
    fields = dict(PLAIN_RULES[name], name=name)
    if isinstance(raw, dict):
        unknown = set(raw) - set(fields)
        if unknown:
            raise NotImplementedError(f"the reference does not read the rule fields {sorted(unknown)}")
        fields.update(raw)
    return fields


def plain_hand(obj: dict) -> dict:
    """The parts of a hebei / quemen input that the patterns read."""
    hand = parse_tiles(obj["hand"])
    win = parse_tiles(obj["win_tile"])[0]
    melds = []
    for m in obj.get("melds", []):
        tiles = parse_tiles(m["tiles"])
        if m["type"] in ("kong", "added_kong", "concealed_kong") and len(tiles) == 3:
            tiles = tiles[:1] * 4  # "555m" is short for the kong 5555m
        melds.append((m["type"], sorted(tiles)))
    meld_tiles = [t for _, ts in melds for t in ts]
    meld_groups = [("S", ts[0]) if t == "chi" else ("T", ts[0]) for t, ts in melds]  # (chi: rules with chi)
    return {"hand": hand, "win": win, "melds": melds, "meld_tiles": meld_tiles, "meld_groups": meld_groups,
            "concealed": counts_of(hand + [win]), "suits": {suit(t) for t in hand + [win] + meld_tiles},
            "self_draw": obj.get("discarder") is None, "situation": obj.get("situation", {})}


def plain_readings(h: dict, rules: dict) -> list:
    """Every reading of the concealed tiles: ("std", groups) for each split into melds and a pair,
    ("7p", ()) for seven pairs, ("13", ()) for thirteen orphans (with no declared meld)."""
    c, k = h["concealed"], len(h["melds"])
    out = [("std", s) for s in splits(tuple(c), 4 - k, 1)]
    if k == 0 and rules["seven_pairs"] and all(n % 2 == 0 for n in c):
        out.append(("7p", ()))
    if k == 0 and rules.get("thirteen_orphans") and orphans_need(c, rules["orphans_extra_dragon"]) == 0:
        out.append(("13", ()))
    # the one winning-shape checker must agree that these tiles win
    shape = is_win(c, 0, melds=k, seven_pairs=rules["seven_pairs"],
                   thirteen_orphans=rules.get("thirteen_orphans", False),
                   extra_dragon=rules.get("orphans_extra_dragon", True))
    assert shape == bool(out), (h, out)
    return out


def refused(h: dict, rules: dict) -> bool:
    """A hand these rules refuse whatever its shape: a chi where the rules have none, a discard win after a
    claim where only a concealed hand may win on a discard, or all three suits where a win must lack one
    (缺一门, docs/RULES.md 5)."""
    kinds = {t for t, _ in h["melds"]}
    return bool(not rules["chi"] and "chi" in kinds
                or rules["discard_win_concealed_only"] and not h["self_draw"] and kinds - {"concealed_kong"}
                or rules["lack_suit"] and {0, 1, 2} <= h["suits"])


def all_triplets(shape: str, groups) -> bool:
    """碰碰胡: a standard reading with no sequence (``groups``: the concealed and the declared melds')."""
    return shape == "std" and all(g[0] != "S" for g in groups)


def one_suit_kind(suits: set) -> str | None:
    """"pure": one suit, no honors; "half": one suit and honors; "honors": honors only."""
    numbered = suits - {3}
    if not numbered:
        return "honors"
    if len(numbered) == 1:
        return "half" if 3 in suits else "pure"
    return None


def best_of(candidates: list) -> tuple[dict | None, list]:
    """The pattern sets that score most (docs/RULES.md 6: the reading that scores most is scored);
    the first of them, and all distinct ones (a tie the rules leave open shows as several)."""
    if not candidates:
        return None, []
    top = max(sum(p.values()) for p in candidates)
    best = []
    for p in candidates:
        if sum(p.values()) == top and p not in best:
            best.append(p)
    return best[0], best


def _ordered(p: dict, order) -> dict:
    return {n: p[n] for n in order if n in p}


def only_wait(h: dict, rules: dict, kind: int) -> bool:
    """``kind`` is the hand's only winning tile: no other kind that can still come (the winner
    does not hold all four, hand and melds) completes the 13 tiles before the win."""
    c13 = counts_of(h["hand"])
    held = counts_of(h["hand"] + h["meld_tiles"])
    for t in range(34):
        if t == kind or held[t] >= 4:
            continue
        c13[t] += 1
        won = is_win(c13, 0, melds=len(h["melds"]), seven_pairs=rules["seven_pairs"],
                     thirteen_orphans=rules.get("thirteen_orphans", False),
                     extra_dragon=rules.get("orphans_extra_dragon", True))
        c13[t] -= 1
        if won:
            return False
    return True


def hebei_candidates(obj: dict) -> tuple[list, dict]:
    """The bonus patterns of every reading of a hebei hand (docs/RULES.md 6.2)."""
    rules = plain_rules(obj)
    h = plain_hand(obj)
    sit, self_draw, melds = h["situation"], h["self_draw"], h["melds"]
    colour = one_suit_kind(h["suits"])
    out = []
    if refused(h, rules):
        return out, rules
    for shape, groups in plain_readings(h, rules):
        p = {}
        if not any(t in ("chi", "pong", "kong", "added_kong") for t, _ in melds):
            p["门清"] = 2
        if sit.get("robbed_kong") and not self_draw:
            p["抢杠胡"] = 2
        if sit.get("after_kong") and self_draw:
            p["杠上开花"] = 2
        if all_triplets(shape, list(groups) + h["meld_groups"]):
            p["碰碰胡"] = 3
        if len(melds) == 4:  # one tile left in hand: a single-tile wait
            p["大吊车"] = 2
        if colour == "pure":
            p["清一色"] = 3
        elif colour == "half":
            p["混一色"] = 2
        elif colour == "honors":
            p["清风"] = 3
        seqs = {g[1] for g in list(groups) + h["meld_groups"] if g[0] == "S"}  # declared chis too
        if any({9 * s, 9 * s + 3, 9 * s + 6} <= seqs for s in range(3)):
            p["一条龙"] = 2
        if any({9 * a, 9 * b + 3, 9 * c + 6} <= seqs for a, b, c in permutations(range(3))):
            p["花龙"] = 5
        if shape == "7p":
            name, fan = SEVEN_PAIRS_FAN[sum(n == 4 for n in h["concealed"])]
            p[name] = fan
        if shape == "13":
            p["十三幺"] = 10
        if sit.get("last_tile") and not sit.get("robbed_kong"):  # the last tile or its discard, not a kong
            p["海底捞月"] = 2
        # 捉五: the winning 5m is the middle of a 4m5m6m and was the only winning tile
        if h["win"] == FIVE_M and ("S", 3) in groups and only_wait(h, rules, FIVE_M):
            p["捉五"] = 5
        out.append(_ordered(p, HEBEI_ORDER))
    return out, rules


def hebei_scores(x: int, winner: int, dealer: int, discarder, base: int, all_pay: bool = True) -> list:
    """docs/RULES.md 6.2: the base score by win type, plus the bonus X as the settlement decision says."""
    s = [0] * 4

    def pay(payer: int, amount: int) -> None:
        s[payer] -= amount
        s[winner] += amount

    if discarder is None:
        for p in range(4):
            if p != winner:
                pay(p, (4 if dealer in (winner, p) else 2) + x)
    else:
        pay(discarder, (8 if winner == dealer else 6 if discarder == dealer else 5) + x)
        if x and all_pay:
            for p in range(4):
                if p not in (winner, discarder):
                    pay(p, x)
    return [v * base for v in s]


def ref_evaluate_hebei(obj: dict, ties: list | None = None) -> dict:
    """The calculator output for a well-formed hebei input. ``ties``, if given, receives every
    distinct pattern set that scores as much as the one returned."""
    candidates, rules = hebei_candidates(obj)
    best, all_best = best_of(candidates)
    if ties is not None:
        ties.extend(all_best)
    if best is None:
        return {"legal": False, "reason": "shape"}
    x = sum(best.values())
    scores = hebei_scores(x, obj.get("winner", 0), obj.get("dealer", 0), obj.get("discarder"),
                          obj.get("base", 1), rules["discard_bonus_all_pay"])
    return {"legal": True, "fan": x, "patterns": best, "shaozhuang": 0, "scores": scores}


def quemen_candidates(obj: dict) -> tuple[list, dict]:
    """The patterns of every reading of a quemen hand (docs/RULES.md 6.3); none when the hand holds
    all three suits (缺一门, docs/RULES.md 5)."""
    rules = plain_rules(obj)
    h = plain_hand(obj)
    readings = plain_readings(h, rules)
    if refused(h, rules):
        return [], rules
    sit, self_draw, melds = h["situation"], h["self_draw"], h["melds"]
    colour = one_suit_kind(h["suits"])
    winner, dealer = obj.get("winner", 0), obj.get("dealer", 0)
    first = (sit.get("first_turn") and self_draw and not melds  # void after any kong (docs/RULES.md 6.4)
             and not sit.get("after_kong")
             and not obj.get("ting"))  # 报听 comes with a discard: the winner has discarded (docs/RULES.md 4.1)
    out = []
    for shape, groups in readings:
        p = {}
        # the shape patterns: one of them, 混一色 / 清一色 adding where 6.3 says so
        if shape == "7p":
            p["七对"] = 2
            if colour == "half":
                p["混一色"] = 1
            elif colour == "pure":
                p["清一色"] = 3
        elif all_triplets(shape, list(groups) + h["meld_groups"]):
            if colour == "pure":
                p["清碰"] = 4
            else:
                p["碰碰胡"] = 2
                if colour == "half":
                    p["混一色"] = 1
        elif colour == "pure":
            p["清一色"] = 3
        elif colour == "half":
            p["混一色"] = 1
        else:
            p["平胡"] = 1
        if sit.get("after_kong") and self_draw:
            p["杠上开花"] = 1
        if sit.get("last_tile") and self_draw:
            p["海底捞月"] = 1
        if first and winner == dealer:
            p["天胡"] = 3
        if first and winner != dealer:
            p["地胡"] = 2
        if obj.get("flowers", 0):
            p["花牌"] = obj["flowers"]
        out.append(_ordered(p, QUEMEN_ORDER))
    return out, rules


def ref_evaluate_quemen(obj: dict, ties: list | None = None) -> dict:
    """The calculator output for a well-formed quemen input (``ties`` as in `ref_evaluate_hebei`)."""
    candidates, _ = quemen_candidates(obj)
    best, all_best = best_of(candidates)
    if ties is not None:
        ties.extend(all_best)
    if best is None:
        h, rules = plain_hand(obj), plain_rules(obj)
        if refused(h, dict(rules, lack_suit=False)):
            return {"legal": False, "reason": "a chi or a claim the rules refuse"}
        shaped = bool(plain_readings(h, rules))
        return {"legal": False, "reason": "all three suits: no 缺一门" if shaped else "no winning shape"}
    fan = sum(best.values())
    total = fan * (2 if obj.get("ting") else 1) * obj.get("base", 1)  # 报听 doubles the total
    winner, discarder = obj.get("winner", 0), obj.get("discarder")
    scores = [0] * 4
    for p in ([discarder] if discarder is not None else [q for q in range(4) if q != winner]):
        scores[p] -= total
        scores[winner] += total
    return {"legal": True, "fan": fan, "patterns": best, "shaozhuang": 0, "scores": scores}


# ---------------------------------------------------------------------------------------------
# Random hebei / quemen hands.

PLAIN_MODES = ("plain", "plain", "pure", "half", "honors", "triplets", "pairs", "pairs", "dragon",
               "flower_dragon", "five", "single", "orphans")
"""Modes that bias towards 清一色 / 清碰, 混一色, 清风, 碰碰胡, 七对 and its 豪华 forms, 一条龙,
花龙, 捉五, 大吊车 and 十三幺 (hebei)."""
MELD_TYPES = ("pong", "pong", "kong", "added_kong", "concealed_kong")


def random_plain_input(rng: random.Random, rules: str) -> dict:
    """A random ``hebei`` or ``quemen`` calculator input, most often a win by construction:
    random declared melds (no chi), concealed groups and a pair, seven pairs or thirteen orphans,
    the winning tile one of the concealed tiles. Some hands then have one concealed tile swapped
    for a random one (mostly no win). Most quemen hands keep to two suits (缺一门); the rest
    hold three. Situations, flowers and 报听 are set at random, often where they score."""
    while True:
        obj = _plain_attempt(rng, rules)
        if obj is not None:
            return obj


def _plain_attempt(rng: random.Random, rules: str) -> dict | None:
    mode = rng.choice(PLAIN_MODES)
    suits = rng.sample(range(3), 3)
    if rules == "quemen" and rng.random() < 0.85:
        suits = suits[:2]  # 缺一门
    if mode in ("pure", "half"):
        suits = suits[:1]
    honors = mode != "pure"
    if mode == "honors":
        suits, honors = [], True
    pool = [9 * s + n for s in suits for n in range(9)] + (list(range(27, 34)) if honors else [])
    winner = rng.randrange(4)

    def run(s: int | None = None, start: int | None = None) -> list:
        s = rng.choice(suits) if s is None else s
        start = rng.randrange(7) if start is None else start
        return [9 * s + start, 9 * s + start + 1, 9 * s + start + 2]

    n_melds = {"pairs": 0, "orphans": 0, "single": 4, "dragon": rng.choice([0, 1]),
               "flower_dragon": rng.choice([0, 1])}.get(mode, rng.choice([0, 0, 0, 1, 1, 2, 3, 4]))
    melds, meld_tiles = [], []
    for _ in range(n_melds):
        typ = rng.choice(MELD_TYPES)
        tiles = [rng.choice(pool)] * (3 if typ == "pong" else 4)
        meld = {"type": typ, "tiles": format_tiles(tiles)}
        if typ != "concealed_kong":
            meld["from"] = rng.choice([s for s in range(4) if s != winner])
        melds.append(meld)
        meld_tiles += tiles

    groups: list[list] = []
    if mode == "pairs":
        fours = rng.choice([0, 0, 1, 1, 2, 3])
        kinds = rng.sample(pool, 7 - fours)
        groups = [[t, t] for t in kinds] + [[t, t] for t in kinds[:fours]]
    elif mode == "orphans":
        groups = [[t] for t in (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)]
        groups.append([rng.choice((31, 32, 33) * 3 + (0, 8, 17, 27))])
    else:
        n = 4 - n_melds
        if mode == "dragon":
            s = rng.choice(suits) if suits else 0
            groups = [run(s, 0), run(s, 3), run(s, 6)][:n]
        if mode == "flower_dragon":
            order = rng.sample(range(3), 3)
            groups = [run(order[0], 0), run(order[1], 3), run(order[2], 6)][:n]
        if mode == "five":
            groups = [[3, 4, 5]][:n]
        while len(groups) < n:
            if mode not in ("triplets", "honors") and suits and rng.random() < 0.6:
                groups.append(run())
            else:
                groups.append([rng.choice(pool)] * 3)
        p = rng.choice(pool)
        groups.append([p, p])
    concealed = [t for g in groups for t in g]
    win_at = concealed.index(4) if groups[0] == [3, 4, 5] else rng.randrange(len(concealed))
    win = concealed.pop(win_at)
    if rng.random() < 0.12:  # mostly no win any more
        concealed[rng.randrange(len(concealed))] = rng.randrange(34)
    if max(counts_of(concealed + [win] + meld_tiles)) > 4:
        return None

    discarder = None if rng.random() < 0.5 else rng.choice([s for s in range(4) if s != winner])
    has_kong = any(m["type"] != "pong" for m in melds)
    situation = {"last_tile": rng.random() < 0.1,
                 "after_kong": has_kong and rng.random() < (0.5 if discarder is None else 0.1),
                 "first_turn": rng.random() < (0.3 if not melds else 0.03)}
    if discarder is not None and rng.random() < 0.1:
        situation["robbed_kong"] = True
    obj = {"rules": rules, "hand": format_tiles(concealed), "win_tile": CODES[win], "melds": melds,
           "winner": winner, "dealer": winner if rng.random() < 0.4 else rng.randrange(4),
           "discarder": discarder, "situation": situation, "base": rng.choice([1, 1, 2, 10])}
    if rules == "quemen":
        obj["flowers"] = rng.choice([0, 0, 0, 1, 2, 3, 8])
        obj["ting"] = rng.random() < 0.3
    return obj
