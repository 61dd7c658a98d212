"""Tests from the mutation rounds on mj_env/baselines.py, mj_env/wrappers.py and the input checks and layout helpers
of mj_env/features.py: each pins a documented behaviour that a one-token change of the code left unnoticed by
every other test (the mutant is named in each docstring). The first round covered the three modules; a second and a
third round on mj_env/baselines.py tried the mutants the earlier rounds left untried (the third, 233 of them; each
of its tests names its mutant by line and change)."""
from __future__ import annotations

import hashlib
import inspect
import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from agent_obs import _choices, _claim_obs, _turn_obs
from gymnasium.vector import AutoresetMode

import mj_env
from mj_env import actions as A
from mj_env import baselines as B
from mj_env import features as F
from mj_env import observation as O
from mj_env.baselines import (
    AgentError,
    EfficientAgent,
    RandomAgent,
    RuleBasedAgent,
    RulesMismatchWarning,
    agent_actions,
    make_baseline,
    uniform_legal,
    warn_rules_mismatch,
)
from mj_env.rules import get_rules
from mj_env.tiles import parse_hand
from mj_env.vector import MahjongVectorEnv
from mj_env.wrappers import (
    FlatObservations,
    FlatObservationsGym,
    FlatObservationsVector,
    NumericInfos,
    ObsAndMask,
    ResetByMask,
)

# ------------------------------------------------------------------------------------------ features


def test_hui_kind_is_minus_one_without_a_hui():
    """``hui_kind``: "-1 without 惠牌" (a mutant giving -2 went unnoticed: every caller clips it at 0)."""
    planes = np.zeros((2, O.N_PLANES, 34), dtype=np.uint8)
    planes[1, O.P_HUI, 7] = 1
    assert F.hui_kind(planes).tolist() == [-1, 7]


def test_the_option_columns_are_the_24_the_docstring_lists():
    """Planes 16-17 have columns 0 (now), 1 (pong), 2 (kong) and 3-23 (the 21 chis): ``N_OPTIONS`` is 24 (a mutant
    OPT_CHI - N_CHI went unnoticed: nothing read the public constant)."""
    assert (F.OPT_NOW, F.OPT_PONG, F.OPT_KONG, F.OPT_CHI) == (0, 1, 2, 3)
    assert A.N_CHI == 21 and F.N_OPTIONS == 24


def test_tiles_needed_of_no_hands_is_an_empty_int16_array():
    """``tiles_needed`` of 0 hands: (0,) int16, as for any other number (a mutant returning one zero for none went
    unnoticed: the module's own callers never pass an empty batch)."""
    got = F.tiles_needed(get_rules("beijing"), np.zeros((0, 34), dtype=np.int8), np.zeros(0, dtype=np.int64))
    assert got.shape == (0,) and got.dtype == np.int16


def test_suits_after_claim_counts_the_claimed_tiles_suit_beside_the_tiles_taken():
    """"the new meld holds those tiles and the claimed one": a pong of 5p made of one natural 5p and a 惠牌 1m holds
    pins and characters (a mutant subtracting the claimed tile cancelled the natural 5p taken, and the pins were
    lost; ``suits_held`` reads any non-zero count, so the two-惠牌 case of test_features did not see it)."""
    before = parse_hand("1m5p123s456s789s11s")[None].astype(np.int8)
    after = before - parse_hand("1m5p")[None].astype(np.int8)
    got = F.suits_after_claim(np.zeros((1, 3), dtype=bool), before, after, np.array([int(parse_hand("5p").argmax())]))
    assert got.tolist() == [[True, True, False]]


# ------------------------------------------------------------------------------------------ baselines


def test_rule_agent_discards_terminals_then_2_and_8_then_middle_tiles():
    """The module docstring: among equally near, equally isolated discards "honors and terminals first"; the bonus
    orders 1/9 before 2/8 before the rest. 6m, 9p and 2s are isolated and every one leaves the hand as far: the 9p
    goes; with only 6m and 2s allowed, the 2s (a mutant reading a tile's rank as kind // 9, its suit, instead of
    kind % 9 went unnoticed: it then discarded the 6m, ranked as a terminal)."""
    agent = RuleBasedAgent()
    assert _choices(agent, _turn_obs("123m6m456p9p789s2s11z")) == {"discard 9p"}
    obs = _turn_obs("123m6m456p789s2s11z5z")
    obs["action_mask"][0, :34] = 0
    obs["action_mask"][0, [int(parse_hand(t).argmax()) for t in ("6m", "2s")]] = 1
    assert _choices(agent, obs) == {"discard 2s"}


def test_random_agent_refuses_a_row_without_a_legal_action():
    """``uniform_legal``: "A row with no legal action is an error" unless ``empty_ok`` is asked for; the random agent
    does not ask (a mutant defaulting ``empty_ok`` to True went unnoticed: the agent then played action 0, a discard
    of 1m, for a table that had ended)."""
    mask = np.zeros((2, A.N_ACTIONS), dtype=np.int8)
    mask[0, A.PASS] = 1
    with pytest.raises(ValueError, match="row 1 of the action mask has no legal action"):
        RandomAgent().act({"action_mask": mask}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="row 1 of the action mask has no legal action"):
        uniform_legal(mask, np.random.default_rng(0))
    assert uniform_legal(mask, np.random.default_rng(0), empty_ok=True).tolist() == [A.PASS, 0]


def test_rule_agent_leaves_out_a_claim_its_hand_cannot_make():
    """``_claim``'s ``consider``: "an option the hand cannot take (tiles it lacks ...) is left out". Outside planes
    whose mask allows a pong of 5z to a hand holding one 5z (no 惠牌): the agent passes (a mutant that kept such
    options went unnoticed: it then ponged, from a 12-tile hand that read as nearer)."""
    obs = _claim_obs("123m456p79s5z12z99m", "5z", [A.PONG])
    assert _choices(RuleBasedAgent(), obs, seeds=range(3)) == {"pass"}


def test_rule_agent_refuses_an_own_turn_that_allows_no_discard():
    """``check_positions``: "an own turn ... allows a discard" (every own turn of the engine does); a mask of an own
    turn allowing only ``win`` is no position (a mutant that read any own-turn mask as allowing a discard went
    unnoticed: the refusal test's masks all held a discard or were claim windows)."""
    obs = _turn_obs("123m456p789s11z57z")
    obs["action_mask"][0] = 0
    obs["action_mask"][0, A.WIN] = 1
    with pytest.raises(ValueError, match="an own turn's mask allows a discard and only discards"):
        RuleBasedAgent().act(obs, np.random.default_rng(0))


def test_an_agent_error_lists_up_to_eight_tables_and_marks_more():
    """``agent_actions`` names the tables an agent that raised was acting for: the first eight, then ", ..." only
    when there are more (a mutant adding ", ..." to exactly eight went unnoticed: the arena's test uses one table)."""
    class Crashes:
        name = "crashes"

        def act(self, obs, rng):
            raise ZeroDivisionError("boom")

    agent = Crashes()
    for n, shown in [(8, "0, 1, 2, 3, 4, 5, 6, 7: boom"), (9, "0, 1, 2, 3, 4, 5, 6, 7, ...: boom")]:
        with pytest.raises(AgentError, match=re.escape(f"agent 'crashes' raised ZeroDivisionError acting at table(s) "
                                                       f"{shown}")):
            agent_actions(agent, agent.act, ({}, None), np.ones((n, A.N_ACTIONS), bool), np.arange(n), None)


def test_observe_v2_keeps_the_v1_planes_of_every_row():
    """``observe_v2``: "the v1 planes (n, 14, 34) and extra_planes", for any n and for planes of a layout that starts
    with v1 (``checked_planes``): more than 14 rows, and 18-plane input, still give (n, 18, 34) whose first 14
    planes are the input's (a mutant slicing the first 14 rows instead of the first 14 planes went unnoticed: every
    test passed 14 planes of fewer than 15 rows)."""
    env = MahjongVectorEnv(num_envs=16, rules="beijing", seed=0)
    obs, _ = env.reset(seed=0)
    v1, mask = obs["observation"], obs["action_mask"]
    v2 = F.observe_v2("beijing", v1, mask)
    assert v2.shape == (16, F.N_PLANES_V2, 34) and v2.dtype == np.uint8
    assert (v2[:, :O.N_PLANES] == v1).all()
    again = F.observe_v2("beijing", v2, mask)
    assert again.shape == v2.shape and (again == v2).all()


# ------------------------------------------------------------------------------------------ wrappers


def test_the_flat_spaces_keep_the_bounds_of_the_planes_and_the_mask():
    """The flat layout is the env's planes (0-255) and mask (0-1) reshaped: its Boxes keep those bounds, in all three
    wrappers (mutants with a high of 256 for the observations, or 2 for the mask, went unnoticed: the tests read
    the spaces' dtypes and shapes only)."""
    env = mj_env.env()
    spaces = [FlatObservations(env).observation_space("player_0"),
              FlatObservationsGym(gym.make("mj_env/Beijing-v0")).observation_space]
    v = FlatObservationsVector(gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point"))
    spaces += [v.single_observation_space, v.observation_space]
    own = env.observation_space("player_0")
    for space in spaces:
        for flat, key in (("observations", "observation"), ("action_mask", "action_mask")):
            assert (space[flat].low == own[key].low.min()).all() and (space[flat].high == own[key].high.max()).all()
    assert own["observation"].high.max() == 255 and own["action_mask"].high.max() == 1


def test_rule_agent_orders_by_connectedness_before_the_honor_bonus():
    """1m 2m 456p 789p and the pairs 8s, 1z, 2z: breaking the 12m or one of the pairs leaves the hand as far. The
    more isolated tile goes, by ``connectedness`` (a copy counts 2, a neighbour 1): the 1m (1, and a terminal) before
    a paired honor (2); the bonus only orders tiles of equal connectedness (a mutant with an honor bonus of 1.3 went
    unnoticed: it then broke an honor pair)."""
    assert _choices(RuleBasedAgent(), _turn_obs("12m456789p88s1122z")) == {"discard 1m"}


def test_flat_observations_refuse_an_unknown_agent_as_the_env_does():
    """``FlatObservations.observation_space`` of an agent the env lacks raises the env's KeyError naming the agents,
    whatever the agent's type (mutants returning None for an unknown name, or looking a list up in the dict of
    spaces, a TypeError, went unnoticed)."""
    env = FlatObservations(mj_env.env())
    for agent in ("player_9", ["player_0"], 3):
        with pytest.raises(KeyError, match="the agents are player_0, player_1, player_2, player_3"):
            env.observation_space(agent)


def test_in_layout_takes_array_likes_as_observe_v2_does():
    """``in_layout`` (public, in ``__all__``) reads its planes with ``np.asarray`` as ``observe_v2`` and ``extra_planes``
    do: nested lists give what the array gives, and a list of the wrong shape is the ValueError naming the shapes
    (a mutant dropping the conversion went unnoticed: it then raised AttributeError on ``.ndim``)."""
    env = MahjongVectorEnv(num_envs=2, rules="beijing", seed=0)
    obs, _ = env.reset(seed=0)
    planes, mask = obs["observation"], obs["action_mask"]
    for layout in ("v1", "v2"):
        want = F.in_layout(layout, "beijing", planes, mask)
        got = F.in_layout(layout, "beijing", planes.tolist(), mask)
        assert got.shape == want.shape and (np.asarray(got) == want).all()
    with pytest.raises(ValueError, match=re.escape("planes must be (n, 14 or 18, 34), got shape (2, 13, 34)")):
        F.in_layout("v1", "beijing", planes[:, :13].tolist(), mask)


def test_in_layout_gives_each_layout_from_either():
    """``in_layout``: "v1" is the first 14 planes, "v2" is ``observe_v2`` of v1 planes and v2 planes as they are (mutants
    always answering v1, or computing v2 from v2 planes / passing v1 planes through as v2, went unnoticed here; the
    envs' tests hold some of them)."""
    env = MahjongVectorEnv(num_envs=2, rules="beijing", seed=0)
    obs, _ = env.reset(seed=0)
    v1, mask = obs["observation"], obs["action_mask"]
    v2 = F.observe_v2("beijing", v1, mask)
    for planes in (v1, v2):
        assert (F.in_layout("v1", "beijing", planes, mask) == v1).all()
        got = F.in_layout("v2", "beijing", planes, mask)
        assert got.shape == (2, F.N_PLANES_V2, 34) and (got == v2).all()
    forged = v2.copy()
    forged[:, F.P_DISCARD_NEED] = 99                  # v2 planes are taken as they are, not computed again
    assert (F.in_layout("v2", "beijing", forged, mask) == forged).all()


def test_rule_agent_prefers_pong_to_chi_at_equal_distance():
    """"among claims the smallest distance, then kong > pong > chi": 4556m 123p 789p 11z 9s on a 5m, where the pong
    (555m, then the 9s: waits on 5m) and the chi 456m (then the 9s: waits on 5m and 1z) both leave the hand ready;
    it pongs (a mutant storing a claim's key as distance + bonus instead of - bonus went unnoticed: the later chi
    then beat the pong)."""
    chi_456m = A.CHI + int(np.flatnonzero(A.CHI_START == parse_hand("4m").argmax())[0])
    obs = _claim_obs("4556m123p789p11z9s", "5m", [A.PONG, chi_456m])
    assert _choices(RuleBasedAgent(), obs, seeds=range(3)) == {"pong"}


def test_the_wrappers_refuse_an_object_that_only_looks_like_an_env():
    """The checks ask for both marks of an env: an object with an ``observation_space()`` method but no
    ``possible_agents`` is no AEC env, and one with the right Dict ``observation_space`` that is no ``gymnasium.Env``
    is no single-agent env; both are refused by the wrapper's TypeError (mutants dropping either half went
    unnoticed: the first was wrapped, the second failed in Gymnasium's own assertion)."""
    import types

    env = mj_env.env()
    with pytest.raises(TypeError, match="FlatObservations wraps a PettingZoo AEC env"):
        FlatObservations(types.SimpleNamespace(observation_space=env.observation_space))
    space = gym.make("mj_env/Beijing-v0").observation_space
    for wrapper in (FlatObservationsGym, ObsAndMask):
        with pytest.raises(TypeError, match=f"{wrapper.__name__} wraps a single-agent env of mj_env"):
            wrapper(types.SimpleNamespace(observation_space=space, action_space=gym.spaces.Discrete(A.N_ACTIONS)))


def test_rule_agent_discards_an_isolated_8_before_a_middle_tile():
    """The 2/8 bonus covers both ends: 8m and 4s are isolated and leave the hand as far; with only those allowed the
    8m goes (a mutant giving the bonus to ranks 2 and 9 instead of 2 and 8 went unnoticed: the 2s case above holds
    rank 2 only, and 9 already had the terminals' bonus)."""
    obs = _turn_obs("123m8m456p789s4s11z5z")
    obs["action_mask"][0, :34] = 0
    obs["action_mask"][0, [int(parse_hand(t).argmax()) for t in ("8m", "4s")]] = 1
    assert _choices(RuleBasedAgent(), obs) == {"discard 8m"}


# The baselines' exact decisions, random tie-breaks included, make the published arena figures (README, "Agents").
# A change of any of them, or of how they draw from the rng, must be deliberate: these digests then change, and
# the figures must be measured again. (From a mutation test: the random tie-break subtracted instead of added went
# unnoticed, decisions of the same distribution but other draws.)
_PINNED_PLAY = {
    ("beijing", "rule"): "31f4759959384821", ("beijing", "efficient"): "f45a219931b356f4",
    ("quemen", "rule"): "656b3305af65bd83", ("quemen", "efficient"): "cd75c7ee3b2f6a32",
}


@pytest.mark.parametrize("rules, name", sorted(_PINNED_PLAY))
def test_the_baselines_play_the_pinned_actions(rules, name):
    """8 tables, 120 steps from seed 0, the agent in every seat: the digest of every action taken is pinned."""
    agent = make_baseline(name, rules)
    env = MahjongVectorEnv(num_envs=8, rules=rules, seed=0)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    digest = hashlib.sha256()
    for _ in range(120):
        a = agent.act(obs, rng)
        digest.update(str(a.tolist()).encode())
        obs, *_ = env.step(a)
    assert digest.hexdigest()[:16] == _PINNED_PLAY[rules, name]


def test_obs_and_mask_and_flat_observations_gym_are_recorded_in_the_spec():
    """Both single-agent wrappers record their construction (``gymnasium.utils.RecordConstructorArgs``), so that
    ``gymnasium.make(env.spec)`` builds the same stack (a mutant dropping ObsAndMask's record went unnoticed)."""
    for wrapper in (ObsAndMask, FlatObservationsGym):
        env = wrapper(gym.make("mj_env/Beijing-v0", opponents="random"))
        assert env.spec.additional_wrappers[-1].name == wrapper.__name__
        again = gym.make(env.spec)
        assert isinstance(again, wrapper) and again.observation_space == env.observation_space


def test_flat_observations_vector_refuses_other_keys_and_same_step_envs():
    """``FlatObservationsVector`` wraps a vector env whose observations are {'observation', 'action_mask'} and that
    runs NEXT_STEP (or DISABLED): a Dict of other keys is its TypeError, a SAME_STEP env its ValueError (mutants
    taking any Dict, or letting every mode through, went unnoticed)."""
    import types

    other = types.SimpleNamespace(single_observation_space=gym.spaces.Dict({"a": gym.spaces.Discrete(2)}),
                                  metadata={}, num_envs=1)
    with pytest.raises(TypeError, match="FlatObservationsVector wraps the batched single-agent env of mj_env"):
        FlatObservationsVector(other)
    same_step = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point",
                             autoreset_mode=AutoresetMode.SAME_STEP)
    with pytest.raises(ValueError, match="FlatObservationsVector wraps a NEXT_STEP vector env.*SAME_STEP"):
        FlatObservationsVector(same_step)
    next_step = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    for env in (next_step, ResetByMask(next_step)):  # ResetByMask's metadata says DISABLED
        assert FlatObservationsVector(env).single_observation_space["observations"].shape == (O.N_PLANES * 34,)
    # a vector env that does not say its mode is wrapped, as Gymnasium's own wrapper does (with its warning)
    unsaid = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    unsaid.metadata = {k: v for k, v in unsaid.metadata.items() if k != "autoreset_mode"}
    with pytest.warns(UserWarning, match="missing `autoreset_mode`"):
        assert FlatObservationsVector(unsaid).single_observation_space["observations"].shape == (O.N_PLANES * 34,)


def test_numeric_infos_give_earlier_scores_one_row_per_earlier_settlement():
    """``earlier_scores`` is (k, 4) int64, "one row each", for any k (a mutant reshaping to (1, 4) went unnoticed:
    the match test has exactly one earlier settlement)."""
    e = NumericInfos(mj_env.env())
    e.reset(seed=0)
    earlier = [{"scores": [3, -1, -1, -1]}, {"draw": True, "shaozhuang": 0, "scores": [0, 0, 0, 0]}]
    for k in (2, 0):
        e.env.infos = {agent: {"earlier_settlements": earlier[:k]} for agent in e.possible_agents}
        for info in e.infos.values():
            assert info["earlier_scores"].shape == (k, 4) and info["earlier_scores"].dtype == np.int64
            assert info["earlier_scores"].tolist() == [s["scores"] for s in earlier[:k]]


def test_an_obs_dict_missing_a_key_is_named():
    """``checked_obs``: a dict without "action_mask" (or, for the rule agent, "observation") is the ValueError naming
    the missing key (a mutant dropping that raise went unnoticed: an UnboundLocalError followed)."""
    obs = _turn_obs("123m456p789s11z57z")
    for agent, drop in ((RandomAgent(), "action_mask"), (RuleBasedAgent(), "action_mask"),
                        (RuleBasedAgent(), "observation")):
        partial = {k: v for k, v in obs.items() if k != drop}
        with pytest.raises(ValueError, match=f"obs must be a dict with \"observation\" and \"action_mask\"; '{drop}' "
                                             "is missing"):
            agent.act(partial, np.random.default_rng(0))


def test_rules_of_another_preset_give_one_warning():
    """``warn_rules_mismatch``: an agent built for another preset gets the one warning naming both presets, not a
    second one listing the fields that differ (a mutant falling through to the field comparison went unnoticed:
    ``pytest.warns`` takes extra warnings)."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        warn_rules_mismatch(RuleBasedAgent("beijing"), get_rules("quemen"), "agents[0]", "run", "build it right")
    assert [str(w.message)[:60] for w in got] == ["agents[0] ('rule') decides by the beijing rules but plays in"]
    assert all(w.category is RulesMismatchWarning for w in got)


# ---------------------------------------------------------------------- baselines, second round (untried mutants)
@pytest.mark.parametrize("agent", [RuleBasedAgent(), EfficientAgent()], ids=lambda a: a.name)
def test_rule_agents_refuse_a_row_without_a_legal_action_by_name(agent):
    """``check_rows_have_actions``: a row that allows nothing ("a table that ended was passed to an agent") is named
    as such by the rule and efficient agents, as by the random one (a mutant dropping the check from
    ``RuleBasedAgent.act`` went unnoticed: ``check_positions`` then refused the row as no position instead)."""
    a, b = _turn_obs("123m456p789s11z567z"), _turn_obs("123m456p789s11z567z")
    obs = {k: np.concatenate([a[k], b[k]]) for k in a}
    obs["action_mask"][1] = 0
    with pytest.raises(ValueError, match="row 1 of the action mask has no legal action"):
        agent.act(obs, np.random.default_rng(0))


def test_rule_agent_never_returns_an_action_its_mask_forbids():
    """``RuleBasedAgent.act``: "a bug here must never reach the engine as an illegal move": a choice the mask forbids
    raises an AssertionError naming the action and the row (mutants skipping that check, or the raise, went
    unnoticed: no correct agent chooses an illegal action). A subclass whose claim choice is broken shows it."""
    class Broken(RuleBasedAgent):
        def _claim(self, o, hands, hui, mask, rng):
            return np.full(len(o), A.PONG, dtype=np.int64)

    a = _turn_obs("123m456p789s11z567z")
    c = _claim_obs("123m456p79s5z12z99m", "3z", [])
    obs = {k: np.concatenate([a[k], c[k]]) for k in a}
    assert RuleBasedAgent().act(obs, np.random.default_rng(0))[1] == A.PASS
    with pytest.raises(AssertionError, match="rule agent chose illegal action 'pong' in row 1"):
        Broken().act(obs, np.random.default_rng(0))


def test_nearest_discards_are_the_legal_keys_within_half_a_tile_of_the_least():
    """``nearest_discards``: the legal keys (below ``ILLEGAL_KEY``) within the tie range of the row's smallest; a row
    allowing no discard has none, its smallest key inf (a mutant reading ``<= ILLEGAL_KEY`` as legal went unnoticed:
    it gave all 34 kinds of such a row, at the illegal key)."""
    ill = RuleBasedAgent.ILLEGAL_KEY
    key = np.full((3, 34), ill)
    key[0, [3, 5, 9]] = [2000.0, 2499.0, 2501.0]
    key[2, 7] = 1e6 + 1000.0  # a 惠牌 alone may go
    r, t, low = RuleBasedAgent.nearest_discards(key)
    assert list(zip(r.tolist(), t.tolist())) == [(0, 3), (0, 5), (2, 7)]
    assert low.tolist() == [2000.0, np.inf, 1e6 + 1000.0]


def test_rule_agent_drops_an_untakeable_chi_of_one_row_beside_a_takeable_one_of_another():
    """``consider``: a chi option the hand cannot take is left out with its action, so that the rows kept keep their
    own actions. Row 0's mask allows chi 123m of a 3m it cannot make (no 1m, 2m); row 1 takes chi 123m (a mutant
    keeping the actions of the options left out went unnoticed: the test above is a pong, one row)."""
    a = _claim_obs("45m9m456p789s11z99p", "3m", [A.CHI + 0])
    b = _claim_obs("12m45m9m456p789s11z", "3m", [A.CHI + 0])
    obs = {k: np.concatenate([a[k], b[k]]) for k in a}
    assert RuleBasedAgent().act(obs, np.random.default_rng(0)).tolist() == [A.PASS, A.CHI + 0]


@pytest.mark.parametrize(("hand", "tile", "chi"), [("4m1p44p55p66p7p3s4s99s", "5p", "chi 456p"),
                                                   ("1m22m3m1p4p66p7p8p1s6s7s", "2m", "chi 123m")])
def test_rule_agent_takes_a_chi_one_tile_closer_over_a_pong_offered_beside_it(hand, tile, chi):
    """``consider``: "the bonus only orders claims of equal distance": a pong's 0.1 must not outweigh a chi that
    leaves the hand a whole tile closer (mutant 486 of the second round, a pong bonus of 1.1, went unnoticed: it
    kept the pong as the best claim, no nearer than the hand already was, and so passed)."""
    obs = _claim_obs(hand, tile, [A.PONG, A.index(chi)])
    assert A.name(int(RuleBasedAgent().act(obs, np.random.default_rng(0))[0])) == chi


# ----------------------------------------------------------------------- baselines, third round (233 mutants)
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
