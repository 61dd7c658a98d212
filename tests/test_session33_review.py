"""Review of session 33's new code: ``MahjongVectorEnv(records=True)``, train.py's ``--keep-checkpoints``.

- The other environments refuse ``records`` by name (``mj_env.messages.refuse_arguments``: an argument another
  environment takes is not an unknown rule field), pointing at what each has instead.
- A snapshot checkpoint that cannot be deleted leaves the run going (it stopped the run, without final.pt).
- The README says which hands get no record (a deal that ends at once), as the vector env's docstring does.
"""
from __future__ import annotations

import pytest

# --------------------------------------------------------------------------- train.py --keep-checkpoints


def test_a_snapshot_that_cannot_be_deleted_leaves_the_run_going(tmp_path, capsys):
    """An OSError deleting an old snapshot (on Windows a file another program has open, such as an arena reading
    it; here a folder in its place) raised out of the training loop: the run ended with a traceback and no
    final.pt. It is left there, with a message, and the next is deleted as before."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import train

    stuck = tmp_path / "update_00010.pt"
    (stuck / "inside").mkdir(parents=True)  # unlink() cannot delete a folder
    files = [stuck, *(tmp_path / f"update_{u:05d}.pt" for u in (20, 30))]
    for f in files[1:]:
        f.write_bytes(b"")
    saved = list(files)
    train.prune_snapshots(saved, 1)
    assert saved == files[2:]
    assert stuck.is_dir() and not files[1].exists() and files[2].exists()
    assert f"--keep-checkpoints: could not delete {stuck}" in capsys.readouterr().out
