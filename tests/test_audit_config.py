"""Rule sets as data and their configuration fields (an outside audit of docs/RULES.md's **Decision**
fields and of the ways a user sets them): each test holds a case the project once got wrong."""
from __future__ import annotations

import json
import warnings

import pytest

import mj_env
from agents import RandomAgent, RuleBasedAgent
from agents.arena import play_duplicate
from mj_env.baselines import EfficientAgent, RulesMismatchWarning
from mj_env.calculator import SCORE_RULE_FIELDS, evaluate, rules_json
from mj_env.rules import RuleError, get_rules
from mj_env.score import answer
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.vector import MahjongVectorEnv


def test_a_quemen_settlement_without_flowers_gives_its_rules_back_to_an_environment():
    """The README: "The object form of a calculator line or a settlement's ``input`` works too ... so a logged
    hand's rules go back into an environment as they are". Under quemen without flowers a settlement's ``input``
    says ``{"name": "quemen", "flowers": false}`` (docs/RULES.md 6.4: only fields that bear on the score, and
    ``n_tiles`` does not). The calculator took it (it pairs 136 tiles with no flowers), but ``mj_env.env(rules=...)``,
    the vector env and ``get_rules`` refused it: "flowers need n_tiles=144"."""
    rules = get_rules("quemen", flowers=False, n_tiles=136)
    logged = rules_json(rules)
    assert logged == {"name": "quemen", "flowers": False}
    assert evaluate({"rules": logged, "hand": "123m456m789m11p22p", "win_tile": "2p"})["legal"]
    again = get_rules(logged)
    assert again == rules
    assert {f: getattr(again, f) for f in SCORE_RULE_FIELDS} == {f: getattr(rules, f) for f in SCORE_RULE_FIELDS}
    assert mj_env.env(rules=logged).unwrapped.rules == rules
    assert MahjongVectorEnv(2, rules=logged).rules == rules
    # and the other way round: flowers put back under a preset without them
    assert get_rules({"name": "quemen", "flowers": True}) == get_rules("quemen")


def test_an_agent_built_for_the_preset_but_other_rule_fields_is_warned_about():
    """A RuleBasedAgent() (plain beijing) in a beijing game with 缺一门 (``lack_suit=True``, a valid rule set) chases
    three-suit hands as the warning's own example says of quemen, yet nothing was said: the check compared preset
    names only. The same agent in a game that differs only in fields agents never read (base, matches) is fine."""
    rules = get_rules("beijing", lack_suit=True)
    with pytest.warns(RulesMismatchWarning, match=r"decides by beijing rules with lack_suit=False but plays in a "
                                                  r"beijing run with lack_suit=True"):
        play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules=rules)
    with pytest.warns(RulesMismatchWarning, match=r"an opponent .* hui_wild_in_melds=False .* hui_wild_in_melds=True"):
        MahjongSingleAgentVectorEnv(2, rules=get_rules("beijing", hui_wild_in_melds=True), opponents=RuleBasedAgent())
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        play_duplicate([RuleBasedAgent(rules), EfficientAgent(rules), RandomAgent()], 1, seed=0, rules=rules)
        play_duplicate([RuleBasedAgent(), RandomAgent()], 1, seed=0, rules=get_rules("beijing", base=5))
        MahjongSingleAgentVectorEnv(2, rules=rules, opponents="rule")


def test_an_environment_rule_set_cannot_be_swapped_behind_its_engine():
    """``env.rules`` was a plain attribute copied from the engine: Gymnasium's ``set_attr("rules", ...)`` on a vector
    of one-table envs (the way README suggests for opponents) or ``env.unwrapped.rules = ...`` replaced it without a
    word, so the env reported (and its observations, opponents and records read) a rule set the engine did not play.
    It is the engine's rule set now, read-only, and setting it says to make a new env."""
    import gymnasium as gym

    hebei = get_rules("hebei")
    one = gym.vector.SyncVectorEnv([lambda: gym.make("mj_env/Beijing-v0", opponents="random")])
    with pytest.raises(AttributeError, match="fixed when it is made"):
        one.set_attr("rules", hebei)
    assert one.envs[0].unwrapped.rules is one.envs[0].unwrapped.venv.engine.rules
    assert one.envs[0].unwrapped.rules.name == "beijing"
    envs = [mj_env.env(rules="beijing", hubao_claims=2).unwrapped, MahjongVectorEnv(1, rules="quemen"),
            MahjongSingleAgentVectorEnv(1, rules="hebei", opponents="random")]
    for env in envs:
        before = env.rules
        assert before is env.engine.rules
        with pytest.raises(AttributeError, match="fixed when it is made"):
            env.rules = get_rules("beijing", base=9)
        assert env.rules is before


@pytest.mark.parametrize("make, asked", [(lambda: get_rules("beijing", name="hebei"), "hebei"),
                                         (lambda: mj_env.env(name="quemen"), "quemen"),
                                         (lambda: get_rules("quemen", name="beijing"), "beijing")])
def test_renaming_a_rule_set_to_another_preset_names_the_name_field_and_the_right_preset(make, asked):
    """docs/RULES.md 7: a rule set that is not valid is refused with an error that names what is wrong.
    ``mj_env.env(name="quemen")`` (or ``get_rules("beijing", name="hebei")``) was refused under the field
    ``scoring``, which the user never gave, with the advice "start from the preset 'beijing' instead": the
    preset they had started from, not the one they asked for."""
    with pytest.raises(RuleError, match=rf"rule field 'name'.*start from the preset '{asked}' instead") as e:
        make()
    assert "scoring" not in str(e.value)


def test_a_checkpoint_played_under_its_preset_with_other_rule_fields_is_warned_about():
    """The same hole as above for checkpoints: the shipped beijing player, trained under plain beijing, loaded for
    a beijing game with 缺一门 (``load_pretrained(rules)``, which ``opponents="pretrained"`` does) played without a
    word, since ``from_checkpoint`` compared preset names only."""
    pytest.importorskip("torch")  # the train extra: skipped in a core-only install
    from agents.pretrained import load_pretrained

    with pytest.warns(RulesMismatchWarning, match=r"trained for rule set 'beijing' and plays under 'beijing' with "
                                                  r"lack_suit=True"):
        load_pretrained(get_rules("beijing", lack_suit=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        load_pretrained(get_rules("beijing", base=5, multiple_winners=True))


@pytest.mark.parametrize("rules", [{"name": "quemen", "flowers": False, "n_tiles": 144},
                                   {"name": "beijing", "flowers": False, "n_tiles": 144},
                                   {"name": "quemen", "flowers": True, "n_tiles": 136}])
def test_the_calculator_checks_a_contradictory_flowers_and_n_tiles_as_a_rule_set_does(rules):
    """docs/game_flow.md: a rule field that does not bear on the score (``n_tiles``) is "taken, checked as a rule
    set checks it, and changes nothing". The calculator overwrote a given ``n_tiles`` with the one that goes with
    ``flowers``, so it scored rule objects that ``get_rules`` and every environment refuse."""
    with pytest.raises(RuleError, match="flowers"):
        get_rules(rules)
    out = answer(json.dumps({"rules": rules, "hand": "123m456m789m11p22p", "win_tile": "2p"}))
    assert "flowers need n_tiles=144" in out.get("error", ""), out
    # flowers alone still brings its tile count along, in both
    alone = {"name": "quemen", "flowers": False}
    assert answer(json.dumps({"rules": alone, "hand": "123m456m789m11p22p", "win_tile": "2p"}))["legal"]


@pytest.mark.parametrize("key, value", [("rules", "hebei"), ("base", 500), ("hui_wild_in_melds", True),
                                        ("multiple_winners", True)])
def test_the_aec_env_does_not_deal_under_its_own_rules_when_a_reset_asks_for_others(key, value):
    """The AEC env ignores reset options it does not know (PettingZoo's api_test passes ``{"options": 1}``), but a
    rule set or a rule field given at reset (``options={"rules": "hebei"}``, ``{"base": 500}``) was ignored too: the
    hand was dealt under the env's own rules without a word (the batched envs refuse any unknown option). It is a
    ValueError now that says the rules are fixed when the env is made, and the env is left as it was."""
    e = mj_env.env()
    e.reset(seed=0, options={"options": 1})  # still ignored
    before = e.unwrapped.engine.state.wall.copy()
    with pytest.raises(ValueError, match=f"reset option '{key}': the rule set is fixed when the env is made"):
        e.reset(seed=1, options={key: value})
    assert (e.unwrapped.engine.state.wall == before).all()
    assert e.unwrapped.rules == get_rules("beijing")
