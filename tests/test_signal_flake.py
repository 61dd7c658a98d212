"""The suite run by a pytest that started with Ctrl-C (SIGINT) ignored, as a background job of a shell
without job control (``cmd &`` in a script) starts: Python keeps an inherited SIG_IGN, so
``signal.raise_signal(SIGINT)`` did nothing there, and tests/test_run_signals.py's
``test_a_signal_after_the_final_evaluation_still_writes_final_eval_json[2-tables]`` failed with "DID NOT
RAISE KeyboardInterrupt" (seen twice in a mutation helper's pytest; it passed from a terminal and under
``timeout``, which gives its command SIGINT's default action). tests/conftest.py puts Python's handler in
place."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")  # (the tests run inside need it)

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signal dispositions inherited by a child")
def test_the_signal_tests_pass_in_a_pytest_started_with_ctrl_c_ignored():
    def ignore_ctrl_c():  # (in the child, before exec: an ignored signal stays ignored across exec)
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    signals = "tests/test_run_signals.py::"
    chosen = [  # (play's first: the last one here puts Python's handler back, as it ends)
        "tests/test_play_cli_input_limits.py::test_ctrl_c_while_reading_an_answer_is_status_130",
        signals + "test_signals_held_puts_the_handlers_back_and_holds_nothing_off_the_main_thread",
        signals + "test_a_signal_while_signals_held_puts_the_handlers_back_swallows_no_later_one"]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *chosen]
    done = subprocess.run(command, cwd=REPO, env=env, preexec_fn=ignore_ctrl_c, capture_output=True,
                          text=True, timeout=300, check=False)
    said = done.stdout[-3000:] + done.stderr[-2000:]
    assert done.returncode == 0 and "3 passed" in done.stdout, said
