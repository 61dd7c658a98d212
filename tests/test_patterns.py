"""mj_env.patterns: the only-wait test (捉五魁 / 捉五) and 缺一门 against plain references."""
from __future__ import annotations

import random

import numpy as np
import pytest
import ref_hand

from mj_env.calculator import parse_input
from mj_env.patterns import FIVE_M, only_wait
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
