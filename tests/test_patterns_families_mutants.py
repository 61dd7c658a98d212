"""First mutation pass over ``mj_env.patterns`` and ``mj_env.families`` (the fan patterns and the fan tables):
the rules that the scoring tables and the reference comparisons left unpinned, each from docs/RULES.md."""
from __future__ import annotations

from mj_env.calculator import evaluate


def test_a_pong_leaves_its_fourth_tile_a_wait_so_no_catch_five():
    """docs/RULES.md 6.1 line 153 (捉五魁): "5m was the hand's only winning tile: no other tile kind, taken at face value, would have
    completed the hand". 3445677m + 5m reads 345m 456m 77m, but 2m also completes it (234m 456m 77m); the pong 222m
    holds three 2m, so one is still to come and 5m is not the only winning tile. A meld's tile is counted once (mutant:
    the pong's tiles counted twice made 2m look used up and scored 捉五魁)."""
    line = {"hand": "3445677m222s", "win_tile": "5m", "hui": "9p", "winner": 1, "dealer": 0,
            "melds": [{"type": "pong", "tiles": "222m", "from": 3}]}
    assert evaluate(line) == {"legal": True, "fan": 1, "patterns": {"推倒和": 1}, "shaozhuang": 0,
                              "scores": [-1, 3, -1, -1]}
    # the same hand with the fourth 2m gone into a kong: 2m can no longer come, 5m is the only wait
    kong = dict(line, melds=[{"type": "kong", "tiles": "2222m", "from": 3}])
    assert evaluate(kong)["patterns"] == {"捉五魁": 2}


def test_each_familys_bound_covers_its_largest_settlement():
    """``Family.max_points_per_base`` bounds one win's |score| per base for its own family (the calculator takes the
    largest, beijing's, so a family's own bound going short was unseen). The worst cases, with every pattern at its
    most (F = the family's max_fan): docs/RULES.md 6.1 lines 164-178: a self-draw is 3F, a winner bound by 互包 to all three
    others gets 3F from each (9F), 烧庄 adds L to a non-dealer and takes 3L from the dealer (a dealer paying a self-draw
    pays 3F + 3L when bound to the winner); docs/RULES.md 6.2 lines 197 and 210: the dealer self-draws, each other pays 4 + X;
    docs/RULES.md 6.3 lines 225-228: a self-draw after 报听, each of three pays the doubled total."""
    from mj_env.families import FAMILIES

    beijing, hebei, quemen = FAMILIES["beijing"], FAMILIES["hebei"], FAMILIES["quemen"]
    f = beijing.max_fan
    for line in (0, 1, 2, 100, 2 ** 20):
        assert beijing.max_points_per_base(line) >= max(9 * f + line, 3 * f + 3 * line), line
    assert hebei.max_points_per_base(0) >= 3 * (4 + hebei.max_fan)
    assert quemen.max_points_per_base(0) >= 3 * 2 * quemen.max_fan
