"""determinize's scrubbing of the dealt wall places and, on a turn, of the last window's claims (mj_env/determinize.py)
is inert: a world plays on exactly as the original with the same hidden tiles would, and keeps no chi that waited
and was beaten."""
from __future__ import annotations

import numpy as np
import pytest
from walls import build_wall

from mj_env import actions as A
from mj_env.baselines import uniform_legal
from mj_env.determinize import determinize
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.state import CLAIM, END, ROB, TURN, S

# ----------------------------------------------------------------------------- determinize: inert scrubbing


_KEEN = np.r_[A.KONG_SELF:A.WIN, A.KONG, A.PONG, A.TING:A.N_ACTIONS]


def _play(eng: Engine, rng, steps: int) -> None:
    for _ in range(steps):
        mask = eng.legal_mask()
        live = mask.any(axis=1)
        if not live.any():
            return
        acts = np.zeros(eng.num_tables, dtype=np.int64)
        acts[live] = uniform_legal(mask[live], rng)
        keen = mask[:, _KEEN].any(axis=1)      # kongs, pongs (added kongs later) and 报听 whenever legal
        acts[keen] = _KEEN[mask[keen][:, _KEEN].argmax(axis=1)]
        eng.step(acts)


def _kind(st, b) -> str:
    if st.phase[b] in (CLAIM, ROB):
        return "window"
    return "turn, stale claims" if st.claim_ok[b].any() else "turn"


_SCRUBBED = ("wall", "claim_ok", "queue_seat", "queue_cat", "q_pos", "q_len", "pend_action", "pend_seat", "pend_cat")


def _plays_as_the_original(eng: Engine, b: int, worlds: Engine) -> None:
    """The original table ``b`` given each world's hidden tiles (hands, concealed kongs, undrawn wall, drawn tile,
    ready; in a window all the rest too: the rebuilt claims) but keeping its real dealt wall places and, on a turn,
    the last window's claims, queue and pending claim, plays the rest of the hand with the world's actions exactly
    as the world does: same masks, observations of every seat, state, rewards and settlements."""
    st = eng.state
    n = worlds.num_tables
    twin = eng.clone(np.full(n, b), seed=0)
    ws, ts = worlds.state, twin.state
    window = st.phase[b] in (CLAIM, ROB)
    for f in ts.__dataclass_fields__:
        if f != "wall" and (window or f not in _SCRUBBED):
            getattr(ts, f)[...] = getattr(ws, f)
    lo, hi = int(st.live_pos[b]), int(st.tail_pos[b])
    ts.wall[:, lo:hi + 1] = ws.wall[:, lo:hi + 1]
    twin._update_masks()
    twin.rng, worlds.rng = np.random.default_rng(1), np.random.default_rng(1)
    assert (ts.wall != ws.wall).any()             # the real dealt places against the scrubbed ones
    play = np.random.default_rng(b)
    while True:
        mw, mt = worlds.legal_mask(), twin.legal_mask()
        assert np.array_equal(mw, mt)
        for f in ts.__dataclass_fields__:
            if f not in _SCRUBBED:
                assert np.array_equal(getattr(ws, f), getattr(ts, f)), f
        for s in range(S):
            seats = np.full(n, s)
            assert np.array_equal(observe(worlds.rules, ws, None, seats), observe(twin.rules, ts, None, seats))
        live = mw.any(axis=1)
        if not live.any():
            break
        acts = np.zeros(n, dtype=np.int64)
        acts[live] = uniform_legal(mw[live], play)
        rw, rt = worlds.step(acts), twin.step(acts)
        assert np.array_equal(rw.rewards, rt.rewards) and np.array_equal(rw.hand_over, rt.hand_over)
        assert repr(dict(rw.settlements)) == repr(dict(rt.settlements))
    assert (ws.phase == END).all()


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_a_world_plays_to_the_end_as_the_original_with_its_hidden_tiles(preset):
    """Nothing the engine reads (draws, kong replacements from the tail or reserve, 海底, claims, robbing, hand-end
    settlement, observations, masks) looks at the wall places a world scrubs or at the last window's claims it
    clears on a turn (``_plays_as_the_original``), at positions of random play with kongs, pongs and 报听 taken
    whenever legal: claim windows, turns right after a window and other turns."""
    eng = Engine(preset, num_tables=24, seed=4)
    eng.reset()
    rng = np.random.default_rng(8)
    positions, kinds, kongs = 0, set(), 0
    for round_ in range(10):
        _play(eng, rng, 15)
        st = eng.state
        if (st.phase == END).any():                # hands of every age: the ended tables dealt anew
            eng.reset(tables=np.flatnonzero(st.phase == END))
        live = np.flatnonzero(st.phase != END)
        kind = {int(b): _kind(st, b) for b in live}
        for b in [next(b for b in kind if kind[b] == k) for k in sorted(set(kind.values()))]:
            _plays_as_the_original(eng, b, determinize(eng, b, int(st.to_act[b]), n=4, rng=round_))
            positions += 1
            kinds.add(kind[b])
            kongs += int(st.replaced[b] > 0)
    assert positions >= 20 and kongs and kinds == {"window", "turn, stale claims", "turn"}, (kinds, kongs)


def _beaten_chi(seat1: str, seat3: str, chi: str) -> Engine:
    """beijing: the dealer discards 5m; seat 1, who may win on it, takes the ``chi`` instead, which waits as the
    pending claim; seat 2 pongs, which beats it (tests/test_clone.py's "pending chi"): seat 2's turn follows."""
    hands = {0: "111z222z333z44z5m", 1: seat1, 2: "55m789m345s678s6z7z", 3: seat3}
    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset(walls=[build_wall("beijing", hands=hands, indicator="9s", dealer=0)], dealers=[0])
    for seat, action in ((0, "discard 5m"), (1, chi), (2, "pong")):
        assert eng.state.to_act[0] == seat
        eng.step(np.array([A.index(action)]))
    assert eng.state.phase[0] == TURN and eng.state.to_act[0] == 2 and eng.state.pend_action[0] == A.index(chi)
    return eng


def test_a_world_on_a_turn_keeps_no_chi_that_waited_and_was_beaten():
    """Seat 1's chi, beaten by seat 2's pong, was never carried out nor shown to seats 0 and 3, yet stayed in
    ``pend_action`` on the turn that follows: a world told them which two tiles seat 1 held (46m for chi 456m,
    34m for chi 345m). Two such deals, alike to seat 0, now give the same worlds in every state array."""
    engines = [_beaten_chi("46m234p567p789p55z", "123p456p789p222s3m", "chi 456m"),
               _beaten_chi("34m234p567p789p55z", "123p456p789p222s6m", "chi 345m")]
    worlds = [determinize(e, 0, 0, n=4, rng=7) for e in engines]
    differ = [f for f in worlds[0].state.__dataclass_fields__
              if not np.array_equal(getattr(worlds[0].state, f), getattr(worlds[1].state, f))]
    assert not differ, differ
    assert (worlds[0].state.pend_action == -1).all()
    for eng, w in zip(engines, worlds):
        _plays_as_the_original(eng, 0, w)


