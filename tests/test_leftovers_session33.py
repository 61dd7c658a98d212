"""Leftovers of session 33, mended: the programs' --help says what leaving out an option whose default is None
means, benchmarks/throughput.py uses the arena's test of one file under a public name (``agents.arena.file_key``),
a CheckpointWarning under ``python -m agents.arena`` names a line of code instead of ``<frozen runpy>``, and
train.py's ``--keep-checkpoints N`` keeps only the newest N snapshot checkpoints."""
from __future__ import annotations

import ast
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- "(default: None)" in --help












# --------------------------------------------------------------------------- one file, one public name


def test_no_program_imports_a_private_name_of_the_packages():
    """benchmarks/throughput.py imported ``agents.arena._file_key``: a rename inside the arena would break it
    unseen. The programs above the packages (benchmarks/, examples/, train.py) import only public names of them."""
    bad = []
    for path in [*sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "examples").glob("*.py")),
                 ROOT / "train.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("agents", "mj_env"):
                bad += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_")]
    assert not bad, bad


def test_file_key_tells_a_hard_link_and_another_spelling_for_the_same_file(tmp_path):
    from agents.arena import file_key

    a = tmp_path / "a.json"
    a.write_text("{}")
    os.link(a, tmp_path / "b.json")
    assert file_key(a) == file_key(tmp_path / "b.json") == file_key(tmp_path / "." / "a.json")
    assert file_key(a) != file_key(tmp_path / "c.json")  # not there yet: its resolved path
    assert file_key(tmp_path / "c.json") == file_key(tmp_path / "x" / ".." / "c.json")


# --------------------------------------------------------------------------- a warning's line under python -m








# --------------------------------------------------------------------------- train.py --keep-checkpoints








