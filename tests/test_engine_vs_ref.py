"""The batched engine against the plain reference engine (tests/ref_engine.py), decision by
decision: same walls, same random legal actions; every phase, seat to act, legal set and the
final settlement must agree. Many tables are stepped together, so this also checks batching."""
from __future__ import annotations

import os

import numpy as np
import pytest
from ref_engine import RefGame

from mj_env import actions as A
from mj_env.engine import Engine
from mj_env.rules import get_rules
from mj_env.state import PHASE_NAMES
from mj_env.wall import shuffled_walls

HANDS = int(os.environ.get("MJ_REF_HANDS", "48"))


_INPUT_DEFAULTS = {"flowers": 0, "ting": False, "shaozhuang_rounds": 0, "hubao": []}


def _norm(obj):
    """Settlement objects compared without key order; tuples and lists alike; calculator inputs
    with their optional fields filled in with the calculator's defaults."""
    if isinstance(obj, dict):
        if "win_tile" in obj:
            obj = {**_INPUT_DEFAULTS, **obj}
        # the engine also shows the kong payments apart; the totals in "scores" must agree
        return {k: _norm(v) for k, v in obj.items() if k not in ("kong_scores", "hand_scores")}
    if isinstance(obj, (list, tuple)):
        return [_norm(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def play_both(rules, n_tables: int, seed: int, claim_bias: float = 0.5):
    """Play ``n_tables`` random episodes on both engines; returns each table's last settlement. Under
    ``hands_per_episode`` > 1 every hand of the match is compared: when a hand ends and the match goes on,
    the engine's next dealer must be the reference's ``next_dealer`` (docs/RULES.md 2, ``dealer_rotation``),
    and a new reference game is dealt the wall the engine dealt."""
    rng = np.random.default_rng(seed)
    walls = shuffled_walls(rules, rng, n_tables)
    dealers = rng.integers(0, 4, n_tables)
    eng = Engine(rules, num_tables=n_tables, seed=seed)  # (the seed deals a match's later hands)
    res = eng.reset(walls=walls, dealers=dealers)
    refs = [RefGame(rules, list(walls[i]), int(dealers[i])) for i in range(n_tables)]
    results = [None] * n_tables
    _check_ended(eng, res, refs, results, -1)  # a hand may end at the deal (the dealer's 四惠牌, quemen flowers)
    for step in range(2000 * rules.hands_per_episode):
        mask = eng.legal_mask()
        st = eng.state
        acts = np.zeros(n_tables, dtype=np.int64)
        for i, g in enumerate(refs):
            if results[i] is not None:
                continue
            assert PHASE_NAMES[st.phase[i]] == g.phase, (i, step)
            assert int(st.to_act[i]) == g.to_act, (i, step, g.phase)
            legal = sorted(np.flatnonzero(mask[i]).tolist())
            assert legal == sorted(g.legal()), (i, step, g.phase, [A.name(a) for a in legal],
                                                 [A.name(a) for a in g.legal()])
            # lean towards claims and wins so that rare paths are exercised
            claims = [a for a in legal if a not in (A.PASS,) and a >= A.WIN]
            if claims and rng.random() < claim_bias:
                acts[i] = rng.choice(claims)
            else:
                acts[i] = rng.choice(legal)
        res = eng.step(acts)
        for i, g in enumerate(refs):
            if results[i] is None:
                g.step(int(acts[i]))
        _check_ended(eng, res, refs, results, step)
        if all(r is not None for r in results):
            return results
    raise AssertionError("hands did not end")


def _check_ended(eng, res, refs, results, step):
    """The tables still playing before ``res`` (a reset's or a step's result): a hand the engine ended
    is at END in the reference too, with the same settlement and rewards; the others play on in both.
    A match that goes on continues in a new reference game (``refs[i]``) on the engine's next wall."""
    for i, g in enumerate(refs):
        if results[i] is not None:
            continue
        if res.hand_over[i]:
            assert g.phase == "END", (i, step)
            assert _norm(res.settlements[i]) == _norm(g.result), (i, res.settlements[i], g.result)
            assert res.rewards[i].tolist() == list(g.result["scores"])
            if res.episode_over[i]:
                results[i] = res.settlements[i]
                continue
            assert int(eng.state.dealer[i]) == g.next_dealer, (i, step, g.winners, g.dealer)
            refs[i] = RefGame(eng.rules, list(eng.state.wall[i]), g.next_dealer)
            if refs[i].phase == "END":  # the next hand ended at its deal too: its settlement replaced this
                results[i] = res.settlements[i]  # one in ``res``; rare, the table is left there
        else:
            assert g.phase != "END", (i, step, g.result)


@pytest.mark.parametrize("seed", range(HANDS // 16))
def test_beijing_matches_reference(seed):
    play_both(get_rules("beijing"), 16, seed)


@pytest.mark.parametrize("seed", range(2))
def test_beijing_hui_in_melds_matches_reference(seed):
    play_both(get_rules("beijing", hui_wild_in_melds=True), 16, 100 + seed)


@pytest.mark.parametrize("seed", range(2))
def test_beijing_multiple_winners_matches_reference(seed):
    """Every Decision field off its default once: several winners on a discard, 烧庄 on a draw off."""
    play_both(get_rules("beijing", multiple_winners=True, shaozhuang_on_draw=False), 16, 300 + seed)


@pytest.mark.parametrize("preset", ["hebei", "quemen"])
@pytest.mark.parametrize("seed", range(2))
def test_other_presets_match_reference(preset, seed):
    play_both(get_rules(preset), 16, 200 + seed)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen", "beijing_hui_in_melds"])
def test_many_hands_match_reference(preset):
    rules = get_rules("beijing", hui_wild_in_melds=True) if preset == "beijing_hui_in_melds" else get_rules(preset)
    for seed in range(40):
        play_both(rules, 32, 1000 + seed)


WALL_VARIANTS = {  # the wall layout apart from 惠牌 (RuleSet.wall_layout)
    "beijing_without_hui": get_rules("beijing", hui=False),  # the indicator and reserve, no wildcard
    "beijing_tail_wall": get_rules("beijing", hui=False, wall_layout="tail", tail_stacks_kept=6),
    "hebei_indicator_wall": get_rules("hebei", wall_layout="indicator", reserve=10),
}


@pytest.mark.parametrize("variant", sorted(WALL_VARIANTS))
def test_wall_layouts_match_reference(variant):
    play_both(WALL_VARIANTS[variant], 16, 400)
