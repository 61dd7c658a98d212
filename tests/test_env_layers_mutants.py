"""Mutation-testing rounds on the environment layers (mj_env/aec.py, vector.py, single_agent.py, sb3.py): tests
that kill mutants which the other tests let through. Each test names what a wrong change got past. Round 1 covered
the four layers; round 3 the Gymnasium-facing ones (vector.py, single_agent.py, sb3.py); round 4 the constructors,
render and close of mj_env.vector and mj_env.sb3. (Round 2's tests, which need SB3, are in tests/test_sb3_mutants.py;
the later rounds on single_agent.py in tests/test_single_agent_mutants.py.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from walls import deals_first, four_hui_9s_wall, four_hui_wall, tian_hu_wall

import mj_env
import mj_env.engine as engine_module
from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.rules import get_rules
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import shuffled_walls


def _wall(rules="beijing", seed=0):
    return shuffled_walls(get_rules(rules), np.random.default_rng(seed), 1)[0]


# ---------------------------------------------------------------------------------------------- AEC env
@pytest.mark.parametrize(("rules", "seed", "n"), [("beijing", 0, 1), ("hebei", 1, 2), ("quemen", 2, 2), ("beijing", 3, 3)])
def test_aec_plays_as_the_vector_env_decision_by_decision(rules, seed, n):
    """AEC envs and an n-table vector env on the same walls: the same seat to act, the same observation and
    mask at every decision, nothing paid and nobody done before the end, then the same points and settlement
    (mutants: the planes of every observation drawn as an ended hand's; rewards starting at 1 after reset; the
    vector env's one-table observation path taken for two tables)."""
    walls = [_wall(rules, seed * 10 + i) for i in range(n)]
    dealers = [(seed + i) % 4 for i in range(n)]
    aecs = [mj_env.env(rules=rules) for _ in range(n)]
    for e, wall, dealer in zip(aecs, walls, dealers):
        e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
        assert e.rewards == dict.fromkeys(e.possible_agents, 0)
        assert e.truncations == dict.fromkeys(e.possible_agents, False)
    venv = MahjongVectorEnv(num_envs=n, rules=rules)
    vobs, _ = venv.reset(options={"walls": walls, "dealers": dealers})
    rng = np.random.default_rng(seed)
    live = set(range(n))
    for _ in range(1000):
        assert vobs["observation"].shape[0] == n
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in vobs["action_mask"]])
        for b in live:
            e, agent = aecs[b], f"player_{int(vobs['seat'][b])}"
            assert e.agent_selection == agent
            obs = e.observe(agent)
            assert np.array_equal(obs["observation"], vobs["observation"][b])
            assert np.array_equal(obs["action_mask"], vobs["action_mask"][b])
            assert not any(e.observe(o)["action_mask"].any() for o in e.possible_agents if o != agent)
            e.step(int(actions[b]))
        vobs, vrew, vterm, _, infos = venv.step(actions)
        for b in sorted(live):
            e = aecs[b]
            if vterm[b]:
                assert [e.rewards[a] for a in e.possible_agents] == vrew[b].tolist()
                assert all(e.terminations.values()) and not any(e.truncations.values())
                for a in e.possible_agents:
                    assert e.infos[a]["settlement"]["scores"] == infos["settlement"][b]["scores"]
                live.discard(b)
            else:
                assert all(r == 0 for r in e.rewards.values()) and not any(e.terminations.values())
                assert not any(e.truncations.values()) and not vrew[b].any()
        if not live:
            break
    else:
        pytest.fail("a hand did not end")


def test_an_action_for_an_agent_whose_episode_is_over_is_refused_naming_it():
    """After the hand (here ended at its deal, 四惠牌) a step with an action other than None is an ActionError
    naming the agent and the action, and changes nothing; None steps the agent out (mutants: the check of the
    action skipped, so the action was silently taken as a dead step; the action's name left unset)."""
    e = mj_env.env()
    e.reset(options={"wall": [CODES[t] for t in four_hui_wall()], "dealer": 0})
    assert all(e.terminations.values())
    agent = e.agent_selection
    with pytest.raises(A.ActionError, match=rf"{agent}: action 'discard 6m' after {agent}'s episode is over"):
        e.step(5)
    with pytest.raises(A.ActionError, match=rf"{agent}: action 'five' after .* \(terminated\)"):
        e.step("five")
    assert e.agent_selection == agent and agent in e.agents
    e.step(None)
    assert agent not in e.agents


@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_reset_and_step_print_and_warn_nothing_outside_human_mode(render_mode, capsys):
    """Only a "human" env draws itself at reset and step (mutants: drawing in every mode, which under
    render_mode=None is Gymnasium's 'no render mode' warning at every call)."""
    e = mj_env.env(render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.reset(seed=0)
        for _ in range(8):
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------------------------------------- SB3 VecEnv
def test_sb3_time_limit_truncated_is_false_at_every_step_that_was_not_cut():
    """SB3's ``TimeLimit.truncated`` is True only for an episode cut by ``max_episode_steps``: False at every
    step that goes on and at every episode the rules ended (mutant: ``truncated or not terminated``)."""
    pytest.importorskip("stable_baselines3")
    from mj_env.sb3 import MahjongSB3VecEnv

    venv = MahjongSB3VecEnv(4, seed=0, max_episode_steps=6)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    cut = 0
    for _ in range(20):
        obs, _, dones, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        for done, info in zip(dones, infos):
            cut += info["TimeLimit.truncated"]
            assert info["TimeLimit.truncated"] == (bool(done) and "scores" not in info)
    assert cut > 0


# ------------------------------------------------------------------------- round 3: vector, single-agent, SB3
def test_vector_earlier_settlements_list_every_hand_before_the_last_when_three_end_in_one_step(monkeypatch):
    """A match of three hands: East wins the first by 天和, and the next two deals give East 四惠牌 (it keeps the
    deal), each ending at its deal in the same step. ``earlier_settlements`` holds both hands before the last
    (mutant: ``every(b)[:-1]`` as ``[:1]``, the same with two hands, dropped the second)."""
    venv = MahjongVectorEnv(num_envs=1, seed=0, hands_per_episode=3)
    venv.reset(seed=0, options={"walls": [tian_hu_wall()], "dealers": [0]})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui_9s_wall(), 2))
    _, rewards, term, _, infos = venv.step(np.array([A.WIN]))
    assert term[0] and infos["_earlier_settlements"][0]
    assert [s["fan"] for s in infos["earlier_settlements"][0]] == [11, 9]
    assert infos["settlement"][0]["fan"] == 9
    assert rewards[0].tolist() == [3 * (11 + 9 + 9), -(11 + 9 + 9), -(11 + 9 + 9), -(11 + 9 + 9)]


def test_same_step_autoreset_lets_the_opponents_play_up_to_the_learners_turn_in_the_new_episode():
    """SAME_STEP: a table whose episode ended is dealt anew and the opponents act there until the learner decides,
    so the returned row is the learner's decision (its seat to act, its mask), as after ``reset``. With seat 2 under
    beijing East deals, so a new hand opens on an opponent's turn (mutant: the ``_advance`` after the SAME_STEP deal
    deleted; the returned mask was East's)."""
    from mj_env.single_agent import MahjongSingleAgentVectorEnv

    venv = MahjongSingleAgentVectorEnv(4, seat=2, seed=0, opponents="random", autoreset_mode="SameStep")
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        acts = uniform_legal(obs["action_mask"], rng)
        obs, _, term, trunc, _ = venv.step(acts)
        ended += int((term | trunc).sum())
        np.testing.assert_array_equal(venv.engine.state.to_act, venv.seats)
        np.testing.assert_array_equal(obs["action_mask"], venv.engine.legal_mask().view(np.int8))
        if ended >= 3:
            break
    assert ended >= 3


# ------------------------------------------------ round 4: vector and SB3 constructors, render and close
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
