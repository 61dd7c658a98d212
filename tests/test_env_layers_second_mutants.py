"""A second mutation round on what outside trainers call: mj_env/aec.py (the PettingZoo AEC env) and
mj_env/single_agent.py (the Gymnasium single-agent envs), after tests/test_env_layers_mutants.py and
tests/test_single_agent_mutants.py. Every sampled mutant (mutate.py, seed 4201) that the chosen test files let
through was equivalent or killed by a test elsewhere in tests/; the test here kills a hand-made mutant of the
one-table env's seeding that a broad set of the env tests let through. It fails under that mutant and passes on
the code."""
from __future__ import annotations

from mj_env.single_agent import MahjongSingleAgentEnv


def test_one_table_seeds_deal_walls_from_a_wide_range():
    """``MahjongSingleAgentEnv.reset(seed=N)`` draws the table's own seed from Gymnasium's ``np_random``: eight
    seeds deal eight different walls, and so do eight unseeded resets after them (the hand-made mutant that drew
    that seed with ``integers(3)`` instead of ``integers(2**62)`` dealt at most three walls)."""
    env = MahjongSingleAgentEnv(opponents="random")
    walls = [set(), set()]
    for seed in (*range(8), *[None] * 8):
        env.reset(seed=seed)
        walls[seed is None].add(env.venv.engine.state.wall[0].tobytes())
    assert [len(w) for w in walls] == [8, 8]

