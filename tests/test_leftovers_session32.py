"""Leftovers of train.py and the checkpoints, mended: loading a network leaves torch's global generator as it was
(train.py still draws what the loads after its seeding drew, so its seeded runs repeat), a signal while a run
that ended writes final.pt and final_eval.json leaves both whole, progress.csv leaves a rate over no hands
empty, and a checkpoint with keys beside its format's loads with a warning naming them."""
import csv

import pytest

torch = pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_interrupt import TINY
from test_train_smoke import _scalars

import train
from agents import curve

# --------------------------------------------------------------------------- loading and torch's generator








# --------------------------------------------------------------------------- a signal while a run's end is written
















# --------------------------------------------------------------------------- progress.csv: a rate over no hands

LOSSES = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
          "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}
RATES = ("draw_rate", "win_rate", "avg_fan", "pool_points", "pool_win_rate", "pool_deal_in_rate")


def test_a_rate_over_no_hands_is_an_empty_cell_not_0():
    """No hand ended, no learner win, no hand against the pool: the rates over them were written as 0 (a run
    without pool hands seemed to lose none and win none); unknown, they are empty, as unevaluated cells are."""
    none = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0, "pool_points": 0.0,
            "pool_hands": 0, "pool_wins": 0, "pool_deal_ins": 0}
    row = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, none, 1, 1.0, {})
    assert [row[k] for k in RATES] == [""] * 6 and row["hands"] == 0
    some = {**none, "hands": 2, "drawn": 0, "self_hands": 8, "self_wins": 0}  # hands, none won, none vs the pool
    row = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, some, 1, 1.0, {})
    assert [row[k] for k in RATES] == [0.0, 0.0, "", "", "", ""]
    full = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, {**some, "pool_hands": 4, "pool_points": -2.0}, 1, 1.0, {})
    assert list(full) == list(row) and (full["pool_points"], full["pool_win_rate"]) == (-0.5, 0.0)


def test_a_run_without_pool_hands_leaves_their_cells_empty_and_every_reader_copes(tmp_path, monkeypatch):
    """--opponent-prob 0 (self-play only): the pool_* cells are empty in every row (they were 0), the columns
    are those of any run, TensorBoard gets no charts/pool_* point, the progress bar shows '-' and the curve reads it."""
    monkeypatch.chdir(tmp_path)
    small = [a for a in TINY if a != "--no-progress"]  # the bar's figures too (written to stderr)
    train.main(["--exp-name", "self", "--total-steps", "4096", "--opponent-prob", "0", "--final-eval-hands", "0",
                *small, "--num-steps", "128", "--eval-every", "1", "--eval-hands", "1"])  # (after TINY's)
    run = tmp_path / "runs" / "self"
    with open(run / "progress.csv", newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = reader.fieldnames, list(reader)
    assert len(rows) == 2 and all(r[k] == "" for r in rows for k in RATES if k.startswith("pool_"))
    assert all(r["hands"] != "0" and r["draw_rate"] != "" and r["win_rate"] != "" for r in rows)
    expected = train.progress_row(1, 1, 1.0, 0.0, LOSSES, {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0,
                                  "self_fan": 0.0, "pool_points": 0.0, "pool_hands": 0, "pool_wins": 0,
                                  "pool_deal_ins": 0}, 0, 0.0, {})
    assert columns == list(expected)
    scalars = _scalars(run)
    assert "charts/win_rate" in scalars and not [t for t in scalars if t.startswith("charts/pool_")]
    assert set(curve.read_curves(run / "progress.csv")) == {"random", "rule"}


# --------------------------------------------------------------------------- keys a checkpoint's format does not have








