"""First mutation pass over ``mj_env.patterns`` and ``mj_env.families`` (the fan patterns and the fan tables):
the rules that the scoring tables and the reference comparisons left unpinned, each from docs/RULES.md."""
from __future__ import annotations

from mj_env.calculator import evaluate


def test_a_pong_leaves_its_fourth_tile_a_wait_so_no_catch_five():
    """RULES.md 6.1 (捉五魁): "5m was the hand's only winning tile: no other tile kind, taken at face value, would have
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
