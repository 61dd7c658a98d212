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
