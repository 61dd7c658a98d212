"""The scoring case tables (tests/cases/*_hands.json) and the checks every rule set shares."""
from __future__ import annotations

import json
from pathlib import Path

from mj_env.calculator import evaluate

CASES_DIR = Path(__file__).parent / "cases"


def load(rules: str) -> list[dict]:
    """The case table of a rule set: a list of {"name", "input", "expect", "not"?}."""
    return json.loads((CASES_DIR / f"{rules}_hands.json").read_text(encoding="utf-8"))


def check(got: dict, expect: dict, *, reason: bool = True) -> None:
    """A calculator output against the expected one (legal: equal, pattern order included)."""
    if expect["legal"]:
        assert got == expect
        assert list(got["patterns"]) == list(expect["patterns"])  # the output order too
    else:
        assert got["legal"] is False, got
        assert not reason or expect["reason_has"] in got["reason"]


def check_case(case: dict) -> None:
    """Score one case; the patterns it names under "not" must be absent."""
    got = evaluate(case["input"])
    check(got, case["expect"])
    for name in case.get("not", []):
        assert name not in got.get("patterns", {})


def check_covers(cases: list[dict], patterns) -> None:
    """Every pattern is scored by some case and named as almost-but-not by another."""
    scored = {p for c in cases if c["expect"]["legal"] for p in c["expect"]["patterns"]}
    almost = {p for c in cases for p in c.get("not", [])}
    assert scored == set(patterns)
    assert almost == set(patterns)
