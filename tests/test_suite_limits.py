"""The suite's own limits: pyproject.toml gives every test 600 s (pytest-timeout) so that a hang fails
instead of stalling CI, and conftest.py lifts the limit for the long runs marked ``slow``."""
from __future__ import annotations

import pytest
from conftest import pytest_collection_modifyitems


def test_every_test_has_a_time_limit(request):
    assert float(request.config.getini("timeout")) == 600


def test_a_slow_run_has_no_time_limit_and_a_fast_one_keeps_it(request):
    node = request.node
    pytest_collection_modifyitems(request.config, [node])
    assert node.get_closest_marker("timeout") is None  # a fast test: the 600 s of pyproject.toml
    node.add_marker(pytest.mark.slow)
    pytest_collection_modifyitems(request.config, [node])
    assert node.get_closest_marker("timeout").args == (0,)
