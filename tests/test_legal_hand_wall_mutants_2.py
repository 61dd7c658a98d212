"""Second mutation round on mj_env/hand.py, mj_env/legal.py and mj_env/wall.py: each test below fails under a
small wrong change to one of those modules that the rest of the suite let through, and states the rule
(docs/RULES.md, or the documented contract of the function) that the change breaks."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import hand
from mj_env.tiles import parse_hand

# --------------------------------------------------------------------------- hand.py


def _hands(*texts: str, dtype) -> np.ndarray:
    return np.array([parse_hand(t) for t in texts], dtype=dtype)


def test_count_checks_read_values_not_bytes_for_every_integer_dtype():
    """hand.py takes counts of any integer dtype (module docstring), and a count outside 0-4 is refused by
    tiles_to_win with an error that says so (docs/RULES.md 7). The one-pass range check reads int8 counts
    through an unsigned byte view; that shortcut is right for int8 only: a wider count read byte by byte
    looks in range (256 is bytes 0 and 1), and a batch whose kind axis is not contiguous (a Fortran-ordered
    or transposed array) cannot be viewed as bytes at all."""
    texts = ("123m456p789s11z22z", "1112345678999m", "19m19p19s1234567z", "1133557799m1p2z3z")
    c_int8 = _hands(*texts, dtype=np.int8)
    for dtype in (np.int16, np.int32, np.int64, np.uint16):
        strided = np.asfortranarray(c_int8.astype(dtype))          # kind axis not contiguous
        assert not strided.flags.c_contiguous
        assert hand.is_win(strided, 0).tolist() == hand.is_win(c_int8, 0).tolist(), dtype
        assert hand.standard_need(strided).tolist() == hand.standard_need(c_int8).tolist(), dtype
        ready = strided.copy(order="F")
        ready[:, 0] = np.maximum(ready[:, 0] - 1, 0)
        assert (hand.waits(ready, 0) == hand.waits(np.ascontiguousarray(ready).astype(np.int8), 0)).all(), dtype
    big = parse_hand("123m456p789s1122z").astype(np.int16)
    big[33] = 256                                                 # bytes 0, 1: in range byte by byte
    with pytest.raises(ValueError, match="0-4"):
        hand.tiles_to_win(big, 0)


def test_a_negative_count_is_refused_in_every_integer_dtype():
    """docs/RULES.md 7: bad input is refused with an error that names what is wrong. A negative count of a
    kind is such input, in an int8 hand and in a wider one (hand.py takes any integer dtype): is_win,
    standard_need, waits and tiles_to_win each raise ValueError rather than read a table key that belongs
    to some other hand."""
    for dtype in (np.int8, np.int16, np.int64):
        counts = parse_hand("123m456p789s1122z").astype(dtype)
        counts[0] = -1
        for fn in (lambda c: hand.is_win(c, 1), hand.standard_need, lambda c: hand.waits(c, 1),
                   lambda c: hand.tiles_to_win(c, 1)):
            with pytest.raises(ValueError):
                fn(counts)
