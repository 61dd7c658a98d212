"""Would a duplicate baseline make PPO's advantages less noisy? A player's points against a rule agent's
on the same wall, from the same seat.

A hand's points under beijing hang mostly on tiles no seat sees (docs/training_results.md: a search that
sees the order of the wall gains about +0.9 a hand), so the return a policy gradient learns from is
noisy. The duplicate arena takes wall luck out of an evaluation by playing each wall in both seatings.
The same could go into training: play each wall a second time with a rule agent in the learner's seat
and subtract that seat's points, B, from the learner's, G. B is fixed before the learner decides
anything, so ``G - c * B`` is an unbiased return for any constant c, and the best c cuts the return's
variance by the share rho**2, rho being the correlation of G and B. This measures rho.

The player (``--agent``: any ``agents.make_agent`` name or checkpoint) sits in two seats against two rule
agents, in both seatings of every wall; the twin game puts rule agents in all four seats. Both games run
with common random numbers (``agents.common_random``): a rule agent draws the same tie-breaks in both
wherever the games are still the same, so a rule agent in the player's place scores exactly B, and the
games differ only from the player's first different choice on. 95% intervals by resampling walls::

    python examples/duplicate_baseline.py --agent pretrained --walls 2000 --seed 7
    python examples/duplicate_baseline.py --smoke     # seconds: 16 walls
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from agents import arena, make_agent
from agents.rule_based import RuleBasedAgent
from agents.rules_args import RULES_HELP, duplicate_rules_given
from mj_env.lines import ArgumentParser, guard_output, terminal_line
from mj_env.rules import get_rules, rules_label


def seat_points(result: arena.DuplicateResult, n_walls: int, player: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(points, is_player): each (n_walls, n_seatings * 4), the points of every seat of every table of a
    wall, and whether agent ``player`` sat there."""
    order = np.lexsort((result.seating, result.wall))       # wall-major, then seating
    scores = result.scores[order].reshape(n_walls, -1)
    return scores, (result.seat_agent[order] == player).reshape(n_walls, -1)


def correlation_stats(g: np.ndarray, b: np.ndarray) -> dict:
    """rho of G and B, var G, var (G - B) and the best c's variance share left (1 - rho**2), over the
    flattened rows of ``g`` and ``b`` (each (walls, values per wall))."""
    g, b = g.ravel(), b.ravel()
    var_g = float(g.var())
    rho = float(np.corrcoef(g, b)[0, 1]) if var_g > 0 and b.var() > 0 else float("nan")
    return {"rho": rho, "var_g": var_g, "var_g_minus_b": float((g - b).var()), "left_best_c": 1.0 - rho ** 2}


def bootstrap(g: np.ndarray, b: np.ndarray, rng: np.random.Generator, n: int = 1000) -> dict:
    """95% intervals of ``correlation_stats`` by resampling walls (the rows) with replacement; with one wall
    there is no spread to resample (every draw is that wall), so each interval is (-inf, inf), as the arena's."""
    if len(g) < 2:
        return {k: (-np.inf, np.inf) for k in correlation_stats(g, b)}
    draws = [correlation_stats(g[i], b[i]) for i in (rng.integers(0, len(g), len(g)) for _ in range(n))]
    with warnings.catch_warnings():  # rho in no draw (G or B never varies): NaN bounds, without NumPy's warning
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        return {k: tuple(np.nanpercentile([d[k] for d in draws], [2.5, 97.5])) for k in draws[0]}


def measure(agent, walls: int, seed: int, rules: str = "beijing", batch: int = 128) -> dict:
    """The player's points G and the rule twin's B at the player's seats, and their statistics."""
    played = arena.play_duplicate([agent, RuleBasedAgent(rules)], walls, seed=seed, rules=rules,
                                  batch_walls=batch, common_random=True)
    twin = arena.play_duplicate([RuleBasedAgent(rules), RuleBasedAgent(rules)], walls, seed=seed, rules=rules,
                                batch_walls=batch, common_random=True)
    g_all, mine = seat_points(played, walls)
    b_all, _ = seat_points(twin, walls)
    per_wall = int(mine[0].sum())
    g = g_all[mine].reshape(walls, per_wall)
    b = b_all[mine].reshape(walls, per_wall)
    stats = correlation_stats(g, b)
    stats["ci"] = bootstrap(g, b, np.random.default_rng([seed, 2]))
    stats["mean_g"] = float(g.mean())
    return stats


def parse_args(argv=None) -> argparse.Namespace:
    p = ArgumentParser(description=(__doc__ or "").split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--agent", default="pretrained", help="the player: an agents.make_agent name or checkpoint "
                   "(default: pretrained)")
    p.add_argument("--walls", type=int, default=2000, help="walls, each played in both seatings (default 2000)")
    p.add_argument("--seed", type=int, default=7, help="seed of the walls and the random numbers (default 7)")
    p.add_argument("--rules", default="beijing", type=duplicate_rules_given, help=RULES_HELP)
    p.add_argument("--smoke", action="store_true", help="16 walls: seconds")
    args = p.parse_args(argv)
    if args.smoke:
        args.walls = 16
    try:
        arena.check_run(2, args.walls, 128, args.seed, ("--walls", "--batch", "--seed"))
    except (TypeError, ValueError) as e:
        p.error(str(e))
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        with arena.loading_agents():  # as the arena's: a checkpoint's warning one line, refused under -W error
            agent = make_agent(args.agent, rules=args.rules)
    except (OSError, ValueError, TypeError, ImportError) as e:  # ImportError: a network agent without torch
        print(f"error: --agent {args.agent!r}: {terminal_line(e)}", file=sys.stderr)  # (a checkpoint's refusal names its file)
        return 2
    s = measure(agent, args.walls, args.seed, args.rules)
    ci = s["ci"]

    def row(name: str, key: str, fmt: str = "{:.3f}") -> str:
        # rho has no value where G or B never varies (NaN): "n/a", not "nan"
        lo, hi, value = (("n/a" if np.isnan(v) else fmt.format(v)) for v in (*ci[key], s[key]))
        return f"| {name} | {value} [{lo}, {hi}] |"

    print(f"{args.agent} in two seats against two rule agents, {args.walls} walls x 2 seatings, seed {args.seed}, "
          f"{rules_label(get_rules(args.rules))}; the twin: four rule agents on the same walls, common random numbers")
    print(f"the player's points a hand: {s['mean_g']:+.3f}")
    print("| statistic | value [95% interval over walls] |\n| --- | --- |")
    print(row("correlation rho of G and B", "rho"))
    print(row("variance of G", "var_g", "{:.2f}"))
    print(row("variance of G - B", "var_g_minus_b", "{:.2f}"))
    print(row("variance of G - c B left, best c (1 - rho^2)", "left_best_c"))
    return 0


if __name__ == "__main__":
    guard_output("examples/duplicate_baseline.py")  # what standard output cannot encode: an escape, not a UnicodeEncodeError
    sys.exit(main())
