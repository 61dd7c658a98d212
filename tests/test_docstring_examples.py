"""The ``>>>`` examples in the library's docstrings run as written (doctest), so that a reader who pastes
one into a session gets what it shows, not an error or an unexpected printout."""
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import agents
import mj_env

ROOT = Path(__file__).resolve().parent.parent


def _modules_with_examples():
    names = []
    for package in (mj_env, agents):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            path = ROOT / (info.name.replace(".", "/") + ".py")
            if path.is_file() and ">>> " in path.read_text(encoding="utf-8"):
                names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    """The engine's and determinize's examples at least (the collection is not silently empty)."""
    assert {"mj_env.engine", "mj_env.determinize"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_run_as_written(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, verbose=False, report=True, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} holds '>>> ' but doctest found no example in it"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail (printed above)"
