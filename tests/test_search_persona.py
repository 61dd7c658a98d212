"""A search researcher's checks of the copies for search (README "Search: copies and determinization"):
a determinized world holds nothing of the tiles its seat cannot see, in any state array."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env.baselines import uniform_legal
from mj_env.determinize import determinize
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.state import END, TURN
from mj_env.tiles import FIRST_FLOWER, full_set
from mj_env.wall import shuffled_walls

PRESETS = ("beijing", "hebei", "quemen")


def _fields(eng: Engine) -> dict:
    st = eng.state
    return {name: getattr(st, name) for name in st.__dataclass_fields__}


@pytest.mark.parametrize("preset", PRESETS)
def test_a_world_is_the_same_whatever_the_hidden_deal_was(preset):
    """Two deals that the dealer cannot tell apart (a tile of seat 1's hand swapped with one deep in the live
    wall) give, from the same ``rng``, the same worlds in every state array: the places of the wall already
    dealt used to keep the real deal, so a world told seat 1's real hand (docs/RULES.md 3: wall[13:26])."""
    rules = get_rules(preset)
    rng = np.random.default_rng(3)
    for _ in range(50):
        wall = shuffled_walls(rules, rng, 1)[0]
        if wall[14] != wall[100] and max(wall[14], wall[100]) < FIRST_FLOWER:
            break
    other = wall.copy()
    other[[14, 100]] = wall[[100, 14]]
    engines = []
    for w in (wall, other):
        eng = Engine(preset, num_tables=1, seed=0)
        eng.reset(walls=[w], dealers=[0])
        engines.append(eng)
    assert all(e.state.phase[0] == TURN and e.state.to_act[0] == 0 for e in engines)
    assert not np.array_equal(engines[0].state.hands[0, 1], engines[1].state.hands[0, 1])
    worlds = [determinize(e, 0, 0, n=4, rng=7) for e in engines]
    a, b = (_fields(w) for w in worlds)
    differ = [name for name in a if not np.array_equal(a[name], b[name])]
    assert not differ, differ


@pytest.mark.parametrize("preset", PRESETS)
def test_a_worlds_wall_is_a_full_set_with_the_indicator_in_place(preset):
    """The dealt places hold the tiles out of the wall (so every world's wall is still a set of tiles, as a
    wall must be); the undrawn part is the world's own and the 惠坯 stays at wall[-1]."""
    eng = Engine(preset, num_tables=8, seed=5)
    eng.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask = eng.legal_mask()
        live = mask.any(axis=1)
        acts = np.zeros(8, dtype=np.int64)
        acts[live] = uniform_legal(mask[live], rng)
        eng.step(acts)
    b = int(np.flatnonzero(eng.state.phase != END)[0])
    worlds = determinize(eng, b, int(eng.state.to_act[b]), n=16, rng=1)
    want = np.sort(full_set(eng.rules.n_tiles))
    assert (np.sort(worlds.state.wall, axis=1) == want).all()
    assert (worlds.state.wall[:, -1] == eng.state.wall[b, -1]).all() or eng.rules.wall_layout != "indicator"


@pytest.mark.parametrize("preset", PRESETS)
def test_a_world_on_a_turn_keeps_no_claims_of_the_last_window(preset):
    """On a turn the engine still holds the claims that each seat had on the last discard (``claim_ok``, the
    queue), read from the real hands, and reads them no more; a world clears them, as a deal does, rather than
    tell the search who could have ponged or won."""
    eng = Engine(preset, num_tables=16, seed=2)
    eng.reset()
    rng = np.random.default_rng(0)
    found = None
    for _ in range(60):
        mask = eng.legal_mask()
        live = mask.any(axis=1)
        acts = np.zeros(16, dtype=np.int64)
        acts[live] = uniform_legal(mask[live], rng)
        eng.step(acts)
        st = eng.state
        for b in np.flatnonzero(st.phase == TURN):
            seat = int(st.to_act[b])
            if np.delete(st.claim_ok[b], seat, axis=0).any():
                found = (int(b), seat)
                break
        if found:
            break
    assert found
    b, seat = found
    worlds = determinize(eng, b, seat, n=8, rng=1)
    ws = worlds.state
    assert not ws.claim_ok.any() and (ws.q_len == 0).all() and (ws.q_pos == 0).all()
    assert (ws.queue_seat == 0).all() and (ws.queue_cat == 3).all()
    assert eng.state.claim_ok[b].any()          # the source keeps its own
    for _ in range(400):                        # and the worlds play on
        mask = worlds.legal_mask()
        if not mask.any():
            break
        live = mask.any(axis=1)
        acts = np.zeros(8, dtype=np.int64)
        acts[live] = uniform_legal(mask[live], rng)
        assert (worlds.step(acts).rewards.sum(axis=1) == 0).all()
    assert (ws.phase == END).all()
