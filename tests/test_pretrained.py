"""The shipped pretrained player: loads by name everywhere the issue asks, is checked at load, plays legal
moves, and stays small."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from agent_obs import play

import train
from agents import make_agent, pretrained
from agents.arena import play_duplicate
from agents.arena_report import summarize
from agents.networks import CheckpointError, NetworkAgent, load_checkpoint
from mj_env.baselines import make_named_agent, plugin_agent_names
from mj_env.features import FEATURES_NAME
from mj_env.single_agent import MahjongSingleAgentVectorEnv

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_player_ships_small_and_loads_with_its_layout():
    assert pretrained.available() == tuple(pretrained.PLAYERS) and "beijing" in pretrained.available()
    for rules, card in pretrained.PLAYERS.items():
        path = pretrained.pretrained_path(rules)
        assert path.is_file() and path.stat().st_size < 4 * 2**20           # a few MB at most
        _, meta = load_checkpoint(path)
        assert meta["rules"] == rules and meta["obs_name"] == FEATURES_NAME
        assert card["command"].startswith("python train.py")
    # shipped as package data, and named for mj_env through the entry point
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'agents = ["data/*.pt"]' in pyproject and 'pretrained = "agents.pretrained:make_pretrained"' in pyproject


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_plays_legal_moves(rules):
    agent = make_agent("pretrained", rules=rules)
    assert isinstance(agent, NetworkAgent) and agent.name == "pretrained"
    assert agent.greedy is pretrained.PLAYERS[rules]["greedy"]
    assert make_agent("pretrained:sample", rules=rules).greedy is False
    assert make_agent("pretrained:greedy", rules=rules).greedy is True
    for _ in play(agent, rules, num_envs=16, steps=300, seed=3):    # every action checked legal
        pass


def test_unknown_rule_sets_and_names_are_clear_errors(monkeypatch):
    assert pretrained.available() == ("beijing", "hebei", "quemen")
    # a copy without hebei: monkeypatch.delitem put hebei back at the dict's end, and available() (its order)
    # read beijing, quemen, hebei in the tests after it
    monkeypatch.setattr(pretrained, "PLAYERS", {k: v for k, v in pretrained.PLAYERS.items() if k != "hebei"})
    with pytest.raises(ValueError, match="no pretrained player for rule set 'hebei'; shipped for: beijing, quemen"):
        make_agent("pretrained", rules="hebei")
    with pytest.raises(ValueError, match="no pretrained player for rule set 'hebei'"):
        MahjongSingleAgentVectorEnv(2, rules="hebei", opponents="pretrained")
    with pytest.raises(ValueError, match="not a pretrained player's name"):
        pretrained.make_pretrained("pretrained:fast")
    with pytest.raises(ValueError, match="unknown agent 'pretrained:fast'"):
        make_agent("pretrained:fast")


def test_a_file_of_another_layout_version_is_refused(tmp_path, monkeypatch):
    payload = torch.load(pretrained.pretrained_path("beijing"), map_location="cpu", weights_only=True)
    payload["obs_version"] += 1
    torch.save(payload, tmp_path / pretrained.PLAYERS["beijing"]["file"])
    monkeypatch.setattr(pretrained, "DATA", tmp_path)
    with pytest.raises(CheckpointError, match="observation layout"):
        make_agent("pretrained")
    (tmp_path / pretrained.PLAYERS["beijing"]["file"]).unlink()
    with pytest.raises(ValueError, match="missing from the installation"):
        make_agent("pretrained")


def test_the_single_agent_env_finds_it_through_the_entry_point():
    assert "pretrained" in plugin_agent_names()
    assert isinstance(make_named_agent("pretrained"), NetworkAgent)
    envs = MahjongSingleAgentVectorEnv(4, opponents="pretrained", seed=0)
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        m = obs["action_mask"] != 0
        obs, *_ = envs.step(np.where(m, rng.random(m.shape), -1).argmax(axis=1))


def test_the_arena_plays_it_by_name():
    res = summarize(play_duplicate([make_agent("pretrained"), make_agent("rule")], 4, seed=0))
    assert [a["name"] for a in res["agents"]] == ["pretrained", "rule"] and res["hands_played"] == 8


def test_train_py_seats_it_in_its_share_and_evaluates_against_it(tmp_path, monkeypatch):
    args = train.parse_args(["--num-envs", "2000", "--opponent-rule", "0.25", "--opponent-pretrained", "0.5"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(torch.nn.Linear(1, 1), "s")
    seats.deal(np.arange(2000))
    share = np.mean(seats.opp[:, None] == [train.SeatPlan.RULE, train.SeatPlan.PRETRAINED, 0], axis=0)
    assert np.allclose(share, [0.25, 0.5, 0.25], atol=0.04)
    for _ in range(3):                                  # pool turnover keeps the fixed opponents
        seats.add_snapshot(torch.nn.Linear(1, 1), "t")
    assert {train.SeatPlan.RULE, train.SeatPlan.PRETRAINED} <= set(seats.snapshots)

    monkeypatch.chdir(tmp_path)
    result = train.main([
        "--exp-name", "vs_pre", "--total-steps", "512", "--num-envs", "16", "--num-steps", "32", "--bc-steps", "0",
        "--opponent-rule", "0", "--opponent-pretrained", "1", "--eval-every", "1", "--eval-hands", "2",
        "--final-eval-hands", "2", "--arch", "mlp", "--hidden", "16", "--threads", "1", "--no-progress",
    ])
    assert set(result["eval"]) == {"random", "rule", "pretrained"}
    rows = (tmp_path / "runs" / "vs_pre" / "progress.csv").read_text().splitlines()
    head = rows[0].split(",")
    assert all(row.split(",")[head.index("vs_pretrained_points")] != "" for row in rows[1:])


@pytest.mark.parametrize("argv, message", [
    (["--opponent-rule", "0.75", "--opponent-pretrained", "0.5"], "their sum must be at most 1"),
    (["--opponent-pretrained", "-0.1"], "--opponent-pretrained must be in [0, 1]"),
    (["--rules", "hebei", "--opponent-pretrained", "0.2"], "no pretrained player is shipped for 'hebei'"),
])
def test_bad_pretrained_shares_are_usage_errors(argv, message, capsys, monkeypatch):
    # a copy without hebei: monkeypatch.delitem put hebei back at the dict's end, and available() (its order)
    # read beijing, quemen, hebei in the tests after it
    monkeypatch.setattr(pretrained, "PLAYERS", {k: v for k, v in pretrained.PLAYERS.items() if k != "hebei"})
    with pytest.raises(SystemExit):
        train.parse_args(argv)
    assert message in capsys.readouterr().err


ASYNC_SCRIPT = """
import faulthandler, sys
import gymnasium as gym
import torch
import mj_env  # noqa: F401  (registers the ids)
faulthandler.dump_traceback_later(90, exit=True)
torch.ones(256, 256) @ torch.ones(256, 256)  # the parent's thread pool is started before the fork
v = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="async", opponents="pretrained",
                 vector_kwargs={"context": "fork"})
o, _ = v.reset(seed=0)
o, r, term, trunc, info = v.step(o["action_mask"].argmax(1))
v.close()
print("ok")
"""


def test_async_vector_envs_with_network_opponents_do_not_hang_after_fork():
    # A forked child used to wait forever on the OpenMP pool its parent had started
    # (agents.networks gives forked children one torch thread).
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", ASYNC_SCRIPT], capture_output=True, text=True, timeout=150, check=False)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]



THREADS_SCRIPT = """
import multiprocessing, sys


def worker(queue):
    import torch
    import agents.networks  # what a sub-process env with network opponents imports
    queue.put(torch.get_num_threads())


if __name__ == "__main__":
    ctx = multiprocessing.get_context(sys.argv[1])
    queue = ctx.Queue()
    p = ctx.Process(target=worker, args=(queue,))
    p.start()
    print(queue.get(timeout=120))
    p.join(30)
"""


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_worker_processes_that_load_networks_get_one_torch_thread(method, tmp_path):
    # SB3's SubprocVecEnv starts its workers by forkserver: each worker's opponents took every core
    # (2.5x slower steps with two workers on 2 cores), where forked children already got one thread.
    # A script of its own, so that the child imports nothing but torch and agents.networks.
    import os
    import subprocess
    import sys
    script = tmp_path / "probe.py"
    script.write_text(THREADS_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OMP_NUM_THREADS", None)
    done = subprocess.run([sys.executable, str(script), method], capture_output=True, text=True, timeout=150,
                          check=False, env=env)
    assert done.returncode == 0 and done.stdout.split() == ["1"], (done.stdout, done.stderr[-2000:])


def test_the_player_computes_its_features_for_the_rule_set_it_is_given():
    """A RuleSet of a preset's name with fields changed is what the player's v2 features are computed for,
    not the preset it was trained for (passing no rules on went unnoticed by a mutation test)."""
    from mj_env.rules import get_rules

    variant = get_rules("quemen", chi=False)
    agent = pretrained.load_pretrained(variant)
    assert agent.rules is variant and agent.greedy is pretrained.PLAYERS["quemen"]["greedy"]
    assert pretrained.load_pretrained("quemen").rules == "quemen"
