"""agents.curve: the learning-curve picture from train.py's progress.csv."""
from __future__ import annotations

import math

import pytest

from agents import curve

HEADER = "update,global_step,seconds,SPS,vs_random_points,vs_random_ci_low,vs_random_ci_high,vs_rule_points," \
         "vs_rule_ci_low,vs_rule_ci_high\n"


def write(tmp_path, body: str, name="run"):
    d = tmp_path / name
    d.mkdir()
    (d / "progress.csv").write_text(HEADER + body, encoding="utf-8")
    return d / "progress.csv"


def test_reads_only_rows_with_an_evaluation(tmp_path):
    p = write(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n2,200,120,5,,,,,,\n3,300,180,5,1.1,0.9,1.3,0.1,-0.1,0.3\n")
    got = curve.read_curves(p)
    assert got["rule"] == [(1.0, -0.5, -0.7, -0.3), (3.0, 0.1, -0.1, 0.3)]
    assert [t for t, *_ in got["random"]] == [1.0, 3.0]


def test_an_evaluation_without_an_interval_is_read_without_a_band(tmp_path):
    """One wall has no interval: train.py leaves its interval cells empty, the mean is still a point of the
    curve (its band nan); one end of an interval alone is no train.py file."""
    got = curve.read_curves(write(tmp_path, "1,100,60,5,1.0,,,-0.5,-0.7,-0.3\n2,200,120,5,,,,0.2,,\n"))
    (t, m, lo, hi), = got["random"]
    assert (t, m) == (1.0, 1.0) and math.isnan(lo) and math.isnan(hi)
    assert got["rule"][0] == (1.0, -0.5, -0.7, -0.3)
    assert got["rule"][1][:2] == (2.0, 0.2) and all(map(math.isnan, got["rule"][1][2:]))
    with pytest.raises(curve.CurveError, match="line 2: a number was expected in the seconds and random columns"):
        curve.read_curves(write(tmp_path, "1,100,60,5,1.0,0.8,,-0.5,-0.7,-0.3\n", "one_end"))


@pytest.mark.parametrize("body,match", [
    ("", "no row has an evaluation"),
    ("1,100,60,5,1.0,0.8,x,-0.5,-0.7,-0.3\n", "line 2: a number was expected in the seconds and random columns"),
    ("1,100,60,5,1.0,0.8,inf,-0.5,-0.7,-0.3\n", "non-finite"),
    ("1,100,60,5,1.0,0.8,1e308,-0.5,-0.7,-0.3\n", "line 2: a value beyond 1e\\+09 in the seconds or random columns"),
    ("1,100,-1e10,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n", "line 2: a value beyond 1e\\+09"),
    ("1,100,,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n", "line 2: a number was expected in the seconds and random columns"),
    ("1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n2,200,120,5\n", "line 3: 4 cells where the header has 10 \\(a row cut short\\)"),
])
def test_bad_files_get_a_clear_error(tmp_path, body, match):
    with pytest.raises(curve.CurveError, match=match):
        curve.read_curves(write(tmp_path, body))


def test_a_row_lacking_seconds_last_is_refused_by_the_command_line(tmp_path, capsys):
    """seconds as the header's last column and a row without it: float(None) was a TypeError's traceback."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    d = tmp_path / "run"
    d.mkdir()
    (d / "progress.csv").write_text("vs_rule_points,vs_rule_ci_low,vs_rule_ci_high,seconds\n0.1,0,0.2\n",
                                    encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        curve.main([str(d / "progress.csv"), "--out", str(tmp_path / "c.png")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "progress.csv, line 2: 3 cells where the header has 4" in err and "Traceback" not in err
    assert not (tmp_path / "c.png").exists()


def test_missing_file_and_foreign_csv(tmp_path):
    with pytest.raises(curve.CurveError, match="cannot read"):
        curve.read_curves(tmp_path / "nope.csv")
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")  # what a cloning-only run leaves
    with pytest.raises(curve.CurveError, match="no PPO update"):
        curve.read_curves(tmp_path / "empty.csv")
    (tmp_path / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(curve.CurveError, match="not a train.py progress.csv"):
        curve.read_curves(tmp_path / "other.csv")


def test_draws_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    a = write(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n3,300,180,5,1.1,0.9,1.3,0.1,-0.1,0.3\n", "a")
    b = write(tmp_path, "1,100,30,5,0.9,0.7,1.1,-0.6,-0.8,-0.4\n", "b")
    out = tmp_path / "curve.png"
    curve.main([str(a), str(b), "--out", str(out), "--labels", "seed 1,seed 2"])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit) as exit_:
        curve.main([str(a), "--out", str(out), "--labels", "x,y"])
    assert exit_.value.code == 2 and capsys.readouterr().err.endswith(": error: 2 labels for 1 runs\n")
    curve.main([str(a), "--out", str(out), "--labels", "$\\sqrt{$", "--title", "50$ and $x"])  # no TeX: a fuzz
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    one_wall = write(tmp_path, "1,100,60,5,1.0,,,-0.5,,\n3,300,180,5,1.1,0.9,1.3,0.1,,\n", "one_wall")
    out.unlink()
    curve.main([str(one_wall), str(b), "--out", str(out)])  # no band where no interval
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("out, words", [("", "must end in one of .png"), ("curve", "must end in one of .png"),
                                        ("curve.txt", "must end in one of .png"), ("dir.png", "is a directory"),
                                        ("none/curve.png", "no such directory")])
def test_bad_out_is_refused_before_drawing(tmp_path, capsys, out, words):
    """--out is checked before anything is drawn: matplotlib would otherwise add .png to a bare name
    (and report the name given) or fail after the work."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    a = write(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n")
    (tmp_path / "dir.png").mkdir()
    with pytest.raises(SystemExit) as exit_:
        curve.main([str(a), "--out", str(tmp_path / out) if out else ""])
    assert exit_.value.code == 2 and words in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.png", "run"]


def test_too_many_opponents_for_one_picture_is_refused_at_once(tmp_path, capsys):
    # one panel per opponent: a file of 3,000 opponent columns drew for minutes (from a fuzz)
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    cols = [f"vs_o{i}_{k}" for i in range(curve.MAX_PANELS + 1) for k in ("points", "ci_low", "ci_high")]
    d = tmp_path / "many"
    d.mkdir()
    (d / "progress.csv").write_text("seconds," + ",".join(cols) + "\n60," + ",".join(["0.1"] * len(cols)) + "\n",
                                    encoding="utf-8")
    with pytest.raises(SystemExit):
        curve.main([str(d / "progress.csv"), "--out", str(tmp_path / "c.png")])
    assert f"{curve.MAX_PANELS + 1} opponents" in capsys.readouterr().err


def test_panels_put_rule_first_and_take_up_to_max_panels(tmp_path, monkeypatch):
    """One panel per opponent, the rule agent's first, then the others by name; MAX_PANELS of them draw."""
    pytest.importorskip("matplotlib")  # the plot extra: skipped in a core-only install
    drawn = []
    monkeypatch.setattr(curve, "_draw",
                        lambda runs, labels, opponents, out, title: drawn.append(opponents))
    a = write(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n", "a")
    d = tmp_path / "pre"
    d.mkdir()
    (d / "progress.csv").write_text("seconds,vs_pretrained_points,vs_pretrained_ci_low,vs_pretrained_ci_high\n"
                                    "60,0.1,0.0,0.2\n", encoding="utf-8")
    curve.plot([a, d / "progress.csv"], str(tmp_path / "c.png"))
    assert drawn == [["rule", "pretrained", "random"]]
    cols = [f"vs_o{i}_{k}" for i in range(curve.MAX_PANELS) for k in ("points", "ci_low", "ci_high")]
    (d / "progress.csv").write_text("seconds," + ",".join(cols) + "\n60," + ",".join(["0.1"] * len(cols)) + "\n",
                                    encoding="utf-8")
    curve.plot([d / "progress.csv"], str(tmp_path / "c.png"))
    assert len(drawn[1]) == curve.MAX_PANELS


def test_draws_runs_that_evaluated_against_different_opponents(tmp_path):
    """A run without an opponent another run has leaves that panel to the others."""
    pytest.importorskip("matplotlib")
    a = write(tmp_path, "1,100,60,5,1.0,0.8,1.2,-0.5,-0.7,-0.3\n", "a")
    d = tmp_path / "b"
    d.mkdir()
    (d / "progress.csv").write_text("seconds,vs_rule_points,vs_rule_ci_low,vs_rule_ci_high\n60,0.1,0.0,0.2\n",
                                    encoding="utf-8")
    out = tmp_path / "curve.png"
    curve.main([str(a), str(d / "progress.csv"), "--out", str(out)])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
