"""Findings of an outside audit of the command lines (records checker, learning curve): each test failed
before its fix."""
from __future__ import annotations

import json

import numpy as np

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
