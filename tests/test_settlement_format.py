"""docs/RULES.md 6.4 on settlements: ``scores`` are what the hand pays in total (kong payments
included); where kong payments exist (hebei and quemen wins, quemen drawn hands), ``hand_scores``
are the wins alone (summed over the winners when several win on one discard) and ``kong_scores``
the kong payments, zeros included when no kong was paid."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.engine import Engine


def greedy_random(mask, rng):
    act = uniform_legal(mask, rng, empty_ok=True)
    # win when possible, and take kongs when offered, so that kong payments show up
    kong = mask[:, A.KONG_SELF:A.KONG_SELF + 34].argmax(axis=1) + A.KONG_SELF
    act = np.where(mask[:, A.KONG_SELF:A.KONG_SELF + 34].any(axis=1), kong, act)
    act = np.where(mask[:, A.KONG], A.KONG, act)
    return np.where(mask[:, A.WIN], A.WIN, act)


@pytest.mark.parametrize("preset", ["hebei", "quemen"])
def test_scores_are_hand_plus_kong_payments(preset):
    eng = Engine(preset, num_tables=128, seed=0)
    eng.reset()
    rng = np.random.default_rng(0)
    seen = {"kongs": 0, "no_kong": 0, "multi": 0, "multi_kongs": 0, "draws": 0}
    for _ in range(700):
        res = eng.step(greedy_random(eng.legal_mask(), rng))
        for t in np.flatnonzero(res.hand_over):
            s = res.settlements[t]
            assert s["scores"] == res.rewards[t].tolist() and sum(s["scores"]) == 0
            wins = s.get("wins", [s] if "legal" in s else [])
            if not wins:  # a drawn hand shows its kong lines where drawn hands pay kongs (quemen)
                seen["draws"] += 1
                assert ("kong_scores" in s) == eng.rules.kong_payments_on_draw
                if "kong_scores" not in s:
                    continue
                assert s["hand_scores"] == [0, 0, 0, 0]  # a drawn hand settles no win (and quemen has no 烧庄)
            # under kong payments every win shows both lines, zeros included
            assert [a + b for a, b in zip(s["hand_scores"], s["kong_scores"])] == s["scores"]
            seen["kongs" if any(s["kong_scores"]) else "no_kong"] += 1
            if len(wins) > 1:  # each win's own object keeps the calculator's scores
                assert s["hand_scores"] == [sum(w["scores"][i] for w in wins) for i in range(4)]
                seen["multi"] += 1
                seen["multi_kongs"] += any(s["kong_scores"])
        if res.episode_over.any():
            eng.reset(tables=np.flatnonzero(res.episode_over))
    assert seen["kongs"] >= 5 and seen["no_kong"] >= 5 and seen["draws"] >= 1


def test_no_kong_lines_without_kong_payments():
    eng = Engine("beijing", num_tables=64, seed=1)
    eng.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        res = eng.step(greedy_random(eng.legal_mask(), rng))
        for t in np.flatnonzero(res.hand_over):
            ended += 1
            assert "kong_scores" not in res.settlements[t] and "hand_scores" not in res.settlements[t]
        if res.episode_over.any():
            eng.reset(tables=np.flatnonzero(res.episode_over))
    assert ended >= 20


def test_settlements_items_equal_lookups_one_by_one():
    from mj_env.hand_end import Settlements

    def build():
        s = Settlements()
        s.add(3, {"winner": 1, "scores": [-1, 3, -1, -1]})
        s.add_draws(np.array([5, 7]), np.array([0, 2]), np.array([[0, 0, 0, 0], [-6, 2, 2, 2]]), {7: [1, -1, 0, 0]})
        s.add_draws(np.array([5, 3]), np.array([1, 0]), np.array([[-3, 1, 1, 1], [0, 0, 0, 0]]), {})  # a match's next hand
        s.add(9, {"winner": 0, "scores": [3, -1, -1, -1]})
        return s

    one_by_one = build()
    want = [(t, one_by_one[t]) for t in one_by_one]
    got = build().items()
    assert list(got) == want
    assert [t for t, _ in got] == [3, 5, 7, 9]
    assert dict(got)[5]["scores"] == [-3, 1, 1, 1] and dict(got)[3]["draw"] is True
    assert dict(got)[7]["hand_scores"] == [-7, 3, 2, 2] and dict(got)[7]["kong_scores"] == [1, -1, 0, 0]
    looked = build()
    _ = looked[5]          # a lookup first, then the bulk build: the same objects
    assert list(looked.items()) == want


def test_settlements_keep_every_hand_a_table_ended_in_one_step():
    """A match's next hand can end at its deal in the step that ended a hand: ``every`` keeps both, in order,
    whether each was won or drawn; ``self[t]`` and ``items`` give the last, ``several`` the tables with more."""
    from mj_env.hand_end import Settlements
    s = Settlements()
    win1 = {"winner": 1, "scores": [-1, 3, -1, -1]}
    win2 = {"winner": 0, "scores": [27, -9, -9, -9]}
    s.add(3, win1)
    s.add_draws(np.array([5, 3]), np.array([0, 0]), np.array([[0, 0, 0, 0], [-3, 1, 1, 1]]), None)
    s.add(3, win2)                                        # won, drawn, won: three hands at table 3
    s.add_draws(np.array([5]), np.array([1]), np.array([[-6, 2, 2, 2]]), None)   # drawn twice at table 5
    s.add(8, win1)
    assert s.several() == [3, 5] and len(s) == 3
    assert s.every(3) == [win1, {"draw": True, "shaozhuang": 0, "scores": [-3, 1, 1, 1]}, win2]
    assert [x["scores"] for x in s.every(5)] == [[0, 0, 0, 0], [-6, 2, 2, 2]]
    assert s.every(8) == [win1] and s.every(4) == []
    assert s[3] is win2 and s[5]["scores"] == [-6, 2, 2, 2]
    assert [t for t, _ in s.items()] == [3, 5, 8]


def test_two_winners_after_a_kong_hand_scores_are_the_wins_alone():
    """hebei: the dealer declares a concealed kong, then discards 7z, on which seats 1 and 2 both win. The
    settlement's hand_scores are the two wins' scores summed, kong_scores the kong payments (nonzero here),
    and scores their sum."""
    from fast_game import FastGame
    from scenario_helpers import HEBEI, play
    from walls import build_wall
    hands = {0: "5555m123p456p789p7z", 1: "112233m789m234p7z", 2: "234s567s789s111z7z"}
    g = FastGame(HEBEI, build_wall(HEBEI, dealer=0, hands=hands, tail="6z"), dealer=0)
    play(g, (0, "kong 5m"), (0, "discard 7z"))
    while g.phase != "END":
        play(g, (g.to_act, "win"))
    res = g.result
    assert [w["input"]["winner"] for w in res["wins"]] == [1, 2]
    wins_sum = [sum(w["scores"][i] for w in res["wins"]) for i in range(4)]
    assert res["kong_scores"] == [6, -2, -2, -2]
    assert res["hand_scores"] == wins_sum != res["scores"]
    assert res["scores"] == [a + b for a, b in zip(res["hand_scores"], res["kong_scores"], strict=True)]


def test_settlements_count_a_drawn_table_once_after_it_was_looked_up():
    from mj_env.hand_end import Settlements
    s = Settlements()
    s.add_draws(np.array([5, 7]), np.array([0, 0]), np.zeros((2, 4), dtype=np.int64), None)
    assert len(s) == 2
    _ = s[5]   # built on lookup
    assert len(s) == 2 and list(s) == [5, 7]


def test_hubao_pairs_of_a_claims_table():
    """互包 pairs [a, b] (a < b) where either claimed hubao_claims discards from the other; none where the
    rules have no 互包 (hebei), whatever the claims."""
    from mj_env.hand_end import hubao_pairs
    from mj_env.rules import get_rules
    claims = np.zeros((4, 4), dtype=np.int64)
    claims[2, 0], claims[1, 3] = 3, 2
    beijing = get_rules("beijing")
    assert hubao_pairs(beijing, claims) == [[0, 2]]
    assert hubao_pairs(beijing.replace(hubao_claims=2), claims) == [[0, 2], [1, 3]]
    assert hubao_pairs(beijing.replace(hubao=False), claims) == []
    assert hubao_pairs(get_rules("hebei"), claims) == []


def test_settlements_keep_two_drawn_hands_at_a_table_with_no_win_in_the_step():
    from mj_env.hand_end import Settlements
    s = Settlements()
    s.add_draws(np.array([5]), np.array([0]), np.array([[0, 0, 0, 0]]), None)
    s.add_draws(np.array([5]), np.array([1]), np.array([[-6, 2, 2, 2]]), None)  # a match's next hand, drawn too
    assert s.several() == [5] and len(s) == 1
    assert [x["scores"] for x in s.every(5)] == [[0, 0, 0, 0], [-6, 2, 2, 2]]
