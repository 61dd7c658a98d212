"""Tests that kill mutants left alive by a sampled mutation audit (seeded random samples of single-node AST
mutants of mj_env/hand_end.py, mj_env/records.py, mj_env/rules.py, mj_env/observation.py, agents/arena.py, ...).
Each test below failed under its mutant and passes on the code. Worked out from docs/RULES.md and
docs/INTERFACES.md."""
from __future__ import annotations

import numpy as np

from mj_env import hand_end
from mj_env.rules import get_rules
from mj_env.state import allocate


def _fake_evaluate(obj):
    return {"legal": True, "scores": [0, 0, 0, 0], "shaozhuang": 0, "fan": 1, "patterns": {}}


def _won_state(winners, frm):
    st = allocate(1, 136)
    st.winners[0, winners] = True
    st.win_from[0] = frm
    st.win_tile[0] = 0
    st.hands[0, :, 0] = 1
    return st


def test_several_winners_on_one_discard_are_listed_in_play_order_from_the_discarder(monkeypatch):
    """multiple_winners: North and East (seats 3 and 0) win on West's discard: the settlement's
    "wins" run in play order from the discarder (North, then East), as they were asked (docs/RULES.md 4.2),
    not in seat order. (Killed a mutant that dropped the sort.)"""
    monkeypatch.setattr(hand_end.calculator, "evaluate", _fake_evaluate)
    rules = get_rules("beijing", multiple_winners=True)
    st = _won_state([0, 3], 2)
    out = hand_end.Settlements()
    hand_end.hand_results(rules, st, np.array([0]), np.array([True]), out)
    assert [w["input"]["winner"] for w in out[0]["wins"]] == [3, 0]


def test_a_discard_win_reads_last_tile_from_the_discard_not_from_the_current_draw():
    """河底 on a discard win is whether that discard was made in a last-draw turn (claim_last), not whether the
    current turn's draw was the last tile (last_draw, which is the self-draw 海底 flag). (Killed a mutant that
    read last_draw for every win.)"""
    rules = get_rules("beijing")
    st = _won_state([1], 0)
    st.last_draw[0], st.claim_last[0] = True, False
    assert hand_end.win_input(rules, st, 0, 1)["situation"]["last_tile"] is False
    st.last_draw[0], st.claim_last[0] = False, True
    assert hand_end.win_input(rules, st, 0, 1)["situation"]["last_tile"] is True


def test_the_arena_output_check_reports_an_unwritable_folder_or_file(tmp_path, monkeypatch):
    """agents.arena.output_problem names an output whose folder (or existing file) the user cannot write, before
    any hand is played. Checked with os.access stubbed, since root may write anywhere. (Killed a mutant that
    dropped the check.)"""
    from agents import arena

    target = tmp_path / "out.json"
    assert arena.output_problem("--record", target) is None
    monkeypatch.setattr(arena.os, "access", lambda *a, **k: False)
    assert arena.output_problem("--record", target) == f"--record {target}: not writable"


def test_a_reward_other_than_shaped_has_zero_potential_on_real_hands():
    """agents.rewards.RewardTransform.potential is all zero unless kind == "shaped" (its docstring),
    also for a batch of hands far from ready, where the shaped potential is not zero. (Killed a mutant that
    computed the shaped potential for every kind whenever the batch was not empty.)"""
    from agents.rewards import REWARD_KINDS, RewardTransform

    planes = np.zeros((2, 14, 34), dtype=np.int8)
    planes[:, 0, [0, 2, 4, 6, 9, 11, 13, 15, 18, 20, 22, 27, 29]] = 1  # 13 lone tiles: far from ready
    assert (RewardTransform("shaped").potential(planes) < 0).all()
    for kind in REWARD_KINDS:
        if kind != "shaped":
            got = RewardTransform(kind).potential(planes)
            assert got.dtype == np.float32 and got.tolist() == [0.0, 0.0], kind
