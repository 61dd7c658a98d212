"""Mutation round AP over the lines this session added or changed in mj_env/ and agents/ (since 0243e06).

Each test here kills a mutant that survived the session's new test files (tests/test_integer_widths.py,
test_silent_casts.py, test_refusals_change_nothing.py, test_aliasing.py, test_lifecycle_and_raising_callbacks.py,
test_hostile_input_cost_without_torch.py) and the module's own main test file; its docstring names the mutant
(module, line, change). The tests check what the docstrings and messages promise a user.

Sampled with /tmp/mutkit (seeds 6101-6119, one per module in the order hand, tiles, payments, engine,
determinize, state, observation, features, records, baselines, single_agent, vector, sb3, aec, actions,
rewards, networks, search, arena; 400 each), kept when in a changed line, the first 15 per module: 148 in
all, 117 killed, 31 survived, 10 judged equivalent or cosmetic, 21 closed here. vector, sb3 and aec had no
mutant on a changed line (their changes are ``except Exception`` and ``copy.deepcopy`` lines).
"""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import features, hand, payments, records
from mj_env.baselines import as_bool_mask
from mj_env.records import RecordError
from mj_env.rules import get_rules
from mj_env.tiles import CODES, parse_hand


def test_split_hui_names_the_kinds_it_takes_when_hui_is_no_integer():
    """A float 惠牌 kind is a TypeError naming the kinds taken, 0-33 or -1 (none). Kills mj_env/hand.py line 552,
    const 1->2 (the message said 0-32)."""
    with pytest.raises(TypeError, match=r"kinds 0-33 or -1 \(none\)"):
        hand.split_hui(np.zeros(34, np.int8), np.float64(2.0))
    with pytest.raises(ValueError, match=r"kind 0-33 or -1 \(none\), got 34"):
        hand.split_hui(np.zeros(34, np.int8), np.int64(34))


def test_split_hui_refuses_the_first_kind_past_the_last():
    """34, one past the last kind (7z = 33), is no 惠牌 kind: a ValueError naming it, as 40 is. Kills
    mj_env/hand.py line 556, >= N_KINDS -> > N_KINDS (the bad value was looked for among kinds > 34, found none,
    and an IndexError was raised instead)."""
    counts = np.zeros((2, 34), np.int8)
    with pytest.raises(ValueError, match=r"got 34$"):
        hand.split_hui(counts, np.array([-1, 34]))


def test_split_hui_names_the_first_hui_that_is_no_kind():
    """Of several 惠牌 that are no kind the message names the first, as the other checks do. Kills
    mj_env/hand.py line 556, const 0 -> -1 (the last was named)."""
    with pytest.raises(ValueError, match=r"got 40$"):
        hand.split_hui(np.zeros((3, 34), np.int8), np.array([40, 5, -2]))


@pytest.mark.parametrize("dealer, actions", [(-1, []), (0, [(-1, 3)])])
def test_hand_record_refuses_seat_minus_one(dealer, actions):
    """A seat is 0-3: -1 (Python's last item) is refused for the dealer and for an action's seat. Kills
    mj_env/records.py line 100, const 0 -> -1 (``-1 <= value <= 3``: seat -1 was written into the record)."""
    with pytest.raises(RecordError, match="must be a seat 0-3"):
        records.hand_record(get_rules("beijing"), np.arange(136) // 4, dealer, actions)


def test_hand_record_names_the_tile_indices_it_takes():
    """A wall tile out of range is refused naming the range 0 to the last code's index (41, 8f). Kills
    mj_env/records.py line 111, const 1 -> 0 (the message said 0-42)."""
    assert len(CODES) == 42
    with pytest.raises(RecordError, match=r"wall must be tile indices 0-41, "):
        records.hand_record(get_rules("beijing"), np.full(136, 42), 0, [])


def test_reward_option_vector_stepped_before_any_reset_says_so():
    """A RewardOptionVector never reset and stepped gives the env's own refusal (step() before reset()), not the
    claim that a potential raised in an earlier call: no potential has been called. Kills agents/rewards.py
    line 290, the class default ``_lost = False`` -> True."""
    from agents.rewards import RewardOptionVector
    from mj_env.single_agent import MahjongSingleAgentVectorEnv

    env = RewardOptionVector(MahjongSingleAgentVectorEnv(num_envs=2))
    with pytest.raises(Exception, match=r"before reset\(\)") as info:
        env.step(np.zeros(2, np.int64))
    assert "potential" not in str(info.value)
    env.reset(seed=1)
    env.close()


def test_a_base_of_one_is_taken_by_the_settlements():
    """``base`` is an integer 1-MAX_BASE: 1 (every preset's own) is taken when given, and scales as any other.
    Kills mj_env/payments.py line 172, const 1 -> 2 (base 1 refused)."""
    beijing, hebei = get_rules("beijing"), get_rules("hebei")
    assert payments.settle_draw(beijing, 0, 2, base=1)["scores"] == [-6, 2, 2, 2]
    one = payments.kong_payments(hebei, [(0, "concealed", None)], base=1)
    assert payments.kong_payments(hebei, [(0, "concealed", None)], base=3) == [3 * s for s in one] and any(one)
    with pytest.raises(ValueError, match="base must be an integer 1-"):
        payments.kong_payments(hebei, [], base=0)


def test_shaozhuang_line_names_the_first_count_over_the_bound():
    """Rounds of 烧庄 over MAX_SHAOZHUANG_ROUNDS (21) are refused, naming the first such count; 21 itself is taken.
    Kills mj_env/payments.py line 45, > -> >= (21 was named)."""
    assert payments.MAX_SHAOZHUANG_ROUNDS == 21 and payments.shaozhuang_line(21) == 2 ** 20
    with pytest.raises(ValueError, match=r"at most 21, got 22$"):
        payments.shaozhuang_line(np.array([3, 21, 22, 23]))


def test_as_bool_mask_names_the_first_value_neither_0_nor_1():
    """A float mask must hold 0s and 1s; the message names the first value that is neither. Kills
    mj_env/baselines.py line 110's mutants that pick another value: const 0 -> 1 and 1 -> 2 (1.0 or 0.0 named)."""
    assert as_bool_mask(np.array([1.0, 0.0])).tolist() == [True, False]
    with pytest.raises(ValueError, match=r"0s and 1s, got 0\.5$"):
        as_bool_mask(np.array([1.0, 0.0, 0.5, 0.25]))


def test_the_arena_bar_counts_each_wall_once(capsys):
    """compare(progress=True) draws a bar of the walls played: it ends at hands/hands, never past. Kills
    agents/arena.py line 492, ``done - bar.n`` -> ``done + bar.n`` (the bar counted 8 of 4 walls)."""
    pytest.importorskip("tqdm")
    from agents.arena import compare

    compare(["random", "random"], 4, batch_walls=2, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err and "8/4" not in err and "6/4" not in err


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_improvement_takes_unseen_counts_0_to_4_in_any_dtype_and_refuses_5_and_minus_1(dtype):
    """``unseen`` other than int16 must hold whole numbers 0-4 (copies of a kind not yet seen): 4 is taken in
    int64 and float64 as in int16, 5 and -1 are refused. Kills mj_env/features.py line 175, const 4 -> 5 (5 unseen
    copies taken) and the bounds' other mutants there."""
    rules = get_rules("beijing")
    hands = parse_hand("123m456m789m1p")[None]  # 10 tiles waiting on 1p alone
    hui = np.array([-1])
    need = features.tiles_needed(rules, hands, hui)
    unseen = np.full((1, 34), 4, dtype=dtype)
    assert features.improvement(rules, hands, hui, unseen, need).tolist() == [4]
    for bad in (5, -1):
        u = unseen.copy()
        u[0, 20] = bad
        with pytest.raises(ValueError, match="unseen must hold whole numbers 0-4"):
            features.improvement(rules, hands, hui, u, need)
