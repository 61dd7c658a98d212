"""Rule-by-rule trace of docs/RULES.md 6 (scoring) and 7 (bad input): tests for the rule sentences that no
behavioural test pinned when each sentence was broken by hand in the code (a traceability audit; its table of
rules, code locations and killing tests is docs/rules_trace.md).

Each test quotes the sentence it pins and names the breakage it catches.
"""
from __future__ import annotations

import pytest
from scenario_helpers import BEIJING, HEBEI, ROB, count_live_draws_to_the_end, play, settled
from test_scenarios import SHAOZHUANG

from mj_env.calculator import SCORE_RULE_FIELDS, evaluate, rules_json
from mj_env.rules import PRESET_NAMES, RuleError, get_rules

# The hand of test_scenarios.py::test_one_round_of_shaozhuang: one round of 烧庄 (5z x 4), the second round
# breaks, seat 2 self-draws 一条龙 3 + 门清无惠 1 = 4 fan: +12 / -4 each; 烧庄: dealer -3, others +1.
_ONE_ROUND_WON = [-4 - 3, -4 + 1, 12 + 1, -4 + 1]


def test_shaozhuang_on_draw_false_still_settles_shaozhuang_in_a_won_hand(new_game):
    """docs/RULES.md 6.1: "烧庄 is settled whether the hand is won or drawn (**Decision**, field
    `shaozhuang_on_draw`)". The field turns off 烧庄 in a drawn hand only; a won hand pays it either way
    (tests/test_scenarios.py::test_a_drawn_hand_still_settles_shaozhuang holds the drawn side). Breakage caught:
    ``mj_env.hand_end.win_input`` leaving ``shaozhuang_rounds`` out of a won hand's input when the field is False
    (it survived every test before). The calculator-side breakage, ``mj_env.payments.win_scores`` settling 烧庄
    only ``if rules.shaozhuang and rules.shaozhuang_on_draw``, passes here: the next test catches it."""
    for rules in (BEIJING, BEIJING.replace(shaozhuang_on_draw=False)):
        g = new_game(rules, **SHAOZHUANG)
        play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"),
             (0, "discard 6z"), (1, "discard 7z"), (2, "win"))
        assert g.result["shaozhuang"] == 1, rules.shaozhuang_on_draw
        assert settled(g) == _ONE_ROUND_WON, rules.shaozhuang_on_draw


def test_shaozhuang_on_draw_in_a_calculator_line_leaves_the_won_hands_shaozhuang():
    """docs/RULES.md 6.1 (as above) through the calculator (docs/INTERFACES.md 1): a rules object with
    ``"shaozhuang_on_draw": false`` scores a won hand with 烧庄 exactly as the preset does, for 1 to 3 rounds
    (line 2^(R-1): the dealer pays 3, 6, 12; each other seat gets 1, 2, 4). Breakage caught: ``mj_env.payments.
    win_scores`` settling 烧庄 only ``if rules.shaozhuang and rules.shaozhuang_on_draw`` (until now only the
    structural check of ``SCORE_RULE_FIELDS`` noticed it, not a score)."""
    line = {"hand": "123m456m789m234p9p", "win_tile": "9p", "hui": "1s", "winner": 2, "dealer": 0}
    for rounds, sz in ((1, 1), (2, 2), (3, 4)):
        want = evaluate(dict(line, shaozhuang_rounds=rounds))
        assert want["shaozhuang"] == sz and want["scores"] == [-4 - 3 * sz, -4 + sz, 12 + sz, -4 + sz]
        got = evaluate(dict(line, shaozhuang_rounds=rounds, rules={"name": "beijing", "shaozhuang_on_draw": False}))
        assert got == want, rounds


def test_a_drawn_hands_shaozhuang_is_paid_times_base(new_game):
    """docs/RULES.md 6: "points = fan x base (底分)", and 6.1: "a drawn hand (荒牌): no hand settlement; 烧庄 is
    still settled". With base 500 one round of 烧庄 in a drawn hand moves 3 x 500 from the dealer and 500 to each
    other seat; the settlement's ``shaozhuang`` stays the line 2^(R-1) = 1 (docs/INTERFACES.md 1). Breakage
    caught: ``mj_env.hand_end.hand_results`` settling drawn hands with base 1 (a won hand's base was pinned, a
    drawn hand's was not)."""
    g = new_game(BEIJING.replace(base=500), **SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    count_live_draws_to_the_end(g)
    assert g.wins == [] and g.result == {"draw": True, "shaozhuang": 1, "scores": [-1500, 500, 500, 500]}
    assert settled(g) == [-1500, 500, 500, 500]


@pytest.mark.parametrize("all_pay, scores", [(True, [-15, -9, -9, 33]), (False, [-15, 0, 0, 15])])
def test_discard_bonus_all_pay_reaches_the_environments_settlement(new_game, all_pay, scores):
    """docs/RULES.md 6.2: "Discard win with X > 0: the discarder pays base + X and each other non-winner pays X"
    (**Decision**, field ``discard_bonus_all_pay``); 6.4: the settlement's ``input`` names such a field in its
    ``rules`` object. Seat 3 (46m 123p 456p 789p 22s, concealed) wins on the dealer's 5m: base 6 (a non-dealer on
    the dealer's discard) + X = 门清 2 + 一条龙 2 + 捉五 5 = 9. With the field off only the dealer pays. Breakage caught:
    ``mj_env.calculator.rules_json`` leaving the field out of the settlement input (the win was then settled as
    the preset's, every seat paying X), and the engine ignoring the field."""
    g = new_game(HEBEI.replace(discard_bonus_all_pay=all_pay), hands=ROB["hands"], draws=ROB["draws"],
                 tail=ROB["tail"])
    play(g, (0, "discard 5m"), (3, "win"))
    assert g.result["patterns"] == {"门清": 2, "一条龙": 2, "捉五": 5}
    assert settled(g) == scores
    if hasattr(g, "rewards"):  # the batched engine's settlement carries the calculator input
        assert g.result["input"]["rules"] == ("hebei" if all_pay else {"name": "hebei", "discard_bonus_all_pay": False})


def _alternatives():
    """(preset, field, value): every rule field that bears on the score (``SCORE_RULE_FIELDS``) set to a value
    other than its preset's, where the rule set takes it."""
    out = []
    for preset in PRESET_NAMES:
        base = get_rules(preset)
        for field in SCORE_RULE_FIELDS:
            now = getattr(base, field)
            for value in ([not now] if isinstance(now, bool) else [v for v in (0, 1, 2, 3, 4) if v != now]):
                try:
                    get_rules({"name": preset, field: value})
                except RuleError:
                    continue
                out.append((preset, field, value))
                break
    return out


def test_the_settlement_input_names_every_score_field_that_differs():
    """docs/RULES.md 6.4: "The settlement's `input` is a calculator line ...: `rules` is the preset name unless a
    rule field that bears on the score differs from the preset (then the object form of docs/INTERFACES.md 1, holding
    only such fields); `base` travels as its own field". One field at a time, for every field and preset where a
    rule set takes another value, with engine-only fields and ``base`` beside it that must not show. Breakage
    caught: ``rules_json`` leaving out any one field of ``SCORE_RULE_FIELDS``; 6 of the 15 such breakages (chi,
    seven_pairs, orphans_extra_dragon, self_draw_only_hui, four_hui_win, hubao) survived the suite, whose table in
    tests/test_calculator_hardening.py::test_rules_json_names_only_fields_that_bear_on_the_score names a few fields."""
    seen = _alternatives()
    assert {f for _, f, _ in seen} == set(SCORE_RULE_FIELDS)
    for preset, field, value in seen:
        rules = get_rules({"name": preset, field: value})  # (the object form pairs flowers with its 144 tiles)
        assert rules_json(rules) == {"name": preset, field: value}
        assert rules_json(rules.replace(base=500, hands_per_episode=3)) == {"name": preset, field: value}
        assert "legal" in evaluate({"rules": rules_json(rules), "hand": "123m456m789m123p5p", "win_tile": "5p"})
    for preset in PRESET_NAMES:
        assert rules_json(get_rules(preset, base=500, hands_per_episode=3)) == preset
