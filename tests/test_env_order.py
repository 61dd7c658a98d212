"""Calls out of order (before the first reset, after close), the "human" render mode, and the forms of
action and seed the one-table Gymnasium env takes: what a user's own loop or a library's wrapper does."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mj_env
from mj_env import actions as A
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import WallError, full_set


def _undealt(mode="ansi"):
    """Every environment, made but not reset, with its name."""
    return [("aec", mj_env.raw_env(render_mode=mode)),
            ("vector", MahjongVectorEnv(2, render_mode=mode)),
            ("single-agent vector", MahjongSingleAgentVectorEnv(2, render_mode=mode)),
            ("one-table", gym.make("mj_env/Beijing-v0", render_mode=mode).unwrapped)]


@pytest.mark.parametrize("mode", ["ansi", "human"])
def test_render_before_the_first_reset_says_reset_first(mode, capsys):
    for name, env in _undealt(mode):
        with pytest.raises(RuntimeError, match=r"render\(\) before reset\(\)"):
            env.render()
        assert capsys.readouterr().out == "", name
    aec = mj_env.raw_env()
    with pytest.raises(RuntimeError, match=r"state\(\) before reset\(\)"):
        aec.state()
    with pytest.raises(RuntimeError, match=r"observe\(\) before reset\(\)"):
        aec.observe("player_0")
    with pytest.raises(KeyError, match="unknown agent"):  # an unknown agent is still named first
        aec.observe("player_9")
    aec.reset(seed=0)
    assert aec.state().any() and aec.observe("player_0")["action_mask"].any()


def _first_legal(mask) -> np.ndarray:
    return np.asarray(mask).reshape(-1, A.N_ACTIONS).argmax(axis=1)


def test_human_mode_prints_the_table_at_every_reset_and_step(capsys):
    """Gymnasium's convention (and PettingZoo's): a "human" env draws itself as it plays, with no render() call."""
    one = gym.make("mj_env/Beijing-v0", render_mode="human")
    obs, _ = one.reset(seed=0)
    assert "East" in capsys.readouterr().out
    one.step(int(_first_legal(obs["action_mask"])[0]))
    assert "East" in capsys.readouterr().out
    for venv in (MahjongVectorEnv(2, render_mode="human"), MahjongSingleAgentVectorEnv(2, render_mode="human")):
        obs, _ = venv.reset(seed=0)
        assert capsys.readouterr().out.count("live wall") == 2
        venv.step(_first_legal(obs["action_mask"]))
        assert capsys.readouterr().out.count("live wall") == 2
    aec = mj_env.env(render_mode="human")
    aec.reset(seed=0)
    assert "live wall" in capsys.readouterr().out
    aec.step(int(_first_legal(aec.observe(aec.agent_selection)["action_mask"])[0]))
    assert "live wall" in capsys.readouterr().out
    venvs = (MahjongVectorEnv(2, render_mode="human"), MahjongSingleAgentVectorEnv(2, render_mode="human"))
    for venv in venvs:
        venv.reset(seed=1)
    capsys.readouterr()
    for env in (one, *venvs, aec):  # and render() itself prints, returning None
        assert env.render() is None and "live wall" in capsys.readouterr().out
    quiet = gym.make("mj_env/Beijing-v0", render_mode="ansi")
    obs, _ = quiet.reset(seed=0)
    quiet.step(int(_first_legal(obs["action_mask"])[0]))
    assert capsys.readouterr().out == ""


def _play(env, seed, form, steps=40):
    """Rewards and masks of ``steps`` decisions, each action the first legal one given in ``form``."""
    obs, _ = env.reset(seed=seed)
    seen = []
    for _ in range(steps):
        a = int(_first_legal(obs["action_mask"])[0])
        obs, r, term, trunc, _ = env.step(form(a))
        seen.append((r, obs["action_mask"].tobytes()))
        if term or trunc:
            obs, _ = env.reset()
    return seen


def test_the_one_table_env_takes_any_integer_form_and_refuses_the_rest_unchanged():
    torch = pytest.importorskip("torch")
    env = gym.make("mj_env/Beijing-v0").unwrapped
    plain = _play(env, 3, int)
    assert _play(env, np.int64(3), torch.tensor) == plain          # a NumPy seed, torch actions
    assert _play(env, 3, lambda a: np.array(a, dtype=np.uint8)) == plain
    obs, _ = env.reset(seed=5)
    a = int(_first_legal(obs["action_mask"])[0])
    bad = [True, np.bool_(False), 3.0, "3", [a], np.array([a]), np.array(1.0), torch.tensor(1.0),
           torch.tensor(True), torch.tensor([a]), None, object(), np.timedelta64(a)]
    for action in bad:
        with pytest.raises(A.ActionError, match="not an integer in 0-126"):
            env.step(action)
    with pytest.raises(A.ActionError, match="masked"):
        env.step(np.ma.array(a, mask=True))
    for action in (-1, 127, 2**70, np.uint64(2**64 - 1), torch.tensor(127)):
        with pytest.raises(A.ActionError, match=r"not in the action space Discrete\(127\)") as err:
            env.step(action)
        assert "table" not in str(err.value)  # one table: no table number the user never gave
    _, r, *_ = env.step(a)                     # nothing above changed the hand: the same next step as fresh
    fresh = gym.make("mj_env/Beijing-v0").unwrapped
    fresh.reset(seed=5)
    assert fresh.step(a)[1] == r and np.array_equal(fresh.venv.engine.state.hands, env.venv.engine.state.hands)
    for seed in (True, -1, 1.5, "3"):
        with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
            env.reset(seed=seed)
    env.close()
    for call in (env.reset, lambda: env.step(a), env.action_masks):
        with pytest.raises(RuntimeError, match="this MahjongSingleAgentEnv is closed"):
            call()


def test_wall_and_dealer_errors_read_as_the_call_gave_them():
    wall = [CODES[t] for t in full_set(136)]
    venv = MahjongVectorEnv(4)
    for flat in (wall, list(full_set(136)), np.asarray(full_set(136)), wall[:135], wall + ["1f"]):
        with pytest.raises(WallError, match=r"one list of 13[5-7] tiles \(the same wall at every table: "
                                            r"\[wall\] \* 4\)"):
            venv.reset(options={"walls": flat})
    with pytest.raises(WallError, match=r"^walls must be a list of 1 wall \(one per table\); got one list"):
        MahjongVectorEnv(1).reset(options={"walls": wall})
    with pytest.raises(ValueError, match="^dealers must be a list of 1 seat, got"):
        MahjongVectorEnv(1).reset(options={"dealers": 2})
    with pytest.raises(WallError, match="^1 wall given for 4 tables$"):
        venv.reset(options={"walls": [wall]})
    with pytest.raises(ValueError, match="^2 dealers given for 1 table$"):
        MahjongVectorEnv(1).reset(options={"dealers": [0, 1]})
    venv.reset(options={"walls": [wall] * 4})
    bad_wall = wall[:-1] + ["1m"]
    for env in (mj_env.env(), gym.make("mj_env/Beijing-v0")):   # one table: the error names none
        with pytest.raises(WallError, match="^the wall: the beijing wall holds"):
            env.reset(options={"wall": bad_wall})
        with pytest.raises(ValueError, match="^the dealer must be a seat 0-3"):
            env.reset(options={"dealer": 4})
    with pytest.raises(WallError, match="^wall of table 1 of this reset: "):
        venv.reset(options={"walls": [wall, bad_wall, wall, wall]})


def test_the_aec_env_takes_the_same_integer_forms_as_the_one_table_env():
    torch = pytest.importorskip("torch")

    def play(form):
        e = mj_env.env()
        e.reset(seed=4)
        for _ in range(30):
            obs = e.observe(e.agent_selection)
            e.step(form(int(_first_legal(obs["action_mask"])[0])))
        return e.state().tobytes(), dict(e.rewards)

    plain = play(int)
    assert play(torch.tensor) == plain and play(np.int8) == plain and play(np.array) == plain
    e = mj_env.env()
    e.reset(seed=4)
    before = e.state().copy()
    a = int(_first_legal(e.observe(e.agent_selection)["action_mask"])[0])
    for bad in (np.timedelta64(a), np.ma.array(a, mask=True), torch.tensor(float(a)), True, 127, -1):
        with pytest.raises(A.ActionError, match="^player_0: action"):
            e.step(bad)
    assert np.array_equal(e.state(), before)
    with pytest.raises(A.ActionError, match="not an integer"):
        A.name(np.timedelta64(4))
