"""Review of the changes of 2026-12-06 (9ef4348..147a435): what they got wrong, each pinned by a test that failed
before its fix."""


import pytest

from mj_env.messages import printable


@pytest.mark.parametrize("text", ["张\u3000三", "a\u00a0b", "👨\u200d👩\u200d👧", "🏳️\u200d🌈", "می\u200cخواهم", "惠牌 José"])
def test_printable_keeps_spaces_and_joiners_of_ordinary_text(text):
    """mj_env.messages.printable escaped everything str.isprintable rejects, so a player's name written with
    the ideographic space of Chinese text (U+3000) or a no-break space showed as 张\\u3000三, and an emoji
    sequence (a family, a rainbow flag: joined by U+200D) or a Persian word (U+200C) fell apart into escapes;
    none of them steers a terminal."""
    assert printable(text) == text


@pytest.mark.parametrize(("text", "shown"), [
    ("a\x1b[2Jb", "a\\x1b[2Jb"), ("x\ry", "x\\ry"), ("\u202eevil", "\\u202eevil"), ("a\u2028b", "a\\u2028b"),
    ("a\u200bb", "a\\u200bb"), ("a\x85b", "a\\x85b"), ("\udc80", "\\udc80"), ("a\u2066b", "a\\u2066b"),
])
def test_printable_still_escapes_what_steers_or_hides(text, shown):
    assert printable(text) == shown












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


