"""The batched vector environment: a training-style loop with autoreset, shapes and dtypes."""
from __future__ import annotations

import numpy as np
import pytest
from walls import four_hui_wall

from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.engine import _STATE_FIELDS
from mj_env.observation import N_PLANES, OBS_NAME, P_HAND, P_MELDS, P_RIVERS
from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_vector_loop_with_autoreset(preset):
    N = 32
    venv = MahjongVectorEnv(num_envs=N, rules=preset, seed=0)
    assert venv.metadata["autoreset_mode"].value == "SameStep"
    assert venv.observation_layout == OBS_NAME
    obs, infos = venv.reset(seed=1)
    rng = np.random.default_rng(0)
    finished = 0
    totals = np.zeros(4)
    settled = np.zeros(4)
    for step in range(1500):
        assert obs["observation"].shape == (N, N_PLANES, 34) and obs["observation"].dtype == np.uint8
        assert obs["action_mask"].shape == (N, 127) and obs["action_mask"].dtype == np.int8
        assert obs["seat"].shape == (N,) and ((obs["seat"] >= 0) & (obs["seat"] < 4)).all()
        assert obs["action_mask"].any(axis=1).all()
        assert obs in venv.observation_space
        actions = uniform_legal(obs["action_mask"], rng)
        obs, rewards, term, trunc, infos = venv.step(actions)
        assert rewards.shape == (N, 4) and rewards.dtype == np.float64
        assert term.shape == (N,) and term.dtype == bool and not trunc.any()
        assert np.allclose(rewards.sum(axis=1), 0)
        for i in np.flatnonzero(infos["_settlement"]):
            assert list(infos["settlement"][i]["scores"]) == rewards[i].tolist()
            settled += infos["settlement"][i]["scores"]
        assert (rewards[~term] == 0).all()  # points move only when a hand ends
        # SAME_STEP autoreset: a table whose hand ended already shows the first decision of a new deal
        o = obs["observation"][term]
        assert not o[:, P_RIVERS].any() and not o[:, P_MELDS].any()
        assert (o[:, P_HAND].sum(axis=1) == 14).all()  # the dealer, to discard
        finished += int(term.sum())
        totals += rewards.sum(axis=0)
    assert finished > 100
    assert totals.tolist() == settled.tolist() and totals.sum() == 0  # every hand's points, nothing else
    assert np.abs(totals).sum() > 0
    assert venv.single_observation_space["observation"].contains(obs["observation"][0])
    assert venv.single_observation_space["action_mask"].contains(obs["action_mask"][0])


def test_vector_reset_is_seeded():
    a = MahjongVectorEnv(num_envs=4)
    b = MahjongVectorEnv(num_envs=4)
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    assert (oa["observation"] == ob["observation"]).all()
    oc, _ = b.reset(seed=8)
    assert not (oa["observation"] == oc["observation"]).all()


def test_vector_next_step_autoreset_and_reset_mask():
    from gymnasium.vector import AutoresetMode

    N = 8
    venv = MahjongVectorEnv(num_envs=N, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert MahjongVectorEnv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP  # the class default
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        prev = venv._over.copy()
        obs, rewards, term, _, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        assert not term[prev].any() and not rewards[prev].any()
        assert (obs["action_mask"][term].sum(axis=1) == 1).all()
        for i in np.flatnonzero(infos["_settlement"]):
            assert list(infos["settlement"][i]["scores"]) == rewards[i].tolist()
        assert all(s is None for s in infos["settlement"][~infos["_settlement"]])
        ended += int(term.sum())
    assert ended > 5
    keep = obs["observation"][1].copy()
    obs, _ = venv.reset(options={"reset_mask": np.arange(N) != 1})
    assert (obs["observation"][1] == keep).all()
    keep = obs["observation"][0].copy()  # a list of bools works too, as in the single-agent form
    obs, _ = venv.reset(options={"reset_mask": [False] + [True] * (N - 1)})
    assert (obs["observation"][0] == keep).all()
    for bad in ([True] * (N - 1), [1] * N, np.ones((N, 1), dtype=bool), "all", [[True], [True, False]]):
        with pytest.raises(ValueError, match="reset_mask"):
            venv.reset(options={"reset_mask": bad})
    venv.close()
    assert venv.closed


def test_vector_infos_go_through_dict_info_to_list():
    from gymnasium.wrappers.vector import DictInfoToList

    venv = DictInfoToList(MahjongVectorEnv(num_envs=4, seed=0))
    obs, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    got = 0
    for _ in range(300):
        obs, rewards, _term, _, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        assert isinstance(infos, list) and len(infos) == 4
        for i, info in enumerate(infos):
            if "settlement" in info:
                assert list(info["settlement"]["scores"]) == rewards[i].tolist()
                got += 1
    assert got


def test_a_seed_per_table_is_refused_with_the_reason():
    # Gymnasium's vector API lets reset take a list of seeds (one per sub-env); the batched envs deal every
    # table from one generator, so a list is refused, and the message says why
    from mj_env.single_agent import MahjongSingleAgentVectorEnv
    for envs in (MahjongVectorEnv(num_envs=2, seed=0), MahjongSingleAgentVectorEnv(2, seed=0)):
        with pytest.raises(ValueError, match="one seed deals every table"):
            envs.reset(seed=[1, 2])


def test_obs_v2_in_self_play():
    from mj_env.features import observe_v2
    a, b = MahjongVectorEnv(8, seed=2), MahjongVectorEnv(8, seed=2, obs="v2")
    assert b.observation_layout == "mj_obs_v2" and b.single_observation_space["observation"].shape == (18, 34)
    oa, _ = a.reset(seed=2)
    ob, _ = b.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(100):
        assert b.observation_space.contains(ob)
        np.testing.assert_array_equal(ob["observation"], observe_v2(a.rules, oa["observation"], oa["action_mask"]))
        acts = uniform_legal(oa["action_mask"] != 0, rng)
        oa, ra, *_ = a.step(acts)
        ob, rb, *_ = b.step(acts)
        np.testing.assert_array_equal(ra, rb)
    with pytest.raises(ValueError, match="obs must be"):
        MahjongVectorEnv(2, obs=2)


# ----------------------------------------------------------------------------- the contract's details
# (each from an outside mutation test: the behaviour was documented, and breaking it failed no test)

def test_the_first_reset_deals_every_table():
    from mj_env.single_agent import MahjongSingleAgentVectorEnv
    for envs in (MahjongVectorEnv(num_envs=3, seed=0), MahjongSingleAgentVectorEnv(3, seed=0)):
        with pytest.raises(ValueError, match="the first reset must deal every table"):
            envs.reset(options={"reset_mask": [True, False, True]})
        envs.reset(seed=0, options={"reset_mask": [True, True, True]})   # all marked: a full first reset
        envs.reset(options={"reset_mask": [True, False, True]})          # later, a partial one


def test_seat_is_int64_and_observations_are_in_the_space():
    venv = MahjongVectorEnv(num_envs=4, seed=0)
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert obs["seat"].dtype == np.int64 and obs in venv.observation_space
        obs, *_ = venv.step(uniform_legal(obs["action_mask"], rng))


def test_a_partial_reset_drops_the_points_waiting_at_its_tables():
    """Points of a hand that ended at its deal wait for the table's next step; a reset of that table starts
    a new episode, to which they do not belong (the rows not reset keep theirs)."""
    venv = MahjongVectorEnv(num_envs=3, seed=0)
    venv.reset(seed=0, options={"walls": [four_hui_wall(), four_hui_wall(), four_hui_wall()], "dealers": [0, 0, 0]})
    waiting = venv.pending_rewards.copy()
    assert (waiting[:, 0] > 0).all()
    obs, _ = venv.reset(options={"reset_mask": [True, False, False]})
    *_, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert infos["_deal_points"].tolist() == [False, True, True]
    assert not infos["deal_points"][0].any() and np.array_equal(infos["deal_points"][1:], waiting[1:])


def test_waiting_points_add_to_a_hand_that_ends_in_the_same_step():
    """A table that pays waiting points in a step where its own hand ends gets both (rewards: "settled
    points of the hands that ended in this step", deal_points "which rewards includes")."""
    from walls import build_wall

    from mj_env.actions import WIN
    tianhe = build_wall("beijing", hands={0: "123m456m789p234s55z"}, indicator="9s")  # the dealer wins at once
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    venv.reset(seed=0, options={"walls": [four_hui_wall(), tianhe], "dealers": [0, 0]})
    waiting = venv.pending_rewards[0].copy()
    venv.reset(options={"walls": [tianhe], "dealers": [0], "reset_mask": [True, False]})
    venv.pending_rewards[0] = waiting  # as if the 天和 table had its own waiting points
    _obs, rewards, term, _trunc, infos = venv.step(np.array([WIN, WIN]))
    assert term.tolist() == [True, True] and infos["_settlement"].tolist() == [True, True]
    assert rewards[0].tolist() == (np.array(infos["settlement"][0]["scores"]) + waiting).tolist()
    assert infos["_deal_points"].tolist() == [True, False]
    assert infos["deal_points"][0].tolist() == waiting.tolist()   # the waiting points alone, not the step's rewards
    assert rewards[1].tolist() == infos["settlement"][1]["scores"] == [33, -11, -11, -11]


def test_a_match_reports_each_hand_that_ends_before_the_episode():
    venv = MahjongVectorEnv(num_envs=8, seed=0, hands_per_episode=2)
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    mid = 0
    for _ in range(600):
        obs, rewards, term, _trunc, infos = venv.step(uniform_legal(obs["action_mask"], rng))
        for i in np.flatnonzero(infos["_settlement"] & ~term):   # a first hand ended, the match goes on
            assert list(infos["settlement"][i]["scores"]) == rewards[i].tolist()
            mid += 1
        assert all(s is None for s in infos["settlement"][~infos["_settlement"]])
    assert mid > 3


def test_a_partial_reset_of_an_ended_table_under_next_step_deals_it_once():
    """NEXT_STEP: a table that ended and is dealt by ``reset(options={"reset_mask": ...})`` before the next step
    plays that deal. Its mask is the engine's, and the next step plays its action there; the env does not
    ignore it and deal the table a second time (from a mutation test: the partial reset kept the table marked
    as ended)."""
    from gymnasium.vector import AutoresetMode

    venv = MahjongVectorEnv(num_envs=4, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP)
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        obs, _, term, _, _ = venv.step(uniform_legal(obs["action_mask"], rng))
        if term.any():
            break
    i = int(np.flatnonzero(term)[0])
    obs, _ = venv.reset(options={"reset_mask": np.arange(4) == i})
    np.testing.assert_array_equal(obs["action_mask"][i], venv.engine.legal_mask()[i].view(np.int8))
    assert obs["action_mask"][i].sum() > 1                       # a dealt table has choices, not a lone pass
    dealt = venv.engine.state.wall[i].copy()
    before = int(venv.engine.state.live_pos[i])
    acts = uniform_legal(obs["action_mask"], rng)
    venv.step(acts)
    np.testing.assert_array_equal(venv.engine.state.wall[i], dealt)  # the same deal, played on
    assert int(venv.engine.state.live_pos[i]) >= before


def test_render_shows_the_first_four_tables():
    venv = MahjongVectorEnv(num_envs=5, seed=0, render_mode="ansi")
    venv.reset(seed=0)
    text = venv.render()
    one = MahjongVectorEnv(num_envs=1, seed=0, render_mode="ansi")
    one.reset(seed=0)
    per_table = len(one.render().split("\n\n"))
    assert len(text.split("\n\n")) == 4 * per_table
    # each table under its number (the last notes had left them unnumbered); a one-table env's picture without
    heads = [line for line in text.splitlines() if line.startswith("table ")]
    assert heads == [f"table {b} of 5" for b in range(4)]
    assert not one.render().startswith("table ")
    assert text.split("\n\n")[0] == f"table 0 of 5\n{one.render()}"  # table 0 is dealt as a one-table env's, seed 0


def test_a_match_hand_that_ends_at_its_deal_keeps_the_settlement_before_it(monkeypatch):
    """A match: East wins the first hand by 天和; the next hand deals East 四惠牌, which wins at once in the same
    step. ``settlement`` is the later hand's, ``earlier_settlements`` the one before, and the rewards both."""
    from walls import build_wall, deals_first, four_hui_9s_wall, tian_hu_wall

    import mj_env.engine as engine_module
    four_hui = four_hui_9s_wall()
    tian_hu = tian_hu_wall()
    plain = build_wall("beijing", indicator="8s", seed=2)
    venv = MahjongVectorEnv(num_envs=2, hands_per_episode=2)
    obs, _ = venv.reset(seed=0, options={"walls": [tian_hu, plain], "dealers": [0, 0]})
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, four_hui, 1))
    acts = uniform_legal(obs["action_mask"], np.random.default_rng(0))
    acts[0] = A.WIN
    _, rewards, term, _, infos = venv.step(acts)
    assert term.tolist() == [True, False]
    first, last = infos["earlier_settlements"][0], infos["settlement"][0]
    assert infos["_earlier_settlements"].tolist() == [True, False] and infos["earlier_settlements"][1] is None
    assert [s["fan"] for s in first] == [11] and last["fan"] == 9
    np.testing.assert_array_equal(rewards[0], np.add(first[0]["scores"], last["scores"]))
    _, _, _, _, infos = venv.step(uniform_legal(venv._obs()["action_mask"], np.random.default_rng(1)))
    assert "earlier_settlements" not in infos


def test_a_full_reset_drops_the_points_waiting_from_the_reset_before():
    """A full reset starts new episodes at every table: points of a hand that ended at the previous reset's
    deal belong to none of them."""
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    venv.reset(seed=0, options={"walls": [four_hui_wall(), four_hui_wall()], "dealers": [0, 0]})
    assert venv.pending_rewards.any()
    obs, _ = venv.reset(seed=1)
    assert not venv.pending_rewards.any()
    *_, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert "deal_points" not in infos


def next_deal_is_four_hui(venv):
    """Patch ``venv``'s engine so that its next deal without a wall given (an autoreset's) gets a 四惠牌 wall, once;
    returns the list that holds a 1 once that deal was made."""
    real_reset, injected = venv.engine.reset, []

    def reset(*a, **kw):
        if kw.get("walls") is None and not injected:
            injected.append(1)
            kw.update(walls=[four_hui_wall()], dealers=[0])
        return real_reset(*a, **kw)

    venv.engine.reset = reset
    return injected


def test_a_same_step_autoreset_that_ends_at_its_deal_is_dealt_again_and_paid_later():
    """SAME_STEP: where the new hand dealt for an ended table ends at the deal itself (四惠牌), the table is dealt
    again in that step (its observation is a decision) and that hand's points come with its next step."""
    from walls import build_wall

    from mj_env.actions import WIN
    tianhe = build_wall("beijing", hands={0: "123m456m789p234s55z"}, indicator="9s")  # the dealer wins at once
    venv = MahjongVectorEnv(num_envs=1, seed=0)
    venv.reset(seed=0, options={"walls": [tianhe], "dealers": [0]})
    injected = next_deal_is_four_hui(venv)
    obs, rewards, term, _trunc, _infos = venv.step(np.array([WIN]))
    assert injected and term.tolist() == [True] and rewards[0].tolist() == [33, -11, -11, -11]
    assert venv.instant_hands == 1 and obs["action_mask"][0].any()
    waiting = venv.pending_rewards[0].copy()
    assert waiting[0] > 0
    _obs, rewards, *_, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert infos["_deal_points"].tolist() == [True] and infos["deal_points"][0].tolist() == waiting.tolist()


def test_instant_hands_counts_every_table_whose_deal_ended_at_once():
    """``instant_hands`` counts the deals that ended before any decision, one per table (benchmarks/_peers.py
    adds it to the hands played), not one per reset that had some."""
    venv = MahjongVectorEnv(num_envs=3, seed=0)
    venv.reset(seed=0, options={"walls": [four_hui_wall(), four_hui_wall(), four_hui_wall()], "dealers": [0, 0, 0]})
    assert venv.instant_hands == 3 and (venv.pending_rewards[:, 0] > 0).all()


def test_a_next_step_autoreset_that_ends_at_its_deal_is_dealt_again_and_paid_later():
    """NEXT_STEP: where the deal of an ended table (on the step after it ended) ends at the deal itself (四惠牌),
    the table is dealt again in that step, as under SAME_STEP: its observation is a decision, and that hand's
    points wait for its next step."""
    from gymnasium.vector import AutoresetMode
    from walls import build_wall

    from mj_env.actions import WIN
    tianhe = build_wall("beijing", hands={0: "123m456m789p234s55z"}, indicator="9s")  # the dealer wins at once
    venv = MahjongVectorEnv(num_envs=1, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP)
    venv.reset(seed=0, options={"walls": [tianhe], "dealers": [0]})
    obs, rewards, term, _trunc, _infos = venv.step(np.array([WIN]))
    assert term.tolist() == [True] and obs["action_mask"][0].tolist() == (np.arange(127) == A.PASS).tolist()
    injected = next_deal_is_four_hui(venv)
    obs, rewards, term, _trunc, _infos = venv.step(np.array([A.PASS]))
    assert injected and term.tolist() == [False] and not rewards.any()
    assert venv.instant_hands == 1 and obs["action_mask"][0].sum() > 1   # a new hand's decision, not the end
    waiting = venv.pending_rewards[0].copy()
    assert waiting[0] > 0
    _obs, rewards, *_, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert infos["_deal_points"].tolist() == [True] and infos["deal_points"][0].tolist() == waiting.tolist()


def test_an_unknown_reset_option_is_named_up_to_80_characters():
    """The refusal names the unknown keys (docstring of ``checked_reset_options``: cut at 80 characters)."""
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    key = "reset_mask_of_tables"
    with pytest.raises(ValueError) as err:
        venv.reset(options={key: None})
    assert f"unknown reset option(s): {key};" in str(err.value)
    with pytest.raises(ValueError) as err:
        venv.reset(options={"y" * 200: None})
    assert "y" * 80 + ";" in str(err.value) and "y" * 81 not in str(err.value)


def test_a_full_reset_under_next_step_deals_every_table_once():
    """NEXT_STEP: after a table ended, a full ``reset()`` deals it; the next step plays its action there rather
    than ignoring it and dealing the table again (the full-reset twin of the partial-reset test above)."""
    from gymnasium.vector import AutoresetMode
    from walls import build_wall

    from mj_env.actions import WIN
    tianhe = build_wall("beijing", hands={0: "123m456m789p234s55z"}, indicator="9s")  # the dealer wins at once
    venv = MahjongVectorEnv(num_envs=1, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP)
    venv.reset(seed=0, options={"walls": [tianhe], "dealers": [0]})
    _, _, term, _, _ = venv.step(np.array([WIN]))
    assert term.tolist() == [True]
    obs, _ = venv.reset(seed=1)
    np.testing.assert_array_equal(obs["action_mask"][0], venv.engine.legal_mask()[0].view(np.int8))
    assert obs["action_mask"][0].sum() > 1                       # a dealt table has choices, not a lone pass
    dealt = venv.engine.state.wall[0].copy()
    venv.step(obs["action_mask"].argmax(axis=1))
    np.testing.assert_array_equal(venv.engine.state.wall[0], dealt)  # the same deal, played on
    assert int(venv.engine.state.n_discards[0].sum()) == 1


def test_step_before_the_first_reset_says_reset_first():
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    with pytest.raises(A.ActionError, match=r"step\(\) before reset\(\): call reset\(\) first"):
        venv.step(np.zeros(2, dtype=np.int64))


def test_a_closed_env_refuses_reset_and_step():
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    obs, _ = venv.reset(seed=0)
    venv.close()
    with pytest.raises(RuntimeError, match="this MahjongVectorEnv is closed"):
        venv.reset(seed=0)
    with pytest.raises(RuntimeError, match="this MahjongVectorEnv is closed"):
        venv.step(obs["action_mask"].argmax(axis=1))


def test_render_without_a_render_mode_renders_nothing(capsys):
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    venv.reset(seed=0)
    assert venv.render() is None and capsys.readouterr().out == ""


def test_a_reset_mask_of_none_deals_every_table():
    """``options={"reset_mask": None}`` (a wrapper passing the key on with no mask) is a full reset, not a refusal."""
    a, b = MahjongVectorEnv(num_envs=3, seed=0), MahjongVectorEnv(num_envs=3, seed=0)
    oa, _ = a.reset(seed=4)
    ob, _ = b.reset(seed=4, options={"reset_mask": None})
    np.testing.assert_array_equal(oa["observation"], ob["observation"])


# --------------------------------------------------------------------------- masked action batches


def _state(engine) -> dict:
    return {f: getattr(engine.state, f).copy() for f in _STATE_FIELDS}


@pytest.mark.parametrize("make", ["vector", "sb3"])
@pytest.mark.parametrize("shape", [(6,), (3, 2)])
def test_a_masked_batch_of_the_wrong_shape_is_refused_for_its_shape(make, shape):
    """A masked array with a masked entry but not of shape (N,) was refused as 'entry 4 masked' (a flat index) at 3
    tables: no such table. It is refused for its shape, as the same array unmasked is; nothing changes."""
    if make == "vector":
        from mj_env.vector import MahjongVectorEnv
        env = MahjongVectorEnv(num_envs=3, seed=0)
        env.reset(seed=0)
        engine, step = env.engine, env.step
    else:
        pytest.importorskip("stable_baselines3")  # the sb3 extra: skipped without it (tests/test_newer_python.py)
        from mj_env.sb3 import MahjongSB3VecEnv
        env = MahjongSB3VecEnv(num_envs=3, seed=0)
        env.reset()
        engine = env.envs.engine

        def step(a):
            env.step_async(a)
            return env.step_wait()
    before = _state(engine)
    mask = np.zeros(shape, dtype=bool)
    mask.flat[4] = True
    acts = np.ma.masked_array(np.full(shape, A.PASS), mask=mask)
    with pytest.raises(A.ActionError, match=rf"got shape \({shape[0]},") as e:
        step(acts)
    assert "masked" not in str(e.value)
    assert all(np.array_equal(before[f], getattr(engine.state, f)) for f in _STATE_FIELDS)
    with pytest.raises(A.ActionError, match="entry 1 masked"):     # the right shape: its masked entry, as before
        step(np.ma.masked_array(np.full(3, A.PASS), mask=[False, True, False]))
