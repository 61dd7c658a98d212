"""The feature-size tables of agents/networks.py's module docstring: each row's size is what its source moves in
the network's features (v1, v2), the tile network's channel counts follow the observation layout, and the layouts
a network takes are the environment's observations."""
from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra: without torch these tests skip (tests/test_python_runtime.py)

import torch

import agents.networks as nets
import mj_env
from mj_env import features as mjf
from mj_env import observation as ob
from mj_env.tiles import N_KINDS, SUIT_SIZE


def _docstring_tables() -> list[list[tuple[str, str, str]]]:
    """The (feature, size, from) rows of each table in agents/networks.py's module docstring."""
    tables, rows, rule_lines = [], [], 0
    for line in nets.__doc__.splitlines():
        if line.startswith("====="):
            rule_lines += 1
            if rule_lines % 3 == 0:
                tables.append(rows[1:])  # the first row is the heading
                rows = []
        elif rule_lines % 3 in (1, 2) and line.strip():
            rows.append(tuple(part.strip() for part in re.split(r"\s{2,}", line.strip(), maxsplit=2)))
    return tables


def _size(text: str) -> int:
    """"4 x 34" -> 136, "34" -> 34."""
    return int(np.prod([int(n) for n in text.split(" x ")]))


def _columns_moved(fn, obs_a: np.ndarray, obs_b: np.ndarray) -> np.ndarray:
    """The output columns of ``fn`` that differ between two observation batches."""
    a, b = fn(torch.as_tensor(obs_a)), fn(torch.as_tensor(obs_b))
    return np.flatnonzero((a != b).any(dim=0).numpy())


def test_the_v1_feature_table_sizes_are_what_each_source_moves_in_the_features():
    # each row's size from the observation layout (mj_env.observation) and, independently, from the columns of
    # features() that move when only that row's planes change; rows in the table's order, columns contiguous
    (v1, _v2) = _docstring_tables()
    assert [r[0] for r in v1] == ["natural hand, thermometer", "melds, rivers of 4 seats",
                                  "indicator, 惠牌, claim, drawn", "惠牌 held, thermometer", "scalars"]
    layout = [4 * N_KINDS,  # counts 1-4 of a kind (4 copies of each)
              (ob.P_MELDS.stop - ob.P_MELDS.start + ob.P_RIVERS.stop - ob.P_RIVERS.start) * N_KINDS,
              len([ob.P_INDICATOR, ob.P_HUI, ob.P_CLAIM, ob.P_DRAWN]) * N_KINDS,
              4, ob.N_SCALARS]
    assert [_size(r[1]) for r in v1] == layout
    assert nets.N_FEATURES == sum(layout)

    zero = np.zeros((1, ob.N_PLANES, N_KINDS), dtype=np.uint8)

    def with_planes(planes, value, extra=None):
        o = zero.copy()
        o[:, planes] = value
        if extra:
            extra(o)
        return o

    def hui_held(o):
        o[:, ob.P_HUI, 3] = 1

    hui_only = with_planes([], 0, hui_held)
    moved = [
        _columns_moved(nets.features, zero, with_planes([ob.P_HAND], 4)),
        _columns_moved(nets.features, zero, with_planes(list(range(ob.P_MELDS.start, ob.P_RIVERS.stop)), 4)),
        _columns_moved(nets.features, zero, with_planes([ob.P_INDICATOR, ob.P_HUI, ob.P_CLAIM, ob.P_DRAWN], 1)),
        _columns_moved(nets.features, hui_only, with_planes([], 0, lambda o: (hui_held(o), o.__setitem__(
            (slice(None), ob.P_HAND, 3), 4)))),
        _columns_moved(nets.features, zero, with_planes([ob.P_SCALARS], 1)),
    ]
    start = 0
    for row, cols, size in zip(v1, moved, layout):
        assert cols.tolist() == list(range(start, start + size)), row[0]
        start += size
    assert start == nets.features(torch.as_tensor(zero)).shape[1]


def test_the_v2_feature_table_sizes_are_what_each_extra_plane_moves():
    (_v1, v2) = _docstring_tables()
    assert len(v2) == 7 and all(_size(r[1]) == N_KINDS for r in v2)  # one column per kind each
    assert nets.V2_FEATURES == len(v2) * N_KINDS
    # which extra plane each row reads, from its "from" column; the four planes are mj_env.features' extras
    plane_of = {"P_DISCARD_NEED": mjf.P_DISCARD_NEED, "P_DISCARD_IMPROVE": mjf.P_DISCARD_IMPROVE,
                "P_OPTION_NEED": mjf.P_OPTION_NEED, "P_OPTION_IMPROVE": mjf.P_OPTION_IMPROVE}
    assert sorted(plane_of.values()) == list(range(ob.N_PLANES, mjf.N_PLANES_V2)) and mjf.N_EXTRA == 4
    rows_of = {}
    for i, row in enumerate(v2):
        (name,) = [n for n in plane_of if re.search(rf"\b{n}\b", row[2])]
        rows_of.setdefault(name, []).append(i)
    rng = np.random.default_rng(0)
    base = np.zeros((256, mjf.N_PLANES_V2, N_KINDS), dtype=np.uint8)
    for name, plane in plane_of.items():
        varied = base.copy()
        varied[:, plane] = rng.integers(0, 6, size=(256, N_KINDS))
        cols = _columns_moved(nets.v2_features, base, varied) - nets.N_FEATURES
        want = {i * N_KINDS + k for i in rows_of[name] for k in range(N_KINDS)}
        if name == "P_OPTION_NEED":  # its second row, "option better than as is", never moves at "as is" itself
            want.discard(rows_of[name][1] * N_KINDS + mjf.OPT_NOW)
        assert cols.tolist() == sorted(want), name
    assert nets.v2_features(torch.as_tensor(base)).shape[1] == nets.N_FEATURES + nets.V2_FEATURES
    # the tile network: its first three v2 rows per tile, the other four (7 - 3) pooled
    assert (nets.V2_TILE_CHANNELS, nets.V2_GLOBALS) == (3, (len(v2) - 3) * N_KINDS)


def test_the_tile_network_channel_counts_follow_the_layout():
    # tile_features' docstring: thermometer (4), is the 惠牌 (1), melds and rivers (8), indicator, claimed and
    # drawn tile (3), copies seen (1), rank one-hot and honor (10); globals: the scalars and a thermometer (4)
    table_planes = ob.P_RIVERS.stop - ob.P_MELDS.start
    assert nets.N_TILE_CHANNELS == 4 + 1 + table_planes + len([ob.P_INDICATOR, ob.P_CLAIM, ob.P_DRAWN]) + 1 \
        + (SUIT_SIZE + 1)
    assert nets.N_GLOBALS == ob.N_SCALARS + 4
    counts = re.findall(r"\((\d+)\)", nets.tile_features.__doc__)
    assert [int(c) for c in counts] == [4, 1, table_planes, 3, 1, SUIT_SIZE + 1, 4]
    per_tile, glob = nets.tile_features(torch.zeros((1, ob.N_PLANES, N_KINDS), dtype=torch.uint8))
    assert per_tile.shape[1:] == (nets.N_TILE_CHANNELS, N_KINDS) and glob.shape[1] == nets.N_GLOBALS
    # the last SUIT_SIZE + 1 channels are the rank one-hot: exactly one per kind, whatever is observed
    ranks = per_tile[0, -(SUIT_SIZE + 1):]
    assert ranks.sum(dim=0).tolist() == [1.0] * N_KINDS


def test_the_layouts_a_network_takes_are_the_environments_observations():
    for key, (name, planes) in mjf.OBS_LAYOUTS.items():
        version, shape = nets.LAYOUTS[name]
        assert version == int(name.rsplit("_v", 1)[1]) == int(key[1:])
        env = mj_env.env(obs=key)
        assert tuple(shape) == env.observation_space("player_0")["observation"].shape == (planes, N_KINDS)
