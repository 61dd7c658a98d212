"""Stable-Baselines3 (sb3-contrib) MaskablePPO against the rule-based players.

The learner plays seat 0 of ``mj_env/Beijing-v0`` (one table per SB3 sub-environment); the three
rule-based opponents act inside each step. ``MaskablePPO`` reads ``env.action_masks()``.

    pip install -e '.[examples]'
    python examples/sb3_maskable_ppo.py --timesteps 200000 --n-envs 8
    python examples/sb3_maskable_ppo.py --smoke       # a few seconds, what CI runs
"""
from __future__ import annotations

import argparse
import time

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env

import mj_env  # noqa: F401  (registers mj_env/Beijing-v0)
from mj_env.baselines import BASELINES
from mj_env.rules import PRESETS

OPPONENTS = (*BASELINES, "pretrained", "pretrained:greedy", "pretrained:sample")
MAX_SEED = 2**32 - 1
"""The largest --seed: SB3 seeds NumPy's legacy generator, which takes 32 bits."""


def evaluate(model, rules: str, opponents: str, hands: int, seed: int) -> float:
    """Mean points per hand of the trained policy (sampling) over ``hands`` hands."""
    env = gym.make(f"mj_env/{rules.capitalize()}-v0", opponents=opponents)
    total = 0.0
    for h in range(hands):
        obs, _ = env.reset(seed=seed + h)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=get_action_masks(env.unwrapped), deterministic=False)
            obs, reward, done, _, _ = env.step(int(action))
            total += reward
    return total / hands


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="beijing", choices=sorted(PRESETS))
    p.add_argument("--opponents", default="rule", choices=OPPONENTS, metavar="NAME",
                   help="rule, random, efficient or pretrained[:greedy|:sample]")
    p.add_argument("--timesteps", type=int, default=200_000, help="learner decisions to train on")
    p.add_argument("--n-envs", type=int, default=8, help="SB3 sub-environments (one table each)")
    p.add_argument("--eval-hands", type=int, default=200, help="hands for the final evaluation")
    p.add_argument("--seed", type=int, default=0, help="0 to 2**32 - 1")
    p.add_argument("--smoke", action="store_true", help="tiny settings: a few seconds")
    args = p.parse_args(argv)
    for flag, value in (("--timesteps", args.timesteps), ("--n-envs", args.n_envs),
                        ("--eval-hands", args.eval_hands)):
        if value < 1:
            p.error(f"{flag} must be at least 1, got {value}")
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be between 0 and 2**32 - 1, got {args.seed}")
    torch.set_num_threads(1)  # small networks: extra threads only contend for the cores
    if args.smoke:
        args.timesteps, args.n_envs, args.eval_hands = 256, 2, 2
    env_id = f"mj_env/{args.rules.capitalize()}-v0"
    venv = make_vec_env(env_id, n_envs=args.n_envs, seed=args.seed, env_kwargs={"opponents": args.opponents})
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=128 if args.smoke else 512, batch_size=64,
                        seed=args.seed, verbose=0)
    t0 = time.time()
    model.learn(total_timesteps=args.timesteps)
    sps = args.timesteps / (time.time() - t0)
    score = evaluate(model, args.rules, args.opponents, args.eval_hands, seed=10_000)
    print(f"trained {args.timesteps} steps at {sps:.0f} steps/s; "
          f"{score:+.3f} points/hand over {args.eval_hands} hands vs {args.opponents}")
    return score


if __name__ == "__main__":
    main()
