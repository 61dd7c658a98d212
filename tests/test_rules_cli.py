"""A rule set of one's own from the command line: ``python -m agents.arena --rules`` and ``train.py --rules`` take a
preset's name or the object form of docs/INTERFACES.md 1 as JSON (``'{"name": "beijing", "chi": false}'``), read by
``agents.arena.rules_option`` (JSON as the calculator reads a line, then ``mj_env.rules.get_rules``). Before, both
took a preset's name only, so a rule variant could be built in Python but neither trained nor evaluated from the
command line. A bad value is refused before anything is played or written, naming the field."""
from __future__ import annotations

import json
import re

import pytest

from agents import arena
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
    assert arena.rules_option("hebei") is PRESETS["hebei"]
    assert arena.rules_option(NO_CHI) == NO_CHI_RULES
    assert arena.rules_option(' {"name": "hebei", "base": 500} ') == get_rules("hebei", base=500)
    assert arena.rules_option('{"name": "quemen", "flowers": true}') is not None  # flowers alone, as get_rules reads it
    for text, words in [('{"name": "beijing", "chii": false}', "did you mean 'chi'"),
                        ('{"name": "beijing", "chi": "no"}', "'chi' must be bool"),
                        ('{"name": "beijing", "chi": false', "bad JSON"),
                        ('{"name": "beijing", "chi": false, "chi": true}', "'chi' is given twice"),
                        ('{"name": "hebei", "base": NaN}', "NaN is not a JSON number"),
                        ('{"name": "hebei", "base": ' + "9" * 60 + "}", "'base' must be an integer in its range"),
                        ("pekin", "unknown rules 'pekin'.*JSON object")]:
        with pytest.raises(RuleError, match=words):
            arena.rules_option(text)


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
