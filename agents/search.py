"""Rollout search at play time: ``python -m agents.search``.

``RolloutSearchAgent`` decides each position by a one-step lookahead over the rule agent's play,
from the seat's view only (perfect-information sampling, the rollout algorithm of Tesauro and
Galperin 1996 with determinization):

1. candidates: the rule agent's choice, its next-best discards and the legal kongs on its own turn,
   every legal action in a claim window (``agents.rollouts.candidate_actions``);
2. ``worlds`` copies of the table (``Engine.clone``), in each the tiles the seat cannot see dealt
   afresh (``mj_env.determinize.redeal``): the other hands, their concealed kongs and the undrawn
   wall are a sample of what the seat's view allows;
3. every candidate is taken in every world and the hand played out by rule agents in all four
   seats (``agents.rollouts.rollout_returns``); the candidates of one world share its deal (common
   random numbers), so their differences are far less noisy than their values;
4. it plays the candidate whose mean gain over the rule agent's choice, less ``z`` standard errors,
   is largest, and the rule agent's choice when none is above 0 (``z`` keeps rollout noise from
   turning into deviations; ``z`` infinite plays the rule agent, without rollouts). One world has no
   standard error, so ``worlds=1`` takes ``z`` 0 or infinite only (a ValueError otherwise).

``clairvoyant=True`` (``--clairvoyant``) skips step 2: the worlds are exact copies of the real table,
so the rollouts play the true hidden hands and the true order of the wall. ``clairvoyant="hands"``
(``--clairvoyant hands``) keeps the true hands and puts the undrawn wall in a new order in each world
(``mj_env.determinize.shuffle_wall``): a player who knows every hand but not what comes next, the
ceiling of any reading of the opponents. Those players cheat; they measure what the hidden tiles are
worth to the same lookahead, not what a fair player can reach.

It reads the real table only to copy it and to redeal what is hidden: its decision is the same
whatever the hidden tiles are (a test redeals them and asks again; under quemen beside a 报听 opponent too,
``tests/test_audit_observation.py``), except where ``mj_env.determinize`` keeps real tiles: in a claim
window, the hands (and concealed-kong kinds) of a seat whose claim waits and of one that accepted a win, and the rare 报听 tables whose
chain starts at the real hands and concealed-kong kinds (its docstring). It is an *engine-aware* agent: the
arena calls ``act_tables(engine, tables, rng)`` for it instead of ``act(obs, rng)`` (``agents.arena``).
It costs ``worlds`` x candidates rollouts per decision: about 10 decisions a second on one core at 64
worlds with up to 100 walls in play at once (the CLI's ``--batch-walls``; a helper measured 3.8 a second
at ``--walls 4``, the other core busy, as fewer walls batch fewer rollouts together). So it is a measuring
instrument (how far one step of lookahead gets above the rule agent), not a player for training loops.

::

    python -m agents.search --walls 200 --worlds 64 --z 0.5 --seed 12345
"""
from __future__ import annotations

import argparse
import numbers
import sys
import time
from typing import Any, Literal

import numpy as np

from agents.arena import MAX_SEED, play_duplicate
from agents.arena_report import format_table, missing_module, summarize
from agents.rollouts import action_kind, candidate_actions, check_max_discards, rollout_returns
from agents.rules_args import RULES_HELP_NO_DEFAULT, duplicate_rules_given
from mj_env.baselines import RuleBasedAgent
from mj_env.determinize import redeal, shuffle_wall
from mj_env.engine import Engine
from mj_env.lines import ArgumentParser, guard_output
from mj_env.messages import brief
from mj_env.observation import observe
from mj_env.records import rules_json
from mj_env.rules import RulesSpec, get_rules

ROLLOUT_ROWS = 1 << 18
"""The most rollouts played in one batch (the candidates of the decisions searched together, each in every world;
about 1.2 kB of table state each, more in observations): more are searched a few decisions at a time, so that a
large ``worlds`` at many tables neither outgrows an engine (``mj_env.engine.MAX_TABLES``, a ValueError) nor the
memory. The usual settings (64 worlds, a few candidates each, at the CLI's 200 tables) fit in one batch."""


class RolloutSearchAgent:
    """One-step lookahead by determinized rule-agent rollouts (module docstring)."""

    def __init__(self, rules: RulesSpec = "beijing", worlds: int = 64, z: float = 0.5, max_discards: int = 3,
                 name: str = "search", clairvoyant: bool | Literal["hands"] = False):
        if not isinstance(worlds, (int, np.integer)) or isinstance(worlds, bool) or not 1 <= worlds <= 4096:
            raise ValueError(f"worlds must be an int in [1, 4096], not {brief(worlds)}")
        if not isinstance(z, numbers.Real) or isinstance(z, (bool, np.bool_)) or not z >= 0:
            raise ValueError(f"z must be a number >= 0, not {brief(z)}")
        if worlds == 1 and 0 < z < np.inf:  # one world has no standard error: z would count nothing
            raise ValueError(f"worlds 1 gives no standard error for z {brief(z)} to count (any gain in the one "
                             "world would be played): give worlds >= 2, or z 0 (the one world's best) or inf")
        max_discards = check_max_discards(max_discards)
        if not (isinstance(clairvoyant, bool) or (isinstance(clairvoyant, str) and clairvoyant == "hands")):
            raise TypeError(f"clairvoyant must be True, False or 'hands', not {brief(clairvoyant)}")
        self.clairvoyant: bool | Literal["hands"] = clairvoyant
        self.rule: RuleBasedAgent = RuleBasedAgent(rules)
        self.rules = self.rule.rules
        self.worlds: int = int(worlds)
        self.z: float = float(z)
        self.max_discards: int = max_discards
        self.name = name
        # decisions asked, those with two or more candidates (searched), those played away from the rule
        # agent's choice, and per deviation "rule agent's kind -> played kind" (e.g. "win -> pass")
        self.stats: dict[str, Any] = {"decisions": 0, "searched": 0, "deviations": 0, "kinds": {}}

    def _search(self, engine, tables, obs, cands, lab, rng, out) -> None:
        """Steps 2-4 for the rows ``lab`` of ``tables`` (two or more candidates each): their actions into ``out``."""
        m, W, C = len(lab), self.worlds, cands.shape[1]
        worlds = engine.clone(np.repeat(tables[lab], W), seed=int(rng.integers(2**62)))
        if self.clairvoyant == "hands":  # the real hands, the undrawn wall in a new order (module docstring)
            shuffle_wall(worlds, rng)
        elif not self.clairvoyant and not redeal(worlds, np.repeat(obs["seat"][lab], W), rng).all():
            # (True: the worlds keep the real hidden tiles.) A world that kept them after redeal's tries would cheat
            raise RuntimeError("search: a world found no deal keeping the 四惠牌 rule in redeal's tries")
        per_world = np.repeat(cands[lab], W, axis=0)                       # (m * W, C)
        r, j = np.nonzero(per_world >= 0)
        q = np.full(per_world.shape, np.nan)
        q[r, j] = rollout_returns(worlds, r, per_world[r, j], self.rule, rng)
        gain = (q - q[:, :1]).reshape(m, W, C)
        present = cands[lab] >= 0
        g = np.where(present[:, None, :], gain, 0.0)
        mean = g.mean(axis=1)
        se = g.std(axis=1, ddof=1) / np.sqrt(W) if W > 1 else np.zeros_like(mean)
        score = np.where(present, mean - self.z * se, -np.inf)      # se 0: all worlds agree
        score[:, 0] = 0.0
        best = score.argmax(axis=1)                                        # ties: the rule agent's choice
        out[lab] = cands[lab, best]
        dev = best > 0
        self.stats["searched"] += m
        self.stats["deviations"] += int(dev.sum())
        for k in zip(action_kind(cands[lab[dev], 0]), action_kind(out[lab[dev]]), strict=True):
            key = " -> ".join(k)
            self.stats["kinds"][key] = self.stats["kinds"].get(key, 0) + 1

    def act_tables(self, engine: Engine, tables: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(len(tables),) actions for the seats to act at ``tables`` of ``engine`` (left as it was): distinct
        table numbers of ``engine`` (integers), else a TypeError or ValueError; ``rng`` a
        ``np.random.Generator``, else a TypeError (checked first: a legacy ``RandomState`` failed midway,
        its decisions already counted in ``stats``)."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"agent {brief(self.name)}: rng must be a np.random.Generator (e.g. "
                            f"np.random.default_rng(seed)), not {brief(rng)}")
        tables = engine._table_arg(tables, "tables", repeats=False).reshape(-1)
        st = engine.state
        obs = {"observation": observe(engine.rules, st, idx=tables), "action_mask": engine.legal_mask()[tables],
               "seat": st.to_act[tables].astype(np.int64)}
        rule, cands = candidate_actions(self.rule, obs, rng, self.max_discards)
        out = rule.copy()
        self.stats["decisions"] += len(tables)
        n_cands = (cands >= 0).sum(axis=1)
        lab = np.flatnonzero(n_cands >= 2)
        if not len(lab) or self.z == np.inf:
            return out
        # decisions searched together: as many as fit ROLLOUT_ROWS rollouts (their candidates x worlds), one batch at
        # the usual settings, so that their decisions and figures are those of a search without batches
        rollouts = np.cumsum(n_cands[lab] * self.worlds)
        start = 0
        while start < len(lab):
            before = rollouts[start - 1] if start else 0
            stop = max(start + 1, int(np.searchsorted(rollouts, before + ROLLOUT_ROWS, side="right")))
            self._search(engine, tables, obs, cands, lab[start:stop], rng, out)
            start = stop
        return out


class _DefaultsSaidHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``ArgumentDefaultsHelpFormatter`` for options with a default; one whose default is None says in its own help
    what leaving it out means (``--clairvoyant``: a fair search), where "(default: None)" said nothing."""

    def _get_help_string(self, action):
        return action.help if action.default is None else super()._get_help_string(action)


def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m agents.search", description=(__doc__ or "").split("\n")[0],
                       formatter_class=_DefaultsSaidHelpFormatter)
    p.add_argument("--walls", type=int, default=100, help="walls, each played in 2 seatings (search ABAB, BABA)")
    p.add_argument("--worlds", type=int, default=64, help="redeals of the hidden tiles per decision")
    p.add_argument("--z", type=float, default=0.5, help="standard errors a deviation's gain must clear")
    p.add_argument("--rules", default="beijing", type=duplicate_rules_given, help=RULES_HELP_NO_DEFAULT)
    p.add_argument("--seed", type=int, default=12345, help="the arena's seed (its walls)")
    p.add_argument("--batch-walls", type=int, default=100, help="walls played at once")
    p.add_argument("--clairvoyant", nargs="?", const="all", choices=["all", "hands"],
                   help="cheat: roll out on the real hidden tiles instead of redeals (what hidden information is "
                        "worth); 'hands': the real hands, the undrawn wall shuffled (default: a fair search, "
                        "on redeals)")
    args = p.parse_args(argv)
    if not 1 <= args.walls <= 100_000:
        p.error(f"--walls must be 1-100000, not {args.walls}")
    if not 1 <= args.batch_walls <= 1024:
        p.error(f"--batch-walls must be 1-1024, not {args.batch_walls}")
    if not 0 <= args.seed <= MAX_SEED:  # the arena's bound: a larger seed would replay a smaller one's streams
        p.error(f"--seed must be 0 to 2**32 - 1, not {args.seed}")
    # (a bad preset name or field, or more hands than one per wall, is argparse's error: "argument --rules: ...")
    problem = missing_module("scipy", "the 95% intervals")  # asked now, not after the walls are played
    if problem:
        p.error(problem)
    try:
        flag: dict[str | None, bool | Literal["hands"]] = {None: False, "all": True, "hands": "hands"}
        clairvoyant = flag[args.clairvoyant]
        agent = RolloutSearchAgent(args.rules, worlds=args.worlds, z=args.z, clairvoyant=clairvoyant,
                                   name={False: "search", True: "clairvoyant", "hands": "sees_hands"}[clairvoyant])
    except ValueError as e:  # the rules are checked above: what is left names worlds or z, the flags' names
        p.error(f"--{e}")
    start = time.monotonic()
    result = play_duplicate([agent, RuleBasedAgent(args.rules)], args.walls, seed=args.seed, rules=args.rules,
                            batch_walls=args.batch_walls)
    summary = summarize(result)
    summary["rules"] = rules_json(get_rules(args.rules))  # a rule set of one's own: the table ends 'rules: ...'
    print(format_table(summary))
    s = agent.stats
    print(f"{s['decisions']:,} decisions, {s['searched']:,} with a choice searched, "
          f"{s['deviations'] / max(s['searched'], 1):.1%} of those away from the rule agent; "
          f"{args.worlds} worlds, z {args.z}, {time.monotonic() - start:.0f} s")
    kinds = sorted(s["kinds"].items(), key=lambda kv: -kv[1])
    print("deviations (rule agent's kind -> played):", ", ".join(f"{k} {v:,}" for k, v in kinds))
    return 0


if __name__ == "__main__":
    guard_output("python -m agents.search")  # a reader that left (| head -1): the rest of the table is dropped, no traceback
    sys.exit(main())
