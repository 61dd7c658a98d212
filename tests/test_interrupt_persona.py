"""Interruption and the file system, as a long job meets them: SIGTERM (a scheduler's stop) keeps final.pt as
Ctrl-C does, Ctrl-C in the final evaluation still writes final_eval.json, ``--overwrite`` refuses the directory
of a run still going (the two runs' files mixed), a checkpoint that cannot be written (a full disk) is one
OSError naming it with no ``.tmp`` left, a checkpoint cut short says so, and the arena stopped by Ctrl-C ends
in one line with its ``--record`` file whole."""

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import train
from agents import arena, training_run
from agents import networks as nets
from agents.networks import CheckpointError, build_network, load_checkpoint, save_checkpoint
from mj_env import records

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--num-envs", "16", "--num-steps", "32", "--bc-steps", "0", "--eval-every", "0", "--hidden", "32",
        "--arch", "mlp", "--obs", "v1", "--threads", "1", "--no-progress", "--no-eval-pretrained"]
needs_flock = pytest.mark.skipif(sys.platform == "win32", reason="the run's lock is flock, which Windows lacks")


def small_network():
    return build_network({"arch": "mlp", "hidden": [8]})


@needs_flock
def test_overwrite_refuses_the_directory_of_a_run_still_going(tmp_path, monkeypatch, capsys):
    """A run of the name that is still going holds its directory's lock: --overwrite deleted that directory
    and the first run went on writing its checkpoints and final_eval.json beside the second's args.json."""
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "busy"
    (run / "checkpoints").mkdir(parents=True)
    (run / "args.json").write_text("{}")
    held = training_run.lock_run_dir(run)  # as the running train.py holds it
    try:
        problem = train.run_dir_problem(train.Args(exp_name="busy", overwrite=True))
        assert problem is not None and "runs/busy/ belongs to a train.py that is still running" in problem
        with pytest.raises(SystemExit) as stop:
            train.main(["--exp-name", "busy", "--overwrite", "--total-steps", "512", "--final-eval-hands", "0", *TINY])
        assert stop.value.code == 2 and "still running" in capsys.readouterr().err
        assert (run / "args.json").read_text() == "{}"  # nothing deleted
    finally:
        os.close(held)
    assert train.run_dir_problem(train.Args(exp_name="busy", overwrite=True)) is None  # once it has ended


@needs_flock
def test_a_run_holds_its_lock_while_it_trains_and_lets_go_at_the_end(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    real, seen = train.ppo_update, []

    def looking(*a, **k):
        seen.append(training_run.run_in_use(Path("runs") / "own"))
        return real(*a, **k)

    monkeypatch.setattr(train, "ppo_update", looking)
    train.main(["--exp-name", "own", "--total-steps", "512", "--final-eval-hands", "0", *TINY])
    assert len(seen) == 1 and seen[0] is not None and "still running" in seen[0]
    assert training_run.run_in_use(Path("runs") / "own") is None


@needs_flock
def test_a_run_that_fails_lets_go_of_its_lock_in_the_same_process(tmp_path, monkeypatch):
    """train.main called from a notebook: a run that diverged kept its directory's lock (and TensorBoard writer)
    for as long as the process lived, so the same name with --overwrite was refused as "still running"."""
    monkeypatch.chdir(tmp_path)
    real = train.ppo_update

    def diverging(*a, **k):
        raise train.TrainingDiverged("training diverged: a weight became nan or infinite in the PPO update")

    monkeypatch.setattr(train, "ppo_update", diverging)
    with pytest.raises(train.TrainingDiverged):
        train.main(["--exp-name", "failed", "--total-steps", "512", "--final-eval-hands", "0", *TINY])
    assert training_run.run_in_use(Path("runs") / "failed") is None
    monkeypatch.setattr(train, "ppo_update", real)
    result = train.main(["--exp-name", "failed", "--overwrite", "--total-steps", "512", "--final-eval-hands", "0",
                         *TINY])
    assert result["updates"] == 1


def test_ctrl_c_in_the_final_evaluation_writes_final_eval_json_and_the_command(tmp_path, monkeypatch, capsys):
    """final.pt is saved before the evaluation; an interrupted evaluation left no final_eval.json (the README
    says an interrupted run's says "interrupted": true), no pointer to final.pt, and the event file unclosed."""
    monkeypatch.chdir(tmp_path)

    def evaluate(model, args, hands, device, opponents):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "evaluate", evaluate)
    try:
        result = train.main(["--exp-name", "fe", "--total-steps", "512", "--final-eval-hands", "4", *TINY])
    except KeyboardInterrupt:  # (not pytest's own: it would end the whole session)
        pytest.fail("train.main let Ctrl-C in the final evaluation through without writing final_eval.json")
    run = tmp_path / "runs" / "fe"
    final = json.loads((run / "final_eval.json").read_text())
    assert final["interrupted"] is True and result["interrupted"] is True and "eval" not in final
    assert final["updates"] == 1  # training itself ended
    assert load_checkpoint(run / "checkpoints" / "final.pt")[1]["update"] == 1
    out = capsys.readouterr().out
    assert "interrupted (Ctrl-C) in the final evaluation: final.pt is saved" in out
    assert "evaluate it against rule: python -m agents.arena --agents runs/fe/checkpoints/final.pt,rule" in out


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a file whose writes find no space")
def test_a_checkpoint_on_a_full_disk_is_an_os_error_naming_it_and_leaves_no_tmp(tmp_path):
    """torch.save on a full disk raises RuntimeError("basic_ios::clear: iostream error") or "unexpected pos",
    naming nothing: train.py ended in a traceback and left the half-written path.tmp."""
    path = tmp_path / "final.pt"
    tmp = tmp_path / "final.pt.tmp"
    tmp.symlink_to("/dev/full")  # torch.save writes path.tmp: here, a device that is always full
    with pytest.raises(OSError) as e:
        save_checkpoint(path, small_network(), rules="beijing")
    assert str(e.value).startswith(f"{path}: not saved, torch.save could not write final.pt.tmp")
    assert "is the disk full?" in str(e.value)
    assert not os.path.lexists(tmp) and not path.exists()


def test_ctrl_c_while_a_checkpoint_is_written_leaves_no_tmp(tmp_path, monkeypatch):
    path = tmp_path / "update_00010.pt"
    real = nets.torch.save

    def cut(payload, where):
        real(payload, where)  # written (as far as it got), then Ctrl-C before the rename
        raise KeyboardInterrupt

    monkeypatch.setattr(nets.torch, "save", cut)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, small_network(), rules="beijing")
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.parametrize("keep", [0.5, 0.99], ids=["half", "all_but_its_end"])
def test_a_checkpoint_cut_short_says_so_and_names_the_file(tmp_path, keep):
    """torch.load said "OSError: [Errno 22] Invalid argument" of a file cut at half, which names no cause."""
    whole = save_checkpoint(tmp_path / "whole.pt", small_network(), rules="beijing").read_bytes()
    cut = tmp_path / "cut.pt"
    cut.write_bytes(whole[:int(len(whole) * keep)])
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(cut)
    assert str(e.value).startswith(f"{cut}: cut short or damaged")


def test_the_arena_stopped_by_ctrl_c_says_so_in_one_line_and_leaves_whole_records(tmp_path, monkeypatch, capsys):
    """It ended in a traceback of some thirty lines (the file was whole: a batch is written at once)."""
    real = arena.compare

    def stopped_after_the_first_batch(*a, records=None, **k):
        def write(batch):
            records(batch)
            raise KeyboardInterrupt
        return real(*a, records=write, **k)

    monkeypatch.setattr(arena, "compare", stopped_after_the_first_batch)
    out = tmp_path / "hands.jsonl"
    try:
        status = arena.main(["--agents", "rule,random", "--hands", "4", "--batch", "2", "--seed", "0", "--quiet",
                             "--record", str(out)])
    except KeyboardInterrupt:
        pytest.fail("python -m agents.arena let Ctrl-C through as a traceback")
    assert status == 130
    err = capsys.readouterr().err
    assert err == (f"python -m agents.arena: interrupted (Ctrl-C), no summary; {out} holds the hands of the "
                   "batches played so far\n")
    assert len(out.read_text().splitlines()) == 4  # the first batch: 2 walls x 2 seatings
    assert records.main([str(out)]) == 0
    assert "4 of 4 record(s) replay" in capsys.readouterr().out
