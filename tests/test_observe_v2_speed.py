"""The faster paths of the mj_obs_v2 planes give exactly what the plain ones give: ``hand.hand_distance_changed``
(a hand's parts combined once, one part changed per drawn or discarded tile) against ``hand_distance`` of the
changed hands built one by one, the blocked distance functions against one block, and ``features.extra_planes``
of positions rich in 惠牌, thirteen-orphans and seven-pairs shapes against its reference
(``tests/test_features.check_position``)."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import features as F
from mj_env import hand
from mj_env.rules import get_rules
from tests.test_features import check_position

RULE_SETS = [("beijing", {}), ("hebei", {}), ("quemen", {}), ("beijing", {"seven_pairs": False}),
             ("hebei", {"orphans_extra_dragon": False}), ("beijing", {"thirteen_orphans": True}),
             ("beijing", {"lack_suit": True, "thirteen_orphans": True})]
IDS = ["beijing", "hebei", "quemen", "beijing-no-seven-pairs", "hebei-any-orphan-pair", "beijing-orphans",
       "beijing-lack-suit-orphans"]


def random_hands(rng, n: int) -> np.ndarray:
    """(n, 34) int8 hands of 1-14 tiles, 0-4 of a kind, many of them near thirteen orphans or seven pairs."""
    out = np.zeros((n, 34), dtype=np.int8)
    orphans = hand.ORPHAN_KINDS
    for i in range(n):
        size = int(rng.choice([1, 2, 4, 5, 7, 8, 10, 11, 13, 14]))
        style = rng.integers(3)
        if style == 0:    # mostly orphans
            weights = np.full(34, 0.05)
            weights[orphans] = 1.0
        elif style == 1:  # few kinds: pairs
            weights = np.zeros(34)
            weights[rng.choice(34, 7, replace=False)] = 1.0
        else:
            weights = np.ones(34)
        pool = np.repeat(np.arange(34), 4)
        p = weights[pool] / weights[pool].sum()
        np.add.at(out[i], rng.choice(pool, size, replace=False, p=p), 1)
    return out


def changes(rng, counts: np.ndarray, hui: np.ndarray, delta: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, kinds) of the legal one-tile changes of the hands (a draw to a 3k+1 hand, a discard from a
    3k+2 one), about half of them, the 惠牌 kind among them."""
    size = counts.sum(axis=1)
    ok = (size % 3 == (1 if delta > 0 else 2))[:, None] & ((counts < 4) if delta > 0 else (counts > 0))
    rows, kinds = np.nonzero(ok)
    keep = rng.random(len(rows)) < 0.5
    return rows[keep], kinds[keep]


@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=IDS)
@pytest.mark.parametrize("delta", [1, -1])
def test_hand_distance_changed_is_hand_distance_of_the_changed_hands(preset, overrides, delta, monkeypatch):
    rules = get_rules(preset, **overrides)
    rng = np.random.default_rng(3 + delta)
    counts = random_hands(rng, 400)
    hui = rng.integers(-1, 34, len(counts))
    hui[::3] = -1
    held = np.flatnonzero(hui >= 0)
    hui[held[::2]] = counts[held[::2]].argmax(axis=1)  # a held kind: its changes move the wildcards
    melds = rng.random((len(counts), 3)) < 0.3
    rows, kinds = changes(rng, counts, hui, delta)
    assert (kinds == hui[rows]).any()
    for block in (hand._BLOCK, 64):  # one block, and many (the changes of a block's hands gathered)
        monkeypatch.setattr(hand, "_BLOCK", block)
        for ms in (melds, None):
            got = hand.hand_distance_changed(rules, counts, hui, ms, rows, kinds, delta)
            changed = counts[rows]
            changed[np.arange(len(rows)), kinds] += delta
            want = hand.hand_distance(rules, changed, hui[rows], None if ms is None else ms[rows])
            assert got.dtype == want.dtype == np.int16
            assert np.array_equal(got, want), np.flatnonzero(got != want)[:5]


def test_hand_distance_changed_refuses_what_hand_distance_refuses():
    """A fifth copy, a negative count or a size tiles_to_win does not take: the same error as the plain call."""
    rules = get_rules("beijing")
    counts = np.zeros((2, 34), dtype=np.int8)
    counts[0, :4] = [4, 4, 4, 1]   # 13 tiles
    counts[1, :2] = [1, 1]         # 2 tiles
    for rows, kinds, delta in (([0], [0], 1), ([1], [5], -1), ([1], [3], 1)):
        changed = counts[rows]
        changed[np.arange(len(rows)), kinds] += delta
        with pytest.raises(ValueError) as plain:
            hand.hand_distance(rules, changed, np.full(len(rows), -1))
        with pytest.raises(ValueError) as fast:
            hand.hand_distance_changed(rules, counts, np.full(2, -1), None, np.array(rows), np.array(kinds), delta)
        assert str(fast.value) == str(plain.value)
    empty = hand.hand_distance_changed(rules, counts, np.full(2, -1), None, np.zeros(0, int), np.zeros(0, int), 1)
    assert empty.shape == (0,) and empty.dtype == np.int16


@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=IDS)
def test_blocked_distances_match_one_block(preset, overrides, monkeypatch):
    """tiles_to_win and the 缺一门 distance in blocks of rows (and the three dropped suits sharing their
    combinations) give what one block gives."""
    rules = get_rules(preset, **overrides)
    rng = np.random.default_rng(5)
    counts = random_hands(rng, 500)
    hui = rng.integers(-1, 34, len(counts))
    melds = rng.random((len(counts), 3)) < 0.3
    want = hand.hand_distance(rules, counts, hui, melds)
    monkeypatch.setattr(hand, "_BLOCK", 37)
    assert np.array_equal(hand.hand_distance(rules, counts, hui, melds), want)
    assert np.array_equal(hand._part_index(counts), (counts.astype(np.int64) @ hand._WEIGHTS.astype(np.int64)
                                                     + hand._OFFSETS.astype(np.int64)))


@pytest.mark.parametrize("preset, overrides", RULE_SETS[:3] + RULE_SETS[5:6], ids=IDS[:3] + IDS[5:6])
def test_planes_of_orphan_and_pair_rich_positions_match_the_reference(preset, overrides):
    """Positions the random play of test_features rarely reaches (hands near thirteen orphans or seven pairs,
    the 惠牌 held), as planes: a 3k+2 hand is a turn, a 3k+1 hand a wait; every row against the reference."""
    from mj_env import observation as O

    rules = get_rules(preset, **overrides)
    rng = np.random.default_rng(9)
    counts = random_hands(rng, 48)
    counts = counts[counts.sum(axis=1) % 3 != 0]
    planes = np.zeros((len(counts), O.N_PLANES, 34), dtype=np.uint8)
    planes[:, O.P_HAND] = counts
    if rules.hui:
        hui = np.where(rng.random(len(counts)) < 0.5, counts.argmax(axis=1), rng.integers(0, 34, len(counts)))
        planes[np.arange(len(counts)), O.P_HUI, hui] = 1
    mask = np.zeros((len(counts), F.A.N_ACTIONS), dtype=bool)
    extra = F.extra_planes(rules, planes, mask)
    for i in range(len(counts)):
        check_position(rules, planes[i], mask[i], extra[i])


def test_the_kept_table_is_monotone_so_the_fast_lack_suit_path_is_taken(monkeypatch):
    """The 缺一门 path of hand_distance_changed relies on the table (checked once); with a table that fails the
    check it takes the plain call, and the answers do not change."""
    assert hand._kept_monotone()
    rules = get_rules("quemen")
    rng = np.random.default_rng(8)
    counts = random_hands(rng, 200)
    hui = rng.integers(-1, 34, len(counts))
    melds = rng.random((len(counts), 3)) < 0.3
    rows, kinds = changes(rng, counts, hui, 1)
    fast = hand.hand_distance_changed(rules, counts, hui, melds, rows, kinds, 1)
    monkeypatch.setattr(hand, "_kept_monotone", lambda: False)
    monkeypatch.setattr(hand, "_lack_suit_changed", None)  # not reached
    assert np.array_equal(hand.hand_distance_changed(rules, counts, hui, melds, rows, kinds, 1), fast)
