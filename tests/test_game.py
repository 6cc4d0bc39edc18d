"""kibitz.Game, State and View as a Python user meets them: bad numbers and text get a clear
error naming the value and the allowed range (never a raw pybind11 TypeError), and a
notation must be a state of the Game that reads it."""

from __future__ import annotations

import pytest

import kibitz
from kibitz import NotationError, OptionError

J4FC = kibitz.Game("just4fun_colours", players=2)


@pytest.fixture
def state() -> kibitz.State:
    return J4FC.new_initial_state(1)


@pytest.mark.parametrize(
    "call,named",
    [
        (lambda s: J4FC.new_initial_state(-1), "seed: -1 is out of range; expected an integer in 0..18446744073709551615"),
        (lambda s: J4FC.new_initial_state(2**64), "seed: 18446744073709551616 is out of range"),
        (lambda s: J4FC.new_initial_state("7"), "seed: expected an integer in 0..18446744073709551615, got '7'"),
        (lambda s: s.view(2**40), "seat: 1099511627776 is out of range; expected an integer in 0..1"),
        (lambda s: s.view(2), "seat: 2 is out of range; expected an integer in 0..1"),
        (lambda s: s.info_key(-1), "seat: -1 is out of range"),
        (lambda s: s.team(2**40), "seat"),
        (lambda s: s.perft(10**20), "perft depth: 100000000000000000000 is out of range; expected an integer in 0..2147483647"),
        (lambda s: s.perft(-1), "perft depth: -1"),
        (lambda s: s.determinize(0, -1), "seed: -1"),
        (lambda s: s.observe(0, 2**40), "action id: 1099511627776 is out of range; expected an integer in 0..4294967295"),
        (lambda s: s.observation_text(0, -3), "action id: -3"),
        (lambda s: s.move_to_string(2**33), "action id"),
        (lambda s: s.render(7), "seat: 7"),
    ],
)
def test_numbers_out_of_range_name_the_value_and_the_range(state, call, named):
    with pytest.raises(OptionError) as error:
        call(state)
    assert named in str(error.value)


def test_a_chance_seed_out_of_range_is_refused(state):
    state.apply(state.legal_moves()[0])
    assert state.is_chance()
    with pytest.raises(OptionError, match=r"seed: -5 is out of range; expected an integer in 0\.\.18446744073709551615"):
        state.sample_chance(-5)


@pytest.mark.parametrize(
    "call,error,named",
    [
        (lambda s: J4FC.state_from_view(s.view(0).notation().replace("hands=", "hands=é")), NotationError, "field 'hands'"),
        (lambda s: J4FC.state_from_notation(s.notation().replace("board=", "board=²")), NotationError, "field 'board'"),
        (lambda s: s.apply("é1"), NotationError, "'é1' holds the non-ASCII character 'é'"),
        (lambda s: s.apply("a1\u00a0"), NotationError, "holds the non-ASCII character '\\xa0'"),
        (lambda s: s.view(s.current_player).advance("blocked:é"), NotationError, "non-ASCII character 'é'"),
        (lambda s: kibitz.Game("just4fun_colours", players="²"), OptionError, "option players"),
        (lambda s: kibitz.Game("just4fun_colours", línea="5"), OptionError, "game option"),
        (lambda s: kibitz.Game("yücata"), kibitz.UnknownGameError, "game name"),
    ],
)
def test_non_ascii_text_is_a_clear_error_naming_the_field(state, call, error, named):
    with pytest.raises(error) as raised:
        call(state)
    assert named in str(raised.value) and "UnicodeDecodeError" not in str(raised.value)


@pytest.mark.parametrize(
    "game,other,named",
    [
        (kibitz.Game("just4fun_colours", players=2), kibitz.Game("just4fun_colours", players=3), "3 players"),
        (kibitz.Game("just4fun_colours", players=2), kibitz.Game("just4fun_colours", players=2, line=5), "line=5"),
        (kibitz.Game("just4fun_colours", players=2, start=0), kibitz.Game("just4fun_colours", players=2, start=1), "start=1"),
        (kibitz.Game("yucata", players=2), kibitz.Game("yucata", players=2, q="distance"), "q=distance"),
        (kibitz.Game("canasta_tiles"), kibitz.Game("canasta_tiles", mode="three_rounds"), "mode=three_rounds"),
    ],
)
def test_a_notation_of_another_game_setup_is_refused_naming_the_field(game, other, named):
    s = other.new_initial_state(3)
    seat = max(s.current_player, 0)
    for read, text in ((game.state_from_notation, s.notation()), (game.state_from_view, s.view(seat).notation())):
        with pytest.raises(NotationError, match=named):
            read(text)
    assert other.state_from_notation(s.notation()) == s  # its own game reads it


def test_options_drawn_from_the_seed_are_not_checked():
    # no start seat given: it is drawn from the seed, so a notation with either start fits
    game = kibitz.Game("just4fun_colours", players=2)
    starts = set()
    for seed in range(20):
        s = game.new_initial_state(seed)
        starts.add(s.current_player)
        assert game.state_from_notation(s.notation()) == s
    assert starts == {0, 1}
    random_layout = kibitz.Game("yucata", players=2, layout="random")
    for seed in range(5):
        s = random_layout.new_initial_state(seed)
        assert random_layout.state_from_notation(s.notation()) == s


@pytest.mark.parametrize(
    "game",
    [kibitz.Game("just4fun_colours", players=3, line=5), kibitz.Game("yucata", players=4, q="distance"), kibitz.Game("canasta_tiles", mode="target_10000")],
    ids=repr,
)
def test_the_game_of_a_notation_reads_it(game):
    s = game.new_initial_state(5)
    found = kibitz.Game.of_notation(s.notation())
    assert found.num_players == game.num_players and found.state_from_notation(s.notation()) == s
    assert kibitz.Game.of_notation(s.view(1).notation()).options == found.options
    assert all(found.options[k] == v for k, v in game.options.items())


@pytest.mark.parametrize("game", [kibitz.Game("just4fun_colours", players=3), kibitz.Game("canasta_tiles")], ids=repr)
def test_the_fields_of_a_notation_rebuild_it_and_a_view_keeps_other_hands_hidden(game):
    s = game.new_initial_state(11)
    while s.is_chance():
        s.apply(s.sample_chance(3))
    fields = s.fields()
    assert s.notation() == " ".join([s.game_name] + [f"{k}={v}" for k, v in fields.items()])
    assert kibitz.notation_fields(s.notation()) == fields
    seen = s.view(1).fields()
    assert seen["seat"] == "1" and set(seen) == {"seat", *fields}
    hands, shown = fields["hands"].split(","), seen["hands"].split(",")
    assert shown[1] == hands[1] and all(shown[p].startswith("?") and shown[p] != hands[p] for p in range(game.num_players) if p != 1)


def test_what_a_seat_sees_is_asked_of_a_playable_action_only(state):
    """observe and observation_text answered for any action id; one that cannot be played here
    is now refused as apply refuses it, and nothing changes."""
    before = state.notation()
    illegal = next(a for a in range(J4FC.metadata.max_actions) if a not in state.legal_actions())
    for ask in (lambda a: state.observe(1, a), lambda a: state.observation_text(1, a)):
        with pytest.raises(kibitz.IllegalMoveError, match=r"not playable here: .*; playable: "):
            ask(illegal)
        ask(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    assert state.is_chance()
    outcome = state.chance_outcomes()[0][0]
    assert state.observation_text(0, outcome)
    with pytest.raises(kibitz.IllegalMoveError, match="not playable here"):
        state.observe(0, 10**6)
    assert J4FC.state_from_notation(before).notation() == before


def test_search_takes_search_params_or_a_mapping(state):
    """State.search({'iterations': 10}) raised AttributeError: ... to_core."""
    by_mapping = state.search({"iterations": 200, "seed": 3})
    assert by_mapping.stats == state.search(kibitz.SearchParams(iterations=200, seed=3)).stats
    assert state.search({"Iterations": "50", "c": "0.5"}).iterations == 50  # as a spec or the protocol names them
    for bad in (5, "iterations=10", [("iterations", 10)]):
        with pytest.raises(TypeError, match=r"search: params must be a kibitz.SearchParams or a mapping of search parameters such as \{'iterations': 1000\}, got "):
            state.search(bad)
    with pytest.raises(OptionError, match="unknown search parameter 'iters'"):
        state.search({"iters": 5})


@pytest.mark.parametrize(
    "text,named",
    [
        ("[1,2]", r"search parameters: expected a mapping \(a JSON object\) of parameter names to values, got list \[1, 2\]"),
        ("3", "got int 3"),
        ("nope", r"SearchParams.from_json: not JSON \(Expecting value: line 1 column 1 \(char 0\)\): 'nope'"),
        ('{"iterations": 10, "c": "x"}', "search parameter c: 'x' is not"),
    ],
)
def test_search_params_from_json_says_what_it_needs(text, named):
    """SearchParams.from_json('[1,2]') raised AttributeError: 'list' object has no attribute 'items'."""
    with pytest.raises(OptionError, match=named):
        kibitz.SearchParams.from_json(text)


def test_search_params_round_trip_through_json_and_refuse_names_that_are_not_text():
    params = kibitz.SearchParams(iterations=5, c=0.3, policy=(("block", 0.5),))
    assert kibitz.SearchParams.from_json(params.to_json()) == params
    with pytest.raises(OptionError, match="search parameters: names are text, got 1"):
        kibitz.SearchParams.from_dict({1: 2})  # type: ignore[dict-item]
