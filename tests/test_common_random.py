"""agents.common_random and the arena's ``common_random``: per-row streams keyed by (seed, wall, seat,
decision), uniform, independent of the other rows and of the batch, so that identical agents score
exactly 0 in duplicate play."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from agents import RandomAgent, RuleBasedAgent
from agents.arena import compare, main, play_duplicate
from agents.arena_report import summarize
from agents.common_random import CommonStreams, decision_keys
from mj_env.baselines import rows_of


def streams(keys, seed=0):
    return CommonStreams(np.asarray(keys, dtype=np.uint64), np.random.default_rng(seed))


def test_a_rows_numbers_depend_on_its_key_and_draw_count_alone():
    keys = decision_keys(7, np.array([0, 0, 5]), np.array([0, 1, 2]), np.array([3, 3, 0]))
    three, one = streams(keys), streams(keys[2:])
    a, b = three.random((3, 6)), one.random((1, 6))
    assert a.shape == (3, 6) and np.array_equal(a[2:], b)
    assert np.array_equal(three.random((3, 4))[2:], one.random((1, 4)))       # the second draw too
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[:, :4], three.random((3, 4)))
    again = streams(keys, seed=99)  # the fallback generator plays no part in rows-first draws
    assert np.array_equal(again.random((3, 6)), a)


def test_take_rows_shares_the_draw_counts_with_the_whole():
    keys = decision_keys(1, np.arange(4), np.zeros(4, int), np.zeros(4, int))
    whole = streams(keys)
    part = rows_of(whole, np.array([1, 3]))
    first = part.random((2, 5))
    ref = streams(keys)
    assert np.array_equal(first, ref.random((4, 5))[[1, 3]])
    # rows 1 and 3 have drawn once, rows 0 and 2 not yet: a draw of the whole gives each row its own next numbers
    nxt = whole.random((4, 5))
    fresh = streams(keys)
    assert np.array_equal(nxt[[0, 2]], fresh.random((4, 5))[[0, 2]])
    assert np.array_equal(nxt[[1, 3]], fresh.random((4, 5))[[1, 3]])
    mask = np.array([True, False, True, False])
    assert np.array_equal(whole.take_rows(mask).keys, keys[mask])


def test_an_ordinary_generator_is_its_own_rows():
    rng = np.random.default_rng(0)
    assert rows_of(rng, np.array([0, 2])) is rng


def test_draws_that_are_not_rows_first_come_from_the_ordinary_generator():
    s = streams(decision_keys(0, np.arange(3), np.zeros(3, int), np.zeros(3, int)), seed=5)
    ref = np.random.default_rng(5)
    assert isinstance(s, np.random.Generator)  # agents that check the type (agents.networks) take it
    assert np.array_equal(s.random(7), ref.random(7))
    assert np.array_equal(s.random((2, 3)), ref.random((2, 3)))      # 2 rows, not 3
    assert s.integers(1000) == ref.integers(1000)
    assert np.array_equal(s.random((3, 2), dtype=np.float32), ref.random((3, 2), dtype=np.float32))
    assert s.gumbel(size=4).tolist() == ref.gumbel(size=4).tolist()


def test_sizes_numpy_refuses_are_refused_as_numpy_refuses_them():
    s = streams(decision_keys(0, np.arange(3), np.zeros(3, int), np.zeros(3, int)))
    assert s.random(3).shape == s.random(np.int64(3)).shape == (3,) and s.random([3, 0]).shape == (3, 0)
    for size, error in [((3, -1), ValueError), (2.5, TypeError), ((3.0, 2), TypeError), ("x", TypeError)]:
        with pytest.raises(error):
            s.random(size)
        with pytest.raises(error):
            np.random.default_rng(0).random(size)


def test_the_numbers_are_uniform_and_the_gumbels_gumbel():
    """200,000 numbers of 2,000 neighbouring keys (walls 0-499, four seats; one draw each): uniform by a chi-square
    test over 50 bins, neighbouring rows uncorrelated; Gumbel draws have the Gumbel mean and variance. The
    numbers are fixed by the keys, so these checks give the same answer on every run."""
    w, s = np.divmod(np.arange(2000), 4)
    u = streams(decision_keys(12345, w, s, np.zeros(2000, int))).random((2000, 100))
    assert 0 < u.min() and u.max() < 1
    counts = np.bincount((u * 50).astype(int).ravel(), minlength=50)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert abs(np.corrcoef(u[:-1, 0], u[1:, 0])[0, 1]) < 0.1
    assert abs(np.corrcoef(u[:, 0], u[:, 1])[0, 1]) < 0.1
    g = streams(decision_keys(3, w, s, np.ones(2000, int))).gumbel(size=(2000, 100))
    assert g.mean() == pytest.approx(np.euler_gamma, abs=0.02)
    assert g.var() == pytest.approx(math.pi ** 2 / 6, rel=0.03)


def test_every_decision_has_its_own_key():
    w, s, d = (a.ravel() for a in np.meshgrid(np.arange(300), np.arange(4), np.arange(60), indexing="ij"))
    keys = decision_keys(0, w, s, d)
    assert len(np.unique(keys)) == len(keys)
    assert not np.isin(decision_keys(1, w, s, d), keys).any()   # another seed, other keys


def test_identical_agents_score_exactly_zero_on_every_wall():
    """With common random numbers both seatings of a wall play the same hand: every wall's scores are the
    same in the two seatings, and the rule agent against itself is 0 with an interval of no width. Without
    them it is not (the two seatings draw different tie-breaks)."""
    agents = [RuleBasedAgent(), RuleBasedAgent()]
    res = play_duplicate(agents, 60, seed=4, common_random=True, batch_walls=60)
    assert np.array_equal(res.scores[res.seating == 0], res.scores[res.seating == 1])
    a, b = summarize(res)["agents"]
    assert a["mean_points"] == b["mean_points"] == 0.0 and a["ci95"] == [0.0, 0.0]
    plain = play_duplicate(agents, 60, seed=4, batch_walls=60)
    assert not np.array_equal(plain.scores[plain.seating == 0], plain.scores[plain.seating == 1])


def test_network_agents_take_the_common_streams():
    """A network agent samples with rng.gumbel over all its rows: the shipped player against itself is exactly
    0 as well, which it is not with the ordinary generators."""
    pytest.importorskip("torch")
    from agents.pretrained import make_pretrained

    agents = [make_pretrained(), make_pretrained()]
    res = play_duplicate(agents, 8, seed=9, common_random=True, batch_walls=8)
    assert np.array_equal(res.scores[res.seating == 0], res.scores[res.seating == 1])
    plain = play_duplicate(agents, 8, seed=9, batch_walls=8)
    assert not np.array_equal(plain.scores[plain.seating == 0], plain.scores[plain.seating == 1])


class KeySpy(RandomAgent):
    """The random agent, noting the stream key of every decision it makes."""

    def __init__(self, seen: list):
        super().__init__()
        self.seen = seen

    def act(self, obs, rng):
        self.seen.append(rng.keys.copy())
        return super().act(obs, rng)


def test_each_decision_of_a_hand_draws_from_a_stream_of_its_own():
    """Every (wall, seat, decision) key is used exactly twice: once in each seating of its wall, never twice in
    one hand (a seat's second decision does not reuse its first's numbers)."""
    seen = []
    res = play_duplicate([KeySpy(seen), KeySpy(seen)], 6, seed=8, common_random=True, batch_walls=6)
    keys = np.concatenate(seen)
    _, count = np.unique(keys, return_counts=True)
    assert (count == 2).all() and len(keys) > 6 * 2 * 40
    assert np.array_equal(res.scores[res.seating == 0], res.scores[res.seating == 1])


def test_common_random_numbers_do_not_depend_on_the_batch():
    agents = [RuleBasedAgent(), RandomAgent()]
    runs = [play_duplicate(agents, 20, seed=2, common_random=True, batch_walls=b) for b in (3, 20)]
    for f in ("scores", "won", "dealt_in", "fan", "drawn"):
        assert np.array_equal(getattr(runs[0], f), getattr(runs[1], f)), f
    other = play_duplicate(agents, 20, seed=3, common_random=True, batch_walls=20)
    assert not np.array_equal(runs[1].scores, other.scores)


def test_the_flag_is_checked_and_kept_in_the_summary(tmp_path, capsys):
    with pytest.raises(TypeError, match="common_random must be True or False, got 'yes'"):
        compare(["rule", "pretrained"], 2, common_random="yes")
    with pytest.raises(TypeError, match="common_random must be True or False"):
        play_duplicate([RuleBasedAgent(), RandomAgent()], 2, common_random=1)
    out = tmp_path / "crn.json"
    assert main(["--agents", "rule,rule", "--hands", "5", "--seed", "1", "--common-random", "--quiet",
                 "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["common_random"] is True and summary["agents"][0]["ci95"] == [0.0, 0.0]
    assert compare(["rule", "random"], 2)["common_random"] is False


def test_copies_and_pickles_keep_the_streams_and_spawn_gives_ordinary_generators():
    import copy
    import pickle

    s = streams(decision_keys(0, np.arange(3), np.zeros(3, int), np.zeros(3, int)), seed=5)
    part = s.take_rows([0, 2])
    part.random((2, 4))                          # rows 0 and 2 have drawn once
    twins = [copy.deepcopy(s), pickle.loads(pickle.dumps(s))]
    nxt, ints = s.random((3, 5)), s.integers(1000, size=3)   # the original's next numbers: the copies' too
    for twin in twins:
        assert type(twin) is CommonStreams
        assert np.array_equal(twin.random((3, 5)), nxt) and np.array_equal(twin.integers(1000, size=3), ints)
    children = s.spawn(2)
    assert [type(c) for c in children] == [np.random.Generator] * 2


def test_gumbel_checks_loc_and_scale_as_numpy_does():
    s = streams(decision_keys(0, np.arange(3), np.zeros(3, int), np.zeros(3, int)))
    assert streams(s.keys).gumbel(loc=np.zeros((3, 1)), scale=np.ones(4), size=(3, 4)).shape == (3, 4)
    for loc, scale, size in [(0.0, -1.0, (3, 2)), (np.zeros((2, 3, 4)), 1.0, (3, 4)), (0.0, np.ones((2, 1)), (3,)),
                             (np.zeros(5), 1.0, (3, 4))]:
        with pytest.raises(ValueError):
            np.random.default_rng(0).gumbel(loc, scale, size)
        with pytest.raises(ValueError):
            s.gumbel(loc, scale, size)
    assert np.array_equal(s.random((3, 2)), streams(s.keys).random((3, 2)))   # the refused calls drew nothing


def test_the_largest_bits_stay_below_one(monkeypatch):
    """k = 2**53 - 1, the largest 53-bit number, gives (k + 0.5) / 2**53, which rounds to 1.0 in float64: it is
    kept below 1, so that a gumbel draw is never inf."""
    import agents.common_random as cr

    monkeypatch.setattr(cr, "_fold", lambda key, value: np.full(np.broadcast_shapes(np.shape(key), np.shape(value)),
                                                                np.uint64(2 ** 64 - 1)))
    s = streams(np.zeros(2, dtype=np.uint64))
    assert s.random((2, 3)).max() < 1 and np.isfinite(s.gumbel(size=(2, 3))).all()


def test_no_rows_are_no_rows_whatever_the_empty_arrays_dtype():
    """rows_of(rng, rows) with no rows returns an ordinary generator as it is; the streams give an empty view,
    also for an empty float array (np.array([])), which NumPy would refuse as an index."""
    s = streams(decision_keys(0, np.arange(3), np.zeros(3, int), np.zeros(3, int)))
    for rows in ([], np.array([]), np.array([], dtype=int), np.zeros(3, bool)):
        assert rows_of(s, rows).random((0, 34)).shape == (0, 34)


def test_the_streams_are_pinned_so_published_runs_repeat():
    """docs/training_results.md quotes --common-random runs to the last digit: the keys and the numbers they
    give are fixed values, so an edit of the hash (or of the 53-bit rounding) that keeps every property above
    but changes the numbers fails here (any change must be deliberate, and the quoted runs measured again)."""
    keys = decision_keys(777, np.array([0, 1, 2]), np.array([0, 3, 1]), np.array([0, 5, 9]))
    assert keys.tolist() == [17488052289786044040, 17509789623638244287, 168882538711574905]
    s = CommonStreams(keys, np.random.default_rng(0))
    assert s.random(3).tolist() == [0.48398067793162197, 0.7102707480126313, 0.501244318910355]
    assert s.random((3, 2)).tolist() == [[0.7400378677474442, 0.7559054951801012],
                                         [0.1860204616825109, 0.43211360288990247],
                                         [0.4503735069092129, 0.37975825971739646]]


def test_rows_of_rows_share_the_draw_counts_of_the_whole():
    """take_rows of a take_rows view counts each row's draws where the whole does: row 3 of the whole, taken as
    row 1 of rows [1, 3], has drawn once, so the whole's next draw gives it its second numbers."""
    keys = decision_keys(2, np.arange(4), np.zeros(4, int), np.zeros(4, int))
    whole, ref = streams(keys), streams(keys)
    inner = whole.take_rows([1, 3]).take_rows([1])
    assert np.array_equal(inner.keys, keys[[3]])
    first, second = ref.random((4, 5)), ref.random((4, 5))
    assert np.array_equal(inner.random((1, 5)), first[[3]])
    nxt = whole.random((4, 5))
    assert np.array_equal(nxt[[0, 1, 2]], first[[0, 1, 2]]) and np.array_equal(nxt[3], second[3])


def test_a_row_draws_every_element_of_its_own_and_any_rows_first_shape():
    """A row's numbers depend on the element's place in it: 256 numbers in a row do not repeat (a network
    agent draws 127 gumbels a row), and a (rows, a, b) draw is the (rows, a * b) one, shaped."""
    keys = decision_keys(4, np.arange(3), np.zeros(3, int), np.zeros(3, int))
    wide = streams(keys).random((3, 256))
    assert all(len(np.unique(row)) == 256 for row in wide)
    assert np.array_equal(streams(keys).random((3, 2, 4)), streams(keys).random((3, 8)).reshape(3, 2, 4))


def test_draws_numpy_makes_otherwise_come_from_the_ordinary_generator():
    """``out=`` and a size of () are the ordinary generator's draws, as the module says (and as NumPy makes them)."""
    s = streams(decision_keys(0, np.arange(3), np.zeros(3, int), np.zeros(3, int)), seed=5)
    ref = np.random.default_rng(5)
    out = np.zeros((3, 2))
    assert s.random((3, 2), out=out) is out and np.array_equal(out, ref.random((3, 2)))
    assert s.random(()) == ref.random(())


def test_gumbel_loc_and_scale_of_any_shape_that_fits_are_common():
    """A scale of 0 gives loc, as NumPy's does; an array loc or scale shifts and scales the same common numbers."""
    keys = decision_keys(5, np.arange(3), np.zeros(3, int), np.zeros(3, int))
    assert streams(keys).gumbel(1.5, 0.0, size=(3, 2)).tolist() == [[1.5, 1.5]] * 3
    plain = streams(keys).gumbel(size=(3, 4))
    loc, scale = np.arange(3.0)[:, None], np.full(4, 2.0)
    assert np.allclose(streams(keys, seed=7).gumbel(loc, scale, size=(3, 4)), loc + scale * plain)


def test_choice_with_p_over_the_rows_draws_from_the_common_streams():
    """As the module says, ``choice(a, size=n, p=p)`` is common: NumPy draws it with ``self.random(n)``, so each
    row's pick depends on its key alone, not on the fallback generator nor on the other rows."""
    keys = decision_keys(1, np.arange(3), np.zeros(3, int), np.zeros(3, int))
    p = np.full(5, 0.2)
    picks = streams(keys, seed=0).choice(5, size=3, p=p)
    assert np.array_equal(picks, streams(keys, seed=9).choice(5, size=3, p=p))
    assert np.array_equal(picks[1:], streams(keys[1:], seed=3).choice(5, size=2, p=p))
    assert np.array_equal(picks, np.searchsorted(np.cumsum(p), streams(keys).random(3), side="right"))
