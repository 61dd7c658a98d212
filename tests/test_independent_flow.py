"""Differential check of the legal-action masks and the game flow against an independent referee.

``tests/indep_flow.py`` holds ``Sim``, a slow referee written from docs/RULES.md 2-5 and 7, docs/INTERFACES.md 2
and docs/game_flow.md alone (not from the engine nor tests/ref_engine.py). These tests play the PettingZoo AEC env,
the vector env and matches with random legal actions (and the rule agent) on walls given through the public
``reset(options=...)``, and require, at every decision: the same legal set as the referee's, the same seat to act,
the same hands, melds and flowers, and the same end (draw or win, the winners, the discarder). Also: bad input
through the public interfaces is refused with an error naming what and where, and changes no state
(docs/RULES.md 7; docs/INTERFACES.md 2). The long version of the same check is the loop in indep_flow's drivers
with more hands; this one is fixed-seed and takes a few seconds.
"""
from __future__ import annotations

import dataclasses

import indep_flow as F
import numpy as np
import pytest
from walls import build_wall

import mj_env
from mj_env import actions as A
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv

# preset, Decision-field settings (docs/RULES.md 4.2 multiple_winners, 5 hui_wild_in_melds, ...)
CONFIGS = [
    ("beijing", {}), ("hebei", {}), ("quemen", {}),
    ("beijing", {"hui_wild_in_melds": True}),
    ("beijing", {"multiple_winners": True, "hui_wild_in_melds": True, "self_draw_only_hui": 2}),
    ("hebei", {"multiple_winners": False}),
    ("quemen", {"multiple_winners": True}),
    ("beijing", {"discard_win_concealed_only": False, "self_draw_only_hui": 0, "four_hui_win": False}),
    ("beijing", {"reserve": 4, "chi": False}),
]


def _ids(c):
    return c[0] + "".join(f",{k}={v}" for k, v in c[1].items())


@pytest.mark.parametrize("config", CONFIGS, ids=[_ids(c) for c in CONFIGS])
def test_aec_masks_seat_and_end_match_the_referee(config):
    name, overrides = config
    log = []
    stats = F.play_aec(name, overrides, 6, seed=11, log=log)
    assert not log, log[:3]
    assert stats["decisions"] > 60


@pytest.mark.parametrize("name", ["hebei", "quemen", "beijing"])
def test_to_the_end_of_the_wall_with_many_kongs(name):
    """Pongs and kongs whenever legal: beijing's reserve (2 tiles here) used up, hebei's kept stacks and the odd
    replacement, quemen's last tile (docs/RULES.md 3; docs/game_flow.md "Deal")."""
    overrides = {"reserve": 2} if name == "beijing" else {}
    log = []
    stats = _kong_happy(name, overrides, 1 if name == "beijing" else 6, log)
    assert not log, log[:3]
    ends = [k for k in stats if k.startswith("drawend")]
    if name == "beijing":
        assert "drawend_repl2_und1" in ends  # a hand drawn with the reserve used up
    if name == "hebei":
        assert "drawend_repl1_und13" in ends  # 13 undrawn after one replacement: drawn
    if name == "quemen":
        assert any(k.endswith("_und0") for k in ends)


def _kong_happy(name, overrides, seed, log):
    F.KONG_HAPPY[0] = True
    try:
        return F.play_aec(name, overrides, 3, seed=seed, log=log, rule_share=0.0)
    finally:
        F.KONG_HAPPY[0] = False


@pytest.mark.parametrize("name", ["beijing", "hebei", "quemen"])
def test_vector_env_masks_seat_and_end_match_the_referee(name):
    log = []
    stats = F.play_vector(name, {}, 6, 90, seed=3, log=log)
    assert not log, log[:3]
    assert stats["end_win"] + stats["end_draw"] >= 3


@pytest.mark.parametrize("config", [("beijing", {}), ("hebei", {"dealer_rotation": "previous"})], ids=_ids)
def test_a_match_passes_the_deal_as_the_rules_say(config):
    """docs/RULES.md 2: the dealer stays after a dealer win or a drawn hand, else the deal passes."""
    log = []
    stats = F.play_match(*config, 1, 3, seed=2, log=log)
    assert not log, log[:3]
    assert stats["hands"] == 3


# Seat 0 pongs seat 1's 5m and draws the fourth 5m; seats 2 and 3 wait on 5m (4m6m): an added kong opens a
# rob window (docs/RULES.md 4.4) asking seat 2, then seat 3.
ROB_HANDS = {0: "55m19p189s1234567z", 1: "5m111m222m333s444s", 2: "111p222p333p55p46m", 3: "777s888s999s66p46m"}
ROB_SCRIPT = [(0, "discard 1z"), (1, "discard 5m"), (0, "pong"), (0, "discard 2z"), (1, "discard 8m"),
              (2, "discard 7m"), (3, "discard 6z"), (0, "kong 5m")]


@pytest.mark.parametrize("config, answers, winners, indicator", [
    (("hebei", {}), [(2, "win"), (3, "win")], [2, 3], None),          # 一炮多响 on a robbed kong
    (("hebei", {}), [(2, "pass"), (3, "win")], [3], None),
    (("hebei", {"multiple_winners": False}), [(2, "win")], [2], None),
    (("beijing", {}), [(2, "win")], [2], "3z"),                       # the first to accept wins, seat 3 is not asked
    (("beijing", {"multiple_winners": True}), [(2, "win"), (3, "win")], [2, 3], "3z"),
    # 惠牌 3p: seat 2 holds three (333p), so it may only win by self-draw and is not asked (docs/RULES.md 5)
    (("beijing", {}), [(3, "win")], [3], "2p"),
    (("beijing", {"self_draw_only_hui": 0}), [(2, "win")], [2], "2p"),
    (("quemen", {}), [(2, "win")], [2], None),                        # seat 3 holds three suits: never asked
    (("beijing", {}), [(2, "pass"), (3, "pass")], None, "3z"),        # the kong completes; played out to the end
], ids=lambda x: _ids(x) if isinstance(x, tuple) else str(x))
def test_rob_windows_follow_the_rules(config, answers, winners, indicator):
    name, overrides = config
    rules = get_rules(name, **overrides)
    layout = {"indicator": indicator} if indicator else {}
    wall = build_wall(rules, hands=ROB_HANDS, draws="9m8m7m6z5m", dealer=0, **layout)
    log = []
    sim = F.run_script(name, overrides, wall, 0, ROB_SCRIPT + answers, log)
    assert not log, log
    if winners is None:
        assert ((0, "kong 5m") in sim.trace and sim.end is not None
                and not (sim.end[0] == "win" and sim.end[2] == "rob"))
    else:
        assert sim.end == ("win", winners, "rob")


@pytest.mark.parametrize("broken", ["ting", "hebei_end", "chi_any_seat"])
def test_the_check_catches_a_rule_broken_in_the_referee(broken, monkeypatch):
    """The differential check has teeth: a referee with one rule changed disagrees with the env at once."""
    if broken == "ting":
        monkeypatch.setattr(F.Sim, "ting_waits", lambda self, s, x: True)
        config = ("quemen", {})
    elif broken == "hebei_end":
        monkeypatch.setattr(F.Sim, "draw_refused", lambda self: self.n - self.live - self.repl <= 12)
        config = ("hebei", {})
    else:
        original = F.Sim.claims_of

        def claims_of(self, s, t, discarder):  # chi offered to every seat, not only the next one
            return original(self, s, t, (s - 1) % 4)
        monkeypatch.setattr(F.Sim, "claims_of", claims_of)
        config = ("beijing", {})
    log = []
    if broken == "hebei_end":
        _kong_happy("hebei", {}, 6, log)
    else:
        F.play_aec(*config, 12, seed=1, log=log)
    assert log


# ---------------------------------------------------------------- bad input (docs/RULES.md 7)

def _engine_snapshot(engine):
    st = engine.state
    out = {f.name: np.array(getattr(st, f.name), copy=True) for f in dataclasses.fields(st)}
    out["mask"] = engine._mask.copy()
    out["rng"] = repr(engine.rng.bit_generator.state)
    return out


def _aec_snapshot(e):
    u = e.unwrapped
    return (_engine_snapshot(u.engine), u.agent_selection, dict(u.rewards), dict(u._cumulative_rewards),
            dict(u.terminations), dict(u.truncations), repr(u.infos), repr(u._hand), list(u.agents))


def _same(a, b):
    if isinstance(a, dict) and a and isinstance(next(iter(a.values())), np.ndarray):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _refused(call, snapshot, *words):
    before = snapshot()
    with pytest.raises(Exception) as info:
        call()
    assert _same(before, snapshot()), "a refused call changed the state"
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    return str(info.value)


def _mid_hand_aec(name):
    e = mj_env.env(rules=name)
    e.reset(seed=3)
    for _ in range(7):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    return e


@pytest.mark.parametrize("name", ["beijing", "quemen"])
def test_aec_bad_actions_are_refused_naming_agent_and_action_and_change_nothing(name):
    e = _mid_hand_aec(name)
    ag = e.agent_selection
    mask = e.observe(ag)["action_mask"]
    legal, illegal = int(np.flatnonzero(mask)[0]), int(np.flatnonzero(mask == 0)[0])
    snap = lambda: _aec_snapshot(e)
    for bad in (float(legal), np.float32(legal), True, str(legal), np.array([legal]), [legal], None, complex(legal)):
        _refused(lambda bad=bad: e.step(bad), snap, ag, "not an integer")
    for bad in (127, -1, 2**70, np.uint64(2**63)):
        _refused(lambda bad=bad: e.step(bad), snap, ag, "not in the action space")
    _refused(lambda: e.step(np.int8(illegal)), snap, ag, f"'{A.name(illegal)}' is illegal")
    _refused(lambda: e.step(A.PASS), snap, ag, "'pass' is illegal")
    e.step(legal)  # the game goes on from where it was


def test_aec_bad_resets_and_finished_agents_change_nothing():
    e = _mid_hand_aec("beijing")
    snap = lambda: _aec_snapshot(e)
    _refused(lambda: e.reset(options={"wall": ["1m"] * 10}), snap, "136 tiles", "10")
    _refused(lambda: e.reset(options={"wall": ["0m"] + ["1m"] * 135}), snap, "wall[0]", "'0m'")
    _refused(lambda: e.reset(options={"wall": list(range(136))}), snap, "wall[34]")
    _refused(lambda: e.reset(options={"dealer": 4}), snap, "dealer", "4")
    _refused(lambda: e.reset(options={"walls": []}), snap, "'walls'", "'wall'")
    while not all(e.terminations.values()):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    ag = e.agent_selection
    assert not any(e.observe(a)["action_mask"].any() for a in e.agents)  # END: every mask is zero
    _refused(lambda: e.step(0), snap, ag, "'discard 1m'", "over")
    while e.agents:
        e.step(None)
    _refused(lambda: e.step(0), snap, "reset()")


def test_vector_bad_action_arrays_name_the_table_and_change_no_table():
    v = MahjongVectorEnv(num_envs=4, rules="beijing", seed=0)
    obs, _ = v.reset(seed=1)
    for _ in range(5):
        obs, *_ = v.step(np.array([int(np.flatnonzero(r)[-1]) for r in obs["action_mask"]]))
    good = np.array([int(np.flatnonzero(r)[-1]) for r in obs["action_mask"]])
    snap = lambda: (_engine_snapshot(v.engine), v.pending_rewards.copy(), v._over.copy())

    def same(a, b):
        return _same(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])

    def refused(actions, *words):
        before = snap()
        with pytest.raises(A.ActionError) as info:
            v.step(actions)
        assert same(before, snap())
        for w in words:
            assert w in str(info.value), (w, str(info.value))

    one_illegal = good.copy()
    one_illegal[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    refused(one_illegal, "table 2", f"'{A.name(int(one_illegal[2]))}' is illegal")
    refused(np.where(np.arange(4) == 1, 127, good), "127", "table 1")
    refused(np.where(np.arange(4) == 3, -1, good), "-1", "table 3")
    for bad in (good.astype(float), np.append(good, 0), good[None], good.astype(bool),
                np.array([*good[:3], None], dtype=object), good[0]):
        refused(bad, "integer actions")
    v.step(good)  # and the tables go on


# Claim windows with a pending claim (docs/RULES.md 4.2; docs/game_flow.md "After a discard"): the dealer
# discards 5p. PENDING_CHI: seat 1 may win (46p, concealed) or chi 456p, seat 2 may pong.
PENDING_CHI = {0: "5p1m9m1s9s1z5z6z7z2p8p3s7s4m", 1: "123m456m789m11s46p", 2: "55p258s2356z7z3m9p1p",
               3: "258m37p369s12567z"}
# PENDING_PONG: seat 1 may win (shanpon 5p/9s) or pong; seats 2 and 3 may win (46p).
PENDING_PONG = {0: "5p1m9m1s9s1z2z3z8p9p2p3s7s8m", 1: "111m222m333m55p99s", 2: "123s456s789s11z46p",
                3: "444z555z666z77z46p"}


@pytest.mark.parametrize("config, hands, answers, after", [
    # seat 1 chis below its win: pending; seat 2 is offered pong (not chi) and its pong replaces the chi
    (("beijing", {}), PENDING_CHI, [(1, "chi 456p"), (2, "pong")], ("TURN", 2)),
    (("beijing", {}), PENDING_CHI, [(1, "chi 456p"), (2, "pass")], ("TURN", 1)),
    (("beijing", {}), PENDING_CHI, [(1, "pass"), (2, "pong")], ("TURN", 2)),
    (("beijing", {}), PENDING_CHI, [(1, "win")], ("win", [1], "discard")),
    # seat 1 pongs below its win: pending; seats 2 and 3 are offered win only
    (("hebei", {}), PENDING_PONG, [(1, "pong"), (2, "win"), (3, "win")], ("win", [2, 3], "discard")),
    (("hebei", {}), PENDING_PONG, [(1, "pong"), (2, "pass"), (3, "win")], ("win", [3], "discard")),
    (("hebei", {}), PENDING_PONG, [(1, "pong"), (2, "pass"), (3, "pass")], ("TURN", 1)),
    (("hebei", {}), PENDING_PONG, [(1, "win"), (2, "pass"), (3, "win")], ("win", [1, 3], "discard")),
    (("hebei", {"multiple_winners": False}), PENDING_PONG, [(1, "pong"), (2, "win")], ("win", [2], "discard")),
    (("beijing", {}), PENDING_PONG, [(1, "pong"), (2, "win")], ("win", [2], "discard")),
    # quemen: seat 1's hand holds three suits, so it cannot win and is asked after the winners
    (("quemen", {}), PENDING_PONG, [(2, "pass"), (3, "pass"), (1, "pong")], ("TURN", 1)),
], ids=lambda x: _ids(x) if isinstance(x, tuple) and isinstance(x[0], str) and len(x) == 2 and isinstance(x[1], dict) else None)
def test_pending_claims_follow_the_priority(config, hands, answers, after):
    name, overrides = config
    rules = get_rules(name, **overrides)
    layout = {"indicator": "3z"} if rules.wall_layout == "indicator" else {}
    wall = build_wall(rules, hands=hands, dealer=0, **layout)
    log = []
    sim = F.run_script(name, overrides, wall, 0, [(0, "discard 5p"), *answers], log, tail_policy="stop")
    assert not log, log
    got = sim.end if sim.end else (sim.phase, sim.to_act)
    assert got == after
