"""Shared pieces of the benchmarks: the random legal-action sampler and a machine description.

``MaskedSampler`` draws, for every row of a legal-action mask, one legal action uniformly at
random, with one random number per row and no Python loop over rows. It is what a user's random
(or masked-policy) loop pays per step, so the benchmarks time it inside the loop and also report
its cost on its own.
"""
from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys

import numpy as np


def _select_table() -> np.ndarray:
    table = np.zeros((256, 8), dtype=np.uint8)
    for v in range(256):
        bits = [i for i in range(8) if (v >> i) & 1]
        table[v, :len(bits)] = bits
    return table


# _SELECT[v, r]: position (0 = least significant) of the r-th set bit of the byte v; r < popcount(v).
_SELECT = _select_table()

# x * _GATHER >> 56 packs a uint64 whose 8 bytes are each 0 or 1 (little-endian) into one byte,
# bit i = byte i.
_GATHER = np.uint64(0x0102040810204080)
# x * _SUM >> 56 is the sum of the 8 bytes (each 0 or 1): the legal actions in the word.
_SUM = np.uint64(0x0101010101010101)
_SHIFT = np.uint64(56)

TINY_BATCH = 16
"""Up to this many rows the sampler draws one float64 per action and takes the argmax (fewest calls)."""
SMALL_BATCH = 512
"""Up to this many rows (and above TINY_BATCH) it uses ``flatnonzero``; above, 64-bit words."""


class MaskedSampler:
    """Uniform random legal actions for a batch of masks.

    ``sampler(mask)`` takes a (n, A) mask (bool, or int8/uint8 of 0/1) and returns (n,) int64
    actions with ``mask[i, a[i]]`` true. A row with no legal action (a table in END in the bare
    engine, whose action is ignored) gets action 0.

    Each row's action is uniform over its legal actions: exactly (up to the 53-bit resolution
    of one float64 per row) for n > TINY_BATCH. Method for n <= TINY_BATCH: argmax over legal actions of 1 + uniform float64 (illegal: 0); ties
    have probability below 1e-13. For n <= SMALL_BATCH: the flat indices of the legal actions,
    each row's first one and count by ``searchsorted``, one uniform index per row. Above
    (the batched case): copy the mask's bytes into a (n, 8 * ceil(A/8)) buffer read as
    64-bit words, each word holding 8 actions; count the legal actions per word (popcount),
    accumulate over the words, draw one rank r uniform in [0, legal count) per row, find the word
    holding the r-th legal action and the byte within it (pack the word's 8 bytes into one byte,
    then a 256x8 table). That is a few passes over the mask's bytes and over (A/8, n) counts, a
    fraction of drawing A random numbers per row as ``(rng.random(mask.shape) * mask).argmax(1)``
    does (see ``float_argmax_sample``, kept to compare).
    """

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self._buf = None

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            mask = mask.view(np.bool_) if mask.dtype.itemsize == 1 else mask != 0
        n, a = mask.shape
        if n <= TINY_BATCH:
            r = self.rng.random(mask.shape)
            r += 1.0
            r *= mask
            return r.argmax(1)                              # a row with no legal action: 0
        if n <= SMALL_BATCH:
            return self._small(mask)
        nw = (a + 7) // 8
        buf = self._buf
        if buf is None or buf.shape != (n, nw * 8):
            buf = self._buf = np.zeros((n, nw * 8), dtype=np.uint8)   # padding stays 0
        buf[:, :a] = mask.view(np.uint8)
        words = buf.view(np.uint64)                                    # (n, nw)
        per_word = ((words * _SUM) >> _SHIFT).astype(np.int16).T      # (nw, n) legal actions per word
        cum = np.empty((nw, n), dtype=np.int16)                        # legal actions in words 0..j
        cum[0] = per_word[0]
        for j in range(1, nw):
            np.add(cum[j - 1], per_word[j], out=cum[j])
        total = cum[-1]
        r = (self.rng.random(n) * total).astype(np.int16)              # rank in [0, total)
        word = np.add.reduce(cum <= r, axis=0, dtype=np.int16).astype(np.intp)
        np.minimum(word, nw - 1, out=word)                             # rows with no legal action
        cols = np.arange(n)
        before = np.where(word > 0, cum[word - 1, cols], 0)
        byte = (words[cols, word] * _GATHER) >> _SHIFT
        out = word * 8 + _SELECT[byte, r - before]
        out[total == 0] = 0
        return out

    def _small(self, mask: np.ndarray) -> np.ndarray:
        n, a = mask.shape
        nz = np.flatnonzero(mask)
        if not len(nz):
            return np.zeros(n, dtype=np.int64)
        offsets = np.arange(0, n * a, a)
        start = np.searchsorted(nz, offsets)
        count = np.diff(start, append=len(nz))
        pick = np.minimum(start + (self.rng.random(n) * count).astype(np.int64), len(nz) - 1)
        out = nz[pick] - offsets
        out[count == 0] = 0
        return out


def float_argmax_sample(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """The one-line masked sampler, ``(rng.random(mask.shape, float32) * mask).argmax(1)``:
    one random number per action. Uniform up to float32 ties. Reported beside MaskedSampler."""
    return (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def code_version(root) -> dict:
    """The commit measured, and which measured files differed from it (uncommitted edits or new files):
    the engine's (``mj_env/``) and the benchmarks' own Python files (``benchmarks/*.py``: the loops, the
    sampler and the counting are part of every figure). Other files (docs, tests, the stored results) are
    not listed: they change no figure."""
    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10,
                                  check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "HEAD")

    def changed(*paths):
        return [line.split(None, 1)[1] for line in git("status", "--porcelain", "--", *paths).splitlines()
                if line.strip()]  # "XY path"; the output was stripped, so the first line may start at Y

    return {"commit": commit or None, "mj_env_uncommitted_changes": changed("mj_env"),
            "benchmarks_uncommitted_changes": changed("benchmarks/*.py")}


def code_line(code: dict) -> str:
    """``code: commit <10 hex> [with uncommitted changes in ...]``: the line every benchmark prints."""
    dirty = code.get("mj_env_uncommitted_changes", []) + code.get("benchmarks_uncommitted_changes", [])
    return (f"code: commit {(code.get('commit') or '?')[:10]}"
            + (f" with uncommitted changes in {', '.join(dirty)}" if dirty else ""))


def machine_line(m: dict) -> str:
    """``machine: CPU, N cores, M GiB; python X, numpy Y; date; load average [...]``: the line every benchmark
    prints of ``machine_info()``."""
    return (f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; python {m['python']}, "
            f"numpy {m['numpy']}; {m['date']}; load average {m['load_average']}")


def machine_info() -> dict:
    """What the numbers were measured on (stored with every result file)."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):  # (Windows has no os.getloadavg)
        load = None
    mem_gib = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_gib = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "load_average": load,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "platform": platform.platform(),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }


SINGLE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1", "RAYON_NUM_THREADS": "1",
}
"""Set in every measured child process: one thread per implementation (BLAS, OpenMP, Rayon)."""
