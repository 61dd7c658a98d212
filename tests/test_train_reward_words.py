"""train.py says which reward it pays: the plan line names a --reward other than points with the flags it
reads, and a note names --reward-scale or --shaping-coef set for an option that does not read them (found by
the reward-shaping persona: both were silently ignored)."""
from __future__ import annotations

import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import train


@pytest.mark.parametrize("reward, words", [
    ("scaled", "selfplay_ppo: beijing, reward scaled (points / 2)"),
    ("shaped", "selfplay_ppo: beijing, reward shaped (points / 2 + shaping 0.5 a tile)"),
    ("sign", "selfplay_ppo: beijing, reward sign of the points"),
])
def test_the_plan_line_names_the_reward_and_what_it_reads(reward, words):
    args = train.Args(reward=reward, reward_scale=2.0, shaping_coef=0.5)
    assert train.plan_text(args, 1, []).startswith(words + "; imitate the")


def test_the_default_reward_leaves_the_plan_line_as_it_was():
    assert train.plan_text(train.Args(), 1, []).startswith("selfplay_ppo: beijing; imitate")


@pytest.mark.parametrize("kwargs, note", [
    ({"reward": "points", "reward_scale": 2.0}, "note: --reward points does not read --reward-scale; the reward is points"),
    ({"reward": "sign", "reward_scale": 2.0, "shaping_coef": 1.0},
     "note: --reward sign does not read --reward-scale or --shaping-coef; the reward is sign of the points"),
    ({"reward": "scaled", "shaping_coef": 1.0},
     "note: --reward scaled does not read --shaping-coef; the reward is scaled (points / 4)"),
])
def test_a_flag_the_reward_does_not_read_gets_a_note(kwargs, note):
    assert train.unused_reward_flags(train.Args(**kwargs)) == note


@pytest.mark.parametrize("kwargs", [{}, {"reward": "shaped", "reward_scale": 2.0, "shaping_coef": 1.0},
                                    {"reward": "scaled", "reward_scale": 8.0}, {"reward": "points"}])
def test_flags_that_are_read_or_left_alone_get_no_note(kwargs):
    assert train.unused_reward_flags(train.Args(**kwargs)) is None


def test_the_note_is_printed_before_a_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    train.main(["--total-steps", "0", "--bc-steps", "0", "--final-eval-hands", "0", "--eval-every", "0",
                "--no-progress", "--no-eval-pretrained", "--threads", "1", "--hidden", "32",
                "--reward", "sign", "--shaping-coef", "1", "--exp-name", "note"])
    out = capsys.readouterr().out
    assert out.index("note: --reward sign does not read --shaping-coef") < out.index("note: beijing, reward sign")
