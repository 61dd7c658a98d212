"""The duplicate arena's figures recomputed independently from its ``--record`` file alone.

What each figure should be is read from the docs (agents/arena.py's docstring, the README's "Duplicate
comparison", docs/training_results.md: points per hand, 95% Student-t intervals over walls, every wall in
each documented seating), not from the arena's code: the counting below uses only the records (rules,
wall, dealer, settlement, players, wall_index, seating) and docs/INTERFACES.md 2's settlement
(``"wins"`` for several winners on one discard), with scipy's Student t.

- seatings: 2 agents ABAB and BABA; 3 agents the 36 seatings with one agent doubled; 4 agents the 24
  orders; every seating of a wall has the same wall and dealer;
- ``mean_points``: an agent's points over its seat-hands; ``ci95``: mean +- t(0.975, walls - 1) * sd / sqrt(walls)
  of its per-wall means; one wall: ``[null, null]`` in the JSON;
- ``win_rate`` / ``self_draw_rate`` / ``deal_in_rate``: per seat-hand, deal-in meaning the win's discarder
  (the robbed kong's declarer) was that seat; ``avg_fan``: mean fan of its wins; ``draw_rate``: per hand played;
- the table: points and interval to 3 decimals, rates to 0.1%, fan to 2 decimals.
"""
from __future__ import annotations

import contextlib
import io
import json
from collections import defaultdict
from itertools import permutations

import numpy as np
import pytest

from agents.arena import main as arena_main
from mj_env.records import main as records_main
from mj_env.rules import get_rules
from mj_env.tiles import CODES
from mj_env.wall import shuffled_walls

pytest.importorskip("scipy")
from scipy.stats import t as student_t


def documented_seatings(k: int) -> list[tuple[int, ...]]:
    if k == 2:
        return sorted([(0, 1, 0, 1), (1, 0, 1, 0)])
    if k == 3:
        return sorted({p for d in range(3) for p in permutations([d, d] + [a for a in range(3) if a != d])})
    return sorted(permutations(range(4)))


def wins_of(settlement: dict) -> list[tuple[int, int | None, int]]:
    """(winner, discarder, fan) of each win of a hand's settlement (docs/INTERFACES.md 2)."""
    if settlement.get("draw"):
        return []
    wins = settlement.get("wins", [settlement])
    return [(w["input"]["winner"], w["input"].get("discarder"), w["fan"]) for w in wins]


def recount(records: list[dict], names: list[str]) -> dict:
    """The summary the docs describe, from the records alone."""
    k = len(names)
    by_wall = defaultdict(list)
    for r in records:
        by_wall[r["wall_index"]].append(r)
    assert sorted(by_wall) == list(range(len(by_wall)))
    per_wall = {a: [] for a in range(k)}
    counts = defaultdict(int)
    fans = defaultdict(list)
    draws = 0
    for w in sorted(by_wall):
        rs = by_wall[w]
        assert len({tuple(r["wall"]) for r in rs}) == 1 and len({r["dealer"] for r in rs}) == 1
        assert sorted(tuple(names.index(p) for p in r["players"]) for r in rs) == documented_seatings(k)
        pts = {a: [] for a in range(k)}
        for r in rs:
            s = r["settlement"]
            assert sum(s["scores"]) == 0
            wins = wins_of(s)
            draws += not wins
            for seat, player in enumerate(r["players"]):
                a = names.index(player)
                pts[a].append(s["scores"][seat])
                counts[a, "hands"] += 1
                mine = [win for win in wins if win[0] == seat]
                counts[a, "win"] += bool(mine)
                counts[a, "self"] += any(win[1] is None for win in mine)
                counts[a, "deal_in"] += any(win[1] == seat for win in wins)
                fans[a] += [win[2] for win in mine]
        for a in range(k):
            per_wall[a].append(pts[a])
    n = len(by_wall)
    agents = []
    for a in range(k):
        means = np.array([np.mean(p) for p in per_wall[a]], dtype=float)
        mean = sum(sum(p) for p in per_wall[a]) / counts[a, "hands"]
        if n > 1:
            half = student_t.ppf(0.975, n - 1) * means.std(ddof=1) / np.sqrt(n)
            ci = [means.mean() - half, means.mean() + half]
        else:
            ci = [None, None]
        agents.append({"name": names[a], "mean_points": mean, "ci95": ci, "hands": counts[a, "hands"],
                       "win_rate": counts[a, "win"] / counts[a, "hands"],
                       "self_draw_rate": counts[a, "self"] / counts[a, "hands"],
                       "deal_in_rate": counts[a, "deal_in"] / counts[a, "hands"],
                       "avg_fan": float(np.mean(fans[a])) if fans[a] else None})
    return {"walls": n, "hands_played": len(records), "draw_rate": draws / len(records), "agents": agents}


def close(x, y) -> bool:
    return (x is None and y is None) or (x is not None and y is not None and abs(x - y) < 1e-9)


def table_row(a: dict) -> str:
    lo, hi = a["ci95"]
    ci = f"[{lo:+.3f}, {hi:+.3f}]" if lo is not None else "[-inf, +inf]"
    fan = f"{a['avg_fan']:.2f}" if a["avg_fan"] is not None else "-"
    return " ".join([a["name"], f"{a['mean_points']:+.3f}", ci, f"{100 * a['win_rate']:.1f}%",
                     f"{100 * a['self_draw_rate']:.1f}%", f"{100 * a['deal_in_rate']:.1f}%", fan])


def run_arena(tmp_path, args: list[str]):
    js, rec = tmp_path / "out.json", tmp_path / "hands.jsonl"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert arena_main([*args, "--json", str(js), "--record", str(rec), "--quiet"]) == 0
    records = [json.loads(line) for line in rec.read_text(encoding="utf-8").splitlines()]
    return json.loads(js.read_text(encoding="utf-8")), records, out.getvalue(), rec


RUNS = [
    (["rule", "random"], "beijing", 9, 3, ["--batch", "4"]),              # 2 agents, batches of uneven size
    (["rule", "efficient", "random"], "hebei", 2, 0, []),                  # 36 seatings; several winners, draws
    (["random", "rule", "efficient", "rule"], "quemen", 1, 5, []),         # 24 seatings; one wall: no interval
    (["rule", "efficient"], '{"name": "hebei", "multiple_winners": false, "chi": true}', 6, 2, ["--common-random"]),
]


@pytest.mark.parametrize("agents, rules, walls, seed, extra", RUNS)
def test_every_figure_matches_an_independent_count_of_the_records(tmp_path, agents, rules, walls, seed, extra):
    summary, records, printed, rec = run_arena(
        tmp_path, ["--agents", ",".join(agents), "--hands", str(walls), "--seed", str(seed), "--rules", rules, *extra])
    names = [a["name"] for a in summary["agents"]]
    assert len(set(names)) == len(agents)
    mine = recount(records, names)
    seatings = len(documented_seatings(len(agents)))
    assert (summary["walls"], summary["hands_played"]) == (mine["walls"], mine["hands_played"]) == (
        walls, walls * seatings)
    assert close(summary["draw_rate"], mine["draw_rate"])
    assert sorted(map(tuple, summary["seatings"])) == documented_seatings(len(agents))
    for theirs, ours in zip(summary["agents"], mine["agents"]):
        assert theirs["hands"] == ours["hands"] == 4 * walls * seatings // len(agents)
        for key in ("mean_points", "win_rate", "self_draw_rate", "deal_in_rate", "avg_fan"):
            assert close(theirs[key], ours[key]), (theirs["name"], key, theirs[key], ours[key])
        assert all(close(x, y) for x, y in zip(theirs["ci95"], ours["ci95"])), (theirs["ci95"], ours["ci95"])
    # the printed table, to its documented precision
    lines = [" ".join(line.split()) for line in printed.splitlines()]
    for ours in mine["agents"]:
        assert table_row(ours) in lines, (table_row(ours), printed)
    assert (f"{walls} walls x {seatings} seatings = {walls * seatings} hands, "
            f"{100 * mine['draw_rate']:.1f}% drawn") in lines
    # the walls are those of the seed: default_rng([seed, 0]) through mj_env.wall.shuffled_walls, wall i for
    # wall_index i; under hebei and quemen the first dealers are drawn after all the walls, beijing's is seat 0
    rule_set = get_rules(json.loads(rules) if rules.startswith("{") else rules)
    wall_rng = np.random.default_rng([seed, 0])
    dealt = shuffled_walls(rule_set, wall_rng, walls)
    dealers = wall_rng.integers(0, 4, size=walls) if rule_set.name in ("hebei", "quemen") else np.zeros(walls, int)
    for r in records:
        assert r["wall"] == [CODES[t] for t in dealt[r["wall_index"]]]
        assert r["dealer"] == dealers[r["wall_index"]]
    # and every record replays to its stored settlement
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert records_main([str(rec)]) == 0
    assert f"{len(records)} of {len(records)} record(s) replay to their stored settlements" in out.getvalue()


def test_a_wall_that_ends_at_its_deal_is_counted_and_recorded_like_any_other(tmp_path, monkeypatch):
    """四惠牌 at the deal (tests/walls.py): the hand ends before any decision, yet it is a hand played, with a record
    of no decisions that replays, and the figures still match the records."""
    from walls import deals_first, four_hui_9s_wall

    from agents import arena
    monkeypatch.setattr(arena, "shuffled_walls", deals_first(arena.shuffled_walls, four_hui_9s_wall(), 1))
    summary, records, _, rec = run_arena(tmp_path, ["--agents", "rule,random", "--hands", "3", "--seed", "1"])
    first = [r for r in records if r["wall_index"] == 0]
    assert len(first) == 2 and all(r["actions"] == [] and r["settlement"]["fan"] == 9 for r in first)
    mine = recount(records, [a["name"] for a in summary["agents"]])
    assert summary["hands_played"] == mine["hands_played"] == 6
    for theirs, ours in zip(summary["agents"], mine["agents"]):
        for key in ("mean_points", "win_rate", "self_draw_rate", "deal_in_rate", "avg_fan"):
            assert close(theirs[key], ours[key]), (theirs["name"], key)
        assert all(close(x, y) for x, y in zip(theirs["ci95"], ours["ci95"]))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert records_main([str(rec)]) == 0
    assert "6 of 6 record(s) replay" in out.getvalue()


HOSTILE = [
    ["--agents", "rule", "--hands", "2"],
    ["--agents", "rule,nosuch", "--hands", "2"],
    ["--agents", "rule,random", "--hands", "0"],
    ["--agents", "rule,random", "--seed", str(2**32)],
    ["--agents", "rule,random", "--batch", "0"],
    ["--agents", "rule,random", "--rules", '{"name": "beijing", "chi": "yes"}'],
    ["--agents", "rule,random", "--rules", '{"name": "beijing", "chi": false, "chi": true}'],
    ["--agents", "rule,random", "--plot", "x.bmp"],
]


@pytest.mark.parametrize("args", HOSTILE)
def test_hostile_arguments_exit_2_with_a_message_and_leave_the_outputs_as_they_were(tmp_path, args, capsys):
    js, rec = tmp_path / "out.json", tmp_path / "hands.jsonl"
    js.write_text("OLD", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        arena_main([*args, "--json", str(js), "--record", str(rec), "--quiet"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("python -m agents.arena: error: ")
    assert js.read_text(encoding="utf-8") == "OLD" and not rec.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
