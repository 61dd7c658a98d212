"""The batched engine: invariants under random play, batching, hidden information, bad actions."""
from __future__ import annotations

import copy
import os

import numpy as np
import pytest

from mj_env import actions as A
from mj_env import wall as W
from mj_env.baselines import uniform_legal
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.rules import get_rules
from mj_env.state import END, GameState
from mj_env.tiles import FIRST_FLOWER, parse_hand
from mj_env.wall import shuffled_walls

FUZZ_HANDS = int(os.environ.get("MJ_FUZZ_HANDS", "1500"))  # all presets together; CI's bound
PRESETS = ["beijing", "hebei", "quemen"]


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per table (0 where nothing is legal)."""
    return uniform_legal(mask, rng, empty_ok=True)


def tile_census(eng: Engine) -> np.ndarray:
    """(B, 42) where every tile of every table is: hands, melds, rivers, flowers, wall, indicator."""
    st, rules = eng.state, eng.rules
    B = eng.num_tables
    out = np.zeros((B, 42), dtype=np.int64)
    out[:, :34] += st.hands.sum(axis=1) + st.meld_counts.sum(axis=1) + st.river.sum(axis=1)
    for b in range(B):
        undrawn = st.wall[b, st.live_pos[b]: st.tail_pos[b] + 1]
        out[b] += np.bincount(undrawn.astype(np.int64), minlength=42)
        if rules.wall_layout == "indicator":
            out[b, st.indicator[b]] += 1
        if rules.flowers:
            taken = np.concatenate([st.wall[b, :st.live_pos[b]], st.wall[b, st.tail_pos[b] + 1:]])
            out[b, FIRST_FLOWER:] += np.bincount(taken[taken >= FIRST_FLOWER] - FIRST_FLOWER, minlength=8)
        if st.phase[b] == END and st.win_from[b] >= 0:
            # the won tile went to the winner: a robbed kong's from the declarer's hand, a discard from the
            # river (one tile, however many won on it)
            out[b, st.win_tile[b]] += 1
    return out


def expected_census(rules) -> np.ndarray:
    want = np.zeros(42, dtype=np.int64)
    want[:34] = 4
    if rules.flowers:
        want[34:] = 1
    return want


@pytest.mark.parametrize("preset", PRESETS)
def test_random_play_invariants(preset):
    check_random_play(preset, max(FUZZ_HANDS // 3, 50))


WALL_VARIANTS = {"beijing_without_hui": get_rules("beijing", hui=False),
                 "hebei_indicator_wall": get_rules("hebei", wall_layout="indicator", reserve=10),
                 "beijing_hui_in_melds": get_rules("beijing", hui_wild_in_melds=True)}  # 惠牌 moved into melds


@pytest.mark.parametrize("variant", sorted(WALL_VARIANTS))
def test_random_play_invariants_other_wall_layouts(variant):
    check_random_play(WALL_VARIANTS[variant], 60)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_random_play_invariants_long(preset):
    """The long fuzz run: 20,000 hands per rule set (run with -m slow)."""
    check_random_play(preset, 20_000)


def check_random_play(preset, per_preset: int) -> None:
    """Random play at 32 tables of ``preset`` (a name or a RuleSet) until ``per_preset`` hands end."""
    rules = get_rules(preset)
    B = 32
    eng = Engine(rules, num_tables=B, seed=11)
    eng.reset()
    rng = np.random.default_rng(5)
    want = expected_census(rules)
    hands = steps = 0
    steps_in_hand = np.zeros(B, dtype=np.int64)
    while hands < per_preset:
        mask = eng.legal_mask()
        live = eng.state.phase != END
        assert mask[live].any(axis=1).all(), "a seat to act has no legal action"
        assert not mask[~live].any()
        census = tile_census(eng)
        assert (census == want).all(), f"tiles lost or doubled at step {steps}: {census - want}"
        res = eng.step(random_actions(mask, rng))
        if res.hand_over.any():  # the ended hands' tiles too, before they are dealt again
            census = tile_census(eng)
            assert (census == want).all(), f"tiles lost or doubled at a hand's end, step {steps}: {census - want}"
        steps += 1
        steps_in_hand += 1
        assert (res.rewards.sum(axis=1) == 0).all(), "settlement not zero-sum"
        for b in np.flatnonzero(res.hand_over):
            s = res.settlements[b]
            assert list(s["scores"]) == res.rewards[b].tolist()
            hands += 1
        assert (res.rewards[~res.hand_over] == 0).all()
        # a hand has at most ~110 turns (68 live draws + 16 claims + 14 kong replacements +
        # flowers) of at most 4 decisions each (own action, three claim questions)
        assert steps_in_hand.max() < 600, "a hand did not end"
        steps_in_hand[res.hand_over] = 0
        done = np.flatnonzero(res.episode_over)
        while len(done):
            dealt = eng.reset(tables=done)
            # a deal may end the hand at once (四惠牌 on the dealer's first turn): settle, redeal
            for b in np.flatnonzero(dealt.hand_over):
                assert dealt.rewards[b].sum() == 0
                assert list(dealt.settlements[b]["scores"]) == dealt.rewards[b].tolist()
                hands += 1
            done = np.flatnonzero(dealt.hand_over)
            steps_in_hand[done] = 0


def test_every_allowed_action_is_accepted():
    rng = np.random.default_rng(3)
    for preset in PRESETS:
        eng = Engine(preset, num_tables=1, seed=7)
        for hand in range(2):
            eng.reset()
            while eng.state.phase[0] != END:
                legal = np.flatnonzero(eng.legal_mask()[0])
                for a in legal:
                    trial = copy.deepcopy(eng)
                    trial.step(np.array([a]))
                eng.step(np.array([rng.choice(legal)]))


def play_record(eng: Engine, rng, n_steps: int):
    """Random legal play; returns the actions, rewards and observations seen."""
    record = []
    for _ in range(n_steps):
        mask = eng.legal_mask().copy()
        obs = observe(eng.rules, eng.state)
        acts = random_actions(mask, rng)
        res = eng.step(acts)
        record.append((mask, obs, acts, res.rewards.copy(), res.hand_over.copy()))
    return record


@pytest.mark.parametrize("preset", PRESETS)
def test_batch_equivalence(preset):
    """B tables stepped together give exactly what each gives stepped alone."""
    rules = get_rules(preset)
    B = 6
    walls = shuffled_walls(rules, np.random.default_rng(2), B)
    dealers = np.arange(B) % 4
    together = Engine(rules, num_tables=B)
    together.reset(walls=walls, dealers=dealers)
    record = play_record(together, np.random.default_rng(9), 150)
    for b in range(B):
        alone = Engine(rules, num_tables=1)
        alone.reset(walls=walls[b:b + 1], dealers=dealers[b:b + 1])
        for mask, obs, acts, rewards, over in record:
            assert (alone.legal_mask()[0] == mask[b]).all()
            assert (observe(rules, alone.state)[0] == obs[b]).all()
            if alone.state.phase[0] == END:
                break
            res = alone.step(acts[b:b + 1])
            assert (res.rewards[0] == rewards[b]).all()
            assert res.hand_over[0] == over[b]


def test_illegal_action_raises_and_changes_nothing():
    eng = Engine("beijing", num_tables=4, seed=1)
    eng.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        eng.step(random_actions(eng.legal_mask(), rng))
    before = eng.state.copy()
    mask_before = eng.legal_mask().copy()
    acts = random_actions(mask_before, rng)
    bad_table = int(np.flatnonzero(eng.state.phase != END)[0])
    illegal = np.flatnonzero(~mask_before[bad_table])
    acts[bad_table] = illegal[0]
    with pytest.raises(A.ActionError, match=f"table {bad_table}"):
        eng.step(acts)
    for name in GameState.__dataclass_fields__:
        assert (getattr(before, name) == getattr(eng.state, name)).all(), name
    assert (mask_before == eng.legal_mask()).all()
    with pytest.raises(A.ActionError, match="integer actions"):
        eng.step(np.zeros(3, dtype=np.int64))
    acts[bad_table] = 999
    with pytest.raises(A.ActionError, match="999"):
        eng.step(acts)
    eng.step(random_actions(eng.legal_mask(), rng))  # the game goes on from where it was


def _set_turn(eng: Engine, seat: int, hands: dict[int, str]) -> None:
    st = eng.state
    for s, text in hands.items():
        st.hands[0, s] = parse_hand(text)
    st.phase[0] = 0
    st.to_act[0] = seat
    st.turn_seat[0] = seat
    st.claimed_turn[0] = False
    eng._update_masks()


def test_hui_wild_in_melds_changes_the_masks():
    """With hui_wild_in_melds a 惠牌 completes a pong and a chi; by default it does not."""
    masks = {}
    for flag in (False, True):
        eng = Engine(get_rules("beijing", hui_wild_in_melds=flag), num_tables=1)
        eng.reset(walls=None)
        st = eng.state
        hui = int(st.hui[0])
        # seat 1 (next after seat 0) holds one 5m or 5p and a 惠牌; seat 0 discards a 5 that is not 惠牌
        five = 4 if hui not in (3, 4, 5) else 13
        other = "5m" if five == 4 else "5p"
        hand1 = parse_hand("19m19p19s1234z")
        hand1[five] += 1
        hand1[hui] += 1
        st.hands[0, 1] = hand1[:34]
        st.hands[0, 0] = parse_hand("2299m2299p2299s" + other)
        st.hands[0, 2] = parse_hand("1188m1188p1188s5z")
        st.hands[0, 3] = parse_hand("77m77p77s556677z")
        _set_turn(eng, 0, {})
        eng.step(np.array([A.index(f"discard {other}")]))
        masks[flag] = eng.legal_mask()[0].copy()
        assert eng.state.to_act[0] == 1 or not flag
    assert not masks[False][A.PONG]
    assert masks[True][A.PONG]
    assert (masks[True] != masks[False]).any()


@pytest.mark.parametrize("rules", [get_rules(p) for p in PRESETS] + list(WALL_VARIANTS.values()),
                         ids=PRESETS + sorted(WALL_VARIANTS))
def test_wall_counts_of_one_table_equal_the_batched_ones(rules):
    """wall.live_left / replacements_left / live_end / replacement_floor take an index array or
    one table number (the single-table observation uses the latter)."""
    eng = Engine(rules, num_tables=8, seed=2)
    eng.reset()
    rng = np.random.default_rng(6)
    idx = np.arange(8)
    for _ in range(300):
        st = eng.state
        for f in (W.live_left, W.replacements_left, W.live_end, W.replacement_floor):
            batched = np.broadcast_to(f(rules, st, idx), (8,))
            assert [int(np.asarray(f(rules, st, b))) for b in range(8)] == batched.tolist(), f.__name__
        assert (W.live_left(rules, st, idx) >= 0).all() and (W.replacements_left(rules, st, idx) >= 0).all()
        eng.step(random_actions(eng.legal_mask(), rng))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)


@pytest.mark.parametrize("preset, live, replacements", [("beijing", 68, 14), ("hebei", 71, 83)])
def test_wall_counts_after_the_deal(preset, live, replacements):
    """docs/RULES.md 3: beijing's live wall is wall[53:121] (68) and its reserve the 14 tiles beside the
    indicator; hebei replaces from any undrawn tile (136 - 53 = 83) and keeps 6 stacks (12) from live draws."""
    rules = get_rules(preset)
    eng = Engine(rules, num_tables=2, seed=3)
    eng.reset()
    idx = np.arange(2)
    assert W.live_left(rules, eng.state, idx).tolist() == [live] * 2
    assert W.replacements_left(rules, eng.state, idx).tolist() == [replacements] * 2
    assert int(W.replacements_left(rules, eng.state, 0)) == replacements


@pytest.mark.parametrize("preset", PRESETS)
def test_step_on_chosen_tables_leaves_the_others_waiting(preset):
    """Engine.step(actions, tables=...) plays only those tables: each one as a copy of it played
    alone, every other table (and its mask) bit-identical; bad ``tables`` refused, nothing changed."""
    eng = Engine(preset, num_tables=6, seed=2)
    eng.reset()
    rng = np.random.default_rng(3)
    for step in range(120):
        chosen = np.flatnonzero(rng.random(6) < 0.5)
        if not len(chosen):
            chosen = np.array([int(rng.integers(6))])
        acts = random_actions(eng.legal_mask(), rng)
        alone = eng.clone(chosen)
        before = {f: getattr(eng.state, f).copy() for f in eng.state.__dataclass_fields__}
        mask_before = eng.legal_mask().copy()
        res = eng.step(acts, tables=chosen)
        ref = alone.step(acts[chosen])
        others = np.setdiff1d(np.arange(6), chosen)
        for f, old in before.items():
            now = getattr(eng.state, f)
            assert np.array_equal(now[others], old[others]), f
            assert np.array_equal(now[chosen], getattr(alone.state, f)), f
        assert np.array_equal(eng.legal_mask()[others], mask_before[others])
        assert np.array_equal(res.rewards[chosen], ref.rewards) and not res.rewards[others].any()
        over = np.flatnonzero(res.episode_over)
        if len(over):
            eng.reset(tables=over)
    snapshot = {f: getattr(eng.state, f).copy() for f in eng.state.__dataclass_fields__}
    for bad in ([0, 0], [6], [-1], [1.5], [[0, 1]]):
        with pytest.raises(ValueError, match="table"):
            eng.step(random_actions(eng.legal_mask(), rng), tables=bad)
    assert all(np.array_equal(getattr(eng.state, f), v) for f, v in snapshot.items())



def test_meld_tiles_lay_out_a_hui_filling_in_as_itself():
    """``state.meld_tiles``: the tiles lying in a meld, a 惠牌 filling in (``meld_wild``) as itself: in a
    chi bit k stands for tile k of the run; in a pong or kong that many copies of the kind are 惠牌."""
    from mj_env.state import (
        MELD_ADDED_KONG,
        MELD_CHI,
        MELD_CONCEALED_KONG,
        MELD_KONG,
        MELD_PONG,
        allocate,
        meld_tiles,
    )

    st = allocate(1, 136)
    st.hui[0] = 31  # 5z
    melds = [(MELD_CHI, 0, 0b100), (MELD_PONG, 9, 1), (MELD_ADDED_KONG, 18, 2), (MELD_CONCEALED_KONG, 27, 0)]
    for m, (kind, tile, wild) in enumerate(melds):
        st.meld_type[0, 2, m], st.meld_tile[0, 2, m], st.meld_wild[0, 2, m] = kind, tile, wild
    assert [meld_tiles(st, 0, 2, m) for m in range(4)] == [[0, 1, 31], [9, 9, 31], [18, 18, 31, 31], [27] * 4]
    st.meld_wild[0, 2, 0] = 0b001
    assert meld_tiles(st, 0, 2, 0) == [31, 1, 2]
    st.meld_type[0, 2, 1] = MELD_KONG
    assert meld_tiles(st, 0, 2, 1) == [9, 9, 9, 31]


def test_allocated_tables_hold_no_hand_yet():
    """``state.allocate``: before its first deal a table is over (END) and every "none" field holds its
    none value (-1, NO_CATEGORY), as the state's docs say; the dtypes hold a 144-tile wall and a match's
    scores."""
    from mj_env.state import NO_CATEGORY, allocate

    st = allocate(2, 144)
    assert (st.phase == END).all() and st.wall.shape == (2, 144)
    for name in ("meld_tile", "meld_from", "indicator", "hui", "drawn", "claim_tile", "pend_action", "win_from",
                 "win_tile", "sz_tile"):
        assert (getattr(st, name) == -1).all(), name
    assert (st.queue_cat == NO_CATEGORY).all() and (st.pend_cat == NO_CATEGORY).all()
    assert st.live_pos.dtype == st.tail_pos.dtype == np.int16 and st.match_scores.dtype == np.int64

@pytest.mark.parametrize("n", [1, 7, 300, 1500])
def test_seat_rows_equal_the_two_index_read(n):
    from mj_env.state import seat_rows

    rng = np.random.default_rng(n)
    B = 2048
    for shape in [(B, 4), (B, 4, 34), (B, 4, 3)]:
        arr = rng.integers(0, 100, size=shape).astype(np.int16)
        idx = rng.choice(B, size=n, replace=False)
        seats = rng.integers(0, 4, size=n)
        got = seat_rows(arr, idx, seats)
        assert np.array_equal(got, arr[idx, seats])
        got[...] = -1                      # a copy: the state is left alone
        assert (arr >= 0).all()


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_a_one_table_engine_plays_as_the_batched_path(preset):
    """The one-table paths (Engine._step_one, wall._draw_one, the one-table claim options and
    observation) against the batched code: an engine of one table and an engine of two copies of that
    table, given the same actions, stay equal in every state field, mask, reward and settlement."""
    from mj_env.baselines import uniform_legal
    from mj_env.engine import _STATE_FIELDS
    from mj_env.observation import observe, observe_one

    rng = np.random.default_rng(11)
    for game in range(30):
        one = Engine(preset, num_tables=1, seed=game)
        one.reset()
        two = Engine(preset, num_tables=2, seed=0)
        two.restore(one, [0, 0], [0, 1])
        for _ in range(400):
            if one.state.phase[0] == END:
                break
            a = uniform_legal(one.legal_mask(), rng)
            r1, r2 = one.step(a), two.step(np.repeat(a, 2))
            for f in _STATE_FIELDS:
                v1, v2 = getattr(one.state, f), getattr(two.state, f)
                assert np.array_equal(v1[0], v2[0]) and np.array_equal(v2[0], v2[1]), f
            assert np.array_equal(one.legal_mask()[0], two.legal_mask()[0])
            assert np.array_equal(r1.rewards[0], r2.rewards[0]) and r1.hand_over[0] == r2.hand_over[0]
            assert (0 in r1.settlements) == (0 in r2.settlements)
            if 0 in r1.settlements:
                assert r1.settlements[0] == r2.settlements[0]
            if one.state.phase[0] != END:
                seat = int(one.state.to_act[0])
                assert np.array_equal(observe_one(one.rules, one.state, 0, seat), observe(two.rules, two.state)[0])


@pytest.mark.parametrize("num_tables", [1, 2])
def test_an_action_at_a_table_whose_hand_is_over_is_ignored(num_tables):
    """``Engine.step`` ignores the action of a table in END (docs/game_flow.md, Phases: nobody acts there),
    at a one-table engine (its own fast path) as at a batch: no error, no reward, no end reported again,
    and no state field changes."""
    from mj_env.engine import _STATE_FIELDS

    eng = Engine("beijing", num_tables=num_tables, seed=3)
    eng.reset()
    rng = np.random.default_rng(3)
    while (eng.state.phase != END).any():
        eng.step(random_actions(eng.legal_mask(), rng))
    before = eng.state.copy()
    res = eng.step(np.zeros(num_tables, dtype=np.int64))
    assert not res.rewards.any() and not res.hand_over.any() and not res.episode_over.any()
    assert not res.settlements
    for f in _STATE_FIELDS:
        assert np.array_equal(getattr(eng.state, f), getattr(before, f)), f


def test_load_puts_the_generator_back():
    """``Engine._load(Engine._save())`` puts back everything ``step`` changes, the generator's state
    included: the single-agent env relies on it so that a step an opponent fails changes nothing
    (docs/RULES.md 7). In a match the engine deals the next hand from its generator, so a step that ends a
    hand and is then undone must deal the same next hand when it is played again."""
    eng = Engine("beijing", num_tables=1, seed=0, hands_per_episode=2)
    eng.reset()
    rng = np.random.default_rng(0)
    while True:
        saved = eng._save()
        a = random_actions(eng.legal_mask(), rng)
        if eng.step(a).hand_over[0]:
            break
    second = eng.state.wall.copy()  # the match's next hand, dealt from the engine's generator
    eng._load(saved)
    assert eng.step(a).hand_over[0]
    assert np.array_equal(eng.state.wall, second)


def test_two_winners_pay_shaozhuang_once():
    """beijing with multiple_winners=True: South and West win on the dealer's 5p after one round of 烧庄 (7z
    four times). Each win is settled as the calculator settles it (its own 烧庄 line in its object), but the
    hand pays 烧庄 once (docs/RULES.md 6.1: the dealer pays 3 x 2^(R-1), each other seat gets 2^(R-1))."""
    import json

    from walls import build_wall

    from mj_env.score import answer
    rules = get_rules("beijing", multiple_winners=True)
    wall = build_wall(rules, hands={0: "7z5p", 1: "123m456m789m234p7z", 2: "234s567s789s111z7z", 3: "7z"},
                      draws="5p5p", indicator="9s", dealer=0)
    eng = Engine(rules, num_tables=1)
    eng.reset(walls=[wall], dealers=[0])
    total = np.zeros(4, dtype=np.int64)
    for seat, move in ((0, "discard 7z"), (1, "discard 7z"), (2, "discard 7z"), (3, "discard 7z"),
                       (0, "discard 5p"), (1, "win"), (2, "win")):
        while not eng.legal_mask()[0, A.index(move)] or int(eng.state.to_act[0]) != seat:
            total += eng.step([A.PASS]).rewards[0]  # claim windows on the way (a win on a 7z, a pong)
        res = eng.step([A.index(move)])
        total += res.rewards[0]
    s = res.settlements[0]
    assert [w["input"]["winner"] for w in s["wins"]] == [1, 2] and s["shaozhuang"] == 1
    assert [w["scores"] for w in s["wins"]] == [[-8, 6, 1, 1], [-6, 1, 4, 1]]  # F = 5 and 3, each with 烧庄
    assert s["scores"] == total.tolist() == [-11, 6, 4, 1]  # = -5-3 to the discarder, +5, +3; 烧庄 once
    for w in s["wins"]:
        assert answer(json.dumps(w["input"], ensure_ascii=False))["scores"] == w["scores"]


@pytest.mark.parametrize("preset", ["beijing", "quemen"])
def test_a_large_batch_plays_as_one_table(preset):
    """From FLAT_MIN_ROWS tables on, draws read the wall and write the hands through one flat index
    (wall._wall_at, wall._add_tiles, state.seat_rows): 300 copies of a table, stepped together with
    the same actions, stay equal to that table stepped alone in every state field and reward."""
    from mj_env.baselines import uniform_legal
    from mj_env.engine import _STATE_FIELDS
    from mj_env.state import FLAT_MIN_ROWS

    n = FLAT_MIN_ROWS + 44
    rng = np.random.default_rng(3)
    for game in range(3):
        one = Engine(preset, num_tables=1, seed=game)
        one.reset()
        many = Engine(preset, num_tables=n, seed=0)
        many.restore(one, [0] * n, list(range(n)))
        while one.state.phase[0] != END:
            a = uniform_legal(one.legal_mask(), rng)
            r1, r2 = one.step(a), many.step(np.repeat(a, n))
            for f in _STATE_FIELDS:
                v1, v2 = getattr(one.state, f), getattr(many.state, f)
                assert np.array_equal(v1[0], v2[0]) and (v2 == v2[:1]).all(), f
            assert (r2.rewards == r1.rewards[0]).all() and (r2.hand_over == r1.hand_over[0]).all()
