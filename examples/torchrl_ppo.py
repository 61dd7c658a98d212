"""TorchRL: PPO with a masked categorical policy on the batched single-agent environment.

TorchRL's ``GymWrapper`` takes ``gymnasium.make_vec("mj_env/Beijing-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` through ``mj_env.wrappers.ResetByMask`` (autoreset
``DISABLED``: TorchRL deals ended tables anew with a reset mask), so one TorchRL env is N tables,
batch size [N]. The learner plays seat 0 at every table against three rule-based (or random)
opponents that act inside the step. The policy is a ``ProbabilisticActor`` over
``MaskedCategorical`` (logits from a small MLP over the (14, 34) planes, mask from
``"action_mask"``), the critic a ``ValueOperator``; each iteration collects ``--frames`` learner
decisions with a ``Collector``, computes GAE and takes a few epochs of ``ClipPPOLoss``
minibatch steps. TorchRL's ``PettingZooWrapper(use_mask=True)`` also takes ``mj_env.env()`` as it
is (tests/test_wrappers.py), for multi-agent setups.

    pip install -e '.[examples]'
    python examples/torchrl_ppo.py                          # a few minutes on 2 cores
    python examples/torchrl_ppo.py --opponents random --iterations 40
    python examples/torchrl_ppo.py --smoke                  # seconds, what CI runs
"""
from __future__ import annotations

import sys
import time

import gymnasium as gym

try:
    import torch
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
    from torchrl.envs import GymWrapper
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE
except ModuleNotFoundError as e:  # run without its library: say which, and how to install it
    missing = (e.name or '?').split('.')[0]
    raise SystemExit(f"examples/torchrl_ppo.py needs the module {missing!r}: "
                     "pip install -e '.[examples]' (after pip install torch==2.13.0; "
                     "the README says where its CPU wheel is)") from None
except (TypeError, AttributeError):  # (what torchrl raises at import where docstrings are stripped)
    if sys.flags.optimize < 2:
        raise
    raise SystemExit("examples/torchrl_ppo.py: torchrl cannot be imported under python -OO, which strips the docstrings it "
                     "reads at import; run it without -OO") from None

import mj_env  # noqa: F401  (registers mj_env/Beijing-v0)
from agents.rules_args import RULES_HELP, one_hand_rules_given
from mj_env.baselines import BASELINES
from mj_env.engine import MAX_TABLES
from mj_env.lines import ArgumentParser, guard_output
from mj_env.observation import N_PLANES
from mj_env.registration import RULE_IDS
from mj_env.rules import get_rules, rules_label
from mj_env.tiles import N_KINDS
from mj_env.wrappers import ResetByMask

N_IN = N_PLANES * N_KINDS
OPPONENTS = (*BASELINES, "pretrained", "pretrained:greedy", "pretrained:sample")
MAX_SEED = 2**32 - 1
"""The largest --seed, as in the other examples and train.py."""


def make_env(rules, opponents: str, tables: int, seed: int) -> GymWrapper:
    """``rules``: a preset's name, or a RuleSet of one's own (the preset's id, its fields changed)."""
    own = {} if isinstance(rules, str) else {"rules": rules}
    envs = gym.make_vec(RULE_IDS[get_rules(rules).name], num_envs=tables,
                        vectorization_mode="vector_entry_point", opponents=opponents, **own)
    env = GymWrapper(ResetByMask(envs), categorical_action_encoding=True)
    env.set_seed(seed)
    return env


def mlp(n_out: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Flatten(-2), nn.Linear(N_IN, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, n_out))


class Logits(nn.Module):
    """(14, 34) uint8 planes and the int8 mask -> logits and the bool mask MaskedCategorical takes."""

    def __init__(self, n_actions: int, hidden: int):
        super().__init__()
        self.net = mlp(n_actions, hidden)

    def forward(self, obs, mask):
        return self.net(obs.float()), mask.bool()


class Value(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.net = mlp(1, hidden)

    def forward(self, obs):
        return self.net(obs.float())


def main(argv=None):
    p = ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--rules", default="beijing", type=one_hand_rules_given, help=RULES_HELP)
    p.add_argument("--opponents", default="rule", choices=OPPONENTS, metavar="NAME",
                   help="rule, random, efficient or pretrained[:greedy|:sample]")
    p.add_argument("--tables", type=int, default=64, help="tables played at once (the env's batch size)")
    p.add_argument("--frames", type=int, default=4096, help="learner decisions collected per iteration, rounded "
                   "down to a multiple of --tables (at least one step of every table)")
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    p.add_argument("--minibatch", type=int, default=512)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0, help="0 to 2**32 - 1")
    p.add_argument("--smoke", action="store_true", help="tiny settings, in place of the size flags given: a few seconds")
    args = p.parse_args(argv)
    ranges = {"tables": MAX_TABLES, "frames": 10**7, "iterations": 10**6, "epochs": 1000, "minibatch": 10**6,
              "hidden": 4096}  # (each at least 1) sizes this machine can allocate
    for flag, high in ranges.items():
        if not 1 <= getattr(args, flag) <= high:
            p.error(f"--{flag} must be between 1 and {high:,}, got {getattr(args, flag)}")
    if not (0 < args.lr <= 10):
        p.error(f"--lr must be a finite number above 0, at most 10, got {args.lr}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")
    if args.smoke:
        args.tables, args.frames, args.iterations, args.epochs, args.minibatch = 8, 256, 1, 1, 128
    if max(args.frames // args.tables, 1) * args.tables < 2:  # GAE's averaging over one decision divides by no spread
        p.error(f"--frames must make at least 2 decisions per iteration, got {args.frames} at {args.tables} table(s)")
    if not isinstance(args.rules, str):  # a rule set of one's own named (a preset's run prints as before)
        print(f"rules: {rules_label(get_rules(args.rules))}", flush=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: extra threads only contend with the env for the cores
    env = make_env(args.rules, args.opponents, args.tables, args.seed)
    n_actions = env.action_spec.space.n  # pyright: ignore  (a Categorical spec: its space has n)

    actor = ProbabilisticActor(
        TensorDictModule(Logits(n_actions, args.hidden), in_keys=["observation", "action_mask"],
                         out_keys=["logits", "mask"]),
        in_keys=["logits", "mask"], distribution_class=MaskedCategorical, spec=env.action_spec,
        return_log_prob=True)
    critic = ValueOperator(Value(args.hidden), in_keys=["observation"])
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic, average_gae=True)
    loss_fn = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, critic_coeff=0.5,
                          normalize_advantage=True, loss_critic_type="smooth_l1")
    optim = torch.optim.Adam(loss_fn.parameters(), lr=args.lr)
    frames = max(args.frames // args.tables, 1) * args.tables
    minibatch = min(args.minibatch, frames)
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=frames * args.iterations,
                          auto_register_policy_transforms=False)
    buffer = ReplayBuffer(storage=LazyTensorStorage(frames), sampler=SamplerWithoutReplacement(),
                          batch_size=minibatch)

    t0, t_env, total, per_iter = time.perf_counter(), 0.0, 0, []
    t_collect = time.perf_counter()
    for it, data in enumerate(collector, 1):
        t_env += time.perf_counter() - t_collect
        done = data["next", "done"]
        points = data["next", "reward"][done]  # the reward is paid when the hand ends
        hands = points.numel()
        per_iter.append(points)
        total += data.numel()
        losses = []
        for _ in range(args.epochs):
            with torch.no_grad():
                advantage(data)
            buffer.extend(data.reshape(-1))
            for _ in range(frames // minibatch):
                out = loss_fn(buffer.sample())
                loss = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optim.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_fn.parameters(), 1.0)
                optim.step()
                losses.append(loss.item())
        result = (f"{points.mean().item():+.3f} ± {points.std().item() / hands ** 0.5:.3f} points/hand"
                  if hands > 1 else f"{points.sum().item():+.0f} points" if hands else "no hand ended")
        print(f"iter {it}: {data.numel()} decisions, {hands} hands, {result} vs {args.opponents}, "
              f"loss {sum(losses) / len(losses):.4f}, entropy {out['entropy'].item():.3f}",  # pyright: ignore  (--epochs >= 1)
              flush=True)
        t_collect = time.perf_counter()
    collector.shutdown()
    dt = time.perf_counter() - t0
    print(f"{total} learner decisions in {dt:.0f}s: {total / dt:.0f} decisions/s training, "
          f"{total / t_env:.0f} decisions/s collecting")
    if len(per_iter) >= 4:
        q = len(per_iter) // 4
        first, last = torch.cat(per_iter[:q]), torch.cat(per_iter[-q:])
        print(f"points/hand vs {args.opponents}: first {q} iterations {mean_and_error(first)}, "
              f"last {q} {mean_and_error(last)}")


def mean_and_error(points: torch.Tensor) -> str:
    """``+m ± se`` of the hands' points; no ± from fewer than two hands, "no hand ended" from none."""
    if points.numel() < 2:
        return f"{points.sum().item():+.3f} ({points.numel()} hand)" if points.numel() else "no hand ended"
    return f"{points.mean().item():+.3f} ± {points.std().item() / points.numel() ** 0.5:.3f}"


if __name__ == "__main__":
    guard_output("examples/torchrl_ppo.py")  # "±" where standard output is ASCII: an escape, not a UnicodeEncodeError
    main()
