"""Gaps found by mutation round BI on the lines session 46 changed (2ad8b83..4c6fbe7 in mj_env/, agents/ and
benchmarks/throughput.py), run against the tests of each module. Each test names the mutant (module, line,
change) it catches; the survivors that change nothing a caller can see are listed, with why, in the commit
message."""
from __future__ import annotations

import json
import struct
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _png_size(path: Path) -> tuple[int, int]:
    """(width, height) in pixels of a PNG, from its IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_the_stored_throughput_run_replots_at_the_size_of_its_stored_picture(tmp_path):
    """benchmarks/README.md: ``docs/throughput.png`` is the ``--plot`` of the run stored in
    ``benchmarks/results.json``. c83692d moved ``plot`` from pyplot to a ``Figure`` of its own, keeping the
    picture (10 by 5 inches at 120 dpi): drawn again from the stored run, it has the stored picture's size
    (a few pixels either way, for another matplotlib's text metrics). Kills benchmarks/throughput.py line
    464's ``Figure(figsize=(10, 5))`` made ``(9, 5)`` (94 pixels narrower) or ``(10, 6)`` (93 pixels
    taller)."""
    pytest.importorskip("matplotlib")
    import _args
    import throughput

    run = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    out = tmp_path / "throughput.png"
    throughput.plot(run["results"], str(out), run["machine"], _args.rules_label(run["settings"]["rules"]))
    (width, height), (want_width, want_height) = _png_size(out), _png_size(ROOT / "docs" / "throughput.png")
    assert abs(width - want_width) <= 12 and abs(height - want_height) <= 12, ((width, height),
                                                                              (want_width, want_height))


@pytest.mark.parametrize("filters", ["always", "error"])
def test_a_warning_of_torchs_own_modules_during_a_checkpoint_load_stays_hidden(filters, monkeypatch):
    """agents/checkpoints.py ``_read``: torch.load runs with torch's own warnings ignored (only those, since
    53f5dd7): a warning a torch module raises while it reads a good checkpoint (here one of
    ``torch.serialization``, as its note about a file's byte order is) is neither shown to the user ("always")
    nor, with warnings made errors (``python -W error``), a refusal of the checkpoint. Kills line 230's
    ``warnings.filterwarnings("ignore", module=r"torch(\\.|$)")`` removed."""
    torch = pytest.importorskip("torch")
    from agents import checkpoints
    from agents.pretrained import pretrained_path

    real = torch.load

    def noisy_load(*args, **kwargs):
        warnings.warn_explicit("torch's own note about the file", UserWarning,
                               torch.serialization.__file__, 1, module="torch.serialization")
        return real(*args, **kwargs)

    monkeypatch.setattr(torch, "load", noisy_load)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter(filters)
        model, meta = checkpoints.load_checkpoint(pretrained_path("beijing"))
    assert not model.training and meta["rules"] == "beijing"
    assert [str(w.message) for w in shown] == []
