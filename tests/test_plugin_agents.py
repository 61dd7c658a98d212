"""agents.make_agent (the arena, train.py's opponents) takes the agents that installed packages declare in the
``mj_env.agents`` entry points, as the single-agent env's ``opponents`` already did: a strategy comparer's own
agent, packaged, plays in the arena's command line (found by the strategy-comparer persona)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from agents import make_agent
from agents.arena import main as arena_main
from mj_env import baselines
from mj_env.baselines import RandomAgent, RuleBasedAgent


class HighestTile(RuleBasedAgent):
    """A user's agent, as a package would declare it: the rule agent under another name."""
    name = "highest"


def factory(spec, rules="beijing"):
    made.append((spec, rules))
    return HighestTile(rules)


made: list = []


@pytest.fixture
def installed(monkeypatch):
    """One more installed entry point, ``highest``, beside the real ones (``pretrained``)."""
    real = baselines.entry_points
    extra = SimpleNamespace(name="highest", value="tests.test_plugin_agents:factory", load=lambda: factory)
    monkeypatch.setattr(baselines, "entry_points", lambda group: [*real(group=group), extra])
    made.clear()
    return extra


def test_an_installed_name_makes_the_packages_agent(installed):
    agent = make_agent("highest", rules="hebei")
    assert isinstance(agent, HighestTile) and agent.rules.name == "hebei"
    assert made == [("highest", "hebei")]
    make_agent("highest:fast")  # the whole name goes to the factory, as make_named_agent gives it
    assert made[-1] == ("highest:fast", "beijing")


def test_the_arena_command_line_plays_an_installed_agent(installed, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert arena_main(["--agents", "highest,random", "--hands", "4", "--seed", "3", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert [a["name"] for a in result["agents"]] == ["highest", "random"]
    assert made == [("highest", "beijing")]


def test_the_unknown_name_error_lists_the_installed_names(installed):
    with pytest.raises(ValueError, match="use random, rule, efficient, pretrained, highest or the path"):
        make_agent("hihgest")


def test_without_the_package_the_name_is_unknown_as_before():
    with pytest.raises(ValueError, match="unknown agent 'highest': use random, rule, efficient, pretrained or the path"):
        make_agent("highest")


def test_a_path_object_still_names_a_file_and_baselines_come_first(installed, tmp_path):
    with pytest.raises(ValueError, match="no such checkpoint file"):
        make_agent(tmp_path / "highest")
    assert isinstance(make_agent("random"), RandomAgent) and made == []


def test_the_arena_command_line_lists_the_installed_names_for_an_unknown_one(installed, capsys):
    with pytest.raises(SystemExit):
        arena_main(["--agents", "hihgest,random", "--hands", "4"])
    assert "unknown agent 'hihgest': use random, rule, efficient, pretrained[:greedy|:sample], highest or" in \
        capsys.readouterr().err
    assert made == []
