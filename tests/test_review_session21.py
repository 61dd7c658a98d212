"""Review of the 报听 concealed-kong redeal (mj_env/determinize.py, da3e90d): its tests run the chain against an
enumeration with one 报听 seat; here two 报听 seats both hold a concealed kong and share the unseen tiles."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_determinize_ting_kongs import _counts

import mj_env.determinize as D
from mj_env.determinize import ting_waits
from mj_env.rules import get_rules
from mj_env.tiles import index

stats = pytest.importorskip("scipy.stats")


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
