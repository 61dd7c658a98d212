"""Policy improvement by rollouts: train a network on rollout values of candidate actions.

A network that plays like the rule agent (a checkpoint, or the behaviour clone ``train.py --total-steps 0``
makes in under a minute) is moved toward the candidate actions that rollouts value most
(``agents.rollouts``: each candidate taken in a copy of the real table, same wall, the hand played out by
rule agents). Held-out positions tell whether it picks better candidates than the rule agent did
(``gain``: the mean of Q(its pick) - Q(rule agent's pick), unbiased because those positions were not
trained on); the duplicate arena tells how it plays.

Two losses over the candidates C of a position, with the rollout values Q:

- ``pg``: maximise sum_c pi_C(c) (Q_c - mean Q) / scale, pi_C the policy renormalised over C (the
  all-actions policy gradient, unbiased for the expected Q);
- ``reg``: regress logit(c) - logit(rule agent's choice) on (Q_c - Q_rule) / scale.

Both add -log pi(C), keeping the probability on the candidates. Without ``--checkpoint`` the script first
clones the rule agent (``train.py --total-steps 0 --exp-name rollout_improvement_clone --overwrite``): a
fresh clone every time, which replaces an earlier one in ``runs/rollout_improvement_clone/`` (it says so
before it starts; give ``--checkpoint`` to keep a clone). docs/training_results.md has what this
measured (it does not beat the rule agent)::

    python train.py --total-steps 0 --exp-name clone
    python examples/rollout_improvement.py --checkpoint runs/clone/checkpoints/final.pt --seconds 240
    python examples/rollout_improvement.py --smoke       # seconds: a tiny clone, a few labels, 8 walls
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

try:
    import torch
    from torch import nn
except ModuleNotFoundError as e:  # run without its library: say which, and how to install it
    missing = (e.name or '?').split('.')[0]
    raise SystemExit(f"examples/rollout_improvement.py needs the module {missing!r}: "
                     "pip install -e '.[train]' (after pip install torch==2.13.0; "
                     "the README says where its CPU wheel is)") from None

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from agents import arena, arena_report
from agents.arena import loading_agents
from agents.checkpoints import CheckpointError, load_checkpoint
from agents.networks import NetworkAgent, NonFiniteLogits, masked_logits, model_inputs
from agents.rollouts import labelled_play
from agents.rules_args import RULES_HELP, duplicate_rules_given
from mj_env.baselines import AgentError, RuleBasedAgent
from mj_env.engine import MAX_TABLES
from mj_env.lines import ArgumentParser, guard_output, terminal_line
from mj_env.records import rules_json
from mj_env.rules import get_rules, rules_label

CLONE = "rollout_improvement_clone"
"""The run (``runs/<CLONE>/``) that train.py writes the starting clone to when no --checkpoint is given."""
MAX_SEED = 2**32 - 1
"""The largest --seed (train.py's, which the clone is made with)."""


def check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Every number in range (before anything is cloned, loaded or labelled), else ``p.error``."""
    if not 1 <= args.tables <= MAX_TABLES:
        p.error(f"--tables must be between 1 and {MAX_TABLES:,}, got {args.tables}")
    if args.epochs < 0:
        p.error(f"--epochs must be at least 0, got {args.epochs}")
    if not 1 <= args.eval_walls <= arena.MAX_WALLS:
        p.error(f"--eval-walls must be between 1 and {arena.MAX_WALLS:,}, got {args.eval_walls}")
    for flag, value in (("--seconds", args.seconds), ("--scale", args.scale),
                        ("--learning-rate", args.learning_rate)):
        if not (value > 0 and math.isfinite(value)):
            p.error(f"{flag} must be a finite number above 0, got {value}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")


def collect(model, rules: str, seconds: float, tables: int, seed: int) -> dict:
    """Rollout targets from rule-agent play for ``seconds``: the network's inputs, masks, candidates, Q."""
    parts = []
    for got in labelled_play(rules, tables, seconds, seed):
        if len(got["table"]):
            mask = got["action_mask"] != 0
            parts.append({"obs": model_inputs(model, got["observation"], mask, rules), "mask": mask,
                          "cand": got["candidates"], "q": got["q"]})
    if not parts:
        raise SystemExit("no position with a choice was labelled: give more --seconds or --tables")
    width = max(p["cand"].shape[1] for p in parts)
    pad = lambda a, fill: np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=fill)
    return {"obs": np.concatenate([p["obs"] for p in parts]), "mask": np.concatenate([p["mask"] for p in parts]),
            "cand": np.concatenate([pad(p["cand"], -1) for p in parts]),
            "q": np.concatenate([pad(p["q"], np.nan) for p in parts])}


def losses(model, data: dict, idx: torch.Tensor, loss: str, scale: float) -> torch.Tensor:
    logits, _ = model(data["obs"][idx])
    ml = masked_logits(logits, data["mask"][idx])
    valid = data["valid"][idx]
    cand_logits = torch.gather(ml, 1, data["cand"][idx])
    logp = torch.log_softmax(ml, dim=1)
    on_cands = -torch.logsumexp(torch.gather(logp, 1, data["cand"][idx]).masked_fill(~valid, -1e9), dim=1).mean()
    q = data["q"][idx]
    if loss == "reg":
        diff = (cand_logits - cand_logits[:, :1]) - (q - q[:, :1]) / scale
        improve = (diff ** 2 * valid).sum(dim=1).mean()
    else:
        pi_c = torch.softmax(cand_logits.masked_fill(~valid, -1e9), dim=1)
        adv = (q - (q * valid).sum(dim=1, keepdim=True) / valid.sum(dim=1, keepdim=True)) * valid
        improve = -(pi_c * adv / scale).sum(dim=1).mean()
    return improve + on_cands


@torch.no_grad()
def held_out_gain(model, data: dict, idx: torch.Tensor) -> tuple[float, float]:
    """(mean Q(network's pick among the candidates) - Q(rule agent's pick), share of positions it differs)."""
    logits, _ = model(data["obs"][idx])
    cand_logits = torch.gather(masked_logits(logits, data["mask"][idx]), 1, data["cand"][idx])
    pick = cand_logits.masked_fill(~data["valid"][idx], -torch.inf).argmax(dim=1)
    q = data["q"][idx]
    gain = torch.gather(q, 1, pick[:, None])[:, 0] - q[:, 0]
    return gain.mean().item(), (pick != 0).float().mean().item()


def main(argv=None) -> int:
    p = ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--checkpoint", help="network to start from (default: a fresh clone by train.py, cloning only)")
    p.add_argument("--rules", default="beijing", type=duplicate_rules_given, help=RULES_HELP)
    p.add_argument("--seconds", type=float, default=240.0, help="time spent labelling positions")
    p.add_argument("--tables", type=int, default=256, help="tables labelled at once")
    p.add_argument("--loss", choices=("pg", "reg"), default="pg")
    p.add_argument("--scale", type=float, default=1.0, help="points per unit of the loss's values")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--eval-walls", type=int, default=1000, help="walls of the final duplicate match")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**32 - 1")
    p.add_argument("--smoke", action="store_true", help="seconds: tiny clone, 2 s of labels, 8 walls, in place of the size flags given")
    args = p.parse_args(argv)
    check_args(p, args)
    if args.smoke:
        args.seconds, args.tables, args.epochs, args.eval_walls = 2.0, 16, 1, 8
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    if args.checkpoint is not None:  # '' is a path (refused), not 'no --checkpoint' (a clone replacing runs/)
        try:  # as the arena's: a checkpoint's warning one line, refused where the filters make it an error
            with loading_agents():
                model, meta = load_checkpoint(args.checkpoint)
        except CheckpointError as e:  # missing, not a checkpoint, another format: one line, exit 2
            p.error(f"--checkpoint: {e}")
        trained_for = meta.get("rules")  # a preset's name, or a rule set of one's own (its object form)
        # allowed (the same planes): a note, as train.py's; compared as rule sets (an object form may be the preset)
        if trained_for is not None and get_rules(trained_for) != get_rules(args.rules):
            print(f"note: --checkpoint {terminal_line(args.checkpoint)} was trained under {rules_label(get_rules(trained_for))}; "
                  "this run labels, trains "
                  f"and plays it under {rules_label(get_rules(args.rules))} (--rules)", flush=True)
    else:
        import train
        again = " (replacing the earlier clone there)" if Path("runs", CLONE).exists() else ""
        print(f"no --checkpoint: cloning the rule agent into runs/{CLONE}/{again}", flush=True)
        # train.py's --rules: the preset's name, or a rule set of one's own as its JSON object form
        text = args.rules if isinstance(args.rules, str) else json.dumps(rules_json(args.rules), ensure_ascii=False)
        small = ["--total-steps", "0", "--exp-name", CLONE, "--overwrite", "--final-eval-hands", "0",
                 "--no-progress", "--rules", text, "--seed", str(args.seed)]
        if args.smoke:
            small += ["--bc-steps", "8", "--num-envs", "16", "--num-steps", "8"]
        model, _ = load_checkpoint(train.main(small)["checkpoint"])

    t0 = time.perf_counter()
    raw = collect(model, args.rules, args.seconds, args.tables, args.seed)
    n = len(raw["obs"])
    print(f"{n:,} positions labelled, {int((raw['cand'] >= 0).sum()):,} rollouts, "
          f"{time.perf_counter() - t0:.0f} s")
    data = {"obs": torch.as_tensor(raw["obs"]), "mask": torch.as_tensor(raw["mask"]),
            "cand": torch.as_tensor(np.maximum(raw["cand"], 0)), "valid": torch.as_tensor(raw["cand"] >= 0),
            "q": torch.as_tensor(np.nan_to_num(raw["q"]), dtype=torch.float32)}
    order = np.random.default_rng(args.seed).permutation(n)
    hold, train_idx = torch.as_tensor(order[: max(1, n // 10)]), order[max(1, n // 10):]
    gain, changed = held_out_gain(model, data, hold)
    print(f"before: held-out gain {gain:+.4f} points/position, differs from the rule agent on {changed:.1%}")
    opt = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    model.train()
    for epoch in range(args.epochs):
        np.random.default_rng([args.seed, epoch]).shuffle(train_idx)
        for i in range(0, len(train_idx), 512):
            loss = losses(model, data, torch.as_tensor(train_idx[i:i + 512]), args.loss, args.scale)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
        gain, changed = held_out_gain(model, data, hold)
        print(f"epoch {epoch + 1}: held-out gain {gain:+.4f} points/position, differs on {changed:.1%}")
    model.eval()
    own = "" if isinstance(args.rules, str) else f", rules: {rules_label(args.rules)}"  # a preset's lines as before
    for greedy in (True, False):
        me = NetworkAgent(model, name="improved" + (":greedy" if greedy else ""), greedy=greedy, rules=args.rules)
        try:
            res = arena.play_duplicate([me, RuleBasedAgent(args.rules)], args.eval_walls, seed=777, rules=args.rules)
        except AgentError as e:  # weights that overflowed (a far too large --learning-rate, or the checkpoint's)
            if not isinstance(e.__cause__, NonFiniteLogits):
                raise
            p.exit(1, f"{p.prog}: error: {e}; lower --learning-rate (or check --checkpoint)\n")
        a = arena_report.summarize(res)["agents"][0]
        print(f"{me.name} vs rule: {a['mean_points']:+.3f} points/hand [{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}] "
              f"({args.eval_walls} walls x 2 seatings, seed 777{own})")
    return 0


if __name__ == "__main__":
    guard_output("examples/rollout_improvement.py")  # what standard output cannot encode: an escape, not a UnicodeEncodeError
    sys.exit(main())
