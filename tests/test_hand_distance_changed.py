"""Review of ``hand.hand_distance_changed`` (0c19c88, 802b193): a differential check against
``_distance_changed_plainly`` (the changed hands built and measured by ``hand_distance``) on the edges the
tests of tests/test_observe_v2_speed.py leave out: four 惠牌 in a hand of up to 15 tiles, hands of 惠牌 only,
the 惠牌 kind changed (to 0 wildcards, or to a fifth), unsorted and repeated rows, 缺一门 with the 惠牌
(beijing with lack_suit), base batches either side of a block of 4,096 hands, a rebuilt (copied) kept table,
and rows or kinds given as negative indices."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import hand
from mj_env import tables as T
from mj_env.rules import get_rules

RULES = {"beijing": {}, "beijing-no-seven-pairs": {"seven_pairs": False},
         "beijing-orphans-any-pair": {"thirteen_orphans": True, "orphans_extra_dragon": False},
         "beijing-lack-suit": {"lack_suit": True}, "hebei": {}, "hebei-no-seven-pairs": {"seven_pairs": False},
         "quemen": {}}


def rules_of(name: str):
    return get_rules(name.split("-")[0], **RULES[name])


def wild_rich_hands(rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, 34) int8 hands of 0-15 tiles and their 惠牌 kinds: a third hold all four 惠牌, a sixth only 惠牌
    (0-4 of them), the rest random (few kinds, one suit, or any), the 惠牌 often a held kind."""
    out = np.zeros((n, 34), dtype=np.int8)
    hui = rng.integers(0, 34, n)
    pool = np.repeat(np.arange(34), 4)
    for i in range(n):
        style = i % 6
        if style == 5:
            out[i, hui[i]] = rng.integers(0, 5)
            continue
        if style < 2:
            out[i, hui[i]] = 4
        weights = np.ones(34)
        if rng.random() < 0.4:
            weights[rng.choice(34, 27, replace=False)] = 0
        weights[hui[i]] = 0 if style < 2 else weights[hui[i]]
        p = weights[pool] / weights[pool].sum()
        size = min(int(rng.integers(0, 16)) - out[i].sum(), int((p > 0).sum()))
        if size > 0:
            np.add.at(out[i], rng.choice(pool, size, replace=False, p=p), 1)
        if style == 4 and out[i].any():
            hui[i] = rng.choice(np.flatnonzero(out[i]))
    return out, hui


def hands_of(name: str, seed: int, n: int):
    """The rules of ``name``, a generator of ``seed`` and ``n`` wild-rich hands drawn from it, with no 惠牌 where
    the rules have none: the start of every comparison here."""
    rules = rules_of(name)
    rng = np.random.default_rng(seed)
    counts, hui = wild_rich_hands(rng, n)
    if not rules.hui:
        hui[:] = -1
    return rules, rng, counts, hui


def legal_changes(rng, counts, hui, delta: int, keep: float):
    """(rows, kinds) of changes the plain call takes: the changed hand has 3k+1 or 3k+2 tiles, at most 14,
    and 0-4 of each natural kind (any number of 惠牌)."""
    nat, wild = hand.split_hui(counts, hui)
    size = nat.sum(axis=1).astype(int) + wild.astype(int) + delta
    ok_row = (size % 3 != 0) & (size <= 14)
    is_hui = np.arange(34) == hui[:, None]
    ok = ok_row[:, None] & (((counts < 4) | is_hui) if delta > 0 else (counts > 0))
    rows, kinds = np.nonzero(ok)
    sel = rng.random(len(rows)) < keep
    return rows[sel], kinds[sel]


def check(rules, counts, hui, melds, rows, kinds, delta):
    want = hand._distance_changed_plainly(rules, counts, hui, melds, rows, kinds, delta)
    got = hand.hand_distance_changed(rules, counts, hui, melds, rows, kinds, delta)
    assert got.dtype == want.dtype == np.int16
    assert np.array_equal(got, want), np.flatnonzero(got != want)[:5]


@pytest.mark.parametrize("name", list(RULES))
def test_wild_rich_changes_unsorted_and_repeated(name):
    rules, rng, counts, hui = hands_of(name, 35, 600)
    melds = rng.random((len(counts), 3)) < 0.3
    melds[::7] = True  # every suit in a meld: NO_WIN under 缺一门
    seen_hui = 0
    for delta in (1, -1):
        rows, kinds = legal_changes(rng, counts, hui, delta, 0.7)
        seen_hui += int((kinds == hui[rows]).sum())
        shuffled = rng.permutation(len(rows))
        repeated = rng.integers(0, len(rows), 2 * len(rows))
        for sel in (slice(None), shuffled, repeated):
            for ms in (melds, None):
                check(rules, counts, hui, ms, rows[sel], kinds[sel], delta)
    assert seen_hui > 100 or not rules.hui


@pytest.mark.parametrize("n", [4095, 4096, 4097, 8193])
def test_base_batches_at_the_block_boundary(n):
    rng = np.random.default_rng(n)
    counts, hui = wild_rich_hands(rng, n)
    melds = rng.random((n, 3)) < 0.3
    for name in ("beijing", "beijing-lack-suit"):
        rules = rules_of(name)
        for delta in (1, -1):
            rows, kinds = legal_changes(rng, counts, hui, delta, 0.05)
            tail = rows >= 4090  # the hands around the boundary only (the first block has few or none)
            order = rng.permutation(len(rows))
            for sel in (order, tail):
                check(rules, counts, hui, melds, rows[sel], kinds[sel], delta)


def test_a_rebuilt_kept_table_is_checked_again(monkeypatch):
    """A new table object (mj_env.tables rebuilt its cache) is checked again; a copy passes the check and the
    缺一门 answers stay the plain ones."""
    rules = rules_of("beijing-lack-suit")
    rng = np.random.default_rng(7)
    counts, hui = wild_rich_hands(rng, 300)
    rows, kinds = legal_changes(rng, counts, hui, 1, 0.5)
    get, kept = T.get, T.get("kept").copy()
    monkeypatch.setattr(T, "get", lambda name: kept if name == "kept" else get(name))
    assert hand._kept_monotone() and hand._MONOTONE[0] is kept
    check(rules, counts, hui, None, rows, kinds, 1)


@pytest.mark.parametrize("name", ["hebei", "beijing", "beijing-lack-suit"])
def test_negative_and_out_of_range_indices_are_read_as_the_plain_call_reads_them(name):
    """rows and kinds count from the end where negative, as in the plain call's counts[rows] (the fast path
    read a negative row as a column of the wrong part, and a kind of -1 as the 惠牌 kind where the hand has
    none); one out of range raises the plain call's IndexError."""
    rules, rng, counts, hui = hands_of(name, 4, 300)
    rows, kinds = legal_changes(rng, counts, hui, 1, 1.0)
    check(rules, counts, hui, None, rows - len(counts), kinds, 1)
    none = np.full(len(counts), -1)  # no 惠牌: a kind of -1 (33 in the plain call) is no wildcard
    plain_rows, plain_kinds = legal_changes(rng, counts, none, 1, 1.0)
    check(rules, counts, none, None, plain_rows, plain_kinds - 34, 1)
    for bad_rows, bad_kinds in ((rows + len(counts), kinds), (rows, kinds + 34)):
        with pytest.raises(IndexError) as plain:
            hand._distance_changed_plainly(rules, counts, hui, None, bad_rows, bad_kinds, 1)
        with pytest.raises(IndexError) as fast:
            hand.hand_distance_changed(rules, counts, hui, None, bad_rows, bad_kinds, 1)
        assert str(fast.value) == str(plain.value)
