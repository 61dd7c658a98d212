"""Tests that kill mutants a second mutation pass over mj_env/engine.py, mj_env/claims.py and
mj_env/hand_end.py (seed 3901) found surviving the engine's flow tests; each test names what it holds."""
from __future__ import annotations

import numpy as np
import pytest
from test_audit_kongs_matches import _env, _play_to_a_draw


def test_a_quemen_drawn_hand_without_kongs_shows_zero_kong_lines():
    """docs/RULES.md 6.3 (quemen pays kongs drawn or won) and docs/INTERFACES.md 2: a drawn hand in which
    nobody declared a kong pays nothing, and its ``kong_scores`` / ``hand_scores`` lines are all zeros
    (``scores`` = ``hand_scores`` + ``kong_scores``). Kills ``_NO_KONGS`` holding anything but zeros."""
    e = _env("quemen", {}, hands_per_episode=2)
    total = _play_to_a_draw(e)
    s = e.infos["player_0"]["settlement"]
    assert s["draw"] is True
    assert s["kong_scores"] == s["hand_scores"] == s["scores"] == total.tolist() == [0, 0, 0, 0]


def test_a_bool_dealer_is_refused_and_a_one_string_wall_is_named_as_such():
    """``Engine.reset``: a dealer is a seat 0-3 given as an integer, never a bool (True is no seat, though
    ``True == 1``); walls with no length (an int, a float) are named as walls, not a TypeError from len();
    at a one-table engine ``walls=["1m"]`` is one wall that is a string, and the error says so rather than
    calling it one flat list of tiles (that reading is for a list whose length is not the number of tables).
    Nothing is changed by a refused reset."""
    from mj_env.engine import Engine
    from mj_env.wall import WallError

    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset()
    before = eng.state.copy()
    for bad in (True, np.True_):
        with pytest.raises(ValueError, match=r"^the dealer must be a seat 0-3 \(an integer\), got (np\.)?True"):
            eng.reset(dealers=[bad])
    with pytest.raises(WallError, match="not one string"):
        eng.reset(walls=["1m"])
    for bad in (5, 2.5):
        with pytest.raises(WallError, match="^walls must be a list of 1 wall .one per table., got "):
            eng.reset(walls=bad)
    st = eng.state
    assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)


def test_a_clone_may_list_one_table_several_times():
    """``Engine.clone``: "A table may be listed several times (``clone([b] * 256)``: 256 copies of one
    position)"; each copy holds that table's position and plays on alone."""
    from mj_env.engine import Engine

    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset(seed=3)
    twins = eng.clone([1, 1, 1])
    assert twins.num_tables == 3
    for f in ("hands", "wall", "to_act", "phase"):
        assert (getattr(twins.state, f) == getattr(eng.state, f)[[1, 1, 1]]).all()
    assert (twins.legal_mask() == eng.legal_mask()[[1, 1, 1]]).all()



def test_an_action_number_past_either_end_is_an_action_error_at_one_table_and_many():
    """``Engine.step``: an action outside 0..N_ACTIONS-1 is refused with ``ActionError`` (naming why), at the
    one-table fast path (``_step_one``) as at the batched one, and nothing changes. -1 is refused also where
    the last action (``ting 7z``, quemen) is legal: it is no negative index into the mask."""
    from walls import build_wall

    from mj_env import actions as A
    from mj_env.engine import Engine

    # quemen, East dealt 123m456m789m11p23p7z: discarding 7z leaves a hand waiting on 1p/4p that lacks 条
    wall = build_wall("quemen", hands={0: "123m456m789m11p23p7z"})
    for n in (1, 2):
        eng = Engine("quemen", num_tables=n, seed=0)
        eng.reset(walls=[wall] * n, dealers=[0] * n)
        assert eng.legal_mask()[:, A.N_ACTIONS - 1].all() and A.index("ting 7z") == A.N_ACTIONS - 1
        before = eng.state.copy()
        for bad in (A.N_ACTIONS, -1):
            with pytest.raises(A.ActionError):
                eng.step(np.full(n, bad))
        st = eng.state
        assert all((getattr(before, f) == getattr(st, f)).all() for f in before.__dataclass_fields__)


def test_a_win_the_rules_core_calls_illegal_stops_the_engine(monkeypatch):
    """``hand_results``: the engine settles each win by the rules core (docs/game_flow.md, settlement); a win the
    core refuses is an engine bug and raises, naming the seat and table, instead of settling a refused line."""
    from walls import tian_hu_wall

    from mj_env import actions as A
    from mj_env import hand_end
    from mj_env.engine import Engine

    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset(walls=[tian_hu_wall()], dealers=[0])
    monkeypatch.setattr(hand_end.calculator, "evaluate", lambda obj: {"legal": False, "reason": "stub"})
    with pytest.raises(AssertionError, match="^engine let seat 0 win at table 0 but the rules core says"):
        eng.step(np.array([A.WIN]))
