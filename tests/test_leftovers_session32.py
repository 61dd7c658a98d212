"""Leftovers of train.py and the checkpoints, mended: loading a network leaves torch's global generator as it was
(train.py still draws what the loads after its seeding drew, so its seeded runs repeat), a signal while a run
that ended writes final.pt and final_eval.json leaves both whole, and progress.csv leaves a rate over no hands
empty."""
import pytest

torch = pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import train
from agents import make_agent
from agents.networks import NetworkAgent, build_network, load_checkpoint, save_checkpoint
from agents.pretrained import load_pretrained, pretrained_path

# --------------------------------------------------------------------------- loading and torch's generator


@pytest.mark.parametrize("load", [lambda path: load_checkpoint(path), lambda path: NetworkAgent.from_checkpoint(path),
                                  lambda path: make_agent(str(path)), lambda path: load_pretrained("beijing")],
                         ids=["load_checkpoint", "from_checkpoint", "make_agent", "load_pretrained"])
def test_loading_a_network_draws_nothing_from_torchs_generator(load):
    """A script that seeds torch, loads a checkpoint and samples got other numbers than one that loaded first:
    the network was built (its initial weights drawn from the global generator) and then overwritten."""
    torch.manual_seed(5)
    expected = torch.rand(4)
    torch.manual_seed(5)
    load(pretrained_path("beijing"))
    assert torch.equal(torch.rand(4), expected)


def test_a_loaded_network_holds_the_files_weights_and_trains(tmp_path):
    """The network is the skeleton given memory (no initial weights): every weight is the file's, and trainable."""
    model = build_network({"arch": "tiles", "channels": 4, "blocks": 1, "head": 8})
    path = save_checkpoint(tmp_path / "m.pt", model, rules="beijing")
    loaded, _ = load_checkpoint(path)
    mine, theirs = model.state_dict(), loaded.state_dict()
    assert list(mine) == list(theirs) and all(torch.equal(mine[k], theirs[k]) for k in mine)
    assert all(p.requires_grad and p.device.type == "cpu" for p in loaded.parameters())


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_train_draws_after_its_seeding_what_loading_the_shipped_player_drew(rules):
    """train.py loads the shipped player after seed_everything (--opponent-pretrained, the evaluations): its
    seeded runs (and their published figures) repeat only if it draws what building that network drew."""
    config = load_pretrained(rules).model.config
    torch.manual_seed(11)
    build_network(config)  # what load_pretrained drew before loads stopped drawing
    expected = torch.get_rng_state()
    torch.manual_seed(11)
    agent = train.load_shipped_player(rules, "cpu")
    assert torch.equal(torch.get_rng_state(), expected) and agent.name == "pretrained"
    args = train.parse_args(["--rules", rules, "--opponent-prob", "1", "--opponent-pretrained", "0.25"])
    torch.manual_seed(11)
    build_network(config)
    build_network(config)
    expected = torch.get_rng_state()
    torch.manual_seed(11)
    train.SeatPlan(args, None, "cpu")  # (its generator is not used in the constructor)
    train.eval_opponents(args, "cpu")
    assert torch.equal(torch.get_rng_state(), expected)
