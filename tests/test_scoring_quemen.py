"""缺门 (quemen) scoring: the case table (every shape and additive pattern, 报听 doubling, the
payments), kong payments, and random hands against the reference shape check."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import case_tables
from ref_scoring import is_win, random_beijing_input

from mj_env.fan import QUEMEN_ORDER
from mj_env.rules import get_rules
from mj_env.scoring import evaluate, kong_payments, settle_draw
from mj_env.tiles import parse_tiles

CASES = case_tables.load("quemen")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_table(case):
    case_tables.check_case(case)


def test_case_table_covers_every_pattern_both_ways():
    case_tables.check_covers(CASES, QUEMEN_ORDER)


def quemen_version(obj: dict, rng: random.Random) -> dict | None:
    if any(m["type"] == "chi" for m in obj["melds"]) or obj["hui"] is not None:
        return None
    out = {k: v for k, v in obj.items() if k not in ("hui", "shaozhuang_rounds", "hubao")}
    out.update(rules="quemen", flowers=rng.randrange(9), ting=rng.random() < 0.3)
    return out


def test_random_hands_shape_lack_suit_and_payments():
    rng = random.Random(4)
    n = lacking = 0
    while n < 400:
        obj = quemen_version(random_beijing_input(rng), rng)
        if obj is None:
            continue
        n += 1
        out = evaluate(obj)
        tiles = parse_tiles(obj["hand"] + obj["win_tile"] + "".join(m["tiles"] for m in obj["melds"]))
        suits = {t // 9 for t in tiles if t < 27}
        c = [parse_tiles(obj["hand"] + obj["win_tile"]).count(k) for k in range(34)]
        assert out["legal"] == (is_win(c, len(obj["melds"])) and len(suits) <= 2), obj
        if out["legal"]:
            lacking += 1
            total = out["fan"] * (2 if obj["ting"] else 1) * obj["base"]
            assert out["fan"] == sum(out["patterns"].values())
            assert out["patterns"].get("花牌", 0) == obj["flowers"]
            shape = {"平胡", "混一色", "碰碰胡", "七对", "清一色", "清碰"} & set(out["patterns"])
            assert shape and not {"平胡", "清碰"} < shape
            if obj["discarder"] is None:
                want = [-total] * 4
                want[obj["winner"]] = 3 * total
            else:
                want = [0] * 4
                want[obj["winner"]], want[obj["discarder"]] = total, -total
            assert out["scores"] == want
    assert lacking > 50


# ---------------------------------------------------------------------------------------------
# Kong payments (RULES.md 6.3): exposed 1 from the discarder, concealed 1 from each, added none;
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
