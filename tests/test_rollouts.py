"""agents.rollouts: candidates, rollout returns on copies, the deviation table."""
import math

import numpy as np
import pytest
from scipy import stats

from agents import arena_report
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
    # a bad --seed as well: a bound let through fails at once on the later check, not after a minute of play
    (["--tables", "4097", "--seed", "-1"], "--tables must be 1-4096, not 4097"),
    (["--max-discards", "0", "--seed", "-1"], "--max-discards must be 1-34"),
    (["--max-discards", "35", "--seed", "-1"], "--max-discards must be 1-34"),
    (["--seconds", "0", "--seed", "-1"], "--seconds must be a finite number above 0, not 0.0"),
])
def test_cli_names_the_bad_flag(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        R.main(argv)
    assert exit_.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize("max_discards", [10**9, 35, -1, "3", None, True, 2.0])
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


def test_own_turn_candidates_declare_ting_where_the_mask_allows_it():
    """In quemen (报听) every own-turn discard candidate is the 报听 discard exactly where that is legal, as the rule
    agent plays it (from an outside mutation test: 'A.TING + order' -> 'A.DISCARD + order' survived)."""
    eng = Engine("quemen", num_tables=64, seed=3)
    eng.reset()
    agent, rng = RuleBasedAgent("quemen"), np.random.default_rng(0)
    declared = 0
    for _ in range(40):
        live, obs = _batch(eng)
        rule, cands = R.candidate_actions(agent, obs, rng)
        mask = obs["action_mask"] != 0
        phase = obs["observation"][:, P_SCALARS, COL_PHASE]
        for i in np.flatnonzero(phase == TURN):
            for a in cands[i][cands[i] >= 0].tolist():
                if A.TING <= a < A.TING + 34 or A.DISCARD <= a < A.DISCARD + 34:
                    tile = a - A.TING if a >= A.TING else a - A.DISCARD
                    assert (a >= A.TING) == mask[i, A.TING + tile], (i, a)
                    declared += a >= A.TING
        actions = np.zeros(eng.num_tables, dtype=np.int64)
        actions[live] = rule
        eng.step(actions)
        if (eng.state.phase == END).any():
            eng.reset(tables=np.flatnonzero(eng.state.phase == END))
    assert declared > 0


def test_label_positions_labels_only_choices_and_keeps_their_rows_together():
    eng = Engine("beijing", num_tables=16, seed=2)
    eng.reset()
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    for _ in range(6):
        live, obs = _batch(eng)
        eng.step(agent.act(obs, rng))
    live, obs = _batch(eng)
    got = R.label_positions(eng, agent, np.random.default_rng(1), max_discards=0)
    n = len(got["table"])
    assert 0 < n < len(live)                  # no other discards: an own turn without a kong is no choice
    assert ((got["candidates"] >= 0).sum(axis=1) >= 2).all()
    assert np.array_equal(np.isnan(got["q"]), got["candidates"] < 0)
    rows = np.searchsorted(live, got["table"])
    assert got["observation"].shape[0] == got["action_mask"].shape[0] == n
    assert np.array_equal(got["observation"], obs["observation"][rows])
    assert np.array_equal(got["action_mask"], obs["action_mask"][rows])


def test_deviation_table_counts_ranks_and_ties():
    """min_count is inclusive, a row names the alternative's rank, and a gain of exactly 0 is not 'better'."""
    cands = np.array([[A.PASS, A.PONG, A.WIN]] * 3)
    q = np.array([[1.0, 1.0, 2.0], [0.0, 2.0, 2.0], [1.0, 0.0, 0.0]])
    rows = R.deviation_table(cands, q, min_count=3)
    assert [(r["alternative"], r["rank"], r["positions"]) for r in rows] == [("pong", 1, 3), ("win", 2, 3)]
    assert rows[0]["better_share"] == pytest.approx(1 / 3) and rows[1]["better_share"] == pytest.approx(2 / 3)
    assert R.deviation_table(cands, q, min_count=4) == []


def test_action_kind_names_every_action():
    ids = np.arange(A.N_ACTIONS)
    kinds = R.action_kind(ids)
    assert (kinds != "other").all()
    assert set(kinds[A.CHI:A.CHI + A.N_CHI]) == {"chi"} and kinds[A.CHI - 1] != "chi"
    assert (kinds == "discard").sum() == (kinds == "ting").sum() == (kinds == "kong_self").sum() == 34


def test_rollout_returns_count_a_hand_the_first_action_ends():
    """A candidate win ends the hand at once: its return is that step's points for the seat, not 0 (from an outside
    mutation test: dropping 'out[over] = res.rewards[over, seat[over]]' survived)."""
    eng = Engine("beijing", num_tables=64, seed=4)
    eng.reset()
    agent, rng = RuleBasedAgent(), np.random.default_rng(0)
    for _ in range(300):
        live, obs = _batch(eng)
        can_win = live[eng.legal_mask()[live, A.WIN] != 0]
        if len(can_win):
            break
        actions = np.zeros(eng.num_tables, dtype=np.int64)
        actions[live] = agent.act(obs, rng)
        eng.step(actions)
    assert len(can_win)
    first = np.full(len(can_win), A.WIN)
    got = R.rollout_returns(eng, can_win, first, agent, np.random.default_rng(1))
    res = eng.clone(can_win).step(first)
    assert res.hand_over.all()
    assert np.array_equal(got, res.rewards[np.arange(len(can_win)), eng.state.to_act[can_win]]) and (got > 0).all()


def test_a_rob_window_offers_every_legal_action():
    """In a rob window (seat 3 may rob seat 1's added kong of 5m) the candidates are every legal action, win and
    pass, as in a claim window (a mutation test: counting only claim windows left the rule agent's choice alone;
    random play rarely reaches a rob window)."""
    from scenario_helpers import ROB as ROB_HANDS
    from scenario_helpers import ROB_MOVES
    from walls import build_wall

    eng = Engine("beijing", num_tables=1)
    eng.reset(walls=[build_wall("beijing", indicator="9s", **ROB_HANDS)], dealers=[0])
    for seat, move in [*ROB_MOVES, (1, "kong 5m")]:
        assert eng.state.to_act[0] == seat
        eng.step(np.array([A.index(move)]))
    assert eng.state.phase[0] == ROB and eng.state.to_act[0] == 3
    _, obs = _batch(eng)
    rule, cands = R.candidate_actions(RuleBasedAgent("beijing"), obs, np.random.default_rng(0))
    assert rule[0] == A.WIN and sorted(cands[0][cands[0] >= 0].tolist()) == sorted([A.WIN, A.PASS])


def test_deviation_table_groups_the_positions_of_one_hand():
    """Positions of one hand share its wall, so the hand is the independent unit of the interval: with ``hands``
    the table's interval is the cluster-robust one, worked here by hand. Two hands, gains (1, 3) and (2): mean 2,
    hand totals less the mean's share 4 - 2 * 2 = 0 and 2 - 2 = 0, so no spread between hands: [2, 2]; three
    hands (1, 3), (2), (6): mean 3, residuals -2, -1, 3, se = sqrt(3 / 2 * 14) / 4, t with 2 degrees of freedom.
    The positions as if independent give another, narrower interval."""
    cands = np.array([[A.PASS, A.PONG]] * 4)
    q = np.array([[0.0, 1.0], [0.0, 3.0], [0.0, 2.0], [0.0, 6.0]])
    (row,) = R.deviation_table(cands[:3], q[:3], min_count=1, hands=np.array([7, 7, 9]))
    assert row["mean_gain"] == 2 and row["ci95"][1] - row["ci95"][0] == pytest.approx(0, abs=1e-12)
    (row,) = R.deviation_table(cands, q, min_count=1, hands=np.array([7, 7, 9, 4]))
    half = stats.t.ppf(0.975, 2) * math.sqrt(3 / 2 * 14) / 4
    assert row["mean_gain"] == 3 and row["ci95"] == pytest.approx([3 - half, 3 + half])
    (iid,) = R.deviation_table(cands, q, min_count=1)
    assert iid["ci95"] == pytest.approx(list(arena_report.mean_ci95(np.array([1.0, 3, 2, 6]))[1:]))
    assert iid["ci95"][1] - iid["ci95"][0] < 2 * half


def test_labelled_play_numbers_each_hand_once():
    """``labelled_play``'s ``hand``: the positions of one table keep one number until its hand ends, and a new
    hand (the table dealt again) or another table never shares it."""
    seen = {}  # hand number -> table
    last = {}  # table -> hand number
    for got in R.labelled_play("beijing", 4, 60.0, seed=3):
        for t, h in zip(got["table"].tolist(), got["hand"].tolist(), strict=True):
            assert seen.setdefault(h, t) == t
            assert h >= last.get(t, h)
            last[t] = h
        if len(seen) > 8:
            break
    assert len(seen) > 8


def test_mean_ci95_refuses_groups_of_another_length():
    """One label per value: a list of labels of another length is refused by name (it was a NumPy error, or
    silently read when its distinct labels were as many as the values)."""
    with pytest.raises(ValueError, match="one label per value"):
        arena_report.mean_ci95(np.array([1.0, 2.0, 3.0]), groups=np.array([0, 1, 2, 3]))
    with pytest.raises(ValueError, match="one label per value"):
        arena_report.mean_ci95(np.array([1.0, 2.0]), groups=np.array([0, 0, 1]))
