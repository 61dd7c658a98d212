"""Small fixes of the thirty-third session."""
from __future__ import annotations

import pytest

import mj_env


@pytest.mark.parametrize("value", ["SameStep", "NEXT_STEP"])
def test_the_aec_env_refuses_autoreset_mode_by_name(value):
    """An argument of the other environments is refused by name, saying what to do, not as an unknown rule field."""
    with pytest.raises(ValueError, match="autoreset_mode.*no autoreset.*env.reset"):
        mj_env.env(autoreset_mode=value)




