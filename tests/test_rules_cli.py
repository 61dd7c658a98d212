"""A rule set of one's own from the command line: ``python -m agents.arena --rules`` and ``train.py --rules`` take a
preset's name or the object form of docs/INTERFACES.md 1 as JSON (``'{"name": "beijing", "chi": false}'``), read by
``agents.rules_args.rules_option`` (JSON as the calculator reads a line, then ``mj_env.rules.get_rules``). Before, both
took a preset's name only, so a rule variant could be built in Python but neither trained nor evaluated from the
command line. A bad value is refused before anything is played or written, naming the field."""
from __future__ import annotations

import csv
import json
import re
import shlex

import pytest

from agents import arena, rules_args
from mj_env.records import replay, rules_of
from mj_env.rules import PRESETS, RuleError, get_rules

NO_CHI = '{"name": "beijing", "chi": false}'
NO_CHI_RULES = get_rules("beijing", chi=False)


def _chis(path) -> int:
    """The chi decisions in a file of hand records (each record replayed under its own rules first)."""
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        replay(rec)
        n += sum(name.startswith("chi ") for _, name in rec["actions"])
    return n


def test_rules_option_reads_a_preset_as_the_preset_and_the_object_form_with_get_rules():
    assert rules_args.rules_option("hebei") is PRESETS["hebei"]
    assert rules_args.rules_option(NO_CHI) == NO_CHI_RULES
    assert rules_args.rules_option(' {"name": "hebei", "base": 500} ') == get_rules("hebei", base=500)
    assert rules_args.rules_option('{"name": "quemen", "flowers": true}') is not None  # flowers alone, as get_rules reads it
    for text, words in [('{"name": "beijing", "chii": false}', "did you mean 'chi'"),
                        ('{"name": "beijing", "chi": "no"}', "'chi' must be bool"),
                        ('{"name": "beijing", "chi": false', "bad JSON"),
                        ('{"name": "beijing", "chi": false, "chi": true}', "'chi' is given twice"),
                        ('{"name": "hebei", "base": NaN}', "NaN is not a JSON number"),
                        ('{"name": "hebei", "base": ' + "9" * 60 + "}", "'base' must be an integer in its range"),
                        ("pekin", "unknown rules 'pekin'.*JSON object")]:
        with pytest.raises(RuleError, match=words):
            rules_args.rules_option(text)


def test_the_arena_plays_a_rule_set_given_as_json_and_names_it_in_the_table_json_and_records(tmp_path, capsys):
    out_json, records = tmp_path / "s.json", tmp_path / "r.jsonl"
    assert arena.main(["--agents", "rule,random", "--hands", "6", "--quiet", "--rules", NO_CHI,
                       "--json", str(out_json), "--record", str(records)]) == 0
    assert "rules: beijing with chi=False" in capsys.readouterr().out.splitlines()
    assert json.loads(out_json.read_text())["rules"] == {"name": "beijing", "chi": False}
    recs = [json.loads(line) for line in records.read_text().splitlines()]
    assert recs and all(rules_of(r["rules"]) == NO_CHI_RULES for r in recs)
    assert _chis(records) == 0
    # control: the same walls under the preset do have chis (the scan would see them)
    assert arena.main(["--agents", "rule,random", "--hands", "6", "--quiet", "--record", str(records)]) == 0
    assert _chis(records) > 0


@pytest.mark.parametrize("rules, words", [
    ('{"name": "beijing", "chii": false}', "argument --rules: unknown rule field.*'chii'.*did you mean 'chi'"),
    ('{"name": "beijing", "chi": "no"}', "argument --rules: rule field 'chi' must be bool, got 'no'"),
    ('{"name": "hebei", "base": 0}', "argument --rules: rule field 'base': must be an integer in 1-"),
    ('{"name": "beijing" "chi": false}', "argument --rules: bad JSON: Expecting ',' delimiter at column 20"),
    ('{"name": "beijing", "hands_per_episode": 4}', "--rules: the duplicate arena plays one hand per wall"),
])
def test_the_arena_refuses_a_bad_rule_set_before_any_hand_naming_the_field(tmp_path, capsys, rules, words):
    record = tmp_path / "r.jsonl"
    with pytest.raises(SystemExit) as e:
        arena.main(["--agents", "rule,random", "--hands", "2", "--quiet", "--rules", rules, "--record", str(record)])
    assert e.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not record.exists()
    assert captured.err.startswith("usage: python -m agents.arena")
    assert re.search(words, captured.err.splitlines()[-1]), captured.err


TINY = ["--total-steps", "1024", "--num-envs", "16", "--num-steps", "32", "--bc-steps", "4", "--eval-every", "1",
        "--eval-hands", "4", "--final-eval-hands", "6", "--snapshot-every", "1", "--threads", "1", "--no-progress",
        "--max-minutes", "none", "--opponent-pretrained", "0.2"]


def test_train_under_a_rule_set_of_ones_own_trains_evaluates_and_stores_it(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    import train
    from agents.networks import load_checkpoint

    seen = []  # what the envs and the evaluations were made with
    real_env, real_play = train.MahjongVectorEnv, arena.play_duplicate
    monkeypatch.setattr(train, "MahjongVectorEnv", lambda *a, **k: seen.append(k["rules"]) or real_env(*a, **k))
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: seen.append(k["rules"]) or real_play(*a, **k))
    monkeypatch.chdir(tmp_path)
    result = train.main(["--exp-name", "nochi", "--rules", NO_CHI, *TINY])
    out = capsys.readouterr().out
    run = tmp_path / "runs" / "nochi"
    assert len(seen) >= 3 and all(r == NO_CHI_RULES for r in seen)
    assert out.startswith("nochi: beijing with chi=False; imitate the rule agent")
    assert json.loads((run / "args.json").read_text())["rules"] == NO_CHI  # the text given
    for ckpt in [run / "checkpoints" / "final.pt", *(run / "checkpoints").glob("update_*.pt")]:
        assert load_checkpoint(ckpt)[1]["rules"] == {"name": "beijing", "chi": False}
    # the printed command repeats the final evaluation under the same rules, figure for figure
    line = out.split("repeat the evaluation against rule: ")[1].splitlines()[0]
    assert line.endswith(""" --rules '{"name": "beijing", "chi": false}'""")
    command = shlex.split(line)
    assert command[:3] == ["python", "-m", "agents.arena"]
    records, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    assert arena.main(command[3:] + ["--quiet", "--record", str(records), "--json", str(summary)]) == 0
    again = json.loads(summary.read_text())
    assert again["rules"] == {"name": "beijing", "chi": False}
    for key in ("mean_points", "win_rate", "deal_in_rate", "ci95"):
        assert again["agents"][0][key] == result["eval"]["rule"]["agents"][0][key]
    assert _chis(records) == 0  # the checkpoint played under its rules: no chi


@pytest.mark.parametrize("rules, words", [
    ('{"name": "beijing", "chii": false}', "--rules: unknown rule field.*did you mean 'chi'"),
    ('{"name": "hebei", "base": "500"}', "--rules: rule field 'base' must be int, got '500'"),
    ('{"name": "beijing", "chi": false', "--rules: bad JSON"),
    ('{"name": "beijing", "hands_per_episode": 2}', "--rules: hands_per_episode=2: train.py plays one hand"),
    ("pekin", "--rules: unknown rules 'pekin'"),
])
def test_train_refuses_a_bad_rule_set_with_status_2_naming_the_field_and_writes_nothing(tmp_path, monkeypatch,
                                                                                        capsys, rules, words):
    pytest.importorskip("torch")
    import train

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        train.main(["--exp-name", "bad", "--rules", rules, *TINY])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert re.search(words, err), err
    assert not (tmp_path / "runs").exists()


def _rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k not in ("seconds", "SPS", "rollout_seconds")}
                for row in csv.DictReader(f)]


def test_a_preset_given_as_its_object_form_trains_as_the_preset_itself(tmp_path, monkeypatch, capsys):
    """The same run, random numbers and printed tables (its time aside) as by name; the checkpoint stores the name."""
    pytest.importorskip("torch")
    import train
    from agents.networks import load_checkpoint

    monkeypatch.chdir(tmp_path)
    outs = []
    for name, rules in (("by_name", "hebei"), ("by_object", '{"name": "hebei", "chi": false}')):
        train.main(["--exp-name", name, "--rules", rules, *TINY])
        outs.append(re.sub(r", \d+ s\):", "):", capsys.readouterr().out.replace(name, "RUN")))
        assert load_checkpoint(tmp_path / "runs" / name / "checkpoints" / "final.pt")[1]["rules"] == "hebei"
    assert outs[0] == outs[1] and "--rules hebei\n" in outs[0]
    assert _rows(tmp_path / "runs" / "by_name" / "progress.csv") == _rows(tmp_path / "runs" / "by_object" / "progress.csv")


def test_the_shipped_player_of_the_preset_plays_a_rule_set_of_ones_own_with_a_note(tmp_path, monkeypatch, capsys):
    """--opponent-pretrained and the evaluations against pretrained take the preset's player; where fields the agents
    read differ (seven_pairs), one note says so (NetworkAgent.from_checkpoint's warning), not a Python warning."""
    pytest.importorskip("torch")
    import train

    monkeypatch.chdir(tmp_path)
    train.main(["--exp-name", "sp", "--rules", '{"name": "beijing", "seven_pairs": false}', "--total-steps", "0",
                "--num-envs", "16", "--bc-steps", "1", "--final-eval-hands", "2", "--threads", "1", "--no-progress",
                "--opponent-pretrained", "0.2"])
    captured = capsys.readouterr()
    notes = [line for line in captured.out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "plays under 'beijing' with seven_pairs=False" in notes[0], captured.out
    assert "Warning" not in captured.err
    assert "trained vs pretrained" in captured.out


# --- a JSON nested too deeply; train.py's final tables ---------------------------------------------------------------
# A JSON nested too deeply is a usage error, not a traceback; train.py's printed final tables name a rule set of one's
# own (as the arena's table does), a preset's are as before and final_eval.json is unchanged.
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
