"""A hostile review of ``--rules`` of the tools (tests/test_rules_cli_tools.py): values the first tests did not try.

- The RL library examples (sb3_maskable_ppo, torchrl_ppo, tianshou_pettingzoo, rllib_ppo) count each episode as
  one hand: their "points/hand" is an episode's return (torchrl's, the reward at ``done``: only a match's last
  hand). A rule set of matches (``hands_per_episode`` > 1) was taken and trained on, its figures mislabelled;
  refused now (exit 2, the field named) before any env is built, as train.py and offline_dataset.py refuse it.
- features_cost.py and fast_paths.py take comma-separated preset names, or one rule set of one's own as the whole
  value. A list mixing them (``beijing,{"name": ...}``) was split at the object's commas and refused as
  "bad JSON: Expecting ',' delimiter at column 19", a column of a fragment the user never typed; now the message
  says what the list takes.
"""
from __future__ import annotations

import argparse

import pytest
from example_modules import load_example
from test_rules_cli_tools import _no_play, _refused

MATCH = '{"name": "beijing", "hands_per_episode": 2}'
NO_CHI = '{"name": "beijing", "chi": false}'


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
