"""Review of the changes of 2026-12-06 (9ef4348..147a435): what they got wrong, each pinned by a test that failed
before its fix."""


import pytest


def test_rollout_improvement_compares_a_checkpoints_rule_set_as_a_rule_set(tmp_path, monkeypatch, capsys):
    """examples/rollout_improvement.py --checkpoint compared the stored rules with --rules as raw values, as train.py
    did: a checkpoint whose meta holds {"name": "beijing", "chi": true} (beijing itself) got the note "was trained
    under beijing; this run labels, trains and plays it under beijing"."""
    torch = pytest.importorskip("torch")
    from test_examples_as_user import Reached, rollout_improvement_stopped_at_labelling

    from agents.networks import PolicyValueNet, save_checkpoint

    module = rollout_improvement_stopped_at_labelling(monkeypatch)
    path = save_checkpoint(tmp_path / "m.pt", PolicyValueNet(hidden=(8,)), rules="beijing")
    payload = torch.load(path, weights_only=True)
    payload["meta"]["rules"] = {"name": "beijing", "chi": True}  # as 9ef4348..147a435 stored it
    torch.save(payload, path)
    capsys.readouterr()
    with pytest.raises(Reached):
        module.main(["--checkpoint", str(path)])
    assert "note:" not in capsys.readouterr().out


