"""mj_env.vector and mj_env.sb3 constructors, render and close held where a mutation test found no test (round 4)."""
from __future__ import annotations

import pytest

from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("bad", [[1], {}, {"NEXT_STEP"}])
def test_an_unhashable_autoreset_mode_is_refused_by_name(bad):
    """An autoreset_mode that is no mode and cannot be hashed (a list, a dict) gets the same clear ValueError
    as any other bad mode, not Python's "unhashable type" from looking it up by member name (from a mutation
    test: the member-name lookup tried for a non-string went unnoticed)."""
    with pytest.raises(ValueError, match="autoreset_mode must be AutoresetMode.NEXT_STEP or SAME_STEP"):
        MahjongVectorEnv(2, autoreset_mode=bad)


def test_the_default_table_count_is_64():
    """``MahjongVectorEnv()`` steps 64 tables, the signature's and the README's default (``num_envs=64``)."""
    env = MahjongVectorEnv()
    assert env.num_envs == 64
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].shape[0] == 64
