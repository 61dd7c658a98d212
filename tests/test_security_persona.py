"""Hostile files and inputs, as a security reviewer sees them: what crafted files, paths and values could do
beyond what the other tests already try (checkpoints, JSON lines, action arrays, output paths). Each test
here failed before the fix it guards."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_arena_output_through_a_hard_link_never_empties_a_players_checkpoint(tmp_path, capsys):
    """``--record``, ``--json`` and ``--plot`` are refused when they name a player's checkpoint: compared by the
    file's identity, not its resolved name, since a hard link (``cp -al`` snapshots, backups) resolves to another
    name and ``--record LINK`` emptied the checkpoint the arena had just loaded."""
    pytest.importorskip("torch")
    from agents.arena import main

    ckpt = tmp_path / "player.pt"
    shutil.copy(ROOT / "agents" / "data" / "pretrained_beijing.pt", ckpt)
    link = tmp_path / "link.pt"
    try:
        os.link(ckpt, link)
    except OSError:
        pytest.skip("no hard links on this file system")
    before = ckpt.read_bytes()
    for flag in ("--record", "--json"):
        with pytest.raises(SystemExit) as exit_:
            main(["--agents", f"{ckpt}:greedy,rule", "--hands", "1", "--batch", "1", flag, str(link), "--quiet"])
        assert exit_.value.code == 2
        assert "is a player's checkpoint" in capsys.readouterr().err
        assert ckpt.read_bytes() == before
    out = tmp_path / "out.jsonl"
    out.write_text("")
    twin = tmp_path / "twin.jsonl"
    os.link(out, twin)
    with pytest.raises(SystemExit):
        main(["--agents", "rule,random", "--hands", "1", "--batch", "1", "--json", str(out), "--record", str(twin),
              "--quiet"])
    assert "--json and --record name the same file" in capsys.readouterr().err


ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m"  # set the window title, clear the screen, turn red
"""Terminal escape sequences, as a hostile file would hide them in its text."""


def _no_terminal_control(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text and "\u202e" not in text, repr(text)


def _short_record() -> dict:
    """A record of the first decisions of a hand (no settlement: it replays to where it stopped)."""
    import json

    import numpy as np

    import mj_env

    env = mj_env.env()
    env.reset(seed=5)
    for _ in range(8):  # every seat decides at least once
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    return json.loads(json.dumps(env.unwrapped.hand_record()))


def test_records_show_and_errors_escape_what_would_drive_the_terminal(tmp_path, capsys):
    """A record's text (its player names, the keys of its objects) reaches the terminal in ``--show`` and in error
    lines: control characters are written as escapes. ``--show`` wrote the names raw, so a records file could
    retitle the window, clear the screen or forge a line (a carriage return, a bidi override)."""
    import json

    from mj_env import records

    rec = _short_record()
    rec["players"] = [ESC + "rule", "random\r\nrecord 0: fine", "\u202eevil", "惠牌 é"]
    path = tmp_path / "hostile.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert records.main([str(path), "--show", "0"]) == 0
    out = capsys.readouterr().out
    _no_terminal_control(out)
    assert "(\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mrule)" in out and "(random\\r\\nrecord 0: fine)" in out
    assert "(\\u202eevil)" in out and "(惠牌 é)" in out  # printable text stays as it is
    twice = json.dumps(rec)[:-1] + ', "' + "\\u001b[2J" + '": {"a": 1, "a": 2}}'  # a key given twice, under ESC[2J
    path.write_text(twice + "\n", encoding="utf-8")
    assert records.main([str(path)]) == 1
    err = capsys.readouterr().err
    _no_terminal_control(err)
    assert "is given twice in \\x1b[2J" in err


def test_a_checkpoints_own_names_in_its_error_are_escaped(tmp_path):
    """torch.load's refusal quotes names from the file (a pickle's GLOBAL, a zip member), which CheckpointError
    passed on raw to the arena's and train.py's error line: escape sequences from the file reached the terminal."""
    pytest.importorskip("torch")
    import zipfile

    from agents.networks import CheckpointError, build_network, load_checkpoint, save_checkpoint

    glob = tmp_path / "glob.pt"
    with zipfile.ZipFile(glob, "w") as z:  # a pickle that asks for os<ESC...>.system
        z.writestr("glob/data.pkl", b"\x80\x02cos" + ESC.encode() + b"\nsystem\nq\x00.")
        z.writestr("glob/version", "3\n")
        z.writestr("glob/byteorder", "little")
    good = save_checkpoint(tmp_path / "good.pt", build_network({"arch": "mlp", "hidden": [4]}))
    member = tmp_path / "member.pt"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(member, "w") as z:
        for name in src.namelist():
            z.writestr(name, src.read(name))
        z.writestr(ESC, b"")  # a member outside the archive's folder, named with escape sequences
    for path in (glob, member):
        with pytest.raises(CheckpointError) as e:
            load_checkpoint(path)
        _no_terminal_control(str(e.value))
        assert "\\x1b]0;owned\\x07" in str(e.value)


def test_curve_errors_escape_a_headers_names(tmp_path):
    """A progress.csv column name is quoted in the curve's error messages, escaped."""
    from agents.curve import CurveError, read_curves

    csv = tmp_path / "progress.csv"
    csv.write_text(f"seconds,vs_{ESC}x_points\n1,not a number\n", encoding="utf-8")
    with pytest.raises(CurveError) as e:
        read_curves(csv)
    _no_terminal_control(str(e.value))
    assert "\\x1b[2J" in str(e.value)


def test_the_calculator_escapes_a_keys_control_characters_in_its_answer():
    """``python -m mj_env.score`` writes its answers with ensure_ascii=False: JSON escapes the C0 controls, not a
    C1 control (\\x9b, the 8-bit CSI) nor a bidi override, which a key given twice under such a key put raw into
    the answer's "where"."""
    import json

    from mj_env.score import respond

    line = json.dumps({"hand": "1m", "win_tile": "1m", "melds": [{"\u202e\x9b31m": {"a": 1}}]}).replace(
        '{"a": 1}', '{"a": 1, "a": 2}')
    answer = respond(line)
    assert "\u202e" not in answer and "\x9b" not in answer
    assert json.loads(answer) == {"error": "field 'a' is given twice in melds[0].\\u202e\\x9b31m"}
