"""Calls out of order and user code that raises midway: what reaches the caller, and what state is left.

Most call orders (before the first reset, after an episode ended, after close, twice, mid-hand with a seed or
options) were already refused or played as docs/INTERFACES.md 2 and the libraries' conventions say, and are
fuzzed in tests/test_stateful_api.py. The checks here are the faults found and fixed:

- ``agents.arena.compare(progress=True)``: an agent (or the records callable) that raised, Ctrl-C too, left
  the tqdm bar open: the error the command line then tells was written onto the bar's line, and the bar was
  drawn again after it once collected. The bar is now closed whatever ends the run.
- ``agents.rewards.RewardOption`` / ``RewardOptionVector`` with a user's ``potential`` that raised: the env
  had stepped and its observation was lost; a step on shaped from the stale Phi of the state before without
  a word. Such a step is now refused (a RuntimeError saying to reset); after reset the wrapper pays as a twin
  never failed.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mj_env  # noqa: F401 (registers the ids)
from agents.arena import compare
from agents.rewards import RewardOption, RewardOptionVector
from mj_env.baselines import AgentError, RandomAgent
from mj_env.single_agent import MahjongSingleAgentVectorEnv


class _RaisesAt(RandomAgent):
    """A random agent whose ``act`` raises ``error`` at its ``at``-th call."""

    def __init__(self, at: int, error: BaseException, name: str = "raiser"):
        self.at, self.error, self.name, self.calls = at, error, name, 0

    def act(self, obs, rng):
        self.calls += 1
        if self.calls == self.at:
            raise self.error
        return super().act(obs, rng)


@pytest.mark.parametrize("error, caught", [(ValueError("boom"), AgentError),
                                           (KeyboardInterrupt(), KeyboardInterrupt)])
def test_compare_closes_its_progress_bar_when_an_agent_raises(capsys, error, caught):
    pytest.importorskip("tqdm")
    agents = [RandomAgent(), _RaisesAt(40, error)]
    with pytest.raises(caught) as got:
        compare(["random", "raiser"], 3, batch_walls=1, progress=True, agents=agents)
    if caught is AgentError:  # named where it happened, the agent's own exception kept as the cause
        assert "'raiser' raised ValueError" in str(got.value) and got.value.__cause__ is error
    else:
        assert got.value is error  # Ctrl-C reaches the caller as it was
    # read while the exception is held, as the command line's handler holds it when it tells the error (once
    # it is dropped, the collected bar closed itself, and drew itself again after the message)
    err = capsys.readouterr().err
    assert "arena:" in err and err.endswith("\n")  # the bar's line ended: a message now starts its own line
    assert got.value.__traceback__ is not None


def test_compare_closes_its_progress_bar_when_the_records_callable_raises(capsys):
    pytest.importorskip("tqdm")

    def records(batch):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full") as got:  # (held, as the command line's handler holds it)
        compare(["random", "random"], 2, batch_walls=1, progress=True, agents=[RandomAgent(), RandomAgent()],
                records=records)
    assert capsys.readouterr().err.endswith("\n") and got.value.__traceback__ is not None


def _pairs_at(fail_at: int | None):
    """A potential (0.1 per pair held) that raises ValueError at its ``fail_at``-th call."""
    calls = [0]

    def potential(planes):
        calls[0] += 1
        if calls[0] == fail_at:
            raise ValueError("my potential failed")
        return 0.1 * (planes[:, 0] >= 2).sum(axis=1)

    return potential


def _first_legal(mask) -> np.ndarray:
    return np.asarray(mask).argmax(axis=-1)


def test_reward_option_refuses_to_step_on_after_its_potential_raised_and_pays_as_a_twin_after_reset():
    env = RewardOption(gym.make("mj_env/Beijing-v0", opponents="random"), "shaped", potential=_pairs_at(3),
                       gamma=0.9)
    twin = RewardOption(gym.make("mj_env/Beijing-v0", opponents="random"), "shaped",
                        potential=_pairs_at(None), gamma=0.9)
    obs, _ = env.reset(seed=3)
    obs, _, terminated, _, _ = env.step(int(_first_legal(obs["action_mask"])))
    assert not terminated
    a = int(_first_legal(obs["action_mask"]))
    with pytest.raises(ValueError, match="my potential failed"):  # the user's exception, unchanged
        env.step(a)
    with pytest.raises(RuntimeError, match=r"potential function raised .* call reset\(\) first"):
        env.step(a)  # (before the fix: played, and shaped from the Phi of two decisions ago)
    got = [env.reset(seed=5)[0], twin.reset(seed=5)[0]]
    for _ in range(12):
        assert np.array_equal(got[0]["observation"], got[1]["observation"])
        a = int(_first_legal(got[0]["action_mask"]))
        steps = [env.step(a), twin.step(a)]
        assert steps[0][1:4] == steps[1][1:4]
        got = [steps[0][0], steps[1][0]]
        if steps[0][2]:
            got = [env.reset(seed=6)[0], twin.reset(seed=6)[0]]


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
def test_reward_option_vector_refuses_to_step_on_after_its_potential_raised(mode):
    def make(potential):
        inner = MahjongSingleAgentVectorEnv(num_envs=3, opponents="random", autoreset_mode=mode)
        return RewardOptionVector(inner, "shaped", potential=potential, gamma=0.9)

    env, twin = make(_pairs_at(2)), make(_pairs_at(None))
    obs, _ = env.reset(seed=1)
    with pytest.raises(ValueError, match="my potential failed"):
        env.step(_first_legal(obs["action_mask"]))
    with pytest.raises(RuntimeError, match=r"potential function raised .* call reset\(\) first"):
        env.step(_first_legal(obs["action_mask"]))
    env.reset(seed=2, options={"reset_mask": np.array([True, False, True])})  # partial: Phi still unknown
    with pytest.raises(RuntimeError, match="every table"):
        env.step(_first_legal(obs["action_mask"]))
    got = [env.reset(seed=4)[0], twin.reset(seed=4)[0]]
    for _ in range(10):
        a = _first_legal(got[0]["action_mask"])
        steps = [env.step(a), twin.step(a)]
        for k in (1, 2, 3):
            assert np.array_equal(steps[0][k], steps[1][k])
        got = [steps[0][0], steps[1][0]]
