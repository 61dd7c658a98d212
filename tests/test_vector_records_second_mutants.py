"""A second mutation round on mj_env/vector.py and mj_env/records.py (seed 4401; the first rounds are
tests/test_vector_tables_mutants.py and tests/test_records_observation_mutants.py). Each test here failed under the
mutant named in its docstring and passes on the code; the expectations come from the modules' docstrings (the vector
env's infos table and autoreset modes, the record format and its checker) and docs/INTERFACES.md 2."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from walls import four_hui_wall

import mj_env
from mj_env import records
from mj_env.records import RecordError


def _four_hui_record() -> dict:
    """The record of a hand that ended at its deal (四惠牌: a self-draw, no decision), as read back from JSON."""
    env = mj_env.env()
    env.reset(seed=0, options={"wall": four_hui_wall(), "dealer": 0})
    return json.loads(json.dumps(env.unwrapped.hand_record()))


# --------------------------------------------------------------------------------------------- mj_env.records
def test_the_note_about_more_bad_records_is_said_once(tmp_path, capsys):
    """records.py line 367 (``elif bad == MAX_REPORTED + 1`` forced True): the note "(more bad records: only the first
    20 are shown ...)" was printed again for every bad record after the 20th, 30 times for a file of 50 bad lines."""
    path = tmp_path / "bad.jsonl"
    path.write_text("not json\n" * 50, encoding="utf-8")
    assert records.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("only the first 20 are shown") == 1
    assert [line[:7] for line in err.splitlines()] == ["record "] * 20 + ["(more b"]


@pytest.mark.parametrize("stored", [{1, 2}, object()])
def test_a_stored_settlement_holding_what_is_not_json_is_refused_as_unreadable(stored):
    """records.py lines 291-293 (``_unwritable``: every value taken by its repr, or the TypeError for what is not JSON
    removed, so that it was written as null): a record built in Python whose settlement held a set or another object
    was reported as settling otherwise (the replay compared with a repr or a null) instead of as no settlement."""
    rec = _four_hui_record()
    rec["settlement"]["input"]["discarder"] = stored
    with pytest.raises(RecordError, match=r"^settlement: not a settlement object \(nested too deeply, or unreadable\)$"):
        records.replay(rec)


@pytest.mark.parametrize("stored", ["xy", {"a": 1, "b": 2}])
def test_a_list_of_wins_stored_as_something_else_of_as_many_items_is_named_whole(stored):
    """records.py line 279 (``isinstance(b, list)`` dropped from ``_first_difference``): a replayed list of two wins
    against a stored string or object of two items was compared item by item with its characters or keys, and the
    message named ``settlement.wins[0]`` (a win against "x") instead of the ``wins`` that differ in kind."""
    rec = json.loads((Path(__file__).parent / "cases" / "hebei_two_winners_by_seat.json").read_text(encoding="utf-8"))
    rec["settlement"]["wins"] = stored
    with pytest.raises(RecordError) as e:
        records.replay(rec)
    assert "the replay settles otherwise than the record: settlement.wins is [{" in str(e.value)
    assert f"in the replay, {stored!r} in the record" in str(e.value)


# ---------------------------------------------------------------------------------------------- mj_env.vector
@pytest.mark.parametrize("obs, planes", [("v1", 14), ("v2", 18)])
def test_the_spaces_metadata_and_default_size_are_as_documented(obs, planes):
    """vector.py lines 184-206 (``render_fps`` 0, 65 tables by default, the observation's bound 254, the mask's 2): the
    spaces declare what the infos table of the module docstring says a step returns, uint8 planes and an int8 mask of
    0 and 1, which Gymnasium's checks and wrappers (``render_fps`` for recording videos) read."""
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode

    from mj_env.vector import MahjongVectorEnv

    venv = MahjongVectorEnv(obs=obs)
    assert venv.num_envs == 64
    assert venv.metadata == {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "human"],
                             "render_fps": 1}
    assert venv.single_observation_space == spaces.Dict({
        "observation": spaces.Box(0, 255, (planes, 34), dtype="uint8"),
        "action_mask": spaces.Box(0, 1, (127,), dtype="int8"),
        "seat": spaces.Discrete(4)})
    assert venv.single_action_space == spaces.Discrete(127)
    obs_, _ = venv.reset(seed=0)
    assert venv.observation_space.contains(obs_)
