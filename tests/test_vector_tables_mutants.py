"""Mutation-testing round on mj_env/vector.py, mj_env/tables.py, mj_env/tiles.py, mj_env/state.py and mj_env/rules.py:
tests that kill mutants which the other tests let through. Each test names what a wrong change got past. (Every
sampled mutant of tiles.py was killed already: no test here.)"""
from __future__ import annotations

import numpy as np
import pytest
from walls import four_hui_wall

from mj_env import state, tables
from mj_env.lines import HugeInt
from mj_env.rules import RuleError, get_rules
from mj_env.vector import MahjongVectorEnv


# ---------------------------------------------------------------------------------------------- mj_env.vector
def test_an_unknown_reset_option_refusal_lists_every_known_option():
    """Got past: the list of known options cut to its last one ("use  and 'reset_mask'")."""
    venv = MahjongVectorEnv(num_envs=2, seed=0)
    with pytest.raises(ValueError, match="unknown reset option") as err:
        venv.reset(options={"wal": None})
    assert str(err.value).endswith("; use 'walls', 'dealers' and 'reset_mask'")


def test_points_of_a_deal_that_ended_at_once_are_paid_once():
    """Got past: the waiting points set to -1 instead of 0 once paid (every later step then paid -1 per seat)."""
    venv = MahjongVectorEnv(num_envs=1, seed=0)
    obs, _ = venv.reset(seed=0, options={"walls": [four_hui_wall()], "dealers": [0]})
    waiting = venv.pending_rewards[0].copy()
    assert waiting.any()
    obs, rewards, term, _trunc, infos = venv.step(obs["action_mask"].argmax(axis=1))
    assert not term[0] and rewards[0].tolist() == waiting.tolist() and infos["_deal_points"].tolist() == [True]
    assert not venv.pending_rewards.any()
    for _ in range(3):
        obs, rewards, term, _trunc, infos = venv.step(obs["action_mask"].argmax(axis=1))
        assert "deal_points" not in infos
        assert term[0] or not rewards.any()


# ---------------------------------------------------------------------------------------------- mj_env.tables
def test_load_builds_silently_unless_verbose(tmp_path, monkeypatch, capsys):
    """Got past: ``load`` printing its "built hand tables" line to stderr without ``verbose`` (the library's first use
    would then write to a user's terminal). The build itself is counted here, not run (as in tests/test_hand.py)."""
    cached = {name: tables.get(name) for name in tables.NAMES}
    monkeypatch.setattr(tables, "build", lambda: {k: v.copy() for k, v in cached.items()})
    target = tmp_path / tables.FILE_NAME
    monkeypatch.setattr(tables, "cache_paths", lambda: [target])
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    capsys.readouterr()
    assert tables.load(rebuild=True) == target
    assert capsys.readouterr() == ("", "")
    assert tables.load(rebuild=True, verbose=True) == target
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("built hand tables in ") and err.rstrip().endswith(f"saved to {target}")


def test_honor_need_by_count_has_one_entry_per_count():
    """Got past: the counts 0..max_count + 1 (one entry too many) in the honors' arithmetic."""
    melds, with_pair = tables.honor_need_by_count(4)
    assert melds.tolist() == [0, 2, 1, 0, 2] and with_pair.tolist() == [2, 1, 0, 2, 1]


def test_the_command_line_reports_the_cache_file_and_its_size(tmp_path, monkeypatch, capsys):
    """Got past: ``python -m mj_env.tables`` saying "not written" of a cache it found (and failing where none
    could be written)."""
    cached = {name: tables.get(name) for name in tables.NAMES}
    target = tables.save(cached, tmp_path / tables.FILE_NAME)
    monkeypatch.setattr(tables, "cache_paths", lambda: [target])
    monkeypatch.setattr(tables, "_cache", {})
    monkeypatch.setattr(tables, "_source", None)
    capsys.readouterr()
    assert tables.main([]) == 0
    size = f"{target.stat().st_size / 2**20:.1f} MiB"
    assert capsys.readouterr().out == f"hand tables v{tables.FORMAT_VERSION}: {tables.N_ENTRIES} part keys, cache {target} ({size})\n"


def test_the_command_lines_help_describes_the_tables(capsys):
    """Got past: ``python -m mj_env.tables --help`` without its one-line description (the module docstring's first)."""
    with pytest.raises(SystemExit) as exit_:
        tables.main(["--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Per-suit wildcard tables for the win, wait and distance checks of ``mj_env.hand``." in out


# ---------------------------------------------------------------------------------------------- mj_env.state
def test_clear_claims_gives_a_claim_windows_fields_the_values_of_a_new_state():
    """Got past: ``clear_claims`` leaving ``pend_seat`` at 1 (its docstring: the last window's claims, queue and
    pending claim "get the values of a new state"); the tables not named are left alone."""
    fields = ("claim_ok", "queue_seat", "queue_cat", "q_pos", "q_len", "pend_action", "pend_seat", "pend_cat")
    fresh = state.allocate(3, 136)
    st = state.allocate(3, 136)
    for name in fields:
        getattr(st, name)[...] = True if getattr(st, name).dtype == bool else 2
    junk = st.copy()
    state.clear_claims(st, np.array([0, 2]))
    for name in fields:
        got = getattr(st, name)
        assert (got[[0, 2]] == getattr(fresh, name)[[0, 2]]).all(), name
        assert (got[1] == getattr(junk, name)[1]).all(), name


# ---------------------------------------------------------------------------------------------- mj_env.rules
@pytest.mark.parametrize(("field", "want"), [("chi", "bool"), ("dealer_rotation", "a str")])
def test_a_huge_json_integer_for_a_field_that_is_no_integer_is_refused_by_the_fields_type(field, want):
    """Got past: a too-long JSON integer (``lines.HugeInt``) given for a bool or string field refused as "must be an
    integer in its range" (that message is for the integer fields alone: tests/test_offline_persona.py)."""
    huge = HugeInt("1" + "0" * 40)
    with pytest.raises(RuleError) as err:
        get_rules({"name": "beijing", field: huge})
    assert f"rule field {field!r} must be {want}" in str(err.value) and "integer" not in str(err.value)
