"""train.py as a newcomer reads it: the map of its sections in its docstring, and what its docs say of the quick
evaluations, held to the code."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_interrupt import TINY

import train

ROOT = Path(__file__).resolve().parents[1]


def _sections() -> list[str]:
    """train.py's section titles, in file order, each without its parenthesis ("a gradient step")."""
    text = (ROOT / "train.py").read_text(encoding="utf-8")
    titles = re.findall(r"^# -{20,} (.+)$", text, flags=re.MULTILINE)
    return [re.sub(r"\s*\(.*\)$", "", t).strip() for t in titles]


def test_the_docstring_names_every_section_in_file_order():
    """The docstring's "reads top-down" paragraph names each section where the file has it: a section moved,
    added or renamed without it (the gradient step once sat in the cloning's section) fails here."""
    sections = _sections()
    assert sections[:2] == ["command line", "rollout storage"] and len(sections) >= 10  # (the pattern finds them)
    found = re.search(r"The file reads top-down(.*?)(?:\n\n|\Z)", train.__doc__ or "", re.DOTALL)
    assert found, "train.py's docstring has no paragraph saying how the file reads top-down"
    paragraph = " ".join(found.group(1).split())
    at = 0
    for title in sections:
        found = paragraph.find(title, at)
        assert found >= 0, f"train.py's docstring does not name the section {title!r} after {paragraph[:at]!r}"
        at = found + len(title)


def test_quick_evaluations_run_after_the_first_update_and_every_eval_every_as_the_docs_say(tmp_path, monkeypatch):
    """The docstring, --eval-every's help and the README say the quick evaluations come after update 1 as well as
    every ``eval_every`` updates (``main``: ``update % eval_every == 0 or update == 1``); they said every
    ``eval_every`` only, which a newcomer reading progress.csv's first row would not expect."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "Quick evaluations (64 walls, after the first update and every 5)" in readme
    assert "After the first update and every ``eval_every`` updates a quick duplicate match" in " ".join(
        (train.__doc__ or "").split())
    assert "evaluations against random and rule, the first after update 1" in (ROOT / "train.py").read_text(
        encoding="utf-8")  # (--eval-every's help)
    monkeypatch.chdir(tmp_path)
    argv = list(TINY)
    argv[argv.index("--eval-every") + 1] = "5"
    train.main(["--exp-name", "evals", "--total-steps", str(3 * 16 * 32), "--eval-hands", "2",
                "--final-eval-hands", "0", *argv])
    with open(tmp_path / "runs" / "evals" / "progress.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["update"]) for r in rows] == [1, 2, 3]
    assert [r["vs_rule_points"] != "" for r in rows] == [True, False, False]
