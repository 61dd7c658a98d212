"""docs/rules_trace.md names, for each rule of docs/RULES.md, the test that failed when the rule was broken by
hand. Those names must stay true: every ``test_file::test_name`` it gives is a test function in that file (a
renamed or deleted test would leave the trace pointing at nothing)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "docs" / "rules_trace.md"
REF = re.compile(r"(?:tests/)?(test_\w+?)(?:\.py)?::(test_\w+)")


def test_every_test_the_rules_trace_names_exists():
    text = TRACE.read_text(encoding="utf-8")
    refs = sorted(set(REF.findall(text)))
    assert len(refs) > 100, "the trace names too few tests: has its format changed?"
    missing = []
    for module, name in refs:
        path = ROOT / "tests" / f"{module}.py"
        if not path.is_file() or not re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.MULTILINE):
            missing.append(f"{module}::{name}")
    assert not missing, f"docs/rules_trace.md names tests that do not exist: {missing}"


def test_every_table_row_of_the_trace_names_a_test_or_says_why_none_can():
    """(or points at the rows above whose test it shares: "same", "rows 3.4, 3.6", "not repeated: X5 above")."""
    rows = [line for line in TRACE.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| #") and not line.startswith("| ---")]
    assert len(rows) >= 200
    last = [r.rstrip(" |").rsplit(" | ", 1)[-1] for r in rows]
    bare = [r[:60] for r, c in zip(rows, last) if not REF.search(c) and not c.startswith(("same", "rows ", "not repeated: "))
            and "unreachable" not in c and "equivalent" not in c.lower()]
    assert not bare, f"rows naming no test: {bare}"
