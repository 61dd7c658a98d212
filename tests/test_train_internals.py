"""train.py's internals that a run's end results hardly show: what the rollout stores per decision and who acts
where, the PPO update's minibatches and epochs, gradient clipping, the learning-rate schedule, the evaluations'
settings, checkpoint contents, --init-from and --threads."""
from __future__ import annotations

import csv
import json
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from torch import nn, optim

import train
from agents import arena
from agents.networks import build_network, load_checkpoint, model_inputs, save_checkpoint
from agents.rewards import RewardTransform
from mj_env.vector import MahjongVectorEnv

SMALL = ["--arch", "mlp", "--obs", "v1", "--hidden", "16", "--threads", "1", "--no-progress",
         "--no-eval-pretrained"]


class LastLegal:
    """An opponent that takes the highest legal action, and notes the seats it was asked for."""
    name = "last"

    def __init__(self):
        self.calls = []

    def act(self, obs, rng):
        self.calls.append(np.array(obs["seat"]))
        mask = np.asarray(obs["action_mask"]) != 0
        return (mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)).astype(np.int64)


class Recording:
    """A MahjongVectorEnv that notes, per step, the observation acted on, the actions, who sat where and ``term``."""

    def __init__(self, env, seats):
        self.env, self.seats, self.steps = env, seats, []
        self.last = None

    def reset(self, **kw):
        self.last, info = self.env.reset(**kw)
        return self.last, info

    def step(self, actions):
        out = self.env.step(actions)
        self.steps.append(SimpleNamespace(obs={k: np.array(v) for k, v in self.last.items()},
                                          actions=np.array(actions), learner=self.seats.learner.copy(),
                                          opp=self.seats.opp.copy(), term=np.array(out[2]),
                                          paid=train.decided(np.array(out[1]), out[4])))
        self.last = out[0]
        return out


def _rollout_setup(argv, n_envs=6, n_steps=100):
    args = train.parse_args(["--num-envs", str(n_envs), "--num-steps", str(n_steps), *SMALL, *argv])
    torch.manual_seed(0)
    model = build_network(train.network_config(args))
    rng = np.random.default_rng(1)
    seats = train.SeatPlan(args, rng, "cpu")
    spy = LastLegal()
    seats.snapshots[train.SeatPlan.RULE] = spy
    seats.add_snapshot(model, "init")
    seats.deal(np.arange(n_envs))
    envs = Recording(MahjongVectorEnv(num_envs=n_envs, seed=3), seats)
    obs, _ = envs.reset(seed=3)
    store = train.Rollout(n_envs * n_steps + 4 * n_envs, n_envs, (14, 34), 127)
    shaper = RewardTransform("shaped", "beijing", scale=4.0, shaping_coef=0.25)
    return args, model, seats, spy, envs, obs, store, shaper


def test_collect_rollout_stores_each_learner_decision_and_the_opponents_act_elsewhere(threads):
    """Half the hands against an opponent in seats {0, 2} or {1, 3}, half self-play: every decision of a learner
    seat is stored (its planes, mask, the action sent to the env, its log-prob and value under the network, its
    potential) and no other is; the opponent's actions are the ones the env gets at its seats; tables whose hand
    ended are dealt again, and acting runs on one thread."""
    args, model, seats, spy, envs, obs, store, shaper = _rollout_setup(["--opponent-prob", "0.5",
                                                                        "--opponent-rule", "1"])
    dealt = []
    real_deal = seats.deal
    seats.deal = lambda tables: (dealt.append(np.array(tables)), real_deal(tables))[1]
    torch.set_num_threads(2)
    train.collect_rollout(envs, obs, model, seats, store, shaper, args, "cpu")
    assert torch.get_num_threads() == 1
    assert len(envs.steps) == args.num_steps and len(store.blocks) == args.num_steps
    kinds = set()
    ended = 0
    where = []  # (table, seat) of each stored decision
    for step, (start, end) in zip(envs.steps, store.blocks, strict=True):
        rows = np.arange(args.num_envs)
        seat = step.obs["seat"]
        mine = step.learner[rows, seat]
        L = np.flatnonzero(mine)
        where += list(zip(L, seat[L]))
        for t in rows:
            kinds.add((step.opp[t] == -1, tuple(step.learner[t])))
        assert end - start == len(L)
        j = np.arange(start, end)
        assert (store.action[j] == step.actions[L]).all()
        mask = step.obs["action_mask"][L] != 0
        assert (store.mask[j] == mask).all()
        x = model_inputs(model, step.obs["observation"][L], step.obs["action_mask"][L], "beijing")
        assert (store.obs[j] == x).all()
        with torch.no_grad():
            _, logp, _, value = model.get_action_and_value(torch.as_tensor(x), torch.as_tensor(mask),
                                                           torch.as_tensor(step.actions[L]))
        assert np.allclose(store.logp[j], logp.numpy(), atol=1e-5)
        assert np.allclose(store.value[j], value.numpy(), atol=1e-5)
        assert np.allclose(store.phi[j], shaper.potential(step.obs["observation"][L]))
        theirs = np.flatnonzero(~mine)
        assert (step.opp[theirs] == train.SeatPlan.RULE).all()
        last = 126 - (step.obs["action_mask"][theirs] != 0)[:, ::-1].argmax(axis=1)
        assert (step.actions[theirs] == last).all()
        ended += step.term.sum()
    # each decision is linked to the next one of its (table, seat) and paid the shaping term; a chain ends with
    # its hand, whose points go to the seat's last decision
    step_of = np.repeat(np.arange(len(store.blocks)), [e - b for b, e in store.blocks])
    for j, (t, st) in enumerate(where):
        later = [k for k in range(j + 1, len(where)) if where[k] == (t, st)]
        if store.next[j] >= 0:
            assert later and store.next[j] == later[0] and not store.done[j]
            assert store.reward[j] == pytest.approx(args.gamma * store.phi[later[0]] - store.phi[j], abs=1e-5)
        if store.done[j]:
            end = next(k for k in range(step_of[j], len(envs.steps)) if envs.steps[k].term[t])
            paid = shaper.hand_end(envs.steps[end].paid)[t, st]
            assert store.reward[j] == pytest.approx(paid - store.phi[j], abs=1e-5)
    assert store.done[:store.size].sum() > 0
    # both kinds of hands, the learner in the 4 seats or in {0, 2} or {1, 3} opposite the opponent
    assert kinds == {(True, (True,) * 4), (False, (True, False, True, False)), (False, (False, True, False, True))}
    assert sum(len(c) for c in spy.calls) == sum((~s.learner[np.arange(args.num_envs), s.obs["seat"]]).sum()
                                                 for s in envs.steps)
    assert ended > 0 and np.array_equal(np.concatenate(dealt), np.concatenate([np.flatnonzero(s.term)
                                                                                for s in envs.steps]))


def test_the_learner_always_acts_in_self_play():
    """--opponent-prob 0: the learner acts at every table at every step; the opponents are never asked."""
    args, model, seats, spy, envs, obs, store, shaper = _rollout_setup(["--opponent-prob", "0"], n_envs=4, n_steps=120)
    train.collect_rollout(envs, obs, model, seats, store, shaper, args, "cpu")
    assert store.size == args.num_envs * args.num_steps and not spy.calls
    assert any(s.term.any() for s in envs.steps) and seats.learner.all()


def test_a_new_deal_seats_every_table_afresh():
    """A table dealt again forgets its last hand's seating: self-play has the learner in all four seats."""
    args = train.parse_args(["--num-envs", "200", "--opponent-prob", "1", "--opponent-rule", "1"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(nn.Linear(1, 1), "s")
    seats.deal(np.arange(200))
    assert (seats.opp == train.SeatPlan.RULE).all()
    halves = seats.learner[:, 0]
    assert 60 < halves.sum() < 140 and (seats.learner[:, 2] == halves).all() and (seats.learner[:, 1] != halves).all()
    seats.args = train.parse_args(["--num-envs", "200", "--opponent-prob", "0"])
    seats.deal(np.arange(0, 200, 2))
    assert seats.learner[::2].all() and (seats.opp[::2] == -1).all()
    assert (seats.learner[1::2].sum(axis=1) == 2).all() and (seats.opp[1::2] == train.SeatPlan.RULE).all()


def test_opponents_act_only_where_asked():
    """An opponent fills the actions of the tables given, with those tables' observations, and no other."""
    args = train.parse_args(["--num-envs", "4", "--opponent-prob", "1", "--opponent-rule", "1"])
    seats = train.SeatPlan(args, np.random.default_rng(0), "cpu")
    seats.add_snapshot(nn.Linear(1, 1), "s")
    seats.deal(np.arange(4))
    spy = LastLegal()
    seats.snapshots[train.SeatPlan.RULE] = spy
    env = MahjongVectorEnv(num_envs=4, seed=0)
    obs, _ = env.reset(seed=0)
    actions = np.full(4, -7, dtype=np.int64)
    theirs = np.array([False, True, False, True])
    seats.opponents_act(obs, theirs, actions)
    assert actions[0] == actions[2] == -7
    last = 126 - (obs["action_mask"][[1, 3]] != 0)[:, ::-1].argmax(axis=1)
    assert (actions[[1, 3]] == last).all() and np.array_equal(spy.calls[0], obs["seat"][[1, 3]])


class Indexed(nn.Module):
    """A network whose outputs do not move, and that notes which decisions (its observation holds the index)
    each minibatch holds."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(()))
        self.batches = []

    def get_action_and_value(self, obs, mask, action):
        i = obs[:, 0].long()
        self.batches.append(i.tolist())
        zero = 0 * self.w + torch.zeros(len(i))
        return action, zero - 1.0, zero + 1.0, zero


def _store(n, value=None):
    return SimpleNamespace(obs=np.arange(n, dtype=np.float32)[:, None], mask=np.ones((n, 2), dtype=bool),
                           action=np.zeros(n, dtype=np.int64), logp=np.full(n, -1.0, np.float32),
                           value=np.zeros(n, np.float32) if value is None else np.asarray(value, np.float32))


def test_each_epoch_shuffles_the_trainable_decisions_into_even_minibatches(monkeypatch):
    """Every epoch covers each trainable decision once, in --num-minibatches parts of sizes differing by at most
    one, shuffled afresh; decisions still pending are left out; the update runs on --threads threads."""
    n = 23
    trainable = np.ones(n, dtype=bool)
    trainable[[3, 10, 17]] = False
    model = Indexed()
    args = train.Args(update_epochs=3, num_minibatches=4, threads=2)
    set_threads = []
    monkeypatch.setattr(torch, "set_num_threads", set_threads.append)  # (two threads are slow on a busy machine)
    out = train.ppo_update(model, optim.Adam(model.parameters(), lr=1e-3), _store(n), np.ones(n, np.float32),
                           np.ones(n, np.float32), trainable, args, np.random.default_rng(0), "cpu")
    assert set_threads == [2]
    assert out["samples"] == 20 and len(model.batches) == 12
    epochs = [model.batches[4 * e:4 * e + 4] for e in range(3)]
    for parts in epochs:
        assert sorted(i for p in parts for i in p) == list(np.flatnonzero(trainable))
        assert sorted(len(p) for p in parts) == [5, 5, 5, 5]
    assert epochs[0] != epochs[1] != epochs[2]


def test_the_update_reports_the_explained_variance_of_the_old_values(threads):
    """explained_variance: 1 - Var(returns - values at the decisions) / Var(returns); nan for constant returns."""
    value = [0.0, 1.0, 2.0, 0.5]
    ret = np.array([1.0, 1.0, 3.0, -1.0], np.float32)
    model = Indexed()
    args = train.Args(update_epochs=1, num_minibatches=1)
    out = train.ppo_update(model, optim.Adam(model.parameters(), lr=1e-3), _store(4, value), np.ones(4, np.float32),
                           ret, np.ones(4, bool), args, np.random.default_rng(0), "cpu")
    assert out["explained_variance"] == pytest.approx(1 - np.var(ret - value) / np.var(ret))
    out = train.ppo_update(model, optim.Adam(model.parameters(), lr=1e-3), _store(4, value), np.ones(4, np.float32),
                           np.full(4, 2.0, np.float32), np.ones(4, bool), args, np.random.default_rng(0), "cpu")
    assert np.isnan(out["explained_variance"])


@pytest.mark.parametrize("scale, moved", [(100.0, 0.5), (0.1, 0.1)])
def test_a_step_clips_the_gradient_to_max_grad_norm(scale, moved):
    """A gradient longer than --max-grad-norm is cut to it before the step; a shorter one is left as it is."""
    w = nn.Parameter(torch.zeros(4))
    model = nn.Module()
    model.w = w
    opt = optim.SGD([w], lr=1.0)
    loss = (w * torch.tensor([scale, 0.0, 0.0, 0.0])).sum()
    train.optimizer_step(model, opt, loss, train.Args(max_grad_norm=0.5), "the PPO update")
    assert w.detach().norm().item() == pytest.approx(moved)


def test_a_step_starts_from_a_zero_gradient():
    """Each step follows its own loss's gradient only, not the sum with the previous step's."""
    w = nn.Parameter(torch.zeros(2))
    model = nn.Module()
    model.w = w
    opt = optim.SGD([w], lr=0.1)
    args = train.Args(max_grad_norm=100.0)
    train.optimizer_step(model, opt, (w * torch.tensor([1.0, 0.0])).sum(), args, "the PPO update")
    train.optimizer_step(model, opt, (w * torch.tensor([0.0, 1.0])).sum(), args, "the PPO update")
    assert w.detach().tolist() == pytest.approx([-0.1, -0.1])


def test_a_run_anneals_the_rate_evaluates_as_asked_and_saves_what_it_did(tmp_path, monkeypatch, threads):
    """Self-play for 3 updates with the rate annealed (4 pending decisions carried over per table): update u trains at (1 - (u-1)/3) of --learning-rate; the
    quick evaluations (after updates 1 and 2) play --eval-hands walls, the final one --final-eval-hands, all on the
    --eval-seed walls, greedy with --eval-greedy, in eval mode on one thread, against random and rule; the
    checkpoints hold their update, step and the run's arguments."""
    monkeypatch.chdir(tmp_path)
    calls = []
    real = arena.play_duplicate

    def spy(agents, hands, **kw):
        me = agents[0]
        calls.append((agents[1].name, hands, kw["seed"], me.greedy, me.model.training))
        return real(agents, hands, **kw)

    monkeypatch.setattr(arena, "play_duplicate", spy)
    gae = []
    real_advantages = train.Rollout.advantages

    def advantages(store, gamma, lam):
        out = real_advantages(store, gamma, lam)
        gae.append((gamma, lam, int(out[2].sum()), store.size))
        return out

    monkeypatch.setattr(train.Rollout, "advantages", advantages)
    result = train.main(["--exp-name", "ann", "--gamma", "0.9", "--gae-lambda", "0.8", "--total-steps", "384", "--num-envs", "8", "--num-steps", "16",
                         "--bc-steps", "0", "--opponent-prob", "0", "--eval-every", "2", "--eval-hands", "2",
                         "--final-eval-hands", "3", "--eval-greedy", "--eval-seed", "7", "--max-minutes", "none",
                         "--snapshot-every", "2", "--learning-rate", "0.003", *SMALL])
    run = tmp_path / "runs" / "ann"
    with open(run / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["learning_rate"]) for r in rows] == pytest.approx([3e-3, 2e-3, 1e-3])
    # GAE with the run's gamma and lambda; the update trains on the decisions whose outcome is known, no others
    assert [g[:2] for g in gae] == [(0.9, 0.8)] * 3
    assert [int(r["samples"]) for r in rows] == [g[2] for g in gae] and all(g[2] < g[3] for g in gae)
    assert gae[1][3] > 128  # the second rollout begins with the decisions carried over from the first
    assert calls == [(b, h, 7, True, False) for h in (2, 2, 3) for b in ("random", "rule")]
    for name, update in (("update_00002.pt", 2), ("update_00003.pt", 3), ("final.pt", 3)):
        _, meta = load_checkpoint(run / "checkpoints" / name)
        assert (meta["update"], meta["global_step"], meta["rules"]) == (update, 128 * update, "beijing")
        assert meta["args"]["learning_rate"] == 0.003 and meta["args"]["exp_name"] == "ann"
    final = json.loads((run / "final_eval.json").read_text())
    assert (final["updates"], final["global_step"], final["observation"]) == (3, 384, "mj_obs_v1")
    assert result["updates"] == 3 and set(final["eval"]) == {"random", "rule"}


def test_without_annealing_or_a_final_evaluation(tmp_path, monkeypatch, threads):
    """--no-anneal-lr keeps --learning-rate; --final-eval-hands 0 plays no final match; sampled evaluations."""
    monkeypatch.chdir(tmp_path)
    calls = []
    real = arena.play_duplicate
    monkeypatch.setattr(arena, "play_duplicate",
                        lambda agents, hands, **kw: (calls.append((hands, agents[0].greedy)), real(agents, hands, **kw))[1])
    result = train.main(["--exp-name", "flat", "--total-steps", "256", "--num-envs", "8", "--num-steps", "16",
                         "--bc-steps", "0", "--eval-every", "1", "--eval-hands", "1", "--final-eval-hands", "0",
                         "--no-anneal-lr", "--learning-rate", "0.002", *SMALL])
    with open(tmp_path / "runs" / "flat" / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["learning_rate"]) for r in rows] == pytest.approx([2e-3, 2e-3])
    assert calls == [(1, False)] * 4 and "eval" not in result


def test_init_from_a_checkpoint_of_other_rules_says_so(tmp_path, monkeypatch, capsys, threads):
    monkeypatch.chdir(tmp_path)
    start = save_checkpoint(tmp_path / "start.pt", build_network({"arch": "mlp", "hidden": [8]}), rules="hebei")
    train.main(["--init-from", str(start), "--total-steps", "0", "--final-eval-hands", "0", "--eval-every", "0",
                "--no-progress", "--no-eval-pretrained", "--threads", "1", "--exp-name", "other"])
    assert f"note: --init-from {start} was trained under hebei; this run trains it under beijing" in \
        capsys.readouterr().out


def test_evaluate_plays_on_one_thread_and_restores_the_count(threads):
    args = train.parse_args(["--arch", "mlp", "--hidden", "8", "--no-eval-pretrained"])
    model = build_network(train.network_config(args))
    seen = []

    class Spy:
        name = "spy"

        def act(self, obs, rng):
            seen.append(torch.get_num_threads())
            mask = np.asarray(obs["action_mask"]) != 0
            return mask.argmax(axis=1).astype(np.int64)

    torch.set_num_threads(2)
    out = train.evaluate(model, args, 1, "cpu", [Spy()])
    assert seen and set(seen) == {1} and torch.get_num_threads() == 2 and set(out) == {"spy"}


def test_seeding_sets_the_thread_count_and_determinism(threads):
    """seed_everything sets torch's threads to --threads and cudnn's determinism to --torch-deterministic."""
    before = torch.backends.cudnn.deterministic
    try:
        torch.set_num_threads(1)
        train.seed_everything(train.Args(threads=2, torch_deterministic=False))
        assert torch.get_num_threads() == 2 and torch.backends.cudnn.deterministic is False
        train.seed_everything(train.Args(threads=1, torch_deterministic=True))
        assert torch.get_num_threads() == 1 and torch.backends.cudnn.deterministic is True
    finally:
        torch.backends.cudnn.deterministic = before


def test_the_plan_line_counts_one_update_in_the_singular():
    one = train.Args(total_steps=512, num_envs=16, num_steps=32, bc_steps=0, final_eval_hands=0, max_minutes=None)
    assert train.plan_text(one, 1, []) == "selfplay_ppo: beijing; then PPO: up to 1 update of 512 decisions"
    assert "up to 2 updates of 512" in train.plan_text(one, 2, [])
