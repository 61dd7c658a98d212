"""Reward options for training: what a learner is paid, and what that makes it optimise.

The environment pays each seat its settled points when a hand ends (docs/RULES.md 6, zero-sum).
``RewardTransform`` turns those into the learner's reward and, for shaping, adds a potential
term at the learner's decisions. Choose with ``train.py --reward``:

==========  ==========================================  =====================================
kind        reward of a seat                            what it optimises
==========  ==========================================  =====================================
points      the settled points of the hand (default)    expected points: the game's own goal;
                                                        large hands and 烧庄 dominate
scaled      points / ``scale``                          the same policy as ``points``; only
                                                        the size of values and gradients
                                                        changes (steadier value loss)
sign        +1 / -1 / 0 by the sign of the points       the chance of gaining minus the
                                                        chance of losing; ignores how much,
                                                        so it favours fast cheap wins and
                                                        avoids dealing in at any cost
shaped      points / ``scale`` plus, at each decision,  the same optimum as ``scaled``
            F = gamma * Phi(s') - Phi(s), with          (potential-based shaping, Ng, Harada
            Phi(s) = -``shaping_coef`` * distance(s)    and Russell 1999), but dense feedback
            and Phi = 0 once the hand is over           from the first discard: a step that
                                                        brings the hand closer to a win is
                                                        paid at once
==========  ==========================================  =====================================

``distance(s)`` is the number of tiles the seat's concealed hand still needs to hold a win:
``mj_env.hand.tiles_to_win`` with its 惠牌 as wildcards (``agents.rule_based.hand_distance``)
for a 3k+2 hand (own turn: 0 = a winning hand), plus one for a 3k+1 hand (claim window: 0
exchanges means ready, one tile still to come). So a hand one tile from winning has the same
potential in both kinds of decision. Over a seat's hand the shaping terms telescope to
``-Phi(first decision)`` (with gamma = 1), which no action can change: that is why the optimal
policy is the one of the unshaped reward.
Your own potential: ``potential=`` (in ``RewardTransform``, ``RewardOption`` and ``RewardOptionVector``)
takes a function of the observation planes, (n, 14 or 18, 34) read-only, to n finite numbers, the Phi
of each (within +-1e6; ``shaping_coef`` scales the built-in distance potential only). The wrappers still set
Phi = 0 once an episode terminates, so any such function keeps the optimum (Ng et al.); it should read only
the planes it is given (what the seat sees), as the built-in one does. It is called on the observation a step
returns, after the env has stepped: if it raises or answers badly, the step has happened and its observation
is lost, so the wrapper's ``step`` then refuses (a RuntimeError saying so) until it is reset::

    def pairs(planes):            # Phi: 0.1 per pair held (plane 0: the seat's own tile counts)
        return 0.1 * (planes[:, 0] >= 2).sum(axis=1)

    env = RewardOption(gym.make("mj_env/Beijing-v0"), "shaped", potential=pairs, gamma=0.99)
"""
from __future__ import annotations

import math
import numbers

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from gymnasium.wrappers.vector import DictInfoToList

from mj_env.features import own_meld_suits
from mj_env.messages import brief, shown
from mj_env.observation import checked_planes
from mj_env.rules import RulesSpec, get_rules
from mj_env.vector import MahjongVectorEnv

from .rule_based import hand_distance

REWARD_KINDS = ("points", "scaled", "sign", "shaped")
_PLANES = "observation planes (n, 14 or 18, 34)"
MIN_SCALE, MAX_SCALE = 1e-6, 1e6
"""The range of ``scale`` (and of ``shaping_coef``'s size): rewards stay finite float32 numbers."""


def _number(value, name: str, what: str, ok) -> float:
    """``value`` as a float if it is a finite real number (a NumPy one too) for which ``ok`` holds; else a
    TypeError or ValueError that calls it ``name`` and says it must be ``what``."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {what}, not {brief(value)}")
    if not (math.isfinite(value) and ok(value)):
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return float(value)


class RewardTransform:
    """The reward option ``kind`` (module docstring) for rule set ``rules``.

    - ``hand_end(points)``: (...) settled points of a hand -> the reward paid at its end (float64, as exact as the points);
    - ``potential(planes)``: (n, 14 or 18, 34) observations at the learner's decisions -> (n,) Phi
      (all zero unless ``kind == "shaped"``; the built-in distance potential, or the ``potential`` function
      given, module docstring); the trainer (``train.Rollout.add`` and ``pay``, with its
      own ``--gamma``) adds ``gamma * Phi(s') - Phi(s)`` to the reward of a seat's decision s when its
      next decision s' comes, and ``-Phi(s)`` at the end of the hand.
    """

    def __init__(self, kind: str = "points", rules: RulesSpec = "beijing", scale: float = 4.0,
                 shaping_coef: float = 0.25, potential=None):
        """``scale`` a number from 1e-6 to 1e6, ``shaping_coef`` one from -1e6 to 1e6 (NumPy numbers too): else a
        TypeError (not a number) or ValueError naming it, as for an unknown ``kind``. The bounds keep every
        reward a finite float32 (a scale of 1e-50 is 0 in float32: points / 0 are inf). ``potential``: None (the
        built-in one) or a function of the planes (module docstring), for ``kind="shaped"`` only."""
        if not isinstance(kind, str) or kind not in REWARD_KINDS:
            raise ValueError(f"unknown reward {brief(kind)}; choose one of {', '.join(REWARD_KINDS)}")
        if potential is not None and not callable(potential):
            raise TypeError(f"potential must be a function of the {_PLANES} returning n numbers, "
                            f"not {brief(potential)}")
        if potential is not None and kind != "shaped":
            raise ValueError(f"potential= is the Phi of the 'shaped' reward; with kind {kind!r} nothing would read it")
        scale = _number(scale, "reward scale", f"a number from {MIN_SCALE:g} to {MAX_SCALE:g}",
                        lambda v: MIN_SCALE <= v <= MAX_SCALE)
        shaping_coef = _number(shaping_coef, "shaping_coef", f"a number from {-MAX_SCALE:g} to {MAX_SCALE:g}",
                               lambda v: abs(v) <= MAX_SCALE)
        self.kind = kind
        self.rules = get_rules(rules)
        self.scale, self.shaping_coef = scale, shaping_coef
        self.potential_fn = potential

    @property
    def shaping(self) -> bool:
        return self.kind == "shaped"

    def hand_end(self, points) -> np.ndarray:
        p = np.asarray(points, dtype=np.float64)  # exact points (the env's float64): float32 rounds above 2**24
        if self.kind == "points":
            return p.copy() if p is points else p  # a new array, as the other kinds give: never the input
        if self.kind == "sign":
            return np.sign(p)
        return p / self.scale

    def potential(self, planes: np.ndarray) -> np.ndarray:
        planes = np.asarray(planes)
        if planes.ndim != 3 or planes.shape[1] not in (14, 18) or planes.shape[2] != 34:
            raise ValueError(f"potential takes observation planes (n, 14 or 18, 34), got shape {planes.shape} "
                             f"(one observation's planes: planes[None])")
        if not self.shaping or len(planes) == 0:
            return np.zeros(len(planes), dtype=np.float32)
        if self.potential_fn is not None:
            return _own_potential(self.potential_fn, planes)
        if planes.dtype != np.uint8:  # (the env's own planes pass at once) the int8 cast below read 256
            planes = checked_planes(planes, "planes")  # of a kind as 0 and 1.7 as 1: refused, as agents do
        counts = planes[:, 0].astype(np.int8)
        hui = np.where(planes[:, 10].any(axis=1), planes[:, 10].argmax(axis=1), -1)
        dist = hand_distance(self.rules, counts, hui, own_meld_suits(planes)).astype(np.float32)
        size = counts.sum(axis=1)
        dist += (size % 3 == 1)  # 3k+1: one tile still to come
        return (-self.shaping_coef * dist).astype(np.float32)


def _own_potential(fn, planes: np.ndarray) -> np.ndarray:
    """``fn`` (a user's potential) on a read-only view of ``planes``, its answer checked: (n,) finite real
    numbers within +-1e6, as float32; else a TypeError or ValueError saying what it returned."""
    view = planes.view()
    view.flags.writeable = False  # the planes are the observation the learner is given: fn must not change them
    phi = fn(view)
    try:
        values = np.asarray(phi)
    except (TypeError, ValueError):  # a ragged list, say: not numbers
        values = None
    if values is None or values.dtype.kind not in "biuf":
        raise TypeError(f"the potential function must return {len(planes)} real numbers (one per observation), "
                        f"got {brief(phi)}")
    if values.shape != (len(planes),):
        raise ValueError(f"the potential function must return one number per observation, shape ({len(planes)},), "
                         f"got shape {values.shape}")
    values = values.astype(np.float64)
    bad = np.flatnonzero(~(np.abs(values) <= MAX_SCALE))  # nan and inf fail too
    if len(bad):
        raise ValueError(f"the potential function must return finite numbers from {-MAX_SCALE:g} to {MAX_SCALE:g}, "
                         f"got {shown(values[bad[0]])} for observation {bad[0]}")
    return values.astype(np.float32)


_LOST = ("{}.step(): the potential function raised in an earlier call, after the env had stepped, so the "
         "observation it was given never reached you and Phi is unknown; call reset() first")


def _given(potential) -> dict:
    """The constructor argument ``potential`` as the wrappers record it (env.spec): only when one is given, so
    an env without one keeps the spec it had before the argument existed (and stays JSON-serializable)."""
    return {} if potential is None else {"potential": potential}


def _gamma(gamma) -> float:
    # [0, 1], as train.py's --gamma: at 0 the shaping term is -Phi(s), still potential-based (Ng et al.)
    return _number(gamma, "gamma", "a finite number in [0, 1]", lambda v: 0 <= v <= 1)


def _planes_space_problem(space) -> str | None:
    """Why an env's observation space is not the Dict of ``mj_env``'s single-agent env, or None."""
    planes = space.spaces.get("observation") if isinstance(space, gym.spaces.Dict) else None
    shape = None if planes is None else planes.shape  # (None also for a space without a shape: Text, Graph)
    if shape is None or len(shape) != 2 or shape[-1] != 34 or shape[-2] not in (14, 18):
        return (f"needs the Dict observation of mj_env's single-agent env ('observation' planes (14 or 18, 34)), "
                f"got {brief(space)}: wrap the env before any observation wrapper")
    return None


def _option(wrapper: str, env, space, wraps: str, kind, scale, shaping_coef, potential, gamma, hint: str = ""):
    """A reward wrapper's arguments checked, everything before anything is built: the env's observation
    space and kind (``wraps`` names the env it takes), then the option. Returns (RewardTransform, gamma)."""
    problem = _planes_space_problem(space)
    if problem:
        raise ValueError(f"{wrapper} {problem}")
    if getattr(env.unwrapped, "rules", None) is None:
        raise ValueError(f"{wrapper} wraps {wraps}, not {type(env.unwrapped).__name__}{hint}")
    transform = RewardTransform(kind, env.unwrapped.rules, scale=scale, shaping_coef=shaping_coef,
                                potential=potential)
    return transform, _gamma(gamma)


class RewardOption(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The one-table single-agent env (``gym.make("mj_env/Beijing-v0")`` and the other ids) paid under a
    reward option of the module docstring, so that other trainers (SB3, RLlib, Tianshou) can study the same
    reward shaping as ``train.py --reward``::

        env = RewardOption(gym.make("mj_env/Beijing-v0"), "shaped", gamma=0.99)

    Each step's reward ``r`` (the learner's points settled in it) becomes ``RewardTransform.hand_end(r)``;
    with ``"shaped"`` the step from the learner's decision s to its next one s' also gets
    ``gamma * Phi(s') - Phi(s)``, with Phi(s') = 0 when the episode terminates (at a truncation Phi(s') is
    kept: the trainer bootstraps from s'). Use the trainer's own discount as ``gamma``: the optimal policy is then
    the unshaped one's (Ng, Harada and Russell 1999). Over a terminated episode with gamma = 1 the shaping
    terms sum to ``-Phi(first decision)``. ``info["points"]`` keeps the env's own reward: the settled points, or
    the penalty of an illegal action (``illegal_action="penalize"``, the env's default: ``-illegal_penalty``, with
    ``info["illegal_action"]``), which the option transforms as it does points (``sign``: -1, as for any lost hand).
    Wrap the env itself, before any wrapper that changes its observation (the potential reads the planes). Over
    Gymnasium's ``Autoreset`` the step that deals a new episode pays its reward unshaped and only sets Phi (as
    ``RewardOptionVector`` under ``NEXT_STEP``).

    Where it differs from ``train.py``, which plays one hand per chain of decisions: it pays what the env pays,
    step by step. The points of a hand that ended before the learner's first decision come with the next
    step's reward (the env's contract), where train.py leaves them out; in a match (``hands_per_episode`` > 1)
    Phi goes to 0 only when the episode ends, not at each hand's end (still potential-based shaping, over the
    match); and ``sign`` is the sign of a step's points, which in a match may sum two hands'."""

    _lost = False  # True from a potential that raised after the env stepped (its observation lost) to a reset

    def __init__(self, env, kind: str = "shaped", scale: float = 4.0, shaping_coef: float = 0.25,
                 gamma: float = 0.99, potential=None):
        if isinstance(env, VectorEnv):
            raise TypeError(f"RewardOption wraps a one-table env (gym.make('mj_env/Beijing-v0'), ...), not the vector env "
                            f"{type(env).__name__}: use RewardOptionVector for it")
        if not isinstance(env, gym.Env):  # a PettingZoo env (mj_env.env()), an id string, None...
            raise TypeError(f"RewardOption wraps a one-table Gymnasium env (gym.make('mj_env/Beijing-v0'), ...), not "
                            f"{type(env).__name__} {brief(env)}")
        self.transform, self.gamma = _option(
            "RewardOption", env, env.observation_space, "mj_env's single-agent env (gym.make('mj_env/Beijing-v0'), ...)",
            kind, scale, shaping_coef, potential, gamma)
        gym.utils.RecordConstructorArgs.__init__(self, kind=kind, scale=scale, shaping_coef=shaping_coef, gamma=gamma,
                                                 **_given(potential))
        gym.Wrapper.__init__(self, env)
        self._phi = 0.0
        self._starting = False  # an episode ended: a next step without reset() is an autoreset (Gymnasium's Autoreset)

    def _potential(self, obs) -> float:
        try:
            return float(self.transform.potential(np.asarray(obs["observation"])[None])[0])
        except BaseException:  # (a user's potential) a step on would shape from a stale Phi: refused
            self._lost = True
            raise

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._phi = self._potential(obs)
        self._starting = False
        self._lost = False
        return obs, info

    def step(self, action):
        if self._lost:
            raise RuntimeError(_LOST.format("RewardOption"))
        obs, reward, terminated, truncated, info = self.env.step(action)
        shaped = float(self.transform.hand_end(reward))
        if self.transform.shaping:
            if self._starting:  # the step that dealt a new episode (NEXT_STEP): its reward unshaped, Phi set
                self._phi = self._potential(obs)
            else:
                phi_next = 0.0 if terminated else self._potential(obs)
                shaped += self.gamma * phi_next - self._phi
                self._phi = phi_next
        self._starting = bool(terminated or truncated)
        return obs, shaped, terminated, truncated, {**info, "points": reward}


class RewardOptionVector(VectorWrapper, gym.utils.RecordConstructorArgs):
    """``RewardOption`` for the natively batched single-agent env (``gym.make_vec(id, num_envs=N,
    vectorization_mode="vector_entry_point")``, ``mj_env.single_agent.MahjongSingleAgentVectorEnv``), in either
    autoreset mode: rewards (N,) as ``RewardOption`` pays them, per table. Under ``SAME_STEP`` an ended episode's
    last term reads ``infos["final_obs"]`` (at a truncation); under ``NEXT_STEP`` the step that starts a table's
    new episode pays its reward unshaped and only sets Phi. ``infos["points"]`` keeps the env's own rewards.
    For Gymnasium's ``sync`` or ``async`` vector env of one-table envs, wrap each: ``gym.make_vec(id, num_envs=N,
    vectorization_mode="sync", wrappers=[RewardOption])``."""

    _lost = False  # as RewardOption's; only a reset of every table ends it

    def __init__(self, env, kind: str = "shaped", scale: float = 4.0, shaping_coef: float = 0.25,
                 gamma: float = 0.99, potential=None):
        if not isinstance(env, VectorEnv):
            raise TypeError(f"RewardOptionVector wraps a vector env (gym.make_vec(id, num_envs=N, "
                            f"vectorization_mode='vector_entry_point')), not {type(env).__name__}"
                            + (": use RewardOption for a one-table env" if isinstance(env, gym.Env) else f" {brief(env)}"))
        inner = env
        while isinstance(inner, VectorWrapper):  # infos as a list of dicts: the final observations are not found
            if isinstance(inner, DictInfoToList):
                raise TypeError("RewardOptionVector reads the env's infos as a dict (final_obs): put DictInfoToList "
                                "outside it, DictInfoToList(RewardOptionVector(env)), not inside")
            inner = inner.env
        if isinstance(env.unwrapped, MahjongVectorEnv):
            raise TypeError("RewardOptionVector wraps the single-agent vector env (rewards (N,), one learner seat), "
                            "not the self-play MahjongVectorEnv, whose rewards are (N, 4), one column per seat")
        self.transform, self.gamma = _option(
            "RewardOptionVector", env, env.single_observation_space,
            "mj_env's batched single-agent env (gym.make_vec(id, num_envs=N, vectorization_mode='vector_entry_point'))",
            kind, scale, shaping_coef, potential, gamma,
            "; for a sync or async vector env give each env RewardOption: make_vec(..., wrappers=[RewardOption])")
        gym.utils.RecordConstructorArgs.__init__(self, kind=kind, scale=scale, shaping_coef=shaping_coef, gamma=gamma,
                                                 **_given(potential))
        VectorWrapper.__init__(self, env)
        self._phi = np.zeros(env.num_envs, dtype=np.float64)
        self._starting = np.zeros(env.num_envs, dtype=bool)  # NEXT_STEP: the next step deals a new episode

    def _potential(self, planes) -> np.ndarray:
        try:
            return self.transform.potential(np.asarray(planes)).astype(np.float64)
        except BaseException:
            self._lost = True
            raise

    def reset(self, *, seed=None, options=None):
        # (Gymnasium types VectorWrapper.reset's seed wider than VectorEnv.reset's: passed on as given)
        obs, infos = self.env.reset(seed=seed, options=options)  # pyright: ignore[reportArgumentType]
        phi = self._potential(obs["observation"])
        mask = None if options is None else options.get("reset_mask")
        rows = slice(None) if mask is None else np.asarray(mask, dtype=bool)
        self._phi[rows] = phi[rows]
        self._starting[rows] = False
        if mask is None or np.asarray(mask, dtype=bool).all():
            self._lost = False
        return obs, infos

    def step(self, actions):
        if self._lost:
            raise RuntimeError(_LOST.format("RewardOptionVector") + " (of every table)")
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        shaped = np.asarray(self.transform.hand_end(rewards), dtype=np.float64)
        if self.transform.shaping:
            phi_obs = self._potential(obs["observation"])
            ended = terminated | truncated
            if self.env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP:
                phi_end = np.where(ended, 0.0, phi_obs)   # obs at an ended table is its new episode's first
                cut = np.flatnonzero(truncated)
                if len(cut):                              # one batched potential for the final observations
                    phi_end[cut] = self._potential(np.stack([infos["final_obs"][b]["observation"] for b in cut]))
                shaped += self.gamma * phi_end - self._phi
            else:                                         # obs at an ended table is its final one
                phi_end = np.where(terminated, 0.0, phi_obs)
                shaped += np.where(self._starting, 0.0, self.gamma * phi_end - self._phi)
                self._starting = ended
            self._phi = phi_obs
        points = np.asarray(rewards)
        return obs, shaped.astype(points.dtype if points.dtype.kind == "f" else np.float64), terminated, truncated, \
            {**infos, "points": points, "_points": np.ones(len(points), dtype=bool)}
