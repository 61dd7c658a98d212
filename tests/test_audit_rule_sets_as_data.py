"""Audit: one engine, rule sets as data. A fourth preset (docs/modules.md, "Adding a fourth rule set") is
taken by every command line that reads the list of presets, and nothing outside the places that recipe
names spells the list of preset names out."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

from mj_env import actions as A
from mj_env import calculator
from mj_env.baselines import uniform_legal
from mj_env.calculator import evaluate
from mj_env.engine import Engine
from mj_env.families import FAMILIES
from mj_env.hand_end import win_input
from mj_env.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent

# The command lines whose --rules choices docs/modules.md's recipe names, to be edited for a new preset: none
# since every --rules is read by agents.rules_args.rules_option (benchmarks/throughput.py, profile_step.py and search.py
# spelled the three presets out before).
RECIPE_NAMES: set[str] = set()


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


def test_a_family_refusal_is_the_calculators_alone_as_the_recipe_says(monkeypatch):
    """docs/modules.md lists ``refusal`` among a family's fields; the engine's legal wins never ask the family, so
    a family that refuses a reading the rule fields allow (here: a win needs a pattern) ends a hand in play with
    the engine's AssertionError. The recipe says so, and this holds it to what the engine does."""
    hebei = FAMILIES["hebei"]
    monkeypatch.setitem(FAMILIES, "hebei", dataclasses.replace(
        hebei, patterns_of=lambda win, r, memo: hebei.patterns_of(win, r, memo) or None, refusal="no pattern"))
    eng = Engine("hebei", num_tables=64, seed=0)
    eng.reset()
    rng = np.random.default_rng(0)
    with pytest.raises(AssertionError, match="engine let seat .* win .* but the rules core says .*no pattern"):
        for _ in range(3000):
            mask = eng.legal_mask()
            eng.step(np.where(mask[:, A.WIN], A.WIN, uniform_legal(mask, rng, empty_ok=True)))
    recipe = (ROOT / "docs" / "modules.md").read_text(encoding="utf-8").split("## Adding a fourth rule set", 1)[1]
    assert "read by the\n   calculator only" in recipe and "never ask the family" in recipe


def test_a_family_special_win_is_never_offered_at_a_table_as_the_recipe_says(monkeypatch):
    """A family's ``special_win`` (a win whatever the shape) is scored by the calculator, but play offers only
    四惠牌 by the rule fields: the dealer's first turn holds a hand the family's special win takes, and the mask
    has no win."""
    hebei = FAMILIES["hebei"]
    monkeypatch.setitem(FAMILIES, "hebei", dataclasses.replace(
        hebei, special_win=lambda win: {"门清": 2} if win.self_draw else None))
    eng = Engine("hebei", num_tables=1, seed=0)
    eng.reset()
    st = eng.state
    seat = int(st.dealer[0])
    st.winners[0, seat], st.win_from[0], st.win_tile[0] = True, -1, int(st.drawn[0])
    got = evaluate(win_input(eng.rules, st, 0, seat))
    st.winners[0, seat] = False
    assert got["legal"] and got["patterns"] == {"门清": 2}
    assert not eng.legal_mask()[0, A.WIN]
    recipe = (ROOT / "docs" / "modules.md").read_text(encoding="utf-8").split("## Adding a fourth rule set", 1)[1]
    assert "never won at a table" in recipe


def test_the_calculator_names_the_presets_it_takes(monkeypatch):
    """The calculator's refusal of a rules value that is neither a name nor an object lists the presets from
    PRESET_NAMES, so a fourth preset is named there too (the message was spelled out)."""
    monkeypatch.setattr(calculator, "PRESET_NAMES", (*calculator.PRESET_NAMES, "toy"))
    with pytest.raises(calculator.InputError, match="rules must be 'beijing', 'hebei', 'quemen', 'toy' or an object"):
        calculator.evaluate({"rules": 5, "hand": "123m456p789s23s55z", "win_tile": "4s", "winner": 1, "dealer": 0})
