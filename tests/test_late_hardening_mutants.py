"""Mutation round AV: the lines added or changed in mj_env/ and agents/ between 4e644ac and the round's
HEAD (``messages.integer_value`` and the checks built on it, hand.py's count and index checks, features'
``_claimed_tiles``, sb3's ``set_options``, single_agent's ``_checked_reset``, the arena's record message
and torch thread count, the plots' own Figures). Each test kills a surviving mutant named in its
docstring, and checks what docs/INTERFACES.md or the module's docstring promises."""
from __future__ import annotations

import numpy as np
import pytest
from test_audit_cli import _closed_reader

from mj_env import payments
from mj_env.rules import MAX_BASE


def test_payments_take_the_largest_base_and_scale_by_it():
    """``base`` is an integer 1-MAX_BASE, both ends included (payments' ``_checked_base``; the bound that
    mj_env.rules and the calculator keep): MAX_BASE itself scales the points as any other base.
    Kills payments.py L174 ``1 <= b <= MAX_BASE`` -> ``1 <= b < MAX_BASE`` (MAX_BASE refused)."""
    kongs = [(0, "concealed", None), (1, "exposed", 2)]
    one = payments.kong_payments("hebei", kongs, base=1)
    drawn_one = payments.settle_draw("beijing", 0, 3, base=1)["scores"]  # (烧庄 on a draw: -12, 4, 4, 4)
    assert any(one) and any(drawn_one)
    for base in (MAX_BASE, np.int64(MAX_BASE), np.array(MAX_BASE)):
        assert payments.kong_payments("hebei", kongs, base=base) == [s * MAX_BASE for s in one]
        drawn = payments.settle_draw("beijing", 0, 3, base=base)["scores"]
        assert drawn == [s * MAX_BASE for s in drawn_one]
    with pytest.raises(ValueError, match="base must be an integer"):
        payments.kong_payments("hebei", kongs, base=MAX_BASE + 1)


def test_is_win_with_thirteen_orphans_but_no_seven_pairs_refuses_seven_pairs():
    """``is_win(seven_pairs=False, thirteen_orphans=True)`` takes the standard shape and thirteen orphans,
    not seven pairs, for one hand and a small batch (``_decide_few``) as for a large one. Kills hand.py L360
    (the thirteen orphans retry of ``_decide_few``) ``_decide(..., False)`` -> ``_decide(..., True)``:
    seven pairs won there."""
    from mj_env import hand
    pairs = np.zeros(34, dtype=np.int8)
    pairs[[0, 4, 8, 9, 13, 17, 27]] = 2  # 11 55 99m 11 55 99p EE: seven pairs, no standard shape
    orphans = np.zeros(34, dtype=np.int8)
    orphans[[0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]] = 1
    orphans[33] = 2
    for n in (None, 1, 2, 3):
        c = pairs if n is None else np.stack([pairs] * n)
        assert not hand.is_win(c, 0, seven_pairs=False, thirteen_orphans=True).any()
        assert hand.is_win(c, 0, seven_pairs=True, thirteen_orphans=True).all()
        o = orphans if n is None else np.stack([orphans] * n)
        assert hand.is_win(o, 0, seven_pairs=False, thirteen_orphans=True).all()


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
def test_counts_that_the_int8_cast_keeps_are_taken_beside_a_negative_one(dtype):
    """``_int8_counts`` refuses only counts the int8 cast would change: a batch holding 127 (the cast keeps
    it) and a negative count (kept too; the counts' own checks refuse it, where they apply) is read as its
    int8 copy, as ``split_hui`` shows. Kills hand.py L564 ``c.max() > 127`` -> ``c.max() > 126`` and
    ``c.max() >= 127`` (an IndexError there, from a check that found no changed count)."""
    from mj_env import hand
    counts = np.zeros((2, 34), dtype=dtype)
    counts[0, 3], counts[1, 5] = 127, -2
    as_int8 = counts.astype(np.int8)
    got = hand._int8_counts(counts)
    assert np.array_equal(got, as_int8) and got.dtype == np.int8
    hui = np.array([3, -1])
    for got, want in zip(hand.split_hui(counts, hui), hand.split_hui(as_int8, hui)):
        assert np.array_equal(got, want)


def test_the_tables_command_line_is_quiet_when_the_reader_of_its_line_left(tmp_path):
    """``python -m mj_env.tables | true``: the command line guards its output under ``__main__`` (as every
    command line does; tests/test_audit_portability.py calls ``guard_output`` by hand, as ``__main__``
    does), so its line to a reader that left is dropped, exit 0, with no BrokenPipeError. Kills
    mj_env/tables.py L435, the ``guard_output("python -m mj_env.tables")`` call deleted."""
    rc, err = _closed_reader(["-m", "mj_env.tables"], tmp_path)
    assert rc == 0 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_the_sb3_adapter_of_one_env_resets_with_and_without_options():
    """``MahjongSB3VecEnv(1)``: SB3 keeps one options dict per env, so one env has one; ``reset`` reads the
    first (set_options compared them all) and applies it to the next reset only, as for N envs. Kills
    sb3.py L122 ``self._options[0]`` -> ``self._options[1]`` (every reset of a one-env adapter an
    IndexError)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.baselines import uniform_legal
    from mj_env.sb3 import MahjongSB3VecEnv
    venv = MahjongSB3VecEnv(1, seed=0)
    venv.set_options({"dealers": [2]})
    obs = venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [2]
    venv.step(uniform_legal(obs["action_mask"], np.random.default_rng(0)))
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [0]  # (beijing's East deals the first hand)


def test_sb3_set_options_refuses_a_list_holding_something_else_than_dicts():
    """set_options takes a dict, None or a list of dicts (one per env): a list holding a string is refused
    in those words, not by an AttributeError from comparing it. Kills sb3.py L110 ``not isinstance(...) or
    not all(isinstance(o, dict) ...)`` -> ``... and ...`` (a list passed the check whatever it held)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    venv = MahjongSB3VecEnv(4, seed=0)
    for bad in ([{}, "walls", {}, {}], ["walls"] * 4):
        with pytest.raises(ValueError, match=r"options must be a dict, None or a list of dicts .* got list"):
            venv.set_options(bad)


def test_sb3_set_options_refuses_options_that_differ_at_the_first_env_only():
    """The tables are reset together: every env's options are compared with env 0's, so a list whose first
    dict alone differs is refused, and the options set before stay. Kills sb3.py L113 ``first =
    self._options[0]`` -> ``self._options[-1]`` and ``self._options[1]`` (env 0 compared with nothing; its
    dealers then dealt)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    venv = MahjongSB3VecEnv(4, seed=0)
    with pytest.raises(ValueError, match="one options dict"):
        venv.set_options([{"dealers": [1, 2, 3, 0]}, {}, {}, {}])
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [0, 0, 0, 0]


def test_sb3_set_options_refuses_one_dict_with_a_nan_by_the_error_reset_gives():
    """FAULT FIXED: set_options refuses what the next reset would refuse "with the error that reset gives"
    (its docstring). One dict holding a NaN (dealers, a wall of floats) was refused as options that differ
    by env ("give one options dict for all envs"): SB3 lists one dict's copy per env, and NaN is not equal
    to itself. A dict is now alike itself (sb3.py ``_same_options``). This makes the mutant sb3.py L114
    ``self._options[1:]`` -> ``self._options[0:]`` equivalent (env 0 compared with itself)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    from mj_env.single_agent import MahjongSingleAgentVectorEnv
    venv = MahjongSB3VecEnv(4, seed=0)
    for bad in ({"dealers": [np.nan] * 4}, {"walls": np.full((4, 136), np.nan)}):
        with pytest.raises(ValueError) as reset_error:
            MahjongSingleAgentVectorEnv(4, seed=0).reset(options=bad)
        with pytest.raises(type(reset_error.value)) as got:
            venv.set_options(bad)
        assert str(got.value) == str(reset_error.value) and "of this reset" in str(got.value)
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [0, 0, 0, 0]
