"""Fixtures shared by the scripted-scenario tests (tests/test_scenarios.py, tests/test_fixed_readings.py), a
checkpoint whose logits overflow (the arena, train.py and the examples refuse it), a mypy cache for the
session's mypy runs, and for every test: Stable-Baselines3's logger folder and Ctrl-C raising
KeyboardInterrupt."""
from __future__ import annotations

import os
import signal
import sys
import threading

import pytest
from fast_game import BatchedFastGame, FastGame
from ref_engine import END, RefGame
from scenario_helpers import BEIJING, settled
from walls import build_wall


def pytest_collection_modifyitems(config, items):
    """The long runs marked ``slow`` (``-m slow``) may take longer than pyproject.toml's per-test limit
    (``timeout``, pytest-timeout), which is there to fail a hanging fast test; they run without one."""
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.timeout(0))


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_test_folder(tmp_path_factory):
    """SB3 makes a folder in the system's temporary directory (SB3-<date and time>) for every model it trains
    unless $SB3_LOGDIR names one; the suite trains about ten, and left them all behind."""
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if before is None:
        del os.environ["SB3_LOGDIR"]
    else:
        os.environ["SB3_LOGDIR"] = before


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_raises_keyboard_interrupt():
    """SIGINT raises KeyboardInterrupt in the test process, as in a Python started from a terminal. A pytest
    started with SIGINT ignored (a background job of a shell without job control, ``cmd &`` in a script, as a
    mutation helper ran its pytest) keeps it ignored: Python puts its handler only over the default action.
    The tests raising a real SIGINT (tests/test_run_signals.py) then failed with "DID NOT RAISE
    KeyboardInterrupt", and the processes that tests start and send a Ctrl-C (play's, in
    tests/test_play_cli_input_limits.py) ignored it (exit status 0, not 130)."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, before)


@pytest.fixture(params=[RefGame, FastGame, BatchedFastGame], ids=["ref", "fast", "batched"])
def new_game(request):
    """A factory of games of the engine under test, the reference ``RefGame`` and the batched engine through
    ``FastGame`` (one table) and ``BatchedFastGame`` (table 0 of three): ``new_game(rules, dealer, **layout)`` with ``build_wall``'s layout (hands, draws, indicator,
    tail, seed), or ``wall=`` a full wall. Every game that ended is checked by ``settled`` (zero-sum, legal
    wins, rewards = scores on the batched engine)."""
    made = []

    def make(rules=BEIJING, dealer=0, wall=None, **layout):
        if wall is None:
            if rules.hui:
                layout.setdefault("indicator", "9s")
            wall = build_wall(rules, dealer=dealer, **layout)
        g = request.param(rules, wall, dealer)
        made.append(g)
        return g

    yield make
    for g in made:
        if g.phase == END:
            settled(g)


@pytest.fixture
def overflowing_checkpoint(tmp_path):
    """A checkpoint file whose weights are finite (its loading checks accept it) but so large that the
    network's logits overflow to nan or inf."""
    torch = pytest.importorskip("torch")
    from agents.networks import PolicyValueNet, save_checkpoint

    net = PolicyValueNet(hidden=(8,))
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(1e30)
    return save_checkpoint(tmp_path / "huge.pt", net, rules="beijing")


@pytest.fixture
def threads():
    """train.py sets torch's thread count: put it back after the test (as ``_torch_threads_put_back`` does for
    every test; this one also imports torch, or skips without it)."""
    yield from _threads_kept(pytest.importorskip("torch"))


def _threads_kept(torch):
    """Around a test: torch's thread count put back after it where the test changed it, by the setter from
    before the test (a test's monkeypatch of torch.set_num_threads is undone before fixtures' teardowns)."""
    before, put_back = torch.get_num_threads(), torch.set_num_threads
    yield
    if torch.get_num_threads() != before:
        put_back(before)


@pytest.fixture(autouse=True)
def _torch_threads_put_back():
    """Torch's thread count put back after each test, for the tests after it in the same process (pytest -n 2
    mixes files from run to run): train.py's rollouts, updates and seed_everything set it, and tests calling
    them without ``threads`` left the rest of their process on one thread (or on --threads) (``_threads_kept``).
    A test that imports torch first in its process is not covered (there is no count from before it to put
    back): in a run of the whole suite, and in each xdist worker, test modules import torch as they are
    collected; a run of chosen files that import it only inside their tests leaves such a test's count."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
    else:
        yield from _threads_kept(torch)


# the signals whose handlers _ray_state_put_back puts back (not SIGALRM: pytest-timeout's, around each test)
_HANDLED = [getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2",
                                         "SIGPIPE", "SIGCHLD") if hasattr(signal, n)]


@pytest.fixture(autouse=True)
def _ray_state_put_back():
    """Where Ray is loaded (by the RLlib tests, or by torchrl, which imports it), the process state it changed
    put back after each test, for the tests after it in the same process: ray.init (examples/rllib_ppo.py's
    main, called in-process by tests/test_examples.py, even where it then fails to find a cluster) installs a
    SIGTERM handler calling sys.exit, so that a later SIGTERM to pytest became a SystemExit failing whatever
    test ran; importing ray replaces sys.excepthook and puts its thirdparty_files folder first on sys.path
    (psutil and colorama, both imported whole with ray); importing ray, rllib and tensordict sets environment
    variables ($RAY_CLIENT_MODE, $TF_CPP_MIN_LOG_LEVEL, $LAZY_LEGACY_OP) that they read only then.
    A Ray left running is shut down. Tests that never load Ray pay for the snapshot only (a few copies)."""
    handlers = {s: signal.getsignal(s) for s in _HANDLED}
    hooks = sys.excepthook, threading.excepthook
    environ, path = dict(os.environ), list(sys.path)
    yield
    ray = sys.modules.get("ray")
    if ray is None:
        return
    if getattr(ray, "is_initialized", lambda: False)():
        ray.shutdown()
    for s, h in handlers.items():
        if h is not None and signal.getsignal(s) is not h:  # None: a handler not set from Python
            signal.signal(s, h)
    sys.excepthook, threading.excepthook = hooks
    for k in set(os.environ) - set(environ) - {"PYTEST_CURRENT_TEST"}:
        del os.environ[k]
    for k, v in environ.items():
        if k != "PYTEST_CURRENT_TEST" and os.environ.get(k) != v:
            os.environ[k] = v
    sys.path[:] = path


@pytest.fixture(scope="session")
def mypy_cache_dir(tmp_path_factory):
    """One mypy cache for the session's (each xdist worker's) runs over this checkout: tests/test_typing.py's
    ``mypy mj_env agents`` and tests/test_typing_scripts.py's ``mypy train.py benchmarks examples``, which imports
    both packages (alone about 29 s cold, 9 s after the packages' run). mypy reads a module from its cache only
    where the source, its dependencies and the options are unchanged, and replays the errors it cached with it."""
    return tmp_path_factory.mktemp("mypy_cache")
