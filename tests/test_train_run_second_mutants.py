"""train.py and agents/training_run.py, from a second mutation run over them (seeds 6001 and 6002): what the
earlier rounds' tests (tests/test_train_internals_mutants.py, tests/test_train_internals_more_mutants.py,
tests/test_train_script_mutants.py, tests/test_networks_run_mutants.py, tests/test_training_checks_module.py)
left open. Each test failed under the mutant named in its docstring and passes on the code; the expectations
are the modules' docstrings, train.py's --help and the README."""
from __future__ import annotations

import gc
import os
import threading
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the train extra: skipped without it (tests/test_python_runtime.py)

from test_networks_run_mutants import _run_args
from test_train_smoke import run_on_a_20_second_clock
from torch import optim

import train
from agents import training_run


def _row(update: int, evaluation: dict | None = None, **changed) -> dict:
    """A progress.csv row as train.py makes it (``progress_row``), over 4 hands (and ``evaluation``)."""
    losses = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
              "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}
    stats = {"hands": 4, "drawn": 1, "self_hands": 8, "self_wins": 2, "self_fan": 6.0, "pool_hands": 4,
             "pool_points": -2.0, "pool_wins": 1, "pool_deal_ins": 1, **changed}
    return train.progress_row(update, 512 * update, 10.0 * update, 3e-4, losses, stats, 1, 1.0,
                              evaluation or {})


# --------------------------------------------------------------------------- train.py's command line


def test_the_refusal_of_long_unknown_options_counts_those_past_the_three_it_names(capsys):
    """An unknown-options refusal names the first three and says how many more there are: three name all, with
    no " and 0 more" (mutant: train.py's ``len(unknown) > 3`` made ``> 2``)."""
    three = [f"--num-{i}" + "e" * 400 for i in range(3)]
    with pytest.raises(SystemExit):
        train.parse_args(three)
    err = capsys.readouterr().err
    assert "unrecognized options --num-0" in err and " more (" not in err, err
    with pytest.raises(SystemExit):
        train.parse_args([*three, "--num-3" + "e" * 400])
    assert " and 1 more (1,628 characters;" in capsys.readouterr().err


def test_an_option_names_a_field_only_by_its_name_or_its_no_form():
    """flags_given: "the ``Args`` fields that the command line names": ``--bc-steps`` and ``--no-anneal-lr``
    name theirs; an unknown option that ends in a field's name (``--xyzbc-steps``, ``--abcarch``) names none
    (mutant: train.py's ``_field_of`` ``and`` made ``or``, which cut three letters off any unknown name)."""
    assert train.flags_given(["--bc-steps", "1", "--no-anneal-lr"]) == {"bc_steps", "anneal_lr"}
    assert train.flags_given(["--xyzbc-steps", "1", "--abcarch=mlp"]) == frozenset()


def test_help_begins_with_the_docstrings_first_line(capsys, monkeypatch):
    """``train.py --help`` describes the program by its docstring's first line (mutant: train.py's
    ``(__doc__ or "")`` made ``(__doc__ and "")``, an empty description)."""
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit):
        train.parse_args(["--help"])
    assert (train.__doc__ or "").split("\n")[0] in capsys.readouterr().out


# --------------------------------------------------------------------------- agents/training_run.py: RunLog


def test_the_progress_bar_counts_one_step_per_logged_update(tmp_path, monkeypatch):
    """train.py's docstring: "the bar counts PPO updates only": each ``RunLog.update`` moves it one step
    (mutants: training_run's ``self.bar.update(1)`` made ``update(0)`` or deleted)."""
    monkeypatch.chdir(tmp_path)
    args = _run_args("bar")
    args.progress = True  # (a disabled bar counts nothing)
    log = training_run.RunLog(args, 3)
    try:
        for update in (1, 2):
            log.update(_row(update), 512 * update, False, {})
        assert (log.bar.n, log.bar.total) == (2, 3)
    finally:
        log.release()


def test_the_progress_bar_shows_the_updates_win_rate_and_points_against_the_pool_or_a_dash(tmp_path,
                                                                                          monkeypatch):
    """The bar's figures: the update's win rate and points per hand against the pool, "-" where they are
    unknown (no hand ended, none against the pool: progress.csv's empty cells) (mutants: training_run's ``==
    ""`` made ``!= ""`` in the bar's ``win`` or ``vs_pool``)."""
    monkeypatch.chdir(tmp_path)
    args = _run_args("postfix")
    args.progress = True
    log = training_run.RunLog(args, 2)
    try:
        log.update(_row(1), 512, False, {})
        assert "win=0.25" in log.bar.postfix and "vs_pool=-0.50" in log.bar.postfix, log.bar.postfix
        none = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0, "pool_hands": 0,
                "pool_points": 0.0, "pool_wins": 0, "pool_deal_ins": 0}
        log.update(_row(2, **none), 1024, False, {})
        assert "win=-" in log.bar.postfix and "vs_pool=-" in log.bar.postfix, log.bar.postfix
    finally:
        log.release()


def test_an_evaluated_update_logs_and_shows_the_trained_players_figures_and_no_unknown_one(tmp_path,
                                                                                          monkeypatch):
    """RunLog.update: an evaluated update writes ``eval/vs_<base>_points`` and ``_win_rate`` (the trained
    player's, the summary's first agent) to TensorBoard and shows its points on the bar; an update not
    evaluated writes no ``eval/*``, and rates over no hands (empty cells) are not written (mutants:
    training_run's ``if evaluated`` and ``if row[k] != ""`` negated, the bar's ``summary['agents'][0]`` made
    ``[-1]``)."""
    monkeypatch.chdir(tmp_path)
    args = _run_args("evaluated")
    args.progress = True
    log = training_run.RunLog(args, 2)
    written = []
    monkeypatch.setattr(log.writer, "add_scalar", lambda tag, value, step: written.append((tag, value, step)))
    rule = {"agents": [{"mean_points": 0.25, "win_rate": 0.3, "ci95": [-0.5, 1.0]},
                       {"mean_points": -0.25, "win_rate": 0.2, "ci95": [-1.0, 0.5]}]}
    try:
        log.update(_row(1, {"rule": rule}), 512, True, {"rule": rule})
        assert ("eval/vs_rule_points", 0.25, 512) in written
        assert ("eval/vs_rule_win_rate", 0.3, 512) in written
        assert "vs_rule=+0.25" in log.bar.postfix, log.bar.postfix
        written.clear()
        none = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0, "pool_hands": 0,
                "pool_points": 0.0, "pool_wins": 0, "pool_deal_ins": 0}
        log.update(_row(2, **none), 1024, False, {"rule": rule})
        tags = {tag for tag, _, _ in written}
        assert not any(t.startswith("eval/") for t in tags), tags
        assert "charts/win_rate" not in tags and "charts/draw_rate" not in tags and "losses/entropy" in tags
    finally:
        log.release()


def test_ctrl_c_in_the_cloning_saves_a_network_of_no_ppo_update(tmp_path, monkeypatch, capsys):
    """Ctrl-C before the first PPO update is logged (here in the cloning): final.pt and final_eval.json name 0
    updates and 0 steps, and the message says so (RunLog's ``last_update``: "the last update logged (what an
    interrupted run did)", none yet) (mutant: training_run's ``self.last_update, ... = 0, 0`` made ``1,
    0``)."""
    from test_train_interrupt import TINY

    from agents.networks import load_checkpoint

    monkeypatch.chdir(tmp_path)

    def ctrl_c(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "behaviour_cloning", ctrl_c)
    result = train.main(["--exp-name", "clone_stopped", "--total-steps", "512", "--final-eval-hands", "0",
                         "--max-minutes", "none", *TINY, "--bc-steps", "4"])
    assert result["interrupted"] and (result["updates"], result["global_step"]) == (0, 0)
    assert load_checkpoint(result["checkpoint"])[1]["update"] == 0
    assert "interrupted (Ctrl-C) after 0 PPO updates" in capsys.readouterr().out


# --------------------------------------------------------------------------- train.py: the PPO update


def test_each_ppo_epoch_draws_its_minibatches_anew_from_a_shuffle(monkeypatch):
    """ppo_update's docstring: ``update_epochs`` epochs "in ``num_minibatches`` shuffled minibatches": every
    epoch covers each trainable decision once, in minibatches that are not the storage's order (mutant:
    train.py's ``rng.shuffle(order)`` deleted, every epoch the same two halves in order)."""
    from test_ppo_update import Fixed, store_of

    monkeypatch.setattr(train, "optimizer_step", lambda *a: None)
    seen = []

    class Recording(Fixed):
        def get_action_and_value(self, obs, mask, action):
            seen.append(sorted(obs[:, 0].long().tolist()))
            return super().get_action_and_value(obs, mask, action)

    n = 8
    model = Recording([0.0] * n, [1.0] * n, [0.0] * n)
    threads = torch.get_num_threads()
    try:
        train.ppo_update(model, optim.Adam(model.parameters(), lr=1e-3), store_of([0.0] * n, [0.0] * n),
                         np.zeros(n, np.float32), np.zeros(n, np.float32), np.ones(n, bool),
                         train.Args(update_epochs=3, num_minibatches=2, threads=1), np.random.default_rng(0),
                         "cpu")
    finally:
        torch.set_num_threads(threads)
    epochs = [seen[i:i + 2] for i in range(0, len(seen), 2)]
    assert len(epochs) == 3 and all(sorted(a + b) == list(range(n)) for a, b in epochs)
    halves = [list(range(4)), list(range(4, 8))]
    assert any(sorted(e) != halves for e in epochs), epochs


# --------------------------------------------------------------------------- agents/training_run.py: the lock


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_lock_not_taken_leaves_no_descriptor_open(tmp_path, monkeypatch):
    """lock_run_dir opens the directory to lock it; where the lock is not taken (no locks on this file system;
    another run holds it) that descriptor is closed, not left open for the rest of the run, one more for each
    ``--overwrite`` check; so is the one run_in_use opens to look at a free directory (mutants: training_run's
    ``os.close(fd)`` after flock's OSError or its BlockingIOError deleted, or run_in_use's)."""
    pytest.importorskip("fcntl")
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("counts descriptors in /proc/self/fd")
    import errno
    import fcntl

    before = _open_descriptors()
    assert training_run.run_in_use(tmp_path) is None  # (free: it took the lock and let go of it)
    assert _open_descriptors() == before
    held = training_run.lock_run_dir(tmp_path)
    assert held is not None
    try:
        before = _open_descriptors()
        with pytest.raises(BlockingIOError):
            training_run.lock_run_dir(tmp_path)
        assert training_run.run_in_use(tmp_path)
        assert _open_descriptors() == before
    finally:
        training_run.unlock_run_dir(held)

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    before = _open_descriptors()
    assert training_run.lock_run_dir(tmp_path) is None and training_run.run_in_use(tmp_path) is None
    assert _open_descriptors() == before


def test_the_final_evaluation_is_printed_as_a_table_against_each_baseline(tmp_path, monkeypatch, capsys):
    """train.py's docstring: "the run ends with a longer one, printed as a table": under "trained vs <base>",
    the arena's table of both players (mutant: train.py's print of ``arena_report.format_table`` deleted, the
    headings left)."""
    from test_train_interrupt import TINY

    monkeypatch.chdir(tmp_path)
    train.main(["--exp-name", "tables", "--total-steps", "512", "--final-eval-hands", "2", "--max-minutes",
                "none", *TINY])
    out = capsys.readouterr().out
    for base in ("random", "rule"):
        after = out.split(f"\n  trained vs {base}\n", 1)[1]
        assert after.startswith("  agent ") and "points/hand" in after.split("\n")[0], after[:300]
        assert f"\n  {base} " in after.split("\n\n")[0]


# --------------------------------------------------------------------------- train.py's time cap


def test_max_minutes_goes_on_after_an_update_that_ends_exactly_at_them(tmp_path, monkeypatch, capsys):
    """--max-minutes: the run stops "after the update that passes" them (its plan line): an update that ends
    at exactly 1 minute does not pass 1 minute, and the next one, ending past it, is the last
    (tests/test_train_smoke.py's clock, 20 s at every reading: update 1 ends at 60 s) (mutant: train.py's
    ``elapsed > 60 * max_minutes`` made ``>=``)."""
    monkeypatch.chdir(tmp_path)
    result = run_on_a_20_second_clock(monkeypatch, "1")
    out = capsys.readouterr().out
    assert "stopping after the update that passes 1 minute\n" in out, out
    assert result["updates"] == 2 and "stopping after 2.0 minutes (--max-minutes)" in out


# --------------------------------------------------------------------------- train.py's defaults


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_the_shipped_players_commands_still_give_the_recipes_they_were_trained_with(rules):
    """agents.pretrained.PLAYERS names "the ``train.py`` command that made" each shipped player: parsed by
    train.py today, that command gives every argument its checkpoint stored (but the bar, ``progress``, which
    trains nothing), so the defaults it leaves out are still those it was trained with (mutants: train.py's
    defaults of ``max_grad_norm`` 0.5 made 1.5, ``bc_learning_rate`` 2e-3 made 1.002, and the README's
    others)."""
    import dataclasses
    import shlex

    from agents.checkpoints import load_checkpoint
    from agents.pretrained import DATA, PLAYERS

    player = PLAYERS[rules]
    _, meta = load_checkpoint(DATA / player["file"])
    command = shlex.split(player["command"])
    assert command[:2] == ["python", "train.py"]
    now = dataclasses.asdict(train.parse_args(command[2:]))
    stored = {k: v for k, v in meta["args"].items() if k != "progress"}
    assert set(stored) <= set(now)  # (fields added since are new options at their defaults)
    assert {k: now[k] for k in stored} == stored


def test_a_released_run_log_leaves_no_file_open(tmp_path, monkeypatch):
    """RunLog.release "closes what the run opened (the bar, progress.csv, TensorBoard's writer ...)": after
    it, no descriptor the log opened is left open nor the writer's thread running, progress.csv is closed and
    whole (mutants: training_run's ``self.end_training()`` or ``self.writer.close()`` in release, or
    ``self.csv_file.close()`` in end_training, deleted)."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("counts descriptors in /proc/self/fd")
    monkeypatch.chdir(tmp_path)
    before, threads = _open_descriptors(), set(threading.enumerate())
    log = training_run.RunLog(_run_args("closed"), 1)
    log.update(_row(1), 512, False, {})
    log.release()
    assert log.csv_file.closed and _open_descriptors() == before
    started = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
    assert [t for t in started if type(t).__name__ != "TMonitor"] == []  # (the writer's; tqdm's stays)
    assert (log.dir / "progress.csv").read_text(encoding="utf-8").count("\n") == 2


def test_a_run_log_whose_bar_cannot_be_made_closes_progress_csv(tmp_path, monkeypatch):
    """RunLog: "no RunLog is made if this fails ...: let go here of what was opened": where the bar, made
    last, fails, progress.csv is closed with the writer and the lock, not left to the garbage collector's
    "unclosed file" ResourceWarning, no descriptor left open (tests/test_run_lock.py holds the lock and the
    writer's thread) (mutant: training_run's ``opened.append(self.csv_file)`` deleted)."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("counts descriptors in /proc/self/fd")
    monkeypatch.chdir(tmp_path)

    def no_bar(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(training_run, "tqdm", no_bar)
    before = _open_descriptors()
    with warnings.catch_warnings(record=True) as caught:  # (one left open is closed when collected, warning)
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(OSError, match="No space left"):
            training_run.RunLog(_run_args("nobar"), 1)
        gc.collect()
    assert _open_descriptors() == before
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert not unclosed, unclosed


def test_a_snapshot_deleted_by_hand_meanwhile_is_passed_over_without_a_message(tmp_path, capsys):
    """prune_snapshots: "one deleted by hand meanwhile: nothing to do": no "could not delete" message for it
    (mutant: training_run's ``unlink(missing_ok=True)`` made ``missing_ok=False``)."""
    files = [tmp_path / f"update_{u:05d}.pt" for u in (10, 20)]
    files[1].write_bytes(b"")
    saved = list(files)
    training_run.prune_snapshots(saved, 1)  # update_00010.pt was deleted by hand
    assert saved == files[1:] and files[1].exists()
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- agents/training_run.py: stopping


def test_a_ctrl_c_while_the_keep_checkpoints_message_is_written_still_stops_the_run(tmp_path, monkeypatch):
    """prune_snapshots' message about a snapshot it could not delete is written while the run trains: a Ctrl-C
    that comes meanwhile is held until the message is whole and then raised (``tell``'s docstring: a message
    of a run not yet stopping), not swallowed, which let the run train on (mutant: training_run's
    ``stopping=False`` made ``True`` there)."""
    import signal

    stuck = tmp_path / "update_00010.pt"
    (stuck / "inside").mkdir(parents=True)  # unlink() cannot delete a folder
    kept = tmp_path / "update_00020.pt"
    kept.write_bytes(b"")
    written = []

    def write_then_ctrl_c(message, *a, **k):
        signal.raise_signal(signal.SIGINT)  # held by signals_held until the message is written
        written.append(message)

    monkeypatch.setattr(training_run.tqdm, "write", write_then_ctrl_c)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            training_run.prune_snapshots([stuck, kept], 1)
    finally:
        signal.signal(signal.SIGINT, before)
    assert len(written) == 1 and written[0].startswith(f"--keep-checkpoints: could not delete {stuck}")
