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
