"""Audit of mj_env.determinize and mj_env.records: hostile record files refused by field."""
from __future__ import annotations

import json

from test_records import _played

from mj_env import records

HUGE = "9" * 5000  # more digits than Python converts from text (sys.get_int_max_str_digits, 4,300)


def test_a_number_too_long_to_convert_is_refused_by_the_field_it_sits_in(tmp_path, capsys):
    """A record line holding a 5000-digit integer was refused with Python's own message ("Exceeds the limit
    (4300 digits) for integer string conversion ...; use sys.set_int_max_str_digits() ..."), which names no
    field; the checker now names the field, as it does for every other bad value."""
    _, rec = _played(seed=3)
    lines = []
    for key, value in (("dealer", "HUGE"), ("actions", [["HUGE", rec["actions"][0][1]]] + rec["actions"][1:]),
                       ("settlement", {**rec["settlement"], "scores": ["HUGE", 0, 0, 0]})):
        lines.append(json.dumps({**rec, key: value}).replace('"HUGE"', HUGE))
    path = tmp_path / "huge.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert records.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "set_int_max_str_digits" not in err
    assert "record 0: dealer must be a seat 0-3, got 99999999999999999999... (5000 digits)" in err
    assert "record 1: actions[0] must be [seat 0-3, action name]" in err
    assert "record 2: the replay settles otherwise than the record: settlement.scores" in err
