"""Stable-Baselines3 (sb3-contrib) MaskablePPO against the rule-based players.

The learner plays seat 0 of every table; the three rule-based opponents act inside each step. By
default SB3 gets the batched env as its ``VecEnv`` (``mj_env.sb3.MahjongSB3VecEnv``: all ``--n-envs``
tables step at once in one engine); ``--one-table-envs`` builds SB3's usual ``DummyVecEnv`` of
one-table ``mj_env/Beijing-v0`` envs instead, stepped one by one (the same game, about ten times
slower). ``MaskablePPO`` reads the legal actions through ``env_method("action_masks")``.

    pip install -e '.[examples]'
    python examples/sb3_maskable_ppo.py --timesteps 200000 --n-envs 64
    python examples/sb3_maskable_ppo.py --one-table-envs --n-envs 8     # SB3's DummyVecEnv
    python examples/sb3_maskable_ppo.py --obs v2      # observations with the rules core's tiles-to-win planes
    python examples/sb3_maskable_ppo.py --random-learner --eval-hands 2000   # the score to learn from: no training
    python examples/sb3_maskable_ppo.py --smoke       # a few seconds, what CI runs
"""
from __future__ import annotations

import time

import numpy as np

try:
    import torch
    from gymnasium.vector import AutoresetMode
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecMonitor
except ModuleNotFoundError as e:  # run without its library: say which, and how to install it
    missing = (e.name or '?').split('.')[0]
    raise SystemExit(f"examples/sb3_maskable_ppo.py needs the module {missing!r}: "
                     "pip install -e '.[examples]' (after pip install torch==2.13.0; "
                     "the README says where its CPU wheel is)") from None

import mj_env  # noqa: F401  (registers mj_env/Beijing-v0)
from agents.arena_report import mean_ci95
from agents.rules_args import RULES_HELP, one_hand_rules_given
from mj_env.baselines import BASELINES, uniform_legal
from mj_env.engine import MAX_TABLES
from mj_env.lines import ArgumentParser, guard_output
from mj_env.registration import RULE_IDS
from mj_env.rules import get_rules, rules_label
from mj_env.sb3 import MahjongSB3VecEnv
from mj_env.single_agent import MahjongSingleAgentVectorEnv

OPPONENTS = (*BASELINES, "pretrained", "pretrained:greedy", "pretrained:sample")
MAX_SEED = 2**32 - 1
"""The largest --seed: SB3 seeds NumPy's legacy generator, which takes 32 bits."""


def evaluate(model, rules: str, opponents: str, hands: int, seed: int, obs: str = "v1") -> np.ndarray:
    """The points of the trained policy (sampling) in each of ``hands`` hands: one hand at each of ``hands``
    tables, all at once."""
    env = MahjongSingleAgentVectorEnv(hands, rules=rules, opponents=opponents, seed=seed,
                                      autoreset_mode=AutoresetMode.NEXT_STEP, obs=obs)
    seen, _ = env.reset(seed=seed)  # (``obs`` is the layout's name)
    total, done = np.zeros(hands), np.zeros(hands, dtype=bool)
    while not done.all():
        action, _ = model.predict(seen, action_masks=env.action_masks(), deterministic=False)
        seen, reward, term, trunc, _ = env.step(action)
        total[~done] += reward[~done]
        done |= term | trunc
    return total


class RandomLegalLearner:
    """A learner that picks uniformly among the legal actions (``predict`` as SB3's models have it): what
    a trained policy's score is read against."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def predict(self, obs, action_masks, deterministic=False):
        return uniform_legal(action_masks, self.rng), None


def points_text(points: np.ndarray, opponents: str) -> str:
    mean, low, high = mean_ci95(points)
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}] points/hand over {len(points)} hands vs {opponents}"


def main(argv=None):
    p = ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--rules", default="beijing", type=one_hand_rules_given, help=RULES_HELP)
    p.add_argument("--opponents", default="rule", choices=OPPONENTS, metavar="NAME",
                   help="rule, random, efficient or pretrained[:greedy|:sample]")
    p.add_argument("--timesteps", type=int, default=200_000, help="learner decisions to train on, rounded up to whole rollouts of --n-envs x --n-steps "
                        "(SB3 trains in whole rollouts)")
    p.add_argument("--n-envs", type=int, default=64, help="tables (SB3 sub-environments)")
    p.add_argument("--n-steps", type=int, default=None,
                   help="decisions per table per rollout (default: 4096 // --n-envs, at least 8)")
    p.add_argument("--obs", default="v1", choices=("v1", "v2"),
                   help="observation layout: v1 (the 14 planes) or v2 (plus tiles still needed after each discard/claim)")
    p.add_argument("--one-table-envs", action="store_true",
                   help="SB3's DummyVecEnv of one-table envs instead of the batched VecEnv")
    p.add_argument("--eval-hands", type=int, default=200, help="hands for the final evaluation")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**32 - 1")
    p.add_argument("--random-learner", action="store_true",
                   help="no training: evaluate a learner that picks uniformly among the legal actions, on the same hands")
    p.add_argument("--smoke", action="store_true", help="tiny settings, in place of the size flags given: a few seconds")
    args = p.parse_args(argv)
    for flag, value, high in (("--timesteps", args.timesteps, 10**10), ("--n-envs", args.n_envs, MAX_TABLES),
                              ("--eval-hands", args.eval_hands, 10**6),
                              ("--n-steps", 1 if args.n_steps is None else args.n_steps, 10**6)):
        if not 1 <= value <= high:
            p.error(f"{flag} must be between 1 and {high:,}, got {value}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")
    torch.set_num_threads(1)  # small networks: extra threads only contend for the cores
    if args.smoke:
        args.timesteps, args.n_envs, args.n_steps, args.eval_hands = 256, 2, 128, 2
    n_steps = args.n_steps or max(8, 4096 // args.n_envs)
    batch = 64 if args.smoke else 256
    rollout = args.n_envs * n_steps
    # MaskablePPO normalizes advantages per minibatch: over one decision there is no spread, and the NaN crashes it
    if rollout < 2 or rollout % min(batch, rollout) == 1:
        p.error(f"--n-envs x --n-steps = {args.n_envs} x {n_steps} = {rollout} decisions per rollout leaves a "
                f"minibatch of one (minibatches of {batch}), which MaskablePPO cannot normalize; change either")
    if not isinstance(args.rules, str):  # a rule set of one's own named (a preset's run prints as before)
        print(f"rules: {rules_label(get_rules(args.rules))}", flush=True)
    if args.random_learner:
        points = evaluate(RandomLegalLearner(args.seed), args.rules, args.opponents, args.eval_hands, seed=10_000,
                          obs=args.obs)
        print(f"a random legal learner: {points_text(points, args.opponents)}")
        return float(points.mean())
    if args.one_table_envs:
        own = {} if isinstance(args.rules, str) else {"rules": args.rules}  # the preset's id, its fields changed
        venv = make_vec_env(RULE_IDS[get_rules(args.rules).name], n_envs=args.n_envs, seed=args.seed,
                            env_kwargs={"opponents": args.opponents, "obs": args.obs, **own})
    else:
        venv = VecMonitor(MahjongSB3VecEnv(args.n_envs, rules=args.rules, opponents=args.opponents, obs=args.obs))
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=n_steps, batch_size=batch,
                        seed=args.seed, verbose=0)
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    trained = model.num_timesteps  # SB3 fills whole rollouts: --timesteps rounded up to n_envs x n_steps
    sps = trained / (time.perf_counter() - t0)
    points = evaluate(model, args.rules, args.opponents, args.eval_hands, seed=10_000, obs=args.obs)
    kind = "one-table envs" if args.one_table_envs else "tables in one batched VecEnv"
    print(f"trained {trained} steps at {sps:.0f} steps/s ({args.n_envs} {kind}); {points_text(points, args.opponents)}")
    return float(points.mean())


if __name__ == "__main__":
    guard_output("examples/sb3_maskable_ppo.py")  # what standard output cannot encode: an escape, not a UnicodeEncodeError
    main()
