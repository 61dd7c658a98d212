"""Gaps found by a second mutation round on agents/checkpoints.py (seed 5501: the checks between a checkpoint
file from anywhere and a network that plays, docs/INTERFACES.md) and agents/training_checks.py (seed 5502:
train.py's argument checks): each test here failed under the mutant (or without the fix) named in its
docstring and passes on the code. The expectations are the modules' docstrings and docs/INTERFACES.md,
written down before reading the code."""
from __future__ import annotations

import json
import pickle
import re
import warnings
import zipfile

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import test_checkpoints
import torch
from test_checkpoint_module import _python

from agents.checkpoints import CheckpointError, load_checkpoint

saved = test_checkpoints.saved  # the fixture: a small checkpoint saved in tmp_path


def _with_pickle(path, tmp_path, pickled: bytes | None, byteorder: bytes | None = None):
    """A copy of the checkpoint at ``path`` whose ``data.pkl`` is ``pickled`` and whose ``byteorder``
    member is ``byteorder`` (None: as they were), every member stored with its CRC-32."""
    out = tmp_path / "crafted.pt"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if pickled is not None and info.filename.endswith("/data.pkl"):
                data = pickled
            if byteorder is not None and info.filename.endswith("/byteorder"):
                data = byteorder
            dst.writestr(info.filename, data)
    return out


# --------------------------------------------------------------------------- agents/checkpoints.py


def test_a_two_line_weights_only_refusal_is_told_by_its_reason(saved, tmp_path):
    """A file whose pickle names a global that torch refuses with a reason of its own line
    ("``torch.distributed.tensor`` must be imported to load DTensors") followed by torch's advice to load with
    ``weights_only=False``: the error names the reason, never the advice to run the file's code. Mutant: line
    210 ``len(lines) > 1`` made ``> 2`` (a two-line refusal was told by its last line, the advice). In a fresh
    interpreter: once a test has imported torch.distributed.tensor, torch loads that global."""
    crafted = _with_pickle(saved[1], tmp_path, b"\x80\x02ctorch.distributed.tensor\nDTensor\n.")
    code = ("import json, pickle, sys, torch\n"
            "from agents.checkpoints import CheckpointError, load_checkpoint\n"
            "try:\n    torch.load(sys.argv[1], weights_only=True)\n"
            "except pickle.UnpicklingError as e:\n    raw = str(e)\n"
            "try:\n    load_checkpoint(sys.argv[1])\n"
            "except CheckpointError as e:\n    print(json.dumps([raw, str(e)]))\n")
    done = _python(code, str(crafted))
    assert done.returncode == 0, done.stderr
    raw, said = json.loads(done.stdout)
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    if len(lines) != 2:
        pytest.skip(f"this torch refuses that global in {len(lines)} lines, not a reason and the advice")
    assert said.startswith(f"{crafted}: not a checkpoint that loads with torch.load(weights_only=True)")
    assert lines[0] in said and lines[1] not in said and "False" not in said, said


def test_a_weights_only_refusal_of_one_line_is_told_whole(saved, monkeypatch):
    """torch releases before 2.6 refused a global in one line ("Weights only load failed. ...
    WeightsUnpickler error: Unsupported global: ..."), with no line of advice after it: that line is the
    reason told, not an IndexError out of the handler that tells it. Mutant: line 210 ``len(lines) > 1``
    made ``>= 1``."""
    said = "Weights only load failed. WeightsUnpickler error: Unsupported global: GLOBAL os.system"

    def refuse(*args, **kwargs):
        raise pickle.UnpicklingError(said)

    monkeypatch.setattr(torch, "load", refuse)
    with pytest.raises(CheckpointError, match=f"{re.escape(str(saved[1]))}: not a checkpoint that loads .*"
                                              rf"\(UnpicklingError: {re.escape(said)}\)$"):
        load_checkpoint(saved[1])


def test_a_refusal_of_several_lines_is_told_whole_and_a_long_one_cut(saved, tmp_path):
    """FIX. torch.load's reason for a file it refuses quotes the file's own bytes (``Unknown endianness
    type: <the byteorder member>``): a member of two lines was told by its last line only ("tle"), and one
    of 20,000 characters whole, an error of any length. Now every line is told, joined, and the reason cut
    at 500 characters. Mutant: line 210 ``and`` made ``or`` (a refusal of several lines told by its line
    before last)."""
    two = _with_pickle(saved[1], tmp_path, None, byteorder=b"lit\ntle")
    with pytest.raises(CheckpointError, match=r"\(ValueError: Unknown endianness type: lit tle\)$"):
        load_checkpoint(two)
    long = _with_pickle(saved[1], tmp_path, None, byteorder=b"A" * 20_000)
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(long)
    said = str(info.value)
    assert said.startswith(f"{long}: not a checkpoint that loads") and said.endswith("AAA...)")
    assert len(said) < 1000


@pytest.mark.parametrize("pickled", [b"\x80\x02c" + b"m" * 5000 + b"\nX\n.", b"\x80\x02c" + b"m" * 5000],
                         ids=["long name", "a name to the end of the file"])
def test_a_global_with_a_name_thousands_of_characters_long_is_refused_before_torch_reads_it(saved, tmp_path,
                                                                                            pickled):
    """FIX. A crafted pickle whose GLOBAL names a module thousands of characters long (or one running to the
    end of the file): torch.load's message for a refused global runs a regular expression whose time grows
    as the square of the name (5,000 characters took a second here, 20,000 took 18 s; a megabyte's name
    would hold the loader for hours) and quotes the name twice. The file is now refused before torch.load
    reads it, in one short line."""
    crafted = _with_pickle(saved[1], tmp_path, pickled)
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(crafted)
    said = str(info.value)
    assert said.startswith(f"{crafted}: its pickle ") and len(said) < 500, said[:300]


def test_a_zip_directory_zipfile_cannot_read_is_refused_before_torch_reads_the_file(saved, tmp_path,
                                                                                     monkeypatch):
    """The archive is checked before torch.load reads it (module docstring): one whose central directory
    zipfile cannot read (a damaged signature: it still looks like a zip archive by its end) is refused as a
    damaged archive, and torch.load is never called, so members that were never checked for compression,
    overlap or checksums are not unpacked. Mutant: line 241 the damaged archive's raise deleted (the file
    went on to torch.load unchecked)."""
    data = saved[1].read_bytes()
    at = data.index(b"PK\x01\x02")  # the first entry of the central directory
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(data[:at] + b"PK\x01\x09" + data[at + 4:])
    assert zipfile.is_zipfile(damaged)

    def reached(*args, **kwargs):
        raise AssertionError("torch.load was called")

    monkeypatch.setattr(torch, "load", reached)
    said = f"^{re.escape(str(damaged))}: a damaged archive \\(BadZipFile: "
    with pytest.raises(CheckpointError, match=said):
        load_checkpoint(damaged)


def test_torchs_own_warnings_about_a_file_are_not_shown(saved, tmp_path):
    """load_checkpoint's only warning is a CheckpointWarning (keys beside the format); what torch.load
    warns of a file as it reads it ("Detected pickle protocol 4 in the checkpoint ...") is not shown: the
    file is refused, or loads, on its own terms. Mutant: _read's ``warnings.filterwarnings("ignore", ...)``
    deleted (torch's UserWarning reached the user beside the CheckpointError)."""
    crafted = _with_pickle(saved[1], tmp_path, b"\x80\x04K\x01.")  # protocol 4: the int 1
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(CheckpointError, match="holds a int, not a checkpoint dict"):
            load_checkpoint(crafted)
    assert [str(w.message) for w in seen] == []


# --------------------------------------------------------------------------- agents/training_checks.py


@pytest.mark.parametrize("byte", [chr(0xDC80), chr(0xDCFF)], ids=["0x80", "0xff"])
def test_an_exp_name_with_an_undecodable_byte_at_either_end_is_told_as_an_encoding_problem(byte):
    """An --exp-name holding a byte the locale could not decode (0x80 to 0xff, as surrogateescape gives
    them) is refused naming the encoding of file names and what to do (check_args), whichever byte it is:
    0x80 (the euro sign in cp1252) fell through to the plain-name check, which told it as a control
    character. Mutant: line 109 ``"\\udc80" <= c`` made ``<``."""
    import train
    from agents.training_checks import check_args

    said = check_args(train.Args(exp_name=f"run{byte}"))
    assert said is not None and said.startswith("--exp-name 'run"), said
    assert "is not text in the encoding of file names" in said, said


def test_threads_is_bounded_by_one_where_the_number_of_cpus_is_unknown(monkeypatch):
    """--threads takes 1 to the number of CPUs, and at least 1 where ``os.cpu_count()`` cannot tell (None,
    as it may on some platforms): --threads 1 is then still taken. Mutant: line 130 ``os.cpu_count() or 1``
    made ``or 0`` (every --threads refused where the count is unknown)."""
    import os

    import train
    from agents.training_checks import check_args

    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert check_args(train.Args(threads=1)) is None
    said = check_args(train.Args(threads=2))
    assert said is not None and said.startswith("--threads must be in [1, 1], not 2"), said
