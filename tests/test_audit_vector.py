"""Outside audit of the batched self-play environment (``mj_env.vector``) against the AEC env.

docs/INTERFACES.md 2 fixes the AEC env's explicit wall and dealer, its int8 masks and the settlement in the
infos; the vector env's docstring promises the same game at each of its tables (the planes and mask of the
seat to act, every seat's settled points, the settlement object). Played here table by table, from the
same explicit walls and dealers and the same random legal actions, in all three rule sets.
"""
from __future__ import annotations

import numpy as np
import pytest

import mj_env
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv
from mj_env.wall import shuffled_walls


@pytest.mark.parametrize("preset", ["beijing", "hebei", "quemen"])
def test_each_table_of_the_vector_env_plays_as_the_aec_env_from_the_same_wall(preset):
    n = 6
    rng = np.random.default_rng(11)
    walls = shuffled_walls(get_rules(preset), rng, n)
    dealers = [int(d) for d in rng.integers(0, 4, n)]
    venv = MahjongVectorEnv(n, rules=preset, seed=0)
    obs, _ = venv.reset(options={"walls": walls, "dealers": dealers})
    tables = []
    for wall, dealer in zip(walls, dealers):
        e = mj_env.env(rules=preset)
        e.reset(options={"wall": list(wall), "dealer": dealer})
        tables.append(e)
    done = np.zeros(n, dtype=bool)
    for _ in range(400):
        if done.all():
            break
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and (mask[~done].sum(axis=1) >= 1).all()
        acts = (rng.random(mask.shape) * mask).argmax(axis=1)
        for i in np.flatnonzero(~done):
            e = tables[i]
            seen, _, _, _, _ = e.last()
            assert e.agent_selection == f"player_{obs['seat'][i]}"
            assert np.array_equal(seen["action_mask"], mask[i])
            assert np.array_equal(seen["observation"], obs["observation"][i])
            e.step(int(acts[i]))
        obs, rewards, terminations, truncations, infos = venv.step(acts)
        assert not truncations.any()
        for i in np.flatnonzero(terminations & ~done):
            e = tables[i]
            assert all(e.terminations.values())
            assert [e._cumulative_rewards[a] for a in e.possible_agents] == rewards[i].tolist()
            assert rewards[i].sum() == 0  # docs/RULES.md 6: every settlement is zero-sum
            assert e.infos["player_0"]["settlement"] == infos["settlement"][i]
        done |= terminations
    assert done.all()


def _numpy_to_torch():
    """Gymnasium's ``NumpyToTorch``; Gymnasium 1.2 and 1.3 refuse to import it under numpy < 2.1 (their
    ``gymnasium[torch]`` extra requires numpy>=2.1, above this project's floor), so there the test is skipped."""
    from gymnasium.error import DependencyNotInstalled

    try:
        from gymnasium.wrappers.vector import NumpyToTorch
    except DependencyNotInstalled as e:
        pytest.skip(f"Gymnasium's NumpyToTorch: {e}")
    return NumpyToTorch


def test_numpy_to_torch_on_the_self_play_env_fails_as_the_readme_says():
    """README: Gymnasium's ``NumpyToTorch`` cannot take the self-play env's infos (``settlement`` is an array of
    Python objects) and fails at the first step; if a Gymnasium release converts them, the README must change."""
    torch = pytest.importorskip("torch")
    NumpyToTorch = _numpy_to_torch()

    env = NumpyToTorch(MahjongVectorEnv(num_envs=2, seed=0))
    obs, _ = env.reset(seed=0)
    first = torch.as_tensor([np.flatnonzero(row)[0] for row in obs["action_mask"].numpy()])
    # Gymnasium 1.1's conversion (no DLPack yet) refuses the object array with a TypeError
    with pytest.raises((BufferError, TypeError), match="DLPack|numpy.object_"):
        env.step(first)
    env.close()
