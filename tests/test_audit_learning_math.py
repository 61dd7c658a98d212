"""train.py's rollout bookkeeping and GAE end to end, against a reference written here from the module docstring
(a decision's reward is what its seat is paid before its next decision, shaped by gamma * Phi(next) - Phi(now),
Phi(terminal) = 0; the points of a hand ended at its deal go to no decision; GAE along each (table, seat) chain;
a chain cut by the rollout's end bootstraps from its seat's own next decision and is trained in a later rollout).

test_train_internals pins one rollout's links and rewards, test_train_smoke the GAE of ``Rollout`` fed by hand;
here the real ``collect_rollout`` runs three rollouts in a row (decisions carried over, opponents at some tables,
hands ending and dealt again) and every advantage and return is recomputed from what the env did.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from test_train_internals import SMALL
from walls import deals_first, four_hui_wall, tian_hu_wall

import train
from agents.networks import build_network, model_inputs
from agents.rewards import RewardTransform
from mj_env import actions as A
from mj_env import engine as engine_module
from mj_env.vector import MahjongVectorEnv


class Trace:
    """A MahjongVectorEnv that keeps, per step, the observation acted on, the seating, the rewards, the hand
    ends, the episode ends and the points of hands ended at their deal."""

    def __init__(self, env, seats):
        self.env, self.seats, self.steps = env, seats, []

    def reset(self, **kw):
        self.last, info = self.env.reset(**kw)
        return self.last, info

    def step(self, actions):
        out = self.env.step(actions)
        n = len(actions)
        self.steps.append({"obs": {k: np.array(v) for k, v in self.last.items()}, "learner": self.seats.learner.copy(),
                           "rewards": np.array(out[1]), "term": np.array(out[2]),
                           "hand": np.array(out[4]["_settlement"]),
                           "deal": np.array(out[4].get("deal_points", np.zeros((n, 4))))})
        self.last = out[0]
        return out


def reference(steps, model, shaper, gamma, lam):
    """{(step, table): (advantage or None while its outcome is unknown, value)} for the learner's decisions in
    ``steps``, computed decision by decision from the trace alone."""
    dec, order, open_ = {}, [], {}
    for k, st in enumerate(steps):
        seat = st["obs"]["seat"]
        for t in range(len(seat)):
            s = int(seat[t])
            if not st["learner"][t, s]:
                continue
            planes = st["obs"]["observation"][t:t + 1]
            x = torch.as_tensor(model_inputs(model, planes, st["obs"]["action_mask"][t:t + 1]))
            with torch.no_grad():
                v = model.get_value(x).item()
            d = {"v": v, "phi": float(shaper.potential(planes)[0]), "r": 0.0, "next": None, "done": False}
            if (t, s) in open_:
                before = dec[open_[(t, s)]]
                before["next"] = (k, t)
                before["r"] += gamma * d["phi"] - before["phi"]
            dec[(k, t)] = d
            order.append((k, t))
            open_[(t, s)] = (k, t)
        paid = st["rewards"] - st["deal"]  # a hand ended at its deal: nobody decided in it
        for t in np.flatnonzero(st["hand"]):
            for s in range(4):
                if (t, s) in open_:
                    d = dec[open_[(t, s)]]
                    d["r"] += float(shaper.hand_end(paid[t, s]))
                    if st["term"][t]:
                        d["r"] -= d["phi"]
                        d["done"] = True
                        del open_[(t, s)]
    adv = {}
    for key in reversed(order):
        d = dec[key]
        if d["done"]:
            adv[key] = d["r"] - d["v"]
        elif d["next"] is None:
            adv[key] = None
        else:
            nxt = dec[d["next"]]
            adv[key] = d["r"] + gamma * nxt["v"] - d["v"] + gamma * lam * (adv[d["next"]] or 0.0)
    return {key: (adv[key], dec[key]["v"]) for key in order}


@pytest.mark.parametrize("gamma, lam, kind, opponent_prob", [(0.9, 0.7, "shaped", 0.5), (1.0, 1.0, "points", 1.0),
                                                             (0.97, 0.0, "shaped", 0.0)])
def test_three_rollouts_in_a_row_match_a_per_seat_reference(threads, gamma, lam, kind, opponent_prob):
    n, steps = 4, 40
    args = train.parse_args(["--num-envs", str(n), "--num-steps", str(steps), "--opponent-prob", str(opponent_prob),
                             "--opponent-rule", "0.5", "--gamma", str(gamma), "--gae-lambda", str(lam), *SMALL])
    torch.manual_seed(0)
    model = build_network(train.network_config(args))
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(model, "init")
    seats.deal(np.arange(n))
    env = Trace(MahjongVectorEnv(num_envs=n, seed=2), seats)
    obs, _ = env.reset(seed=2)
    store = train.Rollout(n * steps + 4 * n, n, (14, 34), 127)
    shaper = RewardTransform(kind, "beijing", scale=4.0, shaping_coef=0.25)
    keys: list = []
    carried_total = ended_total = 0
    for r in range(3):
        waiting = store.pending.copy()
        t_, s_ = np.nonzero(waiting >= 0)
        carried = [keys[j] for j in waiting[t_, s_]]  # moved to the front, in (table, seat) order
        obs, _ = train.collect_rollout(env, obs, model, seats, store, shaper, args, "cpu")
        keys = list(carried)
        for k in range(r * steps, (r + 1) * steps):
            st = env.steps[k]
            keys += [(k, t) for t in np.flatnonzero(st["learner"][np.arange(n), st["obs"]["seat"]])]
        assert len(keys) == store.size
        adv, ret, trainable = store.advantages(gamma, lam)
        want = reference(env.steps, model, shaper, gamma, lam)
        for j, key in enumerate(keys):
            a, v = want[key]
            assert trainable[j] == (a is not None), (r, key)
            if a is not None:
                assert adv[j] == pytest.approx(a, rel=1e-4, abs=1e-4), (r, key)
                assert ret[j] == pytest.approx(a + v, rel=1e-4, abs=1e-4), (r, key)
        carried_total += len(carried)
        ended_total += int(store.done[:store.size].sum())
    assert carried_total > 0 and ended_total > 0  # chains cut by a rollout's end, and chains ended with their hand


def test_a_hand_ended_at_its_deal_pays_none_of_its_points_to_the_next_hands_first_decision(threads, monkeypatch):
    """四惠牌 at the deal (no seat decides), then 天和: the dealer's first decision ends the hand in the first step,
    whose rewards hold both hands' points. That decision is paid the 天和's points only, and its chain ends."""
    monkeypatch.setattr(engine_module, "shuffled_walls", deals_first(engine_module.shuffled_walls, tian_hu_wall(), 1))
    args = train.parse_args(["--num-envs", "1", "--num-steps", "1", "--opponent-prob", "0", *SMALL])
    torch.manual_seed(0)
    model = build_network(train.network_config(args))
    with torch.no_grad():
        model.policy.bias[A.WIN] = 1e4  # the learner declares the win it is offered
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(model, "init")
    seats.deal(np.arange(1))
    env = Trace(MahjongVectorEnv(num_envs=1, seed=0), seats)
    obs, _ = env.reset(seed=0, options={"walls": [four_hui_wall()], "dealers": [0]})
    assert obs["action_mask"][0, A.WIN]
    store = train.Rollout(1 + 4, 1, (14, 34), 127)
    train.collect_rollout(env, obs, model, seats, store, RewardTransform("points"), args, "cpu")
    st = env.steps[0]
    assert st["term"][0] and st["hand"][0] and st["deal"][0].any()
    tian_hu = st["rewards"][0] - st["deal"][0]
    assert tian_hu[0] > 0 and store.size == 1 and store.done[0]
    assert store.reward[0] == pytest.approx(tian_hu[0]) != pytest.approx(st["rewards"][0, 0])
    adv, _, trainable = store.advantages(1.0, 0.95)
    assert trainable[0] and adv[0] == pytest.approx(tian_hu[0] - store.value[0], rel=1e-5)
