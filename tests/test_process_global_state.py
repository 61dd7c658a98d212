"""What the library leaves behind in the user's process: the pictures (``agents.arena_report.plot``,
``agents.curve.plot``) draw on a figure of their own and leave the caller's matplotlib backend and pyplot
figures as they were; the command lines' ``main`` puts torch's thread count back; envs of different rule
sets stepped in turn in one process each play the game they play alone."""
from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest

import mj_env
from mj_env.baselines import uniform_legal
from mj_env.engine import Engine
from mj_env.state import END
from mj_env.vector import MahjongVectorEnv

# (preset, overrides): the three presets and two rule sets that differ from a preset in one field
CONFIGS = [("beijing", {}), ("hebei", {}), ("quemen", {}), ("beijing", {"hui_wild_in_melds": True}),
           ("hebei", {"multiple_winners": False})]


def _aec_play(i: int):
    """One AEC table of CONFIGS[i], uniform legal actions from its own generator, two hands: every
    ``last()``."""
    name, kw = CONFIGS[i]
    env, rng = mj_env.env(rules=name, **kw), np.random.default_rng(100 + i)
    for hand in range(2):
        env.reset(seed=7 + i + 10 * hand)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            yield pickle.dumps((agent, obs, reward, term, trunc, info))
            env.step(None if term or trunc else int(uniform_legal(obs["action_mask"][None], rng)[0]))


def _vector_play(i: int, steps: int = 60):
    name, kw = CONFIGS[i]
    venv, rng = MahjongVectorEnv(num_envs=8, rules=name, seed=3 + i, **kw), np.random.default_rng(200 + i)
    obs, info = venv.reset(seed=3 + i)
    yield pickle.dumps((obs, info))
    for _ in range(steps):
        out = venv.step(uniform_legal(obs["action_mask"], rng))
        obs = out[0]
        yield pickle.dumps(out)


def _engine_play(i: int, steps: int = 80):
    name, kw = CONFIGS[i]
    eng, rng = Engine(name, num_tables=6, seed=11 + i, **kw), np.random.default_rng(500 + i)
    eng.reset()
    for _ in range(steps):
        mask = eng.legal_mask()
        res = eng.step(uniform_legal(mask, rng, empty_ok=True))
        yield pickle.dumps((mask, res))
        done = np.flatnonzero(eng.state.phase == END)
        if len(done):
            eng.reset(tables=done)


@pytest.mark.parametrize("play", [_aec_play, _vector_play, _engine_play], ids=["aec", "vector", "engine"])
def test_envs_of_different_rule_sets_stepped_in_turn_each_play_their_game_alone(play):
    """Tables of beijing, hebei, quemen and of two rule sets one field away from a preset, stepped one step
    each in turn in one process: each sees exactly the observations, rewards and infos it sees played alone
    (no module buffer, cache or random stream shared between them)."""
    alone = [list(play(i)) for i in range(len(CONFIGS))]
    games = [play(i) for i in range(len(CONFIGS))]
    together: list[list[bytes]] = [[] for _ in games]
    live = set(range(len(games)))
    while live:
        for i in sorted(live):
            try:
                together[i].append(next(games[i]))
            except StopIteration:
                live.discard(i)
    assert [len(a) for a in alone] == [len(t) for t in together]
    for i in range(len(CONFIGS)):
        assert together[i] == alone[i], CONFIGS[i]


@pytest.fixture
def users_pyplot():
    """A user's pyplot session on a backend of their choosing (svg: needs no display) with a figure open;
    their backend is put back afterwards."""
    matplotlib = pytest.importorskip("matplotlib")
    before = matplotlib.get_backend()
    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    try:
        yield plt, fig
    finally:
        plt.close(fig)
        matplotlib.use(before)


def test_the_pictures_leave_the_users_matplotlib_backend_and_figures_alone(users_pyplot, tmp_path):
    """``plot`` of the arena and of the curve called ``matplotlib.use("Agg")``: a notebook (inline backend)
    or a script on an interactive one that drew an arena picture was on Agg for the rest of its session
    (plt.show() shows nothing). They draw on a ``Figure`` of their own: backend, open figures, current
    figure unchanged."""
    import matplotlib
    from test_plot_text import _summary

    from agents.arena_report import plot
    from agents.curve import plot as plot_curve

    plt, fig = users_pyplot
    progress = tmp_path / "progress.csv"
    progress.write_text("seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n60,-0.5,-0.7,-0.3\n"
                        "120,-0.2,-0.4,0.0\n")
    plot(_summary(["rule", "random"]), str(tmp_path / "p.png"))
    plot_curve([str(progress)], str(tmp_path / "c.png"))
    assert matplotlib.get_backend() == "svg"
    assert plt.get_fignums() == [fig.number] and plt.gcf() is fig
    assert (tmp_path / "p.png").stat().st_size > 0 and (tmp_path / "c.png").stat().st_size > 0


def test_the_command_lines_called_in_a_process_put_torchs_thread_count_back(threads, monkeypatch, tmp_path):
    """``agents.arena.main`` and ``agents.play.main`` play on one torch thread once a network is loaded;
    called in a user's process (``main(argv)`` from a notebook or a script) they left torch at one thread
    for the rest of it. The play still runs on one thread; the count is the caller's again once main
    returns, or raises."""
    torch = pytest.importorskip("torch")
    import io

    from agents import arena, play

    seen = []
    real_compare = arena.compare

    def compare(*a, **k):
        seen.append(torch.get_num_threads())
        return real_compare(*a, **k)

    monkeypatch.setattr(arena, "compare", compare)
    torch.set_num_threads(2)
    assert arena.main(["--agents", "pretrained,rule", "--hands", "1", "--quiet",
                       "--json", str(tmp_path / "r.json")]) == 0
    assert seen == [1] and torch.get_num_threads() == 2

    def stop(*a, **k):
        seen.append(torch.get_num_threads())
        raise RuntimeError("an agent failed")

    monkeypatch.setattr(arena, "compare", stop)
    with pytest.raises(RuntimeError, match="an agent failed"):
        arena.main(["--agents", "pretrained,rule", "--hands", "1", "--quiet"])
    assert seen == [1, 1] and torch.get_num_threads() == 2

    def answer(prompt):
        seen.append(torch.get_num_threads())
        return "quit"

    argv = ["--opponents", "pretrained,rule,rule", "--seed", "1"]
    assert play.main(argv, input_fn=answer, out=io.StringIO()) == 0
    assert seen[2:] and set(seen[2:]) == {1} and torch.get_num_threads() == 2


def test_the_tables_command_line_called_in_a_process_leaves_its_standard_streams_alone(monkeypatch, tmp_path):
    """``mj_env.tables.main`` called ``guard_output`` itself (the other command lines call it under
    ``__main__``): ``main([])`` in a user's process wrapped their sys.stdout and sys.stderr for good."""
    import io

    from mj_env import tables

    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    cache = tmp_path / "tables.npz"
    cache.write_bytes(b"x")
    monkeypatch.setattr(tables, "load", lambda **kw: cache)
    assert tables.main([]) == 0
    assert sys.stdout is out and sys.stderr is err and str(cache) in out.getvalue()


@pytest.mark.parametrize("play", [_vector_play, _engine_play], ids=["vector", "engine"])
def test_envs_stepped_in_threads_play_as_they_play_one_after_another(play):
    """Each thread steps its own env (NumPy lets go of the GIL inside its calls): a module buffer shared
    between envs would show as a difference from the same games played in turn."""
    from concurrent.futures import ThreadPoolExecutor

    alone = [list(play(i)) for i in range(len(CONFIGS))]
    with ThreadPoolExecutor(len(CONFIGS)) as pool:
        threaded = list(pool.map(lambda i: list(play(i)), range(len(CONFIGS))))
    for i in range(len(CONFIGS)):
        assert threaded[i] == alone[i], CONFIGS[i]


def test_rule_agents_of_different_rule_sets_used_in_turn_act_as_alone():
    """Rule agents of beijing, hebei, quemen and beijing with ``hui_wild_in_melds`` each playing its own
    engine (tests/rule_play.py), one step each in turn: the same positions as each played alone."""
    from rule_play import rule_agent_play

    configs = CONFIGS[:4]

    def play(i):
        name, kw = configs[i]
        eng = Engine(name, num_tables=4, seed=21 + i, **kw)
        eng.reset()
        for live in rule_agent_play(eng, seed=31 + i, limit=60):
            yield pickle.dumps((live, eng.legal_mask(), eng.state.phase, eng.state.to_act))

    alone = [list(play(i)) for i in range(len(configs))]
    games = [play(i) for i in range(len(configs))]
    together: list[list[bytes]] = [[] for _ in games]
    for _ in range(60):
        for i, g in enumerate(games):
            together[i].append(next(g))
    assert together == alone
