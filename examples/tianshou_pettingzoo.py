"""Tianshou on the PettingZoo environment: a masked DQN learner at one seat, trained against
three masked random players.

Tianshou's ``PettingZooEnv`` wraps ``mj_env.env()`` through ``mj_env.wrappers.NumericInfos``
(Tianshou's replay buffer stacks the infos into one ``Batch``, which raises on two wins'
settlement objects of different shapes: other patterns, a discarder against none); it hands each policy
``obs.obs`` (the (14, 34) planes) and ``obs.mask`` (the legal actions), and every step's reward
as the four seats' points. Tianshou's multi-agent dispatcher (``MultiAgentOffPolicyAlgorithm``)
gives ``player_0`` a DQN (``DiscreteQLearningPolicy``: illegal actions masked in the greedy
choice and in the epsilon-greedy exploration) and the other seats Tianshou's masked random
policy. The dispatcher computes each seat's n-step returns over the whole table's steps with that
seat's column of the rewards; with ``--n-step`` longer than a hand (under 100 decisions of all
four seats in random play) the learner's targets are its own points at the end of the hand,
whoever's step ended it. ``OffPolicyTrainer`` runs the epochs; each epoch ends with a greedy test
against the same opponents.

    pip install -e '.[examples]'
    python examples/tianshou_pettingzoo.py                 # a few minutes on 2 cores
    python examples/tianshou_pettingzoo.py --smoke         # seconds, what CI runs
"""
from __future__ import annotations

import logging
import time

import numpy as np

try:
    import torch
    from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net
except ModuleNotFoundError as e:  # run without its library: say which, and how to install it
    missing = (e.name or '?').split('.')[0]
    raise SystemExit(f"examples/tianshou_pettingzoo.py needs the module {missing!r}: "
                     "pip install -e '.[examples]' (after pip install torch==2.13.0; "
                     "the README says where its CPU wheel is)") from None

import mj_env
from agents.rules_args import RULES_HELP, one_hand_rules_given
from mj_env.lines import ArgumentParser, guard_output
from mj_env.rules import get_rules, rules_label
from mj_env.wrappers import NumericInfos

LEARNER = 0  # player_0
MAX_SEED = 2**32 - 1
"""The largest --seed: NumPy's legacy generator (np.random.seed) takes 32 bits."""


def spread(std: float, hands: int) -> str:
    """The text `` ± se`` of a mean over ``hands`` hands whose points have the std ``std``; empty for one hand,
    whose std of 0 measures no spread (``--test-hands 1`` printed "± 0.000"). ``std`` is the population one
    (ddof 0: Tianshou's ``returns_stat.std`` and NumPy's ``std()``), so the standard error is the sample std
    over sqrt(hands), std * sqrt(hands / (hands - 1)) / sqrt(hands) = std / sqrt(hands - 1), as torchrl_ppo.py's
    (torch's ``std()`` is the sample one); std / sqrt(hands) was sqrt((hands - 1) / hands) of it (0.87 at 4 hands)."""
    return f" ± {std / np.sqrt(hands - 1):.3f}" if hands >= 2 else ""


def make_env(rules):
    return PettingZooEnv(NumericInfos(mj_env.env(rules=rules)))


def main(argv=None):
    p = ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    p.add_argument("--rules", default="beijing", type=one_hand_rules_given, help=RULES_HELP)
    p.add_argument("--envs", type=int, default=8, help="tables collected in parallel (DummyVectorEnv)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--epoch-steps", type=int, default=10_000, help="env steps (all seats' decisions) per epoch, "
                   "rounded up to whole collects of 10 x --envs steps")
    p.add_argument("--test-hands", type=int, default=100, help="greedy test hands after each epoch")
    p.add_argument("--n-step", type=int, default=128, help="n-step return horizon (longer than a hand: Monte Carlo)")
    p.add_argument("--batch-size", type=int, default=64, help="transitions (all seats; the learner takes its own) per update")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0, help="0 to 2**32 - 1 (test tables: seed + 10,000)")
    p.add_argument("--smoke", action="store_true", help="tiny settings, in place of the size flags given: a few seconds")
    args = p.parse_args(argv)
    ranges = {"envs": 1024, "epochs": 10**6, "epoch_steps": 10**9, "test_hands": 10**6, "n_step": 10_000,
              "batch_size": 65_536, "hidden": 4096}  # (each at least 1) sizes this machine can allocate
    for flag, high in ranges.items():
        if not 1 <= getattr(args, flag) <= high:
            p.error(f"--{flag.replace('_', '-')} must be between 1 and {high:,}, got {getattr(args, flag)}")
    if not (0 < args.lr <= 10):
        p.error(f"--lr must be a finite number above 0, at most 10, got {args.lr}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")
    if args.smoke:
        args.envs, args.epochs, args.epoch_steps, args.test_hands = 2, 1, 200, 2
    if not isinstance(args.rules, str):  # a rule set of one's own named (a preset's run prints as before)
        print(f"rules: {rules_label(get_rules(args.rules))}", flush=True)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: extra threads only contend with the env for the cores
    # the collector summarizes the (hands, 4) returns flattened, with a warning at every collect; the
    # trainer's test takes the learner's column (multi_agent_return_reduction below)
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)

    env = make_env(args.rules)
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[args.hidden, args.hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=1.0, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=1.0,
                  n_step_return_horizon=args.n_step, target_update_freq=200, huber_loss_delta=10.0)
    seats: list[OffPolicyAlgorithm] = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    seats[LEARNER] = learner
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)

    train_envs = DummyVectorEnv([lambda: make_env(args.rules) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.rules) for _ in range(args.envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 10_000)
    train_collector: Collector = Collector(algorithm, train_envs, VectorReplayBuffer(50_000, args.envs), exploration_noise=True)
    test_collector: Collector = Collector(algorithm, test_envs)
    train_collector.reset()
    t0 = time.perf_counter()
    warm = train_collector.collect(n_step=min(2000, args.epoch_steps))  # eps 1: masked random
    rate = warm.n_collected_steps / (time.perf_counter() - t0)
    print(f"warm-up: {warm.n_collected_steps} masked random steps at {rate:.0f} decisions/s", flush=True)

    total_steps = args.epochs * args.epoch_steps

    def training_fn(epoch: int, env_step: int) -> None:  # epsilon from 1.0 to 0.05 over the first 60%
        policy.set_eps_training(max(0.05, 1.0 - 0.95 * env_step / (0.6 * total_steps)))

    params = OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector, max_epochs=args.epochs,
        epoch_num_steps=args.epoch_steps, collection_step_num_env_steps=10 * args.envs,
        update_step_num_gradient_steps_per_sample=0.1, batch_size=args.batch_size, test_step_num_episodes=args.test_hands,
        training_fn=training_fn, multi_agent_return_reduction=lambda returns: returns[:, LEARNER],
        verbose=False, show_progress=False)
    trainer = algorithm.create_trainer(params)
    trainer.reset()
    t0, tests = time.perf_counter(), []
    while trainer._epoch < args.epochs:  # Trainer.run() without its own printing
        stats = trainer.execute_epoch()
        test = stats.test_collect_stat
        if test is None or test.returns_stat is None:  # a test collector plays --test-hands (>= 1) every epoch
            raise RuntimeError(f"epoch {stats.epoch}: Tianshou's trainer returned no test statistics")
        tests.append(np.asarray(test.returns))  # the learner's points per hand (reduced above)
        loss = stats.training_stat.get_loss_stats_dict() if stats.training_stat is not None else {}
        value = loss.get(f"player_{LEARNER}/loss", float("nan"))
        # NaN where no update this epoch gave the learner a loss (seen with tiny --batch-size: a sample may hold
        # none of its own transitions)
        loss_text = f"{value:.3f}" if np.isfinite(value) else "n/a (none this epoch)"
        print(f"epoch {stats.epoch}: {stats.info_stat.train_step} steps, loss {loss_text}, "
              f"eps {policy.eps_training:.2f}; greedy learner {test.returns_stat.mean:+.3f}"
              f"{spread(test.returns_stat.std, test.n_collected_episodes)} points/hand over "
              f"{test.n_collected_episodes} hands vs 3 random", flush=True)
    info = stats.info_stat  # pyright: ignore[reportPossiblyUnboundVariable]  (--epochs >= 1)
    dt = time.perf_counter() - t0
    print(f"trained on {info.train_step} decisions in {dt:.0f}s: {info.train_step / dt:.0f} decisions/s "
          f"(updates and tests included)")
    if len(tests) >= 2:
        late = np.concatenate(tests[len(tests) // 2:])
        print(f"greedy learner over the last {len(tests) - len(tests) // 2} epochs' tests: {late.mean():+.3f}"
              f"{spread(late.std(), len(late))} points/hand over {len(late)} hands vs 3 random "
              "(a random learner: 0 by symmetry)")
    return stats  # pyright: ignore[reportPossiblyUnboundVariable]


if __name__ == "__main__":
    guard_output("examples/tianshou_pettingzoo.py")  # "±" where standard output is ASCII: an escape, not a UnicodeEncodeError
    main()
