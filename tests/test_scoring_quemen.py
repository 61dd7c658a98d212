"""缺门 (quemen) scoring: the case table (every shape and additive pattern, 报听 doubling, the
payments), kong payments, and random hands against the plain reference scorer
(tests/ref_scoring.py, written from docs/RULES.md 6.3): legality, fan, patterns and scores."""
from __future__ import annotations

import json
import random
from collections import Counter

import case_tables
import pytest
from ref_scoring import QUEMEN_ORDER, random_plain_input, ref_evaluate_quemen

from mj_env.calculator import evaluate, kong_payments, settle_draw
from mj_env.rules import get_rules

CASES = case_tables.load("quemen")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_table(case):
    case_tables.check_case(case)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_agrees_with_case_table(case):
    case_tables.check(ref_evaluate_quemen(case["input"]), case["expect"], reason=False)


def test_case_table_covers_every_pattern_both_ways():
    case_tables.check_covers(CASES, QUEMEN_ORDER)


N_RANDOM = 3000


def test_random_hands_match_reference():
    """3,000 random hands (tests/ref_scoring.random_plain_input, some with ``lack_suit`` off):
    the whole output against the reference. Every pattern, 报听 on self-draws and on discards,
    and hands refused for their shape and for holding three suits must occur, so the comparison
    cannot pass on trivial hands alone."""
    rng = random.Random(4)
    seen, legal = Counter(), Counter()
    for _ in range(N_RANDOM):
        obj = random_plain_input(rng, "quemen")
        if rng.random() < 0.05:
            obj["rules"] = {"name": "quemen", "lack_suit": False}
        ties = []
        got, want = evaluate(obj), ref_evaluate_quemen(obj, ties)
        line = json.dumps(obj, ensure_ascii=False)
        assert got["legal"] == want["legal"], line
        if not got["legal"]:
            legal[want["reason"]] += 1
            assert ("缺一门" in got["reason"]) == ("缺一门" in want["reason"]), (line, got)
            continue
        legal[True] += 1
        if len(ties) > 1:  # equal fan read two ways: docs/RULES.md leaves the choice open
            assert got["patterns"] in ties and got["fan"] == want["fan"] and got["scores"] == want["scores"], line
        else:
            assert got == want, line
        assert sum(got["scores"]) == 0
        seen.update(got["patterns"].keys())
        seen["报听 " + ("self-draw" if obj["discarder"] is None else "discard")] += obj["ting"]
    missing = [name for name in QUEMEN_ORDER + ("报听 self-draw", "报听 discard") if not seen[name]]
    assert not missing, (missing, seen)
    assert legal[True] > N_RANDOM // 2, legal
    assert min(legal.values()) > N_RANDOM // 50 and len(legal) == 3, legal


# ---------------------------------------------------------------------------------------------
# Kong payments (docs/RULES.md 6.3): exposed 1 from the discarder, concealed 1 from each, added none;
# settled in a drawn hand too.


@pytest.mark.parametrize("kongs,scores", [
    ([(0, "exposed", 2)], [1, 0, -1, 0]),
    ([(1, "added", None)], [0, 0, 0, 0]),
    ([(3, "concealed", None)], [-1, -1, -1, 3]),
    ([(0, "exposed", 2), (2, "concealed", None), (2, "added", None)], [0, -1, 2, -1]),
])
def test_kong_payments_quemen(kongs, scores):
    assert kong_payments("quemen", kongs) == scores
    assert kong_payments("quemen", kongs, drawn=True) == scores
    assert kong_payments("quemen", kongs, base=4) == [4 * s for s in scores]
    assert kong_payments(get_rules("quemen", kong_payments_on_draw=False), kongs, drawn=True) == [0, 0, 0, 0]


def test_quemen_draw_has_no_shaozhuang():
    assert settle_draw("quemen", 3, 0) == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}
