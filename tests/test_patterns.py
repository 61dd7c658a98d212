"""mj_env.patterns: the only-wait test (捉五魁 / 捉五) and 缺一门 against plain references."""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
import ref_hand
from ref_scoring import random_beijing_input

from mj_env.calculator import InputError, parse_input
from mj_env.families import FAMILIES
from mj_env.patterns import (
    DRAGONS,
    FIVE_M,
    NO_SHAPE,
    ORPHANS,
    SEQ,
    best_patterns,
    group_tiles,
    only_wait,
    readings,
)
from mj_env.tiles import CODES, format_tiles, lacks_a_suit, parse_hand, suits_held


def plain_only_wait(win, tile: int) -> bool:
    """No kind but ``tile`` (and kinds held four times) completes the 13 - 3k tile hand."""
    natural = [0] * 34
    held = [0] * 34
    for t in win.hand:
        held[t] += 1
        if t != win.hui:
            natural[t] += 1
    for m in win.melds:
        for t in m.tiles:
            held[t] += 1
    r = win.rules
    waits = ref_hand.waits(natural, win.hand_hui, seven_pairs=r.seven_pairs, thirteen_orphans=r.thirteen_orphans,
                           extra_dragon=r.orphans_extra_dragon)
    return not any(waits[t] and held[t] < 4 for t in range(34) if t != tile)


def random_line(rng: random.Random) -> dict:
    """A random hand of 13 - 3k tiles (k honor pongs), biased to one suit, with a winning tile."""
    k = rng.choice([0, 0, 1, 2])
    counts = [0] * 34
    tiles = []
    pongs = rng.sample(range(27, 34), k)
    for t in pongs:
        counts[t] = 3
    while len(tiles) < 14 - 3 * k:
        t = rng.randrange(9) if rng.random() < 0.6 else rng.randrange(34)
        if counts[t] < 4:
            counts[t] += 1
            tiles.append(t)
    rules = rng.choice(["beijing", "hebei", "quemen", {"name": "hebei", "orphans_extra_dragon": False}])
    line = {"rules": rules, "hand": format_tiles(tiles[:-1]), "win_tile": CODES[tiles[-1]],
            "melds": [{"type": "pong", "tiles": CODES[t] * 3, "from": 2} for t in pongs]}
    if rules == "beijing":
        line["hui"] = CODES[rng.choice([FIVE_M, 5, 6, rng.randrange(34)])]
    return line


def test_only_wait_matches_a_plain_wait_check():
    rng = random.Random(11)
    waits_seen = [0, 0]
    for _ in range(600):
        win = parse_input(random_line(rng))
        for tile in (FIVE_M, win.win_tile):
            got = only_wait(win, tile)
            assert got == plain_only_wait(win, tile), (win, tile)
            waits_seen[got] += 1
    assert min(waits_seen) > 20  # both answers occur


def test_lacks_a_suit_over_counts():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 3, size=(500, 34)) * (rng.random((500, 34)) < 0.15)
    want = [len({t // 9 for t in range(27) if row[t]}) <= 2 for row in counts.tolist()]
    assert lacks_a_suit(counts).tolist() == want
    assert [bool(lacks_a_suit(tuple(row))) for row in counts.tolist()] == want
    assert lacks_a_suit(counts.astype(np.int8).reshape(5, 100, 34)).shape == (5, 100)
    assert suits_held(counts[:1]).tolist() == [[bool(counts[0, 9 * s:9 * s + 9].any()) for s in range(3)]]


@pytest.mark.parametrize("text,lacks", [("123m456p789s11z", False), ("123m456p11z", True), ("1234567z", True)])
def test_lacks_a_suit_examples(text, lacks):
    assert bool(lacks_a_suit(parse_hand(text))) is lacks


def test_reading_counts_are_the_tiles_of_its_groups():
    """``Reading.counts`` counts every tile of the reading's groups, the third tile of each sequence
    included (``group_tiles((SEQ, 3)) == (3, 4, 5)``): with no wildcard, the hand's own tiles."""
    assert group_tiles((SEQ, 3)) == (3, 4, 5)
    win = parse_input({"rules": "hebei", "hand": "123m456m11p23s", "win_tile": "4s",
                       "melds": [{"type": "chi", "tiles": "789s", "from": 3}]})
    got = list(readings(win))
    assert [r.shape for r in got] == ["standard"]
    assert got[0].counts == win.physical


def test_every_reading_keeps_the_natural_tiles_and_gives_each_wildcard_one_kind():
    """``Reading.counts`` (docs: interpreted counts of every tile, melds included): the hand's natural
    tiles and meld tiles, plus one tile of some kind for each wildcard (random beijing wins with 惠牌)."""
    rng = random.Random(5)
    seen = set()
    for _ in range(150):
        try:
            win = parse_input(random_beijing_input(rng))
        except InputError:
            continue
        held = list(win.natural)
        for m in win.melds:
            for t in m.tiles:
                held[t] += 1
        for r in readings(win):
            extra = [a - b for a, b in zip(r.counts, held)]
            assert min(extra) >= 0 and sum(extra) == win.wild, (win, r)
            seen.add((r.shape, win.wild > 0))
    assert {("standard", True), ("seven_pairs", True)} <= seen


@pytest.mark.parametrize("extra_dragon", [True, False])
def test_thirteen_orphans_readings_pair_the_wildcard_onto_a_dragon_only_under_orphans_extra_dragon(extra_dragon):
    """13 different orphans and one 惠牌: the wildcard makes the pair, of a dragon when ``orphans_extra_dragon``
    (docs/RULES.md 5), else of any of the 13 kinds; each reading counts 14 tiles."""
    win = parse_input({"rules": {"name": "beijing", "thirteen_orphans": True, "orphans_extra_dragon": extra_dragon},
                       "hand": "19m19p19s123456z5m", "win_tile": "7z", "hui": "5m"})
    got = list(readings(win))
    assert {r.shape for r in got} == {"thirteen_orphans"}
    assert all(sum(r.counts) == 14 for r in got)
    pairs = {r.counts.index(2) for r in got}
    assert pairs == set(DRAGONS if extra_dragon else ORPHANS)


def stand_in_family(order, patterns_of, **kw):
    """The hebei family with its patterns replaced (``best_patterns`` reads only the Family's fields)."""
    return dataclasses.replace(FAMILIES["hebei"], order=order, pattern_fan={n: 1 for n in order},
                               patterns_of=patterns_of, **kw)


def by_shape(win, r, memo):
    """'seq' for a reading with a sequence, 'trip' for one of triplets only: 1 fan each, a tie."""
    return {"seq": 1} if any(g == SEQ for g, _ in r.groups()) else {"trip": 1}


@pytest.mark.parametrize("order", [("trip", "seq"), ("seq", "trip")])
def test_a_tie_between_readings_goes_to_the_pattern_set_first_in_the_familys_order(order):
    """111222333m reads as three triplets or three 123m: equal fan, so the family's order decides,
    whichever reading the search meets first (Family.order, best_patterns)."""
    win = parse_input({"rules": "hebei", "hand": "111222333m444p7z", "win_tile": "7z"})
    assert {next(iter(by_shape(win, r, {}))) for r in readings(win)} == {"trip", "seq"}
    assert best_patterns(win, stand_in_family(order, by_shape)) == ({order[0]: 1}, None)


def test_a_family_that_refuses_every_reading_gives_its_refusal_and_no_shape_stays_no_shape():
    family = stand_in_family(("x",), lambda win, r, memo: None, refusal="refused by the stand-in family")
    win = parse_input({"rules": "hebei", "hand": "111222333m444p7z", "win_tile": "7z"})
    assert best_patterns(win, family) == (None, "refused by the stand-in family")
    no_win = parse_input({"rules": "hebei", "hand": "111222333m444p7z", "win_tile": "1z"})
    assert best_patterns(no_win, family) == (None, NO_SHAPE)


def test_seven_pairs_readings_put_a_spare_pair_of_wildcards_onto_a_held_kind_or_a_new_one():
    """Module docstring: spare wildcards go in pairs onto a kind already held (making four) or into
    a suit or the honors; both readings are among ``readings``."""
    win = parse_input({"rules": "beijing", "hand": "112233445566m9p", "win_tile": "9p", "hui": "9p"})
    kinds = {sum(1 for n in r.counts if n) for r in readings(win) if r.shape == "seven_pairs"}
    assert kinds == {6, 7}  # six kinds (one held four times), or seven pairs of seven kinds
