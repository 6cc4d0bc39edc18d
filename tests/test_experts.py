"""The expert heuristic players (kibitz.experts): legal whole games in every game and player
count, hidden information left alone, tactics in Just 4 Fun Colours and Yak, and seeded
strength checks against the greedy bot with a one-sided 95 % Wilson bound above 50 % (Yak
with four players: above the coin's 25 %).

The full strength tables (and their commands) are in docs/experts.md.
"""

from __future__ import annotations

import random
import statistics

import pytest

import kibitz
from kibitz.errors import OptionError
from kibitz.experts import ExpertBot
from kibitz.experts import yak as yak_expert
from kibitz.match import run_match, seat_assignment, wilson_ci

Z_ONE_SIDED_95 = statistics.NormalDist().inv_cdf(0.95)


def play(game: kibitz.Game, specs: list[str], seed: int) -> kibitz.State:
    """A whole game; every expert move is checked against the legal moves of its view (at a
    simultaneous node, such as Yak's Sunrise, every choosing seat's against its own)."""
    rng = random.Random(seed)
    bots = [kibitz.make_bot(spec, seed=seed * 10 + seat) for seat, spec in enumerate(specs)]
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng.getrandbits(63)))
            continue
        if state.is_simultaneous():
            joint = {}
            for seat in state.choosing_seats():
                joint[seat] = state.parse_move(bots[seat].act(state.view(seat)))
                assert joint[seat] in state.legal_actions_for(seat), (specs[seat], joint[seat], state.notation())
            state.apply_joint(joint)
            continue
        seat = state.current_player
        move = bots[seat].act(state.view(seat))
        action = state.parse_move(move)
        assert action in state.legal_actions(), (specs[seat], move, state.notation())
        state.apply(action)
    return state


@pytest.mark.parametrize(
    ("name", "players", "specs"),
    [
        ("just4fun_colours", 2, ["expert", "expert"]),
        ("just4fun_colours", 3, ["expert", "random", "greedy"]),
        ("just4fun_colours", 4, ["random", "expert", "greedy", "random"]),
        ("yucata", 2, ["expert", "expert"]),
        ("yucata", 3, ["greedy", "expert", "expert"]),
        ("yucata", 4, ["expert", "random", "expert", "greedy"]),
        ("canasta_tiles", 4, ["expert", "greedy", "expert", "random"]),
        ("canasta_tiles", 4, ["expert", "expert", "expert", "expert"]),
        ("yak", 2, ["expert", "expert"]),
        ("yak", 3, ["expert", "greedy", "random"]),
        ("yak", 4, ["expert", "random", "expert", "greedy"]),
    ],
)
def test_whole_legal_games(name: str, players: int, specs: list[str]) -> None:
    for seed in (1, 2) if players == 2 else (1,):
        final = play(kibitz.Game(name, players=players), specs, seed)
        assert final.is_terminal()
        assert sum(final.returns()) == pytest.approx(1.0 if name != "canasta_tiles" else 2.0)


def test_five_in_a_row_variant_plays_legally() -> None:
    final = play(kibitz.Game("just4fun_colours", players=2, line=5), ["expert", "greedy"], 3)
    assert final.is_terminal()


@pytest.mark.parametrize(("players", "options"), [(3, {"variant": "master_builder"}), (2, {"removal": "even"})])
def test_yak_variants_play_legally(players: int, options: dict[str, str]) -> None:
    final = play(kibitz.Game("yak", players=players, **options), ["expert"] * players, 4)
    assert final.is_terminal() and sum(final.returns()) == pytest.approx(1.0)


def test_spec_options_and_errors() -> None:
    bot = kibitz.make_bot("expert:seed=4,win=300,depth=2", seed=9)
    assert isinstance(bot, ExpertBot) and bot.name == "expert"
    with pytest.raises(OptionError, match="unknown option"):
        kibitz.make_bot("expert:bogus=1")
    with pytest.raises(OptionError, match="not a number"):
        kibitz.make_bot("expert:win=lots")
    with pytest.raises(OptionError, match="not an integer"):
        kibitz.make_bot("expert:seed=x")


@pytest.mark.parametrize(("name", "players"), [("just4fun_colours", 2), ("canasta_tiles", 4), ("yak", 4)])
def test_same_seed_same_moves(name: str, players: int) -> None:
    game = kibitz.Game(name, players=players)
    first = play(game, ["expert"] * players, 5)
    again = play(game, ["expert"] * players, 5)
    assert first.notation() == again.notation()


# -- hidden information ---------------------------------------------------------------------


def positions(name: str, players: int, seed: int, every: int) -> list[kibitz.State]:
    """Decision positions from a seeded greedy game, every ``every``-th one."""
    rng = random.Random(seed)
    bots = [kibitz.make_bot("greedy", seed=seed + s) for s in range(players)]
    state = kibitz.Game(name, players=players).new_initial_state(seed=seed)
    found, decisions = [], 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng.getrandbits(63)))
            continue
        if state.is_simultaneous():  # Yak's Sunrise: not a position of one seat to move
            state.apply_joint({seat: bots[seat].act(state.view(seat)) for seat in state.choosing_seats()})
            continue
        decisions += 1
        if decisions % every == 0:
            found.append(state.clone())
        state.apply(bots[state.current_player].act(state.view(state.current_player)))
    return found


@pytest.mark.parametrize(
    ("name", "players"), [("just4fun_colours", 2), ("just4fun_colours", 4), ("canasta_tiles", 4), ("yak", 4)]
)
def test_move_ignores_the_hidden_cards(name: str, players: int) -> None:
    """Re-dealing every card the mover cannot see (determinizations consistent with its view)
    leaves its view, and so its move, unchanged."""
    checked = 0
    for state in positions(name, players, seed=3, every=3 if players == 2 else 8):
        seat = state.current_player
        view = state.view(seat)
        moves = set()
        hidden = set()
        for k in range(4):
            redealt = state.determinize(seat, 100 + k)
            assert redealt.view(seat).notation() == view.notation()
            hidden.add(redealt.notation())
            moves.add(str(kibitz.make_bot("expert", seed=7).act(redealt.view(seat))))
        assert len(moves) == 1, (view.notation(), moves)
        checked += len(hidden) > 1
    assert checked > 0  # the re-deals really changed hidden cards


# -- Just 4 Fun Colours tactics ---------------------------------------------------------------

J4FC = kibitz.Game("just4fun_colours", players=2)

# From issue 10: seat 1 wins at once with f1 (one B), and again two turns later.
IMMEDIATE_WINS = [
    "just4fun_colours players=2 line=4 start=0 draws=0 board=............/........11../....0112..../....12....../..01......../............ hands=YYYGGBP,ROOGGBB stock=7.7.7.3.7.6 discard=2.1.0.3.0.3 supply=16,17 boxed=0,0 base_hands=RYYYBPP,OOGGBPP base_stock=46 base_discard=0.0.0.0.0.0 moves=d3.d3.c4.e2.c3.c4.b5 revealed=- drawn=1.0.0.3.0.0/1.1.0.2.1.0",
    "just4fun_colours players=2 line=4 start=0 draws=0 board=..........01/........11../....0112..11/....12....../..01......../............ hands=YYYGGGP,ROOGBBB stock=7.7.7.2.6.6 discard=2.1.0.4.1.3 supply=15,16 boxed=0,0 base_hands=RYYYBPP,OOGGBPP base_stock=46 base_discard=0.0.0.0.0.0 moves=d3.d3.c4.e2.c3.c4.b5.f3.f1 revealed=- drawn=1.0.0.4.0.0/1.1.0.2.2.0",
]


@pytest.mark.parametrize("notation", IMMEDIATE_WINS)
def test_takes_an_immediate_win(notation: str) -> None:
    state = J4FC.state_from_notation(notation)
    seat = state.current_player
    for seed in range(10):
        after = state.clone()
        after.apply(kibitz.make_bot("expert", seed=seed).act(state.view(seat)))
        assert after.is_terminal() and after.returns()[seat] == 1.0


def board_of(state: kibitz.State) -> list[str]:
    """The 36 cells of the board notation (``..`` or owner digit + height digit)."""
    board = state.fields()["board"]
    return [row[k : k + 2] for row in board.split("/") for k in range(0, 12, 2)]


LINES_OF_4 = [
    [(r + k * dr) * 6 + c + k * dc for k in range(4)]
    for r in range(6)
    for c in range(6)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
    if 0 <= r + 3 * dr < 6 and 0 <= c + 3 * dc < 6
]
COLOUR_OF = [row.split()[1 + k][0] for row in str(J4FC.new_initial_state(0)).splitlines()[1:7] for k in range(6)]


def winning_fields(state: kibitz.State, player: int) -> set[int]:
    """Fields whose capture gives ``player`` four own top stones in a line (and can still be
    covered: height at most 6), from the board alone."""
    cells = board_of(state)
    found = set()
    for line in LINES_OF_4:
        missing = [f for f in line if cells[f][0] != str(player)]
        if len(missing) == 1 and (cells[missing[0]] == ".." or int(cells[missing[0]][1]) <= 6):
            found.add(missing[0])
    return found


def pays_for(state: kibitz.State, player: int, fields_: set[int]) -> bool:
    """Whether ``player``'s hand in this full state pays for one of ``fields_``."""
    hand = state.fields()["hands"].split(",")[player]
    cells = board_of(state)
    return any(hand.count(COLOUR_OF[f]) >= (0 if cells[f] == ".." else int(cells[f][1])) + 1 for f in fields_)


def threat_positions(count: int, players: int = 2) -> list[tuple[kibitz.State, set[str]]]:
    """Positions from seeded greedy games where the mover cannot win at once, the next seat
    completes a line on its turn in at least half of 50 deals consistent with the mover's view
    (``State.determinize``), and some placement leaves the next seat no winning field. With
    the placements that do."""
    found = []
    for seed in range(200):
        for state in positions("just4fun_colours", players, seed=seed, every=1):
            seat = state.current_player
            following = (seat + 1) % players
            threats = winning_fields(state, following)
            if not threats or winning_fields(state, seat) & {state.parse_move(m) for m in state.legal_moves()}:
                continue
            odds = sum(pays_for(state.determinize(seat, k), following, threats) for k in range(50)) / 50
            good = set()
            for move in state.legal_moves():
                after = state.clone()
                after.apply(move)
                if not winning_fields(after, following):
                    good.add(move)
            if odds >= 0.5 and good:
                found.append((state, good))
        if len(found) >= count:
            break
    return found


def test_blocks_a_one_move_threat() -> None:
    """In positions from real games where the opponent wins next turn in at least half the
    deals the mover thinks possible and one placement stops every threat, the expert plays
    such a block, for every seed."""
    found = threat_positions(8)
    assert len(found) >= 8
    for state, good in found:
        seat = state.current_player
        for seed in range(3):
            move = kibitz.make_bot("expert", seed=seed).act(state.view(seat))
            assert move in good, (state.notation(), move, good)


def test_blocks_the_issue_position() -> None:
    """Issue 10's position: seat 1 owns b3 c3 d3 and completes the row on a3 (one O) or on
    e3 (two Y, over seat 0's stone); seat 0 cannot capture b3, c3 or d3. Both gaps cannot be
    closed at once: the expert closes one of them, a3, the one an unseen hand pays for more
    often (five O unseen against seven Y needing two)."""
    state = J4FC.state_from_notation(
        "just4fun_colours players=2 line=4 start=0 draws=0 board=............/............/..11111101../....02....../............/....120101.. hands=OOYYGBP,RRYYBBP stock=6.5.5.5.6.7 discard=2.3.1.4.1.1 supply=15,15 boxed=0,0 base_hands=ROYYGGP,ROOYBBP base_stock=46 base_discard=0.0.0.0.0.0 moves=e6.c3.d6.d3.c6.c6.e3.c4.c4.b3 revealed=- drawn=0.2.1.2.1.0/2.0.1.1.1.1"
    )
    for seed in range(5):
        assert kibitz.make_bot("expert", seed=seed).act(state.view(0)) == "a3"


# -- Yak ---------------------------------------------------------------------------------------

YAK2, YAK4 = kibitz.Game("yak", players=2), kibitz.Game("yak", players=4)

# Seat 0 has bought a 0 for its tower 0 1 2 3 4 (level 1 full): on 2,0 it rests on the 0 and
# makes a pair (a group, 2 points); on 2,1, 2,2 or 2,3 it touches no 0 and stays single.
YAK_PLACE = (
    "yak players=2 removal=colours bonus=- round=3 baby=0 turn=0 step=place cards=build,restock dir=+1 track=0 fog_fills=0 "
    "fog_aside=0 trigger=- stupa=- bag=6.6.6.7.7.8.0.0.8.5 box=0.0.0.0.0.0.8.8 market=2.2.2 "
    "carts=NO_MEAT:12:0.3.3/NO_MILK:-:3.0.3/NO_BREAD:-:3.3.0 yurts=1.1.1/1.1.1 "
    "towers=01234|....|...|../.....|....|...|.. bought=0 paid=- drawn=- draws=0"
)
# Sunrise, seat 0 has no food: Build can buy nothing, a Market takes 2 tokens, and the cart at
# its station holds 6 bread, all of which a Restock takes.
YAK_HUNGRY = (
    "yak players=4 removal=colours bonus=- round=4 baby=0 turn=0 step=choose cards=-,-,-,- dir=+1 track=0 fog_fills=0 "
    "fog_aside=0 trigger=- stupa=- bag=6.6.5.6.7.7.7.7.7.5 box=0.0.0.0.0.0.0.0 market=3.4.0 "
    "carts=NO_MEAT:0X:0.2.6/NO_MILK:1:3.0.3/NO_BREAD:22:3.3.0/TWO_KINDS:3:3.3.3 yurts=0.0.0/1.1.1/1.1.1/1.1.1 "
    "towers=012..|....|...|../34...|....|...|../5....|....|...|../67...|....|...|.. bought=- paid=- drawn=- draws=0"
)


def test_yak_places_the_stone_where_it_makes_a_group() -> None:
    state = YAK2.state_from_notation(YAK_PLACE)
    assert len(state.legal_moves()) == 4
    for seed in range(5):
        assert kibitz.make_bot("expert", seed=seed).act(state.view(0)) == "place 0 2,0"


def test_yak_restocks_when_it_cannot_build() -> None:
    state = YAK4.state_from_notation(YAK_HUNGRY)
    assert state.is_simultaneous() and 0 in state.choosing_seats()
    for seed in range(5):
        assert kibitz.make_bot("expert", seed=seed).act(state.view(0)) == "choose restock"


# Sunrise of round 9, 2 players: seat 0's tower lacks one stone (4,1) and its cart (NO_MEAT)
# holds a 1 and a 5, which its one milk pays for. Building completes the tower and takes the
# stupa (5 points); seat 1 is far behind.
YAK_LAST_STONE = (
    "yak players=2 removal=colours bonus=- round=9 baby=0 turn=0 step=choose cards=-,- dir=+1 track=0 fog_fills=0 "
    "fog_aside=0 trigger=- stupa=- bag=4.4.4.3.5.4.0.0.8.5 box=0.0.0.0.0.0.8.8 market=2.1.2 "
    "carts=NO_MEAT:15:0.3.3/NO_MILK:2:3.0.3/NO_BREAD:33:3.3.0 yurts=0.1.0/2.2.2 "
    "towers=01234|5012|345|0./0123.|45..|...|.. bought=- paid=- drawn=- draws=0"
)


def test_yak_completes_its_tower_for_the_stupa() -> None:
    state = YAK2.state_from_notation(YAK_LAST_STONE)
    for seed in range(5):
        assert kibitz.make_bot("expert", seed=seed).act(state.view(0)) == "choose build"
    state.apply_joint({0: "choose build", 1: "choose restock"})
    assert state.current_player == 0 and "build -" in state.legal_moves()
    for seed in range(5):
        assert kibitz.make_bot("expert", seed=seed).act(state.view(0)) in ("build 1", "build 5")


def test_yak_weights_are_spec_options() -> None:
    bot = kibitz.make_bot("expert:stupa_race=1.5,lookahead=0", seed=2)
    assert isinstance(bot, ExpertBot)
    player = bot.player("yak")
    assert isinstance(player, yak_expert.Player)
    assert player.weights.stupa_race == 1.5 and player.weights.lookahead == 0.0
    assert player.weights.prospect == yak_expert.Weights().prospect  # the others keep their defaults
    with pytest.raises(OptionError, match="not a number"):
        kibitz.make_bot("expert:stupa_race=high")
    with pytest.raises(OptionError, match="unknown option"):
        kibitz.make_bot("expert:stupa=1")
    # the weights reach the play: without the stupa race and the plan of its next round the
    # expert plays another game from the same deal
    final = [play(YAK2, [spec, "greedy"], 6).notation() for spec in ("expert", "expert:lookahead=0,stupa_race=0")]
    assert final[0] != final[1]


# -- strength ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "players", "greedy_bots", "games", "seed"),
    [
        ("just4fun_colours", 2, 1, 100, 31),
        ("yucata", 2, 1, 16, 32),
        ("canasta_tiles", 4, 1, 200, 33),
        ("yak", 2, 1, 80, 34),
        ("yak", 4, 3, 48, 35),
    ],
)
def test_beats_greedy(name: str, players: int, greedy_bots: int, games: int, seed: int) -> None:
    """A seeded match of one expert against ``greedy_bots`` greedy bots, seats rotated: the
    expert's win share has a one-sided 95 % Wilson lower bound above what a player no better
    than the others scores (50 % against one greedy bot, Canasta team against team; 25 % for
    Yak's one expert against three greedy bots)."""
    game = kibitz.Game(name, players=players)
    bots = ["expert"] + ["greedy"] * greedy_bots
    result = run_match(game, bots, games, seed, processes=1)
    team_size = [game.teams.count(game.teams[s]) for s in range(players)]
    shares = [
        sum(rec.returns[s] / team_size[s] for s, bot in enumerate(seat_assignment(len(bots), players, g)) if bot == 0)
        for g, rec in enumerate(result.records)
    ]
    assert sum(shares) == pytest.approx(result.bots[0].win_share)
    low = wilson_ci(shares, z=Z_ONE_SIDED_95).low
    assert low is not None and low > 1 / len(bots), result.bots[0].win_rate
