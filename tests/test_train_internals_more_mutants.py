"""train.py's internals, the second half of the mutation run that tests/test_train_internals_mutants.py began
(seating, the rollout storage, GAE, the PPO and cloning updates; mutants 155-325 of the same seed-4001 sampling):
a frozen snapshot, one that leaves the pool while a table still plays it, each rollout's counts from zero, the
cloning's gamma and lambda, its agreement, --threads in both updates, clipfrac at the clip bound. (171 mutants: 132
killed by the earlier tests run with them, 6 more by tests/test_pretrained.py, tests/test_checkpoints.py and
tests/test_train_smoke.py, 14 by these, 19 equivalent.) Also the seed of a run's tables, which decides the exact
figures docs/training_results.md quotes."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from test_bc import LogitsByIndex
from test_ppo_update import run as ppo_run
from test_train_internals import _rollout_setup
from torch import nn

import train
from agents.networks import build_network
from agents.rewards import RewardTransform
from mj_env.vector import MahjongVectorEnv


@pytest.mark.parametrize("argv, seed, rules, n", [([], 1, "beijing", 256), (["--seed", "7", "--rules", "hebei",
                                                                             "--num-envs", "3"], 7, "hebei", 3)])
def test_a_run_deals_its_tables_from_a_vector_env_seeded_with_its_seed(argv, seed, rules, n, tmp_path, monkeypatch,
                                                                      threads):
    """The run's tables are one ``MahjongVectorEnv(num_envs=--num-envs, rules=--rules, seed=--seed)``, reset with
    ``seed=--seed``: its first deal is that env's, hand for hand (a run with another derivation of the tables' seed,
    an offset or a per-run spawn, would deal other walls and train to other figures than docs/training_results.md
    quotes). hebei also draws its first dealers from that seed. No training: --total-steps 0, no cloning."""
    monkeypatch.chdir(tmp_path)
    made = []

    class Seen(MahjongVectorEnv):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append({"built": (a, kw), "resets": [], "first": None})

        def reset(self, *, seed=None, options=None):
            out = super().reset(seed=seed, options=options)
            made[-1]["resets"].append((seed, options))
            if made[-1]["first"] is None:
                made[-1]["first"] = ({k: np.copy(v) for k, v in out[0].items()}, self.engine.state.dealer.copy())
            return out

    monkeypatch.setattr(train, "MahjongVectorEnv", Seen)
    train.main([*argv, "--total-steps", "0", "--bc-steps", "0", "--final-eval-hands", "0", "--eval-every", "0",
                "--no-progress", "--no-eval-pretrained", "--threads", "1", "--arch", "mlp", "--hidden", "8",
                "--obs", "v1", "--exp-name", "seeded"])
    assert len(made) == 1
    args, kw = made[0]["built"]
    assert not args and kw.get("seed") == seed and kw.get("num_envs") == n
    assert [r[0] for r in made[0]["resets"]] == [seed]
    obs, dealers = made[0]["first"]
    ref = MahjongVectorEnv(num_envs=n, rules=rules, seed=seed)
    want, _ = ref.reset(seed=seed)
    for key in ("observation", "action_mask", "seat"):
        assert np.array_equal(obs[key], want[key]), key
    assert np.array_equal(dealers, ref.engine.state.dealer)
    other, _ = MahjongVectorEnv(num_envs=n, rules=rules, seed=seed + 1).reset(seed=seed + 1)
    assert not np.array_equal(obs["observation"], other["observation"])  # (the check tells seeds apart)


def test_a_snapshot_joins_the_pool_as_a_frozen_copy_of_the_learner():
    """``add_snapshot``: the pool's copy is in eval mode and needs no gradient (it only acts), while the learner
    goes on training: its weights still take gradients, and moving them leaves the copy as it was. Mutant: the
    copy's ``requires_grad_(False)`` made ``True``."""
    args = train.parse_args(["--arch", "mlp", "--obs", "v1", "--hidden", "8", "--num-envs", "2"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    learner = build_network(train.network_config(args))
    seats.add_snapshot(learner, "init")
    frozen = seats.snapshots[seats.pool_ids[-1]].model
    assert frozen is not learner and not frozen.training
    assert not any(p.requires_grad for p in frozen.parameters())
    assert all(p.requires_grad for p in learner.parameters())
    with torch.no_grad():
        for p in learner.parameters():
            p.add_(1.0)
    assert all(not torch.equal(a, b) for a, b in zip(frozen.parameters(), learner.parameters()))


def test_a_snapshot_that_leaves_the_pool_plays_on_until_its_hands_are_over():
    """Beyond --pool-size the oldest snapshot leaves the pool, but one that a table still plays against stays
    until that table is seated anew; then the next snapshot to join lets it go. Mutant: the ``not`` of "no table
    plays it" dropped (the one in use deleted at once, the unused ones kept)."""
    args = train.parse_args(["--num-envs", "4", "--opponent-prob", "1", "--opponent-rule", "0", "--pool-size", "1"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(nn.Linear(1, 1), "a")
    seats.deal(np.arange(4))
    assert seats.opp.tolist() == [0] * 4
    seats.add_snapshot(nn.Linear(1, 1), "b")        # "a" leaves the pool; its four tables play on
    assert seats.pool_ids == [1] and set(seats.snapshots) == {train.SeatPlan.RULE, 0, 1}
    actions = np.zeros(4, np.int64)
    env = MahjongVectorEnv(num_envs=4, seed=0)
    obs, _ = env.reset(seed=0)
    played = []
    seats.snapshots[0].act = lambda sub, rng: (played.append(len(sub["seat"])), np.argmax(sub["action_mask"], 1))[1]
    seats.opponents_act(obs, np.ones(4, bool), actions)
    assert played == [4]
    seats.deal(np.arange(4))                        # all seated anew: against "b", the pool's only one
    assert seats.opp.tolist() == [1] * 4
    seats.add_snapshot(nn.Linear(1, 1), "c")
    assert seats.pool_ids == [2] and set(seats.snapshots) == {train.SeatPlan.RULE, 1, 2}


def test_each_rollout_counts_its_own_hands_from_zero(monkeypatch, threads):
    """``collect_rollout``'s counts (progress.csv's hands, draw, win and pool columns) are those of the hands that
    ended in that rollout, from zero: two rollouts in a row, each's counts those of its own steps. The hands and
    the learner's seat-hands (all, against the pool) are counted here from the recorded steps; the rest is what
    ``tally_hands`` adds to counts that start at zero. Mutants: each count starting at 1 or -1."""
    args, model, seats, _, envs, obs, store, shaper = _rollout_setup(["--opponent-prob", "0.5",
                                                                      "--opponent-rule", "1"], n_envs=6, n_steps=100)
    zero = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0,
            "pool_hands": 0, "pool_points": 0.0, "pool_wins": 0, "pool_deal_ins": 0}
    mine, real = [], train.tally_hands
    monkeypatch.setattr(train, "tally_hands", lambda stats, infos, rewards, seats: (
        real(mine[-1], infos, rewards, seats), real(stats, infos, rewards, seats)))
    for _ in range(2):
        mine.append(dict(zero))
        first = len(envs.steps)
        obs, stats = train.collect_rollout(envs, obs, model, seats, store, shaper, args, "cpu")
        steps = envs.steps[first:]
        ended = [(s.learner[t], s.opp[t]) for s in steps for t in np.flatnonzero(s.term)]
        assert stats == mine[-1] and set(stats) == set(zero)
        assert stats["hands"] == len(ended) > 0
        assert stats["self_hands"] == sum(int(learner.sum()) for learner, _ in ended)
        assert stats["pool_hands"] == sum(int(learner.sum()) for learner, opp in ended if opp != -1) > 0
        assert 0 <= stats["drawn"] < stats["hands"] and 0 <= stats["self_wins"] <= stats["self_hands"]
        assert 0 <= stats["pool_wins"] <= stats["pool_hands"] and 0 <= stats["pool_deal_ins"] <= stats["pool_hands"]


def test_cloning_trains_the_value_on_returns_of_the_runs_gamma_and_lambda(monkeypatch, threads):
    """The cloning's value targets are the GAE returns of the teacher's play under --gamma and --gae-lambda, in that
    order (PPO's are checked in tests/test_train_internals.py). Mutant: the two swapped in the cloning."""
    args = train.parse_args(["--arch", "mlp", "--obs", "v1", "--hidden", "8", "--bc-steps", "6", "--num-envs", "4",
                             "--num-steps", "6", "--threads", "1", "--bc-epochs", "1", "--gamma", "0.9",
                             "--gae-lambda", "0.8"])
    rng = train.seed_everything(args)
    envs = MahjongVectorEnv(num_envs=4, rules=args.rules, seed=args.seed)
    model = build_network(train.network_config(args))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    store = train.Rollout(4 * 6 + 4 * 4, 4, tuple(train.LAYOUTS[train.obs_layout(model)][1]), 127)
    gae, real = [], train.Rollout.advantages
    monkeypatch.setattr(train.Rollout, "advantages",
                        lambda store, gamma, lam: (gae.append((gamma, lam)), real(store, gamma, lam))[1])
    targets, real_update = [], train.bc_update
    monkeypatch.setattr(train, "bc_update", lambda model, opt, store, returns, b_inds, *rest: (
        targets.append(returns[b_inds].copy()), real_update(model, opt, store, returns, b_inds, *rest))[1])
    obs, _ = envs.reset(seed=args.seed)
    train.behaviour_cloning(envs, obs, model, optimizer, store, RewardTransform(args.reward, args.rules), args, rng,
                            None, "cpu")
    assert gae == [(0.9, 0.8)] and len(targets) == 1
    _, ret, trainable = real(store, 0.9, 0.8)
    assert np.array_equal(targets[0], ret[np.flatnonzero(trainable)])


def test_the_cloning_and_ppo_updates_run_on_threads_threads(monkeypatch):
    """--threads 1 (the default): the cloning's and PPO's updates set torch to one thread, not more (on a busy
    machine two are ten times slower, train.Args.threads). Mutants: ``max(1, args.threads)`` made ``max(2, ...)``
    in either update."""
    set_threads = []
    monkeypatch.setattr(torch, "set_num_threads", set_threads.append)
    monkeypatch.setattr(train, "optimizer_step", lambda *a: None)
    logits, mask = [[2.0, 0.0], [0.0, 1.0]], np.ones((2, 2), bool)
    store = SimpleNamespace(obs=np.arange(2, dtype=np.float32)[:, None], mask=mask, action=np.array([0, 1]))
    train.bc_update(LogitsByIndex(logits, [0.0, 0.0]), None, store, np.zeros(2, np.float32), np.arange(2),
                    train.Args(threads=1, bc_epochs=1, num_minibatches=1), np.random.default_rng(0), "cpu")
    case = {"old_logp": [-1.0, -2.0], "new_logp": [-1.0, -2.0], "adv": [1.0, -1.0], "old_value": [0.0, 0.0],
            "new_value": [0.0, 0.0], "ret": [0.0, 0.0], "entropy": [1.0, 1.0]}
    ppo_run(case, train.Args(threads=1, update_epochs=1, num_minibatches=1))
    ppo_run(case, train.Args(threads=3, update_epochs=1, num_minibatches=1))
    assert set_threads == [1, 1, 3]


def test_a_ratio_exactly_at_the_clip_bound_is_not_counted_as_clipped(monkeypatch):
    """clipfrac (progress.csv) is the share of ratios the clip changes, ``|ratio - 1| > clip_coef`` as CleanRL has
    it: a ratio exactly at 1 + clip_coef is left as it is and is not counted; one beyond is. Mutant: ``>`` made
    ``>=``."""
    monkeypatch.setattr(train, "optimizer_step", lambda *a: None)
    old = torch.tensor([-1.0, -2.0, -0.5])
    new = old + torch.tensor([np.log(1.25), 0.0, np.log(2.0)], dtype=torch.float32)
    bound = float((torch.exp(new - old)[0] - 1.0).abs())  # 1.25 - 1 as the update computes it, in float32
    assert bound == pytest.approx(0.25, abs=1e-6)
    case = {"old_logp": old.tolist(), "new_logp": new.tolist(), "adv": [1.0, -1.0, 0.5],
            "old_value": [0.0] * 3, "new_value": [0.0] * 3, "ret": [0.0] * 3, "entropy": [1.0] * 3}
    out = ppo_run(case, train.Args(update_epochs=1, num_minibatches=1, clip_coef=bound))
    assert out["clipfrac"] == pytest.approx(1 / 3)


def test_the_cloning_agreement_is_the_share_of_choices_where_the_network_picks_the_teachers_action(monkeypatch):
    """bc/agreement: of the decisions with a choice, the share where the network's most likely legal action is the
    stored (teacher's) one: here two of three (a decision with one legal action does not count). Mutant: ``==``
    made ``!=`` (the share of disagreements; tests/test_bc.py's case agrees on exactly half, where both read 0.5)."""
    monkeypatch.setattr(train, "optimizer_step", lambda *a: None)
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)
    logits = [[2.0, 0.0, 0.0], [0.0, 3.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    mask = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 0]], dtype=bool)
    action = np.array([0, 2, 0, 1])  # agrees, agrees (1 is illegal there), disagrees, no choice
    store = SimpleNamespace(obs=np.arange(4, dtype=np.float32)[:, None], mask=mask, action=action)
    agreement = train.bc_update(LogitsByIndex(logits, [0.0] * 4), None, store, np.zeros(4, np.float32),
                                np.arange(4), train.Args(bc_epochs=1, num_minibatches=1), np.random.default_rng(0),
                                "cpu")
    assert agreement == pytest.approx(2 / 3)
