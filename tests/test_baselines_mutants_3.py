"""Tests from a third mutation round on mj_env/baselines.py (the 233 mutants the first two rounds left untried, see
tests/test_baselines_wrappers_mutants.py and tests/test_baselines_mutants_2.py): each pins a documented behaviour
that a one-token change of the code left unnoticed by every other test run in the round (the mutant is named in
each docstring by its line and change)."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from agent_obs import _choices, _claim_obs, _turn_obs

from mj_env import actions as A
from mj_env import baselines as B
from mj_env import observation as O
from mj_env.baselines import EfficientAgent, RandomAgent, RuleBasedAgent, RulesMismatchWarning
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv

AGENTS = [RandomAgent(), RuleBasedAgent(), EfficientAgent()]


def test_the_hui_kind_the_rule_agent_reads_is_minus_one_without_a_hui():
    """``_hand_and_hui``: "惠牌 kind (m,) or -1" (a mutant giving -2 went unnoticed: every caller reads a negative
    kind as none; the same mutant of ``features.hui_kind`` is pinned in tests/test_baselines_wrappers_mutants.py)."""
    planes = np.zeros((2, O.N_PLANES, 34), dtype=np.uint8)
    planes[:, O.P_HAND, 3] = 2
    planes[1, O.P_HUI, 7] = 1
    hands, hui = B._hand_and_hui(planes)
    assert hui.tolist() == [-1, 7]
    assert hands.dtype == np.int8 and hands[:, 3].tolist() == [2, 2]


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
@pytest.mark.parametrize("bad", ["observation", b"obs", "planes", None, 7], ids=["str", "bytes", "ndarray", "None", "int"])
def test_an_obs_that_is_a_string_or_an_array_is_refused_without_the_reset_hint(agent, bad):
    """``checked_obs``: a str, bytes or NumPy array (the planes alone, say), or what cannot be indexed at all, is
    refused as "obs must be a dict ..., got ndarray"; only a tuple or list gets the hint on env.reset's (obs, infos),
    which would mislead here (mutants letting those through to the lookup went unnoticed: L99 ``or`` read as
    ``and``, its test read as False, either operand dropped, the raise deleted; the lookup refused them too, with
    the reset hint)."""
    obs = MahjongVectorEnv(num_envs=2, rules="beijing").reset(seed=0)[0]
    given = obs["observation"] if bad == "planes" else bad
    name = type(given).__name__
    with pytest.raises(ValueError, match=f'^obs must be a dict with "observation" and "action_mask", got {name}$'):
        agent.act(given, np.random.default_rng(0))


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_observation_planes_are_checked_before_an_agent_reads_them(agent):
    """``checked_obs``: ``obs["observation"]`` is "(n, P, 34) planes with P >= N_PLANES", checked by
    ``observation.checked_planes``, which names it (a mutant skipping that check went unnoticed: the rule agent then
    failed with an IndexError from inside, and the random agent played planes that are none)."""
    obs = MahjongVectorEnv(num_envs=2, rules="beijing").reset(seed=0)[0]
    short = dict(obs, observation=obs["observation"][:, :10])
    with pytest.raises(ValueError, match=rf"^observation must be \(n, {O.N_PLANES} or more, 34\) numbers"):
        agent.act(short, np.random.default_rng(0))


@pytest.mark.parametrize("spec", [5, None, ["rule"]], ids=["int", "None", "list"])
def test_make_named_agent_refuses_a_name_that_is_no_string(spec):
    """``make_named_agent``: a name that is no string is a TypeError saying what an agent name is, not an
    AttributeError on ``.split`` (mutants dropping the check, its test read as False or the raise deleted, went
    unnoticed: no test gave it anything but a string)."""
    with pytest.raises(TypeError, match=r"^an agent name must be a string \(random, rule, efficient, \.\.\.\), got "
                                        + type(spec).__name__):
        B.make_named_agent(spec)


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_an_action_mask_needs_one_row_per_observation_row(agent):
    """``checked_obs``: the mask is checked against the observation's rows ("one row per observation row"), named
    ``action_mask`` (a mutant checking it against any number of rows went unnoticed: the agents then answered for
    the first rows, or failed from inside)."""
    obs = MahjongVectorEnv(num_envs=3, rules="beijing").reset(seed=0)[0]
    short = dict(obs, observation=obs["observation"][:2])
    with pytest.raises(ValueError, match=r"^action_mask must be \(2, 127\) of bools or 0s and 1s"):
        agent.act(short, np.random.default_rng(0))


@pytest.mark.parametrize("agent", AGENTS[1:], ids=lambda a: a.name)
def test_an_own_turn_mask_allowing_pass_is_no_position(agent):
    """``check_positions``: "an own turn ... allows a discard and only own-turn actions" (discard, kong, win, ting):
    a pass allowed beside the discards is refused (a mutant counting pass, the action after win, among the own-turn
    actions went unnoticed)."""
    obs = _turn_obs("123m456p789s11z567z")
    agent.act(obs, np.random.default_rng(0))
    obs["action_mask"][0, A.PASS] = 1
    with pytest.raises(ValueError, match="an own turn's mask allows a discard and only discards, kongs, win and ting"):
        agent.act(obs, np.random.default_rng(0))


@pytest.mark.parametrize("agent", AGENTS[1:], ids=lambda a: a.name)
@pytest.mark.parametrize("action", [A.DISCARD + 27, A.KONG_SELF + 27, A.TING + 27], ids=["discard", "kong", "ting"])
def test_an_own_turn_mask_allowing_an_unheld_kind_is_no_position(agent, action):
    """``check_positions``: "each discard and kong of a kind it holds" (报听 with a discard too): a mask allowing a
    discard, a kong or a ting of 1z that the hand does not hold is refused (mutants reading one ``|`` of the kinds
    the mask names as ``&`` went unnoticed: a kong of an unheld kind passed)."""
    obs = _turn_obs("123m456p789s22z567z")
    obs["action_mask"][0, action] = 1
    with pytest.raises(ValueError, match="an own turn discards and kongs only kinds it holds"):
        agent.act(obs, np.random.default_rng(0))


@pytest.mark.parametrize("agent", AGENTS[1:], ids=lambda a: a.name)
@pytest.mark.parametrize("change", ["discard allowed", "no pass"])
def test_a_claim_window_mask_needs_pass_and_only_claim_actions(agent, change):
    """``check_positions``: "a claim window ... allows pass and only claim actions": a discard allowed beside the pass,
    or a pong without the pass, is refused (a mutant reading ``outside | no pass`` as ``&`` went unnoticed)."""
    obs = _claim_obs("123m456p79s5z12z99m", "9m", [A.PONG])
    agent.act(obs, np.random.default_rng(0))
    if change == "no pass":
        obs["action_mask"][0, A.PASS] = 0
    else:
        obs["action_mask"][0, A.DISCARD] = 1
    with pytest.raises(ValueError, match="a claim or rob window's mask allows pass and only win, pass, pong, kong and chi"):
        agent.act(obs, np.random.default_rng(0))


def test_object_actions_of_a_row_each_are_named_by_dtype_and_shape():
    """``checked_agent_actions``: only what NumPy reads as no array (None, a tensor needing grad: an object array of
    shape ()) is named as itself; a list of one object per row (an int and a None) is "object actions of shape (2,)"
    (a mutant naming every object array as itself went unnoticed)."""
    class Agent:
        name = "odd"

    mask = np.ones((2, A.N_ACTIONS), dtype=np.int8)
    with pytest.raises(TypeError, match=r"^agent 'odd' returned object actions of shape \(2,\); act\(\) must return"):
        B.checked_agent_actions(Agent(), [3, None], mask, np.arange(2), lambda table, action: "")
    with pytest.raises(TypeError, match=r"^agent 'odd' returned None \(a NoneType\); act\(\) must return"):
        B.checked_agent_actions(Agent(), None, mask, np.arange(2), lambda table, action: "")


def test_a_rules_mismatch_warning_points_at_the_first_line_outside_the_library():
    """``warn_rules_mismatch``'s default stacklevel: the warning names the first line outside mj_env (here the
    helper that called it; before, a fixed ``stacklevel=3`` named its caller's caller, a line inside mj_env when
    the call came through two of its own frames). A given ``stacklevel`` is used as given."""
    def run(agent, **kw):
        B.warn_rules_mismatch(agent, get_rules("quemen"), "agents[0]", "run", "build it for quemen", **kw)

    line = inspect.getsourcelines(run)[1] + 1
    with pytest.warns(RulesMismatchWarning, match=r"agents\[0\] \('rule'\) decides by the beijing rules") as rec:
        run(RuleBasedAgent())
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)
    line = inspect.currentframe().f_lineno + 2
    with pytest.warns(RulesMismatchWarning) as rec:
        run(RuleBasedAgent(), stacklevel=3)
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)


def test_an_action_its_mask_forbids_is_refused_naming_the_agent_and_table():
    """``checked_agent_actions``: an action inside 0-126 that the row's mask forbids is an ActionError naming the
    agent and the table, with ``explain``'s reason ("an agent must pick from its action mask"; a mutant checking
    only the range went unnoticed: the forbidden action came back as legal)."""
    class Agent:
        name = "odd"

    mask = np.ones((2, A.N_ACTIONS), dtype=np.int8)
    mask[1, 5] = 0
    tables = np.array([4, 9])
    assert B.checked_agent_actions(Agent(), [5, 6], mask, tables, None).tolist() == [5, 6]
    with pytest.raises(A.ActionError, match=r"^agent 'odd' at table 9: 5 at 9; an agent must pick from its action mask"):
        B.checked_agent_actions(Agent(), [5, 5], mask, tables, lambda table, action: f"{action} at {table}")


@pytest.mark.parametrize("spec", ["bogus", "bogus:sample"])
def test_make_named_agent_refuses_a_name_no_entry_point_declares(spec):
    """``make_named_agent``: "A ValueError names the known names" when neither a baseline nor an entry point of
    ``AGENT_ENTRY_POINTS`` has the name before ``:`` (mutants returning None there, or handing the name to the first
    entry point's factory whatever its name, went unnoticed by the tests of this round)."""
    known = ", ".join(B.BASELINES + B.plugin_agent_names())
    with pytest.raises(ValueError, match=f"^unknown agent '{spec}': use one of {known}$"):
        B.make_named_agent(spec)


@pytest.mark.parametrize("agent", AGENTS[1:], ids=lambda a: a.name)
def test_a_concealed_kong_that_breaks_two_sequences_is_not_declared(agent):
    """Module docstring, "kong (own): a concealed or added kong when the hand after it is no farther than after the
    best discard": 34m5555m67m123p456p is ready after discarding 3m (456m 555m 123p 456p and 7m), but after
    the concealed kong of 5m, which takes all four, 34m and 67m are left apart, a tile from ready: no kong (mutant 411
    of the second round, judged open there, took one 5m for a concealed kong as for an added one, so that the kong
    cost what discarding a 5m costs, and declared it)."""
    obs = _turn_obs("34m5555m67m123p456p")
    obs["action_mask"][0, A.KONG_SELF + 4] = 1
    assert _choices(agent, obs) <= {"discard 3m", "discard 7m", "discard 5m"}
    free = _turn_obs("5555m123p456p789p1z")  # the kong costs nothing here: declared
    free["action_mask"][0, A.KONG_SELF + 4] = 1
    assert _choices(agent, free) == {"kong 5m"}


def test_a_ready_discards_tie_key_stays_within_the_tie_range_of_100():
    """``RuleBasedAgent._discard_keys``: the tie part of a key lies within +-100 ("a tile of distance is 1000, the
    ties +-100", ``nearest_discards``; ``EfficientAgent.IMPROVEMENT_WEIGHT`` outweighs "the rule agent's whole tie
    range (200)"), however many live tiles a ready hand waits on. Discarding 1z from 123m456m789m123p 9s(惠) 1z leaves
    the 惠牌 alone, waiting on every kind (over 100 unseen tiles): its key is -100 plus the 0.01 random part
    (mutant 379 of the second round, judged open there, clipped at -101)."""
    obs = _turn_obs("123m456m789m123p9s1z", hui="9s")
    key = RuleBasedAgent().discard_keys(obs["observation"], obs["action_mask"], np.random.default_rng(0))
    assert -100.0 <= key[0, 27] < -99.99
    assert key[0].argmin() == 27
