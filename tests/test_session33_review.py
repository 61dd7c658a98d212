"""Review of session 33's new code: ``MahjongVectorEnv(records=True)``, train.py's ``--keep-checkpoints``.

- The other environments refuse ``records`` by name (``mj_env.messages.refuse_arguments``: an argument another
  environment takes is not an unknown rule field), pointing at what each has instead.
- A snapshot checkpoint that cannot be deleted leaves the run going (it stopped the run, without final.pt).
- The README says which hands get no record (a deal that ends at once), as the vector env's docstring does.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_vector import next_deal_is_four_hui

from mj_env import records
from mj_env.vector import MahjongVectorEnv

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- records: the other environments


def test_the_aec_env_refuses_records_by_name_and_names_hand_record():
    """``mj_env.env(records=True)`` was refused as an unknown rule field ("the fields are those of
    mj_env.rules.RuleSet"); the AEC env's record is ``env.unwrapped.hand_record()``."""
    import mj_env

    with pytest.raises(ValueError, match=r"^records: .*env\.unwrapped\.hand_record\(\)"):
        mj_env.env(records=True)


@pytest.mark.parametrize("make", ["vector", "one_table"])
def test_the_single_agent_envs_refuse_records_by_name(make):
    from mj_env.single_agent import MahjongSingleAgentEnv, MahjongSingleAgentVectorEnv

    with pytest.raises(ValueError, match=r"^records: .*MahjongVectorEnv\(num_envs, records=True\)"):
        MahjongSingleAgentVectorEnv(2, records=True) if make == "vector" else MahjongSingleAgentEnv(records=True)


# --------------------------------------------------------------------------- records: what the docs say


def test_the_readme_says_a_deal_that_ends_at_once_has_no_record():
    """README: "the record of every hand that ends"; a deal that ends at once (四惠牌 at the deal) is dealt
    again with no record, its points paid in ``infos["deal_points"]`` (mj_env/vector.py's docstring says so)."""
    venv = MahjongVectorEnv(1, seed=0, records=True)
    obs, _ = venv.reset(seed=0)
    injected = next_deal_is_four_hui(venv)
    ended = paid = 0
    rng = np.random.default_rng(0)
    while not paid:
        obs, _r, term, _t, infos = venv.step(np.array([rng.choice(np.flatnonzero(obs["action_mask"][0]))]))
        ended += int(term[0])
        assert infos["_hand_record"].tolist() == term.tolist()
        if term[0]:
            assert records.replay(infos["hand_record"][0]) == infos["settlement"][0]
        paid = int(infos.get("_deal_points", [False])[0])
    assert injected and venv.instant_hands == 1 and ended == 1  # two hands ended, one record
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "A deal that ends at once, before any decision (四惠牌 at the deal), is dealt again and has no record" \
        in readme


# --------------------------------------------------------------------------- train.py --keep-checkpoints


