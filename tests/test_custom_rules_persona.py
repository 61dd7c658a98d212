"""A researcher's own rule set (a preset with fields changed, docs/RULES.md's **Decision** items and the other
fields of ``mj_env.rules.RuleSet``): it is named as itself wherever it is shown or stored, never as its bare
preset, and goes through every way in unchanged.

Found by an audit from that user's side: the table picture (the AEC and vector envs' ``render``, ``python -m
mj_env.records --show``) headed a beijing rule set without chi or 烧庄 "beijing"; an illegal action's reason
said "this rule set (beijing) has no ..."; the arena's printed table named no rules at all for a rule set
given to ``compare``; a checkpoint could not record a rule set of one's own (``save_checkpoint(rules=...)``
took a preset's name only), so one trained under it could not say so when loaded; and a misspelt field
(``shaozuang``) was refused without naming the field meant.
"""
from __future__ import annotations

import json
import pickle
import warnings

import gymnasium as gym
import pytest

import mj_env
from agents import arena, arena_report
from agents.base import RulesMismatchWarning
from mj_env import actions as A
from mj_env.records import replay, rules_of
from mj_env.rules import RuleError, RuleSet, UnknownRuleField, get_rules, rules_label
from mj_env.score import answer

NO_CHI_NO_SZ = get_rules("beijing", chi=False, shaozhuang=False)


def test_a_rule_set_of_ones_own_is_labelled_with_its_fields_and_a_preset_by_its_name():
    assert rules_label(get_rules("beijing")) == "beijing"
    assert rules_label(NO_CHI_NO_SZ) == "beijing with chi=False, shaozhuang=False"
    assert rules_label(get_rules("hebei", base=500)) == "hebei with base=500"


def test_the_table_picture_names_the_rule_set_not_its_bare_preset():
    env = mj_env.env(rules="beijing", chi=False, shaozhuang=False, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("beijing with chi=False, shaozhuang=False | dealer East | live wall 68 | 惠坯")
    preset = mj_env.env(rules="beijing", render_mode="ansi")
    preset.reset(seed=0)
    assert preset.render().startswith("beijing | dealer East")  # a preset's picture as before


def test_an_illegal_actions_reason_names_the_rule_set_of_ones_own():
    env = mj_env.env(rules=NO_CHI_NO_SZ)
    env.reset(seed=0)
    with pytest.raises(A.ActionError, match=r"this rule set \(beijing with chi=False, shaozhuang=False\) has no 报听"):
        env.step(A.index("ting 5m"))


def test_the_arena_table_names_a_rule_set_given_to_compare_and_its_records_replay_under_it():
    rules = get_rules("hebei", chi=True, multiple_winners=False, base=2)
    recs = []
    summary = arena.compare(["rule", "random"], 2, seed=0, rules=rules, batch_walls=2, records=recs.extend)
    assert summary["rules"] == {"name": "hebei", "chi": True, "multiple_winners": False, "base": 2}
    assert "rules: hebei with chi=True, multiple_winners=False, base=2" in arena_report.format_table(summary).splitlines()
    # read back from --json as well
    assert "rules: hebei with chi=True" in arena_report.format_table(json.loads(json.dumps(summary)))
    for rec in recs:  # the records hold every changed field, and replay under the same rules
        assert rules_of(rec["rules"]) == rules
        replay(rec)
    plain = arena.compare(["rule", "random"], 2, seed=0, rules="hebei", batch_walls=2)
    assert not any(line.startswith("rules:") for line in arena_report.format_table(plain).splitlines())


def test_a_misspelt_rule_field_names_the_field_meant():
    with pytest.raises(UnknownRuleField, match=r"unexpected keyword argument 'shaozuang'\); did you mean 'shaozhuang'"):
        get_rules("beijing", shaozuang=False)
    with pytest.raises(TypeError, match="did you mean 'hui_wild_in_melds'"):  # through an env constructor too
        mj_env.env(rules="beijing", hui_wild_in_meld=True)
    with pytest.raises(UnknownRuleField, match="min_fan.*the fields are those of mj_env.rules.RuleSet"):
        gym.make("mj_env/Hebei-v0", min_fan=2)  # no minimum-fan field (a feature, not a typo)


def test_a_checkpoint_records_a_rule_set_of_ones_own_and_says_so_when_played_under_another(tmp_path):
    pytest.importorskip("torch")
    from agents.networks import (
        CheckpointError,
        NetworkAgent,
        PolicyValueNet,
        load_checkpoint,
        save_checkpoint,
    )

    custom = get_rules("quemen", lack_suit=False, ting=False)
    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules=custom)
    _, meta = load_checkpoint(path)
    assert meta["rules"] == {"name": "quemen", "lack_suit": False, "ting": False}
    assert get_rules(NetworkAgent.from_checkpoint(path).rules) == custom  # plays its own rules by default
    with pytest.warns(RulesMismatchWarning, match=r"trained for rule set 'quemen with lack_suit=False, ting=False' "
                                                 r"and plays under 'quemen' with lack_suit=True, ting=True"):
        NetworkAgent.from_checkpoint(path, rules="quemen")
    with pytest.warns(RulesMismatchWarning, match=r"trained for rule set 'quemen with lack_suit=False, ting=False' "
                                                 r"and plays under 'hebei'"):
        NetworkAgent.from_checkpoint(path, rules="hebei")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NetworkAgent.from_checkpoint(path, rules=custom)  # its own rules: no warning
    # the object form as given (json), and a preset's name, load; a bad field is refused by name
    save_checkpoint(tmp_path / "d.pt", PolicyValueNet(hidden=(8,)), rules={"name": "beijing", "chi": False})
    assert load_checkpoint(tmp_path / "d.pt")[1]["rules"] == {"name": "beijing", "chi": False}
    assert load_checkpoint(save_checkpoint(tmp_path / "p.pt", PolicyValueNet(hidden=(8,)),
                                           rules=get_rules("hebei")))[1]["rules"] == "hebei"
    with pytest.raises(CheckpointError, match="'meta' names rule set .*'lack_suit' must be bool"):
        save_checkpoint(tmp_path / "b.pt", PolicyValueNet(hidden=(8,)), rules={"name": "quemen", "lack_suit": "no"})


def test_a_rule_set_is_plain_data_equal_by_its_fields_and_goes_through_every_way_in():
    built = RuleSet(name="hebei", **{k: v for k, v in vars(get_rules("hebei", multiple_winners=False)).items()
                                      if k != "name"})
    custom = get_rules("hebei", multiple_winners=False)
    assert built == custom and hash(built) == hash(custom) and pickle.loads(pickle.dumps(custom)) == custom
    assert get_rules({"name": "hebei", "multiple_winners": False}) == custom
    vec = gym.make_vec("mj_env/Hebei-v0", num_envs=2, vectorization_mode="vector_entry_point", multiple_winners=False)
    assert vec.unwrapped.rules == custom and all(o.rules == custom for o in vec.unwrapped.opponents)
    vec.close()
    with pytest.raises(RuleError, match="'ting'"):  # 报听 is quemen's alone (no 'beijing without 报听' to ask for)
        get_rules("beijing", ting=True)


@pytest.mark.parametrize("field, line, words", [
    ("shaozhuang", {"shaozhuang_rounds": 1}, "shaozhuang_rounds: rules 'beijing' with shaozhuang=false have no 烧庄"),
    ("hubao", {"hubao": [[1, 2]]}, "hubao: rules 'beijing' with hubao=false have no 互包"),
    ("hui", {"hui": "9s"}, "hui / indicator: rules 'beijing' with hui=false have no 惠牌")])
def test_the_calculator_says_which_field_a_rule_set_of_ones_own_turned_off(field, line, words):
    # python -m mj_env.score: beijing has 烧庄, 互包 and 惠牌; the line's own rules turned one off, and the error
    # said "rules 'beijing' have no 烧庄"
    obj = {"rules": {"name": "beijing", field: False}, "hand": "111m999p222s5z", "win_tile": "5z",
           "melds": [{"type": "pong", "tiles": "777s", "from": 2}], **line}
    assert answer(json.dumps(obj)) == {"error": words}
    assert answer(json.dumps({**obj, "rules": "hebei"}))["error"] == words.replace(f"'beijing' with {field}=false",
                                                                                 "'hebei'")  # a preset as before


def test_train_init_from_a_checkpoint_of_a_rule_set_of_ones_own_names_it(tmp_path, monkeypatch, capsys):
    """train.py's note printed the stored object form raw ("trained under {'name': 'beijing', 'chi': False}")."""
    pytest.importorskip("torch")
    import train
    from agents.networks import PolicyValueNet, save_checkpoint

    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules={"name": "beijing", "chi": False})
    monkeypatch.chdir(tmp_path)
    train.main(["--init-from", str(path), "--exp-name", "ft", "--total-steps", "512", "--num-envs", "16",
                "--num-steps", "32", "--eval-every", "0", "--final-eval-hands", "0", "--threads", "1",
                "--no-progress", "--no-eval-pretrained"])
    out = capsys.readouterr().out
    assert f"note: --init-from {path} was trained under beijing with chi=False; this run trains it under beijing" in out
