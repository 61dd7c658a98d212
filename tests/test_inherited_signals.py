"""A process started with a signal ignored (``nohup`` ignores SIGHUP, a background job of a non-interactive
shell starts with SIGINT ignored, some supervisors ignore SIGTERM) keeps it ignored, as Python itself keeps an
inherited SIG_IGN for SIGINT: train.py and the other command lines, sent that signal during the run and as
they exit, run on and finish normally, their files and exit status those of a run that got none. Started
normally, the signals behave as tests/test_run_signals.py and tests/test_train_interrupt.py check."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_interrupt import TINY

from agents import training_run
from agents.networks import load_checkpoint

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signal dispositions")

SIGNALS = [signal.SIGINT, signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())]


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_train_py_started_with_a_signal_ignored_is_not_stopped_by_it(tmp_path, sig):
    """The signal comes as final_eval.json is written and again as the process exits (an atexit callback,
    after train.py's ``__main__`` is over). train.py put its SIGTERM handler over an inherited SIG_IGN (the
    run stopped: "interrupted (SIGTERM)", killed by SIGTERM), and ``signals_end_the_process`` gave SIGINT and
    SIGTERM their default action at the end (the process killed by a signal it had been started ignoring)."""
    script = ("import atexit, os, runpy, signal, sys\n"
              "from agents import arena_report\n"
              f"signal.signal({int(sig)}, signal.SIG_IGN)  # as the launcher (nohup, a shell) left it\n"
              f"atexit.register(lambda: os.kill(os.getpid(), {int(sig)}))  # (atexit runs it last)\n"
              "real = arena_report.json_text\n"
              "def json_text(obj, *a, **k):  # final_eval.json: the signal comes as it is written\n"
              "    if 'checkpoint' in obj:\n"
              f"        os.kill(os.getpid(), {int(sig)})\n"
              "    return real(obj, *a, **k)\n"
              "arena_report.json_text = json_text\n"
              "sys.argv = ['train.py', *sys.argv[1:]]\n"
              f"runpy.run_path({str(REPO / 'train.py')!r}, run_name='__main__')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script, "--exp-name", "x", "--total-steps", "512",
                           "--final-eval-hands", "0", *TINY], check=False, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "interrupted" not in done.stdout + done.stderr
    final = json.loads((tmp_path / "runs" / "x" / "final_eval.json").read_text())
    assert final["updates"] == 1 and "interrupted" not in final
    _, meta = load_checkpoint(tmp_path / "runs" / "x" / "checkpoints" / "final.pt")
    assert meta["update"] == 1


def test_signals_end_the_process_keeps_an_ignored_signal_ignored():
    """In process: a stop signal set to SIG_IGN stays so; one with a handler gets the default action."""
    before = {s: signal.getsignal(s) for s in training_run.STOP_SIGNALS}
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda signum, frame: None)
        training_run.signals_end_the_process()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        training_run.signals_end_the_process()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        for s, h in before.items():
            signal.signal(s, h)


LAUNCHER = """\
import atexit, os, runpy, signal, sys, threading, time
sig, target = int(sys.argv[1]), sys.argv[2]
sys.argv = [target, *sys.argv[3:]]
signal.signal(sig, signal.SIG_IGN)  # as the launcher (nohup, a shell, a supervisor) left it; then exec'd
def send():  # the signal to the whole process group (a benchmark's children too), all along the run
    while True:
        os.killpg(0, sig)
        time.sleep(0.01)
os.killpg(0, sig)
threading.Thread(target=send, daemon=True).start()
atexit.register(lambda: os.killpg(0, sig))  # and as the process exits
if target.endswith(".py"):
    runpy.run_path(target, run_name="__main__")
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
"""

SCORE_LINE = '{"hand":"111m999p222s5z","melds":[{"type":"pong","tiles":"777s","from":2}],"win_tile":"5z"}\n'


def _run(argv, tmp_path, stdin="", sig=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    if sig is not None:  # (start_new_session: the process group signalled is the command's own, not pytest's)
        argv = [sys.executable, "-c", LAUNCHER, str(int(sig)), *argv]
    else:
        argv = [sys.executable, *(["-m"] if not argv[0].endswith(".py") else []), *argv]
    return subprocess.run(argv, check=False, cwd=tmp_path, env=env, input=stdin, capture_output=True,
                          text=True, timeout=120, start_new_session=True)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_the_command_lines_started_with_a_signal_ignored_run_on_as_without_it(tmp_path, sig):
    """``python -m agents.arena``, ``-m mj_env.records``, ``-m mj_env.score``, ``-m agents.play`` (its input
    ended at once) and benchmarks/throughput.py (its children, which inherit the disposition, signalled too),
    sent the signal they were started ignoring all along their run: the same standard output, standard error
    and exit status as a run that got none."""
    record = tmp_path / "r.jsonl"
    arena = ["agents.arena", "--agents", "random,rule", "--hands", "2", "--seed", "1", "--quiet", "--record",
             str(record)]
    plain = _run(arena, tmp_path)
    assert plain.returncode == 0, plain.stderr
    ignored = _run(arena, tmp_path, sig=sig)
    assert (ignored.returncode, ignored.stdout, ignored.stderr) == (0, plain.stdout, plain.stderr)
    for argv, stdin in [(["mj_env.records", str(record)], ""), (["mj_env.score"], SCORE_LINE * 3),
                        (["agents.play", "--hands", "1", "--seed", "1"], "")]:
        plain = _run(argv, tmp_path, stdin)
        ignored = _run(argv, tmp_path, stdin, sig=sig)
        assert (ignored.returncode, ignored.stdout, ignored.stderr) == (
            plain.returncode, plain.stdout, plain.stderr), argv
    bench = [str(REPO / "benchmarks" / "throughput.py"), "--seconds", "0.2", "--warmup", "0", "--impls",
             "vector", "--batch-sizes", "1", "--no-progress"]
    ignored = _run(bench, tmp_path, sig=sig)
    told = ignored.stdout + ignored.stderr
    assert ignored.returncode == 0 and "error" not in told, told
    assert ignored.stdout.count("\nvector      1 ") == 1, ignored.stdout
