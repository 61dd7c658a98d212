"""Checkpoint loading runs no code from the file and refuses a broken checkpoint with one clear error; it draws
nothing from torch's generator, warns of keys beside its format, and saving refuses the meta keys loading fills."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch

import train
from agents import make_agent
from agents.arena import main as arena_main
from agents.checkpoints import CHECKPOINT_FORMAT, CheckpointError, load_checkpoint, save_checkpoint
from agents.networks import CheckpointWarning, NetworkAgent, PolicyValueNet, TileNet, build_network
from agents.pretrained import available, load_pretrained, pretrained_path
from mj_env.observation import N_PLANES, OBS_NAME


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    model = PolicyValueNet(hidden=(16, 8))
    return model, save_checkpoint(tmp_path / "good.pt", model, rules="beijing", update=3)


def rewrite(path, tmp_path, edit) -> str:
    """A copy of the checkpoint at ``path`` with ``edit`` applied to its payload."""
    payload = torch.load(path, weights_only=True)
    edit(payload)
    out = tmp_path / "edited.pt"
    torch.save(payload, out)
    return str(out)


def refused(path, *words):
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    for w in (str(path), *words):
        assert w in str(info.value), (w, str(info.value))


class MakesFile:
    """Unpickling this opens (so creates) a file: a stand-in for arbitrary code in a crafted checkpoint."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("how", ["torch.save", "pickle"])
def test_a_payload_that_runs_code_is_refused_without_running_it(saved, tmp_path, how):
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pt"
    payload = {"format": CHECKPOINT_FORMAT, "hook": MakesFile(marker)}
    if how == "torch.save":
        torch.save(payload, path)
    else:
        path.write_bytes(pickle.dumps(payload))
    # torch's reason (its line before "Check the documentation ..."), naming what it refused
    refused(path, "weights_only", *(["Unsupported global", "open"] if how == "torch.save" else []))
    assert not marker.exists()


def test_round_trip_gives_identical_outputs(tmp_path):
    o = torch.randint(0, 4, (6, N_PLANES, 34), dtype=torch.uint8)
    for model in (PolicyValueNet(hidden=(16, 8)), TileNet(channels=8, blocks=1, head=16)):
        path = save_checkpoint(tmp_path / "m.pt", model, update=np.int64(7), args={"hidden": (16, 8)})
        loaded, meta = load_checkpoint(path)
        assert type(loaded) is type(model) and meta["model_config"] == model.config
        assert meta["update"] == 7 and meta["args"] == {"hidden": [16, 8]} and meta["obs_name"] == OBS_NAME
        for a, b in zip(model(o), loaded(o)):
            assert torch.equal(a, b)


def test_save_refuses_meta_that_would_not_load(tmp_path):
    with pytest.raises(TypeError, match="meta\\['where'\\]"):
        save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), where=tmp_path)


@pytest.mark.parametrize("meta, words", [({"rules": "nope"}, "'meta' names rule set 'nope'"),
                                         ({"rules": float("nan")}, "'meta' names rule set nan")])
def test_save_refuses_what_load_would_refuse_and_writes_nothing(tmp_path, meta, words):
    with pytest.raises(CheckpointError, match=f"m.pt: not saved, it would not load: {words}"):
        save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), **meta)
    bad = PolicyValueNet(hidden=(8,))
    with torch.no_grad():
        bad.value.bias.fill_(float("nan"))
    with pytest.raises(CheckpointError, match="weight 'value.bias' has non-finite values"):
        save_checkpoint(tmp_path / "m.pt", bad)
    assert list(tmp_path.iterdir()) == []


def test_save_refuses_a_directory_or_a_path_under_a_file_and_writes_nothing(tmp_path):
    (tmp_path / "dir.pt").mkdir()
    (tmp_path / "file").write_text("")
    with pytest.raises(CheckpointError, match="dir.pt: is a directory; give a file name"):
        save_checkpoint(tmp_path / "dir.pt", PolicyValueNet(hidden=(8,)))
    with pytest.raises(CheckpointError, match="file is not a directory"):
        save_checkpoint(tmp_path / "file" / "sub" / "m.pt", PolicyValueNet(hidden=(8,)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.pt", "file"] and not any((tmp_path / "dir.pt").iterdir())
    assert load_checkpoint(save_checkpoint(tmp_path / "new" / "m.pt", PolicyValueNet(hidden=(8,)), rules="hebei"))


def test_save_refuses_a_module_that_is_not_one_of_ours(tmp_path):
    with pytest.raises(CheckpointError, match="got Linear"):
        save_checkpoint(tmp_path / "m.pt", torch.nn.Linear(4, 2))
    assert not (tmp_path / "m.pt").exists()


@pytest.mark.parametrize("key", ["state_dict", "model_config", "obs_version", "meta"])
def test_missing_key(saved, tmp_path, key):
    refused(rewrite(saved[1], tmp_path, lambda p: p.pop(key)), f"missing key '{key}'")


@pytest.mark.parametrize("edit, words", [
    (lambda p: p.update(format="mj_agents.policy/0"), ["mj_agents.policy/0", CHECKPOINT_FORMAT]),
    (lambda p: p.update(obs_version=2), ["mj_obs_v1", "version 2"]),
    (lambda p: p.update(obs_name="mj_obs_v0"), ["mj_obs_v0", OBS_NAME]),
    (lambda p: p.update(obs_version=True), ["'obs_version' is a bool"]),
    (lambda p: p.update(obs_shape=[13, 34]), ["[13, 34]"]),
    # equal to [14, 34] under == but not integers: refused (the type check, dropped, went unnoticed: an outside
    # mutation test)
    (lambda p: p.update(obs_shape=[float(N_PLANES), 34]), [f"shape [{float(N_PLANES)}, 34]", "networks here take"]),
    (lambda p: p.update(obs_shape=[N_PLANES, 34.0]), [f"shape [{N_PLANES}, 34.0]"]),
    (lambda p: p.update(n_actions=126), ["126 actions"]),
    (lambda p: p.update(n_actions=128), ["128 actions"]),
])
def test_wrong_format_or_layout(saved, tmp_path, edit, words):
    refused(rewrite(saved[1], tmp_path, edit), *words)


@pytest.mark.parametrize("config, words", [
    ({"arch": "mlp", "hidden": [True, 8]}, ["'hidden'", "True"]),
    ({"arch": "mlp", "hidden": ["16", 8]}, ["'hidden'", "'16'"]),
    ({"arch": "mlp", "hidden": [-16, 8]}, ["'hidden'", "-16"]),
    ({"arch": "mlp", "hidden": 16}, ["'hidden'", "list"]),
    ({"arch": "tiles", "channels": "8", "blocks": 1, "head": 16}, ["'channels'", "'8'"]),
    ({"arch": "tiles", "channels": 8, "blocks": False, "head": 16}, ["'blocks'", "False"]),
    ({"arch": "tiles", "channels": 10**9, "blocks": 1, "head": 16}, ["'channels'", str(10**9)]),
    ({"arch": "transformer", "hidden": [16, 8]}, ["unknown network architecture 'transformer'"]),
    ({"arch": ["mlp"], "hidden": [16, 8]}, ["unknown network architecture ['mlp']"]),
    ({"arch": "mlp", "hidden": [16, 8], "dropout": 0.5}, ["'dropout'"]),
])
def test_bad_model_config(saved, tmp_path, config, words):
    refused(rewrite(saved[1], tmp_path, lambda p: p.update(model_config=config)), *words)


def _nested_zeros():
    with warnings.catch_warnings():  # torch: "nested tensors are in prototype stage"
        warnings.simplefilter("ignore")
        return torch.nested.as_nested_tensor([torch.zeros(1)])


def _set_weight(key, value):
    return lambda p: p["state_dict"].__setitem__(key, value)


@pytest.mark.parametrize("edit, words", [
    (_set_weight("trunk.0.weight", torch.zeros(16, 5)), ["'trunk.0.weight'", "[16, 5]"]),
    (_set_weight("policy.bias", torch.full((127,), float("nan"))), ["'policy.bias'", "non-finite"]),
    (_set_weight("value.weight", torch.full((1, 8), float("inf"))), ["'value.weight'", "non-finite"]),
    (_set_weight("value.bias", torch.zeros(1, dtype=torch.float64)), ["'value.bias'", "float64"]),
    (_set_weight("value.bias", [0.0]), ["'value.bias'", "list"]),
    (_set_weight("extra.weight", torch.zeros(1)), ["'extra.weight'"]),
    (lambda p: p["state_dict"].pop("trunk.2.bias"), ["'trunk.2.bias' is missing"]),
    (_set_weight("value.bias", torch.zeros(1, device="meta")), ["'value.bias'", "on meta"]),
    (_set_weight("value.bias", _nested_zeros()), ["'value.bias'", "nested"]),
    (_set_weight("value.weight", torch.zeros(1, 8).to_sparse()), ["'value.weight'", "sparse"]),
    # the largest config check_config allows, without its weights (how cheaply: the test below)
    (lambda p: p.__setitem__("model_config", {"arch": "mlp", "hidden": [4096] * 8}), ["'trunk.0.weight'", "shape"]),
])
def test_bad_weights(saved, tmp_path, edit, words):
    refused(rewrite(saved[1], tmp_path, edit), *words)


def test_a_damaged_file_is_refused_by_its_checksums(saved, tmp_path):
    """torch.load does not verify the zip members' CRC-32; the loader does, so one changed byte of a
    weight is refused rather than played."""
    import zipfile
    raw = bytearray(saved[1].read_bytes())
    with zipfile.ZipFile(saved[1]) as z:
        info = next(i for i in z.infolist() if i.filename.endswith("/data/0"))
    h = info.header_offset  # the local header: 30 bytes, then the name and the extra field (its own length)
    start = h + 30 + int.from_bytes(raw[h + 26:h + 28], "little") + int.from_bytes(raw[h + 28:h + 30], "little")
    raw[start + 3] ^= 0xFF
    bad = tmp_path / "flipped.pt"
    bad.write_bytes(bytes(raw))
    refused(bad, "CRC-32", "data/0")


def test_a_compressed_archive_is_refused_before_it_is_unpacked(saved, tmp_path):
    """torch.save stores its records uncompressed; a deflated copy (a few KB that could unpack to gigabytes:
    a hostile fuzz packed 1 GiB into 1.2 MB) is refused from the zip directory, before anything is read."""
    import zipfile
    packed = tmp_path / "packed.pt"
    with zipfile.ZipFile(saved[1]) as src, zipfile.ZipFile(packed, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for name in src.namelist():
            out.writestr(name, src.read(name))
    refused(packed, "is compressed")


def test_overlapping_members_are_refused_before_they_are_read(saved, tmp_path):
    """Stored members may share their bytes: N central-directory entries at one local header unpack to N
    times the file (a review made a 2 MB file cost 400 MB that way). Members whose sizes add up to more
    than the file are refused from the directory."""
    import struct
    import zlib
    data, name = bytes(100_000), b"archive/data/0"
    crc = zlib.crc32(data)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(data), len(data), len(name), 0)
    body = local + name + data
    central = b"".join(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, len(data), len(data),
                                   len(name), 0, 0, 0, 0, 0, 0) + name for _ in range(5))
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 5, 5, len(central), len(body), 0)
    bomb = tmp_path / "overlap.pt"
    bomb.write_bytes(body + central + end)
    refused(bomb, "they overlap")


def test_a_checkpoint_saved_without_checksums_loads(saved, tmp_path):
    """torch.serialization.set_crc32_options(False) writes every CRC-32 as 0; such a file (save_checkpoint
    writes one under that option) is not damaged and loads (a review: it was refused as failing its CRC)."""
    if not hasattr(torch.serialization, "set_crc32_options"):
        pytest.skip("this torch has no set_crc32_options")
    torch.serialization.set_crc32_options(False)
    try:
        path = save_checkpoint(tmp_path / "nocrc.pt", saved[0], rules="beijing")
    finally:
        torch.serialization.set_crc32_options(True)
    model, _ = load_checkpoint(path)
    for a, b in zip(model.state_dict().values(), saved[0].state_dict().values()):
        assert torch.equal(a, b)


def test_a_value_nested_thousands_deep_gets_a_short_message(saved, tmp_path):
    """An error message quotes a bad value cut in depth and length: a format nested 2,000 deep raised
    RecursionError from repr() instead of CheckpointError (from a hostile fuzz)."""
    import sys
    import threading
    deep = []
    for _ in range(2000):
        deep = [deep]
    payload = torch.load(saved[1], weights_only=True)
    payload["format"] = deep
    out, limit = tmp_path / "deep.pt", sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # torch.save pickles it recursively; a thread with a large stack
    try:
        old = threading.stack_size(256 << 20)
        t = threading.Thread(target=torch.save, args=(payload, out))
        t.start()
        t.join()
        threading.stack_size(old)
    finally:
        sys.setrecursionlimit(limit)
    refused(out, "not a policy checkpoint", "[[[[...]]]]")


def test_shape_mismatch_names_the_first_key(saved, tmp_path):
    """A config that does not match the weights: the first weight whose shape differs is named."""
    refused(rewrite(saved[1], tmp_path, lambda p: p.update(model_config={"arch": "mlp", "hidden": [16, 9]})),
            "'trunk.2.weight'", "[8, 16]", "[9, 16]")


@pytest.mark.parametrize("kind, words", [
    ("garbage", ["weights_only", "nor is it the zip archive that torch.save writes"]),
    ("text", ["weights_only", "nor is it the zip archive"]),
    ("empty", ["the file is empty"]), ("directory", ["not a file"]), ("missing", ["no such file"]), ("list", ["holds a list"]),
    ("empty path", ["no file named (an empty path)"]),
    ("link loop", ["a loop of symbolic links"]),  # was "no such file" (train.py --init-from; the arena said "loop")
])
def test_not_a_checkpoint(tmp_path, kind, words):
    path = tmp_path / "x.pt"
    if kind == "garbage":
        path.write_bytes(np.random.default_rng(0).bytes(300))
    elif kind == "text":  # torch.load read it as its legacy format and said only "KeyError: 101"
        path.write_text("hello world\n")
    elif kind == "empty path":
        path = ""
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "directory":
        path.mkdir()
    elif kind == "list":
        torch.save([1, 2], path)
    elif kind == "link loop":
        path.symlink_to(tmp_path / "y.pt")
        (tmp_path / "y.pt").symlink_to(path)
    refused(path, *words)


def test_arena_cli_reports_a_bad_checkpoint_and_exits_non_zero(saved, tmp_path, capsys):
    bad = rewrite(saved[1], tmp_path, lambda p: p.update(model_config={"arch": "mlp", "hidden": [True]}))
    with pytest.raises(SystemExit) as info:
        arena_main(["--agents", f"{bad},rule", "--hands", "2", "--quiet"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert f"error: --agents: {bad}: model_config['hidden']" in err and "Traceback" not in err


# --------------------------------------------------------------------------- mj_obs_v2 networks


def test_v2_networks_round_trip_and_play_legal_moves(tmp_path):
    from agents import make_agent
    from agents.arena import play_duplicate
    from agents.arena_report import summarize
    from mj_env.features import FEATURES_NAME, N_PLANES_V2

    o = torch.randint(0, 4, (6, N_PLANES_V2, 34), dtype=torch.uint8)
    for model in (PolicyValueNet(hidden=(16, 8), obs=FEATURES_NAME),
                  TileNet(channels=8, blocks=1, head=16, obs=FEATURES_NAME)):
        path = save_checkpoint(tmp_path / "v2.pt", model, rules="quemen")
        loaded, meta = load_checkpoint(path)
        assert meta["obs_name"] == FEATURES_NAME and meta["obs_version"] == 2
        assert meta["model_config"]["obs"] == FEATURES_NAME
        for a, b in zip(model(o), loaded(o)):
            assert torch.equal(a, b)
        agent = make_agent(str(path), rules="quemen")  # computes the v2 planes from the env's v1 planes
        rule = make_agent("rule", rules="quemen")
        summary = summarize(play_duplicate([agent, rule], 2, seed=0, rules="quemen"))  # the engine checks legality
        assert summary["agents"][0]["hands"] > 0


def test_a_v1_checkpoint_keeps_loading_with_v1_config(saved):
    _, meta = load_checkpoint(saved[1])
    assert "obs" not in meta["model_config"] and meta["obs_name"] == OBS_NAME
    from agents.networks import obs_layout
    from mj_env.features import FEATURES_NAME
    # the layout of a config (a checkpoint's model_config) as of a network
    assert obs_layout(meta["model_config"]) == obs_layout(saved[0]) == OBS_NAME
    assert obs_layout({"arch": "tiles", "obs": FEATURES_NAME}) == FEATURES_NAME


@pytest.mark.parametrize("edit, words", [
    # v1 weights said to be v2: the layout and the config disagree
    (lambda p: p.update(obs_name="mj_obs_v2", obs_version=2, obs_shape=[18, 34]),
     ["mj_obs_v2", "model_config takes mj_obs_v1"]),
    (lambda p: p.update(obs_name="mj_obs_v2", obs_version=2), ["mj_obs_v2", "[14, 34]", "[18, 34]"]),
    (lambda p: p["model_config"].update(obs="mj_obs_v9"), ["mj_obs_v9"]),
])
def test_layout_mismatch_is_a_checkpoint_error(saved, tmp_path, edit, words):
    refused(rewrite(saved[1], tmp_path, edit), *words)


@pytest.mark.parametrize("rules", ["bogus", 5, ["beijing"]])
def test_meta_naming_no_preset_is_refused(saved, tmp_path, rules):
    refused(rewrite(saved[1], tmp_path, lambda p: p["meta"].update(rules=rules)), "'meta' names rule set")


def test_meta_with_a_key_that_is_not_a_str_is_refused(saved, tmp_path):
    refused(rewrite(saved[1], tmp_path, lambda p: p["meta"].update({3: "x"})), "'meta' has a key that is not a str")


def test_a_player_trained_for_other_rules_warns_where_it_plays(saved):
    from agents.networks import NetworkAgent
    with pytest.warns(UserWarning, match="trained for rule set 'beijing' and plays under 'hebei'"):
        agent = NetworkAgent.from_checkpoint(saved[1], rules="hebei")
    assert agent.rules == "hebei"
    assert NetworkAgent.from_checkpoint(saved[1]).rules == "beijing"  # its own rules, no warning


def test_weights_are_checked_before_any_real_layer_is_built(saved, tmp_path, monkeypatch):
    """A config without its weights is refused while the network exists only on the meta device (no
    memory, no initialisation): a crafted file naming the largest config costs nothing to refuse."""
    import agents.checkpoints as C

    devices = []
    real = C.build_network

    def spy(config):
        devices.append(torch.empty(0).device.type)  # the default device while the network is built
        return real(config)

    monkeypatch.setattr(C, "build_network", spy)
    path = rewrite(saved[1], tmp_path, lambda p: p.__setitem__("model_config", {"arch": "mlp", "hidden": [4096] * 8}))
    refused(path, "'trunk.0.weight'")
    assert devices == ["meta"]
    load_checkpoint(saved[1])  # a good file: the skeleton, which then gets memory and the file's weights
    assert devices == ["meta", "meta"]


def test_a_damaged_byte_past_the_first_megabyte_of_a_member_is_refused(tmp_path):
    """The whole of every member is checked against its CRC-32, not its first read (a megabyte): reading
    once instead of to the end went unnoticed by a mutation test, the test files' members being small."""
    import zipfile
    path = save_checkpoint(tmp_path / "big.pt", PolicyValueNet(hidden=(512,)))
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = max(z.infolist(), key=lambda i: i.file_size)  # trunk.0.weight, 1.2 MB
    assert info.file_size > 1 << 20
    h = info.header_offset
    start = h + 30 + int.from_bytes(raw[h + 26:h + 28], "little") + int.from_bytes(raw[h + 28:h + 30], "little")
    raw[start + info.file_size - 2] ^= 0xFF
    bad = tmp_path / "flipped.pt"
    bad.write_bytes(bytes(raw))
    refused(bad, "CRC-32", info.filename)


def test_a_loaded_network_is_in_eval_mode(saved):
    model, _ = load_checkpoint(saved[1])
    assert not model.training and not any(m.training for m in model.modules())


@pytest.mark.parametrize("config, words", [
    ({"arch": "mlp", "hidden": [8], "obs": "mj_obs_v9"}, "model_config\\['obs'\\] must be one of"),
    ({"arch": "mlp", "hidden": [8] * 9}, "model_config\\['hidden'\\] must be a list of at most 8"),
    ({"arch": "mlp", "hidden": [0]}, "must hold ints in \\[1, 4096\\], not \\[0\\]"),
    ({"arch": "tiles", "blocks": -1}, "must hold ints in \\[0, 32\\], not -1"),
])
def test_build_network_refuses_a_config_out_of_range(config, words):
    """build_network (train.py's --arch and sizes, a checkpoint's model_config) checks the config itself:
    a layout it does not know, a hidden layer too many, a size past either end."""
    from agents.networks import build_network
    with pytest.raises(ValueError, match=words):
        build_network(config)


def test_build_network_takes_the_ends_of_each_range_and_mlp_by_default():
    from agents.networks import build_network
    assert isinstance(build_network({"hidden": [8]}), PolicyValueNet)  # no "arch": an mlp
    assert build_network({"arch": "mlp", "hidden": [1] * 8}).config["hidden"] == [1] * 8
    assert build_network({"arch": "tiles", "channels": 1, "blocks": 0, "head": 1}).config["blocks"] == 0


def test_save_refuses_meta_that_torch_load_would_refuse_and_writes_nothing(tmp_path):
    """meta is plain data only: a subclass of str or int (an enum member) or a dict with a key that is not a
    str is refused at save time, not written into a file that torch.load(weights_only=True) then refuses."""
    import enum

    class Rules(str, enum.Enum):
        BEIJING = "beijing"

    for meta in ({"kind": Rules.BEIJING}, {"args": {1: 2}}):
        with pytest.raises(TypeError, match="a checkpoint holds only str-keyed dicts"):
            save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), **meta)
    assert list(tmp_path.iterdir()) == []


def test_save_refuses_when_its_temporary_file_is_a_directory(tmp_path):
    (tmp_path / "m.pt.tmp").mkdir()
    with pytest.raises(CheckpointError, match="m.pt.tmp: is a directory"):
        save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.pt.tmp"]


def test_a_stored_member_claiming_more_bytes_than_it_stores_is_refused(saved, tmp_path):
    """A stored member unpacks to exactly the bytes it stores: one whose size says more (while the sizes still
    add up to less than the file, and its CRC-32 matches what zipfile reads) is refused like a compressed one.
    Dropping that half of the check went unnoticed by a mutation test."""
    import struct
    import zipfile
    raw = bytearray(saved[1].read_bytes())
    with zipfile.ZipFile(saved[1]) as z:
        info = next(i for i in z.infolist() if i.filename.endswith("/data/0"))
    name = info.filename.encode()
    central = raw.rfind(name) - 46  # its entry in the central directory, which comes after every member
    assert raw[central:central + 4] == b"PK\x01\x02"
    claimed = info.file_size + 4
    struct.pack_into("<L", raw, central + 24, claimed)                 # the central directory's size
    struct.pack_into("<L", raw, info.header_offset + 22, claimed)      # and the local header's
    bad = tmp_path / "claims_more.pt"
    bad.write_bytes(bytes(raw))
    with zipfile.ZipFile(bad) as z:
        assert z.getinfo(info.filename).file_size == claimed and sum(i.file_size for i in z.infolist()) < len(raw)
    refused(bad, info.filename, "is compressed")


# --------------------------------------------------------------------------- loading draws nothing from torch's generator


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


def test_init_from_such_a_checkpoint_warns_once(tmp_path, monkeypatch, capsys):
    """Once, as one line on standard error naming the file, as the arena's command line says it
    (``agents.arena.tell_warning``; tests/test_warning_locations.py)."""
    monkeypatch.chdir(tmp_path)
    path = _with_keys(tmp_path, normalizer=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train.main(["--init-from", str(path), "--exp-name", "ft", "--total-steps", "0", "--final-eval-hands", "0",
                    "--eval-every", "0", "--threads", "1", "--no-progress", "--no-eval-pretrained"])
    told = [line for line in capsys.readouterr().err.splitlines() if "normalizer" in line]
    assert [w for w in caught if issubclass(w.category, CheckpointWarning)] == []
    assert told == [(f"warning: {path}: its key 'normalizer' is not of format mj_agents.policy/1 and left out "
                    "(written by a later version of this package, or by another tool?)")]


def test_a_checkpoint_with_thousands_of_keys_beside_its_formats_warns_in_one_short_line(tmp_path):
    """The CheckpointWarning named every such key: a file with 3,000 of them gave a warning of 26,000 characters.
    It names the first eight (in the order it sorts them) and counts the rest; a few are all named, as before."""
    from agents.networks import CheckpointWarning, load_checkpoint
    from agents.pretrained import pretrained_path

    payload = torch.load(pretrained_path("beijing"), weights_only=True)
    torch.save({**payload, **{f"k{i:04d}": i for i in range(3000)}}, tmp_path / "many.pt")
    with pytest.warns(CheckpointWarning) as caught:
        load_checkpoint(tmp_path / "many.pt")
    message = str(caught[0].message)
    assert len(caught) == 1 and len(message) < 400 and caught[0].filename == __file__
    assert "its keys 'k0000', 'k0001', 'k0002', 'k0003', 'k0004', 'k0005', 'k0006', 'k0007' and 2,992 more are " in message
    torch.save({**payload, **{f"k{i}": i for i in range(8)}}, tmp_path / "eight.pt")
    with pytest.warns(CheckpointWarning, match="its keys 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7' are not of"):
        load_checkpoint(tmp_path / "eight.pt")


# --------------------------------------------------------------------------- meta keys that load_checkpoint fills


@pytest.fixture
def net():
    torch = pytest.importorskip("torch")  # the train extra: without torch these tests skip
    from agents.networks import PolicyValueNet

    torch.manual_seed(0)
    return PolicyValueNet(hidden=(8,))


@pytest.mark.parametrize("key", ["obs_name", "obs_version", "model_config"])
def test_save_checkpoint_refuses_the_meta_keys_load_fills_from_the_file(key, net, tmp_path):
    """``save_checkpoint(path, model, obs_name="mine")`` wrote the file and ``load_checkpoint`` gave back the
    file's obs_name in meta: the caller's value was lost without a word. Refused now, naming the key, and
    nothing is written."""
    from agents.networks import CheckpointError, save_checkpoint

    with pytest.raises(CheckpointError, match=f"meta key {key} is the checkpoint's own") as e:
        save_checkpoint(tmp_path / "m.pt", net, rules="beijing", **{key: "mine"})
    assert str(tmp_path / "m.pt") in str(e.value) and "not saved" in str(e.value)
    assert list(tmp_path.iterdir()) == []


def test_save_checkpoint_keeps_meta_keys_load_does_not_fill(net, tmp_path):
    """Only the three keys ``load_checkpoint`` writes into meta are refused: other names of the format's
    (``format``, ``obs_shape``, ``n_actions``) are the writer's own in meta and load as saved."""
    from agents.networks import load_checkpoint, save_checkpoint

    mine = {"format": "mine", "obs_shape": [1], "n_actions": 3, "update": 7}
    _model, meta = load_checkpoint(save_checkpoint(tmp_path / "m.pt", net, **mine))
    assert {k: meta[k] for k in mine} == mine


def test_a_file_with_such_meta_keys_loads_with_the_formats_values(net, tmp_path):
    """A file written otherwise (torch.save of a payload) with meta obs_name etc. loads as before: meta gives
    the format's values under those names."""
    import torch

    from agents.networks import load_checkpoint, save_checkpoint

    path = save_checkpoint(tmp_path / "m.pt", net, rules="beijing")
    payload = torch.load(path, weights_only=True)
    payload["meta"].update(obs_name="mine", obs_version=99, model_config={"x": 1})
    torch.save(payload, path)
    _model, meta = load_checkpoint(path)
    assert (meta["obs_name"], meta["obs_version"], meta["model_config"]) == (
        payload["obs_name"], payload["obs_version"], payload["model_config"])


# --------------------------------------------------------------------------- a rule set given as an object


def test_a_checkpoints_rule_set_given_as_an_object_is_stored_as_a_record_writes_it(tmp_path):
    """save_checkpoint(rules=...) stored a RuleSet as a record writes it (a preset as its name, else only the fields
    changed) but an object form raw: {"name": "beijing", "chi": True} (beijing itself) stayed a dict, so that
    train.py --init-from said "was trained under beijing; this run trains it under beijing", and the fields that
    do not differ from the preset were kept beside those that do."""
    pytest.importorskip("torch")
    from agents.networks import PolicyValueNet, load_checkpoint, save_checkpoint

    net = PolicyValueNet(hidden=(8,))
    same = save_checkpoint(tmp_path / "same.pt", net, rules={"name": "beijing", "chi": True})
    assert load_checkpoint(same)[1]["rules"] == "beijing"
    own = save_checkpoint(tmp_path / "own.pt", net, rules={"name": "beijing", "chi": False, "hubao": True})
    assert load_checkpoint(own)[1]["rules"] == {"name": "beijing", "chi": False}


def test_train_init_from_a_checkpoint_of_its_own_rule_set_given_as_an_object_says_nothing(tmp_path, monkeypatch,
                                                                                        capsys):
    """A checkpoint whose meta holds the object form of the very rule set of the run (a file saved before the
    fix above, or by other code): train.py's note compared the stored value with --rules as raw values."""
    torch = pytest.importorskip("torch")
    import train
    from agents.networks import PolicyValueNet, save_checkpoint

    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules="beijing")
    payload = torch.load(path, weights_only=True)
    payload["meta"]["rules"] = {"name": "beijing", "chi": True}  # as 9ef4348..147a435 stored it
    torch.save(payload, path)
    monkeypatch.chdir(tmp_path)
    train.main(["--init-from", str(path), "--exp-name", "ft", "--total-steps", "512", "--num-envs", "16",
                "--num-steps", "32", "--eval-every", "0", "--final-eval-hands", "0", "--threads", "1",
                "--no-progress", "--no-eval-pretrained"])
    assert "was trained under" not in capsys.readouterr().out
