"""What benchmarks/search.py, benchmarks/win_checks.py and benchmarks/fast_paths.py compute, check and
print, on tiny sizes and fake clocks: the figures are the formulas their docstrings state, the correctness
checks before the timing catch a wrong answer, and the switches they flip are the ones they name. No speed
is asserted (tests/test_benchmarks.py holds the smoke runs)."""
from __future__ import annotations

import dataclasses
import json
import math
import os
from types import SimpleNamespace

import _common
import fast_paths
import numpy as np
import pytest
import search
import win_checks
from _common import MaskedSampler

import mj_env.aec as aec_mod
from mj_env import hand, legal, wall
from mj_env.engine import Engine
from mj_env.features import unseen_counts
from mj_env.observation import observe, observe_one
from mj_env.state import END, TURN


class Clock:
    """A fake ``time`` module: ``perf_counter`` and ``process_time`` read numbers the test moves."""

    def __init__(self):
        self.wall, self.cpu = 0.0, 0.0

    def perf_counter(self):
        return self.wall

    def process_time(self):
        return self.cpu


def _refused(parser, argv, flag, capsys):
    with pytest.raises(SystemExit) as e:
        parser(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and flag in err.strip().splitlines()[-1] and "Traceback" not in err


# ============================================================================ search.py
@pytest.mark.parametrize("argv,flag", [
    (["--tables", "0"], "--tables"),
    (["--tables", "65537"], "--tables"),
    (["--threads", "0"], "--threads"),
    (["--threads", "257"], "--threads"),
    (["--ting-steps", "1000001"], "--ting-steps"),
    (["--ting-steps", "-1"], "--ting-steps"),
    (["--ting-positions", "1001"], "--ting-positions"),
    (["--seed", str(2**63)], "--seed"),
    (["--batch-sizes", "0"], "--batch-sizes"),
])
def test_search_refuses_arguments_past_their_limits(argv, flag, capsys):
    _refused(search.parse_args, argv, flag, capsys)


def test_search_takes_the_ends_of_its_ranges():
    a = search.parse_args(["--tables", "65536", "--threads", "256", "--ting-steps", "0,1000000",
                           "--ting-positions", "1000", "--batch-sizes", "1,65536"])
    assert (a.tables, a.threads, a.ting_steps_list, a.ting_positions, a.batch_list) == (
        65536, 256, [0, 1_000_000], 1000, [1, 65536])
    a = search.parse_args(["--tables", "1", "--threads", "1", "--ting-positions", "1"])
    assert (a.tables, a.threads, a.ting_positions) == (1, 1, 1)


def test_search_timed_warms_up_once_then_counts_at_least_two_calls(monkeypatch):
    clock, log = Clock(), []
    monkeypatch.setattr(search, "time", clock)

    def fn(i):
        log.append(i)
        clock.wall += 1.0
        clock.cpu += 0.5

    assert search.timed(fn, 3.0, warmup=7, after_warmup=lambda: log.append("after")) == (3, 3.0)
    assert log == [7, "after", 0, 1, 2]             # the warm-up call is not timed nor counted
    assert search.CPU["share"] == 0.5               # process time / wall time of the timed calls
    log.clear()
    assert search.timed(fn, 0.5) == (2, 2.0)        # one call would be long enough: twice anyway
    assert log == [0, 0, 1]


def _fake_timed(calls=2, dt=4.0, on=None):
    """search.timed without a clock: the warm-up, ``after_warmup``, then ``calls`` calls said to take ``dt``."""
    def timed(fn, seconds, warmup=0, after_warmup=None):
        fn(warmup)
        if after_warmup is not None:
            after_warmup()
        if on is not None:
            on["on"] = True
        for i in range(calls):
            fn(i)
        search.CPU["share"] = 0.75
        return calls, dt
    return timed


@pytest.fixture(scope="module")
def search_root():
    return search.roots("beijing", 3, 0)


def test_search_clone_and_restore_rows_are_calls_over_time(monkeypatch, search_root):
    monkeypatch.setattr(search, "timed", _fake_timed())
    assert search.clone_row(search_root, 1.0) == {"row": "clone 1 table", "batch": 1, "per_sec": 0.5,
                                                  "us_each": 2e6}
    assert search.restore_row(search_root, 5, 1.0) == {"row": "restore 1 -> 5", "batch": 5, "per_sec": 0.5,
                                                       "us_each": 2e6, "rows_per_sec": 2.5}


def test_search_rollout_row_counts_live_decisions_of_the_timed_rollouts(monkeypatch, search_root):
    """Rollouts/s = N x rounds / time; decisions are the live rows of every step after the warm-up; the
    sampler's and restore's shares are their (fake) time over the loop's."""
    N, clock, seen = 4, Clock(), {"on": False, "decisions": 0, "sampler": 0, "restores": 0}
    monkeypatch.setattr(search, "time", clock)
    real_step, real_restore = Engine.step, Engine.restore

    def step(self, acts):
        if seen["on"] and self.num_tables == N:
            seen["decisions"] += int((self.state.phase != END).sum())
        return real_step(self, acts)

    def restore(self, *args, **kw):
        clock.wall += 100.0
        seen["restores"] += seen["on"]
        return real_restore(self, *args, **kw)

    class Sampler(MaskedSampler):
        def __call__(self, mask):
            clock.wall += 1.0
            seen["sampler"] += seen["on"]
            return super().__call__(mask)

    monkeypatch.setattr(Engine, "step", step)
    monkeypatch.setattr(Engine, "restore", restore)
    monkeypatch.setattr(search, "MaskedSampler", Sampler)
    monkeypatch.setattr(search, "timed", _fake_timed(on=seen))
    r = search.rollout_row(search_root, N, 1.0, seed=5)
    D = seen["decisions"]
    assert D > 2 * N and seen["restores"] == 2
    assert r == {"row": f"rollout {N}", "batch": N, "per_sec": 2.0, "us_each": 5e5,
                 "decisions_per_sec": D / 4, "decisions_per_rollout": D / 8,
                 "sampler_share": seen["sampler"] / 4, "restore_share": 50.0}


def test_search_determinize_row_deals_for_the_seat_to_act(monkeypatch, search_root):
    calls, real = [], search.determinize

    def spy(eng, table, seat, n, rng):
        calls.append((table, seat, n))
        return real(eng, table, seat, n=n, rng=rng)

    monkeypatch.setattr(search, "determinize", spy)
    monkeypatch.setattr(search, "timed", _fake_timed())
    r = search.determinize_row(search_root, 5, 1.0)
    assert r == {"row": "determinize 5", "batch": 5, "per_sec": 2.5, "us_each": 4e5, "calls_per_sec": 0.5}
    to_act = search_root.state.to_act
    assert calls == [(0, int(to_act[0]), 5), (0, int(to_act[0]), 5), (1, int(to_act[1]), 5)]


def test_search_roots_stops_each_table_at_its_own_step():
    """Table b of ``roots`` is table b of the same random play after its own number of steps."""
    T, seed = 5, 3
    got = search.roots("beijing", T, seed)
    stop = np.random.default_rng(seed).integers(8, 60, size=T)
    assert len(set(stop.tolist())) > 1
    eng = Engine("beijing", num_tables=T, seed=seed)
    eng.reset()
    sampler, snaps = MaskedSampler(seed), []
    for _ in range(int(stop.max()) + 1):
        snaps.append({f.name: getattr(eng.state, f.name).copy() for f in dataclasses.fields(eng.state)})
        eng.step(sampler(eng.legal_mask()))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)
    assert (got.state.phase != END).all()
    for b in range(T):
        for name, value in snaps[stop[b]].items():
            assert np.array_equal(getattr(got.state, name)[b], value[b]), (b, name)


@pytest.fixture(scope="module")
def ting_found():
    return search.ting_positions(34, 2)   # 18 first ones: 10-tile hands and more, three 7-tile ones, one 4-tile one;
                                          # the 34th: a 7-tile hand, and its 报听 seat holds a concealed kong


def test_search_ting_positions_are_another_seats_ting(ting_found):
    assert len(ting_found) == 34
    for copy, s, o in ting_found:
        st = copy.state
        assert copy.num_tables == 1 and copy.rules.name == "quemen" and st.phase[0] != END
        assert s == st.to_act[0] and o != s and st.ting[0, o]
        assert not (st.turn_seat[0] == o and st.phase[0] == TURN and st.drawn[0] >= 0)
    assert len(search.ting_positions(1, 0)) == 1


def _expected_kept(pool, true):
    """The mean share of ``true`` that a uniform draw of ``true.sum()`` tiles from ``pool`` keeps
    (hypergeometric, kind by kind)."""
    size, P = int(true.sum()), int(pool.sum())
    kept = 0.0
    for p, t in zip(pool.tolist(), true.tolist()):
        kept += sum(min(x, t) * math.comb(p, x) * math.comb(P - p, size - x) for x in range(min(p, size) + 1))
    return kept / math.comb(P, size) / size


def test_search_exact_share_draws_from_the_tiles_the_seat_cannot_see(monkeypatch, ting_found):
    """With every hand accepted as waiting, the exact share is the overlap of a uniform draw from the tiles
    unseen by the seat to act (4 minus what its observation shows) with the 报听 seat's real hand."""
    monkeypatch.setattr(search, "ting_waits", lambda rules, counts, melds: np.ones(len(counts), dtype=bool))
    sizes = {}
    for copy, s, o in ting_found[:18]:
        true = copy.state.hands[0, o].astype(np.int64)
        size = int(true.sum())
        got = search.exact_share(copy, s, o, np.random.default_rng(0), samples=20_000)
        if size > 7:
            assert got is None
            continue
        if size in sizes:
            continue
        sizes[size] = got
        assert copy.state.hidden[0].sum() == 0       # no concealed kong: the unseen tiles are all in play
        pool = unseen_counts(observe(copy.rules, copy.state, np.array([0])))[0].astype(np.int64)
        assert got == pytest.approx(_expected_kept(pool, true), abs=0.012), size
    assert set(sizes) == {4, 7}


def test_search_exact_share_pool_is_every_tile_the_seat_cannot_see(monkeypatch, ting_found):
    """The tiles the exact hands and kongs are drawn from: 4 of a kind minus what the seat to act sees (the
    concealed kongs of every other seat among them, 报听 seats' too), flowers never; positions with a
    concealed kong of a 报听 seat and of another seat among them. Where the 报听 seat holds a concealed kong,
    its kind is drawn too: a kind all four of which are unseen, not always the real one (mj_env.determinize
    redeals it), beside the seat's face-up melds."""
    other_kong = [f for i, f in enumerate(search.ting_positions(10, 4)) if i == 9]
    checked, kongs, drew_kongs = 0, {"ting": 0, "other": 0}, 0
    for copy, s, o in list(ting_found) + other_kong:
        st = copy.state
        if st.hands[0, o].sum() > 7:
            continue
        pool = search.unseen_pool(copy, s)
        expected = unseen_counts(observe(copy.rules, st, np.array([0])))[0].astype(np.int64)
        assert pool.tolist() == expected.tolist()
        for q in range(4):
            if q != s and st.hidden[0, q].any():
                kongs["ting" if st.ting[0, q] else "other"] += 1
        if st.n_hidden[0, o]:
            seen = []
            monkeypatch.setattr(search, "ting_waits", lambda rules, counts, melds, seen=seen:
                                seen.append(melds) or np.ones(len(counts), dtype=bool))
            search.exact_share(copy, s, o, np.random.default_rng(0), samples=400)
            monkeypatch.undo()
            drawn = seen[0] - (st.meld_counts[0, o] - st.hidden[0, o])
            assert ((drawn == 0) | (drawn == 4)).all() and ((drawn == 4).sum(axis=1) == st.n_hidden[0, o]).all()
            assert (pool[(drawn == 4).any(axis=0)] == 4).all()
            assert len({row.tobytes() for row in drawn}) > 1   # not always the real kinds
            drew_kongs += 1
        checked += 1
    assert checked >= 6 and kongs == {"ting": 1, "other": 1} and drew_kongs == 1


def test_search_exact_share_keeps_only_waiting_hands(monkeypatch, ting_found):
    copy, s, o = next(f for f in ting_found if f[0].state.hands[0, f[2]].sum() == 4)
    seen = []

    def waits(rules, counts, melds):
        seen.append(counts.sum(axis=1))
        return counts[:, 0] > 0                      # only hands holding a 1m "wait"
    monkeypatch.setattr(search, "ting_waits", waits)
    got = search.exact_share(copy, s, o, np.random.default_rng(0), samples=2000)
    assert (seen[0] == 4).all()
    monkeypatch.setattr(search, "ting_waits", lambda rules, counts, melds: np.zeros(len(counts), dtype=bool))
    assert search.exact_share(copy, s, o, np.random.default_rng(0), samples=2000) is None
    assert got is not None and 0 <= got <= 1


def test_search_ting_mixing_rows_and_table(monkeypatch, capsys, ting_found):
    """Chain length 0 keeps the real hand, a longer chain does not; the time per call is the chain's;
    the exact row has a figure for each hand size of 7 or fewer; the printed table is the rows'."""
    clock = Clock()
    monkeypatch.setattr(search, "time", clock)
    monkeypatch.setattr(search, "ting_positions", lambda count, seed: ting_found[:count])
    exact = search.exact_share
    monkeypatch.setattr(search, "exact_share", lambda r, s, o, rng: exact(r, s, o, rng, samples=500))
    real = search.determinize

    def det(*args, **kw):
        clock.wall += 0.002
        return real(*args, **kw)
    monkeypatch.setattr(search, "determinize", det)
    monkeypatch.setattr(search, "ting_waits", lambda rules, counts, melds: np.ones(len(counts), dtype=bool))
    rows = search.ting_mixing(2, [0, 30], 18, n=8)
    out = capsys.readouterr().out.splitlines()
    assert [r["mcmc_steps"] for r in rows] == [0, 30, "exact"]
    assert rows[0]["ms_per_call"] == pytest.approx(2.0) and rows[0]["n"] == 8
    assert all(v == 1.0 for v in rows[0]["kept_by_size"].values())
    assert all(v < 1.0 for v in rows[1]["kept_by_size"].values())
    sizes = sorted(rows[0]["kept_by_size"])
    assert len(sizes) >= 2 and sum(rows[0]["positions_by_size"].values()) == 18
    assert sorted(rows[2]["kept_by_size"]) == [k for k in sizes if k <= 7] == [4, 7]
    assert rows[2]["positions_by_size"] == {k: v for k, v in rows[0]["positions_by_size"].items() if k <= 7}
    assert out[0] == "| chain steps | ms per determinize(n=64) | " + " | ".join(f"{k}-tile hands" for k in sizes) + " |"
    for r, line in zip(rows, out[2:5]):
        cells = [f"{r['kept_by_size'][k]:.2f}" if k in r["kept_by_size"] else "" for k in sizes]
        ms = f"{r['ms_per_call']:.0f}" if "ms_per_call" in r else ""
        assert line == f"| {r['mcmc_steps']} | {ms} | " + " | ".join(cells) + " |"
    assert out[5] == "positions: " + ", ".join(f"{v} with {k}-tile hands"
                                               for k, v in rows[0]["positions_by_size"].items())


FAKE_ROWS = [
    {"row": "clone 1 table", "batch": 1, "per_sec": 1000.0, "us_each": 1000.0, "cpu_share": 0.5},
    {"row": "restore 1 -> 8", "batch": 8, "per_sec": 2000.0, "us_each": 500.0, "rows_per_sec": 16000.0,
     "cpu_share": 1.0},
    {"row": "rollout 8", "batch": 8, "per_sec": 300.0, "us_each": 3333.3, "decisions_per_sec": 30000.0,
     "decisions_per_rollout": 100.0, "sampler_share": 0.25, "restore_share": 0.015, "cpu_share": 1.0},
    {"row": "determinize 8", "batch": 8, "per_sec": 4000.0, "us_each": 250.0, "calls_per_sec": 500.0,
     "cpu_share": 0.9},
]


def test_search_main_prints_each_row_with_its_unit_and_notes(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(search, "measure", lambda a: [dict(r) for r in FAKE_ROWS])
    out_json = tmp_path / "s.json"
    a = search.parse_args(["--seconds", "0.5", "--batch-sizes", "8", "--tables", "4", "--json", str(out_json)])
    search.main(a)
    out = capsys.readouterr().out
    assert "mj_env search copies, rules=beijing; 0.5 s per row, one thread" in out
    assert "| clone 1 table | 1,000 copies | 1,000.0 | 50% |  |" in out
    assert "| restore 1 -> 8 | 2,000 calls | 500.0 | 100% | 16,000 rows/s |" in out
    assert ("| rollout 8 | 300 rollouts | 3,333.3 | 100% | 30,000 decisions/s, 100 per rollout; "
            "sampler 25%, restore 1.5% |") in out
    assert "| determinize 8 | 4,000 worlds | 250.0 | 90% | 500.0 calls/s |" in out
    data = json.loads(out_json.read_text())
    assert data["results"] == FAKE_ROWS
    assert data["settings"]["batch_list"] == [8] and data["settings"]["tables"] == 4
    assert data["settings"]["seconds"] == 0.5 and data["settings"]["rules"] == "beijing"
    assert f"wrote {out_json}" in out


def test_search_main_names_quemen_for_ting_mixing(monkeypatch, capsys):
    got = []
    monkeypatch.setattr(search, "ting_mixing", lambda seed, steps, positions: got.append((seed, steps, positions)) or [])
    search.main(search.parse_args(["--ting-mixing", "--ting-steps", "0,7", "--ting-positions", "3", "--seed", "5"]))
    assert got == [(5, [0, 7], 3)]
    assert "search copies, rules=quemen;" in capsys.readouterr().out


# ============================================================================ win_checks.py
@pytest.mark.parametrize("argv,flag", [
    (["--threads", "0"], "--threads"),
    (["--threads", "257"], "--threads"),
    (["--seconds", "0"], "--seconds"),
    (["--batch-sizes", "65537"], "--batch-sizes"),
])
def test_win_checks_refuses_arguments_past_their_limits(argv, flag, capsys):
    _refused(win_checks._parse_args, argv, flag, capsys)


def test_win_checks_random_hands_are_drawn_from_the_136_tiles():
    counts, wild = win_checks.random_hands(np.random.default_rng(0), 5000, 14)
    assert counts.dtype == np.int8 and wild.dtype == np.int8 and counts.shape == (5000, 34)
    assert (counts.sum(axis=1) + wild == 14).all()         # size tiles in all, the wildcards taken out
    assert counts.min() == 0 and counts.max() <= 4
    assert sorted(set(wild.tolist())) == [0, 1, 2, 3, 4]   # 0-4 wildcards, uniformly
    assert np.bincount(wild, minlength=5).min() > 850
    assert (counts.sum(axis=0) > 0).all()                  # every kind, honours included
    counts, wild = win_checks.random_hands(np.random.default_rng(1), 100, 13)
    assert (counts.sum(axis=1) + wild == 13).all()


def test_win_checks_times_the_documented_hand_sizes():
    assert {name: size for name, (size, _o, _r) in win_checks.CHECKS.items()} == {
        "is_win": 14, "waits": 13, "tiles_to_win": 14}
    assert tuple(win_checks.CHECKS) == win_checks.CHECK_NAMES


def test_win_checks_time_ours_calls_whole_batches(monkeypatch):
    clock, batches = Clock(), []
    monkeypatch.setattr(win_checks, "time", clock)
    counts = np.arange(10 * 34, dtype=np.int8).reshape(10, 34) % 3
    wild = np.arange(10, dtype=np.int8)

    def fn(c, w):
        batches.append(w.tolist())
        clock.wall += 1.0

    r = win_checks.time_ours(fn, counts, wild, 4, 5.0)
    assert r == {"hands_per_sec": 4.0, "us_per_call": 1e6, "calls": 5}
    # one untimed warm-up call, then whole batches in turn (the 2 hands left over are never a batch)
    assert batches == [[0, 1, 2, 3], [0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3]]


def test_win_checks_time_reference_cycles_over_its_hands(monkeypatch):
    clock, seen = Clock(), []
    monkeypatch.setattr(win_checks, "time", clock)
    counts = np.zeros((10, 34), dtype=np.int8)
    wild = np.arange(10, dtype=np.int8)

    def fn(c, w):
        seen.append(w)
        clock.wall += 0.5
        return w * 10

    r, answers = win_checks.time_reference(fn, counts, wild, 3.0, 3)
    assert answers == [0, 10, 20]                             # the warm-up pass: the hands it is checked on
    assert seen == [0, 1, 2] + [0, 1, 2, 0, 1, 2]
    assert r == {"hands_per_sec": 2.0, "us_per_call": 5e5, "calls": 6}
    _r, answers = win_checks.time_reference(fn, counts[:2], wild[:2], 1.0, 3)
    assert answers == [0, 10]


def _win_args(tmp_path, *extra):
    return win_checks._parse_args(["--seconds", "0.001", "--batch-sizes", "2", "--reference-hands", "6",
                                   "--json", str(tmp_path / "w.json"), *extra])


def test_win_checks_reports_a_reference_that_disagrees(monkeypatch, capsys, tmp_path):
    """A reference wrong on one kind of every wait set: every hand counts, the run exits 1."""
    _size, ours, reference = win_checks.CHECKS["waits"]

    def wrong(c, w):
        ans = np.array(reference(c, w), dtype=bool)
        ans[0] = not ans[0]
        return ans

    monkeypatch.setitem(win_checks.CHECKS, "waits", (13, ours, wrong))
    assert win_checks.main(_win_args(tmp_path, "--checks", "waits,is_win")) == 1
    out = capsys.readouterr().out
    assert "!! waits: mj_env.hand and the reference disagree on 6 of 6 hands" in out and "!! is_win" not in out
    assert json.loads((tmp_path / "w.json").read_text())["disagreements"] == 6


def test_win_checks_main_agrees_and_reports_speedups(capsys, tmp_path):
    assert win_checks.main(_win_args(tmp_path, "--checks", "waits,tiles_to_win")) == 0
    data = json.loads((tmp_path / "w.json").read_text())
    assert data["disagreements"] == 0 and "!!" not in capsys.readouterr().out
    ref = {r["check"]: r["hands_per_sec"] for r in data["results"] if r["impl"] == "reference"}
    assert set(ref) == {"waits", "tiles_to_win"}
    for r in data["results"]:
        assert r["speedup_vs_reference"] == pytest.approx(r["hands_per_sec"] / ref[r["check"]])
    win_checks.main(_win_args(tmp_path, "--checks", "is_win", "--no-reference"))
    assert "nan" in capsys.readouterr().out.splitlines()[-3]  # the table's "x reference" column

    def refuse(name):
        raise AssertionError(f"not strict JSON: {name}")
    data = json.loads((tmp_path / "w.json").read_text(), parse_constant=refuse)   # was NaN without a reference
    assert [r["impl"] for r in data["results"]] == ["mj_env.hand"]
    assert data["results"][0]["speedup_vs_reference"] is None


def test_win_checks_batches_larger_than_the_pool(monkeypatch, tmp_path):
    """A batch above POOL hands: as many hands are drawn as the batch needs."""
    monkeypatch.setattr(win_checks, "POOL", 4)
    assert win_checks.main(_win_args(tmp_path, "--checks", "is_win", "--batch-sizes", "9", "--no-reference")) == 0
    rows = json.loads((tmp_path / "w.json").read_text())["results"]
    assert [(r["batch"], r["calls"] > 0) for r in rows] == [(9, True)]


def test_win_checks_machine_reports_the_blas_threads(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert win_checks.machine()["blas_threads"] == 3


# ============================================================================ fast_paths.py
SWITCHED = ("legal.claim_options", "aec.observe_one", "hand._SMALL", "Engine._step_one", "wall._draw_one",
            "Engine._update_mask_one")


def _paths_now():
    return (legal.claim_options, aec_mod.observe_one, hand._SMALL, Engine.__dict__["_step_one"], wall._draw_one,
            Engine.__dict__["_update_mask_one"])


def test_fast_paths_switch_off_exactly_the_named_path(monkeypatch):
    before = _paths_now()
    for k, path in enumerate(fast_paths.PATHS):
        with fast_paths.switched_off((path,)):
            now = _paths_now()
            changed = [SWITCHED[i] for i in range(6) if now[i] is not before[i]]
            assert changed == [SWITCHED[k]], path
        assert _paths_now() == before
    with fast_paths.switched_off(fast_paths.PATHS):
        assert legal.claim_options is legal.claim_options_batched
        assert aec_mod.observe_one is fast_paths._observe_batched
        assert hand._SMALL == 0
        calls = []
        spy = SimpleNamespace(_step_batch=lambda acts, idx: calls.append(("step", acts, idx)),
                              _update_masks_batch=lambda idx: calls.append(("masks", idx)))
        Engine._step_one(spy, "acts")
        Engine._update_mask_one(spy)
        monkeypatch.setattr(wall, "_draw_batch", lambda rules, st, idx, repl: calls.append(("draw", idx.tolist(), repl)))
        wall._draw_one("rules", "st", 3, True)
        assert calls == [("step", "acts", None), ("masks", None), ("draw", [3], True)]
    assert _paths_now() == before


def test_fast_paths_switch_back_after_an_error():
    before = _paths_now()
    with pytest.raises(KeyError), fast_paths.switched_off(fast_paths.PATHS):
        raise KeyError("inside")
    assert _paths_now() == before


def test_fast_paths_observe_batched_is_observe_one():
    eng = Engine("beijing", num_tables=2, seed=0)
    eng.reset()
    for b in range(2):
        for seat in range(4):
            assert np.array_equal(fast_paths._observe_batched(eng.rules, eng.state, b, seat),
                                  observe_one(eng.rules, eng.state, b, seat))


def test_fast_paths_variants():
    P = fast_paths.PATHS
    assert P == ("claims", "observe", "hand", "step", "draw", "masks")
    assert fast_paths.VARIANTS == {"all fast paths": (), "claims off": ("claims",), "observe off": ("observe",),
                                   "hand off": ("hand",), "step off": ("step",), "draw off": ("draw",),
                                   "masks off": ("masks",), "all off": P}


def test_fast_paths_aec_rate_is_decisions_over_time(monkeypatch):
    """On a fake clock (one tick per reading): decisions are the legal actions drawn, once each."""
    clock, drawn = Clock(), []

    def perf_counter():
        clock.wall += 1.0
        return clock.wall

    real = fast_paths.uniform_legal

    def sampler(mask, rng):
        drawn.append(1)
        return real(mask, rng)

    monkeypatch.setattr(fast_paths, "time", SimpleNamespace(perf_counter=perf_counter))
    monkeypatch.setattr(fast_paths, "uniform_legal", sampler)
    rate = fast_paths.aec_rate("beijing", 1.5, seed=0)   # readings 1 (t0), 2 (go on), 3 (stop), 4 (end)
    assert len(drawn) > 0 and rate == len(drawn) / 3


def test_fast_paths_aec_rate_deals_a_new_hand_after_each_one(monkeypatch):
    """Each hand after the first is dealt from a new seed drawn from ``seed``, not the same deal again."""
    seeds, ticks = [], [0.0]

    class Recorder:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def reset(self, seed=None, options=None):
            seeds.append(seed)
            return self._inner.reset(seed=seed, options=options)

    def perf_counter():
        ticks[0] += 1.0
        return ticks[0]

    real_env = fast_paths.mj_env.env
    monkeypatch.setattr(fast_paths, "mj_env", SimpleNamespace(env=lambda rules: Recorder(real_env(rules=rules))))
    monkeypatch.setattr(fast_paths, "time", SimpleNamespace(perf_counter=perf_counter))
    fast_paths.aec_rate("hebei", 6.5, seed=4)
    assert seeds[0] == 4 and len(seeds) >= 3
    assert len(set(seeds[1:])) == len(seeds) - 1 and 4 not in seeds[1:]


def test_fast_paths_main_keeps_each_variants_best_round(monkeypatch, capsys, tmp_path):
    calls = []

    def rate(rules, seconds, seed):
        off = sum(now is not then for now, then in zip(_paths_now(), before))
        calls.append((rules, seed, off))
        return 1000.0 - 100 * seed - 50 * off        # round 0 is every variant's best

    before = _paths_now()
    monkeypatch.setattr(fast_paths, "aec_rate", rate)
    out = fast_paths.main(["--seconds", "0.5", "--repeat", "3", "--json", str(tmp_path / "f.json")])
    V = len(fast_paths.VARIANTS)
    assert [c[:2] for c in calls] == [(r, s) for s in range(3) for r in ("beijing", "hebei") for _ in range(V)]
    rows = {(r["rules"], r["variant"]): r["decisions_per_s"] for r in out["rows"]}
    assert len(rows) == 2 * V
    assert rows["beijing", "all fast paths"] == 1000 and rows["hebei", "claims off"] == 950
    assert rows["beijing", "all off"] == 1000 - 50 * 6
    assert out["seconds"] == 0.5 and out["repeat"] == 3
    text = capsys.readouterr().out
    assert "beijing  hand off                  950              0.95x" in text
    assert "hebei    all off                   700              0.70x" in text
    assert json.loads((tmp_path / "f.json").read_text())["rows"] == out["rows"]


@pytest.mark.parametrize("argv,flag", [
    (["--repeat", "101"], "--repeat"),
    (["--repeat", "0"], "--repeat"),
    (["--seconds", "inf"], "--seconds"),
    (["--rules", ""], "--rules"),
])
def test_fast_paths_refuses_arguments_past_their_limits(argv, flag, capsys, monkeypatch):
    def measured(*args):
        raise AssertionError("measured despite a bad argument")
    monkeypatch.setattr(fast_paths, "aec_rate", measured)
    _refused(fast_paths.main, argv, flag, capsys)


def test_fast_paths_names_an_empty_json_name_as_such(capsys, monkeypatch):
    """``--json ''`` was read as Path('') == '.', and refused as "--json .: is a directory"."""
    monkeypatch.setattr(fast_paths, "aec_rate", lambda *a: pytest.fail("measured despite a bad argument"))
    _refused(fast_paths.main, ["--json", ""], "--json '': an empty file name", capsys)


# --------------------------------------------------------------------------- win_checks.py's machine


def test_win_checks_stores_the_machine_every_benchmark_stores(monkeypatch):
    """win_checks.py built its own machine description (no cores, no memory_gib; cpu_count instead of cores):
    its JSON could not be read as the other benchmarks' are. It is ``_common.machine_info()`` now, with its own
    blas_threads and the cpu_count its JSON gave before (tests/test_hand.py reads it)."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    shared, mine = _common.machine_info(), win_checks.machine()
    assert set(shared) <= set(mine)
    for key in ("cpu", "cores", "memory_gib", "python", "numpy", "platform"):
        assert mine[key] == shared[key], key
    assert mine["cpu_count"] == mine["cores"] == os.cpu_count() and mine["blas_threads"] == 2


def test_win_checks_prints_the_shared_machine_line(tmp_path, capsys):
    args = win_checks._parse_args(["--seconds", "0.001", "--batch-sizes", "2", "--checks", "is_win",
                                   "--no-reference", "--json", str(tmp_path / "w.json")])
    assert win_checks.main(args) == 0
    first = capsys.readouterr().out.splitlines()[0]
    machine = json.loads((tmp_path / "w.json").read_text())["machine"]
    assert first.startswith(_common.machine_line(machine)) and first.endswith("BLAS threads 1")
