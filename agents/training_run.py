"""A training run's directory, logs and stopping: what ``train.py`` needs around its algorithm, kept apart so that
train.py reads as PPO self-play.

- The run's directory and its lock: ``lock_run_dir`` / ``unlock_run_dir`` (``flock``, so that another run's
  ``--overwrite`` cannot delete a run still writing there), ``run_in_use`` (whether a running train.py holds it)
  and ``RunDirTaken`` (a run started at the same time made or took it first).
- Stopping: Ctrl-C and SIGTERM (``STOP_SIGNALS``) stop a run keeping what it trained. ``Terminated`` is SIGTERM's
  ``KeyboardInterrupt`` (raised by the handler that train.py's ``__main__`` sets) and ``interruption`` names the
  one that came; ``signals_held`` and ``written_whole`` hold them while a file is written, so that it is whole;
  ``tell`` writes a message past the progress bar with them held; ``signals_end_the_process`` gives them their
  default action once the run is over.
- The run's files: ``RunLog`` (the directory made, ``--overwrite`` deleting an old one first, and locked;
  args.json, TensorBoard scalars, progress.csv and the progress bar) and ``prune_snapshots``
  (``--keep-checkpoints``).

Nothing here trains or draws random numbers. It needs the ``train`` extra (torch's TensorBoard writer, tqdm);
``agents/__init__`` does not import it, and it never imports train.py: ``RunLog`` takes train.py's ``Args``
for the fields it reads (``exp_name``, ``overwrite``, ``progress``; all of them for args.json).
"""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import os
import shutil
import signal
import threading
import typing
from pathlib import Path

from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents import arena_report
from mj_env.lines import utf8_text

# --------------------------------------------------------------------------- the run's directory and its lock


class RunDirTaken(Exception):
    """``runs/<exp_name>/`` was made by another run after ``agents.training_checks.run_dir_problem`` looked (two
    runs started at once)."""


def lock_run_dir(run: Path) -> int | None:
    """Lock the directory ``run`` until ``unlock_run_dir`` (or the process's end) on the returned descriptor (``flock``,
    taken without waiting), so that another run's ``--overwrite`` cannot delete it while this run writes there: two runs
    of one name then mixed their files (the second's args.json and progress.csv beside the first's checkpoints and
    final_eval.json). None where there is no ``flock`` (Windows), the file system has no locks or the directory cannot
    be opened; ``BlockingIOError`` where a running train.py holds it."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        fd = os.open(run, os.O_RDONLY)
    except OSError:  # a directory this process cannot open for reading (an odd umask): written unguarded
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise
    except OSError:  # no locks here (NFS without its lock daemon): written unguarded, as before
        os.close(fd)
        return None
    return fd


def unlock_run_dir(fd: int) -> None:
    """Let go of ``lock_run_dir``'s lock and close its descriptor. Unlocked first: a flock belongs to the open file
    description, which a child forked during the run (a plugin's worker process) shares, so closing this
    process's copy alone kept the directory locked, "still running" to ``--overwrite``, as long as that child lived."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def run_in_use(run: Path) -> str | None:
    """Why ``--overwrite`` may not delete ``run`` (None: it may): a train.py still running holds it."""
    try:
        fd = lock_run_dir(run)
    except BlockingIOError:
        return (f"--overwrite: {run}/ belongs to a train.py that is still running; stop that run first, or choose "
                "another --exp-name")
    except OSError:  # unreadable: the deletion will say what is wrong
        return None
    if fd is not None:
        os.close(fd)
    return None


# --------------------------------------------------------------------------- stopping: Ctrl-C and SIGTERM


STOP_SIGNALS = (signal.SIGINT, *((signal.SIGTERM,) if hasattr(signal, "SIGTERM") else ()))
"""The signals that stop a run: Ctrl-C, and SIGTERM where the platform has it."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a job scheduler or ``docker stop`` ending the job), raised by the handler
    that train.py's ``__main__`` sets, so that the run stops as Ctrl-C stops it, keeping what it trained, and
    exits with status 143 (128 + SIGTERM); it ended the process at once, with no final.pt, before."""


def interruption(e: KeyboardInterrupt) -> str:
    """What stopped the run, in words: "Ctrl-C" or "SIGTERM"."""
    return "SIGTERM" if isinstance(e, Terminated) else "Ctrl-C"


@contextlib.contextmanager
def signals_held():
    """Ctrl-C (SIGINT) and SIGTERM wait while the block writes a file, so that the file is whole: one that comes
    meanwhile goes, once the block is over, to the handler then in place (Python's KeyboardInterrupt, train.py's
    ``Terminated``, or the default action), as if it came then; SIGTERM first where both came. Only the main thread
    gets signals: elsewhere nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    over: list[bool] = []

    def hold(signum, frame):
        if over:  # the block is over but this handler was not put back (a signal to one already put back raised in
            # the putting back; or in the setting up): put it back now and pass the signal on, else it would be
            # swallowed here for good (a Ctrl-C or SIGTERM ignored for the rest of the process)
            signal.signal(signum, before[signum])
            signal.raise_signal(signum)
            return
        got.append(signum)

    before = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    before = {s: h for s, h in before.items() if h is not None}  # (None: a handler not set from Python, left alone)
    try:
        for s in before:
            signal.signal(s, hold)
        yield
    finally:
        over.append(True)
        for s, h in before.items():
            signal.signal(s, h)
        if got:
            signal.raise_signal(signal.SIGTERM if signal.SIGTERM in got else got[0])


def tell(message: str, stopping: bool = True) -> None:
    """``tqdm.write(message)`` with Ctrl-C and SIGTERM held (``signals_held``): one that broke into tqdm's lock
    raised RuntimeError 'cannot release un-acquired lock' in place of itself (a traceback, exit 1, and the run's end
    unwritten: a second Ctrl-C or SIGTERM as the first one's message was written left no final_eval.json, or no
    final.pt). ``stopping``: the message of a run already stopping (an interruption's), where a signal meanwhile goes
    to its handler (a SIGTERM's status noted) and is let go, the run stopping as the first one asked; else it is
    raised once the message is written."""
    try:
        with signals_held():
            tqdm.write(message)
    except KeyboardInterrupt:
        if not stopping:
            raise


def signals_end_the_process() -> None:
    """Ctrl-C (SIGINT) and SIGTERM take their default action from now on: the process ends at once, killed by the
    signal (a shell reports 130 or 143). train.py's ``__main__`` calls it once ``main`` is over, so that a signal while
    the process exits (a second one, say, after the one-line message) prints no traceback from an atexit
    callback. One the process started with ignored (``nohup``, a background job of a non-interactive shell, a
    supervisor) stays ignored: it did not end the run, and does not end the process either."""
    for s in STOP_SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, signal.SIG_DFL)


def written_whole(write: typing.Callable[[], typing.Any]) -> tuple[typing.Any, KeyboardInterrupt | None]:
    """``write()`` with Ctrl-C and SIGTERM held (``signals_held``) so that its file is whole, run again where one came
    just before the block took over (it went to its handler, not held): what ``write`` returned, and the first
    Ctrl-C or SIGTERM (``KeyboardInterrupt``, ``Terminated``) that came meanwhile, or None. One that ``write`` raises
    itself (no file) goes on."""
    came = None
    value = None  # (set by write() whenever done is)
    while True:
        entered = done = False
        try:
            with signals_held():
                entered = True
                value = write()
                done = True
        except KeyboardInterrupt as e:
            if entered and not done:  # (raised by write itself, not by a signal held)
                raise
            came = came or e
        if done:
            return value, came


# --------------------------------------------------------------------------- the run's files


class RunLog:
    """What a run writes to ``runs/<exp_name>/`` and shows: args.json, TensorBoard scalars
    (``bc/*``, ``charts/*``, ``losses/*``, ``eval/*``), progress.csv (one row per update) and a progress bar.
    ``args``: train.py's ``Args`` (its ``exp_name``, ``overwrite`` and ``progress``; every field goes to
    args.json)."""

    def __init__(self, args: typing.Any, num_updates: int):
        self.dir = Path("runs") / args.exp_name
        # (agents.training_checks.run_dir_problem allowed it)
        if args.overwrite and self.dir.is_dir() and not self.dir.is_symlink():
            problem = run_in_use(self.dir)  # (again: a run of this name may have started during the setup)
            if problem:
                raise RunDirTaken(problem)
            shutil.rmtree(self.dir)
        self.dir.parent.mkdir(parents=True, exist_ok=True)
        try:  # training_checks.run_dir_problem looked before the setup (seconds): a run of this name started
            self.dir.mkdir()  # with this one may have made it since, and two runs would write into one directory
        except FileExistsError:
            raise RunDirTaken(f"--exp-name: {self.dir}/ was made by another run started at the same time; choose "
                              "another --exp-name") from None
        try:  # held until train.py's finish_run has written final_eval.json (or the process ends)
            self.lock = lock_run_dir(self.dir)
        except BlockingIOError:  # an --overwrite run took the new directory between the mkdir and here
            raise RunDirTaken(f"--exp-name: {self.dir}/ was taken by another run started at the same time; choose "
                              "another --exp-name") from None
        opened: list = []  # what to close should the rest fail
        try:  # no RunLog is made if this fails (a full disk, Ctrl-C): let go here of what was opened, the lock too
            self.ckpt_dir = self.dir / "checkpoints"
            self.ckpt_dir.mkdir()
            self.writer = SummaryWriter(str(self.dir))
            opened.append(self.writer)
            # (a path that is not UTF-8, --init-from caf\xe9.pt, with \xe9 escapes: TensorBoard and JSON take UTF-8 only)
            shown = {k: utf8_text(v) for k, v in dataclasses.asdict(args).items()}
            table = "\n".join(f"|{k}|{v}|" for k, v in shown.items())
            self.writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + table)
            (self.dir / "args.json").write_text(arena_report.json_text(shown) + "\n", encoding="utf-8")
            self.csv_file = open(self.dir / "progress.csv", "w", newline="", encoding="utf-8")  # noqa: SIM115 (closed in end_training)
            opened.append(self.csv_file)
            self.csv: csv.DictWriter | None = None
            self.bar = tqdm(total=num_updates, unit="update", desc=args.exp_name, disable=not args.progress,
                            dynamic_ncols=True)
        except BaseException:
            for thing in reversed(opened):
                thing.close()
            if self.lock is not None:
                unlock_run_dir(self.lock)
                self.lock = None
            raise
        self.last_update, self.last_global_step = 0, 0  # the last update logged (what an interrupted run did)

    def update(self, row: dict, global_step: int, evaluated: bool, last_eval: dict) -> None:
        """Write one update's row to progress.csv and TensorBoard; show it on the bar with ``last_eval``."""
        self.last_update, self.last_global_step = row["update"], global_step
        if self.csv is None:
            self.csv = csv.DictWriter(self.csv_file, fieldnames=list(row))
            self.csv.writeheader()
        self.csv.writerow(row)
        self.csv_file.flush()
        w = self.writer
        w.add_scalar("charts/learning_rate", row["learning_rate"], global_step)
        for k in ("value_loss", "policy_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac",
                  "explained_variance"):
            if row[k] != "":  # (empty: not finite, e.g. explained_variance over returns that do not vary)
                w.add_scalar(f"losses/{k}", row[k], global_step)
        for k in ("draw_rate", "win_rate", "avg_fan", "pool_points", "pool_win_rate", "pool_deal_in_rate"):
            if row[k] != "":  # (empty: over no hands, unknown)
                w.add_scalar(f"charts/{k}", row[k], global_step)
        w.add_scalar("charts/SPS", row["SPS"], global_step)
        if evaluated:
            for base in last_eval:
                w.add_scalar(f"eval/vs_{base}_points", row[f"vs_{base}_points"], global_step)
                w.add_scalar(f"eval/vs_{base}_win_rate", row[f"vs_{base}_win_rate"], global_step)
        post = {"SPS": row["SPS"], "win": "-" if row["win_rate"] == "" else f"{row['win_rate']:.2f}",
                "vs_pool": "-" if row["pool_points"] == "" else f"{row['pool_points']:+.2f}"}
        for base, summary in last_eval.items():
            post[f"vs_{base}"] = f"{summary['agents'][0]['mean_points']:+.2f}"
        self.bar.set_postfix(post)
        self.bar.update(1)

    def end_training(self) -> None:
        self.bar.close()
        self.csv_file.close()

    def release(self) -> None:
        """Close what the run opened (the bar, progress.csv, TensorBoard's writer, whose thread a run that raised
        left running, one per ``main`` call in a sweep) and let go of the run's lock: the run has written all it
        will (once more: nothing happens). A Ctrl-C or SIGTERM meanwhile waits until it is done (``signals_held``):
        one that broke into TensorBoard's close left its writer half closed, and the second call (``main``'s
        ``finally``) then raised OSError 'Writer is closed', which ended the run as 'cannot write the run's files'
        (exit 1) instead of as the signal (130, 143)."""
        with signals_held():
            self.end_training()
            self.writer.close()
            if self.lock is not None:
                lock, self.lock = self.lock, None
                unlock_run_dir(lock)


def prune_snapshots(saved: list[Path], keep: int) -> None:
    """``--keep-checkpoints``: delete the oldest of ``saved``, this run's snapshot checkpoints (update_*.pt) oldest
    first, beyond the newest ``keep`` (0: keep all), and drop them from the list. Nothing of the run reads a
    snapshot's file back (the pool holds its networks in memory; final.pt is saved apart, and there is no resuming),
    and no other file is among them (--init-from's checkpoint, final.pt). Draws no random numbers. One that cannot be
    deleted (on Windows, a file another program has open; a folder put in its place) is left there with a message:
    the run goes on, as deleting old snapshots is no part of the training."""
    while keep and len(saved) > keep:
        old = saved.pop(0)
        try:
            old.unlink(missing_ok=True)  # (one deleted by hand meanwhile: nothing to do)
        except OSError as e:
            tell(f"--keep-checkpoints: could not delete {old} ({e.strerror or e}); left there, the run goes on",
                 stopping=False)
