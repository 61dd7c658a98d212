"""Tianshou on the PettingZoo environment: four masked policies, batched collection.

Tianshou's ``PettingZooEnv`` wraps ``mj_env.env()`` through ``mj_env.wrappers.NumericInfos``
(Tianshou checks infos for NaN and the settlement object holds ``None``). Each seat gets a policy
of Tianshou's multi-agent dispatcher; here all four are Tianshou's masked random policy, the
place to put a learner (e.g. a DQN over ``obs.obs``, the (14, 34) planes, with ``obs.mask``).

    pip install -e '.[examples]'
    python examples/tianshou_pettingzoo.py --envs 4 --episodes 40
    python examples/tianshou_pettingzoo.py --smoke
"""
from __future__ import annotations

import argparse
import time

from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import mj_env
from mj_env.wrappers import NumericInfos


def make_env(rules: str):
    return PettingZooEnv(NumericInfos(mj_env.env(rules=rules)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="beijing", help="beijing, hebei or quemen")
    p.add_argument("--envs", type=int, default=4, help="tables collected in parallel (DummyVectorEnv)")
    p.add_argument("--episodes", type=int, default=40, help="hands to collect")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke", action="store_true", help="tiny settings: a few seconds")
    args = p.parse_args(argv)
    if args.smoke:
        args.envs, args.episodes = 2, 2
    env = make_env(args.rules)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents], env=env)
    envs = DummyVectorEnv([lambda: make_env(args.rules) for _ in range(args.envs)])
    envs.seed(args.seed)
    collector = Collector(algorithm, envs, VectorReplayBuffer(20_000, args.envs))
    collector.reset()
    t0 = time.time()
    stats = collector.collect(n_episode=args.episodes, reset_before_collect=True)
    dt = time.time() - t0
    print(f"collected {stats.n_collected_episodes} hands, {stats.n_collected_steps} decisions "
          f"at {stats.n_collected_steps / dt:.0f} decisions/s")
    return stats


if __name__ == "__main__":
    main()
