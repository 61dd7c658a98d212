"""mj_env.vector and mj_env.sb3 constructors, render and close held where a mutation test found no test (round 4)."""
from __future__ import annotations

import numpy as np
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


def test_the_action_mask_space_holds_zeros_and_ones_only():
    """The mask's space is Box(0, 1) of int8, per table and batched: a 2 is no mask value (from a mutation test:
    ``Box(0, 2)`` went unnoticed)."""
    env = MahjongVectorEnv(2)
    single, batched = env.single_observation_space["action_mask"], env.observation_space["action_mask"]
    for space in (single, batched):
        assert space.dtype == np.int8
        assert (space.low == 0).all() and (space.high == 1).all()
    assert not single.contains(np.full(single.shape, 2, dtype=np.int8))
    obs, _ = env.reset(seed=0)
    assert batched.contains(obs["action_mask"])


def test_the_sb3_adapters_default_table_count_is_64():
    """``MahjongSB3VecEnv()`` holds 64 tables, as ``MahjongSingleAgentVectorEnv()`` and the vector env do (from a
    mutation test: a default of 65 went unnoticed)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv
    from mj_env.single_agent import MahjongSingleAgentVectorEnv

    venv = MahjongSB3VecEnv()
    assert venv.num_envs == venv.envs.num_envs == MahjongSingleAgentVectorEnv().num_envs == 64


def test_the_seat_and_action_spaces_per_table_and_batched():
    """A seat is one of 4, per table and batched, and the batched action space is one ``Discrete(N_ACTIONS)``
    per table, as Gymnasium's ``batch_space`` makes it (from a mutation test: ``Discrete(5)`` seats and a
    missing ``action_space`` went unnoticed)."""
    from gymnasium import spaces
    from gymnasium.vector.utils import batch_space

    from mj_env import actions as A

    env = MahjongVectorEnv(3)
    assert env.single_observation_space["seat"] == spaces.Discrete(4)
    assert (env.observation_space["seat"].nvec == 4).all()
    assert env.single_action_space == spaces.Discrete(A.N_ACTIONS)
    assert env.action_space == batch_space(spaces.Discrete(A.N_ACTIONS), 3)
    assert env.action_space.shape == (3,)
    obs, _ = env.reset(seed=0)
    assert env.observation_space["seat"].contains(obs["seat"])


def test_a_constructor_seed_is_gymnasiums_np_random_seed():
    """A constructor ``seed`` stands in for Gymnasium's ``reset(seed=N)`` bookkeeping: ``np_random_seed`` reads it
    before any reset (from a mutation test: skipping the constructor's ``_seeded`` went unnoticed)."""
    env = MahjongVectorEnv(2, seed=7)
    assert env.np_random_seed == 7
    assert MahjongVectorEnv(2, seed=7).np_random.integers(1 << 30) == env.np_random.integers(1 << 30)


def test_autoreset_mode_reads_the_constructors_mode():
    """``autoreset_mode`` (TorchRL's ``GymWrapper`` reads it) is the mode the env was made with (from a mutation
    test: the property returning None went unnoticed)."""
    from gymnasium.vector import AutoresetMode

    assert MahjongVectorEnv(2).autoreset_mode is AutoresetMode.SAME_STEP
    assert MahjongVectorEnv(2, autoreset_mode="NEXT_STEP").autoreset_mode is AutoresetMode.NEXT_STEP


def test_a_human_mode_env_prints_its_tables_at_reset_and_step(capsys):
    """A ``render_mode="human"`` env prints the tables at every reset and step (Gymnasium's convention); an
    "ansi" env prints nothing (from a mutation test: not printing went unnoticed)."""
    env = MahjongVectorEnv(2, seed=0, render_mode="human")
    obs, _ = env.reset(seed=0)
    assert "table 0 of 2" in capsys.readouterr().out
    env.step(np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]]))
    assert "table 1 of 2" in capsys.readouterr().out
    quiet = MahjongVectorEnv(2, seed=0, render_mode="ansi")
    obs, _ = quiet.reset(seed=0)
    quiet.step(np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]]))
    assert capsys.readouterr().out == ""


def test_render_after_close_is_refused():
    """``render()`` after ``close()`` raises as ``reset`` and ``step`` then do (``render``'s docstring;
    from a mutation test: dropping the check went unnoticed), and before the first reset too."""
    env = MahjongVectorEnv(2, seed=0, render_mode="ansi")
    with pytest.raises(RuntimeError, match="before reset"):
        env.render()
    env.reset(seed=0)
    assert env.render().startswith("table 0 of 2")
    env.close()
    with pytest.raises(RuntimeError, match="this MahjongVectorEnv is closed"):
        env.render()
