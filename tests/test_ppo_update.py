"""train.ppo_update's loss against CleanRL's formula, computed here by hand.

A stand-in network returns chosen new log-probs, entropies and values per decision (the decision's index
travels in its observation, so the minibatches' shuffling does not matter), and the loss each minibatch hands
to ``train.optimizer_step`` is recorded.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from torch import nn, optim

import train


class Fixed(nn.Module):
    """CleanRL's ``get_action_and_value`` with chosen outputs for decision i (its observation holds i)."""

    def __init__(self, logp, entropy, value):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(()))  # a weight for the optimizer; the outputs do not move with it
        self.logp, self.entropy, self.value = (torch.tensor(v, dtype=torch.float32) for v in (logp, entropy, value))

    def get_action_and_value(self, obs, mask, action):
        i = obs[:, 0].long()
        return action, self.logp[i] + 0 * self.w, self.entropy[i] + 0 * self.w, self.value[i] + 0 * self.w


def store_of(old_logp, old_value):
    n = len(old_logp)
    return SimpleNamespace(obs=np.arange(n, dtype=np.float32)[:, None], mask=np.ones((n, 2), dtype=bool),
                           action=np.zeros(n, dtype=np.int64), logp=np.asarray(old_logp, dtype=np.float32),
                           value=np.asarray(old_value, dtype=np.float32))


@pytest.fixture
def steps(monkeypatch):
    """The losses given to the optimizer, in order (``real``: also take the step, as train.py does)."""
    seen = SimpleNamespace(losses=[], real=False)
    real_step = train.optimizer_step

    def record(model, optimizer, loss, args, what):
        seen.losses.append(loss.item())
        if seen.real:
            real_step(model, optimizer, loss, args, what)

    monkeypatch.setattr(train, "optimizer_step", record)
    threads = torch.get_num_threads()
    yield seen
    torch.set_num_threads(threads)  # ppo_update sets --threads


def run(case: dict, args: train.Args, seed: int = 0) -> dict:
    model = Fixed(case["new_logp"], case["entropy"], case["new_value"])
    store = store_of(case["old_logp"], case["old_value"])
    n = len(case["old_logp"])
    return train.ppo_update(model, optim.Adam(model.parameters(), lr=1e-3), store,
                            np.asarray(case["adv"], dtype=np.float32), np.asarray(case["ret"], dtype=np.float32),
                            np.ones(n, dtype=bool), args, np.random.default_rng(seed), "cpu")


def cleanrl_loss(case: dict, args: train.Args) -> tuple[float, float, float, float]:
    """(loss, policy loss, value loss, entropy) of one minibatch of every decision, as CleanRL's ppo.py has it."""
    old_logp, new_logp = np.asarray(case["old_logp"], np.float64), np.asarray(case["new_logp"], np.float64)
    adv, ret = np.asarray(case["adv"], np.float64), np.asarray(case["ret"], np.float64)
    old_v, new_v = np.asarray(case["old_value"], np.float64), np.asarray(case["new_value"], np.float64)
    ratio = np.exp(new_logp - old_logp)
    if args.norm_adv:
        adv = (adv - adv.mean()) / (adv.std(ddof=1) + 1e-8)
    pg = np.maximum(-adv * ratio, -adv * np.clip(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
    unclipped = (new_v - ret) ** 2
    if args.clip_vloss:
        clipped = old_v + np.clip(new_v - old_v, -args.clip_coef, args.clip_coef)
        v = 0.5 * np.maximum(unclipped, (clipped - ret) ** 2).mean()
    else:
        v = 0.5 * unclipped.mean()
    ent = float(np.mean(case["entropy"]))
    return pg - args.ent_coef * ent + args.vf_coef * v, pg, v, ent


# Ratios 0.5 and 1.5 on either side of the 0.2 clip, with advantages of both signs whose mean is not 0 (so the
# centering matters), and values that move past the clip both ways (so the value clip binds at both bounds).
RATIOS = [0.5, 1.5, 1.5, 0.5, 1.1]
CASE = {
    "old_logp": [-1.0, -2.0, -0.5, -1.5, -1.0],
    "adv": [1.0, 2.0, -1.0, -3.0, 0.5],
    "old_value": [0.0, 0.0, 1.0, -1.0, 0.5],
    "new_value": [1.0, -1.0, 1.1, -0.2, 0.5],
    "ret": [2.0, -2.0, 0.0, -3.0, 1.0],
    "entropy": [1.0, 2.0, 0.5, 1.5, 3.0],
}
CASE["new_logp"] = [o + math.log(r) for o, r in zip(CASE["old_logp"], RATIOS)]


@pytest.mark.parametrize("norm_adv", [True, False])
@pytest.mark.parametrize("clip_vloss", [True, False])
def test_the_loss_is_cleanrls_clipped_ppo_loss(steps, clip_vloss, norm_adv):
    args = train.Args(update_epochs=1, num_minibatches=1, clip_coef=0.2, ent_coef=0.05, vf_coef=0.5,
                      clip_vloss=clip_vloss, norm_adv=norm_adv)
    loss, pg, v, ent = cleanrl_loss(CASE, args)
    out = run(CASE, args)
    assert steps.losses == pytest.approx([loss], abs=1e-5)
    assert out["policy_loss"] == pytest.approx(pg, abs=1e-5)
    assert out["value_loss"] == pytest.approx(v, abs=1e-5)
    assert out["entropy"] == pytest.approx(ent, abs=1e-6)
    assert out["samples"] == 5
    logratio = np.log(RATIOS)
    assert out["approx_kl"] == pytest.approx(np.mean(np.exp(logratio) - 1 - logratio), abs=1e-6)
    assert out["old_approx_kl"] == pytest.approx(np.mean(-logratio), abs=1e-6)
    assert out["clipfrac"] == pytest.approx(4 / 5)


def test_the_hand_computed_loss_sees_each_term():
    """The reference itself: each piece of the formula moves the loss in this case (else the test above
    could not tell it from a formula without it)."""
    base = train.Args(clip_coef=0.2, ent_coef=0.05, vf_coef=0.5, clip_vloss=True, norm_adv=True)
    loss = cleanrl_loss(CASE, base)[0]
    assert cleanrl_loss(CASE, train.Args(clip_coef=0.2, ent_coef=0.0, vf_coef=0.5, clip_vloss=True))[0] != \
        pytest.approx(loss)
    assert cleanrl_loss(CASE, train.Args(clip_coef=0.2, ent_coef=0.05, vf_coef=0.5, clip_vloss=False))[0] != \
        pytest.approx(loss)
    wide = cleanrl_loss(CASE, train.Args(clip_coef=0.4, ent_coef=0.05, vf_coef=0.5, clip_vloss=True))[0]
    assert wide != pytest.approx(loss)


def test_a_one_decision_minibatch_keeps_its_advantage(steps):
    """Normalising one advantage would divide by a nan spread: a one-decision minibatch is left as it is
    (and the run does not stop as diverged)."""
    steps.real = True
    case = {k: v[:3] for k, v in CASE.items()}
    args = train.Args(update_epochs=2, num_minibatches=3, norm_adv=True, clip_vloss=False, ent_coef=0.05)
    out = run(case, args)
    assert len(steps.losses) == 6 and all(math.isfinite(x) for x in steps.losses)
    assert all(math.isfinite(out[k]) for k in ("policy_loss", "value_loss", "entropy", "approx_kl"))
    alone = [cleanrl_loss({k: [v[i]] for k, v in case.items()}, train.Args(norm_adv=False, clip_vloss=False,
                                                                            ent_coef=0.05))[0] for i in range(3)]
    for x in steps.losses:  # each minibatch is one of the three decisions, its advantage not normalised
        assert min(abs(x - a) for a in alone) < 1e-5


@pytest.mark.parametrize("target_kl,expected", [(1e-12, 2), (None, 10), (1e3, 10)])
def test_target_kl_stops_the_epochs_after_the_one_that_passed_it(steps, target_kl, expected):
    """The approximate KL of an epoch's last minibatch is checked after that epoch: above --target-kl no
    further epoch runs (every ratio here is off 1, so any epoch passes 1e-12)."""
    args = train.Args(update_epochs=5, num_minibatches=2, target_kl=target_kl)
    run(CASE, args)
    assert len(steps.losses) == expected
