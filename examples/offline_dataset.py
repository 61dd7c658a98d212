"""An offline dataset from self-play: every decision of ``MahjongVectorEnv`` play, with the points it led to.

Baseline agents (``--agents``: ``random``, ``rule`` or ``efficient``, one name for all four seats or four
comma-separated names for seats 0-3) play ``--tables`` tables of ``mj_env.vector.MahjongVectorEnv`` until
``--hands`` hands have ended; the hands still running then are dropped, so every hand kept is complete::

    python examples/offline_dataset.py --rules hebei --tables 64 --hands 1000 --seed 0 --obs v2 --out hebei.npz
    python examples/offline_dataset.py --smoke --out smoke.npz      # seconds: 8 tables, 16 hands

Load it with NumPy (no pickle: every array is plain)::

    d = np.load("hebei.npz")
    x, mask, y = d["obs"], d["mask"], d["action"]        # behaviour cloning
    ret = d["points"]                                    # the seat's return (no discount: one hand, one payment)

What each array holds; D decisions (one row per decision, in the order they were made), H hands:

| array | shape, dtype | meaning |
| --- | --- | --- |
| ``obs`` | (D, 14 or 18, 34) uint8 | the acting seat's planes, as the env gave them (``mj_obs_v1``, or ``mj_obs_v2`` with ``--obs v2``) |
| ``mask`` | (D, 127) int8 | its legal actions (``mj_env.actions``); ``mask[i, action[i]] == 1`` |
| ``action`` | (D,) int64 | the action taken (``mj_env.actions.name(a)`` names it) |
| ``seat`` | (D,) int64 | the acting seat, 0-3 (0 = East) |
| ``table`` | (D,) int64 | the env table it was played at |
| ``hand`` | (D,) int64 | the hand, 0 to H-1, numbered in the order the hands ended (the ``hand_*`` arrays' index) |
| ``points`` | (D,) float64 | the seat's settled points of that hand: ``hand_scores[hand, seat]`` |
| ``done`` | (D,) bool | the seat's last decision in that hand (exactly one per hand and seat that acted) |
| ``hand_scores`` | (H, 4) float64 | each seat's points of the hand: the env's rewards of the hand's steps, which equal its ``settlement["scores"]`` (docs/INTERFACES.md 2) and sum to zero (docs/RULES.md 6); a seat may have points but no decision (a 天和) |
| ``hand_settlement`` | (H,) str | the settlement as JSON (who won, fan, patterns) |
| ``hand_wall``, ``hand_dealer`` | (H, 136 or 144) uint8, (H,) int64 | the wall (tile indices, dealing order) and dealer the hand was dealt with |
| ``rules``, ``obs_layout``, ``agents``, ``seed`` | str, str, (4,) str, int64 | what made the file (``rules``: the preset's name, or a rule set of one's own as JSON text of its object form, ``mj_env.records.rules_json``'s: the preset and the fields that differ from it, so ``'{"name": "hebei"}'`` is kept as ``hebei``) |

Points come only at a hand's end (a decision's reward before its seat's ``done`` is 0). A hand that ends at its
deal (四惠牌 in the dealer's first 14 tiles) has no decision: the env pays its points with the table's next step
and reports them apart (``infos["deal_points"]``); they are taken out here, not credited to the next hand.

A hand's rows, with its wall, dealer and settlement, make a hand record (``mj_env.records.hand_record``) that
``records.replay`` plays back; its ``visit(i, seat, action, engine)`` sees the table before each decision, and
``observe(engine.rules, engine.state, np.array([0]))`` gives that decision's v1 planes again (``mj_env.features.
observe_v2(rules, planes, engine.legal_mask())`` its v2 planes). ``replayed`` below does this, and so turns
``agents.arena --record`` files into the same rows.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from agents.arena import MAX_SEED, output_problem
from agents.rules_args import RULES_HELP, rules_given
from mj_env import records
from mj_env.baselines import BASELINES, make_baseline
from mj_env.features import in_layout
from mj_env.lines import ArgumentParser, guard_output, terminal_line
from mj_env.observation import observe
from mj_env.rules import get_rules, rules_label
from mj_env.vector import MahjongVectorEnv

MAX_TABLES, MAX_HANDS = 4096, 1_000_000
MAX_STEPS_PER_HAND = 2000  # a hand takes a few hundred decisions at most (agents.arena's bound)


def collect(rules: str, tables: int, hands: int, seed: int, obs: str = "v1", agents=("rule",) * 4) -> dict:
    """The dataset's arrays (the module docstring's table) from ``hands`` complete hands of play."""
    venv = MahjongVectorEnv(tables, rules=rules, seed=seed, obs=obs)
    players = [make_baseline(name, rules) for name in agents]
    rng = np.random.default_rng([seed, 1])
    o, _ = venv.reset(seed=seed)
    st = venv.engine.state
    serial = np.arange(tables)                     # the hand now played at each table (a running number)
    dealt = {b: (st.wall[b].copy(), int(st.dealer[b])) for b in range(tables)}
    paid = np.zeros((tables, 4))                   # the points the hand at each table was paid so far
    rows: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "seat", "table", "serial")}
    ended: list[tuple[int, np.ndarray, dict, tuple]] = []  # (serial, points, settlement, (wall, dealer))
    everyone = np.arange(tables)
    for _ in range(MAX_STEPS_PER_HAND * hands):
        action = np.zeros(tables, dtype=np.int64)
        for s, agent in enumerate(players):
            sel = np.flatnonzero(o["seat"] == s)
            if len(sel):
                action[sel] = agent.act({k: o[k][sel] for k in ("observation", "action_mask", "seat")}, rng)
        for k, v in (("obs", o["observation"]), ("mask", o["action_mask"]), ("action", action),
                     ("seat", o["seat"]), ("table", everyone), ("serial", serial.copy())):
            rows[k].append(v)
        o, rewards, term, _, infos = venv.step(action)
        paid += rewards - infos.get("deal_points", 0)  # a hand ended at its deal: not this hand's points
        for b in np.flatnonzero(term).tolist():    # one hand an episode (every preset): the hand ended
            ended.append((int(serial[b]), paid[b].copy(), infos["settlement"][b], dealt[b]))
            paid[b] = 0
            serial[b] = serial.max() + 1
            dealt[b] = (st.wall[b].copy(), int(st.dealer[b]))
        if len(ended) >= hands:  # (checked after the step: one that ends the last hand needed is no shortfall)
            break
    else:
        raise RuntimeError(f"fewer than {hands} hands ended in {MAX_STEPS_PER_HAND * hands} steps")
    ended = ended[:hands]
    number = {s: h for h, (s, *_) in enumerate(ended)}
    data = {k: np.concatenate(v) for k, v in rows.items()}
    keep = np.isin(data["serial"], list(number))   # rows of the hands kept, in the order they were made
    data = {k: v[keep] for k, v in data.items()}
    data["hand"] = np.array([number[s] for s in data.pop("serial").tolist()], dtype=np.int64)
    data["hand_scores"] = np.array([p for _, p, _, _ in ended]).reshape(-1, 4)
    data["points"] = data["hand_scores"][data["hand"], data["seat"]]
    last = len(data["hand"]) - 1 - np.unique((data["hand"] * 4 + data["seat"])[::-1], return_index=True)[1]
    data["done"] = np.isin(np.arange(len(data["hand"])), last)
    data["hand_settlement"] = np.array([json.dumps(s, ensure_ascii=False) for _, _, s, _ in ended], dtype=str)
    data["hand_wall"] = np.array([w for *_, (w, _) in ended], dtype=np.uint8)
    data["hand_dealer"] = np.array([d for *_, (_, d) in ended], dtype=np.int64)
    given = records.rules_json(get_rules(rules))  # a preset's name, or the object form of a rule set of one's own
    data.update(rules=np.array(given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)), obs_layout=np.array(obs), agents=np.array(list(agents)),
                seed=np.array(seed, dtype=np.int64))
    return data


def hand_record(data, h: int) -> dict:
    """Hand ``h`` of a loaded dataset as a hand record (``mj_env.records``), settlement included."""
    mine = data["hand"] == h
    rules = str(data["rules"])  # a preset's name, or a rule set of one's own as JSON text (its object form)
    rules = json.loads(rules) if rules.startswith("{") else rules
    return records.hand_record(records.rules_of(rules), data["hand_wall"][h], int(data["hand_dealer"][h]),
                               zip(data["seat"][mine].tolist(), data["action"][mine].tolist(), strict=True),
                               json.loads(str(data["hand_settlement"][h])))


def replayed(record: dict, obs: str = "v1") -> dict:
    """A hand record's decisions as dataset rows (``obs``, ``mask``, ``action``, ``seat``), the observations
    rebuilt by replaying it (``records.replay`` checks every decision and the settlement)."""
    got: dict[str, list] = {"obs": [], "mask": [], "action": [], "seat": []}

    def visit(i, seat, action, eng):
        if seat is not None:
            mask = eng.legal_mask().view(np.int8)
            got["obs"].append(in_layout(obs, eng.rules, observe(eng.rules, eng.state, np.array([0])), mask)[0])
            got["mask"].append(mask[0].copy())
            got["action"].append(action)
            got["seat"].append(seat)

    records.replay(record, visit)
    return {k: np.array(v) for k, v in got.items()}


def parse_args(argv=None) -> argparse.Namespace:
    p = ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--rules", default="beijing", type=rules_given, help=RULES_HELP)
    p.add_argument("--tables", type=int, default=64, help=f"tables played at once, 1-{MAX_TABLES} (default 64)")
    p.add_argument("--hands", type=int, default=1000, help=f"complete hands to keep, 1-{MAX_HANDS} (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the walls and the agents (default 0)")
    p.add_argument("--obs", default="v1", choices=("v1", "v2"), help="observation planes (default v1)")
    p.add_argument("--agents", default="rule", help=f"one of {', '.join(BASELINES)} for every seat, or four "
                   "comma-separated for seats 0-3 (default rule)")
    p.add_argument("--out", default="dataset.npz", help="the .npz file to write (default dataset.npz)")
    p.add_argument("--smoke", action="store_true", help="8 tables, 16 hands: seconds")
    args = p.parse_args(argv)
    if args.smoke:
        args.tables, args.hands = 8, 16
    if get_rules(args.rules).hands_per_episode != 1:  # a hand is an episode here: its points, its rows
        p.error(f"--rules: hands_per_episode={get_rules(args.rules).hands_per_episode}: the dataset keeps one hand "
                "per episode (use hands_per_episode=1)")
    if not 1 <= args.tables <= MAX_TABLES:
        p.error(f"--tables must be 1-{MAX_TABLES}, not {args.tables}")
    if not 1 <= args.hands <= MAX_HANDS:
        p.error(f"--hands must be 1-{MAX_HANDS}, not {args.hands}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be 0 to 2**32 - 1, not {args.seed}")
    names = [s.strip() for s in args.agents.split(",")]
    bad = [s for s in names if s not in BASELINES]
    if len(names) not in (1, 4) or bad:
        p.error(f"--agents {args.agents[:80]!r}: give one of {', '.join(BASELINES)}, or four of them comma-separated"
                + (f" (unknown: {bad[0][:40]!r})" if bad else ""))
    args.agents = tuple(names * 4 if len(names) == 1 else names)
    if not args.out.endswith(".npz"):
        p.error(f"--out {args.out}: the file name must end in .npz")
    problem = output_problem("--out", args.out)  # a folder, a missing folder, not writable: before any play
    if problem:
        p.error(problem)
    return args


def save(path: str, data: dict) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file beside it, renamed once written)."""
    fd, tmp = tempfile.mkstemp(suffix=".npz", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv=None) -> int:
    args = parse_args(argv)
    data = collect(args.rules, args.tables, args.hands, args.seed, args.obs, args.agents)
    try:
        save(args.out, data)
    except OSError as e:  # a full disk, a read-only file system: nothing is left behind
        print(f"offline_dataset.py: error: --out {terminal_line(args.out)}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"{terminal_line(args.out)}: {len(data['action'])} decisions of {args.hands} complete hands ({rules_label(get_rules(args.rules))}, "
          f"{args.tables} tables, seed {args.seed}, obs {args.obs}, agents {','.join(args.agents)}); "
          f"mean points a hand by seat: {np.round(data['hand_scores'].mean(axis=0), 3).tolist()}")
    return 0


if __name__ == "__main__":
    guard_output("examples/offline_dataset.py")
    sys.exit(main())
