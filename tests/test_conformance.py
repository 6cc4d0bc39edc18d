"""Conformance suite run on every registered game and every player count it allows.

Nothing here knows the rules of a particular game: a new game registered in the C++ registry
gets these tests for free. Thousands of random playouts check, at every step, the contracts
of the Game interface (csrc/core/game.h) and the Python API (python/kibitz/game.py): player
ranges, legal moves exactly those `apply` accepts, chance distributions, terminal results,
exact notation round trips, seat views and their round trips, information keys, clones, and
determinization (same view, nothing public moved, hidden parts really sampled).

Two policies are used: uniform random moves, and "long" (uniform among the moves that do not
end the game at once, when there are any), which reaches the natural end of a game. At a
simultaneous node a move is a joint move (seat -> action), each seat's drawn from its own list.

What a game is comes from its registration, never from its name here: ``Game.metadata`` says
whether it has simultaneous nodes, chance nodes in play, hidden information and teams, and
bounds its action ids, chance outcomes, returns and length; the checks hold play to it.

Known engine bugs can be listed in KNOWN_BUGS; the affected parametrisations are then marked
xfail(strict=True) so that a fix shows up as an unexpected pass.
"""

from __future__ import annotations

import collections
import math
import random

import pytest

import kibitz

# game-independent helpers that go through the public State API only
from state_helpers import enumerate_perft, lasting_actions, random_joint, random_outcome

GAMES = list(kibitz.games())
PARAMS = [(g.name, p) for g in GAMES for p in range(g.min_players, g.max_players + 1)]
IDS = [f"{name}-{p}p" for name, p in PARAMS]
ACTION_ID_BOUND = 64  # every id below this that is not legal must be refused

# (game, check) -> reason. Checks: "end_equality" = the state read back from the notation of a
# finished game compares equal to it.
KNOWN_BUGS: dict[tuple[str, str], str] = {
    # e.g. ("just4fun_colours", "end_equality"): "BUG: ...". Fixed: just4fun_colours read the
    # current player of a finished game back as the next seat instead of the last mover, so
    # the state read from the notation of an area-scored game compared unequal (7a471e8).
}


def params_for(check: str):
    out = []
    for name, p in PARAMS:
        reason = KNOWN_BUGS.get((name, check))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, p, marks=marks, id=f"{name}-{p}p"))
    return out


def make_game(name: str, players: int) -> kibitz.Game:
    return kibitz.Game(name, players=players)


def choose(rng: random.Random, s: kibitz.State, policy: str) -> int | dict[int, int]:
    """A chance outcome, a decision, or at a simultaneous node a joint move."""
    if s.is_chance():
        return random_outcome(rng, s)
    if policy == "long":
        lasting = lasting_actions(s)
        if lasting:
            return rng.choice(lasting)
    return random_joint(rng, s) if s.is_simultaneous() else rng.choice(s.legal_actions())


def play(s: kibitz.State, move: int | dict[int, int]) -> None:
    s.apply_joint(move) if isinstance(move, dict) else s.apply(move)


def playout(game: kibitz.Game, seed: int, policy: str, check=None, max_steps: int = 100_000) -> kibitz.State:
    rng = random.Random(seed)
    s = game.new_initial_state(seed=seed)
    for step in range(max_steps):
        if check:
            check(s, rng, step)
        if s.is_terminal():
            return s
        play(s, choose(rng, s, policy))
    raise AssertionError(f"no end after {max_steps} steps (seed {seed})")


# --------------------------------------------------------------------------------------------
# Per-step checks
# --------------------------------------------------------------------------------------------


def check_basic(game: kibitz.Game, s: kibitz.State, exact_end: bool = True) -> None:
    """Cheap contracts, checked at every step of every playout."""
    P = s.num_players
    cp = s.current_player
    meta = game.metadata
    assert cp in range(P) or cp in (kibitz.CHANCE, kibitz.TERMINAL, kibitz.SIMULTANEOUS), cp
    assert (cp == kibitz.TERMINAL) == s.is_terminal()
    assert (cp == kibitz.CHANCE) == s.is_chance()
    assert (cp == kibitz.SIMULTANEOUS) == s.is_simultaneous()
    assert cp != kibitz.SIMULTANEOUS or meta.dynamics == "simultaneous"
    assert cp != kibitz.CHANCE or meta.chance == "explicit_stochastic"
    assert s.is_simultaneous() == bool(s.choosing_seats())

    text = s.notation()
    back = game.state_from_notation(text)
    assert back.notation() == text
    if exact_end or not s.is_terminal():
        assert back == s, text
    assert back.current_player == cp

    if s.is_terminal():
        assert s.legal_actions() == [] and s.chance_outcomes() == []
        check_results(game, s)
        return
    assert s.returns() == [0.0] * P  # no result before the end
    if cp == kibitz.CHANCE:
        outcomes = s.chance_outcomes()
        assert outcomes, text
        ids = [a for a, _ in outcomes]
        assert len(set(ids)) == len(ids) and all(a >= 0 for a in ids)
        assert all(0.0 < p <= 1.0 for _, p in outcomes) and all(a < meta.max_chance_outcomes for a in ids)
        assert math.isclose(sum(p for _, p in outcomes), 1.0, abs_tol=1e-9)
        assert s.legal_actions() == ids
    elif cp == kibitz.SIMULTANEOUS:
        seats = s.choosing_seats()
        assert seats and len(set(seats)) == len(seats) and all(seat in range(P) for seat in seats), seats
        for seat in range(P):
            legal = s.legal_actions_for(seat)
            assert bool(legal) == (seat in seats), (seat, text)
            assert len(set(legal)) == len(legal) and all(isinstance(a, int) and 0 <= a < meta.max_actions for a in legal)
        with pytest.raises(kibitz.IllegalMoveError, match="choose at once"):
            s.legal_actions()
        assert s.chance_outcomes() == []
    else:
        legal = s.legal_actions()
        assert legal, text
        assert len(set(legal)) == len(legal) and all(isinstance(a, int) and 0 <= a < meta.max_actions for a in legal)
        assert s.chance_outcomes() == []
        assert s.legal_actions_for(cp) == legal and s.choosing_seats() == []
        assert all(s.legal_actions_for(seat) == [] for seat in range(P) if seat != cp)


def check_results(game: kibitz.Game, s: kibitz.State) -> None:
    """A finished game's results within the metadata's utility: returns in [min, max] summing to
    utility_sum, partners sharing one, and k joint winners 1/k each where seats play alone."""
    P, meta = s.num_players, game.metadata
    returns, ranks = s.returns(), s.ranks()
    assert len(returns) == P and len(ranks) == P and len(s.scores()) == P
    assert all(meta.min_utility <= r <= meta.max_utility for r in returns)
    assert all(1 <= r <= P for r in ranks)
    assert min(ranks) == 1
    if meta.utility_sum is not None:
        assert math.isclose(sum(returns), meta.utility_sum, abs_tol=1e-9), returns
    assert [s.team(seat) for seat in range(P)] == game.teams
    if meta.teams:
        assert all(returns[p] == returns[q] for p in range(P) for q in range(P) if game.teams[p] == game.teams[q]), returns
    else:
        winners = [p for p in range(P) if returns[p] > 0]
        # k joint winners get 1/k each and share first place
        assert all(math.isclose(returns[p], 1.0 / len(winners)) for p in winners)
        assert winners == [p for p in range(P) if ranks[p] == 1]


def check_full(game: kibitz.Game, s: kibitz.State, rng: random.Random, keys: dict) -> None:
    """Expensive contracts: clones, exhaustive apply, views, keys and determinization."""
    text = s.notation()
    cp = s.current_player
    P = s.num_players

    if s.is_simultaneous():
        check_joint_moves(s)
    else:
        # legal actions are exactly those apply accepts; a refused move changes nothing
        legal = set(s.legal_actions())
        for a in range(ACTION_ID_BOUND):
            if a in legal:
                c = s.clone()
                c.apply(a)
                assert s.notation() == text  # clone independence
                assert c.notation() != text or c != s
            else:
                with pytest.raises(kibitz.IllegalMoveError):
                    s.apply(a)
                assert s.notation() == text
        for a in legal:  # move text round trip
            assert s.parse_move(s.move_to_string(a)) == a

    for seat in range(P):
        v = s.view(seat)
        assert v.seat == seat and v.game_name == game.name
        assert v.key == s.info_key(seat)
        # the key is a function of the view, and different views have different keys
        assert keys.setdefault(("view", v.notation()), v.key) == v.key
        assert keys.setdefault(("key", v.key), v.notation()) == v.notation()

        w = game.state_from_view(v.notation())
        assert w.view(seat).notation() == v.notation(), v.notation()
        assert w.info_key(seat) == v.key
        assert game.state_from_notation(w.notation()).notation() == w.notation()
        assert v.state().view(seat).notation() == v.notation()

        d = s.determinize(seat, rng.getrandbits(32))
        assert d.view(seat).notation() == v.notation(), (text, seat, d.notation())
        assert d.info_key(seat) == v.key
        assert d.current_player == cp
        d_text = d.notation()
        assert game.state_from_notation(d_text).notation() == d_text  # a valid state
        assert d.choosing_seats() == s.choosing_seats()  # who chooses is public
        if cp == seat or seat in s.choosing_seats():
            assert d.legal_actions_for(seat) == s.legal_actions_for(seat)  # own moves depend on own information
        assert s.notation() == text  # determinize does not touch the state


def check_joint_moves(s: kibitz.State) -> None:
    """At a simultaneous node: each seat's legal actions are exactly those a joint move may
    give it; a joint move missing a seat, naming one that does not choose, or holding an
    illegal action is refused, naming the seat, and changes nothing."""
    text = s.notation()
    seats = s.choosing_seats()
    first = {seat: s.legal_actions_for(seat)[0] for seat in seats}
    for seat in seats:
        legal = set(s.legal_actions_for(seat))
        for a in range(ACTION_ID_BOUND):
            joint = {**first, seat: a}
            if a in legal:
                c = s.clone()
                c.apply_joint(joint)
                assert s.notation() == text and c != s
                assert s.parse_move(s.move_to_string(a)) == a  # move text round trip
            else:
                with pytest.raises(kibitz.IllegalMoveError, match=f"seat {seat}"):
                    s.apply_joint(joint)
                assert s.notation() == text
        with pytest.raises(kibitz.IllegalMoveError, match=f"no move of seat {seat}"):
            s.apply_joint({q: a for q, a in first.items() if q != seat})
        assert s.notation() == text
    others = [q for q in range(s.num_players) if q not in seats]
    for q in others:
        with pytest.raises(kibitz.IllegalMoveError, match=f"seat {q} does not choose here"):
            s.apply_joint({**first, q: 0})
    with pytest.raises(kibitz.IllegalMoveError, match="choose at once"):
        s.apply(first[seats[0]])
    assert s.notation() == text


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_every_game_is_listed_with_a_description_and_player_range():
    assert GAMES
    names = [g.name for g in GAMES]
    assert len(set(names)) == len(names)
    for g in GAMES:
        assert g.description and 1 <= g.min_players <= g.max_players
        option_names = [name for name, _ in g.options]
        assert "players" in option_names or g.min_players == g.max_players


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_game_construction_and_options(name, players):
    game = make_game(name, players)
    assert game.num_players == players
    s = game.new_initial_state(seed=1)
    assert s.num_players == players and s.game_name == name
    assert game.new_initial_state(seed=1) == s and game.new_initial_state(seed=1).notation() == s.notation()
    with pytest.raises(kibitz.OptionError):
        kibitz.Game(name, players=players, no_such_option_xyz=1)


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_moves_that_are_not_action_ids_are_refused_with_notation_error(name, players):
    s = make_game(name, players).new_initial_state(seed=4)
    text = s.notation()
    for move in (-1, True, 1.5, None, "", "   "):
        with pytest.raises(kibitz.NotationError):
            s.apply(move)
        assert s.notation() == text
        if s.is_simultaneous():
            seat = s.choosing_seats()[-1]
            joint = {q: s.legal_actions_for(q)[0] for q in s.choosing_seats()}
            with pytest.raises(kibitz.NotationError, match=f"^seat {seat}: "):
                s.apply_joint({**joint, seat: move})
            assert s.notation() == text
    if s.is_simultaneous():
        for joint in (None, [0, 1], "rock"):
            with pytest.raises(kibitz.NotationError, match="a joint move is a mapping"):
                s.apply_joint(joint)


@pytest.mark.parametrize("name,players", PARAMS[:1], ids=IDS[:1])
def test_huge_action_ids_are_refused_with_a_kibitz_error(name, players):
    s = make_game(name, players).new_initial_state(seed=4)
    text = s.notation()
    for move in (2**32, 2**32 + s.legal_actions()[0], 2**64):
        with pytest.raises((kibitz.IllegalMoveError, kibitz.NotationError)):
            s.apply(move)
        assert s.notation() == text


@pytest.mark.parametrize("name", [g.name for g in GAMES])
def test_player_counts_outside_the_range_are_refused(name):
    info = next(g for g in GAMES if g.name == name)
    for bad in (info.min_players - 1, info.max_players + 1):
        with pytest.raises(kibitz.OptionError):
            kibitz.Game(name, players=bad)


def test_unknown_game_is_refused():
    with pytest.raises(kibitz.UnknownGameError):
        kibitz.Game("no_such_game_xyz")


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_garbage_notation_is_refused(name, players):
    game = make_game(name, players)
    for text in ("", "garbage", "no_such_game_xyz players=2", name + " =", name + " players"):
        with pytest.raises(kibitz.NotationError):
            game.state_from_notation(text)
        with pytest.raises(kibitz.NotationError):
            game.state_from_view(text)
    s = game.new_initial_state(seed=3)
    with pytest.raises((IndexError, ValueError)):
        s.view(players)
    with pytest.raises((IndexError, ValueError)):
        s.info_key(-1)


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_random_playouts_keep_every_invariant(name, players):
    """Cheap contracts at every step of many playouts (about 2000 in total per game)."""
    game = make_game(name, players)
    exact_end = (name, "end_equality") not in KNOWN_BUGS
    n = 700
    ends = collections.Counter()
    for i in range(n):
        policy = "random" if i % 2 else "long"
        end = playout(game, 10_000 * players + i, policy, check=lambda s, rng, step: check_basic(game, s, exact_end))
        ends[max(end.returns()) == 1.0] += 1
    assert sum(ends.values()) == n


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_full_contracts_at_every_step(name, players):
    """Exhaustive apply, clones, move text, views and their round trip, information keys and
    determinization, at every step of a few playouts."""
    game = make_game(name, players)
    keys: dict = {}
    states: set[str] = set()
    for i in range(14):
        policy = "long" if i % 2 else "random"
        playout(game, 20_000 * players + i, policy, check=lambda s, rng, step: check_full(game, s, rng, keys) or states.add(s.notation()))
    assert len(keys) > 100 or len(states) < 30  # a tiny game (biased_rps) has few states to see


@pytest.mark.parametrize("name,players", params_for("end_equality"))
def test_notation_round_trip_gives_an_equal_state_at_the_end(name, players):
    game = make_game(name, players)
    for i in range(30):
        end = playout(game, 30_000 * players + i, "long")
        back = game.state_from_notation(end.notation())
        assert back.notation() == end.notation()
        assert back == end, end.notation()


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_determinization_samples_the_hidden_parts(name, players):
    """At mid-game decision states, for every seat: each sample keeps the seat's view and
    information key (nothing public moves), and the samples really differ from each other."""
    game = make_game(name, players)
    tested = 0
    for i in range(6):
        states = []
        playout(game, 40_000 * players + i, "long", check=lambda s, rng, step: states.append(s.clone()))
        decisions = [s for s in states if s.current_player >= 0 or s.is_simultaneous()]
        for s in decisions[len(decisions) // 3 :: max(1, len(decisions) // 4)]:
            for seat in range(players):
                v = s.view(seat)
                samples = [s.determinize(seat, seed) for seed in range(12)]
                for d in samples:
                    assert d.view(seat).notation() == v.notation()
                    assert d.info_key(seat) == v.key
                assert s.determinize(seat, 5) == samples[5]  # seeded: reproducible
                distinct = {d.notation() for d in samples}
                # every view marks what it hides with '?' (a hand's size, a card chosen in secret)
                if game.metadata.information == "perfect" or "?" not in v.notation():
                    assert distinct == {s.notation()} and v.state() == s
                    tested += 1
                    continue
                assert len(distinct) > 1, f"determinization for seat {seat} never varies: {s.notation()}"
                # states that differ only in what the seat cannot see look the same to it
                a, b = samples[0], next(d for d in samples if d.notation() != samples[0].notation())
                assert a.view(seat).notation() == b.view(seat).notation() and a.info_key(seat) == b.info_key(seat)
                tested += 1
    assert tested >= 10


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_each_seats_view_advanced_by_its_observations_is_its_true_view(name, players):
    """The protocol's incremental `observe`: starting from the initial view, each seat that
    is told only observation_text of every action holds exactly its true view throughout."""
    game = make_game(name, players)
    for i in range(8):
        rng = random.Random(50_000 * players + i)
        s = game.new_initial_state(seed=50_000 * players + i)
        views = [s.view(seat) for seat in range(players)]
        while not s.is_terminal():
            action = choose(rng, s, "random")
            if isinstance(action, dict):
                seen = [s.joint_observation_text(seat, action) for seat in range(players)]
            else:
                seen = [s.observation_text(seat, action) for seat in range(players)]
            play(s, action)
            for seat in range(players):
                views[seat] = views[seat].advance(seen[seat])
                assert views[seat].notation() == s.view(seat).notation()
                assert views[seat].key == s.info_key(seat)
    with pytest.raises(kibitz.IllegalMoveError, match="the game is over"):
        views[0].advance(seen[0])


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_sample_chance_follows_the_chance_probabilities(name, players):
    game = make_game(name, players)
    rng = random.Random(players)
    s = game.new_initial_state(seed=5)
    found = games = 0
    while found < 3 and games < 5:
        if s.is_terminal():  # a short game (biased_rps) may end without a chance node: play another
            s, games = game.new_initial_state(seed=5 + games), games + 1
            continue
        if s.is_chance():
            outcomes = dict(s.chance_outcomes())
            n = 3000
            counts = collections.Counter(s.sample_chance(seed) for seed in range(n))
            assert set(counts) <= set(outcomes)
            for a, p in outcomes.items():
                sd = math.sqrt(p * (1 - p) / n)
                assert abs(counts[a] / n - p) <= 5 * sd + 1e-9, (a, p, counts[a] / n)
            found += 1
        play(s, choose(rng, s, "random"))
    assert found == 0 if game.metadata.chance == "deterministic" else found


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_perft_agrees_with_enumeration_through_the_python_api(name, players):
    game = make_game(name, players)
    rng = random.Random(7)
    s = game.new_initial_state(seed=11)
    checked = 0
    for step in range(400):
        if s.is_terminal():
            break
        if step % 17 in (0, 1):  # often enough for at least two checks in a short game
            for depth in (1, 2, 3):
                assert s.perft(depth) == enumerate_perft(s, depth), (s.notation(), depth)
            checked += 1
        play(s, choose(rng, s, "long"))
    assert s.perft(0) == 1
    assert checked >= min(2, step)  # biased_rps may end after one step
    with pytest.raises(kibitz.OptionError):
        s.perft(-1)


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_native_random_playouts_finish(name, players):
    """The engine's own random playout loop (used by the benchmark) terminates and makes at
    least one decision per game."""
    s = make_game(name, players).new_initial_state(seed=2)
    decisions = s._s.random_playouts(500, 99)
    assert 500 <= decisions < 500 * 10_000
    assert s._s.random_playouts(500, 99) == decisions  # seeded


@pytest.mark.parametrize("name,players", PARAMS, ids=IDS)
def test_play_shows_what_the_metadata_declares(name, players):
    """Seeded playouts meet simultaneous nodes, chance nodes and hidden information exactly
    when the metadata says the game has them, and never take more decisions than its
    max_game_length (a joint move counting as one)."""
    game = make_game(name, players)
    meta = game.metadata
    seen = {"simultaneous": False, "chance": False, "hidden": False}
    decisions = [0]  # per playout
    longest = 0

    def look(s: kibitz.State, rng: random.Random, step: int) -> None:
        nonlocal longest
        if step == 0:
            decisions.append(0)
        seen["simultaneous"] |= s.is_simultaneous()
        seen["chance"] |= s.is_chance()
        seen["hidden"] |= any(s.view(seat).state() != s for seat in range(players))
        if not s.is_chance() and not s.is_terminal():
            decisions[-1] += 1
            longest = max(longest, decisions[-1])

    for i in range(20):
        playout(game, 60_000 * players + i, "long" if i % 2 else "random", check=look)
    assert seen["simultaneous"] == (meta.dynamics == "simultaneous")
    assert seen["chance"] == (meta.chance == "explicit_stochastic")
    # simultaneous choices are hidden from one another too (the game's imperfect information)
    assert (seen["hidden"] or seen["simultaneous"]) == (meta.information == "imperfect")
    assert meta.teams == (len(set(game.teams)) < players)
    assert meta.max_game_length is None or longest <= meta.max_game_length
