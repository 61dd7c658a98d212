"""The lock on train.py's run directory (``agents.training_run.lock_run_dir``): a run whose log cannot be set up,
or whose descriptor a forked child holds, lets go of it; a directory that cannot be opened is written unguarded."""
import os
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_interrupt import TINY

needs_flock = pytest.mark.skipif(sys.platform == "win32", reason="the run's lock is flock, which Windows lacks")


@needs_flock
@pytest.mark.parametrize("fails", ["SummaryWriter", "tqdm"])
def test_a_run_whose_log_cannot_be_set_up_lets_go_of_its_lock(tmp_path, monkeypatch, fails):
    """RunLog (agents.training_run) took the run directory's lock and then made the checkpoints folder, TensorBoard's writer,
    args.json, progress.csv and the bar: when one of those failed (a full disk, Ctrl-C there) no RunLog was made
    and main's finally had nothing to release, so the lock stayed held as long as the process lived (a notebook:
    the same name with --overwrite was then refused as a run "still running"), and a made writer's thread ran on."""
    pytest.importorskip("torch")
    import train
    from agents import training_run

    monkeypatch.chdir(tmp_path)
    real = getattr(training_run, fails)
    made = []

    def failing(*a, **k):
        if fails == "tqdm":  # the writer is made before the bar: it must be closed too
            made.append(1)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(training_run, fails, failing)
    threads = set(threading.enumerate())
    with pytest.raises(OSError, match="No space left"):
        train.main(["--exp-name", "nospace", "--total-steps", "512", "--final-eval-hands", "0", *TINY])
    assert training_run.run_in_use(Path("runs") / "nospace") is None
    assert [t for t in threading.enumerate() if t not in threads and t.is_alive()] == []
    monkeypatch.setattr(training_run, fails, real)
    result = train.main(["--exp-name", "nospace", "--overwrite", "--total-steps", "512", "--final-eval-hands", "0",
                         *TINY])
    assert result["updates"] == 1


@needs_flock
def test_a_run_lets_go_of_its_lock_even_where_a_forked_child_holds_its_descriptor(tmp_path, monkeypatch):
    """The lock is flock's, on the open file description: a child forked during the run (an opponent or a plugin
    that starts a worker process) holds a copy of the descriptor, and closing the run's own copy let go of
    nothing while that child lived, so --overwrite of the finished run was refused as "still running". The run
    now unlocks (LOCK_UN) before it closes. A dup stands for the child's copy."""
    pytest.importorskip("torch")
    import train
    from agents import training_run

    monkeypatch.chdir(tmp_path)
    real, copies = training_run.lock_run_dir, []

    def forked(run):
        fd = real(run)
        copies.append(os.dup(fd))  # what fork() gives a child: the same open file description
        return fd

    monkeypatch.setattr(training_run, "lock_run_dir", forked)
    try:
        train.main(["--exp-name", "forked", "--total-steps", "512", "--final-eval-hands", "0", *TINY])
        monkeypatch.setattr(training_run, "lock_run_dir", real)
        assert training_run.run_in_use(Path("runs") / "forked") is None
    finally:
        for fd in copies:
            os.close(fd)


def test_a_run_directory_that_cannot_be_opened_is_written_unguarded_not_a_traceback(tmp_path, monkeypatch):
    """lock_run_dir caught a failed flock (no locks: None) but not a failed open of the directory, which ended
    RunLog's set-up in a traceback."""
    pytest.importorskip("torch")
    from agents import training_run

    def refused(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(training_run.os, "open", refused)
    assert training_run.lock_run_dir(tmp_path) is None
