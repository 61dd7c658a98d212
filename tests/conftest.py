"""Fixtures shared by the scripted-scenario tests (tests/test_scenarios.py, tests/test_readings_64.py)."""
from __future__ import annotations

import pytest
from fast_game import BatchedFastGame, FastGame
from ref_engine import END, RefGame
from scenario_helpers import BEIJING, settled
from walls import build_wall


@pytest.fixture(params=[RefGame, FastGame, BatchedFastGame], ids=["ref", "fast", "batched"])
def new_game(request):
    """A factory of games of the engine under test, the reference ``RefGame`` and the batched engine through
    ``FastGame`` (one table) and ``BatchedFastGame`` (table 0 of three): ``new_game(rules, dealer, **layout)`` with ``build_wall``'s layout (hands, draws, indicator,
    tail, seed), or ``wall=`` a full wall. Every game that ended is checked by ``settled`` (zero-sum, legal
    wins, rewards = scores on the batched engine)."""
    made = []

    def make(rules=BEIJING, dealer=0, wall=None, **layout):
        if wall is None:
            if rules.hui:
                layout.setdefault("indicator", "9s")
            wall = build_wall(rules, dealer=dealer, **layout)
        g = request.param(rules, wall, dealer)
        made.append(g)
        return g

    yield make
    for g in made:
        if g.phase == END:
            settled(g)
