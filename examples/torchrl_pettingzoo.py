"""TorchRL: the PettingZoo environment through ``PettingZooWrapper(use_mask=True)``.

TorchRL groups the four seats into one ``"player"`` group (a tensordict of shape [4]) with the
action mask in ``("player", "action_mask")``; a masked policy (here a uniform one over the legal
actions) fills ``("player", "action")``. This is the entry point for TorchRL's multi-agent PPO
(MAPPO/IPPO) recipes, with ``env.state()`` available to a centralized critic.

    pip install -e '.[examples]'
    python examples/torchrl_pettingzoo.py --steps 2000
    python examples/torchrl_pettingzoo.py --smoke
"""
from __future__ import annotations

import argparse
import time

import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

import mj_env


def masked_uniform(td):
    """A uniform choice among each agent's legal actions, written as ``("player", "action")``."""
    mask = td["player", "action_mask"]  # (4, 127); ("player", "mask") says which seat acts
    logits = torch.where(mask.bool(), torch.rand(mask.shape), torch.tensor(-1.0))
    td["player", "action"] = logits.argmax(dim=-1)
    return td


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="beijing", help="beijing, hebei or quemen")
    p.add_argument("--steps", type=int, default=2000, help="environment steps to roll out")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke", action="store_true", help="tiny settings: a few seconds")
    args = p.parse_args(argv)
    if args.smoke:
        args.steps = 200
    torch.manual_seed(args.seed)
    env = PettingZooWrapper(mj_env.env(rules=args.rules), use_mask=True, group_map={"player": list(
        mj_env.raw_env().possible_agents)}, seed=args.seed)
    t0 = time.time()
    td = env.rollout(args.steps, policy=masked_uniform, break_when_any_done=False)
    dt = time.time() - t0
    hands = int(td["next", "done"].sum())
    print(f"{td.shape[0]} steps ({hands} hands ended) at {td.shape[0] / dt:.0f} steps/s; "
          f"points summed over seats {td['next', 'player', 'reward'].sum().item():.0f}")
    return td


if __name__ == "__main__":
    main()
