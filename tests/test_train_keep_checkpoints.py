"""train.py's ``--keep-checkpoints N``: only the newest N snapshot checkpoints are kept (final.pt too), the run
draws what a run that keeps all draws, the count is checked like the others, and a snapshot that cannot be
deleted leaves the run going."""
from __future__ import annotations

from pathlib import Path

import pytest


def _tiny_run(name, *extra):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from test_train_interrupt import TINY

    import train

    train.main(["--exp-name", name, "--total-steps", "2048", "--snapshot-every", "1", "--final-eval-hands", "0",
                "--max-minutes", "none", *TINY, *extra])  # 4 updates of 512 decisions, a snapshot after each
    return Path("runs") / name / "checkpoints"


def test_keep_checkpoints_keeps_the_newest_snapshots_and_the_run_as_it_was(tmp_path, monkeypatch):
    """A snapshot checkpoint every --snapshot-every updates piled up for good; --keep-checkpoints N deletes the
    oldest beyond N as each is saved (final.pt kept). The run draws the same numbers: its weights are those of a
    run that keeps all (the default, unchanged). There is no resuming, and the pool holds its snapshots in memory:
    no file deleted is read again."""
    torch = pytest.importorskip("torch")
    from agents.networks import load_checkpoint

    monkeypatch.chdir(tmp_path)
    every = _tiny_run("all")
    assert sorted(p.name for p in every.iterdir()) == ["final.pt", *(f"update_0000{u}.pt" for u in range(1, 5))]
    kept = _tiny_run("two", "--keep-checkpoints", "2")
    assert sorted(p.name for p in kept.iterdir()) == ["final.pt", "update_00003.pt", "update_00004.pt"]
    for name in ("final.pt", "update_00004.pt"):
        a, _ = load_checkpoint(every / name)
        b, meta = load_checkpoint(kept / name)
        assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
    assert meta["args"]["keep_checkpoints"] == 2
    assert sorted(p.name for p in _tiny_run("one", "--keep-checkpoints", "1").iterdir()) == ["final.pt",
                                                                                              "update_00004.pt"]


def test_keep_checkpoints_is_checked_like_the_other_counts(capsys):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    assert train.Args().keep_checkpoints == 0 and train.parse_args([]).keep_checkpoints == 0
    assert train.check_args(train.Args(keep_checkpoints=-1)) == "--keep-checkpoints must be at least 0, not -1"
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--keep-checkpoints", "-1"])
    assert e.value.code == 2 and "--keep-checkpoints must be at least 0, not -1" in capsys.readouterr().err


def test_prune_snapshots_deletes_only_the_oldest_files_it_is_given(tmp_path):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.training_run import prune_snapshots

    files = [tmp_path / f"update_{u:05d}.pt" for u in (10, 20, 30)]
    for f in [*files, tmp_path / "final.pt"]:
        f.write_bytes(b"")
    saved = list(files)
    prune_snapshots(saved, 0)  # keep all
    assert saved == files and all(f.exists() for f in files)
    files[1].unlink()  # one deleted by hand meanwhile
    prune_snapshots(saved, 1)
    assert saved == files[2:] and sorted(p.name for p in tmp_path.iterdir()) == ["final.pt", "update_00030.pt"]


def test_a_snapshot_that_cannot_be_deleted_leaves_the_run_going(tmp_path, capsys):
    """An OSError deleting an old snapshot (on Windows a file another program has open, such as an arena reading
    it; here a folder in its place) raised out of the training loop: the run ended with a traceback and no
    final.pt. It is left there, with a message, and the next is deleted as before."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.training_run import prune_snapshots

    stuck = tmp_path / "update_00010.pt"
    (stuck / "inside").mkdir(parents=True)  # unlink() cannot delete a folder
    files = [stuck, *(tmp_path / f"update_{u:05d}.pt" for u in (20, 30))]
    for f in files[1:]:
        f.write_bytes(b"")
    saved = list(files)
    prune_snapshots(saved, 1)
    assert saved == files[2:]
    assert stuck.is_dir() and not files[1].exists() and files[2].exists()
    assert f"--keep-checkpoints: could not delete {stuck}" in capsys.readouterr().out
