"""agents.search: the rollout search agent decides from the seat's view only, falls back to the rule
agent's choice, takes a deviation its rollouts favour, and plays in the arena."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_rollouts import _batch

from agents import search
from agents.arena import play_duplicate
from agents.arena_report import summarize
from agents.rollouts import candidate_actions
from agents.search import RolloutSearchAgent
from mj_env.baselines import RuleBasedAgent
from mj_env.determinize import redeal, shuffle_wall
from mj_env.engine import Engine
from mj_env.state import END


def positions(rules="beijing", tables=8, steps=(5, 17, 40), seed=0):
    """Engines at a few moments of rule-agent play (live tables only)."""
    eng = Engine(rules, num_tables=tables, seed=seed)
    eng.reset()
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(seed)
    for step in range(max(steps) + 1):
        live = np.flatnonzero(eng.state.phase != END)
        if step in steps:
            yield eng, live
        _, obs = _batch(eng)
        actions = np.zeros(tables, dtype=np.int64)
        actions[live] = agent.act(obs, rng)
        eng.step(actions)


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_decisions_do_not_depend_on_the_hidden_tiles(rules):
    agent = RolloutSearchAgent(rules, worlds=3, z=0.0)
    for eng, live in positions(rules):
        before = eng.state.copy()
        a = agent.act_tables(eng, live, np.random.default_rng(7))
        for f in ("hands", "wall", "phase", "to_act"):
            assert np.array_equal(getattr(eng.state, f), getattr(before, f))      # the engine is untouched
        other = eng.clone()
        redeal(other, eng.state.to_act[live].astype(np.int64), np.random.default_rng(99), tables=live)
        assert not np.array_equal(other.state.hands, eng.state.hands)             # the hidden tiles moved
        b = agent.act_tables(other, live, np.random.default_rng(7))
        assert np.array_equal(a, b)
        assert eng.legal_mask()[live, a].all()


def test_clairvoyant_search_reads_the_real_hidden_tiles():
    agent = RolloutSearchAgent(worlds=2, z=0.0, clairvoyant=True)
    differ = 0
    for eng, live in positions():
        before = eng.state.copy()
        a = agent.act_tables(eng, live, np.random.default_rng(7))
        assert np.array_equal(eng.state.hands, before.hands) and np.array_equal(eng.state.wall, before.wall)
        other = eng.clone()
        redeal(other, eng.state.to_act[live].astype(np.int64), np.random.default_rng(99), tables=live)
        b = agent.act_tables(other, live, np.random.default_rng(7))
        differ += int((a != b).sum())  # the same view, other hidden tiles: other choices somewhere
        assert eng.legal_mask()[live, a].all() and other.legal_mask()[live, b].all()
    assert differ > 0
    with pytest.raises(TypeError, match="clairvoyant must be True, False or 'hands'"):
        RolloutSearchAgent(clairvoyant=1)


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_shuffle_wall_moves_only_the_undrawn_wall(rules):
    for eng, live in positions(rules, tables=16):
        other = eng.clone(np.repeat(live, 8))
        shuffle_wall(other, np.random.default_rng(1))
        st, new = eng.state, other.state
        rows = np.repeat(live, 8)
        for f in (f.name for f in dataclasses.fields(st) if f.name != "wall"):
            assert np.array_equal(getattr(new, f), getattr(st, f)[rows]), f
        pos = np.arange(st.wall.shape[1])
        undrawn = (pos >= st.live_pos[rows, None]) & (pos <= st.tail_pos[rows, None])
        assert np.array_equal(np.where(undrawn, -1, new.wall), np.where(undrawn, -1, st.wall[rows]))  # the rest stays
        assert np.array_equal(np.sort(np.where(undrawn, new.wall, -1), axis=1),
                              np.sort(np.where(undrawn, st.wall[rows], -1), axis=1))  # the same tiles
        moved = (new.wall != st.wall[rows]) & undrawn
        assert moved.sum() > undrawn.sum() // 2                                       # a new order
        tail = st.tail_pos[rows].astype(np.int64)                                     # the next replacement too
        assert (new.wall[np.arange(len(rows)), tail] != st.wall[rows, tail]).any()
        assert np.array_equal(other.legal_mask(), eng.legal_mask()[rows])
        twice = other.clone()
        shuffle_wall(twice, np.random.default_rng(1))  # the same generator on another order: the same wall
        assert np.array_equal(twice.state.wall, new.wall)
    with pytest.raises(ValueError, match="never been dealt"):
        shuffle_wall(Engine(rules, num_tables=2))


def test_shuffle_wall_orders_are_random():
    """Copies of one table shuffled by one generator get different orders of the undrawn wall (uniform over
    the orders: each copy's next live tile varies), not one fixed order such as the tiles sorted."""
    eng = Engine("beijing", num_tables=1, seed=3)
    eng.reset()
    copies = eng.clone(np.zeros(64, dtype=np.int64))
    shuffle_wall(copies, np.random.default_rng(5))
    st = copies.state
    lo, hi = int(st.live_pos[0]), int(st.tail_pos[0])
    assert len({w.tobytes() for w in st.wall[:, lo:hi + 1]}) == 64
    assert len(set(st.wall[:, lo].tolist())) > 10

def test_search_that_sees_the_hands_reads_the_hands_not_the_wall():
    # the same hands with the wall in another order: the same choices (its worlds shuffle the wall anyway);
    # other hands: other choices somewhere
    agent = RolloutSearchAgent(worlds=2, z=0.0, clairvoyant="hands")
    differ = 0
    for eng, live in positions():
        a = agent.act_tables(eng, live, np.random.default_rng(7))
        shuffled = eng.clone()
        shuffle_wall(shuffled, np.random.default_rng(5), tables=live)
        assert np.array_equal(agent.act_tables(shuffled, live, np.random.default_rng(7)), a)
        other = eng.clone()
        redeal(other, eng.state.to_act[live].astype(np.int64), np.random.default_rng(99), tables=live)
        differ += int((agent.act_tables(other, live, np.random.default_rng(7)) != a).sum())
    assert differ > 0


@pytest.mark.parametrize("z", [float("inf"), 1e9])
def test_without_a_clear_gain_it_plays_the_rule_agents_choice(z):
    agent = RolloutSearchAgent(worlds=2, z=z)
    for eng, live in positions():
        got = agent.act_tables(eng, live, np.random.default_rng(3))
        _, obs = _batch(eng)
        assert np.array_equal(got, RuleBasedAgent().act(obs, np.random.default_rng(3)))


def test_it_takes_the_candidate_its_rollouts_favour(monkeypatch):
    """Rollouts (replaced here) that pay 5 points for a candidate's copies and 0 for the others: that
    candidate is played wherever it is one; elsewhere the rule agent's choice."""
    eng, live = next(positions(steps=(5,)))
    _, obs = _batch(eng)
    rule, cands = candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1))
    assert (cands[:, 1] >= 0).any()
    favourite = int(cands[cands[:, 1] >= 0, 1][0])

    def fake_rollouts(engine, tables, first, agent, rng):
        return np.where(first == favourite, 5.0, 0.0)

    monkeypatch.setattr(search, "rollout_returns", fake_rollouts)
    got = RolloutSearchAgent(worlds=4, z=1.0).act_tables(eng, live, np.random.default_rng(1))
    has = (cands == favourite).any(axis=1)
    assert (got[has] == favourite).all() and np.array_equal(got[~has], rule[~has])


def test_the_standard_error_is_the_sample_ones(monkeypatch):
    """Rollouts (replaced here) in which one candidate gains 1 point in the first of two worlds and 0 in the
    second: mean 0.5, sample standard deviation (ddof=1) 0.707, standard error 0.5. So z 0.9 plays it (0.5 -
    0.45 > 0) and z 1.2 keeps the rule agent's choice (0.5 - 0.6 < 0); the population deviation (ddof=0, a
    standard error of 0.354) would play it at z 1.2 too (from an outside mutation test)."""
    eng, live = next(positions(steps=(5,)))
    _, obs = _batch(eng)
    rule, cands = candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1))
    favourite = int(cands[cands[:, 1] >= 0, 1][0])
    has = (cands[:, 1:] == favourite).any(axis=1)
    assert has.any()

    def fake_rollouts(engine, tables, first, agent, rng):  # tables: the world copies, W = 2 per decision
        return np.where((first == favourite) & (tables % 2 == 0), 1.0, 0.0)

    monkeypatch.setattr(search, "rollout_returns", fake_rollouts)
    got = RolloutSearchAgent(worlds=2, z=0.9).act_tables(eng, live, np.random.default_rng(1))
    assert (got[has] == favourite).all() and np.array_equal(got[~has], rule[~has])
    got = RolloutSearchAgent(worlds=2, z=1.2).act_tables(eng, live, np.random.default_rng(1))
    assert np.array_equal(got, rule)


def test_plays_duplicate_hands_in_the_arena():
    agent = RolloutSearchAgent(worlds=2)
    res = summarize(play_duplicate([agent, RuleBasedAgent()], 2, seed=0))
    assert res["hands_played"] == 4 and [a["name"] for a in res["agents"]] == ["search", "rule"]
    assert agent.stats["decisions"] > 0 and agent.stats["searched"] <= agent.stats["decisions"]


@pytest.mark.parametrize("kw, message", [({"worlds": 0}, "worlds"), ({"worlds": 2.5}, "worlds"),
                                         ({"z": -1}, "z must be"), ({"z": float("nan")}, "z must be"),
                                         ({"z": np.bool_(True)}, "z must be"), ({"z": "1"}, "z must be"),
                                         ({"max_discards": 10**9}, "max_discards must be an int in \\[0, 34\\]"),
                                         ({"max_discards": -1}, "max_discards"), ({"max_discards": "3"}, "max_discards"),
                                         ({"max_discards": None}, "max_discards"),
                                         ({"worlds": [1] * 10**5}, "worlds must be an int in \\[1, 4096\\], not \\[1, 1")])
def test_bad_settings_are_refused(kw, message):
    with pytest.raises(ValueError, match=message) as err:
        RolloutSearchAgent(**kw)
    assert len(str(err.value)) < 200


def test_numpy_numbers_are_settings_too():
    agent = RolloutSearchAgent(worlds=np.int64(2), z=np.float32(1), max_discards=np.int8(0))
    assert (agent.worlds, agent.z, agent.max_discards) == (2, 1.0, 0)
    eng, live = next(positions(steps=(5,)))
    assert len(agent.act_tables(eng, live, np.random.default_rng(0))) == len(live)


@pytest.mark.parametrize("tables, error, words", [
    ([0.5], TypeError, "tables must be table numbers \\(integers\\), got dtype float64"),
    ([True], TypeError, "tables must be table numbers"), ("0", TypeError, "tables must be table numbers"),
    ([5], ValueError, "this engine has no table 5 \\(its tables are 0-1\\)"), ([-1], ValueError, "no table -1"),
    ([0, 0], ValueError, "more than once")])
def test_bad_tables_are_refused_and_change_nothing(tables, error, words):
    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    before = eng.state.copy()
    agent = RolloutSearchAgent(worlds=2)
    with pytest.raises(error, match=words):
        agent.act_tables(eng, tables, np.random.default_rng(0))
    assert all(np.array_equal(getattr(before, f.name), getattr(eng.state, f.name))
               for f in dataclasses.fields(before))
    assert agent.stats["decisions"] == 0


def test_command_line(capsys):
    assert search.main(["--walls", "1", "--worlds", "2", "--batch-walls", "1"]) == 0
    out = capsys.readouterr().out
    assert "search" in out and "decisions" in out
    assert search.main(["--walls", "1", "--worlds", "2", "--batch-walls", "1", "--clairvoyant"]) == 0
    assert "clairvoyant" in capsys.readouterr().out
    assert search.main(["--walls", "1", "--worlds", "2", "--batch-walls", "1", "--clairvoyant", "hands"]) == 0
    assert "sees_hands" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        search.main(["--walls", "0"])
    with pytest.raises(SystemExit):
        search.main(["--clairvoyant", "wall"])


@pytest.mark.parametrize("argv, words", [
    (["--seed", "-1"], "--seed must be 0 to 2**32 - 1"),
    (["--seed", str(2**32)], "--seed must be 0 to 2**32 - 1"), (["--rules", "bogus"], "--rules: unknown rules 'bogus'"),
    (["--walls", "0"], "--walls must be 1-100000, not 0"), (["--batch-walls", "2000"], "--batch-walls must be 1-1024"),
    (["--walls", "100001", "--seed", "-1"], "--walls must be 1-100000, not 100001"),  # with a bad --seed: a bound
    (["--batch-walls", "1025", "--seed", "-1"], "--batch-walls must be 1-1024, not 1025"),  # let through fails at once
    (["--worlds", "0"], "--worlds must be an int in [1, 4096], not 0"),
    (["--worlds", "5000"], "--worlds must be an int in [1, 4096], not 5000"),
    (["--z", "-1"], "--z must be a number >= 0, not -1.0"), (["--z", "nan"], "--z must be a number >= 0, not nan"),
])
def test_command_line_names_the_bad_flag(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        search.main(argv)
    assert exit_.value.code == 2 and words in capsys.readouterr().err


def _candidates_at_step_5(max_discards=3):
    eng, live = next(positions(steps=(5,)))
    _, obs = _batch(eng)
    rule, cands = candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1), max_discards)
    return eng, live, rule, cands


def test_gains_are_against_the_rule_agents_choice(monkeypatch):
    """Rollouts (replaced here) that pay the rule agent's choice 10 points, one alternative 5 and the rest 0: no
    alternative gains, so it plays the rule agent's choice everywhere (from an outside mutation test: comparing the
    alternatives' values with 0 instead of with the rule agent's choice, 'gain = q.reshape(m, W, C)', survived)."""
    eng, live, rule, cands = _candidates_at_step_5()
    favourite = int(cands[cands[:, 1] >= 0, 1][0])
    rule_per_world = np.repeat(rule[(cands >= 0).sum(axis=1) >= 2], 2)   # tables: the world copies, W = 2 each

    def fake_rollouts(engine, tables, first, agent, rng):
        return np.where(first == favourite, 5.0, 0.0) + np.where(first == rule_per_world[tables], 10.0, 0.0)

    monkeypatch.setattr(search, "rollout_returns", fake_rollouts)
    agent = RolloutSearchAgent(worlds=2, z=0.0)
    assert np.array_equal(agent.act_tables(eng, live, np.random.default_rng(1)), rule)
    assert agent.stats["deviations"] == 0 and agent.stats["kinds"] == {}


def test_stats_count_decisions_searches_and_kinds_of_deviation(monkeypatch):
    """With rollouts (replaced here) that favour one alternative: every decision asked is counted, the searched
    ones are those with a choice, and each deviation is filed under 'rule agent's kind -> played kind' (from an
    outside mutation test: counting the searched decisions as the decisions, and filing the played kind on both
    sides, survived)."""
    from agents.rollouts import action_kind

    eng, live, rule, cands = _candidates_at_step_5(max_discards=0)   # an own turn without a kong: no choice
    favourite = int(cands[cands[:, 1] >= 0, 1][0])
    monkeypatch.setattr(search, "rollout_returns",
                        lambda engine, tables, first, agent, rng: np.where(first == favourite, 5.0, 0.0))
    agent = RolloutSearchAgent(worlds=2, z=0.0, max_discards=0)
    got = agent.act_tables(eng, live, np.random.default_rng(1))
    moved = got != rule
    assert moved.any() and (got[moved] == favourite).all()
    assert agent.stats["decisions"] == len(live)
    assert agent.stats["searched"] == int(((cands >= 0).sum(axis=1) >= 2).sum()) < len(live)
    assert agent.stats["deviations"] == int(moved.sum())
    want = {}
    for k in zip(action_kind(rule[moved]), action_kind(got[moved]), strict=True):
        want[" -> ".join(k)] = want.get(" -> ".join(k), 0) + 1
    assert agent.stats["kinds"] == want and any(k.split(" -> ")[0] != k.split(" -> ")[1] for k in want)


def test_a_world_that_kept_the_real_hidden_tiles_is_refused(monkeypatch):
    """If redeal leaves any world with the real hidden tiles it would cheat: the search refuses to decide (from an
    outside mutation test: '.all()' -> '.any()' on redeal's answer survived)."""
    eng, live = next(positions(steps=(5,)))

    def one_kept(engine, seat, rng):
        ok = np.ones(len(seat), dtype=bool)
        ok[-1] = False
        return ok

    monkeypatch.setattr(search, "redeal", one_kept)
    with pytest.raises(RuntimeError, match="no deal keeping"):
        RolloutSearchAgent(worlds=2, z=0.0).act_tables(eng, live, np.random.default_rng(7))


def test_clairvoyant_search_reads_the_real_wall_order():
    """clairvoyant=True rolls out on the real wall: the same hands with the undrawn wall in another order give
    other choices somewhere (unlike clairvoyant='hands'; from an outside mutation test: shuffling the wall for True
    too, 'if self.clairvoyant == "hands"' -> 'if self.clairvoyant', survived)."""
    agent = RolloutSearchAgent(worlds=2, z=0.0, clairvoyant=True)
    differ = 0
    for eng, live in positions():
        a = agent.act_tables(eng, live, np.random.default_rng(7))
        shuffled = eng.clone()
        shuffle_wall(shuffled, np.random.default_rng(5), tables=live)
        differ += int((agent.act_tables(shuffled, live, np.random.default_rng(7)) != a).sum())
    assert differ > 0


def test_command_line_builds_the_agent_it_names(monkeypatch):
    """The CLI's agent gets --worlds, --z and the rule agent's default 3 discard candidates (from an outside
    mutation test: a changed max_discards survived)."""
    seen = []

    def stop(agents, walls, **kw):
        seen.extend(agents)
        raise KeyboardInterrupt

    monkeypatch.setattr(search, "play_duplicate", stop)
    with pytest.raises(KeyboardInterrupt):
        search.main(["--walls", "1", "--worlds", "5", "--z", "0.25", "--clairvoyant", "hands"])
    agent = seen[0]
    assert (agent.worlds, agent.z, agent.max_discards, agent.clairvoyant, agent.name) == (5, 0.25, 3, "hands",
                                                                                         "sees_hands")
