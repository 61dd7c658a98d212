"""The efficient (进张) baseline, ``mj_env.baselines.EfficientAgent``, against a plain reference on random
positions: the rule agent's decision everywhere except which nearest discard it makes, and there the one
after which the most unseen tiles would bring the hand closer."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import actions as A
from mj_env import features as F
from mj_env.baselines import BASELINES, EfficientAgent, RuleBasedAgent, make_baseline
from mj_env.observation import COL_PHASE, P_HAND, P_SCALARS
from mj_env.rules import get_rules
from mj_env.state import TURN
from mj_env.vector import MahjongVectorEnv
from tests.test_features import ref_improve, ref_need


def reference_discards(rules, counts: list[int], hui: int, unseen: list[int], legal: np.ndarray) -> set[int]:
    """The kinds the efficient agent may discard: among the legal ones (a 惠牌 only when nothing else is
    legal), those of least need, and among them those with the most improving unseen tiles."""
    kinds = [k for k in np.flatnonzero(legal) if k != hui] or [int(hui)]
    need = {k: ref_need(rules, [c - (j == k) for j, c in enumerate(counts)], hui) for k in kinds}
    nearest = [k for k in kinds if need[k] == min(need.values())]
    imp = {k: ref_improve(rules, [c - (j == k) for j, c in enumerate(counts)], hui, unseen) for k in nearest}
    return {k for k in nearest if imp[k] == max(imp.values())}


@pytest.mark.parametrize("rules_name", ["beijing", "hebei", "quemen"])
def test_efficient_agent_is_the_rule_agent_with_the_most_improving_discard(rules_name):
    rules = get_rules(rules_name)
    n = 16
    env = MahjongVectorEnv(num_envs=n, rules=rules_name, seed=11)
    obs, _ = env.reset(seed=11)
    eff, rule = EfficientAgent(rules_name), RuleBasedAgent(rules_name)
    rng = np.random.default_rng(11)
    checked = differ = same_elsewhere = 0
    for step in range(70):
        a = eff.act(obs, rng)
        mask = obs["action_mask"].astype(bool)
        assert mask[np.arange(n), a].all(), "an illegal action was chosen"
        b = rule.act(obs, np.random.default_rng(step))
        o = obs["observation"]
        hui = F.hui_kind(o)
        unseen = F.unseen_counts(o)
        for i in range(n):
            kind = a[i] - A.TING if A.TING <= a[i] < A.TING + 34 else a[i] - A.DISCARD
            if o[i, P_SCALARS, COL_PHASE] != TURN or not 0 <= kind < 34:  # claims, wins, kongs: the rule agent's
                assert a[i] == b[i], (rules_name, step, i, A.name(int(a[i])), A.name(int(b[i])))
                same_elsewhere += 1
                continue
            if b[i] < 34 or A.TING <= b[i] < A.TING + 34:
                differ += int(a[i] != b[i])
            if checked < 48:  # the plain reference is slow: a sample of the turns
                legal = mask[i, :34] | mask[i, A.TING:A.TING + 34]
                allowed = reference_discards(rules, o[i, P_HAND].astype(int).tolist(), int(hui[i]),
                                             unseen[i].tolist(), legal)
                assert kind in allowed, (rules_name, step, i, kind, allowed)
                checked += 1
        obs, _, _, _, _ = env.step(a)
    assert checked == 48 and same_elsewhere > 50
    assert differ > 0, "the efficient agent never discarded otherwise than the rule agent"


def test_efficient_is_a_baseline_name():
    assert "efficient" in BASELINES
    agent = make_baseline("efficient", "quemen")
    assert isinstance(agent, EfficientAgent) and agent.name == "efficient" and agent.rules.name == "quemen"
