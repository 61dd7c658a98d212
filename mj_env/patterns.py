"""The won hand: how it can be read, the pattern tests every rule family shares, the best reading.

A won hand is a `Win` (built and validated by ``mj_env.calculator``): the concealed tiles
(``hand`` + ``win_tile``), the declared melds and the situation. A *reading* of it is one way to
split the concealed tiles into a winning shape, with every wildcard given a kind. The pattern
function of the rule set's family (``mj_env.families``) turns a reading into ``{pattern: fan}``;
the reading that scores the most total fan is the one scored (`best_patterns`).

Shape questions that need no reading (is a kind a wait of the hand, is it thirteen orphans) are
``mj_env.hand``'s, the batched table look-ups the engine uses too.

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

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import combinations_with_replacement, product
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .hand import ORPHAN_KINDS, orphans_need, waits_rules
from .rules import RuleSet
from .tiles import N_KINDS, N_SUITS, SUIT_SIZE, lacks_a_suit

if TYPE_CHECKING:
    from .families import Family

# ---------------------------------------------------------------------------------------------
# Groups: (kind letter, tile index). A sequence is named by its lowest tile.
PAIR, TRIPLET, KONG, SEQ = "P", "T", "K", "S"
FREE_PAIR, FREE_MELD = ("F", 2), ("F", 3)  # groups made of wildcards only, kind still open
GROUP_SIZE = {PAIR: 2, TRIPLET: 3, KONG: 4, SEQ: 3}

FIVE_M = 4  # 5m, the tile of 捉五魁 / 捉五
FOUR_M = 3  # 4m: the sequence 456m is (SEQ, 3)
ORPHANS = tuple(ORPHAN_KINDS.tolist())  # 1 and 9 of each suit, the seven honors
DRAGONS = ORPHANS[-3:]  # 5z 6z 7z
_NOT_ORPHANS = tuple(k for k in range(N_KINDS) if k not in ORPHANS)
HONORS = N_SUITS  # `suit` of an honor
ONE_SUIT = ({0}, {1}, {2})  # `Reading.suits` of a one-suit hand without honors (清一色)
ONE_SUIT_AND_HONORS = ({0, HONORS}, {1, HONORS}, {2, HONORS})  # (混一色)

# The kinds a free group can take that may change a pattern: 5m (捉五魁), a kind of each suit
# (清一色 / 混一色), an honor (混一色 / 清风); sequences 123/456/789 of each suit (一条龙, 花龙).
_FREE_KINDS = (FIVE_M, 9, 18, 27)
_FREE_SEQS = (0, 3, 6, 9, 12, 15, 18, 21, 24)
_FREE_CHOICES = {
    FREE_PAIR: tuple((PAIR, k) for k in _FREE_KINDS),
    FREE_MELD: tuple((TRIPLET, k) for k in _FREE_KINDS) + tuple((SEQ, s) for s in _FREE_SEQS),
}


def suit(kind: int) -> int:
    """0, 1, 2 for m, p, s; 3 (HONORS) for honors."""
    return min(kind // SUIT_SIZE, HONORS)


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
    """The situation flags of docs/INTERFACES.md 1."""

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

    @property
    def first_turn(self) -> bool:
        """天和 / 地和 / 地胡 timing: ``situation.first_turn`` with no chi, pong or kong declared yet
        (docs/RULES.md 6.4). A meld of the winner's, a win on a kong replacement (``after_kong``) and a
        robbed kong (``robbed_kong``) each say one was declared, so any of them voids the flag. So does a
        discard by a seat that plays after the winner in the first go-around (from the dealer): the winner
        has discarded before it (the dealer, who discards first, wins no discard on the first turn); and so
        does 报听 (``ting``, quemen), which is declared together with a discard (docs/RULES.md 4.1)."""
        s = self.situation
        if self.ting:
            return False
        if self.discarder is not None and \
                (self.discarder - self.dealer) % 4 >= (self.winner - self.dealer) % 4:
            return False
        return s.first_turn and not self.melds and not s.after_kong and not s.robbed_kong

    @property
    def last_tile(self) -> bool:
        """海底 timing: ``situation.last_tile``, except on a robbed kong, which is neither the last live
        tile drawn nor the discard made after drawing it (docs/RULES.md 6.1, 6.2)."""
        return self.situation.last_tile and not self.situation.robbed_kong

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
# The only wait (捉五魁 / 捉五).


def only_wait(win: Win, tile: int) -> bool:
    """``tile`` was the hand's only winning tile: no other kind, added at face value to the
    13 - 3k tile hand (its own 惠牌 still wild), completes a winning shape of the rule set
    (``mj_env.hand.waits_rules``). A kind of which the hand and melds already hold four tiles
    cannot be drawn, so it is no wait. Only the winner's own tiles count so: tiles everyone sees (the
    惠坯, discards) leave a kind a wait, as the usual reading of "only one winning tile" has it."""
    natural = np.zeros(N_KINDS, dtype=np.int8)
    held = [0] * N_KINDS
    for t in win.hand:
        held[t] += 1
        if t != win.hui:
            natural[t] += 1
    for m in win.melds:
        for t in m.tiles:
            held[t] += 1
    waits = waits_rules(natural, win.hand_hui, win.rules).tolist()
    return not any(waits[t] and held[t] < 4 for t in range(N_KINDS) if t != tile)


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


# A bounded LRU, so a long-running calculator or engine fed many distinct hands keeps a flat
# memory footprint (an unbounded cache grew by ~80 MiB over 233k distinct hands). Hits matter
# only within one hand (the readings of each meld interpretation share one split), so a small
# bound loses nothing: ~0.5 KB per entry, at most ~2 MB.
SPLITS_CACHE_SIZE = 1 << 12


@lru_cache(maxsize=SPLITS_CACHE_SIZE)
def standard_splits(counts: tuple[int, ...], wild: int, melds: int) -> tuple[tuple, ...]:
    """All splits of natural counts (34,) + ``wild`` wildcards into ``melds`` melds and one
    pair. Each split is a sorted tuple of groups; FREE_PAIR / FREE_MELD stand for groups of
    wildcards only. Tile totals must already fit (natural + wild = 3 x melds + 2)."""
    out: set[tuple] = set()
    _split(list(counts), wild, melds, 1, [], out, 0)
    return tuple(sorted(out))


CACHES = (standard_splits,)
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
    """Interpreted concealed counts of the thirteen-orphans readings of 14 concealed tiles."""
    if any(counts[k] for k in _NOT_ORPHANS):  # a quick no for most hands; mj_env.hand decides
        return
    if orphans_need(np.array(counts, dtype=np.int8), extra_dragon) > wild:
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
            for counts in _seven_pairs_counts(win.natural, win.wild):
                yield Reading("seven_pairs", (), (), counts)
        if k == 0 and rules.thirteen_orphans:
            for counts in _orphans_counts(win.natural, win.wild, rules.orphans_extra_dragon):
                yield Reading("thirteen_orphans", (), (), counts)


# ---------------------------------------------------------------------------------------------
# Pattern tests shared by the families.


def all_triplets(r: Reading) -> bool:
    """对对和 / 碰碰胡: the standard shape with every group a triplet or kong, melds included."""
    return r.shape == "standard" and all(g != SEQ for g, _ in r.groups())


def dragon(r: Reading) -> bool:
    """一条龙: 123, 456, 789 of one suit among the sequences."""
    seqs = r.sequences()
    return any({SUIT_SIZE * s, SUIT_SIZE * s + 3, SUIT_SIZE * s + 6} <= seqs for s in range(N_SUITS))


def flower_dragon(r: Reading) -> bool:
    """花龙: 123, 456, 789 each of a different suit."""
    seqs = r.sequences()
    return any(all(SUIT_SIZE * s + 3 * part in seqs for part, s in enumerate(perm))
               for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)))


def catch_five(win: Win, r: Reading, memo: dict) -> bool:
    """捉五魁 / 捉五: the winning tile is 5m, the middle of a concealed 4m5m6m of the reading,
    and 5m was the hand's only winning tile (`only_wait`: no other kind, added at face value to
    the 13 - 3k tile hand, its own 惠牌 still wild, completes a winning shape; kinds the hand
    already holds four of are no wait). A self-drawn 惠牌 5m counts: the 惠牌 kind is then 5m, so
    every 5m of the hand is a wildcard, the 5m of the 4m5m6m among them, and wildcards are
    interchangeable, so that one is the winning tile; a discarded 惠牌 5m is a plain 5m."""
    if win.win_tile != FIVE_M or (SEQ, FOUR_M) not in r.concealed:
        return False
    if "only_wait" not in memo:
        memo["only_wait"] = only_wait(win, FIVE_M)
    return memo["only_wait"]


def single_wait_all_melds(win: Win) -> bool:
    """大钓 / 大吊车: four declared melds, winning on the single tile left in hand."""
    return len(win.melds) == 4


# ---------------------------------------------------------------------------------------------
# The best reading.


NO_SHAPE = "the tiles do not form a winning shape"
NOT_LACKING_A_SUIT = "the hand holds all three suits; a win must lack one (缺一门)"


def best_patterns(win: Win, family: Family) -> tuple[dict[str, int], None] | tuple[None, str]:
    """The patterns of the reading that scores the most fan, in the family's order.

    ``family``: the rule set's `mj_env.families.Family`. A hand that is a win whatever its shape
    (``family.special_win``: 四惠牌) scores that alone. Returns (patterns, None) for a win, or
    (None, why not) when no reading is one: the tiles form no winning shape, the hand's tiles as
    they are (melds and 惠牌 included) hold all three suits where ``rules.lack_suit`` asks for 缺一门
    (any family: it is a rule field), or the family refuses every reading. Ties between readings of equal fan go to the pattern set
    that comes first in the family's order (a fixed rule, so the result does not depend on search
    order)."""
    if family.special_win is not None:
        special = family.special_win(win)
        if special is not None:
            return special, None
    table, order = family.patterns_of, family.order
    memo: dict = {}  # facts of the hand computed once, on first need (the 捉五魁 wait test)
    # 缺一门 counts the tiles as they are (a 惠牌 is of its own suit, whatever it stands for), as the
    # engine's legal moves do (mj_env.legal)
    lacking = not win.rules.lack_suit or bool(lacks_a_suit(np.asarray(win.physical)))
    best_key, best, why = None, None, NO_SHAPE
    for r in readings(win):
        if not lacking:
            why = NOT_LACKING_A_SUIT
            break
        why = family.refusal
        p = table(win, r, memo)
        if p is None:
            continue
        key = (sum(p.values()), tuple(name in p for name in order))
        if best_key is None or key > best_key:
            best_key, best = key, p
    if best is None:
        return None, why
    return {name: best[name] for name in order if name in best}, None
