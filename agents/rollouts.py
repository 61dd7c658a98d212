"""Rollout targets: what each candidate action of a real position is worth, by playing it out.

Policy improvement by rollouts (Tesauro and Galperin, 1996): at a position of a real game, copy
the table once per *candidate action* (``mj_env.engine.Engine.clone``), take that action in its
copy, then let a fixed rollout policy (the rule-based agent, in all four seats) play every copy to
the end of the hand. The seat's points in a copy estimate Q(position, action) under the rollout
policy; the action that scores most on average is a one-step improvement over that policy.

The copies keep the real table's wall, so the candidates of one position are compared on the
same future draws (common random numbers): their *differences* are far less noisy than returns
of independent deals, which is what makes a few hundred thousand positions enough to learn from.
The estimate is still unbiased for the position as the seat sees it: the hidden tiles are a
sample from the real game's distribution given the seat's view, and no rollout decision reads
anything but its own seat's observation.

Candidates (``candidate_actions``): on the seat's own turn, the ``max_discards`` discards the rule
agent ranks best (its choice first) and every legal kong; in a claim or rob window every legal
action (pass, win, pong, kong, each chi). A self-drawn win is always taken (no candidates); a
position with a single candidate is not labelled.

What it is for: measuring how much a one-step deviation from the rule agent is worth, by kind of
decision (``python -m agents.rollouts``; docs/training_results.md has the table), and as the
improvement step of expert-iteration training (targets for a network to imitate).

::

    python -m agents.rollouts --seconds 120 --tables 256 --seed 0
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from agents.arena import MAX_SEED
from agents.arena_report import mean_ci95, missing_module
from agents.rules_args import RULES_HELP_NO_DEFAULT, rules_given
from mj_env import actions as A
from mj_env.baselines import RuleBasedAgent, as_bool_mask, rows_of
from mj_env.engine import Engine
from mj_env.lines import ArgumentParser, guard_output
from mj_env.messages import brief
from mj_env.observation import COL_PHASE, P_SCALARS, observe
from mj_env.rules import get_rules, rules_label
from mj_env.state import CLAIM, END, ROB, TURN, K

MAX_ROLLOUT_STEPS = 2000
"""A hand takes at most a few hundred decisions; more means the engine is stuck."""


def check_max_discards(max_discards) -> int:
    """``max_discards`` as an int in [0, K] (there are K tile kinds to discard), or a ValueError naming it."""
    if isinstance(max_discards, (bool, np.bool_)) or not isinstance(max_discards, (int, np.integer)) \
            or not 0 <= max_discards <= K:
        raise ValueError(f"max_discards must be an int in [0, {K}] (there are {K} tile kinds), "
                         f"not {brief(max_discards)}")
    return int(max_discards)


def candidate_actions(agent: RuleBasedAgent, obs: dict, rng: np.random.Generator, max_discards: int = 3,
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The candidates of each row of ``obs`` (the batched agent input: v1 planes, masks, seats).

    Returns (rule_action (n,), candidates (n, C) int64 padded with -1), the rule agent's own choice
    first in every row. Own turn: the rule agent's ``max_discards`` best-ranked discards (报听
    discards where the agent would declare) and the legal kongs; a legal self-drawn win is taken,
    so that row has one candidate. Claim and rob windows: every legal action. ``max_discards``: an int in
    [0, K], else a ValueError.
    """
    max_discards = check_max_discards(max_discards)
    o = np.asarray(obs["observation"])
    mask = as_bool_mask(obs["action_mask"])
    n = len(o)
    rule = agent.act(obs, rng)
    phase = o[:, P_SCALARS, COL_PHASE]
    cands = np.full((n, 1 + max_discards + K), -1, dtype=np.int64)
    cands[:, 0] = rule

    turn = np.flatnonzero((phase == TURN) & ~mask[:, A.WIN])
    if len(turn):
        keys = agent.discard_keys(o[turn], mask[turn], rows_of(rng, turn))  # (m, 34), smaller is better
        order = np.argsort(keys, axis=1, kind="stable")[:, :max_discards]
        ok = np.take_along_axis(keys, order, axis=1) < agent.ILLEGAL_KEY
        use_ting = agent.rules.ting & mask[turn][:, A.TING:A.TING + K]
        act = np.where(np.take_along_axis(use_ting, order, axis=1), A.TING + order, A.DISCARD + order)
        act = np.where(ok, act, -1)
        kongs = np.where(mask[turn][:, A.KONG_SELF:A.KONG_SELF + K], A.KONG_SELF + np.arange(K), -1)
        extra = np.concatenate([act, kongs], axis=1)
        extra[extra == rule[turn, None]] = -1
        cands[turn, 1:1 + extra.shape[1]] = extra
    window = np.flatnonzero(np.isin(phase, (CLAIM, ROB)))
    if len(window):
        legal = np.where(mask[window], np.arange(A.N_ACTIONS), -1)
        legal[legal == rule[window, None]] = -1
        cols = np.sort(legal, axis=1)[:, ::-1][:, :cands.shape[1] - 1]   # legal ones first
        cands[window, 1:1 + cols.shape[1]] = cols
    # squeeze the -1s out: stable sort on "is padding" keeps the rule action first
    order = np.argsort(cands < 0, axis=1, kind="stable")
    cands = np.take_along_axis(cands, order, axis=1)
    width = max(1, int((cands >= 0).sum(axis=1).max())) if n else 1
    return rule, cands[:, :width]


def rollout_returns(engine: Engine, tables: np.ndarray, first: np.ndarray, agent: RuleBasedAgent,
                    rng: np.random.Generator) -> np.ndarray:
    """Play ``first[j]`` at a copy of ``engine``'s table ``tables[j]``, then ``agent`` in every seat
    to the end of the hand. Returns (len(tables),) the points the seat that took ``first[j]`` got
    from that hand. ``engine`` is left as it was."""
    copy = engine.clone(tables)
    st = copy.state
    seat = st.to_act.astype(np.int64)
    out = np.zeros(len(tables))
    res = copy.step(first)
    over = res.hand_over.copy()
    out[over] = res.rewards[over, seat[over]]
    for _ in range(MAX_ROLLOUT_STEPS):
        live = np.flatnonzero(~over & (st.phase != END))
        if not len(live):
            break
        sub = {"observation": observe(copy.rules, st, idx=live), "action_mask": copy.legal_mask()[live],
               "seat": st.to_act[live].astype(np.int64)}
        actions = np.zeros(copy.num_tables, dtype=np.int64)
        actions[live] = agent.act(sub, rng)
        res = copy.step(actions, tables=live)
        ended = res.hand_over & ~over
        out[ended] = res.rewards[ended, seat[ended]]
        over |= ended
    else:
        raise RuntimeError("rollouts still running after MAX_ROLLOUT_STEPS steps")
    return out


def label_positions(engine: Engine, agent: RuleBasedAgent, rng: np.random.Generator, max_discards: int = 3,
                    ) -> dict:
    """Rollout targets for the positions now waiting at ``engine``'s live tables that have two or more
    candidates. Returns ``{"table", "candidates" (m, C) padded with -1, "q" (m, C) NaN-padded,
    "observation", "action_mask"}``; ``candidates[:, 0]`` is the rule agent's choice."""
    st = engine.state
    live = np.flatnonzero(st.phase != END)
    obs = {"observation": observe(engine.rules, st, idx=live), "action_mask": engine.legal_mask()[live],
           "seat": st.to_act[live].astype(np.int64)}
    _, cands = candidate_actions(agent, obs, rng, max_discards)
    lab = np.flatnonzero((cands >= 0).sum(axis=1) >= 2)
    cands = cands[lab]
    r, j = np.nonzero(cands >= 0)
    q = np.full(cands.shape, np.nan)
    if len(r):
        q[r, j] = rollout_returns(engine, live[lab[r]], cands[r, j], agent, rng)
    return {"table": live[lab], "candidates": cands, "q": q,
            "observation": obs["observation"][lab], "action_mask": obs["action_mask"][lab]}


def labelled_play(rules, num_tables: int, seconds: float, seed: int, max_discards: int = 3):
    """Rule agents play at ``num_tables`` tables (seeded ``seed``, finished hands dealt afresh) for at
    least ``seconds`` and at least one step; before every step, yields ``label_positions``' targets
    for the positions waiting there, with ``"hand"``: a number for the hand each position is in (the positions
    of one hand share its wall, so their values are not independent: ``deviation_table`` groups by it)."""
    agent, rng = RuleBasedAgent(rules), np.random.default_rng([seed, 1])
    eng = Engine(rules, num_tables=num_tables, seed=seed)
    eng.reset()
    deals = np.zeros(num_tables, dtype=np.int64)  # matches reset at each table before the one in play
    start, first = time.monotonic(), True
    while first or time.monotonic() - start < seconds:
        first = False
        ended = np.flatnonzero(eng.state.phase == END)
        if len(ended):
            eng.reset(tables=ended)
            deals[ended] += 1
        got = label_positions(eng, agent, rng, max_discards)
        t = got["table"]  # a match of several hands (rules.hands_per_episode) deals its next hand itself
        got["hand"] = (deals[t] * eng.rules.hands_per_episode + eng.state.hands_played[t]) * num_tables + t
        yield got
        live = np.flatnonzero(eng.state.phase != END)
        actions = np.zeros(eng.num_tables, dtype=np.int64)
        actions[live] = agent.act({"observation": observe(eng.rules, eng.state, idx=live),
                                   "action_mask": eng.legal_mask()[live],
                                   "seat": eng.state.to_act[live].astype(np.int64)}, rng)
        eng.step(actions)


def action_kind(actions: np.ndarray) -> np.ndarray:
    """A word per action id: discard, ting, kong_self, win, pass, pong, kong, chi."""
    a = np.asarray(actions)
    out = np.full(a.shape, "other", dtype=object)
    for lo, n, word in ((A.DISCARD, K, "discard"), (A.TING, K, "ting"), (A.KONG_SELF, K, "kong_self"),
                        (A.CHI, A.N_CHI, "chi")):
        out[(a >= lo) & (a < lo + n)] = word
    for act, word in ((A.WIN, "win"), (A.PASS, "pass"), (A.PONG, "pong"), (A.KONG, "kong")):
        out[a == act] = word
    return out


def deviation_table(candidates: np.ndarray, q: np.ndarray, min_count: int = 100, hands: np.ndarray | None = None,
                    ) -> list[dict]:
    """Per (rule agent's kind of action, alternative's kind): how many positions, the mean of
    Q(alternative) - Q(rule agent's choice) with a 95% interval, and how often it is above 0. With ``hands``
    (the hand of each position, ``labelled_play``), the interval takes the hands as the independent units
    (``mean_ci95``'s groups): positions of one hand share a wall."""
    rows = []
    rule = action_kind(candidates[:, 0])
    for j in range(1, candidates.shape[1]):
        has = candidates[:, j] >= 0
        alt = action_kind(candidates[has, j])
        gain = q[has, j] - q[has, 0]
        for key in sorted(set(zip(rule[has], alt, strict=True))):
            sel = (rule[has] == key[0]) & (alt == key[1])
            if sel.sum() >= min_count:
                mean, lo, hi = mean_ci95(gain[sel], None if hands is None else hands[has][sel])
                rows.append({"rule": key[0], "alternative": key[1], "rank": j, "positions": int(sel.sum()),
                             "mean_gain": mean, "ci95": [lo, hi], "better_share": float((gain[sel] > 0).mean())})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m agents.rollouts", description=(__doc__ or "").split("\n")[0],
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--seconds", type=float, default=60.0, help="how long to label positions")
    p.add_argument("--tables", type=int, default=256, help="tables of rule-agent play labelled together")
    p.add_argument("--rules", default="beijing", type=rules_given, help=RULES_HELP_NO_DEFAULT)
    p.add_argument("--seed", type=int, default=0, help="seed of the tables' walls and of the rollouts")
    p.add_argument("--max-discards", type=int, default=3, help="discard candidates on the seat's own turn")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 4096:
        p.error(f"--tables must be 1-4096, not {args.tables}")
    if not 1 <= args.max_discards <= K:
        p.error(f"--max-discards must be 1-{K} (there are {K} tile kinds), not {args.max_discards}")
    if not (args.seconds > 0 and math.isfinite(args.seconds)):
        p.error(f"--seconds must be a finite number above 0, not {args.seconds}")
    if not 0 <= args.seed <= MAX_SEED:  # the arena's bound: a larger seed would replay a smaller one's streams
        p.error(f"--seed must be 0 to 2**32 - 1, not {args.seed}")
    # (a bad preset name or field is argparse's error, exit 2: "argument --rules: ...")
    problem = missing_module("scipy", "the 95% intervals")  # asked now, not after --seconds of labelling
    if problem:
        p.error(problem)
    cands, qs, hands, start = [], [], [], time.monotonic()
    width = 1 + args.max_discards + K
    for got in labelled_play(args.rules, args.tables, args.seconds, args.seed, args.max_discards):
        c = np.full((len(got["table"]), width), -1, dtype=np.int64)
        q = np.full(c.shape, np.nan)
        c[:, :got["candidates"].shape[1]], q[:, :got["q"].shape[1]] = got["candidates"], got["q"]
        cands.append(c)
        qs.append(q)
        hands.append(got["hand"])
    c, q = np.concatenate(cands), np.concatenate(qs)
    took = time.monotonic() - start
    print(f"{len(c):,} positions with a choice, {int((c >= 0).sum()):,} rollouts in {took:.0f} s "
          f"({rules_label(get_rules(args.rules))}, {args.tables} tables, seed {args.seed}); gain = Q(alternative) - Q(rule agent's choice), "
          "points of the seat's hand")
    rows = deviation_table(c, q, hands=np.concatenate(hands))
    # each column as wide as its title or its widest value, whichever is wider (10,000,000 positions or an
    # interval past +-100 points would otherwise push the row's later columns out from under their titles)
    titles = ("rule agent", "alternative", "rank", "positions", "mean gain", "95% CI", "better")
    cells = [(r["rule"], r["alternative"], f"{r['rank']}", f"{r['positions']:,}", f"{r['mean_gain']:+.3f}",
              f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]", f"{r['better_share']:.0%}") for r in rows]
    widths = [max([least, *(len(row[i]) for row in cells)]) for i, least in enumerate((10, 11, 4, 9, 9, 18, 7))]

    def line(values) -> str:  # the names left-aligned, the figures right-aligned under their titles
        return " ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths)))

    print(line(titles))
    for row in cells:
        print(line(row))
    print("(rows of fewer than 100 positions are left out" + ("; none has 100 yet: give more --seconds)" if not rows
                                                              else ")"))
    return 0


if __name__ == "__main__":
    guard_output("python -m agents.rollouts")  # a reader that left (| head -1): the rest of the table is dropped, no traceback
    sys.exit(main())
