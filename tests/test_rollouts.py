"""agents.rollouts: candidates, rollout returns on copies, the deviation table."""
import numpy as np
import pytest

from agents import rollouts as R
from mj_env import actions as A
from mj_env.baselines import RuleBasedAgent
from mj_env.engine import Engine
from mj_env.observation import COL_PHASE, P_SCALARS, observe
from mj_env.state import CLAIM, END, ROB, TURN


def _batch(eng):
    live = np.flatnonzero(eng.state.phase != END)
    return live, {"observation": observe(eng.rules, eng.state, idx=live), "action_mask": eng.legal_mask()[live],
                  "seat": eng.state.to_act[live].astype(np.int64)}


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_candidates_are_legal_distinct_and_start_with_the_rule_choice(rules):
    eng = Engine(rules, num_tables=64, seed=3)
    eng.reset()
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(0)
    seen = set()
    for _ in range(60):
        live, obs = _batch(eng)
        if not len(live):
            eng.reset()
            continue
        rule, cands = R.candidate_actions(agent, obs, rng)
        mask = obs["action_mask"] != 0
        phase = obs["observation"][:, P_SCALARS, COL_PHASE]
        for i in range(len(live)):
            c = cands[i][cands[i] >= 0]
            assert c[0] == rule[i]
            assert len(set(c.tolist())) == len(c) and mask[i, c].all()
            if phase[i] in (CLAIM, ROB):
                assert set(c.tolist()) == set(np.flatnonzero(mask[i]).tolist())
                seen.add("window")
            elif mask[i, A.WIN]:
                assert c.tolist() == [A.WIN]
            elif phase[i] == TURN:
                kongs = np.flatnonzero(mask[i, A.KONG_SELF:A.KONG_SELF + 34]) + A.KONG_SELF
                assert set(kongs.tolist()) <= set(c.tolist())
                discards = int((c < A.KONG_SELF).sum() + ((c >= A.TING) & (c < A.TING + 34)).sum())
                assert discards <= 1 + 3
                seen.add("turn")
        actions = np.zeros(eng.num_tables, dtype=np.int64)
        actions[live] = rule
        eng.step(actions)
        if (eng.state.phase == END).any():
            eng.reset(tables=np.flatnonzero(eng.state.phase == END))
    assert seen == {"window", "turn"}


def test_rollout_returns_are_the_hand_played_on_and_leave_the_engine_alone():
    eng = Engine("beijing", num_tables=16, seed=5)
    eng.reset()
    agent = RuleBasedAgent("beijing")
    for _ in range(9):                       # some way into the hands
        _, obs = _batch(eng)
        eng.step(agent.act(obs, np.random.default_rng(1)))
    live, obs = _batch(eng)
    before = {f: getattr(eng.state, f).copy() for f in ("hands", "wall", "river", "phase", "to_act")}
    first = agent.act(obs, np.random.default_rng(2))
    got = R.rollout_returns(eng, live, first, agent, np.random.default_rng(7))
    for f, v in before.items():
        assert np.array_equal(getattr(eng.state, f), v), f

    # the same play on the engine itself: the rule agent with the same generator from the same position
    seat = eng.state.to_act[live].astype(np.int64)
    want = np.full(len(live), np.nan)
    rng = np.random.default_rng(7)
    sub = Engine("beijing", num_tables=len(live), seed=0)
    sub.restore(eng, live, np.arange(len(live)))
    res = sub.step(first)
    done = res.hand_over.copy()
    want[done] = res.rewards[done, seat[done]]
    while not done.all():
        rows = np.flatnonzero(~done)
        _, o = _batch(sub)
        acts = np.zeros(len(live), dtype=np.int64)
        acts[rows] = agent.act({k: v for k, v in o.items()}, rng)
        res = sub.step(acts, tables=rows)
        new = res.hand_over & ~done
        want[new] = res.rewards[new, seat[new]]
        done |= new
    assert np.array_equal(got, want)
    assert np.isfinite(got).all() and (got != 0).any()


def test_deviation_table_means_and_intervals():
    cands = np.array([[A.PASS, A.PONG], [A.PASS, A.PONG], [A.PASS, A.PONG], [A.DISCARD, -1]])
    q = np.array([[1.0, 2.0], [0.0, 2.0], [1.0, 0.0], [3.0, np.nan]])
    (row,) = R.deviation_table(cands, q, min_count=1)
    assert (row["rule"], row["alternative"], row["positions"]) == ("pass", "pong", 3)
    assert row["mean_gain"] == pytest.approx(2 / 3)
    assert row["ci95"][0] < 2 / 3 < row["ci95"][1]
    assert row["better_share"] == pytest.approx(2 / 3)


def test_cli_prints_the_table(capsys):
    assert R.main(["--seconds", "1", "--tables", "8", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "positions with a choice" in out and "mean gain" in out
    assert "rows of fewer than 100 positions are left out" in out
    assert R.main(["--seconds", "0.01", "--tables", "1", "--seed", "1"]) == 0  # too short for any row: it says so
    assert "none has 100 yet: give more --seconds" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        R.main(["--tables", "0"])


@pytest.mark.parametrize("argv, words", [
    (["--seed", "-1"], "--seed must be 0 to 2**32 - 1"),
    (["--seed", str(2**32)], "--seed must be 0 to 2**32 - 1"), (["--rules", "bogus"], "--rules: unknown rules 'bogus'"),
    (["--max-discards", str(10**30)], "--max-discards must be 1-34"), (["--seconds", "nan"], "--seconds must be"),
    (["--tables", "0"], "--tables must be 1-4096, not 0"),
])
def test_cli_names_the_bad_flag(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        R.main(argv)
    assert exit_.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize("max_discards", [10**9, -1, "3", None, True, 2.0])
def test_candidates_refuse_a_bad_max_discards(max_discards):
    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    obs = {"observation": observe(eng.rules, eng.state), "action_mask": eng.legal_mask(),
           "seat": eng.state.to_act.astype(np.int64)}
    with pytest.raises(ValueError, match="max_discards must be an int in \\[0, 34\\]"):
        R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(0), max_discards)
    _, cands = R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(0), 0)
    assert (cands[:, 0] >= 0).all()


def test_candidates_with_common_random_numbers_do_not_depend_on_the_other_rows():
    """Given the arena's per-row streams (agents.common_random), a row's candidates are those it gets alone: the
    discard ranking draws through rows_of for the own-turn rows, as the rule agent does."""
    from agents.common_random import CommonStreams, decision_keys

    eng = Engine("beijing", num_tables=128, seed=5)
    eng.reset()
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    checked = 0
    for step in range(40):
        live, obs = _batch(eng)
        keys = decision_keys(1, live, obs["seat"], np.full(len(live), step))
        phase = obs["observation"][:, P_SCALARS, COL_PHASE]
        if (phase != TURN).any() and (phase == TURN).any():
            _, whole = R.candidate_actions(agent, obs, CommonStreams(keys, np.random.default_rng(1)))
            for i in range(len(live)):
                one = {k: v[i:i + 1] for k, v in obs.items()}
                _, alone = R.candidate_actions(agent, one, CommonStreams(keys[i:i + 1], np.random.default_rng(2)))
                assert whole[i][whole[i] >= 0].tolist() == alone[0][alone[0] >= 0].tolist(), i
            checked += 1
        actions = np.zeros(eng.num_tables, dtype=np.int64)
        actions[live] = agent.act(obs, rng)
        eng.step(actions)
    assert checked >= 5
