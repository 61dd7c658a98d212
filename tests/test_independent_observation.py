"""Differential check of what each seat observes against an independent observer.

``tests/indep_observation.py`` builds every plane of ``mj_obs_v1`` and ``mj_obs_v2`` from the table as
``tests/indep_flow.py``'s referee replays it (wall, dealer, actions), written from the documentation alone:
docs/RULES.md, docs/INTERFACES.md 2, docs/game_flow.md, the README's "What an agent sees" and the plane tables
in the module docstrings of mj_env/observation.py and mj_env/features.py. The v2 planes (tiles still needed
after each discard and claim, the unseen tiles that improve the hand) come from a brute-force search over the
winning shapes of docs/RULES.md 5 with the held 惠牌 as wildcards, not from ``mj_env.hand``.

These tests play the AEC env (every seat observed at every decision, both layouts side by side), the vector
env and the single-agent env (the learner and, through a recording opponent, the opponents) under the three
presets and several Decision settings, scripted rob windows and pending claims, and require: the same planes
(and the AEC env's ``state()``: the four seats' v1 planes),
observations inside each env's ``observation_space`` (dtype, shape, bounds), final observations in phase 2, and
no hidden information (other seats' concealed tiles, the wall order, the kind of another seat's concealed
kong) reaching a seat. Fixed seeds; a few seconds. The long version is the same drivers with more hands.
"""
from __future__ import annotations

import collections

import indep_flow as F
import indep_observation as I
import numpy as np
import pytest
import test_independent_flow as T
from walls import build_wall

import mj_env
from mj_env.rules import get_rules

# preset, Decision-field settings (docs/RULES.md 4.2 multiple_winners, 5 hui_wild_in_melds, self_draw_only_hui ...)
CONFIGS = [
    ("beijing", {}), ("hebei", {}), ("quemen", {}),
    ("beijing", {"hui_wild_in_melds": True}),
    ("beijing", {"multiple_winners": True, "hui_wild_in_melds": True, "self_draw_only_hui": 2}),
    ("hebei", {"multiple_winners": False}),
    ("quemen", {"multiple_winners": True}),
    ("beijing", {"reserve": 4, "chi": False, "four_hui_win": False}),
]

_ids = T._ids  # (a setting's test id: the preset, then its fields)


def _no_diffs(log):
    assert not log, log[:3]


@pytest.mark.parametrize("config", CONFIGS, ids=[_ids(c) for c in CONFIGS])
def test_aec_every_seat_sees_what_the_documentation_says(config):
    name, overrides = config
    log, stats = [], collections.Counter()
    I.play_aec(name, overrides, 2, seed=7, log=log, v2_every=29, stats=stats)
    _no_diffs(log)
    assert stats["asked"] > 8 and stats["not asked"] > 24
    assert stats[f"aec/{_ids(config)} v2 extra"] > 3


@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
def test_aec_to_the_wall_s_end_with_many_kongs(name):
    """Pongs and kongs whenever legal: the replacement counts, the live wall at 0, concealed kongs face down."""
    log, stats = [], collections.Counter()
    F.KONG_HAPPY[0] = True
    try:
        I.play_aec(name, {"reserve": 2} if name == "beijing" else {}, 1, seed=3, log=log, v2_every=40, stats=stats)
    finally:
        F.KONG_HAPPY[0] = False
    _no_diffs(log)
    assert stats["another seat's concealed kong"] > 0


@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
@pytest.mark.parametrize("layout", ["v1", "v2"])
def test_vector_env_observations(name, layout):
    log, stats = [], collections.Counter()
    if layout == "v1":
        I.play_vector(name, {}, 4 if name == "quemen" else 8, 50 if name == "quemen" else 90, seed=5, log=log, obs="v1",
                      stats=stats)
    else:
        I.play_vector(name, {}, 2, 10, seed=5, log=log, obs="v2", stats=stats, v2_every=2)
    _no_diffs(log)
    assert stats[f"vector {layout}/{name}"] >= (200 if layout == "v1" else 20)
    assert stats["final observations"] >= (1 if layout == "v1" else 0)


@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
def test_single_agent_env_observations(name):
    """gymnasium.make("mj_env/<Rules>-v0"): the learner's planes (v1 and v2) and the opponents' (v1)."""
    log, stats = [], collections.Counter()
    I.play_single(name, {}, 2 if name == "quemen" else 3, seed=2, log=log, obs="v1", stats=stats)
    I.play_single(name, {}, 1, seed=4, log=log, obs="v2", stats=stats)
    _no_diffs(log)
    assert stats[f"single v1/{name}"] > 10 and stats[f"single v1/{name} opponents"] > 30
    assert stats["final observations"] >= 2


# The rob windows of tests/test_independent_flow.py: seat 0 adds a kong of 5m, seats 2 and 3 wait on it.
ROB_CASES = [
    (("hebei", {}), [(2, "win"), (3, "win")], None),
    (("hebei", {}), [(2, "pass"), (3, "win")], None),
    (("beijing", {"multiple_winners": True}), [(2, "win"), (3, "win")], "3z"),
    (("beijing", {}), [(3, "win")], "2p"),
    (("quemen", {}), [(2, "win")], None),
    (("beijing", {}), [(2, "pass"), (3, "pass")], "3z"),
]


def test_rob_windows_and_pending_claims():
    """COL_PHASE 2 with the kong's tile in P_CLAIM, COL_ASKER, COL_CLAIM_CATEGORY (a co-winner's accepted win, a
    pending pong or chi, shown to the seat asked only), every seat observed; and the declarer's v2 planes in a
    rob window: its hand still holds the kong's tile (3k+2), so planes 14 and 15 are given (mj_env/features.py)."""
    log, stats = [], collections.Counter()
    for (name, ov), answers, indicator in ROB_CASES:
        rules = get_rules(name, **ov)
        wall = build_wall(rules, hands=T.ROB_HANDS, draws="9m8m7m6z5m", dealer=0,
                          **({"indicator": indicator} if indicator else {}))
        I.run_script_obs(name, ov, wall, 0, T.ROB_SCRIPT + answers, log, stats=stats)
    for (name, ov), hands, answers in [
            (("beijing", {}), T.PENDING_CHI, [(1, "chi 456p"), (2, "pong")]),
            (("beijing", {}), T.PENDING_CHI, [(1, "chi 456p"), (2, "pass")]),
            (("hebei", {}), T.PENDING_PONG, [(1, "pong"), (2, "win"), (3, "win")]),
            (("hebei", {}), T.PENDING_PONG, [(1, "win"), (2, "pass"), (3, "win")]),
            (("quemen", {}), T.PENDING_PONG, [(2, "pass"), (3, "pass"), (1, "pong")])]:
        rules = get_rules(name, **ov)
        wall = build_wall(rules, hands=hands, dealer=0, **({"indicator": "3z"} if rules.wall_layout == "indicator" else {}))
        I.run_script_obs(name, ov, wall, 0, [(0, "discard 5p"), *answers], log, stats=stats)
    _no_diffs(log)
    assert stats["phase ROB"] >= 24 and stats["pending claim"] >= 8 and stats["co-winner accepted"] >= 4

    # the declarer's own observation in the rob window (hebei: seats 2 and 3 asked)
    e = mj_env.env(rules="hebei", obs="v2")
    e.reset(options={"wall": [F.CODES[t] for t in build_wall("hebei", hands=T.ROB_HANDS, draws="9m8m7m6z5m")], "dealer": 0})
    for seat, act in T.ROB_SCRIPT:
        while e.agent_selection != f"player_{seat}":
            e.step(F.PASS)
        e.step(mj_env.actions.index(act))
    o = e.observe("player_0")["observation"]
    assert o[13, I.PHASE] == 2 and o[0].sum() % 3 == 2 and o[0, 4] == 1  # the 5m still in hand
    assert o[14].any() and o[15].any()


def _reshuffled(rules, wall, seat, dealer, rng):
    """The wall with every tile `seat` cannot see moved: the other seats' dealt tiles and the live wall are
    shuffled among themselves (flowers, the tail and the indicator stay, so that nothing public changes)."""
    n = len(wall)
    own = set(range(13 * ((seat - dealer) % 4), 13 * ((seat - dealer) % 4) + 13)) | ({52} if seat == dealer else set())
    hidden = [p for p in range(n - 30) if p not in own and wall[p] < 34]
    tiles = [wall[p] for p in hidden]
    rng.shuffle(tiles)
    out = list(wall)
    for p, t in zip(hidden, tiles):
        out[p] = t
    return out


@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
def test_hidden_tiles_and_the_wall_order_do_not_reach_an_observation(name):
    """README "What an agent sees": a seat's observation at the deal is the same whatever the other seats hold
    and whatever the wall's order, in both layouts."""
    import random
    rng = random.Random(9)
    rules = get_rules(name)
    envs = {lay: mj_env.env(rules=name, obs=lay) for lay in ("v1", "v2")}
    for _ in range(4):
        wall, dealer = F.gen_wall(rng, rules.n_tiles, "uniform"), rng.randrange(4)
        for seat in range(4):
            seen = []
            for w in (wall, _reshuffled(rules, wall, seat, dealer, rng), _reshuffled(rules, wall, seat, dealer, rng)):
                obs = []
                for e in envs.values():
                    e.reset(options={"wall": [F.CODES[t] for t in w], "dealer": dealer})
                    obs.append(e.observe(f"player_{seat}")["observation"])
                seen.append(obs)
            assert w != wall
            for other in seen[1:]:
                for a, b in zip(seen[0], other):
                    assert np.array_equal(a, b), (name, seat, dealer)


def test_another_seat_s_concealed_kong_lies_face_down():
    """README: "others' concealed kongs lie face down". The same table with seat 1's concealed kong of 1m or of
    9m (every 1m and 9m swapped; no other seat holds or draws either kind in these decisions): seats 0, 2 and 3
    see the same planes at every decision, seat 1 sees its own kong."""
    rules = get_rules("beijing")
    hands = {0: "23456m234567p567z", 1: "1111m456s789s123z", 2: "258p258s1234z77z6m", 3: "369p369s4778m566z"}
    base = build_wall(rules, hands=hands, draws="2s3s4s5s6s7s8s", tail="3p4p", indicator="8p")
    other = [{0: 8, 8: 0}.get(t, t) for t in base]
    runs = []
    for w in (base, other):
        e = mj_env.env(rules="beijing")
        e.reset(options={"wall": [F.CODES[t] for t in w], "dealer": 0})
        sim = I.ObsSim(rules, w, 0)
        seen = []
        for _ in range(12):
            legal = sim.legal()
            kongs = [a for a in legal if F.KONG_SELF <= a < F.WIN]
            a = kongs[0] if kongs else (F.PASS if sim.phase != "TURN" else F.discard_of(sim))
            seen.append([e.observe(f"player_{s}")["observation"].copy() for s in range(4)])
            for s in range(4):
                assert np.array_equal(seen[-1][s], I.planes_v1(sim, s)), s
            e.step(a)
            sim.step(a)
        runs.append(seen)
    assert runs[0][-1][2][13, I.CKONG0 + 3] == 1  # seat 2 counts seat 1's (its previous seat's) concealed kong
    assert runs[0][-1][1][1, 0] == 4 and runs[1][-1][1][1, 8] == 4  # seat 1 sees its own kong's kind
    for a, b in zip(*runs, strict=True):
        for s in (0, 2, 3):
            assert np.array_equal(a[s], b[s]), s


@pytest.mark.parametrize("broken", ["concealed_kongs_shown", "river_keeps_claimed", "drawn_for_all"])
def test_the_check_catches_a_plane_broken_in_the_observer(broken, monkeypatch):
    """The differential check has teeth: an observer with one documented plane changed disagrees at once."""
    original = I.planes_v1

    def planes(sim, seat):
        p = original(sim, seat)
        if broken == "concealed_kongs_shown":
            for j in range(1, 4):
                for m in sim.melds[(seat + j) % 4]:
                    if m["type"] == "concealed_kong":
                        p[1 + j, m["kind"]] += 4
        elif broken == "river_keeps_claimed":
            for j in range(4):
                for o in range(4):
                    for m in sim.melds[o]:
                        if m["frm"] == (seat + j) % 4:
                            p[5 + j, m["tiles"][-1]] += 1
        else:
            if sim.phase == "TURN" and sim.drew and sim.to_act != seat:
                p[12, sim.drawn] = 1
        return p
    monkeypatch.setattr(I, "planes_v1", planes)
    log = []
    F.KONG_HAPPY[0] = True
    try:
        I.play_aec("hebei", {}, 1, seed=3, log=log, v2_every=10**9)
    finally:
        F.KONG_HAPPY[0] = False
    assert log
