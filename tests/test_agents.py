"""Agents: legal actions only, the rule-based agent's decisions, masked distributions, checkpoints,
reward options."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from agent_obs import _allow, _choices, _claim_obs, _turn_obs, play

from agents import RandomAgent, RuleBasedAgent, make_agent
from agents.networks import (
    OBS_VERSION,
    MaskedCategorical,
    NetworkAgent,
    NonFiniteLogits,
    PolicyValueNet,
    TileNet,
    build_network,
    load_checkpoint,
    masked_logits,
    save_checkpoint,
)
from agents.rewards import RewardTransform
from agents.rule_based import hand_distance
from mj_env import actions as A
from mj_env import get_rules
from mj_env.baselines import EfficientAgent, connectedness, discard_distances
from mj_env.observation import N_PLANES, OBS_NAME
from mj_env.tiles import parse_hand
from mj_env.vector import MahjongVectorEnv

torch.set_num_threads(1)  # tiny batches: one thread is fastest and never oversubscribes the CPU


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


def test_masked_distribution_gives_illegal_actions_zero_probability():
    torch.manual_seed(0)
    logits = torch.randn(64, A.N_ACTIONS) * 5
    mask = torch.rand(64, A.N_ACTIONS) < 0.1
    mask[:, 0] = True
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask] == 0)
    assert torch.allclose(dist.probs.sum(-1), torch.ones(64))
    assert torch.all(mask.gather(1, dist.sample((200,)).T))
    # entropy of the legal part only: equals the entropy of the renormalised legal logits
    for i in range(4):
        legal = logits[i][mask[i]]
        expect = torch.distributions.Categorical(logits=legal).entropy()
        assert torch.allclose(dist.entropy()[i], expect, atol=1e-5)
    # a single legal action: zero entropy, log-prob 0, finite gradients
    one = torch.zeros(1, A.N_ACTIONS, dtype=torch.bool)
    one[0, 5] = True
    lg = torch.randn(1, A.N_ACTIONS, requires_grad=True)
    d1 = MaskedCategorical(lg, one)
    assert d1.entropy().item() == pytest.approx(0.0, abs=1e-6)
    (d1.log_prob(torch.tensor([5])).sum() + d1.entropy().sum()).backward()
    assert torch.isfinite(lg.grad).all()
    assert masked_logits(logits, mask).dtype == logits.dtype
    assert masked_logits(logits, mask)[~mask].eq(torch.finfo(torch.float32).min).all()


@pytest.mark.parametrize(("arch", "greedy"), [("mlp", False), ("mlp", True), ("tiles", False)])
def test_network_agent_only_legal(arch, greedy):
    torch.manual_seed(0)
    net = PolicyValueNet(hidden=(32,)) if arch == "mlp" else TileNet(channels=8, blocks=1)
    agent = NetworkAgent(net, greedy=greedy)
    for _ in play(agent, "beijing", num_envs=16, steps=200):
        pass


@pytest.mark.parametrize("edit, error, words", [
    (lambda o, m: (o, m[:, :-1]), ValueError, "obs\\['action_mask'\\] has shape \\(3, 126\\) for 3 observations"),
    (lambda o, m: (o, m[:2]), ValueError, "obs\\['action_mask'\\] has shape \\(2, 127\\) for 3"),
    (lambda o, m: (o[:, :13], m), ValueError, ("obs\\['observation'\\] is uint8 of shape \\(3, 13, 34\\); expected "
                                               "\\(n, 14 or 18, 34\\) planes and \\(n, 127\\) masks")),
    (lambda o, m: (o[0], m), ValueError, "of shape \\(14, 34\\)"),
    (lambda o, m: (o.astype(str), m), ValueError, "obs\\['observation'\\] is <U"),
    # values the baselines refuse: a NaN mask was read as every action legal, a 2 or a 0.5 as legal
    (lambda o, m: (o, np.full(m.shape, np.nan)), ValueError,
     "agent 'net': obs\\['action_mask'\\] must be \\(3, 127\\) of bools or 0s and 1s \\(no NaN\\)"),
    (lambda o, m: (o, m * 2), ValueError, "agent 'net': obs\\['action_mask'\\] must be"),
    (lambda o, m: (o, m * 0.5), ValueError, "agent 'net': obs\\['action_mask'\\] must be"),
])
def test_network_agent_names_a_shape_that_does_not_fit(edit, error, words):
    eng_obs = MahjongVectorEnv(num_envs=3, rules="beijing").reset(seed=0)[0]
    planes, mask = edit(eng_obs["observation"], eng_obs["action_mask"])
    for net in (PolicyValueNet(hidden=(8,)), TileNet(channels=4, blocks=1)):
        with pytest.raises(error, match=words):
            NetworkAgent(net, name="net").act({"observation": planes, "action_mask": mask}, np.random.default_rng(0))


def overflowing(net: torch.nn.Module) -> torch.nn.Module:
    """``net`` with finite weights so large that its logits overflow to nan or inf (a checkpoint's loading
    checks accept them: every weight is finite)."""
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(1e30)
    return net


def test_network_agent_refuses_logits_that_overflow():
    """Nan logits played each row's first legal action, as if the network had chosen it: the arena scored such
    a checkpoint as a player, and train.py's evaluations too (its rollouts, through MaskedCategorical, refused)."""
    obs = MahjongVectorEnv(num_envs=3, rules="beijing").reset(seed=0)[0]
    for net in (PolicyValueNet(hidden=(8,)), TileNet(channels=4, blocks=1)):
        agent = NetworkAgent(overflowing(net), name="net")
        for greedy in (False, True):
            agent.greedy = greedy
            with pytest.raises(NonFiniteLogits, match="the network's policy logits hold nan or inf"):
                agent.act(obs, np.random.default_rng(0))


def test_network_agent_takes_no_rows_and_needs_a_generator():
    agent = NetworkAgent(PolicyValueNet(hidden=(8,)), name="net")
    empty = {"observation": np.zeros((0, N_PLANES, 34), np.uint8), "action_mask": np.zeros((0, A.N_ACTIONS), bool)}
    got = agent.act(empty, np.random.default_rng(0))
    assert got.shape == (0,) and got.dtype == np.int64
    assert np.array_equal(got, RandomAgent().act(empty, np.random.default_rng(0)))
    with pytest.raises(TypeError, match="agent 'net': rng must be a np.random.Generator, not a NoneType"):
        agent.act(empty, None)
    with pytest.raises(TypeError, match="obs must be a dict with 'observation' and 'action_mask'"):
        agent.act({"observation": empty["observation"]}, np.random.default_rng(0))


def test_tile_network_logits_follow_the_action_layout():
    """Swapping the m and p suits in every tile plane swaps the m and p entries of the discard,
    kong, 报听 and chi logits, and leaves the claim logits and the value alone."""
    torch.manual_seed(0)
    net = TileNet(channels=8, blocks=1).eval()
    for p in net.parameters():  # larger weights than the init, so that nothing is near zero
        torch.nn.init.normal_(p, std=0.3)
    env = MahjongVectorEnv(num_envs=8, seed=1)
    obs, _ = env.reset(seed=1)
    o = torch.as_tensor(obs["observation"])
    perm = np.r_[9:18, 0:9, 18:34]                     # tile order with m and p swapped
    swapped = o.clone()
    swapped[:, :13] = o[:, :13][:, :, perm]
    with torch.no_grad():
        (l1, v1), (l2, v2) = net(o), net(swapped)
    act_perm = np.r_[perm, 34 + perm, 68:72, 72 + np.r_[7:14, 0:7, 14:21], 93 + perm]
    assert torch.allclose(l2, l1[:, act_perm], atol=1e-5)
    assert torch.allclose(v1, v2, atol=1e-5)
    assert not torch.allclose(l1[:, :9], l1[:, 9:18])


def test_checkpoint_round_trip_and_layout_check(tmp_path):
    torch.manual_seed(0)
    model = PolicyValueNet(hidden=(32, 16))
    path = save_checkpoint(tmp_path / "m.pt", model, rules="beijing", update=3)
    loaded, meta = load_checkpoint(path)
    assert meta["obs_name"] == OBS_NAME and meta["obs_version"] == OBS_VERSION and meta["update"] == 3
    o = torch.randint(0, 4, (5, N_PLANES, 34), dtype=torch.uint8)
    for a, b in zip(model(o), loaded(o)):
        assert torch.equal(a, b)
    tiles = save_checkpoint(tmp_path / "t.pt", TileNet(channels=8, blocks=1))
    t_model, t_meta = load_checkpoint(tiles)
    assert isinstance(t_model, TileNet) and t_meta["model_config"]["arch"] == "tiles"
    assert isinstance(build_network({"arch": "mlp", "hidden": [8]}), PolicyValueNet)
    agent = make_agent(str(path) + ":greedy")
    assert agent.greedy and agent.name.endswith(":greedy")
    sampling = make_agent(str(path) + ":sample")  # the default said outright, as pretrained:sample is
    assert not sampling.greedy and sampling.name.endswith(":sample")
    # a checkpoint of another observation layout is refused
    payload = torch.load(path, weights_only=True)
    payload["obs_name"] = "mj_obs_v0"
    torch.save(payload, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="mj_obs_v0"):
        load_checkpoint(tmp_path / "old.pt")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent(str(tmp_path / "missing.pt"))
    with pytest.raises(ValueError, match="is not a checkpoint file"):  # a directory is there, not missing
        make_agent(str(tmp_path) + ":greedy")
    assert not make_agent(path).greedy  # a path object names the checkpoint as its str does
    for bad in ("", None, 3):  # an AttributeError ('endswith') before
        with pytest.raises(ValueError, match="an agent is named by a non-empty str"):
            make_agent(bad)


def test_a_path_object_always_names_a_file(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    for name in ("rule", "pretrained"):
        with pytest.raises(ValueError, match=f"agent '{name}': no such checkpoint file: {name}"):
            make_agent(Path(name))
    save_checkpoint(tmp_path / "rule", PolicyValueNet(hidden=(8,)))
    assert type(make_agent(Path("rule"))).__name__ == "NetworkAgent" and make_agent("rule").name == "rule"


@pytest.mark.parametrize("device, words", [
    ("bogus", "device 'bogus' is not a torch device: use cpu, cuda, cuda:N or mps"),
    ("meta", "device 'meta' cannot run networks"), (None, "device None is not a torch device")])
def test_a_device_that_cannot_run_here_is_refused_by_name(tmp_path, device, words):
    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)))
    for make in (lambda: make_agent(str(path), device=device), lambda: make_agent("pretrained", device=device),
                 lambda: NetworkAgent(PolicyValueNet(hidden=(8,)), device=device),
                 lambda: load_checkpoint(path, device=device)):  # was torch's own error, after reading the file
        with pytest.raises(ValueError, match=words):
            make()
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device 'cuda': CUDA is not available on this machine"):
            make_agent(str(path), device="cuda")
        with pytest.raises(ValueError, match="device 'cuda': CUDA is not available on this machine"):
            load_checkpoint(path, device="cuda")


# --------------------------------------------------------------------------- rewards


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


@pytest.mark.parametrize("arch", ["mlp", "tiles"])
@pytest.mark.parametrize("net_obs", [OBS_NAME, "mj_obs_v2"])
def test_network_agents_play_from_either_env_layout(arch, net_obs):
    """A network of either layout acts the same on an env's v1 and v2 observations of one position."""
    torch.manual_seed(0)
    obs_kw = {} if net_obs == OBS_NAME else {"obs": net_obs}
    net = PolicyValueNet(hidden=(16,), **obs_kw) if arch == "mlp" else TileNet(channels=4, blocks=1, **obs_kw)
    agent = NetworkAgent(net, greedy=True)
    e1, e2 = MahjongVectorEnv(8, seed=1), MahjongVectorEnv(8, seed=1, obs="v2")
    o1, _ = e1.reset(seed=1)
    o2, _ = e2.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        a1, a2 = agent.act(o1, rng), agent.act(o2, rng)
        np.testing.assert_array_equal(a1, a2)
        o1, *_ = e1.step(a1)
        o2, *_ = e2.step(a1)


class FixedLogits(torch.nn.Module):
    """A "network" whose policy logits are the given (n, 127) tensor, whatever the observation."""

    def __init__(self, logits: torch.Tensor):
        super().__init__()
        self.config, self.logits = {"arch": "mlp", "hidden": [8]}, logits

    def forward(self, obs):
        return self.logits[:len(obs)], torch.zeros(len(obs))


def test_network_agent_samples_each_row_from_its_masked_softmax():
    """Sampling draws each row's action with the masked softmax's probabilities, rows independently (the
    Gumbel-max trick: a normal in place of the Gumbel noise, or one noise row shared by every row, went
    unnoticed by a mutation test: every action stayed legal)."""
    n = 4000
    logits = torch.zeros(n, A.N_ACTIONS)
    logits[:, :4] = torch.tensor([0.0, 1.0, 2.0, 3.0])
    logits[:, 4] = 10.0  # illegal: never played
    mask = np.zeros((n, A.N_ACTIONS), bool)
    mask[:, :4] = True
    obs = {"observation": np.zeros((n, N_PLANES, 34), np.uint8), "action_mask": mask}
    got = NetworkAgent(FixedLogits(logits)).act(obs, np.random.default_rng(0))
    freq = np.bincount(got, minlength=5) / n
    want = torch.softmax(logits[0, :4], 0).numpy()
    assert freq[4] == 0 and np.allclose(freq[:4], want, atol=0.025), (freq, want)
    greedy = NetworkAgent(FixedLogits(logits), greedy=True).act(obs, np.random.default_rng(0))
    assert (greedy == 3).all()


def test_one_non_finite_logit_is_refused():
    """One nan among the logits of one row is refused as all nan is (act and MaskedCategorical)."""
    logits = torch.zeros(3, A.N_ACTIONS)
    logits[1, 7] = float("nan")
    mask = np.ones((3, A.N_ACTIONS), bool)
    obs = {"observation": np.zeros((3, N_PLANES, 34), np.uint8), "action_mask": mask}
    for greedy in (False, True):
        with pytest.raises(NonFiniteLogits, match="\\(1 of 3 rows\\)"):
            NetworkAgent(FixedLogits(logits), greedy=greedy).act(obs, np.random.default_rng(0))
    with pytest.raises(NonFiniteLogits, match="\\(1 of 3 rows\\)"):
        MaskedCategorical(logits, torch.as_tensor(mask))


def test_network_agent_refuses_a_row_without_a_legal_action():
    """A row that allows nothing is an error, not action 0 (argmax of a row that is all -inf)."""
    mask = np.ones((2, A.N_ACTIONS), bool)
    mask[1] = False
    obs = {"observation": np.zeros((2, N_PLANES, 34), np.uint8), "action_mask": mask}
    for greedy in (False, True):
        with pytest.raises(ValueError, match="row 1 of the action mask has no legal action"):
            NetworkAgent(PolicyValueNet(hidden=(8,)), greedy=greedy).act(obs, np.random.default_rng(0))


def test_network_agent_takes_float_planes_as_it_takes_uint8_ones():
    """Planes of any number dtype are taken (the check lets b, i, u and f kinds through): float32 copies of
    an env's planes play as the planes do."""
    torch.manual_seed(0)
    obs = MahjongVectorEnv(num_envs=6, rules="beijing").reset(seed=2)[0]
    agent = NetworkAgent(PolicyValueNet(hidden=(16,)), greedy=True)
    want = agent.act(obs, np.random.default_rng(0))
    floats = {**obs, "observation": obs["observation"].astype(np.float32)}
    np.testing.assert_array_equal(agent.act(floats, np.random.default_rng(0)), want)


def test_device_problem_names_cuda_devices_this_machine_lacks(monkeypatch):
    """cuda:N for N past the last device, mps where there is none (on a machine with CUDA, faked here)."""
    from agents.networks import device_problem

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert device_problem("cuda") is None and device_problem("cuda:0") is None and device_problem("cuda:1") is None
    assert device_problem("cuda:2", name="device") == "device 'cuda:2': this machine has 2 CUDA device(s)"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert device_problem("mps") == "--device 'mps': MPS is not available (use cpu, cuda, cuda:N or mps)"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert device_problem("mps") is None


def test_v2_inputs_are_computed_for_the_agents_rules():
    """A mj_obs_v2 network fed an env's v1 planes sees the v2 planes of its own rule set (quemen's needs, with
    its 缺一门, differ from beijing's), as a quemen env with obs="v2" gives them."""
    from agents.networks import model_inputs

    rules = "quemen"
    net = PolicyValueNet(hidden=(8,), obs="mj_obs_v2")
    agent = NetworkAgent(net, greedy=True, rules=rules)
    e1, e2 = MahjongVectorEnv(8, rules=rules, seed=1), MahjongVectorEnv(8, rules=rules, seed=1, obs="v2")
    o1, _ = e1.reset(seed=1)
    o2, _ = e2.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(10):
        np.testing.assert_array_equal(model_inputs(net, o1["observation"], o1["action_mask"], rules), o2["observation"])
        a = agent.act(o1, rng)
        np.testing.assert_array_equal(a, agent.act(o2, rng))
        o1, *_ = e1.step(a)
        o2, *_ = e2.step(a)


def test_a_checkpoint_is_named_by_its_whole_path_whatever_it_ends_in(tmp_path):
    """Only a str's ``:greedy`` / ``:sample`` suffix is a way of playing: a file named ``...-greedy`` is that file,
    sampling, and a path object ending in ``:greedy`` names the file of that name."""
    from pathlib import Path

    dashed = save_checkpoint(tmp_path / "net-greedy", PolicyValueNet(hidden=(8,)))
    agent = make_agent(str(dashed))
    assert not agent.greedy and agent.name == str(dashed)
    colon = save_checkpoint(tmp_path / "net.pt:greedy", PolicyValueNet(hidden=(8,)))
    assert not make_agent(Path(colon)).greedy   # the file net.pt:greedy, not net.pt (which is not there)
    with pytest.raises(ValueError, match="unknown agent"):  # as a str: net.pt, played greedily
        make_agent(str(colon))
    with pytest.raises(ValueError, match="unknown agent"):  # a file where a folder would be: no such checkpoint
        make_agent(str(dashed / "m.pt"))


def test_the_agents_here_are_agents_and_a_bare_act_is_not():
    from agents import Agent

    class ActOnly:
        def act(self, obs, rng):
            return np.zeros(len(obs["seat"]), dtype=np.int64)

    assert isinstance(RandomAgent(), Agent) and isinstance(RuleBasedAgent(), Agent) and isinstance(EfficientAgent(), Agent)
    assert not isinstance(ActOnly(), Agent) and not isinstance(object(), Agent)  # an agent has a name too


def test_make_agent_plays_under_the_rules_it_is_given(tmp_path):
    from agents.base import RulesMismatchWarning

    assert make_agent("rule", rules="quemen").rules.name == "quemen"
    assert make_agent("efficient", rules="hebei").rules.name == "hebei"
    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules="beijing")
    with pytest.warns(RulesMismatchWarning, match="plays under 'quemen'"):
        agent = make_agent(str(path), rules="quemen")
    assert agent.rules == "quemen"
