"""train.py's internals, from a mutation run over them (seating, the rollout storage, GAE, the PPO and cloning
updates): what tests/test_train_internals.py, tests/test_ppo_update.py, tests/test_bc.py and
tests/test_audit_learning_math.py, tests/test_train_smoke.py and tests/test_pretrained.py left open: the first
decisions at the end of a full storage, a decision waiting through a whole rollout, the draws of a new deal and
their order, the pretrained player loaded only when it plays, which tables share the learner's inputs, cloning's
rollouts with nothing to train on yet and the masks it stores, --target-kl at its bound, the epsilon of the
advantages' normalisation. (155 mutants of these functions, seed 4001: 120 killed by the earlier tests, 22 by
these, 13 equivalent.)"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from test_ppo_update import run as ppo_run
from torch import nn

import train
from agents.networks import build_network
from agents.rewards import RewardTransform
from mj_env.vector import MahjongVectorEnv

OBS, N_ACT = (14, 34), 127


def _add(store, tables, seats, value, phi, gamma):
    n = len(tables)
    store.add(np.asarray(tables), np.asarray(seats), np.zeros((n, *OBS), np.uint8), np.ones((n, N_ACT), bool),
              np.zeros(n, np.int64), np.zeros(n, np.float32), np.asarray(value, np.float32),
              np.asarray(phi, np.float32), gamma)


def test_first_decisions_filling_the_storage_link_to_nothing_and_one_more_is_refused():
    """A seat's first decision has no predecessor: nothing is linked or paid, the last entry of the storage
    included (a chain's start must not be read as index -1, the storage's last slot); a step beyond the
    capacity is refused with its own message. Mutants: ``prev >= 0`` made ``prev >= -1``; the raise removed."""
    store = train.Rollout(capacity=2, num_envs=2, obs_shape=OBS, n_actions=N_ACT)
    store.start()
    _add(store, [0, 1], [0, 0], value=[0.5, -0.5], phi=[1.0, 2.0], gamma=0.5)
    assert store.next[:2].tolist() == [-1, -1] and store.reward[:2].tolist() == [0.0, 0.0]
    store.pay(np.array([[3.0, 0, 0, 0], [0, 0, 0, 0]], np.float32), np.array([True, False]), np.array([True, False]))
    adv, ret, trainable = store.advantages(gamma=0.5, lam=0.9)
    assert trainable.tolist() == [True, False]
    assert adv.tolist() == pytest.approx([3.0 - 1.0 - 0.5, 0.0])  # points - Phi(last) - V; the other waits
    assert ret.tolist() == pytest.approx([3.0 - 1.0, -0.5])       # advantage + value
    with pytest.raises(RuntimeError, match="rollout storage is full"):
        _add(store, [0], [1], value=[0.0], phi=[0.0], gamma=0.5)


def test_a_hand_end_pays_only_the_seats_with_a_decision_waiting():
    """The seats of a finished hand that have no decision waiting (-1) are paid nothing: the storage's last entry,
    another table's decision still open, keeps its reward and stays open. Mutant: ``pending >= 0`` made
    ``pending >= -1`` in ``pay``."""
    store = train.Rollout(capacity=2, num_envs=2, obs_shape=OBS, n_actions=N_ACT)
    store.start()
    _add(store, [0, 1], [0, 0], value=[0.0, 0.0], phi=[0.0, 0.0], gamma=1.0)
    store.pay(np.array([[1.0, -2.0, 4.0, -3.0], [0, 0, 0, 0]], np.float32), np.array([True, False]),
              np.array([True, False]))
    assert store.reward[:2].tolist() == [1.0, 0.0] and store.done[:2].tolist() == [True, False]
    assert store.pending.tolist() == [[-1, -1, -1, -1], [1, -1, -1, -1]]


def test_a_deal_draws_its_seating_in_a_fixed_order_and_maps_each_draw_as_documented():
    """``SeatPlan.deal`` replayed from its generator in plain Python: per table a draw against --opponent-prob
    (pool or self-play), then per pool table the seat parity (0: the learner in seats {0, 2}, 1: in {1, 3}), then a
    draw against the shares (rule below --opponent-rule, pretrained below rule + pretrained, else a snapshot), then
    the snapshot. The order of the draws is what a seeded run repeats (the figures in docs/training_results.md come
    from seeded runs). Mutant: the parity read the other way round (learner in {1, 3} for a draw of 0)."""
    args = train.parse_args(["--num-envs", "64", "--opponent-prob", "0.7", "--opponent-rule", "0.4"])
    seats = train.SeatPlan(args, np.random.default_rng(5), "cpu")
    for tag in "abc":
        seats.add_snapshot(nn.Linear(1, 1), tag)
    seats.snapshots[train.SeatPlan.PRETRAINED] = seats.snapshots[train.SeatPlan.RULE]  # (not loaded: a stand-in)
    seats.args = dataclasses.replace(args, opponent_pretrained=0.3)
    tables = np.array([3, 7, 8, 20, 21, 22, 40, 41, 50, 51, 60, 63, 0, 1, 2, 4, 5, 6, 9, 10])
    seats.deal(tables)

    replay = np.random.default_rng(5)
    vs_pool = [p < 0.7 for p in replay.random(len(tables))]
    pool_tables = [int(t) for t, v in zip(tables, vs_pool) if v]
    first = replay.integers(0, 2, size=len(pool_tables))
    u = replay.random(len(pool_tables))
    snapshot = replay.choice(np.asarray(seats.pool_ids), size=len(pool_tables))
    assert 0 < len(pool_tables) < len(tables)
    for t in tables:
        if int(t) not in pool_tables:
            assert seats.learner[t].tolist() == [True] * 4 and seats.opp[t] == -1
    for k, t in enumerate(pool_tables):
        assert seats.learner[t].tolist() == [s % 2 == first[k] for s in range(4)]
        want = train.SeatPlan.RULE if u[k] < 0.4 else train.SeatPlan.PRETRAINED if u[k] < 0.7 else snapshot[k]
        assert seats.opp[t] == want
    assert {train.SeatPlan.RULE, train.SeatPlan.PRETRAINED} < set(seats.opp[pool_tables]) and set(first) == {0, 1}
    untouched = np.setdiff1d(np.arange(64), tables)
    assert seats.learner[untouched].all() and (seats.opp[untouched] == -1).all()  # (only the tables dealt move)


def test_the_pretrained_player_is_loaded_only_for_a_share_of_hands_against_it():
    """--opponent-pretrained 0 (the default): the seating holds no pretrained player and draws nothing from
    torch's generator (loading the shipped player draws what building its network draws, train.load_shipped_player),
    so a default seeded run draws what it drew before. Mutant: ``opponent_pretrained > 0`` made ``> -1``."""
    args = train.parse_args(["--opponent-prob", "1"])
    torch.manual_seed(3)
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    assert torch.equal(torch.get_rng_state(), torch.manual_seed(3).get_state())
    assert set(seats.snapshots) == {train.SeatPlan.RULE}


class _Log:
    """RunLog's part that the cloning writes to: the scalars and the progress bar's postfix."""

    def __init__(self):
        self.scalars, self.postfix = [], []
        self.writer = self
        self.bar = self

    def add_scalar(self, tag, value, step):
        self.scalars.append((tag, value, step))

    def set_postfix(self, values):
        self.postfix.append(values)


@pytest.mark.parametrize("num_steps, bc_steps, trained", [(1, 1, []), (1, 2, []), (6, 6, [6])])
def test_cloning_trains_and_logs_only_rollouts_with_decisions_whose_outcome_is_known(num_steps, bc_steps, trained,
                                                                                     monkeypatch, threads):
    """A cloning rollout of one step per table has no decision whose outcome is known (each table's next decision
    is another seat's, and no hand ends at its first discards here): it trains nothing and logs no agreement (an
    agreement over no decisions would read 1.0); a rollout of 6 steps trains on the decisions followed by their
    seat's next, each stored with its legal actions (the teacher's among them), and logs its agreement at its step.
    Each rollout is played on one thread, each update on --threads. Mutants: the skip's condition forced either
    way, the ``continue`` removed, the stored mask inverted, the rollout's thread count."""
    args = train.parse_args(["--arch", "mlp", "--obs", "v1", "--hidden", "8", "--bc-steps", str(bc_steps),
                             "--num-envs", "4", "--num-steps", str(num_steps), "--threads", "2", "--bc-epochs", "1"])
    rng = train.seed_everything(args)
    envs = MahjongVectorEnv(num_envs=4, rules=args.rules, seed=args.seed)
    model = build_network(train.network_config(args))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    store = train.Rollout(4 * num_steps + 4 * 4, 4, tuple(train.LAYOUTS[train.obs_layout(model)][1]), N_ACT)
    calls, real = [], train.bc_update

    def spy(model, opt, store, returns, b_inds, *rest):
        calls.append(len(b_inds))
        assert store.mask[b_inds, store.action[b_inds]].all()  # the teacher's action is legal under the stored mask
        assert (store.mask[b_inds].sum(axis=1) < N_ACT).all()  # (and the mask is not all legal)
        return real(model, opt, store, returns, b_inds, *rest)

    monkeypatch.setattr(train, "bc_update", spy)
    set_threads = []
    monkeypatch.setattr(torch, "set_num_threads", set_threads.append)  # (two threads are slow on a busy machine)
    log = _Log()
    obs, _ = envs.reset(seed=args.seed)
    train.behaviour_cloning(envs, obs, model, optimizer, store, RewardTransform(args.reward, args.rules), args, rng,
                            log, "cpu")
    assert len(calls) == len(trained) and all(n > 0 for n in calls)
    assert [(tag, step) for tag, _, step in log.scalars] == [("bc/agreement", done * 4) for done in trained]
    assert [p["bc_step"] for p in log.postfix] == trained
    assert set_threads == ([1, 2] if trained else [1] * bc_steps)


def _losses(monkeypatch) -> list:
    """The losses ppo_update hands to each gradient step (no step taken: the stand-in network does not move)."""
    seen = []
    monkeypatch.setattr(train, "optimizer_step", lambda model, opt, loss, args, what: seen.append(loss.item()))
    return seen


def test_an_approximate_kl_equal_to_target_kl_does_not_stop_the_epochs(monkeypatch, threads):
    """--target-kl stops an update's epochs *above* it: an epoch whose approximate KL is exactly the target goes
    on to the next. Mutant: ``approx_kl > args.target_kl`` made ``>=``."""
    case = {"old_logp": [-1.0, -2.0], "new_logp": [-1.0 + math.log(1.5), -2.0 + math.log(0.5)], "adv": [1.0, -1.0],
            "old_value": [0.0, 0.0], "new_value": [0.0, 0.0], "ret": [0.0, 0.0], "entropy": [1.0, 1.0]}
    losses = _losses(monkeypatch)
    kl = ppo_run(case, train.Args(update_epochs=1, num_minibatches=1))["approx_kl"]
    assert kl > 0 and len(losses) == 1
    ppo_run(case, train.Args(update_epochs=4, num_minibatches=1, target_kl=kl))
    assert len(losses) == 1 + 4
    ppo_run(case, train.Args(update_epochs=4, num_minibatches=1, target_kl=kl * 0.999))
    assert len(losses) == 1 + 4 + 1


def test_advantages_that_barely_differ_are_normalised_over_their_spread_plus_a_small_epsilon(monkeypatch, threads):
    """Per-minibatch normalisation, (A - mean) / (std + 1e-8) as CleanRL has it: two advantages 2 ulp apart (a
    spread of about 1.7e-7) come out near +-0.67, not near +-1 nor blown up. The policy loss with ratios 1.5 and
    1, computed here by hand. Mutant: ``std + 1e-8`` made ``std - 1e-8``."""
    a = np.float32(1.0)
    b = np.nextafter(np.nextafter(a, np.float32(2)), np.float32(2))  # two float32 steps up: an exact mean between
    case = {"old_logp": [-1.0, -1.0], "new_logp": [-1.0 + math.log(1.5), -1.0], "adv": [a, b],
            "old_value": [0.0, 0.0], "new_value": [0.0, 0.0], "ret": [0.0, 0.0], "entropy": [0.0, 0.0]}
    losses = _losses(monkeypatch)
    out = ppo_run(case, train.Args(update_epochs=1, num_minibatches=1, norm_adv=True, clip_coef=0.2, vf_coef=0.5))
    d = (float(b) - float(a)) / 2                 # each advantage's distance from the mean
    std = d * math.sqrt(2)                        # the unbiased spread of two values
    adv = [-d / (std + 1e-8), d / (std + 1e-8)]   # about -0.67, +0.67
    ratio = [1.5, 1.0]
    pg = np.mean([max(-x * r, -x * min(max(r, 0.8), 1.2)) for x, r in zip(adv, ratio)])
    assert out["policy_loss"] == pytest.approx(pg, abs=1e-4) and losses == pytest.approx([pg], abs=1e-4)


def test_only_networks_with_the_learners_layout_share_its_inputs_and_a_network_without_one_shares_none():
    """``takes_inputs_of``: the tables of a snapshot whose network has the learner's observation layout; a
    snapshot whose network names no layout (no ``config``, as a bare torch module) takes none of them, and a learner
    that names none gives its inputs to no table. Mutants: the learner's missing layout no longer returns at once
    (either way), the check that a snapshot's config is a dict dropped."""
    args = train.parse_args(["--num-envs", "40", "--opponent-prob", "1", "--opponent-rule", "0", "--obs", "v1",
                             "--arch", "mlp", "--hidden", "8"])
    seats = train.SeatPlan(args, np.random.default_rng(2), "cpu")
    learner = build_network(train.network_config(args))
    seats.add_snapshot(learner, "same")
    seats.add_snapshot(nn.Linear(1, 1), "bare")
    seats.deal(np.arange(40))
    assert set(seats.opp) == {0, 1}
    assert np.array_equal(seats.takes_inputs_of(learner), seats.opp == 0)
    assert not seats.takes_inputs_of(nn.Linear(1, 1)).any()


def test_a_decision_still_waiting_after_a_whole_rollout_is_carried_again_untrained():
    """A seat that does not decide again within the next rollout (short rollouts, a seat waiting for its turn):
    its carried decision is still not trainable there, and is carried once more, to be trained on with its own next
    decision. Mutant: the carried decisions' links reset to 0 (the first entry) instead of -1 (none)."""
    store = train.Rollout(capacity=8, num_envs=1, obs_shape=OBS, n_actions=N_ACT)
    store.start()
    _add(store, [0], [0], value=[0.5], phi=[0.0], gamma=0.9)
    store.start()                                   # seat 0's decision carried to the front
    _add(store, [0], [1], value=[0.25], phi=[0.0], gamma=0.9)
    adv, _, trainable = store.advantages(gamma=0.9, lam=0.8)
    assert trainable.tolist() == [False, False] and adv.tolist() == [0.0, 0.0]
    store.start()                                   # both carried, in the order they were pending
    assert store.size == 2 and store.pending[0, :2].tolist() == [0, 1] and store.next[:2].tolist() == [-1, -1]
    _add(store, [0], [0], value=[2.0], phi=[0.0], gamma=0.9)
    adv, _, trainable = store.advantages(gamma=0.9, lam=0.8)
    assert trainable.tolist() == [True, False, False]
    assert adv[0] == pytest.approx(0.9 * 2.0 - 0.5)  # delta: 0 + gamma * V(its next) - V; that next still waits
