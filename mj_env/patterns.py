"""Fan (番): how a won hand can be read, and the pattern tables of RULES.md 6.

A won hand is a `Win` (built and validated by ``mj_env.calculator``): the concealed tiles
(``hand`` + ``win_tile``), the declared melds and the situation. A *reading* of it is one way to
split the concealed tiles into a winning shape, with every wildcard given a kind. The pattern
table of the rule set's ``scoring`` family turns a reading into ``{pattern: fan}``; the reading
that scores the most total fan is the one scored (`best_patterns`).

Wildcards (惠牌, ``beijing``), the decisions taken here:

- The wildcards are the 惠牌 tiles in the concealed ``hand``, plus the winning tile when it is
  a 惠牌 and self-drawn. A 惠牌-kind winning tile from a discard or a robbed kong counts at
  face value; so do 惠牌 inside declared melds (unless ``hui_wild_in_melds``).
- A wildcard may stand for any kind, its own kind included, also for a fifth copy of a kind.
- Readings are not found by trying all 34**w substitutions. The natural tiles are split by a
  recursive decomposition (the lowest natural tile joins a pair, a triplet or one of the three
  sequences through it; wildcards fill only the gaps; natural tiles are used before
  wildcards, which loses nothing, since swapping a wildcard with an equal natural tile leaves
  the reading unchanged). Wildcards left over form one free group (a pair or a meld), and
  only the kinds that can change a pattern are tried for it: 5m, one kind per suit, one honor,
  and the sequences 123/456/789 of each suit. ``tests/ref_scoring.py`` tries every kind for
  every wildcard and the tests compare the two on thousands of hands.
- Seven pairs: every natural kind with an odd count takes one wildcard; spare wildcards go in
  pairs onto a kind already held (making four: 豪华) or into the hand's suit.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import combinations_with_replacement, product
from typing import NamedTuple

from .rules import RuleSet
from .tiles import N_KINDS

# ---------------------------------------------------------------------------------------------
# Groups: (kind letter, tile index). A sequence is named by its lowest tile.
PAIR, TRIPLET, KONG, SEQ = "P", "T", "K", "S"
FREE_PAIR, FREE_MELD = ("F", 2), ("F", 3)  # groups made of wildcards only, kind still open
GROUP_SIZE = {PAIR: 2, TRIPLET: 3, KONG: 4, SEQ: 3}

FIVE_M = 4  # 5m, the tile of 捉五魁 / 捉五
FOUR_M = 3  # 4m: the sequence 456m is (SEQ, 3)
DRAGONS = (31, 32, 33)
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)

# The kinds a free group can take that may change a pattern: 5m (捉五魁), a kind of each suit
# (清一色 / 混一色), an honor (混一色 / 清风); sequences 123/456/789 of each suit (一条龙, 花龙).
_FREE_KINDS = (FIVE_M, 9, 18, 27)
_FREE_SEQS = (0, 3, 6, 9, 12, 15, 18, 21, 24)
_FREE_CHOICES = {
    FREE_PAIR: tuple((PAIR, k) for k in _FREE_KINDS),
    FREE_MELD: tuple((TRIPLET, k) for k in _FREE_KINDS) + tuple((SEQ, s) for s in _FREE_SEQS),
}


def suit(kind: int) -> int:
    """0, 1, 2 for m, p, s; 3 for honors."""
    return min(kind // 9, 3)


def group_tiles(group: tuple[str, int]) -> tuple[int, ...]:
    """The tile kinds of a concrete group, e.g. ``group_tiles((SEQ, 3)) == (3, 4, 5)``."""
    letter, k = group
    if letter == SEQ:
        return (k, k + 1, k + 2)
    return (k,) * GROUP_SIZE[letter]


# ---------------------------------------------------------------------------------------------
# The won hand.


@dataclass(frozen=True)
class Meld:
    """A declared meld. ``tiles`` are the physical tiles (4 for a kong), sorted.

    ``readings`` are the groups it may stand for: one, unless 惠牌 are wild in melds
    (``hui_wild_in_melds``), when a 惠牌 in it may stand for the tile it completes.
    """

    type: str  # chi, pong, kong (exposed), added_kong, concealed_kong
    tiles: tuple[int, ...]
    source: int | None
    readings: tuple[tuple[str, int], ...]

    @property
    def claimed(self) -> bool:
        """Chi, pong, exposed or added kong: the hand is no longer concealed (门清)."""
        return self.type != "concealed_kong"


@dataclass(frozen=True)
class Situation:
    """The situation flags of INTERFACES.md 1."""

    last_tile: bool = False
    after_kong: bool = False
    robbed_kong: bool = False
    first_turn: bool = False


@dataclass(frozen=True)
class Win:
    """One won hand, validated (see ``mj_env.calculator.parse_input``). Tiles are indices 0-33."""

    rules: RuleSet
    hand: tuple[int, ...]  # concealed tiles before the winning tile, 13 - 3 x len(melds)
    win_tile: int
    melds: tuple[Meld, ...] = ()
    winner: int = 0
    dealer: int = 0
    discarder: int | None = None  # None: self-draw
    hui: int | None = None  # the 惠牌 kind, None when there are no wildcards
    situation: Situation = field(default_factory=Situation)
    shaozhuang_rounds: int = 0
    hubao: tuple[tuple[int, int], ...] = ()
    flowers: int = 0
    ting: bool = False
    base: int = 1

    @property
    def self_draw(self) -> bool:
        return self.discarder is None

    @property
    def claimed(self) -> bool:
        """Any chi, pong, exposed or added kong."""
        return any(m.claimed for m in self.melds)

    @cached_property
    def hand_hui(self) -> int:
        """惠牌 held in the concealed hand before the winning tile."""
        return 0 if self.hui is None else self.hand.count(self.hui)

    @cached_property
    def win_is_wild(self) -> bool:
        """The winning tile is a self-drawn 惠牌 (a wildcard); from a discard it is face value."""
        return self.hui is not None and self.win_tile == self.hui and self.self_draw

    @cached_property
    def wild(self) -> int:
        """Wildcards among the concealed tiles."""
        return self.hand_hui + int(self.win_is_wild)

    @cached_property
    def natural(self) -> tuple[int, ...]:
        """Counts (34,) of the concealed tiles (hand + winning tile) that are not wildcards."""
        c = [0] * N_KINDS
        for t in self.hand:
            if t != self.hui:
                c[t] += 1
        if not self.win_is_wild:
            c[self.win_tile] += 1
        return tuple(c)

    @cached_property
    def physical(self) -> tuple[int, ...]:
        """Counts (34,) of every tile of the hand, melds included, at face value."""
        c = [0] * N_KINDS
        for t in self.hand + (self.win_tile,) + tuple(t for m in self.melds for t in m.tiles):
            c[t] += 1
        return tuple(c)

    @cached_property
    def hui_tiles(self) -> int:
        """Tiles of the 惠牌 kind anywhere in the hand (concealed, melds, winning tile)."""
        return 0 if self.hui is None else self.physical[self.hui]


# ---------------------------------------------------------------------------------------------
# Shape checks: fewest wildcards per suit (fast yes/no, used for the 捉五魁 wait test).


# Every cache here is an LRU with a fixed bound, so a long-running calculator or engine fed
# many distinct hands keeps a flat memory footprint (an unbounded cache grew by ~80 MiB over
# 233k distinct hands). Hits matter only within one hand (the 34 shape checks of `only_wait`
# share three of their four suit keys; the readings of each meld interpretation share one
# split), so small bounds lose nothing: measured ~0.5 KB per `standard_splits` entry and
# ~0.2 KB per `_need` entry, i.e. at most ~2 MB and ~1.5 MB.
NEED_CACHE_SIZE = 1 << 13
SPLITS_CACHE_SIZE = 1 << 12


@lru_cache(maxsize=NEED_CACHE_SIZE)
def _need(counts: tuple[int, ...], seq: bool, pair: bool) -> int:
    """Fewest wildcards that turn the tiles of one suit (or the honors, ``seq=False``) into
    melds, plus exactly one pair when ``pair``. ``counts`` is the suit's count tuple."""
    i = next((j for j, n in enumerate(counts) if n), None)
    if i is None:
        return 2 if pair else 0
    c = list(counts)
    n = c[i]
    best = 99
    if pair:
        use = min(n, 2)
        c[i] -= use
        best = min(best, 2 - use + _need(tuple(c), seq, False))
        c[i] += use
    use = min(n, 3)
    c[i] -= use
    best = min(best, 3 - use + _need(tuple(c), seq, pair))
    c[i] += use
    if seq:
        for s in (i - 2, i - 1, i):
            if s < 0 or s + 2 >= len(c):
                continue
            taken = [p for p in (s, s + 1, s + 2) if p >= i and c[p]]
            for p in taken:
                c[p] -= 1
            best = min(best, 3 - len(taken) + _need(tuple(c), seq, pair))
            for p in taken:
                c[p] += 1
    return best


def standard_ok(counts, wild: int) -> bool:
    """Counts (34,) plus ``wild`` wildcards make melds + one pair (tile total must fit)."""
    parts = [(tuple(counts[0:9]), True), (tuple(counts[9:18]), True),
             (tuple(counts[18:27]), True), (tuple(counts[27:34]), False)]
    plain = [_need(p, s, False) for p, s in parts]
    total = sum(plain)
    return any(total - plain[j] + _need(p, s, True) <= wild for j, (p, s) in enumerate(parts))


def seven_pairs_ok(counts, wild: int) -> bool:
    """14 concealed tiles make seven pairs (a four is two pairs; a wildcard pairs a single)."""
    return sum(n % 2 for n in counts) <= wild


def thirteen_orphans_ok(counts, wild: int, extra_dragon: bool) -> bool:
    """One of each orphan plus one more (a dragon when ``extra_dragon``)."""
    if any(counts[k] for k in range(N_KINDS) if k not in ORPHANS):
        return False
    if any(counts[k] > 2 for k in ORPHANS):
        return False
    doubles = [k for k in ORPHANS if counts[k] == 2]
    missing = sum(1 for k in ORPHANS if counts[k] == 0)
    if len(doubles) > 1:
        return False
    if doubles:
        return wild == missing and (not extra_dragon or doubles[0] in DRAGONS)
    return wild == missing + 1  # the last wildcard is the 14th tile, a dragon if need be


def shape_ok(rules: RuleSet, counts, wild: int, n_melds: int) -> bool:
    """Counts (34,) + ``wild`` wildcards (14 - 3 x n_melds tiles) form a winning shape."""
    if standard_ok(counts, wild):
        return True
    if n_melds == 0 and rules.seven_pairs and seven_pairs_ok(counts, wild):
        return True
    return n_melds == 0 and rules.thirteen_orphans and thirteen_orphans_ok(
        counts, wild, rules.orphans_extra_dragon)


def only_wait(win: Win, tile: int) -> bool:
    """``tile`` was the hand's only winning tile: no other kind, added at face value to the
    13 - 3k tile hand (its own 惠牌 still wild), completes a winning shape. A kind of which
    the hand and melds already hold four tiles cannot be drawn, so it is no wait."""
    base = [0] * N_KINDS
    for t in win.hand:
        if t != win.hui:
            base[t] += 1
    held = [0] * N_KINDS
    for t in win.hand + tuple(t for m in win.melds for t in m.tiles):
        held[t] += 1
    for t in range(N_KINDS):
        if t == tile or held[t] >= 4:
            continue
        base[t] += 1
        won = shape_ok(win.rules, base, win.hand_hui, len(win.melds))
        base[t] -= 1
        if won:
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Readings: every way to split the concealed tiles into a winning shape.


class Reading(NamedTuple):
    """One interpretation of a won hand.

    shape: "standard", "seven_pairs" or "thirteen_orphans".
    concealed: the concealed groups (standard shape), concrete kinds, sorted.
    melds: one reading of each declared meld, as groups (KONG for kongs).
    counts: (34,) interpreted counts of every tile, melds included.
    """

    shape: str
    concealed: tuple[tuple[str, int], ...]
    melds: tuple[tuple[str, int], ...]
    counts: tuple[int, ...]

    def groups(self) -> tuple[tuple[str, int], ...]:
        return self.concealed + self.melds

    def sequences(self) -> set[int]:
        """Lowest tiles of the sequences, concealed and chi."""
        return {k for g, k in self.groups() if g == SEQ}

    def suits(self) -> set[int]:
        return {suit(k) for k in range(N_KINDS) if self.counts[k]}


@lru_cache(maxsize=SPLITS_CACHE_SIZE)
def standard_splits(counts: tuple[int, ...], wild: int, melds: int) -> tuple[tuple, ...]:
    """All splits of natural counts (34,) + ``wild`` wildcards into ``melds`` melds and one
    pair. Each split is a sorted tuple of groups; FREE_PAIR / FREE_MELD stand for groups of
    wildcards only. Tile totals must already fit (natural + wild = 3 x melds + 2)."""
    out: set[tuple] = set()
    _split(list(counts), wild, melds, 1, [], out, 0)
    return tuple(sorted(out))


CACHES = (_need, standard_splits)
"""Every cache of this module (each an ``lru_cache`` with a bound), for tests and ``cache_clear``."""


def _split(c: list[int], wild: int, melds: int, pair: int, acc: list, out: set, start: int) -> None:
    i = next((j for j in range(start, N_KINDS) if c[j]), None)
    if i is None:
        if wild == 3 * melds + 2 * pair:
            out.add(tuple(sorted(acc + [FREE_MELD] * melds + [FREE_PAIR] * pair)))
        return
    n = c[i]
    options = []  # (group, natural tiles taken, wildcards used, melds used, pairs used)
    if pair:
        use = min(n, 2)
        options.append(((PAIR, i), (i,) * use, 2 - use, 0, 1))
    if melds:
        use = min(n, 3)
        options.append(((TRIPLET, i), (i,) * use, 3 - use, 1, 0))
        if i < 27:
            lo, hi = i - i % 9, i - i % 9 + 8
            for s in (i - 2, i - 1, i):
                if s < lo or s + 2 > hi:
                    continue
                taken = tuple(p for p in (s, s + 1, s + 2) if p >= i and c[p])
                options.append(((SEQ, s), taken, 3 - len(taken), 1, 0))
    for group, taken, used, dm, dp in options:
        if used > wild:
            continue
        for p in taken:
            c[p] -= 1
        acc.append(group)
        _split(c, wild - used, melds - dm, pair - dp, acc, out, i)
        acc.pop()
        for p in taken:
            c[p] += 1


def _seven_pairs_counts(counts: tuple[int, ...], wild: int) -> Iterator[tuple[int, ...]]:
    """Interpreted concealed counts of the seven-pairs readings (spare wildcards paired onto
    a kind already held, or onto a representative kind of a suit or the honors)."""
    odd = [k for k in range(N_KINDS) if counts[k] % 2]
    if len(odd) > wild:
        return
    base = list(counts)
    for k in odd:
        base[k] += 1
    spare = (wild - len(odd)) // 2
    kinds = sorted({k for k in range(N_KINDS) if base[k]} | set(_FREE_KINDS))
    for extra in combinations_with_replacement(kinds, spare):
        c = list(base)
        for k in extra:
            c[k] += 2
        yield tuple(c)


def _orphans_counts(counts: tuple[int, ...], wild: int, extra_dragon: bool) -> Iterator[tuple[int, ...]]:
    if not thirteen_orphans_ok(counts, wild, extra_dragon):
        return
    c = [max(counts[k], 1) if k in ORPHANS else 0 for k in range(N_KINDS)]
    if sum(c) == 13:  # the pair is a wildcard's
        for d in (DRAGONS if extra_dragon else ORPHANS):
            yield tuple(c[:d] + [2] + c[d + 1:])
    else:
        yield tuple(c)


def _add(counts: list[int], groups) -> None:
    for g in groups:
        for t in group_tiles(g):
            counts[t] += 1


def readings(win: Win) -> Iterator[Reading]:
    """Every reading of a won hand (free wildcard groups tried as the kinds that matter)."""
    rules = win.rules
    k = len(win.melds)
    for meld_groups in product(*(m.readings for m in win.melds)):
        meld_counts = [0] * N_KINDS
        _add(meld_counts, meld_groups)
        for split in standard_splits(win.natural, win.wild, 4 - k):
            fixed = [g for g in split if g[0] != "F"]
            free = [g for g in split if g[0] == "F"]
            for chosen in product(*(_FREE_CHOICES[g] for g in free)):
                concealed = tuple(sorted(fixed + list(chosen)))
                c = list(meld_counts)
                _add(c, concealed)
                yield Reading("standard", concealed, meld_groups, tuple(c))
        if k == 0 and rules.seven_pairs:
            for c in _seven_pairs_counts(win.natural, win.wild):
                yield Reading("seven_pairs", (), (), c)
        if k == 0 and rules.thirteen_orphans:
            for c in _orphans_counts(win.natural, win.wild, rules.orphans_extra_dragon):
                yield Reading("thirteen_orphans", (), (), c)


# ---------------------------------------------------------------------------------------------
# Patterns shared by the tables.


def _all_triplets(r: Reading) -> bool:
    return r.shape == "standard" and all(g != SEQ for g, _ in r.groups())


def _dragon(r: Reading) -> bool:
    """一条龙: 123, 456, 789 of one suit among the sequences."""
    seqs = r.sequences()
    return any({9 * s, 9 * s + 3, 9 * s + 6} <= seqs for s in range(3))


def _flower_dragon(r: Reading) -> bool:
    """花龙: 123, 456, 789 each of a different suit."""
    seqs = r.sequences()
    return any(all(9 * s + 3 * part in seqs for part, s in enumerate(perm))
               for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)))


def _catch_five(win: Win, r: Reading, memo: dict) -> bool:
    """捉五魁 / 捉五: the winning tile is 5m, the middle of a concealed 4m5m6m of the reading,
    and 5m was the hand's only winning tile (`only_wait`: no other kind, added at face value to
    the 13 - 3k tile hand, its own 惠牌 still wild, completes a winning shape; kinds the hand
    already holds four of are no wait). A self-drawn 惠牌 5m counts when the reading has a
    wildcard standing for 5m (wildcards are interchangeable, so that one is the winning tile);
    a discarded 惠牌 5m is a plain 5m."""
    if win.win_tile != FIVE_M or (SEQ, FOUR_M) not in r.concealed:
        return False
    if win.win_is_wild:
        five_in_concealed = sum(group_tiles(g).count(FIVE_M) for g in r.concealed)
        if five_in_concealed <= win.natural[FIVE_M]:
            return False
    if "only_wait" not in memo:
        memo["only_wait"] = only_wait(win, FIVE_M)
    return memo["only_wait"]


def _single_wait_all_melds(win: Win) -> bool:
    """大钓 / 大吊车: four declared melds, winning on the single tile left in hand."""
    return len(win.melds) == 4


# ---------------------------------------------------------------------------------------------
# beijing (RULES.md 6.1)

BEIJING_ORDER = ("庄", "门清无惠", "推倒和", "对对和", "大钓", "捉五魁", "海底捞月", "一条龙", "七对子",
                 "杠上开花", "清一色", "豪华七对子", "四惠牌", "天和", "地和")
_NOT_TUIDAO = set(BEIJING_ORDER[3:])


def beijing_patterns(win: Win, r: Reading, memo: dict) -> dict[str, int] | None:
    """The beijing fan of one reading (四惠牌 is settled before any reading: `four_hui`).

    Decisions, following RULES.md 6.1:

    - 庄 1: the winner is the dealer, or the dealer discarded the winning tile (or had the kong
      robbed); not when a non-dealer self-draws; not with 天和.
    - 门清无惠 1: no chi, pong, exposed or added kong (concealed kongs are fine) and no tile of
      the 惠牌 kind anywhere: concealed tiles, melds, winning tile.
    - 对对和 2: standard shape, every group a triplet or kong, declared melds included.
    - 大钓 2: four declared melds (concealed kongs count), winning on the single tile left.
    - 捉五魁 2: see `_catch_five`.
    - 海底捞月: 2 for a self-draw on the last live tile, 1 for a win on its discard.
    - 一条龙 3: 123, 456 and 789 of one suit among the sequences, chi melds included.
    - 七对子 4, or 豪华七对子 8 in its place when some kind is held four times or more (a
      wildcard may make the four); only without declared melds.
    - 杠上开花 5: a self-draw with ``situation.after_kong``.
    - 清一色 6: all tiles, melds included, wildcards as read, of one suit, no honors.
    - 天和 10: ``first_turn``, the dealer self-draws, no melds. 地和 8: ``first_turn``, a
      non-dealer, no melds, on a self-draw or a discard.
    - 推倒和 1: only when none of the patterns above but 庄 and 门清无惠 applies.
    """
    s = win.situation
    p: dict[str, int] = {}
    tianhe = s.first_turn and win.winner == win.dealer and win.self_draw and not win.melds
    dihe = s.first_turn and win.winner != win.dealer and not win.melds
    if not tianhe and (win.winner == win.dealer or win.discarder == win.dealer):
        p["庄"] = 1
    if not win.claimed and win.hui_tiles == 0:
        p["门清无惠"] = 1
    if _all_triplets(r):
        p["对对和"] = 2
    if _single_wait_all_melds(win):
        p["大钓"] = 2
    if _catch_five(win, r, memo):
        p["捉五魁"] = 2
    if s.last_tile:
        p["海底捞月"] = 2 if win.self_draw else 1
    if r.shape == "standard" and _dragon(r):
        p["一条龙"] = 3
    if r.shape == "seven_pairs":
        if max(r.counts) >= 4:
            p["豪华七对子"] = 8
        else:
            p["七对子"] = 4
    if s.after_kong and win.self_draw:
        p["杠上开花"] = 5
    if r.suits() in ({0}, {1}, {2}):
        p["清一色"] = 6
    if tianhe:
        p["天和"] = 10
    if dihe:
        p["地和"] = 8
    if not _NOT_TUIDAO & p.keys():
        p["推倒和"] = 1
    return p


def four_hui(win: Win) -> dict[str, int] | None:
    """四惠牌: a self-draw with all four 惠牌 in hand + winning tile wins whatever the shape,
    scored 四惠牌 8 plus 庄 1 when the winner is the dealer, nothing else (no 天和)."""
    if not (win.rules.four_hui_win and win.hui is not None and win.self_draw):
        return None
    if win.hand_hui + int(win.win_tile == win.hui) < 4:
        return None
    p = {"庄": 1} if win.winner == win.dealer else {}
    p["四惠牌"] = 8
    return p


# ---------------------------------------------------------------------------------------------
# hebei (RULES.md 6.2): bonus patterns X on top of the base score of the win type.

HEBEI_ORDER = ("门清", "抢杠胡", "杠上开花", "碰碰胡", "大吊车", "清一色", "混一色", "清风", "一条龙",
               "七对", "豪华七对", "双豪华", "三豪华", "十三幺", "海底捞月", "花龙", "捉五")


def hebei_patterns(win: Win, r: Reading, memo: dict) -> dict[str, int] | None:
    """The hebei bonus patterns of one reading. 门清: no claimed meld (concealed kongs are
    fine). 海底捞月: the last drawable tile, self-drawn or its discard. 豪华七对 / 双豪华 /
    三豪华: one, two, three kinds held four times, each replacing 七对 and the smaller ones."""
    s = win.situation
    p: dict[str, int] = {}
    if not win.claimed:
        p["门清"] = 2
    if s.robbed_kong:
        p["抢杠胡"] = 2
    if s.after_kong and win.self_draw:
        p["杠上开花"] = 2
    if _all_triplets(r):
        p["碰碰胡"] = 3
    if _single_wait_all_melds(win):
        p["大吊车"] = 2
    suits = r.suits()
    if suits in ({0}, {1}, {2}):
        p["清一色"] = 3
    elif suits in ({0, 3}, {1, 3}, {2, 3}):
        p["混一色"] = 2
    elif suits == {3}:
        p["清风"] = 3
    if r.shape == "standard" and _dragon(r):
        p["一条龙"] = 2
    if r.shape == "seven_pairs":
        fours = sum(1 for n in r.counts if n >= 4)
        name, fan = (("七对", 2), ("豪华七对", 8), ("双豪华", 16), ("三豪华", 32))[min(fours, 3)]
        p[name] = fan
    if r.shape == "thirteen_orphans":
        p["十三幺"] = 10
    if s.last_tile:
        p["海底捞月"] = 2
    if r.shape == "standard" and _flower_dragon(r):
        p["花龙"] = 5
    if _catch_five(win, r, memo):
        p["捉五"] = 5
    return p


# ---------------------------------------------------------------------------------------------
# quemen (RULES.md 6.3): one shape pattern plus additive ones.

QUEMEN_ORDER = ("平胡", "混一色", "碰碰胡", "七对", "清一色", "清碰", "杠上开花", "海底捞月", "天胡", "地胡",
                "花牌")


def lacks_a_suit(r: Reading) -> bool:
    """缺一门: at most two of the three suits, melds included (honors are free)."""
    return len(r.suits() - {3}) <= 2


def quemen_patterns(win: Win, r: Reading, memo: dict) -> dict[str, int] | None:
    """The quemen fan of one reading. Shape: 平胡 1, 混一色 1, 碰碰胡 2, 七对 2, 清一色 3,
    清碰 4 (清一色 + 碰碰胡, replacing both); 混一色 adds to 碰碰胡 or 七对, 清一色 adds to 七对.
    Additive: 杠上开花 1, 海底捞月 1 (self-draw on the last tile only), 天胡 3 (dealer,
    first turn, self-draw, no melds), 地胡 2 (non-dealer self-draws on the first draw, no
    melds), 花牌 1 per flower. Readings that do not lack a suit are no win (None)."""
    if win.rules.lack_suit and not lacks_a_suit(r):
        return None
    s = win.situation
    p: dict[str, int] = {}
    suits = r.suits()
    pure = suits in ({0}, {1}, {2})
    mixed = suits in ({0, 3}, {1, 3}, {2, 3})
    if r.shape == "seven_pairs":
        p["七对"] = 2
        if pure:
            p["清一色"] = 3
        elif mixed:
            p["混一色"] = 1
    elif r.shape == "standard":
        pph = _all_triplets(r)
        if pure and pph:
            p["清碰"] = 4
        elif pure:
            p["清一色"] = 3
        else:
            if mixed:
                p["混一色"] = 1
            if pph:
                p["碰碰胡"] = 2
            if not p:
                p["平胡"] = 1
    first_draw = s.first_turn and win.self_draw and not win.melds
    if s.after_kong and win.self_draw:
        p["杠上开花"] = 1
    if s.last_tile and win.self_draw:
        p["海底捞月"] = 1
    if first_draw and win.winner == win.dealer:
        p["天胡"] = 3
    if first_draw and win.winner != win.dealer:
        p["地胡"] = 2
    if win.flowers:
        p["花牌"] = win.flowers
    return {name: p[name] for name in QUEMEN_ORDER if name in p}


# ---------------------------------------------------------------------------------------------

PatternFn = Callable[[Win, Reading, dict], "dict[str, int] | None"]
TABLES: dict[str, tuple[PatternFn, tuple[str, ...]]] = {
    "beijing": (beijing_patterns, BEIJING_ORDER),
    "hebei": (hebei_patterns, HEBEI_ORDER),
    "quemen": (quemen_patterns, QUEMEN_ORDER),
}


MAX_FLOWERS = 8
"""Flowers a winner can lay out (``quemen``: 8 flower tiles, one copy each); 花牌 scores one each."""

PATTERN_FAN: dict[str, dict[str, int]] = {
    "beijing": {"庄": 1, "门清无惠": 1, "推倒和": 1, "对对和": 2, "大钓": 2, "捉五魁": 2, "海底捞月": 2,
                "一条龙": 3, "七对子": 4, "杠上开花": 5, "清一色": 6, "豪华七对子": 8, "四惠牌": 8, "天和": 10,
                "地和": 8},
    "hebei": {"门清": 2, "抢杠胡": 2, "杠上开花": 2, "碰碰胡": 3, "大吊车": 2, "清一色": 3, "混一色": 2, "清风": 3,
              "一条龙": 2, "七对": 2, "豪华七对": 8, "双豪华": 16, "三豪华": 32, "十三幺": 10, "海底捞月": 2,
              "花龙": 5, "捉五": 5},
    "quemen": {"平胡": 1, "混一色": 1, "碰碰胡": 2, "七对": 2, "清一色": 3, "清碰": 4, "杠上开花": 1, "海底捞月": 1,
               "天胡": 3, "地胡": 2, "花牌": MAX_FLOWERS},
}
"""The most fan each pattern of each table can score (RULES.md 6; 花牌 is one per flower). A
reading scores each pattern at most once, so the sum bounds a hand's fan."""

MAX_FAN = {table: sum(fans.values()) for table, fans in PATTERN_FAN.items()}
"""An upper bound on a hand's fan per table: beijing 63, hebei 101, quemen 28 (loose: many
patterns exclude each other, e.g. 七对子 / 豪华七对子, 天和 / 地和, 四惠牌 / everything but 庄)."""


def best_patterns(win: Win) -> tuple[dict[str, int] | None, bool]:
    """The patterns of the reading that scores the most fan, in the table's order.

    Returns (patterns, shaped): patterns is None when no reading is a win; shaped tells
    whether the tiles form a winning shape at all (a quemen hand may have the shape but not
    lack a suit). Ties between readings of equal fan go to the pattern set that comes first
    in the table order (a fixed rule, so the result does not depend on search order)."""
    table, order = TABLES[win.rules.scoring]
    memo: dict = {}  # facts of the hand computed once, on first need (the 捉五魁 wait test)
    best_key, best, shaped = None, None, False
    for r in readings(win):
        shaped = True
        p = table(win, r, memo)
        if p is None:
            continue
        key = (sum(p.values()), tuple(name in p for name in order))
        if best_key is None or key > best_key:
            best_key, best = key, p
    if best is None:
        return None, shaped
    return {name: best[name] for name in order if name in best}, True
