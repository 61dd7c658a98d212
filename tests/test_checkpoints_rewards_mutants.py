"""Tests that kill mutants the suite let live in a mutation-test round on agents/checkpoints.py (loading outside
files), agents/rewards.py (the ``--reward`` options), agents/arena_report.py (the arena's intervals and tables) and
agents/common_random.py: each test names what it holds to, from the module's docstring or the README."""
from __future__ import annotations

import re
import zipfile

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import test_checkpoints
import torch
from test_reward_potential import observation_planes as _planes

from agents.checkpoints import CheckpointError, load_checkpoint

saved = test_checkpoints.saved  # the fixture: a small checkpoint saved in tmp_path


def test_a_deflated_member_is_refused_even_when_deflating_made_it_no_smaller(saved, tmp_path):
    """docs: a compressed member is refused before torch reads anything, whatever its sizes (from a mutation test:
    only the sizes were checked, so a member deflated to no fewer bytes than it holds, a few bytes of text
    such as ``byteorder``, went through to torch.load)."""
    packed = tmp_path / "small_deflated.pt"
    with zipfile.ZipFile(saved[1]) as src, zipfile.ZipFile(packed, "w") as out:
        for info in src.infolist():
            data = src.read(info.filename)
            small = info.filename.endswith("byteorder")
            out.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED if small else zipfile.ZIP_STORED)
    with zipfile.ZipFile(packed) as z:
        member = next(i for i in z.infolist() if i.filename.endswith("byteorder"))
        assert member.compress_type == zipfile.ZIP_DEFLATED and member.compress_size >= member.file_size
    with pytest.raises(CheckpointError, match="member .*byteorder.* is compressed"):
        load_checkpoint(packed)


@pytest.mark.parametrize("key, value, kind", [("obs_name", ["mj_obs_v1"], "list"), ("obs_shape", "14x34", "str"),
                                              ("meta", ["rules"], "list"), ("model_config", 3, "int")])
def test_a_key_of_the_wrong_type_is_refused_by_name(saved, tmp_path, key, value, kind):
    """Every key's type is checked before anything is read from it (module docstring): a list where the layout's
    name goes was looked up in LAYOUTS, an unhashable-type TypeError, once that check went (a mutation test)."""
    payload = torch.load(saved[1], weights_only=True)
    payload[key] = value
    bad = tmp_path / "bad.pt"
    torch.save(payload, bad)
    with pytest.raises(CheckpointError, match=f"{re.escape(str(bad))}: {key!r} is a {kind}, not a "):
        load_checkpoint(bad)


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_a_hand_one_tile_from_winning_has_one_potential_with_or_without_melds(rules):
    """agents/rewards.py: distance is the tiles still needed, "plus one for a 3k+1 hand (claim window)", so a
    hand one tile from winning has the same potential at both kinds of decision: 13 tiles ready, 10 ready beside
    a meld, 11 one exchange from a win, all -shaping_coef; 11 that win, 0 (from a mutation test: ``size % 4 == 1``
    for the 3k+1 test, right for 13 tiles, went unnoticed; 10 tiles beside a meld then got 0)."""
    from agents.rewards import RewardTransform

    hands = np.stack([_planes("123m456m789p1122s"), _planes("456m789p1122s", "123m"), _planes("456m789p1122s7z", "123m"),
                      _planes("456m789p11222s", "123m"), _planes("456m789p1129s", "123m"), _planes("789p1129s", "123m456m")])
    phi = RewardTransform("shaped", rules, shaping_coef=0.25).potential(hands)
    assert phi.tolist() == [-0.25, -0.25, -0.25, 0.0, -0.5, -0.5]


def _summary(names, ci95=(0.1, 0.9), rules=None) -> dict:
    row = {"mean_points": 0.5, "ci95": list(ci95), "win_rate": 0.25, "self_draw_rate": 0.125, "deal_in_rate": 0.125,
           "avg_fan": 2.0}
    summary = {"agents": [{"name": n, **row} for n in names], "walls": 3, "seatings": [[0, 1, 0, 1], [1, 0, 1, 0]],
               "hands_played": 6, "draw_rate": 0.0}
    if rules is not None:
        summary["rules"] = rules
    return summary


def test_a_path_outside_a_checkpoints_folder_keeps_its_last_two_parts():
    """short_name: "a checkpoint path keeps its last two parts", so best.pt of two runs are told apart wherever the
    files are (from a mutation test: keeping only the last part went unnoticed; only checkpoints/ paths were tested)."""
    from agents.arena_report import short_name

    assert short_name("runs/a/best.pt", 28) == "a/best.pt"
    assert short_name("runs\\b\\best.pt", 28) == "b/best.pt"


def test_table_names_show_control_characters_as_their_escapes():
    """format_table's name cell: control characters written as escapes (``\\x1b``, not ``x1b`` nor the raw escape),
    the cell still 28 columns wide (from a mutation test: cutting the escape's backslash went unnoticed)."""
    from agents.arena_report import format_table

    line = format_table(_summary(["bad\x1b[2Jname"])).splitlines()[2]
    assert line.startswith("bad\\x1b[2Jname ") and "\x1b" not in line
    assert line.index("+0.500") - 6 == 28  # the 28-column cell, a space, then the points right-aligned in 11


def test_the_note_of_an_interval_of_no_width_shows_control_characters_as_escapes():
    """The note under the table names the agents whose walls all scored the same; a name with an escape sequence
    (a checkpoint's path, ``play_duplicate(labels=...)``) was written there raw, though the table's cell escapes it: the
    note cleared or recoloured the terminal (found beside a mutation test of the cell's escapes)."""
    from agents.arena_report import format_table

    text = format_table(_summary(["bad\x1b[2Jname", "bad\x1b[2Jname#2"], ci95=(0.5, 0.5)))
    assert "\x1b" not in text
    assert text.splitlines()[-1].startswith("(every wall scored the same for bad\\x1b[2Jname, bad\\x1b[2Jname#2, ")


def test_table_names_and_the_note_show_a_bidi_override_as_its_escape():
    """A right-to-left override (U+202E) in an agent's name reversed the rest of the table's line on a terminal:
    the name cell and the note escaped control characters only. Both now go through ``mj_env.messages.printable``,
    as the command lines' messages do."""
    from agents.arena_report import format_table

    table = format_table(_summary(["evil\u202eTP.tsoh"])).splitlines()[2]
    assert table.startswith("evil\\u202eTP.tsoh ") and "\u202e" not in table
    text = format_table(_summary(["evil\u202eTP.tsoh", "rule"], ci95=(0.5, 0.5)))
    assert "\u202e" not in text and "evil\\u202eTP.tsoh, rule" in text.splitlines()[-1]


def test_the_plot_draws_each_agents_interval_and_the_rates_from_zero(monkeypatch, tmp_path):
    """plot: "bar charts of points per hand (with the 95% intervals) and of win / deal-in rates": each error bar
    runs from the interval's low end to its high end, and the rates' axis starts at 0 (from a mutation test: bars
    from mean - (low + mean), and an axis from 1 that hid every rate, went unnoticed)."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from agents.arena_report import plot

    figures, real = [], Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (figures.append(fig), real(fig, *a, **k))[1])
    summary = _summary(["a", "b"])
    summary["agents"][1].update(mean_points=-0.5, ci95=[-0.9, -0.2], win_rate=0.2, deal_in_rate=0.15)
    plot(summary, str(tmp_path / "p.png"))
    (fig,) = figures
    points, rates = fig.axes
    bars = next(c for c in points.containers if type(c).__name__ == "ErrorbarContainer")
    ends = [y for segment in bars.lines[2][0].get_segments() for y in sorted(y for _, y in segment)]
    assert ends == pytest.approx([0.1, 0.9, -0.9, -0.2])
    low, high = rates.get_ylim()
    assert low == 0 and high > 0.25


def test_a_vector_wrapper_other_than_dictinfotolist_may_sit_inside_the_vector_option():
    """RewardOptionVector refuses DictInfoToList inside it (the infos become a list); any other vector wrapper, such
    as Gymnasium's RecordEpisodeStatistics, keeps the infos a dict and is taken (from a mutation test: refusing every
    wrapper inside went unnoticed)."""
    import gymnasium as gym
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    from agents.rewards import RewardOptionVector

    venv = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    env = RewardOptionVector(RecordEpisodeStatistics(venv), "shaped", gamma=0.99)
    obs, _ = env.reset(seed=0)
    actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    _, rewards, _, _, infos = env.step(actions)
    assert rewards.shape == (2,) and infos["points"].shape == (2,)
    env.close()
