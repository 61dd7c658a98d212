"""Gaps in the single-agent envs' tests found by a mutation round of ``mj_env/single_agent.py`` (each test
fails under the mutant it names and passes on the code)."""
from __future__ import annotations

import numpy as np
import pytest
from walls import tian_hu_wall

from mj_env import actions as A
from mj_env.baselines import AgentError, uniform_legal
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv


def test_rotate_keeps_the_seat_of_a_hand_an_opponent_won_before_the_learners_first_decision():
    """seat="rotate": a hand that ends before the learner's first decision was no episode, so the seat it gave
    is kept for the hand dealt again (module docstring; ``_deal(redeal=True)``). Here the dealer's 天和 at
    table 1, where the learner sits South: the mutant ``_deal(redeal, redeal=False)`` in ``_advance`` moved
    it on to West (the 四惠牌-at-the-deal path was already tested)."""
    wall = tian_hu_wall()
    envs = MahjongSingleAgentVectorEnv(2, opponents="rule", seat="rotate")
    _, info = envs.reset(seed=0, options={"walls": [wall, wall], "dealers": [0, 0]})
    assert info["redealt"].tolist() == [0, 1]          # table 0: the learner is the dealer and decides
    assert info["seat"].tolist() == [0, 1]
    assert envs._episodes.tolist() == [1, 1]


def _random_run(envs, steps: int = 6) -> list:
    rng = np.random.default_rng(3)
    obs, info = envs.reset()          # no seed: the constructor's seed goes on
    out = [info["seat"].copy(), obs["observation"].copy()]
    for _ in range(steps):
        obs, rew, *_ = envs.step(uniform_legal(obs["action_mask"], rng))
        out += [obs["observation"].copy(), rew.copy()]
    return out


def test_an_unseeded_reset_keeps_the_constructors_seed_for_opponents_and_seats():
    """``MahjongSingleAgentVectorEnv(seed=N)`` then ``reset()`` repeats: the opponents' and seats' generator is
    the constructor's, and only a seeded reset replaces it (the mutant ``if True:`` before
    ``self.rng = _players_rng(seed)`` gave an unseeded reset a fresh, unseeded generator)."""
    runs = [_random_run(MahjongSingleAgentVectorEnv(4, opponents="random", seat="random", seed=7)) for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))


def test_the_vector_env_refuses_a_step_before_reset_and_after_close():
    """``step`` before the first ``reset`` and after ``close`` raises and plays nothing (the mutants dropping
    ``self._check_open()`` or the ``_started`` check in ``MahjongSingleAgentVectorEnv.step`` went unnoticed: the
    existing test's ``match="reset"`` was met by another error)."""
    envs = MahjongSingleAgentVectorEnv(2, opponents="rule", seed=0)
    with pytest.raises(A.ActionError, match=r"^step\(\) before reset\(\): call reset\(\) first$"):
        envs.step(np.zeros(2, dtype=np.int64))
    obs, _ = envs.reset(seed=0)
    envs.close()
    with pytest.raises(RuntimeError, match="closed"):
        envs.step(np.flatnonzero(obs["action_mask"][0])[:1].repeat(2))


def test_a_first_one_table_reset_whose_opponent_fails_raises_the_opponents_error():
    """The one-table env's first reset, unseeded, before any generator exists: an opponent's failure is passed on
    as it is (``AgentError``) and the env stays unstarted; a later reset deals (the mutant ``if True:`` before
    restoring the generator's state raised AttributeError on the absent generator instead)."""
    from test_single_agent import _FailsWhenTold
    flaky = _FailsWhenTold()
    env = MahjongSingleAgentEnv(opponents=flaky, seat=2)   # seat 2: the dealer's opponents act first
    flaky.fail = "raise"
    with pytest.raises(AgentError, match="opponent crashed"):
        env.reset()
    assert env._np_random is None
    with pytest.raises(A.ActionError, match="reset"):
        env.step(A.PASS)
    obs, info = env.reset(seed=0)
    assert obs["action_mask"].any() and info["seat"] == 2


class _Counting:
    """Uniformly random legal actions; records how many rows each ``act`` call got."""
    name = "counting"

    def __init__(self):
        self.rows = []

    def act(self, obs, rng):
        self.rows.append(len(obs["seat"]))
        return uniform_legal(obs["action_mask"], rng)


def test_one_opponent_object_acts_once_per_round_for_every_seat_it_plays():
    """One agent object for the three seats gets one batched ``act`` per round, whatever seats act at the tables
    (``_opponent_actions``; a network opponent's batching depends on it). With ``seat="rotate"`` the dealer East
    opens at tables 1-3, where it sits next, opposite and previous to the learner: one call of 3 rows (the mutants
    that split that call per relative seat, ``if False`` or ``== 2`` in the test of one object, went unnoticed;
    the same object's ``_opponents[1]`` in its branch is equivalent)."""
    agent = _Counting()
    envs = MahjongSingleAgentVectorEnv(4, opponents=agent, seat="rotate", seed=0)
    _, info = envs.reset(seed=0)
    assert info["seat"].tolist() == [0, 1, 2, 3]
    assert agent.rows[0] == 3


def test_an_opponent_is_asked_only_when_its_seat_acts_somewhere():
    """Three opponent objects: each ``act`` call holds at least one table where that opponent's seat acts (the
    mutant ``if True:`` for ``if sel.any():`` in ``_opponent_actions`` asked the others with empty batches)."""
    agents = [_Counting(), _Counting(), _Counting()]
    envs = MahjongSingleAgentVectorEnv(1, opponents=agents, seat=0, seed=0)
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, *_ = envs.step(np.array([rng.choice(np.flatnonzero(obs["action_mask"][0]))]))
    assert all(a.rows for a in agents)
    assert min(r for a in agents for r in a.rows) == 1


def test_same_step_final_info_leaves_out_a_key_none_of_the_ended_tables_has():
    """``_only`` (SAME_STEP's ``final_info``): a key that none of the ended tables has is left out, as Gymnasium
    nests an ended env's infos (the mutant ``if True:`` for ``if keep.any():`` kept it with an all-False mask)."""
    infos = {"seat": np.array([0, 1]), "_seat": np.array([True, True]),
             "redealt": np.array([0, 2]), "_redealt": np.array([False, True])}
    out = MahjongSingleAgentVectorEnv._only(infos, np.array([True, False]))
    assert sorted(out) == ["_seat", "seat"]
    assert out["seat"].tolist() == [0, 0] and out["_seat"].tolist() == [True, False]
    assert infos["seat"].tolist() == [0, 1]            # the caller's arrays are left alone


def test_a_seeded_vector_reset_sets_gymnasiums_np_random_seed():
    """``reset(seed=N)`` does Gymnasium's ``VectorEnv.reset`` bookkeeping: ``np_random_seed`` reads N (the mutant
    dropping ``self._seeded(seed)`` in ``_reset`` kept the constructor's)."""
    envs = MahjongSingleAgentVectorEnv(2, opponents="random", seed=3)
    envs.reset(seed=5)
    assert envs.np_random_seed == 5
    envs.reset()
    assert envs.np_random_seed == 5


@pytest.mark.parametrize("make", [
    lambda: MahjongSingleAgentVectorEnv(3, opponents="rule"),
    lambda: MahjongVectorEnv(3)])
def test_a_seeded_reset_that_deals_no_table_still_seeds_the_walls_to_come(make):
    """``reset(seed=5, options={"reset_mask": all False})`` deals nothing, but its seed decides the walls dealt
    after it, whatever the env played before, in the single-agent vector env as in MahjongVectorEnv (the
    mutation round found the single-agent env reseeding only its players' generator there)."""
    def walls_after(first_seed, steps):
        envs = make()
        obs, _ = envs.reset(seed=first_seed)
        rng = np.random.default_rng(first_seed)
        for _ in range(steps):
            obs, *_ = envs.step(uniform_legal(obs["action_mask"], rng))
        envs.reset(seed=5, options={"reset_mask": np.zeros(3, dtype=bool)})
        envs.reset(options={"reset_mask": np.ones(3, dtype=bool)})
        return envs.engine.state.wall.copy()

    assert np.array_equal(walls_after(1, 0), walls_after(2, 7))
