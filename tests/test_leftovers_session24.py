"""Leftovers of the last session's notes, mended: the AEC env's penalty type, the one-table Gymnasium env's
render() without a render mode, and train.py's plan line for a budget that prints as 1 minute."""
import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)







def test_the_one_table_envs_render_without_a_render_mode_warns_and_returns_none():
    """Gymnasium's own envs (CartPole ...) warn when render() is called with no render mode, as the AEC env now
    does; the one-table env returned None silently."""
    env = gym.make("mj_env/Beijing-v0")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None
    ansi = gym.make("mj_env/Beijing-v0", render_mode="ansi")
    ansi.reset(seed=0)
    assert isinstance(ansi.render(), str)




def test_a_penalized_episode_ends_with_the_hand_keys_that_monitor_reads():
    """SB3's ``Monitor(env, info_keywords=("win",))`` reads ``info["win"]`` at every episode's end; an episode
    ended by a penalized illegal action (what unmasked PPO plays often) had no such key: a KeyError."""
    monitor = pytest.importorskip("stable_baselines3.common.monitor")
    env = monitor.Monitor(gym.make("mj_env/Beijing-v0"), info_keywords=("win", "fan", "scores"))
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated) == (-10.0, True, False)
    assert info["illegal_action"] and not info["win"] and not info["deal_in"] and not info["draw"]
    assert info["fan"] == 0 and info["scores"].tolist() == [0, 0, 0, 0]
    assert info["episode"]["win"] is False and info["episode"]["fan"] == 0
    from mj_env.sb3 import MahjongSB3VecEnv  # SB3's own VecEnv and VecMonitor alike
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    venv = vec_env.VecMonitor(MahjongSB3VecEnv(2, seed=0), info_keywords=("win", "deal_in"))
    venv.reset()
    _, rewards, dones, infos = venv.step(np.array([np.flatnonzero(~m)[0] for m in venv.venv.action_masks()]))
    assert rewards.tolist() == [-10, -10] and dones.all()
    assert [(i["illegal_action"], i["win"], i["episode"]["deal_in"]) for i in infos] == [(True, False, False)] * 2
