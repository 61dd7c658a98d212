"""The network agents: legal actions only, masked distributions, checkpoints. The agents that need no torch (random,
rule-based) and the reward options are in tests/test_agents_core.py, which runs in a core install too."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from agent_obs import play

from agents import RandomAgent, make_agent
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
from mj_env import actions as A
from mj_env.observation import N_PLANES, OBS_NAME
from mj_env.vector import MahjongVectorEnv

torch.set_num_threads(1)  # tiny batches: one thread is fastest and never oversubscribes the CPU


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


def test_make_agent_plays_under_the_rules_it_is_given(tmp_path):
    from agents.base import RulesMismatchWarning

    assert make_agent("rule", rules="quemen").rules.name == "quemen"
    assert make_agent("efficient", rules="hebei").rules.name == "hebei"
    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules="beijing")
    with pytest.warns(RulesMismatchWarning, match="plays under 'quemen'"):
        agent = make_agent(str(path), rules="quemen")
    assert agent.rules == "quemen"
