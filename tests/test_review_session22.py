"""Cases found reviewing session 22's changes (train.py --exp-name, agents.arena --record, ...)."""
from __future__ import annotations

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)







def test_an_arena_record_file_on_a_file_system_without_locks_is_written_as_before(tmp_path, monkeypatch, capsys):
    """open_records locks the --record file (flock) so that two arena runs cannot mix their records; on a file
    system that has no locks (NFS with no lock daemon: "No locks available", ENOLCK) the lock itself failed and
    the run was refused ("cannot write ...: No locks available"), where before it wrote its records."""
    import errno

    fcntl = pytest.importorskip("fcntl")
    from agents import arena

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    path = tmp_path / "hands.jsonl"
    path.write_text("an earlier run's records\n")
    assert arena.main(["--agents", "random,random", "--hands", "2", "--quiet", "--record", str(path)]) == 0
    assert len(path.read_text().splitlines()) == 4 and "earlier" not in path.read_text()  # emptied, then written
