"""agents.make_agent (the arena, train.py's opponents) takes the agents that installed packages declare in the
``mj_env.agents`` entry points, as the single-agent env's ``opponents`` already did: a strategy comparer's own
agent, packaged, plays in the arena's command line (found by the strategy-comparer persona)."""
from __future__ import annotations

import importlib.abc
import json
import sys
from types import SimpleNamespace

import pytest

from agents import make_agent
from agents.arena import main as arena_main
from mj_env import baselines
from mj_env.baselines import RandomAgent, RuleBasedAgent, make_named_agent


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


# --------------------------------------------------------------------------- names a package declares: missing dependencies, colons, shadowed names


class Theirs(RuleBasedAgent):
    name = "theirs"


def _needs_sklearn(spec, rules="beijing"):
    import sklearn_is_not_installed_here  # noqa: F401  (the other package's own dependency, missing)


def _theirs(spec, rules="beijing"):
    made.append(spec)
    return Theirs(rules)


def _declare(monkeypatch, *eps):
    real = baselines.entry_points
    extra = [SimpleNamespace(name=name, value=value, load=lambda f=f: f) for name, value, f in eps]
    monkeypatch.setattr(baselines, "entry_points", lambda group: [*real(group=group), *extra])
    made.clear()


def test_another_packages_missing_dependency_is_not_said_to_be_our_training_extra(monkeypatch):
    """make_agent now takes other packages' names (the arena's --agents too): a missing dependency of theirs was
    answered 'install the training extra (pip install -e .[train])', which installs torch, not what they need."""
    _declare(monkeypatch, ("needy", "theirpkg.agents:factory", _needs_sklearn),
             ("ours", "agents.fake:factory", _needs_sklearn))
    with pytest.raises(ValueError, match="needs sklearn_is_not_installed_here") as e:
        make_agent("needy")
    assert "training extra" not in str(e.value) and "install what that package needs" in str(e.value)
    with pytest.raises(ValueError, match=r"training extra \(pip install -e '\.\[train\]'\)"):
        make_named_agent("ours")           # this package's own entry point (pretrained without torch) as before


def test_a_declared_name_holding_a_colon_is_played_not_listed_and_refused(monkeypatch, tmp_path):
    """An entry point named 'team:v2' was listed among the names to use, yet refused: NAME:... read 'team' as the
    name. The whole name is matched first; 'team:v2:greedy' still goes to 'team' when 'team' is declared."""
    _declare(monkeypatch, ("team:v2", "theirpkg.agents:factory", _theirs))
    assert isinstance(make_agent("team:v2", rules="hebei"), Theirs) and made == ["team:v2"]
    out = tmp_path / "r.json"
    assert arena_main(["--agents", "team:v2,random", "--hands", "2", "--quiet", "--json", str(out)]) == 0
    assert made[-1] == "team:v2"


def test_a_declared_name_that_a_baseline_shadows_is_not_offered(monkeypatch, capsys):
    """A package declaring 'rule' never gets it (the baselines come first): the unknown-name lists named it as
    one more agent to use ('..., pretrained, rule or the path'), and make_named_agent's list named 'rule' twice."""
    _declare(monkeypatch, ("rule", "theirpkg.agents:factory", _theirs))
    with pytest.raises(ValueError) as e:
        make_agent("rulle")
    assert "use random, rule, efficient, pretrained or the path" in str(e.value)
    with pytest.raises(ValueError) as e:
        make_named_agent("rulle")
    assert str(e.value).count(", rule") == 1        # the baseline once, not again as a package's
    with pytest.raises(SystemExit):
        arena_main(["--agents", "rulle,random", "--hands", "2"])
    assert "pretrained[:greedy|:sample] or the path" in capsys.readouterr().err
    assert isinstance(make_agent("rule"), RuleBasedAgent) and made == []


class _Missing(importlib.abc.MetaPathFinder):
    """``import NAME`` (and of NAME's submodules) fails for the names given, as where they are not installed."""

    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if any(name == n or name.startswith(n + ".") for n in self.names):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def test_the_arena_plays_an_installed_agent_where_torch_is_not_installed(installed, monkeypatch, tmp_path,
                                                                         capsys):
    """A core install (no torch) refused ``--agents highest,random`` with "network agents (pretrained,
    checkpoints) need torch": every name that was not a baseline was taken for a network and its device checked.
    An installed package's agent is made without a device (``make_named_agent``); a checkpoint still asks for torch."""
    # import fails, as where the train extra is missing: the modules are taken out of sys.modules (not set to None
    # there, which SciPy's array-API check, reading sys.modules["torch"].Tensor, fails on when the test runs alone)
    blocked = ("torch", "agents.networks")
    for name in [n for n in sys.modules if n in blocked or n.startswith("torch.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_Missing(blocked), *sys.meta_path])
    out = tmp_path / "r.json"
    assert arena_main(["--agents", "highest,random", "--hands", "2", "--quiet", "--json", str(out)]) == 0
    assert [a["name"] for a in json.loads(out.read_text())["agents"]] == ["highest", "random"]
    checkpoint = tmp_path / "player.pt"
    checkpoint.write_bytes(b"not read: torch is missing")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        arena_main(["--agents", f"{checkpoint},random", "--hands", "2", "--quiet"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(": error: network agents (pretrained, checkpoints) need torch: pip install torch\n")

