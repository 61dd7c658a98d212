"""mj_env.messages: ``printable`` keeps ordinary text and escapes what steers a terminal, ``brief`` and ``shown``
describe what an agent returned, and ``user_stacklevel`` finds the user's line (the warnings themselves:
tests/test_warning_lines.py)."""
from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from mj_env.baselines import checked_agent_actions
from mj_env.messages import brief, printable, shown

# --------------------------------------------------------------------------- printable


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


# --------------------------------------------------------------------------- brief and shown


class _Named:
    name = "mocked"


@pytest.mark.parametrize("got", [mock.Mock(spec=int), mock.NonCallableMock(spec=int)], ids=["Mock", "NonCallable"])
def test_an_act_returning_an_object_that_claims_to_be_an_int_is_named_as_itself(got):
    """a1db0c7 names an unreadable return by ``brief(actions)``; ``brief`` took an object whose ``__class__`` says
    int (a ``Mock(spec=int)``, what a test's mocked agent returns) for an int, compared it with 10**30 and raised
    "'<' not supported between instances of 'int' and 'Mock'", naming neither the agent nor act()."""
    assert "Mock spec='int'" in brief(got) and "Mock spec='int'" in shown(got)
    with pytest.raises(TypeError, match=r"agent 'mocked' returned <(NonCallable)?Mock spec='int' .*\(a \w*Mock\); act"):
        checked_agent_actions(_Named(), got, np.ones((2, 127), dtype=np.int8), np.arange(2), lambda t, a: "")


def test_brief_still_describes_huge_integers_and_their_subclasses_by_size():
    class Big(int):
        pass

    assert brief(10**40) == shown(10**40) == "an integer of 133 bits"
    assert brief(Big(-(10**40))) == "an integer of 133 bits" and brief(True) == "True"


# --------------------------------------------------------------------------- user_stacklevel


def test_user_stacklevel_treats_a_sibling_folder_with_the_librarys_prefix_and_exec_code_as_the_users():
    """A user's script in ``<root>/mj_env_experiments/`` (beside ``<root>/mj_env/``) or code run by ``exec``
    (``co_filename`` ``'<string>'``, as ``exec`` gives it) is the user's line: level 1 from there. Code under the
    library's folder is passed over (level 2: the caller of that code). Without the folder's trailing separator the sibling folder
    counted as the library."""
    import os
    import types

    from mj_env import actions as A
    from mj_env.messages import user_stacklevel

    def level_from(filename):
        """user_stacklevel(A) called from a frame whose co_filename is ``filename``."""
        def level():
            return user_stacklevel(A)
        return types.FunctionType(level.__code__.replace(co_filename=filename), {}, closure=level.__closure__)()

    root = os.path.dirname(A.__file__)
    assert level_from(root + "_experiments" + os.sep + "run.py") == 1
    assert level_from("<string>") == 1
    assert level_from(os.path.join(root, "inside.py")) == 2


def test_user_stacklevel_passes_over_a_module_of_no_file():
    """A module with no ``__file__`` (a notebook's or an xdist worker's ``__main__``) has no folder to pass over;
    it raised AttributeError, so the warning the caller was placing became a crash."""
    import types

    from mj_env import messages

    assert messages.user_stacklevel(types.ModuleType("__main__"), messages) == 1
