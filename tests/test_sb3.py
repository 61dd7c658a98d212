"""mj_env.sb3.MahjongSB3VecEnv: the batched single-agent env as Stable-Baselines3's VecEnv."""
from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv, VecMonitor, VecNormalize

from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.sb3 import MahjongSB3VecEnv
from mj_env.single_agent import MahjongSingleAgentVectorEnv


def play(venv, masks_of, steps, seed=0):
    """Random legal actions; yields what each step returned."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        acts = uniform_legal(masks_of(), rng)
        yield acts, venv.step(acts)


@pytest.mark.parametrize("seat", [0, "random"])
def test_steps_as_the_batched_env_with_sb3s_done_and_info_form(seat):
    sb3 = MahjongSB3VecEnv(16, rules="beijing", opponents="rule", seed=3, seat=seat)
    ref = MahjongSingleAgentVectorEnv(16, rules="beijing", opponents="rule", seed=3, seat=seat,
                                      autoreset_mode=AutoresetMode.SAME_STEP)
    assert isinstance(sb3, VecEnv) and sb3.num_envs == 16
    sb3.seed(5)
    obs = sb3.reset()
    ref_obs, _ = ref.reset(seed=5)
    for k in ("observation", "action_mask"):
        np.testing.assert_array_equal(obs[k], ref_obs[k])
    ended = new_seats = 0
    for acts, (obs, rew, done, infos) in play(sb3, sb3.action_masks, 120):
        r_obs, r_rew, r_term, r_trunc, r_inf = ref.step(acts)
        np.testing.assert_array_equal(obs["observation"], r_obs["observation"])
        np.testing.assert_array_equal(obs["action_mask"], r_obs["action_mask"])
        assert rew.dtype == np.float32 and done.dtype == bool and len(infos) == 16
        np.testing.assert_array_equal(rew, r_rew.astype(np.float32))
        np.testing.assert_array_equal(done, r_term | r_trunc)
        for b in range(16):
            src = r_inf["final_info"] if done[b] else r_inf  # SB3: an ended env's info is the ended step's
            assert infos[b]["seat"] == src["seat"][b] and (seat == "random" or src["seat"][b] == 0)
            assert ("scores" in infos[b]) == bool(src.get("_scores", np.zeros(16, bool))[b])
            if "scores" in infos[b]:
                np.testing.assert_array_equal(infos[b]["scores"], src["scores"][b])
                assert infos[b]["scores"][infos[b]["seat"]] == rew[b]  # the learner's points, in its seat
                for k in ("win", "deal_in", "draw", "fan"):
                    assert infos[b][k] == src[k][b]
            if done[b]:
                ended += 1
                redealt = r_inf.get("redealt", np.zeros(16, int))[b]  # the new episode's, at the top level
                new_seat = int(r_inf["seat"][b])  # the new episode's, at the top level
                assert sb3.reset_infos[b] == {"seat": new_seat} | ({"redealt": redealt} if redealt else {})
                new_seats += new_seat != infos[b]["seat"]
                final = r_inf["final_obs"][b]
                for k in ("observation", "action_mask"):
                    np.testing.assert_array_equal(infos[b]["terminal_observation"][k], final[k])
                assert infos[b]["TimeLimit.truncated"] is False
            else:
                assert "terminal_observation" not in infos[b]
    assert ended > 10 and (new_seats > 0) == (seat == "random")


def test_action_masks_through_env_method_and_sb3s_helpers():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    venv = VecMonitor(MahjongSB3VecEnv(8, seed=1))
    venv.reset()
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    assert masks.shape == (8, A.N_ACTIONS) and masks.dtype == bool
    np.testing.assert_array_equal(masks, venv.unwrapped.envs.action_masks())
    rows = venv.env_method("action_masks", indices=[2, 5])
    np.testing.assert_array_equal(np.stack(rows), masks[[2, 5]])
    assert venv.get_attr("rules", indices=3) == [venv.unwrapped.envs.rules]
    assert venv.env_is_wrapped(VecMonitor) == [False] * 8
    with pytest.raises(IndexError, match="out of range 0-7"):
        venv.env_method("action_masks", indices=[8])
    for bad in ([1.5], True, "ab"):  # were read as table 1 (from a fuzz)
        with pytest.raises(TypeError, match="env indices must be an int or a sequence of ints"):
            venv.get_attr("rules", indices=bad)
    with pytest.raises(A.ActionError, match="expected 8 integer actions"):  # a ragged list: numpy's ValueError
        venv.step_async([[1, 2], [3]])
    with pytest.raises(A.ActionError, match=r"got shape \(8, 1\) dtype float64"):  # as given: no (8,) after unwrapping
        venv.step(np.zeros((8, 1)))
    legal = [int(a) for a in masks.argmax(axis=1)]
    for bools in ([True, *legal[1:]], [[a] for a in legal[:7]] + [[np.True_]]):  # NumPy would read them as ints
        with pytest.raises(A.ActionError, match=r"at table (0|7) is not an integer in 0-126"):
            venv.step(bools)
    venv.step([[a] for a in legal])  # the (n, 1) form of ints still plays
    with pytest.raises(A.ActionError, match=r"at table 0 is not an integer"):  # a ragged entry: no bare ValueError
        venv.step_async([[1, [2]]] + [[a] for a in legal[1:]])
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")


def test_seeding_repeats_and_truncation_is_flagged():
    def run(seed):
        venv = MahjongSB3VecEnv(8, max_episode_steps=3, seed=0)
        venv.seed(seed)
        venv.reset()
        out = []
        for _, (obs, rew, done, infos) in play(venv, venv.action_masks, 12):
            out.append((obs["observation"].copy(), rew, done,
                        [i.get("TimeLimit.truncated") for i in infos]))
        return out
    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))
    truncated = [t for step in a for t in step[3] if t]
    assert truncated  # episodes cut after 3 learner steps are flagged for SB3's bootstrapping


def test_maskable_ppo_learns_on_it_with_sb3s_wrappers():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    torch.set_num_threads(1)
    venv = VecNormalize(VecMonitor(MahjongSB3VecEnv(8, opponents="random", seed=0)),
                        norm_obs_keys=["observation"], norm_reward=True)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(512)
    assert model.num_timesteps == 512 and len(model.ep_info_buffer) > 0
    obs = venv.reset()
    action, _ = model.predict(obs, action_masks=np.stack(venv.env_method("action_masks")))
    assert venv.unwrapped.envs.action_masks()[np.arange(8), action].all()


def test_refusals():
    with pytest.raises(ValueError, match="autoreset_mode"):
        MahjongSB3VecEnv(4, autoreset_mode=AutoresetMode.NEXT_STEP)
    venv = MahjongSB3VecEnv(4, seed=0)
    with pytest.raises(ValueError, match="one options dict"):  # refused by set_options (it checks them)
        venv.set_options([{}, {}, {"dealers": [1]}, {}])
    venv.set_options({"dealers": [1, 2, 3, 0]})  # one dict for every env: passed on
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [1, 2, 3, 0]
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()
    with pytest.raises(ValueError, match="set it for all"):
        venv.set_attr("illegal_penalty", 5.0, indices=[0])
    venv.set_attr("illegal_penalty", 5.0)
    assert venv.envs.illegal_penalty == 5.0
    with pytest.warns(UserWarning, match="render mode"):
        assert venv.render("rgb_array") is None
    arrays = [{"dealers": np.array([1, 2, 3, 0])} for _ in range(4)]   # alike, though == cannot say so
    venv.set_options(arrays)
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [1, 2, 3, 0]


def test_truncation_keeps_the_real_mask_and_reset_infos_follow_autoresets():
    venv = MahjongSB3VecEnv(16, seat="random", max_episode_steps=3, seed=2)
    venv.reset()
    seats = [i["seat"] for i in venv.reset_infos]
    assert seats == venv.envs.seats.tolist()
    truncated = terminated = 0
    for _, (obs, rew, done, infos) in play(venv, venv.action_masks, 30):
        assert all("TimeLimit.truncated" in i for i in infos)
        for b in np.flatnonzero(done):
            final = infos[b]["terminal_observation"]["action_mask"]
            if infos[b]["TimeLimit.truncated"]:   # cut mid-hand: the mask it really had (a decision to make)
                truncated += 1
                assert final.sum() >= 1 and not (final.sum() == 1 and final[A.PASS])
            else:                                 # the hand ended: nothing but `pass`
                terminated += 1
                assert final.sum() == 1 and final[A.PASS] == 1
            assert venv.reset_infos[b]["seat"] == venv.envs.seats[b]  # the new episode's seat
    assert truncated > 10 and terminated > 0


def test_set_attr_checks_what_it_sets_and_refuses_the_envs_make_up():
    """A probe set seat_mode 9 (every later reset an IndexError), illegal_action "bogus" (quietly penalize) and
    num_envs 1 (out of step with the tables); now each is checked as the constructor checks it, or refused."""
    venv = MahjongSB3VecEnv(4, seed=0)
    venv.reset()
    for name, value, match in [("seat_mode", 9, "seat must be 0-3"), ("seat", "left", "seat must be 0-3"),
                               ("illegal_action", "bogus", "illegal_action must be"),
                               ("illegal_penalty", float("nan"), "illegal_penalty must be"),
                               ("opponents", "nobody", "unknown agent"), ("opponents", ["rule"], "one spec or three"),
                               ("num_envs", 1, "not settable"), ("engine", None, "not settable"),
                               ("rules", "hebei", "not settable")]:
        with pytest.raises(ValueError, match=match):
            venv.set_attr(name, value)
    assert (venv.envs.seat_mode, venv.envs.illegal_action, venv.envs.num_envs) == (0, "penalize", 4)
    venv.set_attr("seat", 2)
    venv.set_attr("illegal_action", "raise")
    venv.set_attr("opponents", ["random", "rule", "efficient"])
    venv.set_attr("my_note", {"phase": 2})  # a caller's own attribute
    assert venv.get_attr("my_note") == [{"phase": 2}] * 4
    assert [type(o).__name__ for o in venv.envs.opponents] == ["RandomAgent", "RuleBasedAgent", "EfficientAgent"]
    venv.reset()
    assert (venv.envs.seats == 2).all() and venv.envs.illegal_action == "raise"
    venv.step_async(uniform_legal(venv.action_masks(), np.random.default_rng(0)))
    venv.step_wait()


def test_a_seed_applies_to_the_next_reset_only():
    """SB3's VecEnv.seed(s) seeds the next reset; later resets deal new walls (from a mutation test)."""
    venv = MahjongSB3VecEnv(4)
    venv.seed(3)
    first = venv.reset()["observation"].copy()
    second = venv.reset()["observation"]
    assert not np.array_equal(first, second)
    venv.seed(3)
    np.testing.assert_array_equal(venv.reset()["observation"], first)


def test_step_wait_needs_actions_of_its_own_step_async():
    """Actions are played once: a second step_wait(), or one after a reset, is refused; the actions were
    chosen for a hand that is gone (from a mutation test)."""
    venv = MahjongSB3VecEnv(2, seed=0)
    obs = venv.reset()
    venv.step_async(uniform_legal(obs["action_mask"], np.random.default_rng(0)))
    venv.step_wait()
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()
    obs = venv.reset()
    venv.step_async(uniform_legal(obs["action_mask"], np.random.default_rng(1)))
    venv.reset()
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()


def test_close_closes_the_batched_env():
    venv = MahjongSB3VecEnv(2, seed=0)
    venv.reset()
    venv.close()
    assert venv.envs.closed
    with pytest.raises(RuntimeError, match="close"):
        venv.reset()


def test_options_that_differ_at_any_env_are_refused_and_apply_to_the_next_reset_only():
    """set_options: every env's dict is compared with the first (also env 1's, and ragged values that are not the
    same objects), and, as SB3's DummyVecEnv does, the options apply to the next reset only (from a mutation test:
    comparing from env 2 on, calling ragged values alike, or keeping the options for later resets went unnoticed).
    set_options compares them (tests/test_hardening_leftovers.py: a refused reset had kept them)."""
    venv = MahjongSB3VecEnv(4, seed=0)
    for options in ([{}, {"dealers": [1, 2, 3, 0]}, {}, {}],
                    [{"dealers": [1, [2]]}, {"dealers": [0, [3]]}, {"dealers": [0, [3]]}, {"dealers": [0, [3]]}]):
        with pytest.raises(ValueError, match="one options dict"):
            venv.set_options(options)
    venv.set_options({"dealers": [1, 2, 3, 0]})
    venv.reset()
    assert venv.envs.engine.state.dealer.tolist() == [1, 2, 3, 0]
    venv.reset()  # no options now: beijing's East deals the first hand (docs/RULES.md 2)
    assert venv.envs.engine.state.dealer.tolist() == [0, 0, 0, 0]


def test_only_a_column_of_actions_is_unwrapped_and_infos_hold_plain_python_values():
    """SB3 gives Discrete actions as (N,) or (N, 1); an (N, 2) array is no action batch. The info dicts hold
    Python values, as DummyVecEnv's one-table envs give them (from a mutation test: unwrapping any (N, k) to its
    first column, or leaving NumPy scalars in the infos, went unnoticed)."""
    venv = MahjongSB3VecEnv(4, opponents="random", seed=0)
    obs = venv.reset()
    legal = obs["action_mask"].argmax(axis=1)
    with pytest.raises(A.ActionError, match=r"got shape \(4, 2\)"):
        venv.step(np.stack([legal, legal], axis=1))
    assert venv.env_is_wrapped(VecMonitor, indices=[1, 2]) == [False, False]
    rng, scored = np.random.default_rng(0), 0
    while scored < 4:
        obs, _, _, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        for info in infos:
            if "scores" in info:
                scored += 1
                assert type(info["win"]) is type(info["deal_in"]) is type(info["draw"]) is bool
                assert type(info["fan"]) is int and type(info["seat"]) is int


def test_reset_infos_count_the_hands_dealt_again():
    """A hand over before the learner's first decision (here its 四惠牌 at the deal) is dealt again; SB3's
    reset_infos say so as the batched env's infos do (from a mutation test: dropping ``redealt`` went unnoticed)."""
    from walls import build_wall
    four_hui = build_wall("beijing", hands={0: "9s9s9s9s123m456m78p"}, indicator="8s", seed=1)
    plain = build_wall("beijing", indicator="8s", seed=2)
    venv = MahjongSB3VecEnv(2, opponents="rule", seed=0)
    venv.set_options({"walls": [four_hui, plain], "dealers": [0, 0]})
    venv.reset()
    assert venv.reset_infos == [{"seat": 0, "redealt": 1}, {"seat": 0}]
    assert type(venv.reset_infos[0]["redealt"]) is int


def test_set_attr_refuses_a_name_that_is_not_a_string_in_its_own_words():
    """(from a mutation test: without the check, Python's own TypeError came from deep inside, not naming set_attr)"""
    venv = MahjongSB3VecEnv(2, seed=0)
    for indices in (None, [0]):
        with pytest.raises(TypeError, match="set_attr: the attribute name must be a string, got int"):
            venv.set_attr(5, 1, indices=indices)


def test_env_method_answers_each_env_asked_and_render_without_a_mode_renders():
    """(from a mutation test: env_method answering all N envs whatever the indices, and render() with no mode
    warning as if it asked for another one, went unnoticed)"""
    venv = MahjongSB3VecEnv(3, seed=0, render_mode="ansi")
    venv.reset()
    assert venv.env_method("set_opponents", "random") == [None] * 3
    assert [a.name for a in venv.envs.opponents] == ["random"] * 3
    assert len(venv.env_method("action_masks", indices=[1])) == 1
    # the method runs once for every table, so asking it of one table is refused and changes nothing
    with pytest.raises(ValueError, match=r"env_method\('set_opponents'\).*indices=None, not for 1 of 3"):
        venv.env_method("set_opponents", "rule", indices=[1])
    assert [a.name for a in venv.envs.opponents] == ["random"] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = venv.render()
    assert isinstance(text, str) and text.strip()


# --------------------------------------------------------------------------- set_attr of render_mode


def test_sb3_set_attr_refuses_a_render_mode_that_is_no_string():
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2)
    try:
        for bad in (5, b"ansi", ["ansi"]):
            with pytest.raises(ValueError, match="render_mode must be None or a str"):
                venv.set_attr("render_mode", bad)
            assert venv.get_attr("render_mode") == [None, None]
        for good in ("ansi", "rgb_array", None):  # any mode string, as the constructor takes (make_vec_env's)
            venv.set_attr("render_mode", good)
            assert venv.get_attr("render_mode") == [good, good]
        with pytest.raises(ValueError, match="render_mode must be None or a str"):
            MahjongSB3VecEnv(1, render_mode=5)  # the constructor's check, which set_attr now matches
    finally:
        venv.close()


# --------------------------------------------------------------------------- a penalized episode's end under SB3's Monitor


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
