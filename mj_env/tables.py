"""Per-suit wildcard tables for the win, wait and distance checks of ``mj_env.hand``.

A hand splits into four *parts* that never share a meld: the suits m, p, s (9 kinds each) and
the honors (7 kinds, which never form sequences). A part's tile counts (each 0-4) are its key::

    key = c[0] + 5*c[1] + 25*c[2] + ... + 5**8 * c[8]        suits:  5**9 = 1,953,125 keys
    key = c[0] + 5*c[1] + ... + 5**6 * c[6]                  honors: 5**7 =    78,125 keys

The tables below are indexed by a *part index*: the key itself for a suit, and
``HONOR_OFFSET + key`` for the honors, so one gather serves all four parts of a hand.

- ``need`` (N, 2) uint8: ``need[k, 0]`` is the fewest wildcards that turn the part into
  complete melds (triplets, sequences); ``need[k, 1]`` into melds plus exactly one pair. A
  wildcard may stand for any tile, a fifth copy of a kind included (docs/RULES.md 5), so nothing is
  impossible and no entry is a sentinel.
- ``kept`` (N, 5, 2) uint8: ``kept[k, m, p]`` is the most tiles of the part that fit into ``m``
  melds (0-4) and ``p`` pairs (0-1), the other slots being free (wildcards, or tiles still to
  be drawn). ``hand.tiles_to_win`` combines the parts' rows.
- ``packed`` (N,) uint32: what ``hand.is_win`` needs of a part in one word, so that a hand costs
  one gather, one sum and one min (fields are added across parts without carries)::

      bit 31      24 23      16 15       8 7        0
         +----------+----------+----------+----------+
         | need1 -  |   odd    |  tiles   |  need0   |
         | need0 +1 |  counts  |          |          |
         +----------+----------+----------+----------+

  need0 of a part is at most 14 (seven lone honors) and need1 - need0 + 1 at most 3, so the
  four parts' sums stay inside their bytes; the min over parts of the top byte picks the part
  that should hold the pair.
- ``plus`` (2, N, 9) uint8: ``plus[:, k, i]`` is (need0, need1) of the part with one more tile
  of its kind i. A part's nine (suits) or seven (honors; the last two columns unused)
  candidates sit in one row, so ``hand.waits`` reads them with one gather per plane. A kind
  held four times gets its fifth copy here (``need_of``): waits need no special case.

The tables are built by dynamic programming over the keys (a few seconds), cached as an
``.npz`` (in a checkout ``mj_env/data/`` when writable, else ``~/.cache/mj_env/``; an installed
copy the other way round: ``cache_paths``) and loaded on first use,
once per process. ``python -m mj_env.tables --rebuild`` rebuilds the cache.
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

from .lines import ArgumentParser, guard_output

SUIT_KINDS = 9
HONOR_KINDS = 7
MAX_COUNT = 4
"""Counts 0-4 per kind have a key; a fifth copy (a wait on a kind held four times) is reduced
to these by ``need_of``."""
SUIT_KEYS = 5 ** SUIT_KINDS
HONOR_KEYS = 5 ** HONOR_KINDS
HONOR_OFFSET = SUIT_KEYS
"""The honors' part index is ``HONOR_OFFSET + key``."""
N_ENTRIES = SUIT_KEYS + HONOR_KEYS
MAX_MELDS = 4
"""``kept`` covers 0-4 melds: a concealed hand holds at most four melds and a pair."""

# Bit layout of ``packed`` (see the module docstring).
NEED0_SHIFT, TILES_SHIFT, ODD_SHIFT, DIFF_SHIFT = 0, 8, 16, 24
DIFF_BIAS = 1
"""need1 - need0 is -1..2 (a pair of naturals needs one wildcard less as a pair than as a
triplet; a part may need two wildcards more to hold a pair), stored plus this bias."""

FORMAT_VERSION = 2
"""Bump when the tables' meaning or layout changes; a cache of another version is rebuilt."""
FILE_NAME = f"hand_tables_v{FORMAT_VERSION}.npz"
NAMES = ("need", "kept", "packed", "plus")

_cache: dict[str, np.ndarray] = {}
_source: Path | None = None
_lock = threading.RLock()


def _new_lock_in_child() -> None:
    """A process forked while another thread held ``_lock`` (building or reading the tables: Gymnasium's
    ``AsyncVectorEnv`` with ``fork`` made while a thread starts an env) inherits it held by a thread it does not
    have, and its first table would wait for it forever: the child gets a lock of its own (as ``logging`` does)."""
    global _lock
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


# --------------------------------------------------------------------------- building


def _digits(n_kinds: int) -> np.ndarray:
    """(5**n_kinds, n_kinds) int8: the counts of every key."""
    keys = np.arange(5 ** n_kinds, dtype=np.int32)
    out = np.empty((keys.size, n_kinds), dtype=np.int8)
    for i in range(n_kinds):
        out[:, i] = (keys // 5 ** i) % 5
    return out


def build_part(n_kinds: int, sequences: bool) -> tuple[np.ndarray, np.ndarray]:
    """``need`` (5**n, 2) and ``kept`` (5**n, 5, 2) of a part with ``n_kinds`` kinds.

    Dynamic programming in layers of equal tile count. The lowest kind ``i`` present must lie
    in some group: a triplet of i, the pair of i, or a sequence through i (windows starting at
    i-2, i-1 or i; the kinds below i are absent, so a window starting below i is filled with
    wildcards there; of those, only 7-8-9 for the lowest kind 8 can beat the others, as no window
    starts at 8 and the 9s may be present: a window at i-2 holds i alone, no better than the triplet
    of i, and one at i-1 holds no more than the window at i). For ``kept``
    the lowest tile may also be left out. Each group takes every natural tile it can (as many
    copies of i as it holds, and the other kinds of a sequence where present): swapping a
    wildcard in one group with the same natural tile in another keeps both groups valid, so
    this loses nothing. Every move removes at least one tile, so a layer reads only lower ones.
    """
    digits = _digits(n_kinds)
    n_keys = digits.shape[0]
    pow5 = 5 ** np.arange(n_kinds, dtype=np.int32)
    total = digits.sum(axis=1, dtype=np.int32)
    lowest = np.argmax(digits > 0, axis=1)

    big = np.uint8(200)
    need = np.full((n_keys, 2), big, dtype=np.uint8)
    kept = np.zeros((n_keys, MAX_MELDS + 1, 2), dtype=np.uint8)
    need[0] = (0, 2)  # nothing: no wildcard for melds, two wildcards for a pair

    order = np.argsort(total, kind="stable")
    bounds = np.searchsorted(total[order], np.arange(total.max() + 2))
    for t in range(1, int(total.max()) + 1):
        ks = order[bounds[t]:bounds[t + 1]].astype(np.int32)
        d = digits[ks].astype(np.int32)
        rows = np.arange(ks.size)
        i = lowest[ks]
        ci = d[rows, i]
        pi = pow5[i]

        # Triplet of i (wildcards fill it up), pair of i.
        a = np.minimum(ci, 3)
        k3 = ks - a * pi
        b = np.minimum(ci, 2)
        k2 = ks - b * pi
        n0 = need[k3, 0] + (3 - a)
        n1 = np.minimum(need[k3, 1] + (3 - a), need[k2, 0] + (2 - b))
        kp = kept[ks - pi]  # leave one i out (a copy: fancy indexing)
        kp[:, 1:, :] = np.maximum(kp[:, 1:, :], kept[k3, :-1, :] + a[:, None, None])
        kp[:, :, 1] = np.maximum(kp[:, :, 1], kept[k2, :, 0] + b[:, None])

        if sequences:
            for off in range(3):
                s = i - off  # the window s, s+1, s+2 holds i at offset `off`
                ok = (s >= 0) & (s <= n_kinds - 3)
                if not ok.any():
                    continue
                r, k, s_ok = rows[ok], ks[ok].copy(), s[ok]
                used = np.zeros(r.size, dtype=np.int32)
                for q in range(3):
                    present = d[r, s_ok + q] > 0
                    k -= present * pow5[s_ok + q]
                    used += present
                n0[ok] = np.minimum(n0[ok], need[k, 0] + (3 - used))
                n1[ok] = np.minimum(n1[ok], need[k, 1] + (3 - used))
                sub = kp[ok]
                sub[:, 1:, :] = np.maximum(sub[:, 1:, :], kept[k, :-1, :] + used[:, None, None])
                kp[ok] = sub

        need[ks, 0] = n0
        need[ks, 1] = n1
        kept[ks] = kp
    assert need.max() < big
    return need, kept


def honor_need_by_count(max_count: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Wildcards one honor kind needs for melds only / for melds plus the pair, by its count.

    Honors form no sequences, so a kind with c tiles needs (-c) % 3 wildcards to become
    triplets, and with the pair, the fewest w with c + w = 2 (mod 3) and c + w >= 2.
    (max_count + 1,) int arrays; used to check the honors table.
    """
    c = np.arange(max_count + 1)
    return (-c) % 3, (2 - c) % 3


def need_of(counts: np.ndarray, need: np.ndarray, sequences: bool) -> np.ndarray:
    """need (n, 2) int64 of parts ``counts`` (n, kinds) of any size, counts above 4 included;
    ``need`` is that part's table (indexed by key: ``need[:SUIT_KEYS]`` or the honors' rows).

    A kind p held five times or more has no key, so it is reduced: in some best reading p is in
    a triplet of natural tiles (take it out), or in a sequence (take it out, with the natural
    tiles of its window where present; a wildcard fills a missing one). Otherwise every copy of
    p would sit in triplets completed by wildcards, or in the pair, two at most each; with five
    copies those triplets hold three or more, and regrouping them as p p p plus the rest needs
    no more wildcards, so the first case holds. Repeats until every count is 0-4.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n_kinds = counts.shape[1]
    pow5 = 5 ** np.arange(n_kinds, dtype=np.int64)
    out = np.empty((counts.shape[0], 2), dtype=np.int64)
    over = (counts > MAX_COUNT).any(axis=1)
    out[~over] = need[counts[~over] @ pow5]
    if over.any():
        sub = counts[over]
        rows = np.arange(sub.shape[0])
        p = np.argmax(sub > MAX_COUNT, axis=1)
        trip = sub.copy()
        trip[rows, p] -= 3
        best = need_of(trip, need, sequences)
        for off in range(3) if sequences else ():
            start = p - off  # the window start, start+1, start+2 holds p
            ok = (start >= 0) & (start <= n_kinds - 3)
            seq, s_ok = sub[ok].copy(), start[ok]
            r = np.arange(seq.shape[0])
            missing = np.zeros(seq.shape[0], dtype=np.int64)
            for q in range(3):
                present = seq[r, s_ok + q] > 0
                seq[r, s_ok + q] -= present
                missing += ~present
            best[ok] = np.minimum(best[ok], need_of(seq, need, sequences) + missing[:, None])
        out[over] = best
    return out


def build_plus(need: np.ndarray, n_kinds: int, sequences: bool) -> np.ndarray:
    """``plus`` (2, 5**n, 9) of a part with ``n_kinds`` kinds from its ``need`` table."""
    digits = _digits(n_kinds)
    keys = np.arange(digits.shape[0], dtype=np.int32)
    out = np.zeros((2, keys.size, SUIT_KINDS), dtype=np.uint8)  # honors: kinds 8, 9 stay 0
    for i in range(n_kinds):
        full = np.flatnonzero(digits[:, i] == MAX_COUNT)
        nxt = keys + 5 ** i
        nxt[full] = 0  # a fifth copy has no next key: computed below
        got = need[nxt]
        fifth = digits[full].astype(np.int64)
        fifth[:, i] += 1
        got[full] = need_of(fifth, need, sequences)
        out[:, :, i] = got.T
    return out


def build() -> dict[str, np.ndarray]:
    """All tables, freshly computed (see the module docstring)."""
    s_need, s_kept = build_part(SUIT_KINDS, sequences=True)
    h_need, h_kept = build_part(HONOR_KINDS, sequences=False)
    need = np.concatenate([s_need, h_need])
    kept = np.concatenate([s_kept, h_kept])
    plus = np.concatenate([build_plus(s_need, SUIT_KINDS, True), build_plus(h_need, HONOR_KINDS, False)], axis=1)

    tiles = np.concatenate([_digits(n).sum(axis=1, dtype=np.uint32) for n in (SUIT_KINDS, HONOR_KINDS)])
    odd = np.concatenate([(_digits(n) % 2).sum(axis=1, dtype=np.uint32) for n in (SUIT_KINDS, HONOR_KINDS)])
    diff = need[:, 1].astype(np.int32) - need[:, 0] + DIFF_BIAS
    assert need[:, 0].max() < 64 and 0 <= diff.min() and diff.max() < 64
    packed = (
        (need[:, 0].astype(np.uint32) << NEED0_SHIFT)
        | (tiles << TILES_SHIFT)
        | (odd << ODD_SHIFT)
        | (diff.astype(np.uint32) << DIFF_SHIFT)
    )
    return {"need": need, "kept": kept, "packed": packed, "plus": plus}


# --------------------------------------------------------------------------- the cache


def cache_paths() -> list[Path]:
    """Where the cache is looked for and written, in order. In a checkout (``pyproject.toml`` beside
    the package, as for ``pip install -e .``): inside the package (``mj_env/data/``, which git
    ignores), then the user cache. In an installed copy (site-packages) the user cache comes first,
    so that the package folder is not written into and ``pip uninstall`` leaves no file behind (a
    leftover ``mj_env/data/`` made ``import mj_env`` find an empty namespace package); its data folder
    is read if it holds the tables and is written only when the user cache cannot be. The user cache
    is left out where there is no home directory (no HOME and a user id without a passwd entry, as in
    a container run under an arbitrary uid)."""
    package = Path(__file__).resolve().parent
    paths = [package / "data" / FILE_NAME]
    xdg = os.environ.get("XDG_CACHE_HOME")
    try:  # a relative XDG_CACHE_HOME is ignored, as the XDG spec asks: each working directory would get a cache
        home = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    except (RuntimeError, KeyError):  # Path.home(): RuntimeError since 3.11, KeyError (pwd) before
        return paths
    user = home / "mj_env" / FILE_NAME
    return paths + [user] if (package.parent / "pyproject.toml").is_file() else [user] + paths


def save(tables: dict[str, np.ndarray], path: Path | None = None) -> Path:
    """Write the tables to ``path`` (default: the first writable cache path); returns the path.

    Compressed (about 7 MiB instead of 66). The file is written beside its target and renamed
    into place, so a concurrent reader (a parallel test worker) sees no file or a whole one.
    """
    candidates = [Path(path)] if path is not None else cache_paths()
    errors = []
    for target in candidates:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tables-", suffix=".npz")
            try:
                with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                    # what np.savez_compressed writes, at a faster compression level
                    for name, arr in {"version": np.int64(FORMAT_VERSION), **tables}.items():
                        with z.open(f"{name}.npy", "w", force_zip64=True) as member:
                            np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=False)
                os.chmod(tmp, 0o644)  # mkstemp makes it private; the cache is for every user
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            _remove_stale_temporaries(target.parent)
            return target
        except OSError as e:
            errors.append(f"{target}: {e}")
    raise OSError("cannot write the hand tables cache: " + "; ".join(errors))


STALE_SECONDS = 3600


def _remove_stale_temporaries(folder: Path) -> None:
    """Delete ``.tables-*.npz`` files in ``folder`` untouched for an hour: what a builder killed while
    writing (SIGKILL, a power cut) left behind, 7 MiB each. A live writer's file is seconds old."""
    cutoff = time.time() - STALE_SECONDS
    try:  # (a folder that cannot be listed, EIO on a network share: the save itself succeeded)
        leftovers = list(folder.glob(".tables-*.npz"))
    except OSError:
        return
    for leftover in leftovers:
        try:
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
        except OSError:  # gone already, or not ours to delete: leave it
            pass


_SHAPES = {"need": (N_ENTRIES, 2), "kept": (N_ENTRIES, MAX_MELDS + 1, 2), "packed": (N_ENTRIES,),
           "plus": (2, N_ENTRIES, SUIT_KINDS)}
_DTYPES = {"need": np.uint8, "kept": np.uint8, "packed": np.uint32, "plus": np.uint8}


def read(path: Path, names=NAMES) -> dict[str, np.ndarray] | None:
    """The tables ``names`` stored in ``path``, or None if the file is missing, of another
    version or damaged. Each table is a member of the ``.npz`` and is read on its own."""
    try:
        # opened here, not by np.load: a file cut short fails in NumPy's zip reader after np.load has let go of the
        # file it opened, which stayed open ('ResourceWarning: unclosed file' under python -X dev)
        with open(path, "rb") as fh:
            f = np.load(fh)
            if not isinstance(f, np.lib.npyio.NpzFile):  # a lone array (an .npy under this name): no context manager
                return None
            with f:
                if int(f["version"]) != FORMAT_VERSION:
                    return None
                out = {name: f[name] for name in names}
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    if any(out[n].shape != _SHAPES[n] or out[n].dtype != _DTYPES[n] for n in names):
        return None
    return out


def _install(tables: dict[str, np.ndarray]) -> None:
    for arr in tables.values():
        arr.setflags(write=False)  # shared by every caller: never changed in place
    _cache.update(tables)


def load(*, rebuild: bool = False, verbose: bool = False) -> Path | None:
    """Make sure a valid cache file exists (building and saving the tables if not, or if
    ``rebuild``) and forget the tables held in memory. Returns the cache file (None if none
    could be written; the built tables are then kept in memory)."""
    global _source
    with _lock:
        _cache.clear()
        _source = None
        if not rebuild:
            for path in cache_paths():
                if read(path, names=()) is not None:
                    _source = path
                    return path
        t0 = time.perf_counter()
        tables = build()
        try:
            _source = save(tables)
        except OSError as e:  # still usable in this process, just built again next time
            warnings.warn(f"hand tables not cached: {e}", RuntimeWarning, stacklevel=2)
        if verbose:
            print(f"built hand tables in {time.perf_counter() - t0:.1f} s, saved to {_source}", file=sys.stderr)
        _install(tables)
        return _source


def get(name: str) -> np.ndarray:
    """One table by name ('need', 'kept', 'packed' or 'plus'), read-only.

    Read from the cache file on first use and kept for the life of the process; the file is
    found (or the tables built and saved) on the first call of all.
    """
    arr = _cache.get(name)
    if arr is not None:
        return arr
    if name not in NAMES:
        raise KeyError(f"no hand table {name!r}; the tables are {NAMES}")
    with _lock:  # re-entrant: load() takes it too
        if name not in _cache:
            if _source is None:
                load()
            if name not in _cache:
                assert _source is not None  # load() found or wrote the file, or else installed every table
                got = read(_source, names=(name,))
                if got is None:  # the file went away or was replaced by another version
                    load(rebuild=True)
                else:
                    _install(got)
        return _cache[name]


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m mj_env.tables", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="build the tables again and rewrite the cache")
    args = parser.parse_args(argv)
    path = load(rebuild=args.rebuild, verbose=True)
    size = f"{path.stat().st_size / 2**20:.1f} MiB" if path is not None else "not written"
    print(f"hand tables v{FORMAT_VERSION}: {N_ENTRIES} part keys, cache {path} ({size})")
    return 0


if __name__ == "__main__":
    # (here, as every command line does, not in main: main(argv) called in a user's process leaves their
    # sys.stdout and sys.stderr as they were)
    guard_output("python -m mj_env.tables")
    raise SystemExit(main())
