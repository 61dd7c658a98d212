"""Two research users working from the README and the docstrings alone (a reward-shaping researcher and a
strategy comparer): what they wrote that the documented interfaces got wrong, held here."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.arena import format_table, json_text, play_duplicate, plot, summarize
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
