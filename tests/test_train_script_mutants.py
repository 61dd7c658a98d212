"""train.py, from a mutation run over it: what the earlier tests of the script left open (the flags the command
line names, the run's end and its exit status, the rows it logs and what it prints)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_internals import _rollout_setup

import train
from agents.base import RulesMismatchWarning
from agents.checkpoints import CheckpointWarning
from agents.networks import build_network, save_checkpoint
from agents.random_agent import RandomAgent


def test_flags_given_names_the_fields_of_every_spelling():
    """``--field value``, ``--field=value`` and ``--no-flag`` each name their field; other tokens name none."""
    argv = ["--bc-steps", "256", "--arch=tiles", "--no-anneal-lr", "--obs=v2", "v1", "-h", "--not-a-field"]
    assert train.flags_given(argv) == {"bc_steps", "arch", "anneal_lr", "obs"}


def test_a_network_flag_given_with_equals_at_its_default_is_refused_against_another_network(tmp_path, monkeypatch,
                                                                                           capsys):
    """README: with --init-from the network is the checkpoint's, "giving others is refused": ``--arch=tiles`` (the
    default, written with "=") against an mlp checkpoint too."""
    monkeypatch.chdir(tmp_path)
    start = save_checkpoint(tmp_path / "mlp.pt", build_network({"arch": "mlp", "hidden": [8]}), rules="beijing")
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--init-from", str(start), "--arch=tiles", "--no-progress"])
    assert e.value.code == 2
    assert "--arch tiles: the network of --init-from" in capsys.readouterr().err


@pytest.mark.parametrize("eval_every, final_hands, refused", [(0, 0, False), (1, 0, True), (0, 1, True), (2, 3, True)])
def test_scipy_is_asked_for_before_a_run_that_evaluates(eval_every, final_hands, refused, monkeypatch, capsys):
    """Without scipy a run with quick or final evaluations (their 95% intervals) is a usage error naming it and what
    installs it, before anything is built; one with neither runs."""
    monkeypatch.setattr(train.arena_report, "missing_module",
                        lambda name, needed_for, extra="train": f"{name} is needed for {needed_for}: pip install it")
    argv = ["--eval-every", str(eval_every), "--final-eval-hands", str(final_hands), "--no-progress"]
    if not refused:
        assert train.parse_args(argv).eval_every == 0
        return
    with pytest.raises(SystemExit) as e:
        train.parse_args(argv)
    assert e.value.code == 2
    assert "train.py: error: scipy is needed for the evaluations' 95% intervals: pip install it" in capsys.readouterr().err


def _named(*names):
    return [type("Opponent", (), {"name": n})() for n in names]


@pytest.mark.parametrize("kwargs, updates, plan", [
    ({}, 3, ("selfplay_ppo: beijing; imitate the rule agent (256 steps at 256 tables); then PPO: up to 3 updates of "
             "16,384 decisions, stopping after the update that passes 9.5 minutes; then 400 walls x 2 seatings "
             "against random, rule")),
    ({"init_from": "pretrained", "bc_steps": 0, "max_minutes": None, "final_eval_hands": 0}, 2,
     "selfplay_ppo: beijing; start from the shipped player; then PPO: up to 2 updates of 16,384 decisions"),
    ({"init_from": "runs/a/checkpoints/final.pt", "bc_steps": 0, "final_eval_hands": 5, "num_envs": 2,
      "num_steps": 3}, 1,
     ("selfplay_ppo: beijing; start from runs/a/checkpoints/final.pt; then PPO: up to 1 update of 6 decisions, "
      "stopping after the update that passes 9.5 minutes; then 5 walls x 2 seatings against random, rule")),
    ({"bc_steps": 8, "bc_teacher": "efficient", "num_envs": 4}, 0,
     ("selfplay_ppo: beijing; imitate the efficient agent (8 steps at 4 tables); then 400 walls x 2 seatings "
      "against random, rule")),
])
def test_the_plan_line_says_each_phase_the_run_has_and_no_other(kwargs, updates, plan):
    """The line printed before a run: where it starts (the shipped player, a checkpoint), the cloning, PPO with its
    budget (none without --max-minutes), and the final evaluation, each only where the run has it."""
    assert train.plan_text(train.Args(**kwargs), updates, _named("random", "rule")) == plan


def test_rules_notes_print_each_rules_mismatch_once_on_stdout_and_tell_other_warnings(capsys):
    """A RulesMismatchWarning (the shipped player under a rule set of one's own) is one ``note:`` line on standard
    output, once however often it came; a CheckpointWarning goes on as the arena tells it (a ``warning:`` line on
    standard error)."""
    def caught(message, category):
        return warnings.WarningMessage(category(message), category, "x.py", 1)

    mismatch = "trained for rule set 'beijing', here 'beijing with chi=False'"
    train.rules_notes([caught(mismatch, RulesMismatchWarning), caught("a.pt: keys beside", CheckpointWarning),
                       caught(mismatch, RulesMismatchWarning)])
    out, err = capsys.readouterr()
    assert out == f"note: {mismatch} (the shipped player of the preset)\n"
    assert err == "warning: a.pt: keys beside\n"


def _win(winner, discarder, fan):
    return {"input": {"winner": winner, "discarder": discarder}, "fan": fan, "scores": [0, 0, 0, 0]}


def test_tally_hands_counts_the_learners_wins_fan_and_deal_ins_per_seat_hand():
    """Seen from the learner's seats: a win off a learner's discard is a deal-in against the pool, a self-drawn win
    none; self-play hands count in the ``self_*`` figures only; several winners off one discard each count."""
    seats = type("Seats", (), {})()
    seats.learner = np.array([[1, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 1], [1, 0, 1, 0], [1, 0, 1, 0]], bool)
    seats.opp = np.array([train.SeatPlan.RULE, -1, 0, train.SeatPlan.RULE, 1])
    settlements = np.array([_win(1, 0, 3), _win(2, None, 5), {"draw": True, "scores": [0] * 4}, None,
                            {"wins": [_win(0, 1, 2), _win(2, 1, 4)], "scores": [0] * 4}], dtype=object)
    infos = {"_settlement": np.array([True, True, True, False, True]), "settlement": settlements}
    rewards = np.array([[-8, 8, 0, 0], [-5, -5, 15, -5], [0, 0, 0, 0], [9, 9, 9, 9], [6, -12, 6, 0]], float)
    stats = {k: 0 for k in ("hands", "drawn", "self_hands", "self_wins", "self_fan", "pool_hands", "pool_points",
                            "pool_wins", "pool_deal_ins")}
    train.tally_hands(stats, infos, rewards, seats)
    assert stats == {"hands": 4, "drawn": 1, "self_hands": 10, "self_wins": 3, "self_fan": 11, "pool_hands": 6,
                     "pool_points": -8 + 12, "pool_wins": 2, "pool_deal_ins": 1}


def test_a_rollouts_counts_are_of_the_hands_that_ended_in_it(threads):
    """What collect_rollout returns counts the hands that ended in its steps and no others: every table's hand,
    each learner seat-hand, those against the pool (a count off by one shows in every progress.csv rate)."""
    args, model, seats, _, envs, obs, store, shaper = _rollout_setup(["--opponent-prob", "0.5"], n_envs=8, n_steps=200)
    seen = []  # each step's infos and rewards, and who sat where as it was played
    real_step = envs.step

    def step(actions):
        learner, opp = seats.learner.copy(), seats.opp.copy()
        out = real_step(actions)
        seen.append((out[4], np.array(out[1]), type("Seats", (), {"learner": learner, "opp": opp})()))
        return out

    envs.step = step
    _, stats = train.collect_rollout(envs, obs, model, seats, store, shaper, args, "cpu")
    expected = dict.fromkeys(stats, 0)
    for infos, rewards, sat in seen:
        train.tally_hands(expected, infos, rewards, sat)
    assert stats == expected
    ended = [(step.opp[t] != -1) for step in envs.steps for t in np.flatnonzero(step.term)]
    assert stats["hands"] == len(ended) and any(ended) and not all(ended)
    assert stats["pool_hands"] > 0 and stats["self_wins"] > 0 and stats["drawn"] < stats["hands"]


def test_a_progress_row_rounds_its_seconds_and_keeps_its_rate():
    """progress.csv's times: ``seconds`` to 0.1 s, ``rollout_seconds`` to 0.01 s; SPS whole steps a second; the
    learning rate and the update's figures as they were."""
    losses = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
              "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}
    stats = dict.fromkeys(("hands", "drawn", "self_hands", "self_wins", "self_fan", "pool_points", "pool_hands",
                           "pool_wins", "pool_deal_ins"), 0)
    row = train.progress_row(3, 1000, 12.345, 2.5e-4, losses, stats, 5, 1.2345, {})
    assert (row["update"], row["global_step"], row["seconds"], row["SPS"], row["learning_rate"]) == \
        (3, 1000, 12.3, 81, 2.5e-4)
    assert (row["rollout_seconds"], row["pool_size"], row["value_loss"], row["explained_variance"]) == \
        (1.23, 5, 1.0, 0.5)


class _Log:
    """What finish_run uses of a RunLog: its directories, a writer and release."""

    def __init__(self, root):
        self.dir, self.ckpt_dir = root, root / "checkpoints"
        self.ckpt_dir.mkdir(parents=True)
        self.scalars, self.released = [], 0
        self.writer = type("Writer", (), {"add_scalar": lambda _, *a: self.scalars.append(a)})()

    def release(self):
        self.released += 1


@pytest.mark.parametrize("hands, interrupted", [(1, False), (0, False), (5, True), (0, True)])
def test_finish_run_evaluates_only_an_ended_run_and_says_what_to_run_otherwise(hands, interrupted, tmp_path,
                                                                              capsys):
    """final.pt is saved; the final evaluation plays --final-eval-hands walls (one is enough) unless the run was
    interrupted or asked for none; final_eval.json holds the run's figures (its seconds to 0.1 s), the evaluation,
    ``"interrupted": true`` only where it was; an interrupted run that would have been evaluated prints the arena
    command that evaluates it instead."""
    log = _Log(tmp_path / "run")
    model = build_network({"arch": "mlp", "hidden": [8]})
    args = train.Args(final_eval_hands=hands, eval_seed=3)
    result = train.finish_run(model, args, "cpu", log, 4, 512, time.monotonic() - 12.34, [RandomAgent()],
                              interrupted=interrupted)
    saved = json.loads((log.dir / "final_eval.json").read_text())
    out = capsys.readouterr().out
    keys = {"checkpoint", "global_step", "updates", "train_seconds", "observation"}
    evaluated = hands > 0 and not interrupted
    keys |= {"eval"} if evaluated else {"interrupted"} if interrupted else set()
    assert set(saved) == set(result) == keys and saved.get("interrupted", False) is interrupted
    assert (saved["updates"], saved["global_step"], saved["observation"]) == (4, 512, "mj_obs_v1")
    assert 12.3 <= saved["train_seconds"] < 13 and saved["train_seconds"] == round(saved["train_seconds"], 1)
    assert (log.ckpt_dir / "final.pt").is_file() and saved["checkpoint"] == str(log.ckpt_dir / "final.pt")
    assert ("final evaluation (1 walls" in out) is evaluated and ("repeat the evaluation" in out) is evaluated
    assert ("\nevaluate it against rule: python -m agents.arena" in out) is (interrupted and hands > 0)
    assert [s[0] for s in log.scalars] == (["eval/final_vs_random_mean_points", "eval/final_vs_random_win_rate",
                                            "eval/final_vs_random_deal_in_rate"] if evaluated else [])
    if evaluated:
        assert (saved["eval"]["random"]["walls"], saved["eval"]["random"]["hands_played"]) == (1, 2)
    assert log.released and f"checkpoint: {log.ckpt_dir / 'final.pt'}" in out


def test_init_from_a_checkpoint_that_names_no_rules_trains_it_without_a_note(tmp_path, monkeypatch, capsys):
    """A checkpoint saved without ``rules`` (from Python, or another tool) is fine-tuned under --rules with no
    note of what it was trained under (nothing says)."""
    monkeypatch.chdir(tmp_path)
    start = save_checkpoint(tmp_path / "bare.pt", build_network({"arch": "mlp", "hidden": [8]}))
    result = train.main(["--init-from", str(start), "--rules", "hebei", "--total-steps", "0", "--final-eval-hands",
                         "0", "--eval-every", "0", "--no-progress", "--no-eval-pretrained", "--exp-name", "bare"])
    out = capsys.readouterr().out
    assert result["updates"] == 0 and out.startswith("bare: hebei; start from ") and "note:" not in out


ROOT = Path(__file__).resolve().parents[1]


def _train_py_stopped_in_setup(tmp_path, stop):
    """train.py run as a program whose setup (the run directory's check, before anything is written) is stopped by
    ``stop``, Python source run there: the process's status and standard error."""
    code = ("import os, runpy, signal, sys\n"
            "import agents.training_checks as checks\n"
            "def stopped(args):\n"
            f"    {stop}\n"
            "checks.run_dir_problem = stopped\n"
            "sys.argv = ['train.py', '--no-progress', '--exp-name', 'stopped']\n"
            f"runpy.run_path({str(ROOT / 'train.py')!r}, run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return done.returncode, done.stderr


@pytest.mark.parametrize("stop, status, said", [
    ("raise KeyboardInterrupt", 130, "train.py: interrupted (Ctrl-C)\n"),
    ("os.kill(os.getpid(), signal.SIGTERM)", 143, "train.py: interrupted (SIGTERM)\n"),
    ("raise BrokenPipeError", 1, ""),
])
def test_a_run_stopped_before_training_ends_with_the_status_of_what_stopped_it(stop, status, said, tmp_path):
    """Ctrl-C in the setup ends train.py with status 130 and one line, SIGTERM with 143 (as a shell reports a
    command the signal ended); a reader of its output that left, with status 1 and nothing said; nothing is
    written."""
    assert _train_py_stopped_in_setup(tmp_path, stop) == (status, said)
    assert not (tmp_path / "runs").exists()
