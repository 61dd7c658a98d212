"""Outside audit of the duplicate arena: what it reports can be trusted."""
from __future__ import annotations

import warnings
from itertools import product

import numpy as np
import pytest

from agents import RandomAgent, RuleBasedAgent
from agents.arena import compare, play_duplicate
from agents.base import RulesMismatchWarning
from mj_env.baselines import EfficientAgent


def test_an_agent_built_for_other_rules_is_warned_about():
    """``RuleBasedAgent()`` is the beijing rule agent: in a quemen run it ignores 缺一门 (it chases hands of all
    three suits) yet is reported as ``rule``. Checkpoints already warn (``RulesMismatchWarning``); agent objects
    given to ``play_duplicate`` or ``compare`` were played without a word (found by playing the beijing rule and
    efficient agents in hebei and quemen runs)."""
    with pytest.warns(RulesMismatchWarning, match=r"agents\[0\] \('rule'\) decides by the beijing rules but plays in a "
                                                  r"quemen run"):
        play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules="quemen")
    with pytest.warns(RulesMismatchWarning, match=r"agents\[1\] .* hebei run"):
        compare(["mine", "rule"], 1, seed=0, rules="hebei", agents=[RandomAgent(), EfficientAgent()])


def test_agents_built_for_the_run_rules_are_not_warned_about():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        play_duplicate([RuleBasedAgent("quemen"), EfficientAgent("quemen"), RandomAgent()], 1, seed=0, rules="quemen")
        compare(["rule", "random"], 1, seed=0, rules="hebei")
        play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules="beijing")


def test_every_agent_gets_its_own_name_even_when_a_given_name_looks_suffixed():
    """A repeated name gets ``#2``...; a name given as ``a#2`` was handed out again, so two rows of the summary (a
    random and a rule agent) and their hand records both said ``a#2``."""
    res = play_duplicate([RandomAgent(), RuleBasedAgent(), RandomAgent()], 1, seed=0, labels=["a", "a#2", "a"],
                         record_hands=True)
    assert res.names == ["a", "a#2", "a#3"]
    assert {p for rec in res.records for p in rec["players"]} == {"a", "a#2", "a#3"}
    summary = compare(["x", "x", "x#2"], 1, seed=0, agents=[RandomAgent(), RandomAgent(), RuleBasedAgent()])
    assert [a["name"] for a in summary["agents"]] == ["x", "x#3", "x#2"]


class _Lowest:
    """Deterministic: the lowest legal action."""

    name = "lowest"

    def act(self, obs, rng):
        return (np.asarray(obs["action_mask"]) != 0).argmax(axis=1).astype(np.int64)


class _Highest:
    """Deterministic: the highest legal action (a win, a pass or a claim before a discard)."""

    name = "highest"

    def act(self, obs, rng):
        mask = np.asarray(obs["action_mask"]) != 0
        return (mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)).astype(np.int64)


class _Steady(RuleBasedAgent):
    """The rule agent with its random tie-breaks fixed (every draw 0), so that one table alone plays as in a batch."""

    def act(self, obs, rng):
        return super().act(obs, _Zeros())


class _Zeros:
    def random(self, size=None, **kw):
        return np.zeros(size)


@pytest.mark.parametrize("rules, n_agents, n_walls", [("hebei", 2, 3), ("beijing", 3, 1), ("quemen", 4, 1)])
def test_each_hand_matches_the_aec_env_dealt_the_same_wall(rules, n_agents, n_walls):
    """The arena checked from outside: every (wall, seating) dealt to the PettingZoo env (``reset(options={"wall":
    ..., "dealer": ...})``, docs/INTERFACES.md 2) and played one table at a time by the agents of the seating's
    seats gives the points the arena credits seat by seat, and the summary's mean and Student-t interval over
    walls (both seatings of a wall together) recompute from those hands."""
    from scipy import stats

    import mj_env
    from agents.arena_report import summarize
    from mj_env.rules import get_rules
    from mj_env.tiles import CODES
    from mj_env.wall import shuffled_walls

    agents = [_Steady(rules), _Lowest()] if n_agents == 2 else [_Lowest(), _Highest(), _Lowest(), _Highest()][:n_agents]
    res = play_duplicate(agents, n_walls, seed=6, rules=rules, batch_walls=2)
    rng = np.random.default_rng([6, 0])
    walls = shuffled_walls(get_rules(rules), rng, n_walls)
    dealers = rng.integers(0, 4, size=n_walls) if rules != "beijing" else np.zeros(n_walls, int)  # drawn: hebei, quemen
    # the seatings as the README words them: ABAB and BABA; every seating with one agent doubled; every order
    everyone = {p for p in product(range(n_agents), repeat=4) if len(set(p)) == n_agents}
    assert {tuple(r) for r in res.seatings.tolist()} == ({(0, 1, 0, 1), (1, 0, 1, 0)} if n_agents == 2 else everyone)
    for w in range(n_walls):
        assert sorted(res.seating[res.wall == w].tolist()) == list(range(len(res.seatings)))
    env = mj_env.env(rules=rules)
    per_wall = np.zeros((n_walls, n_agents))
    for row in range(len(res.wall)):
        w, seats = int(res.wall[row]), res.seatings[res.seating[row]]
        env.reset(options={"wall": [CODES[t] for t in walls[w]], "dealer": int(dealers[w])})
        points = np.zeros(4)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            seat = int(name[-1])
            points[seat] += reward
            if term or trunc:
                env.step(None)
                continue
            planes = {"observation": obs["observation"][None], "action_mask": obs["action_mask"][None],
                      "seat": np.array([seat])}
            env.step(int(agents[seats[seat]].act(planes, None)[0]))
        assert points.sum() == pytest.approx(0) and np.allclose(res.scores[row], points), (row, points)
        np.add.at(per_wall[w], seats, points / (4 * len(res.seatings) / n_agents))
    for k, got in enumerate(summarize(res)["agents"]):
        v = per_wall[:, k]
        assert got["mean_points"] == pytest.approx(v.mean())
        if n_walls > 1:
            half = stats.t.ppf(0.975, n_walls - 1) * v.std(ddof=1) / np.sqrt(n_walls)
            assert got["ci95"] == pytest.approx([v.mean() - half, v.mean() + half])


def test_the_rules_warning_reads_the_object_form_and_ignores_what_names_no_rule_set():
    class Odd(RandomAgent):
        def __init__(self, rules):
            self.rules = rules

    with pytest.warns(RulesMismatchWarning, match="decides by the hebei rules"):
        play_duplicate([Odd({"name": "hebei", "base": 2}), RandomAgent()], 1, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        play_duplicate([Odd("my own notes"), Odd({"name": "beijing", "base": 2}), Odd(None)], 1, seed=0)


def test_an_opponent_built_for_other_rules_is_warned_about_in_the_single_agent_env():
    """The single-agent env took ``RuleBasedAgent()`` (beijing) as a quemen opponent without a word, as the arena
    did; by name (``"rule"``) it is built for the env's rules."""
    from mj_env.single_agent import MahjongSingleAgentVectorEnv
    with pytest.warns(RulesMismatchWarning, match=r"an opponent \('rule'\) decides by the beijing rules but plays in "
                                                  r"a quemen env"):
        env = MahjongSingleAgentVectorEnv(2, rules="quemen", opponents=RuleBasedAgent())
    with pytest.warns(RulesMismatchWarning, match="an opponent"):
        env.set_opponents([RandomAgent(), RandomAgent(), EfficientAgent("hebei")])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        env.set_opponents("rule")
        env.set_opponents(RuleBasedAgent("quemen"))
