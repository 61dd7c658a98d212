"""Mutation-test round 2 on mj_env/single_agent.py and mj_env/sb3.py: tests that kill mutants the suite let live."""
from __future__ import annotations

import pytest

pytest.importorskip("stable_baselines3")

from mj_env.sb3 import MahjongSB3VecEnv


@pytest.mark.parametrize("options", [[{}, {"dealers": [1, 2, 3, 0]}], [{"dealers": [1, 2, 3, 0]}, {}]])
def test_sb3_options_dicts_with_different_keys_are_refused_whichever_env_has_the_extra_key(options):
    """_same_options compares the keys first: a dict with a key the first lacks (or lacks one it has) is another
    options dict, refused with the ValueError, not a KeyError, and not passed as alike (mutant: 'return False' for
    differing keys deleted)."""
    venv = MahjongSB3VecEnv(2, seed=0)
    venv.set_options(options)
    with pytest.raises(ValueError, match="one options dict"):
        venv.reset()
    venv.close()
