"""Interruption and the file system, as a long job meets them: SIGTERM (a scheduler's stop) keeps final.pt as
Ctrl-C does, Ctrl-C in the final evaluation still writes final_eval.json, ``--overwrite`` refuses the directory
of a run still going (the two runs' files mixed), a checkpoint that cannot be written (a full disk) is one
OSError naming it with no ``.tmp`` left, a checkpoint cut short says so, and the arena stopped by Ctrl-C ends
in one line with its ``--record`` file whole."""

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from agents import networks as nets
from agents.networks import CheckpointError, build_network, load_checkpoint, save_checkpoint

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--num-envs", "16", "--num-steps", "32", "--bc-steps", "0", "--eval-every", "0", "--hidden", "32",
        "--arch", "mlp", "--obs", "v1", "--threads", "1", "--no-progress", "--no-eval-pretrained"]
needs_flock = pytest.mark.skipif(sys.platform == "win32", reason="the run's lock is flock, which Windows lacks")


def small_network():
    return build_network({"arch": "mlp", "hidden": [8]})


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
