"""Copies of the project running at once: what they share (runs/<exp_name>/, the tables cache, ...)."""
from __future__ import annotations

import os

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import train

fcntl = pytest.importorskip("fcntl") if os.name != "nt" else None

TINY = ["--total-steps", "0", "--bc-steps", "0", "--final-eval-hands", "0", "--num-envs", "4", "--num-steps", "4",
        "--no-progress", "--no-eval-pretrained"]


def test_two_runs_of_one_name_started_together_never_share_the_directory(tmp_path, monkeypatch, capsys):
    """run_dir_problem looks before the setup (seconds); a run of the same name that created runs/X/ meanwhile
    (two runs started at the same moment) was not noticed: both wrote into runs/X/ (two TensorBoard files, one
    progress.csv, one run ending on the other's checkpoint .tmp)."""
    monkeypatch.chdir(tmp_path)
    real = train.eval_opponents

    def other_run_starts_meanwhile(*a, **k):
        (tmp_path / "runs" / "same").mkdir(parents=True)
        (tmp_path / "runs" / "same" / "progress.csv").write_text("update\n1\n")
        return real(*a, **k)

    monkeypatch.setattr(train, "eval_opponents", other_run_starts_meanwhile)
    with pytest.raises(SystemExit) as exit_:
        train.main(["--exp-name", "same", *TINY])
    assert exit_.value.code == 2 and "made by another run started at the same time" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "runs" / "same").iterdir()) == ["progress.csv"]
    assert (tmp_path / "runs" / "same" / "progress.csv").read_text() == "update\n1\n"


def test_a_lone_array_under_the_cache_name_is_rebuilt_not_a_crash(tmp_path, monkeypatch):
    """A cache file holding one array (``np.save`` to that name, by hand or by a tool that shares the cache
    folder) is a damaged cache: ``read`` gave it to ``with``, and every process using the tables ended in
    "TypeError: 'numpy.ndarray' object does not support the context manager protocol" instead of rebuilding."""
    import numpy as np

    from mj_env import tables

    cached = {name: tables.get(name) for name in tables.NAMES}
    builds = []
    monkeypatch.setattr(tables, "build", lambda: builds.append(1) or {k: v.copy() for k, v in cached.items()})
    target = tmp_path / "cache" / tables.FILE_NAME
    target.parent.mkdir()
    with open(target, "wb") as f:
        np.save(f, np.arange(3))
    monkeypatch.setattr(tables, "cache_paths", lambda: [target])
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    assert tables.read(target) is None
    assert np.array_equal(tables.get("need"), cached["need"]) and builds == [1]
    assert tables.read(target) is not None  # written anew, whole


def test_checkpoints_loaded_in_two_threads_at_once_leave_the_warning_filters_alone(monkeypatch):
    """Checkpoints are read inside ``warnings.catch_warnings()``, which swaps the process's one filter list;
    two threads loading at once (envs with network opponents made in a thread pool, a server loading an agent
    per game) could restore each other's lists, leaving "ignore every warning" in force for the rest of the
    process (4 threads x 30 loads of the shipped player did). The two loads are made to overlap here."""
    import threading
    import warnings

    import torch

    from agents import checkpoints
    from agents.pretrained import pretrained_path

    real, lock, inside = torch.load, threading.Lock(), []
    second_inside = threading.Event()

    def overlapping_load(*a, **k):
        with lock:
            inside.append(1)
            me = len(inside)
        if me == 1:
            second_inside.wait(0.5)  # the other thread enters meanwhile, unless loads are kept apart
        else:
            second_inside.set()
            threading.Event().wait(0.2)  # and leaves after the first
        return real(*a, **k)

    monkeypatch.setattr(torch, "load", overlapping_load)
    with warnings.catch_warnings():  # whatever happens, the filters of the tests after this one are kept
        warnings.simplefilter("default")
        before = list(warnings.filters)
        threads = [threading.Thread(target=checkpoints.load_checkpoint, args=(pretrained_path("beijing"),))
                   for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert warnings.filters == before


@pytest.mark.skipif(fcntl is None, reason="flock: POSIX")
def test_an_arena_record_file_another_run_is_writing_is_refused_not_mixed(tmp_path, capsys):
    """Two arena runs given one --record file both wrote into it batch by batch: records of the two runs
    mixed and cut into each other (mj_env.records then found broken lines), and neither said anything."""
    from agents import arena

    path = tmp_path / "hands.jsonl"
    path.write_text('{"other run": 1}\n')
    argv = ["--agents", "random,random", "--hands", "2", "--quiet", "--record", str(path)]
    with open(path, "a", encoding="utf-8") as other:  # what the other run holds
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert arena.main(argv) == 1
        assert "another process is writing it" in capsys.readouterr().err
        assert path.read_text() == '{"other run": 1}\n'  # not emptied either
    assert arena.main(argv) == 0  # that run over: written anew, whole
    assert len(path.read_text().splitlines()) == 4 and "other run" not in path.read_text()


def test_the_shared_rows_of_legal_are_never_cut_short_by_another_thread(monkeypatch):
    """``mj_env.legal._rows`` grows one module-wide arange and returned ``_ROWS[0][:n]``, reading the list
    again after storing: a thread that had looked while the array was shorter (a smaller batch, envs stepped in
    a thread pool) and stored its own arange in between made this call's rows shorter than n (a wrong shape
    deep in the engine). That interleaving is played here: the store of the 2000 rows is followed at once by
    the other thread's store of 1000."""
    import numpy as np

    from mj_env import legal

    class OtherThreadStoresLate(list):
        def __setitem__(self, i, rows):
            super().__setitem__(i, rows)
            if len(rows) == 2000:
                super().__setitem__(i, np.arange(1000))

    monkeypatch.setattr(legal, "_ROWS", OtherThreadStoresLate([np.arange(0)]))
    assert np.array_equal(legal._rows(2000), np.arange(2000))


def _forked_while_held(lock, child) -> int:
    """Fork while another thread of this process holds ``lock``; the child's exit status (0: ``child()`` was true
    there, within its own time limits)."""
    import threading

    held, release = threading.Event(), threading.Event()

    def holder():
        with lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    try:
        assert held.wait(10)
        pid = os.fork()
        if pid == 0:  # the child: never goes back into pytest
            code = 1
            try:
                import signal

                signal.alarm(60)  # a child that hangs ends (SIGALRM): pytest-timeout stops the parent, not it
                code = 0 if child() else 1
            finally:
                os._exit(code)
    finally:
        release.set()
        t.join()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX")
def test_a_process_forked_while_a_thread_loads_the_tables_can_use_them():
    """``mj_env.tables`` guards its first load with a module lock; a fork while another thread held it (an
    AsyncVectorEnv with context="fork" made while a thread builds or reads the tables) left the child a lock
    held by a thread it does not have: its first table waited forever (seen: a child killed by its alarm after
    60 s, with an empty cache being built in the parent's thread)."""
    from mj_env import tables

    assert _forked_while_held(tables._lock, lambda: tables._lock.acquire(timeout=2)) == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX")
def test_a_process_forked_while_a_thread_loads_a_checkpoint_can_load_one():
    """The lock held around torch.load (so that threads loading at once keep the warning filters) is new in a
    forked child: one taken over from a parent thread that was loading would never be released there."""
    from agents import checkpoints
    from agents.pretrained import pretrained_path

    def child():
        if not checkpoints._LOAD_LOCK.acquire(timeout=2):
            return False
        checkpoints._LOAD_LOCK.release()
        return checkpoints.load_checkpoint(pretrained_path("beijing")) is not None

    assert _forked_while_held(checkpoints._LOAD_LOCK, child) == 0


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    """XDG_CACHE_HOME=cache (relative, which the XDG spec says to ignore) put the user cache under each process's
    working directory: workers started in other working directories each built the tables again and left a
    7 MiB file there."""
    from mj_env import tables

    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tmp_path / "home" / ".cache" / "mj_env" / tables.FILE_NAME in tables.cache_paths()
    assert all(p.is_absolute() for p in tables.cache_paths())
