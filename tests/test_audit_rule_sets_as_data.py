"""Audit: one engine, rule sets as data. A fourth preset (docs/modules.md, "Adding a fourth rule set") is
taken by every command line that reads the list of presets, and nothing outside the places that recipe
names spells the list of preset names out."""
from __future__ import annotations

import re
from pathlib import Path

from example_modules import load_example

from mj_env.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent

# The command lines whose --rules choices docs/modules.md's recipe names, to be edited for a new preset.
RECIPE_NAMES = {"benchmarks/throughput.py", "benchmarks/profile_step.py", "benchmarks/search.py"}


def test_no_command_line_outside_the_recipe_spells_out_the_presets():
    spelled = re.compile(r"""choices\s*=\s*[\(\[]\s*["']beijing["']\s*,\s*["']hebei["']""")
    found = []
    for folder in ("mj_env", "agents", "examples", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in RECIPE_NAMES and spelled.search(path.read_text(encoding="utf-8")):
                found.append(rel)
    assert spelled.search((ROOT / "train.py").read_text(encoding="utf-8")) is None
    assert found == []


def test_duplicate_baseline_takes_every_preset(monkeypatch):
    """A fourth preset added as the recipe says is a --rules choice of the example, as of the other examples."""
    monkeypatch.setitem(PRESETS, "toy", PRESETS["hebei"])
    db = load_example("duplicate_baseline")
    for name in PRESETS:
        assert db.parse_args(["--rules", name, "--smoke"]).rules == name


def test_the_recipe_names_the_places_a_fourth_preset_fails_without():
    """Following docs/modules.md's recipe literally with a copy of hebei under a new name left five tests failing
    at places it did not name: the README's layout of modules, three tests that pin the list of presets, and the
    rules.py checks that name a family (discard_bonus_all_pay is refused outside hebei scoring)."""
    recipe = (ROOT / "docs" / "modules.md").read_text(encoding="utf-8").split("## Adding a fourth rule set", 1)[1]
    for place in ("README", "Layout", "tests/test_audit_docs.py", "tests/test_tiles_rules.py",
                  "tests/test_calculator_hardening.py", "tests/test_score_cli.py", "_USED_WHEN",
                  "discard_bonus_all_pay"):
        assert place in recipe, place
    for name in RECIPE_NAMES:  # the command lines it names do spell the presets out
        assert Path(name).name in recipe
