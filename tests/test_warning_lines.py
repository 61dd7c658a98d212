"""A ``RulesMismatchWarning`` names the user's line, not one inside the library, whichever public call brought
the mismatched agent in (the single-agent envs' forms are in tests/test_single_agent_mutants.py). Before,
``compare(..., agents=...)`` named a line of agents/arena.py and ``make_agent``/``load_agents`` of a checkpoint
one of agents/__init__.py. A ``CheckpointWarning`` under ``runpy`` or ``python -m`` names a line of code too."""
from __future__ import annotations

import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from agents import make_agent
from agents.arena import compare, load_agents, play_duplicate
from agents.base import RulesMismatchWarning
from agents.networks import NetworkAgent
from agents.pretrained import DATA
from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent
from mj_env.messages import user_stacklevel
from mj_env.single_agent import MahjongSingleAgentEnv

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = str(DATA / "pretrained_beijing.pt")

CALLS = {
    "play_duplicate": lambda: play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules="quemen"),
    "compare": lambda: compare(["mine", "rule"], 1, seed=0, rules="hebei", agents=[RandomAgent(), EfficientAgent()]),
    "make_agent": lambda: make_agent(CHECKPOINT, rules="quemen"),
    "load_agents": lambda: load_agents([CHECKPOINT], rules="quemen"),
    "from_checkpoint": lambda: NetworkAgent.from_checkpoint(CHECKPOINT, rules="quemen"),
    "single_agent_env": lambda: MahjongSingleAgentEnv(rules="quemen", opponents=[RuleBasedAgent()] * 3),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_rules_mismatch_warning_names_the_callers_line(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CALLS[call]()
    mismatch = [w for w in caught if issubclass(w.category, RulesMismatchWarning)]
    assert mismatch, f"{call}: no RulesMismatchWarning"
    # the lambda's own line: a warning one frame further out (this test, in the same file) would be wrong too
    assert {(w.filename, w.lineno) for w in mismatch} == {(__file__, CALLS[call].__code__.co_firstlineno)}


def _inner(modules):
    return user_stacklevel(*modules)


def test_user_stacklevel_counts_the_frames_inside_the_given_modules():
    """Called from a frame outside every folder given, it is 1 (the caller's own line); each frame of the
    caller's stack inside a given folder adds one. (This test file's folder stands in for the library.)"""
    import sys

    here = sys.modules[__name__]
    assert _inner(()) == 1
    assert _inner((warnings,)) == 1  # the standard library's folder: not on this stack
    # _inner and this test are both in tests/: the walk passes both, then pytest's frame (outside) ends it
    assert _inner((here,)) == 3


# --------------------------------------------------------------------------- opponents set through Stable-Baselines3's vector wrappers


def _mismatch_lines(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found = {(w.filename, w.lineno) for w in caught if issubclass(w.category, RulesMismatchWarning)}
    assert found, "no RulesMismatchWarning"
    return found


def test_an_opponent_set_through_stable_baselines3s_vec_env_wrappers_names_the_users_line():
    """README: on SB3's vectors of one-table envs opponents come in by ``env_method("set_opponents", ...)``, and on
    mj_env.sb3's vector (wrapped in SB3's VecMonitor, as its docstring shows) by ``set_attr("opponents", ...)``.
    The warning named a line of stable_baselines3/common/vec_env/ (the walk skipped only mj_env and Gymnasium)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from mj_env.sb3 import MahjongSB3VecEnv

    quemen_rule = [RuleBasedAgent()] * 3  # built for beijing
    monitored = VecMonitor(MahjongSB3VecEnv(num_envs=2, rules="quemen"))
    assert {f for f, _ in _mismatch_lines(lambda: monitored.set_attr("opponents", quemen_rule))} == {__file__}
    assert {f for f, _ in _mismatch_lines(lambda: monitored.env_method("set_opponents", quemen_rule))} == {__file__}
    dummy = DummyVecEnv([lambda: MahjongSingleAgentEnv(rules="quemen")])
    assert {f for f, _ in _mismatch_lines(lambda: dummy.env_method("set_opponents", quemen_rule))} == {__file__}


# --------------------------------------------------------------------------- a CheckpointWarning under runpy and python -m


def _checkpoint_with_a_key_beside_its_format(tmp_path):
    torch = pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.pretrained import pretrained_path

    payload = torch.load(pretrained_path("beijing"), weights_only=True)
    payload["normalizer"] = 1
    torch.save(payload, tmp_path / "later.pt")
    return tmp_path / "later.pt"


def test_a_checkpoint_warning_under_runpy_names_the_users_line(tmp_path, monkeypatch):
    """The arena run by a user's ``runpy.run_module`` (as ``python -m`` runs it): the warning named
    ``<frozen runpy>``, runpy's own line; the frames of runpy are passed over as the library's are."""
    from agents.networks import CheckpointWarning
    from mj_env import lines

    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    monkeypatch.setattr(lines, "guard_output", lambda prog: None)  # (it would wrap pytest's sys.stdout)
    monkeypatch.setattr(sys, "argv", ["arena", "--agents", f"{path},rule", "--hands", "1", "--quiet"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(SystemExit) as e:
            runpy.run_module("agents.arena", run_name="__main__")
    line = sys._getframe().f_lineno - 1  # the line above: the run_module call
    assert e.value.code == 0
    named = [(Path(w.filename), w.lineno) for w in caught if issubclass(w.category, CheckpointWarning)]
    assert named == [(Path(__file__), line)]


def test_a_checkpoint_warning_under_python_m_names_a_line_of_code(tmp_path):
    """``python -m agents.arena --agents LATER.pt,rule``: no line of the user's lies above the library's; the
    warning named ``<frozen runpy>:88``, and names the line of agents/checkpoints.py that warns now."""
    path = _checkpoint_with_a_key_beside_its_format(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    done = subprocess.run([sys.executable, "-m", "agents.arena", "--agents", f"{path},rule", "--hands", "1",
                           "--quiet"], check=False, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    warned = [ln for ln in done.stderr.splitlines() if "CheckpointWarning" in ln]
    assert len(warned) == 1 and "runpy" not in done.stderr
    assert warned[0].startswith(f"{ROOT / 'agents' / 'checkpoints.py'}:")
    assert f"CheckpointWarning: {path}: its key 'normalizer' is not of format" in warned[0]
