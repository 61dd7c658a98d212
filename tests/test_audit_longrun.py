"""Audit: long runs, numeric limits, seeds at the edges and threads (what breaks after hours of training
or under unusual-but-legal configurations)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import mj_env
from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("seed", [True, -1, np.int8(-3), "3", 1.0])
def test_sb3_seed_is_refused_at_once_as_the_other_envs_refuse_it(seed):
    """SB3's VecEnv.seed stored any value and only the next reset refused it (and kept refusing, the bad seed
    still stored): True was taken as 1 (every other env refuses a bool seed), "3" failed inside SB3 with
    "can only concatenate str". Now seed() checks it with the envs' own message and keeps the earlier seed."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(2, seed=0)
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer") as sb3_error:
        venv.seed(seed)
    with pytest.raises(ValueError) as aec_error:
        mj_env.env().reset(seed=seed)
    assert str(sb3_error.value) == str(aec_error.value)
    venv.seed(5)
    first = venv.reset()["observation"].copy()
    venv.seed(5)
    np.testing.assert_array_equal(venv.reset()["observation"], first)


def test_sb3_seed_at_the_top_of_uint64_does_not_wrap():
    """np.uint64(2**64 - 1) + i overflowed (a RuntimeWarning, env 1 listed seed 0); the seeds are Python ints."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(3, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seeds = venv.seed(np.uint64(2**64 - 1))
    assert seeds == [2**64 - 1, 2**64, 2**64 + 1]
    first = venv.reset()["observation"].copy()
    ref = MahjongVectorEnv(3)
    assert ref.reset(seed=2**64 - 1) is not None  # the same seed the other envs take
    venv.seed(2**64 - 1)
    np.testing.assert_array_equal(venv.reset()["observation"], first)


def _random_game(rules, seed, steps, out, key, num_envs=4):
    """A digest of ``steps`` random legal steps of a vector env: rewards and observations, in order."""
    env = MahjongVectorEnv(num_envs, rules=rules, seed=seed)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, *_ = env.step(acts)
        trace.append((rewards.copy(), obs["observation"].copy()))
    out[key] = trace


def test_envs_stepped_in_threads_play_as_one_at_a_time():
    """Two engines stepped at once in two threads (and a deepcopy of a third taken meanwhile) share no state:
    each plays the game it plays alone with the same seeds."""
    import copy
    import sys
    import threading

    jobs = [("beijing", 1), ("hebei", 2), ("quemen", 3)]
    together, alone = {}, {}
    other = MahjongVectorEnv(2, seed=9)
    other.reset(seed=9)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # interleave the threads often
    try:
        threads = [threading.Thread(target=_random_game, args=(r, s, 40, together, r)) for r, s in jobs]
        for t in threads:
            t.start()
        copies = [copy.deepcopy(other) for _ in range(20)]
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    for r, s in jobs:
        _random_game(r, s, 40, alone, r)
        for (ra, oa), (rb, ob) in zip(together[r], alone[r], strict=True):
            np.testing.assert_array_equal(ra, rb)
            np.testing.assert_array_equal(oa, ob)
    assert all(c.engine.state.wall.tobytes() == other.engine.state.wall.tobytes() for c in copies)


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_a_match_of_the_most_hands_at_the_largest_base_ends_on_time_and_sums_exactly(rules):
    """hands_per_episode and base at their largest: the episode ends after exactly that many hands (the
    hand counter is int16, 10,000 fits), and every reward is the settlement's points exactly (float64)."""
    from mj_env.baselines import RuleBasedAgent
    from mj_env.rules import MAX_BASE, MAX_HANDS_PER_EPISODE

    # the rule agent, which wins where it can: random play ended every one of these hands drawn, so no point was
    # settled at the largest base and the checks below held of zeros only
    agent = RuleBasedAgent(rules)
    env = MahjongVectorEnv(2, rules=rules, seed=4, hands_per_episode=MAX_HANDS_PER_EPISODE, base=MAX_BASE)
    obs, _ = env.reset(seed=4)
    st = env.engine.state
    st.hands_played[:] = MAX_HANDS_PER_EPISODE - 2  # two hands left of the match
    rng = np.random.default_rng(0)
    hands, ended_after, wins = np.zeros(2, dtype=np.int64), {}, 0
    for _ in range(2000):
        obs, rewards, term, _, infos = env.step(agent.act(obs, rng))
        for b in np.flatnonzero(infos["_settlement"]):
            hands[b] += 1
            settled = [*(infos.get("earlier_settlements", [None] * 2)[b] or []), infos["settlement"][b]]
            points = [sum(s["scores"][i] for s in settled) for i in range(4)]
            assert [int(x) for x in rewards[b]] == points and rewards[b].tolist() == points
            won = [s for s in settled if "input" in s]  # (a drawn hand's settlement has no input)
            assert all(s["input"]["base"] == MAX_BASE for s in won)
            assert all(max(s["scores"]) >= MAX_BASE for s in won)
            wins += len(won)
        for b in np.flatnonzero(term):
            ended_after.setdefault(int(b), int(hands[b]))
        if len(ended_after) == 2:
            break
    assert ended_after == {0: 2, 1: 2}
    assert wins >= 2
