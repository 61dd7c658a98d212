"""Silent casts of outside values (audit AM): a value a NumPy cast or ``int()`` would change (256 read as 0
in int8, 2.7 as 2, True as 1, uint64 2**64 - 1 as -1, a sum of huge counts wrapped) is refused with a message
naming it, before anything changes, where the call used to go on with the changed value. docs/RULES.md 7 asks
that bad input be refused naming what is wrong; tests/test_integer_widths.py holds mj_env.hand's own dtypes.
"""
from __future__ import annotations

import numpy as np
import pytest

from agents.rewards import RewardTransform
from mj_env import calculator, features, hand, records, tiles
from mj_env.baselines import uniform_legal
from mj_env.determinize import redeal, ting_waits
from mj_env.engine import Engine
from mj_env.observation import N_PLANES, observe
from mj_env.records import RecordError
from mj_env.rules import get_rules
from mj_env.tiles import TileError, parse_hand

BEIJING = get_rules("beijing")
WAITING_1P = "123m456m789m1p"  # 10 tiles (3k+1) waiting on 1p alone, for a pair


def test_ting_waits_refuses_counts_the_int8_cast_changes():
    """ting_waits cast counts to int8: 257 of 1p was read as 1 (the hand then waiting, True), -255 as 1
    and 1.7 as 1. Refused now as mj_env.hand refuses them; the plain hand is answered as before."""
    counts = parse_hand(WAITING_1P)[None]
    melds = np.zeros_like(counts)
    assert ting_waits(BEIJING, counts, melds).tolist() == [True]
    for bad in (257, -255, 1.7):
        c = counts.astype(type(bad))
        c[0, 9] = bad
        with pytest.raises(ValueError, match=f"whole numbers 0-4, got {bad!r} at index \\(0, 9\\)"):
            ting_waits(BEIJING, c, melds)


def test_hand_refuses_uint64_counts_and_counts_whose_sum_wraps():
    """The check of copies above 4 summed counts in int64: a uint64 count of 2**64 - 1 became -1 there (is_win
    answered False, standard_need 2), and four counts of 2**62 summed to 0 (waits answered no wait, is_win ran
    into a RecursionError). Refused now, the message giving the exact number of copies above 4."""
    c = parse_hand("123m456m789m11p").astype(np.uint64)
    c[33] = 2**64 - 1
    for f in (lambda: hand.is_win(c, 0), lambda: hand.standard_need(c)):
        with pytest.raises(ValueError, match="MAX_EXTRA_COPIES.*holds 18,446,744,073,709,551,611"):
            f()
    big = parse_hand("123m456m789m11p")
    big[27:31] = 2**62
    for f in (lambda: hand.is_win(big, 0), lambda: hand.waits(big, 0)):
        with pytest.raises(ValueError, match="MAX_EXTRA_COPIES.*holds 18,446,744,073,709,551,600"):
            f()


@pytest.mark.parametrize("call, bad", [
    (tiles.code, 2.7), (tiles.code, True), (tiles.code, "3"), (tiles.glyph, 4.5), (tiles.suit_of, 9.5),
    (tiles.hui_of_indicator, 2.7), (tiles.hui_of_indicator, True),
    (lambda t: tiles.format_tiles([0, t]), 2.7), (lambda t: tiles.to_counts([0, t]), True),
    (lambda t: tiles.to_counts([0, t]), 2.7),
])
def test_tile_functions_refuse_indices_that_are_not_integers(call, bad):
    """int() read 2.7 as tile 2 (3m), '3' as 4m and True as 1 (2m); to_counts([True]) added one to every kind
    (a bool index selects the whole array) and to_counts([2.7]) was an IndexError naming nothing."""
    with pytest.raises(TileError, match="must be an integer, got"):
        call(bad)


def test_tile_functions_still_take_python_and_numpy_integers():
    assert tiles.code(np.int8(4)) == "5m" and tiles.suit_of(np.int64(9)) == 1
    assert tiles.hui_of_indicator(np.uint8(8)) == 0
    assert tiles.format_tiles(np.array([27, 0, 0], dtype=np.int8)) == "11m1z"
    assert tiles.to_counts([np.int16(3), 3]).tolist()[3] == 2


@pytest.mark.parametrize("bad", [1.7, np.nan, np.uint64(2**64 - 1)])
def test_format_hand_refuses_counts_that_are_not_whole_numbers(bad):
    """format_hand cast counts to int64: 1.7 copies of 1m were written '1m'; NaN and 2**64 - 1 (read as -1)
    made np.repeat fail with a message naming nothing."""
    counts = np.zeros(34, dtype=np.asarray(bad).dtype)
    counts[0] = bad
    with pytest.raises(TileError, match="whole numbers >= 0"):
        tiles.format_hand(counts)
    counts[0] = 2
    assert tiles.format_hand(counts) == "11m"


def test_lists_of_table_numbers_and_seats_refuse_bools():
    """NumPy reads [True, 0] as the int64 [1, 0]: reset(tables=...) dealt table 1 anew for True, observe read
    it as table or seat 1 and redeal as seat 1. Refused now, before anything changes; a uint64 table number is
    named as given (the int64 cast named 2**64 - 1 as table -1)."""
    eng = Engine(BEIJING, 2)
    eng.reset(seed=1)
    hands, state = eng.state.hands.copy(), eng.rng.bit_generator.state
    with pytest.raises(ValueError, match="tables\\[0\\] is True, not a table number"):
        eng.reset(seed=2, tables=[True, 0])
    with pytest.raises(ValueError, match="table 18446744073709551615 does not exist"):
        eng.reset(tables=np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(TypeError, match="got True at position 1"):
        eng.clone([0, True])
    with pytest.raises(TypeError, match="got True at position 0"):
        redeal(eng, [True, 1], 0)
    with pytest.raises(ValueError, match="idx must be a 1-D array of integers, got True at position 0"):
        observe(BEIJING, eng.state, [True, 0])
    with pytest.raises(ValueError, match="seats must be a 1-D array of integers, got True at position 1"):
        observe(BEIJING, eng.state, [0, 1], [0, True])
    assert (eng.state.hands == hands).all() and eng.rng.bit_generator.state == state
    assert observe(BEIJING, eng.state, [1, 0], [np.int64(2), 3]).shape == (2, N_PLANES, 34)


def test_unseen_counts_and_improvement_refuse_values_their_int16_casts_change():
    """unseen_counts cast planes to int16: a river count of 65,539 was read as 3 and 2.7 as 2; improvement
    summed float unseen counts and cast the sum to int16 (two kinds of 4.7 counted 9). Refused now; the
    observation's own uint8 planes and unseen_counts' int16 are taken as before."""
    planes = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    assert features.unseen_counts(planes)[0, 0] == 4
    for bad in (65539, 2.7):
        p = planes.astype(type(bad))
        p[0, 5, 0] = bad
        with pytest.raises(ValueError, match="whole numbers 0-255"):
            features.unseen_counts(p)
    hands = parse_hand(WAITING_1P)[None]
    hui, need = np.array([-1]), features.tiles_needed(BEIJING, hands, np.array([-1]))
    unseen = np.full((1, 34), 4, dtype=np.int16)
    assert features.improvement(BEIJING, hands, hui, unseen, need).tolist() == [4]
    with pytest.raises(ValueError, match="unseen must hold whole numbers 0-4"):
        features.improvement(BEIJING, hands, hui, unseen + 0.7, need)


def test_reward_potential_refuses_planes_the_int8_cast_changes():
    """RewardTransform.potential cast the hand plane to int8: 256 of a kind was read as none (the potential of
    the hand without it) and 1.7 as 1. Refused as the agents refuse such planes."""
    shaped = RewardTransform("shaped", rules="beijing")
    planes = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    planes[0, 0] = parse_hand(WAITING_1P)
    plain = shaped.potential(planes)
    assert shaped.potential(planes.astype(np.int64)).tolist() == plain.tolist()
    for bad in (256, 1.7):
        p = planes.astype(type(bad))
        p[0, 0, 33] = bad
        with pytest.raises(ValueError, match="whole numbers 0-255"):
            shaped.potential(p)


@pytest.mark.parametrize("wall, dealer, actions, match", [
    (np.arange(136) // 4 + 0.5, 0, [], "wall must be tile indices"),
    (np.full(136, -1), 0, [], "wall must be tile indices"),
    (np.arange(136) // 4, 1.5, [], "dealer must be a seat 0-3"),
    (np.arange(136) // 4, True, [], "dealer must be a seat 0-3"),
    (np.arange(136) // 4, 0, [(0.5, 3)], "seat must be a seat 0-3"),
    (np.arange(136) // 4, 0, [(0, 3.9)], "action 3.9 is not an integer"),
])
def test_hand_record_refuses_values_int_would_change(wall, dealer, actions, match):
    """hand_record wrote int() of each value: a wall of 0.5s as 1m, a tile -1 as 8f (the last code), dealer
    1.5 as 1, True as 1, action 3.9 as 'discard 4m'. Refused now, naming the field."""
    with pytest.raises((RecordError, ValueError), match=match):
        records.hand_record(BEIJING, wall, dealer, actions)


@pytest.mark.parametrize("hui, error", [
    (40, ValueError), (-2, ValueError), (np.uint64(2**64 - 1), ValueError),
    (True, TypeError), (2.7, TypeError),
])
def test_a_hui_that_is_no_kind_is_refused(hui, error):
    """split_hui (and so hand_distance, tiles_needed, the rule agent's distances) read a 惠牌 kind of 34 or
    more, or below -1, as none: the hand's distance without wildcards was answered. True and 2.7 failed as
    NumPy indices naming nothing. Refused now; -1 (none) and the kinds 0-33 are read as before."""
    counts = parse_hand("11m22m345p678s99s5z")
    assert hand.hand_distance(BEIJING, counts, -1) == 1 and hand.hand_distance(BEIJING, counts, 0) == 0
    with pytest.raises(error, match="hui must be"):
        hand.hand_distance(BEIJING, counts, hui)
    with pytest.raises(error, match="hui must be"):
        hand.split_hui(counts[None], np.array([hui]))


@pytest.mark.parametrize("rounds, given", [
    (np.int8(21), 21), (np.array([21], dtype=np.int16), 21), (np.array([9], dtype=np.uint8), 9),
])
def test_shaozhuang_line_reads_narrow_integers_as_int64(rounds, given):
    """shaozhuang_line (exported by mj_env.calculator) computed 2 ** (R - 1) in the dtype given: 21 rounds as
    np.int8 or int16 gave a line of 0, 9 as uint8 gave 0 (2 ** 8 wrapped). Read as int64 now: the line of the
    same number of rounds given as a Python int."""
    assert np.ravel(calculator.shaozhuang_line(rounds)).tolist() == [2 ** (given - 1)]
    draw = calculator.settle_draw("beijing", 0, np.int8(21))
    assert draw["scores"] == [-3 * 2**20, 2**20, 2**20, 2**20]


@pytest.mark.parametrize("rounds", [2.5, True, np.array([2.5])])
def test_shaozhuang_line_refuses_rounds_that_are_no_integers(rounds):
    """2.5 rounds gave the line 2.83 and True the line of one round."""
    with pytest.raises(TypeError, match="rounds must be integers"):
        calculator.shaozhuang_line(rounds)


@pytest.mark.parametrize("base", [2.5, True, 10**30, 0])
def test_settle_draw_and_kong_payments_check_their_base(base):
    """settle_draw and kong_payments took any base: 2.5 gave float points, True was 1, an np.int8 base of 100
    wrapped (hebei's concealed kong: 88 and 56 for 600 and -200) and 10**30 passed the calculator's MAX_BASE.
    Checked now as the rule field base is; a NumPy integer base is read as an int."""
    kong = [(0, "concealed", None)]
    with pytest.raises(ValueError, match="base must be an integer 1-1,000,000"):
        calculator.settle_draw("beijing", 0, 1, base=base)
    with pytest.raises(ValueError, match="base must be an integer 1-1,000,000"):
        calculator.kong_payments("hebei", kong, base=base)
    for small in (np.int8(100), np.int64(100)):
        assert calculator.kong_payments("hebei", kong, base=small) == [600, -200, -200, -200]
    assert calculator.settle_draw("beijing", 0, 1, base=np.int64(7))["scores"] == [-21, 7, 7, 7]


@pytest.mark.parametrize("odd", [np.nan, 0.5])
def test_uniform_legal_refuses_a_float_mask_that_is_not_0_or_1(odd):
    """uniform_legal (agents.base.as_bool_mask) read a float mask with ``!= 0``: a NaN or 0.5 entry was a
    legal action, drawn as often as a real one. A ValueError now; 0.0 / 1.0 floats and int8 masks are read as
    before."""
    mask = np.zeros((1, 127))
    mask[0, 5] = 1
    rng = np.random.default_rng(0)
    assert uniform_legal(mask, rng).tolist() == [5]
    assert uniform_legal(mask.astype(np.int8), rng).tolist() == [5]
    mask[0, 7] = odd
    with pytest.raises(ValueError, match="must hold bools or 0s and 1s"):
        uniform_legal(mask, rng)
