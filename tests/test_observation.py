"""Observation planes (mj_obs_v1): each documented plane holds what the docstring says."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env import observation as O
from mj_env.baselines import uniform_legal
from mj_env.engine import Engine
from mj_env.observation import N_PLANES, OBS_NAME, observe, observe_one
from mj_env.rules import get_rules
from mj_env.state import CLAIM, END, TURN
from mj_env.tiles import HUI_OF_INDICATOR
from mj_env.wall import live_left


def test_planes_match_the_state_from_every_seat():
    eng = Engine("beijing", num_tables=8, seed=3)
    eng.reset()
    rng = np.random.default_rng(1)
    seen_claim = seen_turn = seen_claimed_turn = 0
    for _ in range(200):
        st = eng.state
        live = np.flatnonzero(st.phase != END)
        for seat in range(4):
            obs = observe(eng.rules, st, live, np.full(len(live), seat))
            assert obs.shape == (len(live), N_PLANES, 34) and obs.dtype == np.uint8
            for j, b in enumerate(live):
                o = obs[j]
                sc = o[O.P_SCALARS]
                assert (o[O.P_HAND] == st.hands[b, seat]).all()
                for k in range(4):
                    other = (seat + k) % 4
                    assert (o[O.P_RIVERS][k] == st.river[b, other]).all()
                    shown = st.meld_counts[b, other] - (st.hidden[b, other] if k else 0)
                    assert (o[O.P_MELDS][k] == shown).all()
                    assert sc[O.COL_CONCEALED_KONGS][k] == st.n_hidden[b, other]
                assert o[O.P_INDICATOR].argmax() == st.indicator[b] and o[O.P_INDICATOR].sum() == 1
                assert o[O.P_HUI].argmax() == HUI_OF_INDICATOR[st.indicator[b]] and o[O.P_HUI].sum() == 1
                assert sc[O.COL_LIVE_LEFT] == live_left(eng.rules, st, np.array([b]))[0]
                reserve_start = st.wall.shape[1] - 1 - eng.rules.reserve
                assert sc[O.COL_REPLACEMENTS_LEFT] == st.tail_pos[b] + 1 - reserve_start
                assert sc[O.COL_DEALER] == (st.dealer[b] - seat) % 4
                if st.phase[b] == CLAIM:
                    assert o[O.P_CLAIM].argmax() == st.claim_tile[b] and o[O.P_CLAIM].sum() == 1
                    assert sc[O.COL_ASKER] == (st.turn_seat[b] - seat) % 4
                    seen_claim += 1
                else:
                    assert o[O.P_CLAIM].sum() == 0
                if st.phase[b] == TURN and st.turn_seat[b] == seat and st.drawn[b] >= 0:
                    assert o[O.P_DRAWN].argmax() == st.drawn[b] and o[O.P_DRAWN].sum() == 1
                    seen_turn += 1
                elif st.turn_seat[b] != seat:
                    assert o[O.P_DRAWN].sum() == 0  # another seat's drawn tile is never shown
                if st.phase[b] == TURN and st.turn_seat[b] == seat and sc[O.COL_MUST_DISCARD]:
                    assert o[O.P_DRAWN].sum() == 0  # a turn after one's chi or pong drew nothing
                    seen_claimed_turn += 1
                by_me = st.claims[b, seat, [(seat + k) % 4 for k in range(4)]]
                assert (sc[O.COL_CLAIMED_BY_SELF] == by_me).all()
        mask = eng.legal_mask()
        eng.step(uniform_legal(mask, rng, empty_ok=True))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    assert seen_claim > 20 and seen_turn > 20 and seen_claimed_turn > 5
    assert OBS_NAME == "mj_obs_v1"


def test_the_layout_names_cover_every_plane_and_column_once():
    planes, columns = [], []
    for name, value in vars(O).items():
        if name.startswith(("P_", "COL_")):
            span = list(range(value.start, value.stop)) if isinstance(value, slice) else [value]
            (planes if name.startswith("P_") else columns).extend(span)
    assert sorted(planes) == list(range(N_PLANES))
    assert sorted(columns) == list(range(O.N_SCALARS)) and O.N_SCALARS == 34
    per_offset = ("P_MELDS", "P_RIVERS", "COL_CONCEALED_KONGS", "COL_TING", "COL_FLOWERS",
                  "COL_CLAIMED_BY_SELF", "COL_CLAIMED_FROM_SELF")
    for name in per_offset:
        value = getattr(O, name)
        assert value.stop - value.start == 4, name
    assert O.COL_HUBAO.stop - O.COL_HUBAO.start == 3  # offsets 1-3


def test_hubao_columns():
    """互包 (docs/RULES.md 6.1): seats a and b are bound once a claimed hubao_claims discards from b, or b
    from a."""
    rules = get_rules("beijing", hubao_claims=1)  # bound after one claim: common in random play
    eng = Engine(rules, num_tables=16, seed=5)
    eng.reset()
    rng = np.random.default_rng(2)
    bound_seen = 0
    for _ in range(300):
        st = eng.state
        for b in np.flatnonzero(st.phase != END):
            c = st.claims[b]
            for seat in range(4):
                sc = observe_one(rules, st, int(b), seat)[O.P_SCALARS]
                want = [bool(c[seat, (seat + k) % 4] >= 1 or c[(seat + k) % 4, seat] >= 1) for k in (1, 2, 3)]
                assert sc[O.COL_HUBAO].tolist() == want and sc[O.COL_HUBAO_COUNT] == sum(want)
                bound_seen += sum(want)
        mask = eng.legal_mask()
        eng.step(uniform_legal(mask, rng, empty_ok=True))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    assert bound_seen > 100


@pytest.mark.parametrize("overrides, indicator_shown", [
    ({"hui": False}, True),                                          # the indicator, no 惠牌
    ({"hui": False, "wall_layout": "tail", "tail_stacks_kept": 6}, False),
])
def test_wall_layout_planes(overrides, indicator_shown):
    rules = get_rules("beijing", **overrides)
    eng = Engine(rules, num_tables=4, seed=1)
    eng.reset()
    st = eng.state
    obs = observe(rules, st)
    assert not obs[:, O.P_HUI].any()
    assert (obs[:, O.P_INDICATOR].sum(axis=1) == indicator_shown).all()
    if indicator_shown:
        assert (obs[:, O.P_INDICATOR].argmax(axis=1) == st.wall[:, -1]).all()
        assert (obs[:, O.P_SCALARS, O.COL_REPLACEMENTS_LEFT] == rules.reserve).all()
        assert (obs[:, O.P_SCALARS, O.COL_LIVE_LEFT] == 136 - 53 - 1 - rules.reserve).all()
    else:
        assert (obs[:, O.P_SCALARS, O.COL_REPLACEMENTS_LEFT] == 136 - 53).all()
        assert (obs[:, O.P_SCALARS, O.COL_LIVE_LEFT] == 136 - 53 - 12).all()


def test_actions_names_round_trip():
    for i in range(A.N_ACTIONS):
        assert A.index(A.name(i)) == i
    assert A.name(A.index("chi 789s")) == "chi 789s"
    assert A.index("kong") == A.KONG and A.index("kong 5m") == A.KONG_SELF + 4


@pytest.mark.parametrize("rules", [get_rules("beijing"), get_rules("hebei"), get_rules("quemen"),
                                   get_rules("beijing", hui=False)],
                         ids=["beijing", "hebei", "quemen", "beijing_without_hui"])
def test_single_table_path_equals_the_batched_one(rules):
    eng = Engine(rules, num_tables=6, seed=2)
    eng.reset()
    rng = np.random.default_rng(4)
    for _ in range(150):
        st = eng.state
        for seat in range(4):
            batched = observe(eng.rules, st, np.arange(6), np.full(6, seat))
            for b in range(6):
                assert (observe_one(eng.rules, st, b, seat) == batched[b]).all()
        mask = eng.legal_mask()
        eng.step(uniform_legal(mask, rng, empty_ok=True))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)


def test_first_turn_column_is_per_seat_until_it_discards_or_anyone_melds():
    """COL_FIRST_TURN (天和 / 地和 timing): 1 for a seat until it has discarded, whatever the others did;
    0 for every seat once anyone melds."""
    import mj_env

    env = mj_env.env(rules="beijing")
    env.reset(seed=0)
    first = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"][:34])[0]))  # the dealer discards
    st = env.unwrapped.engine.state
    while st.phase[0] == CLAIM:  # everyone passes
        env.step(A.index("pass"))
    assert st.n_discards[0].sum() == 1 and not st.any_meld[0]
    col = {ag: int(env.observe(ag)["observation"][O.P_SCALARS, O.COL_FIRST_TURN]) for ag in env.agents}
    assert col == {ag: int(ag != first) for ag in env.agents}
    st.any_meld[0] = True  # anyone's meld clears it for every seat
    assert all(env.observe(ag)["observation"][O.P_SCALARS, O.COL_FIRST_TURN] == 0 for ag in env.agents)


def test_observe_checks_its_tables_and_seats():
    """A probe's seats=[-1, ...] returned seat 3's planes and idx=[-1] the last table's; now both are refused."""
    from mj_env.engine import Engine
    from mj_env.observation import observe, observe_one
    eng = Engine(num_tables=3, seed=0)
    eng.reset(seed=1)
    rules, st = eng.rules, eng.state
    for kwargs, match in [({"seats": [-1, -1, -1]}, "seats: -1 is not in 0-3"), ({"seats": [0.5, 0, 0]}, "seats must"),
                          ({"seats": [0]}, "seats must be a 1-D array of 3 integers"), ({"seats": 4}, "seats must"),
                          ({"idx": np.array([-1])}, "idx: -1 is not in 0-2"), ({"idx": [[0], [1, 2]]}, "idx must")]:
        with pytest.raises(ValueError, match=match):
            observe(rules, st, **kwargs)
    for b, seat in ((-1, 0), (3, 0), (0, 4), (0.0, 0), (True, 0)):
        with pytest.raises(ValueError, match="observe_one"):
            observe_one(rules, st, b, seat)
    assert (observe(rules, st, idx=[2], seats=[1])[0] == observe_one(rules, st, 2, 1)).all()
    assert observe(rules, st, idx=[]).shape[0] == 0


def test_rob_window_and_final_observation_scalars():
    """A rob window (hebei, two seats able to rob seat 1's added kong of 5m) seen by each seat asked, in both
    paths: the kong's tile in P_CLAIM, phase 2, the declarer as the asker, and once the first robber accepted,
    claim category 1 (only a win is offered); at the end every seat's final observation reads phase 2 (from an
    outside mutation test: no test reached a rob window's planes)."""
    from fast_game import FastGame
    from scenario_helpers import HEBEI, TWO_ROBBERS, TWO_ROBBERS_MOVES, play
    from walls import build_wall

    g = FastGame(HEBEI, build_wall(HEBEI, **TWO_ROBBERS), 0)
    play(g, *TWO_ROBBERS_MOVES)
    st, rules, five = g.engine.state, HEBEI, A.index("discard 5m")

    def planes(seat):
        one, batched = observe_one(rules, st, 0, seat), observe(rules, st, np.array([0]), seats=np.array([seat]))[0]
        assert np.array_equal(one, batched)
        return one

    for seat, category in ((2, 3), (3, 1)):       # 3: nothing accepted yet; 1: seat 2 accepted its win
        assert g.to_act == seat
        p = planes(seat)
        sc = p[O.P_SCALARS]
        assert np.flatnonzero(p[O.P_CLAIM]).tolist() == [five] and p[O.P_CLAIM].sum() == 1
        assert (sc[O.COL_PHASE], sc[O.COL_ASKER], sc[O.COL_CLAIM_CATEGORY]) == (2, (1 - seat) % 4, category)
        play(g, (seat, "win"))
    assert st.phase[0] == END
    for seat in range(4):
        assert planes(seat)[O.P_SCALARS, O.COL_PHASE] == 2


def _both_paths(rules, st, seat):
    """observe_one and observe of table 0 seen by ``seat``, held equal."""
    one, batched = observe_one(rules, st, 0, seat), observe(rules, st, np.array([0]), np.array([seat]))[0]
    assert np.array_equal(one, batched)
    return one


def test_ting_columns_follow_the_seat_offsets():
    """COL_TING: 报听 of offset 0-3, in both paths (from an outside mutation test: the batched path read
    the offsets backwards unnoticed; random play seldom declares 报听)."""
    rules = get_rules("quemen")
    eng = Engine(rules, num_tables=1, seed=0)
    eng.reset()
    st = eng.state
    st.ting[0] = [0, 1, 0, 0]  # seat 1 declared 报听
    for seat in range(4):
        sc = _both_paths(rules, st, seat)[O.P_SCALARS]
        assert sc[O.COL_TING].tolist() == [int((seat + k) % 4 == 1) for k in range(4)]


def test_concealed_kongs_column_counts_each_kong_and_hides_their_kinds():
    """COL_CONCEALED_KONGS counts a seat's concealed kongs (two here, not just "some"); their kinds lie face
    up in the owner's plane 1 and in nobody else's planes (from an outside mutation test: a count clipped
    at 1 went unnoticed, two concealed kongs of one seat being rare in random play)."""
    rules = get_rules("hebei")
    eng = Engine(rules, num_tables=1, seed=0)
    eng.reset()
    st = eng.state
    for kind in (4, 31):  # seat 2 holds concealed kongs of 5m and 5z
        st.meld_counts[0, 2, kind] = st.hidden[0, 2, kind] = 4
    st.n_hidden[0, 2] = 2
    for seat in range(4):
        o = _both_paths(rules, st, seat)
        k = (2 - seat) % 4
        assert o[O.P_SCALARS, O.COL_CONCEALED_KONGS].tolist() == [2 * (j == k) for j in range(4)]
        assert o[O.P_MELDS][k][[4, 31]].tolist() == ([4, 4] if k == 0 else [0, 0])


def test_hubao_columns_stay_0_without_hubao():
    """互包 is a beijing payment (docs/RULES.md 6.1): under rules without it the 互包 columns are 0 however often
    two seats claimed from each other (from an outside mutation test: the batched path filled them)."""
    rules = get_rules("hebei")
    assert not rules.hubao
    eng = Engine(rules, num_tables=1, seed=0)
    eng.reset()
    st = eng.state
    st.claims[0, 0, 1] = st.claims[0, 2, 3] = 8  # far past any hubao_claims
    for seat in range(4):
        sc = _both_paths(rules, st, seat)[O.P_SCALARS]
        assert not sc[O.COL_HUBAO].any() and sc[O.COL_HUBAO_COUNT] == 0
        assert sc[O.COL_CLAIMED_BY_SELF].sum() + sc[O.COL_CLAIMED_FROM_SELF].sum() == 8  # the counts are shown


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_no_seat_sees_another_seats_concealed_tiles_or_the_wall(preset):
    """Every seat's planes, in both paths and whoever is to act: moving tiles between another seat's concealed
    hand and the undrawn wall, reordering the wall, and changing the kind of that seat's concealed kong (one is
    added: random play seldom declares one) change nothing."""
    from mj_env.tiles import FIRST_FLOWER

    rules = get_rules(preset)
    eng = Engine(rules, num_tables=16, seed=6)
    eng.reset()
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(150):
        st = eng.state
        for b in np.flatnonzero(st.phase != END)[:2]:
            for seat in range(4):
                other = int((seat + 1 + rng.integers(3)) % 4)
                base = st.take(np.array([b]))
                k, u = rng.choice(np.flatnonzero(base.meld_counts[0, other] == 0), 2, replace=False)
                base.hidden[0, other, k] = base.meld_counts[0, other, k] = 4   # a concealed kong of k
                base.n_hidden[0, other] += 1
                alt = base.take(np.array([0]))
                alt.hidden[0, other, k] = alt.meld_counts[0, other, k] = 0     # ... or of u
                alt.hidden[0, other, u] = alt.meld_counts[0, other, u] = 4
                lo, hi = int(alt.live_pos[0]), int(alt.tail_pos[0])
                alt.wall[0, lo:hi + 1] = alt.wall[0, lo:hi + 1][rng.permutation(hi + 1 - lo)]
                held = np.flatnonzero(alt.hands[0, other])
                drawable = lo + np.flatnonzero(alt.wall[0, lo:hi + 1] < FIRST_FLOWER)
                if len(held) and len(drawable):
                    t, j = rng.choice(held), rng.choice(drawable)
                    alt.hands[0, other, t] -= 1
                    alt.hands[0, other, alt.wall[0, j]] += 1
                    alt.wall[0, j] = t
                want = observe_one(rules, base, 0, seat)
                assert want[O.P_SCALARS, O.COL_CONCEALED_KONGS][(other - seat) % 4] == base.n_hidden[0, other]
                assert np.array_equal(observe_one(rules, alt, 0, seat), want), (seat, other)
                assert np.array_equal(observe(rules, alt, np.array([0]), np.array([seat]))[0], want), (seat, other)
                if seat == st.to_act[b]:  # the batched path's default: the seat to act
                    assert np.array_equal(observe(rules, alt, np.array([0]))[0], want), (seat, other)
                checked += 1
        eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    assert checked > 1000


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_shaozhuang_columns_only_where_the_rules_have_it(preset):
    """烧庄 is a beijing payment (docs/RULES.md 6.1): at the deal its column says it may still grow under beijing
    and never under hebei or quemen, where no round of equal discards is counted either."""
    rules = get_rules(preset)
    eng = Engine(rules, num_tables=32, seed=3)
    eng.reset()
    rng = np.random.default_rng(4)
    for step in range(60):
        st = eng.state
        live = np.flatnonzero(st.phase != END)
        for seat in range(4):
            sc = observe(rules, st, live, np.full(len(live), seat))[:, O.P_SCALARS]
            if step == 0:
                assert (sc[:, O.COL_SZ_ALIVE] == rules.shaozhuang).all()
            if not rules.shaozhuang:
                assert not sc[:, O.COL_SZ_ALIVE].any() and not sc[:, O.COL_SZ_ROUNDS].any()
        eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))


def test_observe_refuses_tables_and_seats_past_the_last():
    """idx and seats past their ranges are refused by name, like negative ones (from an outside mutation test:
    dropping the upper bound let idx=[3] of 3 tables through to an IndexError deep in a gather); in
    observe_one a bool seat is refused like a bool table."""
    eng = Engine(num_tables=3, seed=0)
    eng.reset(seed=1)
    rules, st = eng.rules, eng.state
    with pytest.raises(ValueError, match="idx: 3 is not in 0-2"):
        observe(rules, st, idx=[0, 3])
    with pytest.raises(ValueError, match="seats: 4 is not in 0-3"):
        observe(rules, st, seats=[0, 4, 1])
    for seat in (True, np.bool_(False)):
        with pytest.raises(ValueError, match="observe_one"):
            observe_one(rules, st, 0, seat)


def test_checked_planes_limits_are_inclusive():
    """checked_planes takes a hand plane of exactly 14 tiles and float planes holding 255.0 (as uint8 255), and
    refuses 15 tiles, 256.0 and planes not 34 wide (from an outside mutation test: limits of 15 tiles and of < 255
    and a dropped width check went unnoticed)."""
    planes = np.zeros((1, N_PLANES, 34), dtype=np.uint8)
    planes[0, O.P_HAND, :3] = 4
    planes[0, O.P_HAND, 4] = 2                            # 14 tiles
    assert np.array_equal(O.checked_planes(planes), planes)
    planes[0, O.P_HAND, 5] = 1                            # 15 tiles
    with pytest.raises(ValueError, match="14 tiles in all"):
        O.checked_planes(planes)
    floats = np.zeros((2, N_PLANES, 34))
    floats[:, O.P_RIVERS.start, 0] = 255.0
    got = O.checked_planes(floats)
    assert got.dtype == np.uint8 and (got[:, O.P_RIVERS.start, 0] == 255).all()
    floats[1, O.P_RIVERS.start, 0] = 256.0
    with pytest.raises(ValueError, match="whole numbers 0-255"):
        O.checked_planes(floats)
    for cols in (33, 35):                                 # a plane is 34 tile kinds, no more, no fewer
        with pytest.raises(ValueError, match=r"planes must be \(n, 14 or more, 34\)"):
            O.checked_planes(np.zeros((1, N_PLANES, cols), dtype=np.uint8))


def test_checked_planes_takes_longer_layouts_and_bool_planes():
    """checked_planes takes layouts that start with mj_obs_v1 (v2's 18 planes) unchanged and bool planes as
    uint8 0/1, as its docstring says (from an outside mutation test: refusing P > N_PLANES or bool planes went
    unnoticed)."""
    from mj_env import features as F

    v2 = np.zeros((2, F.N_PLANES_V2, 34), dtype=np.uint8)
    v2[:, O.P_HAND, 0] = 2
    v2[:, N_PLANES:] = 7
    assert F.N_PLANES_V2 > N_PLANES and np.array_equal(O.checked_planes(v2), v2)
    flags = np.zeros((1, N_PLANES, 34), dtype=bool)
    flags[0, O.P_RIVERS.start, 3] = True
    got = O.checked_planes(flags)
    assert got.dtype == np.uint8 and got.sum() == 1 and got[0, O.P_RIVERS.start, 3] == 1


def test_hubao_count_counts_two_bound_seats():
    """COL_HUBAO_COUNT is the number of seats bound to self, 2 here (seat 0 claimed 3 discards from seat 1 and
    seat 2 claimed 3 from seat 0, the default hubao_claims), in both paths (from an outside mutation test: the
    batched path added the bound flags as bools, an OR capped at 1)."""
    rules = get_rules("beijing")
    assert rules.hubao and rules.hubao_claims == 3
    eng = Engine(rules, num_tables=1, seed=0)
    eng.reset()
    st = eng.state
    st.claims[0] = 0
    st.claims[0, 0, 1] = st.claims[0, 2, 0] = 3
    sc = _both_paths(rules, st, 0)[O.P_SCALARS]
    assert sc[O.COL_HUBAO].tolist() == [1, 1, 0] and sc[O.COL_HUBAO_COUNT] == 2
    for seat in (1, 2, 3):
        sc = _both_paths(rules, st, seat)[O.P_SCALARS]
        assert sc[O.COL_HUBAO_COUNT] == int(seat != 3) == sc[O.COL_HUBAO].sum()


def test_observe_of_some_tables_in_any_order_reads_each_row_from_its_table():
    """observe with idx a reversed subset of the tables gives each row the planes of its own table (the claimed
    and drawn tiles included), as observe_one does (from an outside mutation test: P_DRAWN and P_CLAIM read from
    table j instead of idx[j] went unnoticed, every test passing all tables in order)."""
    eng = Engine("beijing", num_tables=6, seed=7)
    eng.reset()
    rng = np.random.default_rng(3)
    seen_claim = seen_drawn = 0
    for _ in range(60):
        st = eng.state
        idx = np.array([5, 3, 2, 0])
        seats = st.to_act[idx].astype(np.int64)
        batched = observe(eng.rules, st, idx, seats)
        for j, b in enumerate(idx):
            assert np.array_equal(batched[j], observe_one(eng.rules, st, int(b), int(seats[j]))), (j, b)
        seen_claim += int(batched[:, O.P_CLAIM].sum())
        seen_drawn += int(batched[:, O.P_DRAWN].sum())
        eng.step(uniform_legal(eng.legal_mask(), rng, empty_ok=True))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    assert seen_claim > 10 and seen_drawn > 10


@pytest.mark.parametrize("preset", ["beijing", "hebei"])
def test_observe_fills_the_out_array_it_is_given(preset):
    """``out`` (documented: a preallocated array to fill) is filled and returned, every plane and column
    overwritten whatever it held, under rules with and without 互包 and 惠牌 (from an outside mutation test:
    ignoring ``out`` went unnoticed)."""
    rules = get_rules(preset)
    eng = Engine(rules, num_tables=3, seed=0)
    eng.reset(seed=1)
    out = np.full((3, N_PLANES, 34), 255, dtype=np.uint8)
    got = observe(rules, eng.state, out=out)
    assert got is out
    assert np.array_equal(out, np.stack([observe_one(rules, eng.state, b, int(eng.state.to_act[b]))
                                         for b in range(3)]))


def test_checked_mask_without_a_row_count_refuses_a_scalar_by_name():
    """checked_mask with rows None (the random agent given no planes) takes any number of rows and refuses a
    0-d mask with a ValueError, not len()'s TypeError (from an outside mutation test: dropping the m.ndim
    guard went unnoticed)."""
    from mj_env.baselines import RandomAgent

    m = np.zeros((2, A.N_ACTIONS), dtype=np.int8)
    m[:, A.PASS] = 1
    assert O.checked_mask(m, None, A.N_ACTIONS).tolist() == (m == 1).tolist()
    for bad in (5, np.float32(1)):
        with pytest.raises(ValueError, match=r"mask must be \(n, 127\)"):
            O.checked_mask(bad, None, A.N_ACTIONS)
        with pytest.raises(ValueError, match=r"action_mask must be \(n, 127\)"):
            RandomAgent().act({"action_mask": bad}, np.random.default_rng(0))
    assert RandomAgent().act({"action_mask": m}, np.random.default_rng(0)).tolist() == [A.PASS, A.PASS]


@pytest.mark.parametrize("preset", ["beijing", "hebei"])
def test_a_discard_won_on_leaves_the_river_plane_of_the_final_observation(preset):
    """P_RIVERS holds the discards not claimed; a discard won on is claimed by the win (the last notes had left it in
    the discarder's river: the final observation, the render and the state showed it there). Rule agents; every
    discard win is checked against the discarder's river just before it, from each seat in both paths."""
    from mj_env.baselines import RuleBasedAgent

    rules = get_rules(preset)
    eng, rng, agent = Engine(rules, num_tables=256, seed=11), np.random.default_rng(11), RuleBasedAgent(rules)
    eng.reset(seed=11)
    st, checked = eng.state, 0
    while (st.phase != END).any():
        before = st.river.copy()
        live = np.flatnonzero(st.phase != END)
        mask = eng.legal_mask().copy()
        mask[st.phase == END, A.index("pass")] = 1  # (actions at ended tables are ignored)
        seats = st.to_act.astype(np.int64).clip(0)
        acts = agent.act({"observation": observe(rules, st, np.arange(256), seats), "action_mask": mask}, rng)
        eng.step(acts)
        ended = live[(st.phase[live] == END) & (st.win_from[live] >= 0) & ~st.robbed[live]]
        for b in ended:
            d, t = int(st.win_from[b]), int(st.win_tile[b])
            assert st.river[b, d, t] == before[b, d, t] - 1
            for seat in range(4):
                rel = (d - seat) % 4
                assert observe_one(rules, st, int(b), seat)[O.P_RIVERS][rel, t] == before[b, d, t] - 1
                assert observe(rules, st, np.array([b]), np.array([seat]))[0][O.P_RIVERS][rel, t] == before[b, d, t] - 1
            checked += 1
    assert checked >= 20
