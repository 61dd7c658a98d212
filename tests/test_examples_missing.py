"""An example run without its RL library says which module is missing and how to install it, without a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# (example, the module blocked, the extra its message names); each blocks the first library its example imports,
# so the message is the same where the others are missing too (a dev install without the examples extra)
CASES = [("rllib_ppo", "ray", "examples"), ("sb3_maskable_ppo", "sb3_contrib", "examples"),
         ("tianshou_pettingzoo", "tianshou", "examples"), ("torchrl_ppo", "tensordict", "examples"),
         ("rollout_improvement", "torch", "train")]


@pytest.mark.parametrize("example, blocked, extra", CASES)
def test_an_example_without_its_library_says_what_to_install(example, blocked, extra):
    if example in ("sb3_maskable_ppo", "tianshou_pettingzoo", "torchrl_ppo"):  # they import torch before it
        pytest.importorskip("torch")  # (a core-only install: they name torch, tests/test_python_runtime.py)
    # sys.modules[name] = None makes every import of it raise ModuleNotFoundError, as on a machine without it
    code = (f"import runpy, sys; sys.modules[{blocked!r}] = None; sys.argv = ['x', '--help']; "
            f"runpy.run_path({str(ROOT / 'examples' / (example + '.py'))!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"examples/{example}.py needs the module {blocked!r}: pip install -e '.[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr
