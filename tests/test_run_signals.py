"""A signal (Ctrl-C, SIGTERM) while train.py's run ends: a signal while final.pt, the final evaluation's tables or
final_eval.json are written leaves them whole; one that breaks into TensorBoard's close, into the message of a
first signal or into Python's atexit callbacks ends the run as that signal, with no traceback; and
``training_run.signals_held`` puts the handlers back. Real signals (``signal.raise_signal`` or ``os.kill``)."""
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_interrupt import TINY

import train
from agents import arena_report, training_run
from agents import networks as nets
from agents.networks import load_checkpoint

# --------------------------------------------------------------------------- a signal while a run's end is written


@pytest.fixture
def sigterm_raises():
    """SIGTERM raises training_run.Terminated, as train.py's __main__ has it (the default would end pytest)."""
    def on_sigterm(signum, frame):
        raise training_run.Terminated

    before = signal.signal(signal.SIGTERM, on_sigterm)
    yield
    signal.signal(signal.SIGTERM, before)


def signal_after(monkeypatch, owner, name, sig, when=lambda *a: True):
    """``owner.name`` does its work, then the real signal ``sig`` comes (where ``when`` of its arguments)."""
    real = getattr(owner, name)

    def then_signal(*a, **k):
        out = real(*a, **k)
        if when(*a):
            signal.raise_signal(sig)
        return out

    monkeypatch.setattr(owner, name, then_signal)


def _final(run):
    return json.loads((run / "final_eval.json").read_text())


def test_sigterm_while_final_pt_is_saved_after_training_leaves_it_and_final_eval_json(tmp_path, monkeypatch, capsys,
                                                                                      sigterm_raises):
    """Training over, final.pt being written: SIGTERM left no final.pt and no final_eval.json (it went through
    save_checkpoint, which removed its .tmp, and out of train.main). The file is finished, the evaluation skipped."""
    monkeypatch.chdir(tmp_path)
    signal_after(monkeypatch, nets.torch, "save", signal.SIGTERM, when=lambda payload, where: "final" in str(where))
    try:
        result = train.main(["--exp-name", "s", "--total-steps", "512", "--final-eval-hands", "2", *TINY])
    except KeyboardInterrupt:  # (Terminated; not pytest's own)
        pytest.fail("SIGTERM while final.pt was saved went through train.main")
    run = tmp_path / "runs" / "s"
    assert load_checkpoint(run / "checkpoints" / "final.pt")[1]["update"] == 1
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["final.pt", "update_00001.pt"]
    final = _final(run)
    assert final["interrupted"] is True and result["interrupted"] is True and "eval" not in final
    out = capsys.readouterr().out
    assert "interrupted (SIGTERM) while final.pt was saved: it is saved, no final evaluation" in out
    assert "evaluate it against rule: python -m agents.arena" in out


def test_a_second_signal_while_an_interrupted_run_saves_final_pt_leaves_it_whole(tmp_path, monkeypatch, capsys,
                                                                                sigterm_raises):
    """Ctrl-C in the training, then SIGTERM while final.pt was saved: neither final.pt nor final_eval.json."""
    monkeypatch.chdir(tmp_path)

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "ppo_update", interrupted)
    signal_after(monkeypatch, nets.torch, "save", signal.SIGTERM, when=lambda payload, where: "final" in str(where))
    try:
        result = train.main(["--exp-name", "two", "--total-steps", "1024", "--final-eval-hands", "2", *TINY])
    except KeyboardInterrupt:
        pytest.fail("a second signal while final.pt was saved went through train.main")
    run = tmp_path / "runs" / "two"
    assert load_checkpoint(run / "checkpoints" / "final.pt")[1]["update"] == 0
    assert _final(run)["interrupted"] is True and result["interrupted"] is True
    assert "while final.pt was saved" not in capsys.readouterr().out  # the first interruption said it all


@pytest.mark.parametrize(("sig", "where"), [(signal.SIGTERM, "json"), (signal.SIGINT, "tables")])
def test_a_signal_after_the_final_evaluation_still_writes_final_eval_json(tmp_path, monkeypatch, capsys, sigterm_raises,
                                                                         sig, where):
    """The evaluation over, a signal while its tables were printed or final_eval.json was written left no
    final_eval.json (or, in the write, half of one). The file is written, whole, with the evaluation (which ended:
    not marked interrupted), and then the signal goes on (train.py exits with its status)."""
    monkeypatch.chdir(tmp_path)
    if where == "json":
        signal_after(monkeypatch, arena_report, "json_text", sig, when=lambda obj, *a: "checkpoint" in obj)
    else:
        signal_after(monkeypatch, arena_report, "format_table", sig)
    with pytest.raises(training_run.Terminated if sig == signal.SIGTERM else KeyboardInterrupt):
        train.main(["--exp-name", where, "--total-steps", "512", "--final-eval-hands", "2", *TINY])
    run = tmp_path / "runs" / where
    final = _final(run)
    assert set(final["eval"]) == {"random", "rule"} and "interrupted" not in final
    assert load_checkpoint(run / "checkpoints" / "final.pt")[1]["update"] == 1
    out = capsys.readouterr().out
    assert f"checkpoint: {run.relative_to(tmp_path)}/checkpoints/final.pt" in out
    if where == "tables":
        assert "interrupted (Ctrl-C) after the final evaluation: writing final_eval.json" in out


def test_signals_held_puts_the_handlers_back_and_holds_nothing_off_the_main_thread():
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), training_run.signals_held():
        signal.raise_signal(signal.SIGINT)
        held = True  # (reached: the signal waited)
    assert held and (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
    seen = []

    def elsewhere():
        with training_run.signals_held():
            seen.append(signal.getsignal(signal.SIGINT))

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert seen == [handlers[0]]


# --------------------------------------------------------------------------- a signal at the very end of a run

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_tensorboards_writer_closes_ends_the_run_as_that_signal(tmp_path, monkeypatch, sig,
                                                                           sigterm_raises):
    """finish_run has written final_eval.json and lets go of the run (RunLog.release): a signal inside TensorBoard's
    close left the writer half closed, and main's ``finally`` closing it again raised OSError 'Writer is closed'
    in place of the signal (train.py: 'error: cannot write the run's files', exit 1, not 130 or 143)."""
    from torch.utils.tensorboard import writer as tensorboard

    monkeypatch.chdir(tmp_path)
    signal_after(monkeypatch, tensorboard.FileWriter, "close", sig)
    with pytest.raises(training_run.Terminated if sig == signal.SIGTERM else KeyboardInterrupt):
        train.main(["--exp-name", "tb", "--total-steps", "512", "--final-eval-hands", "2", *TINY])
    final = json.loads((tmp_path / "runs" / "tb" / "final_eval.json").read_text())
    assert set(final["eval"]) == {"random", "rule"} and "interrupted" not in final


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals sent with os.kill")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_train_py_exits_ends_it_with_no_traceback(tmp_path, sig):
    """A signal after the run is over (a second Ctrl-C or SIGTERM after the first one's message, as the process
    exits) went to train.py's handlers inside Python's atexit callbacks (TensorBoard's, torch's) and printed
    'Exception ignored in atexit callback' with a traceback of KeyboardInterrupt or Terminated. It ends the process
    at once (killed by the signal: a shell's 130 or 143), with the run's files whole."""
    script = ("import atexit, os, runpy, signal, sys\n"
              f"atexit.register(lambda: os.kill(os.getpid(), {int(sig)}))  # (atexit runs it last: the process exiting)\n"
              f"sys.argv = ['train.py', *sys.argv[1:]]\n"
              f"runpy.run_path({str(REPO / 'train.py')!r}, run_name='__main__')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script, "--exp-name", "x", "--total-steps", "0", "--final-eval-hands",
                           "0", *TINY], check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr and done.returncode == -sig, done.stderr
    assert "checkpoint: runs/x/checkpoints/final.pt" in done.stdout
    assert json.loads((tmp_path / "runs" / "x" / "final_eval.json").read_text())["updates"] == 0


def test_a_signal_while_signals_held_puts_the_handlers_back_swallows_no_later_one(monkeypatch):
    """signals_held puts back SIGINT's handler, then SIGTERM's: a Ctrl-C in between (KeyboardInterrupt from the
    handler just put back) left its ``hold`` as SIGTERM's handler for good, and every later SIGTERM of the process
    (a notebook's kernel, a script running train.main in a loop) was swallowed there. It now reaches its handler."""
    seen = []
    before = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    real = signal.signal

    def then_ctrl_c(signum, handler):  # SIGINT's own handler put back, then a Ctrl-C comes
        out = real(signum, handler)
        if signum == signal.SIGINT and handler is signal.default_int_handler:
            signal.raise_signal(signal.SIGINT)
        return out

    try:
        monkeypatch.setattr(signal, "signal", then_ctrl_c)
        with pytest.raises(KeyboardInterrupt), training_run.signals_held():
            pass
        monkeypatch.setattr(signal, "signal", real)
        signal.raise_signal(signal.SIGTERM)
        assert seen == [signal.SIGTERM]
        signal.raise_signal(signal.SIGTERM)
        assert seen == [signal.SIGTERM] * 2
    finally:
        real(signal.SIGTERM, before)
        real(signal.SIGINT, signal.default_int_handler)




@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals, raised from C")
def test_a_signal_as_train_py_puts_the_default_actions_in_place_ends_it_with_no_traceback(tmp_path):
    """A SIGTERM that came just as __main__ gave the signals their default action (signals_end_the_process) went to
    train.py's handler there and ended the process with a traceback of Terminated and exit status 1 (seen with real
    signals from a second process). It ends it as the signal does (a shell's 143), with no traceback."""
    script = ("import ctypes, runpy, signal, sys\n"
              "from agents import arena_report\n"
              "libc = ctypes.CDLL(None)\n"
              "def hook(frame, event, arg):  # (C's raise(): the handler runs at Python's next check, in that function)\n"
              "    if event == 'call' and frame.f_code.co_name == 'signals_end_the_process':\n"
              "        sys.setprofile(None)\n"
              "        getattr(libc, 'raise')(int(signal.SIGTERM))\n"
              "real = arena_report.json_text\n"
              "def json_text(obj, *a, **k):  # final_eval.json: watched from here on\n"
              "    if 'checkpoint' in obj:\n"
              "        sys.setprofile(hook)\n"
              "    return real(obj, *a, **k)\n"
              "arena_report.json_text = json_text\n"
              "sys.argv = ['train.py', *sys.argv[1:]]\n"
              f"runpy.run_path({str(REPO / 'train.py')!r}, run_name='__main__')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script, "--exp-name", "x", "--total-steps", "0", "--final-eval-hands",
                           "0", *TINY], check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr and done.returncode == -signal.SIGTERM, done.stderr
    assert json.loads((tmp_path / "runs" / "x" / "final_eval.json").read_text())["updates"] == 0


@pytest.mark.parametrize("where", ["training", "final evaluation"])
def test_a_second_signal_as_the_first_ones_message_is_written_leaves_the_runs_end_whole(tmp_path, monkeypatch, where,
                                                                                       sigterm_raises):
    """Ctrl-C, then SIGTERM while its message ('interrupted (Ctrl-C) ...') was written: the SIGTERM broke into tqdm's
    lock, whose release then raised RuntimeError 'cannot release un-acquired lock' in place of it: a traceback, exit 1,
    and no final.pt (in the training) or no final_eval.json (in the final evaluation; seen with real signals from a
    second process). The run is already stopping: the second signal goes to its handler and the run ends as the
    first one asked, its files written."""
    from tqdm.std import TqdmDefaultWriteLock

    monkeypatch.chdir(tmp_path)
    first = []

    def ctrl_c(*a, **k):
        first.append(True)
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "ppo_update" if where == "training" else "evaluate", ctrl_c)
    real = TqdmDefaultWriteLock.acquire

    def acquire(self, *a, **k):  # the SIGTERM comes as tqdm.write takes its lock for the first one's message
        if first and first.pop():
            signal.raise_signal(signal.SIGTERM)
        return real(self, *a, **k)

    monkeypatch.setattr(TqdmDefaultWriteLock, "acquire", acquire)
    result = train.main(["--exp-name", "two", "--total-steps", "512", "--final-eval-hands", "2", *TINY])
    run = tmp_path / "runs" / "two"
    final = json.loads((run / "final_eval.json").read_text())
    assert final["interrupted"] is True and result["interrupted"] is True and "eval" not in final
    assert (run / "checkpoints" / "final.pt").is_file() and not first


def test_a_signal_just_before_final_eval_json_is_written_still_leaves_it(tmp_path, monkeypatch, sigterm_raises):
    """Ctrl-C in the final evaluation, then SIGTERM just before signals_held took over for final_eval.json (it
    went to its handler, not held): the write was skipped, and the run ended with final.pt and no final_eval.json
    (exit 143; seen with real signals from a second process). The file is written, then the signal goes on."""
    monkeypatch.chdir(tmp_path)
    calls = []

    def ctrl_c(*a, **k):
        calls.append("evaluate")
        raise KeyboardInterrupt

    real = training_run.signals_held

    def signals_held():  # SIGTERM just before the one for final_eval.json
        calls.append("held")
        if calls == ["held", "evaluate", "held", "held"]:  # (final.pt's, the evaluation, its message's, the json's)
            signal.raise_signal(signal.SIGTERM)
        return real()

    monkeypatch.setattr(train, "evaluate", ctrl_c)
    monkeypatch.setattr(training_run, "signals_held", signals_held)
    with pytest.raises(training_run.Terminated):
        train.main(["--exp-name", "late", "--total-steps", "0", "--final-eval-hands", "2", *TINY])
    final = json.loads((tmp_path / "runs" / "late" / "final_eval.json").read_text())
    assert final["interrupted"] is True and "eval" not in final and calls[:4] == ["held", "evaluate", "held", "held"]
