"""Ray RLlib (new API stack): PPO with action masking, multi-agent with one shared policy, or single-agent.

All four seats map to one policy ``"shared"``, an ``ActionMaskingTorchRLModule`` (shipped with
RLlib's examples) that reads ``"observations"`` and ``"action_mask"``, the layout that
``mj_env.wrappers.FlatObservations`` gives. ``illegal_action="penalize"`` because RLlib's env
check steps one unmasked random action. With ``--single-agent`` the same module learns one seat of
the single-agent Gymnasium env against three ``--opponents``, every env runner stepping its ``--tables``
tables at once in one batched env (``mj_env.wrappers.FlatObservationsVector``).

    pip install -e '.[examples]'
    python examples/rllib_ppo.py --iterations 20 --num-env-runners 2
    python examples/rllib_ppo.py --single-agent --opponents rule --iterations 20
    python examples/rllib_ppo.py --smoke

On a Ray cluster the same script scales out: start the cluster (``ray start --head`` on one
machine, ``ray start --address=HEAD:6379`` on the others), then run it on any node with
``--address auto --num-env-runners 64``: every env runner plays tables on some node, the
learner updates the shared policy.
"""
from __future__ import annotations

import sys
import time

import gymnasium as gym

try:
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env
except ModuleNotFoundError as e:  # run without its library: say which, and how to install it
    missing = (e.name or '?').split('.')[0]
    raise SystemExit(f"examples/rllib_ppo.py needs the module {missing!r}: "
                     "pip install -e '.[examples]' (after pip install torch==2.13.0; "
                     "the README says where its CPU wheel is)") from None
except (TypeError, AttributeError):  # (what ray raises at import where docstrings are stripped)
    if sys.flags.optimize < 2:
        raise
    raise SystemExit("examples/rllib_ppo.py: ray cannot be imported under python -OO, which strips the docstrings it "
                     "reads at import; run it without -OO") from None

import mj_env
from agents.rules_args import RULES_HELP, one_hand_rules_given
from mj_env.engine import MAX_TABLES
from mj_env.lines import ArgumentParser, guard_output
from mj_env.records import rules_json
from mj_env.registration import RULE_IDS
from mj_env.rules import get_rules, rules_label
from mj_env.wrappers import FlatObservations, FlatObservationsGym, FlatObservationsVector

MAX_SEED = 2**32 - 1
"""The largest --seed, as in the other examples and train.py."""


def env_creator(config: dict):
    return PettingZooEnv(FlatObservations(mj_env.env(rules=config.get("rules", "beijing"),
                                                     illegal_action="penalize")))


def single_env_creator(config: dict):
    """One seat against three opponents (``mj_env.single_agent``), observations in RLlib's masking layout.
    With ``gym_env_vectorize_mode="vector_entry_point"`` RLlib asks for all of a runner's ``num_envs`` tables
    at once: the batched env, stepping them in one engine."""
    kwargs = {"opponents": config.get("opponents", "rule"), "illegal_action": "penalize"}
    rules = config.get("rules", "beijing")  # a preset's name, or a rule set of one's own as its object form
    if not isinstance(rules, str):  # the preset's id, its fields changed
        kwargs["rules"] = get_rules(rules)
    env_id = RULE_IDS[get_rules(rules).name]
    if "num_envs" in config:
        return FlatObservationsVector(gym.make_vec(env_id, num_envs=config["num_envs"],
                                                   vectorization_mode="vector_entry_point", **kwargs))
    return FlatObservationsGym(gym.make(env_id, **kwargs))


def build_config(args) -> PPOConfig:
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": [args.hidden, args.hidden]})
    config = PPOConfig()
    if args.single_agent:
        config = (config.environment("mj_env_single", env_config={"rules": args.rules, "opponents": args.opponents})
                  .env_runners(num_envs_per_env_runner=args.tables, gym_env_vectorize_mode="vector_entry_point")
                  .rl_module(rl_module_spec=module))
    else:
        config = (config.environment("mj_env_aec", env_config={"rules": args.rules})
                  .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **kw: "shared")
                  .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module})))
    return (
        config
        .env_runners(num_env_runners=args.num_env_runners, rollout_fragment_length="auto")
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(args.batch, 256),
                  num_epochs=args.epochs, lr=3e-4)
        .debugging(seed=args.seed)
    )


def main(argv=None):
    p = ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--rules", default="beijing", type=one_hand_rules_given, help=RULES_HELP)
    p.add_argument("--iterations", type=int, default=20, help="PPO training iterations")
    p.add_argument("--num-env-runners", type=int, default=2, help="env runner actors (0: sample in the driver)")
    p.add_argument("--batch", type=int, default=4000, help="train batch per learner (agent steps)")
    p.add_argument("--epochs", type=int, default=4, help="SGD epochs per iteration")
    p.add_argument("--hidden", type=int, default=256, help="hidden units of the policy and value heads")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto' on a cluster node); default: local")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**32 - 1")
    p.add_argument("--single-agent", action="store_true",
                   help="learn one seat of the single-agent Gymnasium env against --opponents (default: all four seats)")
    p.add_argument("--opponents", default=None,
                   choices=("random", "rule", "efficient", "pretrained", "pretrained:greedy", "pretrained:sample"),
                   metavar="NAME", help="the three other seats with --single-agent: rule (default), random, efficient "
                                        "or pretrained[:greedy|:sample]")
    p.add_argument("--tables", type=int, default=None,
                   help="with --single-agent: tables per env runner, stepped at once in one batched env (default 64)")
    p.add_argument("--smoke", action="store_true", help="tiny settings, in place of the size flags given: seconds after Ray starts")
    args = p.parse_args(argv)
    ignored = [] if args.single_agent else [f for f, v in (("--opponents", args.opponents), ("--tables", args.tables))
                                             if v is not None]  # the multi-agent run: no opponents, a table per env
    args.opponents = "rule" if args.opponents is None else args.opponents
    args.tables = 64 if args.tables is None else args.tables
    # every argument is checked before Ray starts (its errors come as pages of chained tracebacks)
    ranges = {"iterations": 10**6, "batch": 10**7, "epochs": 1000, "hidden": 4096, "tables": MAX_TABLES}
    for flag, high in ranges.items():  # each at least 1; sizes a machine can allocate
        if not 1 <= getattr(args, flag) <= high:
            p.error(f"--{flag} must be between 1 and {high:,}, got {getattr(args, flag)}")
    if not 0 <= args.num_env_runners <= 4096:
        p.error(f"--num-env-runners must be between 0 and 4,096, got {args.num_env_runners}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")
    if ignored:
        print(f"note: {' and '.join(ignored)} {'apply' if len(ignored) > 1 else 'applies'} only with --single-agent; "
              "this run plays all four seats with the shared policy", file=sys.stderr, flush=True)
    if not isinstance(args.rules, str):  # a rule set of one's own named (a preset's run prints as before)
        print(f"rules: {rules_label(get_rules(args.rules))}", flush=True)
    args.rules = rules_json(get_rules(args.rules))  # env_config: a preset's name, or the object form (JSON-safe)
    if args.smoke:
        args.iterations, args.num_env_runners, args.batch, args.epochs, args.hidden = 1, 0, 256, 1, 32
        args.tables = min(args.tables, 8)
    try:
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False,
                 num_cpus=None if args.address else max(1, args.num_env_runners + 1))
    except ConnectionError as e:  # --address auto with no cluster started on this node
        p.exit(1, f"{p.prog}: --address {args.address}: no Ray cluster to join ({str(e)[:200]}); start one with "
                  "'ray start --head', or leave --address out to run on this machine\n")
    except ValueError as e:  # an address Ray cannot read ("nonsense": Ray's "Invalid address format" traceback)
        p.exit(2, f"{p.prog}: error: --address {args.address}: not a Ray cluster address ({str(e)[:200]}); give "
                  "host:port or auto, or leave --address out to run on this machine\n")
    register_env("mj_env_aec", env_creator)
    register_env("mj_env_single", single_env_creator)
    algo = build_config(args).build_algo()
    t0 = time.perf_counter()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        steps = int(result["num_env_steps_sampled_lifetime"])  # a float in RLlib's results: "256 env steps", not 256.0
        print(f"iter {i + 1}: {steps} env steps, {steps / (time.perf_counter() - t0):.0f} steps/s, "
              f"{returns_line(result.get('env_runners', {}), args.single_agent)}")
    algo.stop()
    ray.shutdown()
    return steps


def returns_line(runners: dict, single_agent: bool) -> str:
    """What the iteration's episodes scored: the learner's mean return, or with all four seats learning
    each seat's mean (their sum, the "episode return", is 0 in every hand: the game is zero-sum)."""
    if single_agent:
        return f"episode return (the learner) {runners.get('episode_return_mean', float('nan'))}"
    seats = runners.get("agent_episode_returns_mean") or {}
    if not seats:  # no hand ended in this iteration
        return "no hand ended"
    return f"{runners.get('num_episodes', 0)} hands, mean return by seat " + \
        ", ".join(f"{a} {float(seats[a]):+.2f}" for a in sorted(seats))


if __name__ == "__main__":
    guard_output("examples/rllib_ppo.py")  # what standard output cannot encode: an escape, not a UnicodeEncodeError
    main()
