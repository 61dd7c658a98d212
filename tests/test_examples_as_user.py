"""The examples run as a user runs them from what README.md, docs/*.md and their own --help say: flags that
would otherwise be ignored or misread without a word, and messages that name the flag and value at fault."""
from __future__ import annotations

from pathlib import Path

import pytest
from example_modules import load_example

ROOT = Path(__file__).resolve().parents[1]
PRETRAINED = ROOT / "agents" / "data"


class Reached(Exception):
    """Raised by a stub where a test has seen what it needs, before the slow part of an example runs."""


def rollout_improvement_stopped_at_labelling(monkeypatch):
    pytest.importorskip("torch")
    module = load_example("rollout_improvement")

    def collect(*a, **kw):
        raise Reached

    monkeypatch.setattr(module, "collect", collect)
    return module


def test_rollout_improvement_says_when_the_checkpoint_was_trained_under_other_rules(monkeypatch, capsys):
    """--checkpoint of the quemen player with the default --rules beijing was labelled, trained and played under
    beijing without a word (train.py's --init-from prints a note for the same)."""
    module = rollout_improvement_stopped_at_labelling(monkeypatch)
    capsys.readouterr()
    with pytest.raises(Reached):
        module.main(["--checkpoint", str(PRETRAINED / "pretrained_quemen.pt")])
    out = capsys.readouterr().out
    assert "note: --checkpoint" in out and "was trained under quemen" in out and "under beijing (--rules)" in out
    with pytest.raises(Reached):  # its own rule set: no note
        module.main(["--checkpoint", str(PRETRAINED / "pretrained_quemen.pt"), "--rules", "quemen"])
    assert "note:" not in capsys.readouterr().out
