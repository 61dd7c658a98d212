"""The ``--rules`` argument of the command lines (the arena's, train.py's, agents.search's, agents.rollouts',
the examples', the benchmarks'): a preset's name or a rule set of one's own as the JSON object form of
docs/INTERFACES.md 1, read into a ``RuleSet`` (``rules_option``), as an argparse ``type`` (``rules_argument``), and
passed on as the command lines pass it (``rules_given``, ``passed_on``); with the duplicate arena's rule of one hand
per wall (``duplicate_rules``, ``duplicate_rules_given``) and the RL examples' of one hand per episode
(``one_hand_rules_given``). The help text of the flag is ``RULES_HELP``.

It imports nothing of the arena (``agents.arena`` imports it): the command lines that read ``--rules`` but play no
duplicate match (train.py's flag, the RL examples) import this, not the arena."""
from __future__ import annotations

import argparse
import json

from mj_env.lines import load_json, parse_json_int
from mj_env.records import rules_json
from mj_env.rules import RuleError, RuleSet, get_rules


def duplicate_rules(rules) -> RuleSet:
    """``rules`` as a RuleSet the arena can play: one hand per wall, else a ValueError."""
    rules = get_rules(rules)
    if rules.hands_per_episode != 1:  # each table plays one wall; a match's later hands would be dealt unseeded
        raise ValueError(f"the duplicate arena plays one hand per wall: rules with hands_per_episode="
                         f"{rules.hands_per_episode} are not for it (use hands_per_episode=1)")
    return rules


RULES_HELP = ("rule set: a preset, beijing (default), hebei or quemen, or one of one's own as a JSON object of a preset "
              "and the fields changed (the fields of mj_env.rules.RuleSet, as a hand record writes them), e.g. "
              "'{\"name\": \"beijing\", \"chi\": false}'")
"""The ``--rules`` help of the arena and the examples (``rules_option``)."""
RULES_HELP_NO_DEFAULT = RULES_HELP.replace("beijing (default), ", "beijing, ", 1)
"""``RULES_HELP`` without its "(default)", for a parser whose formatter adds the default itself
(``argparse.ArgumentDefaultsHelpFormatter``: agents.search, agents.rollouts), which said it twice."""


def rules_option(text: str) -> RuleSet:
    """The rule set a ``--rules`` value names (the arena's, train.py's): a preset's name, or the object form of
    docs/INTERFACES.md 1, ``{"name": preset, field: value, ...}``, as JSON text, read as the calculator reads a line
    (a key given twice, NaN or a number too long to be a field are refused) and made by ``get_rules``. A
    ``RuleError`` (a ValueError) names what is wrong: the JSON, the field (a misspelt one with the name meant), its
    value."""
    if not isinstance(text, str):
        return get_rules(text)  # a RuleSet, or an object form, given in Python
    if not text.lstrip().startswith("{"):
        try:
            return get_rules(text)
        except RuleError as e:
            raise RuleError(f"{e}, or a rule set of one's own as a JSON object: "
                            f"'{{\"name\": \"beijing\", \"chi\": false}}'") from None
    try:
        obj = load_json(text, parse_int=parse_json_int, parse_constant=_not_a_number)
    except json.JSONDecodeError as e:
        raise RuleError(f"bad JSON: {e.msg.removesuffix(' at')} at column {e.colno}") from None
    except ValueError as e:  # a key given twice (KeyGivenTwice), NaN or Infinity
        raise RuleError(f"{e}") from None
    except RecursionError:  # '{"name": [[[[...': the calculator's "nested too deeply", not a traceback
        raise RuleError("bad JSON: nested too deeply") from None
    return get_rules(obj)  # (an integer too long to read, lines.HugeInt, is out of its field's range: RuleSet)


def _not_a_number(name: str):
    raise RuleError(f"bad JSON: {name} is not a JSON number")


def rules_argument(text: str) -> RuleSet:
    """``rules_option`` as an argparse ``type``: its error the flag's message (``argument --rules: ...``)."""
    try:
        return rules_option(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def rules_given(text: str) -> str | RuleSet:
    """``rules_argument`` for the command lines that pass ``--rules`` on to agents, engines and environments
    (agents.search, agents.rollouts, the examples, the benchmarks): a preset's name goes on as that name, the str
    they were given before they took rule sets of one's own (so a preset's run is the run it was, output and
    all); a rule set of one's own, the JSON object form, goes on as its RuleSet (one that is a preset unchanged,
    ``'{"name": "hebei"}'``, as the preset's name). Show either with ``rules_label(get_rules(value))``."""
    rules = rules_argument(text)
    if isinstance(text, str) and not text.lstrip().startswith("{"):
        return text  # (a preset's name goes on as given)
    return passed_on(rules)


def passed_on(rules: RuleSet) -> str | RuleSet:
    """``rules`` as the command lines pass it on: a preset's name as that name (a preset given as an object,
    ``'{"name": "hebei"}'``, too), a rule set of one's own as itself."""
    return rules.name if rules_json(rules) == rules.name else rules


def duplicate_rules_given(text: str) -> str | RuleSet:
    """``rules_given`` for a command line that plays the duplicate arena (``play_duplicate``): a rule set of more
    hands than one per wall is refused there too, as the flag's error, before any wall is played."""
    value = rules_given(text)
    try:
        duplicate_rules(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return value


def one_hand_rules_given(text: str) -> str | RuleSet:
    """``rules_given`` for a command line that counts each episode as one hand (the RL library examples: their
    "points/hand" is an episode's return): a rule set of matches (``hands_per_episode`` > 1) is refused, as the
    flag's error, before any env is built; train.py refuses it too."""
    value = rules_given(text)
    n = get_rules(value).hands_per_episode
    if n != 1:
        raise argparse.ArgumentTypeError(f"hands_per_episode={n}: this command line counts each episode as one hand "
                                         "(its points a hand), so it plays one hand per episode (use "
                                         "hands_per_episode=1)")
    return value
