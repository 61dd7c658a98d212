"""Tiles: the 34-kind index, tile codes and the compact hand notation (docs/RULES.md 1).

Index layout (the common 34-array convention)::

    index  0-8   1m-9m   万 characters
    index  9-17  1p-9p   筒 dots
    index 18-26  1s-9s   条 bamboo
    index 27-30  1z-4z   东 南 西 北 winds
    index 31-33  5z-7z   白 发 中 dragons
    index 34-41  1f-8f   春夏秋冬梅兰竹菊 flowers (``quemen`` only, one copy each)

A hand is a count array of length 34 (flowers are never part of a hand). A wall is a
sequence of tile indices (0-41).
"""
from __future__ import annotations

from typing import cast

import numpy as np

from .messages import brief, integer_value

N_KINDS = 34
"""Number of tile kinds that can be held in a hand."""
N_SUITS = 3
"""The suits m, p, s; kinds are laid out suit by suit."""
SUIT_SIZE = 9
"""Kinds in a suit (1-9): a suited kind t is of suit ``t // SUIT_SIZE``, rank ``t % SUIT_SIZE`` (0-8)."""
N_SUITED = N_SUITS * SUIT_SIZE
"""27 suited kinds (0-26); the honors are the kinds N_SUITED-33."""
N_HONORS = N_KINDS - N_SUITED
"""7 honors: 4 winds, 3 dragons."""
N_FLOWERS = 8
"""Flower tiles (``quemen``), indices 34-41, one copy each."""
FIRST_FLOWER = 34
COPIES = 4

SUIT_OF = np.minimum(np.arange(N_KINDS) // SUIT_SIZE, N_SUITS)
"""SUIT_OF[t]: 0, 1, 2 for a kind of m, p, s; 3 (= N_SUITS) for an honor. (34,) int64, read-only."""
SUIT_OF.flags.writeable = False  # every engine and agent reads it: a write is refused, never shared

_SUIT_OFFSET = {"m": 0, "p": SUIT_SIZE, "s": 2 * SUIT_SIZE, "z": N_SUITED, "f": FIRST_FLOWER}
_LETTER_KINDS = {"m": SUIT_SIZE, "p": SUIT_SIZE, "s": SUIT_SIZE, "z": N_HONORS, "f": N_FLOWERS}

CODES: tuple[str, ...] = tuple(
    f"{n}{suit}" for suit in "mpszf" for n in range(1, _LETTER_KINDS[suit] + 1)
)
"""CODES[i] is the code of tile index i (0-41)."""
_INDEX = {c: i for i, c in enumerate(CODES)}

# Unicode mahjong tiles, for rendering.
_GLYPH_START = {"m": 0x1F007, "p": 0x1F019, "s": 0x1F010}
_HONOR_GLYPHS = "\U0001F000\U0001F001\U0001F002\U0001F003\U0001F006\U0001F005\U0001F004"
_FLOWER_GLYPHS = "\U0001F026\U0001F027\U0001F028\U0001F029\U0001F022\U0001F023\U0001F025\U0001F024"
NAMES_ZH = (
    [f"{n}万" for n in "一二三四五六七八九"]
    + [f"{n}筒" for n in "一二三四五六七八九"]
    + [f"{n}条" for n in "一二三四五六七八九"]
    + list("东南西北白发中")
    + list("春夏秋冬梅兰竹菊")
)


class TileError(ValueError):
    """A tile code, a hand string or a tile count is malformed."""


def _tile_int(index, what: str = "tile index") -> int:
    """``index`` as an int when it is an integer (a Python or NumPy one, a 0-d integer array or tensor:
    ``messages.integer_value``), else a TileError naming it: ``int()`` read 2.7 as 2, the string '3' as 3
    and True as 1, each then a tile of its own."""
    i = integer_value(index)
    if i is None:
        raise TileError(f"{what} must be an integer, got {brief(index)} ({type(index).__name__})")
    return i


def code(index: int) -> str:
    """The code of a tile index, e.g. ``code(4) == '5m'``; an index that is no integer is a TileError."""
    i = index if type(index) is int else _tile_int(index)
    if not 0 <= i < len(CODES):
        raise TileError(f"tile index {brief(index)} is out of range 0-{len(CODES) - 1}")
    return CODES[i]


def index(tile_code: str) -> int:
    """The index of a single tile code, e.g. ``index('5m') == 4``."""
    try:
        return _INDEX[tile_code]
    except (KeyError, TypeError):
        raise TileError(f"unknown tile code {tile_code!r}") from None


def glyph(index: int) -> str:
    """The Unicode mahjong character of a tile index."""
    c = code(index)
    n, suit = int(c[0]), c[1]
    if suit in _GLYPH_START:
        return chr(_GLYPH_START[suit] + n - 1)
    if suit == "z":
        return _HONOR_GLYPHS[n - 1]
    return _FLOWER_GLYPHS[n - 1]


def parse_tiles(text: str, *, allow_flowers: bool = False) -> list[int]:
    """Parse compact notation into tile indices, in the order written.

    ``parse_tiles('123m11z') == [0, 1, 2, 27, 27]``. Raises TileError naming the bad
    character and its position.
    """
    if not isinstance(text, str):
        raise TileError(f"tiles must be a string in compact notation, got {type(text).__name__}")
    out: list[int] = []
    digits: list[tuple[int, str]] = []
    for pos, ch in enumerate(text):
        if "0" <= ch <= "9":  # ASCII digits only (str.isdigit also takes '٣' and '²')
            digits.append((pos, ch))
            continue
        if ch in _SUIT_OFFSET:
            if not digits:
                raise TileError(f"suit letter {ch!r} at position {pos} of {text!r} has no digits before it")
            for dpos, d in digits:  # the range first: 9f is no tile at all, not a flower
                if not 1 <= int(d) <= _LETTER_KINDS[ch]:
                    raise TileError(f"no tile {d}{ch} (digit at position {dpos} of {text!r})")
            if ch == "f" and not allow_flowers:
                raise TileError(f"flower tiles ({digits[0][1]}f at position {digits[0][0]} of {text!r}) "
                                "are not allowed here")
            out.extend(_SUIT_OFFSET[ch] + int(d) - 1 for _, d in digits)
            digits = []
            continue
        raise TileError(f"unexpected character {ch!r} at position {pos} of {text!r}")
    if digits:
        pos, d = digits[0]
        raise TileError(f"digit {d!r} at position {pos} of {text!r} has no suit letter after it "
                        "(m, p, s or z)")
    return out


def to_counts(tiles, *, max_copies: int = COPIES, what: str = "hand") -> np.ndarray:
    """Count array (34,) int64 of a list of tile indices; rejects flowers and >4 copies."""
    counts = np.zeros(N_KINDS, dtype=np.int64)
    for t in tiles:
        if type(t) is not int:  # (True indexed every kind at once, and 2.7 was an IndexError naming nothing)
            t = _tile_int(t, f"a tile of a {what}")
        if not 0 <= t < N_KINDS:
            raise TileError(f"{code(t)} cannot be part of a {what}")
        counts[t] += 1
    over = np.flatnonzero(counts > max_copies)
    if over.size:
        t = int(over[0])
        raise TileError(f"{what} holds {counts[t]} copies of {CODES[t]}; there are only {max_copies}")
    return counts


def parse_hand(text: str) -> np.ndarray:
    """Parse a hand in compact notation into a count array (34,) int64.

    Raises TileError naming the bad character, or the tile with more than four copies.
    """
    return to_counts(parse_tiles(text))


def format_tiles(tiles) -> str:
    """Compact notation of tile indices, grouped by suit in the order m, p, s, z, f."""
    groups: dict[str, list[str]] = {s: [] for s in "mpszf"}
    if isinstance(tiles, np.ndarray) and tiles.dtype.kind in "iu":
        indices = tiles.tolist()  # Python ints at once (format_hand's case)
    else:
        indices = [_tile_int(x) for x in tiles]  # (int(2.7) was 2, a 3m)
    for t in sorted(indices):
        c = code(t)
        groups[c[1]].append(c[0])
    return "".join("".join(ds) + s for s, ds in groups.items() if ds)


def format_hand(counts) -> str:
    """Compact notation of a count array (34,): whole numbers >= 0, else a TileError (1.7 was written 1). One
    hand only: another shape is a TileError naming it (an np.matrix, always 2-D, or a (1, 34) batch failed in
    NumPy's "object too deep for desired array", a 0-d array in "len() of unsized object")."""
    counts = np.asarray(counts)
    if counts.ndim != 1:
        raise TileError(f"tile counts must be one hand, shape ({N_KINDS},), got shape {counts.shape}")
    if counts.dtype.kind in "iu" and counts.dtype != np.uint64:  # the engine's int8, int64: as they are
        whole, ok = counts.astype(np.int64), True  # (a negative count: np.repeat's ValueError, as before)
    else:
        with np.errstate(invalid="ignore"):  # (NaN and inf: refused below)
            whole = counts.astype(np.int64) if counts.dtype.kind in "buf" else None
        ok = whole is not None and bool(((whole == counts) & (whole >= 0)).all())  # (uint64 2**63+: < 0)
    if not ok or whole is None:
        raise TileError(f"tile counts must be whole numbers >= 0, got {brief(counts.tolist())}")
    return format_tiles(np.repeat(np.arange(len(counts)), whole))


def suit_of(index: int) -> int:
    """0, 1, 2 for m, p, s; 3 for honors; 4 for flowers."""
    index = _tile_int(index)  # (int(9.5) was 9, a 1p)
    return min(index // SUIT_SIZE, N_SUITS) if index < FIRST_FLOWER else N_SUITS + 1


def hui_of_indicator(indicator: int) -> int:
    """The 惠牌 (wildcard) kind named by the indicator 惠坯 (docs/RULES.md 3).

    Suits n -> n+1 and 9 -> 1; winds E -> S -> W -> N -> E; dragons 中 -> 发 -> 白 -> 中.
    """
    i = _tile_int(indicator, "the indicator")  # (int(2.7) was 2: a 3m indicator)
    if not 0 <= i < N_KINDS:
        raise TileError(f"{code(i)} cannot be an indicator")
    return int(HUI_OF_INDICATOR[i])


def _hui_table() -> np.ndarray:
    t = np.zeros(N_KINDS, dtype=np.int64)
    for s in range(N_SUITS):
        for n in range(SUIT_SIZE):
            t[SUIT_SIZE * s + n] = SUIT_SIZE * s + (n + 1) % SUIT_SIZE
    for n in range(4):  # winds
        t[N_SUITED + n] = N_SUITED + (n + 1) % 4
    t[33], t[32], t[31] = 32, 31, 33  # 中 -> 发 -> 白 -> 中
    return t


HUI_OF_INDICATOR = _hui_table()
"""HUI_OF_INDICATOR[indicator] is the 惠牌 kind; an array for batched look-up (read-only)."""
HUI_OF_INDICATOR.flags.writeable = False  # every deal reads it: a write is refused, never shared


def full_set(n_tiles: int = 136) -> np.ndarray:
    """All tiles of a set, as indices: 4 of each of the 34 kinds, plus 8 flowers for 144."""
    tiles = np.repeat(np.arange(N_KINDS), COPIES)
    if n_tiles == 144:
        tiles = np.concatenate([tiles, np.arange(FIRST_FLOWER, FIRST_FLOWER + N_FLOWERS)])
    elif n_tiles != 136:
        raise TileError(f"a set has 136 or 144 tiles, not {n_tiles}")
    return tiles


def suits_held(counts) -> np.ndarray:
    """Which of the three suits some tiles hold: counts (..., 34) -> (..., 3) bool."""
    c = np.asarray(counts)
    # (an array: the reshape has two dimensions at least; NumPy's stubs allow a scalar for any axis)
    return cast(np.ndarray, c[..., :N_SUITED].reshape(c.shape[:-1] + (N_SUITS, SUIT_SIZE)).any(axis=-1))


def lacks_a_suit(counts) -> np.ndarray:
    """缺一门: the tiles hold at most two of the three suits (honors do not count).
    counts (..., 34), any integer dtype, melds included by the caller -> (...) bool. The one
    缺一门 test: legal moves and 报听 waits (``legal``) and scoring (``patterns.best_patterns``, for any family
    under ``rules.lack_suit``) use it."""
    return suits_held(counts).sum(axis=-1) < N_SUITS
