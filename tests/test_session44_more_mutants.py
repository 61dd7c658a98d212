"""Mutation round AT: mutants 16-25 (in sample order) of the lines changed between 0243e06 and 841f190 in
mj_env/ and agents/: those round AP (tests/test_session44_new_code_mutants.py) sampled but did not run.

Same seeds as round AP (6101-6119, one per module; 400 each, kept when on a changed line). AP sampled the code
of 4e644ac; each mutant was moved onto its line in 841f190, and where that line had since been rewritten
(integer checks through ``messages.integer_value``: 10 mutants) the same change was made to the new line.
Modules with more than 15 such mutants: hand, tiles, payments, features, records, baselines, rewards; 61 run
against tests/test_integer_widths.py, test_silent_casts.py, test_refusals_change_nothing.py, test_aliasing.py,
test_lifecycle_and_raising_callbacks.py, test_hostile_input_cost_without_torch.py,
test_hardening_keeps_valid_input.py, test_session44_new_code_mutants.py and the module's main test file:
56 killed, 5 survived. Equivalent: hand.py line 119 ``itemsize > 2`` -> ``> 3`` (no integer dtype is 3 bytes,
and 2-byte ones cannot exceed MAX_WILD); payments.py line 29 ``+ 1`` -> ``+ 2`` (85 // 4 == 86 // 4 == 21).
payments.py line 89 ``a + b`` -> ``a - b`` (烧庄 taken from the won hand's points) is killed by
tests/test_patterns_families_payments_second_mutants.py, test_scoring_beijing.py and
test_rules_exam_beijing.py (no test added: it would repeat theirs). The two gaps are closed here; each
docstring names its mutant.
"""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import records
from mj_env.records import RecordError
from mj_env.rules import get_rules


@pytest.mark.parametrize("dealer, actions", [(4, []), (np.int64(4), []), (0, [(4, 3)])])
def test_hand_record_refuses_seat_four(dealer, actions):
    """A seat is 0-3: 4, one past the last seat, is refused for the dealer and for an action's seat. Kills
    mj_env/records.py line 102, const 3 -> 4 (``0 <= seat <= 4``: seat 4 was written into the record)."""
    with pytest.raises(RecordError, match="must be a seat 0-3"):
        records.hand_record(get_rules("beijing"), np.arange(136) // 4, dealer, actions)


def test_reward_option_stepped_before_any_reset_says_so():
    """A RewardOption never reset and stepped gives the env's own refusal (step() before reset()), not the
    claim that a potential raised in an earlier call: no potential has been called. The one-table
    counterpart of tests/test_session44_new_code_mutants.py's RewardOptionVector check. Kills
    agents/rewards.py line 232, the class default ``_lost = False`` -> True."""
    gym = pytest.importorskip("gymnasium")
    import mj_env  # noqa: F401  (registers the ids)
    from agents.rewards import RewardOption

    env = RewardOption(gym.make("mj_env/Beijing-v0"))
    with pytest.raises(Exception, match=r"before .*reset\(\)") as info:
        env.step(0)
    assert "potential" not in str(info.value)
    env.reset(seed=1)
    env.close()
