"""Build explicit walls for scripted tests (both engines' tests use it).

    wall = build_wall("beijing", hands={0: "123m456m789m1234z5z", 1: "..."},
                      draws="6s7z", indicator="9p", tail="1z2z", dealer=0)

- ``hands``: {seat: compact tiles}. The dealer's tiles go to wall[0:13] and, for a 14th,
  wall[52] (the last one written is the dealer's turn tile); seat dealer+k gets wall[13k:13k+13].
  Fewer tiles than a hand holds leave the rest to the filler.
- ``draws``: the live draws in order, from wall[53] on.
- ``indicator``: the 惠坯 at wall[-1] (rules with hui only; None lets the filler choose).
- ``tail``: replacement tiles in the order they are taken: with hui (beijing) wall[-2], wall[-3],
  ... (the reserve); otherwise wall[-1], wall[-2], ...
- Every other slot is filled with the tiles left over, shuffled by ``seed``. Flowers (quemen)
  that were not placed go to the middle of the undrawn part of the wall, so that they do not
  disturb scripted hands, draws and tail.

Flowers are written ``1f``-``8f``. A tile asked for more often than the set holds raises
ValueError naming it.
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np

from mj_env.rules import get_rules
from mj_env.tiles import FIRST_FLOWER, code, full_set, parse_tiles


def build_wall(rules="beijing", hands=None, draws: str = "", indicator=None, tail: str = "",
               dealer: int = 0, seed: int = 0) -> list[int]:
    """A full wall (list of tile indices, length rules.n_tiles) laid out as asked."""
    rules = get_rules(rules) if isinstance(rules, str) else rules
    n = rules.n_tiles
    wall = [None] * n
    pool = Counter(int(t) for t in full_set(n))

    def place(pos: int, tile: int, what: str):
        if wall[pos] is not None:
            raise ValueError(f"{what}: wall[{pos}] is already taken by {code(wall[pos])}")
        if pool[tile] == 0:
            raise ValueError(f"{what}: no {code(tile)} left; the set holds {Counter(int(t) for t in full_set(n))[tile]}")
        pool[tile] -= 1
        wall[pos] = tile

    for seat, text in (hands or {}).items():
        k = (seat - dealer) % 4
        slots = list(range(13 * k, 13 * k + 13)) + ([52] if k == 0 else [])
        tiles = parse_tiles(text, allow_flowers=True)
        if len(tiles) > len(slots):
            raise ValueError(f"seat {seat} is dealt {len(slots)} tiles, not {len(tiles)} ({text!r})")
        for pos, t in zip(slots, tiles):
            place(pos, t, f"hand of seat {seat}")
    if indicator is not None:
        if rules.wall_layout != "indicator":
            raise ValueError(f"rules {rules.name!r} have no indicator")
        place(n - 1, parse_tiles(indicator)[0], "indicator")
    first_tail = n - 2 if rules.wall_layout == "indicator" else n - 1
    tail_tiles = parse_tiles(tail, allow_flowers=True)
    for i, t in enumerate(tail_tiles):
        place(first_tail - i, t, "tail")
    live_end = first_tail - len(tail_tiles) + 1  # live draws must stay below the scripted tail
    if rules.wall_layout == "indicator":
        live_end = min(live_end, n - 1 - rules.reserve)
    draw_tiles = parse_tiles(draws, allow_flowers=True)
    if 53 + len(draw_tiles) > live_end:
        raise ValueError(f"{len(draw_tiles)} draws do not fit in the live wall (wall[53:{live_end}])")
    for i, t in enumerate(draw_tiles):
        place(53 + i, t, "draws")

    rest = [t for t, c in sorted(pool.items()) for _ in range(c)]
    random.Random(seed).shuffle(rest)
    flowers = [t for t in rest if t >= FIRST_FLOWER]
    others = [t for t in rest if t < FIRST_FLOWER]
    free = [i for i in range(n) if wall[i] is None]
    if flowers:
        middle = (53 + first_tail) / 2
        by_middle = sorted((i for i in free if i >= 53), key=lambda i: (abs(i - middle), i))
        if len(by_middle) < len(flowers):
            raise ValueError("no room left in the undrawn wall for the flowers")
        for pos, t in zip(by_middle, flowers):
            wall[pos] = t
        free = [i for i in free if wall[i] is None]
    for pos, t in zip(free, others):
        wall[pos] = t
    assert None not in wall
    return wall


def four_hui_wall(dealer=0, **kw) -> list[int]:
    """A beijing wall whose dealer is dealt all four 惠牌 (indicator 1m: 惠牌 2m), so the hand ends at the deal."""
    return build_wall("beijing", hands={dealer: "2222m"}, indicator="1m", dealer=dealer, **kw)


def tian_hu_wall() -> list[int]:
    """A beijing wall (indicator 8s) that deals East 123m456m789p11s234s: 天和 at the deal, 11 fan."""
    return build_wall("beijing", hands={0: "123m456m789p11s234s"}, indicator="8s", seed=1)


def four_hui_9s_wall() -> list[int]:
    """A beijing wall (indicator 8s: 惠牌 9s) that deals East 9s9s9s9s123m456m78p: 四惠牌 at the deal, 9 fan (with
    ``tian_hu_wall`` first, a match whose second hand ends at its deal)."""
    return build_wall("beijing", hands={0: "9s9s9s9s123m456m78p"}, indicator="8s", seed=1)


def deals_first(shuffled_walls, wall, times: int):
    """A stand-in for ``shuffled_walls`` (monkeypatched into ``mj_env.engine``, which deals a match's next hands and
    autoresets with it) that gives ``wall`` for the next ``times`` walls asked, then shuffles as before."""
    wall = np.asarray(wall, dtype=np.int8)
    left = [times]

    def shuffled(rules, rng, n):
        out = shuffled_walls(rules, rng, n)
        k = min(left[0], n)
        out[:k] = wall
        left[0] -= k
        return out
    return shuffled


def swap_in(wall, swaps) -> list[int]:
    """A copy of ``wall`` with, for each ``(position, tile)`` of ``swaps`` (compact tiles, flowers ``1f``-``8f``),
    a copy of the tile from the live wall before that position (from wall[53]) moved there: a tile at a place
    `build_wall` has no keyword for (the last live tile, a kept stack), its shuffled filler elsewhere."""
    wall = list(wall)
    for pos, text in swaps:
        (t,) = parse_tiles(text, allow_flowers=True)
        free = next(i for i in range(53, pos) if wall[i] == t)
        wall[free], wall[pos] = wall[pos], wall[free]
    return wall
