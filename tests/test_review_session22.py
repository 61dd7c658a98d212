"""Cases found reviewing session 22's changes (train.py --exp-name, agents.arena --record, ...)."""
from __future__ import annotations

import pytest

import train


@pytest.mark.parametrize("name", ["COM\u00b9", "lpt\u00b3.log", "CONIN$", "conout$.txt", "Com\u00b2 .x"])
def test_windows_device_names_with_superscript_digits_or_console_buffers_are_refused(name):
    """Windows reads COM\u00b9-\u00b3 and LPT\u00b9-\u00b3 as devices (its superscript digits count as digits there), and
    CONIN$ and CONOUT$ are the console's buffers; --exp-name took them, and such a run directory cannot be
    copied to Windows, which the check was made for."""
    assert train.windows_device(name)
    assert "not a device name" in train.check_args(train.Args(exp_name=name))


@pytest.mark.parametrize("name", ["COM0", "COM\u2074", "AUX_1", "CONIN", "console", "LPT10"])
def test_names_next_to_the_device_names_are_accepted(name):
    assert not train.windows_device(name) and train.check_args(train.Args(exp_name=name)) is None
