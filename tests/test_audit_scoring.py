"""Calculator lines worked out by hand from docs/RULES.md (an outside audit of scoring): each test
holds a case the calculator once got wrong."""
from __future__ import annotations

import pytest

from mj_env.calculator import evaluate

QUEMEN_PINGHU = {"rules": "quemen", "hand": "123m456m789p23p55p", "win_tile": "1p"}


@pytest.mark.parametrize("winner, dealer", [(1, 0), (0, 0)])
def test_quemen_a_win_after_baoting_is_no_first_draw(winner, dealer):
    # 报听 is declared together with a discard (RULES.md 4.1), so a winner who declared it has
    # discarded: the win is not on their first draw (地胡, RULES.md 6.3) nor on the dealer's initial
    # 14 tiles (天胡). A line giving both `ting` and `first_turn` is read as the flags together allow,
    # as a discard by a seat that plays after the winner voids `first_turn` (docs/game_flow.md).
    line = {**QUEMEN_PINGHU, "winner": winner, "dealer": dealer, "ting": True, "situation": {"first_turn": True}}
    out = evaluate(line)
    assert out["patterns"] == {"平胡": 1}
    assert out["fan"] == 1
    assert out["scores"][winner] == 6  # 平胡 1, doubled by 报听, from each of three
    # without 报听 the same line is a first-draw win
    plain = evaluate({**line, "ting": False})
    assert plain["patterns"] == ({"平胡": 1, "地胡": 2} if winner != dealer else {"平胡": 1, "天胡": 3})


@pytest.mark.parametrize("code", ["9f", "0f"])
def test_a_flower_code_past_8f_is_no_tile_not_a_flower(code):
    # flowers are 1f-8f (RULES.md 1): 9f and 0f are unknown tile codes, and the error says so
    # instead of calling them flower tiles
    with pytest.raises(ValueError, match=f"no tile {code}"):
        evaluate({"rules": "quemen", "hand": "123m456m789p23p55p", "win_tile": code})
