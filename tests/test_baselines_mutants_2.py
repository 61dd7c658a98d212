"""Tests from a second mutation round on mj_env/baselines.py (the mutants left untried by the first round, see
tests/test_baselines_wrappers_mutants.py): each pins a documented behaviour that a one-token change of the code
left unnoticed by every other test (the mutant is named in each docstring)."""
from __future__ import annotations

import numpy as np
import pytest
from agent_obs import _claim_obs, _turn_obs

from mj_env import actions as A
from mj_env.baselines import EfficientAgent, RuleBasedAgent


@pytest.mark.parametrize("agent", [RuleBasedAgent(), EfficientAgent()], ids=lambda a: a.name)
def test_rule_agents_refuse_a_row_without_a_legal_action_by_name(agent):
    """``check_rows_have_actions``: a row that allows nothing ("a table that ended was passed to an agent") is named
    as such by the rule and efficient agents, as by the random one (a mutant dropping the check from
    ``RuleBasedAgent.act`` went unnoticed: ``check_positions`` then refused the row as no position instead)."""
    a, b = _turn_obs("123m456p789s11z567z"), _turn_obs("123m456p789s11z567z")
    obs = {k: np.concatenate([a[k], b[k]]) for k in a}
    obs["action_mask"][1] = 0
    with pytest.raises(ValueError, match="row 1 of the action mask has no legal action"):
        agent.act(obs, np.random.default_rng(0))


def test_rule_agent_never_returns_an_action_its_mask_forbids():
    """``RuleBasedAgent.act``: "a bug here must never reach the engine as an illegal move": a choice the mask forbids
    raises an AssertionError naming the action and the row (mutants skipping that check, or the raise, went
    unnoticed: no correct agent chooses an illegal action). A subclass whose claim choice is broken shows it."""
    class Broken(RuleBasedAgent):
        def _claim(self, o, hands, hui, mask, rng):
            return np.full(len(o), A.PONG, dtype=np.int64)

    a = _turn_obs("123m456p789s11z567z")
    c = _claim_obs("123m456p79s5z12z99m", "3z", [])
    obs = {k: np.concatenate([a[k], c[k]]) for k in a}
    assert RuleBasedAgent().act(obs, np.random.default_rng(0))[1] == A.PASS
    with pytest.raises(AssertionError, match="rule agent chose illegal action 'pong' in row 1"):
        Broken().act(obs, np.random.default_rng(0))


def test_nearest_discards_are_the_legal_keys_within_half_a_tile_of_the_least():
    """``nearest_discards``: the legal keys (below ``ILLEGAL_KEY``) within the tie range of the row's smallest; a row
    allowing no discard has none, its smallest key inf (a mutant reading ``<= ILLEGAL_KEY`` as legal went unnoticed:
    it gave all 34 kinds of such a row, at the illegal key)."""
    ill = RuleBasedAgent.ILLEGAL_KEY
    key = np.full((3, 34), ill)
    key[0, [3, 5, 9]] = [2000.0, 2499.0, 2501.0]
    key[2, 7] = 1e6 + 1000.0  # a 惠牌 alone may go
    r, t, low = RuleBasedAgent.nearest_discards(key)
    assert list(zip(r.tolist(), t.tolist())) == [(0, 3), (0, 5), (2, 7)]
    assert low.tolist() == [2000.0, np.inf, 1e6 + 1000.0]


def test_rule_agent_drops_an_untakeable_chi_of_one_row_beside_a_takeable_one_of_another():
    """``consider``: a chi option the hand cannot take is left out with its action, so that the rows kept keep their
    own actions. Row 0's mask allows chi 123m of a 3m it cannot make (no 1m, 2m); row 1 takes chi 123m (a mutant
    keeping the actions of the options left out went unnoticed: the test above is a pong, one row)."""
    a = _claim_obs("45m9m456p789s11z99p", "3m", [A.CHI + 0])
    b = _claim_obs("12m45m9m456p789s11z", "3m", [A.CHI + 0])
    obs = {k: np.concatenate([a[k], b[k]]) for k in a}
    assert RuleBasedAgent().act(obs, np.random.default_rng(0)).tolist() == [A.PASS, A.CHI + 0]


@pytest.mark.parametrize(("hand", "tile", "chi"), [("4m1p44p55p66p7p3s4s99s", "5p", "chi 456p"),
                                                   ("1m22m3m1p4p66p7p8p1s6s7s", "2m", "chi 123m")])
def test_rule_agent_takes_a_chi_one_tile_closer_over_a_pong_offered_beside_it(hand, tile, chi):
    """``consider``: "the bonus only orders claims of equal distance": a pong's 0.1 must not outweigh a chi that
    leaves the hand a whole tile closer (mutant 486 of the second round, a pong bonus of 1.1, went unnoticed: it
    kept the pong as the best claim, no nearer than the hand already was, and so passed)."""
    obs = _claim_obs(hand, tile, [A.PONG, A.index(chi)])
    assert A.name(int(RuleBasedAgent().act(obs, np.random.default_rng(0))[0])) == chi
