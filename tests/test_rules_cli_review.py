"""Review of ``--rules`` taking a rule set of one's own as JSON (``agents.rules_args.rules_option``, train.py's
``run_rules``): a JSON nested too deeply is a usage error, not a traceback; train.py's printed final tables name a
rule set of one's own (as the arena's table does), a preset's are as before and final_eval.json is unchanged."""
from __future__ import annotations

import json

import pytest

from agents import arena, rules_args

DEEP = '{"name": ' + "[" * 100_000 + "]" * 100_000 + "}"


def test_a_json_nested_too_deeply_is_a_rule_error_not_a_recursion_error():
    with pytest.raises(ValueError, match="bad JSON: nested too deeply"):
        rules_args.rules_option(DEEP)


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


SMALL = ["--total-steps", "0", "--num-envs", "16", "--bc-steps", "1", "--final-eval-hands", "2", "--threads", "1",
         "--no-progress", "--no-eval-pretrained"]


def test_train_final_tables_name_a_rule_set_of_ones_own_and_a_presets_as_before(tmp_path, monkeypatch, capsys):
    """Each printed table of the final evaluation ends with ``rules: beijing with chi=False`` under a rule set of one's
    own, as the arena's does; a preset (by name or as its object form) prints none; final_eval.json holds no rules."""
    pytest.importorskip("torch")
    import train

    monkeypatch.chdir(tmp_path)
    train.main(["--exp-name", "own", "--rules", '{"name": "beijing", "chi": false}', *SMALL])
    out = capsys.readouterr().out
    tables = out.split("final evaluation")[1].split("repeat the evaluation")[0]
    assert tables.count("\n  rules: beijing with chi=False\n") == 2, out  # vs random, vs rule
    saved = json.loads((tmp_path / "runs" / "own" / "final_eval.json").read_text())
    assert all("rules" not in summary for summary in saved["eval"].values())
    for name, rules in (("preset", "beijing"), ("preset_obj", ' {"name": "\\u0062eijing", "chi": true} ')):
        train.main(["--exp-name", name, "--rules", rules, *SMALL])
        assert "rules:" not in capsys.readouterr().out
