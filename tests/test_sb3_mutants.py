"""mj_env.sb3.MahjongSB3VecEnv held to SB3's VecEnv contract where the second mutation-test round on the environment
layers (mj_env/single_agent.py and mj_env/sb3.py; the other rounds are in tests/test_env_layers_mutants.py) found no
test: tests that kill mutants the suite let live."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from mj_env.sb3 import MahjongSB3VecEnv


def test_seed_none_picks_a_seed_as_sb3s_vecenv_does():
    """SB3's ``VecEnv.seed(None)`` draws a seed and lists ``seed + i`` for env i; the next reset still deals
    (from a mutation test: checking and converting the seed when it is None, ``int(None)``, went unnoticed)."""
    venv = MahjongSB3VecEnv(3, seed=0)
    seeds = venv.seed()
    assert len(seeds) == 3 and all(type(s) is int for s in seeds)
    assert seeds == [seeds[0] + i for i in range(3)]
    obs = venv.reset()
    assert obs["action_mask"].shape[0] == 3


@pytest.mark.parametrize("bad", [1.5, np.True_, np.float64(2.0), None.__class__])
def test_env_indices_that_are_not_ints_are_refused_in_their_own_words(bad):
    """SB3's indices are None, an int or an iterable of ints; a float, a NumPy bool or a class is none of them
    and is refused by name, not read as a table nor answered by Python's "not iterable"."""
    venv = MahjongSB3VecEnv(3, seed=0)
    with pytest.raises(TypeError, match="env indices must be an int or a sequence of ints"):
        venv.get_attr("rules", indices=bad)


def test_env_indices_take_numpy_ints_and_any_iterable_of_ints():
    venv = MahjongSB3VecEnv(3, seed=0)
    venv.reset()
    masks = venv.action_masks()
    for indices, rows in [(np.int64(2), [2]), (range(1, 3), [1, 2]), ((0,), [0]), (np.array([2, 0]), [2, 0]),
                          (iter([1]), [1])]:
        got = venv.env_method("action_masks", indices=indices)
        assert len(got) == len(rows)
        for g, r in zip(got, rows):
            np.testing.assert_array_equal(g, masks[r])
    assert venv.get_attr("num_envs", indices=np.uint8(1)) == [3]
    assert venv.env_is_wrapped(object, indices=range(3)) == [False] * 3


def test_get_images_is_one_none_per_env_and_render_mode_is_settable():
    """Text rendering only: no image from any env (SB3 reads one entry per env). ``render_mode`` is among the
    names set_attr takes (module docstring of set_attr)."""
    venv = MahjongSB3VecEnv(3, seed=0)
    assert list(venv.get_images()) == [None] * 3
    venv.reset()
    venv.set_attr("render_mode", "ansi")
    assert venv.envs.render_mode == "ansi"
    assert isinstance(venv.envs.render(), str)


def test_step_wait_on_a_new_env_asks_for_step_async():
    venv = MahjongSB3VecEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()


@pytest.mark.parametrize("options", [[{}, {"dealers": [1, 2, 3, 0]}], [{"dealers": [1, 2, 3, 0]}, {}]])
def test_sb3_options_dicts_with_different_keys_are_refused_whichever_env_has_the_extra_key(options):
    """_same_options compares the keys first: a dict with a key the first lacks (or lacks one it has) is another
    options dict, refused with the ValueError, not a KeyError, and not passed as alike (mutant: 'return False' for
    differing keys deleted)."""
    venv = MahjongSB3VecEnv(2, seed=0)
    with pytest.raises(ValueError, match="one options dict"):  # set_options checks them
        venv.set_options(options)
    venv.close()
