"""Gaps found by the second mutation round on agents/rollouts.py, agents/search.py and agents/pretrained.py
(seeds 5901, 5902, 5903; mutants that survived tests/test_rollouts.py, tests/test_search.py,
tests/test_search_rollouts_mutants.py, tests/test_arena_pretrained_mutants.py and the quick tests of
tests/test_pretrained.py): each test here fails under the mutant its docstring names and passes on the
code."""
from __future__ import annotations

import re
import shlex

import numpy as np
import pytest
from test_search_rollouts_mutants import _rule_play

from agents import pretrained, search
from agents import rollouts as R
from agents.search import RolloutSearchAgent
from mj_env import actions as A
from mj_env.baselines import RuleBasedAgent


# ------------------------------------------------------------------------------------------- rollouts.py
def test_deviation_table_counts_a_1m_discard_alternative():
    """``deviation_table`` takes every candidate that is not -1 padding: the 1m discard (action id 0) is an
    alternative like any other. Mutant: rollouts.py line 205 ``candidates[:, j] >= 0`` -> ``> 0`` (every
    position whose alternative was the 1m discard dropped out of the table)."""
    cands = np.array([[A.DISCARD + 5, A.DISCARD + 0]] * 3 + [[A.DISCARD + 5, A.DISCARD + 7]] * 3)
    q = np.array([[0.0, 2.0]] * 3 + [[0.0, -1.0]] * 3)
    (row,) = R.deviation_table(cands, q, min_count=1)
    assert (row["rule"], row["alternative"], row["rank"], row["positions"]) == ("discard", "discard", 1, 6)
    assert row["mean_gain"] == pytest.approx(0.5) and row["better_share"] == pytest.approx(0.5)


def test_rollouts_cli_counts_the_positions_and_rollouts_it_labelled(monkeypatch, capsys):
    """``python -m agents.rollouts`` opens with how many positions had a choice and how many rollouts were
    played: one per candidate, the 1m discard (action id 0) included, none for the -1 padding.
    ``labelled_play`` is replaced by two steps of made-up targets: 3 positions of 2, 3 and 2 candidates (7
    rollouts). Mutants: rollouts.py line 249 the count taken as ``c > 0`` (the 1m discard not counted) and
    line 241 the padding of the collected table made 0 for -1 (padding counted as rollouts of the 1m
    discard)."""
    def made_up(rules, num_tables, seconds, seed, max_discards=3):
        cands = np.array([[A.PASS, A.DISCARD, A.PONG], [A.WIN, A.PASS, -1]])
        yield {"table": np.array([0, 1]), "candidates": cands,
               "q": np.array([[0.0, 1.0, 2.0], [1.0, 0.0, np.nan]]), "hand": np.array([0, 1])}
        yield {"table": np.array([0]), "candidates": np.array([[A.DISCARD + 3, A.DISCARD]]),
               "q": np.array([[0.0, -1.0]]), "hand": np.array([0])}

    monkeypatch.setattr(R, "labelled_play", made_up)
    assert R.main(["--seconds", "1", "--tables", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("3 positions with a choice, 7 rollouts in "), first


# ------------------------------------------------------------------------------------------- search.py
def test_search_weighs_a_1m_discard_that_is_the_only_alternative(monkeypatch):
    """A decision with two candidates, the rule agent's choice and the 1m discard (action id 0), has a choice
    and is searched: with rollouts (replaced here) that pay 5 points for the 1m discard, it is played. Mutant:
    search.py line 137 ``n_cands = (cands >= 0).sum(...)`` -> ``cands > 0`` (the 1m discard not counted, so
    such a decision had one candidate and the rule agent's choice was played unsearched)."""
    monkeypatch.setattr(search, "rollout_returns",
                        lambda engine, tables, first, agent, rng: np.where(first == A.DISCARD, 5.0, 0.0))
    found = 0
    for eng, live, obs in _rule_play(tables=32, seed=1, steps=40):
        _, cands = R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1), 2)
        only = ((cands >= 0).sum(axis=1) == 2) & (cands[:, 1] == A.DISCARD)
        if only.any():
            agent = RolloutSearchAgent(worlds=2, z=0.0, max_discards=2)
            got = agent.act_tables(eng, live, np.random.default_rng(1))
            assert (got[only] == A.DISCARD).all()
            found += 1
            if found == 2:
                break
    assert found


@pytest.mark.parametrize("over", [0, 1])
def test_no_batch_of_rollouts_is_larger_than_rollout_rows(over, monkeypatch):
    """``ROLLOUT_ROWS`` is "the most rollouts played in one batch": with the bound set to the rollouts of the
    first few decisions (``over`` 0) or one less (1), no batch passes it. Mutant: search.py line 146 ``... if
    start else 0`` -> ``else 1`` (the first batch could take one rollout more than the bound)."""
    eng, live, obs = next(_rule_play(tables=32, seed=1))
    _, cands = R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1))
    n = (cands >= 0).sum(axis=1)
    rollouts = np.cumsum(n[n >= 2] * 2)                                  # worlds 2
    assert len(rollouts) >= 3
    bound = int(rollouts[1]) - over
    monkeypatch.setattr(search, "ROLLOUT_ROWS", bound)
    sizes = []

    def spy(engine, tables, first, agent, rng):
        sizes.append(len(tables))
        return np.zeros(len(tables))

    monkeypatch.setattr(search, "rollout_returns", spy)
    agent = RolloutSearchAgent(worlds=2, z=0.0)
    agent.act_tables(eng, live, np.random.default_rng(1))
    assert sum(sizes) == rollouts[-1] and len(sizes) >= 2 and max(sizes) <= bound
    assert agent.stats["searched"] == len(rollouts)


def test_search_cli_lists_the_deviations_by_kind(monkeypatch, capsys):
    """``python -m agents.search`` ends with the deviations, "rule agent's kind -> played" with their counts,
    most first (the agent's ``stats["kinds"]``), after the decisions, those searched and the share of those
    played away from the rule agent. Rollouts are replaced by values that favour the highest action id, so the
    search moves away from the rule agent often. Mutants: search.py line 203, the print of the deviations
    deleted; line 200 the share taken as deviations times searched."""
    monkeypatch.setattr(search, "rollout_returns",
                        lambda engine, tables, first, agent, rng: np.asarray(first, dtype=float))
    made = []
    real = search.RolloutSearchAgent

    def keep(*args, **kw):
        made.append(real(*args, **kw))
        return made[-1]

    monkeypatch.setattr(search, "RolloutSearchAgent", keep)
    assert search.main(["--walls", "1", "--worlds", "2", "--batch-walls", "1", "--z", "0"]) == 0
    out = capsys.readouterr().out
    kinds = made[0].stats["kinds"]
    assert kinds
    (line,) = [x for x in out.splitlines() if x.startswith("deviations (rule agent's kind -> played):")]
    listed = re.findall(r"(\w+ -> \w+) ([\d,]+)", line)
    assert {k: int(v.replace(",", "")) for k, v in listed} == kinds
    assert [int(v.replace(",", "")) for _, v in listed] == sorted(kinds.values(), reverse=True)
    st = made[0].stats
    share = f"{st['deviations'] / st['searched']:.1%} of those away from the rule agent"
    assert f"{st['decisions']:,} decisions, {st['searched']:,} with a choice searched, {share}" in out


# ------------------------------------------------------------------------------------------- pretrained.py
@pytest.mark.parametrize("rules", sorted(pretrained.PLAYERS))
def test_each_card_tells_the_command_and_wall_time_its_checkpoint_was_trained_with(rules):
    """``PLAYERS[rules]`` gives "the ``train.py`` command that made it" and "its training wall time in
    minutes": the checkpoint's recorded arguments are those the command gives, and the run stopped on its
    --max-minutes (fewer steps than --total-steps), so the wall time is that limit plus less than a minute of
    the last update. Mutants: a card's ``train_minutes`` moved by a minute (100.0 -> 99.0 or 101.0, 45.1 ->
    44.1 or 46.1)."""
    pytest.importorskip("torch")
    import train
    from agents.checkpoints import load_checkpoint

    card = pretrained.PLAYERS[rules]
    argv = shlex.split(card["command"])
    assert argv[:2] == ["python", "train.py"]
    given = train.flags_given(argv[2:])
    parsed = vars(train.parse_args(argv[2:]))
    _, meta = load_checkpoint(pretrained.pretrained_path(rules))
    assert meta["rules"] == rules
    assert {f: meta["args"][f] for f in given} == {f: parsed[f] for f in given}
    assert meta["global_step"] < meta["args"]["total_steps"]        # stopped on the clock
    assert meta["args"]["max_minutes"] <= card["train_minutes"] < meta["args"]["max_minutes"] + 1


@pytest.mark.parametrize("argv, clairvoyant, name", [
    ([], False, "search"), (["--clairvoyant"], True, "clairvoyant"),
    (["--clairvoyant", "hands"], "hands", "sees_hands"),
])
def test_search_cli_is_fair_unless_told_to_cheat(argv, clairvoyant, name, monkeypatch):
    """``--clairvoyant`` left out is "a fair search, on redeals" (its --help): the agent the arena gets rolls
    out on redeals; ``--clairvoyant`` and ``--clairvoyant hands`` make the cheats the module docstring names.
    Mutant: search.py line 186, the flag's table mapping None to True (every search without the flag
    cheated)."""
    seen = []

    def stop(agents, walls, **kw):
        seen.append(agents[0])
        raise KeyboardInterrupt

    monkeypatch.setattr(search, "play_duplicate", stop)
    with pytest.raises(KeyboardInterrupt):
        search.main(["--walls", "1", "--worlds", "2", *argv])
    assert seen[0].clairvoyant == clairvoyant and type(seen[0].clairvoyant) is type(clairvoyant)
    assert seen[0].name == name


@pytest.mark.parametrize("z", [0.5, 1.0])
def test_one_world_refuses_a_z_between_0_and_infinity(z):
    """``worlds=1`` "takes ``z`` 0 or infinite only (a ValueError otherwise)": z 0.5 and 1 too. Mutant:
    search.py line 81 ``0 < z`` -> ``1 < z`` (one world took z up to 1 and played any gain)."""
    with pytest.raises(ValueError, match="worlds 1 gives no standard error"):
        RolloutSearchAgent(worlds=1, z=z)


def test_label_positions_labels_a_choice_whose_alternative_is_the_1m_discard(monkeypatch):
    """A position whose candidates are the rule agent's choice and the 1m discard (action id 0) has two
    candidates, so ``label_positions`` labels it. Mutant: rollouts.py line 146 ``(cands >= 0)`` ->
    ``(cands >= 1)`` (such a position counted one candidate and was left out)."""
    monkeypatch.setattr(R, "rollout_returns", lambda engine, tables, first, agent, rng: np.zeros(len(tables)))
    found = 0
    for eng, live, obs in _rule_play(tables=32, seed=1, steps=40):
        _, cands = R.candidate_actions(RuleBasedAgent(), obs, np.random.default_rng(1), 2)
        only = ((cands >= 0).sum(axis=1) == 2) & (cands[:, 1] == A.DISCARD)
        if only.any():
            got = R.label_positions(eng, RuleBasedAgent(), np.random.default_rng(1), 2)
            assert set(live[only].tolist()) <= set(got["table"].tolist())
            found += 1
            if found == 2:
                break
    assert found


def test_labelled_play_numbers_the_hands_of_successive_matches_apart(monkeypatch):
    """``labelled_play``'s ``hand`` is "a number for the hand each position is in": under rules of two hands a
    match, the hands of the second match get numbers of their own too. Mutant: rollouts.py line 174
    ``deals[t] * hands_per_episode`` -> ``deals[t] // hands_per_episode`` (the first hand of the second match
    took the number of the first match's first hand)."""
    from mj_env.rules import get_rules

    monkeypatch.setattr(R, "rollout_returns", lambda engine, tables, first, agent, rng: np.zeros(len(tables)))
    order = []                                   # hand numbers in the order play reaches them
    for got in R.labelled_play(get_rules("beijing", hands_per_episode=2), 1, 1e9, seed=0):
        for h in got["hand"].tolist():
            if not order or order[-1] != h:
                order.append(h)
        if len(order) >= 4:
            break
    assert len(set(order)) == len(order), order
