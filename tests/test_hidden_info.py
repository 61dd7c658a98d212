"""Leak tests: two game states that differ only in what a seat cannot see give that seat the same observation
(``mj_obs_v1`` and ``mj_obs_v2``), the same action mask and the same infos, in every environment.

What a seat may know (README "What an agent sees", mj_env/observation.py, docs/RULES.md 3-4): its own hand, the
rivers, melds, the number (not kinds) of others' concealed kongs, 报听, flowers, the 惠坯, the counts left, its own
past, and what the rules themselves tell by asking (a window opens only when some seat may claim; the seat asked
is offered only claims better than one already pending: docs/game_flow.md "After a discard"). It may not know
the others' concealed tiles and concealed-kong kinds, the wall's order or contents, nor another seat's pending
claim while it is not the one asked.

Pairs are made three ways: ``mj_env.determinize.redeal`` (the tiles a seat cannot see dealt afresh),
``mj_env.determinize.shuffle_wall`` (the undrawn wall in another order: hidden from every seat), and, for whole
hands played through the AEC env, a wall whose never-drawn tiles are permuted, or one tile of another seat's
concealed hand (held all hand long) swapped with a never-drawn tile."""
from __future__ import annotations

import numpy as np
import pytest
from rule_play import rule_agent_play

import mj_env
from mj_env import actions as A
from mj_env import observation as O
from mj_env.baselines import RuleBasedAgent
from mj_env.determinize import redeal, shuffle_wall
from mj_env.engine import Engine
from mj_env.features import in_layout
from mj_env.single_agent import MahjongSingleAgentVectorEnv
from mj_env.state import CLAIM, END, NO_CATEGORY, ROB, TURN
from mj_env.tiles import CODES
from mj_env.vector import MahjongVectorEnv

RULES = ("beijing", "hebei", "quemen")


def _positions(rules: str, tables: int = 24, seed: int = 0, limit: int = 160, every: int = 8, **overrides):
    """(engine copy, live tables) at every ``every``-th step of ``limit`` steps of rule-agent play."""
    eng = Engine(rules, num_tables=tables, seed=seed, **overrides)
    eng.reset()
    for step, live in enumerate(rule_agent_play(eng, seed, limit)):
        if step % every == 0 and len(live):
            yield eng.clone(), live


def _view(rules, eng: Engine, b: int, seat: int) -> tuple:
    """Everything of table ``b`` that ``seat`` is shown by the rules core: its v1 planes (both builders), its v2
    planes, its mask row (zeros when it is not to act) and, when it acts, why each illegal action is illegal."""
    st = eng.state
    one = O.observe_one(rules, st, b, seat)
    batched = O.observe(rules, st, np.array([b]), np.array([seat]))[0]
    assert np.array_equal(one, batched)
    acts = st.phase[b] != END and int(st.to_act[b]) == seat
    mask = eng.legal_mask()[b].view(np.int8) if acts else np.zeros(A.N_ACTIONS, np.int8)
    v2 = in_layout("v2", rules, one[None], mask[None])[0]
    why = tuple(eng.explain_illegal(b, a) for a in range(0, A.N_ACTIONS, 5) if not mask[a]) if acts else ()
    return one.tobytes(), v2.tobytes(), mask.tobytes(), why


@pytest.mark.parametrize(("rules", "overrides"), [(r, {}) for r in RULES] + [("beijing", {"hui_wild_in_melds": True})],
                         ids=[*RULES, "beijing-hui_wild_in_melds"])
def test_engine_views_do_not_depend_on_hidden_tiles(rules, overrides):
    """At positions of rule-agent play: the undrawn wall put in another order changes no seat's view; the tiles
    the seat to act cannot see dealt afresh change nothing it is shown; on a turn, the same for each seat not to
    act (its view while another seat plays)."""
    pairs = {"shuffled": 0, "acting": 0, "watching": 0}
    phases = set()
    for eng, live in _positions(rules, tables=12, limit=150, every=10, **overrides):
        rl = eng.rules
        st = eng.state
        shuffled = eng.clone()
        shuffle_wall(shuffled, np.random.default_rng(1), tables=live)
        acting = eng.clone()
        to_act = st.to_act[live].astype(np.int64)
        done = redeal(acting, to_act, np.random.default_rng(2), tables=live)
        turn = live[st.phase[live] == TURN]
        watching = [eng.clone() for _ in range(3)]
        for k, w in enumerate(watching, start=1):
            if len(turn):
                redeal(w, (st.to_act[turn].astype(np.int64) + k) % 4, np.random.default_rng(3 + k), tables=turn)
        for j, b in enumerate(live):
            b = int(b)
            phases.add(int(st.phase[b]))
            seat = int(st.to_act[b])
            own = [_view(rl, eng, b, s) for s in range(4)]  # each seat's view of the position itself, made once
            for s in range(4):
                assert own[s] == _view(rl, shuffled, b, s), (rules, b, s)
                pairs["shuffled"] += 1
            if done[j]:
                assert own[seat] == _view(rl, acting, b, seat), (rules, b, seat)
                pairs["acting"] += 1
            if st.phase[b] == TURN:
                for k, w in enumerate(watching, start=1):
                    s = (seat + k) % 4
                    assert own[s] == _view(rl, w, b, s), (rules, b, s)
                    pairs["watching"] += 1
    assert min(pairs.values()) > 150 and {TURN, CLAIM} <= phases, pairs


def _aec(rules: str, wall, dealer: int = 0, obs: str = "v1"):
    e = mj_env.env(rules, obs=obs)
    e.reset(options={"wall": [CODES[t] for t in wall], "dealer": dealer})
    return e


def _seen_by(e, agent: str) -> tuple:
    o = e.observe(agent)
    return o["observation"].tobytes(), o["action_mask"].tobytes()


@pytest.mark.parametrize("window", ["discard", "rob"])
def test_a_claim_accepted_but_not_carried_out_is_hidden_from_the_seats_not_asked(window):
    """hebei, several winners (docs/RULES.md 4.2, 4.4): seats 2 and 3 both wait on 5m. Seat 2 is asked first about
    the dealer's 5m (and later about seat 1's added kong of 5m); whether it accepted the win or passed, seat 3 is
    asked next. The seat asked is told a win is pending (COL_CLAIM_CATEGORY 1: only win is offered), but the seats
    not asked (the discarder or declarer, and the fourth seat) were told it too: another seat's claim before it is
    resolved. Now only the asked seat's planes hold it."""
    from scenario_helpers import HEBEI, TWO_ROBBERS, TWO_ROBBERS_MOVES
    from walls import build_wall

    wall = build_wall(HEBEI, **TWO_ROBBERS)
    moves = TWO_ROBBERS_MOVES[:1] if window == "discard" else TWO_ROBBERS_MOVES
    games = {}
    for choice in ("win", "pass"):
        e = _aec("hebei", wall, obs="v2")
        for seat, move in moves:
            assert e.agent_selection == f"player_{seat}"
            e.step(A.index(move))
        assert e.agent_selection == "player_2"
        e.step(A.index(choice))
        assert e.agent_selection == "player_3"
        games[choice] = e
    won, passed = games["win"], games["pass"]
    for agent in ("player_0", "player_1"):          # not asked: the same view whatever seat 2 chose
        assert _seen_by(won, agent) == _seen_by(passed, agent), agent
        assert won.observe(agent)["observation"][O.P_SCALARS, O.COL_CLAIM_CATEGORY] == NO_CATEGORY
    assert np.array_equal(won.state()[:2], passed.state()[:2])
    asked = won.observe("player_3")["observation"][O.P_SCALARS]
    assert asked[O.COL_CLAIM_CATEGORY] == 1 and asked[O.COL_PHASE] == (1 if window == "discard" else 2)
    assert passed.observe("player_3")["observation"][O.P_SCALARS, O.COL_CLAIM_CATEGORY] == NO_CATEGORY


def _pairs(rules: str, n: int = 12, seed: int = 5, limit: int = 90, every: int = 15):
    """(engine, its copy with the tiles the seat to act cannot see dealt afresh, the tables redealt): positions
    of rule-agent play on ``n`` tables; every table ended is dealt again, so each engine holds ``n`` live tables."""
    for eng, live in _positions(rules, tables=n, seed=seed, limit=limit, every=every):
        if len(live) < n:
            continue
        other = eng.clone()
        done = redeal(other, eng.state.to_act.astype(np.int64), np.random.default_rng(11))
        assert not np.array_equal(other.state.hands, eng.state.hands)
        yield eng, other, np.flatnonzero(done)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("obs", ["v1", "v2"])
def test_every_environment_shows_the_seat_to_act_the_same_whatever_it_cannot_see(rules, obs):
    """The same engine position, and its copy with the hidden tiles dealt afresh, put into the AEC env
    (observe, last), the vector env (obs and seat per table), the single-agent env with the seat to act as the
    learner, and the SB3 adapter (which steps that env): the seat to act is given the same planes and mask. Without
    the sb3 extra (it needs torch, which a new Python may not have yet) the other three are compared
    (tests/test_newer_python.py)."""
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        MahjongSB3VecEnv = None
    else:
        from mj_env.sb3 import MahjongSB3VecEnv

    n, compared = 12, 0
    for eng, other, tables in _pairs(rules, n):
        seats = eng.state.to_act.astype(np.int64)
        venv = MahjongVectorEnv(num_envs=n, rules=rules, obs=obs, seed=0)
        single = MahjongSingleAgentVectorEnv(num_envs=n, rules=rules, obs=obs, seed=0)
        sb3 = None if MahjongSB3VecEnv is None else MahjongSB3VecEnv(num_envs=n, rules=rules, obs=obs, seed=0)
        views = []
        for e in (eng, other):
            venv.reset(seed=0)
            venv.engine = e.clone()
            vo = venv._obs()
            single.reset(seed=0)
            single.engine = e.clone()
            single.seats[:] = seats
            so = single._obs(np.zeros(n, dtype=bool))
            bo = None
            if sb3 is not None:
                sb3.reset()
                sb3.envs.engine = e.clone()
                sb3.envs.seats[:] = seats
                bo = sb3.envs._obs(np.zeros(n, dtype=bool))
            aec = []
            for b in tables:
                a = mj_env.env(rules, obs=obs)
                a.reset(seed=0)
                a.unwrapped.engine = e.clone([b])
                a.unwrapped._select()
                agent = f"player_{seats[b]}"
                assert a.agent_selection == agent
                got, _, term, trunc, info = a.last()
                mine = a.observe(agent)
                aec.append((got["observation"].tobytes(), got["action_mask"].tobytes(), term, trunc, repr(info),
                            mine["observation"].tobytes(), mine["action_mask"].tobytes()))
            views.append(([vo[k][tables].tobytes() for k in ("observation", "action_mask", "seat")],
                          [so[k][tables].tobytes() for k in ("observation", "action_mask")],
                          [] if bo is None else [bo[k][tables].tobytes() for k in ("observation", "action_mask")],
                          aec))
        assert views[0] == views[1], rules
        compared += len(tables)
    assert compared >= 36, compared


@pytest.mark.parametrize("rules", RULES)
def test_opponents_decide_from_their_own_view_only(rules):
    """The single-agent env's opponents (rule, efficient, random and the pretrained network) get the seat's
    observation, never the engine: with the same random numbers they choose the same actions at a position and
    at its copy with the tiles that seat cannot see dealt afresh."""
    pytest.importorskip("torch")
    n, compared = 12, 0
    envs = {name: MahjongSingleAgentVectorEnv(num_envs=n, rules=rules, opponents=name, seed=0)
            for name in ("rule", "efficient", "random", "pretrained")}
    for env in envs.values():
        env.reset(seed=0)
    for eng, other, tables in _pairs(rules, n, seed=6, limit=75):
        learner = (eng.state.to_act.astype(np.int64) + 1) % 4          # the seat to act is an opponent
        for name, env in envs.items():
            chosen = []
            for e in (eng, other):
                env.engine = e.clone()
                env.seats[:] = learner
                env.rng = np.random.default_rng(21)
                chosen.append(env._opponent_actions(tables))
            assert np.array_equal(*chosen), (rules, name)
        compared += len(tables)
    assert compared >= 36, compared


def _rule_hand(rules: str, seed: int):
    """A hand the rule agent plays in all four seats through the AEC env: (wall, dealer, actions, the seat
    holding each kind from its deal to the end as a (4, 34) min count, the undrawn positions at the end)."""
    e = mj_env.env(rules)
    e.reset(seed=seed)
    eng = e.unwrapped.engine
    wall, dealer = [int(t) for t in eng.state.wall[0]], int(eng.state.dealer[0])
    agent, rng = RuleBasedAgent(rules), np.random.default_rng(seed)
    held = eng.state.hands[0].astype(np.int64).copy()
    actions = []
    for name in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = int(name[-1])
        a = int(agent.act({"observation": obs["observation"][None], "action_mask": obs["action_mask"][None],
                           "seat": np.array([seat])}, rng)[0])
        actions.append(a)
        e.step(a)
        held = np.minimum(held, eng.state.hands[0])
    st = eng.state
    return wall, dealer, actions, held, range(int(st.live_pos[0]), int(st.tail_pos[0]) + 1), e.unwrapped


def _replay(rules: str, wall, dealer: int, actions, watch) -> list | None:
    """Everything the agents ``watch`` are given at each step of the hand replayed from ``wall``: for each
    watched agent its observation and mask; for the agent selected, ``last()`` (reward, termination, infos);
    None where an action is illegal on this wall (the hands went another way)."""
    e = _aec(rules, wall, dealer)
    seen, moves = [], iter(actions)
    for name in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        step = [name] + [_seen_by(e, a) for a in watch]
        if name in watch:
            step += [reward, term, trunc, repr(info), e._cumulative_rewards[name]]
        seen.append(step)
        if term or trunc:
            e.step(None)
            continue
        a = next(moves, None)
        if a is None or not obs["action_mask"][a]:
            return None
        e.step(a)
    return seen


def _without_final_infos(seen: list, watch) -> list:
    """``_replay``'s steps with the infos of a terminated agent's ``last()`` left out."""
    return [s[:len(watch) + 4] + s[len(watch) + 5:] if len(s) > len(watch) + 1 and s[len(watch) + 2] else s
            for s in seen]


@pytest.mark.parametrize("rules", RULES)
def test_whole_hands_are_given_alike_whatever_the_unseen_tiles(rules):
    """Hands the rule agent plays through the AEC env, replayed on (a) the same wall with its never-drawn tiles in
    another order: every agent is given the same at every step, infos and rewards included; (b) a wall where
    one tile that seat h holds from the deal to the end is swapped with a never-drawn tile of another kind:
    wherever the same actions still make the same hand, the other three seats are given the same at every step
    (the settlement too, unless h won: a win shows the winner's hand, docs/INTERFACES.md 2)."""
    agents = [f"player_{s}" for s in range(4)]
    permuted = swapped = diverged = 0
    for seed in range(10):
        wall, dealer, actions, held, undrawn, env = _rule_hand(rules, seed)
        settlement = env._hand["settlement"]
        winners = {w["input"]["winner"] for w in settlement.get("wins", [settlement])} if "input" in settlement \
            or "wins" in settlement else set()
        undrawn = [p for p in undrawn if wall[p] < 34]            # flowers stay (quemen replaces them)
        base = _replay(rules, wall, dealer, actions, agents)
        assert base is not None and len(base) > 20
        order = np.random.default_rng(seed).permutation(undrawn)
        other = list(wall)
        for p, q in zip(undrawn, order):
            other[p] = wall[q]
        if other != wall:
            assert _replay(rules, other, dealer, actions, agents) == base, (rules, seed)
            permuted += 1
        for h in range(4):
            k = (h - dealer) % 4
            dealt = list(range(13 * k, 13 * k + 13)) + ([52] if k == 0 else [])
            x_pos = next((p for p in dealt if wall[p] < 34 and held[h, wall[p]] > 0), None)
            y_pos = next((p for p in undrawn if x_pos is not None and wall[p] != wall[x_pos]), None)
            if y_pos is None:
                continue
            other = list(wall)
            other[x_pos], other[y_pos] = wall[y_pos], wall[x_pos]
            watch = [a for a in agents if a != f"player_{h}"]
            mine, theirs = _replay(rules, wall, dealer, actions, watch), _replay(rules, other, dealer, actions, watch)
            if theirs is None or [s[0] for s in theirs] != [s[0] for s in mine]:
                diverged += 1                   # a window opened or closed: what the rules tell (module docstring)
                continue
            if h in winners:                    # the settlement (infos once the hand is over) shows h's hand
                mine, theirs = (_without_final_infos(v, watch) for v in (mine, theirs))
            assert theirs == mine, (rules, seed, h)
            swapped += 1
    assert permuted >= 5 and swapped >= 20, (permuted, swapped, diverged)


@pytest.mark.parametrize("rules", ["beijing", "hebei"])
def test_a_rob_window_shows_the_seat_asked_the_same_whatever_it_cannot_see(rules):
    """docs/RULES.md 4.4: seat 1's added kong of 5m opens a rob window (rule-agent play seldom reaches one). The
    seat asked is shown the same with the tiles it cannot see dealt afresh, and every seat the same with the
    undrawn wall in another order."""
    import scenario_helpers as sh
    from walls import build_wall

    layout, moves = (sh.ROB, [*sh.ROB_MOVES, (1, "kong 5m")]) if rules == "beijing" else (sh.TWO_ROBBERS, sh.TWO_ROBBERS_MOVES)
    e = _aec(rules, build_wall(rules, indicator="9s" if rules == "beijing" else None, **layout))
    for seat, move in moves:
        e.step(A.index(move))
    eng = e.unwrapped.engine
    assert eng.state.phase[0] == ROB
    seat = int(eng.state.to_act[0])
    for k in range(8):
        dealt, shuffled = eng.clone(), eng.clone()
        assert redeal(dealt, seat, np.random.default_rng(k)).all()
        shuffle_wall(shuffled, np.random.default_rng(k))
        assert _view(eng.rules, eng, 0, seat) == _view(eng.rules, dealt, 0, seat)
        for s in range(4):
            assert _view(eng.rules, eng, 0, s) == _view(eng.rules, shuffled, 0, s)
