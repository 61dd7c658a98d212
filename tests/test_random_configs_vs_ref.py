"""Random rule configurations against the plain references, not only the three presets.

docs/RULES.md makes every **Decision** a field of the rule set (`DECISION_FIELDS`), and a user may combine
them, and the other fields too. Here:

- every combination of the Decision fields that the RuleSet accepts is played on the batched engine and on
  the reference engine (tests/ref_engine.py) by ``test_engine_vs_ref.play_both``, as matches of two hands so
  that ``dealer_rotation`` is compared too; the RuleSet accepts a Decision field exactly where its rules
  read it;
- rule sets drawn at random (`random_rules`: a preset, then every field, in random order, set to a random
  value where the RuleSet accepts it) are played the same way;
- the wins of those games are scored again by tests/ref_scoring.py (the engines both score with the
  calculator), and the calculator is compared with it on random hands under random settings of the rule
  fields that bear on the score (`SCORE_FIELDS`; the random hebei and quemen hands hold no chi, so a chi
  there is met only in the games).

The marked ``slow`` tests run many more of each.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from itertools import product

import pytest
import test_engine_vs_ref
from ref_scoring import (
    random_beijing_input,
    random_plain_input,
    ref_evaluate,
    ref_evaluate_hebei,
    ref_evaluate_quemen,
)
from scenario_helpers import BEIJING, names, play, tile
from test_engine_vs_ref import play_both
from walls import deals_first, four_hui_wall

from mj_env.calculator import evaluate, rules_json
from mj_env.rules import PRESET_NAMES, PRESETS, RuleError, get_rules
from mj_env.tiles import format_tiles, parse_tiles

DECISION_FIELDS = {  # docs/RULES.md's **Decision** items, and who reads them
    "dealer_rotation": (("previous", "next"), PRESET_NAMES),
    "multiple_winners": ((False, True), PRESET_NAMES),
    "hui_wild_in_melds": ((False, True), ("beijing",)),  # with 惠牌
    "shaozhuang_on_draw": ((False, True), ("beijing",)),  # with 烧庄
    "discard_bonus_all_pay": ((False, True), ("hebei",)),  # the hebei settlement
}

CHOICES = {  # values drawn for each field; "flowers" sets n_tiles to match
    "chi": [True, False], "hui": [True, False], "wall_layout": ["indicator", "tail"],
    "reserve": [0, 1, 2, 4, 10, 14, 20], "tail_stacks_kept": [0, 1, 3, 6, 10],
    "seven_pairs": [True, False], "thirteen_orphans": [True, False], "orphans_extra_dragon": [True, False],
    "lack_suit": [True, False], "ting": [True, False], "multiple_winners": [True, False],
    "discard_win_concealed_only": [True, False], "self_draw_only_hui": [0, 1, 2, 3, 4],
    "four_hui_win": [True, False], "hui_wild_in_melds": [True, False], "shaozhuang": [True, False],
    "shaozhuang_on_draw": [True, False], "hubao": [True, False], "hubao_claims": [1, 2, 3, 4],
    "dealer_rotation": ["previous", "next"], "first_dealer": ["east", "random"],
    "discard_bonus_all_pay": [True, False], "kong_payments": [True, False],
    "kong_payments_on_draw": [True, False], "base": [1, 3, 500], "flowers": [True, False],
    "hands_per_episode": [1, 1, 2, 3],
}

SCORE_FIELDS = {  # the score-bearing fields (mj_env.calculator.SCORE_RULE_FIELDS) of each preset
    "beijing": ("chi", "hui", "seven_pairs", "thirteen_orphans", "orphans_extra_dragon", "lack_suit",
                "discard_win_concealed_only", "self_draw_only_hui", "four_hui_win", "hui_wild_in_melds",
                "shaozhuang", "hubao"),
    "hebei": ("chi", "lack_suit", "discard_win_concealed_only", "seven_pairs", "thirteen_orphans",
              "orphans_extra_dragon", "discard_bonus_all_pay"),
    "quemen": ("chi", "discard_win_concealed_only", "seven_pairs", "lack_suit", "flowers", "ting"),
}


def random_rules(rng: random.Random, preset=None, fields=CHOICES):
    """A valid rule set: ``preset`` (a name or a RuleSet; None: a preset at random), then each of ``fields`` in random order, twice over,
    set to a random value of `CHOICES` wherever the RuleSet accepts it (it refuses a field its rules would
    ignore, so the order matters, and the second pass reaches what the first opened)."""
    rules = get_rules(preset or rng.choice(PRESET_NAMES))
    order = list(fields)
    for _ in range(2):
        rng.shuffle(order)
        for name in order:
            value = rng.choice(CHOICES[name])
            change = {name: value} if name != "flowers" else {"flowers": value, "n_tiles": 144 if value else 136}
            try:
                rules = rules.replace(**change)
            except RuleError:
                pass
    return rules


def decision_configs():
    """Every combination of the Decision fields' values that the RuleSet accepts, on every preset."""
    out = []
    for preset in PRESET_NAMES:
        for values in product(*(v for v, _ in DECISION_FIELDS.values())):
            try:
                out.append(get_rules(preset, **dict(zip(DECISION_FIELDS, values))))
            except RuleError:
                pass
    return out


def test_decision_fields_are_accepted_exactly_where_their_rules_read_them():
    accepted = {(r.name, tuple(getattr(r, f) for f in DECISION_FIELDS)) for r in decision_configs()}
    for preset in PRESET_NAMES:
        for values in product(*(v for v, _ in DECISION_FIELDS.values())):
            read = all(preset in who or value == getattr(PRESETS[preset], name)
                       for (name, (_, who)), value in zip(DECISION_FIELDS.items(), values))
            assert ((preset, values) in accepted) == read, (preset, values)
    assert len(accepted) == 16 + 8 + 4  # beijing 2^4, hebei 2^3, quemen 2^2


def test_play_both_compares_a_hand_that_ends_at_the_deal(monkeypatch):
    # the harness: table 0's dealer is dealt all four 惠牌, so its hand ends at the reset (found with random
    # rule sets: play_both took the reference's END for a disagreement)
    monkeypatch.setattr(test_engine_vs_ref, "shuffled_walls",
                        deals_first(test_engine_vs_ref.shuffled_walls, four_hui_wall(), 1))
    settled = play_both(get_rules("beijing"), 3, 0)
    assert settled[0]["patterns"]["四惠牌"] == 8


@pytest.mark.parametrize("rules", decision_configs(),
                         ids=lambda r: "-".join([r.name] + [f"{f}={getattr(r, f)}" for f in DECISION_FIELDS
                                                          if getattr(r, f) != getattr(PRESETS[r.name], f)]))
def test_every_decision_combination_matches_the_reference_engine(rules):
    play_both(rules.replace(hands_per_episode=2), 6, 77)


REF_SCORERS = {"beijing": ref_evaluate, "hebei": ref_evaluate_hebei, "quemen": ref_evaluate_quemen}


def score_wins_by_the_reference(settlements) -> int:
    """Each win among ``settlements`` scored again from its calculator input by tests/ref_scoring.py, where
    that reads every rule field the input names: legality, fan, patterns (any of the reference's equal-fan
    sets), 烧庄 and the win's own scores (``hand_scores`` where kong payments are added) must agree. The
    engines score with the calculator, so this is what checks their scores independently. Returns how many
    wins were compared."""
    compared = 0
    for settlement in settlements:
        for win in settlement.get("wins", [settlement] if "input" in settlement else []):
            obj = win["input"]
            name = obj["rules"] if isinstance(obj["rules"], str) else obj["rules"]["name"]
            ties = []
            want = ref_evaluate(obj) if name == "beijing" else REF_SCORERS[name](obj, ties)
            got = dict(win, scores=win.get("hand_scores", win["scores"]))
            line = json.dumps(obj, ensure_ascii=False)
            assert got["legal"] is want["legal"] is True, (line, got, want)
            assert got["patterns"] in (ties or [want["patterns"]]), (line, got, want)
            assert [got[k] for k in ("fan", "shaozhuang", "scores")] == [want[k] for k in ("fan", "shaozhuang", "scores")], \
                (line, got, want)
            compared += 1
    return compared


@pytest.mark.parametrize("chunk", range(4))
def test_random_rule_sets_match_the_reference_engine(chunk):
    for i in range(6):
        rng = random.Random(100 * chunk + i)
        settled = play_both(random_rules(rng), 8, 500 + 100 * chunk + i, claim_bias=rng.choice([0.3, 0.5, 0.8]))
        score_wins_by_the_reference(settled)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_many_random_rule_sets_match_the_reference_engine(chunk):
    compared = 0
    for i in range(100):
        rng = random.Random(10_000 + 1000 * chunk + i)
        settled = play_both(random_rules(rng), 16, 20_000 + 1000 * chunk + i, claim_bias=rng.choice([0.3, 0.5, 0.8]))
        compared += score_wins_by_the_reference(settled)
    assert compared >= 50, compared


# ---------------------------------------------------------------------------------------------
# The reference engine read 缺一门 from its melds' face values: a 惠牌 filling a meld counted as the tile it
# stands for, while a concealed 惠牌 counts as itself. The batched engine and the calculator count every
# tile as it is (docs/RULES.md 5: the hand "holds at most two of the three suits"; only 清一色 says
# "wildcards as interpreted"); found by the random rule sets above (beijing with lack_suit and
# hui_wild_in_melds).

@pytest.mark.parametrize("lack_suit", [True, False])
def test_a_hui_filling_a_pong_counts_as_its_own_suit_for_lacking_a_suit(new_game, lack_suit):
    # 惠牌 1m (indicator 9m). Seat 1 pongs 7p with its one natural 7p and the 1m, then draws the third 1z:
    # 123p 456p 99s 111z + the pong, a winning shape of p, s and honors; but the pong holds a 1m, so the
    # hand holds all three suits, and under 缺一门 it is no win
    rules = BEIJING.replace(hui_wild_in_melds=True, lack_suit=lack_suit)
    hands = {0: "7p222m333m444s555s6z", 1: "7p1m123p456p99s11z2z", 2: "555m666m777s888s3z",
             3: "888m999m222s333s4z"}
    g = new_game(rules, hands=hands, draws="7z7z7z1z", indicator="9m")
    play(g, (0, "discard 7p"), (1, "pong"))
    assert g.hands[1][tile("1m")] == 0 and g.hands[1][tile("7p")] == 0
    play(g, (1, "discard 2z"), (2, "discard 7z"), (3, "discard 7z"), (0, "discard 7z"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert ("win" in names(g)) is not lack_suit


# ---------------------------------------------------------------------------------------------
# The calculator against tests/ref_scoring.py under random rule fields.

def _hui_into_melds(rng: random.Random, obj: dict) -> bool:
    """Some claimed melds of ``obj`` get one or more of their tiles replaced by the 惠牌 (hui_wild_in_melds);
    False when that leaves more than four of a kind."""
    hui = parse_tiles(obj["hui"])[0]
    for meld in obj["melds"]:
        if meld["type"] == "concealed_kong" or rng.random() < 0.2:
            continue
        tiles = parse_tiles(meld["tiles"])
        if meld["type"] in ("kong", "added_kong") and len(tiles) == 3:  # a kong written short
            tiles = tiles + tiles[:1]
        for i in rng.sample(range(len(tiles)), rng.choice([1, 1, 2] if len(tiles) == 3 else [1, 2, 3])):
            tiles[i] = hui
        meld["tiles"] = format_tiles(tiles)
    held = parse_tiles(obj["hand"]) + parse_tiles(obj["win_tile"])
    held += [t for m in obj["melds"] for t in parse_tiles(m["tiles"])]
    return max(Counter(held).values()) <= 4


def random_line(rng: random.Random, preset: str):
    """A calculator line with random values of the preset's `SCORE_FIELDS`; None when the hand drawn
    cannot take the 惠牌 into its melds."""
    if preset == "beijing" and rng.random() < 0.5:  # more claimed melds holding a 惠牌, won on a discard too
        fixed = ("hui", "hui_wild_in_melds", "discard_win_concealed_only", "chi", "lack_suit")
        rules = random_rules(rng, get_rules("beijing", hui_wild_in_melds=True, discard_win_concealed_only=False),
                             [f for f in SCORE_FIELDS[preset] if f not in fixed])
    else:
        rules = random_rules(rng, preset, SCORE_FIELDS[preset])
    if preset == "beijing":
        obj = random_beijing_input(rng)
        if not rules.hui:
            obj["hui"] = None
        if rules.hui_wild_in_melds and obj["hui"] and not _hui_into_melds(rng, obj):
            return None
        if not rules.shaozhuang:
            obj["shaozhuang_rounds"] = 0
        if not rules.hubao:
            obj["hubao"] = []
    else:
        obj = random_plain_input(rng, preset)
        if preset == "quemen" and not rules.flowers:
            obj["flowers"] = 0
        if preset == "quemen" and not rules.ting:
            obj["ting"] = False
    obj["rules"] = rules_json(rules)
    return obj


def compare_lines(seed: int, n: int) -> Counter:
    """``n`` random lines (presets in turn, beijing twice as often): the calculator's output against the
    reference's (where the reference finds several pattern sets of equal fan, any of them)."""
    rng = random.Random(seed)
    seen = Counter()
    for i in range(n):
        preset = ("beijing", "beijing", "hebei", "quemen")[i % 4]
        obj = random_line(rng, preset)
        if obj is None:
            continue
        line = json.dumps(obj, ensure_ascii=False)
        got = evaluate(obj)
        ties = []
        want = (ref_evaluate(obj) if preset == "beijing" else
                (ref_evaluate_hebei if preset == "hebei" else ref_evaluate_quemen)(obj, ties))
        assert "error" not in got and got["legal"] == want["legal"], (line, got, want)
        if got["legal"]:
            if len(ties) > 1:  # equal fan read two ways: docs/RULES.md leaves the choice open
                assert got["patterns"] in ties and (got["fan"], got["scores"]) == (want["fan"], want["scores"]), line
            else:
                assert got == want, (line, got, want)
        seen[preset, got["legal"]] += 1
        hui = obj.get("hui")
        if got["legal"] and hui and any(hui in m["tiles"] for m in obj["melds"] if m["type"] != "concealed_kong"):
            seen["惠牌 in a meld"] += 1
    return seen


def test_random_rule_fields_score_as_the_reference():
    seen = compare_lines(1, 400)
    assert min(seen.values()) >= 8 and len(seen) == 7, seen


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_many_random_rule_fields_score_as_the_reference(chunk):
    seen = compare_lines(1000 + chunk, 2500)
    assert min(seen.values()) >= 50 and len(seen) == 7, seen


def test_hui_in_a_pong_is_read_as_the_tile_it_stands_for():
    # docs/RULES.md 6.1 清一色: "all 14 tiles of one suit (wildcards as interpreted), declared melds included";
    # the pong 7m7m + 惠牌 1s is a pong of 7m under hui_wild_in_melds, so the hand is of one suit, with 一条龙
    obj = {"rules": {"name": "beijing", "hui_wild_in_melds": True}, "hand": "12345678m55m", "win_tile": "9m",
           "melds": [{"type": "pong", "tiles": "77m1s", "from": 2}], "hui": "1s", "winner": 0, "dealer": 1}
    got = evaluate(obj)
    assert got == ref_evaluate(obj)
    assert got["patterns"] == {"一条龙": 3, "清一色": 6}
