"""What benchmarks/profile_step.py and benchmarks/_peers.py compute, attribute, check and print (no speed is
asserted, nothing is timed for real: fake clocks, fake profiles and tiny sizes)."""
from __future__ import annotations

import json
import sys
import threading
import types
from types import SimpleNamespace

import _peers
import numpy as np
import profile_step
import pytest

from mj_env.state import END

MJ, BENCH = str(profile_step.MJ_DIR), str(profile_step.BENCH_DIR)


# ============================================================================= _peers.py
class _FakeEngine:
    """The part of Engine that ``desync`` uses; table 3's first deal ends at once (四惠牌)."""

    def __init__(self, n):
        self.num_tables = n
        self.state = SimpleNamespace(phase=np.zeros(n, dtype=np.int8))
        self.log, self.step_no, self.instant = [], 0, {3}

    def reset(self, tables):
        self.log.append((self.step_no, tables.tolist()))
        self.state.phase[tables] = 0
        for t in tables.tolist():
            if t in self.instant:
                self.instant.discard(t)
                self.state.phase[t] = END

    def legal_mask(self):
        return ("mask", self.step_no)


def test_desync_deals_table_b_at_step_b_mod_steps_and_deals_an_instant_end_again():
    eng, masks = _FakeEngine(7), []

    def play(mask):
        masks.append(mask)
        eng.step_no += 1

    _peers.desync(eng, play, steps=3)
    assert eng.log == [(0, [0, 3, 6]), (0, [3]), (1, [1, 4]), (2, [2, 5])]
    assert masks == [("mask", 0), ("mask", 1), ("mask", 2)]          # one step of the batch per set-up step
    assert not (eng.state.phase == END).any()


def test_read_hand_tables_reads_every_table(monkeypatch):
    """Every table is read, in order, and then the one-off check of the 'kept' table is made (it reads that
    table again, and keeps its verdict for that table object)."""
    from mj_env import hand, tables

    seen, real = [], tables.get

    def get(name):
        seen.append(name)
        return real(name)

    monkeypatch.setattr(tables, "get", get)
    monkeypatch.setattr(hand, "_MONOTONE", [None, False])  # as in a fresh process
    _peers.read_hand_tables()
    assert seen == [*tables.NAMES, "kept"]
    assert hand._MONOTONE[0] is real("kept") and hand._MONOTONE[1] is True


def _capture(monkeypatch, module, name):
    """Patch ``module.name`` (a class) with a subclass that records its instances."""
    made = []
    base = getattr(module, name)

    class Recorded(base):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

    monkeypatch.setattr(module, name, Recorded)
    return made


def _fake_clock(monkeypatch):
    """_peers.perf on a clock that moves 1 s per reading: each timed pick of actions is 1 s."""
    clock = [0.0]

    def perf():
        clock[0] += 1.0
        return clock[0]

    monkeypatch.setattr(_peers, "perf", perf)


def test_make_vector_desyncs_counts_instant_hands_and_keeps_the_last_mask(monkeypatch):
    from walls import deals_first, four_hui_9s_wall

    import mj_env.engine as engine_module
    import mj_env.vector as vector_module

    made = _capture(monkeypatch, vector_module, "MahjongVectorEnv")
    _fake_clock(monkeypatch)
    step, info = _peers.make_vector(4, "beijing", 0)
    venv = made[0]
    assert venv.engine.state.n_discards.sum() > 0                   # desynchronised: not all at the deal
    assert info["state_bytes"] == venv.engine.state.nbytes()
    # the next deal (the autoreset of the first table to finish) ends at the deal: two hands in that step
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls,
                                                                      four_hui_9s_wall(), 1))
    before = venv.instant_hands
    for _ in range(400):
        decisions, hands, ts = step()
        assert decisions == 4 and ts == 1.0
        assert np.array_equal(info["last_mask"](), venv.engine.legal_mask())
        if hands:
            break
    assert venv.instant_hands == before + 1 and hands == 2


def test_make_engine_counts_live_tables_and_hands_that_ended_at_the_deal(monkeypatch):
    import mj_env.engine as engine_module

    made = _capture(monkeypatch, engine_module, "Engine")
    _fake_clock(monkeypatch)
    step, info = _peers.make_engine(8, "beijing", 0)
    eng = made[0]
    st = eng.state
    # desynchronised (tables at different points of a hand), and the tables that finished meanwhile were dealt
    assert st.n_discards.sum() > 0 and not (st.phase == END).any()
    assert info["state_bytes"] == st.nbytes() and "bare Engine.step" in info["decision"]
    from walls import deals_first, four_hui_9s_wall

    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls,
                                                                      four_hui_9s_wall(), 1))
    for _ in range(400):
        live, hands, ts = step()
        assert live == 8 and ts == 1.0
        if hands:
            break
    assert hands >= 1 and (st.phase == END).sum() == 1               # the next deal ended at once: left in END
    live, hands2, _ = step()
    assert live == 7                                                  # the table in END took no decision
    assert hands2 >= 1 and not (st.phase == END).any()               # its hand counted now, and dealt again
    # every hand is counted once: the hands counted equal the hands that ended (steps + instant deals)
    counted, ended = hands + hands2, []
    real_step = eng.step

    def counting_step(actions):
        res = real_step(actions)
        ended.append(int(np.count_nonzero(res.hand_over)))
        return res

    eng.step = counting_step
    for _ in range(30):
        counted += step()[1]
    assert counted - hands - hands2 == sum(ended)


def test_make_aec_counts_one_decision_per_action_and_a_hand_once_every_agent_left():
    step, info = _peers.make_aec(1, "beijing", 0)
    assert info["state_bytes"] > 0
    calls = [step() for _ in range(600)]
    hands = [i for i, c in enumerate(calls) if c[1]]
    assert len(hands) >= 2
    for i in hands:
        # the four terminated agents each step None (no decision); the last of those re-deals and counts the hand
        assert [c[:2] for c in calls[i - 3:i + 1]] == [(0, 0)] * 3 + [(0, 1)]
        assert calls[i - 4][0] == 1
    assert {c[0] for c in calls} == {0, 1} and all(c[2] > 0 for c in calls if c[0])


class _FakeRLCardEnv:
    """A 3-step game whose legal actions change every step; an illegal action raises."""

    def __init__(self):
        self.t, self.games = 0, 0

    def _state(self):
        return {"legal_actions": {10 * self.t + 1: None, 10 * self.t + 2: None}}

    def reset(self):
        self.t, self.games = 0, self.games + 1
        return self._state(), 0

    def step(self, action):
        assert action in self._state()["legal_actions"], action
        self.t += 1
        return self._state(), self.t % 4

    def is_over(self):
        return self.t == 3


def test_make_rlcard_plays_the_current_legal_actions_and_counts_hands(monkeypatch):
    env = _FakeRLCardEnv()
    made = []
    fake = types.ModuleType("rlcard")
    fake.make = lambda name, config: made.append((name, config)) or env
    monkeypatch.setitem(sys.modules, "rlcard", fake)
    _fake_clock(monkeypatch)
    step, info = _peers.FACTORIES["rlcard"](1, "beijing", 5)
    assert made == [("mahjong", {"seed": 5})] and "env.step" in info["decision"]
    assert [step() for _ in range(6)] == [(1, 0, 1.0), (1, 0, 1.0), (1, 1, 1.0)] * 2
    assert env.games == 3


class _FakeObservation:
    encoded = 0

    def __init__(self, legal):
        self.legal = legal

    def legal_actions(self):
        return self.legal

    def encode(self):
        _FakeObservation.encoded += 1
        return np.zeros((74, 34), dtype=np.float32).tobytes()


class _FakeRiichiEnv:
    """Step 1: players 0 and 2 act at once (a claim window); step 2: players 1 and 3; then the hand is over."""

    def __init__(self, game_mode, skip_mjai_logging, seed):
        self.args = (game_mode, skip_mjai_logging, seed)
        self.t, self.seen = 0, []

    def _obs(self):
        return [{0: _FakeObservation(["a", "b"]), 2: _FakeObservation(["c"])},
                {1: _FakeObservation(["d"]), 3: _FakeObservation(["e"])}, {}][self.t]

    def reset(self):
        self.t = 0
        return self._obs()

    def step(self, actions):
        self.seen.append(actions)
        self.t += 1
        return self._obs()

    def done(self):
        return self.t == 2


@pytest.mark.parametrize("impl", ["riichienv", "riichienv_encode"])
def test_make_riichienv_counts_every_action_of_the_dict(monkeypatch, impl):
    fake = types.ModuleType("riichienv")
    envs = []
    fake.RiichiEnv = lambda **kw: envs.append(_FakeRiichiEnv(**kw)) or envs[-1]
    monkeypatch.setitem(sys.modules, "riichienv", fake)
    monkeypatch.setattr(_FakeObservation, "encoded", 0)
    _fake_clock(monkeypatch)
    step, info = _peers.FACTORIES[impl](1, "beijing", 3)
    assert envs[0].args == ("4p-red-single", True, 3)
    assert step() == (2, 0, 2.0)                  # two players' actions: two decisions, two timed picks
    assert step() == (2, 1, 2.0)                  # the hand ended (in a step where two players acted)
    assert set(envs[0].seen[0]) == {0, 2} and envs[0].seen[0][2] == "c" and envs[0].seen[1] == {1: "d", 3: "e"}
    assert step()[0] == 2                         # a new hand
    encode = impl == "riichienv_encode"
    assert _FakeObservation.encoded == (6 if encode else 0)
    assert ("encode()" in info["decision"]) == encode


# ============================================================================= profile_step.py: pieces
def test_profile_is_project_and_label():
    assert profile_step.is_project(f"{MJ}/engine.py") and profile_step.is_project(f"{BENCH}/_common.py")
    assert not profile_step.is_project(f"{MJ}_old/engine.py")        # a folder whose name only starts alike
    assert profile_step.label(f"{MJ}/legal.py", "split_wild") == "mj_env/legal.py:split_wild"
    assert profile_step.label("/usr/lib/numpy/core.py", "take") == "core.py:take"
    assert profile_step.label("~", "<built-in method numpy.take>") == "<built-in method numpy.take>"


def test_profile_stale_names_reports_a_missing_file_and_takes_async_functions(monkeypatch, tmp_path):
    (tmp_path / "mod.py").write_text("async def fetch():\n    pass\n\ndef plain():\n    pass\n")
    monkeypatch.setattr(profile_step, "MJ_DIR", tmp_path)
    monkeypatch.setattr(profile_step, "CATEGORIES", [("x", {"mod.py": {"fetch", "plain", "gone"}}),
                                                     ("y", {"missing.py": {"b", "a"}, "all.py": profile_step.ALL})])
    assert profile_step.stale_names() == ["mod.py:gone", "missing.py:a", "missing.py:b"]


def test_profile_build_run_steps_and_timed(monkeypatch):
    import time

    _, info = profile_step.build("engine", 2, "beijing", 0)
    assert "bare Engine.step" in info["decision"]
    _, info = profile_step.build("vector", 2, "beijing", 0)
    assert "obs + mask" in info["decision"]
    wall, cpu, calls = [0.0], [0.0], []

    def fake_step():
        calls.append(1)
        wall[0] += 2.0
        cpu[0] += 0.5

    monkeypatch.setattr(time, "perf_counter", lambda: wall[0])
    monkeypatch.setattr(time, "process_time", lambda: cpu[0])
    assert profile_step.timed(fake_step, 4) == {"ms_per_step": 2000.0, "cpu_ms_per_step": 500.0}
    assert len(calls) == 4


def _busy_here(stop):
    while not stop.is_set():
        sum(range(200))


def test_stack_sampler_reads_the_main_thread_innermost_first_weighted_by_wall_time(monkeypatch):
    import time

    before = sys.getswitchinterval()
    sampler = profile_step.StackSampler(0.002)
    clock = [0.0]

    def fake_clock():
        clock[0] += 0.5
        return clock[0]

    stop = threading.Event()
    monkeypatch.setattr(time, "perf_counter", fake_clock)
    with sampler:
        assert sys.getswitchinterval() <= 0.001                      # at most half the interval while sampling
        threading.Timer(0.15, stop.set).start()
        _busy_here(stop)
    monkeypatch.undo()
    assert sys.getswitchinterval() == before                          # put back afterwards
    assert sampler.samples > 0
    # every reading of the clock moved it 0.5 s: each sample weighs the wall time since the one before
    assert sum(sampler.stacks.values()) == 0.5 * sampler.samples
    stacks = [s for s in sampler.stacks if s[0][1] == "_busy_here"]
    assert stacks, list(sampler.stacks)[:2]
    assert all(s[1][1] == "test_stack_sampler_reads_the_main_thread_innermost_first_weighted_by_wall_time"
               for s in stacks)


def test_profile_samples_attribute_lines_and_win_tables_callers():
    loop = (f"{BENCH}/profile_step.py", "run_steps", 1)
    step = (f"{MJ}/engine.py", "step", 1)
    # win tables called from the masks (a direct caller with a category), below a claim function
    win = ((f"{MJ}/hand.py", "is_win", 280), (f"{MJ}/engine.py", "_update_masks", 120),
           (f"{MJ}/legal.py", "claim_options", 150), step, loop)
    # win tables called only through an uncategorised helper from the loop itself: "other"
    lone = ((f"{MJ}/tables.py", "get", 9), (f"{MJ}/legal.py", "split_wild", 33), loop)
    # another file's run_steps is not the profiled loop: dropped
    elsewhere = ((f"{MJ}/engine.py", "step", 1), ("/elsewhere/bench.py", "run_steps", 1))
    # the same function at another line, from the claims: its time adds up, its lines apart
    again = ((f"{MJ}/hand.py", "is_win", 281), (f"{MJ}/legal.py", "claim_options", 150), step, loop)
    res = profile_step.analyse_samples({win: 2.0, lone: 1.0, elsewhere: 4.0, again: 0.5})
    assert res["total"] == pytest.approx(3.5)
    assert res["win_tables_by_caller"] == {"masks": 2.0, "other": 1.0, "claims": 0.5}
    assert res["lines"] == {(f"{MJ}/hand.py", "is_win", 280): 2.0, (f"{MJ}/tables.py", "get", 9): 1.0,
                            (f"{MJ}/hand.py", "is_win", 281): 0.5}
    assert res["own"] == {(f"{MJ}/hand.py", "is_win"): 2.5, (f"{MJ}/tables.py", "get"): 1.0}
    assert res["categories"] == {"win tables": 3.5}


class _FakeProfile:
    """What pstats.Stats reads of a cProfile.Profile: ``create_stats()`` and ``stats``."""

    def __init__(self, stats):
        self.stats = stats

    def create_stats(self):
        pass


def _e(tt, ct, nc=1, cc=None):
    return (nc if cc is None else cc, nc, tt, ct)


def test_analyse_cprofile_folds_library_time_into_project_functions_then_categories():
    loop = (f"{BENCH}/profile_step.py", 1, "run_steps")
    step = (f"{MJ}/engine.py", 2, "step")                     # step glue
    masks = (f"{MJ}/engine.py", 3, "_update_masks")           # masks
    claims = (f"{MJ}/legal.py", 4, "claim_options")           # claims
    helper = (f"{MJ}/legal.py", 5, "split_wild")              # no category: its callers'
    lib = ("/usr/lib/python3/lib.py", 6, "libf")              # library functions, three deep
    lib2 = ("/usr/lib/python3/lib2.py", 7, "lib2f")
    lib3 = ("/usr/lib/python3/lib3.py", 8, "lib3f")
    take = ("~", 0, "<built-in method numpy.take>")
    stats = {
        loop: (1, 1, 0.5, 20.0, {}),                          # the loop's own time is not the step's
        step: (1, 1, 1.0, 10.0, {loop: _e(1.0, 10.0)}),
        masks: (1, 1, 1.0, 4.0, {step: _e(1.0, 4.0)}),
        claims: (1, 1, 2.0, 5.0, {step: _e(2.0, 5.0)}),
        helper: (3, 5, 3.0, 4.0, {masks: _e(1.0, 1.0), claims: _e(2.0, 3.0)}),
        lib: (2, 2, 0.4, 4.0, {masks: _e(0.3, 1.0), claims: _e(0.1, 3.0)}),
        lib2: (1, 1, 0.8, 0.8, {lib: _e(0.8, 0.8)}),
        lib3: (1, 1, 0.6, 0.6, {lib2: _e(0.6, 0.6)}),
        # 0.5 s of its 2 s under no recorded caller: unattributed
        take: (9, 9, 2.0, 2.0, {lib: _e(1.0, 1.2), helper: _e(0.5, 0.7)}),
    }
    res = profile_step.analyse_cprofile(_FakeProfile(stats))
    key = lambda k: (k[0], k[2])
    # a library function's own time: to its callers by own time under each, then up by cumulative time
    # (lib: masks 1/4, claims 3/4 of its cumulative time)
    own = {key(step): 1.0, key(masks): 1.0 + 0.3 + 0.25 * (1.0 + 0.8 + 0.6),
           key(claims): 2.0 + 0.1 + 0.75 * (1.0 + 0.8 + 0.6), key(helper): 3.0 + 0.5, ("", "(unattributed)"): 0.5}
    assert res["own"].keys() == own.keys()
    for k, v in own.items():
        assert res["own"][k] == pytest.approx(v), k
    assert res["total"] == pytest.approx(10.8)
    # the helper's 3.5 s go to its callers' categories by cumulative time under each (1 : 3)
    expected = {"step glue": 1.0, "masks": own[key(masks)] + 3.5 / 4, "claims": own[key(claims)] + 3.5 * 3 / 4,
                "other": 0.5}
    assert res["categories"].keys() == expected.keys()
    for c, v in expected.items():
        assert res["categories"][c] == pytest.approx(v), c
    [(where, given)] = res["uncategorised"].items()
    assert where == key(helper) and given == pytest.approx({"masks": 3.5 / 4, "claims": 3.5 * 3 / 4})
    assert res["calls"] == {key(step): 1, key(masks): 1, key(claims): 1, key(helper): 5}   # all calls, not primitive


def test_analyse_cprofile_leaves_time_through_a_recursive_cycle_unattributed():
    masks = (f"{MJ}/engine.py", 3, "_update_masks")
    lib = ("/usr/lib/python3/lib.py", 6, "libf")          # calls itself
    take = ("~", 0, "<built-in method numpy.take>")
    stats = {
        masks: (1, 1, 1.0, 3.0, {}),
        lib: (1, 2, 0.0, 2.0, {masks: _e(0.0, 1.0), lib: _e(0.0, 1.0)}),
        take: (1, 1, 1.0, 1.0, {lib: _e(1.0, 1.0)}),
    }
    res = profile_step.analyse_cprofile(_FakeProfile(stats))
    assert res["own"][("", "(unattributed)")] == pytest.approx(0.25)
    assert res["own"][(masks[0], masks[2])] == pytest.approx(1.75)
    assert res["total"] == pytest.approx(2.0)


def _report_input():
    upd, claim = (f"{MJ}/engine.py", "_update_masks"), (f"{MJ}/legal.py", "claim_options")
    res = {"total": 4.0, "categories": {"masks": 3.0, "claims": 1.0}, "own": {upd: 3.0, claim: 1.0},
           "calls": {upd: 20}, "win_tables_by_caller": {"claims": 1.0, "masks": 2.0},
           "uncategorised": {(f"{MJ}/legal.py", "split_wild"): {"masks": 0.4}},
           "lines": {(*upd, 12): 3.0, (*claim, 7): 1.0}}
    return res, {"ms_per_step": 10.0, "cpu_ms_per_step": 2.0}, {"ms_per_step": 12.0, "cpu_ms_per_step": 3.0}


def test_profile_report_scales_shares_by_the_baseline_cpu_time():
    res, base, prof = _report_input()
    text, data = profile_step.report("cProfile", res, base, prof, steps=4, top=1)
    assert data["scale_ms_per_step"] == 2.0 and data["profiled"] == prof
    assert "+50% CPU over the baseline" in text.splitlines()[0]
    rows = {r["category"]: r for r in data["categories"]}
    assert [r["category"] for r in data["categories"]] == profile_step.ORDER
    assert rows["masks"] == {"category": "masks", "share": 0.75, "ms_per_step": 1.5}
    assert rows["other"]["share"] == 0.0
    assert data["win_tables_by_caller"] == {"claims": 0.5, "masks": 1.0}
    assert "win tables by the category that called them: masks 1.000 ms, claims 0.500 ms" in text
    assert "    mj_env/legal.py:split_wild 0.200 ms -> masks" in text.splitlines()
    assert data["uncategorised"] == [{"where": "mj_env/legal.py:split_wild", "ms_per_step": 0.2,
                                      "given_to": {"masks": 0.2}}]
    assert data["functions"] == [{"where": "mj_env/engine.py:_update_masks", "share": 0.75, "ms_per_step": 1.5}]
    assert "  1.500 ms  75.0%  mj_env/engine.py:_update_masks        5.0 calls/step" in text   # 20 calls in 4 steps
    assert data["lines"] == [{"where": "mj_env/engine.py:_update_masks:12", "share": 0.75, "ms_per_step": 1.5}]


def test_profile_report_of_nothing_sampled_has_zero_shares():
    _, base, prof = _report_input()
    res = {"total": 0.0, "categories": {}, "own": {}}
    text, data = profile_step.report("wall-clock sampler", res, base, prof, steps=4, top=3)
    assert [r["share"] for r in data["categories"]] == [0.0] * len(profile_step.ORDER)
    assert data["functions"] == [] and "  other             0.000    0.0%" in text


# ============================================================================= profile_step.py: main
@pytest.mark.parametrize("argv,flag", [
    (["--steps", "0"], "--steps must be at least 1"),
    (["--warmup-steps", "-1"], "--warmup-steps must be at least 0"),
    (["--interval-ms", "1000.5"], "--interval-ms must be between 0.01 and 1,000"),
    (["--top", "0"], "--top must be at least 1"),
    (["--batch", "0"], "--batch must be between 1 and 65,536"),
    (["--seed", str(2**63)], "--seed"),
])
def test_profile_step_refuses_out_of_range_arguments(argv, flag, capsys, monkeypatch):
    monkeypatch.setattr(profile_step, "build", lambda *a: pytest.fail("built before the arguments were checked"))
    with pytest.raises(SystemExit) as e:
        profile_step.main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and flag in err.strip().splitlines()[-1] and out == ""


def test_profile_step_list_categories(capsys):
    assert profile_step.main(["--list-categories"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [c.split()[0] for c in profile_step.ORDER]
    assert lines[-1].split(None, 1) == ["other", "anything else"]
    assert "hand.py: all" in lines[profile_step.ORDER.index("win tables")]


def _fake_main(monkeypatch, base, stale=(), changes=()):
    """profile_step.main around a fake step: 2 ms of wall and 1 ms of CPU per step on fake clocks."""
    wall, cpu, calls, built = [0.0], [0.0], [], []

    def step():
        calls.append(1)
        wall[0] += 0.002
        cpu[0] += 0.001

    def build(*a):
        built.append(a)
        return step, {}

    import time as real_time
    fake_time = SimpleNamespace(perf_counter=lambda: wall[0], process_time=lambda: cpu[0], sleep=real_time.sleep)
    monkeypatch.setattr(profile_step, "time", fake_time)
    monkeypatch.setattr(profile_step, "build", build)
    monkeypatch.setattr(profile_step, "timed", lambda s, n: dict(base))
    monkeypatch.setattr(profile_step, "stale_names", lambda: list(stale))
    monkeypatch.setattr(profile_step, "code_version",
                        lambda root: {"commit": "0123456789abcdef", "mj_env_uncommitted_changes": list(changes)})
    return calls, built


def test_profile_step_main_reports_what_it_measured(monkeypatch, tmp_path, capsys):
    out = tmp_path / "p.json"
    calls, built = _fake_main(monkeypatch, {"ms_per_step": 10.0, "cpu_ms_per_step": 5.0}, stale=["legal.py:gone"],
                              changes=["mj_env/engine.py"])
    assert profile_step.main(["--env", "engine", "--batch", "4", "--rules", "hebei", "--seed", "7", "--steps", "3",
                              "--warmup-steps", "2", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert built == [("engine", 4, "hebei", 7)]
    assert len(calls) == 2 + 3 + 3                                  # warm-up, then one pass per profiler
    data = json.loads(out.read_text())
    assert data["decisions_per_sec"] == 400.0                       # 4 tables per 10 ms (wall) step
    assert "= 400 decisions/s" in text
    assert "warning: the process got under 90% of a core" in text   # 5 ms CPU of a 10 ms step
    assert "warning: the category map names functions the engine no longer defines" in text
    assert "legal.py:gone" in text and data["stale_category_names"] == ["legal.py:gone"]
    assert "commit 0123456789 with uncommitted changes in mj_env/engine.py" in text
    for mode in ("sample", "cprofile"):
        assert data[mode]["profiled"] == {"ms_per_step": pytest.approx(2.0), "cpu_ms_per_step": pytest.approx(1.0)}
        assert data[mode]["scale_ms_per_step"] == 5.0
    assert isinstance(data["sample"]["samples"], int) and "sampled_seconds_in_loop" in data["sample"]
    assert data["settings"]["seed"] == 7 and "setup_seconds" in data["settings"]
    assert text.rstrip().endswith(f"wrote {out}")


def test_profile_step_main_one_mode_and_no_warnings_on_an_idle_machine(monkeypatch, tmp_path, capsys):
    out = tmp_path / "p.json"
    calls, _ = _fake_main(monkeypatch, {"ms_per_step": 10.0, "cpu_ms_per_step": 10.0})
    assert profile_step.main(["--batch", "2", "--steps", "3", "--warmup-steps", "0", "--mode", "cprofile",
                              "--json", str(out)]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert "cprofile" in data and "sample" not in data and len(calls) == 3
    assert "warning" not in text and "uncommitted" not in text
    assert data["stale_category_names"] == []
