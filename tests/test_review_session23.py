"""A review of the change d264a85..6e94fa9 (records' ``-``, checked_agent_actions' message for what NumPy cannot
read, ...), trying each change with the hostile or unusual input a reviewer would."""
from __future__ import annotations

import numpy as np


def test_a_save_whose_folder_cannot_be_listed_afterwards_still_succeeds(tmp_path, monkeypatch):
    """3a4b910 lists the cache folder for stale temporaries after the file is in place, inside the loop that
    takes an OSError for a failed write: a listing that failed (EIO on a network share; Python 3.11's glob
    passes over PermissionError only) made a written cache "cannot write the hand tables cache"."""
    import errno
    from pathlib import Path

    from mj_env import tables

    def failing_glob(self, pattern):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Path, "glob", failing_glob)
    target = tmp_path / tables.FILE_NAME
    assert tables.save({"need": np.zeros(3, dtype=np.uint8)}, target) == target
    assert [p.name for p in tmp_path.iterdir()] == [tables.FILE_NAME]
