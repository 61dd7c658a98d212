"""Small fixes of the thirty-third session."""
from __future__ import annotations

import pytest

import mj_env


@pytest.mark.parametrize("value", ["SameStep", "NEXT_STEP"])
def test_the_aec_env_refuses_autoreset_mode_by_name(value):
    """An argument of the other environments is refused by name, saying what to do, not as an unknown rule field."""
    with pytest.raises(ValueError, match="autoreset_mode.*no autoreset.*env.reset"):
        mj_env.env(autoreset_mode=value)




def test_the_arena_run_by_runpy_under_a_main_of_no_file_plays(monkeypatch):
    """``runpy.run_module("agents.arena", run_name="__main__")`` where the process's ``__main__`` has no file (as
    under pytest-xdist): the arena's rules-mismatch check named ``sys.modules[__name__]``, that ``__main__``, as
    its library, and crashed placing the warning before any was due."""
    import runpy
    import sys
    import types

    from mj_env import lines

    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    monkeypatch.setattr(lines, "guard_output", lambda prog: None)  # (it would wrap pytest's sys.stdout)
    monkeypatch.setattr(sys, "argv", ["arena", "--agents", "rule,random", "--hands", "1", "--quiet"])
    with pytest.raises(SystemExit) as e:
        runpy.run_module("agents.arena", run_name="__main__")
    assert e.value.code == 0
