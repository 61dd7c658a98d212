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

Adding a fourth family takes:

1. a module ``mj_env/families/<name>.py`` that ends with ``FAMILY = Family(name="<name>", ...)``
   (its ``patterns_of``, ``order``, ``pattern_fan``, ``hand_payments``, ``kong_table``,
   ``max_points_per_base``, and where they apply ``special_win``, ``ting_doubles``,
   ``refusal``); the shared pattern tests of ``mj_env.patterns`` are there to reuse;
2. its entry in `FAMILIES` below;
3. its tests: a case table ``tests/cases/<name>_hands.json`` (every pattern scored by one case
   and named as almost-but-not by another, ``tests/case_tables.py``) and a plain reference
   scorer compared on random hands, as ``tests/test_scoring_hebei.py`` does.

The rule set itself is data in ``mj_env.rules``: a family is played through a preset of the
same name (``rules.Scoring``, ``PRESET_NAMES``, the preset's fields, and the checks of rule
fields that only it reads); ``tests/test_families.py`` holds the two lists equal.
"""
from __future__ import annotations

from . import beijing, hebei, quemen
from .family import KONG_TYPES, Family, fan_from_each_payer

FAMILIES: dict[str, Family] = {f.name: f for f in (beijing.FAMILY, hebei.FAMILY, quemen.FAMILY)}
"""Every rule family by name (a RuleSet's ``scoring`` value)."""

__all__ = ["FAMILIES", "KONG_TYPES", "Family", "fan_from_each_payer"]
