"""Tests from a mutation round on the rule agent (``mj_env.baselines.RuleBasedAgent`` and its helpers, which
``agents/rule_based.py``, ``agents/random_agent.py`` and ``agents/base.py`` re-export) and
``mj_env/registration.py``: each pins a promise of the module docstring of ``mj_env.baselines`` (the table of the
rule agent's decisions, and ``RandomAgent``'s) that a one-token change of the code broke unnoticed by every other
test; the mutant is named in each docstring by line and change of mj_env/baselines.py. The round tried every mutant
of lines 285-534 (``uniform_legal`` to ``EfficientAgent``, 340 of them, float constants, min/max, argmin/argmax and
``&``/``|`` swaps included) and the 4 of mj_env/registration.py (all killed); the three ``agents`` modules hold
re-exports only, nothing to mutate. Of the 58 survivors, the 5 below were gaps; the others change nothing a caller
can see (a sentinel or a weight scaled within its documented range, an empty batch handled either way, a claim
bonus whose order the consideration order already gives, an exposed kong never claimed)."""
from __future__ import annotations

import numpy as np
import pytest
from agent_obs import _choices, _claim_obs, _turn_obs

from mj_env import actions as A
from mj_env import features as F
from mj_env.baselines import RandomAgent, RuleBasedAgent


def test_an_honor_pair_is_kept_over_a_less_connected_suit_tile():
    """Module docstring, discard ties: "the most isolated tile (fewest tiles of the same kind and within two ranks in
    its suit), honors and terminals first"; ``_EDGE_BONUS`` only orders equally connected tiles. In 77m66888p23455s66z
    discarding 2s (a neighbour and a tile two ranks away: 1.5) or one 6z of the pair (2) leaves the same distance:
    2s goes. (Mutant: the honors' bonus 0.3 doubled to 0.6, which outweighs the 0.5 between two connectednesses,
    discarded the pair's 6z in some draws.)"""
    assert _choices(RuleBasedAgent(), _turn_obs("77m66888p23455s66z")) == {"discard 2s"}


def test_an_illegal_choice_is_named_by_its_first_row():
    """``RuleBasedAgent.act``'s guard ("a bug here must never reach the engine as an illegal move") names the first
    row whose choice the mask forbids: a subclass whose claim choice is broken picks pong in claim rows 1 and 2, and
    the error names row 1 (mutant: line 394, ``np.flatnonzero(bad)[0]`` made ``[-1]``, named row 2; the test of
    the third round has one bad row only)."""
    class Broken(RuleBasedAgent):
        def _claim(self, o, hands, hui, mask, rng):
            return np.full(len(o), A.PONG, dtype=np.int64)

    a = _turn_obs("123m456p789s11z567z")
    c = _claim_obs("123m456p79s5z12z99m", "3z", [])
    obs = {k: np.concatenate([a[k], c[k], c[k]]) for k in a}
    with pytest.raises(AssertionError, match="rule agent chose illegal action 'pong' in row 1$"):
        Broken().act(obs, np.random.default_rng(0))


def test_chi_options_are_weighed_in_one_pass_per_option_rank_not_one_per_table(monkeypatch):
    """Module docstring, "batched": the chi options of a claim window are weighed for all tables at once, one pass
    per option of a row (the first option of every row, then the second, ...), not one pass per table or option.
    Eight tables each offered chi 123m and chi 345m of a 3m take two passes of ``features.claim_takeable``, and each
    table takes chi 123m as one table alone does (the first of equal options). (Mutant: line 509, the rank of an
    option within its row computed with ``+`` for ``-``, so that every option of every table took a pass of its own:
    the same choices, sixteen passes.)"""
    one = _claim_obs("12m45m9m456p789s11z", "3m", [A.CHI + 0, A.CHI + 2])
    alone = RuleBasedAgent().act(one, np.random.default_rng(0))
    assert A.name(int(alone[0])) == "chi 123m"
    calls = []
    takeable = F.claim_takeable
    monkeypatch.setattr(F, "claim_takeable", lambda *args: calls.append(len(args[0])) or takeable(*args))
    obs = {k: np.concatenate([one[k]] * 8) for k in one}
    assert RuleBasedAgent().act(obs, np.random.default_rng(0)).tolist() == [int(alone[0])] * 8
    assert calls == [8, 8]


def test_the_hui_is_kept_when_the_mask_lets_another_tile_go_at_the_same_distance():
    """Module docstring, discard: "never a 惠牌 unless nothing else may be discarded" (``HUI_DISCARD``). With every
    held kind allowed, discarding the 惠牌 leaves a tile more than the best other discard (it is a wildcard; so in
    each of 3000 random beijing hands tried), so only a mask that leaves the nearer discards out reaches the rule: in 12m114568p23378s6z (惠牌 6z) discarding
    1m or the 6z leaves the same distance, and with only those two allowed the agent discards 1m. (Mutant: line 421,
    ``np.where``'s first two arguments swapped, which added 1 rather than ``HUI_DISCARD`` to the 惠牌's key: the
    isolated 6z then went, in every draw.)"""
    obs = _turn_obs("12m114568p23378s6z", hui="6z")
    obs["action_mask"][0, :34] = 0
    obs["action_mask"][0, [A.index("discard 1m"), A.index("discard 6z")]] = 1
    assert _choices(RuleBasedAgent(), obs) == {"discard 1m"}
    only = _turn_obs("12m114568p23378s6z", hui="6z")
    only["action_mask"][0, :34] = 0
    only["action_mask"][0, A.index("discard 6z")] = 1
    assert _choices(RuleBasedAgent(), only) == {"discard 6z"}  # nothing else may go


def test_the_random_agent_picks_each_legal_action_about_equally_often():
    """``RandomAgent`` (``uniform_legal``): "uniform over the legal actions (a claim window's pass included)". 3000
    rows of one claim window allowing pass, pong and a chi each take every one of them about a third of the time.
    (Mutant: line 298, ``np.where``'s first two arguments swapped, which took the mask where the uniforms were
    nonzero: always the first legal action.)"""
    one = _claim_obs("12m45m9m456p789s33m", "3m", [A.PONG, A.CHI + 0])
    obs = {k: np.concatenate([one[k]] * 3000) for k in one}
    got = RandomAgent().act(obs, np.random.default_rng(0))
    share = np.bincount(got, minlength=A.N_ACTIONS)[[A.PASS, A.PONG, A.CHI + 0]] / len(got)
    assert np.allclose(share, 1 / 3, atol=0.04), share
