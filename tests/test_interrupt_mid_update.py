"""Ctrl-C (or SIGTERM) between the minibatch steps of a PPO update: final.pt is the network of the last finished
update, the one its ``update`` and ``global_step`` name, not one that no finished update produced."""

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch

import train
from agents.networks import load_checkpoint
from tests.test_train_interrupt import TINY

STEPS = 4 * 8  # optimizer steps per update: the default --update-epochs 4, --num-minibatches 8


def test_ctrl_c_inside_an_update_saves_the_last_finished_update(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    real_update, real_step = train.ppo_update, train.optimizer_step
    after, steps = [], []  # the weights after each finished update; optimizer steps taken

    def ppo_update(model, *a, **k):
        out = real_update(model, *a, **k)
        after.append({n: v.detach().clone() for n, v in model.state_dict().items()})
        return out

    def optimizer_step(*a, **k):
        steps.append(1)
        if len(steps) == 2 * STEPS + 5:  # the third update, five minibatch steps taken
            raise KeyboardInterrupt
        return real_step(*a, **k)

    monkeypatch.setattr(train, "ppo_update", ppo_update)
    monkeypatch.setattr(train, "optimizer_step", optimizer_step)
    result = train.main(["--exp-name", "mid", "--total-steps", "5120", "--final-eval-hands", "4", *TINY])
    assert len(after) == 2 and result["interrupted"] is True
    model, meta = load_checkpoint(tmp_path / "runs" / "mid" / "checkpoints" / "final.pt")
    assert meta["update"] == 2 and meta["global_step"] == 2 * 16 * 32
    saved = model.state_dict()
    assert saved.keys() == after[1].keys()
    assert all(torch.equal(saved[n], after[1][n]) for n in saved), "final.pt holds part of the third update"
    out = capsys.readouterr().out
    assert "interrupted (Ctrl-C) after 2 PPO updates, the update in progress is dropped" in out


def test_ctrl_c_after_an_update_before_its_row_saves_the_last_logged_update(tmp_path, monkeypatch, capsys):
    """An update's weights are changed, then its snapshot and quick evaluation run before its progress row is logged
    (what names the update in final.pt's meta): a Ctrl-C in that evaluation saved update 2's weights named update 1.
    final.pt is the last logged update's network."""
    monkeypatch.chdir(tmp_path)
    real_update, real_eval = train.ppo_update, train.evaluate
    after = []

    def ppo_update(model, *a, **k):
        out = real_update(model, *a, **k)
        after.append({n: v.detach().clone() for n, v in model.state_dict().items()})
        return out

    def evaluate(*a, **k):
        if len(after) == 2:  # the quick evaluation after update 2, before its row
            raise KeyboardInterrupt
        return real_eval(*a, **k)

    monkeypatch.setattr(train, "ppo_update", ppo_update)
    monkeypatch.setattr(train, "evaluate", evaluate)
    result = train.main(["--exp-name", "late", "--total-steps", "5120", "--final-eval-hands", "4", *TINY,
                         "--eval-every", "1", "--eval-hands", "2"])
    assert len(after) == 2 and result["interrupted"] is True
    model, meta = load_checkpoint(tmp_path / "runs" / "late" / "checkpoints" / "final.pt")
    assert meta["update"] == 1 and meta["global_step"] == 16 * 32
    saved = model.state_dict()
    assert all(torch.equal(saved[n], after[0][n]) for n in saved), "final.pt holds update 2 named update 1"
    assert "after 1 PPO updates, the update in progress is dropped" in capsys.readouterr().out
