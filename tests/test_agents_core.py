"""The agents that need no torch: the random and rule-based agents' decisions and the reward options. They run in a
core install too (``pip install -e .``, no torch); the network agents and checkpoints are in tests/test_agents.py."""
from __future__ import annotations

import numpy as np
import pytest
from agent_obs import _allow, _choices, _claim_obs, _turn_obs, play

from agents import RandomAgent, RuleBasedAgent
from agents.rewards import RewardTransform
from agents.rule_based import hand_distance
from mj_env import actions as A
from mj_env import get_rules
from mj_env.baselines import EfficientAgent, connectedness, discard_distances
from mj_env.observation import N_PLANES
from mj_env.tiles import parse_hand


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_random_agent_only_legal(rules):
    for _ in play(RandomAgent(), rules, steps=200):
        pass


@pytest.mark.parametrize("rules", ["beijing", "hebei", "quemen"])
def test_rule_agent_only_legal_and_keeps_rules(rules):
    """Legal everywhere; wins whenever it can; discards a 惠牌 only when nothing else is legal."""
    agent = RuleBasedAgent(rules)
    claims_seen = 0
    for obs, a in play(agent, rules, steps=200):
        mask = obs["action_mask"].astype(bool)
        assert (a[mask[:, A.WIN]] == A.WIN).all()
        hui = np.where(obs["observation"][:, 10].any(1), obs["observation"][:, 10].argmax(1), -1)
        disc = a < 34
        hui_discards = disc & (a == hui)
        for i in np.flatnonzero(hui_discards):
            others = mask[i, :34].copy()
            others[hui[i]] = False
            assert not others.any(), "discarded a 惠牌 while another discard was legal"
        claims_seen += int(((a == A.PONG) | (a == A.KONG) | ((a >= A.CHI) & (a < A.CHI + A.N_CHI))).sum())
    if rules == "beijing":
        assert claims_seen > 0


def test_rule_agent_discards_the_lone_tile_and_keeps_the_hui():
    rng = np.random.default_rng(0)
    agent = RuleBasedAgent()
    # 9s is the 惠牌 (wild, completing 78s) and must stay; a lone honor goes
    obs = _turn_obs("123m456p78s9s11z457z", hui="9s")
    a = int(agent.act(obs, rng)[0])
    assert A.name(a) in ("discard 4z", "discard 5z", "discard 7z")
    # a lone honor goes before a connected suit tile
    obs = _turn_obs("1234m456p789s1z2z66z", hui="9p")
    assert A.name(int(agent.act(obs, rng)[0])) in ("discard 1z", "discard 2z")


def test_rule_agent_discard_keys_read_the_envs_int8_mask_as_bools():
    """``discard_keys`` with the mask as the env gives it (int8) ranks as with bools; it once took ~1 and
    ~0 of an int8 (-2, -1) as row indices: one row raised IndexError, and in a batch the last two rows
    ranked every discard illegal."""
    obs = _turn_obs("123m456p78s9s11z457z", hui="9s")
    o, mask = obs["observation"], np.asarray(obs["action_mask"])
    agent = RuleBasedAgent()
    as_int8 = agent.discard_keys(o, mask.astype(np.int8), np.random.default_rng(0))
    as_bool = agent.discard_keys(o, mask.astype(bool), np.random.default_rng(0))
    assert (as_int8 == as_bool).all()
    assert A.name(A.DISCARD + int(as_int8[0].argmin())) in ("discard 4z", "discard 5z", "discard 7z")
    assert ((as_int8[0] < agent.ILLEGAL_KEY) == (o[0, 0] > 0)).all()  # every kind held may go


def test_rule_agent_keeps_the_hui_even_where_discarding_it_waits_on_more():
    """234m 23p 4444p 456s and two 惠牌 4z: every discard leaves the hand ready, and discarding a 4z would wait on
    the most unseen tiles, but a 惠牌 goes only when nothing else may (from an outside mutation test: the
    HUI_DISCARD term dropped from the discard key went unnoticed, the agent then discarded the 4z)."""
    obs = _turn_obs("234m23p4444p456s44z", hui="4z")
    o, mask = obs["observation"], obs["action_mask"] != 0
    dist = discard_distances(get_rules("beijing"), o[:, 0].astype(np.int8), np.array([30]), mask[:, :34])[0]
    assert (dist[o[0, 0] > 0] == 0).all()  # every discard leaves it ready: the 4z's is as near as the best
    choices = _choices(RuleBasedAgent(), obs) | _choices(EfficientAgent(), obs)
    assert "discard 4z" not in choices and len(choices) >= 1


def test_rule_agent_claims_only_when_closer():
    rng = np.random.default_rng(0)
    agent = RuleBasedAgent()
    # 55z would become a triplet; the rest is a pair away from ready: pong gets closer
    obs = _claim_obs("123m456p79s55z12z9m", "5z", [A.PONG], hui="1p")
    assert int(agent.act(obs, rng)[0]) == A.PONG
    # the hand is ready (waits on 8s); pong of 5z (the pair) would not get it closer
    obs = _claim_obs("123m456p789s55z11z", "5z", [A.PONG], hui="1p")
    assert int(agent.act(obs, rng)[0]) == A.PASS
    # a win is always taken
    obs = _claim_obs("123m456p789s55z11z", "5z", [A.PONG, A.WIN], hui="1p")
    assert int(agent.act(obs, rng)[0]) == A.WIN
    # a lone chi option that gets closer (789s on the 8s, the rest as in the pong above) is taken (from an
    # outside mutation test: a loop over a row's chi options that skipped its last went unnoticed, every chi
    # case above offering two)
    chi_789s = A.CHI + int(np.flatnonzero(A.CHI_START == parse_hand("7s").argmax())[0])
    obs = _claim_obs("123m456p79s55z12z9m", "8s", [chi_789s], hui="1p")
    assert int(agent.act(obs, rng)[0]) == chi_789s


# From an outside mutation test: each rule of the module docstring's table below decides one position here, and
# the mutant named failed the test (the tie's sign, < for <=, 报听 only without a plain discard, an added kong
# taking no tile, a kong's own suit left out of quemen's declared suits, no random tie-break, no honor bonus).


def test_rule_agent_ties_among_ready_discards_go_to_the_most_unseen_winning_tiles():
    """Discarding 1m or 4m leaves 234m 34m (or 123m 34m) and 11z waiting on 2m and 5m, 3 + 4 unseen; discarding
    3m leaves 123m 44m and 11z waiting on 4m and 1z, 2 + 2 unseen. All three leave the hand ready: the discard
    waiting on the most tiles not yet seen goes."""
    agent = RuleBasedAgent()
    assert _choices(agent, _turn_obs("1233m44m456p789s11z", hui="9p")) == {"discard 1m", "discard 4m"}  # R01


def test_rule_agent_breaks_remaining_ties_at_random():
    """5z and 7z are equal in every rule (each leaves a wait on the other, 3 unseen): the rng decides."""
    assert _choices(RuleBasedAgent(), _turn_obs("123m456p789s111z5z7z")) == {"discard 5z", "discard 7z"}  # R11


def test_rule_agent_discards_honors_before_terminals():
    """9m, 1s and 5z are all isolated and equally far: the honor goes first."""
    assert _choices(RuleBasedAgent(), _turn_obs("123m456p789s9m1s11z5z")) == {"discard 5z"}  # R12


def test_connectedness_counts_copies_two_neighbours_one_and_two_ranks_away_a_half():
    """Against a count by hand: copies of the kind 2 each, a neighbour in the suit 1, two ranks away 0.5;
    nothing across a suit's end (9m, 1p) and nothing between honors."""
    got = connectedness(parse_hand("112m4m9m5s7s1112z")[None])[0]
    m = [2 + 1, 2 + 0.5, 1 + 1 + 1, 0.5, 1, 0.5, 0.5, 1, 0]
    p = [0.0] * 9
    s = [0, 0, 0.5, 1, 0.5, 1 + 1, 0.5, 1, 0.5]
    z = [2 * 2, 0, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(got, m + p + s + z)  # R13 (copies weighted 0.5)


def test_rule_agent_kongs_when_the_kong_leaves_the_hand_no_farther():
    """1111m 23m 456p 789s 11z: after the concealed kong the hand waits on 1m and 4m, as after discarding a 1m:
    no farther, so it kongs (the replacement draw is a free tile)."""
    obs = _allow(_turn_obs("1111m23m456p789s11z", hui="9p"), A.KONG_SELF + int(parse_hand("1m").argmax()))
    assert _choices(RuleBasedAgent(), obs) == {"kong 1m"}  # R02


def test_rule_agent_adds_a_kong_that_costs_nothing():
    """A pong of 1m declared and the fourth 1m in hand with 123s 456p 789s 2z: the added kong takes the one 1m
    and leaves the hand waiting on 2z, as discarding the 1m would; so it adds the kong."""
    one_m = int(parse_hand("1m").argmax())
    obs = _allow(_turn_obs("1m123s456p789s2z"), A.KONG_SELF + one_m)
    obs["observation"][0, 1, one_m] = 3
    assert _choices(RuleBasedAgent(), obs) == {"kong 1m"}  # R07 (the kong taking no tile from the hand)


def test_quemen_rule_agent_counts_a_kongs_own_suit_as_declared():
    """quemen, 99m 134678p 7s 9999s 7z: a concealed kong of 9s declares s, so the hand must then drop m or p,
    farther than discarding 7z (which can still drop s); it does not kong."""
    obs = _allow(_turn_obs("99m134678p7s9999s7z"), A.KONG_SELF + int(parse_hand("9s").argmax()))
    assert _choices(RuleBasedAgent("quemen"), obs) == {"discard 7z"}  # R08


def test_quemen_rule_agent_counts_the_declared_melds_and_the_new_one_in_claims():
    """quemen (缺一门) claims: 113m 237789p 2355s without melds passes on the 1m, whose pong would put characters
    into the declared melds, so that no suit is cheap to drop; 1345899m 4p 78s beside a declared pong of 999p
    pongs the 9m: the pins cannot be dropped, so passing is farther than the lone 4p makes it look (from an
    outside mutation test: the claim's new meld suit, and the declared melds' suits in the distance of passing,
    each dropped unnoticed: the agent then ponged the 1m, and passed on the 9m)."""
    agent = RuleBasedAgent("quemen")
    assert _choices(agent, _claim_obs("113m237789p2355s", "1m", [A.PONG]), seeds=range(3)) == {"pass"}
    obs = _claim_obs("1345899m4p78s", "9m", [A.PONG])
    obs["observation"][0, 1] = parse_hand("999p")
    assert _choices(agent, obs, seeds=range(3)) == {"pong"}


def test_quemen_rule_agent_declares_ting_even_when_a_plain_discard_is_legal():
    """quemen: 报听 with the chosen discard whenever it is legal; hebei has no 报听 of choice, so it declares
    only where a plain discard is not allowed."""
    obs = _turn_obs("123m456m78s11z5557z")
    obs["action_mask"][0, A.TING:A.TING + 34] = obs["action_mask"][0, :34]
    assert _choices(RuleBasedAgent("quemen"), obs) == {"ting 7z"}  # R06 (only without a plain discard)
    assert _choices(RuleBasedAgent("hebei"), obs) == {"discard 7z"}
    obs["action_mask"][0, :34] = 0
    assert _choices(RuleBasedAgent("hebei"), obs) == {"ting 7z"}


def test_rule_agent_takes_the_first_of_equal_chis_and_kongs():
    """As its docstring says, only discard ties are random: two chi options of equal distance give the one whose
    sequence starts lowest, two kongs that cost nothing the lowest kind, whatever the rng."""
    agent = RuleBasedAgent()
    assert _choices(agent, _claim_obs("12m45m9m456p789s11z", "3m", [A.CHI + 0, A.CHI + 2])) == {"chi 123m"}
    obs = _allow(_allow(_turn_obs("1111m5555p456s111z"), A.KONG_SELF + int(parse_hand("1m").argmax())),
                 A.KONG_SELF + int(parse_hand("5p").argmax()))
    assert _choices(agent, obs) == {"kong 1m"}


def test_hand_distance_counts_hui_as_wild():
    # 13 tiles: with 5s wild, 78s is a complete run and the hand is closer than without
    counts = parse_hand("123m456p78s5s12z55z")
    rules = get_rules("beijing")
    with_hui = int(hand_distance(rules, counts, np.array(22)))
    without = int(hand_distance(rules, counts, np.array(-1)))
    assert with_hui < without


# --------------------------------------------------------------------------- networks


def test_reward_options():
    pts = np.array([[6.0, -2.0, -2.0, -2.0]])
    assert np.array_equal(RewardTransform("points").hand_end(pts), pts)
    assert np.array_equal(RewardTransform("scaled", scale=2.0).hand_end(pts), pts / 2)
    assert np.array_equal(RewardTransform("sign").hand_end(pts), np.sign(pts))
    assert not RewardTransform("points").potential(np.zeros((3, N_PLANES, 34), np.uint8)).any()
    with pytest.raises(ValueError):
        RewardTransform("bogus")


@pytest.mark.parametrize("kw, error, words", [
    ({"scale": float("nan")}, ValueError, "reward scale must be a number from 1e-06 to 1e\\+06, got nan"),
    ({"scale": float("inf")}, ValueError, "reward scale must be a number from 1e-06 to 1e\\+06, got inf"),
    ({"scale": 0}, ValueError, "reward scale must be a number from 1e-06"),
    ({"scale": 1e-50}, ValueError, "reward scale must be a number from 1e-06"),  # 0 in float32: points / 0
    ({"scale": 1e7}, ValueError, "reward scale must be a number from 1e-06 to 1e\\+06, got 1"),
    ({"scale": "a"}, TypeError, "reward scale must be a number from 1e-06 to 1e\\+06, not 'a'"),
    ({"scale": True}, TypeError, "reward scale"),
    ({"shaping_coef": float("nan")}, ValueError, "shaping_coef must be a number from -1e\\+06 to 1e\\+06"),
    ({"shaping_coef": -1e300}, ValueError, "shaping_coef must be a number from -1e\\+06"),
    ({"shaping_coef": None}, TypeError, "shaping_coef must be a number from -1e\\+06 to 1e\\+06, not None"),
    ({"kind": ["points"] * 10**4}, ValueError, "unknown reward \\['points', 'points', 'points', 'po"),
])
def test_reward_settings_are_checked(kw, error, words):
    with pytest.raises(error, match=words) as err:
        RewardTransform(**kw)
    assert len(str(err.value)) < 200
    assert RewardTransform("scaled", scale=np.float32(2), shaping_coef=np.float64(0.5)).scale == 2.0
    for scale in (1e-6, 1e6):  # the ends of the range: every reward a finite float32
        assert np.isfinite(RewardTransform("scaled", scale=scale).hand_end(np.array([[1e3, -1e3, 0, 0]]))).all()


def test_shaping_potential_is_tiles_still_needed():
    shaped = RewardTransform("shaped", shaping_coef=0.5)
    win14 = _turn_obs("123m456p789s111z55z")["observation"]       # a winning hand: 0 tiles needed
    ready13 = _claim_obs("123m456p789s11z55z", "1m", [])["observation"]  # ready: 1 tile needed
    far14 = _turn_obs("159m159p159s12345z")["observation"]
    phi = shaped.potential(np.concatenate([win14, ready13, far14]))
    assert phi[0] == 0.0 and phi[1] == -0.5 and phi[2] < -2.0
    # (the trainer's shaping terms, which telescope: tests/test_train_smoke.py, the rollout tests)
    # the 惠牌 plane counts: 9p wild completes 78s (a win, 0 needed); without it the hand is one short
    wild = _turn_obs("123m456p78s9p11z555z", hui="9p")["observation"]
    plain = _turn_obs("123m456p78s9p11z555z")["observation"]
    assert shaped.potential(wild)[0] == 0.0 and shaped.potential(plain)[0] < 0.0
    # quemen's 缺一门 counts the declared melds' suits too: 123m 789s 11z in hand with a pong of 5p holds
    # three suits, so it needs exchanges; the same hand with the pong in m does not
    quemen = RewardTransform("shaped", rules="quemen", shaping_coef=0.5)
    three = _turn_obs("123m456m789s11z")["observation"]
    three[0, 1, parse_hand("5p").argmax()] = 3
    two = _turn_obs("123m456m789s11z")["observation"]
    two[0, 1, parse_hand("9m").argmax()] = 3
    assert quemen.potential(two)[0] == 0.0 and quemen.potential(three)[0] < 0.0
    # the shaped option pays scaled points at the hand's end, as scaled does
    pts = np.array([[6.0, -2.0, -2.0, -2.0]], np.float32)
    assert np.array_equal(RewardTransform("shaped", scale=2.0).hand_end(pts), pts / 2)


def test_shaping_coef_takes_its_whole_documented_range_and_sign():
    """shaping_coef is any number from -1e6 to 1e6, both ends included: a negative one turns the potential's sign
    (a step away from a win is paid), and Phi stays -coef * distance, a float32 per row."""
    far14 = _turn_obs("159m159p159s12345z")["observation"]
    for coef in (-1e6, -0.5, 1e6):
        phi = RewardTransform("shaped", shaping_coef=coef).potential(far14)
        assert phi.dtype == np.float32 and np.sign(phi[0]) == -np.sign(coef)
    near = RewardTransform("shaped", shaping_coef=0.5).potential(far14)[0]
    assert RewardTransform("shaped", shaping_coef=-0.5).potential(far14)[0] == -near


def test_shaping_without_a_hui_plane_has_no_wildcard():
    """No 惠牌 marked: no kind is wild (a 1m read as the 惠牌 would turn 1m + 11z 55z into 111z 55z, a win)."""
    one_short = _turn_obs("1m234p567p789s11z55z")["observation"]           # 1m single: one exchange from a win
    shaped = RewardTransform("shaped", shaping_coef=0.5)
    assert shaped.potential(one_short)[0] == -0.5
    assert shaped.potential(_turn_obs("1m234p567p789s11z55z", hui="1m")["observation"])[0] == 0.0


def test_the_agents_here_are_agents_and_a_bare_act_is_not():
    from agents import Agent

    class ActOnly:
        def act(self, obs, rng):
            return np.zeros(len(obs["seat"]), dtype=np.int64)

    assert isinstance(RandomAgent(), Agent) and isinstance(RuleBasedAgent(), Agent) and isinstance(EfficientAgent(), Agent)
    assert not isinstance(ActOnly(), Agent) and not isinstance(object(), Agent)  # an agent has a name too


