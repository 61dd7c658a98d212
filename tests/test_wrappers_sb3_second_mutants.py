"""Second mutation-test round on mj_env/wrappers.py and mj_env/sb3.py (seed 4701, 150 mutants): each test pins a
documented behaviour that a one-token change of the code left unnoticed by every other test; its docstring names
the mutant by line (of the modules as they were at this round) and change."""
from __future__ import annotations

import gymnasium as gym
import pytest

import mj_env
from mj_env.wrappers import FlatObservations

# ------------------------------------------------------------------------------------------ wrappers


@pytest.mark.parametrize("space", [gym.spaces.Box(0, 1, (3,)), gym.spaces.Dict({"obs": gym.spaces.Box(0, 1, (3,))})],
                         ids=["Box", "Dict-without-observation"])
def test_flat_observations_refuse_an_aec_env_whose_spaces_are_not_mj_envs_dict(space):
    """``FlatObservations`` over an AEC env whose observation space is no Dict, or a Dict without "observation", is
    its TypeError saying what it needs (line 55: mutants forcing the check False, turning its ``and`` into ``or`` or
    dropping its Dict half, and line 56's removed raise, went unnoticed: Gymnasium's own TypeError, a KeyError or an
    AttributeError followed)."""
    env = mj_env.env()
    env.observation_space = lambda agent: space
    with pytest.raises(TypeError, match="the flat observations need a Dict space with an 'observation' space"):
        FlatObservations(env)


@pytest.mark.parametrize("bad", [None, object()], ids=["None", "object"])
def test_flat_observations_point_to_the_gym_wrapper_only_for_a_gymnasium_env(bad):
    """The hint "use FlatObservationsGym" is for a Gymnasium env given to ``FlatObservations``; an object that is no
    env at all gets the plain TypeError (line 113: a mutant dropping the ``isinstance(env, gym.Env)`` half went
    unnoticed, and pointed every wrong object to the Gymnasium wrapper)."""
    with pytest.raises(TypeError, match="FlatObservations wraps a PettingZoo AEC env of mj_env") as e:
        FlatObservations(bad)
    assert "FlatObservationsGym" not in str(e.value)

# ------------------------------------------------------------------------------------------ sb3


def test_sb3_module_without_stable_baselines3_says_how_to_install_it(monkeypatch):
    """``mj_env.sb3`` imported where Stable-Baselines3 is missing is an ImportError naming the extra to install
    (line 60: a mutant removing that raise went unnoticed: a NameError on ``VecEnv`` followed)."""
    import importlib
    import sys

    pytest.importorskip("stable_baselines3")
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.vec_env.base_vec_env", None)  # what import then refuses
    monkeypatch.delitem(sys.modules, "mj_env.sb3", raising=False)
    with pytest.raises(ImportError, match=r"mj_env\.sb3 needs stable-baselines3: pip install 'mj-env\[sb3\]'"):
        importlib.import_module("mj_env.sb3")


def test_sb3_options_with_a_ragged_value_reach_the_env_whose_error_names_the_wall():
    """``set_options(d)`` gives every env the same dict; a value NumPy cannot compare (ragged walls) is alike when it
    is the same object, so the check goes on to the env's, whose WallError names the short wall (line 71: a mutant
    removing that return went unnoticed: every such dict was refused as "give one options dict for all envs").
    set_options runs that check (tests/test_hardening_leftovers.py)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    from mj_env.tiles import full_set

    venv = MahjongSB3VecEnv(2, seed=0)
    wall = [int(t) for t in full_set(136)]
    with pytest.raises(ValueError, match="wall of table 1 of this reset: the beijing wall has 136 tiles, got 135"):
        venv.set_options({"walls": [wall, wall[:-1]]})


def test_sb3_env_indices_refuse_bytes_though_they_iterate_as_ints():
    """Bytes iterate as ints, but ``b"\\x00\\x01"`` is no list of tables: refused as a string is (line 160: a mutant
    dropping the str/bytes exclusion went unnoticed: a str's characters are refused anyway, but bytes were read as
    tables 0 and 1)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2, seed=0)
    for bad in (b"\x00\x01", "01"):
        with pytest.raises(TypeError, match="env indices must be an int or a sequence of ints"):
            venv.get_attr("num_envs", indices=bad)


def test_sb3_env_indices_refuse_a_negative_index_by_its_range():
    """Env indices run 0 to N-1: -1 is refused with the IndexError naming the range, not read from the end as a
    list would (line 164: a mutant with ``-1 <= i`` went unnoticed: only N and above were tried)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2, seed=0)
    venv.reset()
    for call in (lambda: venv.get_attr("num_envs", indices=-1),
                 lambda: venv.env_method("action_masks", indices=[0, -1])):
        with pytest.raises(IndexError, match=r"env indices \[-1\] out of range 0-1"):
            call()


def test_sb3_render_with_the_envs_own_mode_renders_without_a_warning():
    """``render(mode)`` warns and gives nothing only for a mode other than the env's; ``render("ansi")`` of an env made
    with ``render_mode="ansi"`` is its text, as ``render()`` (line 227: a mutant warning at every named mode went
    unnoticed: only ``render()`` and another mode were tried)."""
    import warnings

    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2, seed=0, render_mode="ansi")
    venv.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = venv.render("ansi")
    assert isinstance(text, str) and text and text == venv.render()


def test_sb3_render_of_another_mode_warns_at_the_callers_line():
    """The warning of ``render(mode)`` for a mode other than the env's points at the line that called ``render``, as
    the package's warnings do (tests/test_warning_lines.py) (line 229: mutants with ``stacklevel`` 1 or 3 went
    unnoticed: the warning was matched by its text only)."""
    import linecache

    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2, seed=0, render_mode="ansi")
    venv.reset()
    with pytest.warns(UserWarning, match="render mode 'human': this env was made with render_mode='ansi'") as rec:
        assert venv.render("human") is None
    assert [(w.filename, w.lineno) for w in rec] == [(__file__, rec[0].lineno)]
    assert linecache.getline(__file__, rec[0].lineno).strip().startswith('assert venv.render("human")')
