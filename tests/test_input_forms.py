"""The same values in another memory form give the same answer (audit AU): big-endian and other integer
dtypes, Fortran order, strided and broadcast views, read-only arrays, memmaps, ``np.frombuffer`` arrays,
``np.matrix``, lists and torch tensors, given to the hand functions (``mj_env.hand``), the feature helpers
(``mj_env.features``), ``determinize.ting_waits``, the rule agent and the envs' ``step``. Each answer is
compared with the answer for the plain C-contiguous native array of the same values; a form that cannot be
read (a masked entry, a bool or structured dtype of counts) is refused."""
from __future__ import annotations

import numpy as np
import pytest

from mj_env import determinize as D
from mj_env import features as F
from mj_env import hand
from mj_env.baselines import RuleBasedAgent, uniform_legal
from mj_env.engine import Engine
from mj_env.observation import observe
from mj_env.rules import get_rules
from mj_env.vector import MahjongVectorEnv
from tests.test_hand_distance_changed import hands_of

pytestmark = pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")


def _forms(a: np.ndarray, tmp_path) -> list[tuple[str, object]]:
    """``a`` (native, integer) in other memory forms holding the same values."""
    dtypes = (">i8", ">i4", ">i2", ">u2", "<u4", "u1")
    out: list[tuple[str, object]] = [(f"astype {dt}", a.astype(dt)) for dt in dtypes
                                     if (a.astype(dt) == a).all()]
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=">i8")
    wide[..., ::2] = a
    col = np.zeros(a.shape + (3,), dtype=a.dtype)
    col[..., 1] = a
    ro = a.astype(">i4")
    ro.setflags(write=False)
    mm = np.memmap(tmp_path / "forms.bin", dtype=">i2", mode="w+", shape=a.shape)
    mm[...] = a
    out += [("fortran", np.asfortranarray(a)), ("strided big-endian", wide[..., ::2]),
            ("reversed twice", a[::-1][::-1]), ("column of a bigger array", col[..., 1]),
            ("read-only big-endian", ro), ("memmap", mm),
            ("frombuffer", np.frombuffer(a.astype(">i2").tobytes(), dtype=">i2").reshape(a.shape)),
            ("list", a.tolist())]
    if a.ndim == 2:
        out.append(("matrix", np.matrix(a)))
    return out


def _same(got, want) -> bool:
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(map(_same, got, want))
    return (type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
            and bool((got == want).all()))


def _hands(name: str, n: int = 24):
    """Hands (n', 34) int8 of 3k+1 or 3k+2 tiles, at most 14, and their 惠牌 kinds, of the rules ``name``."""
    rules, _, counts, hui = hands_of(name, 7, n)
    nat, wild = hand.split_hui(counts, hui)
    size = nat.sum(axis=1).astype(int) + wild
    ok = (size % 3 != 0) & (size <= 14)
    return rules, counts[ok], hui[ok].astype(np.int64)


@pytest.mark.parametrize("name", ["beijing", "beijing-lack-suit", "hebei", "quemen"])
def test_hand_functions_read_every_form_alike(name, tmp_path):
    """``hand_distance``, ``hand_distance_changed``, ``split_hui``, ``is_win``, ``waits``, ``tiles_to_win``
    and the three needs answer every form of the counts as the native int8 and int64 arrays (a guard: no fault
    found; the byte views, ``c2.view(np.uint8)`` on int8 only and ``c.view(c.dtype.str.replace("i", "u"))``,
    keep the byte order)."""
    rules, counts, hui = _hands(name)
    nat, wild = hand.split_hui(counts, hui)
    rows, kinds = np.nonzero(nat > 0)
    grows = (nat.sum(axis=1) + wild)[rows] % 3 == 2   # discards of 3k+2 hands keep a size hand_distance takes
    rows, kinds = rows[grows], kinds[grows]
    calls = {
        "hand_distance": lambda c: hand.hand_distance(rules, c, hui),
        "hand_distance_changed": lambda c: hand.hand_distance_changed(rules, c, hui, None, rows, kinds, -1),
        "split_hui": lambda c: hand.split_hui(c, hui),
        "is_win": lambda c: hand.is_win(c, wild), "waits": lambda c: hand.waits(c, wild),
        "tiles_to_win": lambda c: hand.tiles_to_win(c, wild), "standard_need": hand.standard_need,
        "seven_pairs_need": hand.seven_pairs_need, "orphans_need": hand.orphans_need,
    }
    for what, call in calls.items():
        arg = counts if what in ("hand_distance", "hand_distance_changed", "split_hui") else nat
        for base in (arg, arg.astype(np.int64)):
            want = call(base)
            for form, value in _forms(base, tmp_path):
                assert _same(call(value), want), (what, base.dtype, form)
    # the other arguments in other forms: hui, wild, rows and kinds
    for form, value in _forms(hui[:, None], tmp_path):
        h = np.asarray(value)[:, 0] if form != "list" else [v[0] for v in value]
        assert _same(hand.hand_distance(rules, counts, h), hand.hand_distance(rules, counts, hui)), form
    for form, value in _forms(wild.astype(np.int64)[:, None], tmp_path):
        w = np.asarray(value)[:, 0]
        assert _same(hand.is_win(nat, w), hand.is_win(nat, wild)), form
        assert _same(hand.waits(nat, w), hand.waits(nat, wild)), form
    want = hand.hand_distance_changed(rules, counts, hui, None, rows, kinds, -1)
    for form, value in _forms(np.stack([rows, kinds], axis=1), tmp_path):
        v = np.asarray(value)
        assert _same(hand.hand_distance_changed(rules, counts, hui, None, v[:, 0], v[:, 1], -1), want), form


def test_hand_functions_take_torch_tensors_as_arrays():
    torch = pytest.importorskip("torch")
    rules, counts, hui = _hands("beijing")
    t = torch.zeros((len(counts), 68), dtype=torch.int64)
    t[:, ::2] = torch.as_tensor(counts.astype(np.int64))
    for value in (t[:, ::2], torch.as_tensor(counts),
                  torch.as_tensor(counts.astype(np.uint8)).T.contiguous().T):
        assert _same(hand.hand_distance(rules, value, hui), hand.hand_distance(rules, counts, hui))


def test_hand_distance_refuses_counts_of_another_width_naming_the_shape():
    """33 or 35 columns, or a 0-d array, failed in NumPy's reshape ("cannot reshape array of size 33 into
    shape (34)"); refused as the other hand functions refuse them (``is_win``: "counts must have shape (...,
    34)")."""
    rules = get_rules("beijing")
    for shape in ((2, 33), (33,), (2, 35), ()):
        counts = np.zeros(shape, dtype=np.int8)
        hui = np.full(shape[:-1], -1)
        with pytest.raises(ValueError, match=r"counts must have shape \(\.\.\., 34\), got " + str(shape)
                           .replace("(", r"\(").replace(")", r"\)")):
            hand.hand_distance(rules, counts, hui)
        with pytest.raises(ValueError, match=r"counts must have shape \(\.\.\., 34\)"):
            hand.split_hui(counts, hui)
    with pytest.raises(ValueError, match=r"counts must have shape \(\.\.\., 34\), got \(2, 33\)"):
        hand.hand_distance_changed(rules, np.zeros((2, 33), np.int8), np.array([-1, -1]), None, [0], [1], 1)


@pytest.mark.parametrize("bad", [-1, -34, 34, 200])
def test_a_claim_tile_outside_0_33_is_refused_naming_it(bad):
    """A negative claimed ``tile`` was read as a kind counted from the end (-1: 7z, the pong taking two 7z),
    and 34 failed as an IndexError naming nothing. (``hand.hand_distance_changed``'s ``kinds`` take -1 as
    NumPy does, as its docstring says: its answer is that of the plain call, ``counts[rows]`` changed at kind
    -1.)"""
    rules = get_rules("beijing")
    hands = np.zeros((2, 34), dtype=np.int8)
    hands[:, 33] = 2
    hands[:, 5] = 2
    tile = np.array([bad, 5])
    with pytest.raises(ValueError, match=f"tile must be tile kinds 0-33, got {bad}"):
        F.claim_hands(rules, hands, np.array([-1, -1]), tile, np.array([0, 1]), F.OPT_PONG)
    with pytest.raises(ValueError, match=f"tile must be tile kinds 0-33, got {bad}"):
        F.suits_after_claim(np.zeros((2, 3), bool), hands, hands, tile)
    # in range, the claims read as before
    after = F.claim_hands(rules, hands, np.array([-1, -1]), np.array([33, 5]), np.array([0, 1]), F.OPT_PONG)
    assert after[0, 33] == 0 and after[1, 5] == 0


def _positions(name: str):
    """(rules, planes (n, 14, 34) uint8, int8 masks (n, 127)) of rule-agent play at a few steps: turns and
    claims."""
    from rule_play import rule_agent_play
    eng = Engine(name, num_tables=16, seed=3)
    eng.reset()
    planes, masks = [], []
    for i, live in enumerate(rule_agent_play(eng, 5, 40)):
        if i % 8 == 7:
            planes.append(observe(eng.rules, eng.state, idx=live))
            masks.append(eng.legal_mask()[live].astype(np.int8))
    return eng.rules, np.concatenate(planes), np.concatenate(masks)


@pytest.mark.parametrize("name", ["beijing", "quemen"])
def test_feature_helpers_read_unsigned_hands_matrices_and_lists_as_arrays(name, tmp_path):
    """``tiles_needed``, ``tiles_needed_changed``, ``improvement``, ``discard_table``, ``best_discard``,
    ``claim_hands``, ``claim_takeable`` and ``suits_after_claim`` answer every form of their array arguments
    as the plain arrays. Before: unsigned hands (plane 0 as it is, uint8) failed in ``discard_table`` with
    "Python integer -1 out of bounds for uint64"; an np.matrix of hands gave ``tiles_needed`` an (m, m) answer
    and ``claim_takeable`` one too; lists failed on a missing ``.sum``, ``.dtype`` or ``.shape``."""
    rules, planes, _ = _positions(name)
    hands, hui, ms = planes[:, 0].astype(np.int8), F.hui_kind(planes), F.own_meld_suits(planes)
    unseen = F.unseen_counts(planes)
    one, two = hands.sum(axis=1) % 3 == 1, hands.sum(axis=1) % 3 == 2
    assert one.sum() >= 5 and two.sum() >= 5
    need1 = F.tiles_needed(rules, hands[one], hui[one], ms[one])
    r, k = np.nonzero(hands[two] > 0)
    tile = np.arange(one.sum()) % 34
    rows = np.arange(one.sum())
    after = F.claim_hands(rules, hands[one], hui[one], tile, rows, F.OPT_PONG)
    dn, di = F.discard_table(rules, hands[two], hui[two], unseen[two], ms[two])
    calls = {  # name: (function, its arguments, which of them are put in other forms)
        "tiles_needed": (lambda *a: F.tiles_needed(rules, *a), (hands, hui, ms), (0, 1)),
        "tiles_needed_changed": (lambda *a: F.tiles_needed_changed(rules, *a, -1),
                                 (hands[two], hui[two], ms[two], r, k), (0, 1, 3, 4)),
        "improvement": (lambda *a: F.improvement(rules, *a),
                        (hands[one], hui[one], unseen[one], need1, ms[one]), (0, 1, 2, 3)),
        "discard_table": (lambda *a: F.discard_table(rules, *a), (hands[two], hui[two], unseen[two], ms[two]),
                          (0, 1, 2)),
        "best_discard": (F.best_discard, (dn, di), (0, 1)),
        "claim_hands": (lambda *a: F.claim_hands(rules, *a, F.OPT_PONG), (hands[one], hui[one], tile, rows),
                        (0, 1, 2, 3)),
        "claim_takeable": (lambda *a: F.claim_takeable(*a, False), (hands[one], after), (0, 1)),
        "suits_after_claim": (F.suits_after_claim, (ms[one], hands[one], after, tile), (1, 2, 3)),
    }
    for what, (call, args, which) in calls.items():
        want = call(*args)
        for j in which:
            for form, value in _forms(args[j], tmp_path):
                got = call(*args[:j], value, *args[j + 1:])
                assert _same(got, want), (what, j, form)
    # the hands as observations give them (plane 0, uint8) and unsigned hands of any width
    for dt in (np.uint8, np.uint16, np.uint64):
        assert _same(F.discard_table(rules, hands[two].astype(dt), hui[two], unseen[two], ms[two]), (dn, di))


@pytest.mark.parametrize("name", ["beijing", "quemen"])
def test_best_discard_reads_the_planes_own_uint8_and_int8_needs(name):
    """``best_discard`` of planes 14 and 15 of ``observe_v2`` as they are (uint8) gives plane 17's ``OPT_NOW``
    at the own-turn rows, as of discard_table's int16. Before: the -1 fill of an unsigned ``imp`` was 255
    (uint8) or 65535, the most of every row, and an int8 ``need`` read its fill 32767 as -1, the least of
    every row."""
    rules, planes, mask = _positions(name)
    v2 = F.observe_v2(rules, planes, mask)
    turn = v2[:, 0].sum(axis=1) % 3 == 2
    assert turn.sum() >= 5
    need, imp = v2[turn, F.P_DISCARD_NEED], v2[turn, F.P_DISCARD_IMPROVE]
    want = F.best_discard(need.astype(np.int16), imp.astype(np.int16))
    assert (want[1] == v2[turn, F.P_OPTION_IMPROVE, F.OPT_NOW]).all()
    for dt in (np.uint8, np.int8, np.uint16, np.int64, ">u2"):
        assert _same(F.best_discard(need.astype(dt), imp.astype(dt)), want), dt


def test_feature_helpers_take_torch_tensors_as_arrays():
    torch = pytest.importorskip("torch")
    rules, planes, mask = _positions("beijing")
    hands, hui, ms = planes[:, 0].astype(np.int8), F.hui_kind(planes), F.own_meld_suits(planes)
    two = hands.sum(axis=1) % 3 == 2
    t = torch.as_tensor(hands)
    assert _same(F.tiles_needed(rules, t, torch.as_tensor(hui)), F.tiles_needed(rules, hands, hui))
    want = F.discard_table(rules, hands[two], hui[two], F.unseen_counts(planes[two]), ms[two])
    got = F.discard_table(rules, t[torch.as_tensor(two)], hui[two], F.unseen_counts(planes[two]), ms[two])
    assert _same(got, want)
    assert _same(F.hui_kind(torch.as_tensor(planes)), hui)
    assert _same(F.hui_kind(planes.tolist()), hui)
    assert _same(F.unseen_counts(planes.tolist()), F.unseen_counts(planes))
    agent = RuleBasedAgent(rules)
    for value in (torch.as_tensor(planes), planes.tolist(), planes.astype(">i4")):
        got = agent.discard_keys(value, mask, np.random.default_rng(0))
        assert (got == agent.discard_keys(planes, mask, np.random.default_rng(0))).all()
    one = hands.sum(axis=1) % 3 == 1
    melds = planes[one, 1].astype(np.int8)
    want = D.ting_waits(rules, hands[one], melds)
    for value in (torch.as_tensor(melds), melds.tolist(), melds.astype(">i8")):
        assert _same(D.ting_waits(rules, hands[one], value), want)


def test_rule_agent_and_features_read_broadcast_and_big_endian_planes_alike():
    """Planes and masks as zero-stride broadcasts, big-endian or Fortran-ordered arrays (a guard)."""
    rules, planes, mask = _positions("quemen")
    n = len(planes)
    agent = RuleBasedAgent(rules)
    want = agent.act({"observation": planes, "action_mask": mask}, np.random.default_rng(1))
    want_v2 = F.observe_v2(rules, planes, mask)
    for p, m in ((planes.astype(">u2"), mask.astype(">i8")),
                 (np.asfortranarray(planes), np.asfortranarray(mask)),
                 (planes[::-1][::-1], mask.astype(">f8"))):
        assert (agent.act({"observation": p, "action_mask": m}, np.random.default_rng(1)) == want).all()
        assert _same(F.observe_v2(rules, p, m), want_v2)
    one = np.broadcast_to(planes[:1], planes.shape)
    one_mask = np.broadcast_to(mask[:1], mask.shape)
    want = agent.act({"observation": np.repeat(planes[:1], n, 0), "action_mask": np.repeat(mask[:1], n, 0)},
                     np.random.default_rng(1))
    assert (agent.act({"observation": one, "action_mask": one_mask}, np.random.default_rng(1)) == want).all()


def test_vector_env_plays_the_same_game_with_actions_in_any_form(tmp_path):
    """Actions as big-endian, strided, read-only, memmapped or Fortran arrays play exactly the native game (a
    guard: ``actions.action_batch`` casts to int64 by value)."""
    def play(form) -> list[bytes]:
        env = MahjongVectorEnv(num_envs=4, rules="beijing", seed=0)
        obs, _ = env.reset(seed=0)
        rng, out = np.random.default_rng(1), []
        for _ in range(40):
            obs, rew, term, _, _ = env.step(form(uniform_legal(obs["action_mask"], rng)))
            out.append(obs["observation"].tobytes() + rew.tobytes() + term.tobytes())
        return out

    want = play(lambda a: a)
    for name in [n for n, _ in _forms(np.arange(4), tmp_path)]:
        assert play(lambda a, name=name: dict(_forms(a, tmp_path))[name]) == want, name


def test_masked_entries_are_refused_naming_them():
    """A masked array with an entry masked: NumPy's asarray drops the mask and reads the value under it, so
    ``is_win``, ``hand_distance`` and the feature helpers answered for a value the caller had masked out, and
    the rule agent's mask check took a masked action as legal; refused now, as ``actions.action_batch``
    refuses masked actions. A masked array with nothing masked is read as its values."""
    from mj_env import baselines as B
    from mj_env import observation as O
    rules, planes, mask = _positions("beijing")
    hands, hui = planes[:, 0].astype(np.int8), F.hui_kind(planes)
    hidden = np.ma.masked_array(hands, mask=np.zeros(hands.shape, bool))
    assert _same(hand.hand_distance(rules, hidden, hui), hand.hand_distance(rules, hands, hui))
    hidden[1, 5] = np.ma.masked
    for call in (lambda: hand.is_win(hidden, 0), lambda: hand.hand_distance(rules, hidden, hui),
                 lambda: hand.split_hui(hidden, hui), lambda: F.tiles_needed(rules, hidden, hui)):
        with pytest.raises(ValueError, match=r"(counts|hands) must be plain values, got a masked array with "
                                             r"entry \(1, 5\) masked"):
            call()
    masked_hui = np.ma.masked_array(hui, mask=np.arange(len(hui)) == 2)
    with pytest.raises(ValueError, match=r"hui must be plain values, .* entry \(2,\) masked"):
        hand.hand_distance(rules, hands, masked_hui)
    with pytest.raises(ValueError, match=r"wild must be plain values"):
        hand.is_win(hands, np.ma.masked_array(np.zeros(len(hands), int), mask=np.arange(len(hands)) == 0))
    m = np.ma.masked_array(mask, mask=np.zeros(mask.shape, bool))
    m[0, 3] = np.ma.masked
    with pytest.raises(ValueError, match=r"action mask must be plain values, .* entry \(0, 3\) masked"):
        B.as_bool_mask(m)
    with pytest.raises(ValueError, match=r"action_mask must be plain values"):
        RuleBasedAgent(rules).act({"observation": planes, "action_mask": m}, np.random.default_rng(0))
    p = np.ma.masked_array(planes, mask=np.zeros(planes.shape, bool))
    p[0, 0, 0] = np.ma.masked
    with pytest.raises(ValueError, match=r"observation must be plain values"):
        O.checked_planes(p, "observation")


def test_hand_distance_refuses_bool_and_structured_counts():
    """``hand_distance`` read a bool array as counts 0 and 1, which ``is_win`` refuses ("counts must be an
    integer array"), and a structured one failed in NumPy's "Cannot compare structured or void to non-void
    arrays"."""
    rules = get_rules("beijing")
    counts = np.zeros((2, 34), dtype=np.int8)
    counts[:, :13] = 1
    for value in (counts.astype(bool), counts.view([("x", "i1")])):
        with pytest.raises(TypeError, match="counts must be an integer array, got dtype"):
            hand.hand_distance(rules, value, -1)
        with pytest.raises(TypeError, match="counts must be an integer array, got dtype"):
            hand.is_win(value, 0)
    assert _same(hand.hand_distance(rules, counts.astype(object), -1), hand.hand_distance(rules, counts, -1))


def test_network_agent_reads_reversed_read_only_and_broadcast_planes():
    """``NetworkAgent.act`` of planes or a bool mask with a negative stride (``planes[::-1]``, a batch in
    reverse) failed in torch ("At least one stride in the given numpy array is negative"), and read-only ones
    (a broadcast, ``setflags(write=False)``) gave torch's UserWarning "The given NumPy array is not writable";
    now they answer as the plain arrays, with no warning."""
    import warnings
    torch = pytest.importorskip("torch")
    from agents.networks import NetworkAgent, build_network
    rules, planes, mask = _positions("beijing")
    planes, mask = planes[:12], mask[:12].astype(bool)
    torch.manual_seed(0)
    for config in ({"arch": "mlp"}, {"arch": "tiles"}, {"arch": "mlp", "obs": "mj_obs_v2"}):
        agent = NetworkAgent(build_network(config), greedy=True, rules=rules)

        def act(p, m, agent=agent):
            return agent.act({"observation": p, "action_mask": m}, np.random.default_rng(0))

        want = act(planes, mask)
        ro = planes.copy()
        ro.setflags(write=False)
        ro_mask = mask.copy()
        ro_mask.setflags(write=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert (act(planes[::-1], mask[::-1]) == want[::-1]).all(), config
            assert (act(ro, ro_mask) == want).all(), config
            one = act(np.broadcast_to(planes[:1], planes.shape), np.broadcast_to(mask[:1], mask.shape))
            many = act(np.repeat(planes[:1], len(planes), 0), np.repeat(mask[:1], len(mask), 0))
            assert (one == many).all(), config


def test_masked_table_seat_and_reset_mask_entries_are_refused():
    """Table numbers (``Engine.reset``, ``clone``, ``observe``'s ``idx``), ``redeal``'s seats and the vector
    env's ``reset_mask`` read a masked entry by the value under the mask (``reset(tables=...)`` dealt the
    masked table anew); refused as the actions' masked entries are. Nothing masked: read as the values."""
    eng = Engine("beijing", num_tables=4, seed=0)
    eng.reset()
    masked = np.ma.masked_array([0, 2], mask=[False, True])
    before = eng.state.wall.copy()
    for call, name in ((lambda: eng.reset(tables=masked), "tables"), (lambda: eng.clone(masked), "tables"),
                       (lambda: observe(eng.rules, eng.state, idx=masked), "idx"),
                       (lambda: D.redeal(eng, np.ma.masked_array([0, 0, 1, 0], mask=[0, 1, 0, 0]), 0),
                        "seat")):
        with pytest.raises(ValueError, match=name + r" must be plain values, got a masked array with entry "
                                                    r"\(1,\)"):
            call()
    assert (eng.state.wall == before).all()
    env = MahjongVectorEnv(num_envs=2, seed=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"reset_mask must be plain values"):
        env.reset(options={"reset_mask": np.ma.masked_array([True, False], mask=[False, True])})
    eng.reset(tables=np.ma.masked_array([0, 2]))  # nothing masked
    env.reset(options={"reset_mask": np.ma.masked_array([True, False])})


def test_format_hand_reads_one_hand_in_any_form_and_refuses_other_shapes(tmp_path):
    """``tiles.format_hand`` of a hand in another memory form writes the same; an np.matrix (always 2-D), a
    (1, 34) batch or a 0-d array failed in NumPy ("object too deep for desired array", "len() of unsized
    object"): a TileError naming the shape now."""
    from mj_env.tiles import TileError, format_hand, parse_hand
    counts = parse_hand("123m456p789s11z55z")
    for form, value in _forms(counts, tmp_path):
        assert format_hand(value) == "123m456p789s1155z", form
    for value in (np.matrix(counts), counts[None], np.array(3)):
        with pytest.raises(TileError, match=r"tile counts must be one hand, shape \(34,\), got shape"):
            format_hand(value)
