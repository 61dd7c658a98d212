"""Review of the session-29 changes (44ac7f0..06afc25): what their tests left open.

- ``ForwardsSettings.last`` after ``close()`` said it was closed only once the hand had ended; closed in the middle of
  a hand FlatObservations and NumericInfos named ``observe()`` (not ``last()``), and closed before any ``reset()``
  they gave the AttributeError of an env never reset, where ``mj_env.env()`` gives its RuntimeError in each case.
- ``records.MAX_SETTLEMENT_DEPTH``: no test played a settlement as deep as a real one can be (hebei, several
  winners on one discard, one with a meld: wins, a win, its input, its melds, a meld: 6 levels); a limit of 5 let
  every records test pass while refusing such a record as "nested too deeply"."""
from __future__ import annotations

import json

import pytest

from mj_env import records


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def test_real_settlements_with_several_winners_and_melds_replay_well_within_the_depth_limit(tmp_path):
    """docs/RULES.md: hebei pays every player who can win on a discard; each win's input lists its melds."""
    pytest.importorskip("scipy")  # the train extra: the arena's intervals
    from agents.arena import main as arena_main

    path = tmp_path / "hands.jsonl"
    arena_main(["--agents", "rule,efficient", "--rules", "hebei", "--hands", "50", "--seed", "0", "--record",
                str(path), "--quiet"])
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    several = [r for r in recs if len(r["settlement"].get("wins") or []) > 1
               and any(w["input"]["melds"] for w in r["settlement"]["wins"])]
    assert several, "no hand of several winners with a meld among these walls: pick others"
    for rec in several:
        assert _depth(rec["settlement"]) == 6
        records.replay(rec)  # a RecordError if refused as nested too deeply
    assert max(_depth(r["settlement"]) for r in recs) <= records.MAX_SETTLEMENT_DEPTH // 8  # ample headroom
