"""Rule sets as data and their configuration fields (an outside audit of docs/RULES.md's **Decision**
fields and of the ways a user sets them): each test holds a case the project once got wrong."""
from __future__ import annotations

import mj_env
from mj_env.calculator import SCORE_RULE_FIELDS, evaluate, rules_json
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv


def test_a_quemen_settlement_without_flowers_gives_its_rules_back_to_an_environment():
    """The README: "The object form of a calculator line or a settlement's ``input`` works too ... so a logged
    hand's rules go back into an environment as they are". Under quemen without flowers a settlement's ``input``
    says ``{"name": "quemen", "flowers": false}`` (docs/RULES.md 6.4: only fields that bear on the score, and
    ``n_tiles`` does not). The calculator took it (it pairs 136 tiles with no flowers), but ``mj_env.env(rules=...)``,
    the vector env and ``get_rules`` refused it: "flowers need n_tiles=144"."""
    rules = get_rules("quemen", flowers=False, n_tiles=136)
    logged = rules_json(rules)
    assert logged == {"name": "quemen", "flowers": False}
    assert evaluate({"rules": logged, "hand": "123m456m789m11p22p", "win_tile": "2p"})["legal"]
    again = get_rules(logged)
    assert again == rules
    assert {f: getattr(again, f) for f in SCORE_RULE_FIELDS} == {f: getattr(rules, f) for f in SCORE_RULE_FIELDS}
    assert mj_env.env(rules=logged).unwrapped.rules == rules
    assert MahjongVectorEnv(2, rules=logged).rules == rules
    # and the other way round: flowers put back under a preset without them
    assert get_rules({"name": "quemen", "flowers": True}) == get_rules("quemen")
