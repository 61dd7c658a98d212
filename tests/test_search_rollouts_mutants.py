"""Gaps found by mutating agents/rollouts.py and agents/search.py (mutants that survived tests/test_rollouts.py and
tests/test_search.py): each test here failed under the mutant named in its docstring and passes on the code; worked
out from the modules' docstrings and docs/training_results.md ("Opponents, rollouts, search and hand-made variants")."""
from __future__ import annotations

import numpy as np
import pytest
from rule_play import rule_agent_play
from test_rollouts import _batch

from agents import rollouts as R
from agents import search
from agents.search import RolloutSearchAgent
from mj_env import actions as A
from mj_env.baselines import RuleBasedAgent
from mj_env.engine import Engine
from mj_env.observation import COL_PHASE, P_SCALARS
from mj_env.state import TURN, K


def _rule_play(rules="beijing", tables=32, seed=3, steps=30):
    """Engines before each step of rule-agent play (``rule_play.rule_agent_play``: finished tables dealt again):
    (engine, live tables, batch)."""
    eng = Engine(rules, num_tables=tables, seed=seed)
    eng.reset()
    for _ in rule_agent_play(eng, seed, steps):
        yield (eng, *_batch(eng))


# ------------------------------------------------------------------------------------------- rollouts.py
@pytest.mark.parametrize("rules", ["beijing", "quemen"])
def test_own_turn_candidates_hold_the_next_best_discards(rules):
    """On the seat's own turn (no win to take) the candidates hold ``max_discards`` discards (or 报听 discards) of
    distinct legal tiles, fewer only where fewer kinds may be discarded: "the ``max_discards`` discards the rule agent
    ranks best". Mutant: ``A.DISCARD + order`` -> ``A.DISCARD - order`` (the ids went negative, so every discard
    candidate but 1m's dropped out as padding, leaving the rule agent's choice alone)."""
    agent = RuleBasedAgent(rules)
    checked = 0
    for _, _, obs in _rule_play(rules, tables=16, steps=20):
        mask = obs["action_mask"] != 0
        phase = obs["observation"][:, P_SCALARS, COL_PHASE]
        for md in (1, 3):
            _, cands = R.candidate_actions(agent, obs, np.random.default_rng(1), md)
            for i in np.flatnonzero((phase == TURN) & ~mask[:, A.WIN]):
                c = cands[i][cands[i] >= 0]
                tiles = [a - A.DISCARD if a < A.DISCARD + K else a - A.TING for a in c.tolist()
                         if A.DISCARD <= a < A.DISCARD + K or A.TING <= a < A.TING + K]
                legal = int((mask[i, A.DISCARD:A.DISCARD + K] | mask[i, A.TING:A.TING + K]).sum())
                assert len(set(tiles)) == len(tiles) >= min(md, legal), (i, c)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("max_discards", [0, 3])
def test_candidates_are_padded_with_minus_one(max_discards):
    """``candidate_actions`` returns candidates "padded with -1" (and ``label_positions`` keeps them): no other
    negative number, in the row of a self-drawn win (one candidate) beside rows with a choice too. Mutants: the
    padding of the table (``np.full(..., -1)``, which only a self-drawn win's row keeps) or of the kong columns
    made -2."""
    agent = RuleBasedAgent()
    wins = labelled = 0
    for eng, _, obs in _rule_play(tables=64, steps=40):
        phase = obs["observation"][:, P_SCALARS, COL_PHASE]
        win = (phase == TURN) & (obs["action_mask"][:, A.WIN] != 0)
        _, cands = R.candidate_actions(agent, obs, np.random.default_rng(0), max_discards)
        assert ((cands >= 0) | (cands == -1)).all()
        if win.any() and cands.shape[1] > 1:
            assert (cands[win, 1:] == -1).all()
            wins += 1
            if labelled < 2:
                got = R.label_positions(eng, agent, np.random.default_rng(0), max_discards)
                assert ((got["candidates"] >= 0) | (got["candidates"] == -1)).all()
                labelled += 1
    assert wins > 0


def test_a_rollout_that_does_not_end_is_an_error(monkeypatch):
    """``MAX_ROLLOUT_STEPS``: "more means the engine is stuck" -- a rollout still running after that many steps is a
    RuntimeError, never a return of 0 points for an unfinished hand. Mutant: the ``raise`` removed (the unfinished
    hands silently scored 0)."""
    eng = Engine("beijing", num_tables=4, seed=1)
    eng.reset()
    live, obs = _batch(eng)
    agent = RuleBasedAgent()
    first = agent.act(obs, np.random.default_rng(0))
    monkeypatch.setattr(R, "MAX_ROLLOUT_STEPS", 3)
    with pytest.raises(RuntimeError, match="rollouts still running after MAX_ROLLOUT_STEPS steps"):
        R.rollout_returns(eng, live, first, agent, np.random.default_rng(0))


def test_label_positions_rolls_out_every_candidate_the_1m_discard_too():
    """``label_positions``' ``q`` is a rollout value for every candidate and NaN only for padding, action 0 (the 1m
    discard) included; and its default ``max_discards`` is 3, as ``candidate_actions``' (and ``labelled_play``'s).
    Mutants: the candidates rolled out taken as ``cands >= 1`` (a 1m discard candidate kept q NaN), a default
    ``max_discards`` of 4 in ``label_positions`` or of 2 in ``labelled_play``."""
    agent = RuleBasedAgent()
    eng, _, _ = next(_rule_play(tables=32, seed=1))      # the dealers' first discards: 1m among some candidates
    got = R.label_positions(eng, agent, np.random.default_rng(2))
    assert np.array_equal(np.isnan(got["q"]), got["candidates"] < 0)
    assert (got["candidates"] == A.DISCARD).any()
    want = R.label_positions(eng, agent, np.random.default_rng(2), max_discards=3)
    assert np.array_equal(got["candidates"], want["candidates"])
    first = next(R.labelled_play("beijing", 2, 0.0, seed=4))
    assert first["candidates"].shape == (2, 3)    # the dealers' first discards: the rule agent's and 2 next-best


def test_deviation_table_keeps_a_row_of_100_positions_by_default():
    """The CLI says "rows of fewer than 100 positions are left out" and calls ``deviation_table`` with its default
    ``min_count``: a row of exactly 100 positions is kept, one of 99 left out. Mutant: the default made 101."""
    cands = np.array([[A.PASS, A.PONG]] * 100)
    q = np.column_stack([np.zeros(100), np.arange(100.0) % 3 - 1])
    (row,) = R.deviation_table(cands, q)
    assert (row["rule"], row["alternative"], row["positions"]) == ("pass", "pong", 100)
    assert R.deviation_table(cands[:99], q[:99]) == []


@pytest.mark.parametrize("argv, want", [
    ([], ("beijing", 256, 60.0, 0, 3)),
    (["--seed", "0", "--tables", "4096", "--seconds", "5", "--max-discards", "34"], ("beijing", 4096, 5.0, 0, 34)),
    (["--seed", str(2**32 - 1), "--tables", "1", "--max-discards", "1"], ("beijing", 1, 60.0, 2**32 - 1, 1)),
])
def test_rollouts_cli_labels_what_its_flags_and_defaults_say(argv, want, monkeypatch):
    """``python -m agents.rollouts``: the defaults its --help shows (256 tables, 60 s, seed 0, 3 discards) and the
    ends of each flag's range (seed 0, as in docs/training_results.md's ``--seed 0``, and 2**32 - 1) reach the
    labelling. Mutants: the defaults of --tables and --seed changed, seed 0 or 2**32 - 1 refused."""
    seen = []

    def stop(rules, num_tables, seconds, seed, max_discards=3):
        seen.append((rules, num_tables, seconds, seed, max_discards))
        raise KeyboardInterrupt

    monkeypatch.setattr(R, "labelled_play", stop)
    with pytest.raises(KeyboardInterrupt):
        R.main(argv)
    assert seen == [want]


# ------------------------------------------------------------------------------------------- search.py
@pytest.mark.parametrize("worlds", [True, np.bool_(True), False])
def test_search_refuses_a_bool_for_worlds(worlds):
    """``worlds`` is "an int in [1, 4096]": True is not one world (nor False 0 worlds), a ValueError naming it.
    Mutant: ``isinstance(worlds, bool)`` dropped from the check (True was taken as 1 world)."""
    with pytest.raises(ValueError, match="worlds must be an int in \\[1, 4096\\], not "):
        RolloutSearchAgent(worlds=worlds)


def test_search_plays_a_favoured_1m_discard(monkeypatch):
    """Action 0 (discard 1m) is a candidate like any other: rollouts (replaced here) that pay 5 points for it and 0
    for the rest make the search play it wherever it is a candidate, the rule agent's choice elsewhere. Mutant: the
    candidates present taken as ``cands[lab] > 0`` (1m's gain scored -inf, so it was never played)."""
    eng, live, obs = next(_rule_play(tables=32, seed=1))
    rule, cands = R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1))
    has = (cands[:, 1:] == A.DISCARD).any(axis=1)
    assert has.any()
    monkeypatch.setattr(search, "rollout_returns",
                        lambda engine, tables, first, agent, rng: np.where(first == A.DISCARD, 5.0, 0.0))
    got = RolloutSearchAgent(worlds=2, z=0.0).act_tables(eng, live, np.random.default_rng(1))
    assert (got[has] == A.DISCARD).all() and np.array_equal(got[~has], rule[~has])


def test_one_world_at_z_0_plays_that_worlds_best(monkeypatch):
    """``worlds=1`` with z 0 is a setting: "the one world's best" -- with rollouts (replaced here) that pay the rule
    agent's choice 1 point and every alternative 0, it plays the rule agent's choice everywhere. Mutant: the
    standard error taken from one world too (``if W > 0``: a NaN, which argmax took for the best, so the second
    candidate was played)."""
    eng, live, obs = next(_rule_play(tables=32, seed=1))
    rule, cands = R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1))
    rule_per_world = rule[(cands >= 0).sum(axis=1) >= 2]       # tables: the world copies, W = 1 each
    assert len(rule_per_world)
    monkeypatch.setattr(search, "rollout_returns",
                        lambda engine, tables, first, agent, rng: (first == rule_per_world[tables]).astype(float))
    agent = RolloutSearchAgent(worlds=1, z=0.0)
    assert np.array_equal(agent.act_tables(eng, live, np.random.default_rng(1)), rule)
    assert agent.stats["searched"] == len(rule_per_world) and agent.stats["deviations"] == 0


@pytest.mark.parametrize("module", [R, search])
def test_help_opens_with_the_modules_first_line(module, capsys):
    """``--help`` describes the program by its module docstring's first line (wrapped to the terminal). Mutant: the
    description made ''."""
    if not module.__doc__:
        pytest.skip("python -OO: no docstring to describe the command with")
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    assert exit_.value.code == 0
    first = (module.__doc__ or "").split("\n")[0]
    assert first and first in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv, want", [
    ([], (100, 12345, 100, 64, 0.5)),
    (["--walls", "100000", "--batch-walls", "1024", "--seed", "0"], (100_000, 0, 1024, 64, 0.5)),
    (["--walls", "1", "--batch-walls", "1", "--seed", str(2**32 - 1), "--worlds", "4096", "--z", "0"],
     (1, 2**32 - 1, 1, 4096, 0.0)),
])
def test_search_cli_plays_what_its_flags_and_defaults_say(argv, want, monkeypatch):
    """``python -m agents.search``: the defaults its --help shows (100 walls of seed 12345, 100 at once, 64 worlds,
    z 0.5) and the ends of each flag's range reach the arena. Mutants: the defaults of --worlds and --batch-walls
    changed, 100000 walls, 1024 at once, 1 at once, seed 0 or 2**32 - 1 refused."""
    seen = []

    def stop(agents, walls, **kw):
        seen.append((walls, kw["seed"], kw["batch_walls"], agents[0].worlds, agents[0].z))
        raise KeyboardInterrupt

    monkeypatch.setattr(search, "play_duplicate", stop)
    with pytest.raises(KeyboardInterrupt):
        search.main(argv)
    assert seen == [want]


def test_search_cli_refuses_0_walls_at_once(capsys):
    """--batch-walls 0 is refused by name, before the other flags are judged (a bad --seed beside it). Mutant: the
    bound made 0-1024."""
    with pytest.raises(SystemExit) as exit_:
        search.main(["--batch-walls", "0", "--seed", "-1"])
    assert exit_.value.code == 2 and "--batch-walls must be 1-1024, not 0" in capsys.readouterr().err
