"""mj_env: Beijing mahjong (惠牌 wildcards), Hebei and 缺门 rules as a batched NumPy engine.

- ``mj_env.env(rules="beijing", ...)``: PettingZoo AEC environment for one table.
- ``mj_env.vector.MahjongVectorEnv``: natively batched environment for training.
- ``python -m mj_env.score``: the hand calculator (JSON lines).
"""
from .rules import BEIJING, HEBEI, QUEMEN, RuleSet, get_rules

__all__ = ["BEIJING", "HEBEI", "QUEMEN", "RuleSet", "env", "get_rules", "raw_env"]


def env(rules="beijing", render_mode=None, **kwargs):
    """The PettingZoo AEC environment (see ``mj_env.aec``)."""
    from .aec import env as _env

    return _env(rules=rules, render_mode=render_mode, **kwargs)


def raw_env(rules="beijing", render_mode=None, **kwargs):
    """The unwrapped AEC environment (see ``mj_env.aec``)."""
    from .aec import raw_env as _raw_env

    return _raw_env(rules=rules, render_mode=render_mode, **kwargs)
