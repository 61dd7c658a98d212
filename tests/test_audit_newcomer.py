"""A newcomer following the README word by word (found by the newcomer audit)."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import agents
import train
from mj_env.baselines import RulesMismatchWarning
from mj_env.single_agent import MahjongSingleAgentVectorEnv


def test_the_plan_line_says_one_minute_in_the_singular():
    """``python train.py --max-minutes 1`` (the shortest budget a newcomer tries first) printed "stopping after
    the update that passes 1 minutes"."""
    args = train.Args(total_steps=512, num_envs=16, num_steps=32, bc_steps=0, final_eval_hands=0, max_minutes=1)
    assert train.plan_text(args, 1, []).endswith("stopping after the update that passes 1 minute")
    args = train.Args(total_steps=512, num_envs=16, num_steps=32, bc_steps=0, final_eval_hands=0, max_minutes=0.5)
    assert train.plan_text(args, 1, []).endswith("stopping after the update that passes 0.5 minutes")


def test_a_checkpoint_opponent_built_for_other_rules_is_told_how_to_build_it_right():
    """README: ``opponents=...`` takes "any batched agent such as ``agents.make_agent("ckpt.pt")``". A quemen
    checkpoint made so (``make_agent`` builds for beijing unless told) and given to ``mj_env/Quemen-v0`` was warned
    about with "build it for quemen (e.g. RuleBasedAgent('quemen')), or give its name", and its name (the path) is
    refused by the env as an unknown agent. The hint now names ``make_agent(path, rules='quemen')``, which works."""
    path = str(Path(agents.__file__).parent / "data" / "pretrained_quemen.pt")
    with pytest.warns(RulesMismatchWarning):
        wrong = agents.make_agent(path)
    with pytest.warns(RulesMismatchWarning, match=r"agents\.make_agent\(path, rules='quemen'\)") as caught:
        MahjongSingleAgentVectorEnv(1, rules="quemen", opponents=wrong)
    assert any("plays in a quemen env" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match=r"unknown agent .*agents\.make_agent\('path/to/checkpoint\.pt', "
                                         r"rules='quemen'\)"):
        MahjongSingleAgentVectorEnv(1, rules="quemen", opponents=path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        MahjongSingleAgentVectorEnv(1, rules="quemen", opponents=agents.make_agent(path, rules="quemen"))


def test_the_gymnasium_ids_need_mj_env_imported_or_named_as_the_readme_says():
    """The README's "most users start here" line was ``gymnasium.make("mj_env/Beijing-v0", opponents="rule")``
    alone: in a fresh interpreter that is ``NamespaceNotFound`` ("Have you installed the proper package for
    mj_env?"), although it is installed. It now says to ``import mj_env`` first, or to name the module in the id."""
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    line = readme.split("most users start here", 1)[1][:400]
    assert "`import mj_env`" in line and '"mj_env:mj_env/Beijing-v0"' in line
    code = ("import gymnasium as gym\n"
            "try:\n    gym.make('mj_env/Beijing-v0')\nexcept gym.error.NamespaceNotFound:\n    print('refused')\n"
            "e = gym.make('mj_env:mj_env/Beijing-v0', opponents='rule')\n"
            "obs, info = e.reset(seed=0)\nprint(e.unwrapped.rules.name, obs['action_mask'].sum() > 0)\n")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["refused", "beijing", "True"]


def test_the_aec_envs_render_without_a_render_mode_warns_and_returns_none():
    """PettingZoo's classic envs warn when render() is called with no render mode; ours returned None silently
    (found by the newcomer audit)."""
    import mj_env

    env = mj_env.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None


def test_the_records_checker_reads_standard_input_given_a_dash(tmp_path, capsys, monkeypatch):
    """``python -m mj_env.records -`` reads the records piped in (it looked for a file named '-'; from the
    newcomer audit), and leaves standard input open."""
    import io

    from agents.arena import main as arena_main
    from mj_env import records

    path = tmp_path / "games.jsonl"
    arena_main(["--agents", "rule,random", "--hands", "1", "--seed", "1", "--record", str(path), "--quiet"])
    capsys.readouterr()
    stdin = io.TextIOWrapper(io.BytesIO(path.read_bytes()))
    monkeypatch.setattr("sys.stdin", stdin)
    assert records.main(["-"]) == 0
    assert "2 of 2 record(s) replay to their stored settlements" in capsys.readouterr().out
    assert not stdin.closed
