"""Audit of what a seat can learn through the environments' channels: only its own tiles and what is public,
except what the rules themselves tell (mj_env/observation.py, "Nothing of another seat's concealed hand ...")."""
from __future__ import annotations

import numpy as np
from scenario_helpers import ROB, ROB_MOVES
from walls import build_wall

import mj_env
from mj_env import actions as A
from mj_env import observation as O
from mj_env.tiles import CODES, parse_tiles

_EXCEPTION = O.__doc__.split("Nothing of another seat's concealed hand")[1].split("\n\n")[0]
"""The observation docstring's paragraph on what an observation tells of other seats."""


def _aec(rules: str, wall, dealer: int = 0):
    e = mj_env.env(rules)
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
    return e


def _asked_about(e, agent: str) -> tuple[int, int]:
    """(COL_PHASE, the tile in P_CLAIM or -1) of ``agent``'s observation."""
    planes = e.observe(agent)["observation"]
    claim = np.flatnonzero(planes[O.P_CLAIM])
    return int(planes[O.P_SCALARS, O.COL_PHASE]), int(claim[0]) if len(claim) else -1


def test_a_window_that_only_a_chi_opens_is_seen_by_the_seats_not_asked():
    """mj_env/observation.py said a seat observing another seat's claim window learns "that it holds a pair of it
    or waits on it"; under beijing a window also opens when only the next seat may chi (docs/RULES.md 4.2), so the
    others learn that it holds two tiles of a run with the discard. The docstring now says so."""
    hands = {0: "19m19p19s1234567z5m", 1: "46m2358p2358s28m6z", 2: "1379m1379p1379s3z", 3: "2378m2378p2378s4z"}
    e = _aec("beijing", build_wall("beijing", hands=hands, indicator="9s"))
    e.step(A.index("discard 5m"))          # no seat holds a 5m: only seat 1's chi of 4m 6m can claim it
    assert e.agent_selection == "player_1"
    assert [A.name(a) for a in np.flatnonzero(e.observe("player_1")["action_mask"])] == ["pass", "chi 456m"]
    for agent in ("player_2", "player_3"):
        assert _asked_about(e, agent) == (1, parse_tiles("5m")[0])
    assert "chi" in _EXCEPTION and "run" in _EXCEPTION


def test_a_rob_window_is_seen_by_the_seats_not_asked():
    """docs/RULES.md 4.4: the seats that may win on an added kong's tile are asked first; the window opens only when one
    may, and a seat not asked observes it (COL_PHASE 2, the tile in P_CLAIM): it learns that some seat waits on that
    tile. The observation docstring named claim windows on a discard only; it now names rob windows too."""
    e = _aec("beijing", build_wall("beijing", indicator="9s", **ROB))
    for seat, move in [*ROB_MOVES, (1, "kong 5m")]:
        assert e.agent_selection == f"player_{seat}"
        e.step(A.index(move))
    assert e.agent_selection == "player_3"            # seat 3 (46m ...) may rob the 5m
    assert _asked_about(e, "player_2") == (2, parse_tiles("5m")[0])
    assert "rob window" in _EXCEPTION and "waits on it" in _EXCEPTION


def _play_passively(wall, watch: str) -> tuple[list, list]:
    """Beijing from ``wall``: every seat passes every claim and discards the tile it drew (a chi or pong never
    comes), to the drawn end. Returns the agents asked, in order, and everything ``watch`` is given at each
    step: its observation (v2), the reward, termination and infos of ``last()`` on its turns, and on those turns
    why each action it did not take is illegal."""
    e = mj_env.env("beijing", obs="v2")
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": 0})
    eng = e.unwrapped.engine
    order, seen = [], []
    for agent in e.agent_iter():
        order.append(agent)
        obs, reward, term, trunc, info = e.last()
        mine = e.observe(watch)
        view = [mine["observation"].tobytes(), mine["action_mask"].tobytes()]
        if agent == watch:
            view += [reward, term, trunc, repr(info)]
            if not term:
                view += [eng.explain_illegal(0, a) for a in range(A.N_ACTIONS) if not obs["action_mask"][a]]
        seen.append(view)
        if term or trunc:
            e.step(None)
        elif not obs["action_mask"][:A.KONG_SELF].any():
            e.step(A.PASS)
        else:
            drawn = int(eng.state.drawn[0])
            e.step(drawn if obs["action_mask"][drawn] else int(np.flatnonzero(obs["action_mask"])[0]))
    return order, seen


def test_what_a_seat_is_given_is_the_same_whatever_another_hand_and_the_reserve_hold():
    """README: an observation holds "never another seat's concealed tiles or the wall order"; the AEC env gives a
    seat more than the planes: ``last()``'s reward, termination and infos, its mask and v2 planes, and an illegal
    action's explanation. Swapping one of seat 2's dealt tiles with a reserve tile (wall[26] and wall[125], never
    seen by seat 0; the walls are chosen so that no claim window differs) and putting the reserve (wall[121:135],
    never drawn: nobody kongs) in the other order changes nothing seat 0 is given."""
    wall = build_wall("beijing", seed=3)
    other = list(wall)
    other[26], other[125] = other[125], other[26]
    other[121:135] = other[121:135][::-1]                                 # and the reserve in the other order
    assert wall[26] != wall[125] and other[121:135] != wall[121:135]
    order, seen = _play_passively(wall, "player_0")
    order2, seen2 = _play_passively(other, "player_0")
    assert order == order2 and len(order) > 80
    assert seen == seen2
    dealt = [_aec("beijing", w).observe("player_2")["observation"][O.P_HAND] for w in (wall, other)]
    assert not np.array_equal(*dealt)                                  # seat 2 was dealt another tile
