r"""Self-play PPO for mj_env in one file, in the manner of CleanRL's ``ppo.py``.

::

    python train.py                                  # the default run: about 10 minutes on 2 CPU cores
                                                     # (cloning, then PPO for 5M steps or 9.5 minutes in all,
                                                     # then the final evaluation)
    python train.py --bc-steps 0 --obs v1 --arch mlp --opponent-prob 0.5 --opponent-rule 0 \
        --update-epochs 3 --num-minibatches 4 --ent-coef 0.01             # PPO alone, no cloning (the first defaults)
    python train.py --total-steps 0 --exp-name clone     # behaviour cloning only (under a minute on a quiet machine)
    python train.py --total-steps 4096 --num-envs 16 --num-steps 32 --bc-steps 8 \
        --eval-hands 8 --final-eval-hands 8 --exp-name tiny                # seconds
    tensorboard --logdir runs

One policy/value network (``agents.networks``: the MLP or the per-tile ``TileNet``) plays the seats of
``num_envs`` tables of ``MahjongVectorEnv``. At every step each table asks one seat for a
decision; the observation is seat-relative, so one network serves all four seats. A hand is
dealt either as pure self-play (the learner in all four seats) or, with probability
``opponent_prob``, against the opponent pool: the learner in seats {0, 2} or {1, 3} and, in the other two,
the rule-based agent (a share ``opponent_rule`` of those hands), the shipped pretrained player (a share
``opponent_pretrained``, ``agents.pretrained``) or a frozen past snapshot of itself. A snapshot joins the
pool every ``snapshot_every`` updates (the oldest leaves beyond ``pool_size``).

Before PPO, ``bc_steps`` steps of four rule-based agents (``bc_teacher``: the rule agent, or its 进张
variant ``efficient``) playing at every table are imitated (behaviour cloning: cross-entropy on their
decisions, the value on the returns of their play, ``bc_epochs`` passes over each rollout); the agreement
with the teacher on positions not yet trained on is logged.

Trajectories are per (table, seat): a seat's decisions at a table, in order, end when the hand
ends. A decision's reward is what the seat is paid before its next decision (``agents.rewards``:
points by default, optionally scaled, sign or potential-shaped); GAE runs along each such chain. The points of
a hand that ended at its deal (such as 四惠牌 in the dealer's first 14 tiles: about 1 hand in 14,000 under beijing),
where no seat decided anything, go to no decision (the env reports them apart, ``infos["deal_points"]``).
A chain still open when the rollout ends bootstraps from the value of its last decision, and
that decision is carried into the next rollout, where it is trained once its outcome is known.

The defaults (``mj_obs_v2`` planes, the per-tile network, cloning first, PPO mostly against the rule
agent) bring the trained player level with the rule-based agent within the 10 minutes; PPO alone (the
first defaults) stayed about a point per hand behind it. The README's "Where the players stand" summarizes
the measured results; docs/training_results.md has every run.

Written to ``runs/<exp_name>/``: ``args.json`` (the run's arguments), TensorBoard scalars (``bc/*``: the
cloning's agreement with its teacher; ``charts/*``, ``losses/*``, ``eval/*``),
``progress.csv`` (one row per update), ``checkpoints/*.pt`` (``agents.checkpoints`` format, usable
as ``python -m agents.arena --agents runs/<exp_name>/checkpoints/final.pt,rule``: ``final.pt``, and a snapshot
``update_NNNNN.pt`` every ``snapshot_every`` updates and after the last, of which ``keep_checkpoints`` keeps the
newest N, 0 all) and ``final_eval.json``; a run that exists already is refused unless ``--overwrite`` (which
deletes it first), and a run that diverges (nan weights or logits) stops with a message. Ctrl-C stops training where it is: the network
is saved as ``final.pt`` as it is (inside a PPO update, as the last finished update left it: the update in progress
is dropped), ``final_eval.json`` says ``"interrupted": true``, the final evaluation is
skipped (its command is printed) and the exit status is 130; SIGTERM (``kill``, a job scheduler) stops it the same
way, with status 143. One that comes while final.pt or final_eval.json is written waits until the file is whole
(after the final evaluation, final_eval.json keeps it). A run's directory is locked while it runs: ``--overwrite``
refuses one still running (the run's directory, logs and stopping: ``agents.training_run``).
After the first update and every ``eval_every`` updates a quick duplicate match against the random and the
rule-based agents (and the pretrained player, where one is shipped for the rule set and ``eval_pretrained`` is on)
is logged; the run ends with a longer one, printed as a table.

The file reads top-down, one section after another: the arguments (``Args``) and the command line (what is
checked of them, and how they are read: ``agents.training_checks``), the rollout storage, the self-play seating, the
rollout, a gradient step, the behaviour cloning, the PPO update, the evaluation, the logging, the run setup and
messages, and the run end and main (``finish_run``, ``main``).
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import json
import math
import os
import random
import shlex
import signal
import sys
import time
import typing
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import numpy as np

try:
    import torch
    import tyro
    from torch import nn, optim
    from tyro.constructors import PrimitiveConstructorSpec

    from agents.training_checks import (  # the arguments checked and read before anything is built or written
        check_args,
        flags_of_network,
        init_checkpoint,
        network_config,
        run_dir_problem,
        run_rules,
    )
    from agents.training_run import (  # the run's directory, logs and stopping (needs tensorboard and tqdm)
        RunDirTaken,
        RunLog,
        Terminated,
        interruption,
        prune_snapshots,
        signals_end_the_process,
        signals_held,
        tell,
        written_whole,
    )
except ImportError as e:  # run without the train extra: say what installs it (imported, the error stands)
    if __name__ != "__main__":
        raise
    missing = f"the module {e.name.split('.')[0]!r}" if e.name else f"what failed to import ({e})"
    raise SystemExit(f"train.py needs {missing}: pip install -e '.[train]' (after pip install torch==2.13.0; "
                     "the README says where its CPU wheel is)") from None

from agents import arena, arena_report
from agents.base import RulesMismatchWarning
from agents.checkpoints import load_checkpoint, save_checkpoint
from agents.networks import (
    LAYOUTS,
    NetworkAgent,
    NonFiniteLogits,
    PolicyValueNet,
    TileNet,
    build_network,
    masked_logits,
    model_inputs,
    obs_layout,
)
from agents.pretrained import available as pretrained_available
from agents.pretrained import load_pretrained
from agents.random_agent import RandomAgent
from agents.rewards import RewardTransform
from agents.rule_based import RuleBasedAgent
from mj_env.actions import N_ACTIONS
from mj_env.baselines import AgentError, make_baseline
from mj_env.lines import guard_output
from mj_env.records import rules_json
from mj_env.rules import get_rules, rules_label
from mj_env.vector import MahjongVectorEnv

# A float or "none" on the command line, in any case (tyro by itself takes only "None").
FloatOrNone = Annotated[float | None, PrimitiveConstructorSpec(
    nargs=1, metavar="FLOAT|none", instance_from_str=lambda s: None if s[0].lower() == "none" else float(s[0]),
    is_instance=lambda x: x is None or isinstance(x, float), str_from_instance=lambda x: [str(x)])]


@dataclass
class Args:
    exp_name: str = "selfplay_ppo"
    """name of the run: output goes to runs/<exp_name>/"""
    overwrite: bool = False
    """replace runs/<exp_name>/ if it exists (its files are deleted first); without it an existing run is refused"""
    seed: int = 1
    """seed of the environment, the network initialisation and all sampling"""
    torch_deterministic: bool = True
    """set torch.backends.cudnn.deterministic"""
    device: str = "cpu"
    """torch device: cpu or cuda"""
    threads: int = 1
    """torch CPU threads for the cloning's and PPO's updates (acting uses one: small batches, the env runs alongside);
    one is as fast as two on a quiet 2-core machine and ten times faster when another process holds a core (measured)"""
    rules: str = "beijing"
    """rule set: a preset, beijing, hebei or quemen, or one of one's own as a JSON object of a preset and the fields
    changed (the fields of mj_env.rules.RuleSet), e.g. '{"name": "beijing", "chi": false}'; the checkpoints store it"""

    # algorithm
    total_steps: int = 5_000_000
    """PPO table steps over the whole run, all tables together, one decision each by whichever seat acts (at opponent-pool tables the opponents' are not trained on); an update takes num_envs * num_steps of them, after the cloning (0: cloning only)"""
    num_envs: int = 256
    """tables stepped together"""
    num_steps: int = 64
    """steps per table per rollout (a rollout is num_envs * num_steps decisions: the learner's and, at opponent-pool tables, the opponents')"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to zero"""
    gamma: float = 1.0
    """discount per decision of a seat (a hand is short and its points come at its end)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    num_minibatches: int = 8
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each rollout"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    clip_coef: float = 0.2
    """PPO surrogate clipping"""
    clip_vloss: bool = False
    """clip the value loss as in the PPO paper (off: with rewards in points a 0.2 clip slows the value)"""
    ent_coef: float = 0.001
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: Annotated[FloatOrNone, tyro.conf.arg(help_behavior_hint="(default: none: every epoch runs)")] = None
    """stop an update's epochs early above this approximate KL (none: never)"""
    arch: Literal["mlp", "tiles"] = "tiles"
    """network: mlp (features into an MLP) or tiles (per-tile convolutions, agents/networks.py)"""
    hidden: str = "256,256"
    """mlp: hidden layer widths, comma-separated"""
    channels: int = 16
    """tiles: channels per tile"""
    blocks: int = 2
    """tiles: residual blocks"""
    obs: Literal["v1", "v2"] = "v2"
    """observation layout the network takes: v1 (the env's planes) or v2 (plus mj_env.features' planes)"""
    init_from: Annotated[str | None, tyro.conf.arg(
        metavar="PATH|pretrained", help_behavior_hint="(default: none: a new network, cloned first as --bc-steps says)")] = None
    """start from these weights instead of a new network, and skip the cloning: a checkpoint written by train.py, or
    'pretrained' (the shipped player of --rules). The network is the checkpoint's: its --arch, sizes and
    --obs need not be given, and if given must agree with it"""

    # imitation
    bc_steps: int = 256
    """behaviour cloning first: steps of four rule-based agents playing (num_envs decisions each) to imitate"""
    bc_teacher: Literal["rule", "efficient"] = "rule"
    """whom the cloning imitates: the rule agent, or its 进张 variant (mj_env.baselines.EfficientAgent)"""
    bc_learning_rate: float = 2e-3
    """Adam learning rate of the behaviour cloning phase"""
    bc_epochs: int = 6
    """epochs over each behaviour cloning rollout (its decisions are cheap to make and worth many passes)"""
    bc_vf_coef: float = 0.1
    """value loss weight while cloning (returns are in points: a larger weight swamps the policy's loss)"""

    # reward
    reward: Literal["points", "scaled", "sign", "shaped"] = "points"
    """reward option: points, scaled, sign or shaped (see agents/rewards.py)"""
    reward_scale: float = 4.0
    """points are divided by this for 'scaled' and 'shaped'"""
    shaping_coef: float = 0.25
    """'shaped': potential per tile still needed to win (in scaled points)"""

    # self-play
    opponent_prob: float = 1.0
    """fraction of hands dealt against the opponent pool (the rest is pure self-play)"""
    pool_size: int = 8
    """past snapshots kept in the opponent pool"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool (each is also saved as a checkpoint)"""
    keep_checkpoints: int = 0
    """snapshot checkpoints (checkpoints/update_*.pt) kept: as one is saved, this run's oldest beyond this many are
    deleted (0: keep all); final.pt is always kept, and the pool, which holds its snapshots in memory, is unchanged"""
    opponent_rule: float = 0.75
    """share of the opponent-pool hands played against the rule-based agent instead of a snapshot"""
    opponent_pretrained: float = 0.0
    """share of the opponent-pool hands played against the shipped pretrained player (agents.pretrained)"""

    # evaluation and logging
    eval_every: int = 5
    """updates between quick duplicate evaluations against random and rule, the first after update 1 (0: never)"""
    eval_pretrained: bool = True
    """evaluations also against the shipped pretrained player, where one exists for the rule set"""
    eval_hands: int = 64
    """walls of each quick evaluation (each played in 2 seatings)"""
    final_eval_hands: int = 400
    """walls of the final evaluation against each baseline (0: skip)"""
    eval_greedy: bool = False
    """evaluations play the network's most likely action (greedy) instead of sampling from it"""
    eval_seed: int = 12345
    """seed of the evaluation walls (the same walls every time, so evaluations compare)"""
    max_minutes: FloatOrNone = 9.5
    """stop training after this many minutes, for slow machines (none: never, so a run repeats exactly):
    checked after each PPO update, so cloning and the first update always run"""
    progress: bool = True
    """show a progress bar"""


# --------------------------------------------------------------------------- command line
# (what is checked of the arguments, and how they are read: agents/training_checks.py)


def usage_error(problem: str) -> typing.NoReturn:
    """End the program as argparse does: the problem on stderr, exit status 2; as ``mj_env.lines.ArgumentParser``
    writes it (``terminal_line``): a file name in it (``--init-from``, ``--run-dir``) cannot write a second line
    or an escape sequence."""
    print(f"usage: train.py [-h] [OPTIONS]\ntrain.py: error: {arena.terminal_line(problem)}", file=sys.stderr)
    raise SystemExit(2)


def _field_of(option: str) -> str | None:
    """The ``Args`` field that an option (``--bc-steps``, ``--no-anneal-lr``; no ``=value``) names; None: none."""
    name = option[2:].replace("-", "_")
    fields = Args.__dataclass_fields__
    if name not in fields and name.startswith("no_"):
        name = name[3:]
    return name if name in fields else None


def flags_given(argv: list[str]) -> frozenset[str]:
    """The ``Args`` fields that the command line names (``--bc-steps 256``, ``--arch=tiles``, ``--no-anneal-lr``),
    whatever their values."""
    fields = (_field_of(token.split("=", 1)[0]) for token in argv if token.startswith("--"))
    return frozenset(f for f in fields if f is not None)


UNKNOWN_OPTIONS_CHARS = 1000
"""The most characters of unknown option names (``--name`` of ``--name`` or ``--name=value``) that
``parse_args`` hands to tyro, which ranks every option of train.py against each unknown one to suggest the
nearest (``difflib``): about 0.1 ms per character, so 10 s for one name of 100,000 characters and minutes for
a command line of a few megabytes. Past this bound the command line is refused first (train.py's options are
under 40 characters; a typo or two stays tyro's, with its suggestions)."""


def unknown_options_problem(argv: list[str]) -> str | None:
    """The problem with ``argv`` whose options that are not train.py's (``--`` and a name no ``Args`` field
    gives, after ``--`` too: tyro ranks those as well, and train.py takes no positional argument) have more
    than ``UNKNOWN_OPTIONS_CHARS`` characters in all; None: they are few and short, left to tyro."""
    unknown = []
    for token in argv:
        if not token.startswith("--"):
            continue
        option = token.split("=", 1)[0]
        if _field_of(option) is None and option != "--help":
            unknown.append(option)
    total = sum(map(len, unknown))
    if total <= UNKNOWN_OPTIONS_CHARS:
        return None
    named = ", ".join(o if len(o) <= 40 else o[:40] + "..." for o in unknown[:3])
    more = f" and {len(unknown) - 3:,} more" if len(unknown) > 3 else ""
    return (f"unrecognized option{'s' if len(unknown) > 1 else ''} {named}{more} ({total:,} characters; "
            "train.py's options are under 40): see train.py --help")


def parse_args(argv: list[str] | None = None) -> Args:
    """The command line over ``Args`` (tyro): ``--field-name value``, booleans as ``--flag`` / ``--no-flag``.
    A bad value ends the program with status 2 and a message, as argparse does."""
    options = getattr(tyro, "_experimental_options", None)
    no_color = bool(os.environ.get("NO_COLOR")) and isinstance(options, dict) and "ansi_codes" in options
    switched = options if no_color else None  # (tyro's options, where they are switched: None otherwise)
    before = switched["ansi_codes"] if switched is not None else None  # (restored below)
    if switched is not None:
        # https://no-color.org: tyro (1.0) colours --help and its errors on a terminal whatever NO_COLOR says, and
        # has no public switch; its option is set for this call only (restored after --help's and errors' exits too)
        switched["ansi_codes"] = False
    given = sys.argv[1:] if argv is None else argv
    problem = unknown_options_problem(given)  # (before tyro, whose suggestions would take minutes)
    if problem:
        usage_error(problem)
    # tyro's errors quote the arguments as they were typed: where one holds an escape sequence, a carriage return, a
    # bidi override or bytes that are not UTF-8 (``--bogus$'\e[2J'``), what tyro writes to stderr is collected and
    # written line by line as ``usage_error`` writes its line (``terminal_line``), so that it cannot clear, recolour
    # or overwrite the terminal (uncoloured then); other command lines keep tyro's colours on a terminal
    said = io.StringIO() if any(arena.terminal_line(a) != a for a in given) else None
    try:
        with contextlib.redirect_stderr(said) if said is not None else contextlib.nullcontext():
            args = tyro.cli(Args, args=argv, prog="train.py", description=(__doc__ or "").split("\n")[0])
    finally:
        if switched is not None:
            switched["ansi_codes"] = before
        if said is not None:
            sys.stderr.write("\n".join(arena.terminal_line(line) for line in said.getvalue().split("\n")))
    problem = check_args(args, flags_given(given))
    if problem:
        usage_error(problem)
    if args.eval_every > 0 or args.final_eval_hands > 0:  # the arena imports scipy when it first needs it
        problem = arena_report.missing_module("scipy", "the evaluations' 95% intervals")
        if problem:
            usage_error(problem)
    return args


# --------------------------------------------------------------------------- rollout storage


def decided(rewards: np.ndarray, infos: dict) -> np.ndarray:
    """The step's (N, 4) rewards less the points of hands that ended at their deal (no decision earned them)."""
    return rewards - infos["deal_points"] if "deal_points" in infos else rewards


class Rollout:
    """Flat storage of the decisions trained on (the learner's in PPO, the teacher's in the cloning) in time
    order, linked per (table, seat) chain. A chain ends with its hand: one hand per episode, as ``check_args``
    requires (with ``hands_per_episode`` > 1 a chain would run on through the match).

    Entry j: observation, mask, action, log-prob and value at the decision, and ``phi``, the reward's potential
    there (``RewardTransform.potential``: 0 but for ``shaped``); ``reward``: what the seat was paid until its next
    decision, plus the shaping term; ``next``: the index of that next decision (-1 while unknown); ``done``: the
    hand ended after it. ``pending[table, seat]`` is the index of each seat's latest decision whose outcome is not
    known yet (-1: none).
    """

    def __init__(self, capacity: int, num_envs: int, obs_shape: tuple[int, ...], n_actions: int):
        self.obs = np.zeros((capacity, *obs_shape), dtype=np.uint8)
        self.mask = np.zeros((capacity, n_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.logp = np.zeros(capacity, dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.phi = np.zeros(capacity, dtype=np.float32)
        self.next = np.full(capacity, -1, dtype=np.int64)
        self.done = np.zeros(capacity, dtype=bool)
        self.pending = np.full((num_envs, 4), -1, dtype=np.int64)
        self.size = 0
        self.blocks: list[tuple[int, int]] = []  # entries added by one step: [start, end)

    _FIELDS = ("obs", "mask", "action", "logp", "value", "reward", "phi", "next", "done")

    def start(self) -> None:
        """Begin a rollout: the still-pending decisions move to the front, the rest is dropped."""
        t, s = np.nonzero(self.pending >= 0)
        old = self.pending[t, s]
        n = len(old)
        for name in self._FIELDS:
            arr = getattr(self, name)
            arr[:n] = arr[old]
        self.next[:n] = -1
        self.pending[t, s] = np.arange(n)
        self.size = n
        self.blocks = [(0, n)] if n else []

    def add(self, tables, seats, obs, mask, action, logp, value, phi, gamma: float) -> None:
        """Append the decisions of one step and link each to its seat's previous decision,
        paying that one the shaping term gamma * Phi(now) - Phi(before)."""
        n = len(tables)
        j = np.arange(self.size, self.size + n)
        if self.size + n > len(self.action):
            raise RuntimeError("rollout storage is full")
        self.obs[j], self.mask[j], self.action[j] = obs, mask, action
        self.logp[j], self.value[j], self.phi[j] = logp, value, phi
        self.reward[j], self.next[j], self.done[j] = 0.0, -1, False
        prev = self.pending[tables, seats]
        has = prev >= 0
        self.next[prev[has]] = j[has]
        self.reward[prev[has]] += gamma * phi[has] - self.phi[prev[has]]
        self.pending[tables, seats] = j
        self.blocks.append((self.size, self.size + n))
        self.size += n

    def pay(self, rewards: np.ndarray, hand_over: np.ndarray, episode_over: np.ndarray) -> None:
        """Hand ends: rewards (N, 4) go to each seat's pending decision; an episode's end closes
        the chains (the potential of the terminal state is 0)."""
        t, s = np.nonzero((self.pending >= 0) & hand_over[:, None])
        p = self.pending[t, s]
        self.reward[p] += rewards[t, s]
        end = episode_over[t]
        self.reward[p[end]] -= self.phi[p[end]]
        self.done[p[end]] = True
        self.pending[t[end], s[end]] = -1

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE along every chain, newest step first. Returns (advantages, returns, trainable):
        decisions still pending are not trainable yet (they are carried over), and bootstrap
        their predecessors with their value."""
        n = self.size
        adv = np.zeros(n, dtype=np.float32)
        trainable = self.done[:n] | (self.next[:n] >= 0)
        for start, end in reversed(self.blocks):
            j = np.arange(start, end)
            nxt = np.maximum(self.next[j], 0)
            cont = ~self.done[j]
            next_value = np.where(cont, self.value[nxt], 0.0)
            next_adv = np.where(cont, adv[nxt], 0.0)
            delta = self.reward[j] + gamma * next_value - self.value[j]
            adv[j] = np.where(trainable[j], delta + gamma * lam * next_adv, 0.0)
        return adv, adv + self.value[:n], trainable


# --------------------------------------------------------------------------- self-play seating


def load_shipped_player(rules, device) -> NetworkAgent:
    """The shipped pretrained player of ``rules`` (``load_pretrained``), as an opponent (``SeatPlan``) and in the
    evaluations (``eval_opponents``). It then builds a network of the player's config and throws it away: that
    draws from torch's global generator, seeded by ``seed_everything``, the numbers that loading a checkpoint
    drew in earlier versions (``agents.checkpoints`` draws none now), so a seeded run draws what it drew then and
    the figures published from it (docs/training_results.md) repeat."""
    agent = load_pretrained(rules, device=device)
    build_network(agent.model.config)  # pyright: ignore[reportArgumentType]  (a PolicyValueNet or TileNet's dict)
    return agent


class SeatPlan:
    """Who plays where. ``learner[table, seat]``: the learner decides there; ``opp[table]``: the
    opponent in the table's other seats (-1: none, pure self-play; ``RULE``: the rule-based agent;
    ``PRETRAINED``: the shipped pretrained player; else a snapshot). ``snapshots[id]``: every opponent by that id,
    the rule agent and the pretrained player included; ``pool_ids``: the snapshots in the pool, oldest first. One
    that leaves the pool stays alive until the hands that use it are over."""

    RULE = -2
    PRETRAINED = -3

    def __init__(self, args: Args, rng: np.random.Generator, device):
        self.args, self.rng, self.device = args, rng, device
        self.learner = np.ones((args.num_envs, 4), dtype=bool)
        self.opp = np.full(args.num_envs, -1, dtype=np.int64)
        self.snapshots: dict[int, NetworkAgent | RuleBasedAgent] = {self.RULE: RuleBasedAgent(run_rules(args))}
        if args.opponent_pretrained > 0:  # the player of the preset (a note where the fields agents read differ)
            self.snapshots[self.PRETRAINED] = load_shipped_player(run_rules(args), device)
        self.pool_ids: list[int] = []

    def add_snapshot(self, model: nn.Module, tag: str) -> None:
        """A frozen copy of ``model`` joins the pool; the oldest leaves beyond ``pool_size``."""
        frozen = copy.deepcopy(model).eval()
        for p in frozen.parameters():
            p.requires_grad_(False)
        new_id = max(0, max(self.snapshots) + 1)  # ids >= 0: -1 is self-play, RULE and PRETRAINED below it
        self.snapshots[new_id] = NetworkAgent(frozen, name=tag, device=self.device, rules=run_rules(self.args))
        self.pool_ids.append(new_id)
        del self.pool_ids[:-self.args.pool_size]
        for k in [k for k in self.snapshots if k >= 0 and k not in self.pool_ids and not (self.opp == k).any()]:
            del self.snapshots[k]

    def deal(self, tables: np.ndarray) -> None:
        """Seat new hands: self-play, or with ``opponent_prob`` the learner against a pool snapshot (or,
        for a share ``opponent_rule`` of those, the rule-based agent; for ``opponent_pretrained``, the
        pretrained player)."""
        vs_pool = self.rng.random(len(tables)) < self.args.opponent_prob
        self.learner[tables] = True
        self.opp[tables] = -1
        t = tables[vs_pool]
        first = self.rng.integers(0, 2, size=len(t))            # learner in seats {0, 2} or {1, 3}
        self.learner[t] = (np.arange(4)[None, :] % 2) == first[:, None]
        u = self.rng.random(len(t))
        rule, pre = self.args.opponent_rule, self.args.opponent_pretrained
        self.opp[t] = np.select([u < rule, u < rule + pre], [self.RULE, self.PRETRAINED],
                                self.rng.choice(np.asarray(self.pool_ids), size=len(t)))

    def takes_inputs_of(self, model: nn.Module) -> np.ndarray:
        """(N,) bool: the tables whose opponent, a network agent (a snapshot, the pretrained player), takes
        ``model``'s inputs: the same observation layout, computed for the same rule set. ``collect_rollout``
        computes the ``mj_obs_v2`` planes of their rows in one call with the learner's, and ``opponents_act``
        hands them over as they are (``model_inputs`` passes them through): the planes of a row depend on that
        row alone, and much of their cost is per call (at 256 tables, the learner's 128 rows and 8 snapshots' 4
        each took about 34 ms a step in 9 calls, 17 ms in one; measured)."""
        out = np.zeros(len(self.opp), dtype=bool)
        layout, rules = getattr(model, "config", None), run_rules(self.args)
        if not isinstance(layout, dict):
            return out
        for k in np.unique(self.opp):
            agent = self.snapshots.get(int(k))
            config = getattr(getattr(agent, "model", None), "config", None)
            if (isinstance(agent, NetworkAgent) and isinstance(config, dict) and obs_layout(config) == obs_layout(layout)
                    and get_rules(agent.rules) == rules):
                out |= self.opp == k
        return out

    def opponents_act(self, obs: dict, theirs: np.ndarray, actions: np.ndarray, inputs: np.ndarray | None = None,
                      shared: np.ndarray | None = None) -> None:
        """Fill ``actions`` at the tables where an opponent is to act (``theirs``: (N,) bool), each table's from its
        ``opp`` (the rule agent, the pretrained player or a snapshot). ``inputs`` (N, P, 34):
        the learner's model inputs, valid at the tables ``shared`` (``takes_inputs_of``), whose opponents are
        given them in place of the env's planes (the same actions, the same random numbers)."""
        for k in np.unique(self.opp[theirs]):
            sel = np.flatnonzero(theirs & (self.opp == k))
            sub = {key: obs[key][sel] for key in ("observation", "action_mask", "seat")}
            if inputs is not None and shared is not None and shared[sel].all():
                sub["observation"] = inputs[sel]
            actions[sel] = self.snapshots[k].act(sub, self.rng)


# --------------------------------------------------------------------------- rollout


def collect_rollout(envs, obs: dict, model: PolicyValueNet | TileNet, seats: SeatPlan, store: Rollout,
                    shaper: RewardTransform, args: Args, device) -> tuple[dict, dict]:
    """Step every table ``num_steps`` times, the learner's decisions into ``store``, the opponents' acted on
    (``SeatPlan.opponents_act``); a table whose hand ended is seated anew (``SeatPlan.deal``).

    Returns the next observation and the counts of the hands that ended (``tally_hands``)."""
    store.start()
    stats = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0,
             "pool_hands": 0, "pool_points": 0.0, "pool_wins": 0, "pool_deal_ins": 0}
    model.eval()
    torch.set_num_threads(1)
    rows = np.arange(args.num_envs)
    for _ in range(args.num_steps):
        seat = obs["seat"]
        mine = seats.learner[rows, seat]
        actions = np.zeros(args.num_envs, dtype=np.int64)
        learner_rows = np.flatnonzero(mine)
        # the inputs of the learner's rows and of the rows of opponents that take the same (its snapshots), in
        # one call: the same planes row by row as a call for each (takes_inputs_of), at a fraction of the cost
        shared = ~mine & seats.takes_inputs_of(model)
        input_rows = np.flatnonzero(mine | shared)
        inputs = None
        if len(input_rows):
            x_f = model_inputs(model, obs["observation"][input_rows], obs["action_mask"][input_rows], run_rules(args))
            inputs = np.zeros((args.num_envs, *x_f.shape[1:]), dtype=x_f.dtype)
            inputs[input_rows] = x_f
        if len(learner_rows):
            assert inputs is not None
            x = inputs[learner_rows]
            o = torch.as_tensor(x, device=device)
            m = torch.as_tensor(obs["action_mask"][learner_rows] != 0, device=device)
            with torch.no_grad():
                a, logp, _, value = model.get_action_and_value(o, m)
            a_np = a.cpu().numpy()
            actions[learner_rows] = a_np
            store.add(learner_rows, seat[learner_rows], x, obs["action_mask"][learner_rows] != 0, a_np,
                      logp.cpu().numpy(), value.cpu().numpy(), shaper.potential(obs["observation"][learner_rows]),
                      args.gamma)
        seats.opponents_act(obs, ~mine, actions, inputs, shared)

        obs, rewards, term, _, infos = envs.step(actions)
        store.pay(shaper.hand_end(decided(rewards, infos)), infos["_settlement"], term)
        tally_hands(stats, infos, rewards, seats)
        if term.any():
            seats.deal(np.flatnonzero(term))
    return obs, stats


def tally_hands(stats: dict, infos: dict, rewards: np.ndarray, seats: SeatPlan) -> None:
    """Add the hands that ended in this step to ``stats``, seen from the learner's seats: hands, draws,
    wins and their fan (``self_*``: the learner's seat-hands in every hand, self-play or against the pool);
    against the pool also points and deal-ins (``pool_*``)."""
    for b in np.flatnonzero(infos["_settlement"]):
        s = infos["settlement"][b]
        wins = [] if s.get("draw") else s.get("wins", [s])
        won = np.zeros(4, bool)
        dealt = np.zeros(4, bool)
        for w in wins:
            won[w["input"]["winner"]] = True
            if w["input"]["discarder"] is not None:
                dealt[w["input"]["discarder"]] = True
            if seats.learner[b, w["input"]["winner"]]:
                stats["self_fan"] += w["fan"]
        stats["hands"] += 1
        stats["drawn"] += not wins
        mine = np.flatnonzero(seats.learner[b])
        stats["self_hands"] += len(mine)
        stats["self_wins"] += int(won[mine].sum())
        if seats.opp[b] != -1:
            stats["pool_hands"] += len(mine)
            stats["pool_points"] += float(rewards[b, mine].sum())
            stats["pool_wins"] += int(won[mine].sum())
            stats["pool_deal_ins"] += int(dealt[mine].sum())


# --------------------------------------------------------------------------- a gradient step (cloning and PPO)


class TrainingDiverged(RuntimeError):
    """The loss or the network's weights stopped being finite numbers (too large a learning rate, or rewards
    scaled out of range): the run stops with a message instead of sampling from nan probabilities."""


def optimizer_step(model: nn.Module, optimizer: optim.Optimizer, loss: torch.Tensor, args: Args, what: str) -> None:
    """One gradient step on ``loss`` (clipped to ``max_grad_norm``); raises ``TrainingDiverged`` when the loss
    or, after the step, any weight is nan or infinite."""
    rate = ("--bc-learning-rate", args.bc_learning_rate) if what == "behaviour cloning" else \
        ("--learning-rate", args.learning_rate)
    hint = f"lower {rate[0]} (now {rate[1]:g}) or check --reward-scale ({args.reward_scale:g})"
    if not torch.isfinite(loss):
        raise TrainingDiverged(f"training diverged: the loss of {what} is {loss.item()}; {hint}")
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
    optimizer.step()
    if not torch.stack([torch.isfinite(p).all() for p in model.parameters()]).all():
        raise TrainingDiverged(f"training diverged: a weight became nan or infinite in {what}; {hint}")


# --------------------------------------------------------------------------- behaviour cloning


def behaviour_cloning(envs, obs: dict, model: PolicyValueNet | TileNet, optimizer: optim.Optimizer, store: Rollout,
                      shaper: RewardTransform, args: Args, rng: np.random.Generator, log: RunLog | None,
                      device) -> dict:
    """Imitate the teacher before PPO (``bc_teacher``: the rule-based agent or its 进张 variant): four of it play
    ``bc_steps`` steps at every table; each rollout of their decisions trains the policy (cross-entropy on the
    masked logits) and the value (the GAE returns of their play, weighted ``bc_vf_coef``), ``bc_epochs`` times
    in ``num_minibatches``. Before
    training on a rollout, the share of its decisions with a choice (two or more legal actions) where the
    network's most likely action is the teacher's is logged (``bc/agreement``: on positions it has not
    been trained on; the teacher breaks exact ties at random, so 1.0 is out of reach). Returns the next
    observation."""
    teacher = make_baseline(args.bc_teacher, run_rules(args))
    rows = np.arange(args.num_envs)
    optimizer.param_groups[0]["lr"] = args.bc_learning_rate
    done = 0
    while done < args.bc_steps:
        store.start()
        model.eval()
        torch.set_num_threads(1)
        for _ in range(min(args.num_steps, args.bc_steps - done)):
            x = model_inputs(model, obs["observation"], obs["action_mask"], run_rules(args))
            with torch.no_grad():
                value = model.get_value(torch.as_tensor(x, device=device))
            actions = teacher.act(obs, rng)
            store.add(rows, obs["seat"], x, obs["action_mask"] != 0, actions, np.zeros(len(rows), np.float32),
                      value.cpu().numpy(), shaper.potential(obs["observation"]), args.gamma)
            obs, rewards, term, _, infos = envs.step(actions)
            store.pay(shaper.hand_end(decided(rewards, infos)), infos["_settlement"], term)
            done += 1
        _, returns, trainable = store.advantages(args.gamma, args.gae_lambda)
        b_inds = np.flatnonzero(trainable)
        if not len(b_inds):  # no decision's outcome known yet (a short rollout): they carry over to the next
            continue
        agreement = bc_update(model, optimizer, store, returns[:store.size], b_inds, args, rng, device)
        if log is not None:
            log.writer.add_scalar("bc/agreement", agreement, done * args.num_envs)
            log.bar.set_postfix({"bc_step": done, "agreement": f"{agreement:.3f}"})
    store.pending[:] = -1  # PPO starts its own chains
    optimizer.param_groups[0]["lr"] = args.learning_rate
    return obs


def bc_update(model: nn.Module, optimizer: optim.Optimizer, store: Rollout, returns: np.ndarray,
              b_inds: np.ndarray, args: Args, rng: np.random.Generator, device) -> float:
    """``bc_epochs`` epochs of cross-entropy (policy) and squared error (value, weighted ``bc_vf_coef``) over
    the decisions ``b_inds`` of ``store``. Returns the agreement with the stored actions before the first
    gradient step, over the decisions with a choice."""
    model.train()
    torch.set_num_threads(max(1, args.threads))
    b_obs = torch.as_tensor(store.obs[b_inds], device=device)
    b_mask = torch.as_tensor(store.mask[b_inds], device=device)
    b_act = torch.as_tensor(store.action[b_inds], device=device)
    b_ret = torch.as_tensor(returns[b_inds], device=device)
    with torch.no_grad():
        same = masked_logits(model(b_obs)[0], b_mask).argmax(dim=1) == b_act
        choice = b_mask.sum(dim=1) > 1
        agreement = same[choice].float().mean().item() if choice.any() else 1.0
    order = np.arange(len(b_inds))
    for _ in range(args.bc_epochs):
        rng.shuffle(order)
        for part in np.array_split(order, min(args.num_minibatches, len(order))) if len(order) else []:
            mb = torch.as_tensor(part, device=device)
            logits, value = model(b_obs[mb])
            ce = nn.functional.cross_entropy(masked_logits(logits, b_mask[mb]), b_act[mb])
            loss = ce + args.bc_vf_coef * 0.5 * ((value - b_ret[mb]) ** 2).mean()
            optimizer_step(model, optimizer, loss, args, "behaviour cloning")
    return agreement


# --------------------------------------------------------------------------- PPO update


def ppo_update(model: PolicyValueNet | TileNet, optimizer: optim.Optimizer, store: Rollout, advantages: np.ndarray,
               returns: np.ndarray, trainable: np.ndarray, args: Args, rng: np.random.Generator,
               device) -> dict:
    """``update_epochs`` epochs of clipped PPO over the trainable decisions, in ``num_minibatches``
    shuffled minibatches. Returns the losses of the last minibatch and the update's diagnostics."""
    b_inds = np.flatnonzero(trainable)
    n_samples = len(b_inds)
    model.train()
    torch.set_num_threads(max(1, args.threads))
    b_obs = torch.as_tensor(store.obs[b_inds], device=device)
    b_mask = torch.as_tensor(store.mask[b_inds], device=device)
    b_act = torch.as_tensor(store.action[b_inds], device=device)
    b_logp = torch.as_tensor(store.logp[b_inds], device=device)
    b_val = torch.as_tensor(store.value[b_inds], device=device)
    b_adv = torch.as_tensor(advantages[b_inds], device=device)
    b_ret = torch.as_tensor(returns[b_inds], device=device)
    clipfracs, approx_kl, old_approx_kl = [], torch.zeros(()), torch.zeros(())
    pg_loss = v_loss = entropy_loss = torch.zeros(())
    order = np.arange(n_samples)
    for epoch in range(args.update_epochs):
        rng.shuffle(order)
        # (array_split: parts of equal size within one, never a small last minibatch)
        for part in np.array_split(order, min(args.num_minibatches, n_samples)) if n_samples else []:
            mb = torch.as_tensor(part, device=device)
            _, newlogp, entropy, newvalue = model.get_action_and_value(b_obs[mb], b_mask[mb], b_act[mb])
            logratio = newlogp - b_logp[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
            mb_adv = b_adv[mb]
            if args.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * clipped).mean()
            if args.clip_vloss:
                v_unclipped = (newvalue - b_ret[mb]) ** 2
                v_clipped = b_val[mb] + torch.clamp(newvalue - b_val[mb], -args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((newvalue - b_ret[mb]) ** 2).mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
            optimizer_step(model, optimizer, loss, args, "the PPO update")
        if args.target_kl is not None and approx_kl > args.target_kl:
            break
    y_pred, y_true = b_val.cpu().numpy(), b_ret.cpu().numpy()
    var_y = np.var(y_true) if n_samples else 0.0
    return {
        "samples": n_samples, "value_loss": v_loss.item(), "policy_loss": pg_loss.item(),
        "entropy": entropy_loss.item(), "old_approx_kl": old_approx_kl.item(), "approx_kl": approx_kl.item(),
        "clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
        "explained_variance": np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y,
    }


# --------------------------------------------------------------------------- evaluation


def eval_opponents(args: Args, device) -> list:
    """Who the evaluations play: random, rule and, with ``eval_pretrained`` where one is shipped for the rule
    set, the pretrained player (named ``pretrained``)."""
    rules = run_rules(args)
    out = [RandomAgent(), RuleBasedAgent(rules)]
    if args.eval_pretrained and rules.name in pretrained_available():  # the preset's player, for a rule set of one's own
        out.append(load_shipped_player(rules, device))
    return out


EVAL_BATCH_WALLS = 256
"""Walls an evaluation plays at once: part of its recipe (it decides which random numbers each table draws)."""


def evaluate(model: nn.Module, args: Args, hands: int, device, opponents: list) -> dict:
    """Duplicate matches of the current policy against each of ``opponents`` (``eval_opponents``), by name.
    Plays on one thread in eval mode; the thread count and the model's mode are restored after it, also when
    an opponent raises."""
    training, threads = model.training, torch.get_num_threads()
    model.eval()
    torch.set_num_threads(1)
    try:
        me = NetworkAgent(model, name="trained", greedy=args.eval_greedy, device=device, rules=run_rules(args))
        out = {}
        for base in opponents:
            res = arena.play_duplicate([me, base], hands, seed=args.eval_seed, rules=run_rules(args),
                                       batch_walls=EVAL_BATCH_WALLS)
            out[base.name] = arena_report.summarize(res)
    finally:
        torch.set_num_threads(threads)
        model.train(training)
    return out


# --------------------------------------------------------------------------- logging


EVAL_NAMES = ("random", "rule", "pretrained")
"""The opponents whose quick evaluations get progress.csv columns (empty where not played)."""


def progress_row(update: int, global_step: int, elapsed: float, lr: float, losses: dict, stats: dict,
                 pool_size: int, rollout_s: float, evaluation: dict) -> dict:
    """One row of progress.csv: the update's losses, its hands' rates, and ``evaluation``'s results
    (empty cells when the update was not evaluated, and empty interval cells where an evaluation of one wall
    has no interval: ``arena_report.summarize``'s [-inf, inf], which ``agents.curve`` would refuse). The rates of the
    update's own hands are per learner seat-hand (``win_rate``; the ``pool_*`` figures over the seat-hands
    against the pool), ``avg_fan`` per learner win and ``draw_rate`` per hand; where their denominator is 0 (no
    hand ended in the rollout, no learner win, no hand against the pool) they are unknown and left empty, as
    ``arena_report.summarize``'s ``avg_fan`` is None (not 0: a run with no pool hands would seem to win none).
    A loss figure that is not finite (``ppo_update``'s explained_variance NaN) is left empty too."""
    def per(count: float, of: int) -> float | str:
        return count / of if of else ""

    row = {"update": update, "global_step": global_step, "seconds": round(elapsed, 1),
           "SPS": int(global_step / elapsed), "samples": losses["samples"], "learning_rate": lr}
    # (a loss figure that is not finite, explained_variance's NaN for returns that do not vary: empty too)
    row.update({k: v if math.isfinite(v) else "" for k, v in losses.items() if k != "samples"})
    row.update({
        "hands": stats["hands"], "draw_rate": per(stats["drawn"], stats["hands"]),
        "win_rate": per(stats["self_wins"], stats["self_hands"]),
        "avg_fan": per(stats["self_fan"], stats["self_wins"]),
        "pool_points": per(stats["pool_points"], stats["pool_hands"]),
        "pool_win_rate": per(stats["pool_wins"], stats["pool_hands"]),
        "pool_deal_in_rate": per(stats["pool_deal_ins"], stats["pool_hands"]),
        "pool_size": pool_size, "rollout_seconds": round(rollout_s, 2),
    })
    for base in EVAL_NAMES:
        a = evaluation.get(base, {}).get("agents", [{}])[0] if evaluation else {}
        row[f"vs_{base}_points"] = a.get("mean_points", "")
        low, high = (v if math.isfinite(v) else "" for v in a["ci95"]) if "ci95" in a else ("", "")
        row[f"vs_{base}_ci_low"], row[f"vs_{base}_ci_high"] = low, high
        row[f"vs_{base}_win_rate"] = a.get("win_rate", "")
    return row


# --------------------------------------------------------------------------- run setup and messages


def seed_everything(args: Args) -> np.random.Generator:
    """Seed Python, NumPy and torch; set torch's determinism and threads. Returns the run's generator
    (seating, the cloning teacher's and the opponents' sampling, minibatch shuffles)."""
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    torch.set_num_threads(max(1, args.threads))
    return np.random.default_rng(args.seed)


def reward_text(args: Args) -> str:
    """The reward option in words, with the flags it reads: "shaped (points / 4 + shaping 0.25 a tile)"."""
    scale = f"points / {args.reward_scale:g}"
    return {"points": "points", "sign": "sign of the points", "scaled": f"scaled ({scale})",
            "shaped": f"shaped ({scale} + shaping {args.shaping_coef:g} a tile)"}[args.reward]


def unused_reward_flags(args: Args) -> str | None:
    """A note where --reward-scale or --shaping-coef is set off its default for a reward option that does not
    read it (None: none is); the run goes on, paying what --reward says."""
    defaults = Args()
    unused = [flag for flag, name, readers in (("--reward-scale", "reward_scale", ("scaled", "shaped")),
                                               ("--shaping-coef", "shaping_coef", ("shaped",)))
              if getattr(args, name) != getattr(defaults, name) and args.reward not in readers]
    if not unused:
        return None
    return f"note: --reward {args.reward} does not read {' or '.join(unused)}; the reward is {reward_text(args)}"


def rules_notes(caught: list) -> None:
    """Print each ``RulesMismatchWarning`` of ``caught`` once as a note (the shipped player of a preset playing a rule
    set of one's own whose fields agents read differ: ``NetworkAgent.from_checkpoint``'s warning); other warnings go
    on as the arena's command line tells them (``agents.arena.tell_warning``: a CheckpointWarning as one line naming
    the file)."""
    said = set()
    for w in caught:
        if not issubclass(w.category, RulesMismatchWarning):
            arena.tell_warning(w)
        elif str(w.message) not in said:
            said.add(str(w.message))
            print(f"note: {arena.terminal_line(w.message)} (the shipped player of the preset)", flush=True)


def plan_text(args: Args, num_updates: int, opponents: list) -> str:
    """What the run is about to do, in words, printed before it starts (the bar counts PPO updates only)."""
    steps = f"{args.num_envs * args.num_steps:,}"
    parts = [f"{args.exp_name}: {rules_label(run_rules(args))}" + ("" if args.reward == "points" else f", reward {reward_text(args)}")]
    if args.init_from is not None:
        start = "the shipped player" if args.init_from == "pretrained" else arena.terminal_line(args.init_from)
        parts.append(f"start from {start}")
    if args.bc_steps:
        parts.append(f"imitate the {args.bc_teacher} agent ({args.bc_steps} steps at {args.num_envs} tables)")
    if num_updates:
        cap = ""
        if args.max_minutes:
            minutes = f"{args.max_minutes:g}"  # (1.0000001 prints as 1: one minute)
            cap = f", stopping after the update that passes {minutes} minute{'' if minutes == '1' else 's'}"
        parts.append(f"then PPO: up to {num_updates} update{'' if num_updates == 1 else 's'} of {steps} decisions{cap}")
    if args.final_eval_hands:
        parts.append(f"then {args.final_eval_hands} walls x 2 seatings against "
                     + ", ".join(o.name for o in opponents))
    return "; ".join(parts)


def repeat_command(args: Args, checkpoint: Path) -> str:
    """The arena command that repeats the final evaluation against the rule agent, figure for figure."""
    greedy = ":greedy" if args.eval_greedy else ""
    stored = rules_json(run_rules(args))  # a preset's name, or the object form of the fields changed (as checkpoints keep it)
    given = stored if isinstance(stored, str) else json.dumps(stored, ensure_ascii=False)
    rules = "" if given == "beijing" else f" --rules {shlex.quote(given)}"
    device = "" if args.device == "cpu" else f" --device {shlex.quote(args.device)}"
    return (f"python -m agents.arena --agents {shlex.quote(f'{checkpoint}{greedy},rule')} "
            f"--hands {args.final_eval_hands} --seed {args.eval_seed} --batch {EVAL_BATCH_WALLS}{rules}{device}")


# --------------------------------------------------------------------------- run end and main


def finish_run(model: nn.Module, args: Args, device, log: RunLog, update: int, global_step: int,
               start: float, opponents: list, interrupted: bool = False) -> dict:
    """Save ``final.pt``, run the final evaluation against ``opponents`` (printed as tables, logged as
    ``eval/final_*``) and write final_eval.json. Returns what it holds. A run ``interrupted`` by Ctrl-C (or
    SIGTERM, ``Terminated``) saves final.pt and final_eval.json (``"interrupted": true``) with no evaluation, and prints the command that
    evaluates it; so does one interrupted in the final evaluation (final.pt is saved before it). A Ctrl-C or SIGTERM
    while final.pt or final_eval.json is written waits until the file is whole (``written_whole``): in the save of
    final.pt it skips the evaluation as above; after the evaluation ended (its tables printed, final_eval.json
    written) it goes on, raised once final_eval.json, which holds the evaluation, is written."""
    late = None  # a Ctrl-C or SIGTERM after the evaluation ended, raised again at the end
    final, came = written_whole(lambda: save_checkpoint(log.ckpt_dir / "final.pt", model, rules=run_rules(args),
                                                        update=update, global_step=global_step,
                                                        args=dataclasses.asdict(args)))
    if came is not None:  # held until final.pt was whole
        if not interrupted:
            tell(f"interrupted ({interruption(came)}) while final.pt was saved: it is saved, no final evaluation")
        interrupted = True
    result: dict[str, typing.Any] = {"checkpoint": str(final), "global_step": global_step, "updates": update,
              "train_seconds": round(time.monotonic() - start, 1), "observation": obs_layout(model)}
    if not interrupted and args.final_eval_hands > 0:
        try:
            t0 = time.monotonic()
            result["eval"] = evaluate(model, args, args.final_eval_hands, device, opponents)
        except KeyboardInterrupt as e:  # in the evaluation: final.pt is saved, and final_eval.json says so too
            tell(f"interrupted ({interruption(e)}) in the final evaluation: final.pt is saved, no final "
                 "evaluation")
            interrupted = True
        else:
            try:
                print(f"\nfinal evaluation ({args.final_eval_hands} walls, duplicate, seed {args.eval_seed}, "
                      f"{time.monotonic() - t0:.0f} s):")
                # a rule set of one's own ends each table with a "rules: beijing with chi=False" line, as the arena's
                # table does (a preset's name adds none); final_eval.json's summaries stay as they were
                named = {"rules": rules_json(run_rules(args))}
                for base, summary in result["eval"].items():
                    print(f"\n  trained vs {base}")
                    print("  " + arena_report.format_table({**summary, **named}).replace("\n", "\n  "))
                    for name in ("mean_points", "win_rate", "deal_in_rate"):
                        log.writer.add_scalar(f"eval/final_vs_{base}_{name}", summary["agents"][0][name], global_step)
                print(f"\nrepeat the evaluation against rule: {repeat_command(args, final)}")
            except KeyboardInterrupt as e:  # the evaluation ended: final_eval.json holds it, then the signal goes on
                tell(f"interrupted ({interruption(e)}) after the final evaluation: writing final_eval.json")
                late = e
    if interrupted:
        result["interrupted"] = True
    _, came = written_whole(lambda: (log.dir / "final_eval.json").write_text(  # strict JSON: null for no interval
        arena_report.json_text(result) + "\n", encoding="utf-8"))
    late = late or came
    if interrupted and args.final_eval_hands > 0:
        print(f"\nevaluate it against rule: {repeat_command(args, final)}")
    log.release()
    print(f"\ncheckpoint: {final}\nlogs: {log.dir}/ (progress.csv, TensorBoard)")
    if late is not None:
        raise late
    return result


def main(argv: list[str] | None = None) -> dict:
    """One run: set up, then cloning and per update a rollout, GAE, the PPO update, snapshots, evaluation and
    logs, then ``finish_run``; Ctrl-C in the cloning or the updates skips to ``finish_run`` with what was trained.
    Returns what final_eval.json holds."""
    args = parse_args(argv)
    problem = run_dir_problem(args)  # the arguments are fine; can their run be written here?
    if problem:
        usage_error(problem)
    start_model = None
    start_path = init_checkpoint(args)  # (None: no --init-from)
    if start_path is not None:  # checked in parse_args: the network is the checkpoint's, no cloning
        with warnings.catch_warnings(record=True) as caught:  # a CheckpointWarning as one line naming the file
            start_model, start_meta = load_checkpoint(start_path)
        for w in caught:
            arena.tell_warning(w)
        args = dataclasses.replace(args, **flags_of_network(start_model.config), bc_steps=0)
        trained_for = start_meta.get("rules")  # a preset's name, or a rule set of one's own (its object form)
        if trained_for is not None and get_rules(trained_for) != run_rules(args):  # allowed: the planes are
            # the same for all (compared as rule sets: an object form may name the preset itself)
            print(f"note: --init-from {arena.terminal_line(args.init_from)} was trained under "
                  f"{rules_label(get_rules(trained_for))}; "
                  "this run trains it under "
                  f"{rules_label(run_rules(args))}", flush=True)
    device = torch.device(args.device)
    steps_per_update = args.num_envs * args.num_steps
    num_updates = max(1, args.total_steps // steps_per_update) if args.total_steps else 0  # 0: cloning only
    rng = seed_everything(args)

    envs = MahjongVectorEnv(num_envs=args.num_envs, rules=run_rules(args), seed=args.seed)
    model = (start_model if start_model is not None else build_network(network_config(args))).to(device)
    optimizer = optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    shaper = RewardTransform(args.reward, run_rules(args), scale=args.reward_scale, shaping_coef=args.shaping_coef)
    # room for a rollout's decisions and those carried over into it (at most one pending per seat of each table)
    store = Rollout(steps_per_update + 4 * args.num_envs, args.num_envs, tuple(LAYOUTS[obs_layout(model)][1]),
                    N_ACTIONS)  # (the width of the env's action space and of the network's logits)
    with warnings.catch_warnings(record=True) as caught:  # the shipped player under a rule set of one's own whose
        warnings.simplefilter("always", RulesMismatchWarning)  # fields agents read differ from its preset's: a note
        seats = SeatPlan(args, rng, device)
        opponents_of_eval = eval_opponents(args, device)
    rules_notes(caught)
    note = unused_reward_flags(args)
    if note:
        print(note, flush=True)
    print(plan_text(args, num_updates, opponents_of_eval), flush=True)
    try:
        log = RunLog(args, num_updates)  # after the plan line: on a terminal the bar would print first
    except RunDirTaken as e:
        envs.close()
        usage_error(str(e))
    try:  # the lock and the TensorBoard writer are let go however the run ends (a divergence, a failed save)
        obs, _ = envs.reset(seed=args.seed)
        global_step, start, last_eval, update, interrupted = 0, time.monotonic(), {}, 0, False
        kept = None  # the network before the PPO update under way (None outside one)
        snapshot_files: list[Path] = []  # this run's snapshot checkpoints on disk, oldest first (--keep-checkpoints)
        try:
            if args.bc_steps:
                obs = behaviour_cloning(envs, obs, model, optimizer, store, shaper, args, rng, log, device)
            seats.add_snapshot(model, "init")  # the pool's first: the network PPO starts from
            # every table seated for PPO; after cloning its hands go on, the learner and the opponents taking over
            # the teacher's seats mid-hand (the env is not reset)
            seats.deal(np.arange(args.num_envs))

            for update in range(1, num_updates + 1):
                if args.anneal_lr:
                    optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
                t_roll = time.monotonic()
                obs, stats = collect_rollout(envs, obs, model, seats, store, shaper, args, device)
                global_step += steps_per_update
                rollout_s = time.monotonic() - t_roll

                advantages, returns, trainable = store.advantages(args.gamma, args.gae_lambda)
                kept = {k: v.detach().clone() for k, v in model.state_dict().items()}  # put back if Ctrl-C stops
                losses = ppo_update(model, optimizer, store, advantages, returns, trainable, args, rng, device)

                if update % args.snapshot_every == 0 or update == num_updates:
                    seats.add_snapshot(model, f"update_{update}")
                    snapshot_files.append(log.ckpt_dir / f"update_{update:05d}.pt")
                    save_checkpoint(snapshot_files[-1], model, rules=run_rules(args), update=update,
                                    global_step=global_step, args=dataclasses.asdict(args))
                    prune_snapshots(snapshot_files, args.keep_checkpoints)
                evaluated = args.eval_every > 0 and (update % args.eval_every == 0 or update == 1)
                if evaluated:
                    last_eval = evaluate(model, args, args.eval_hands, device, opponents_of_eval)
                elapsed = time.monotonic() - start
                row = progress_row(update, global_step, elapsed, optimizer.param_groups[0]["lr"], losses, stats,
                                   len(seats.pool_ids), rollout_s, last_eval if evaluated else {})
                log.update(row, global_step, evaluated, last_eval)
                kept = None  # the update is over and logged: its network is the one final.pt's update names
                if args.max_minutes is not None and elapsed > 60 * args.max_minutes:
                    tell(f"stopping after {elapsed / 60:.1f} minutes (--max-minutes)", stopping=False)
                    break
        except KeyboardInterrupt as e:  # Ctrl-C (or SIGTERM): keep what was trained so far, as final.pt, and skip the final evaluation
            running = update  # the update under way (0: none yet)
            update, global_step = log.last_update, log.last_global_step
            now = model.state_dict()
            if (kept is None or running == update  # (logged: its network is the one final.pt's update names)
                    or all(torch.equal(kept[k], now[k]) for k in kept)):  # (no step of the update taken yet)
                tell(f"interrupted ({interruption(e)}) after {update} PPO updates: saving the network as it is to "
                     "final.pt, no final evaluation")
            else:  # inside a PPO update (some of its minibatch steps taken) or after it, before its row was logged
                # (its snapshot, its quick evaluation): final.pt is the network of the last logged update, the one
                # its update and global_step name, not one that they do not
                with signals_held():
                    model.load_state_dict(kept)
                tell(f"interrupted ({interruption(e)}) after {update} PPO updates, the update in progress is "
                     "dropped: saving the network of the last finished one to final.pt, no final evaluation")
            interrupted = True
        try:
            log.end_training()
            envs.close()
        except KeyboardInterrupt as e:  # the training over, final.pt not yet saved: save it, as in the training
            tell(f"interrupted ({interruption(e)}) after {update} PPO updates: saving the network to final.pt, "
                 "no final evaluation")
            interrupted = True
        return finish_run(model, args, device, log, update, global_step, start, opponents_of_eval,
                          interrupted=interrupted)
    finally:
        log.release()
        envs.close()


if __name__ == "__main__":
    # a reader of the output that left (python train.py | head -1; 2>&1 | head -1 with the progress bar) must not
    # end the run: the checkpoints and final_eval.json are what it is for, and its later lines (stopping after N
    # minutes, the final tables) would otherwise raise BrokenPipeError and end it before final.pt was written
    guard_output("train.py")
    terminated: list[int] = []

    def on_sigterm(signum, frame):  # (kill, timeout, a job scheduler): stop as Ctrl-C stops, keeping final.pt
        terminated.append(signum)
        raise Terminated

    if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:  # started with SIGTERM ignored (a supervisor):
        signal.signal(signal.SIGTERM, on_sigterm)  # it stays ignored, as Python keeps an ignored SIGINT
    try:
        if main(sys.argv[1:]).get("interrupted"):
            sys.exit(143 if terminated else 130)  # as a shell reports a command ended by the signal (128 + its number)
    except KeyboardInterrupt as e:  # before training (the setup), or a second one while final.pt was being saved
        print(f"train.py: interrupted ({interruption(e)})", file=sys.stderr)
        sys.exit(143 if terminated else 130)
    except TrainingDiverged as e:
        sys.exit(f"train.py: error: {e}")
    except (NonFiniteLogits, AgentError) as e:
        # weights finite but so large that the logits overflow: in training, or in an evaluation's agent (an
        # AgentError caused by one); any other agent error is a bug and keeps its traceback
        if isinstance(e, AgentError) and not isinstance(e.__cause__, NonFiniteLogits):
            raise
        sys.exit(f"train.py: error: training diverged: {e}; lower --learning-rate (or, with --init-from, check "
                 "that checkpoint: its weights may overflow as they are)")
    except BrokenPipeError:  # stdout piped into a command that stopped reading (| head): nothing to say there
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (so that the interpreter's last flush is quiet)
        sys.exit(1)
    except OSError as e:  # the run's files (a full disk, a path that cannot be written): one line, no traceback
        where = f"{e.filename}: " if e.filename else ""
        sys.exit(f"train.py: error: cannot write the run's files: {where}{e.strerror or e}")
    finally:  # the run is over, its files written: a Ctrl-C or SIGTERM from here on (the process exiting, Python's
        # atexit callbacks: TensorBoard's, torch's) ends it at once with its status, not with a traceback of
        # KeyboardInterrupt or Terminated raised inside the interpreter's cleanup
        try:
            signals_end_the_process()
        except KeyboardInterrupt as e:  # one that came as they were put back (it went to train.py's handlers): the
            signals_end_the_process()  # same, not a traceback of it and exit 1
            signal.raise_signal(signal.SIGTERM if isinstance(e, Terminated) else signal.SIGINT)
