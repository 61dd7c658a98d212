"""What pyright (the checker behind VS Code's Pylance) found in mj_env and agents, and a test that keeps it clean.

pyright 1.1.414 reported 72 errors and 1 warning over the two packages where mypy reported none. Its 24 possibly
unbound variables (``mj_env.determinize``'s 报听 chain and 四惠牌 check, ``agents.rewards``, ``agents.arena_report``,
``agents.training_run``, ``mj_env.vector``) were each bound on every path that reads them, by a condition pyright
does not follow (``own``, ``check_hui``, ``done``, a log kept): the code now binds them first, with the same results
and the same random numbers (``mj_env.determinize``'s worlds compared with the code before at 576 seeded positions of
the three rule sets, and its 报听 chain with and without concealed kongs). The rest were annotations narrower than what
a function is given (``make_agent``'s rules, ``add_meld``'s wild, ``play_duplicate``'s callable ``record_hands``),
a descriptor without overloads (``EngineRules``: every ``env.rules`` read as ``EngineRules | RuleSet``), NumPy's
``isscalar`` guard, and library types that mj_env overrides on purpose (text renders, a property over an attribute,
``CommonStreams``' Generator methods): ignores with their rule and reason; in ``agents.networks``, a rules mismatch check that read ``rules`` under a
condition on a name derived from it. One was a user-visible fault, tested below.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

ROOT = Path(__file__).resolve().parents[1]


class _BoxAEC:
    """The least a PettingZoo AEC env has for ``FlatObservations``: agents and an observation space per agent."""

    def __init__(self, space):
        self.possible_agents = ["player_0", "player_1"]
        self._space = space

    def observation_space(self, agent):
        return self._space


@pytest.mark.parametrize("space", [
    spaces.Box(0, 1, (4, 34), dtype=np.uint8),
    spaces.Dict({"obs": spaces.Box(0, 1, (4, 34), dtype=np.uint8),
                 "action_mask": spaces.Box(0, 1, (5,), dtype=np.int8)}),
], ids=["Box", "Dict-without-observation"])
def test_flat_observations_refuse_an_aec_env_without_mj_envs_dict_space_with_a_type_error_that_names_it(space):
    """``FlatObservations`` checked only that it wrapped a PettingZoo AEC env, then read ``space["observation"]``:
    an env observing a Box failed with ``TypeError: 'Box' object is not subscriptable`` and a Dict without an
    ``'observation'`` key with a bare ``KeyError: 'observation'`` (pyright: a ``Space`` given where a ``Dict`` is
    taken), neither saying what the wrapper needs, as ``FlatObservationsGym`` does."""
    from mj_env.wrappers import FlatObservations

    with pytest.raises(TypeError, match="the flat observations need a Dict space with an 'observation' space"):
        FlatObservations(_BoxAEC(space))


def _pyright() -> str:
    """The checker to run: ``PYRIGHT``, else the dev extra's basedpyright beside this Python (pyright's program and
    a Node in wheels, so CI runs this test), else a ``pyright`` or ``basedpyright`` on the PATH; where none is
    found, the calling test skips."""
    beside = Path(sys.executable).parent / ("basedpyright.exe" if os.name == "nt" else "basedpyright")
    exe = (os.environ.get("PYRIGHT") or (str(beside) if beside.is_file() else None) or shutil.which("pyright")
           or shutil.which("basedpyright"))
    if exe is None:
        pytest.skip("no pyright executable (PATH, or PYRIGHT=/path/to/pyright)")
    return exe


def _findings(exe: str, paths: list[str], cwd: Path, *extra: str) -> list[str]:
    """pyright's errors and warnings over ``paths`` (run in ``cwd`` with this Python's packages), one line each."""
    run = subprocess.run([exe, "--outputjson", "--pythonpath", sys.executable, *extra, *paths], cwd=cwd,
                         capture_output=True, text=True, timeout=300, check=False,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        found = json.loads(run.stdout)["generalDiagnostics"]
    except (ValueError, KeyError):
        pytest.fail(f"pyright gave no report (exit {run.returncode}):\n{run.stdout}\n{run.stderr}")
    return [f"{os.path.relpath(d['file'], cwd)}:{d['range']['start']['line'] + 1}: {d['severity']}: {d['message']} "
            f"({d.get('rule', '')})" for d in found if d["severity"] in ("error", "warning")]


def _users_findings(code: str, tmp_path: Path) -> list[str]:
    """pyright's findings over ``code`` as a user's file in ``tmp_path``, under this project's ``[tool.pyright]``."""
    (tmp_path / "user_code.py").write_text(code, encoding="utf-8")
    return _findings(_pyright(), ["user_code.py"], tmp_path, "-p", str(ROOT / "pyproject.toml"))


# the libraries examples/ imports (the examples extra): without one, pyright cannot resolve its imports there
EXAMPLE_LIBRARIES = ("sb3_contrib", "tianshou", "torchrl", "ray")


@pytest.mark.parametrize("paths", [["mj_env", "agents"], ["train.py", "benchmarks", "examples"]],
                         ids=["packages", "scripts"])
def test_pyright_finds_no_error(paths):
    """pyright (pyproject.toml's ``[tool.pyright]``: standard mode, Python 3.10) over mj_env and agents, and over
    the scripts a user runs (as ``mypy`` checks both: tests/test_typing.py, tests/test_typing_scripts.py), with this
    Python's packages: no error or warning (about 25 s and 10 s). Skipped where no checker is found (``_pyright``),
    the scripts also where an example's library is not installed."""
    exe = _pyright()
    missing = [name for name in EXAMPLE_LIBRARIES if importlib.util.find_spec(name) is None]
    if "examples" in paths and missing:
        pytest.skip(f"examples/ imports {', '.join(missing)}, not installed (the examples extra)")
    bad = _findings(exe, paths, ROOT)
    assert not bad, f"pyright found {len(bad)}:\n" + "\n".join(bad)


USER_CODE = """\
import numpy as np

import mj_env
from agents import RuleBasedAgent, make_agent
from agents.arena import play_duplicate
from agents.networks import NetworkAgent, PolicyValueNet, model_inputs
from agents.search import RolloutSearchAgent
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv

hebei = get_rules("hebei")
logged = {"name": "beijing", "hui_wild_in_melds": True}
mj_env.env(rules=hebei, render_mode="ansi", illegal_action="penalize", illegal_penalty=2.5, obs="v2")
mj_env.env(rules=logged)
MahjongVectorEnv(num_envs=2, rules=hebei, seed=3, autoreset_mode="next_step", obs="v2", records=True)
MahjongVectorEnv(num_envs=2, rules=logged)
MahjongSingleAgentVectorEnv(2, rules=hebei, opponents=["rule", "random", "efficient"], seat="rotate", seed=1)
MahjongSingleAgentVectorEnv(2, rules=logged, opponents=RuleBasedAgent(hebei), seat="random", illegal_penalty=1)
MahjongSingleAgentEnv(rules=hebei, opponents=["rule", "random", "efficient"], seat="rotate")
MahjongSingleAgentVectorEnv(2, seat=np.int64(1), max_episode_steps=np.int32(50))
NetworkAgent(PolicyValueNet(), rules=logged)
model_inputs(PolicyValueNet(), np.zeros((1, 14, 34), np.uint8), np.ones((1, 127), np.int8), hebei)
RolloutSearchAgent(rules=logged)
Engine(logged, num_tables=2)
make_agent("rule", rules=logged)
play_duplicate([RuleBasedAgent(logged), make_agent("random")], 1, rules=logged)
"""


def test_a_users_calls_with_the_documented_argument_types_type_check(tmp_path):
    """A user's code (in VS Code, whose Pylance is pyright) passing what the docstrings and README take: a RuleSet or
    the object form of a settlement's ``input`` as ``rules``, a list of opponents, ``seat="rotate"``, a float
    penalty. pyright types an unannotated parameter by its default, so ``rules="beijing"`` read as ``str`` and
    ``seat=0`` as ``int``: 21 errors in such a file (``mypy`` reads those parameters as ``Any`` and said nothing). The
    parameters are annotated (``mj_env.rules.RulesSpec`` for every ``rules``)."""
    bad = _users_findings(USER_CODE, tmp_path)
    assert not bad, "\n".join(bad)


USER_OPPONENTS = """\
import numpy as np

from agents import make_agent
from mj_env.baselines import uniform_legal
from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv


class Mine:
    name = "mine"

    def act(self, observations: dict[str, np.ndarray], generator: np.random.Generator) -> np.ndarray:
        return uniform_legal(observations["action_mask"], generator)


class Untyped:
    def act(self, obs, rng):
        return obs["action_mask"].argmax(axis=1)


venv = MahjongSingleAgentVectorEnv(2, opponents=Mine())
venv.set_opponents([Mine(), "rule", Untyped()])
venv.opponents = make_agent("efficient")
env = MahjongSingleAgentEnv(opponents=(Untyped(), "random", "pretrained"))
env.set_opponents("rule")
MahjongSingleAgentVectorEnv(2, opponents=42)
MahjongSingleAgentEnv(opponents=[object(), "rule", "rule"])
"""


def test_a_users_own_agents_type_check_as_opponents_and_what_cannot_act_does_not(tmp_path):
    """``opponents`` is typed ``mj_env.baselines.Opponents``: a name, an object with ``act(obs, rng)``
    (``mj_env.baselines.Actor``, whatever its parameters are called) or three of them. A user's own agent class,
    typed or not, is accepted in every place the envs take opponents; a number or an object without ``act`` is
    flagged in the editor (it raises at run time), where ``opponents: object`` let both through."""
    found = _users_findings(USER_OPPONENTS, tmp_path)
    lines = USER_OPPONENTS.splitlines()
    flagged = sorted({int(f.split(":")[1]) for f in found})
    assert [lines[n - 1] for n in flagged] == lines[-2:], "\n".join(found)
