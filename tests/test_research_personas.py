"""Two research users working from the README and the docstrings alone (a reward-shaping researcher and a
strategy comparer): what they wrote that the documented interfaces got wrong, held here."""
from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mj_env  # noqa: F401  (registers the Gymnasium ids)
from agents.arena import play_duplicate
from agents.arena_report import format_table, json_text, plot, summarize
from agents.rewards import RewardOption
from mj_env.baselines import RuleBasedAgent, uniform_legal


class NamedRandom:
    """A user's own agent (README: "any object with ``name`` and ``act(obs, rng)``") whose ``name`` is not a
    str: a checkpoint's Path, a number, or None left as a placeholder."""

    def __init__(self, name):
        self.name = name

    def act(self, obs, rng):
        return uniform_legal(np.asarray(obs["action_mask"]), rng)


@pytest.mark.parametrize("name", [Path("runs/mine/final.pt"), 7, None])
def test_an_agent_whose_name_is_not_a_str_is_summarised_and_written(name, tmp_path):
    # play_duplicate took the name as it was, played every hand and only then failed in format_table
    # (AttributeError: 'int' object has no attribute 'replace'), json_text (a Path is not JSON) and the records
    result = play_duplicate([NamedRandom(name), RuleBasedAgent()], 2, seed=0, batch_walls=2, record_hands=True)
    assert result.names == [str(name), "rule"]
    summary = summarize(result)
    assert str(name) in format_table(summary)
    assert json.loads(json_text(summary))["agents"][0]["name"] == str(name)
    assert {tuple(json.loads(json.dumps(r))["players"]) for r in result.records} == {
        (str(name), "rule", str(name), "rule"), ("rule", str(name), "rule", str(name))}
    pytest.importorskip("matplotlib")
    plot(summary, str(tmp_path / "cmp.png"))


@pytest.mark.parametrize("kind, paid", [("points", -10.0), ("scaled", -2.5), ("sign", -1.0)])
def test_info_points_is_the_envs_reward_and_an_illegal_penalty_is_transformed_as_points(kind, paid):
    # The README said info["points"] "keeps the settled points"; at an illegal action (penalized by default in
    # the single-agent env) it holds the penalty, settles nothing (scores all zero), and sign pays it as -1,
    # no worse than any lost hand: an evaluation that sums info["points"] counts penalties as points.
    env = RewardOption(gym.make("mj_env/Beijing-v0"), kind)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info["illegal_action"] and info["points"] == -10.0 and not info["scores"].any()
    assert reward == paid
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "`info[\"points\"]` keeps the settled points (and the env's penalty for an illegal action" in readme
    doc = " ".join(RewardOption.__doc__.split())
    assert "or the penalty of an illegal action" in doc and "``sign``: -1, as for any lost hand" in doc
