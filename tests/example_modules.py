"""examples/<name>.py loaded as a module, for the tests that call an example's functions and main(argv)."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@functools.cache
def load_example(name: str):
    """examples/<name>.py as a module (its main(argv) then runs in this process); one module per name."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
