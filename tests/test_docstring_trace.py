"""What ``help()`` says about the public API, held where no other test held it.

A trace of the docstrings of what a user reaches (``mj_env``'s exports and the modules the README names)
found these claims true but broken by a hand-made breakage without any test failing; each test here fails
under that breakage. The docstrings found false were corrected in the code (TileNet.forward's input shape,
the batched envs' first reset with a ``reset_mask``, ``mean_ci95`` of a single value), whose behaviour other
tests already held (tests/test_agents.py, tests/test_vector.py, tests/test_arena.py).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import mj_env
from agents import pretrained
from agents.networks import NetworkAgent, PolicyValueNet, layer_init, save_checkpoint
from mj_env.single_agent import MahjongSingleAgentEnv


def test_layer_init_is_orthogonal_with_gain_std_and_zero_bias():
    """``layer_init``: "CleanRL's initialisation: orthogonal weights with gain ``std``, zero bias"."""
    torch.manual_seed(0)
    for std in (np.sqrt(2), 0.01, 1.0):
        layer = layer_init(torch.nn.Linear(6, 4), std)
        w = layer.weight.detach().double()
        assert torch.allclose(w @ w.T, std**2 * torch.eye(4, dtype=torch.float64), atol=1e-6)
        assert (layer.bias == 0).all()
    wide = layer_init(torch.nn.Linear(3, 5)).weight.detach().double()   # more rows than columns: W^T W
    assert torch.allclose(wide.T @ wide, 2 * torch.eye(3, dtype=torch.float64), atol=1e-6)


def test_the_aec_state_is_mj_obs_v1_whatever_obs_is():
    """``raw_env.state``: "(4, 14, 34) uint8 ... ``mj_obs_v1`` whatever ``obs`` is", as ``state_space`` says."""
    v1, v2 = mj_env.env(), mj_env.env(obs="v2")
    v1.reset(seed=4)
    v2.reset(seed=4)
    state = v2.state()
    assert state.shape == (4, 14, 34) == v2.unwrapped.state_space.shape and state.dtype == np.uint8
    assert v2.observe(v2.agent_selection)["observation"].shape == (18, 34)   # the observations do change
    assert (state == v1.state()).all()


def test_a_checkpoints_agent_takes_the_checkpoints_own_rules_by_default(tmp_path):
    """``NetworkAgent.from_checkpoint``: ``rules`` "(default: the checkpoint's own)", here not beijing's."""
    path = save_checkpoint(tmp_path / "q.pt", PolicyValueNet(hidden=(8,), obs="mj_obs_v2"), rules="quemen")
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # its own rules: no rules-mismatch warning either
        agent = NetworkAgent.from_checkpoint(path)
    assert agent.rules == "quemen"


def test_the_pretrained_players_keep_the_name_they_were_asked_by():
    """``load_pretrained(..., name=...)``; ``make_pretrained(spec)`` names the agent by its spec, which the arena
    shows (``agents.arena``: an agent's ``name`` labels it)."""
    assert pretrained.load_pretrained("beijing", name="mine").name == "mine"
    assert pretrained.make_pretrained("pretrained:greedy").name == "pretrained:greedy"


def test_the_one_table_env_renders_none_with_a_warning_without_a_render_mode():
    """``MahjongSingleAgentEnv.render``: "with no render mode, a warning and None, as Gymnasium's own envs give"."""
    env = MahjongSingleAgentEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render"):
        assert env.render() is None
    env.close()
