"""The single-agent environment (learner against opponents): Gymnasium's checker and wrappers,
registered ids, autoreset modes, rewards that add up, seats, opponents, illegal actions."""
from __future__ import annotations

import typing

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from unreadable import Unreadable

import mj_env
from mj_env import actions as A
from mj_env.baselines import AgentError, RandomAgent, uniform_legal
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv


def masked_random(obs, rng):
    return uniform_legal(obs["action_mask"], rng)


@pytest.mark.parametrize("env_id", sorted(mj_env.RULE_IDS.values()))
def test_check_env_on_every_registered_id(env_id):
    env = gym.make(env_id, opponents="rule")
    assert isinstance(env.unwrapped, MahjongSingleAgentEnv)
    preset = {v: k for k, v in mj_env.RULE_IDS.items()}[env_id]   # each id plays its own rule set
    vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    assert env.unwrapped.rules.name == vec.rules.name == preset
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space and info["seat"] == 0
    assert env.unwrapped.action_masks().dtype == bool


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_vector_form_plays_and_rewards_add_up(preset):
    N = 16
    envs = gym.make_vec(mj_env.RULE_IDS[preset], num_envs=N, vectorization_mode="vector_entry_point",
                        opponents="rule", seat="rotate")
    assert isinstance(envs, MahjongSingleAgentVectorEnv)
    obs, infos = envs.reset(seed=1)
    assert (infos["seat"] == np.arange(N) % 4).all()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        assert obs in envs.observation_space
        assert (envs.action_masks() == (obs["action_mask"] != 0)).all()
        prev_done = envs._over.copy()
        obs, rew, term, trunc, infos = envs.step(masked_random(obs, rng))
        assert rew.shape == (N,) and rew.dtype == np.float64 and not trunc.any()
        assert not rew[prev_done].any() and not term[prev_done].any()  # NEXT_STEP: the reset step
        if "_scores" in infos:
            s = infos["scores"][infos["_scores"]]
            assert np.allclose(s.sum(axis=1), 0)
            # every hand of an episode of one hand ends it, and its points are the learner's reward
            # (save points of a hand ended at the deal, paid with the next reward; rare)
            rows = np.flatnonzero(infos["_scores"])
            assert (term[rows]).all()
            mine = infos["scores"][rows, infos["seat"][rows]]
            assert np.mean(np.isclose(mine, rew[rows])) > 0.9
            assert not (infos["win"] & infos["deal_in"]).any()
        # a table whose episode ended shows its final observation, where only `pass` is allowed
        assert (obs["action_mask"][term].sum(axis=1) == 1).all() and (obs["action_mask"][term, A.PASS] == 1).all()
        ended += int(term.sum())
    assert ended > 20


def test_same_step_autoreset_gives_final_obs():
    envs = MahjongSingleAgentVectorEnv(8, opponents="random", autoreset_mode=AutoresetMode.SAME_STEP, seed=0)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=0)
    seats = envs.seats.copy()
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(200):
        obs, _rew, term, _, infos = envs.step(masked_random(obs, rng))
        assert obs["action_mask"].any(axis=1).all() and (obs["action_mask"].sum(axis=1) > 0).all()
        if term.any():
            assert (infos["_final_obs"] == term).all()
            for b in np.flatnonzero(term):
                assert infos["final_obs"][b] in envs.single_observation_space
            final = infos["final_info"]  # Gymnasium's convention: the ended step's infos, nested
            assert (infos["_final_info"] == term).all() and (final["seat"] == seats).all()
            assert final["_scores"][term].all() and (final["scores"][term].sum(axis=1) == 0).all()
            assert "final_obs" not in final
            # at the top level the ended tables show their new episode's reset infos: its seat, no scores
            assert (infos["seat"] == envs.seats).all() and not infos.get("_scores", np.zeros(8, bool))[term].any()
            seen += 1
        seats = envs.seats.copy()
    assert seen
    from gymnasium.wrappers.vector import DictInfoToList
    listed = DictInfoToList(MahjongSingleAgentVectorEnv(8, opponents="random", autoreset_mode="SameStep", seed=0))
    obs, _ = listed.reset(seed=0)
    for _ in range(200):
        obs, _rew, term, _, infos = listed.step(masked_random(obs, rng))
        for b in np.flatnonzero(term):
            assert "scores" in infos[b]["final_info"] and "scores" not in infos[b]


@pytest.mark.parametrize("kw", [{"seat": "rotate"}, {"seat": "random", "max_episode_steps": 6},
                                {"seat": "random", "hands_per_episode": 2}])
def test_same_step_infos_read_as_those_of_gymnasiums_sync_vector_env(kw):
    # the batched env and Gymnasium's own SyncVectorEnv of one-table envs, both SAME_STEP, each playing its
    # own games, pass the same checks: an ended table's final_info holds the ended step's infos (the seat it
    # played, its scores where the hand ended), and the top level its new episode's (the seat it plays now)
    from gymnasium.vector import SyncVectorEnv

    from mj_env.single_agent import MahjongSingleAgentEnv
    n = 4
    batched = MahjongSingleAgentVectorEnv(n, opponents="random", autoreset_mode=AutoresetMode.SAME_STEP, seed=5, **kw)
    one_kw = {k: v for k, v in kw.items() if k != "max_episode_steps"}
    ones = SyncVectorEnv([lambda: gym.wrappers.TimeLimit(MahjongSingleAgentEnv(opponents="random", **one_kw),
                                                         kw.get("max_episode_steps", 10**6)) for _ in range(n)],
                         autoreset_mode=AutoresetMode.SAME_STEP)
    for env, seats_now in ((batched, lambda: batched.seats.copy()),
                           (ones, lambda: np.array([e.unwrapped.venv.seats[0] for e in ones.envs]))):
        obs, infos = env.reset(seed=5)
        rng = np.random.default_rng(2)
        ends = truncations = 0
        for _ in range(150):
            before = seats_now()
            np.testing.assert_array_equal(infos["seat"], before)
            obs, _, term, trunc, infos = env.step(masked_random(obs, rng))
            ended = term | trunc
            np.testing.assert_array_equal(infos["seat"], seats_now())
            assert not infos.get("_scores", np.zeros(n, bool))[ended].any()
            if ended.any():
                final = infos["final_info"]
                np.testing.assert_array_equal(infos["_final_info"], ended)
                np.testing.assert_array_equal(final["seat"][ended], before[ended])
                for k in (k for k in final if not k.startswith("_")):  # only the ended tables, as Gymnasium nests
                    assert not final["_" + k][~ended].any(), k
                np.testing.assert_array_equal(final["_seat"], ended)
                scored = final.get("_scores", np.zeros(n, bool))
                assert scored[term].all() and not scored[trunc & ~term].any()
            ends, truncations = ends + int(ended.sum()), truncations + int((trunc & ~term).sum())
        assert ends > 10 and (truncations > 0) == ("max_episode_steps" in kw)


def test_seeded_runs_repeat_and_seats_and_opponents():
    def run(**kw):
        envs = MahjongSingleAgentVectorEnv(4, **kw)
        obs, _ = envs.reset(seed=3)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(60):
            obs, rew, _term, _, infos = envs.step(masked_random(obs, rng))
            out.append((rew.copy(), infos["seat"].copy()))
        return out
    a = run(opponents="rule", seat="random")
    b = run(opponents="rule", seat="random")
    assert all((x[0] == y[0]).all() and (x[1] == y[1]).all() for x, y in zip(a, b, strict=True))
    seats = np.concatenate([x[1] for x in a])
    assert len(set(seats.tolist())) > 1
    c = run(opponents=["rule", RandomAgent(), "random"], seat=2)
    assert all((x[1] == 2).all() for x in c)
    d = run(opponents="efficient", seat=1)                              # every baseline is an opponent by name
    assert all((x[1] == 1).all() for x in d) and any(x[0].any() for x in d)
    assert [type(o).__name__ for o in MahjongSingleAgentVectorEnv(2, opponents="efficient").opponents] == ["EfficientAgent"] * 3


def test_opponent_objects_get_observations_of_their_seat():
    class Spy(RandomAgent):
        name = "spy"
        seats: typing.ClassVar[set] = set()

        def act(self, obs, rng):
            assert obs["observation"].shape[1:] == (14, 34) and obs["action_mask"].any(axis=1).all()
            Spy.seats.update(obs["seat"].tolist())
            return super().act(obs, rng)

    envs = MahjongSingleAgentVectorEnv(4, opponents=Spy(), seat=1, seed=0)
    obs, _ = envs.reset(seed=0)
    for _ in range(20):
        obs, *_ = envs.step(masked_random(obs, np.random.default_rng(0)))
    assert Spy.seats == {0, 2, 3}
    with pytest.raises(ValueError, match="unknown agent .strong.: use one of random, rule"):
        MahjongSingleAgentVectorEnv(2, opponents="strong")
    with pytest.raises(ValueError, match="seat"):
        MahjongSingleAgentVectorEnv(2, seat=4)


def test_illegal_actions_raise_or_end_the_episode():
    envs = MahjongSingleAgentVectorEnv(2, illegal_action="raise", seed=0)
    obs, _ = envs.reset(seed=0)
    bad = np.array([int(np.flatnonzero(obs["action_mask"][0] == 0)[0]), 0])
    before = envs.engine.state.copy()
    with pytest.raises(A.ActionError, match="illegal"):
        envs.step(bad)
    st = envs.engine.state
    assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)
    with pytest.raises(A.ActionError, match="integer actions"):
        envs.step(np.zeros(2))
    pen = MahjongSingleAgentVectorEnv(2, illegal_penalty=5, seed=0)
    obs, _ = pen.reset(seed=0)
    acts = masked_random(obs, np.random.default_rng(0))
    acts[0] = bad[0]
    obs, rew, term, _, infos = pen.step(acts)
    assert term[0] and rew[0] == -5 and infos["_illegal_action"][0] and not infos["_illegal_action"][1]
    obs, rew, term, _, _ = pen.step(masked_random(obs, np.random.default_rng(0)))
    assert rew[0] == 0 and not term[0] and obs["action_mask"][0].sum() >= 1


def test_reset_mask_step_before_reset_and_close():
    envs = MahjongSingleAgentVectorEnv(3, seed=0)
    with pytest.raises(A.ActionError, match="reset"):
        envs.step(np.zeros(3, dtype=np.int64))
    obs, _ = envs.reset(seed=0)
    keep = obs["observation"][1].copy()
    obs2, _ = envs.reset(options={"reset_mask": np.array([True, False, True])})
    assert (obs2["observation"][1] == keep).all()
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"wal": 1})
    envs.close()
    assert envs.closed
    with pytest.raises(RuntimeError, match="closed"):
        envs.reset()


def test_gymnasium_vector_wrappers():
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")  # NumpyToTorch needs gymnasium[torch]
    from gymnasium.error import DependencyNotInstalled
    from gymnasium.wrappers.vector import (
        DictInfoToList,
        FlattenObservation,
        NormalizeReward,
        RecordEpisodeStatistics,
    )

    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=8, vectorization_mode="vector_entry_point")
    envs = RecordEpisodeStatistics(NormalizeReward(FlattenObservation(envs)))
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (8, 14 * 34 + 127)
    rng = np.random.default_rng(0)
    stats = 0
    for _ in range(100):
        mask = obs[:, :A.N_ACTIONS].astype(bool)  # Dict spaces flatten in key order: mask first
        obs, _, _, _, infos = envs.step(np.where(mask, rng.random(mask.shape), -1).argmax(axis=1))
        stats += int(infos.get("_episode", np.zeros(8, bool)).sum())
    assert stats > 0 and envs.episode_count == stats
    assert max(envs.return_queue) > -10 * 4  # learner played legally (no penalties)
    listed = DictInfoToList(gym.make_vec("mj_env/Hebei-v0", num_envs=4, vectorization_mode="vector_entry_point"))
    obs, infos = listed.reset(seed=0)
    assert isinstance(infos, list) and len(infos) == 4 and "seat" in infos[0]
    for _ in range(40):
        obs, _, _, _, infos = listed.step(masked_random(obs, rng))
    try:
        from gymnasium.wrappers.vector import NumpyToTorch
    except DependencyNotInstalled as e:  # Gymnasium 1.2 and 1.3 under numpy < 2.1 (their [torch] extra's floor)
        pytest.skip(f"the wrappers above work; Gymnasium's NumpyToTorch: {e}")
    tt = NumpyToTorch(gym.make_vec("mj_env/Quemen-v0", num_envs=4, vectorization_mode="vector_entry_point"))
    obs, infos = tt.reset(seed=0)
    assert isinstance(obs["observation"], torch.Tensor)
    for _ in range(40):
        m = obs["action_mask"].bool()
        a = torch.where(m, torch.rand(m.shape), -1.0).argmax(dim=1)
        obs, rew, _term, _trunc, infos = tt.step(a)
        assert isinstance(rew, torch.Tensor) and rew.shape == (4,)


def test_torchrl_gym_env_makes_it_by_id():
    # TorchRL's GymEnv passes frameskip= and drops it when the constructor refuses it as a TypeError
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv
    env = GymEnv("mj_env/Beijing-v0")
    td = env.reset()
    assert td["observation"].shape == (14, 34) and td["action_mask"].shape == (127,)
    td["action"] = env.action_spec.encode(int(np.flatnonzero(td["action_mask"].numpy())[0]))
    out = env.step(td)
    assert out["next"]["reward"].shape == (1,)
    env.close()


def _snapshot(envs):
    """Everything a refused reset must leave as it was (docs/RULES.md 7)."""
    st = envs.engine.state
    return (envs.seats.copy(), envs._episodes.copy(), envs._pending.copy(), envs._over.copy(),
            str(envs.rng.bit_generator.state), str(envs.engine.rng.bit_generator.state),
            st.hands.copy(), st.phase.copy(), st.to_act.copy(), envs._obs(envs._over)["observation"].copy())


def _same(a, b) -> bool:
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("bad", [
    {"seed": 1.5}, {"seed": -1}, {"seed": [1, 2]}, {"seed": True},
    {"options": {"dealers": [0, 9]}}, {"options": {"dealers": [0]}},
    {"options": {"walls": [list(range(136))[:10]] * 2}},
    {"options": {"reset_mask": np.array([True, False]), "dealers": [7]}},
])
def test_a_refused_vector_reset_changes_nothing(bad):
    envs = MahjongSingleAgentVectorEnv(2, seat="random", seed=0)
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(30):  # into the game, one table possibly ended (NEXT_STEP)
        obs, *_ = envs.step(masked_random(obs, rng))
    before = _snapshot(envs)
    with pytest.raises(ValueError):
        envs.reset(**bad)
    assert _same(before, _snapshot(envs))
    obs, rew, _, _, infos = envs.step(masked_random(obs, rng))  # plays on, no penalty
    assert "illegal_action" not in infos and (rew > -10).all()


def test_a_refused_single_reset_keeps_the_hand_and_the_generator():
    env = gym.make("mj_env/Beijing-v0", seat="random").unwrapped
    obs, info = env.reset(seed=0)
    before = (_snapshot(env.venv), str(env.np_random.bit_generator.state))
    for options in ({"dealer": 7}, {"wall": [1, 2, 3]}, {"dealer": True}, {"wal": 1}, ["wall"]):
        with pytest.raises(ValueError):
            env.reset(options=options)
        assert _same(before[0], _snapshot(env.venv)) and before[1] == str(env.np_random.bit_generator.state)
    obs2, info2 = env.reset(seed=0, options={"wall": None, "dealer": None})  # None: the default, as in the AEC env
    assert np.array_equal(obs2["observation"], obs["observation"]) and info2["seat"] == info["seat"]


@pytest.mark.parametrize("seat", ["rotate", "random", 2])
def test_a_seeded_reset_repeats_the_episode_whatever_came_before(seat):
    env = gym.make("mj_env/Beijing-v0", seat=seat)
    first = env.reset(seed=3)
    for _ in range(3):
        env.reset()
    again = env.reset(seed=3)
    assert again[1]["seat"] == first[1]["seat"]
    assert np.array_equal(again[0]["observation"], first[0]["observation"])
    if seat == "rotate":  # unseeded resets move on one seat each, seeded ones start over
        assert [env.reset()[1]["seat"] for _ in range(5)] == [1, 2, 3, 0, 1]
        assert env.reset(seed=4)[1]["seat"] == 0
        check_env(env.unwrapped, skip_render_check=True)
        venv = MahjongSingleAgentVectorEnv(2, seat="rotate", seed=0)
        assert [list(venv.reset()[1]["seat"]) for _ in range(3)] == [[0, 1], [1, 2], [2, 3]]
        assert list(venv.reset(seed=1)[1]["seat"]) == [0, 1]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_max_episode_steps_truncates_in_the_vector_form(mode):
    """``gym.make_vec(id, max_episode_steps=N)`` hands N to the vector env (Gymnasium's
    vector_entry_point mode), which truncates each table's episode after N learner steps."""
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=4, max_episode_steps=3,
                        vectorization_mode="vector_entry_point", autoreset_mode=mode)
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = np.zeros(4, dtype=int)
    truncs = 0
    for _ in range(40):
        prev_over = envs.unwrapped._over.copy()
        obs, rew, term, trunc, infos = envs.step(masked_random(obs, rng))
        assert not (term & trunc).any() and (rew[trunc] == 0).all()
        assert not infos.get("_scores", np.zeros(4, bool))[trunc].any()  # an abandoned hand is not settled
        counted = ~prev_over
        steps[counted] += 1
        assert (steps[trunc] == 3).all() and (steps[term] <= 3).all()
        steps[term | trunc] = 0
        truncs += int(trunc.sum())
        final = np.stack([infos["final_obs"][b]["action_mask"] for b in range(4)]) \
            if mode == AutoresetMode.SAME_STEP and (term | trunc).any() else obs["action_mask"]
        if mode == AutoresetMode.SAME_STEP and trunc.any():
            assert infos["_final_obs"][trunc].all()
        # a truncated hand's final observation keeps the mask it had (a decision to make, more than `pass`);
        # a hand that ended shows `pass` only
        assert not ((final[trunc].sum(axis=1) == 1) & (final[trunc, A.PASS] == 1)).any()
        assert (final[term].sum(axis=1) == 1).all() and (final[term, A.PASS] == 1).all()
    assert truncs > 0
    with pytest.raises(ValueError, match="max_episode_steps"):
        MahjongSingleAgentVectorEnv(2, max_episode_steps=0)
    with pytest.raises(ValueError, match="TimeLimit"):  # the one-table env would not report the cut
        MahjongSingleAgentEnv(max_episode_steps=3)
    timed = gym.make("mj_env/Beijing-v0", max_episode_steps=2)
    timed.reset(seed=0)
    cut = [timed.step(int(np.flatnonzero(timed.unwrapped.action_masks())[0]))[3] for _ in range(2)]
    assert cut[-1] or timed.unwrapped._done


def test_a_refused_step_after_a_truncation_changes_nothing():
    envs = MahjongSingleAgentVectorEnv(2, max_episode_steps=1, illegal_action="raise", seed=0)
    obs, _ = envs.reset(seed=0)
    obs, _, _, trunc, _ = envs.step(masked_random(obs, np.random.default_rng(0)))
    assert trunc.all()
    obs, _ = envs.reset(options={"reset_mask": np.array([False, True])})
    before = _snapshot(envs)
    bad = np.zeros(2, dtype=np.int64)
    bad[1] = np.flatnonzero(obs["action_mask"][1] == 0)[0]
    with pytest.raises(A.ActionError):
        envs.step(bad)
    assert _same(before, _snapshot(envs))


def test_action_masks_before_reset_and_human_render(capsys):
    envs = MahjongSingleAgentVectorEnv(2, render_mode="human")
    with pytest.raises(A.ActionError, match="reset"):
        envs.action_masks()
    envs.reset(seed=0)
    capsys.readouterr()  # what the reset printed (a human-mode env prints itself at every reset and step)
    assert envs.render() is None and "East" in capsys.readouterr().out
    env = gym.make("mj_env/Hebei-v0", render_mode="human")
    env.reset(seed=0)
    capsys.readouterr()
    env.render()
    assert capsys.readouterr().out.strip()


class _Broken:
    """An opponent that answers wrongly in one of three ways."""

    def __init__(self, how):
        self.name, self.how = f"broken-{how}", how

    def act(self, obs, rng):
        n = len(obs["action_mask"])
        if self.how == "floats":
            return np.full(n, 0.5)
        if self.how == "short":
            return np.zeros(n - 1, dtype=np.int64) if n > 1 else np.zeros(0, dtype=np.int64)
        if self.how == "unreadable":  # what NumPy cannot read, as a float torch tensor needing grad
            return Unreadable()
        if self.how == "rewrites-mask":  # marks every action legal in its copy of the mask, then plays one that is not
            obs["action_mask"][:] = 1
        return np.where(obs["action_mask"][:, A.PASS] != 0, A.index("discard 1m"), A.PASS)  # illegal


@pytest.mark.parametrize("how,err,words", [("floats", TypeError, "float64 actions"),
                                           ("unreadable", TypeError, "(a Unreadable); act() must return"),
                                           ("short", TypeError, "act() must return"),
                                           ("illegal", A.ActionError, "at table"),
                                           ("rewrites-mask", A.ActionError, "at table")])
def test_an_opponent_that_answers_wrongly_is_named(how, err, words):
    envs = MahjongSingleAgentVectorEnv(2, opponents=_Broken(how), seat=1, seed=0)
    with pytest.raises(err, match=f"opponent 'broken-{how}'") as info:
        envs.reset(seed=0)  # seat 1: the dealer (an opponent) acts first
    assert words in str(info.value)


def _codes(**layout) -> list[str]:
    from walls import build_wall

    from mj_env.tiles import CODES
    return [CODES[t] for t in build_wall("beijing", indicator="8s", dealer=0, seed=1, **layout)]


@pytest.mark.parametrize("seat, hand, points", [
    (0, "9s9s9s9s123m456m78p", 27),     # the learner deals itself 四惠牌 (庄 1 + 四惠牌 8, self-draw)
    (1, "9s9s9s9s123m456m78p", -9),     # the dealer's 四惠牌: the learner pays without deciding
    (2, "123m456m789p11s234s", -11),    # the dealer's 天和 (10 + 门清无惠 1, each pays), before the learner acts
    ("rotate", "9s9s9s9s123m456m78p", 27),  # seat 0 for that hand and for the redealt one (it was no episode)
])
def test_a_hand_over_before_the_learners_first_decision_is_dealt_again(seat, hand, points):
    env = gym.make("mj_env/Beijing-v0", opponents="rule", seat=seat)
    wall = _codes(hands={0: hand})
    obs, info = env.reset(seed=0, options={"wall": wall, "dealer": 0})
    assert info["redealt"] == 1 and obs["action_mask"].any()          # a new hand, the learner to decide
    assert info["seat"] == (0 if seat == "rotate" else seat)            # "rotate" does not move on for it
    assert env.unwrapped.venv.engine.state.wall[0].tolist() != [mj_env.tiles.CODES.index(c) for c in wall]
    obs, reward, *_, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "redealt" not in info
    settled = info["scores"][info["seat"]] if "scores" in info else 0.0
    assert reward == points + settled                                 # its points come with the next reward
    env.close()
    # a hand the learner decides in is no redeal
    obs, info = gym.make("mj_env/Beijing-v0", opponents="rule", seat=seat).reset(seed=0)
    assert "redealt" not in info


class _FailsWhenTold:
    """The random agent, until ``fail`` is set: then its next act raises or answers an illegal action."""
    name = "fails-when-told"

    def __init__(self):
        self.fail = None

    def act(self, obs, rng):
        how, self.fail = self.fail, None
        if how == "raise":
            raise RuntimeError("opponent crashed")
        out = RandomAgent().act(obs, rng)
        if how == "illegal":
            out[:] = A.PASS if not obs["action_mask"][0, A.PASS] else A.index("discard 1m")
        return out


def _full_state(envs):
    from dataclasses import fields
    st = envs.engine.state
    return ([getattr(st, f.name).copy() for f in fields(st)] + [envs.engine.legal_mask().copy(), envs.action_masks()]
            + [getattr(envs, k).copy() for k in envs._BOOKKEEPING]
            + [str(envs.rng.bit_generator.state), str(envs.engine.rng.bit_generator.state)])


_FAILURE = {"raise": AgentError, "illegal": A.ActionError}
_NAMED = r"opponent 'fails-when-told' (raised RuntimeError acting at table\(s\) [0-9, ]+: opponent crashed|at table [0-9])"


def _check_named(err, how):
    """The error names the opponent and the table (the docstring's promise); a raise keeps its own error
    as the cause."""
    if how == "raise":
        assert isinstance(err.__cause__, RuntimeError) and str(err.__cause__) == "opponent crashed"


@pytest.mark.parametrize("how", ["raise", "illegal"])
def test_an_opponent_that_fails_mid_step_changes_nothing(how):
    # The learner's action reaches the engine before the opponents act: when one of them then fails, the
    # step must be undone, else the table waits on the opponent's seat and the learner's next action is
    # played for it (an outside audit found exactly that). A twin env whose opponent never fails stays in step.
    flaky = _FailsWhenTold()
    envs = MahjongSingleAgentVectorEnv(4, opponents=flaky, seat="random", seed=3)
    twin = MahjongSingleAgentVectorEnv(4, opponents=RandomAgent(), seat="random", seed=3)
    obs, _ = envs.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(0)
    failed = 0
    for step in range(60):
        acts = masked_random(obs, rng)
        if step % 7 == 3:
            before = _full_state(envs)
            flaky.fail = how
            with pytest.raises(_FAILURE[how], match=_NAMED) as info:
                envs.step(acts)
            _check_named(info.value, how)
            assert _same(before, _full_state(envs)), f"step {step}"
            failed += 1
        obs, rew, term, _, infos = envs.step(acts)
        obs2, rew2, term2, _, infos2 = twin.step(acts)
        assert np.array_equal(obs["observation"], obs2["observation"]) and np.array_equal(rew, rew2)
        assert np.array_equal(term, term2) and np.array_equal(infos["seat"], infos2["seat"])
    assert failed == 9
    before = _full_state(envs)
    flaky.fail = how  # a reset whose opponents fail: the game in play goes on as it was
    with pytest.raises(_FAILURE[how], match=_NAMED) as info:
        envs.reset(seed=11)
    _check_named(info.value, how)
    assert _same(before, _full_state(envs))
    acts = masked_random(obs, rng)
    assert np.array_equal(envs.step(acts)[0]["observation"], twin.step(acts)[0]["observation"])


def test_a_one_table_reset_whose_opponent_fails_keeps_the_generator():
    flaky = _FailsWhenTold()
    env = gym.make("mj_env/Beijing-v0", opponents=flaky, seat=2).unwrapped  # seat 2: the dealer's opponents act
    env.reset(seed=0)
    before = (_full_state(env.venv), str(env.np_random.bit_generator.state))
    flaky.fail = "raise"
    with pytest.raises(AgentError, match=r"opponent 'fails-when-told' raised RuntimeError acting at table\(s\) 0: "
                                         "opponent crashed"):
        env.reset()
    assert _same(before[0], _full_state(env.venv)) and before[1] == str(env.np_random.bit_generator.state)


def test_one_table_env_refuses_seed_and_autoreset_mode_arguments():
    # gym.make(id, seed=N) was taken and ignored (each reset drew from an unseeded generator), and seeding
    # it would give every env of make_vec(..., seed=N) the same hands; make_vec(id, vectorization_mode="sync",
    # autoreset_mode=...) hands autoreset_mode to every one-table env, which failed at the first episode end
    with pytest.raises(ValueError, match="seed: a one-table env is seeded by reset"):
        gym.make("mj_env/Beijing-v0", seed=5)
    with pytest.raises(ValueError, match="seed: a one-table env is seeded by reset"):
        gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync", seed=5)
    with pytest.raises(ValueError, match="autoreset_mode: the one-table env has no autoreset"):
        gym.make("mj_env/Beijing-v0", autoreset_mode=AutoresetMode.SAME_STEP)
    envs = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point", seed=5)
    assert envs.reset()[0]["observation"].shape[0] == 2  # the vector form takes both


class _FailsAtRandom:
    """``base``'s moves, but when armed each act fails with probability 0.15: it raises (after drawing from
    the env's generator, or as an interrupt) or answers an illegal action."""
    name = "fails-at-random"

    def __init__(self, base):
        self.base, self.draw, self.armed = base, np.random.default_rng(1), False

    def act(self, obs, rng):
        out = self.base.act(obs, rng)
        if self.armed and self.draw.random() < 0.15:
            how = int(self.draw.integers(3))
            if how == 0:
                raise RuntimeError("opponent crashed")
            if how == 1:
                rng.random(5)
                raise KeyboardInterrupt
            return np.argmin(obs["action_mask"], axis=1).astype(np.int64)  # an illegal action in every row
        return out


@pytest.mark.parametrize("rules, n, seat, mode, max_steps, hands", [
    ("beijing", 8, "rotate", AutoresetMode.SAME_STEP, 5, 1),
    ("quemen", 8, "random", AutoresetMode.SAME_STEP, None, 2),
    ("hebei", 4, 1, AutoresetMode.NEXT_STEP, 7, 3),
])
def test_random_opponent_failures_change_nothing_in_every_mode(rules, n, seat, mode, max_steps, hands):
    # every failed step or reset is retried until it goes through; the env stays bit for bit with a twin
    # whose opponent never fails: observations, masks, rewards, ends, infos and settlements (matches,
    # truncation and both autoreset modes, partial seeded resets)
    from mj_env.baselines import RuleBasedAgent
    base = RuleBasedAgent(rules) if rules == "hebei" else RandomAgent()
    kw = {"rules": rules, "seat": seat, "seed": 7, "autoreset_mode": mode, "max_episode_steps": max_steps,
          "hands_per_episode": hands}
    flaky = _FailsAtRandom(base)
    envs = MahjongSingleAgentVectorEnv(n, opponents=flaky, **kw)
    twin = MahjongSingleAgentVectorEnv(n, opponents=base, **kw)
    flaky.armed, failures = True, 0

    def retried(call, *args, **kwargs):
        nonlocal failures
        for _ in range(100):
            try:
                return call(*args, **kwargs)
            except (RuntimeError, KeyboardInterrupt, A.ActionError):
                failures += 1
        raise AssertionError("never went through")

    def same_infos(a, b):
        assert a.keys() == b.keys()
        for k in a:
            if isinstance(a[k], dict):  # SAME_STEP's final_info
                same_infos(a[k], b[k])
            elif a[k].dtype == object:
                assert repr(list(a[k])) == repr(list(b[k])), k
            else:
                assert np.array_equal(a[k], b[k]), k

    (o1, i1), (o2, i2) = retried(envs.reset, seed=3), twin.reset(seed=3)
    rng = np.random.default_rng(0)
    for t in range(80):
        assert np.array_equal(o1["observation"], o2["observation"]) and np.array_equal(o1["action_mask"], o2["action_mask"])
        same_infos(i1, i2)
        assert repr(envs.last_settlements) == repr(twin.last_settlements)
        if t % 37 == 20:
            m, s = rng.random(n) < 0.5, int(rng.integers(100))
            (o1, i1), (o2, i2) = (retried(envs.reset, seed=s, options={"reset_mask": m}),
                                  twin.reset(seed=s, options={"reset_mask": m}))
            continue
        acts = masked_random(o1, rng)
        o1, r1, t1, u1, i1 = retried(envs.step, acts)
        o2, r2, t2, u2, i2 = twin.step(acts)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2) and np.array_equal(u1, u2), t
    assert failures > 20


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_an_episode_ended_by_an_illegal_action_shows_pass_only(mode):
    venv = MahjongSingleAgentVectorEnv(4, seed=0, autoreset_mode=mode)
    obs, _ = venv.reset(seed=0)
    bad = np.argmin(obs["action_mask"], axis=1)             # an illegal action at every table
    obs, rew, term, _, infos = venv.step(bad)
    ended_infos = infos if mode == AutoresetMode.NEXT_STEP else infos["final_info"]  # SAME_STEP: nested
    assert term.all() and (rew == -venv.illegal_penalty).all() and ended_infos["illegal_action"].all()
    assert mode == AutoresetMode.NEXT_STEP or "illegal_action" not in infos  # the new episodes' reset infos
    final = obs["action_mask"] if mode == AutoresetMode.NEXT_STEP else \
        np.stack([infos["final_obs"][b]["action_mask"] for b in range(4)])
    assert (final.sum(axis=1) == 1).all() and (final[:, A.PASS] == 1).all()


@pytest.mark.parametrize("preset", ["beijing", "quemen"])
def test_obs_v2_adds_the_rules_core_planes_to_the_same_game(preset):
    from mj_env.features import N_PLANES_V2, observe_v2
    v1 = MahjongSingleAgentVectorEnv(16, rules=preset, seed=4)
    v2 = MahjongSingleAgentVectorEnv(16, rules=preset, seed=4, obs="v2")
    assert v2.observation_layout == "mj_obs_v2" and v2.single_observation_space["observation"].shape == (N_PLANES_V2, 34)
    o1, _ = v1.reset(seed=4)
    o2, _ = v2.reset(seed=4)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(80):
        assert v2.observation_space.contains(o2)
        np.testing.assert_array_equal(o2["observation"], observe_v2(v1.rules, o1["observation"], o1["action_mask"]))
        np.testing.assert_array_equal(o2["action_mask"], o1["action_mask"])
        acts = masked_random(o1, rng)
        o1, r1, t1, *_ = v1.step(acts)
        o2, r2, t2, *_ = v2.step(acts)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1, t2)
        ends += int(t1.sum())
    assert ends > 5
    one = gym.make(f"mj_env/{preset.capitalize()}-v0", obs="v2")
    check_env(one.unwrapped, skip_render_check=True)
    assert one.reset(seed=1)[0]["observation"].shape == (N_PLANES_V2, 34)
    with pytest.raises(ValueError, match="obs must be 'v1'"):
        MahjongSingleAgentVectorEnv(2, obs="v3")


@pytest.mark.parametrize("bad", [-1, A.N_ACTIONS, 2**62])
def test_an_action_outside_the_action_space_is_refused_even_when_illegal_moves_are_penalized(bad):
    # penalize plays an illegal move of the action space as a lost episode; -1, 127 or 2**62 are no
    # element of Discrete(127): ActionError, and the game goes on as a twin's that never saw them (from a fuzz)
    from mj_env.single_agent import MahjongSingleAgentEnv
    envs, twin = (MahjongSingleAgentVectorEnv(3, seed=1, illegal_action="penalize") for _ in range(2))
    obs, _ = envs.reset(seed=1)
    twin.reset(seed=1)
    acts = masked_random(obs, np.random.default_rng(0))
    with pytest.raises(A.ActionError, match=f"action {bad} at table 1 is not in the action space Discrete"):
        envs.step(np.array([acts[0], bad, acts[2]]))
    o1, r1, *_ = envs.step(acts)
    o2, r2, *_ = twin.step(acts)
    np.testing.assert_array_equal(o1["observation"], o2["observation"])
    np.testing.assert_array_equal(r1, r2)
    # NEXT_STEP: a table whose episode ended ignores its action, whatever it is (-1 as a placeholder)
    venv = MahjongSingleAgentVectorEnv(4, opponents="random", seed=3)
    obs, _ = venv.reset(seed=3)
    rng, ended = np.random.default_rng(1), np.zeros(4, bool)
    while not ended.any():
        obs, _, term, trunc, _ = venv.step(np.where(ended, bad, masked_random(obs, rng)))
        ended = term | trunc
    venv.step(np.where(ended, bad, masked_random(obs, rng)))
    one = MahjongSingleAgentEnv(opponents="random")
    one.reset(seed=2)
    with pytest.raises(A.ActionError, match="not in the action space"):
        one.step(bad)
    assert one.step(int(np.flatnonzero(one.action_masks())[0]))[4].get("illegal_action") is None


def test_points_waiting_from_a_redealt_hand_survive_an_illegal_first_action():
    """The learner's points of a hand it never decided in come with the next episode's first reward, even when
    that first action is illegal and penalized: points - illegal_penalty (from an outside mutation test)."""
    env = gym.make("mj_env/Beijing-v0", opponents="rule", seat=0, illegal_action="penalize", illegal_penalty=10.0)
    obs, info = env.reset(seed=0, options={"wall": _codes(hands={0: "9s9s9s9s123m456m78p"}), "dealer": 0})
    assert info["redealt"] == 1
    _obs, reward, term, _trunc, info = env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert term and info["illegal_action"] and reward == 27 - 10.0


@pytest.mark.parametrize("opponents", ["rule", "random"])
def test_win_deal_in_and_draw_infos_read_the_settlement(opponents):
    """infos["win"], ["deal_in"], ["draw"] and ["fan"] say what the learner's settled hand was: its win, its
    discard won on, a drawn hand (rule opponents deal the learner's random discards in; random ones draw)."""
    envs = MahjongSingleAgentVectorEnv(16, opponents=opponents, seat="rotate", seed=3)
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    seen = {"win": 0, "deal_in": 0, "draw": 0}
    # 200 steps, not 400: counted once by hand, they settle every kind of hand the 400 did (rule: 26 deals-in, 2
    # draws, 247 neither, no learner win in either; random: 124 draws, the one learner win, with fan, at 151-200)
    for _ in range(200):
        obs, _rew, _term, _trunc, infos = envs.step(masked_random(obs, rng))
        for b in np.flatnonzero(infos.get("_scores", np.zeros(16, dtype=bool))):
            s, seat = envs.last_settlements[b], infos["seat"][b]
            wins = [] if s.get("draw") else s.get("wins", [s])
            expect = {"win": any(w["input"]["winner"] == seat for w in wins),
                      "deal_in": any(w["input"].get("discarder") == seat for w in wins),
                      "draw": bool(s.get("draw"))}
            for key, value in expect.items():
                assert bool(infos[key][b]) == value, key
                seen[key] += value
            assert infos["fan"][b] == sum(w["fan"] for w in wins if w["input"]["winner"] == seat)
    assert seen["deal_in"] > 0 if opponents == "rule" else seen["draw"] > 0, seen


def _trajectory(env, steps: int = 60) -> list:
    """Rewards and observations of ``steps`` first-legal-action steps of a one-table env or a vector env from seed 3."""
    obs, _ = env.reset(seed=3)
    out = []
    for _ in range(steps):
        mask = np.asarray(obs["action_mask"])
        act = mask.argmax(axis=-1)
        obs, rew, term, trunc, _ = env.step(act if act.ndim else int(act))
        out.append((np.asarray(obs["observation"]).tobytes(), np.asarray(rew).tolist()))
        if np.ndim(term) == 0 and (term or trunc):
            obs, _ = env.reset()
    return out


def test_opponents_swap_through_gymnasiums_set_attr_and_the_one_table_env():
    """A parallel-use audit: set_attr("opponents", ...) on the one-table env made an attribute nothing read and
    play went on against the old opponents. Now it is set_opponents (checked), in every form: a swapped env
    plays as one made with the new opponents."""
    want = _trajectory(gym.make("mj_env/Beijing-v0", opponents="random"))
    e = gym.make("mj_env/Beijing-v0", opponents="rule")
    e.set_wrapper_attr("opponents", "random")
    assert [a.name for a in e.get_wrapper_attr("opponents")] == ["random"] * 3
    assert _trajectory(e) == want
    e = gym.make("mj_env/Beijing-v0", opponents="rule")
    e.unwrapped.set_opponents(["random"] * 3)
    assert _trajectory(e) == want
    with pytest.raises(ValueError, match="unknown agent 'bogus'"):
        e.set_wrapper_attr("opponents", "bogus")
    assert [a.name for a in e.get_wrapper_attr("opponents")] == ["random"] * 3  # a refused swap changes nothing

    def vec(mode, **kw):
        return gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode=mode, opponents="rule", **kw)

    want = _trajectory(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="sync", opponents="random"))
    for mode, kw in (("sync", {}), ("async", {"vector_kwargs": {"context": "fork"}})):
        v = vec(mode, **kw)
        v.set_attr("opponents", "random")
        assert _trajectory(v) == want, mode
        v.call("set_opponents", "rule")
        assert [[a.name for a in o] for o in v.get_attr("opponents")] == [["rule"] * 3] * 2
        v.close()


def test_assigning_opponents_on_the_vector_env_is_checked():
    envs = MahjongSingleAgentVectorEnv(2, opponents="rule", seed=0)
    with pytest.raises(ValueError, match="unknown agent 'bogus'"):
        envs.opponents = "bogus"  # was stored as it was: the next step failed on 'str' has no act
    assert [a.name for a in envs.opponents] == ["rule"] * 3
    envs.opponents = ["random", "rule", "efficient"]
    assert [a.name for a in envs.opponents] == ["random", "rule", "efficient"]
    assert isinstance(envs.opponents, tuple)  # not a list one could edit behind the check


def test_a_step_over_several_hands_of_a_match_sums_their_scores_and_keeps_the_last_fan(monkeypatch):
    """A match of three hands, the learner East and dealer: it wins the first by 天和 on its first decision; the
    next two hands deal it 四惠牌, which wins at once, before it decides again. So one step spans three
    hands: ``scores`` is their sum and ``fan`` the learner's last win's (docstring's "Infos"; from a
    mutation test: storing only the last hand's scores, or adding the fans, went unnoticed)."""
    from walls import deals_first, four_hui_9s_wall, tian_hu_wall

    import mj_env.engine as engine_module
    four_hui = four_hui_9s_wall()
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui, 2))
    envs = MahjongSingleAgentVectorEnv(1, opponents="rule", seat=0, hands_per_episode=3)
    tian_hu = tian_hu_wall()
    obs, info = envs.reset(seed=0, options={"walls": [tian_hu], "dealers": [0]})
    assert "redealt" not in info and obs["action_mask"][0, A.WIN]
    seen = []
    real = envs.engine.step

    def recording(actions, tables=None):
        res = real(actions, tables=tables)
        seen.extend(s for b in res.settlements for s in res.settlements.every(b))
        return res
    monkeypatch.setattr(envs.engine, "step", recording)
    obs, reward, term, _, info = envs.step(np.array([A.WIN]))
    assert term[0] and len(seen) == 3 and [s["fan"] for s in seen] == [11, 9, 9]
    np.testing.assert_array_equal(info["scores"][0], np.sum([s["scores"] for s in seen], axis=0))
    assert reward[0] == info["scores"][0, 0] == 3 * 11 + 2 * 27
    assert info["win"][0] and info["fan"][0] == 9 and not info["draw"][0]


def test_redealt_is_marked_only_at_the_tables_dealt_again():
    from walls import build_wall, four_hui_9s_wall
    four_hui = four_hui_9s_wall()
    plain = build_wall("beijing", indicator="8s", seed=2)
    envs = MahjongSingleAgentVectorEnv(2, opponents="rule", seat=1)
    _, info = envs.reset(seed=0, options={"walls": [four_hui, plain], "dealers": [0, 0]})
    assert info["redealt"].tolist() == [1, 0] and info["_redealt"].tolist() == [True, False]


def test_a_list_of_opponents_sits_next_opposite_previous():
    """From every learner seat (seats 1 and 3 tell the seat relative to the learner's, to_act - seat, from
    to_act + seat, a mutant 0 and 2 did not catch)."""
    class Spy(RandomAgent):
        def __init__(self):
            self.seats = set()

        def act(self, obs, rng):
            self.seats.update(obs["seat"].tolist())
            return super().act(obs, rng)

    for seat in (0, 1, 2, 3):
        spies = [Spy(), Spy(), Spy()]
        envs = MahjongSingleAgentVectorEnv(4, opponents=spies, seat=seat, seed=0)
        obs, _ = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(30):
            obs, *_ = envs.step(masked_random(obs, rng))
        assert [s.seats for s in spies] == [{(seat + k) % 4} for k in (1, 2, 3)]


def test_editing_the_observation_reset_returned_leaves_action_masks_alone():
    envs = MahjongSingleAgentVectorEnv(2, seed=0)
    obs, _ = envs.reset(seed=0)
    obs["action_mask"][:] = 0
    assert envs.action_masks().any(axis=1).all()


def test_same_step_final_info_zeroes_the_tables_that_did_not_end():
    """Gymnasium's SAME_STEP nesting: ``final_info`` holds the ended tables' values, the others zero (``_only``)."""
    envs = MahjongSingleAgentVectorEnv(4, seat="rotate", autoreset_mode=AutoresetMode.SAME_STEP, seed=0)
    obs, _ = envs.reset(seed=0)
    acts = masked_random(obs, np.random.default_rng(0))
    acts[0] = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])     # an illegal action ends table 0's episode
    _, _, term, _, info = envs.step(acts)
    assert term.tolist() == [True, False, False, False]
    fi = info["final_info"]
    assert fi["_seat"].tolist() == [True, False, False, False] and fi["seat"].tolist() == [0, 0, 0, 0]
    assert fi["illegal_action"].tolist() == [True, False, False, False]


def test_points_waiting_from_a_redealt_hand_are_paid_once():
    """The learner's 四惠牌 points from the hand dealt again come with its first reward, never again (from a
    mutation test: they were paid on every later step)."""
    env = gym.make("mj_env/Beijing-v0", opponents="rule", seat=0)
    obs, info = env.reset(seed=0, options={"wall": _codes(hands={0: "9s9s9s9s123m456m78p"}), "dealer": 0})
    assert info["redealt"] == 1
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert reward == 27 + (info["scores"][info["seat"]] if "scores" in info else 0.0)
    assert not (term or trunc)
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert reward == (info["scores"][info["seat"]] if "scores" in info else 0.0)   # not 27 again
    env.close()


def test_the_step_after_a_truncation_plays_nothing_in_the_abandoned_hand():
    """A truncated hand is abandoned, unsettled; the (ignored) action of the next step is not played in it (from a
    mutation test: PASS there reached the old hand as an illegal move)."""
    envs = MahjongSingleAgentVectorEnv(8, opponents="random", seed=0, max_episode_steps=1)
    obs, _ = envs.reset(seed=0)
    obs, _, term, trunc, _ = envs.step(np.argmax(obs["action_mask"], axis=1))
    assert trunc.any()
    obs, _, term, trunc, _ = envs.step(np.full(8, A.PASS))   # NEXT_STEP: ignored where the episode ended
    assert not term.any() and not trunc.any() and obs["action_mask"].any(axis=1).all()
    envs.close()


def test_the_mask_action_masks_gives_after_a_step_is_not_the_callers_observation():
    """The caller may edit the observation a step returned; ``action_masks()`` keeps the env's own mask."""
    envs = MahjongSingleAgentVectorEnv(2, seed=0)
    obs, _ = envs.reset(seed=0)
    obs, *_ = envs.step(obs["action_mask"].argmax(axis=1))
    want = obs["action_mask"] != 0
    obs["action_mask"][:] = 0
    assert (envs.action_masks() == want).all() and want.any(axis=1).all()


def test_the_one_table_env_refuses_a_step_after_its_episode_ended():
    """``MahjongSingleAgentEnv``: once an episode terminated, ``step`` is an ActionError until ``reset``."""
    env = MahjongSingleAgentEnv()
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    *_, term, _trunc, info = env.step(illegal)                 # penalized: the episode ends at once
    assert term and info["illegal_action"]
    with pytest.raises(A.ActionError, match="reset"):
        env.step(A.PASS)
    obs, _ = env.reset()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_the_constructor_refuses_bools_for_numbers_and_malformed_opponents():
    """True is no seat and no step count (Python would read both as 1); an opponent needs a callable act and a
    list of opponents names three seats, not four (from a mutation test: each was taken)."""
    class NoAct:
        name, act = "no-act", 5

    for kw, err, match in [({"seat": True}, ValueError, "seat must be 0-3"),
                           ({"max_episode_steps": True}, ValueError, "max_episode_steps must be None or an integer"),
                           ({"opponents": NoAct()}, TypeError, "has no act"),
                           ({"opponents": ["rule"] * 4}, ValueError, "one spec or three .* got 4")]:
        with pytest.raises(err, match=match):
            MahjongSingleAgentVectorEnv(2, **kw)


def test_seat_random_draws_all_four_seats():
    """``seat="random"``: drawn from 0-3 every episode, seat 3 included (from a mutation test: drawing from 0-2
    went unnoticed)."""
    envs = MahjongSingleAgentVectorEnv(16, opponents="random", seat="random", seed=0)
    seats = np.concatenate([envs.reset(seed=s)[1]["seat"] for s in range(3)])
    assert set(seats.tolist()) == {0, 1, 2, 3}


def test_a_reset_drops_the_points_waiting_from_a_redealt_hand():
    """Points of a hand the learner never decided in wait for the episode's first reward; a reset starts anew and
    drops them, as it drops the hand in play (from a mutation test: they were paid after the reset)."""
    env = gym.make("mj_env/Beijing-v0", opponents="rule", seat=0)
    _, info = env.reset(seed=0, options={"wall": _codes(hands={0: "9s9s9s9s123m456m78p"}), "dealer": 0})
    assert info["redealt"] == 1                                   # 27 points wait for the next reward
    obs, info = env.reset(seed=0)
    assert "redealt" not in info
    _, reward, *_, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert reward == (info["scores"][info["seat"]] if "scores" in info else 0.0)


def test_register_envs_keeps_the_registered_ids_and_adds_the_missing_ones(monkeypatch):
    """``register_envs`` (run by ``import mj_env``) keeps an id already registered and still registers the others
    (from a mutation test: stopping at the first registered id went unnoticed)."""
    from mj_env.registration import register_envs
    kept = gym.registry["mj_env/Beijing-v0"]
    monkeypatch.delitem(gym.registry, "mj_env/Hebei-v0")
    register_envs()
    assert gym.registry["mj_env/Beijing-v0"] is kept
    spec = gym.registry["mj_env/Hebei-v0"]
    assert spec.kwargs == {"rules": "hebei"} and spec.entry_point == "mj_env.single_agent:MahjongSingleAgentEnv"


def test_a_closed_one_table_env_refuses_new_opponents():
    env = MahjongSingleAgentEnv(opponents="rule")
    env.close()
    with pytest.raises(RuntimeError, match="this MahjongSingleAgentEnv is closed"):
        env.set_opponents("random")


def test_the_vector_env_plays_a_list_of_ints_as_the_array_of_them():
    """An action batch may be a sequence of ints (``mj_env.actions.action_batch``); it is played as its int64 array."""
    envs, twin = (MahjongSingleAgentVectorEnv(3, opponents="random", seed=0) for _ in range(2))
    obs, _ = envs.reset(seed=0)
    twin.reset(seed=0)
    acts = masked_random(obs, np.random.default_rng(0))
    o1, r1, *_ = envs.step([int(a) for a in acts])
    o2, r2, *_ = twin.step(acts)
    np.testing.assert_array_equal(o1["observation"], o2["observation"])
    np.testing.assert_array_equal(r1, r2)


def test_an_unknown_opponent_name_points_to_agent_objects():
    with pytest.raises(ValueError, match=r"^opponent: unknown agent 'strong'.*; or pass an agent object"):
        MahjongSingleAgentVectorEnv(2, opponents="strong")


def test_a_hand_redealt_at_an_autoreset_is_no_hand_of_the_learners_infos(monkeypatch):
    """NEXT_STEP: a table whose episode ended is dealt anew in the next step; a hand that ends there before the
    learner's first decision (the dealer's 天和) is dealt again and counted in ``redealt``, not reported as the
    learner's settled hand in ``scores``/``win``... or ``last_settlements`` (from a mutation test: recording the
    settlements of such hands in ``_settled`` went unnoticed)."""
    from walls import build_wall, deals_first

    import mj_env.engine as engine_module
    tian_hu = build_wall("beijing", hands={0: "123m456m789p11s234s"}, indicator="8s", seed=1)
    envs = MahjongSingleAgentVectorEnv(1, opponents="rule", seat=2, seed=0)
    obs, _ = envs.reset(seed=0)
    _, _, term, _, _ = envs.step(np.argmin(obs["action_mask"], axis=1))   # illegal: penalized, the episode ends
    assert term[0]
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, tian_hu, 1))
    obs, reward, term, _, info = envs.step(np.array([A.PASS]))   # dealt anew: the dealer's 天和, then dealt again
    assert info["redealt"].tolist() == [1] and not term[0] and reward[0] == 0
    assert "_scores" not in info and envs.last_settlements == {}


# --------------------------------------------------------------------------- render() without a render mode


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
