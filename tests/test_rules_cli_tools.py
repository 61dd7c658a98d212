"""A rule set of one's own from the other command lines: ``python -m agents.search``, ``python -m agents.rollouts``,
the examples and the benchmarks take ``--rules`` as the arena and train.py do (tests/test_rules_cli.py): a preset's
name or the JSON object form of docs/INTERFACES.md 1, read by ``agents.rules_args.rules_option`` (``rules_given`` for the
tools that pass the value on, ``benchmarks/_args.rules`` for the benchmarks). Before, they took a preset's name
only, so a rule variant could not be searched, labelled, measured or benchmarked. Each names the rule set of one's
own in what it prints, refuses a bad field (exit 2, the field named) before any work, and plays it: under
``beijing with chi=False`` no chi is ever stepped (``Engine.step`` watched), where the preset steps chis. A preset
goes on as its name (a str, as before), so a preset's run is unchanged (tiny runs of each diffed before/after)."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
from example_modules import load_example

from agents import rules_args
from mj_env import actions as A
from mj_env.engine import Engine
from mj_env.rules import get_rules

NO_CHI = '{"name": "beijing", "chi": false}'
NO_CHI_RULES = get_rules("beijing", chi=False)
NO_CHI_JSON = {"name": "beijing", "chi": False}
LABEL = "beijing with chi=False"
BAD = '{"name": "beijing", "chii": false}'  # misspelt: refused naming the field meant


@pytest.fixture
def steps(monkeypatch):
    """Every ``Engine.step`` of the test counted, and the chi actions among what it was given."""
    seen = {"steps": 0, "chi": 0}
    real = Engine.step

    def step(self, actions, tables=None):
        a = np.asarray(actions).reshape(-1)
        seen["steps"] += 1
        seen["chi"] += int(((a >= A.CHI) & (a < A.CHI + A.N_CHI)).sum())
        return real(self, actions, tables)

    monkeypatch.setattr(Engine, "step", step)
    return seen


def _no_play(monkeypatch):
    """Any engine stepped or built from here on fails the test: a refusal must come before any work."""
    def fail(*a, **k):
        raise AssertionError("work done before the bad --rules was refused")
    monkeypatch.setattr(Engine, "__init__", fail)


def _engines_built(monkeypatch) -> list:
    """The rule set of every ``Engine`` built from here on, in order (the engine is built as it would be)."""
    made = []
    real = Engine.__init__

    def init(self, rules="beijing", *a, **k):
        made.append(get_rules(rules))
        real(self, rules, *a, **k)
    monkeypatch.setattr(Engine, "__init__", init)
    return made


def _refused(call, capsys, *words):
    with pytest.raises(SystemExit) as e:
        call()
    assert e.value.code == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err, err
    return err


# --- the shared reading ----------------------------------------------------------------------------------------------

def test_rules_given_passes_a_preset_on_as_its_name_and_a_rule_set_of_ones_own_as_the_ruleset():
    assert rules_args.rules_given("hebei") == "hebei" and isinstance(rules_args.rules_given("hebei"), str)
    assert rules_args.rules_given(NO_CHI) == NO_CHI_RULES
    assert rules_args.rules_given('{"name": "hebei"}') == "hebei"  # an object form that is the preset: the preset
    with pytest.raises(argparse.ArgumentTypeError, match="did you mean 'chi'"):
        rules_args.rules_given(BAD)
    with pytest.raises(argparse.ArgumentTypeError, match="one hand per wall"):
        rules_args.duplicate_rules_given('{"name": "beijing", "hands_per_episode": 4}')
    assert rules_args.duplicate_rules_given(NO_CHI) == NO_CHI_RULES


def test_the_benchmarks_read_one_object_or_a_comma_list_of_names(capsys):
    import _args

    p = argparse.ArgumentParser()
    assert _args.rule_sets(p, "--rules", "beijing,quemen") == ["beijing", "quemen"]
    assert _args.rule_sets(p, "--rules", " " + NO_CHI) == [NO_CHI_JSON]  # starts with '{': one object, commas and all
    assert _args.rules(p, "--rules", "hebei") == "hebei"
    assert _args.rules_label(NO_CHI_JSON) == LABEL and _args.rules_label("hebei") == "hebei"
    _refused(lambda: _args.rule_sets(p, "--rules", BAD), capsys, "--rules", "did you mean 'chi'")
    _refused(lambda: _args.rule_sets(p, "--rules", "beijing,pekin"), capsys, "--rules", "pekin")
    _refused(lambda: _args.rule_sets(p, "--rules", "beijing,"), capsys, "--rules: item 2")


# --- agents.search, agents.rollouts ------------------------------------------------------------------------------------

def test_search_plays_and_names_a_rule_set_of_ones_own(steps, capsys, monkeypatch):
    pytest.importorskip("scipy")
    from agents import search

    argv = ["--walls", "1", "--worlds", "2", "--z", "0", "--batch-walls", "1", "--seed", "1"]
    assert search.main([*argv, "--rules", NO_CHI]) == 0
    out = capsys.readouterr().out
    assert f"rules: {LABEL}" in out.splitlines()
    assert steps["steps"] > 0 and steps["chi"] == 0          # rollouts and the table alike: no chi
    assert search.main(argv) == 0                            # control: beijing on the same walls does chi
    assert "rules:" not in capsys.readouterr().out and steps["chi"] > 0  # a preset's table as before
    _no_play(monkeypatch)
    _refused(lambda: search.main([*argv, "--rules", BAD]), capsys, "argument --rules", "did you mean 'chi'")
    _refused(lambda: search.main([*argv, "--rules", '{"name": "beijing", "hands_per_episode": 4}']), capsys,
             "argument --rules", "one hand per wall")


def test_rollouts_label_and_name_a_rule_set_of_ones_own(steps, capsys, monkeypatch):
    pytest.importorskip("scipy")
    from agents import rollouts

    argv = ["--seconds", "0.3", "--tables", "8"]
    assert rollouts.main([*argv, "--rules", NO_CHI]) == 0
    assert f"({LABEL}, 8 tables, seed 0)" in capsys.readouterr().out
    assert steps["steps"] > 0 and steps["chi"] == 0
    assert rollouts.main(argv) == 0
    assert "(beijing, 8 tables, seed 0)" in capsys.readouterr().out and steps["chi"] > 0
    _no_play(monkeypatch)
    _refused(lambda: rollouts.main([*argv, "--rules", BAD]), capsys, "argument --rules", "did you mean 'chi'")


# --- the examples ------------------------------------------------------------------------------------------------------

def test_duplicate_baseline_and_rule_variants_play_and_name_it(steps, capsys, monkeypatch):
    pytest.importorskip("scipy")
    db, rv = load_example("duplicate_baseline"), load_example("rule_variants")
    assert db.main(["--agent", "rule", "--walls", "2", "--rules", NO_CHI]) == 0
    assert f"seed 7, {LABEL}; the twin" in capsys.readouterr().out
    assert rv.main(["--walls", "1", "--seeds", "1", "--rules", NO_CHI])
    assert capsys.readouterr().out.startswith(f"{LABEL}, 1 walls")
    assert steps["steps"] > 0 and steps["chi"] == 0
    assert db.main(["--agent", "rule", "--walls", "2"]) == 0
    assert steps["chi"] > 0  # control: the preset on the same walls
    assert db.parse_args(["--rules", "hebei"]).rules == "hebei"  # a preset goes on as its name, as before
    _no_play(monkeypatch)
    _refused(lambda: db.main(["--agent", "rule", "--rules", BAD]), capsys, "argument --rules", "'chi'")
    _refused(lambda: rv.main(["--rules", BAD]), capsys, "argument --rules", "'chi'")


def test_offline_dataset_keeps_the_rule_set_and_its_hands_replay_under_it(tmp_path, capsys, monkeypatch):
    od = load_example("offline_dataset")
    from mj_env import records

    out = tmp_path / "d.npz"
    assert od.main(["--tables", "4", "--hands", "6", "--rules", NO_CHI, "--out", str(out)]) == 0
    assert f"({LABEL}, 4 tables" in capsys.readouterr().out
    d = np.load(out)  # plain arrays: the rules as JSON text, no pickle
    assert json.loads(str(d["rules"])) == NO_CHI_JSON
    assert not ((d["action"] >= A.CHI) & (d["action"] < A.CHI + A.N_CHI)).any()
    assert ((d["mask"][:, A.CHI:A.CHI + A.N_CHI]) == 0).all()   # never even legal
    rec = od.hand_record(d, 0)
    assert records.rules_of(rec["rules"]) == NO_CHI_RULES
    records.replay(rec)                                            # replayed under the rule set of one's own
    preset = od.collect("beijing", 4, 6, 0)                        # control: chi is legal and taken under beijing
    assert preset["mask"][:, A.CHI:A.CHI + A.N_CHI].any() and str(preset["rules"]) == "beijing"
    _no_play(monkeypatch)
    _refused(lambda: od.parse_args(["--rules", BAD, "--out", str(out)]), capsys, "argument --rules", "'chi'")
    _refused(lambda: od.parse_args(["--rules", '{"name": "beijing", "hands_per_episode": 2}', "--out", str(out)]),
             capsys, "--rules: hands_per_episode=2")


def test_rollout_improvement_clones_under_the_rule_set_given(capsys, monkeypatch):
    pytest.importorskip("torch")
    ri = load_example("rollout_improvement")
    import train

    got = []

    def fake_main(argv):
        got.append(argv)
        raise KeyboardInterrupt  # stop there: what train.py was asked is the point
    monkeypatch.setattr(train, "main", fake_main)
    with pytest.raises(KeyboardInterrupt):
        ri.main(["--smoke", "--rules", NO_CHI])
    argv = got[0]
    assert json.loads(argv[argv.index("--rules") + 1]) == NO_CHI_JSON  # train.py's --rules takes the object form
    with pytest.raises(KeyboardInterrupt):
        ri.main(["--smoke", "--rules", "hebei"])
    assert got[1][got[1].index("--rules") + 1] == "hebei"
    _refused(lambda: ri.main(["--rules", BAD]), capsys, "argument --rules", "'chi'")


def test_the_library_examples_build_their_envs_under_the_rule_set_given(monkeypatch):
    pytest.importorskip("torchrl")
    tr = load_example("torchrl_ppo")
    made = _engines_built(monkeypatch)
    tr.make_env(NO_CHI_RULES, "rule", 2, 0)
    assert made and all(r == NO_CHI_RULES for r in made)
    made.clear()
    tr.make_env("quemen", "rule", 2, 0)
    assert made and all(r.name == "quemen" for r in made)


def test_the_rllib_example_builds_its_envs_under_the_rule_set_given(monkeypatch):
    """rllib_ppo.py passes the rules to its env creators in env_config as ``rules_json`` gives them (JSON-safe)."""
    pytest.importorskip("ray.rllib")
    rl = load_example("rllib_ppo")
    made = _engines_built(monkeypatch)
    for config in ({"rules": NO_CHI_JSON}, {"rules": NO_CHI_JSON, "num_envs": 2}):
        rl.single_env_creator(config)
    rl.env_creator({"rules": NO_CHI_JSON})
    assert len(made) >= 3 and all(r == NO_CHI_RULES for r in made)


# --- the benchmarks ----------------------------------------------------------------------------------------------------

def test_features_cost_and_fast_paths_measure_a_rule_set_of_ones_own(steps, capsys, monkeypatch):
    import fast_paths
    import features_cost

    [row] = features_cost.main(["--rules", NO_CHI, "--batch", "4", "--steps", "20"])
    assert row["rules"] == NO_CHI_JSON and f"| {LABEL} | 4 |" in capsys.readouterr().out
    out = fast_paths.main(["--rules", NO_CHI, "--seconds", "0.02", "--repeat", "1"])
    assert all(r["rules"] == NO_CHI_JSON for r in out["rows"])
    assert f"{LABEL} all fast paths" in capsys.readouterr().out
    assert steps["steps"] > 0 and steps["chi"] == 0
    [row] = features_cost.main(["--rules", "beijing", "--batch", "4", "--steps", "20"])  # control
    assert row["rules"] == "beijing" and steps["chi"] > 0
    _no_play(monkeypatch)
    _refused(lambda: features_cost.main(["--rules", BAD]), capsys, "--rules", "did you mean 'chi'")
    _refused(lambda: fast_paths.main(["--rules", BAD]), capsys, "--rules", "did you mean 'chi'")


def test_profile_step_search_and_throughput_name_and_play_it(tmp_path, steps, capsys, monkeypatch):
    import profile_step
    import search as bench_search
    import throughput

    out = tmp_path / "p.json"
    assert profile_step.main(["--env", "engine", "--batch", "4", "--rules", NO_CHI, "--steps", "20",
                              "--warmup-steps", "0", "--mode", "cprofile", "--top", "1", "--json", str(out)]) == 0
    assert f"profile_step: engine env, rules={LABEL}, batch 4" in capsys.readouterr().out
    assert json.loads(out.read_text())["settings"]["rules"] == NO_CHI_JSON
    a = bench_search.parse_args(["--rules", NO_CHI, "--seconds", "0.01", "--batch-sizes", "2", "--tables", "2"])
    assert a.rules == NO_CHI_JSON
    bench_search.main(a)
    assert f"mj_env search copies, rules={LABEL};" in capsys.readouterr().out
    assert throughput.parse_args(["--rules", NO_CHI]).rules == NO_CHI_JSON
    throughput.run_child({"impl": "engine", "batch": 2, "seconds": 0.01, "warmup": 0.0, "rules": NO_CHI_JSON,
                          "seed": 0})  # a child given the object form (the parent passes it as JSON)
    assert '"rules": {"name": "beijing", "chi": false}' in capsys.readouterr().out
    assert steps["steps"] > 0 and steps["chi"] == 0
    assert throughput.state_bytes_for(NO_CHI_JSON, 4) > 0
    _no_play(monkeypatch)
    for call in (lambda: profile_step.main(["--rules", BAD]), lambda: bench_search.parse_args(["--rules", BAD]),
                 lambda: throughput.parse_args(["--rules", BAD])):
        _refused(call, capsys, "--rules", "did you mean 'chi'")


# --- a match's rule set for the examples; a list mixing names and an object -------------------------------------------
# - The RL library examples (sb3_maskable_ppo, torchrl_ppo, tianshou_pettingzoo, rllib_ppo) count each episode as
#   one hand: their "points/hand" is an episode's return (torchrl's, the reward at ``done``: only a match's last
#   hand). A rule set of matches (``hands_per_episode`` > 1) was taken and trained on, its figures mislabelled;
#   refused now (exit 2, the field named) before any env is built, as train.py and offline_dataset.py refuse it.
# - features_cost.py and fast_paths.py take comma-separated preset names, or one rule set of one's own as the whole
#   value. A list mixing them (``beijing,{"name": ...}``) was split at the object's commas and refused as
#   "bad JSON: Expecting ',' delimiter at column 19", a column of a fragment the user never typed; now the message
#   says what the list takes.
MATCH = '{"name": "beijing", "hands_per_episode": 2}'


@pytest.mark.parametrize("name, module", [("sb3_maskable_ppo", "sb3_contrib"), ("torchrl_ppo", "torchrl"),
                                          ("tianshou_pettingzoo", "tianshou"), ("rllib_ppo", "ray.rllib")])
def test_the_rl_examples_refuse_a_match_of_several_hands(name, module, capsys, monkeypatch):
    pytest.importorskip(module)
    ex = load_example(name)
    _no_play(monkeypatch)
    _refused(lambda: ex.main(["--smoke", "--rules", MATCH]), capsys, "argument --rules", "hands_per_episode=2",
             "one hand")


def test_the_one_hand_reading_passes_a_preset_and_a_single_hand_rule_set_on():
    from agents import rules_args
    from mj_env.rules import get_rules

    assert rules_args.one_hand_rules_given("hebei") == "hebei"
    assert rules_args.one_hand_rules_given(NO_CHI) == get_rules("beijing", chi=False)
    with pytest.raises(argparse.ArgumentTypeError, match="hands_per_episode=3"):
        rules_args.one_hand_rules_given('{"name": "quemen", "hands_per_episode": 3}')


def test_a_benchmark_list_mixing_names_and_an_object_is_refused_clearly(capsys, monkeypatch):
    import _args
    import fast_paths
    import features_cost

    p = argparse.ArgumentParser(prog="x")
    for text in (f"beijing,{NO_CHI}", f"beijing, {NO_CHI}", 'hebei,{"name": "hebei"}'):
        err = _refused(lambda t=text: _args.rule_sets(p, "--rules", t), capsys, "--rules", "alone")
        assert "bad JSON" not in err and "column" not in err
    assert _args.rule_sets(p, "--rules", " beijing , hebei") == ["beijing", "hebei"]  # names as before
    _no_play(monkeypatch)
    for main in (features_cost.main, fast_paths.main):
        _refused(lambda m=main: m(["--rules", f"quemen,{NO_CHI}"]), capsys, "--rules", "alone")
