"""The duplicate arena: balanced seatings, every wall replayed in every seating, determinism,
statistics and the JSON the command line writes."""
from __future__ import annotations

import json
import math
import os
from itertools import permutations

import numpy as np
import pytest

from agents import RandomAgent, RuleBasedAgent
from agents.arena import MAX_HANDS, check_run, compare, load_agents, main, play_duplicate, seatings
from agents.arena_report import format_table, json_safe, json_text, mean_ci95, plot, short_name, summarize
from agents.base import as_bool_mask
from mj_env.baselines import AgentError
from mj_env.records import replay
from mj_env.rules import get_rules
from mj_env.tiles import CODES
from mj_env.wall import shuffled_walls


class FirstLegal:
    """Deterministic: always the lowest legal action id (ignores the rng)."""

    def __init__(self, name: str):
        self.name = name

    def act(self, obs, rng):
        return as_bool_mask(obs["action_mask"]).argmax(axis=1).astype(np.int64)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seatings_put_every_agent_in_every_seat_equally(n):
    s = seatings(n)
    assert s.shape[1] == 4
    per_seat = np.stack([(s == a).sum(axis=0) for a in range(n)])   # (agents, seats)
    assert (per_seat == per_seat[0, 0]).all()
    assert len({tuple(r) for r in s.tolist()}) == len(s), "a seating is repeated"
    with pytest.raises(ValueError):
        seatings(5)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seatings_are_symmetric_under_renaming_and_turning_the_table(n):
    """Seat balance is not enough (the 4 rotations of ABCD always seat B right after A, and the agent after
    a weak one gains): renaming the agents or turning the table maps the set of seatings onto itself, so
    copies of one agent have the same expected score wherever they sit, neighbours included."""
    s = {tuple(r) for r in seatings(n).tolist()}
    for rename in permutations(range(n)):
        assert {tuple(rename[a] for a in r) for r in s} == s, f"renaming {rename} changes the seatings"
    assert {r[1:] + r[:1] for r in s} == s, "turning the table changes the seatings"
    # every ordered pair of agents sits next (one after the other) equally often
    after = np.zeros((n, n), int)
    for r in s:
        for seat in range(4):
            after[r[seat], r[(seat + 1) % 4]] += 1
    off = after[~np.eye(n, dtype=bool)]
    assert (off == off[0]).all(), after
    if n > 2:  # every seating of the table in which each agent sits, one doubled for 3
        counts = [2, 1, 1] if n == 3 else [1, 1, 1, 1]
        every = {p for a in range(n) for p in permutations([a] + list(range(n)))} if n == 3 else \
            set(permutations(range(4)))
        assert s == {p for p in every if sorted(p.count(a) for a in range(n)) == sorted(counts)}
    if n == 3:  # in the documented order, grouped by the doubled agent: the 12 of AABC, of BBCA, of CCAB
        rows = seatings(3).tolist()  # (the index is a record's "seating"; sorted rows mixed the groups)
        assert [max(r, key=r.count) for r in rows] == [0] * 12 + [1] * 12 + [2] * 12 and rows[0] == [0, 0, 1, 2]


def test_each_wall_is_replayed_in_every_seating():
    res = play_duplicate([FirstLegal("a"), FirstLegal("b")], n_walls=6, seed=3, batch_walls=4,
                         record_deals=True)
    S = len(res.seatings)
    assert len(res.wall) == 6 * S
    for w in range(6):
        rows = np.flatnonzero(res.wall == w)
        assert sorted(res.seating[rows].tolist()) == list(range(S))
        # the same wall and dealer: identical deals seat by seat
        for r in rows[1:]:
            assert np.array_equal(res.deals[r], res.deals[rows[0]])
        assert np.array_equal(res.seat_agent[rows], res.seatings[res.seating[rows]])
        # two copies of one deterministic agent: the replays are the same game, seat by seat
        for r in rows[1:]:
            assert np.array_equal(res.scores[r], res.scores[rows[0]])
    # different walls deal different hands
    assert not np.array_equal(res.deals[res.wall == 0][0], res.deals[res.wall == 1][0])
    # so each agent's duplicate total of a wall is the whole table's, which is zero-sum
    a, b = summarize(res)["agents"]
    assert a["mean_points"] == pytest.approx(0.0, abs=1e-12)
    assert b["mean_points"] == pytest.approx(0.0, abs=1e-12)


def test_a_drawn_dealer_is_the_same_in_every_seating_of_a_wall_and_the_records_replay():
    """Under hebei (the first dealer drawn) each wall's seatings share its dealer, drawn by the documented
    recipe (the walls from ``default_rng([seed, 0])``, then ``integers(0, 4, n_walls)`` from the same stream),
    and the engine deals with it, so every record replays to its settlement. Dealers tiled instead of repeated
    across the seatings (each seating of a wall another wall's dealer) and dealers from another stream each
    fail here (from an outside mutation test)."""
    n_walls, seed = 7, 5
    res = play_duplicate([FirstLegal("a"), RandomAgent()], n_walls=n_walls, seed=seed, rules="hebei",
                         batch_walls=3, record_hands=True, record_deals=True)
    rng = np.random.default_rng([seed, 0])
    walls = shuffled_walls(get_rules("hebei"), rng, n_walls)
    dealers = rng.integers(0, 4, size=n_walls)
    assert len(set(dealers.tolist())) > 1  # the seed draws more than one dealer, so a mix-up shows
    S = len(res.seatings)
    assert len(res.records) == n_walls * S
    for rec, wall, deal in zip(res.records, res.wall, res.deals, strict=True):
        assert rec["wall_index"] == wall and rec["dealer"] == dealers[wall]
        assert rec["wall"] == [CODES[t] for t in walls[wall]]
        assert np.array_equal(deal, res.deals[res.wall == wall][0])  # one wall, one dealer: one deal
        assert replay(rec)["scores"] == rec["settlement"]["scores"]


def test_deterministic_for_a_seed_and_different_across_seeds():
    agents = [RuleBasedAgent(), RandomAgent()]
    r1 = play_duplicate(agents, n_walls=8, seed=5, batch_walls=8)
    r2 = play_duplicate(agents, n_walls=8, seed=5, batch_walls=8)
    r3 = play_duplicate(agents, n_walls=8, seed=6, batch_walls=8)
    for f in ("scores", "won", "dealt_in", "fan", "seat_agent"):
        assert np.array_equal(getattr(r1, f), getattr(r2, f))
    assert not np.array_equal(r1.scores, r3.scores)


def test_statistics_match_the_hands():
    res = play_duplicate([RuleBasedAgent(), RandomAgent()], n_walls=40, seed=0, batch_walls=40)
    summary = summarize(res)
    rule, rand = summary["agents"]
    assert rule["hands"] == rand["hands"] == 40 * 2 * 2
    # zero-sum with equal seat counts: the two means cancel
    assert rule["mean_points"] == pytest.approx(-rand["mean_points"], abs=1e-9)
    # one winner per won hand (beijing): the win rates add up to the share of won hands
    won_hands = (~res.drawn).sum()
    assert (rule["win_rate"] + rand["win_rate"]) * rule["hands"] == won_hands
    assert rule["ci95"][0] <= rule["mean_points"] <= rule["ci95"][1]
    # the rule-based agent beats random clearly, even on 40 walls
    assert rule["ci95"][0] > 0 and rule["win_rate"] > rand["win_rate"]
    assert rule["avg_fan"] >= 1


@pytest.mark.parametrize("rules, agents, walls", [("hebei", "rule,random,efficient", 10), ("beijing", "rule,random", 40)])
def test_every_statistic_recomputed_from_the_hand_records(rules, agents, walls):
    """summarize against a count made here from each hand's record (who sat where, the settlement): per agent,
    its points per seat-hand averaged within each wall, then over walls (Student-t interval), and the shares
    of its seat-hands won, won by self-draw and dealt in, its average fan, and the drawn hands (from an outside
    mutation test: a rate computed over the wrong hands went unnoticed). hebei brings draws and several
    winners on one discard."""
    from scipy import stats

    from agents import make_agent
    names = agents.split(",")
    res = play_duplicate([make_agent(n, rules=rules) for n in names], n_walls=walls, seed=3, rules=rules,
                         batch_walls=walls, record_hands=True)
    summary = summarize(res)
    per_wall = {n: {} for n in names}
    count = {n: {"hands": 0, "won": 0, "self_draw": 0, "dealt_in": 0, "fans": []} for n in names}
    drawn = 0
    for rec in res.records:
        s = rec["settlement"]
        wins = s["wins"] if "wins" in s else ([] if s.get("draw") else [s])
        drawn += not wins
        for seat, name in enumerate(rec["players"]):
            c = count[name]
            c["hands"] += 1
            pts, hands = per_wall[name].get(rec["wall_index"], (0.0, 0))
            per_wall[name][rec["wall_index"]] = (pts + s["scores"][seat], hands + 1)
            mine = [w for w in wins if w["input"]["winner"] == seat]
            c["won"] += bool(mine)
            c["self_draw"] += any(w["input"]["discarder"] is None for w in mine)
            c["dealt_in"] += any(w["input"]["discarder"] == seat for w in wins)
            c["fans"] += [w["fan"] for w in mine]
    assert summary["draw_rate"] == pytest.approx(drawn / len(res.records)) and summary["walls"] == walls
    assert 0 < drawn < len(res.records) if rules == "hebei" else True
    for got in summary["agents"]:
        c = count[got["name"]]
        means = np.array([p / h for p, h in per_wall[got["name"]].values()])
        half = stats.t.ppf(0.975, len(means) - 1) * means.std(ddof=1) / np.sqrt(len(means))
        assert got["hands"] == c["hands"] and len(means) == walls
        assert got["mean_points"] == pytest.approx(means.mean())
        assert got["ci95"] == pytest.approx([means.mean() - half, means.mean() + half])
        for key, rate in (("won", "win_rate"), ("self_draw", "self_draw_rate"), ("dealt_in", "deal_in_rate")):
            assert got[rate] == pytest.approx(c[key] / c["hands"]), rate
        assert got["avg_fan"] == (pytest.approx(np.mean(c["fans"])) if c["fans"] else None)
    assert any(c["dealt_in"] for c in count.values()) and any(c["self_draw"] for c in count.values())


@pytest.mark.parametrize("df, t975", [(1, 12.7062), (3, 3.1824), (9, 2.2622), (10, 2.2281), (399, 1.9659)])
def test_student_t_interval(df, t975):
    """The half-width is t(0.975, n - 1) * sd / sqrt(n), with the t quantiles of the tables."""
    v = np.arange(df + 1, dtype=np.float64) ** 1.5
    m, lo, hi = mean_ci95(v)
    assert m == pytest.approx(v.mean()) and m - lo == pytest.approx(hi - m)
    assert (hi - m) / (v.std(ddof=1) / math.sqrt(len(v))) == pytest.approx(t975, abs=1e-4)


def test_interval_of_one_value_is_unbounded():
    assert mean_ci95(np.array([2.0])) == (2.0, float("-inf"), float("inf"))


def test_command_line_writes_the_json(tmp_path, capsys):
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    out = tmp_path / "cmp.json"
    plot = tmp_path / "cmp.png"
    main(["--agents", "rule,random", "--hands", "12", "--seed", "0", "--json", str(out), "--plot", str(plot),
          "--quiet"])
    data = _strict_loads(out.read_text())
    assert [a["name"] for a in data["agents"]] == ["rule", "random"]
    for a in data["agents"]:
        assert set(a) >= {"name", "mean_points", "ci95", "win_rate", "deal_in_rate"}
        assert len(a["ci95"]) == 2 and a["ci95"][0] <= a["mean_points"] <= a["ci95"][1]
    assert data["walls"] == 12 and data["hands_played"] == 24 and data["seed"] == 0
    assert plot.stat().st_size > 1000
    assert "points/hand" in capsys.readouterr().out
    # the same seed gives the same numbers
    main(["--agents", "rule,random", "--hands", "12", "--seed", "0", "--json", str(tmp_path / "again.json"),
          "--quiet"])
    again = _strict_loads((tmp_path / "again.json").read_text())
    assert again["agents"] == data["agents"]


def _strict_loads(text: str):
    """json.loads that refuses Infinity, -Infinity and NaN, as JavaScript's JSON.parse and jq do."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def test_one_wall_json_is_strict_with_a_null_interval(tmp_path, capsys):
    out = tmp_path / "one.json"
    main(["--agents", "rule,random", "--hands", "1", "--seed", "0", "--json", str(out), "--quiet"])
    text = out.read_text(encoding="utf-8")
    assert "Infinity" not in text and "NaN" not in text
    data = _strict_loads(text)
    assert data["walls"] == 1
    for a in data["agents"]:
        assert a["ci95"] == [None, None]
        assert math.isfinite(a["mean_points"])
    # the printed table still shows the unbounded interval
    assert "[-inf, +inf]" in capsys.readouterr().out


@pytest.mark.parametrize("walls, label", [(1, "points per hand (no interval: one wall)"),
                                          (2, "points per hand (95% CI over walls)")])
def test_plot_says_when_there_is_no_interval(walls, label, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    seen = {}
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (seen.update(label=fig.axes[0].get_ylabel()),
                                                              real(fig, *a, **k)))
    summary = summarize(play_duplicate([RuleBasedAgent(), RandomAgent()], n_walls=walls, seed=0))
    plot(summary, str(tmp_path / "p.png"))
    assert seen["label"] == label and (tmp_path / "p.png").stat().st_size > 0
    summary["agents"][0]["name"] = "p$\\sqrt{$.pt"  # an agent's name is drawn as written, never parsed as TeX
    plot(summary, str(tmp_path / "q.png"), title="$x")
    assert (tmp_path / "q.png").stat().st_size > 0


def test_table_says_an_interval_of_no_width_is_no_certainty(capsys):
    """Two walls that both play out the same in both seatings (two copies of one agent): the Student-t interval
    is [0, 0], and the table says that this is too few walls, not certainty."""
    main(["--agents", "rule,rule", "--hands", "2", "--seed", "10", "--quiet"])
    out = capsys.readouterr().out
    assert "[+0.000, +0.000]" in out and "every wall scored the same for rule, rule#2" in out
    main(["--agents", "rule,random", "--hands", "3", "--seed", "0", "--quiet"])
    assert "every wall scored the same" not in capsys.readouterr().out


def test_json_safe_and_json_text(monkeypatch):
    obj = {"a": [float("inf"), float("-inf"), float("nan"), 1.5], "b": (np.float64("nan"), np.float32(2.0)),
           "c": np.array([1.0, np.inf]), "d": {"e": np.int64(3), "f": np.bool_(True), "g": None, "h": "x"}}
    assert json_safe(obj) == {"a": [None, None, None, 1.5], "b": [None, 2.0], "c": [1.0, None],
                              "d": {"e": 3, "f": True, "g": None, "h": "x"}}
    assert _strict_loads(json_text(obj)) == json_safe(obj)
    assert obj["a"][0] == float("inf"), "json_safe copies; it does not change its argument"
    # a NumPy integer stays an integer (== passes 3.0 for 3), a bool a bool
    assert json_text({"n": np.int64(3), "b": np.bool_(False), "t": True}, indent=None) == '{"n": 3, "b": false, "t": true}'
    # allow_nan=False backs json_safe up: were a non-finite number to get past it, writing raises
    monkeypatch.setattr("agents.arena_report.json_safe", lambda o: o)
    with pytest.raises(ValueError):
        json_text({"ci95": [float("-inf"), float("inf")]})


def test_every_baseline_plays_by_name_from_the_command_line(tmp_path):
    out = tmp_path / "eff.json"
    main(["--agents", "efficient,rule,random", "--hands", "3", "--seed", "0", "--json", str(out), "--quiet",
          "--rules", "quemen"])
    data = _strict_loads(out.read_text(encoding="utf-8"))
    assert [a["spec"] for a in data["agents"]] == ["efficient", "rule", "random"]
    assert [a["name"] for a in data["agents"]] == ["efficient", "rule", "random"]


def test_three_and_four_agents():
    res = play_duplicate([RuleBasedAgent(), RandomAgent(), FirstLegal("first")], n_walls=2, seed=1)
    s = summarize(res)
    assert len(res.wall) == 2 * 36 and [a["hands"] for a in s["agents"]] == [96, 96, 96]
    assert sum(a["mean_points"] for a in s["agents"]) == pytest.approx(0.0, abs=1e-9)
    four = [RuleBasedAgent(), RandomAgent(), FirstLegal("x"), FirstLegal("x")]
    res4 = play_duplicate(four, n_walls=2, seed=1)
    assert [a["name"] for a in summarize(res4)["agents"]] == ["rule", "random", "x", "x#2"]


class Picks:
    """Deterministic, and told apart by what it plays: the (k + seat)-th of the legal actions (cycling), with the
    seat the observation gives, rng ignored; it keeps the state of the first generator it is given."""

    def __init__(self, k: int):
        self.name, self.k, self.first_rng = f"pick{k}", k, None

    def policy(self, mask_row, seat) -> int:
        legal = np.flatnonzero(mask_row)
        return int(legal[(self.k + seat) % len(legal)])

    def act(self, obs, rng):
        if self.first_rng is None:
            self.first_rng = rng.bit_generator.state
        mask, seats = as_bool_mask(obs["action_mask"]), np.asarray(obs["seat"])
        assert seats.shape == (len(mask),), "one seat per row"
        return np.array([self.policy(m, s) for m, s in zip(mask, seats.tolist(), strict=True)], dtype=np.int64)


@pytest.mark.parametrize("n", [3, 4])
def test_the_agent_credited_with_a_seat_is_the_one_that_played_it(n):
    """Every decision of every hand was made by the agent its record names at that seat, told its seat (replayed:
    each agent plays its own recognisable policy of the seat), the record's players are its seating's, and agent
    k draws from default_rng([seed, 1, k]). With 3 or 4 agents an agent acting at another agent's seat (seat + 2,
    the same agent for 2) went unnoticed, as did the seats of every table acting given to each agent, every agent
    drawing from agent 0's generator and records numbering their seating wrongly (an outside mutation test)."""
    agents = [Picks(k) for k in range(n)]
    res = play_duplicate(agents, n_walls=1, seed=9, record_hands=True)
    by_name = {a.name: a for a in agents}
    checked = []

    def visit(i, seat, action, engine):
        if seat is not None:
            checked.append(action == by_name[rec["players"][seat]].policy(engine.legal_mask()[0], seat))

    for rec, seating in zip(res.records, res.seating, strict=True):
        assert rec["seating"] == seating
        assert rec["players"] == [f"pick{k}" for k in res.seatings[rec["seating"]]]
        replay(rec, visit)
    assert len(checked) > 20 * len(res.records) and all(checked)
    for k, a in enumerate(agents):
        assert a.first_rng == np.random.default_rng([9, 1, k]).bit_generator.state


def test_a_hand_that_ends_at_its_deal_is_settled_and_credited(monkeypatch):
    """A wall that deals the dealer (seat 0) 四惠牌 ends in reset, before any decision: every seating of it is
    settled, a self-drawn win of 9 fan for the agent at seat 0, with a record of no decisions (from an outside
    mutation test: the settlements made by reset went unrecorded)."""
    from walls import deals_first, four_hui_9s_wall

    from agents import arena
    monkeypatch.setattr(arena, "shuffled_walls", deals_first(arena.shuffled_walls, four_hui_9s_wall(), 1))
    res = play_duplicate([FirstLegal("a"), FirstLegal("b")], n_walls=2, seed=0, record_hands=True)
    first = res.wall == 0
    assert res.won[first, 0].all() and res.self_draw[first, 0].all() and (res.fan[first, 0] == 9).all()
    assert not res.won[first, 1:].any() and (res.scores[first, 0] > 0).all()
    assert all(rec["actions"] == [] and rec["settlement"]["fan"] == 9 for rec in res.records if rec["wall_index"] == 0)
    a, b = summarize(res)["agents"]
    assert a["win_rate"] == b["win_rate"] and a["win_rate"] * a["hands"] >= 1  # each sits at seat 0 once on wall 0


def test_short_names_tell_checkpoints_apart():
    assert short_name("runs/a/checkpoints/final.pt", 28) == "a/final.pt"
    assert short_name("runs/b/checkpoints/final.pt", 28) == "b/final.pt"
    assert short_name("rule", 28) == "rule"
    assert len(short_name("runs/" + "x" * 60 + "/checkpoints/final.pt", 24)) == 24


def _no_loading(*args, **kwargs):
    raise AssertionError("a bad argument must be refused before any agent is loaded or hand played")


@pytest.mark.parametrize("args, message", [
    (["--agents", "rule"], "--agents needs 2, 3 or 4 comma-separated agents, got 1"),
    (["--agents", "rule,random,rule,random,rule"], "--agents needs 2, 3 or 4 comma-separated agents, got 5"),
    (["--agents", ",,"], "--agents: agent 1 of ',,' is empty"),
    (["--agents", ",rule,random"], "--agents: agent 1 of ',rule,random' is empty"),  # only the first empty
    (["--agents", "nonexist.pt,rule"], "--agents: no such checkpoint file: nonexist.pt"),
    (["--agents", "runs/x/final.pt:greedy,rule"], "--agents: no such checkpoint file: runs/x/final.pt"),
    (["--agents", "runs/x/final.pt:sample,rule"], "--agents: no such checkpoint file: runs/x/final.pt\n"),
    (["--agents", "foo,rule"], "--agents: unknown agent 'foo': use random, rule, efficient, pretrained"),
    (["--agents", "runs/x/model,rule"], "--agents: no such checkpoint file: runs/x/model"),  # a path, without .pt
    (["--agents", "{tmp},rule"], "is not a checkpoint file (a directory or a device)"),
    (["--agents", "/dev/null,rule"], "--agents: /dev/null is not a checkpoint file (a directory or a device)"),
    (["--batch", "0"], "--batch must be between 1 and 16,384"),
    (["--batch", "-1"], "--batch must be between 1 and 16,384"),
    (["--agents", "rule,random,rule", "--batch", "6000"],
     "--batch 6000 walls x 36 seatings of 3 agents = 216,000 tables at once, more than 196,608: use --batch 5,461"),
    (["--agents", "rule,random,rule,random", "--hands", "600000"],
     "--hands 600,000 walls x 24 seatings of 4 agents = 14,400,000 hands, more than 12,000,000: use --hands 500,000"),
    (["--seed", "-1"], "--seed must be between 0 and 2**32 - 1, got -1"),
    (["--seed", str(2**32)], "--seed must be between 0 and 2**32 - 1"),
    (["--hands", "0"], "--hands must be between 1 and 1,000,000"),
    (["--hands", "-5"], "--hands must be between 1 and 1,000,000"),
    (["--hands", "99999999999"], "--hands must be between 1 and 1,000,000"),
    (["--rules", "bogus"], "--rules: unknown rules 'bogus'"),
    (["--json", "/nonexistent/x.json"], "--json /nonexistent/x.json: no such directory: /nonexistent"),
    (["--json", "{tmp}"], "is a directory"),
    (["--plot", "{tmp}/x.txt"], "the file name must end in one of .png, .pdf, .svg"),
    (["--plot", "{tmp}/chart"], "the file name must end in one of .png"),
    (["--plot", "/nonexistent/x.png"], "--plot /nonexistent/x.png: no such directory"),
    (["--record", "/nonexistent/x.jsonl"], "--record /nonexistent/x.jsonl: no such directory: /nonexistent"),
    (["--record", "{tmp}"], "is a directory"),
    (["--json", ""], "--json '': an empty file name"),  # was taken as no --json: nothing written, no word said
    (["--record", " "], "--record ' ': an empty file name"),
    (["--plot", ""], "--plot '': an empty file name"),
    (["--agents", "pretrained,rule", "--device", "bogus"], "--device 'bogus' is not a torch device: use cpu, cuda"),
    (["--agents", "pretrained,rule", "--device", "meta"], "--device 'meta' cannot run networks: use cpu, cuda"),
])
def test_command_line_refuses_bad_arguments_before_playing(args, message, tmp_path, capsys, monkeypatch):
    if args == ["--plot", "/nonexistent/x.png"]:  # a plot that may be drawn: matplotlib is asked for first
        pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    monkeypatch.setattr("agents.arena.load_agents", _no_loading)
    monkeypatch.setattr("agents.arena.play_duplicate", _no_loading)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--agents" not in args:
        args = ["--agents", "rule,random"] + args
    if "--device" in args:
        pytest.importorskip("torch")
    with pytest.raises(SystemExit) as exc:
        main(args + ["--quiet"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err
    assert err.strip().splitlines()[-1].startswith("python -m agents.arena: error: ")


def test_command_line_refuses_cuda_without_it(capsys, monkeypatch):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    monkeypatch.setattr("agents.arena.load_agents", _no_loading)
    with pytest.raises(SystemExit) as exc:
        main(["--agents", "pretrained,rule", "--device", "cuda", "--quiet"])
    assert exc.value.code == 2
    assert "--device 'cuda': CUDA is not available on this machine" in capsys.readouterr().err


def test_command_line_names_an_unusable_checkpoint(tmp_path, capsys):
    pytest.importorskip("torch")
    bad = tmp_path / "bad.pt"
    bad.write_text("not a checkpoint")
    with pytest.raises(SystemExit) as exc:
        main(["--agents", f"{bad},rule", "--quiet"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"error: --agents: {bad}: not a checkpoint" in err and "Traceback" not in err


def test_matches_of_several_hands_are_refused():
    """Each table plays one wall: later hands of a match would come from an unseeded deal."""
    with pytest.raises(ValueError, match="one hand per wall.*hands_per_episode=2"):
        play_duplicate([RuleBasedAgent(), RandomAgent()], 4, rules=get_rules("beijing").replace(hands_per_episode=2))


def test_outputs_never_overwrite_an_input_and_a_failed_write_is_one_line(tmp_path, capsys):
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import shutil
    from pathlib import Path

    ckpt = tmp_path / "player.pt"
    shutil.copy(Path(__file__).resolve().parents[1] / "agents" / "data" / "pretrained_beijing.pt", ckpt)
    before = ckpt.read_bytes()
    for flag in ("--json", "--plot"):
        out = str(ckpt) if flag == "--json" else str(tmp_path / "player.pt")
        with pytest.raises(SystemExit) as exit_:
            main(["--agents", f"{ckpt}:greedy,rule", "--hands", "2", flag, out, "--quiet"])
        assert exit_.value.code == 2
    assert "is a player's checkpoint" in capsys.readouterr().err and ckpt.read_bytes() == before
    with pytest.raises(SystemExit):  # PATH:sample names the same input
        main(["--agents", f"{ckpt}:sample,rule", "--hands", "2", "--json", str(ckpt), "--quiet"])
    assert "is a player's checkpoint" in capsys.readouterr().err and ckpt.read_bytes() == before
    shipped = Path(__file__).resolve().parents[1] / "agents" / "data" / "pretrained_hebei.pt"
    with pytest.raises(SystemExit):
        main(["--agents", "pretrained,rule", "--hands", "2", "--json", str(shipped), "--quiet"])
    assert "is a player's checkpoint" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--agents", "rule,random", "--hands", "2", "--json", str(tmp_path / "a.png"),
              "--plot", str(tmp_path / "a.png"), "--quiet"])
    assert "name the same file" in capsys.readouterr().err
    if Path("/dev/full").exists():  # passes the up-front checks, fails at the write
        assert main(["--agents", "rule,random", "--hands", "2", "--json", "/dev/full", "--quiet"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("python -m agents.arena: cannot write /dev/full:") and "Traceback" not in err


def test_compare_refuses_specs_that_do_not_label_every_agent():
    agents = [RuleBasedAgent(), RandomAgent()]
    for specs in (["rule"], ["rule", "random", "rule"]):
        with pytest.raises(ValueError, match=f"{len(specs)} specs for 2 agents"):
            compare(specs, 1, agents=agents)
    with pytest.raises(ValueError, match="2 specs for 1 agents"):  # not "2, 3 or 4 agents, got 1"
        compare(["rule", "random"], 1, agents=agents[:1])
    summary = compare(["mine", "random"], 1, agents=agents)
    assert [a["spec"] for a in summary["agents"]] == ["mine", "random"]
    assert [a["name"] for a in summary["agents"]] == ["mine", "random"]  # the specs label agents given loaded
    seen = []
    twins = compare(["me", "me"], 2, agents=[RuleBasedAgent(), RuleBasedAgent()], records=seen.extend)
    assert [a["name"] for a in twins["agents"]] == ["me", "me#2"]
    assert "me#2" in format_table(twins)
    assert len(seen) == 4 and all(sorted(set(r["players"])) == ["me", "me#2"] for r in seen)  # the records agree
    with pytest.raises(ValueError, match="labels must be a list of one name per agent"):
        play_duplicate(agents, 1, labels="ab")


def test_the_summary_holds_what_repeats_the_run():
    """rules as a record writes them (a changed field is no preset run), the seed and the batch."""
    five = compare(["rule", "random"], 6, seed=3, rules=get_rules("beijing", base=5), batch_walls=4)
    one = compare(["rule", "random"], 6, seed=3, rules="beijing", batch_walls=4)
    assert five["rules"] == {"name": "beijing", "base": 5} and one["rules"] == "beijing"
    assert five["seed"] == 3 and five["batch"] == 4
    assert five["agents"][0]["mean_points"] == pytest.approx(5 * one["agents"][0]["mean_points"])
    assert one["agents"][0]["hands"] == 2 * one["hands_played"] == 24   # seat-hands: two seats of every hand
    assert json.loads(json_text(five))["rules"] == {"name": "beijing", "base": 5}


def test_agents_may_be_spaced_and_a_plot_suffix_in_capitals(tmp_path):
    """'rule, random' names rule and random (the spaces are not part of the names), and chart.PNG is a PNG file
    name (from an outside mutation test: either was refused unnoticed)."""
    pytest.importorskip("matplotlib")
    out, chart = tmp_path / "out.json", tmp_path / "chart.PNG"
    assert main(["--agents", " rule , random", "--hands", "1", "--json", str(out), "--plot", str(chart), "--quiet"]) == 0
    assert [a["spec"] for a in _strict_loads(out.read_text())["agents"]] == ["rule", "random"]
    assert chart.stat().st_size > 1000


def test_an_output_named_relatively_is_still_seen_to_be_an_input(tmp_path, monkeypatch, capsys):
    """--json player.pt from the checkpoint's folder is the checkpoint of --agents /abs/player.pt; and --json and
    --plot naming one file in two spellings are one file (an outside mutation test: comparing the paths as given
    let both through, the first overwriting the player)."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    import shutil
    from pathlib import Path

    ckpt = tmp_path / "player.pt"
    shutil.copy(Path(__file__).resolve().parents[1] / "agents" / "data" / "pretrained_beijing.pt", ckpt)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("agents.arena.load_agents", _no_loading)
    for args, message in [([f"{ckpt},rule", "--json", "player.pt"], "--json player.pt: is a player's checkpoint"),
                          (["rule,random", "--json", "a.png", "--plot", f"{tmp_path}/a.png"],
                           f"--json and --plot name the same file: {tmp_path}/a.png")]:
        with pytest.raises(SystemExit) as exc:
            main(["--agents", *args, "--quiet"])
        assert exc.value.code == 2 and message in capsys.readouterr().err


def test_an_empty_name_in_agents_is_a_usage_error(capsys):
    for agents in (",,rule,random", "rule,random,", "rule,,random"):
        with pytest.raises(SystemExit) as err:
            main(["--agents", agents, "--hands", "2", "--quiet"])
        assert err.value.code == 2 and "is empty" in capsys.readouterr().err


class Returns:
    """The rule agent's actions passed through ``edit``: an agent that returns the wrong thing."""

    def __init__(self, edit, name="bad"):
        self.edit, self.name, self.rule = edit, name, RuleBasedAgent()

    def act(self, obs, rng):
        return self.edit(self.rule.act(obs, rng))


@pytest.mark.parametrize("edit, error, words", [
    (lambda a: a.astype(np.float64), TypeError, "returned float64 actions of shape"),
    (lambda a: a > 0, TypeError, "returned bool actions"),
    (lambda a: a[0], TypeError, "of shape \\(\\); act\\(\\) must return \\(1,\\) integers"),
    (lambda a: None, TypeError, "returned None \\(a NoneType\\); act"),
    (lambda a: ["x"] * len(a), TypeError, "returned <U1 actions"),
    (lambda a: [[1, [2]]] + a[1:].tolist(), TypeError, "\\(a list\\); act"),  # ragged: NumPy cannot read it
    (lambda a: a * 0 + 999, ValueError, "agent 'bad' at table 0: action 999 is not an integer in 0-126"),
    # one past the last action (from an outside mutation test: a bound of <= N_ACTIONS gave an IndexError)
    (lambda a: a * 0 + 127, ValueError, "agent 'bad' at table 0: action 127 is not an integer in 0-126"),
])
def test_an_agent_returning_bad_actions_is_named(edit, error, words):
    with pytest.raises(error, match=words) as err:
        play_duplicate([Returns(edit), RuleBasedAgent()], 1)
    assert "agent 'bad'" in str(err.value)


def test_an_agent_returning_a_bool_among_int_actions_is_named():
    """NumPy reads [3, True] as the ints [3, 1]: the bool would have played action 1."""
    from mj_env.baselines import checked_agent_actions

    class Bad:
        name = "bad"

    mask = np.ones((2, 127), dtype=np.int8)
    for acts in ([3, True], [3, np.True_], (3, np.array(True))):
        with pytest.raises(TypeError, match=r"agent 'bad' returned a list holding a non-integer \(action .* at row 1"):
            checked_agent_actions(Bad(), acts, mask, np.array([5, 6]), lambda t, a: "")
    assert checked_agent_actions(Bad(), [3, np.int64(4)], mask, np.array([5, 6]), lambda t, a: "").tolist() == [3, 4]


class Raises:
    """An agent whose act raises (``act_tables`` too, for the engine-aware form)."""
    name = "crashes"

    def act(self, obs, rng):
        raise ZeroDivisionError("division by zero in the agent")


class RaisesOnTables(Raises):
    def act_tables(self, engine, tables, rng):
        raise KeyError("no such table in the agent")


@pytest.mark.parametrize("agent, words", [(Raises(), "ZeroDivisionError acting at table\\(s\\) 0: division by zero"),
                                         (RaisesOnTables(), "KeyError acting at table\\(s\\) 0: 'no such table")])
def test_an_agent_that_raises_is_named_with_its_tables(agent, words):
    # the dealer (seat 0) acts first: the agent at table 0 (its seating of the one wall); its error is the cause
    with pytest.raises(AgentError, match=f"agent 'crashes' raised {words}") as err:
        play_duplicate([agent, RuleBasedAgent()], 1)
    assert isinstance(err.value.__cause__, (ZeroDivisionError, KeyError))


@pytest.mark.parametrize("kw, error, words", [
    ({"n_walls": 0}, ValueError, "n_walls must be between 1 and 1,000,000 walls, got 0"),
    ({"n_walls": 10**7}, ValueError, "n_walls must be between 1 and 1,000,000"),
    ({"n_walls": 2.0}, TypeError, "n_walls must be an integer, got 2.0"),
    ({"batch_walls": -1}, ValueError, "batch_walls must be between 1 and 16,384"),
    ({"batch_walls": 0}, ValueError, "batch_walls must be between 1 and 16,384"),
    ({"seed": -1}, ValueError, "seed must be between 0 and 2\\*\\*32 - 1, got -1"),
    ({"seed": 2**32 + 5}, ValueError, "seed must be between 0 and 2\\*\\*32 - 1"),  # would replay seed 5's streams
    ({"seed": None}, TypeError, "seed must be an integer, got None"),
    ({"seed": True}, TypeError, "seed must be an integer"),
])
def test_play_duplicate_and_compare_keep_the_command_lines_bounds(kw, error, words):
    args = {"n_walls": 1, **kw}
    with pytest.raises(error, match=words):
        play_duplicate([RuleBasedAgent(), RandomAgent()], **args)
    hands = args.pop("n_walls")
    with pytest.raises(error, match=words.replace("n_walls", "hands")):
        compare(["rule", "random"], hands, **args)


def test_exactly_max_hands_is_allowed_and_one_wall_more_is_not():
    """4 agents: 24 seatings, so 500,000 walls are MAX_HANDS hands exactly, the most allowed (``>`` made ``>=``
    refused it: an outside mutation test)."""
    assert 500_000 * len(seatings(4)) == MAX_HANDS
    check_run(4, 500_000, 1, 0)
    with pytest.raises(ValueError, match="500,001 walls x 24 seatings of 4 agents = 12,000,024 hands, more than "
                                         "12,000,000: use n_walls 500,000 or fewer"):
        check_run(4, 500_001, 1, 0)


def test_progress_gets_the_walls_done_after_each_batch():
    """``progress(walls_done)``: 5 walls in batches of 2 report 2, 4 and 5 (the last batch's size, 1, was
    never the count: an outside mutation test)."""
    calls = []
    play_duplicate([FirstLegal("a"), FirstLegal("b")], n_walls=5, seed=0, batch_walls=2, progress=calls.append)
    assert calls == [2, 4, 5]


def test_agents_are_objects_and_specs_a_list_of_names():
    with pytest.raises(TypeError, match="specs must be a list of agent names, not 'rule'"):
        load_agents("rule")
    with pytest.raises(TypeError, match="--agents 'rule,random' is \\['rule', 'random'\\] here"):
        compare("rule,random", 1)
    with pytest.raises(TypeError, match="agents must be a list of agent objects, not 'rule'"):
        play_duplicate("rule", 1)
    with pytest.raises(TypeError, match="agents\\[0\\] is a str, not an agent"):
        play_duplicate(["rule", "random"], 1)
    assert [type(a).__name__ for a in load_agents(("rule", "random"))] == ["RuleBasedAgent", "RandomAgent"]


def test_play_duplicate_checks_its_options_before_playing():
    """A file name as record_hands (or compare's records) wrote nothing and kept the records in memory; a
    progress that is not callable failed with "'int' object is not callable" after the first batch was played."""
    calls = []

    class Counting(FirstLegal):
        def act(self, obs, rng):
            calls.append(1)
            return super().act(obs, rng)

    agents = [Counting("a"), FirstLegal("b")]
    for kw, message in [({"record_hands": "hands.jsonl"}, "record_hands must be True, False or a callable"),
                        ({"record_deals": "yes"}, "record_deals must be True or False"),
                        ({"progress": 5}, "progress must be None or a callable")]:
        with pytest.raises(TypeError, match=message):
            play_duplicate(agents, 2, **kw)
    for kw, message in [({"records": "hands.jsonl"}, "records must be None or a callable"),
                        ({"records": True}, "records must be None or a callable"),
                        ({"progress": "yes"}, "progress must be True or False")]:
        with pytest.raises(TypeError, match=message):
            compare(["a", "b"], 2, agents=agents, **kw)
    assert calls == []  # refused before a hand was played


def test_a_checkpoint_of_other_rules_is_one_note_line(capsys):
    # a raw UserWarning printed the warning's source line after it (a new user's audit); train.py says "note:"
    from pathlib import Path

    pytest.importorskip("torch")
    ckpt = Path(__file__).resolve().parents[1] / "agents" / "data" / "pretrained_beijing.pt"
    assert main(["--agents", f"{ckpt},rule", "--hands", "2", "--rules", "quemen", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"note: {ckpt} was trained for rule set 'beijing' and plays under 'quemen'\n" in err
    assert "UserWarning" not in err and "warnings.warn" not in err


def test_a_checkpoint_whose_logits_overflow_is_one_line(overflowing_checkpoint, capsys):
    """Finite weights so large that the logits are nan: the network played each row's first legal action and
    the arena scored it as a player; refused, it must be one line and exit 1, not a traceback."""
    ckpt = overflowing_checkpoint
    assert main(["--agents", f"{ckpt},rule", "--hands", "2", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("python -m agents.arena: agent '") and "raised NonFiniteLogits acting at table(s)" in err
    assert "the network's policy logits hold nan or inf" in err and "Traceback" not in err


def test_other_warnings_while_loading_are_left_as_python_shows_them(capsys, monkeypatch):
    import warnings

    def load(specs, rules, device):
        warnings.warn("something else", FutureWarning, stacklevel=1)
        return [RuleBasedAgent(), RandomAgent()]

    monkeypatch.setattr("agents.arena.load_agents", load)
    with pytest.warns(FutureWarning, match="something else"):
        assert main(["--agents", "rule,random", "--hands", "2", "--quiet"]) == 0
    assert "note:" not in capsys.readouterr().err


# --------------------------------------------------------------------------- --record on a file system without locks


def test_an_arena_record_file_on_a_file_system_without_locks_is_written_as_before(tmp_path, monkeypatch, capsys):
    """open_records locks the --record file (flock) so that two arena runs cannot mix their records; on a file
    system that has no locks (NFS with no lock daemon: "No locks available", ENOLCK) the lock itself failed and
    the run was refused ("cannot write ...: No locks available"), where before it wrote its records."""
    import errno

    fcntl = pytest.importorskip("fcntl")
    from agents import arena

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    path = tmp_path / "hands.jsonl"
    path.write_text("an earlier run's records\n")
    assert arena.main(["--agents", "random,random", "--hands", "2", "--quiet", "--record", str(path)]) == 0
    assert len(path.read_text().splitlines()) == 4 and "earlier" not in path.read_text()  # emptied, then written


# --------------------------------------------------------------------------- file_key: one file, one public name


def test_file_key_tells_a_hard_link_and_another_spelling_for_the_same_file(tmp_path):
    from agents.arena import file_key

    a = tmp_path / "a.json"
    a.write_text("{}")
    os.link(a, tmp_path / "b.json")
    assert file_key(a) == file_key(tmp_path / "b.json") == file_key(tmp_path / "." / "a.json")
    assert file_key(a) != file_key(tmp_path / "c.json")  # not there yet: its resolved path
    assert file_key(tmp_path / "c.json") == file_key(tmp_path / "x" / ".." / "c.json")


# --------------------------------------------------------------------------- run by runpy under a __main__ of no file


def test_the_arena_run_by_runpy_under_a_main_of_no_file_plays(monkeypatch):
    """``runpy.run_module("agents.arena", run_name="__main__")`` where the process's ``__main__`` has no file (as
    under pytest-xdist): the arena's rules-mismatch check named ``sys.modules[__name__]``, that ``__main__``, as
    its library, and crashed placing the warning before any was due."""
    import runpy
    import sys
    import types

    from mj_env import lines

    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    monkeypatch.setattr(lines, "guard_output", lambda prog: None)  # (it would wrap pytest's sys.stdout)
    monkeypatch.setattr(sys, "argv", ["arena", "--agents", "rule,random", "--hands", "1", "--quiet"])
    with pytest.raises(SystemExit) as e:
        runpy.run_module("agents.arena", run_name="__main__")
    assert e.value.code == 0
