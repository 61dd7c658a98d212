"""A 报听 seat's concealed kongs are redealt too (mj_env/determinize.py): the kinds of another seat's concealed
kongs are among what a seat cannot see, and the 报听 seat's used to keep their real kinds in every world, so a
search from another seat read them (about 1 position in 60 of rule-agent quemen play beside another seat's
报听 had such a kong)."""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from rule_play import rule_agent_play
from scipy import stats
from test_clone import check_determinized, play_out

import mj_env.determinize as D
from mj_env.determinize import determinize, redeal, ting_waits
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.rules import get_rules
from mj_env.state import TURN
from mj_env.tiles import index


@functools.lru_cache(maxsize=1)
def _kong_ting_positions(want: int = 4, tables: int = 64, seed: int = 1):
    """One-table copies of quemen rule-agent play (seat to act's turn) where another seat declared 报听 and holds
    a concealed kong: (engine, seat to act, that 报听 seat), at most one per hand."""
    eng = Engine("quemen", num_tables=tables, seed=seed)
    eng.reset()
    found, hands_seen = [], set()
    for live in rule_agent_play(eng, seed, 600):
        st = eng.state
        for b in live[st.phase[live] == TURN]:
            s = int(st.to_act[b])
            others = [o for o in range(4) if o != s and st.ting[b, o] and st.n_hidden[b, o]]
            key = (int(b), int(st.hands_played[b]), st.wall[b].tobytes())
            if others and key not in hands_seen:
                hands_seen.add(key)
                found.append((eng.clone([b]), s, others[0]))
        if len(found) >= want:
            return tuple(found[:want])
    raise AssertionError(f"only {len(found)} positions with a 报听 seat holding a concealed kong came up")


def _kinds(state, o) -> list[tuple[int, ...]]:
    return [tuple(np.flatnonzero(h).tolist()) for h in state.hidden[:, o]]


def test_a_reporting_seats_concealed_kongs_get_other_unseen_kinds():
    """The 报听 seat's kongs take other kinds (not always the real one), each all four unseen from the seat's view;
    the seat's observation and legal mask, every kind's four tiles and the 报听 hand's wait beside its new melds
    hold in every copy (check_determinized), and the copies play on."""
    for n, (eng, seat, o) in enumerate(_kong_ting_positions()):
        st = eng.state
        worlds = determinize(eng, 0, seat, n=64, rng=n)
        check_determinized(eng, 0, seat, worlds)
        real = _kinds(st, o)[0]
        kinds = _kinds(worlds.state, o)
        assert len(set(kinds)) > 1 and sum(k != real for k in kinds) >= 8, (real, kinds)
        seen = st.hands[0, seat] + st.river[0].sum(axis=0) + st.meld_counts[0].sum(axis=0) - st.hidden[0].sum(axis=0)
        assert not set(np.flatnonzero(seen).tolist()) & {t for k in kinds for t in k}
        ws = worlds.state
        assert (ws.n_hidden[:, o] == st.n_hidden[0, o]).all()
        assert (ws.meld_counts[:, o] - ws.hidden[:, o] == st.meld_counts[0, o] - st.hidden[0, o]).all()
        assert ting_waits(eng.rules, ws.hands[:, o], ws.meld_counts[:, o]).all()
        if n == 0:
            play_out(worlds.clone(np.arange(8)), np.random.default_rng(0))


def test_tables_differing_only_in_a_reporting_seats_kong_kinds_give_the_same_worlds():
    """Two tables alike but for the hidden tiles, the 报听 seat's kong kinds among them, give the same worlds for
    the same random numbers: the chain's start (hands and kong kinds) is built from the seat's view, not
    from the real kinds. Before the fix the kong kept its real kind in every redeal: no variant with another
    kind could be made, and the worlds of such a variant would have differed in it."""
    for eng, seat, o in _kong_ting_positions()[:3]:
        real = eng.state.hidden[0, o].copy()
        for seed in range(20):                  # a table of the same view whose 报听 seat holds other kongs
            other = eng.clone()
            redeal(other, seat, np.random.default_rng(seed))
            if not np.array_equal(other.state.hidden[0, o], real):
                break
        assert not np.array_equal(other.state.hidden[0, o], real), "the 报听 seat's kongs kept their real kinds"
        assert np.array_equal(observe(eng.rules, eng.state, np.array([0]), np.array([seat])),
                              observe(other.rules, other.state, np.array([0]), np.array([seat])))
        assert np.array_equal(eng.legal_mask(), other.legal_mask())
        worlds = [e.clone(np.zeros(8, dtype=np.int64)) for e in (eng, other)]
        for w in worlds:
            redeal(w, seat, np.random.default_rng(7))
        a, c = worlds[0].state, worlds[1].state
        for name in ("hands", "wall", "hidden", "meld_counts", "meld_tile", "drawn"):
            assert np.array_equal(getattr(a, name), getattr(c, name)), name


def test_no_chain_steps_keep_the_real_kong_kinds():
    """``mcmc_steps=0`` keeps the 报听 seat's real hand, and so its real kong kinds (module docstring)."""
    eng, seat, o = _kong_ting_positions()[0]
    worlds = determinize(eng, 0, seat, n=16, rng=3, mcmc_steps=0)
    assert (worlds.state.hidden[:, o] == eng.state.hidden[0, o]).all()
    assert (worlds.state.hands[:, o] == eng.state.hands[0, o]).all()


# ----------------------------------------------------------------------------- the chain against an enumeration
# Seat 0 declared 报听 beside face-up pongs and concealed kongs; its hand is one tile, which waits on itself unless
# 缺一门 forbids the win (the pongs are of characters, so a win may not hold both dots and bamboos).
CASES = {   # (the unseen tiles: hand, kongs and the rest; face-up pongs; the start: hand tile, kong kinds)
    "one kong": ({"5m": 4, "7p": 4, "9s": 4, "1z": 4, "2z": 2, "3p": 3}, ("1m", "2m", "3m"), "2z", ("5m",)),
    "two kongs": ({"5m": 4, "7p": 4, "1z": 4, "2z": 4, "3z": 4, "3p": 2}, ("1m", "2m"), "3p", ("5m", "7p")),
}
GROUPS = [(0, -1), (1, -1), (2, index("1z"))]   # (the others' concealed kongs, the kind no kong may be of)


def _counts(tiles: dict) -> np.ndarray:
    out = np.zeros(34, dtype=np.int64)
    for code, c in tiles.items():
        out[index(code)] = c
    return out


def _exact(rules, total, face_up, n_own: int, n_other: int, banned: int) -> dict:
    """P(hand kind, kong kinds in slot order) over the deals that keep the rules: a deal is an arrangement of
    physical tiles, so a state weighs its hand kind's copies times the ways to give the others' kongs
    distinct kinds of which all four are left unseen (none of them ``banned``)."""
    ways = {}
    for y in np.flatnonzero(total):
        rest = total.copy()
        rest[y] -= 1
        fours = [x for x in range(34) if rest[x] == 4 and x != banned]
        for xs in itertools.permutations(fours, n_own):
            full = face_up.copy()
            full[list(xs)] += 4
            if not ting_waits(rules, np.eye(34, dtype=np.int8)[y][None], full[None])[0]:
                continue
            e = len(fours) - n_own
            w = total[y] * np.prod([max(e - i, 0) for i in range(n_other)])
            if w:
                ways[(int(y), xs)] = float(w)
    s = sum(ways.values())
    return {k: v / s for k, v in ways.items()}


@pytest.mark.parametrize("case, shares", [("one kong", None), ("one kong", (0.0, 0.5)), ("one kong", (0.3, 0.0)),
                                          ("two kongs", None)],
                         ids=["one-kong", "one-kong-no-fresh", "one-kong-no-kong-moves", "two-kongs"])
def test_the_ting_chain_draws_hand_and_kong_kinds_uniformly_over_the_deals(monkeypatch, case, shares):
    """The chain's (hand, kong kinds) against the exact distribution: with the fresh draws alone, the kong
    moves alone, and both moving the kongs; three groups of rows with 0, 1, 2 concealed kongs at other seats
    (the last with 1z barred from kongs, as the 惠牌 kind is in beijing). In the one-kong case 9s beside a
    7p kong does not wait, nor 7p or 3p beside a 9s kong. Each row is an independent chain from one start;
    a chi-square test over the states (fixed seed)."""
    if shares is not None:
        monkeypatch.setattr(D, "INDEPENDENT_SHARE", shares[0])
        monkeypatch.setattr(D, "KONG_SHARE", shares[1])
    rules = get_rules("quemen")
    tiles, pongs, hand, start = CASES[case]
    total = _counts(tiles)
    face_up = np.zeros(34, dtype=np.int16)
    face_up[[index(t) for t in pongs]] = 3
    per = 1000
    m = per * len(GROUPS)
    melds = np.repeat(face_up[None, None], m, axis=0).repeat(4, axis=1)
    ting = np.zeros((m, 4), dtype=bool)
    ting[:, 0] = True
    part = np.zeros((m, 4, 34), dtype=np.int64)
    part[:, 0, index(hand)] = 1
    kongs = np.full((m, 4, 4), -1, dtype=np.int64)
    kongs[:, 0, :len(start)] = [index(t) for t in start]
    pool = np.zeros((m, D.N_CODES), dtype=np.int64)
    pool[:, :34] = total - part[:, 0] - D._kong_tiles(kongs[:, 0])
    n_kong = np.repeat([g[0] for g in GROUPS], per)
    no_kong = np.repeat([g[1] for g in GROUPS], per)
    p, q, k = D._ting_chain(rules, melds, ting, part, pool, n_kong, 100, np.random.default_rng(5), no_kong, kongs)
    assert (k[:, 1:] == -1).all() and (k[:, 0, len(start):] == -1).all()
    assert (p[:, 1:] == 0).all() and (p[:, 0].sum(axis=1) == 1).all()
    assert (p[:, 0] + q[:, :34] + D._kong_tiles(k[:, 0]) == total).all()          # no tile lost or made
    states = [(y, tuple(x)) for y, x in zip(p[:, 0].argmax(axis=1).tolist(), k[:, 0, :len(start)].tolist())]
    if case == "one kong":
        assert all(len({s for s in states if s[1] == (x,)}) > 1 for x in (index("5m"), index("7p"), index("1z")))
    for g, (n_other, banned) in enumerate(GROUPS):
        exact = _exact(rules, total, face_up, len(start), n_other, banned)
        if case == "one kong":
            assert {(index("9s"), (index("7p"),)), (index("3p"), (index("9s"),))}.isdisjoint(exact)
        got = states[g * per:(g + 1) * per]
        assert set(got) <= set(exact), set(got) - set(exact)
        expected = np.array([exact[s] * per for s in exact])
        observed = np.array([got.count(s) for s in exact])
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        assert stats.chi2.sf(chi2, len(exact) - 1) > 0.001, (g, chi2, len(exact))


def test_two_reporting_seats_with_concealed_kongs_are_drawn_uniformly_over_the_deals():
    """Seats 0 and 1 declared 报听, each with one tile in hand and one concealed kong; seat 0 beside face-up pongs
    of characters, seat 1 beside one. The chain's joint (hands, kong kinds) of both seats against the exact
    distribution over the deals (physical tiles alike, times the ways to give another seat's concealed kong a
    kind, one group of rows with 2z barred from kongs), compared on the two seats' kong kinds and on their
    hands (a chi-square test each, fixed seed)."""
    rules = get_rules("quemen")
    total = _counts({"5m": 4, "7p": 4, "9s": 4, "1z": 4, "2z": 4, "3p": 3, "4s": 2})
    face = np.zeros((4, 34), dtype=np.int16)
    face[0, [index("1m"), index("2m"), index("3m")]] = 3
    face[1, index("6m")] = 3

    def waits(y, kinds, o):
        full = face[o].copy()
        full[list(kinds)] += 4
        return ting_waits(rules, np.eye(34, dtype=np.int8)[y][None], full[None])[0]

    def exact(n_other, banned):
        ways = {}
        for y0 in np.flatnonzero(total):
            r0 = total.copy()
            r0[y0] -= 1
            for y1 in np.flatnonzero(r0):
                r1 = r0.copy()
                r1[y1] -= 1
                fours = [x for x in range(34) if r1[x] == 4 and x != banned]
                for k0, k1 in itertools.permutations(fours, 2):
                    e = len(fours) - 2
                    w = total[y0] * r0[y1] * np.prod([max(e - i, 0) for i in range(n_other)])
                    if w and waits(y0, [k0], 0) and waits(y1, [k1], 1):
                        ways[(int(y0), int(k0), int(y1), int(k1))] = float(w)
        s = sum(ways.values())
        return {k: v / s for k, v in ways.items()}

    groups = [(1, -1), (1, index("2z"))]
    per = 1500
    m = per * len(groups)
    ting = np.zeros((m, 4), dtype=bool)
    ting[:, :2] = True
    part = np.zeros((m, 4, 34), dtype=np.int64)
    part[:, 0, index("3p")] = part[:, 1, index("4s")] = 1
    kongs = np.full((m, 4, 4), -1, dtype=np.int64)
    kongs[:, 0, 0], kongs[:, 1, 0] = index("5m"), index("9s")
    pool = np.zeros((m, D.N_CODES), dtype=np.int64)
    pool[:, :34] = total - part.sum(axis=1) - D._kong_tiles(kongs).sum(axis=1)
    n_kong = np.repeat([g[0] for g in groups], per)
    no_kong = np.repeat([g[1] for g in groups], per)
    p, q, k = D._ting_chain(rules, np.repeat(face[None], m, axis=0), ting, part, pool, n_kong, 150,
                            np.random.default_rng(11), no_kong, kongs)
    assert (p.sum(axis=1) + q[:, :34] + D._kong_tiles(k).sum(axis=1) == total).all()    # no tile lost or made
    assert (k[:, :2, 1:] == -1).all() and (k[:, 2:] == -1).all() and (p[:, 2:] == 0).all()
    got = list(zip(p[:, 0].argmax(axis=1).tolist(), k[:, 0, 0].tolist(), p[:, 1].argmax(axis=1).tolist(),
                   k[:, 1, 0].tolist()))
    for g, (n_other, banned) in enumerate(groups):
        ex = exact(n_other, banned)
        rows = got[g * per:(g + 1) * per]
        assert set(rows) <= set(ex), set(rows) - set(ex)
        for part_of in (lambda s: (s[1], s[3]), lambda s: (s[0], s[2])):     # the kong kinds; the hands
            marg = {}
            for s, pr in ex.items():
                marg[part_of(s)] = marg.get(part_of(s), 0.0) + pr
            keys = sorted(marg)
            expected = np.array([marg[x] * per for x in keys])
            seen = [part_of(s) for s in rows]
            observed = np.array([seen.count(x) for x in keys])
            chi2 = float(((observed - expected) ** 2 / expected).sum())
            assert stats.chi2.sf(chi2, len(keys) - 1) > 0.001, (g, chi2, len(keys))


def test_a_kong_move_proposes_only_kinds_it_may_take(monkeypatch):
    """A kong move draws the new kind among those all four of which are unseen (there are as many of them after
    the move as before, so the proposal stays symmetric), not out of all 34 with most refused: in the one-kong
    case (hand 2z, kong 5m; 7p, 9s and 1z eligible, each waiting) one step of kong moves alone moves every
    chain (drawing out of all 34, about 3 in 34 did; the chain forgot the real kinds more slowly)."""
    monkeypatch.setattr(D, "INDEPENDENT_SHARE", 0.0)
    monkeypatch.setattr(D, "KONG_SHARE", 1.0)
    rules = get_rules("quemen")
    tiles, pongs, hand, start = CASES["one kong"]
    m = 300
    melds = np.zeros((m, 4, 34), dtype=np.int16)
    melds[:, 0, [index(t) for t in pongs]] = 3
    ting = np.zeros((m, 4), dtype=bool)
    ting[:, 0] = True
    part = np.zeros((m, 4, 34), dtype=np.int64)
    part[:, 0, index(hand)] = 1
    kongs = np.full((m, 4, 4), -1, dtype=np.int64)
    kongs[:, 0, 0] = index(start[0])
    pool = np.zeros((m, D.N_CODES), dtype=np.int64)
    pool[:, :34] = _counts(tiles) - part[:, 0] - D._kong_tiles(kongs[:, 0])
    _, _, k = D._ting_chain(rules, melds, ting, part, pool, np.zeros(m, dtype=np.int64), 1, np.random.default_rng(0),
                            np.full(m, -1), kongs)
    assert set(k[:, 0, 0].tolist()) == {index("7p"), index("9s"), index("1z")}
