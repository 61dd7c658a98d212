"""Scripted scenarios from explicit walls, run on both engines.

Every scenario builds a wall with ``walls.build_wall`` and plays named moves; it asserts the
legal actions by name, the seat asked next, and for a hand that ends the settlement and the
final scores. The ``new_game`` fixture runs each scenario on the plain reference engine
(``RefGame``, tests/ref_engine.py) and on the batched engine twice (tests/fast_game.py): ``FastGame``, a
one-table ``Engine`` (its one-table paths), and ``BatchedFastGame``, table 0 of a three-table one whose
other tables play other walls (the batched paths); on the batched engine the rewards its steps returned must equal the
settlement's scores (``settled``), checked again for every game that ended when a test finishes.
A few tests need the batched engine's own features (shuffled walls by seed, matches of several
hands) and use ``Engine`` directly.

Beijing scripts use indicator 9s unless they say otherwise, so the 惠牌 (wildcard) is 1s.
Expected fan and scores are worked out from docs/RULES.md 6 in the comments.
"""
from __future__ import annotations

import numpy as np
import pytest
from fast_game import FastGame
from ref_engine import END, RefGame
from scenario_helpers import (
    BEIJING,
    HEBEI,
    QUEMEN,
    ROB,
    ROB_MOVES,
    TWO_ROBBERS,
    TWO_ROBBERS_MOVES,
    count_live_draws_to_the_end,
    counts,
    flower_counts,
    meld,
    names,
    pass_and_discard_drawn,
    play,
    settled,
    tile,
    tiles,
)
from walls import build_wall, deals_first

import mj_env.engine as engine_module
from mj_env.actions import PASS, WIN, index
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.state import END as FAST_END
from mj_env.state import TURN as FAST_TURN
from mj_env.tiles import full_set

# ---------------------------------------------------------------------------------------------
# The deal: explicit walls, the indicator and 惠牌, shuffled walls
# ---------------------------------------------------------------------------------------------

ORPHANS_14 = "19m19p19s1234567z1m"  # no win, no kong in any rule set: the dealer's first turn only discards


@pytest.mark.parametrize("rules, dealer", [(BEIJING, 2), (HEBEI, 1)], ids=["beijing", "hebei"])
def test_deal_from_an_explicit_wall(new_game, rules, dealer):
    g = new_game(rules, dealer=dealer, hands={dealer: ORPHANS_14}, seed=3,
                 **({"indicator": "3m"} if rules.hui else {}))
    w = g.wall
    assert g.hands[dealer] == counts(w[0:13] + [w[52]])
    for k in (1, 2, 3):
        assert g.hands[(dealer + k) % 4] == counts(w[13 * k:13 * k + 13])
    assert (g.phase, g.to_act, g.turn_tile, g.turn_source) == ("TURN", dealer, w[52], "deal")
    assert g.turn_tile == tile("1m") and g.hands[dealer][tile("1m")] == 2
    assert names(g) == ["discard " + c for c in
                        ("1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z")]
    assert g.melds == [[], [], [], []] and g.river == [[], [], [], []] and g.live_next == 53
    if rules.hui:
        assert (g.indicator, g.hui) == (w[-1], tile("4m")) == (tile("3m"), tile("4m"))
        assert g.live_end == 121 and g.undrawn() == w[53:135]  # 68 live + the 14-tile reserve
    else:
        assert (g.indicator, g.hui) == (None, None)
        assert g.undrawn() == w[53:136]  # the whole rest; replacements from wall[-1]
    assert g.kong_possible()


@pytest.mark.parametrize("indicator, hui", [
    ("3m", "4m"), ("9m", "1m"), ("9p", "1p"), ("5s", "6s"), ("9s", "1s"),
    ("1z", "2z"), ("4z", "1z"),                  # winds E -> S -> W -> N -> E
    ("7z", "6z"), ("6z", "5z"), ("5z", "7z"),    # dragons 中 -> 发 -> 白 -> 中 (the seed's cycle)
])
def test_hui_is_the_successor_of_the_indicator(new_game, indicator, hui):
    g = new_game(indicator=indicator, hands={0: ORPHANS_14, 1: "23m56m89m23p56p8p", 2: "23s56s8s2233z",
                                             3: "4455667788m44p"})
    assert (g.indicator, g.hui) == (tile(indicator), tile(hui))
    assert g.phase == "TURN" and g.to_act == 0


# 123m 456m 789m 234p and 5z 6z: the dealer wins on its first turn exactly when the 5z or the 6z
# is the 惠牌 and pairs the other.
@pytest.mark.parametrize("indicator, wins", [("7z", True), ("6z", True), ("5z", False), ("4z", False)],
                         ids=["7z->6z", "6z->5z", "5z->7z", "4z->1z"])
def test_the_dragon_cycle_decides_which_tile_is_wild(new_game, indicator, wins):
    g = new_game(indicator=indicator, hands={0: "123m456m789m234p5z6z"})
    assert (g.phase, g.to_act) == ("TURN", 0)
    assert ("win" in names(g)) is wins
    if wins:
        play(g, (0, "win"))  # 天和 10 + 一条龙 3 (no 门清无惠: a 惠牌 is held) = 13
        assert g.result["patterns"] == {"天和": 10, "一条龙": 3} and settled(g) == [39, -13, -13, -13]


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_shuffled_walls_are_fixed_by_the_seed(preset):
    rules = get_rules(preset)
    a, b, c = (Engine(rules, num_tables=8) for _ in range(3))
    a.reset(seed=5)
    b.reset(seed=5)
    c.reset(seed=6)
    for field in ("wall", "hands", "dealer", "indicator", "flowers"):
        assert (getattr(a.state, field) == getattr(b.state, field)).all(), field
    assert (a.legal_mask() == b.legal_mask()).all()
    assert (a.state.wall != c.state.wall).any(axis=1).all()
    full = sorted(full_set(rules.n_tiles).tolist())
    for t in range(8):
        assert sorted(a.state.wall[t].tolist()) == full
    assert len({a.state.wall[t].tobytes() for t in range(8)}) == 8  # every table its own wall
    dealers = a.state.dealer.tolist()
    if preset == "beijing":  # docs/RULES.md 2: East deals the first hand; hebei and quemen draw the dealer
        assert dealers == [0] * 8
    else:
        assert len(set(dealers)) > 1 and dealers != c.state.dealer.tolist()  # drawn from the seed
    if not rules.flowers:  # the deal follows the shuffled wall (flower replacements aside)
        for t in range(8):
            w, d = a.state.wall[t].tolist(), dealers[t]
            assert a.state.hands[t, d].tolist() == counts(w[0:13] + [w[52]])
            assert a.state.hands[t, (d + 2) % 4].tolist() == counts(w[26:39])
    # A seed given to the constructor is the same generator as one given to reset.
    e = Engine(rules, num_tables=8, seed=5)
    e.reset()
    assert (e.state.wall == a.state.wall).all() and (e.state.dealer == a.state.dealer).all()


@pytest.mark.parametrize("preset", ["hebei", "quemen"])
def test_the_random_first_dealer_can_be_every_seat(preset):
    """docs/RULES.md 2: in hebei (and quemen, as hebei) the first dealer is chosen at random, so each of
    the four seats deals some first hands, North (seat 3) included, and about as often as the others."""
    eng = Engine(preset, num_tables=400, seed=0)
    eng.reset()
    per_seat = np.bincount(eng.state.dealer.astype(np.int64), minlength=4)
    assert len(per_seat) == 4 and (per_seat > 60).all(), per_seat.tolist()
    assert (eng.state.to_act == eng.state.dealer).all()


# ---------------------------------------------------------------------------------------------
# Draws, discards, the claim window (beijing)
# ---------------------------------------------------------------------------------------------

SELF_DRAW = {"hands": {0: "123m456m789m1234z5z", 1: "234p567p345s789s6s",
                        2: "11m22m33m44p55p66p7z", 3: "77m88m99m77p88p99p6z"}, "draws": "6s"}


def test_self_draw_win_from_the_live_wall(new_game):
    g = new_game(**SELF_DRAW)
    assert (g.phase, g.to_act, g.hui, g.indicator) == ("TURN", 0, tile("1s"), tile("9s"))
    assert "win" not in names(g) and not any(n.startswith("kong") for n in names(g))
    play(g, (0, "discard 5z"))  # nobody can claim 5z: seat 1 draws 6s (wall[53])
    assert (g.phase, g.to_act, g.turn_tile, g.turn_source, g.live_next) == ("TURN", 1, tile("6s"), "live", 54)
    assert "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert (w["winner"], w["discarder"], w["hand"], w["win_tile"], w["hui"]) == (1, None, "234567p3456789s", "6s", "1s")
    assert w["situation"] == {"last_tile": False, "after_kong": False, "robbed_kong": False, "first_turn": True}
    assert g.river[0] == tiles("5z") and g.next_dealer == 3  # a non-dealer won: (dealer - 1) % 4
    # 地和 (a non-dealer's first draw, no claim yet) 8 + 门清无惠 1 = 9; self-draw: 3 x 9
    assert g.result["patterns"] == {"地和": 8, "门清无惠": 1}
    assert settled(g) == [-9, 27, -9, -9]


# Dealer discards 5m: seat 3 may win (5m pair), seat 2 may pong, seat 1 may chi 456m.
QUEUE = {0: "111z222z333z44z5m", 1: "46m234p567p79p55z9s", 2: "55m789m345s678s6z7z",
         3: "123p456p789p222s5m"}


def test_claim_queue_asks_win_then_pong_then_chi(new_game):
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])
    play(g, (2, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "chi 456m"])
    play(g, (1, "pass"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "live") and g.river[0] == tiles("5m")


def test_claim_win_ends_the_hand_on_the_discard_dihe(new_game):
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"), (3, "win"))
    assert g.phase == END and g.winners == [3] and g.river[0] == [] and g.claimed_win_tile == tile("5m")
    (w,) = g.wins
    assert (w["discarder"], w["win_tile"], w["hand"]) == (0, "5m", "5m123456789p222s")
    assert w["situation"]["first_turn"] is True  # seat 3 has not discarded: 地和
    # 庄 (the dealer dealt in) 1 + 门清无惠 1 + 一条龙 3 + 地和 8 = 13, paid by the discarder
    assert g.result["patterns"] == {"庄": 1, "门清无惠": 1, "一条龙": 3, "地和": 8}
    assert settled(g) == [-13, 0, 0, 13] and g.next_dealer == 3


def test_dihe_is_gone_once_anyone_has_claimed(new_game):
    # Seat 3 now waits on 7z alone; seat 2 pongs the dealer's 5m and lets its 7z go.
    g = new_game(hands={**QUEUE, 3: "123p456p789p222s7z"})
    assert "win" not in names(g)
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])  # seat 3 is not asked
    play(g, (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2) and all(n.startswith("discard") for n in names(g))
    play(g, (2, "discard 7z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "win"))
    (w,) = g.wins
    assert w["situation"]["first_turn"] is False and w["discarder"] == 2
    # 一条龙 3 + 门清无惠 1 = 4 (no 地和: a pong came first; no 庄: the dealer is not involved)
    assert g.result["patterns"] == {"一条龙": 3, "门清无惠": 1}
    assert settled(g) == [0, 0, -4, 4] and g.next_dealer == 3


# docs/RULES.md 6.4: 地和 / 地胡 is void once anyone has declared a chi, pong or kong before it, in
# every rule set. The dealer may declare a concealed kong of 5m before its first discard (1z,
# which nobody can claim); seat 1 then self-draws 6s on its first draw.
DIHE_KONG = {"hands": {0: "5555m123p789p1234z", 1: "234p567p345s789s6s", 2: "11m22m33m44p55p66p7z",
                       3: "77m88m99m77p88p99p6z"}, "draws": "6s", "tail": "7z"}
# (patterns, scores of the win alone, kong payments) without and with the dealer's kong
DIHE_KONG_RESULTS = {
    # 地和 8 + 门清无惠 1 = 9; after the kong 推倒和 1 + 门清无惠 1 = 2; self-draw: 3 x F
    "beijing": (({"门清无惠": 1, "地和": 8}, [-9, 27, -9, -9]), ({"门清无惠": 1, "推倒和": 1}, [-2, 6, -2, -2]),
                None),
    # no 地和 pattern: the flag alone; non-dealer self-draw base 4/2/2 + 门清 2; concealed kong 2 each
    "hebei": (({"门清": 2}, [-6, 14, -4, -4]), ({"门清": 2}, [-6, 14, -4, -4]), [6, -2, -2, -2]),
    # 平胡 1 + 地胡 2 = 3, each other pays it; after the kong 平胡 1; concealed kong 1 each
    "quemen": (({"平胡": 1, "地胡": 2}, [-3, 9, -3, -3]), ({"平胡": 1}, [-1, 3, -1, -1]), [3, -1, -1, -1]),
}


@pytest.mark.parametrize("kong", [False, True], ids=["no-kong", "concealed-kong"])
@pytest.mark.parametrize("rules", [BEIJING, HEBEI, QUEMEN], ids=["beijing", "hebei", "quemen"])
def test_dihe_is_void_after_any_kong(new_game, rules, kong):
    g = new_game(rules, **DIHE_KONG)
    assert "kong 5m" in names(g)
    if kong:
        play(g, (0, "kong 5m"))
        assert (g.phase, g.to_act, g.turn_source) == ("TURN", 0, "kong")
    play(g, (0, "discard 1z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("6s")) and "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["situation"]["first_turn"] is not kong and w["discarder"] is None
    (patterns, hand), (patterns_k, hand_k), kongs = DIHE_KONG_RESULTS[rules.name]
    res = g.result
    if not kong:
        assert res["patterns"] == patterns and settled(g) == hand
        return
    assert res["patterns"] == patterns_k
    # docs/RULES.md 6.4: "scores" is the hand's total with the kong payments, "hand_scores" the win alone
    total = hand_k if kongs is None else [a + b for a, b in zip(hand_k, kongs)]
    assert settled(g) == total
    if isinstance(g, FastGame) and kongs is not None:
        assert res["hand_scores"] == hand_k and res["kong_scores"] == kongs


def test_dihe_is_void_after_a_chi(new_game):
    # Seat 1 chis the dealer's 2s and lets 5s go; seat 2 has not discarded yet and self-draws 7z
    # (seven pairs), but a chi came first: no 地和.
    g = new_game(hands={0: "123m456m789m1234z2s", 1: "234p567p345s789s6s", 2: "11m22m33m44p55p66p7z",
                        3: "77m88m99m77p88p99p6z"}, draws="7z")
    play(g, (0, "discard 2s"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "chi 234s"])
    play(g, (1, "chi 234s"), (1, "discard 5s"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 2, tile("7z")) and "win" in names(g)
    play(g, (2, "win"))
    assert g.wins[0]["situation"]["first_turn"] is False
    # 七对子 4 + 门清无惠 1 = 5 (地和 8 would make 13); self-draw 3 x 5
    assert g.result["patterns"] == {"门清无惠": 1, "七对子": 4}
    assert settled(g) == [-5, -5, 15, -5]


def test_tianhe_the_dealer_wins_on_the_initial_14(new_game):
    g = new_game(hands={0: "123m456m789p234s55z"})
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 0, "deal") and "win" in names(g)
    play(g, (0, "win"))
    (w,) = g.wins
    assert (w["winner"], w["discarder"], w["win_tile"]) == (0, None, "5z")
    assert w["situation"]["first_turn"] is True
    # 天和 10 + 门清无惠 1 = 11, without 庄; self-draw: 3 x 11
    assert g.result["patterns"] == {"天和": 10, "门清无惠": 1}
    assert settled(g) == [33, -11, -11, -11] and g.next_dealer == 0


def test_tianhe_at_some_tables_of_a_batch():
    """The dealer's first-turn win at some tables of a batch, beside tables whose dealer cannot win (the
    batched mask path, which a one-table engine does not take; from a mutation test)."""
    tian = build_wall(BEIJING, hands={0: "123m456m789p234s55z"}, indicator="9s")
    none = build_wall(BEIJING, hands={0: ORPHANS_14}, indicator="9s")
    eng = Engine(BEIJING, num_tables=3)
    eng.reset(walls=[tian, none, tian], dealers=[0, 0, 0])
    assert eng.legal_mask()[:, WIN].tolist() == [1, 0, 1]
    res = eng.step(np.array([WIN, index("discard 1m"), WIN]))
    assert sorted(res.settlements) == [0, 2]
    for b in (0, 2):  # 天和 10 + 门清无惠 1, without 庄; self-draw 3 x 11
        assert res.settlements[b]["patterns"] == {"天和": 10, "门清无惠": 1}
        assert res.settlements[b]["scores"] == [33, -11, -11, -11]


def test_claim_pong_and_chi_are_carried_out(new_game):
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"), (3, "pass"), (2, "pong"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "claim")
    assert all(n.startswith("discard") for n in names(g))  # no win, no kong after a pong
    assert g.melds[2] == [meld("pong", "555m", 0)] and g.river[0] == []
    assert g.claims_from[2][0] == 1 and g.hands[2][4] == 0
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"), (3, "pass"), (2, "pass"), (1, "chi 456m"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.melds[1] == [meld("chi", "456m", 0)]
    assert all(n.startswith("discard") for n in names(g))
    assert g.claims_from[1][0] == 1 and g.hands[1][tile("4m")] == 0 and g.hands[1][tile("6m")] == 0


# Seats 1 and 3 may both win on the dealer's 5m.
TWO_WINNERS = {**QUEUE, 1: "46m234p567p789p55z"}


def test_first_accepted_win_takes_the_tile(new_game):
    g = new_game(hands=TWO_WINNERS)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass", "chi 456m"])
    play(g, (1, "win"))
    assert g.phase == END and g.winners == [1]  # seat 3 is not asked
    # 庄 1 + 门清无惠 1 + 捉五魁 2 (4m6m waits on 5m alone) + 地和 8 = 12
    assert g.result["patterns"] == {"庄": 1, "门清无惠": 1, "捉五魁": 2, "地和": 8}
    assert settled(g) == [-12, 12, 0, 0]
    g = new_game(hands=TWO_WINNERS)
    play(g, (0, "discard 5m"), (1, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "win"))
    assert g.phase == END and g.winners == [3] and settled(g) == [-13, 0, 0, 13]


def test_pending_chi_is_overridden_by_a_later_pong(new_game):
    hands = {**TWO_WINNERS, 3: "123p456p789p222s3z"}  # seat 3 no longer waits on 5m
    g = new_game(hands=hands)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass", "chi 456m"])
    play(g, (1, "chi 456m"))  # pending: seat 2 may still pong
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])
    play(g, (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2) and g.melds[1] == [] and g.melds[2][0].type == "pong"
    assert g.hands[1][3] == 1 and g.hands[1][5] == 1  # the chi's tiles stayed in seat 1's hand
    # If seat 2 passes, the pending chi is carried out.
    g = new_game(hands=hands)
    play(g, (0, "discard 5m"), (1, "chi 456m"), (2, "pass"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.melds[1] == [meld("chi", "456m", 0)]


def test_illegal_action_raises_and_changes_nothing(new_game):
    g = new_game(hands=QUEUE)
    before = (g.phase, g.to_act, [list(h) for h in g.hands], g.legal())
    for bad in (index("discard 9p"), PASS, WIN, 999, "win"):
        with pytest.raises(ValueError, match="illegal|integer"):
            g.step(bad)
    assert (g.phase, g.to_act, [list(h) for h in g.hands], g.legal()) == before


# ---------------------------------------------------------------------------------------------
# Kongs: concealed, exposed, added, robbed; the reserve (beijing)
# ---------------------------------------------------------------------------------------------

# ROB, ROB_MOVES, TWO_ROBBERS (tests/scenario_helpers.py): seat 1's added kong of 5m, robbed


def test_added_kong_is_robbed(new_game):
    g = new_game(**ROB)
    play(g, *ROB_MOVES)
    assert (g.phase, g.to_act) == ("TURN", 1) and "kong 5m" in names(g)
    play(g, (1, "kong 5m"))
    assert (g.phase, g.to_act, names(g)) == ("ROB", 3, ["win", "pass"])
    play(g, (3, "win"))
    assert g.phase == END and g.winners == [3]
    (w,) = g.wins
    assert (w["discarder"], w["win_tile"], w["situation"]["robbed_kong"]) == (1, "5m", True)
    assert g.melds[1] == [meld("pong", "555m", 0)] and g.hands[1][4] == 0 and g.kongs == []
    assert g.claimed_win_tile == tile("5m")
    # 门清无惠 1 + 一条龙 3 + 捉五魁 2 = 6, paid by the kong's declarer as the discarder
    assert g.result["patterns"] == {"门清无惠": 1, "一条龙": 3, "捉五魁": 2}
    assert settled(g) == [0, -6, 0, 6] and g.next_dealer == 3


def test_hebei_two_players_rob_one_added_kong(new_game):
    """hebei, several winners (docs/RULES.md 4.2) on a robbed kong (4.4): seats 2 and 3 both wait on 5m, both
    are asked in play order from the kong's declarer, both win, and the declarer pays each as the discarder."""
    g = new_game(HEBEI, **TWO_ROBBERS)
    play(g, *TWO_ROBBERS_MOVES)
    assert (g.phase, g.to_act, names(g)) == ("ROB", 2, ["win", "pass"])
    play(g, (2, "win"))
    assert (g.phase, g.to_act, names(g)) == ("ROB", 3, ["win", "pass"])
    play(g, (3, "win"))
    assert g.phase == END and g.winners == [2, 3] and g.kongs == []
    wins = g.result["wins"]
    assert [(w["input"]["winner"], w["input"]["discarder"], w["input"]["situation"]["robbed_kong"]) for w in wins] == \
        [(2, 1, True), (3, 1, True)]
    # non-dealers on a non-dealer's "discard": base 5, paid by the declarer with X; the other non-winners pay X
    # (docs/RULES.md 6.2). Seat 2: X = 门清 2 + 抢杠胡 2 = 4; seat 3: X = 4 + 一条龙 2 + 捉五 5 = 11.
    assert [w["patterns"] for w in wins] == [{"门清": 2, "抢杠胡": 2}, {"门清": 2, "抢杠胡": 2, "一条龙": 2, "捉五": 5}]
    assert [w["scores"] for w in wins] == [[-4, -9, 17, -4], [-11, -16, -11, 38]]
    assert settled(g) == [-15, -25, 6, 34] and g.next_dealer == 1


def test_beijing_one_player_robs_an_added_kong(new_game):
    """beijing, one winner per discard (docs/RULES.md 4.2, multiple_winners False), also on a robbed kong (4.4):
    seats 2 and 3 may both rob seat 1's added kong of 5m; seat 2, asked first, wins, seat 3 is not asked."""
    g = new_game(**TWO_ROBBERS)
    play(g, *TWO_ROBBERS_MOVES)
    assert (g.phase, g.to_act, names(g)) == ("ROB", 2, ["win", "pass"])
    play(g, (2, "win"))
    assert g.phase == END and g.winners == [2] and g.kongs == []
    (w,) = g.wins
    assert (w["discarder"], w["win_tile"], w["situation"]["robbed_kong"]) == (1, "5m", True)
    # 推倒和 1 + 门清无惠 1 = 2, paid by the kong's declarer as the discarder
    assert settled(g) == [0, -2, 2, 0]


def test_added_kong_completes_when_nobody_robs(new_game):
    g = new_game(**ROB)
    play(g, *ROB_MOVES, (1, "kong 5m"), (3, "pass"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert g.melds[1] == [meld("added_kong", "5555m", 0)] and g.kongs == [(1, "added", None)]
    assert g.hands[1][tile("3m")] == 1 and g.turn_source == "kong"  # replacement from wall[-2]
    assert g.replacements_taken == 1 and g.turn_tile == tile("3m")


KONGS = {0: "5555m6666m123p77z4z", 1: "11m22m33m88s99s5z6z", 2: "444z789p789s12m", 3: "12345p234567s9p"}


def test_concealed_kong_takes_its_replacement_from_the_reserve(new_game):
    g = new_game(hands=KONGS, tail="3z2z")
    assert {"kong 5m", "kong 6m"} <= set(names(g))
    play(g, (0, "kong 5m"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 0, "kong") and "kong 6m" in names(g)
    assert g.melds[0] == [meld("concealed_kong", "5555m", None)] and g.hands[0][29] == 1  # 3z
    assert len(g.undrawn()) == 68 + 13 and g.live_end == 136 - 15  # the live wall is not shortened
    assert g.kongs == [(0, "concealed", None)]
    play(g, (0, "discard 4z"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong", "kong"])


def test_exposed_kong_on_a_discard_draws_a_replacement(new_game):
    g = new_game(hands=KONGS, tail="3z2z")
    play(g, (0, "discard 4z"), (2, "kong"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "kong")
    assert g.melds[2] == [meld("kong", "4444z", 0)] and g.kongs == [(2, "exposed", 0)]
    assert g.hands[2][tile("3z")] == 1 and g.claims_from[2][0] == 1 and g.river[0] == []
    assert any(n.startswith("discard") for n in names(g))


def test_no_kong_once_the_reserve_is_empty(new_game):
    g = new_game(BEIJING.replace(reserve=1), hands=KONGS, tail="3z")
    assert g.live_end == 136 - 2  # live wall wall[53:-2]
    play(g, (0, "kong 5m"))
    assert "kong 6m" not in names(g) and not g.kong_possible()
    play(g, (0, "discard 4z"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong"])  # no exposed kong either


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_win_on_a_kong_replacement(new_game, rules):
    g = new_game(rules, hands={0: "5555m123p456p789p7z"}, tail="7z")
    play(g, (0, "kong 5m"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 0, "kong") and "win" in names(g)
    play(g, (0, "win"))
    (w,) = g.wins
    assert w["melds"] == [{"type": "concealed_kong", "tiles": "5555m"}] and w["hand"] == "123456789p7z"
    assert w["situation"] == {"last_tile": False, "after_kong": True, "robbed_kong": False, "first_turn": False}
    res = g.result
    if rules is BEIJING:
        # 庄 1 + 门清无惠 1 + 一条龙 3 + 杠上开花 5 = 10 (no 天和 after a kong); self-draw 3 x 10
        assert res["patterns"] == {"庄": 1, "门清无惠": 1, "一条龙": 3, "杠上开花": 5}
        assert settled(g) == [30, -10, -10, -10]
    else:
        # dealer self-draw: each pays base 4 + X (门清 2 + 杠上开花 2 + 一条龙 2 = 6) = 10,
        # plus the concealed kong: each other pays 2
        assert res["patterns"] == {"门清": 2, "杠上开花": 2, "一条龙": 2}
        assert settled(g) == [36, -12, -12, -12]


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_a_non_dealer_not_ready_before_its_kong_wins_on_the_replacement(new_game, rules):
    # docs/RULES.md 4.1 and 6.1 (杠上开花): seat 1 draws 5s onto 1111z 123m 456m 78p 5s, a hand that was
    # not ready, declares the concealed kong of 1z and draws the replacement 9p: 123m 456m 789p 55s wins.
    # Neither a hand ready before its draw nor the dealer's first turn: only the kong offers the win
    # (from a mutation test of the batched mask path, which BatchedFastGame takes).
    g = new_game(rules, hands={0: "123m456m789m2345z6z", 1: "1111z123m456m78p5s"}, draws="5s", tail="9p")
    play(g, (0, "discard 6z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("5s")) and "win" not in names(g)
    play(g, (1, "kong 1z"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 1, "kong", tile("9p"))
    assert "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["situation"] == {"last_tile": False, "after_kong": True, "robbed_kong": False, "first_turn": False}
    if rules is BEIJING:
        # 门清无惠 1 + 杠上开花 5 = 6 (no 地和 after a kong, no 庄 on a non-dealer's self-draw); 3 x 6
        assert g.result["patterns"] == {"门清无惠": 1, "杠上开花": 5}
        assert settled(g) == [-6, 18, -6, -6]
    else:
        # non-dealer self-draw, X = 门清 2 + 杠上开花 2 = 4: the dealer pays 4 + 4, the others 2 + 4;
        # plus the concealed kong, 2 from each other seat
        assert g.result["patterns"] == {"门清": 2, "杠上开花": 2}
        assert settled(g) == [-8 - 2, 20 + 6, -6 - 2, -6 - 2]


# ---------------------------------------------------------------------------------------------
# The end of the wall: exhaustive draws, 海底
# ---------------------------------------------------------------------------------------------

def test_exhaustive_draw_beijing_after_the_68_live_tiles(new_game):
    # No hand holds a 惠牌 (1s), and each keeps its 13 tiles, so 四惠牌 cannot happen.
    hands = {0: "123m456m789m2345z6z", 1: "234p567p345s789s6s", 2: "11m22m33m44p55p66p7z",
             3: "77m88m99m77p88p99p6z"}
    g = new_game(hands=hands)
    assert count_live_draws_to_the_end(g) == 68
    assert g.wins == [] and g.live_next == g.live_end and len(g.undrawn()) == 14 and not g.can_draw()
    assert g.result == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]} and settled(g) == [0] * 4
    assert g.next_dealer == 0  # a drawn hand: the dealer stays


@pytest.mark.parametrize("kong, live_draws", [(False, 71), (True, 69)])
def test_exhaustive_draw_hebei_keeps_six_stacks(new_game, kong, live_draws):
    g = new_game(HEBEI, hands={0: "5555m123p789p1234z" if kong else "159m123p789p12345z"})
    if kong:
        play(g, (0, "kong 5m"))
        assert g.replacements_taken == 1 and g.kongs == [(0, "concealed", None)]
    # 83 undrawn after the deal; 12 are kept, 13 when an odd number of replacements was taken.
    assert count_live_draws_to_the_end(g) == live_draws
    assert g.wins == [] and len(g.undrawn()) == (13 if kong else 12)
    assert settled(g) == [0, 0, 0, 0]  # hebei: kong payments are void in a drawn hand
    assert g.next_dealer == 0


# Seat 3 holds four 5m, seat 1 three 6m; the last live tile is the fourth 6m, drawn by seat 3
# (71 live draws from seat 1 on). Nobody's hand changes before it.
KEPT_STACKS = {0: "179m147p258s12345z", 1: "666m258p369s5677z", 2: "348m369p147s1234z", 3: "5555m248p147s677z"}


@pytest.mark.parametrize("kept", [6, 0], ids=["six-stacks-kept", "no-stack-kept"])
def test_hebei_kongs_use_the_kept_stacks(new_game, kept):
    # docs/RULES.md 6.4: a hebei kong is legal while at least one undrawn tile remains, the kept
    # stacks included. With tail_stacks_kept=0 the last live draw leaves none: no kong.
    rules = HEBEI.replace(tail_stacks_kept=kept)
    wall = build_wall(rules, hands=KEPT_STACKS)
    last = len(wall) - 2 * kept - 1
    free = next(i for i in range(53, len(wall)) if wall[i] == tile("6m"))
    wall[free], wall[last] = wall[last], wall[free]
    g = new_game(rules, wall=wall)
    while not (g.phase == "TURN" and g.drew_last):
        pass_and_discard_drawn(g)
    assert (g.to_act, g.turn_tile, g.live_next, g.can_draw()) == (3, tile("6m"), last + 1, False)
    assert len(g.undrawn()) == 2 * kept and g.kong_possible() is (kept > 0)
    assert ("kong 5m" in names(g)) is (kept > 0)
    if not kept:
        play(g, (3, "discard 6m"))
        assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "pong"])  # no exposed kong either
        play(g, (1, "pass"))
        assert g.phase == END and g.kongs == [] and settled(g) == [0, 0, 0, 0]
        return
    play(g, (3, "kong 5m"))  # the replacement is the tail tile, wall[-1]
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 3, "kong", wall[-1])
    assert len(g.undrawn()) == 11 and not g.can_draw()
    assert g.drew_last  # the last tile drawn before the wall ends, now the 海底 tile (docs/RULES.md 6.2)
    play(g, (3, "discard 6m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "pong", "kong"])
    play(g, (1, "kong"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 1, "kong", wall[-2]) and g.drew_last
    assert len(g.undrawn()) == 10 and sorted(g.kongs) == [(1, "exposed", 3), (3, "concealed", None)]
    while g.phase != END:
        pass_and_discard_drawn(g)
    assert g.wins == [] and settled(g) == [0, 0, 0, 0]  # kong payments are void in a drawn hand


def test_hebei_a_kong_replacement_after_which_no_draw_is_left_is_haidi(new_game):
    # docs/RULES.md 3 and 6.2: seat 2 draws the fourth 5s at wall[122], leaving 13 undrawn (not the last
    # tile: 12 are kept), kongs it, and the replacement wall[-1] leaves 12 after an odd number of
    # replacements, when 13 are kept: nobody can draw again, so it is the last drawable tile, 海底.
    # 门清 2 + 杠上开花 2 + 一条龙 2 + 海底捞月 2 = 8 on the base score of a self-draw (from an audit)
    wall = build_wall(HEBEI, hands={2: "555s123m456m789m1z"}, tail="1z")
    swap_to(wall, 122, "5s")
    g = new_game(HEBEI, wall=wall)
    while not (g.phase == "TURN" and g.to_act == 2 and g.turn_tile == tile("5s")):
        pass_and_discard_drawn(g)
    assert g.live_next == 123 and len(g.undrawn()) == 13 and g.can_draw() and not g.drew_last
    play(g, (2, "kong 5s"))
    assert (g.turn_source, g.turn_tile) == ("kong", tile("1z")) and not g.can_draw() and g.drew_last
    play(g, (2, "win"))
    assert g.wins[0]["situation"] == {"last_tile": True, "after_kong": True, "robbed_kong": False, "first_turn": False}
    assert g.result["patterns"] == {"门清": 2, "杠上开花": 2, "一条龙": 2, "海底捞月": 2}


def test_quemen_drawn_hand_keeps_kong_payments(new_game):
    g = new_game(QUEMEN, hands={0: "5555m123p789p1234z"})
    play(g, (0, "kong 5m"))
    assert g.kongs == [(0, "concealed", None)]
    count_live_draws_to_the_end(g)
    assert g.wins == [] and g.undrawn() == [] and g.result["draw"] is True
    assert settled(g) == [3, -1, -1, -1]  # quemen: a concealed kong, each other pays 1, drawn or won
    assert g.next_dealer == 0


def hand_with_last_live_tile(new_game, hands: dict, last: str):
    """A beijing game whose last live tile (wall[120], drawn by the dealer when nobody claims)
    is ``last``: the free copy of it is swapped there."""
    wall = build_wall(BEIJING, hands=hands, indicator="9s")
    t = tile(last)
    free = next(i for i in range(53, 121) if wall[i] == t)
    wall[free], wall[120] = wall[120], wall[free]
    return new_game(wall=wall)


def test_last_live_tile_self_draw_and_its_discard(new_game):
    # Every hand is given and none holds a 惠牌 (1s): no 四惠牌 can end the hand early.
    seat3 = "4m5m6m2s3s4s5s6s7s8s2z3z4z"
    # The dealer waits on 5z; seat 1 holds the other two copies and never lets them go.
    g = hand_with_last_live_tile(new_game, {0: "123m456m789m123p5z9m", 1: "55z11m22m33p44p66p",
                                            2: "77m88m99m77p8p9p4z", 3: seat3}, last="5z")
    while g.live_next < g.live_end:
        pass_and_discard_drawn(g)
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tile("5z")) and g.drew_last and "win" in names(g)
    play(g, (0, "win"))
    assert g.wins[0]["situation"]["last_tile"] is True
    # 庄 1 + 门清无惠 1 + 一条龙 3 + 海底捞月 2 = 7; self-draw 3 x 7
    assert g.result["patterns"] == {"庄": 1, "门清无惠": 1, "一条龙": 3, "海底捞月": 2}
    assert settled(g) == [21, -7, -7, -7]
    # Seat 1 waits on 6z; the dealer draws the last 6z and lets it go.
    g = hand_with_last_live_tile(new_game, {0: "123m456m789m123p5z9m", 1: "234p567p345s789s6z",
                                            2: "66z77m88m99m77p8p9p4z", 3: seat3}, last="6z")
    while g.live_next < g.live_end:
        pass_and_discard_drawn(g)
    play(g, (0, "discard 6z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass"])
    play(g, (1, "win"))
    assert g.wins[0]["situation"]["last_tile"] is True and g.wins[0]["discarder"] == 0
    # 庄 1 (the dealer dealt in) + 门清无惠 1 + 海底捞月 1 = 3
    assert g.result["patterns"] == {"庄": 1, "门清无惠": 1, "海底捞月": 1}
    assert settled(g) == [-3, 3, 0, 0]


def test_the_discard_after_claiming_the_last_live_tiles_discard_is_no_haidi(new_game):
    # docs/RULES.md 6.1: 海底捞月 1 is for a win on the discard made right after drawing the last live
    # tile. The dealer draws it (7z) and discards it; seat 1 pongs and discards 6z, on which seat 2
    # wins: that discard came after a claim, not after the last draw (from a mutation test).
    g = hand_with_last_live_tile(new_game, {0: "123m456m789m123p5z9m", 1: "77z6z234p567p345s9s",
                                            2: "11m22m33m77p88p99p6z", 3: "4m5m6m2s3s4s5s6s7s8s2z3z4z"}, last="7z")
    while g.live_next < g.live_end:
        pass_and_discard_drawn(g)
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tile("7z")) and g.drew_last
    play(g, (0, "discard 7z"), (1, "pong"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "claim") and not g.drew_last
    play(g, (1, "discard 6z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass"])
    play(g, (2, "win"))
    assert g.wins[0]["situation"]["last_tile"] is False and g.wins[0]["discarder"] == 1
    # 门清无惠 1 + 七对子 4 = 5, paid by the discarder (no 海底捞月, no 庄)
    assert g.result["patterns"] == {"门清无惠": 1, "七对子": 4}
    assert settled(g) == [0, -5, 5, 0]


def swap_to(wall: list[int], pos: int, text: str, dealt: int = 53) -> None:
    """Move a copy of ``text`` that nobody is dealt (at wall[dealt:]) to wall[pos]."""
    t = tile(text)
    free = next(i for i in range(dealt, len(wall)) if wall[i] == t and i != pos)
    wall[free], wall[pos] = wall[pos], wall[free]


def test_a_kong_replacement_after_the_last_live_tile_is_no_haidi_in_beijing(new_game):
    # The dealer draws the last live tile (wall[120], 5p), kongs it and wins on the replacement
    # from the reserve: 杠上开花, but the replacement is not a live tile, so no 海底捞月.
    wall = build_wall(BEIJING, indicator="9s", tail="5z",
                      hands={0: "123m456m789m555p5z9m", 1: "77z11m22m33p44p66p",
                             2: "77m88m99m77p8p9p4z", 3: "4m5m6m2s3s4s5s6s7s8s2z3z4z"})
    swap_to(wall, 120, "5p")
    g = new_game(wall=wall)
    while g.live_next < g.live_end:
        pass_and_discard_drawn(g)
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tile("5p")) and g.drew_last
    play(g, (0, "kong 5p"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tile("5z")) and not g.drew_last
    play(g, (0, "win"))
    assert g.wins[0]["situation"]["last_tile"] is False and g.wins[0]["situation"]["after_kong"] is True
    assert g.result["patterns"] == {"庄": 1, "门清无惠": 1, "一条龙": 3, "杠上开花": 5}
    assert settled(g) == [30, -10, -10, -10]


def test_quemen_the_walls_last_tile_as_a_kong_replacement_is_haidi(new_game):
    # quemen has no reserve: a replacement comes off the wall's tail, so the wall's last tile
    # (海底, "牌墙最后一张牌自摸胡牌") may come as one. Seat 3 is dealt all eight flowers (replaced
    # from wall[143] down to wall[136]); seat 2 draws the fourth 9m at wall[134], kongs, and wins on
    # the replacement wall[135], the last tile: 平胡 1 + 杠上开花 1 + 海底捞月 1.
    wall = build_wall(QUEMEN, seed=2, hands={0: "2z2z1p4p7p2s5s8s3s6s9s5z6z4z", 1: "1m4m7m2p5p8p3s6s9p1z3z4z6z",
                                             2: "999m123m456m345p2z", 3: "1f2f3f4f5f6f7f8f1s5z6z7z7z"})
    swap_to(wall, 134, "9m")
    swap_to(wall, 135, "2z")
    g = new_game(QUEMEN, wall=wall)
    while not (g.phase == "TURN" and g.to_act == 2 and "kong 9m" in names(g)):
        pass_and_discard_drawn(g)
    assert g.live_next == 135 and g.undrawn() == [tile("2z")] and not g.drew_last
    play(g, (2, "kong 9m"))
    assert g.turn_tile == tile("2z") and g.undrawn() == [] and g.drew_last
    play(g, (2, "win"))
    assert g.wins[0]["situation"]["last_tile"] is True and g.wins[0]["situation"]["after_kong"] is True
    assert g.result["patterns"] == {"平胡": 1, "杠上开花": 1, "海底捞月": 1}
    assert settled(g) == [-4, -4, 12, -4]  # 3 from each other seat, plus the concealed kong's 1


# ---------------------------------------------------------------------------------------------
# 惠牌 rules: 四惠牌, three 惠牌, concealed-only discard wins, 惠牌 in melds (beijing)
# ---------------------------------------------------------------------------------------------

def test_four_hui_wins_at_once_on_the_dealers_first_turn(new_game):
    g = new_game(hands={0: "234m567m8p345z1111s"})  # the fourth 1s is wall[52]
    assert g.phase == END and g.winners == [0]
    (w,) = g.wins
    assert (w["hand"], w["win_tile"], w["discarder"]) == ("234567m8p111s345z", "1s", None)
    assert w["situation"]["first_turn"] is True
    assert g.result["patterns"] == {"庄": 1, "四惠牌": 8} and settled(g) == [27, -9, -9, -9]


def test_four_hui_wins_at_once_after_a_draw(new_game):
    g = new_game(hands={**SELF_DRAW["hands"], 1: "111s234m567m89p45z"}, draws="1s")
    play(g, (0, "discard 5z"))  # seat 1 (three 惠牌) may not win on it; it draws the fourth
    assert g.phase == END and g.winners == [1] and g.wins[0]["win_tile"] == "1s"
    assert g.wins[0]["discarder"] is None
    # 四惠牌 8, scored with 庄 only (a non-dealer self-draw: no 庄); self-draw 3 x 8
    assert g.result["patterns"] == {"四惠牌": 8} and settled(g) == [-8, 24, -8, -8]


def test_four_hui_dealt_to_the_dealer_win_on_its_fourteenth_tile(new_game):
    # docs/game_flow.md (TURN): the automatic 四惠牌 win's winning tile is the tile just drawn, for the dealer's
    # first turn wall[52]. Here the four 惠牌 (1s) are among the first 13 tiles and wall[52] is 5z.
    g = new_game(hands={0: "1111s234m567m8p345z"})
    assert g.phase == END and g.winners == [0]
    (w,) = g.wins
    assert (w["win_tile"], w["discarder"]) == ("5z", None) and w["situation"]["first_turn"] is True
    assert g.result["patterns"] == {"庄": 1, "四惠牌": 8} and settled(g) == [27, -9, -9, -9]


def test_four_hui_win_off_leaves_four_hui_to_the_player(new_game):
    # docs/RULES.md 5: the automatic 四惠牌 win is a rule field (four_hui_win, docs/game_flow.md TURN); with it
    # off, the dealer dealt all four 惠牌 (1s) wins nothing at once and is asked for its first turn as usual.
    g = new_game(BEIJING.replace(four_hui_win=False), hands={0: "234m567m8p345z1111s"})
    assert (g.phase, g.to_act) == ("TURN", 0) and g.winners == []
    assert "kong 1s" in names(g) and "discard 8p" in names(g)


@pytest.mark.parametrize("kind", ["concealed", "exposed"])
def test_four_hui_wins_on_a_kong_replacement(new_game, kind):
    # docs/RULES.md 6.4: 四惠牌 wins on drawing the fourth 惠牌, also as a kong replacement (the
    # reserve's first tile, wall[-2], is the fourth 1s). No decision is asked for it.
    if kind == "concealed":  # the dealer, three 1s, kongs 5m on its first turn
        g = new_game(hands={0: "5555m111s2468p135z"}, tail="1s")
        assert "kong 5m" in names(g) and "win" not in names(g)
        play(g, (0, "kong 5m"))
        winner, kong_meld = 0, {"type": "concealed_kong", "tiles": "5555m"}
    else:  # seat 1, three 1s, claims the dealer's 5m as an exposed kong
        g = new_game(hands={0: "147m258p369s1234z5m", 1: "555m111s2468p135z", 2: "22m33m66p77p88s99s6z",
                            3: "88m99m33p44p22s44s7z"}, tail="1s")
        play(g, (0, "discard 5m"))
        assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "pong", "kong"])
        play(g, (1, "kong"))
        winner, kong_meld = 1, {"type": "kong", "tiles": "5555m", "from": 0}
    assert g.phase == END and g.winners == [winner]
    (w,) = g.wins
    assert (w["hand"], w["win_tile"], w["discarder"], w["melds"]) == ("2468p111s135z", "1s", None, [kong_meld])
    assert w["situation"]["after_kong"] is True and w["situation"]["first_turn"] is False
    res = g.result
    if kind == "concealed":
        # 庄 1 + 四惠牌 8 = 9 (no 天和 after a kong, no 杠上开花 beside 四惠牌); self-draw 3 x 9
        assert res["patterns"] == {"庄": 1, "四惠牌": 8} and settled(g) == [27, -9, -9, -9]
    else:
        # 四惠牌 8 alone (a non-dealer self-draw: no 庄); self-draw 3 x 8
        assert res["patterns"] == {"四惠牌": 8} and settled(g) == [-8, 24, -8, -8]


THREE_HUI = {"hands": {0: "234p567p234s567s9m5z", 1: "11m22m33m44m88p99p7z", 2: "667788m3344p77z2z",
                        3: "111s234m567m789p5z"}, "draws": "6z6z5z"}


def test_three_hui_forbid_a_discard_win_but_not_a_self_draw(new_game):
    g = new_game(**THREE_HUI)
    play(g, (0, "discard 5z"))  # seat 3 waits on 5z with three 1s: not asked at all
    assert (g.phase, g.to_act) == ("TURN", 1)
    play(g, (1, "discard 6z"), (2, "discard 6z"))
    assert (g.phase, g.to_act) == ("TURN", 3) and "win" in names(g)
    play(g, (3, "win"))
    assert g.winners == [3] and g.wins[0]["discarder"] is None
    # the three 1s stand for 1m 8m 9m: 一条龙 3 + 地和 8 (no 门清无惠: 惠牌 are held) = 11
    assert g.result["patterns"] == {"一条龙": 3, "地和": 8} and settled(g) == [-11, -11, -11, 33]
    g = new_game(BEIJING.replace(self_draw_only_hui=4), **THREE_HUI)
    play(g, (0, "discard 5z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])


# Seat 2 pongs the dealer's 7z, then waits on 5p; seat 3 discards 5p.
CLAIMED = {"hands": {0: "123s456s789s1234z7z", 1: "11m88m11p22p33s44s5z", 2: "77z234m567m789p5p9s",
                      3: "66m34p66p66s8s9s2z5z6z"}, "draws": "5p"}


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_a_claimed_hand_wins_on_a_discard_only_in_hebei(new_game, rules):
    g = new_game(rules, **CLAIMED)
    play(g, (0, "discard 7z"), (2, "pong"))
    assert all(n.startswith("discard") for n in names(g))
    play(g, (2, "discard 9s"), (3, "discard 5p"))
    if rules.discard_win_concealed_only:
        assert (g.phase, g.to_act) == ("TURN", 0)  # beijing: seat 2 is not asked
    else:
        assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass"])
        play(g, (2, "win"))
        assert g.winners == [2] and g.wins[0]["melds"] == [{"type": "pong", "tiles": "777z", "from": 0}]
        # a non-dealer on a non-dealer's discard: base 5, no bonus (not concealed), the discarder pays
        assert g.result["patterns"] == {} and settled(g) == [0, 0, 5, -5]
        assert g.next_dealer == 1  # hebei: (dealer + 1) % 4


# Seat 2 holds one 5m and a 惠牌 (1s), seat 1 a 4m and a 惠牌; the dealer discards 5m. Nobody
# else can claim 5m.
HUI_IN_MELDS = {0: "5m9m9p9s1z1z2z2z3z3z4z4z5z5z", 1: "4m1s2p5p8p3s6s9s6z7z1p4p7p",
                2: "5m1s1m8m3p6p9p2s5s8s6z7z3m", 3: "2m6m7m2p7p4s7s1z2z3z4z5z6z"}


@pytest.mark.parametrize("fill", [False, True], ids=["face-value", "hui-wild-in-melds"])
def test_hui_wild_in_melds_changes_the_masks(new_game, fill):
    rules = BEIJING.replace(hui_wild_in_melds=fill)
    g = new_game(rules, hands=HUI_IN_MELDS)
    play(g, (0, "discard 5m"))
    if not fill:
        assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "live")  # no claim at all
        return
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])  # 5m + 惠牌
    play(g, (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2) and g.melds[2] == [meld("pong", "555m", 0)]
    assert g.hands[2][tile("5m")] == 0 and g.hands[2][tile("1s")] == 0  # the 惠牌 filled in
    g = new_game(rules, hands=HUI_IN_MELDS)
    play(g, (0, "discard 5m"), (2, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "chi 345m", "chi 456m"])
    play(g, (1, "chi 345m"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.melds[1] == [meld("chi", "345m", 0)]
    assert g.hands[1][tile("4m")] == 0 and g.hands[1][tile("1s")] == 0


# ---------------------------------------------------------------------------------------------
# 烧庄 and 互包 (beijing)
# ---------------------------------------------------------------------------------------------

SHAOZHUANG = {"hands": {0: "147m258p369s1234z5z", 1: "11m22m33p44p55s66s7z", 2: "123m456m789m234p9p",
                         3: "77m88m66p77p88s99s2z"}, "draws": "5z5z5z6z7z9p"}


def test_one_round_of_shaozhuang(new_game):
    g = new_game(**SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive
    play(g, (0, "discard 6z"), (1, "discard 7z"))  # the second round breaks
    assert g.shaozhuang_rounds == 1 and not g.shaozhuang_alive
    assert (g.phase, g.to_act) == ("TURN", 2) and "win" in names(g)
    play(g, (2, "win"))
    assert g.wins[0]["shaozhuang_rounds"] == 1
    res = g.result
    # hand: 一条龙 3 + 门清无惠 1 = 4, self-draw 3 x 4; 烧庄 1 round: dealer -3, others +1
    assert res["patterns"] == {"一条龙": 3, "门清无惠": 1} and res["shaozhuang"] == 1
    assert settled(g) == [-4 - 3, -4 + 1, 12 + 1, -4 + 1]


def test_a_claim_ends_shaozhuang(new_game):
    g = new_game(hands={**SHAOZHUANG["hands"], 2: "123m456m789m55z9p1s"})
    play(g, (0, "discard 5z"))  # seat 2 could also win (its 惠牌 1s pairs the 9p)
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["win", "pass", "pong"])
    play(g, (2, "pong"))
    assert not g.shaozhuang_alive and g.shaozhuang_rounds == 0


def test_a_concealed_kong_between_the_rounds_discards_keeps_shaozhuang(new_game):
    # docs/RULES.md 6.4: only a claim, or a discard that differs from the round's tile or comes out
    # of turn, ends 烧庄; a concealed kong between the round's discards does not. (An added kong
    # cannot come while 烧庄 lives: it needs a pong, a claim, first.) Seat 2 draws the third 5z,
    # kongs its four 6m, takes the replacement 7z from the reserve and then discards 5z.
    g = new_game(hands={0: "147m258p369s1234z5z", 1: "11m22m33p44p55s66s7z", 2: "6666m123p789p345s",
                        3: "77m88m66p77p88s99s2z"}, draws="5z5z5z", tail="7z")
    play(g, (0, "discard 5z"), (1, "discard 5z"))
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 2, tile("5z")) and "kong 6m" in names(g)
    play(g, (2, "kong 6m"))
    assert (g.phase, g.to_act, g.turn_source, g.turn_tile) == ("TURN", 2, "kong", tile("7z"))
    assert g.shaozhuang_alive and g.kongs == [(2, "concealed", None)]
    play(g, (2, "discard 5z"), (3, "discard 5z"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive
    count_live_draws_to_the_end(g)
    # a drawn hand still settles 烧庄: the dealer pays 3, the others get 1 each
    assert g.wins == [] and g.result == {"draw": True, "shaozhuang": 1, "scores": [-3, 1, 1, 1]}
    assert settled(g) == [-3, 1, 1, 1]


def test_a_drawn_hand_still_settles_shaozhuang(new_game):
    g = new_game(**SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    count_live_draws_to_the_end(g)
    assert g.wins == [] and g.shaozhuang_rounds == 1
    assert g.result == {"draw": True, "shaozhuang": 1, "scores": [-3, 1, 1, 1]} and settled(g) == [-3, 1, 1, 1]
    g = new_game(BEIJING.replace(shaozhuang_on_draw=False), **SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    count_live_draws_to_the_end(g)
    assert g.shaozhuang_rounds == 1 and g.result == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}


# Seat 1 chis the dealer's 1m, 4m and 7p, then self-draws 3z.
HUBAO = {"hands": {0: "1489m37p3458s117z9s", 1: "23m56m89p2223456z", 2: "258m258p258s4567z",
                    3: "369m369p369s1237z"}, "draws": "9m4z5z1p6z4z9p5z6z3z"}


def test_hubao_binds_two_seats_after_three_claims(new_game):
    g = new_game(**HUBAO)
    play(g, (0, "discard 1m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "chi 123m"])
    play(g, (1, "chi 123m"), (1, "discard 4z"),
         (2, "discard 9m"), (3, "discard 4z"), (0, "discard 4m"), (1, "chi 456m"), (1, "discard 5z"),
         (2, "discard 1p"), (3, "discard 6z"), (0, "discard 7p"))
    assert g.hubao_pairs() == []
    play(g, (1, "chi 789p"))
    assert g.hubao_pairs() == [[0, 1]] and g.claims_from[1][0] == 3
    play(g, (1, "discard 6z"), (2, "discard 9p"), (3, "discard 5z"), (0, "discard 6z"))
    assert (g.phase, g.to_act) == ("TURN", 1) and "win" in names(g)
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["hubao"] == [[0, 1]] and [m["type"] for m in w["melds"]] == ["chi"] * 3
    res = g.result
    # 推倒和 1; a self-draw's whole 3F is paid by the bound seat alone
    assert res["patterns"] == {"推倒和": 1} and settled(g) == [-3, 3, 0, 0]


# ---------------------------------------------------------------------------------------------
# hebei: no chi, several winners, thirteen orphans
# ---------------------------------------------------------------------------------------------

def test_hebei_has_no_chi(new_game):
    g = new_game(HEBEI, hands=QUEUE)
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])
    play(g, (2, "pass"))  # seat 1 (4m6m) is not asked: no chi in hebei
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "live")


def test_hebei_several_winners_on_one_discard(new_game):
    g = new_game(HEBEI, hands=TWO_WINNERS)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass"])
    play(g, (1, "win"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])  # win/pass only now
    play(g, (3, "win"))
    assert g.phase == END and g.winners == [1, 3] and g.claimed_win_tile == tile("5m")
    res = g.result
    assert [w["input"]["winner"] for w in res["wins"]] == [1, 3]
    # Each a non-dealer on the dealer's discard (base 6); X > 0: the dealer pays 6 + X and each
    # other seat X. Seat 1: 门清 2 + 捉五 5 = 7; seat 3: 门清 2 + 一条龙 2 = 4. The wins "settle
    # one by one" (docs/RULES.md 6.2): the rules core scores each on its own, so the other winner
    # counts as a non-winner of this win and pays its X too.
    assert [w["patterns"] for w in res["wins"]] == [{"门清": 2, "捉五": 5}, {"门清": 2, "一条龙": 2}]
    assert [w["scores"] for w in res["wins"]] == [[-13, 27, -7, -7], [-10, -4, -4, 18]]
    assert settled(g) == [-23, 23, -11, 11] and g.next_dealer == 1  # hebei: (dealer + 1) % 4
    if isinstance(g, FastGame):  # docs/RULES.md 6.4: the wins alone, and the kong line (no kong: zeros)
        assert (res["hand_scores"], res["kong_scores"], res["scores"]) == ([-23, 23, -11, 11], [0] * 4, [-23, 23, -11, 11])
    # A pending pong is replaced by a later win; seats that only pong are then not asked.
    g = new_game(HEBEI, hands=TWO_WINNERS)
    play(g, (0, "discard 5m"), (1, "pass"), (3, "pass"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 2, ["pass", "pong"])
    play(g, (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2)


def test_hebei_several_winners_are_listed_in_play_order_from_the_discarder(new_game):
    # the same hands turned two seats on: dealer 2 discards, seats 3 and then 1 are asked and win; the
    # settlement lists the wins in that order (the engine listed them by seat number; from a review)
    g = new_game(HEBEI, dealer=2, hands={(s + 2) % 4: h for s, h in TWO_WINNERS.items()})
    play(g, (2, "discard 5m"), (3, "win"), (1, "win"))
    assert g.phase == END and [w["input"]["winner"] for w in g.result["wins"]] == [3, 1]


ORPHANS = {0: "1m7z2m3m4m6m7m8m5p6p7p3s4s5s", 1: "19m19p19s1234567z", 2: "2p3p4p6s7s8s5m5m8p8p9p2s3z",
           3: "3p4p5s6s2z3z4z5z6z2m9s8s6p"}


@pytest.mark.parametrize("rules, discard, asked", [(HEBEI, "7z", True), (HEBEI, "1m", False),
                                                    (BEIJING, "7z", False)],
                         ids=["hebei-dragon", "hebei-1m", "beijing"])
def test_thirteen_orphans(new_game, rules, discard, asked):
    g = new_game(rules, hands=ORPHANS)
    play(g, (0, f"discard {discard}"))
    if not asked:  # beijing: no such shape; hebei: the 14th tile must be a dragon
        assert (g.phase, g.to_act, g.turn_source) == ("TURN", 1, "live") and "win" not in names(g)
        return
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass"])
    play(g, (1, "win"))
    # base 6 (a non-dealer on the dealer's discard) + X (门清 2 + 十三幺 10 = 12): the dealer
    # pays 18, the two other non-winners 12 each
    assert g.result["patterns"] == {"门清": 2, "十三幺": 10}
    assert settled(g) == [-18, 42, -12, -12]


# ---------------------------------------------------------------------------------------------
# quemen: flowers, lacking a suit, 报听
# ---------------------------------------------------------------------------------------------

def test_quemen_flowers_are_laid_out_and_replaced_from_the_tail(new_game):
    g = new_game(QUEMEN, hands={0: "123m456m789m11z22z1f", 2: "2f3f"}, draws="4f", tail="5m6z7z8m")
    assert flower_counts(g) == [1, 0, 2, 0]
    if isinstance(g, RefGame):
        assert g.flowers == [[34], [], [35, 36], []]
    assert (g.phase, g.to_act) == ("TURN", 0) and g.replacements_taken == 3
    assert g.turn_tile == tile("5m") and g.hands[0][4] == 2  # wall[52] was the flower
    assert g.hands[2][32] == 1 and g.hands[2][33] == 1 and sum(g.hands[2]) == 13
    play(g, (0, "discard 2z"))  # the later flower 4f, drawn by seat 1, is replaced by 8m
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 1, tile("8m")) and flower_counts(g) == [1, 1, 2, 0]
    if isinstance(g, RefGame):
        assert g.flowers[1] == [37]
    assert len(g.undrawn()) == 144 - 53 - 1 - 4 and g.replacements_taken == 4


def test_quemen_one_winner_per_discard_and_the_deal_passes_on(new_game):
    """docs/RULES.md 4.2: under quemen the first to accept a discard win takes the tile and the rest are not
    asked (hebei alone has several winners); 2: after a non-dealer win the deal passes to (dealer+1) mod 4."""
    g = new_game(QUEMEN, dealer=0, hands={0: "19m19p19s1234567z5m", 1: "46m123m789m666z22z",
                                          2: "147m258p369s1234z", 3: "123p456p789p777z5m"})
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass"])  # seat 3 waits on 5m too
    play(g, (1, "win"))
    assert g.phase == END and g.winners == [1]  # seat 3 is not asked
    assert g.result["patterns"] == {"混一色": 1} and settled(g) == [-1, 1, 0, 0]
    assert g.next_dealer == 1  # quemen (as hebei): dealer + 1; beijing's would be seat 3


TING_SCRIPT = {"hands": {0: "123m456m789m11z22z9p", 1: "123m456p789s33z44z", 2: "147m258p369s1234z",
                         3: "258m147p147s567z9m"}, "draws": "5z3z2z5p6z7z7z1z"}


def test_quemen_ting_and_a_hand_holding_three_suits(new_game):
    g = new_game(QUEMEN, **TING_SCRIPT)
    assert [n for n in names(g) if n.startswith("ting")] == ["ting 9p"]
    play(g, (0, "ting 9p"))
    assert g.ting_declared == [True, False, False, False]
    play(g, (1, "discard 5z"), (2, "discard 3z"))
    assert (g.to_act, names(g)) == (1, ["pass", "pong"])  # seat 1 holds three suits: no win
    play(g, (1, "pass"), (3, "discard 2z"))
    assert (g.to_act, names(g)) == (0, ["win", "pass"])  # after 报听 no pong, only a win
    play(g, (0, "pass"))
    assert (g.to_act, names(g)) == (0, ["discard 5p"])  # after 报听 only the tile just drawn
    play(g, (0, "discard 5p"), (1, "discard 6z"), (2, "discard 7z"), (3, "discard 7z"))
    assert names(g) == ["discard 1z", "win"]
    play(g, (0, "win"))
    assert g.wins[0]["ting"] is True and g.wins[0]["hand"] == "123456789m1122z"
    # 混一色 1 (one suit and honors), doubled by 报听; self-draw: each of the three others pays 2
    assert g.result["legal"] is True and g.result["patterns"] == {"混一色": 1}
    assert settled(g) == [6, -2, -2, -2] and g.next_dealer == 0


def test_quemen_ting_needs_a_wait_that_can_still_come(new_game):
    # docs/RULES.md 6.4: 报听 only with a discard that leaves the hand waiting on at least one tile.
    # Seat 1 pongs the dealer's 5z holding the fourth: 123456789m 5z 7z. Discarding 7z would
    # leave a single wait on 5z, of which the seat holds all four: no 报听 with it. Discarding 5z
    # leaves a wait on 7z; any other discard leaves no wait.
    g = new_game(QUEMEN, hands={0: "147m258p369s1234z5z", 1: "123m456m789m555z7z"})
    play(g, (0, "discard 5z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["pass", "pong", "kong"])
    play(g, (1, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 1) and "discard 7z" in names(g)
    assert [n for n in names(g) if n.startswith("ting")] == ["ting 5z"]
    if isinstance(g, RefGame):
        assert g.waits_after_discard(1, tile("7z")) == [] and g.waits_after_discard(1, tile("5z")) == [tile("7z")]
    play(g, (1, "ting 5z"))
    assert g.ting_declared == [False, True, False, False]


def test_quemen_ting_wait_on_the_kind_being_discarded_needs_a_copy_left(new_game):
    # The copy discarded with 报听 counts among the seat's own: after 7z from 11m55m99m11p55p7777z the only
    # wait is 7z (seven pairs, 7777z being two pairs), and all four 7z are the seat's: no 报听 with it.
    g = new_game(QUEMEN, hands={0: "11m55m99m11p55p7777z"})
    assert "discard 7z" in names(g) and "ting 7z" not in names(g) and "ting 1m" in names(g)  # 1m: waits on 1m
    g = new_game(QUEMEN, hands={0: "11m55m99m11p55p777z4z"})  # the fourth 7z unseen: 报听 with 4z waits on it
    assert "ting 4z" in names(g)


# ---------------------------------------------------------------------------------------------
# Matches of several hands: dealer rotation and 连庄 (batched engine: it deals the next hand)
# ---------------------------------------------------------------------------------------------

def _act(eng: Engine, action_name: str):
    return eng.step(np.array([index(action_name)]))


def _pass_or_discard_drawn(eng: Engine):
    st = eng.state
    if st.phase[0] != FAST_TURN:
        return eng.step(np.array([PASS]))
    legal = np.flatnonzero(eng.legal_mask()[0])
    drawn = int(st.drawn[0])
    return eng.step(np.array([drawn if drawn in legal else int(legal[legal < 34][0])]))


def _policy(eng: Engine, rng) -> int:
    """A seeded player that wins when it can, claims half the time and discards its most
    isolated tile, so that shuffled hands end in wins often enough."""
    st = eng.state
    legal = np.flatnonzero(eng.legal_mask()[0])
    if WIN in legal:
        return WIN
    if st.phase[0] != FAST_TURN:
        claims = legal[legal > PASS]
        return int(rng.choice(claims)) if len(claims) and rng.random() < 0.5 else PASS
    hand = st.hands[0, st.to_act[0]].astype(np.int64)
    discards = legal[legal < 34]
    near = []
    for t in discards:
        n = hand[t] - 1
        if t < 27:
            n += sum(hand[o] for o in range(t - 2, t + 3) if o != t and 0 <= o < 27 and o // 9 == t // 9)
        near.append(n)
    return int(rng.choice(discards[np.array(near) == min(near)]))


def _winners(settlement) -> list[int]:
    wins = settlement.get("wins", [settlement] if "input" in settlement else [])
    return [w["input"]["winner"] for w in wins]


# (preset, first hand, its dealer, the next hand's dealer)
MATCH_STARTS = [
    ("beijing", "drawn", 0, 0),          # 连庄 after a drawn hand
    ("beijing", "dealer wins", 0, 0),    # 连庄 after a dealer win (天和)
    ("beijing", "seat 1 wins", 0, 3),    # (dealer - 1) % 4
    ("hebei", "drawn", 2, 2),
    ("hebei", "seat 1 wins", 0, 1),      # (dealer + 1) % 4
]


def _first_hand(eng: Engine, start: str, dealer: int):
    """Script the match's first hand from an explicit wall; returns the step that ended it."""
    rules = eng.rules
    hui = {"indicator": "9s"} if rules.hui else {}
    if start == "drawn":
        hands = {dealer: "123m456m789m2345z6z", (dealer + 1) % 4: "234p567p345s789s6s",
                 (dealer + 2) % 4: "11m22m33m44p55p66p7z", (dealer + 3) % 4: "77m88m99m77p88p99p6z"}
        eng.reset(walls=[build_wall(rules, hands=hands, dealer=dealer, **hui)], dealers=[dealer])
        while True:
            res = _pass_or_discard_drawn(eng)
            if res.hand_over[0]:
                return res
    if start == "dealer wins":
        eng.reset(walls=[build_wall(rules, hands={0: "123m456m789p234s55z"}, dealer=0, **hui)], dealers=[0])
        assert eng.legal_mask()[0, WIN]
        return _act(eng, "win")
    eng.reset(walls=[build_wall(rules, dealer=0, **SELF_DRAW, **hui)], dealers=[0])
    _act(eng, "discard 5z")
    assert eng.state.to_act[0] == 1 and eng.legal_mask()[0, WIN]
    return _act(eng, "win")


def _play_match(preset, start, dealer, next_dealer, seed=0):
    rules = get_rules(preset, hands_per_episode=3)
    eng = Engine(rules, num_tables=1, seed=seed)
    res = _first_hand(eng, start, dealer)
    st = eng.state
    hand1 = res.settlements[0]
    assert res.hand_over[0] and not res.episode_over[0]
    assert res.rewards[0].tolist() == list(hand1["scores"]) and sum(hand1["scores"]) == 0
    assert ("draw" in hand1) is (start == "drawn")
    # The engine dealt the second hand itself, from a shuffled wall, to the next dealer.
    assert (int(st.dealer[0]), int(st.hands_played[0])) == (next_dealer, 1)
    assert (st.phase[0], int(st.to_act[0])) == (FAST_TURN, next_dealer)
    assert st.match_scores[0].tolist() == res.rewards[0].tolist()
    w = st.wall[0].tolist()
    assert sorted(w) == sorted(full_set(rules.n_tiles).tolist())
    assert st.hands[0, next_dealer].tolist() == counts(w[0:13] + [w[52]])
    assert st.hands[0, (next_dealer + 1) % 4].tolist() == counts(w[13:26])
    # Hands 2 and 3: seeded random play; each end moves the dealer by the rules.
    rng = np.random.default_rng(seed)
    totals = np.array(res.rewards[0], dtype=np.int64)
    log = [(start, dealer, list(hand1["scores"]))]
    for _ in range(2000):
        d = int(st.dealer[0])
        res = eng.step(np.array([_policy(eng, rng)]))
        totals += res.rewards[0]
        if not res.hand_over[0]:
            assert not res.rewards[0].any()
            continue
        s = res.settlements[0]
        winners = _winners(s)
        assert res.rewards[0].tolist() == list(s["scores"]) and sum(s["scores"]) == 0
        assert st.match_scores[0].tolist() == totals.tolist()
        log.append((winners, d, list(s["scores"])))
        if res.episode_over[0]:
            break
        stays = not winners or d in winners
        step = -1 if rules.dealer_rotation == "previous" else 1
        assert int(st.dealer[0]) == (d if stays else (d + step) % 4), (winners, d)
        assert int(st.hands_played[0]) == len(log) and st.phase[0] == FAST_TURN
    assert res.episode_over[0] and len(log) == 3 and int(st.hands_played[0]) == 3
    assert st.phase[0] == FAST_END and not eng.legal_mask().any()
    return log


@pytest.mark.parametrize("preset, start, dealer, next_dealer", MATCH_STARTS,
                         ids=[f"{p}-{s.replace(' ', '-')}" for p, s, _, _ in MATCH_STARTS])
def test_match_of_three_hands_rotates_the_dealer(preset, start, dealer, next_dealer):
    log = _play_match(preset, start, dealer, next_dealer)
    # seed 0: the shuffled second hand is won by a non-dealer, so the deal moves on once more
    winners, d, _ = log[1]
    assert winners and d not in winners
    if start == "seat 1 wins":
        assert log[0][2] == ([-9, 27, -9, -9] if preset == "beijing" else [-6, 14, -4, -4])


def test_a_match_replays_exactly_from_its_seed():
    a = _play_match("beijing", "drawn", 0, 0, seed=6)
    assert _play_match("beijing", "drawn", 0, 0, seed=6) == a
    # This seed's shuffled second hand is won by its dealer, who deals the third (连庄).
    assert [(winners, dealer) for winners, dealer, _ in a] == [("drawn", 0), ([0], 0), ([2], 0)]


def test_a_reset_starts_a_new_match():
    """docs/RULES.md 2: a match is ``hands_per_episode`` hands with the scores summed; a reset starts a new
    episode, so its hand count and summed scores start from zero again, not from the match it cut short."""
    eng = Engine(get_rules("beijing", hands_per_episode=2), num_tables=1, seed=0)
    for _ in range(2):
        res = _first_hand(eng, "seat 1 wins", 0)  # each call resets the engine to a scripted first hand
        assert res.hand_over[0] and not res.episode_over[0]  # one hand of two: the match goes on
        assert int(eng.state.hands_played[0]) == 1
        assert eng.state.match_scores[0].tolist() == res.rewards[0].tolist() == [-9, 27, -9, -9]



# ---------------------------------------------------------------------------------------------
# The next hand starts afresh: after a reset, and as the next hand of a match (batched engine)
# ---------------------------------------------------------------------------------------------

# Nobody claims, wins or meets four equal discards when every seat passes and discards its draw: a drawn hand.
DRAWN = {0: "123m456m789m2345z6z", 1: "234p567p345s789s6s", 2: "11m22m33m44p55p66p7z", 3: "77m88m99m77p88p99p6z"}
# HUBAO's winner, seat 1, moves the deal to seat 3 (docs/RULES.md 2). Its next hand as dealer: 3 discards 5z,
# seat 0 draws 6s and self-draws on its first draw (as SELF_DRAW, three seats on).
AFTER_HUBAO = {"hands": {3: "123m456m789m1234z5z", 0: "234p567p345s789s6s", 1: "11m22m33m44p55p66p7z",
                         2: "77m88m99m77p88p99p6z"}, "draws": "6s", "dealer": 3}
HUBAO_MOVES = ["discard 1m", "chi 123m", "discard 4z", "discard 9m", "discard 4z", "discard 4m", "chi 456m",
               "discard 5z", "discard 1p", "discard 6z", "discard 7p", "chi 789p", "discard 6z", "discard 9p",
               "discard 5z", "discard 6z", "win"]


def _two_hands(monkeypatch, how: str, second_wall: list[int]) -> Engine:
    """A one-table beijing engine whose hand after the first is dealt from ``second_wall``: by ``reset``
    ("reset"; see _second_hand), or by the engine itself as a match's second hand ("match": shuffled_walls
    rigged by walls.deals_first)."""
    if how == "reset":
        return Engine(BEIJING, num_tables=1)
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, second_wall, 1))
    return Engine(BEIJING.replace(hands_per_episode=2), num_tables=1)


def _second_hand(eng: Engine, how: str, first, second_wall: list[int], dealer: int) -> None:
    """The first hand ended at step result ``first``; deal the second: ``second_wall``, dealt by ``dealer``."""
    assert first.hand_over[0] and bool(first.episode_over[0]) is (how == "reset")
    if how == "reset":
        eng.reset(walls=[second_wall], dealers=[dealer])
    st = eng.state
    assert (st.wall[0].tolist(), int(st.dealer[0]), st.phase[0]) == (second_wall, dealer, FAST_TURN)


@pytest.mark.parametrize("how", ["reset", "match"])
def test_shaozhuang_rounds_do_not_carry_into_the_next_hand(monkeypatch, how):
    # docs/RULES.md 6.1: 烧庄 is counted and settled per hand. A round of 烧庄 and a drawn hand, then a drawn
    # hand without one: it settles nothing (from a mutation test: the deal kept the rounds).
    second = build_wall(BEIJING, indicator="9s", hands=DRAWN)
    eng = _two_hands(monkeypatch, how, second)
    eng.reset(walls=[build_wall(BEIJING, indicator="9s", **SHAOZHUANG)], dealers=[0])
    for _ in range(4):
        _act(eng, "discard 5z")
    assert int(eng.state.sz_rounds[0]) == 1
    res = _pass_or_discard_drawn(eng)
    while not res.hand_over[0]:
        res = _pass_or_discard_drawn(eng)
    assert res.settlements[0] == {"draw": True, "shaozhuang": 1, "scores": [-3, 1, 1, 1]}
    _second_hand(eng, how, res, second, dealer=0)  # a drawn hand keeps the dealer
    assert int(eng.state.sz_rounds[0]) == 0 and eng.state.sz_alive[0]
    res = _pass_or_discard_drawn(eng)
    while not res.hand_over[0]:
        res = _pass_or_discard_drawn(eng)
    assert res.episode_over[0] and res.settlements[0] == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}


@pytest.mark.parametrize("how", ["reset", "match"])
def test_hubao_claims_do_not_carry_into_the_next_hand(monkeypatch, how):
    # docs/RULES.md 6.1: 互包 binds two players by three claims "in this hand". Seat 1 chis three of seat
    # 0's discards and wins (HUBAO); in the next hand seat 0 self-draws and every other seat pays, seat 1
    # no more than the rest (from a mutation test: the deal kept the claim counts).
    second = build_wall(BEIJING, indicator="9s", **AFTER_HUBAO)
    eng = _two_hands(monkeypatch, how, second)
    eng.reset(walls=[build_wall(BEIJING, indicator="9s", **HUBAO)], dealers=[0])
    for move in HUBAO_MOVES:
        res = _act(eng, move)
    assert res.settlements[0]["input"]["hubao"] == [[0, 1]] and res.settlements[0]["scores"] == [-3, 3, 0, 0]
    _second_hand(eng, how, res, second, dealer=3)
    assert not eng.state.claims[0].any()
    _act(eng, "discard 5z")
    res = _act(eng, "win")
    s = res.settlements[0]
    assert (s["input"]["winner"], s["input"]["hubao"]) == (0, [])
    # 地和 8 + 门清无惠 1 = 9; self-draw: 3 x 9, each other seat -9 (bound to seat 1 it would pay 27 alone)
    assert s["patterns"] == {"地和": 8, "门清无惠": 1} and s["scores"] == [27, -9, -9, -9]


@pytest.mark.parametrize("how", ["reset", "match"])
def test_a_meld_in_the_previous_hand_leaves_tianhe_to_the_next(monkeypatch, how):
    # docs/RULES.md 6.1 and 6.4: 天和 (and 地和) is void once anyone has declared a meld in the hand, not in
    # an earlier one. Seat 1's chis of HUBAO, then seat 3 deals itself a winning 14 (from a mutation test:
    # the deal kept "a meld was declared").
    second = build_wall(BEIJING, indicator="9s", dealer=3, hands={3: "123m456m789m123p55z"})
    eng = _two_hands(monkeypatch, how, second)
    eng.reset(walls=[build_wall(BEIJING, indicator="9s", **HUBAO)], dealers=[0])
    for move in HUBAO_MOVES:
        res = _act(eng, move)
    _second_hand(eng, how, res, second, dealer=3)
    assert eng.legal_mask()[0, WIN]
    s = _act(eng, "win").settlements[0]
    assert s["input"]["situation"]["first_turn"] is True
    # 门清无惠 1 + 一条龙 3 + 天和 10 = 14, without 庄; self-draw 3 x 14
    assert s["patterns"] == {"门清无惠": 1, "一条龙": 3, "天和": 10} and s["scores"] == [-14, -14, -14, 42]


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_a_discard_after_a_kong_replacement_won_on_is_not_after_kong(new_game, rules):
    # 杠上开花 is the kong's own draw: seat 0's discard after its replacement, won on by seat 1, is a discard
    # win with "after_kong" False (the engine's flag is still up from the replacement)
    g = new_game(rules, hands={0: "5555m123p456p789p7z", 1: "234s456s789s111z6z"}, tail="6z")
    play(g, (0, "kong 5m"), (0, "discard 6z"))
    while g.to_act != 1:
        play(g, (g.to_act, "pass"))
    play(g, (1, "win"))
    (w,) = g.wins
    assert w["discarder"] == 0 and w["situation"]["after_kong"] is False
    assert "杠上开花" not in g.result["patterns"]


def test_quemen_a_win_on_the_discard_of_a_seat_that_declared_ting_is_not_doubled(new_game):
    # 报听 doubles the win of the seat that declared it: seat 3 winning on the 5p that seat 0 (报听) must discard
    # wins with "ting" False
    g = new_game(QUEMEN, hands={**TING_SCRIPT["hands"], 3: "123p46p789p66z777z"}, draws="5z3z9m5p")
    play(g, (0, "ting 9p"), (1, "discard 5z"), (2, "discard 3z"))
    if g.to_act == 1:
        play(g, (1, "pass"))
    play(g, (3, "discard 9m"), (0, "discard 5p"))
    play(g, (3, "win"))
    (w,) = g.wins
    assert g.ting_declared[0] is True and (w["winner"], w["discarder"], w["ting"]) == (3, 0, False)


def test_robbing_a_kong_after_a_kong_on_the_last_discard_is_no_last_tile(new_game):
    # beijing: seat 1 discards the last live tile (wall[120], 6z); seat 3 takes it as an exposed kong, draws
    # the reserve's 5m onto its pong of 5m and adds it; seat 2 (46m) robs it. A robbed kong is no 河底捞鱼:
    # "last_tile" False, although the last discard was made in a last-draw turn.
    wall = build_wall(BEIJING, indicator="9s", tail="5m",
                      hands={0: "111z222z333z44z5m", 2: "46m123p456p789p22s", 3: "55m9m789p234s666z7z"})
    swap_to(wall, 120, "6z")
    g = new_game(BEIJING, wall=wall)
    play(g, (0, "discard 5m"), (2, "pass"), (3, "pong"), (3, "discard 7z"))
    ponged = False
    while not (g.phase == "CLAIM" and g.to_act == 3 and "kong" in names(g)):
        if not ponged and g.phase == "CLAIM" and g.to_act == 0 and "pong" in names(g):
            play(g, (0, "pong"))  # the dealer's pong shifts the turns: seat 1 draws the last live tile
            ponged = True
        else:
            pass_and_discard_drawn(g)
    assert g.live_next == 121
    play(g, (3, "kong"), (3, "kong 5m"))
    assert g.to_act == 2 and "win" in names(g)
    play(g, (2, "win"))
    (w,) = g.wins
    assert w["discarder"] == 3 and w["situation"]["robbed_kong"] is True and w["situation"]["last_tile"] is False
