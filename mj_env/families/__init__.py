"""Rule families: what differs between the scoring of ``beijing``, ``hebei`` and ``quemen``.

A RuleSet's ``scoring`` field names its family; ``FAMILIES[rules.scoring]`` is a `Family`
(``family.py``) holding everything family-specific: the pattern function of one reading, the
pattern order, the most fan of each pattern, the hand-payment rule, the kong table, whether 报听
doubles, a win whatever the shape (四惠牌), and the bound on one win's points. The generic code
looks these up and has no branch on the family's name:

=====================  ====================================================================
module                 generic part
=====================  ====================================================================
``mj_env.patterns``    readings of a won hand, shared pattern tests, the best reading
``mj_env.payments``    报听 doubling, 互包, 烧庄, base, kong settlement, drawn hands
``mj_env.calculator``  input checks, the calculator's answer, its bound on points
=====================  ====================================================================

Adding a fourth family (and its preset) takes what docs/modules.md lists, step by step: this
package's module and its entry in `FAMILIES` below, the preset and its field checks in
``mj_env.rules``, its Gymnasium id, the command lines' ``--rules`` choices, and its tests.
"""
from __future__ import annotations

from . import beijing, hebei, quemen
from .family import KONG_TYPES, Family, fan_from_each_payer

FAMILIES: dict[str, Family] = {f.name: f for f in (beijing.FAMILY, hebei.FAMILY, quemen.FAMILY)}
"""Every rule family by name (a RuleSet's ``scoring`` value)."""

__all__ = ["FAMILIES", "KONG_TYPES", "Family", "fan_from_each_payer"]
