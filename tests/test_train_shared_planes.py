"""train.py's rollout computes the ``mj_obs_v2`` planes of the learner's rows and of the rows where a snapshot of it
(any network opponent of its layout and rule set) acts in one call per step, not one per agent: the rollout it
collects, the opponents' actions and the random numbers drawn are the ones the straightforward way gives."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from test_train_internals import Recording

import train
from agents.networks import build_network
from agents.rewards import RewardTransform
from mj_env import features as mjf
from mj_env.features import observe_v2
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv

TINY = ["--arch", "tiles", "--obs", "v2", "--channels", "4", "--blocks", "1", "--threads", "1", "--no-progress",
        "--no-eval-pretrained", "--opponent-prob", "1", "--opponent-rule", "0.25"]


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_the_planes_of_a_row_do_not_depend_on_the_rows_beside_it(rules):
    """What sharing the call rests on: observe_v2 of a batch is, row by row, observe_v2 of any part of it."""
    env = MahjongVectorEnv(num_envs=24, rules=rules, seed=5)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        mask = obs["action_mask"] != 0
        whole = observe_v2(rules, obs["observation"], obs["action_mask"])
        parts = np.array_split(rng.permutation(24), 5)
        for part in parts:
            assert np.array_equal(observe_v2(rules, obs["observation"][part], obs["action_mask"][part]), whole[part])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, *_ = env.step(actions)


def _rollout(share: bool, monkeypatch, calls: list):
    """One rollout of 40 steps at 8 tables against three snapshots and the rule agent; ``share`` False: the
    straightforward way (each snapshot computes its planes itself)."""
    args = train.parse_args(["--num-envs", "8", "--num-steps", "40", *TINY])
    torch.manual_seed(0)
    model = build_network(train.network_config(args))
    rng = np.random.default_rng(1)
    seats = train.SeatPlan(args, rng, "cpu")
    for i in range(3):  # three snapshots that play differently
        with torch.no_grad():
            for p in model.parameters():
                p.add_(0.3 * torch.randn(p.shape))
        seats.add_snapshot(model, f"s{i}")
    seats.deal(np.arange(args.num_envs))
    if not share:
        monkeypatch.setattr(seats, "takes_inputs_of", lambda model: np.zeros(args.num_envs, dtype=bool))
    envs = Recording(MahjongVectorEnv(num_envs=args.num_envs, seed=3), seats)
    obs, _ = envs.reset(seed=3)
    store = train.Rollout(args.num_envs * args.num_steps + 4 * args.num_envs, args.num_envs, (18, 34), 127)
    real = mjf.observe_v2
    monkeypatch.setattr(mjf, "observe_v2", lambda *a: (calls.append(len(a[1])), real(*a))[1])
    train.collect_rollout(envs, obs, model, seats, store, RewardTransform("points", "beijing"), args, "cpu")
    monkeypatch.setattr(mjf, "observe_v2", real)
    return envs, store, rng


def test_one_call_for_the_learner_and_its_snapshots_gives_the_same_rollout(monkeypatch):
    """The shared call and one call per agent: the same actions at every step, the same stored decisions, the same
    state of the generator after it; the shared way calls observe_v2 once per step."""
    shared_calls, own_calls = [], []
    envs_a, store_a, rng_a = _rollout(True, monkeypatch, shared_calls)
    envs_b, store_b, rng_b = _rollout(False, monkeypatch, own_calls)
    assert len(envs_a.steps) == len(envs_b.steps) == 40
    snapshot_steps = 0
    for a, b in zip(envs_a.steps, envs_b.steps, strict=True):
        assert np.array_equal(a.actions, b.actions) and np.array_equal(a.opp, b.opp)
        theirs = ~a.learner[np.arange(8), a.obs["seat"]]
        snapshot_steps += bool((theirs & (a.opp >= 0)).any())
    assert snapshot_steps > 10  # the snapshots did act, at many steps
    for name in train.Rollout._FIELDS:
        assert np.array_equal(getattr(store_a, name)[:store_a.size], getattr(store_b, name)[:store_b.size]), name
    assert rng_a.bit_generator.state == rng_b.bit_generator.state
    assert len(shared_calls) == 40  # one a step (every step has a learner row or a snapshot's)
    assert len(own_calls) > len(shared_calls) and sum(own_calls) == sum(shared_calls)


def test_an_opponent_of_another_layout_or_rule_set_computes_its_own(monkeypatch):
    """Only network opponents of the learner's layout and rule set take its inputs: one of mj_obs_v1, one
    trained for another rule set and the rule agent are left to compute their own."""
    args = train.parse_args(["--num-envs", "8", *TINY])
    model = build_network(train.network_config(args))
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(model, "same")
    seats.add_snapshot(build_network({"arch": "mlp", "hidden": [8]}), "v1")
    seats.add_snapshot(model, "hebei")
    seats.snapshots[2].rules = get_rules("hebei")
    seats.opp[:] = [0, 1, 2, train.SeatPlan.RULE, -1, 0, 1, 2]
    assert seats.takes_inputs_of(model).tolist() == [True, False, False, False, False, True, False, False]
