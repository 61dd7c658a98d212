"""Outside input whose cost grows far past its size: each input here is small, and was once read into time or
memory out of proportion to it. The project promises (README, docs/INTERFACES.md) that nothing from
outside can crash a process or corrupt a game; one held for minutes, or whose memory blows up, breaks that
promise too."""
from __future__ import annotations

import os

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch
from test_checkpoints import refused
from test_checkpoints_training_checks_second_mutants import _with_pickle

from agents.checkpoints import load_checkpoint, save_checkpoint
from agents.networks import PolicyValueNet, build_network


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    return save_checkpoint(tmp_path / "good.pt", PolicyValueNet(hidden=(16, 16)), rules="beijing")


def _rewritten(path, tmp_path, edit):
    payload = torch.load(path, weights_only=True)
    edit(payload)
    out = tmp_path / "edited.pt"
    torch.save(payload, out)
    return out


def _repeat(key):
    """A weight of the right shape whose values are one number read again (a stride of 0): 4 bytes stored."""
    return lambda p: p["state_dict"].__setitem__(key, torch.zeros(1).expand(p["state_dict"][key].shape))


def _overlap(key):
    """A weight of the right shape read from overlapping strides of a storage of one row."""
    def edit(p):
        rows, cols = p["state_dict"][key].shape
        p["state_dict"][key] = torch.zeros(cols).as_strided((rows, cols), (0, 1))
    return edit


def _shared(p):
    """Two weights that are one tensor: each is dense, but the file stores the values of one only."""
    p["state_dict"]["trunk.2.bias"] = p["state_dict"]["trunk.0.bias"]


@pytest.mark.parametrize("edit, words", [
    (_repeat("trunk.0.weight"), ["'trunk.0.weight'", "stores 4 bytes", "view repeating its values"]),
    (_overlap("trunk.2.weight"), ["'trunk.2.weight'", "stores 64 bytes"]),
    (_shared, ["share the values"]),
])
def test_a_weight_that_reads_its_values_again_is_refused(saved, tmp_path, edit, words):
    # torch.load takes such views as they are; the network built from them got memory for every value
    refused(_rewritten(saved, tmp_path, edit), *words)


def test_a_checkpoint_of_a_few_kilobytes_does_not_load_as_a_network_of_hundreds_of_megabytes(saved, tmp_path):
    # the largest config check_config allows (about 120 million weights, 480 MB), every weight a view of one
    # number: loading it allocated the whole network (and took seconds) from a file of under 10 KB
    config = {"arch": "mlp", "hidden": [4096] * 8}
    with torch.device("meta"):
        shapes = {k: v.shape for k, v in build_network(config).state_dict().items()}

    def edit(p):
        p["model_config"] = config
        p["state_dict"] = {k: torch.zeros(1).expand(shape) for k, shape in shapes.items()}
    path = _rewritten(saved, tmp_path, edit)
    assert os.path.getsize(path) < 10_000
    refused(path, "view repeating its values")


def test_a_dense_checkpoint_still_loads(saved):
    model, meta = load_checkpoint(saved)
    assert meta["rules"] == "beijing" and model.config["hidden"] == [16, 16]


def _usage_error(argv, capsys) -> str:
    import train
    with pytest.raises(SystemExit) as info:
        train.parse_args(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["--num-" + "e" * 20_000],  # one long name: tyro's ranking took 2 s for it, 10 s at 100,000 characters
    ["--num-envs", "4", "--", "--num-" + "e" * 20_000],  # after --, which tyro ranks too
    [f"--num-{i}" + "e" * 90 for i in range(200)],  # many of 100: 12 s for 1,000 of them
])
def test_train_refuses_unknown_options_of_thousands_of_characters_before_tyro_ranks_them(argv, capsys):
    # tyro suggests the nearest option to each unknown one by difflib, about 0.1 ms per character: a command
    # line of a few megabytes held train.py for minutes before its usage error
    err = _usage_error(argv, capsys)
    assert "unrecognized option" in err and "characters; train.py's options are under 40" in err, err
    assert len(err) < 400  # (tyro's error quoted each option whole)


def test_train_still_suggests_the_option_a_typo_meant(capsys):
    err = _usage_error(["--num-env", "3"], capsys)
    assert "--num-envs" in err and "under 40" not in err


@pytest.mark.parametrize("levels", [10_001, 1_000_000])
def test_a_pickle_nested_past_any_checkpoint_is_refused_before_torch_load(saved, tmp_path, levels):
    # {(((None,),)...): 1}, a tuple a million deep at one byte a level: torch.load ended the process with a
    # segmentation fault (no exception, no message); 100,000 deep loaded. Loaded in a child process: a crash
    # there fails this test, not the session
    import subprocess
    import sys
    data = b"\x80\x02}q\x00N" + b"\x85" * levels + b"K\x01s."  # EMPTY_DICT, NONE, TUPLE1 x levels, SETITEM
    path = _with_pickle(saved, tmp_path, data)
    if levels < 100_000:  # (loads here, before the fix, without a crash)
        refused(path, "nests values more than 10,000 deep")
        return
    code = ("import sys\nfrom agents.checkpoints import CheckpointError, load_checkpoint\n"
            "try:\n    load_checkpoint(sys.argv[1])\nexcept CheckpointError as e:\n    print(e)\n")
    run = subprocess.run([sys.executable, "-c", code, str(path)], check=False, capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert run.returncode == 0, (run.returncode, run.stderr[-300:])
    assert str(path) in run.stdout and "nests values more than 10,000 deep" in run.stdout, run.stdout


def test_checkpoints_with_wide_and_shared_meta_still_load(tmp_path):
    # the depth is of nesting only: a list appended 100,000 times, a dict of 10,000 entries, a list holding
    # one list a thousand times (pickle's memo) and meta 50 deep are all a few levels or 52
    nested: list | int = 0
    for _ in range(50):
        nested = [nested]
    path = save_checkpoint(tmp_path / "wide.pt", PolicyValueNet(hidden=(8,)), rules="beijing",
                           big=list(range(100_000)), d={f"k{i}": [i, {"x": i}] for i in range(10_000)},
                           shared=[[1, 2]] * 1000, nested=nested)
    assert load_checkpoint(path)[1]["nested"] == nested
