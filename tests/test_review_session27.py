"""Review of session 27's change (a387fe8..dec0bd7): what its tests left open."""
from __future__ import annotations

import warnings

import pytest

from agents.base import RulesMismatchWarning
from mj_env.baselines import RuleBasedAgent
from mj_env.single_agent import MahjongSingleAgentEnv


def _mismatch_lines(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found = {(w.filename, w.lineno) for w in caught if issubclass(w.category, RulesMismatchWarning)}
    assert found, "no RulesMismatchWarning"
    return found


def test_an_opponent_set_through_stable_baselines3s_vec_env_wrappers_names_the_users_line():
    """README: on SB3's vectors of one-table envs opponents come in by ``env_method("set_opponents", ...)``, and on
    mj_env.sb3's vector (wrapped in SB3's VecMonitor, as its docstring shows) by ``set_attr("opponents", ...)``.
    The warning named a line of stable_baselines3/common/vec_env/ (the walk skipped only mj_env and Gymnasium)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from mj_env.sb3 import MahjongSB3VecEnv

    quemen_rule = [RuleBasedAgent()] * 3  # built for beijing
    monitored = VecMonitor(MahjongSB3VecEnv(num_envs=2, rules="quemen"))
    assert {f for f, _ in _mismatch_lines(lambda: monitored.set_attr("opponents", quemen_rule))} == {__file__}
    assert {f for f, _ in _mismatch_lines(lambda: monitored.env_method("set_opponents", quemen_rule))} == {__file__}
    dummy = DummyVecEnv([lambda: MahjongSingleAgentEnv(rules="quemen")])
    assert {f for f, _ in _mismatch_lines(lambda: dummy.env_method("set_opponents", quemen_rule))} == {__file__}


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
