"""Tests of the reference engine (tests/ref_engine.py) itself: the wall builder, the
winning-shape checker it uses (``ref_hand.is_win``, the tests' one reference checker, through
``ref_engine_rules.is_winning_shape``) against brute force and the riichi ``mahjong`` package,
and random play with invariants.

The scripted hands from explicit walls are in tests/test_scenarios.py, where each runs on both
the reference engine and the batched engine.
"""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from mahjong.agari import Agari
from ref_engine import END, RefGame
from ref_engine_rules import is_winning_shape
from ref_hand import ORPHANS, is_win, orphans_need, seven_pairs_need, standard_need
from walls import build_wall

from mj_env.actions import PASS, TING, WIN, name
from mj_env.rules import get_rules
from mj_env.tiles import full_set, parse_tiles

BEIJING, HEBEI, QUEMEN = get_rules("beijing"), get_rules("hebei"), get_rules("quemen")


def tiles(text: str) -> list[int]:
    return parse_tiles(text)


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
# Winning shapes (ref_hand, as ref_engine_rules asks it), against brute force and the mahjong package
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
    assert is_winning_shape(HEBEI, counts_of("19m19p19s1234567z"), 1, 0)
    assert is_winning_shape(HEBEI, counts_of("19m19p19s1234577z"), 1, 0)  # wildcard is the 6z
    assert not is_winning_shape(HEBEI, counts_of("19m19p19s1123456z"), 1, 0)  # extra 1z, not a dragon
    assert orphans_need(counts_of("19m19p19s1123456z"), False) == 1
    assert not is_winning_shape(BEIJING, counts_of("19m19p19s12345677z"), 0, 0)  # no orphans in beijing


def test_seven_pairs_counts_a_four_as_two_pairs_and_needs_no_melds():
    assert is_winning_shape(BEIJING, counts_of("1111m3355p77s1177z"), 0, 0)
    assert not is_winning_shape(BEIJING.replace(seven_pairs=False), counts_of("1111m3355p77s1177z"), 0, 0)
    assert is_winning_shape(BEIJING, counts_of("1111m3355p77s117z"), 1, 0)
    assert seven_pairs_need(counts_of("1111m3355p77s117z")) == 1


def test_declared_melds_fix_the_tile_count():
    """Beside k declared melds a winning hand holds 14 - 3k concealed tiles, so seven pairs and
    thirteen orphans (14 concealed tiles) need k = 0; a wrong count is an error."""
    assert is_win(counts_of("1133m5577s1122z"), 2, melds=0)  # seven pairs, the wildcards a pair
    assert not is_win(counts_of("1133m5577s1122z"), 2, melds=0, seven_pairs=False)
    assert is_winning_shape(QUEMEN, counts_of("123m456m789s22z"), 0, 1)
    assert is_winning_shape(QUEMEN, counts_of("22z"), 0, 4)
    with pytest.raises(ValueError, match="1 declared melds has 11 concealed tiles when it wins, not 12"):
        is_winning_shape(BEIJING, counts_of("123m456m789s22z"), 1, 1)
    with pytest.raises(ValueError, match="not 13"):
        is_win(counts_of("123m456m789s22z12p"), 0, melds=0)


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
        ours = standard_need(c) == 0 or riichi_seven_pairs or riichi_orphans
        assert (standard_need(c) == 0) == is_win(c, 0, seven_pairs=False)
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
            if is_win(d, 0):
                brute = True
                break
        assert is_winning_shape(BEIJING, c, wild, 0) == brute, (c, wild)
        outcomes[brute] += 1
    assert min(outcomes.values()) > 50  # both answers well represented


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
