"""Gaps in the single-agent envs' tests found by mutation rounds of ``mj_env/single_agent.py`` (rounds 5 to 7 of
the environment layers, after those of tests/test_env_layers_mutants.py; each test fails under the mutant it names
and passes on the code). Round 6 took the opponent checks, ``_one_info``, ``checked_seat``, ``set_opponents``,
``_undoable`` and the constructors; round 7 ``_undoable``, the constructors and the small helpers."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from walls import tian_hu_wall

from mj_env import actions as A
from mj_env.baselines import AgentError, RuleBasedAgent, RulesMismatchWarning, uniform_legal
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv, checked_seat
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


# ------------------------------------------------------------------------------------------------------ round 6
def test_the_rules_mismatch_warning_of_set_opponents_points_at_the_callers_line():
    """``set_opponents(agent)`` with an agent built for other rules warns at the line that called it (the
    ``stacklevel`` given to ``warn_rules_mismatch`` in ``_opponent``), so the user sees their own code; the
    mutant ``stacklevel=5`` blamed a frame of pytest's instead."""
    env = MahjongSingleAgentVectorEnv(1, rules="quemen")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.set_opponents(RuleBasedAgent())
    mismatch = [w for w in caught if issubclass(w.category, RulesMismatchWarning)]
    assert len(mismatch) == 1
    assert mismatch[0].filename == __file__


def test_the_one_table_envs_infos_hold_python_scalars_and_no_mask_keys():
    """The one-table env's infos are the vector form's infos of table 0: a scalar as a Python number, no
    ``_key`` masks, a key only where its mask is set (``_one_info``). The mutants that kept NumPy scalars
    (``.item()`` never taken) or let the ``_seat`` mask through (``and`` -> ``or``) went unnoticed."""
    env = MahjongSingleAgentEnv(seat=2)
    obs, info = env.reset(seed=0)
    assert info == {"seat": 2} and type(info["seat"]) is int
    _, _, terminated, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not terminated
    assert info == {"seat": 2} and type(info["seat"]) is int


def test_a_numpy_seat_is_kept_as_a_python_int():
    """``checked_seat`` takes a NumPy integer seat (0-3) and gives it back as a Python ``int`` (the env's
    ``seat_mode`` then prints, pickles and compares as the int it is); the mutant that always returned the
    argument as given kept ``np.int64``."""
    assert type(checked_seat(np.int64(2))) is int and checked_seat(np.int64(2)) == 2
    env = MahjongSingleAgentVectorEnv(1, seat=np.uint8(3))
    assert type(env.seat_mode) is int and env.seat_mode == 3
    assert checked_seat("rotate") == "rotate"


def _mismatch_file(build) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [w.filename for w in caught if issubclass(w.category, RulesMismatchWarning)]


def test_the_rules_mismatch_warning_points_at_the_users_line_however_the_opponent_came():
    """The warning names the user's own line whatever path brought the opponent in: the vector env's
    constructor, the three-spec form, the ``opponents`` setter, the one-table env and ``gym.make`` (a fixed
    stacklevel named a line inside mj_env/single_agent.py for all but a direct one-spec ``set_opponents``)."""
    import gymnasium as gym

    import mj_env  # noqa: F401 (registers the ids)

    vec = MahjongSingleAgentVectorEnv(1, rules="quemen")

    def setter():
        vec.opponents = RuleBasedAgent()

    for build in (lambda: MahjongSingleAgentVectorEnv(1, rules="quemen", opponents=RuleBasedAgent()),
                  lambda: vec.set_opponents([RuleBasedAgent(), "rule", "random"]),
                  setter,
                  lambda: MahjongSingleAgentEnv(rules="quemen", opponents=RuleBasedAgent()),
                  lambda: gym.make("mj_env/Quemen-v0", opponents=RuleBasedAgent())):
        assert _mismatch_file(build) == [__file__]


# ------------------------------------------------------------------------------------------------------ round 7
def test_an_interrupt_after_a_step_recorded_its_mask_leaves_the_masks_as_before(monkeypatch):
    """A step that fails, even at its very end (an interrupt after the new mask was recorded, while the infos
    are made), changes nothing (docs/RULES.md 7; ``_undoable``): ``action_masks()`` still gives the masks of
    the decision the learner has not yet made, and the env plays on as a twin that never failed. The mutants
    that never put the saved mask back (``if mask is not None`` negated or False, the assignment dropped) left
    the failed step's masks in place."""
    envs = MahjongSingleAgentVectorEnv(2, seed=0)
    twin = MahjongSingleAgentVectorEnv(2, seed=0)
    obs, _ = envs.reset(seed=0)
    twin.reset(seed=0)
    before = envs.action_masks().copy()
    acts = uniform_legal(obs["action_mask"], np.random.default_rng(0))

    def interrupted(extra=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(envs, "_infos", interrupted)
    with pytest.raises(KeyboardInterrupt):
        envs.step(acts)
    monkeypatch.undo()
    assert np.array_equal(envs.action_masks(), before)
    assert np.array_equal(envs.action_masks(), twin.action_masks())
    o1, r1, t1, _, _ = envs.step(acts)
    o2, r2, t2, _, _ = twin.step(acts)
    assert np.array_equal(o1["observation"], o2["observation"]) and np.array_equal(r1, r2) and np.array_equal(t1, t2)
    assert np.array_equal(envs.action_masks(), twin.action_masks())


def test_a_same_step_table_whose_episode_ended_shows_no_redeal_of_its_own_new_deal_unless_there_was_one():
    """Under ``SAME_STEP`` an ended table's top-level infos are its new episode's reset infos: ``redealt`` only
    where the new deal was dealt again (module docstring; ``_forget_hands`` clears the count before the deal). An
    illegal action at every table ends every episode; seed 0 deals no hand that ends before the learner decides,
    so no ``redealt`` at all. The mutant that set the count to 1 instead of 0 showed ``redealt`` = 1 everywhere."""
    from gymnasium.vector import AutoresetMode
    envs = MahjongSingleAgentVectorEnv(4, seed=0, autoreset_mode=AutoresetMode.SAME_STEP)
    obs, infos = envs.reset(seed=0)
    assert "redealt" not in infos
    _, _, terminated, _, infos = envs.step(np.argmin(obs["action_mask"], axis=1))  # illegal everywhere
    assert terminated.all() and infos["final_info"]["illegal_action"].all()
    assert "redealt" not in infos and "redealt" not in infos["final_info"]


def test_a_closed_vector_env_refuses_action_masks():
    """``action_masks()`` of a closed vector env raises as its ``step`` and ``reset`` do, rather than answering
    the masks of a table no longer played (the one-table env already did); the mutant without the check gave the
    last masks."""
    envs = MahjongSingleAgentVectorEnv(2, seed=0)
    envs.reset(seed=0)
    envs.close()
    with pytest.raises(RuntimeError, match="is closed"):
        envs.action_masks()


def test_the_observation_spaces_are_the_documented_boxes():
    """The module docstring's table: ``{"observation": Box(0, 255, (14, 34), uint8), "action_mask": Box(0, 1,
    (127,), int8)}`` ((18, 34) with ``obs="v2"``), in the one-table env and per table in the vector env. The
    mutant ``Box(0, 2, ...)`` for the mask went unnoticed (every mask still lies inside it). The action spaces are
    ``Discrete(127)`` and, batched, its ``batch_space`` (only the TorchRL example's test, skipped where TorchRL is
    not installed, noticed the vector env without its ``action_space``)."""
    import gymnasium as gym
    from gymnasium import spaces

    from mj_env.single_agent import MahjongSingleAgentEnv
    mask = spaces.Box(0, 1, (127,), dtype=np.int8)
    for obs, planes in (("v1", 14), ("v2", 18)):
        expected = spaces.Dict({"observation": spaces.Box(0, 255, (planes, 34), dtype=np.uint8), "action_mask": mask})
        envs = MahjongSingleAgentVectorEnv(2, obs=obs)
        assert envs.single_observation_space == expected
        assert envs.observation_space == gym.vector.utils.batch_space(expected, 2)
        assert (envs.observation_space["action_mask"].high == 1).all()
        assert MahjongSingleAgentEnv(obs=obs).observation_space == expected
        assert envs.single_action_space == spaces.Discrete(127) == MahjongSingleAgentEnv(obs=obs).action_space
        assert envs.action_space == gym.vector.utils.batch_space(spaces.Discrete(127), 2)


def test_the_one_table_env_names_its_observation_layout():
    """``observation_layout`` names the ``obs`` layout (module docstring), in the one-table env as in the vector
    form and the AEC env; the mutant that left the one-table env without it went unnoticed."""
    import gymnasium as gym

    from mj_env.single_agent import MahjongSingleAgentEnv
    assert MahjongSingleAgentEnv().observation_layout == "mj_obs_v1"
    assert MahjongSingleAgentEnv(obs="v2").observation_layout == "mj_obs_v2"
    assert gym.make("mj_env/Beijing-v0", obs="v2").unwrapped.observation_layout == "mj_obs_v2"


def test_the_one_table_env_refuses_a_step_before_its_first_reset_with_its_own_message():
    """A one-table env steps only after ``reset()``: before it, any action (in the action space or not) is refused
    with the one-table env's own ``ActionError`` ("the episode is over (or not started)"), as after an episode's
    end. The mutant that started with ``_done = False`` let the step through to the action check and the vector
    form, whose messages speak of an action space or of ``step() before reset()``."""
    from mj_env.actions import ActionError
    from mj_env.single_agent import MahjongSingleAgentEnv
    env = MahjongSingleAgentEnv()
    for action in (0, 500):
        with pytest.raises(ActionError, match=r"the episode is over \(or not started\): call reset\(\) first"):
            env.step(action)
    obs, _ = env.reset(seed=0)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
