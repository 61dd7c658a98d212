"""Gaps found by mutating agents/curve.py (the learning-curve picture and its data), agents/networks.py (the policy
networks) and agents/training_run.py (train.py's run plumbing): each test here failed under the mutant named in its
docstring and passes on the code. The expectations are the modules' documented behaviour (their docstrings and
--help, docs/training.md), written down before reading the code that implements them."""
from __future__ import annotations

import math

import numpy as np
import pytest
from test_curve import write

from agents import curve
from agents.plot_text import drawable
from mj_env.tiles import N_KINDS

# --------------------------------------------------------------------------- agents/curve.py


def test_a_line_too_long_is_refused_naming_its_line_number(tmp_path):
    """The refusal of an over-long line names the file's line, counted from 1 as the other refusals count it
    (mutants: ``enumerate(..., 0)`` / ``enumerate(..., 2)``, line 1 or 3 named)."""
    long_row = "1,100,60,5," + "9" * (curve.MAX_LINE + 1) + "\n"
    with pytest.raises(curve.CurveError, match=r"progress\.csv, line 2: longer than 1,048,576 bytes"):
        curve.read_curves(write(tmp_path, long_row))


def test_the_longest_line_read_is_a_mebibyte():
    """MAX_LINE is documented as the longest line read (train.py's are under a kilobyte): 1 MiB, which the refusal
    message above quotes (mutant: ``1 << 21``)."""
    assert curve.MAX_LINE == 1 << 20


def test_a_file_without_evaluation_columns_says_so(tmp_path):
    """A progress.csv with a seconds column but no vs_<opponent>_points one is named for what it lacks, not as a run
    not evaluated yet (mutant: the ``if not opponents`` check skipped, 'no row has an evaluation yet' said)."""
    d = tmp_path / "run"
    d.mkdir()
    (d / "progress.csv").write_text("update,seconds\n1,60\n", encoding="utf-8")
    with pytest.raises(curve.CurveError, match=r"no evaluation columns \(vs_<opponent>_points\)"):
        curve.read_curves(d / "progress.csv")


def test_a_row_longer_than_its_header_is_refused(tmp_path):
    """The module docstring: a row longer than its header is refused, naming the file and line (mutant: the check
    of cells past the header's skipped, the row read with its columns out of line)."""
    body = "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n2,200,120,5,1.1,0.9,1.3,0.1,-0.1,0.3,7\n"
    with pytest.raises(curve.CurveError,
                       match=r"progress\.csv, line 3: 11 cells where the header has 10 \(a row with cells past"):
        curve.read_curves(write(tmp_path, body))


def test_an_interval_with_its_low_end_alone_missing_is_refused(tmp_path):
    """No interval means both interval cells empty; only the high end given is no train.py file (mutant:
    ``no_interval = not cells[1]``, the high end dropped and the point drawn without a band)."""
    with pytest.raises(curve.CurveError, match="line 2: a number was expected in the seconds and random columns"):
        curve.read_curves(write(tmp_path, "1,100,60,5,1.0,,1.2,-0.5,-0.7,-0.3\n"))


def test_the_title_is_drawn_with_escapes_for_what_no_font_has(tmp_path, monkeypatch):
    """--title, as the run names, has each character no font at hand has as a backslash escape, not a box (mutant:
    the title passed on as given)."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    drawn = []
    monkeypatch.setattr(curve, "_draw",
                        lambda runs, labels, opponents, out, title: drawn.append((labels, title)))
    p = write(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n")
    curve.plot([p], str(tmp_path / "c.png"), labels=["a\ue000"], title="seed \ue000")
    (labels, title), = drawn
    assert title == drawable("seed \ue000") and "\\ue000" in title and "\ue000" not in title
    assert labels == [drawable("a\ue000")]


def test_help_describes_the_command_with_the_docstrings_first_line(capsys):
    """``python -m agents.curve --help`` says what it draws: the module docstring's first line (mutant: its second
    line, which is empty)."""
    if not curve.__doc__:
        pytest.skip("python -OO: no docstring to describe the command with")
    with pytest.raises(SystemExit) as e:
        curve.main(["--help"])
    assert e.value.code == 0
    assert curve.__doc__.split("\n")[0] in capsys.readouterr().out.replace("\n", " ")


# --------------------------------------------------------------------------- agents/networks.py


def test_the_scalar_columns_are_divided_by_the_ranges_the_shipped_players_were_trained_on():
    """The v1 features divide each column of the scalar plane by its range (module docstring); the shipped
    pretrained players and every saved mlp/tiles checkpoint read the scalars so scaled, so a changed divisor
    silently changes what they see (mutants: the 互包 count's 3 made 4, the flowers' 8 made 7, ...)."""
    torch = pytest.importorskip("torch")
    from agents import networks as nw
    from mj_env import observation as ob

    ranges = [(ob.COL_LIVE_LEFT, 70), (ob.COL_REPLACEMENTS_LEFT, 20), (ob.COL_DEALER, 3), (ob.COL_PHASE, 2),
              (ob.COL_ASKER, 3), (ob.COL_SZ_ROUNDS, 4), (ob.COL_HUBAO_COUNT, 3), (ob.COL_CLAIM_CATEGORY, 3),
              (ob.COL_CONCEALED_KONGS, 4), (ob.COL_FLOWERS, 8), (ob.COL_CLAIMED_BY_SELF, 4),
              (ob.COL_CLAIMED_FROM_SELF, 4)]  # 1 for the 0/1 flags
    expected = torch.ones(ob.N_SCALARS)
    for col, r in ranges:
        expected[col] = r
    planes = torch.zeros((1, ob.N_PLANES, N_KINDS), dtype=torch.uint8)
    planes[0, ob.P_SCALARS] = torch.arange(1, ob.N_SCALARS + 1, dtype=torch.uint8)
    got = nw.features(planes)[0, -ob.N_SCALARS:]
    assert torch.allclose(got, torch.arange(1, ob.N_SCALARS + 1) / expected)
    _, glob = nw.tile_features(planes)
    assert torch.allclose(glob[0, :ob.N_SCALARS], torch.arange(1, ob.N_SCALARS + 1) / expected)


def test_the_discard_of_least_need_counts_a_need_of_one():
    """``mj_obs_v2``'s 'a discard of least need' marks the held kinds where P_DISCARD_NEED is at its minimum over
    held kinds (any value from 1; 0 is 'not held'), so a discard leaving a need of 1 is the one marked (mutant:
    ``held = need > 1``, kinds of need 1 taken for not held and the need-3 discard marked)."""
    torch = pytest.importorskip("torch")
    from agents import networks as nw
    from mj_env import features as mjf

    planes = torch.zeros((1, mjf.N_PLANES_V2, N_KINDS), dtype=torch.uint8)
    planes[0, mjf.P_DISCARD_NEED, 0] = 1
    planes[0, mjf.P_DISCARD_NEED, 5] = 3
    planes[0, mjf.P_DISCARD_NEED, 9] = 1
    need, least = nw._v2_parts(planes.to(torch.float32))[:2]
    assert least[0].nonzero().flatten().tolist() == [0, 9]
    assert torch.allclose(need[0, [0, 5, 9]], torch.tensor([1 / 8, 3 / 8, 1 / 8]))


def test_the_masked_distribution_gives_illegal_actions_nothing_and_refuses_non_finite_logits():
    """``MaskedCategorical`` (train.py's distribution): illegal actions get probability 0 and no entropy term, a
    legal action's log-probability is its softmax over the legal ones; logits holding nan or inf are a
    ``NonFiniteLogits`` naming the rows (mutants: that check forced off or on, its raise removed)."""
    torch = pytest.importorskip("torch")
    from agents import networks as nw
    from mj_env.actions import N_ACTIONS

    logits = torch.zeros((2, N_ACTIONS))
    logits[:, 1] = math.log(3.0)
    mask = torch.zeros((2, N_ACTIONS), dtype=torch.bool)
    mask[:, :2] = True
    dist = nw.MaskedCategorical(logits, mask)
    assert torch.allclose(dist.probs[:, :2], torch.tensor([[0.25, 0.75]] * 2))
    assert float(dist.probs[:, 2:].sum()) == 0.0
    h = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert torch.allclose(dist.entropy(), torch.tensor([h, h]))
    assert torch.allclose(dist.log_prob(torch.tensor([1, 0])), torch.tensor([math.log(0.75), math.log(0.25)]))
    bad = logits.clone()
    bad[1, 5] = math.nan
    with pytest.raises(nw.NonFiniteLogits, match=r"\(1 of 2 rows\)"):
        nw.MaskedCategorical(bad, mask)
    bad[1, 5] = math.inf
    with pytest.raises(nw.NonFiniteLogits):
        nw.MaskedCategorical(bad, mask)


def _tile_net_outputs(net, kind: int | None):
    """The tile network's logits for two positions alike but for the drawn tile (``kind``; None: none)."""
    import torch

    from mj_env import observation as ob

    planes = torch.zeros((2, ob.N_PLANES, N_KINDS), dtype=torch.uint8)
    planes[:, ob.P_HAND, 3] = 2
    planes[:, ob.P_SCALARS, ob.COL_LIVE_LEFT] = 40
    if kind is not None:
        planes[1, ob.P_DRAWN, kind] = 1
    with torch.no_grad():
        return net(planes)[0]


def test_the_tile_networks_first_layer_sees_three_kinds_of_one_suit_and_never_across_suits():
    """TileNet (module docstring): convolutions of kernel 3 along each suit, never across a suit boundary. With no
    residual block the discard logit of a kind depends on its own tile and its neighbours in its suit, and the chi
    logit of a run on its three tiles and their neighbours in the suit; an honor's on itself alone (mutants: the
    suits cut at 28, the batch and channels swapped in the reshape, ``wild`` summed without keepdim, which only
    breaks a batch of more than one row)."""
    torch = pytest.importorskip("torch")
    from agents.networks import TileNet
    from mj_env.actions import CHI, DISCARD, N_CHI

    torch.manual_seed(0)
    net = TileNet(channels=8, blocks=0, head=16)
    for (kind, discards, chis) in [(9, {9, 10}, {7, 8}), (17, {16, 17}, {12, 13}), (26, {25, 26}, {19, 20}),
                                   (30, {30}, set())]:
        base, got = _tile_net_outputs(net, None), _tile_net_outputs(net, kind)
        assert torch.equal(base[0], got[0])  # (the row without the tile: the batch rows are apart)
        # the pooled summary sees every tile: the per-tile logits alone are local
        discard, chi = slice(DISCARD, DISCARD + N_KINDS), slice(CHI, CHI + N_CHI)
        moved = {int(k) for k in (base[1, discard] != got[1, discard]).nonzero().flatten()}
        assert moved == discards, (kind, moved)
        moved = {int(k) for k in (base[1, chi] != got[1, chi]).nonzero().flatten()}
        assert moved == chis, (kind, moved)


def test_the_residual_blocks_run_and_the_default_sizes_stand():
    """A TileNet with its default residual blocks runs a batch, and the sizes a config leaves out take the documented
    defaults: train.py's --arch tiles gives channels and blocks only, so the pooled head's width is TileNet's
    default, 128 (mutants: a block's convolution padded across rows, the defaults moved by one)."""
    torch = pytest.importorskip("torch")
    from agents.networks import PolicyValueNet, TileNet, build_network
    from mj_env.actions import N_ACTIONS

    net = build_network({"arch": "tiles", "channels": 4})
    assert net.config == {"arch": "tiles", "channels": 4, "blocks": 2, "head": 128}
    assert net.pool.out_features == 128 and len(net.blocks) == 2
    logits, value = net(torch.zeros((3, 14, N_KINDS), dtype=torch.uint8))
    assert logits.shape == (3, N_ACTIONS) and value.shape == (3,)
    assert TileNet().config["channels"] == 32
    assert PolicyValueNet().config == {"arch": "mlp", "hidden": [256, 256]}


@pytest.mark.parametrize("config,ok", [
    ({"hidden": [1, 4096]}, True), ({"hidden": [0]}, False), ({"hidden": [4097]}, False),
    ({"arch": "tiles", "channels": 1, "blocks": 0, "head": 1}, True),
    ({"arch": "tiles", "channels": 512, "blocks": 32, "head": 4096}, True),
    ({"arch": "tiles", "channels": 0}, False), ({"arch": "tiles", "channels": 513}, False),
    ({"arch": "tiles", "blocks": -1}, False), ({"arch": "tiles", "blocks": 33}, False),
    ({"arch": "tiles", "head": 0}, False), ({"arch": "tiles", "head": 4097}, False),
    ({"obs": "mj_obs_v2"}, True), ({"obs": "mj_obs_v9"}, False), ({"obs": ["mj_obs_v2"]}, False),
])
def test_a_network_config_takes_its_sizes_ranges_ends_and_known_layouts(config, ok):
    """``check_config``: each size in its range, both ends included, and ``obs`` a layout name (a list is a
    ValueError too, not a TypeError from the lookup) (mutants: a range's end moved or made exclusive, either half
    of the ``obs`` check dropped)."""
    pytest.importorskip("torch")
    from agents.networks import check_config

    if ok:
        assert check_config(config) is config
    else:
        with pytest.raises(ValueError, match=r"model_config\["):
            check_config(config)


def _agent_obs(n: int, planes_shape=(14, N_KINDS)):
    mask = np.zeros((n, 127), dtype=bool)
    mask[:, :N_KINDS] = True
    return {"observation": np.zeros((n, *planes_shape), dtype=np.uint8), "action_mask": mask}


def test_a_network_agent_samples_by_default_and_checks_its_observations():
    """NetworkAgent samples from the masked distribution unless ``greedy``; 0 rows give an empty array; planes of a
    shape no layout has are a ValueError naming them (mutants: greedy by default, ``np.zeros(1)`` for 0 rows, the
    shape check's ``or`` made ``and`` or its raise removed)."""
    pytest.importorskip("torch")
    from agents.networks import NetworkAgent, PolicyValueNet

    agent = NetworkAgent(PolicyValueNet(hidden=(8,)))
    assert agent.greedy is False
    rng = np.random.default_rng(0)
    assert len({int(agent.act(_agent_obs(1), rng)[0]) for _ in range(40)}) > 1
    assert agent.act(_agent_obs(0), rng).shape == (0,)
    with pytest.raises(ValueError, match=r"obs\['observation'\] is uint8 of shape \(2, 15, 34\); expected"):
        agent.act(_agent_obs(2, (15, N_KINDS)), rng)


def test_from_checkpoint_plays_under_the_checkpoints_rules_and_warns_of_others(tmp_path):
    """``NetworkAgent.from_checkpoint``: rules default to the checkpoint's own (beijing for one that names none); a
    rule set other than the one it was trained for is a RulesMismatchWarning, its own or none no warning (mutants:
    the mismatch test inverted or its guard dropped, the ``rules or trained_for or 'beijing'`` chain made ``and``)."""
    pytest.importorskip("torch")
    import warnings

    from agents.base import RulesMismatchWarning
    from agents.checkpoints import save_checkpoint
    from agents.networks import NetworkAgent, PolicyValueNet

    net = PolicyValueNet(hidden=(8,))
    quemen = save_checkpoint(tmp_path / "q.pt", net, rules="quemen")
    plain = save_checkpoint(tmp_path / "p.pt", net)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert NetworkAgent.from_checkpoint(quemen).rules == "quemen"
        assert NetworkAgent.from_checkpoint(quemen, rules="quemen").rules == "quemen"
        assert NetworkAgent.from_checkpoint(plain).rules == "beijing"
        assert NetworkAgent.from_checkpoint(plain, rules="quemen").rules == "quemen"
    with pytest.warns(RulesMismatchWarning, match="trained for rule set 'quemen' and plays under 'beijing'"):
        assert NetworkAgent.from_checkpoint(quemen, rules="beijing").rules == "beijing"


# --------------------------------------------------------------------------- agents/training_run.py


def test_a_run_directory_locked_by_a_running_train_py_is_in_use(tmp_path):
    """lock_run_dir takes the lock without waiting: a directory another lock holds is a BlockingIOError, and
    run_in_use names it for --overwrite; once let go it is free again (mutants: the BlockingIOError swallowed and
    a closed descriptor returned, run_in_use's message dropped)."""
    pytest.importorskip("fcntl")
    training_run = pytest.importorskip("agents.training_run")  # the train extra (torch's TensorBoard, tqdm)

    fd = training_run.lock_run_dir(tmp_path)
    assert fd is not None
    try:
        with pytest.raises(BlockingIOError):
            training_run.lock_run_dir(tmp_path)
        problem = training_run.run_in_use(tmp_path)
        assert problem and "belongs to a train.py that is still running" in problem
    finally:
        training_run.unlock_run_dir(fd)
    assert training_run.run_in_use(tmp_path) is None


def test_no_locks_or_no_fcntl_leave_the_run_unguarded(tmp_path, monkeypatch):
    """Where the file system has no locks (flock's OSError) or there is no fcntl (Windows), lock_run_dir gives None
    and the run is written unguarded (mutants: either ``return None`` removed)."""
    pytest.importorskip("fcntl")
    training_run = pytest.importorskip("agents.training_run")
    import errno
    import fcntl
    import sys

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    assert training_run.lock_run_dir(tmp_path) is None
    monkeypatch.setitem(sys.modules, "fcntl", None)  # import fcntl: ImportError
    assert training_run.lock_run_dir(tmp_path) is None


def test_written_whole_reports_the_first_interruption_that_came(monkeypatch):
    """written_whole returns the first Ctrl-C or SIGTERM that came (docstring): one just before the block took over
    (the write run again) and another while it wrote give the first (mutant: ``came = e``, the last)."""
    training_run = pytest.importorskip("agents.training_run")
    import contextlib

    calls = []

    @contextlib.contextmanager
    def held():
        calls.append(1)
        if len(calls) == 1:
            raise training_run.Terminated()  # came before the block took over: not held
        yield
        raise KeyboardInterrupt  # held while it wrote, raised once the block is over

    monkeypatch.setattr(training_run, "signals_held", held)
    writes = []
    value, came = training_run.written_whole(lambda: writes.append(1) or "done")
    assert value == "done" and writes == [1] and isinstance(came, training_run.Terminated)


def _run_args(name: str, overwrite: bool = False):
    import dataclasses

    @dataclasses.dataclass
    class Args:  # the fields of train.py's Args that RunLog reads
        exp_name: str = name
        overwrite: bool = False
        progress: bool = False

    return Args(overwrite=overwrite)


def test_a_run_log_refuses_to_overwrite_or_take_a_directory_another_run_holds(tmp_path, monkeypatch):
    """RunLog: a second run beside a first one in runs/ is made; --overwrite of a directory a running train.py holds
    is a RunDirTaken naming it, and the directory is left; a lock taken by another run between the mkdir and the lock
    is a RunDirTaken too (mutants: runs/ made with exist_ok=False, the held-directory check skipped or its raise
    removed, the lock's RunDirTaken removed)."""
    training_run = pytest.importorskip("agents.training_run")
    pytest.importorskip("fcntl")
    monkeypatch.chdir(tmp_path)
    first = training_run.RunLog(_run_args("a"), 1)
    try:
        second = training_run.RunLog(_run_args("b"), 1)
        second.release()
        (first.dir / "mine.txt").write_text("first run's", encoding="utf-8")
        with pytest.raises(training_run.RunDirTaken, match="belongs to a train.py that is still running"):
            training_run.RunLog(_run_args("a", overwrite=True), 1)
        assert (first.dir / "mine.txt").read_text(encoding="utf-8") == "first run's"
    finally:
        first.release()

    def taken(run):
        raise BlockingIOError

    monkeypatch.setattr(training_run, "lock_run_dir", taken)
    with pytest.raises(training_run.RunDirTaken, match="was taken by another run started at the same time"):
        training_run.RunLog(_run_args("c"), 1)
