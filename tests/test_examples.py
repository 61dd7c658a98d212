"""Every example in examples/ runs in its --smoke mode (skipped when its library is missing;
CI installs the ``examples`` extra so that they run)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_smoke(script: str, timeout: int = 240) -> str:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--smoke"], cwd=ROOT, check=False,
                         capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    return out.stdout


def test_sb3_maskable_ppo_smoke():
    pytest.importorskip("sb3_contrib")
    assert "points/hand" in run_smoke("sb3_maskable_ppo.py")


def test_tianshou_smoke():
    pytest.importorskip("tianshou")
    out = run_smoke("tianshou_pettingzoo.py")  # one epoch of DQN at player_0 against 3 random seats
    assert "epoch 1: " in out and "greedy learner" in out and "trained on" in out


def test_torchrl_smoke():
    pytest.importorskip("torchrl")
    out = run_smoke("torchrl_ppo.py")  # one PPO iteration on GymWrapper(ResetByMask(make_vec(...)))
    assert "iter 1: 256 decisions" in out and "loss" in out and "decisions/s training" in out


def test_rllib_smoke():
    pytest.importorskip("ray.rllib")
    assert "iter 1:" in run_smoke("rllib_ppo.py")


def test_rollout_improvement_smoke():
    pytest.importorskip("torch")
    out = run_smoke("rollout_improvement.py")  # a tiny clone, 2 s of rollout targets, one epoch, 8 walls
    assert "positions labelled" in out and "held-out gain" in out and "vs rule:" in out


def test_rollout_improvement_refuses_a_bad_checkpoint(tmp_path):
    pytest.importorskip("torch")
    bad = tmp_path / "bad.pt"
    bad.write_text("not a checkpoint")
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "rollout_improvement.py"), "--checkpoint", str(bad)],
                         cwd=ROOT, check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"error: --checkpoint: {bad}: not a checkpoint" in out.stderr.strip().splitlines()[-1]
