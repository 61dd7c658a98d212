"""train.py stopped by Ctrl-C keeps what it trained: final.pt and final_eval.json, without a traceback."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import train
from agents.networks import load_checkpoint

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--num-envs", "16", "--num-steps", "32", "--bc-steps", "0", "--eval-every", "0", "--hidden", "32",
        "--arch", "mlp", "--obs", "v1", "--threads", "1", "--no-progress", "--no-eval-pretrained"]


def test_ctrl_c_in_training_saves_final_pt_and_skips_the_evaluation(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    real, calls = train.ppo_update, []

    def interrupted_on_the_third(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(train, "ppo_update", interrupted_on_the_third)
    try:
        result = train.main(["--exp-name", "cut", "--total-steps", "5120", "--final-eval-hands", "4", *TINY])
    except KeyboardInterrupt:  # (not pytest's own: it would end the whole session)
        pytest.fail("train.main let Ctrl-C through instead of saving final.pt")
    run = tmp_path / "runs" / "cut"
    _, meta = load_checkpoint(run / "checkpoints" / "final.pt")
    assert meta["update"] == 2 and meta["global_step"] == 2 * 16 * 32
    final = json.loads((run / "final_eval.json").read_text())
    assert final["interrupted"] is True and "eval" not in final and result["interrupted"] is True
    assert final["updates"] == 2
    out = capsys.readouterr().out
    assert "interrupted (Ctrl-C) after 2 PPO updates: saving the network as it is to final.pt" in out
    assert "final evaluation" not in out.replace("no final evaluation", "")
    assert "evaluate it against rule: python -m agents.arena --agents" in out
    assert len((run / "progress.csv").read_text().splitlines()) == 3  # the header and two updates


def test_a_run_ended_without_ctrl_c_says_nothing_of_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = train.main(["--exp-name", "whole", "--total-steps", "512", "--final-eval-hands", "0", *TINY])
    final = json.loads((tmp_path / "runs" / "whole" / "final_eval.json").read_text())
    assert "interrupted" not in final and "interrupted" not in result


@pytest.mark.parametrize(("sig", "status", "said"), [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")])
def test_a_signal_from_the_shell_ends_with_its_status_and_a_checkpoint(tmp_path, sig, status, said):
    """The real signal, as a terminal's Ctrl-C sends SIGINT (or kill, timeout and job schedulers SIGTERM), while the
    PPO updates run. SIGTERM ended the process at once, with no final.pt (only the snapshots of every
    --snapshot-every updates), no final_eval.json and no word."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), "--exp-name", "sig", "--total-steps",
                             "10000000", "--max-minutes", "3", "--final-eval-hands", "4", *TINY],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    csv_path = tmp_path / "runs" / "sig" / "progress.csv"
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if csv_path.is_file() and len(csv_path.read_text().splitlines()) >= 3:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=120)
    finally:  # a failed wait leaves no run behind (3 minutes of training on a shared machine)
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == status, (out, err)
    assert "Traceback" not in err and f"interrupted ({said}) after" in out + err
    _, meta = load_checkpoint(tmp_path / "runs" / "sig" / "checkpoints" / "final.pt")
    assert meta["update"] >= 2
    assert json.loads((tmp_path / "runs" / "sig" / "final_eval.json").read_text())["interrupted"] is True
