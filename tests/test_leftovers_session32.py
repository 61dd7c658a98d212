"""Leftovers of train.py and the checkpoints, mended: loading a network leaves torch's global generator as it was
(train.py still draws what the loads after its seeding drew, so its seeded runs repeat), a signal while a run
that ended writes final.pt and final_eval.json leaves both whole, progress.csv leaves a rate over no hands
empty, and a checkpoint with keys beside its format's loads with a warning naming them."""
import csv
import warnings

import pytest

torch = pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

from test_train_interrupt import TINY
from test_train_smoke import _scalars

import train
from agents import curve, make_agent
from agents.networks import CheckpointWarning, NetworkAgent, build_network, load_checkpoint, save_checkpoint
from agents.pretrained import available, load_pretrained, pretrained_path

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


# --------------------------------------------------------------------------- a signal while a run's end is written
















# --------------------------------------------------------------------------- progress.csv: a rate over no hands

LOSSES = {"samples": 8, "value_loss": 1.0, "policy_loss": 0.1, "entropy": 2.0, "old_approx_kl": 0.0,
          "approx_kl": 0.0, "clipfrac": 0.0, "explained_variance": 0.5}
RATES = ("draw_rate", "win_rate", "avg_fan", "pool_points", "pool_win_rate", "pool_deal_in_rate")


def test_a_rate_over_no_hands_is_an_empty_cell_not_0():
    """No hand ended, no learner win, no hand against the pool: the rates over them were written as 0 (a run
    without pool hands seemed to lose none and win none); unknown, they are empty, as unevaluated cells are."""
    none = {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0, "self_fan": 0.0, "pool_points": 0.0,
            "pool_hands": 0, "pool_wins": 0, "pool_deal_ins": 0}
    row = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, none, 1, 1.0, {})
    assert [row[k] for k in RATES] == [""] * 6 and row["hands"] == 0
    some = {**none, "hands": 2, "drawn": 0, "self_hands": 8, "self_wins": 0}  # hands, none won, none vs the pool
    row = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, some, 1, 1.0, {})
    assert [row[k] for k in RATES] == [0.0, 0.0, "", "", "", ""]
    full = train.progress_row(1, 128, 1.0, 3e-4, LOSSES, {**some, "pool_hands": 4, "pool_points": -2.0}, 1, 1.0, {})
    assert list(full) == list(row) and (full["pool_points"], full["pool_win_rate"]) == (-0.5, 0.0)


def test_a_run_without_pool_hands_leaves_their_cells_empty_and_every_reader_copes(tmp_path, monkeypatch):
    """--opponent-prob 0 (self-play only): the pool_* cells are empty in every row (they were 0), the columns
    are those of any run, TensorBoard gets no charts/pool_* point, the progress bar shows '-' and the curve reads it."""
    monkeypatch.chdir(tmp_path)
    small = [a for a in TINY if a != "--no-progress"]  # the bar's figures too (written to stderr)
    train.main(["--exp-name", "self", "--total-steps", "4096", "--opponent-prob", "0", "--final-eval-hands", "0",
                *small, "--num-steps", "128", "--eval-every", "1", "--eval-hands", "1"])  # (after TINY's)
    run = tmp_path / "runs" / "self"
    with open(run / "progress.csv", newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = reader.fieldnames, list(reader)
    assert len(rows) == 2 and all(r[k] == "" for r in rows for k in RATES if k.startswith("pool_"))
    assert all(r["hands"] != "0" and r["draw_rate"] != "" and r["win_rate"] != "" for r in rows)
    expected = train.progress_row(1, 1, 1.0, 0.0, LOSSES, {"hands": 0, "drawn": 0, "self_hands": 0, "self_wins": 0,
                                  "self_fan": 0.0, "pool_points": 0.0, "pool_hands": 0, "pool_wins": 0,
                                  "pool_deal_ins": 0}, 0, 0.0, {})
    assert columns == list(expected)
    scalars = _scalars(run)
    assert "charts/win_rate" in scalars and not [t for t in scalars if t.startswith("charts/pool_")]
    assert set(curve.read_curves(run / "progress.csv")) == {"random", "rule"}


# --------------------------------------------------------------------------- keys a checkpoint's format does not have


def _with_keys(tmp_path, **extra):
    payload = torch.load(pretrained_path("beijing"), weights_only=True)
    payload.update(extra)
    torch.save(payload, tmp_path / "later.pt")
    return tmp_path / "later.pt"


def test_a_checkpoint_with_keys_beside_its_formats_loads_and_warns_naming_them(tmp_path):
    """They loaded silently: a later version's field (kept under the same format) or another tool's was dropped
    with no word. The weights and meta load as they are; the warning names the keys, at the user's line."""
    path = _with_keys(tmp_path, normalizer={"mean": 0.5}, optimizer=[1, 2])
    with pytest.warns(CheckpointWarning) as caught:
        model, meta = load_checkpoint(path)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message) == (f"{path}: its keys 'normalizer', 'optimizer' are not of format "
                                      "mj_agents.policy/1 and left out (written by a later version of this "
                                      "package, or by another tool?)")
    shipped, _ = load_checkpoint(pretrained_path("beijing"))
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), shipped.state_dict().values()))
    assert meta["rules"] == "beijing"
    with pytest.warns(CheckpointWarning, match="its key 'normalizer' is not of format") as caught:
        make_agent(str(_with_keys(tmp_path, normalizer=1)))
    assert caught[0].filename == __file__


def test_the_writers_own_meta_keys_and_the_shipped_players_load_without_a_warning(tmp_path):
    """meta is the writer's (save_checkpoint's keywords): keys of any name are no sign of another version."""
    path = save_checkpoint(tmp_path / "m.pt", build_network({"arch": "mlp", "hidden": [8]}), rules="hebei",
                           note="mine", git_commit="abc123", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, meta = load_checkpoint(path)
        assert (meta["note"], meta["git_commit"], meta["seed"]) == ("mine", "abc123", 3)
        for rules in available():
            load_checkpoint(pretrained_path(rules))
            load_pretrained(rules)


def test_init_from_such_a_checkpoint_warns_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _with_keys(tmp_path, normalizer=1)
    with pytest.warns(CheckpointWarning) as caught:
        train.main(["--init-from", str(path), "--exp-name", "ft", "--total-steps", "0", "--final-eval-hands", "0",
                    "--eval-every", "0", "--threads", "1", "--no-progress", "--no-eval-pretrained"])
    assert [w.category for w in caught] == [CheckpointWarning]
