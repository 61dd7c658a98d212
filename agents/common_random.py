"""Common random numbers for the duplicate arena: every decision's random numbers drawn from where it
is made, not from the order the agents are called in.

In a duplicate run (``agents.arena``) each wall is dealt once per seating, and by default agent k draws
its tie-breaks and samples from one generator for all the tables of a batch: two seatings of a wall get
different numbers, so the luck of those draws stays in the interval (the rule agent against itself is
not exactly 0), and which numbers a table gets depends on the batch size. With common random numbers
the d-th decision of seat s on wall w draws from a stream keyed by (seed, w, s, d) whichever agent
sits there and whatever the batch: where the two seatings of a wall reach the same position, they get
the same numbers, so identical agents play identical hands and score exactly 0, and agents that
rarely differ differ only where their choices do.

``CommonStreams`` is the ``numpy.random.Generator`` that an agent's ``act(obs, rng)`` then gets (a
subclass, so agents that check the type take it); an engine-aware agent's ``act_tables`` (``agents.search``)
keeps its ordinary generator, as it draws for whole worlds, not rows. Its ``random(size)`` and ``gumbel(loc, scale, size)``
give each row (each table the agent acts at) the next numbers of its own stream when ``size`` is
rows-first (``size[0]`` = the rows): the tie-break and sampling draws of ``mj_env.baselines`` and
``agents.networks``. An agent that draws for some of its rows asks for them first with
``mj_env.baselines.rows_of(rng, rows)`` (``take_rows``), as the rule agent does for its own-turn and
claim rows. A row's numbers depend on its key and on how many draws it has had, nothing else. Every
other draw (another method, a size that is not rows-first, ``random`` with ``dtype=np.float32`` or ``out=``)
comes from the ordinary generator behind it, and is not common (``choice(a, size=n, p=p)`` is, as NumPy
draws it with ``self.random``); so do the generators ``spawn`` returns. ``copy.deepcopy`` and pickling keep the
streams. The numbers are SplitMix64 (Steele, Lea and Flood 2014) of the key, the row's draw count and the
element's place in the row, vectorized with NumPy's uint64 arithmetic: no loop over
tables. The tests check that they are uniform and that streams of different keys do not repeat.
"""
from __future__ import annotations

import operator

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_BELOW_ONE = np.nextafter(1.0, 0.0)


def mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer, elementwise over uint64 (wrapping arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> _S30)) * _M1
        x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


def _fold(key: np.ndarray, value) -> np.ndarray:
    """New keys from ``key`` and one more integer each (arrays, broadcast; wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        return mix(np.asarray(key, dtype=np.uint64) + (np.asarray(value, dtype=np.uint64) + np.uint64(1)) * _GOLDEN)


def decision_keys(seed: int, wall: np.ndarray, seat: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """The stream keys (n,) uint64 of the decisions (wall index, seat, the seat's decision count in the
    hand, all (n,) non-negative integers) of a run with ``seed``."""
    key = _fold(np.full(np.shape(wall), seed, dtype=np.uint64), 0x636F6D6D6F6E)  # 'common'
    for part in (wall, seat, decision):
        key = _fold(key, np.asarray(part, dtype=np.int64).astype(np.uint64))
    return key


class CommonStreams(np.random.Generator):
    """Per-row streams for one ``act`` call (``keys``, one per row); draws that are not rows-first come from
    ``fallback`` (its bit generator, whose state they advance as the fallback's own draws would)."""

    def __init__(self, keys: np.ndarray, fallback: np.random.Generator, _draws=None, _rows=None):
        super().__init__(fallback.bit_generator)
        self.keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        self.fallback = fallback
        self._draws = np.zeros(len(self.keys), dtype=np.uint64) if _draws is None else _draws  # per row, shared
        self._rows = np.arange(len(self.keys)) if _rows is None else _rows                       # into _draws

    def __reduce__(self):  # pyright: ignore[reportIncompatibleMethodOverride] (rebuilds a CommonStreams)
        # copy.copy, copy.deepcopy and pickle keep the streams and their draw counts (NumPy's Generator.__reduce__
        # would rebuild a plain Generator, whose rows-first draws are then the fallback's, silently not common)
        return (CommonStreams, (self.keys, self.fallback, self._draws, self._rows))

    def spawn(self, n_children: int) -> list[np.random.Generator]:
        """Ordinary child generators (``Generator.spawn`` of ``fallback``): what they draw is not common.
        (NumPy's own ``spawn`` builds ``type(self)(bit_generator)``, which would fail here obscurely.)"""
        return self.fallback.spawn(n_children)

    def take_rows(self, rows) -> CommonStreams:
        """The streams of ``rows`` (indices or a boolean mask of this object's rows), sharing their draw counts."""
        rows = np.asarray(rows)
        if not rows.size:  # np.flatnonzero's empty int array, but also [] or np.array([]) (float): no rows
            rows = rows.astype(np.intp)
        rows = np.arange(len(self.keys))[rows]
        return CommonStreams(self.keys[rows], self.fallback, self._draws, self._rows[rows])

    def _rows_first(self, size) -> tuple[int, ...] | None:
        """``size`` as a shape whose first entry is this object's number of rows, else None (a size the
        ordinary generator is to draw, or to refuse with its own error: a float, a negative entry)."""
        if size is None:
            return None
        try:
            shape = tuple(operator.index(n) for n in (size if np.ndim(size) else (size,)))
        except TypeError:
            return None
        if not shape or shape[0] != len(self.keys) or min(shape) < 0:
            return None
        return shape

    def _uniform(self, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform on the open interval (0, 1), 53 bits, ``shape`` rows-first: each row's next draw."""
        per_row = int(np.prod(shape[1:], dtype=np.int64))
        draw = _fold(self.keys, self._draws[self._rows])                      # (n,)
        self._draws[self._rows] += np.uint64(1)
        bits = _fold(draw[:, None], np.arange(per_row, dtype=np.uint64)[None, :])
        # (k + 0.5) / 2**53 for the 53-bit k; k = 2**53 - 1 rounds to 1.0 (ties to even), kept below 1 here
        return np.minimum(((bits >> _S11).astype(np.float64) + 0.5) * 2.0 ** -53, _BELOW_ONE).reshape(shape)

    # (NumPy's signatures, untyped: a drop-in Generator whose stubs' overloads these do not restate)
    def random(self, size=None, dtype=np.float64, out=None):  # pyright: ignore[reportIncompatibleMethodOverride]
        shape = self._rows_first(size)
        if shape is None or out is not None or np.dtype(dtype) != np.float64:
            return self.fallback.random(size, dtype=dtype, out=out)
        return self._uniform(shape)

    def gumbel(self, loc=0.0, scale=1.0, size=None):  # pyright: ignore[reportIncompatibleMethodOverride]
        shape = self._rows_first(size)
        if shape is None:
            return self.fallback.gumbel(loc, scale, size)
        # NumPy's checks, before anything is drawn: no negative scale, and loc and scale broadcast to size (without
        # them a scale of -1 flipped the draws, and a loc of more dimensions than size widened the result)
        loc, scale = np.asarray(loc, dtype=np.float64), np.asarray(scale, dtype=np.float64)
        if np.any(scale < 0):
            raise ValueError("scale < 0")
        if np.broadcast_shapes(loc.shape, scale.shape, shape) != shape:
            raise ValueError(f"loc of shape {loc.shape} and scale of shape {scale.shape} do not broadcast to size {shape}")
        return loc - scale * np.log(-np.log(self._uniform(shape)))
