"""Tests of the reference engine (tests/ref_engine.py) itself: scripted hands from explicit walls,
the winning-shape helpers against brute force and the riichi ``mahjong`` package, and random play
with invariants.

Beijing scripts use indicator 9s, so the 惠牌 (wildcard) is 1s.
"""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from mahjong.agari import Agari
from ref_engine import END, Meld, RefGame
from ref_engine_rules import ORPHANS, is_seven_pairs, is_thirteen_orphans, is_winning_shape, melds_and_pair
from walls import build_wall

from mj_env import scoring
from mj_env.actions import PASS, TING, WIN, index, name
from mj_env.rules import get_rules
from mj_env.tiles import full_set, parse_tiles

BEIJING, HEBEI, QUEMEN = get_rules("beijing"), get_rules("hebei"), get_rules("quemen")


def new_game(rules=BEIJING, dealer=0, **wall) -> RefGame:
    if rules.hui:
        wall.setdefault("indicator", "9s")
    return RefGame(rules, build_wall(rules, dealer=dealer, **wall), dealer)


def names(g) -> list[str]:
    return [name(a) for a in g.legal()]


def play(g, *moves):
    """Each move is (seat, action name); the seat must be the one asked."""
    for seat, action in moves:
        assert (g.phase, g.to_act) != (END, None), f"hand ended before {seat}: {action}"
        assert g.to_act == seat, f"expected seat {seat} to act for {action!r}; {g.phase} seat {g.to_act}: {names(g)}"
        g.step(index(action))


def tiles(text: str) -> list[int]:
    return parse_tiles(text)


def meld(kind: str, text: str, from_seat) -> Meld:
    return Meld(kind, tuple(parse_tiles(text)), from_seat)


def hand_of(g, seat) -> Counter:
    return Counter({k: c for k, c in enumerate(g.hands[seat]) if c})


# ---------------------------------------------------------------------------------------------
# Wall builder
# ---------------------------------------------------------------------------------------------

def test_build_wall_places_hands_draws_indicator_and_tail():
    w = build_wall(BEIJING, hands={1: "123m", 0: "11z"}, draws="5p6p", indicator="3m",
                   tail="7z6z", dealer=1)
    assert sorted(w) == sorted(int(t) for t in full_set(136))
    assert w[0:3] == list(tiles("123m"))  # seat 1 is the dealer
    assert w[39:41] == list(tiles("11z"))  # seat 0 = dealer + 3
    assert w[53:55] == list(tiles("5p6p"))
    assert w[-1] == tiles("3m")[0] and w[-2] == tiles("7z")[0] and w[-3] == tiles("6z")[0]
    # Without hui the tail starts at wall[-1]; the dealer's 14th written tile is wall[52].
    w = build_wall(HEBEI, hands={2: "12345678912345m"}, tail="5z", dealer=2)
    assert w[12] == tiles("4m")[0] and w[52] == tiles("5m")[0] and w[-1] == tiles("5z")[0]


def test_build_wall_refuses_impossible_layouts():
    with pytest.raises(ValueError, match="no 1m left"):
        build_wall(BEIJING, hands={0: "11m", 1: "111m"})
    with pytest.raises(ValueError, match="no indicator"):
        build_wall(HEBEI, indicator="1m")
    with pytest.raises(ValueError, match="dealt 13 tiles"):
        build_wall(BEIJING, hands={1: "11112222333344m"})


def test_build_wall_keeps_unplaced_flowers_out_of_scripted_places():
    w = build_wall(QUEMEN, hands={0: "123m"}, draws="9p9p", tail="1z")
    flower_slots = [i for i, t in enumerate(w) if t >= 34]
    assert len(flower_slots) == 8 and all(60 < i < 135 for i in flower_slots)


# ---------------------------------------------------------------------------------------------
# Winning shapes (ref_engine_rules), checked against brute force and the mahjong package
# ---------------------------------------------------------------------------------------------

def counts_of(text: str) -> list[int]:
    c = [0] * 34
    for t in parse_tiles(text):
        c[t] += 1
    return c


@pytest.mark.parametrize("hand, wild, melds, win", [
    ("123m456m789m123p55z", 0, 0, True),
    ("123m456m789m123p5z", 1, 0, True),        # wildcard pairs the 5z
    ("13m456m789m123p55z", 1, 0, True),         # wildcard fills the 2m
    ("89m456m789p123p55z", 1, 0, True),         # wildcard is 7m below the lowest tile
    ("11112222333344m", 0, 0, True),            # 111 123 123 234 44
    ("1133557799m1133p", 0, 0, True),           # seven pairs
    ("111m2233p445566s7z", 0, 0, False),
    ("11335577m1133p", 2, 0, True),             # seven pairs with two wildcards
    ("5z", 1, 4, True),                         # single wait, wildcard pairs it
    ("56z", 0, 4, False),
    ("19m19p19s12345677z", 0, 0, False),        # orphans are not a beijing shape
])
def test_winning_shapes_beijing(hand, wild, melds, win):
    assert is_winning_shape(BEIJING, counts_of(hand), wild, melds) is win


def test_thirteen_orphans_needs_a_dragon_as_the_extra_tile():
    assert is_winning_shape(HEBEI, counts_of("19m19p19s12345677z"), 0, 0)
    assert not is_winning_shape(HEBEI, counts_of("119m19p19s1234567z"), 0, 0)
    assert is_winning_shape(HEBEI.replace(orphans_extra_dragon=False), counts_of("119m19p19s1234567z"), 0, 0)
    assert is_thirteen_orphans(counts_of("19m19p19s1234567z"), 1, True)
    assert is_thirteen_orphans(counts_of("19m19p19s1234577z"), 1, True)  # wildcard is the 6z
    assert not is_thirteen_orphans(counts_of("19m19p19s1123456z"), 1, True)  # extra 1z, not a dragon


def test_seven_pairs_counts_a_four_as_two_pairs_and_needs_no_melds():
    assert is_winning_shape(BEIJING, counts_of("1111m3355p77s1177z"), 0, 0)
    assert not is_winning_shape(BEIJING.replace(seven_pairs=False), counts_of("1111m3355p77s1177z"), 0, 0)
    assert is_seven_pairs(counts_of("1111m3355p77s117z"), 1)


def random_complete_hand(rng) -> list[int]:
    """A random standard-shape hand of 14 (no kind above 4), from random melds and a pair."""
    while True:
        c = [0] * 34
        for _ in range(4):
            if rng.random() < 0.5:
                s = rng.choice([9 * suit + n for suit in range(3) for n in range(7)])
                for k in (s, s + 1, s + 2):
                    c[k] += 1
            else:
                c[rng.randrange(34)] += 3
        c[rng.randrange(34)] += 2
        if max(c) <= 4:
            return c


def test_shapes_without_wildcards_agree_with_the_mahjong_package():
    rng, agari, outcomes = random.Random(1), Agari(), Counter()
    for _ in range(3000):
        c = random_complete_hand(rng)
        if rng.random() < 0.6:  # move one tile: mostly non-winning hands
            src = rng.choice([k for k in range(34) if c[k]])
            dst = rng.choice([k for k in range(34) if c[k] < 4 and k != src])
            c[src] -= 1
            c[dst] += 1
        # The package's seven pairs needs seven different kinds; its orphans take any extra orphan.
        riichi_seven_pairs = sorted(c).count(2) == 7
        riichi_orphans = all(c[k] >= 1 for k in ORPHANS) and sum(c[k] for k in ORPHANS) == 14
        ours = melds_and_pair(c, 0) or riichi_seven_pairs or riichi_orphans
        assert ours == agari.is_agari(c), c
        outcomes[ours] += 1
    assert min(outcomes.values()) > 500


def test_wildcards_agree_with_trying_every_kind():
    """A wildcard stands for any kind (a fifth copy too): substitute literally and compare."""
    rng = random.Random(2)
    outcomes = Counter()
    for trial in range(300):
        wild = 1 if trial % 4 else 2
        c = random_complete_hand(rng)
        for _ in range(wild):  # take wild tiles away, then maybe disturb one more
            c[rng.choice([k for k in range(34) if c[k]])] -= 1
        if rng.random() < 0.5:
            src = rng.choice([k for k in range(34) if c[k]])
            c[src] -= 1
            c[rng.randrange(34)] += 1
        brute = False
        for kinds in itertools.combinations_with_replacement(range(34), wild):
            d = list(c)
            for k in kinds:
                d[k] += 1
            if melds_and_pair(d, 0) or is_seven_pairs(d, 0):
                brute = True
                break
        assert is_winning_shape(BEIJING, c, wild, 0) == brute, (c, wild)
        outcomes[brute] += 1
    assert min(outcomes.values()) > 50  # both answers well represented


# ---------------------------------------------------------------------------------------------
# Scripted beijing hands
# ---------------------------------------------------------------------------------------------

SELF_DRAW = {"hands": {0: "123m456m789m1234z5z", 1: "234p567p345s789s6s",
                        2: "11m22m33m44p55p66p7z", 3: "77m88m99m77p88p99p6z"}, "draws": "6s"}


def test_self_draw_win():
    g = new_game(**SELF_DRAW)
    assert (g.phase, g.to_act, g.hui, g.indicator) == ("TURN", 0, tiles("1s")[0], tiles("9s")[0])
    assert "win" not in names(g) and not any(n.startswith("kong") for n in names(g))
    play(g, (0, "discard 5z"))  # nobody can claim 5z: seat 1 draws 6s
    assert (g.phase, g.to_act) == ("TURN", 1) and "win" in names(g)
    play(g, (1, "win"))
    assert g.phase == END and g.to_act is None and g.legal() == []
    (w,) = g.wins
    assert (w["winner"], w["discarder"], w["hand"], w["win_tile"], w["hui"]) == (1, None, "234567p3456789s", "6s", "1s")
    assert w["situation"] == {"last_tile": False, "after_kong": False, "robbed_kong": False, "first_turn": True}
    assert g.river[0] == tiles("5z") and g.next_dealer == 3  # a non-dealer won: (dealer - 1) % 4


# Dealer discards 5m: seat 3 may win (5m pair), seat 2 may pong, seat 1 may chi 456m.
QUEUE = {0: "111z222z333z44z5m", 1: "46m234p567p79p55z9s", 2: "55m789m345s678s6z7z",
         3: "123p456p789p222s5m"}


def test_claim_queue_asks_win_then_pong_then_chi():
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])
    play(g, (3, "pass"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong"])
    play(g, (2, "pass"))
    assert (g.to_act, names(g)) == (1, ["pass", "chi 456m"])
    play(g, (1, "pass"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.river[0] == tiles("5m")  # seat 1 drew


def test_claim_win_ends_the_hand_on_the_discard():
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"), (3, "win"))
    assert g.phase == END and g.winners == [3] and g.river[0] == [] and g.claimed_win_tile == tiles("5m")[0]
    (w,) = g.wins
    assert (w["discarder"], w["win_tile"], w["hand"]) == (0, "5m", "5m123456789p222s")
    assert w["situation"]["first_turn"] is True  # seat 3 has not discarded: 地和 timing


def test_claim_pong_and_chi_are_carried_out():
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"), (3, "pass"), (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2)
    assert all(n.startswith("discard") for n in names(g))  # no win, no kong after a pong
    assert g.melds[2] == [meld("pong", "555m", 0)] and g.river[0] == []
    assert g.claims_from[2][0] == 1 and g.hands[2][4] == 0
    g = new_game(hands=QUEUE)
    play(g, (0, "discard 5m"), (3, "pass"), (2, "pass"), (1, "chi 456m"))
    assert (g.phase, g.to_act) == ("TURN", 1) and g.melds[1] == [meld("chi", "456m", 0)]
    assert all(n.startswith("discard") for n in names(g))


# Seats 1 and 3 may both win on the dealer's 5m.
TWO_WINNERS = {**QUEUE, 1: "46m234p567p789p55z"}


def test_first_accepted_win_takes_the_tile():
    g = new_game(hands=TWO_WINNERS)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass", "chi 456m"])
    play(g, (1, "win"))
    assert g.phase == END and g.winners == [1]  # seat 3 is not asked
    g = new_game(hands=TWO_WINNERS)
    play(g, (0, "discard 5m"), (1, "pass"), (3, "win"))
    assert g.phase == END and g.winners == [3]


def test_pending_chi_is_overridden_by_a_later_pong():
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


# Seat 1 pongs the dealer's 5m, draws the fourth 5m later and declares an added kong; seat 3
# waits on 5m (4m6m) with a concealed hand.
ROB = {"hands": {0: "111z222z333z44z5m", 1: "55m789p234s567s6z7z", 2: "11m22m33m77s88s99s6z",
                  3: "46m123p456p789p22s"},
           "draws": "5z5z5z5m", "tail": "3m"}
ROB_MOVES = [(0, "discard 5m"), (3, "pass"), (1, "pong"), (1, "discard 7z"),
             (2, "discard 5z"), (3, "discard 5z"), (0, "discard 5z")]


def test_added_kong_is_robbed():
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
    assert g.claimed_win_tile == tiles("5m")[0]


def test_added_kong_completes_when_nobody_robs():
    g = new_game(**ROB)
    play(g, *ROB_MOVES, (1, "kong 5m"), (3, "pass"))
    assert (g.phase, g.to_act) == ("TURN", 1)
    assert g.melds[1] == [meld("added_kong", "5555m", 0)] and g.kongs == [(1, "added", None)]
    assert g.hands[1][tiles("3m")[0]] == 1 and g.turn_source == "kong"  # replacement from wall[-2]


KONGS = {0: "5555m6666m123p77z4z", 1: "11m22m33m88s99s5z6z", 2: "444z789p789s12m", 3: "12345p234567s9p"}


def test_concealed_kong_takes_its_replacement_from_the_reserve():
    g = new_game(hands=KONGS, tail="3z2z")
    assert {"kong 5m", "kong 6m"} <= set(names(g))
    play(g, (0, "kong 5m"))
    assert (g.phase, g.to_act) == ("TURN", 0) and "kong 6m" in names(g)
    assert g.melds[0] == [meld("concealed_kong", "5555m", None)] and g.hands[0][29] == 1  # 3z
    assert len(g.undrawn()) == 68 + 13 and g.live_end == 136 - 15
    play(g, (0, "discard 4z"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong", "kong"])


def test_no_kong_once_the_reserve_is_empty():
    g = new_game(BEIJING.replace(reserve=1), hands=KONGS, tail="3z")
    assert g.live_end == 136 - 2  # live wall wall[53:-2]
    play(g, (0, "kong 5m"))
    assert "kong 6m" not in names(g) and not g.kong_possible()
    play(g, (0, "discard 4z"))
    assert (g.to_act, names(g)) == (2, ["pass", "pong"])  # no exposed kong either


def pass_and_discard_drawn(g):
    """One step of a player who never wins or kongs: pass every claim, discard the tile just
    drawn (after a chi or pong, the lowest tile)."""
    if g.phase != "TURN":
        return g.step(PASS)
    discards = [a for a in g.legal() if a < 34]
    g.step(g.turn_tile if g.turn_tile in discards else discards[0])


def count_live_draws_to_the_end(g) -> int:
    draws = 0
    while g.phase != END:
        before = g.live_next
        pass_and_discard_drawn(g)
        draws += g.live_next - before
    return draws


def test_exhaustive_draw_beijing_after_the_68_live_tiles():
    # No hand holds a 惠牌 (1s), and each keeps its 13 tiles, so 四惠牌 cannot happen.
    hands = {0: "123m456m789m2345z6z", 1: "234p567p345s789s6s", 2: "11m22m33m44p55p66p7z",
             3: "77m88m99m77p88p99p6z"}
    g = new_game(hands=hands)
    assert count_live_draws_to_the_end(g) == 68
    assert g.wins == [] and g.live_next == g.live_end and len(g.undrawn()) == 14
    assert g.next_dealer == 0


@pytest.mark.parametrize("kong, live_draws", [(False, 71), (True, 69)])
def test_exhaustive_draw_hebei_keeps_six_stacks(kong, live_draws):
    g = new_game(HEBEI, hands={0: "5555m123p789p1234z" if kong else "159m123p789p12345z"})
    if kong:
        play(g, (0, "kong 5m"))
        assert g.replacements_taken == 1
    # 83 undrawn after the deal; 12 are kept, 13 when an odd number of replacements was taken.
    assert count_live_draws_to_the_end(g) == live_draws
    assert g.wins == [] and len(g.undrawn()) == (13 if kong else 12)


def test_illegal_action_raises_and_changes_nothing():
    g = new_game(hands=QUEUE)
    before = (g.phase, g.to_act, [list(h) for h in g.hands], g.legal())
    for bad in (index("discard 9p"), PASS, WIN, 999, "win"):
        with pytest.raises(ValueError, match="illegal"):
            g.step(bad)
    assert (g.phase, g.to_act, [list(h) for h in g.hands], g.legal()) == before


# ---------------------------------------------------------------------------------------------
# 惠牌 rules, 烧庄, 互包 (beijing)
# ---------------------------------------------------------------------------------------------

def test_four_hui_wins_at_once_on_the_dealers_first_turn():
    g = new_game(hands={0: "234m567m8p345z1111s"})  # the fourth 1s is wall[52]
    assert g.phase == END and g.winners == [0]
    (w,) = g.wins
    assert (w["hand"], w["win_tile"], w["discarder"]) == ("234567m8p111s345z", "1s", None)
    assert w["situation"]["first_turn"] is True
    assert g.result["patterns"] == {"庄": 1, "四惠牌": 8} and g.result["scores"] == [27, -9, -9, -9]


def test_four_hui_wins_at_once_after_a_draw():
    g = new_game(hands={**SELF_DRAW["hands"], 1: "111s234m567m89p45z"}, draws="1s")
    play(g, (0, "discard 5z"))  # seat 1 (three 惠牌) may not win on it; it draws the fourth
    assert g.phase == END and g.winners == [1] and g.wins[0]["win_tile"] == "1s"
    assert g.wins[0]["discarder"] is None


THREE_HUI = {"hands": {0: "234p567p234s567s9m5z", 1: "11m22m33m44m88p99p7z", 2: "667788m3344p77z2z",
                        3: "111s234m567m789p5z"}, "draws": "6z6z5z"}


def test_three_hui_forbid_a_discard_win_but_not_a_self_draw():
    g = new_game(**THREE_HUI)
    play(g, (0, "discard 5z"))  # seat 3 waits on 5z with three 1s: not asked at all
    assert (g.phase, g.to_act) == ("TURN", 1)
    play(g, (1, "discard 6z"), (2, "discard 6z"))
    assert (g.phase, g.to_act) == ("TURN", 3) and "win" in names(g)
    g = new_game(BEIJING.replace(self_draw_only_hui=4), **THREE_HUI)
    play(g, (0, "discard 5z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])


# Seat 2 pongs the dealer's 7z, then waits on 5p; seat 3 discards 5p.
CLAIMED = {"hands": {0: "123s456s789s1234z7z", 1: "11m88m11p22p33s44s5z", 2: "77z234m567m789p5p9s",
                      3: "66m34p66p66s8s9s2z5z6z"}, "draws": "5p"}


@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_a_claimed_hand_wins_on_a_discard_only_in_hebei(rules):
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


SHAOZHUANG = {"hands": {0: "147m258p369s1234z5z", 1: "11m22m33p44p55s66s7z", 2: "123m456m789m234p9p",
                         3: "77m88m66p77p88s99s2z"}, "draws": "5z5z5z6z7z9p"}


def test_one_round_of_shaozhuang():
    g = new_game(**SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    assert g.shaozhuang_rounds == 1 and g.shaozhuang_alive
    play(g, (0, "discard 6z"), (1, "discard 7z"))  # the second round breaks
    assert g.shaozhuang_rounds == 1 and not g.shaozhuang_alive
    play(g, (2, "win"))
    assert g.wins[0]["shaozhuang_rounds"] == 1
    res = g.result
    f = res["fan"]
    assert res["shaozhuang"] == 1 and res["scores"] == [-f - 3, -f + 1, 3 * f + 1, -f + 1]


def test_a_claim_ends_shaozhuang():
    g = new_game(hands={**SHAOZHUANG["hands"], 2: "123m456m789m55z9p"})
    play(g, (0, "discard 5z"), (2, "pong"))
    assert not g.shaozhuang_alive and g.shaozhuang_rounds == 0


# Seat 1 chis the dealer's 1m, 4m and 7p, then self-draws 3z.
HUBAO = {"hands": {0: "1489m37p3458s117z9s", 1: "23m56m89p2223456z", 2: "258m258p258s4567z",
                    3: "369m369p369s1237z"}, "draws": "9m4z5z1p6z4z9p5z6z3z"}


def test_hubao_binds_two_seats_after_three_claims():
    g = new_game(**HUBAO)
    play(g, (0, "discard 1m"), (1, "chi 123m"), (1, "discard 4z"),
         (2, "discard 9m"), (3, "discard 4z"), (0, "discard 4m"), (1, "chi 456m"), (1, "discard 5z"),
         (2, "discard 1p"), (3, "discard 6z"), (0, "discard 7p"))
    assert g.hubao_pairs() == []
    play(g, (1, "chi 789p"))
    assert g.hubao_pairs() == [[0, 1]] and g.claims_from[1][0] == 3
    play(g, (1, "discard 6z"), (2, "discard 9p"), (3, "discard 5z"), (0, "discard 6z"), (1, "win"))
    (w,) = g.wins
    assert w["hubao"] == [[0, 1]] and [m["type"] for m in w["melds"]] == ["chi"] * 3
    res = g.result
    assert res["fan"] == 1 and res["scores"] == [-3, 3, 0, 0]  # the dealer pays all of 3F


# ---------------------------------------------------------------------------------------------
# hebei and quemen
# ---------------------------------------------------------------------------------------------

def test_hebei_several_winners_on_one_discard():
    g = new_game(HEBEI, hands=TWO_WINNERS)
    play(g, (0, "discard 5m"))
    assert (g.to_act, names(g)) == (1, ["win", "pass"])
    play(g, (1, "win"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 3, ["win", "pass"])  # win/pass only now
    play(g, (3, "win"))
    assert g.phase == END and g.winners == [1, 3]
    res = g.result
    assert [w["input"]["winner"] for w in res["wins"]] == [1, 3]
    assert res["scores"] == [sum(w["scores"][i] for w in res["wins"]) for i in range(4)]
    assert sum(res["scores"]) == 0 and res["scores"][0] < 0
    # A pending pong is replaced by a later win; seats that only pong are then not asked.
    g = new_game(HEBEI, hands=TWO_WINNERS)
    play(g, (0, "discard 5m"), (1, "pass"), (3, "pass"), (2, "pong"))
    assert (g.phase, g.to_act) == ("TURN", 2)


def test_quemen_flowers_are_laid_out_and_replaced_from_the_tail():
    g = new_game(QUEMEN, hands={0: "123m456m789m11z22z1f", 2: "2f3f"}, draws="4f", tail="5m6z7z8m")
    assert g.flowers == [[34], [], [35, 36], []]
    assert g.turn_tile == tiles("5m")[0] and g.hands[0][4] == 2  # wall[52] was the flower
    assert g.hands[2][32] == 1 and g.hands[2][33] == 1 and sum(g.hands[2]) == 13
    play(g, (0, "discard 2z"))
    assert (g.to_act, g.flowers[1], g.turn_tile) == (1, [37], tiles("8m")[0])
    assert len(g.undrawn()) == 144 - 53 - 1 - 4


TING_SCRIPT = {"hands": {0: "123m456m789m11z22z9p", 1: "123m456p789s33z44z", 2: "147m258p369s1234z",
                   3: "258m147p147s567z9m"}, "draws": "5z3z2z5p6z7z7z1z"}


def test_quemen_ting_and_a_hand_holding_three_suits():
    g = new_game(QUEMEN, **TING_SCRIPT)
    assert [n for n in names(g) if n.startswith("ting")] == ["ting 9p"]
    play(g, (0, "ting 9p"), (1, "discard 5z"), (2, "discard 3z"))
    assert (g.to_act, names(g)) == (1, ["pass", "pong"])  # seat 1 holds three suits: no win
    play(g, (1, "pass"), (3, "discard 2z"))
    assert (g.to_act, names(g)) == (0, ["win", "pass"])  # after 报听 no pong, only a win
    play(g, (0, "pass"))
    assert (g.to_act, names(g)) == (0, ["discard 5p"])  # after 报听 only the tile just drawn
    play(g, (0, "discard 5p"), (1, "discard 6z"), (2, "discard 7z"), (3, "discard 7z"))
    assert names(g) == ["discard 1z", "win"]
    play(g, (0, "win"))
    assert g.wins[0]["ting"] is True and g.wins[0]["hand"] == "123456789m1122z"
    assert g.result["legal"] is True and sum(g.result["scores"]) == 0


# ---------------------------------------------------------------------------------------------
# Random play: invariants
# ---------------------------------------------------------------------------------------------

def check_tiles_accounted_for(g):
    seen = Counter(g.undrawn())
    for s in range(4):
        seen.update({k: c for k, c in enumerate(g.hands[s]) if c})
        for physical in g.meld_physical[s]:
            seen.update(physical)
        seen.update(g.river[s])
        seen.update(g.flowers[s])
    if g.indicator is not None:
        seen[g.indicator] += 1
    if g.claimed_win_tile is not None:
        seen[g.claimed_win_tile] += 1
    assert seen == Counter(int(t) for t in full_set(g.rules.n_tiles))


def check_hand_sizes(g):
    for s in range(4):
        size = sum(g.hands[s]) + 3 * len(g.melds[s])
        holds_14 = (g.phase == "TURN" and s == g.to_act) or (g.phase == "ROB" and s == g.kong_declarer)
        if g.phase == END:
            holds_14 = s in g.winners and g.wins[g.winners.index(s)]["discarder"] is None
        assert size == (14 if holds_14 else 13), (s, g.phase, size)


def isolation(hand, kind: int) -> int:
    """How many other tiles in the hand are of the same kind or within two in the same suit."""
    near = hand[kind] - 1
    for other in (kind - 2, kind - 1, kind + 1, kind + 2):
        if kind < 27 and 0 <= other < 27 and other // 9 == kind // 9:
            near += hand[other]
    return near


def choose(g, rng) -> int:
    """A random player that wins when it can, often claims, and mostly discards isolated tiles,
    so that hands end in wins often enough to exercise scoring."""
    acts = g.legal()
    if WIN in acts and rng.random() < 0.9:
        return WIN
    claims = [a for a in acts if WIN < a < TING and a != PASS]
    if claims and rng.random() < 0.5:
        return rng.choice(claims)
    if g.phase != "TURN" or rng.random() < 0.2:
        return rng.choice(acts)
    near = {a: isolation(g.hands[g.to_act], a) for a in acts if a < 34}
    fewest = min(near.values())
    return rng.choice([a for a, n in near.items() if n == fewest])


@pytest.mark.parametrize("rules", [BEIJING, BEIJING.replace(hui_wild_in_melds=True), HEBEI, QUEMEN],
                         ids=["beijing", "beijing-hui-in-melds", "hebei", "quemen"])
def test_random_play_invariants(rules):
    n_hands = 200 if rules in (BEIJING, HEBEI, QUEMEN) else 50
    seen = Counter()
    for seed in range(n_hands):
        rng = random.Random(seed)
        wall = [int(t) for t in full_set(rules.n_tiles)]
        rng.shuffle(wall)
        g = RefGame(rules, wall, dealer=seed % 4)
        steps = 0
        while g.phase != END:
            assert g.legal() and g.to_act in (0, 1, 2, 3)
            action = choose(g, rng)
            seen[g.phase, name(action).split()[0]] += 1
            g.step(action)
            steps += 1
            assert steps < 1000, "the hand does not end"
            if steps % 10 == 0:
                check_tiles_accounted_for(g)
                check_hand_sizes(g)
        check_tiles_accounted_for(g)
        check_hand_sizes(g)
        res = g.result
        wins = res.get("wins", [res] if g.wins else [])
        assert all(w["legal"] for w in wins), res
        assert sum(res["scores"]) == 0, res
        if not g.wins:
            assert not g.can_draw() and g.next_dealer == g.dealer  # drawn only when the wall ran out
        seen["won" if g.wins else "drawn"] += 1
    # The play reaches wins, draws, kongs and claims.
    assert seen["won"] >= n_hands // 5 and seen["drawn"] >= n_hands // 5, seen
    assert seen["TURN", "kong"] + seen["CLAIM", "kong"] >= 5 and seen["CLAIM", "pong"] >= 50, seen
    assert seen["CLAIM", "chi"] >= 50 or not rules.chi, seen
    assert seen["TURN", "ting"] >= 5 or not rules.ting, seen


# ---------------------------------------------------------------------------------------------
# Flags and payments: 杠上开花, kong payments, 海底, a drawn hand's 烧庄
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", [BEIJING, HEBEI], ids=["beijing", "hebei"])
def test_win_on_a_kong_replacement(rules):
    g = new_game(rules, hands={0: "5555m123p456p789p7z"}, tail="7z")
    play(g, (0, "kong 5m"))
    assert "win" in names(g) and g.turn_source == "kong"
    play(g, (0, "win"))
    (w,) = g.wins
    assert w["melds"] == [{"type": "concealed_kong", "tiles": "5555m"}] and w["hand"] == "123456789p7z"
    assert w["situation"] == {"last_tile": False, "after_kong": True, "robbed_kong": False, "first_turn": False}
    res = g.result
    assert "杠上开花" in res["patterns"] and sum(res["scores"]) == 0
    kong_pay = [6, -2, -2, -2] if rules.kong_payments else [0, 0, 0, 0]  # hebei 暗杠: each other pays 2
    assert res["scores"] == [a + b for a, b in zip(scoring.evaluate(w)["scores"], kong_pay)]


def test_exposed_kong_on_a_discard_draws_a_replacement():
    g = new_game(hands=KONGS, tail="3z2z")
    play(g, (0, "discard 4z"), (2, "kong"))
    assert (g.phase, g.to_act, g.turn_source) == ("TURN", 2, "kong")
    assert g.melds[2] == [meld("kong", "4444z", 0)] and g.kongs == [(2, "exposed", 0)]
    assert g.hands[2][tiles("3z")[0]] == 1 and g.claims_from[2][0] == 1 and g.river[0] == []


def hand_with_last_live_tile(hands: dict, last: str) -> RefGame:
    """A beijing game whose last live tile (wall[120], drawn by the dealer when nobody claims)
    is ``last``: the free copy of it is swapped there."""
    wall = build_wall(BEIJING, hands=hands, indicator="9s")
    t = tiles(last)[0]
    free = next(i for i in range(53, 121) if wall[i] == t)
    wall[free], wall[120] = wall[120], wall[free]
    return RefGame(BEIJING, wall, 0)


def test_last_live_tile_self_draw_and_its_discard():
    # Every hand is given and none holds a 惠牌 (1s): no 四惠牌 can end the hand early.
    seat3 = "4m5m6m2s3s4s5s6s7s8s2z3z4z"
    # The dealer waits on 5z; seat 1 holds the other two copies and never lets them go.
    g = hand_with_last_live_tile({0: "123m456m789m123p5z9m", 1: "55z11m22m33p44p66p", 2: "77m88m99m77p8p9p4z",
                                  3: seat3}, last="5z")
    while g.live_next < g.live_end:
        pass_and_discard_drawn(g)
    assert (g.phase, g.to_act, g.turn_tile) == ("TURN", 0, tiles("5z")[0]) and g.drew_last
    play(g, (0, "win"))
    assert g.wins[0]["situation"]["last_tile"] is True
    # Seat 1 waits on 6z; the dealer draws the last 6z and lets it go.
    g = hand_with_last_live_tile({0: "123m456m789m123p5z9m", 1: "234p567p345s789s6z", 2: "66z77m88m99m77p8p9p4z",
                                  3: seat3}, last="6z")
    while g.live_next < g.live_end:
        pass_and_discard_drawn(g)
    play(g, (0, "discard 6z"))
    assert (g.phase, g.to_act, names(g)) == ("CLAIM", 1, ["win", "pass"])
    play(g, (1, "win"))
    assert g.wins[0]["situation"]["last_tile"] is True and g.wins[0]["discarder"] == 0


def test_a_drawn_hand_still_settles_shaozhuang():
    g = new_game(**SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    count_live_draws_to_the_end(g)
    assert g.wins == [] and g.shaozhuang_rounds == 1
    assert g.result == {"draw": True, "shaozhuang": 1, "scores": [-3, 1, 1, 1]}
    g = new_game(BEIJING.replace(shaozhuang_on_draw=False), **SHAOZHUANG)
    play(g, (0, "discard 5z"), (1, "discard 5z"), (2, "discard 5z"), (3, "discard 5z"))
    count_live_draws_to_the_end(g)
    assert g.shaozhuang_rounds == 1 and g.result == {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}
