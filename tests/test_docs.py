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


def test_spec_citations_point_at_the_repository_copy():
    """A citation of the spec names docs/RULES.md or docs/INTERFACES.md (a clone has no other copy)."""
    import re

    bare = re.compile(r"(?<![/\w`])(RULES|INTERFACES)\.md")  # a docstring's opening quotes count as bare
    hits = []
    for top in ("mj_env", "agents", "tests", "benchmarks", "examples"):
        for path in (ROOT / top).rglob("*.py"):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if bare.search(line) and path != Path(__file__).resolve():
                    hits.append(f"{path.relative_to(ROOT)}:{n}")
    for path in (ROOT / "train.py", ROOT / "README.md"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if bare.search(line) and "docs/" not in line:
                hits.append(f"{path.relative_to(ROOT)}:{n}")
    assert not hits, f"cite docs/RULES.md / docs/INTERFACES.md: {hits}"
