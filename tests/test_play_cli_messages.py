"""``python -m agents.play`` against its README section (the sample game) and its own messages: the quoting of
what was typed, and --help's exit statuses."""
from __future__ import annotations

import io
import re

import pytest

from agents.play import _parser, choose, main
from mj_env import actions as A
from tests.test_play_cli import ROOT


def _readme_sample() -> list[str]:
    """The lines of the README's sample game ("The first, answering `5z` and then `1` ...")."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    at = text.index("The first, answering `5z` and then `1`")
    block = re.search(r"```text\n(.*?)```", text[at:], re.DOTALL)
    assert block, "the README's sample game is gone"
    return block[1].splitlines()


def test_the_readme_sample_game_is_what_the_program_prints():
    """``python -m agents.play --seed 1`` answered ``5z``, then ``1`` at every question, the answers echoed as a
    terminal echoes them: the README's sample, ``...`` lines marking cuts, begins at the first line and ends at
    the last (it ended at the hand's totals, one line short of the game's end)."""
    out = io.StringIO()
    answers = iter(["5z"])

    def answer(prompt: str) -> str:
        text = next(answers, "1")
        out.write(f"{prompt}{text}\n")
        return text

    assert main(["--seed", "1"], input_fn=answer, out=out) == 0
    lines = out.getvalue().splitlines()
    chunks: list[list[str]] = [[]]
    for line in _readme_sample():
        if line.strip() == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    assert len(chunks) >= 2 and all(chunks)
    at = 0
    for k, chunk in enumerate(chunks):
        starts = [i for i in range(at, len(lines) - len(chunk) + 1) if lines[i:i + len(chunk)] == chunk]
        assert starts, f"README sample part {k} not found in order:\n" + "\n".join(chunk)
        start = 0 if k == 0 else starts[0] if k < len(chunks) - 1 else starts[-1]
        assert lines[start:start + len(chunk)] == chunk
        if k == 0:
            assert starts[0] == 0, "the sample does not begin where the program does"
        at = start + len(chunk)
    assert at == len(lines), "the sample does not end where the program does: " + repr(lines[at:])


@pytest.mark.parametrize("typed,shown", [("\x1b[2J", "'\\x1b[2j'"), ("a\\b", "'a\\b'"), ("it's", "'it's'")])
def test_an_answer_not_understood_is_quoted_with_its_escapes_written_once(typed, shown):
    """The reply quotes the answer with its terminal escapes written out once (``\\x1b``), as ``printable`` writes
    them, not a second time by ``repr`` (was ``'\\\\x1b[2j'``, and a quote changed the quotes)."""
    with pytest.raises(ValueError) as e:
        choose(typed, [A.index("discard 5m")])
    assert str(e.value).startswith(f"not understood: {shown};"), str(e.value)


def test_the_opponents_error_quotes_the_value_with_its_escapes_written_once(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--opponents", "rule,\x1b[31m"])
    assert e.value.code == 2
    assert "got 'rule,\\x1b[31m'" in capsys.readouterr().err


def test_the_help_tells_every_exit_status_1():
    """``--help``'s exit statuses name what the module's docstring does: a failing opponent, an answer that cannot
    be read, an output or ``--record`` that cannot be written (it named the opponent alone)."""
    epilog = " ".join(str(_parser().epilog).split())
    assert "1 if an opponent fails, an answer cannot be read or the output or --record cannot be written" in epilog
