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
