"""A review of session 47's changes (helper BQ): what it found wrong in them, each checked by a test that
fails without its fix."""
from __future__ import annotations

import numpy as np
import pytest


def test_the_rollouts_table_keeps_its_columns_for_wide_counts_and_intervals(monkeypatch, capsys):
    """python -m agents.rollouts printed each column at a fixed width: 10,000,000 positions (a long
    --seconds) or an interval past 100 points pushed the row's later columns one or more places out from under
    their titles. Each column is now as wide as its title or its widest value; rows of ordinary widths print
    as before (tests/test_session47_coverage_last.py)."""
    pytest.importorskip("scipy")
    from agents import rollouts as R
    from mj_env import actions as A
    n = 150
    got = {"table": np.zeros(n, dtype=np.int64), "candidates": np.tile([A.PASS, A.PONG], (n, 1)),
           "q": np.zeros((n, 2)), "hand": np.arange(n) // 2}
    rows = [{"rule": "pass", "alternative": "pong", "rank": 1, "positions": 12_345_678,
             "mean_gain": -123.4567, "ci95": (-234.5, -12.25), "better_share": 0.125},
            {"rule": "discard", "alternative": "discard", "rank": 2, "positions": 150, "mean_gain": 0.5,
             "ci95": (0.25, 0.75), "better_share": 1.0}]
    monkeypatch.setattr(R, "labelled_play", lambda *args: iter([got]))
    monkeypatch.setattr(R, "deviation_table", lambda *args, **kwargs: rows)
    assert R.main(["--seconds", "1", "--tables", "1"]) == 0
    header, *table, note = capsys.readouterr().out.splitlines()[1:]
    assert note == "(rows of fewer than 100 positions are left out)"
    assert [line.split() for line in table] == [
        ["pass", "pong", "1", "12,345,678", "-123.457", "[-234.500,", "-12.250]", "12%"],
        ["discard", "discard", "2", "150", "+0.500", "[+0.250,", "+0.750]", "100%"]]
    # every figure ends where its title ends; the names begin where theirs begin
    ends = [header.index(t) + len(t) for t in ("rank", "positions", "mean gain", "95% CI", "better")]
    for line, row in zip(table, rows):
        assert len(line) == len(header)
        assert line.index(row["alternative"], len(row["rule"])) == header.index("alternative")
        figures = [str(row["rank"]), f"{row['positions']:,}", f"{row['mean_gain']:+.3f}",
                   f"{row['ci95'][1]:+.3f}]", f"{row['better_share']:.0%}"]
        at = 0
        for figure, end in zip(figures, ends):
            at = line.index(figure, at) + len(figure)
            assert at == end, (line, header, figure)
