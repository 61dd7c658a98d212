"""The repository carries its own copy of the spec (docs/RULES.md, docs/INTERFACES.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.mark.parametrize("name", ["RULES.md", "INTERFACES.md"])
def test_spec_copy_is_in_step_with_the_shared_spec(name):
    ours = ROOT / "docs" / name
    assert ours.is_file(), f"docs/{name} is missing"
    theirs = SHARED / name
    if not theirs.is_file():
        pytest.skip(f"no {theirs} beside this clone to compare with")
    assert ours.read_text(encoding="utf-8") == theirs.read_text(encoding="utf-8"), (
        f"docs/{name} differs from {theirs}: copy it again")


def test_no_tracked_file_points_outside_the_repository():
    hits = []
    for path in ROOT.rglob("*"):
        if path.suffix not in {".py", ".md", ".toml"} or ".venv" in path.parts or "docs" == path.parent.name:
            continue
        if path == Path(__file__).resolve():
            continue
        if "../shared" in path.read_text(encoding="utf-8", errors="replace"):
            hits.append(str(path.relative_to(ROOT)))
    assert not hits, f"these point at ../shared, which a clone does not have: {hits}"
