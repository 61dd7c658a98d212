"""Review of session 33's new code: ``MahjongVectorEnv(records=True)``, train.py's ``--keep-checkpoints``.

- The other environments refuse ``records`` by name (``mj_env.messages.refuse_arguments``: an argument another
  environment takes is not an unknown rule field), pointing at what each has instead.
- A snapshot checkpoint that cannot be deleted leaves the run going (it stopped the run, without final.pt).
- The README says which hands get no record (a deal that ends at once), as the vector env's docstring does.
"""
from __future__ import annotations

import pytest

# --------------------------------------------------------------------------- records: the other environments


def test_the_aec_env_refuses_records_by_name_and_names_hand_record():
    """``mj_env.env(records=True)`` was refused as an unknown rule field ("the fields are those of
    mj_env.rules.RuleSet"); the AEC env's record is ``env.unwrapped.hand_record()``."""
    import mj_env

    with pytest.raises(ValueError, match=r"^records: .*env\.unwrapped\.hand_record\(\)"):
        mj_env.env(records=True)


@pytest.mark.parametrize("make", ["vector", "one_table"])
def test_the_single_agent_envs_refuse_records_by_name(make):
    from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv

    with pytest.raises(ValueError, match=r"^records: .*MahjongVectorEnv\(num_envs, records=True\)"):
        MahjongSingleAgentVectorEnv(2, records=True) if make == "vector" else MahjongSingleAgentEnv(records=True)


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
