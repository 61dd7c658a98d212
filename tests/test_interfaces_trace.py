"""Clause-by-clause trace of docs/INTERFACES.md (the hand calculator and the AEC environment): tests for the
clauses that no test failed on when each was broken by hand in the code (a traceability audit, as
docs/rules_trace.md is for docs/RULES.md; the table of clauses, code locations and killing tests is kept outside
the repository).

Each test quotes the clause it pins and names the breakage it catches.
"""
from __future__ import annotations

import mj_env
from mj_env import aec


def test_every_env_constructor_defaults_to_beijing_and_no_render_mode():
    """docs/INTERFACES.md 2: "`mj_env.env(rules="beijing", render_mode=None, ...)` returns a PettingZoo AEC
    environment". ``mj_env.env`` passes its own defaults on, so ``mj_env.aec.env`` (PettingZoo's module-level
    ``env()`` of a classic environment) and the class ``mj_env.raw_env`` must default to the same rule set and
    render mode. Breakages caught (each passed every other test): ``mj_env.env(..., render_mode="ansi")`` as
    the default, and ``mj_env.aec.env(rules="hebei", ...)`` as the module-level default."""
    beijing = mj_env.get_rules("beijing")
    for make in (mj_env.env, aec.env, mj_env.raw_env):
        e = make()
        assert e.unwrapped.rules == beijing, make
        assert e.unwrapped.render_mode is None, make
        e.close()
