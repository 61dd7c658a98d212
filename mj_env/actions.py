"""The action layout: one fixed ``Discrete(N_ACTIONS)`` space for every rule set.

::

    id        name            meaning
    0-33      discard 1m..7z  discard that tile on one's own turn
    34-67     kong 1m..7z     concealed kong (暗杠) or added kong (补杠) of that tile, own turn
    68        win             win: self-draw on one's turn, or on the discard / robbed kong
    69        pass            decline a claim (claim and rob windows only)
    70        pong            pong (碰) the discard
    71        kong            exposed kong (明杠) on the discard
    72-92     chi 123m..789s  chi (吃) the discard, forming that sequence (21 sequences)
    93-126    ting 1m..7z     报听 (declare ready) and discard that tile (quemen)

``name(i)`` and ``index(name)`` convert; names are exactly those of docs/INTERFACES.md 2.
"""
from __future__ import annotations

import numpy as np

from .messages import brief, shown
from .tiles import CODES, N_KINDS, N_SUITS, SUIT_SIZE

DISCARD = 0
KONG_SELF = DISCARD + N_KINDS  # 34
WIN = KONG_SELF + N_KINDS  # 68
PASS = WIN + 1  # 69
PONG = PASS + 1  # 70
KONG = PONG + 1  # 71
CHI = KONG + 1  # 72
RUNS_PER_SUIT = SUIT_SIZE - 2  # 123 .. 789
N_CHI = N_SUITS * RUNS_PER_SUIT  # 21
TING = CHI + N_CHI  # 93
N_ACTIONS = TING + N_KINDS  # 127


def chi_start(chi_id: int) -> int:
    """Tile index of the lowest tile of chi action ``chi_id`` (0-20, not the action id)."""
    return SUIT_SIZE * (chi_id // RUNS_PER_SUIT) + chi_id % RUNS_PER_SUIT


def _names() -> list[str]:
    out = [f"discard {CODES[t]}" for t in range(N_KINDS)]
    out += [f"kong {CODES[t]}" for t in range(N_KINDS)]
    out += ["win", "pass", "pong", "kong"]
    for c in range(N_CHI):
        s = chi_start(c)
        rank = s % SUIT_SIZE + 1
        out.append(f"chi {rank}{rank + 1}{rank + 2}{'mps'[s // SUIT_SIZE]}")
    out += [f"ting {CODES[t]}" for t in range(N_KINDS)]
    assert len(out) == N_ACTIONS
    return out


NAMES: tuple[str, ...] = tuple(_names())
CHI_START = np.array([chi_start(c) for c in range(N_CHI)], dtype=np.int64)
"""CHI_START[c]: lowest tile of the run of chi action CHI + c, as an array for batched look-up (read-only)."""
CHI_START.flags.writeable = False  # every chi reads it: a write is refused, never shared
_INDEX = {n: i for i, n in enumerate(NAMES)}


class ActionError(ValueError):
    """An action is unknown, or illegal in the current state."""


def action_batch(actions, n: int) -> np.ndarray:
    """``actions`` as an int64 array of shape (n,), or an ActionError saying what it is instead.

    Only an integer array (or a sequence of ints) of shape (n,) is an action batch: other shapes,
    floats (3.7 is not 3), strings, bools (also one in a list of ints) and objects are refused, as is what NumPy
    cannot read (a torch tensor that needs grad or lives on a GPU); nothing is reshaped or cast."""
    if type(actions) is np.ndarray and actions.shape == (n,) and actions.dtype.kind == "i":
        return actions.astype(np.int64)  # (the common case at once: the checks below pass it as it is)
    if (isinstance(actions, np.ma.MaskedArray) and np.shape(actions) == (n,)  # (another shape: refused as such below)
            and np.ma.getmaskarray(actions).any()):  # asarray would drop the mask
        b = int(np.flatnonzero(np.ma.getmaskarray(actions))[0])
        raise ActionError(f"expected {n} integer actions, got a masked array with entry {b} masked (no action)")
    try:
        acts = np.asarray(actions)
    except Exception as e:  # noqa: BLE001 (ragged lists, a tensor needing grad or on a GPU: no action batch)
        raise ActionError(f"expected {n} integer actions, got {type(actions).__name__} that NumPy cannot read: "
                          f"{str(e)[:80]}") from None
    if acts.shape != (n,) or acts.dtype.kind not in "iu":
        raise ActionError(f"expected {n} integer actions, got shape {acts.shape} dtype {acts.dtype}")
    refuse_bools_in(actions)
    if acts.dtype.kind == "u" and n and acts.max() > np.iinfo(np.int64).max:  # would wrap round in int64
        b = int(acts.argmax())
        raise ActionError(f"action {int(acts[b])} at table {b} is not an integer in 0-{N_ACTIONS - 1}")
    return acts.astype(np.int64)


def refuse_bools_in(actions, unit: str = "table") -> None:
    """An ActionError where a list or tuple of actions holds a bool (True, np.bool_, a 0-d bool array) or
    another non-integer among integers, naming its table: NumPy reads ``[True, 3]`` as the int64 ``[1, 3]``, so
    True would play action 1. A row of one action (``[[3], [True]]``, the (n, 1) form SB3 may give) is looked
    into too. Arrays and tensors are left to their dtype. ``unit`` names what an entry stands for."""
    if not isinstance(actions, (list, tuple)) or set(map(type, actions)) <= {int}:  # the common case, at once
        return
    for b, a in enumerate(actions):
        if type(a) is int or isinstance(a, np.integer):  # (np.bool_ is no np.integer)
            continue
        if isinstance(a, (list, tuple)) and len(a) == 1:
            a = a[0]
            if type(a) is int or isinstance(a, np.integer):
                continue
        try:
            integer = not isinstance(a, bool) and np.asarray(a).dtype.kind in "iu"
        except Exception:  # noqa: BLE001 (a ragged entry, a tensor needing grad: no action)
            integer = False
        if not integer:
            raise ActionError(f"action {brief(a)} ({type(a).__name__}) at {unit} {b} is not an integer in "
                              f"0-{N_ACTIONS - 1}")


def one_action(action) -> int:
    """One action of a one-table env as a Python int in 0-126: a Python or NumPy integer, or a 0-d integer
    array or tensor (anything NumPy reads as one, as SB3's ``predict`` and torch samplers give). An ActionError
    for a bool, a float (3.0 is no action), a string, a timedelta (NumPy counts it an integer), a masked value,
    a tensor NumPy cannot read (on a GPU, or needing grad) or anything else, naming its type; and for an
    integer outside the action space."""
    if isinstance(action, int) and not isinstance(action, bool):
        value = int(action)  # an int subclass (an IntEnum) becomes a plain int
    elif isinstance(action, np.ma.MaskedArray) and np.ma.getmaskarray(action).any():  # asarray would drop the mask
        raise ActionError("action is a masked array with its value masked (no action)")
    else:
        try:
            arr = np.asarray(action)
        except Exception:  # noqa: BLE001 (whatever an odd __array__ raises, it is no action)
            arr = None
        if arr is None or arr.shape != () or arr.dtype.kind not in "iu":
            raise ActionError(f"action {brief(action)} ({type(action).__name__}) is not an integer in "
                              f"0-{N_ACTIONS - 1}")
        value = int(arr)
    if not 0 <= value < N_ACTIONS:
        raise ActionError(f"action {shown(value)} is not in the action space Discrete({N_ACTIONS}): an integer "
                          f"in 0-{N_ACTIONS - 1}")
    return value


def illegal_policy(illegal_action, illegal_penalty) -> tuple[str, float]:
    """The environments' ``illegal_action`` ("raise" or "penalize") and ``illegal_penalty`` (a finite number
    in 0-1e15; the offender gets minus it), checked; a ValueError names the one that is wrong."""
    if not isinstance(illegal_action, str) or illegal_action not in ("raise", "penalize"):
        raise ValueError(f"illegal_action must be 'raise' or 'penalize', got {brief(illegal_action)}")
    # an integer is compared as it is (10**400 would overflow float()); a NumPy float as a Python float, since
    # NumPy compares np.float16 with the bound cast to float16, where 1e15 is inf (so np.float16("inf") passed)
    value = float(illegal_penalty) if isinstance(illegal_penalty, np.floating) else illegal_penalty
    if isinstance(illegal_penalty, (bool, np.bool_, complex, np.complexfloating)) \
            or not isinstance(illegal_penalty, (int, float, np.number)) or not (0 <= value <= 1e15):
        # (NaN fails the comparison)
        raise ValueError("illegal_penalty must be a finite number in 0-1e15 (the offender gets minus it), "
                         f"got {brief(illegal_penalty)}")
    return illegal_action, float(illegal_penalty)


class IllegalPolicySettings:
    """``illegal_action`` and ``illegal_penalty`` as settings of an environment (the AEC env, the batched single-agent
    env): read as given, and assigned (by the constructor through ``_set_illegal_policy``, or later by a user or a
    library's ``set_attr``) only after ``illegal_policy`` has checked the pair, so a refused value changes nothing."""

    def _set_illegal_policy(self, illegal_action, illegal_penalty) -> None:
        self._illegal_action, self._illegal_penalty = illegal_policy(illegal_action, illegal_penalty)

    @property
    def illegal_action(self) -> str:
        """The constructor's ``illegal_action`` ("raise" or "penalize"); assigning to it is checked as the
        constructor checks it."""
        return self._illegal_action

    @illegal_action.setter
    def illegal_action(self, value) -> None:
        self._set_illegal_policy(value, self._illegal_penalty)

    @property
    def illegal_penalty(self):
        """The constructor's ``illegal_penalty`` (the offender gets minus it); assigning to it is checked, as
        ``illegal_action``."""
        return self._illegal_penalty

    @illegal_penalty.setter
    def illegal_penalty(self, value) -> None:
        self._set_illegal_policy(self._illegal_action, value)


def name(i: int | np.integer) -> str:
    """The name of action ``i``, e.g. ``name(4) == 'discard 5m'``. ``i`` is a Python or NumPy integer: a bool,
    a float (even 4.0), a timedelta or anything else is refused (so is an array, even 0-d, which the
    environments' ``step`` takes: ``one_action``)."""
    if isinstance(i, (bool, np.bool_, np.timedelta64)) or not isinstance(i, (int, np.integer)) \
            or not 0 <= i < N_ACTIONS:  # (NumPy counts a timedelta an integer)
        integer = isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.timedelta64))
        what = shown(int(i)) if integer else brief(i)
        raise ActionError(f"action {what} is not an integer in 0-{N_ACTIONS - 1}")
    return NAMES[int(i)]


def index(action_name: str) -> int:
    """The integer of an action name, e.g. ``index('chi 345m') == 74``."""
    try:
        return _INDEX[action_name]
    except (KeyError, TypeError):
        raise ActionError(f"unknown action name {action_name!r}") from None
