"""Behaviour cloning (train.py --bc-steps): the network learns to make the rule-based agent's decisions."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch

import train
from agents.networks import build_network, masked_logits, model_inputs
from agents.rewards import RewardTransform
from mj_env.baselines import EfficientAgent, RuleBasedAgent
from mj_env.vector import MahjongVectorEnv


def network_choices(model, obs: dict, rules: str) -> np.ndarray:
    """(n,) the network's most likely legal action at each row of ``obs``."""
    mask = obs["action_mask"] != 0
    x = torch.as_tensor(model_inputs(model, obs["observation"], mask, rules))
    with torch.no_grad():
        return masked_logits(model(x)[0], torch.as_tensor(mask)).argmax(dim=1).numpy()


def agreement(model, rules: str, seed: int, steps: int = 30, num_envs: int = 64, draws: int = 8,
              teacher=RuleBasedAgent) -> float:
    """Share of the ``teacher``'s decisions (the rule agent's by default; with a choice to make) where the network's
    most likely action is one the teacher takes, on positions of its own play from walls never used in training
    (``seed``). The teacher breaks exact ties at random (the rule agent agrees with itself on only about 85% of
    such decisions), so its choices under ``draws`` different random streams all count."""
    env = MahjongVectorEnv(num_envs=num_envs, rules=rules, seed=seed)
    obs, _ = env.reset(seed=seed)
    agent = teacher(rules)
    rngs = [np.random.default_rng([seed, k]) for k in range(draws)]
    same = total = 0
    for _ in range(steps):
        choices = np.stack([agent.act(obs, rng) for rng in rngs])         # (draws, n)
        p = network_choices(model, obs, rules)
        mask = obs["action_mask"] != 0
        choice = mask.sum(axis=1) > 1
        same += int((p == choices).any(axis=0)[choice].sum())
        total += int(choice.sum())
        obs, *_ = env.step(choices[0])
    return same / total


def clone(argv: list[str]) -> torch.nn.Module:
    args = train.parse_args(argv)
    rng = train.seed_everything(args)
    envs = MahjongVectorEnv(num_envs=args.num_envs, rules=args.rules, seed=args.seed)
    model = build_network(train.network_config(args))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    shaper = RewardTransform(args.reward, args.rules)
    layout = tuple(train.LAYOUTS[train.obs_layout(model)][1])
    store = train.Rollout(args.num_envs * args.num_steps + 4 * args.num_envs, args.num_envs, layout, 127)
    obs, _ = envs.reset(seed=args.seed)
    train.behaviour_cloning(envs, obs, model, optimizer, store, shaper, args, rng, None, "cpu")
    return model.eval()


SHORT_CLONE = ["--obs", "v2", "--arch", "tiles", "--channels", "16", "--bc-steps", "128", "--num-envs", "64",
               "--num-steps", "32", "--bc-learning-rate", "2e-3", "--bc-epochs", "8", "--threads", "1"]
"""A short clone of the rule agent (2e-3 is train.py's --bc-learning-rate default)."""


@pytest.fixture(scope="module")
def rule_clone() -> torch.nn.Module:
    """``clone(SHORT_CLONE)``, trained once for the two tests that read it (the same seed and arguments give the
    same weights; the tests only evaluate it)."""
    return clone(SHORT_CLONE)


def test_short_cloning_agrees_with_the_rule_agent_on_held_out_positions(rule_clone):
    # 8k decisions (4 rollouts of 2k, 8 epochs each): about 0.94 on the held-out walls; 3 epochs and the value
    # loss at PPO's weight (the first version) reached 0.69
    assert agreement(rule_clone, "beijing", seed=12345) >= 0.85


def disputed_picks(model, rules: str, seed: int, steps: int = 30, num_envs: int = 64, draws: int = 8) -> tuple[int, int]:
    """On positions of rule-agent play, at the decisions where the rule agent and the efficient agent disagree
    (no choice in common over ``draws`` random streams each): (times the network picks one of the efficient
    agent's choices, times one of the rule agent's)."""
    env = MahjongVectorEnv(num_envs=num_envs, rules=rules, seed=seed)
    obs, _ = env.reset(seed=seed)
    rule, eff = RuleBasedAgent(rules), EfficientAgent(rules)
    rngs = [np.random.default_rng([seed, k]) for k in range(draws)]
    picks_eff = picks_rule = 0
    for _ in range(steps):
        r = np.stack([rule.act(obs, g) for g in rngs])
        e = np.stack([eff.act(obs, g) for g in rngs])
        p = network_choices(model, obs, rules)
        disputed = ~(r[:, None, :] == e[None, :, :]).any(axis=(0, 1))
        picks_eff += int(((p == e).any(axis=0) & disputed).sum())
        picks_rule += int(((p == r).any(axis=0) & disputed).sum())
        obs, *_ = env.step(r[0])
    return picks_eff, picks_rule


def test_cloning_the_efficient_agent_learns_its_discards(rule_clone):
    """--bc-teacher efficient: the clone makes the 进张 agent's decisions, and where they differ from every choice
    of the rule agent, it sides with its teacher more often than not (a short clone learns the rule agent's
    simpler order better); the rule agent's clone sides with the rule agent."""
    argv = ["--obs", "v2", "--arch", "tiles", "--channels", "16", "--bc-steps", "128", "--num-envs", "64",
            "--num-steps", "32", "--bc-epochs", "8", "--threads", "1"]
    model = clone(["--bc-teacher", "efficient", *argv])
    assert agreement(model, "beijing", seed=12345, teacher=EfficientAgent) >= 0.85
    eff, rule = disputed_picks(model, "beijing", seed=12345)
    # the rule agent's clone of these arguments: SHORT_CLONE, whose one more is the default rate
    assert SHORT_CLONE == [*argv[:12], "--bc-learning-rate", "2e-3", *argv[12:]] and train.Args().bc_learning_rate == 2e-3
    own_eff, own_rule = disputed_picks(rule_clone, "beijing", seed=12345)
    # seed 1 (the default): 117 of 173 disputed decisions the teacher's way, the rule clone 21 of 190; seed 7: 96 of
    # 166 and 22 of 191
    assert eff / (eff + rule) > 0.5 and own_eff / (own_eff + own_rule) < 0.25, (eff, rule, own_eff, own_rule)


class LogitsByIndex(torch.nn.Module):
    """A stand-in network with chosen logits and value for decision i (its observation holds i)."""

    def __init__(self, logits, value):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(()))  # a weight for the optimizer; the outputs do not move with it
        self.logits, self.value = torch.tensor(logits), torch.tensor(value)

    def forward(self, obs):
        i = obs[:, 0].long()
        return self.logits[i] + 0 * self.w, self.value[i] + 0 * self.w


def test_bc_update_loss_epochs_and_agreement_by_hand(monkeypatch):
    """bc_update: every epoch, cross-entropy on the stored (teacher's) actions under the mask plus bc_vf_coef times
    half the squared error of the value; the agreement counts only decisions with a choice."""
    from types import SimpleNamespace

    losses = []
    monkeypatch.setattr(train, "optimizer_step", lambda model, opt, loss, args, what: losses.append(loss.item()))
    logits = [[2.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [5.0, 0.0, 0.0]]
    mask = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 0], [1, 1, 1]], dtype=bool)
    action = np.array([0, 0, 1, 2])
    value, returns = [0.5, 0.0, 0.0, 9.0], np.array([1.0, -2.0, 3.0, 0.0], dtype=np.float32)
    store = SimpleNamespace(obs=np.arange(4, dtype=np.float32)[:, None], mask=mask, action=action)
    args = train.Args(bc_epochs=3, num_minibatches=1, bc_vf_coef=0.1, threads=1)
    threads = torch.get_num_threads()
    try:
        agreement = train.bc_update(LogitsByIndex(logits, value), None, store, returns, np.arange(3), args,
                                    np.random.default_rng(0), "cpu")
    finally:
        torch.set_num_threads(threads)
    # decision 0 agrees, 1 does not (its best legal logit is action 2), 2 has no choice; 3 is not trained on
    assert agreement == 0.5
    ce = [-torch.log_softmax(torch.tensor(logits[i])[mask[i]], 0)[int(mask[i][:action[i]].sum())].item()
          for i in range(3)]
    expected = np.mean(ce) + 0.1 * 0.5 * np.mean((np.array(value[:3]) - returns[:3]) ** 2)
    assert losses == pytest.approx([expected] * 3, rel=1e-5)


def test_cloning_plays_its_steps_and_hands_ppo_its_rate_and_no_chains(threads):
    """--bc-steps 6 in rollouts of 4 steps: 6 env steps, not 8; then PPO's learning rate is back and no cloning
    decision is left pending (PPO would train on it with the teacher's log-prob of 0). ``threads``: --threads 1
    (train.seed_everything) is put back after it, not left to the tests after it in the same process."""
    args = train.parse_args(["--arch", "mlp", "--obs", "v1", "--hidden", "16", "--bc-steps", "6", "--num-envs", "4",
                             "--num-steps", "4", "--threads", "1"])
    rng = train.seed_everything(args)
    envs = MahjongVectorEnv(num_envs=4, rules=args.rules, seed=args.seed)
    steps, real_step = [], envs.step
    envs.step = lambda actions: steps.append(1) or real_step(actions)
    model = build_network(train.network_config(args))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    store = train.Rollout(4 * 4 + 4 * 4, 4, tuple(train.LAYOUTS[train.obs_layout(model)][1]), 127)
    obs, _ = envs.reset(seed=args.seed)
    train.behaviour_cloning(envs, obs, model, optimizer, store, RewardTransform(args.reward, args.rules), args, rng,
                            None, "cpu")
    assert len(steps) == 6
    assert optimizer.param_groups[0]["lr"] == args.learning_rate != args.bc_learning_rate
    assert (store.pending == -1).all()
