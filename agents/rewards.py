"""Reward options for training: what a learner is paid, and what that makes it optimise.

The environment pays each seat its settled points when a hand ends (docs/RULES.md 6, zero-sum).
``RewardTransform`` turns those into the learner's reward and, for shaping, adds a potential
term at the learner's decisions. Choose with ``train.py --reward``:

==========  ==========================================  =====================================
kind        reward of a seat                            what it optimises
==========  ==========================================  =====================================
points      the settled points of the hand (default)    expected points: the game's own goal;
                                                        large hands and 烧庄 dominate
scaled      points / ``scale``                          the same policy as ``points``; only
                                                        the size of values and gradients
                                                        changes (steadier value loss)
sign        +1 / -1 / 0 by the sign of the points       the chance of gaining minus the
                                                        chance of losing; ignores how much,
                                                        so it favours fast cheap wins and
                                                        avoids dealing in at any cost
shaped      points / ``scale`` plus, at each decision,  the same optimum as ``scaled``
            F = gamma * Phi(s') - Phi(s), with          (potential-based shaping, Ng, Harada
            Phi(s) = -``shaping_coef`` * distance(s)    and Russell 1999), but dense feedback
            and Phi = 0 once the hand is over           from the first discard: a step that
                                                        brings the hand closer to a win is
                                                        paid at once
==========  ==========================================  =====================================

``distance(s)`` is the number of tiles the seat's concealed hand still needs to hold a win:
``mj_env.hand.tiles_to_win`` with its 惠牌 as wildcards (``agents.rule_based.hand_distance``)
for a 3k+2 hand (own turn: 0 = a winning hand), plus one for a 3k+1 hand (claim window: 0
exchanges means ready, one tile still to come). So a hand one tile from winning has the same
potential in both kinds of decision. Over a seat's hand the shaping terms telescope to
``-Phi(first decision)`` (with gamma = 1), which no action can change: that is why the optimal
policy is the one of the unshaped reward.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from mj_env.features import own_meld_suits
from mj_env.messages import brief, shown
from mj_env.rules import RuleSet, get_rules

from .rule_based import hand_distance

REWARD_KINDS = ("points", "scaled", "sign", "shaped")


def _number(value, name: str, what: str, ok) -> float:
    """``value`` as a float if it is a finite real number (a NumPy one too) for which ``ok`` holds; else a
    TypeError or ValueError that calls it ``name`` and says it must be ``what``."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {what}, not {brief(value)}")
    if not (math.isfinite(value) and ok(value)):
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return float(value)


class RewardTransform:
    """The reward option ``kind`` (module docstring) for rule set ``rules``.

    - ``hand_end(points)``: (...) settled points of a hand -> the reward paid at its end;
    - ``potential(planes)``: (n, 14, 34) observations at the learner's decisions -> (n,) Phi
      (all zero unless ``kind == "shaped"``); the trainer (``train.Rollout.add`` and ``pay``, with its
      own ``--gamma``) adds ``gamma * Phi(s') - Phi(s)`` to the reward of a seat's decision s when its
      next decision s' comes, and ``-Phi(s)`` at the end of the hand.
    """

    def __init__(self, kind: str = "points", rules: str | RuleSet = "beijing", scale: float = 4.0,
                 shaping_coef: float = 0.25):
        """``scale`` a finite number above 0, ``shaping_coef`` a finite number (NumPy numbers too): else a
        TypeError (not a number) or ValueError naming it, as for an unknown ``kind``."""
        if not isinstance(kind, str) or kind not in REWARD_KINDS:
            raise ValueError(f"unknown reward {brief(kind)}; choose one of {', '.join(REWARD_KINDS)}")
        scale = _number(scale, "reward scale", "a finite number above 0", lambda v: v > 0)
        shaping_coef = _number(shaping_coef, "shaping_coef", "a finite number", lambda v: True)
        self.kind = kind
        self.rules = get_rules(rules)
        self.scale, self.shaping_coef = scale, shaping_coef

    @property
    def shaping(self) -> bool:
        return self.kind == "shaped"

    def hand_end(self, points) -> np.ndarray:
        p = np.asarray(points, dtype=np.float32)
        if self.kind == "points":
            return p
        if self.kind == "sign":
            return np.sign(p)
        return p / np.float32(self.scale)

    def potential(self, planes: np.ndarray) -> np.ndarray:
        planes = np.asarray(planes)
        if not self.shaping or len(planes) == 0:
            return np.zeros(len(planes), dtype=np.float32)
        counts = planes[:, 0].astype(np.int8)
        hui = np.where(planes[:, 10].any(axis=1), planes[:, 10].argmax(axis=1), -1)
        dist = hand_distance(self.rules, counts, hui, own_meld_suits(planes)).astype(np.float32)
        size = counts.sum(axis=1)
        dist += (size % 3 == 1)  # 3k+1: one tile still to come
        return (-self.shaping_coef * dist).astype(np.float32)
