"""Faults found reviewing session 46's changes (2ad8b83..9e4351b) by someone who did not make them."""
from __future__ import annotations

import warnings
import zipfile

import pytest


def _torchscript_like(tmp_path):
    """A real checkpoint's archive, every member stored as torch.save stores them, with a ``constants.pkl``
    beside its ``data.pkl``: what torch.load takes for a TorchScript archive (``_is_torchscript_zip``)."""
    from agents.pretrained import pretrained_path

    path = tmp_path / "script.pt"
    with zipfile.ZipFile(pretrained_path("beijing")) as src, \
            zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as out:
        prefix = src.namelist()[0].split("/")[0]
        for info in src.infolist():
            out.writestr(info.filename, src.read(info.filename))
        out.writestr(f"{prefix}/constants.pkl", b"\x80\x02).")
    return path


def test_torch_loads_warning_that_names_its_caller_stays_hidden(tmp_path):
    """agents.checkpoints._read ignored every warning while torch.load ran; 53f5dd7 narrowed that to warnings
    of torch's modules. torch.load warns of a TorchScript archive with stacklevel=2, which attributes the
    warning to its caller, agents.checkpoints: the UserWarning ("'torch.load' received a zip file that looks
    like a TorchScript archive ...") was shown beside the CheckpointError. It is torch's note about the file,
    hidden as before 53f5dd7."""
    pytest.importorskip("torch")
    from agents.checkpoints import CheckpointError, load_checkpoint

    path = _torchscript_like(tmp_path)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(CheckpointError, match="not a checkpoint that loads with torch.load"):
            load_checkpoint(path)
    assert [str(w.message) for w in seen] == []


def test_under_warnings_as_errors_the_refusal_gives_torchs_reason(tmp_path):
    """With warnings made errors (``python -W error``), torch.load's warning about a TorchScript archive was
    raised in place of its refusal, and the CheckpointError quoted the warning ("UserWarning: 'torch.load'
    received a zip file ...") instead of why the file cannot load (RuntimeError: weights_only=True cannot read
    a TorchScript archive), as it did before 53f5dd7."""
    pytest.importorskip("torch")
    from agents.checkpoints import CheckpointError, load_checkpoint

    path = _torchscript_like(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CheckpointError) as got:
            load_checkpoint(path)
    assert "UserWarning" not in str(got.value)
    assert "RuntimeError" in str(got.value)


def test_connectedness_takes_its_products_a_few_rows_at_a_time(monkeypatch):
    """7686f3b made connectedness one product of every row with the (34, 34) weights. Past a few hundred rows
    the BLAS library runs such a product on its threads, and on a machine whose cores were busy (other
    processes, an env's workers) a call took 4-8 ms for 1,024 rows instead of 0.1 ms, more than the four
    gathers it replaced (0.3 ms): the rule agent's act at 1,024 and 4,096 rows was slower than before it. The
    products are now ``_PRODUCT_ROWS`` rows each, with the same values (the definition, for a row count on
    neither side of a block's end)."""
    import numpy as np

    from mj_env import baselines as B

    rows: list[int] = []

    class Weights(np.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            rows.append(len(inputs[0]))
            plain = [np.asarray(x) for x in inputs]
            if "out" in kwargs:
                kwargs["out"] = tuple(np.asarray(x) for x in kwargs["out"])
            return getattr(ufunc, method)(*plain, **kwargs)

    monkeypatch.setattr(B, "_NEIGHBOURS", B._NEIGHBOURS.view(Weights))
    nat = np.random.default_rng(0).integers(0, 5, (1000, 34)).astype(np.int8)
    got = np.asarray(B.connectedness(nat))
    assert rows and max(rows) <= 128
    c = nat.astype(np.float64)
    want = 2.0 * np.maximum(c - 1, 0)
    for i in range(34):
        if i < 27:
            for d, w in ((1, 1.0), (2, 0.5)):
                for j in (i - d, i + d):
                    if 0 <= j < 27 and j // 9 == i // 9:
                        want[:, i] += w * c[:, j]
    assert np.array_equal(got, want)
