"""An array-like that NumPy cannot read, for tests of what outside code may hand the envs."""
from __future__ import annotations


class Unreadable:
    """Converts as a torch tensor that needs grad does: ``np.asarray`` raises a RuntimeError."""

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad")
