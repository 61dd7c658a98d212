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

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

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


def test_determinized_copies_draw_their_next_walls_from_the_rng_given():
    """``determinize``: "The copies' own generator (for ``reset`` and the next hand of a match) is seeded from
    ``rng``": the same seed, the same next deals; another seed, others."""
    from mj_env.determinize import determinize
    from mj_env.engine import Engine

    eng = Engine("beijing", num_tables=1, seed=0)
    eng.reset()
    walls = []
    for rng in (5, 5, 6):
        worlds = determinize(eng, 0, seat=int(eng.state.to_act[0]), n=2, rng=rng)
        worlds.reset()
        walls.append(worlds.state.wall.copy())
    assert (walls[0] == walls[1]).all() and not (walls[0] == walls[2]).all()


def test_checked_reset_options_gives_a_copy():
    """``checked_reset_options``: "A copy of ``reset``'s ``options`` as a dict"; a refused one is left as it was."""
    from mj_env.vector import checked_reset_options

    options = {"walls": None, "dealers": [1]}
    got = checked_reset_options(options, ("walls", "dealers"))
    assert got == options and got is not options
    got["dealers"] = [2]
    assert options == {"walls": None, "dealers": [1]}
    bad = {"wals": 1}
    with pytest.raises(ValueError, match="unknown reset option"):
        checked_reset_options(bad, ("walls", "dealers"))
    assert bad == {"wals": 1}


def test_hand_record_takes_actions_as_indices_or_names():
    """``records.hand_record``: "``[(seat, action index or name), ...]``"; both give one record, which replays."""
    from mj_env import actions as A
    from mj_env import records
    from mj_env.engine import Engine

    eng = Engine("beijing", num_tables=1, seed=2)
    eng.reset()
    wall, dealer = eng.state.wall[0].copy(), int(eng.state.dealer[0])
    taken = []
    for _ in range(6):
        seat, action = int(eng.state.to_act[0]), int(np.flatnonzero(eng.legal_mask()[0])[0])
        taken.append((seat, action))
        eng.step(np.array([action]))
    by_index = records.hand_record(eng.rules, wall, dealer, taken)
    by_name = records.hand_record(eng.rules, wall, dealer, [(s, A.name(a)) for s, a in taken])
    assert by_name == by_index and by_index["actions"][0] == [taken[0][0], A.name(taken[0][1])]
    assert records.replay(by_name) is None        # a hand recorded before its end: no settlement
