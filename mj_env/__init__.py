"""mj_env: Beijing mahjong (惠牌 wildcards), Hebei and 缺门 rules as a batched NumPy engine.

- ``mj_env.env(rules="beijing", ...)``: PettingZoo AEC environment for one table;
  ``mj_env.raw_env`` is its class (PettingZoo's classic-env convention).
- ``gymnasium.make("mj_env/Beijing-v0", opponents="rule")`` (also ``Hebei``, ``Quemen``): the
  learner plays one seat against opponent agents; ``gymnasium.make_vec(...,
  vectorization_mode="vector_entry_point")`` gives N tables at once (``mj_env.single_agent``).
- ``mj_env.vector.MahjongVectorEnv``: natively batched self-play environment (all four seats).
- ``mj_env.wrappers``: small adapters for RLlib, Tianshou and TorchRL.
- ``python -m mj_env.score``: the hand calculator (JSON lines).
"""
from typing import TYPE_CHECKING

# docs/INTERFACES.md 2 names mj_env.actions.name and .index: reachable after `import mj_env` alone
from . import actions
from .registration import RULE_IDS, register_envs
from .rules import BEIJING, HEBEI, QUEMEN, RuleSet, RulesSpec, get_rules

if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ (below) imports it on first use
    from .aec import raw_env

__all__ = ["BEIJING", "HEBEI", "QUEMEN", "RULE_IDS", "RuleSet", "actions", "env", "get_rules", "raw_env"]

register_envs()


def env(rules: RulesSpec = "beijing", render_mode: str | None = None, **kwargs):
    """The PettingZoo AEC environment (see ``mj_env.aec``)."""
    from .aec import env as _env

    return _env(rules=rules, render_mode=render_mode, **kwargs)


def __getattr__(name):
    # raw_env is the AEC class itself; imported on first use so that the calculator and the
    # engine do not load PettingZoo
    if name == "raw_env":
        from .aec import raw_env

        return raw_env
    raise AttributeError(f"module 'mj_env' has no attribute {name!r}")
