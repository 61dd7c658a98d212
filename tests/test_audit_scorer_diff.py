"""Cases found by differential-testing the calculator (``python -m mj_env.score``) against an
independent scorer written from docs/RULES.md 1, 5, 6 and docs/INTERFACES.md 1 alone."""
import json

import pytest

from mj_env.rules import RuleError, get_rules
from mj_env.score import answer

ORPHANS_HAND = "19m19p19s1234567z"  # + 7z: thirteen orphans with a dragon pair


def test_quemen_refuses_thirteen_orphans_that_its_fan_table_cannot_score():
    """docs/RULES.md 6.3: every quemen win scores one shape pattern (平胡 1 at least: "Shape
    patterns, one of"), and the table has none for thirteen orphans. The object form of ``rules``
    took ``{"name": "quemen", "thirteen_orphans": true, "lack_suit": false}`` and answered a
    "legal" win of 0 fan that paid nothing: ``{"fan": 0, "patterns": {}, "scores": [0, 0, 0, 0]}``
    (with the preset's lack_suit the shape could never win at all). The rule set is refused, as
    the fields of another family's table are (``flowers`` under beijing, ``ting`` under hebei)."""
    with pytest.raises(RuleError, match="thirteen_orphans"):
        get_rules("quemen", thirteen_orphans=True)
    for rules in ({"name": "quemen", "thirteen_orphans": True, "lack_suit": False},
                  {"name": "quemen", "thirteen_orphans": True}):
        for discarder in (None, 0):
            out = answer(json.dumps({"rules": rules, "hand": ORPHANS_HAND, "win_tile": "7z", "winner": 1,
                                     "dealer": 0, "discarder": discarder}))
            assert "error" in out and "thirteen_orphans" in out["error"], out
    # the families whose tables score the shape keep it: hebei's 十三幺, beijing's 推倒和
    assert answer(json.dumps({"rules": "hebei", "hand": ORPHANS_HAND, "win_tile": "7z", "winner": 1,
                              "dealer": 0, "discarder": 0}))["patterns"] == {"门清": 2, "十三幺": 10}
    assert answer(json.dumps({"rules": {"name": "beijing", "thirteen_orphans": True}, "hui": "5m",
                              "hand": ORPHANS_HAND, "win_tile": "7z", "winner": 1, "dealer": 0,
                              "discarder": 2}))["patterns"] == {"门清无惠": 1, "推倒和": 1}
