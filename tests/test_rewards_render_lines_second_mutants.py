"""Tests that kill mutants a second mutation round (seed 4501) let live in agents/rewards.py (the ``--reward``
options and their wrappers), mj_env/render.py (the text picture of a table) and mj_env/lines.py (JSON lines and
terminal text): each test names what it holds to, from the module's docstring."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from test_reward_potential import observation_planes as _planes

import mj_env  # noqa: F401 (registers the ids)
from agents.rewards import MAX_SCALE, RewardOptionVector, RewardTransform
from mj_env.baselines import uniform_legal

# ---- agents/rewards.py ----

def test_sign_pays_the_sign_of_the_points_whatever_their_size_and_the_scale():
    """"sign: +1 / -1 / 0 by the sign of the points", and ``scale`` is read by scaled and shaped only (from a
    mutation test: sign paying points / scale went unnoticed; no test read a sign reward's value)."""
    points = np.array([[-12, 4, 4, 4], [0, 0, 0, 0], [48, -16, -16, -16]])
    assert RewardTransform("sign", scale=2.5).hand_end(points).tolist() == [[-1, 1, 1, 1], [0, 0, 0, 0], [1, -1, -1, -1]]
    assert RewardTransform("points", scale=2.5).hand_end(points[:1]).tolist() == [[-12.0, 4.0, 4.0, 4.0]]
    assert RewardTransform("scaled", scale=2.5).hand_end(points[:1]).tolist() == [[-4.8, 1.6, 1.6, 1.6]]


def test_shaping_coef_takes_its_bounds_and_refuses_past_them():
    """``shaping_coef`` "one from -1e6 to 1e6": both ends are taken (from a mutation test: ``abs(v) < MAX_SCALE``
    went unnoticed)."""
    for coef in (MAX_SCALE, -MAX_SCALE):
        assert RewardTransform("shaped", shaping_coef=coef).shaping_coef == coef
    for coef in (MAX_SCALE * 1.5, -MAX_SCALE * 1.5):
        with pytest.raises(ValueError, match="shaping_coef must be a number from -1e\\+06 to 1e\\+06"):
            RewardTransform("shaped", shaping_coef=coef)


@pytest.mark.parametrize("kind", ["points", "scaled", "sign"])
def test_the_potential_is_zero_unless_the_kind_is_shaped(kind):
    """``potential``: "all zero unless kind == 'shaped'", also for a hand far from a win (from a mutation test:
    the distance potential paid under every kind went unnoticed; the wrappers call it only when shaping)."""
    far = _planes("159m159p159s1234z")[None]
    assert RewardTransform("shaped").potential(far)[0] < 0
    assert RewardTransform(kind).potential(far).tolist() == [0.0]


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_the_potential_counts_the_hui_as_a_wildcard(rules):
    """distance(s) is tiles_to_win "with its 惠牌 as wildcards": 7z held as the 惠牌 (plane 10) completes
    ``11s24s``, so the hand is a win, Phi 0, where without a 惠牌 it is one exchange away (from a mutation test:
    reading the 惠牌 from plane 9 went unnoticed)."""
    hand = "123m456m789p11s24s7z"
    t = RewardTransform("shaped", rules, shaping_coef=0.25)
    assert t.potential(_planes(hand, hui="7z")[None]).tolist() == [0.0]
    assert t.potential(_planes(hand)[None]).tolist() == [-0.25]


def test_the_vector_option_pays_shaped_rewards_as_floats_over_integer_points():
    """RewardOptionVector over an inner wrapper whose rewards are integers: the shaped rewards stay float64, the
    shaping term whole (from a mutation test: casting the rewards to the points' dtype whatever its kind went
    unnoticed, and cut every shaping term to an integer)."""
    from gymnasium.wrappers.vector import TransformReward

    venv = gym.make_vec("mj_env/Beijing-v0", num_envs=2, vectorization_mode="vector_entry_point")
    env = RewardOptionVector(TransformReward(venv, lambda r: np.asarray(r).astype(np.int64)), "shaped",
                             shaping_coef=0.25, gamma=0.9)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    fractions = 0
    for _ in range(20):
        actions = uniform_legal(obs["action_mask"], rng)
        obs, rewards, _, _, infos = env.step(actions)
        assert rewards.dtype == np.float64 and infos["points"].dtype == np.int64
        fractions += int(np.any(rewards != np.round(rewards)))
    env.close()
    assert fractions > 0


# ---- mj_env/render.py ----

def test_a_won_hand_whose_input_names_no_winner_is_seat_0s():
    """settlement_text reads the calculator's input, whose ``winner`` defaults to 0 (mj_env/calculator.py): a
    settlement made of ``evaluate``'s output with an input that leaves it out is East's win (from a mutation test:
    a default of seat 1 went unnoticed, every test named the winner)."""
    from mj_env.calculator import evaluate
    from mj_env.render import settlement_text

    given = {"hand": "123m456m789p23s55s", "win_tile": "1s"}
    text = settlement_text({**evaluate(given), "input": given})
    assert text.startswith("seat 0 (East) wins by self-draw: 3 fan (")
    assert text.endswith(" | scores +9 -3 -3 -3")


def test_render_table_draws_table_0_unless_told_and_says_a_hand_ended_early_is_over():
    """render_table(rules, st, b=0, ended=None): without ``b`` it draws table 0 of a batch; with ``ended`` (a hand
    the engine has not ended: the AEC env's illegal action) it says "hand over: <ended>" and marks no seat to act
    (from a mutation test: a default of the last table, and ``over`` read from the engine's phase only, went
    unnoticed)."""
    from mj_env.render import render_table
    from mj_env.vector import MahjongVectorEnv

    env = MahjongVectorEnv(num_envs=2)
    env.reset(seed=0)
    st = env.engine.state
    assert render_table(env.rules, st) == render_table(env.rules, st, 0) != render_table(env.rules, st, 1)
    live = render_table(env.rules, st, 0).splitlines()
    assert live[-1].startswith("TURN: seat 0 (East) to act") and any(line.startswith(">") for line in live)
    over = render_table(env.rules, st, 0, ended="seat 0 acted illegally").splitlines()
    assert over[-1] == "hand over: seat 0 acted illegally" and not any(line.startswith(">") for line in over)
    env.close()


# ---- mj_env/lines.py ----

def test_the_default_bound_is_16_mib_line_break_included():
    """MAX_LINE_BYTES: "Longest line read (16 MiB, line break included)": a line of exactly that many bytes is read
    whole by `bounded_lines`' default, one byte more is `TooLong` (from a mutation test: a bound of 8 MiB went
    unnoticed, every test gave its own limit)."""
    import io

    from mj_env.lines import TooLong, bounded_lines

    size = 16 * 1024 * 1024
    whole = b"x" * (size - 1) + b"\n"
    assert [len(x) for x in bounded_lines(io.BytesIO(whole + b"{}\n"))] == [size, 3]
    got = list(bounded_lines(io.BytesIO(b"x" + whole + b"{}\n")))
    assert isinstance(got[0], TooLong) and got[0].limit == size and got[1:] == [b"{}\n"]
    assert got[0].message() == "line longer than 16,777,216 bytes: skipped (one JSON object per line is expected)"


def test_load_json_names_the_first_key_given_twice_when_several_are():
    """load_json: `KeyGivenTwice` "naming the first such field" (from a mutation test: reading on past the first
    repeated key named the last one, 'b', and went unnoticed)."""
    from mj_env.lines import KeyGivenTwice, load_json

    with pytest.raises(KeyGivenTwice, match="^field 'a' is given twice$"):
        load_json('{"a": 1, "a": 2, "b": 1, "b": 2}')
    with pytest.raises(KeyGivenTwice, match="^field 'a' is given twice in x$"):
        load_json('{"x": {"a": 1, "a": 2, "b": 1, "b": 2}}')


def test_a_lone_surrogate_that_stands_for_no_byte_is_written_as_its_escape():
    """utf8_text: a surrogate that no byte made (``\\ud800``, which ``surrogateescape`` cannot encode either) comes
    back as its backslash escape, text UTF-8 can encode (from a mutation test: that branch returning None went
    unnoticed); terminal_line shows it so."""
    from mj_env.lines import terminal_line, utf8_text

    assert utf8_text("a\ud800b") == "a\\ud800b"
    assert terminal_line("name \ud800.pt") == "name \\ud800.pt"


def test_guard_output_wraps_each_stream_once_however_often_it_is_called(monkeypatch):
    """guard_output: "Once only": a second call leaves the wrapped streams as they are (from a mutation test:
    wrapping a wrapper again went unnoticed)."""
    import io
    import sys

    from mj_env.lines import DropWhenReaderGone, guard_output

    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    guard_output("prog")
    first = sys.stdout, sys.stderr
    guard_output("prog")
    assert (sys.stdout, sys.stderr) == first
    assert isinstance(sys.stdout, DropWhenReaderGone) and sys.stdout.stream is out and sys.stdout.prog == "prog"
    assert isinstance(sys.stderr, DropWhenReaderGone) and sys.stderr.stream is err and sys.stderr.prog is None


def test_a_closed_stream_stays_none_when_the_null_device_cannot_be_opened(monkeypatch):
    """guard_output: a closed stream (None) becomes the null device; where that cannot be opened it is left None,
    as Python made it, not wrapped (from a mutation test: a wrapper around None, whose first write is an
    AttributeError, went unnoticed)."""
    import io
    import sys

    from mj_env import lines

    def refuse(*args, **kwargs):
        raise OSError("no null device")

    monkeypatch.setattr(lines, "open", refuse, raising=False)
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    lines.guard_output("prog")
    assert sys.stdout is None and isinstance(sys.stderr, lines.DropWhenReaderGone)
