"""A newcomer following the README word by word (found by the newcomer audit)."""
from __future__ import annotations

import train


def test_the_plan_line_says_one_minute_in_the_singular():
    """``python train.py --max-minutes 1`` (the shortest budget a newcomer tries first) printed "stopping after
    the update that passes 1 minutes"."""
    args = train.Args(total_steps=512, num_envs=16, num_steps=32, bc_steps=0, final_eval_hands=0, max_minutes=1)
    assert train.plan_text(args, 1, []).endswith("stopping after the update that passes 1 minute")
    args = train.Args(total_steps=512, num_envs=16, num_steps=32, bc_steps=0, final_eval_hands=0, max_minutes=0.5)
    assert train.plan_text(args, 1, []).endswith("stopping after the update that passes 0.5 minutes")
