"""Review of ``--rules`` taking a rule set of one's own as JSON (``agents.arena.rules_option``, train.py's
``run_rules``): a JSON nested too deeply is a usage error, not a traceback."""
from __future__ import annotations

import pytest

from agents import arena

DEEP = '{"name": ' + "[" * 100_000 + "]" * 100_000 + "}"


def test_a_json_nested_too_deeply_is_a_rule_error_not_a_recursion_error():
    with pytest.raises(ValueError, match="bad JSON: nested too deeply"):
        arena.rules_option(DEEP)


def test_the_arena_refuses_a_json_nested_too_deeply_with_status_2(tmp_path, capsys):
    record = tmp_path / "r.jsonl"
    with pytest.raises(SystemExit) as e:
        arena.main(["--agents", "rule,random", "--hands", "2", "--rules", DEEP, "--record", str(record)])
    assert e.value.code == 2
    captured = capsys.readouterr()
    assert "argument --rules: bad JSON: nested too deeply" in captured.err.splitlines()[-1]
    assert captured.out == "" and not record.exists()


def test_train_refuses_a_json_nested_too_deeply_with_status_2(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    import train

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        train.main(["--exp-name", "deep", "--rules", DEEP, "--total-steps", "0", "--bc-steps", "1"])
    assert e.value.code == 2
    assert "--rules: bad JSON: nested too deeply" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()

