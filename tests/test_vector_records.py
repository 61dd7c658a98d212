"""``MahjongVectorEnv(records=True)``: each ended hand's record (``mj_env.records``) in ``infos["hand_record"]``,
replayed exactly by ``records.replay``; a deal that ends at once has none, as the README says; the other
environments refuse ``records`` by name."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from test_vector import next_deal_is_four_hui
from walls import four_hui_wall

from mj_env import actions as A
from mj_env import records
from mj_env.records import HandLog
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv

ROOT = Path(__file__).resolve().parents[1]


def play(venv, steps: int, seed: int = 0, check=None):
    """Random legal play; every record that comes back replays to the settlement the step gave. Returns them."""
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    got = []
    for _ in range(steps):
        mask = obs["action_mask"].astype(bool)
        obs, _r, term, _t, infos = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
        assert infos["_hand_record"].tolist() == term.tolist()
        for b in np.flatnonzero(term):
            rec = infos["hand_record"][b]
            assert records.replay(rec) == infos["settlement"][b]
            got.append(rec)
        assert all(r is None for r in infos["hand_record"][~term])
    return got


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_every_ended_hand_has_a_record_that_replays_to_its_settlement(rules, mode):
    got = play(MahjongVectorEnv(16, rules=rules, seed=1, records=True, autoreset_mode=mode), 400)
    assert len(got) >= 30
    assert all(json.loads(json.dumps(r)) == r for r in got)  # plain JSON


def test_a_rule_set_of_ones_own_is_recorded_with_its_fields():
    got = play(MahjongVectorEnv(8, rules="beijing", seed=2, records=True, chi=False), 300)
    assert got and all(r["rules"] == {"name": "beijing", "chi": False} for r in got)


def test_records_match_the_aec_envs_record_of_the_same_hand():
    """The same wall, dealer and decisions as the AEC env's ``hand_record`` of that hand."""
    import mj_env

    rec = play(MahjongVectorEnv(4, seed=3, records=True), 300)[0]
    env = mj_env.env()
    env.reset(seed=0, options={"wall": rec["wall"], "dealer": rec["dealer"]})
    for _seat, name in rec["actions"]:
        env.step(A.index(name))
    assert env.unwrapped.hand_record() == rec


def test_a_hand_longer_than_the_log_grows_it():
    rules = get_rules("beijing")
    venv = MahjongVectorEnv(4, seed=4, records=True)
    venv._log = HandLog(rules, 4, capacity=3)  # (a few decisions a hand: grown many times over)
    got = play(venv, 300, seed=4)
    assert got and max(len(r["actions"]) for r in got) > 3 and venv._log.seats.shape[1] >= 48


def test_a_hand_dealt_again_at_once_is_recorded_from_its_new_deal():
    """A deal that ends before any decision (四惠牌) is dealt again; the record is of the hand played."""
    venv = MahjongVectorEnv(1, seed=5, records=True)
    obs, _ = venv.reset(seed=5, options={"walls": [four_hui_wall()], "dealers": [0]})
    assert venv.instant_hands == 1
    rng = np.random.default_rng(5)
    for _ in range(1000):
        obs, _r, term, _t, infos = venv.step(np.array([rng.choice(np.flatnonzero(obs["action_mask"][0]))]))
        if term[0]:
            break
    rec = infos["hand_record"][0]
    assert rec["wall"] != [records.CODES[t] for t in four_hui_wall()]
    assert records.replay(rec) == infos["settlement"][0]


def test_a_partial_reset_starts_those_tables_records_anew():
    venv = MahjongVectorEnv(2, seed=6, records=True)
    obs, _ = venv.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(5):
        obs, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]]))
    assert venv._log.length.tolist() == [5, 5]
    venv.reset(options={"reset_mask": np.array([False, True])})
    assert venv._log.length.tolist() == [5, 0]
    assert (venv._log.wall[1] == venv.engine.state.wall[1]).all()


def test_a_refused_step_leaves_the_records_as_they_were():
    venv = MahjongVectorEnv(2, seed=7, records=True)
    obs, _ = venv.reset(seed=7)
    before = venv._log.length.copy()
    illegal = np.flatnonzero(~obs["action_mask"][0].astype(bool))[0]
    with pytest.raises(A.ActionError):
        venv.step(np.array([illegal, obs["action_mask"][1].argmax()]))
    assert venv._log.length.tolist() == before.tolist()
    assert play(venv, 200, seed=7)


def test_the_record_keeps_its_own_copy_of_the_settlement():
    venv = MahjongVectorEnv(8, seed=8, records=True)
    obs, _ = venv.reset(seed=8)
    rng = np.random.default_rng(8)
    while True:
        mask = obs["action_mask"].astype(bool)
        obs, _r, term, _t, infos = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
        if term.any():
            b = int(np.flatnonzero(term)[0])
            break
    infos["settlement"][b]["scores"][0] += 1000
    assert records.replay(infos["hand_record"][b])  # the record's settlement is the engine's, not the edited one


def test_records_are_off_by_default_and_refused_for_matches_and_non_bools():
    venv = MahjongVectorEnv(2, seed=9)
    obs, _ = venv.reset(seed=9)
    _o, _r, _t, _u, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert "hand_record" not in infos and "_hand_record" not in infos
    with pytest.raises(ValueError, match="hands_per_episode"):
        MahjongVectorEnv(2, records=True, hands_per_episode=4)
    with pytest.raises(TypeError, match="records must be True or False"):
        MahjongVectorEnv(2, records="yes")


# --------------------------------------------------------------------------- records: the other environments refuse it by name


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
