"""Tests that leave no process state behind for the tests after them: Ray's (tests/conftest.py's
``_ray_state_put_back``). ray.init, which examples/rllib_ppo.py's main reaches in tests/test_examples.py even
where it finds no cluster, left its SIGTERM handler (``sys.exit``) in the pytest process, so that a SIGTERM
later failed whatever test ran; importing ray left its sys.excepthook, a sys.path entry and environment
variables. A pytest of its own runs those tests between two probes of this file, which compare the state."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBE = "MJ_ENV_RAY_STATE_PROBE"  # set only for the inner pytest: the probes compare nothing in a plain run
SIGNALS = [getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
           if hasattr(signal, n)]
_AT_START: dict = {}


def _state() -> dict:
    return {"handlers": {signal.Signals(s).name: signal.getsignal(s) for s in SIGNALS},
            "excepthook": sys.excepthook, "threading.excepthook": threading.excepthook,
            "sys.path": list(sys.path),
            "environ": {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}}


def test_probe_before():
    if PROBE not in os.environ:
        pytest.skip("a probe of test_ray_leaves_its_handlers_hook_path_and_environment_as_they_were's pytest")
    _AT_START.update(_state())


def test_probe_after():
    if PROBE not in os.environ or not _AT_START:
        pytest.skip("a probe of test_ray_leaves_its_handlers_hook_path_and_environment_as_they_were's pytest")
    now = _state()
    for key, was in _AT_START.items():
        if key == "environ":
            changed = {k: (was.get(k), now[key].get(k)) for k in set(was) | set(now[key])
                       if was.get(k) != now[key].get(k)}
            assert not changed, f"environment variables changed: {changed}"
        else:
            assert now[key] == was, f"{key}: {was!r} before, {now[key]!r} after"


def test_ray_leaves_its_handlers_hook_path_and_environment_as_they_were():
    pytest.importorskip("ray.rllib")
    me = Path(__file__).relative_to(ROOT).as_posix()
    ids = [f"{me}::test_probe_before",
           "tests/test_examples.py::test_rllib_says_when_there_is_no_cluster_to_join",
           "tests/test_examples.py::test_rllib_names_an_address_it_cannot_read",
           f"{me}::test_probe_after"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # (an xdist worker's own)
    out = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:xdist", "-p", "no:cacheprovider",
                          *ids], check=False, cwd=ROOT, env={**env, PROBE: "1"}, capture_output=True,
                         text=True, timeout=300)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-4000:]
    ran = [line.split(" ")[0] for line in out.stdout.splitlines() if line.endswith("%]")]
    assert ran == ids, text[-4000:]  # in this order, none skipped
    assert "4 passed" in out.stdout, text[-4000:]
