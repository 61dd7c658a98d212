"""Review AQ: the refusals this session added (integers checked where ``int()`` read anything) keep taking the
integers that ``int()`` took before them: a 0-d integer array (``np.array(4)``, what indexing with ``...`` or a
reduction hands back) and a one-element integer tensor, as tile indices, record seats and actions, and a base;
``shaozhuang_line`` of a tensor of rounds. Each answers as the plain int does (what it gave at 0243e06), and the
bad values the checks were written for (a bool, a float, a string, a bool array) are still refused."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import payments, tiles
from mj_env.actions import ActionError
from mj_env.records import RecordError, hand_record
from mj_env.rules import get_rules
from mj_env.tiles import TileError

ZERO_D = [np.array(4), np.array(4, dtype=np.uint8), np.array(4, dtype=np.int16)]
NOT_INTEGERS = [True, np.True_, np.array(True), 4.0, np.float64(4.0), np.array(4.0), "4", [4]]
TILE_CALLS = {
    "code": tiles.code,
    "suit_of": tiles.suit_of,
    "hui_of_indicator": tiles.hui_of_indicator,
    "to_counts": lambda t: tiles.to_counts([t, 5]),
    "format_tiles": lambda t: tiles.format_tiles([t, 5]),
}


def same(a, b) -> bool:
    return a == b if not isinstance(a, np.ndarray) else np.array_equal(a, b) and a.dtype == b.dtype


@pytest.mark.parametrize("call", TILE_CALLS)
@pytest.mark.parametrize("index", ZERO_D, ids=str)
def test_tile_functions_take_a_0d_integer_array(call, index):
    f = TILE_CALLS[call]
    assert same(f(index), f(4))


@pytest.mark.parametrize("call", TILE_CALLS)
@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_tile_functions_still_refuse_what_is_no_integer(call, bad):
    with pytest.raises(TileError, match="must be an integer"):
        TILE_CALLS[call](bad)


def test_tile_functions_take_integer_tensors():
    torch = pytest.importorskip("torch")
    for call, f in TILE_CALLS.items():
        assert same(f(torch.tensor(4)), f(4)), call
    assert tiles.format_tiles(torch.tensor([3, 5, 34])) == tiles.format_tiles([3, 5, 34]) == "46m1f"
    assert np.array_equal(tiles.to_counts(torch.tensor([3, 5, 5])), tiles.to_counts([3, 5, 5]))
    for bad in (torch.tensor(True), torch.tensor(4.0)):
        with pytest.raises(TileError):
            tiles.code(bad)


RULES = get_rules("beijing")
WALL = (np.arange(136) % 34).tolist()


@pytest.mark.parametrize("seat", ZERO_D[:2] + [np.array(1), np.array(2, dtype=np.int8)], ids=str)
def test_hand_record_takes_0d_seats_and_actions(seat):
    s = int(seat) % 4
    given = hand_record(RULES, WALL, seat % 4 if seat.ndim == 0 else seat, [(seat % 4, seat), (np.int64(1), 5)])
    assert given == hand_record(RULES, WALL, s, [(s, int(seat)), (1, 5)])


@pytest.mark.parametrize("bad", [True, np.array(True), 1.0, np.array(1.0), "1"], ids=repr)
def test_hand_record_still_refuses_seats_that_are_no_integer(bad):
    with pytest.raises(RecordError, match="dealer must be a seat"):
        hand_record(RULES, WALL, bad, [])
    with pytest.raises(RecordError, match=r"actions\[0\]'s seat"):
        hand_record(RULES, WALL, 0, [(bad, 5)])
    if not isinstance(bad, str):  # (a string action is an action's name, written as given)
        with pytest.raises(ActionError):
            hand_record(RULES, WALL, 0, [(0, bad)])


def test_hand_record_takes_tensor_seats_and_actions():
    torch = pytest.importorskip("torch")
    t = torch.tensor
    assert hand_record(RULES, WALL, t(1), [(t(1), t(4))]) == hand_record(RULES, WALL, 1, [(1, 4)])


@pytest.mark.parametrize("base", [np.array(5), np.array(5, dtype=np.uint32)], ids=str)
def test_payments_take_a_0d_integer_base(base):
    assert payments.settle_draw("beijing", 0, 3, base=base) == payments.settle_draw("beijing", 0, 3, base=5)
    kongs = [(0, "an", None)]
    assert payments.kong_payments("beijing", kongs, base=base) == payments.kong_payments("beijing", kongs, base=5)


@pytest.mark.parametrize("bad", [True, np.array(True), 5.0, np.array(5.0), np.array(0), np.array(10**6 + 1)],
                         ids=repr)
def test_payments_still_refuse_a_base_that_is_no_integer_in_range(bad):
    with pytest.raises(ValueError, match="base must be an integer"):
        payments.settle_draw("beijing", 0, 3, base=bad)
    with pytest.raises(ValueError, match="base must be an integer"):
        payments.kong_payments("beijing", [(0, "an", None)], base=bad)


def test_shaozhuang_line_takes_a_tensor_of_rounds():
    torch = pytest.importorskip("torch")
    got = payments.shaozhuang_line(torch.arange(22))
    assert got.dtype == np.int64 and got.tolist() == payments.shaozhuang_line(np.arange(22)).tolist()
    with pytest.raises(ValueError, match="at most 21"):
        payments.shaozhuang_line(torch.arange(23))
    with pytest.raises(TypeError, match="must be integers"):
        payments.shaozhuang_line(torch.ones(3))


def _held_by(dtype: str, value: int) -> bool:
    return dtype == "float64" or np.iinfo(dtype).min <= value <= np.iinfo(dtype).max


# (value, dtype) pairs whose value the dtype holds: the others were parameters that returned at once, checking
# nothing (21 of 84)
COUNT_CASTS = [(v, d) for v in (-129, -128, -1, 4, 5, 127, 128, 255, 256, 260, 2**63, 2**64 - 1)
               for d in ("int16", "int32", "int64", "uint8", "uint16", "uint64", "float64") if _held_by(d, v)]


def test_every_count_cast_case_is_one_a_dtype_holds():
    dtypes = {"int16", "int32", "int64", "uint8", "uint16", "uint64", "float64"}
    assert len(COUNT_CASTS) == 63 and {d for _, d in COUNT_CASTS} == dtypes


@pytest.mark.parametrize("value, dtype", COUNT_CASTS)
def test_int8_counts_range_check_refuses_what_the_cast_changes(dtype, value):
    """``hand._int8_counts`` reads integer counts by their range (two reductions, not a comparison of the cast with
    the counts at 7 times the cast's cost): the same counts are taken and refused, with the same message."""
    from mj_env.hand import _int8_counts
    counts = np.zeros((3, 34), dtype=dtype)
    counts[1, 7] = value
    if -128 <= value <= 127:
        got = _int8_counts(counts)
        assert got.dtype == np.int8 and got[1, 7] == value and np.count_nonzero(got) == (value != 0)
    else:
        with pytest.raises(ValueError, match=r"counts must be whole numbers 0-4, got .* at index \(1, 7\)"):
            _int8_counts(counts)
