"""Findings of an outside audit of the command lines (records checker, learning curve): each test failed
before its fix."""
from __future__ import annotations

import json

import numpy as np
import pytest

import mj_env
from mj_env import records


def _record(seed=3):
    """The record of one hand of random legal play in the AEC env, as JSON text."""
    env = mj_env.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return json.dumps(env.unwrapped.hand_record(), ensure_ascii=False)


def test_the_records_checker_skips_a_byte_order_mark_at_the_start_of_the_file(tmp_path, capsys):
    """A records file saved by an editor that writes a UTF-8 BOM (as the calculator's input may be) replays;
    it was 'record 0: Unexpected UTF-8 BOM'. A BOM anywhere else is still a bad record."""
    rec = _record()
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + rec.encode() + b"\r\n" + rec.encode() + b"\n")
    assert records.main([str(path)]) == 0
    assert "2 of 2 record(s) replay" in capsys.readouterr().out
    assert records.main([str(path), "--show", "0"]) == 0
    assert "settlement: {" in capsys.readouterr().out
    path.write_bytes(b"\xef\xbb\xbf\n" + rec.encode() + b"\n")  # a BOM alone on the first line: a blank line
    assert records.main([str(path)]) == 0
    assert "1 of 1 record(s) replay" in capsys.readouterr().out
    path.write_bytes(rec.encode() + b"\n\xef\xbb\xbf" + rec.encode() + b"\n")
    assert records.main([str(path)]) == 1
    assert "record 1: " in capsys.readouterr().err


def test_the_curve_refuses_a_row_with_more_cells_than_the_header(tmp_path):
    """A row with cells past the header's (a hand-edited or corrupted progress.csv) was drawn from whatever
    its columns then held; a row cut short was already refused."""
    from agents import curve

    d = tmp_path / "run"
    d.mkdir()
    header = "update,global_step,seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n"
    (d / "progress.csv").write_text(header + "1,100,60,-0.5,-0.7,-0.3\n2,200,120,0.1,-0.1,0.3,9\n", encoding="utf-8")
    with pytest.raises(curve.CurveError, match=r"line 3: 7 cells where the header has 6"):
        curve.read_curves(d / "progress.csv")


def test_the_curve_labels_a_progress_file_of_the_current_folder_by_that_folder(tmp_path, monkeypatch):
    """``python -m agents.curve progress.csv`` inside a run's folder: the label was '' (the parent of a bare
    file name), so the picture had no legend and matplotlib warned 'No artists with labels found'."""
    from agents import curve

    d = tmp_path / "my_run"
    d.mkdir()
    header = "update,global_step,seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n"
    (d / "progress.csv").write_text(header + "1,100,60,-0.5,-0.7,-0.3\n", encoding="utf-8")
    drawn = []
    monkeypatch.setattr(curve, "_draw", lambda plt, runs, labels, opponents, out, title: drawn.append(labels))
    monkeypatch.chdir(d)
    curve.plot(["progress.csv"], str(tmp_path / "c.png"))
    assert drawn == [["my_run"]]
