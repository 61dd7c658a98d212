"""docs/RULES.md 6.4, "Readings fixed for every rule set": the sides of each reading that the
scripted scenarios of tests/test_scenarios.py leave out.

Each scenario runs on both engines (the reference ``RefGame`` and the batched engine through
``FastGame``), built with ``walls.build_wall`` as in tests/test_scenarios.py. Beijing scripts use
indicator 9s, so the 惠牌 is 1s. Expected fan and scores are worked out from docs/RULES.md 6.

- 烧庄: a concealed kong by the dealer between two rounds keeps it; claims offered and declined
  keep it; an added kong between the round's discards keeps it (only reachable with an injected
  pong: any pong is a claim, and a claim ends 烧庄 first).
- 四惠牌: the fourth 惠牌 as the replacement of an added kong, robbing window or not.
- 地和 / 地胡: void after another seat's pong or exposed kong, and after the winner's own
  concealed kong, in all three rule sets; the same layout without the claim scores it. The
  calculator voids a line's first_turn flag when the winner's own melds show a pong or kong.
- 报听: not with a discard whose only waits would hold three suits.
- hebei kongs: the very last undrawn tile, in a kept stack, may still be a kong replacement; none
  is left after it.
- settlements: ``scores`` = ``hand_scores`` + ``kong_scores``; ``input.rules`` in the object form
  only for score fields; ``base`` its own field; the ``input`` piped to ``python -m mj_env.score``
  gives the settlement back (with ``hand_scores`` as its ``scores``), all through the AEC env.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from fast_game import FastGame
from ref_engine import END
from scenario_helpers import (
    BEIJING,
    HEBEI,
    QUEMEN,
    count_live_draws_to_the_end,
    meld,
    names,
    pass_and_discard_drawn,
    play,
    settled,
    tile,
)
from walls import build_wall

import mj_env
from mj_env import actions as A
from mj_env import claims
from mj_env.rules import get_rules
from mj_env.state import MELD_PONG
from mj_env.tiles import CODES

RULES = {"beijing": BEIJING, "hebei": HEBEI, "quemen": QUEMEN}


# ---------------------------------------------------------------------------------------------
# 烧庄: only a claim or a discard that breaks the round ends it; kongs do not
# ---------------------------------------------------------------------------------------------

# Round 1 is four 5z. The dealer then draws its fourth 6m, kongs it, discards the replacement 7z,
# and the three others each draw and discard a 7z: round 2. No hand holds a 惠牌 (1s).
SZ_DEALER_KONG = {"hands": {0: "666m258p369s1234z5z", 1: "147m258p369s1234z", 2: "258m147p258s1234z",
                            3: "389m369p347s1234z"},
                  "draws": "5z5z5z6m7z7z7z", "tail": "7z"}


def test_shaozhuang_survives_the_dealers_concealed_kong_between_rounds(new_game):
    g = new_game(**SZ_DEALER_KONG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tile("6m")) and "kong 6m" in names(g)
    play(g, (0, "kong 6m"))
    assert (g.turn_source, g.turn_tile, g.shaozhuang_alive) == ("kong", tile("7z"), True)
    play(g, (0, "discard 7z"), (1, "discard 7z"), (2, "discard 7z"), (3, "discard 7z"))
    assert g.shaozhuang_rounds == 2 and g.shaozhuang_alive
    count_live_draws_to_the_end(g)
    # 2 rounds: the line is 2^(2-1) = 2; the dealer pays 3 x 2, the others get 2 each
    assert g.wins == [] and g.result == {"draw": True, "shaozhuang": 2, "scores": [-6, 2, 2, 2]}


# A round of 5m in which claims are offered and declined: seat 3 (46m, concealed) may win on each
# 5m, seat 1 may chi the dealer's, seat 3 may chi seat 2's. Nobody holds two 5m (a round uses all
# four), so a pong or exposed kong can never be offered during a round.
SZ_PASSED = {"hands": {0: "19m258p369s1234z7z5m", 1: "46m147p258s1234z5z", 2: "39m369p47s1234z6z7z",
                       3: "46m123p456p789p22s"}, "draws": "5m5m5m"}


def test_shaozhuang_survives_claims_that_are_declined(new_game):
    g = new_game(**SZ_PASSED)
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "chi 456m"])
    play(g, (1, "pass"), (1, "discard 5m"), (3, "pass"), (2, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass", "chi 456m"])
    play(g, (3, "pass"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 3, tile("5m")) and "win" in names(g)
    play(g, (3, "discard 5m"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive
    count_live_draws_to_the_end(g)
    assert g.wins == [] and g.result == {"draw": True, "shaozhuang": 1, "scores": [-3, 1, 1, 1]}


def test_shaozhuang_survives_an_added_kong_between_the_rounds_discards():
    """In play an added kong cannot come while 烧庄 lives (it needs a pong, and a pong is a claim,
    which ends 烧庄). Seat 2's 555m is therefore turned into a pong from the dealer by hand, in the
    batched engine's state, before the first discard; the round then runs 5z, 5z, [seat 2 draws
    the fourth 5m, adds it to the pong, takes the replacement 5z from the reserve], 5z, 5z."""
    g = FastGame(BEIJING, build_wall(BEIJING, indicator="9s", draws="5z5m5z", tail="5z", hands={
        0: "147m258p369s1234z5z", 1: "11m22m33p44p55s66s7z", 2: "555m123p789p345s6z",
        3: "77m88m66p77p88s99s2z"}), dealer=0)
    st, five = g.engine.state, tile("5m")
    st.hands[0, 2, five] -= 3
    st.meld_counts[0, 2, five] += 3
    claims.add_meld(st, np.array([0]), np.array([2]), MELD_PONG, np.array([five]), np.array([0]))
    st.ponged[0, 2, five] = True
    assert (g.phase, g.to_act, g.shaozhuang_alive) == ("TURN", 0, True)
    play(g, (0, "discard 5z"), (1, "discard 5z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 2, five) and "kong 5m" in names(g)
    play(g, (2, "kong 5m"))  # nobody can rob 5m: the kong completes at once
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 2, "kong", tile("5z"))
    assert g.melds[2] == [meld("added_kong", "5555m", 0)] and g.shaozhuang_alive
    play(g, (2, "discard 5z"), (3, "discard 5z"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive


# ---------------------------------------------------------------------------------------------
# 四惠牌: also on the replacement of an added kong
# ---------------------------------------------------------------------------------------------

# Seat 1 (three 1s) pongs the dealer's 5m, later draws the fourth 5m and adds it to the pong; the
# replacement, wall[-2], is the fourth 1s. With "46m" seat 3 waits on 5m and may rob the kong first.
def four_hui_added_kong(seat3: str) -> dict:
    return {"hands": {0: "111z222z333z44z5m", 1: "55m111s789p234s6z7z", 2: "11m22m33m77s88s99s6z",
                      3: seat3 + "123p456p789p22s"},
            "draws": "5z5z5z5m", "tail": "1s"}


@pytest.mark.parametrize("robbable", [True, False], ids=["rob-window-passed", "no-rob-window"])
def test_four_hui_wins_on_the_replacement_of_an_added_kong(new_game, robbable):
    g = new_game(**four_hui_added_kong("46m" if robbable else "47m"))
    play(g, (0, "discard 5m"))
    if robbable:
        play(g, (3, "pass"))
    play(g, (1, "pong"), (1, "discard 7z"), (2, "discard 5z"), (3, "discard 5z"), (0, "discard 5z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("5m")) and "kong 5m" in names(g)
    # (the three 惠牌 would also make a self-draw win now; seat 1 kongs instead)
    play(g, (1, "kong 5m"))
    if robbable:
        assert (g.phase, g.to_act, names(g)) == ("ROB", 3, ["win", "pass"])
        play(g, (3, "pass"))
    # no decision is asked: the replacement 1s is the fourth 惠牌
    assert g.phase == END and g.winners == [1]
    (w,) = g.wins
    assert (w["win_tile"], w["discarder"]) == ("1s", None)
    assert w["melds"] == [{"type": "added_kong", "tiles": "5555m", "from": 0}]
    assert w["situation"]["after_kong"] is True and w["situation"]["first_turn"] is False
    # 四惠牌 8 alone (a non-dealer's self-draw: no 庄); self-draw 3 x 8
    assert g.result["patterns"] == {"四惠牌": 8} and settled(g) == [-8, 24, -8, -8]


# ---------------------------------------------------------------------------------------------
# 地和 / 地胡: void after anyone's chi, pong or kong, in every rule set
# ---------------------------------------------------------------------------------------------

# The dealer discards 1z; seat 2 (111z) passes, pongs or kongs it. Seat 3 has not discarded and
# self-draws 4p (123456789m 11p 23p). After "pass", seats 1 and 2 first draw and let go an 8s.
DIHE_OTHER = {0: "19m19p19s1234567z1m", 1: "258m369p147s2345z", 2: "111z258m369p147s7z", 3: "123m456m789m11p23p"}
# (patterns, scores of the win alone) with 地和 (pass) and without it (pong, kong); hebei has no
# such pattern, so only the first_turn flag changes there.
DIHE_OTHER_RESULTS = {
    # 门清无惠 1 + 一条龙 3 (+ 地和 8); self-draw: 3 x F
    "beijing": (({"门清无惠": 1, "一条龙": 3, "地和": 8}, [-12, -12, -12, 36]),
                ({"门清无惠": 1, "一条龙": 3}, [-4, -4, -4, 12])),
    # non-dealer self-draw: dealer 4 + X, others 2 + X; X = 门清 2 + 一条龙 2
    "hebei": (({"门清": 2, "一条龙": 2}, [-8, -6, -6, 20]), ({"门清": 2, "一条龙": 2}, [-8, -6, -6, 20])),
    # 平胡 1 (+ 地胡 2); each other pays the total
    "quemen": (({"平胡": 1, "地胡": 2}, [-3, -3, -3, 9]), ({"平胡": 1}, [-1, -1, -1, 3])),
}
# the exposed kong on the dealer's discard: the discarder pays 3 (hebei), 1 (quemen)
EXPOSED_KONG_PAYMENT = {"beijing": [0, 0, 0, 0], "hebei": [-3, 0, 3, 0], "quemen": [-1, 0, 1, 0]}


@pytest.mark.parametrize("claim", ["pass", "pong", "kong"])
@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_dihe_is_void_after_another_seats_pong_or_exposed_kong(new_game, preset, claim):
    rules = RULES[preset]
    g = new_game(rules, hands=DIHE_OTHER, draws="8s8s4p" if claim == "pass" else "4p", tail="6z")
    play(g, (0, "discard 1z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong", "kong"])
    play(g, (2, claim))
    if claim == "pass":
        play(g, (1, "discard 8s"), (2, "discard 8s"))
    else:
        if claim == "kong":
            assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 2, "kong", tile("6z"))
        play(g, (2, "discard 7z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 3, tile("4p")) and "win" in names(g)
    play(g, (3, "win"))
    (w,) = g.wins
    assert w["discarder"] is None and w["situation"]["first_turn"] is (claim == "pass")
    patterns, hand = DIHE_OTHER_RESULTS[preset][claim != "pass"]
    assert g.result["patterns"] == patterns
    kongs = EXPOSED_KONG_PAYMENT[preset] if claim == "kong" else [0, 0, 0, 0]
    assert settled(g) == [a + b for a, b in zip(hand, kongs)]


# Seat 1 kongs its four 5m on its first draw (7z) and self-draws the replacement 7z:
# 123456789p 77z + a concealed kong, before its first discard, but after a kong (its own).
DIHE_OWN = {"hands": {0: "19m19p19s1234567z1m", 1: "5555m123p456p789p", 2: "11m22m33m44p55p66p7z",
                      3: "77m88m99m77p88p99p6z"}, "draws": "7z", "tail": "7z"}
DIHE_OWN_RESULTS = {
    # 门清无惠 1 + 一条龙 3 + 杠上开花 5 = 9, no 地和 8; self-draw 3 x 9 (beijing: no kong payments)
    "beijing": ({"门清无惠": 1, "一条龙": 3, "杠上开花": 5}, [-9, 27, -9, -9], [0, 0, 0, 0]),
    # base 4/2/2 + X (门清 2 + 杠上开花 2 + 一条龙 2); concealed kong: each other pays 2
    "hebei": ({"门清": 2, "杠上开花": 2, "一条龙": 2}, [-10, 26, -8, -8], [-2, 6, -2, -2]),
    # 平胡 1 + 杠上开花 1 = 2, no 地胡 2; concealed kong: each other pays 1
    "quemen": ({"平胡": 1, "杠上开花": 1}, [-2, 6, -2, -2], [-1, 3, -1, -1]),
}


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_dihe_is_void_after_the_winners_own_concealed_kong(new_game, preset):
    g = new_game(RULES[preset], **DIHE_OWN)
    play(g, (0, "discard 1z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("7z"))
    assert "kong 5m" in names(g) and "win" not in names(g)
    play(g, (1, "kong 5m"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 1, "kong", tile("7z")) and "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["situation"]["first_turn"] is False and w["situation"]["after_kong"] is True
    patterns, hand, kongs = DIHE_OWN_RESULTS[preset]
    res = g.result
    assert res["patterns"] == patterns
    assert settled(g) == [a + b for a, b in zip(hand, kongs)]
    if isinstance(g, FastGame) and any(kongs):  # docs/RULES.md 6.4: scores = hand_scores + kong payments
        assert (res["hand_scores"], res["kong_scores"]) == (hand, kongs)


@pytest.mark.parametrize("preset, pattern", [("beijing", "地和"), ("quemen", "地胡")], ids=["beijing", "quemen"])
@pytest.mark.parametrize("melds", ["none", "concealed_kong", "pong"])
def test_calculator_first_turn_flag_is_void_with_the_winners_own_melds(preset, pattern, melds):
    # The calculator line cannot see other seats' melds (the engine clears first_turn for them);
    # the winner's own chi, pong or kong it can see, and then 地和 / 地胡 is void even when the
    # line says first_turn.
    from mj_env.calculator import evaluate

    line = {"rules": preset, "hand": "123456789p7z", "win_tile": "7z", "winner": 1, "dealer": 0,
            "situation": {"first_turn": True, "after_kong": melds == "concealed_kong"}}
    if preset == "beijing":
        line["hui"] = "1s"
    if melds == "none":
        line["hand"] = "123456789p555m7z"
    else:
        line["melds"] = [{"type": "concealed_kong", "tiles": "5555m"} if melds == "concealed_kong"
                         else {"type": "pong", "tiles": "555m", "from": 0}]
    out = evaluate(line)
    assert out["legal"] is True and (pattern in out["patterns"]) is (melds == "none")


@pytest.mark.parametrize("preset, winner, pattern", [("beijing", 0, "天和"), ("beijing", 1, "地和"),
                                                     ("quemen", 0, "天胡"), ("quemen", 1, "地胡")])
@pytest.mark.parametrize("flag", ["after_kong", "robbed_kong"])
def test_calculator_first_turn_flag_is_void_after_a_kong_the_line_names(preset, winner, pattern, flag):
    # A win on a kong's replacement or on a robbed kong says that a kong was declared: 6.4 voids
    # 天和 / 地和 / 地胡 then, even without a kong among the winner's melds (an outside audit found the
    # calculator scoring 地和 + 杠上开花 for such a line). The line without the flag still scores it.
    from mj_env.calculator import evaluate

    line = {"rules": preset, "hand": "123m456m789m1z222z", "win_tile": "1z", "winner": winner, "dealer": 0}
    if preset == "beijing":
        line["hui"] = "3z"
    plain = evaluate({**line, "situation": {"first_turn": True}})
    assert plain["legal"] is True and pattern in plain["patterns"]
    if flag == "robbed_kong":  # a robbed kong is a win on another seat's tile
        line["discarder"] = 3 if winner == 0 else 0
    out = evaluate({**line, "situation": {"first_turn": True, flag: True}})
    assert out["legal"] is True and pattern not in out["patterns"], out
    if flag == "after_kong":
        assert "杠上开花" in out["patterns"]


@pytest.mark.parametrize("preset", ["beijing", "hebei"])
def test_calculator_a_robbed_kong_is_no_haidi_win(preset):
    # 海底捞月 is a self-draw of the last live tile or a win on the discard made after drawing it
    # (docs/RULES.md 6.1, 6.2); a robbed kong is neither, whatever last_tile says (the engine never sets
    # both: a kong needs a tile left to replace it).
    from mj_env.calculator import evaluate

    line = {"rules": preset, "hand": "123m456p789s11z22z", "win_tile": "2z", "winner": 2, "dealer": 0,
            "discarder": 1}
    if preset == "beijing":
        line["hui"] = "3z"
    on_discard = evaluate({**line, "situation": {"last_tile": True}})
    robbed = evaluate({**line, "situation": {"last_tile": True, "robbed_kong": True}})
    assert "海底捞月" in on_discard["patterns"] and "海底捞月" not in robbed["patterns"], robbed

# ---------------------------------------------------------------------------------------------
# 报听: only with a discard that leaves the hand waiting on a tile that can win
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pair, ting", [("33z", ["ting 7z"]), ("33s", [])], ids=["two-suits", "three-suits"])
def test_quemen_ting_needs_a_wait_that_lacks_a_suit(new_game, pair, ting):
    # Discarding 7z leaves 123m 456p 789p 11z + the pair: a shape waiting on 1z or the pair's
    # kind. With 33s every such win holds three suits, so it is no wait (缺一门) and no 报听.
    g = new_game(QUEMEN, hands={0: "123m456p789p11z" + pair + "7z"})
    assert (g.phase, g.to_act) == ("TURN", 0)
    assert [n for n in names(g) if n.startswith("ting")] == ting
    if not ting:  # docs/RULES.md 7: refused, naming the action, and nothing changes
        before = (g.phase, g.to_act, [list(h) for h in g.hands], g.legal(), g.ting_declared)
        with pytest.raises(A.ActionError, match="ting 7z|illegal"):
            g.step(A.index("ting 7z"))
        assert (g.phase, g.to_act, [list(h) for h in g.hands], g.legal(), g.ting_declared) == before
        return
    play(g, (0, "ting 7z"))
    assert g.ting_declared == [True, False, False, False]


# ---------------------------------------------------------------------------------------------
# quemen kongs (docs/game_flow.md, our reading): legal only while a tile is left to replace them
# ---------------------------------------------------------------------------------------------

def test_quemen_no_kong_on_the_last_tile(new_game):
    # build_wall seed 0: seat 3 draws the last tile, a 4z, when every seat passes and discards what it
    # draws; the other copies of 4z are moved into seat 3's deal, so it then holds four of them
    wall = build_wall(QUEMEN, dealer=0, seed=0)
    for copy, slot in ((52, 40), (86, 41)):
        assert wall[copy] == tile("4z") and wall[slot] != tile("4z")
        wall[copy], wall[slot] = wall[slot], wall[copy]
    g = new_game(QUEMEN, wall=wall)
    while not (g.phase == "TURN" and not g.undrawn()):
        pass_and_discard_drawn(g)
    assert (g.to_act, g.turn_tile, g.hands[3][tile("4z")]) == (3, tile("4z"), 4)
    assert not g.kong_possible() and not [n for n in names(g) if n.startswith("kong")]
    play(g, (3, "discard 4z"))
    assert g.phase == END and g.wins == [] and g.kongs == []
    assert settled(g) == [0, 0, 0, 0]


# hebei kongs: legal while an undrawn tile remains, down to the kept stacks' last tile
# ---------------------------------------------------------------------------------------------

def test_hebei_kong_on_the_very_last_undrawn_tile(new_game):
    # One stack kept (tail_stacks_kept=1), so the kept stacks can be used up by a script: seat 1
    # draws the last live tile (2 undrawn tiles left), kongs 5m (replacement wall[-1] = 6m, one
    # left), kongs 6m (replacement wall[-2] = 7m, the very last undrawn tile), and may not kong
    # 7m, nor seat 2 its 111z on seat 1's 1z.
    rules = HEBEI.replace(tail_stacks_kept=1)
    g = new_game(rules, hands={0: "19m147p258s234567z", 1: "5555m666m777m1z", 2: "348m369p147s111z2z",
                               3: "248m258p369s3456z"}, tail="6m7m")
    while not (g.phase == "TURN" and g.drew_last):
        pass_and_discard_drawn(g)
    assert (g.to_act, g.live_next, g.can_draw(), len(g.undrawn())) == (1, 134, False, 2)
    assert g.kong_possible() and "kong 5m" in names(g)
    play(g, (1, "kong 5m"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile, len(g.undrawn())) == ("TURN", 1, "kong", tile("6m"), 1)
    assert g.kong_possible() and "kong 6m" in names(g)
    play(g, (1, "kong 6m"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile, g.undrawn()) == ("TURN", 1, "kong", tile("7m"), [])
    assert not g.kong_possible() and "kong 7m" not in names(g)
    play(g, (1, "discard 1z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])  # no exposed kong either
    play(g, (2, "pass"))
    assert g.phase == END and g.wins == [] and len(g.kongs) == 2
    assert settled(g) == [0, 0, 0, 0]  # hebei: kong payments are void in a drawn hand


# ---------------------------------------------------------------------------------------------
# Settlements through the AEC environment: scores / hand_scores, input.rules, base
# ---------------------------------------------------------------------------------------------

KONG_WIN = ({0: "5555m123p456p789p7z"}, "7z", ["kong 5m", "win"])  # the dealer wins on its replacement
TIANHE = ({0: "123m456m789p234s55z"}, "", ["win"])                   # 天和
# (preset, overrides, layout, want input.rules, want hand_scores (None: no kong payments), kong_scores, scores)
AEC_CASES = [
    # dealer self-draw: each pays 4 + X (门清 2 + 杠上开花 2 + 一条龙 2) = 10; concealed kong 2 each; x base 3
    ("hebei", {"discard_bonus_all_pay": False, "base": 3}, KONG_WIN, {"name": "hebei", "discard_bonus_all_pay": False},
     [90, -30, -30, -30], [18, -6, -6, -6], [108, -36, -36, -36]),
    ("hebei", {"tail_stacks_kept": 5, "base": 2}, KONG_WIN, "hebei",
     [60, -20, -20, -20], [12, -4, -4, -4], [72, -24, -24, -24]),
    # 天和 10 + 门清无惠 1 = 11, self-draw 3 x 11, x base 5
    ("beijing", {"hui_wild_in_melds": True, "base": 5}, TIANHE, {"name": "beijing", "hui_wild_in_melds": True},
     None, None, [165, -55, -55, -55]),
    ("beijing", {"reserve": 10, "base": 5}, TIANHE, "beijing", None, None, [165, -55, -55, -55]),
]


def aec_settlement(preset, overrides, layout):
    hands, tail, moves = layout
    rules = get_rules(preset, **overrides)
    wall = build_wall(rules, hands=hands, tail=tail, **({"indicator": "9s"} if rules.hui else {}))
    e = mj_env.env(rules=preset, **overrides)
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": 0})
    for move in moves:
        assert e.agent_selection == "player_0"
        e.step(A.index(move))
    assert all(e.terminations.values())
    s = e.infos["player_0"]["settlement"]
    assert all(e.infos[a]["settlement"] == s for a in e.agents)  # each agent its own copy of one settlement
    assert [e.rewards[a] for a in e.agents] == s["scores"]
    return s


def test_aec_settlement_scores_and_input_pipe_through_the_calculator():
    want_out, lines = [], []
    for preset, overrides, layout, rules_form, hand, kongs, scores in AEC_CASES:
        s = aec_settlement(preset, overrides, layout)
        obj = s["input"]
        assert obj["rules"] == rules_form and obj["base"] == overrides["base"]
        assert "base" not in (obj["rules"] if isinstance(obj["rules"], dict) else {})
        assert s["scores"] == scores
        calc = {k: v for k, v in s.items() if k not in ("input", "hand_scores", "kong_scores")}
        if hand is None:
            assert "hand_scores" not in s and "kong_scores" not in s
        else:
            assert (s["hand_scores"], s["kong_scores"]) == (hand, kongs)
            calc["scores"] = hand  # the calculator leaves kong payments out
        want_out.append(calc)
        lines.append(json.dumps(obj, ensure_ascii=False))
    out = subprocess.run([sys.executable, "-m", "mj_env.score"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, encoding="utf-8", timeout=60, check=True).stdout
    assert [json.loads(line) for line in out.splitlines()] == want_out
