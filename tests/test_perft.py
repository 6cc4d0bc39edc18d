"""Perft (leaf counts) of Just 4 Fun Colours on fixed positions built from notation.

The expected numbers are derived here, never copied from the engine: either by a closed
formula read off the rules (legal fields from the hand and the MAP of spec §2.2; distinct
colours in the stock for a draw; the number of distinct colour sequences a multiset of cards
can produce), or by brute-force enumeration of `Model`, the independent Python implementation
of spec §4-§7 in j4fc_reference.py. One ply is a decision or one drawn card; a game that ends
before the depth counts as one leaf.
"""

from __future__ import annotations

import functools
import math
from itertools import product

import pytest

import kibitz
from j4fc_reference import (
    GAME,
    MAP,
    Model,
    fidx,
    fields_of,
    hand_counts,
    parse_counts,
    position,
)
from state_helpers import (
    enumerate_perft,
    lasting_actions,
    random_outcome,
    same_outcomes,
)

GAMES = {p: kibitz.Game(GAME, players=p) for p in (2, 3, 4)}
# positions are written with the hands in the engine order, so that `load` can check the round trip
position = functools.partial(position, sort_hands=True)


def brute_perft(m: Model, depth: int) -> int:
    """Perft by enumerating the reference model; each move of the last ply is one leaf, whether
    or not it ends the game."""
    return enumerate_perft(m, depth, play_last=False)


def sequences(pile: list[int], n: int) -> int:
    """Distinct colour sequences of length n drawn without replacement from `pile`."""
    total = 0
    for ks in product(*(range(min(c, n) + 1) for c in pile)):
        if sum(ks) == n:
            total += math.factorial(n) // math.prod(math.factorial(k) for k in ks)
    return total


def load(text: str, players: int = 2) -> kibitz.State:
    s = GAMES[players].state_from_notation(text)
    assert s.notation() == text
    return s


def legal_fields(hand: str, height: dict[str, int] | None = None) -> int:
    """Number of fields whose colour the hand holds at least height+1 times (§5.2)."""
    h = hand_counts(hand)
    height = {fidx(k): v for k, v in (height or {}).items()}
    return sum(1 for f in range(36) if h[MAP[f]] >= height.get(f, 0) + 1)


# --------------------------------------------------------------------------------------------
# Fixed positions
# --------------------------------------------------------------------------------------------

OPENING = position(hands=("RRYGGBP", "OOYYBBP"))  # seat 0 to move on an empty board
MIDGAME_BOARD = {
    "a1": (0, 1), "b1": (1, 2), "c1": (0, 3), "d1": (1, 1), "b2": (1, 4), "c2": (0, 2),
    "e2": (1, 6), "c3": (1, 1), "d3": (1, 3), "f3": (0, 5), "d4": (1, 2), "e4": (0, 1), "a5": (1, 1),
}  # fmt: skip
MIDGAME = position(MIDGAME_BOARD, hands=("OOOGGGY", "RRPPBBB"), discard=[3, 2, 2, 3, 2, 2])
# seat 0 owns a1 b1 c1 and holds R for d1 (a win) among other moves
WINNING_BOARD = {"a1": (0, 1), "b1": (0, 1), "c1": (0, 1), "a6": (1, 1), "c6": (1, 1), "e6": (1, 1)}
WINNING = position(WINNING_BOARD, hands=("RGGBBYY", "OOOOOOO"))
# 3 players, all six red fields at height 7, seat 0 holds seven reds: blocked
RED = {name: (i % 3, 7) for i, name in enumerate(("d1", "a2", "c3", "f4", "b5", "e6"))}
BLOCKED_POS = position(RED, hands=("RRRRRRR", "OOOOOOO", "YYYYYYY"), players=3)


def test_depth_zero_is_one_leaf():
    for text in (OPENING, MIDGAME, WINNING):
        assert load(text).perft(0) == 1


def test_opening_depth_one_counts_the_fields_of_the_colours_held():
    # RRYGGBP holds 5 colours: 5 * 6 empty fields
    assert load(OPENING).perft(1) == legal_fields("RRYGGBP") == 30


def test_opening_depth_two_multiplies_by_the_colours_in_the_stock():
    s = load(OPENING)
    stock = parse_counts(fields_of(OPENING)["stock"])
    assert all(stock)  # every colour can be drawn
    assert s.perft(2) == 30 * 6


def test_opening_depth_three_and_four_by_enumeration():
    """After a one-card placement the turn passes: depth 3 counts seat 1's legal fields after
    each (field, drawn colour); depth 4 the draws after those."""
    s = load(OPENING)
    r = Model.parse(OPENING)
    assert s.perft(3) == brute_perft(r, 3)
    # by hand: seat 1 holds OOYYBBP (4 colours, 24 empty fields) minus the field seat 0 took
    # if it had one of seat 1's colours (then that field is height 1 and needs 2 cards).
    expected = 0
    opp = hand_counts("OOYYBBP")
    for f in range(36):
        if hand_counts("RRYGGBP")[MAP[f]] == 0:
            continue
        taken_needs_two = opp[MAP[f]] >= 1  # one of seat 1's 24 fields now costs 2
        after = 24 - (1 if taken_needs_two and opp[MAP[f]] < 2 else 0)
        expected += 6 * after
    assert s.perft(3) == expected
    assert s.perft(4) == brute_perft(r, 4)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_initial_positions_by_enumeration(players, seed):
    s = GAMES[players].new_initial_state(seed=seed)
    r = Model.parse(s.notation())
    hand = fields_of(s.notation())["hands"].split(",")[s.current_player]
    assert s.perft(1) == legal_fields(hand) == 6 * len(set(hand))
    for depth in (2, 3):
        assert s.perft(depth) == brute_perft(r, depth), depth


def test_midgame_depth_one_is_the_number_of_affordable_fields():
    heights = {k: h for k, (_, h) in MIDGAME_BOARD.items()}
    s = load(MIDGAME)
    assert s.perft(1) == legal_fields("OOOGGGY", heights)
    assert s.perft(1) == len(s.legal_actions())


def test_midgame_depth_two_is_one_draw_per_stock_colour_for_each_move():
    s = load(MIDGAME)
    stock = parse_counts(fields_of(MIDGAME)["stock"])
    distinct = sum(1 for c in stock if c)
    assert s.perft(2) == legal_fields("OOOGGGY", {k: h for k, (_, h) in MIDGAME_BOARD.items()}) * distinct


@pytest.mark.parametrize("depth", [3, 4])
def test_midgame_deeper_by_enumeration(depth):
    assert load(MIDGAME).perft(depth) == brute_perft(Model.parse(MIDGAME), depth)


def test_a_winning_move_is_a_single_leaf():
    s = load(WINNING)
    n1 = legal_fields("RGGBBYY", {k: h for k, (_, h) in WINNING_BOARD.items()})
    assert n1 == 23  # 4 colours * 6 fields, minus e6 (R at height 1, one R held)
    assert s.perft(1) == n1
    stock = parse_counts(fields_of(WINNING)["stock"])
    distinct = sum(1 for c in stock if c)
    # d1 ends the game (1 leaf); every other move is followed by one draw
    assert s.perft(2) == 1 + (n1 - 1) * distinct
    assert s.perft(3) == brute_perft(Model.parse(WINNING), 3)


def test_terminal_positions_have_one_leaf_at_any_depth():
    s = load(WINNING)
    s.apply("d1")
    assert s.is_terminal()
    for depth in range(5):
        assert s.perft(depth) == 1


def test_blocked_turn_draws_seven_cards():
    s = load(BLOCKED_POS, players=3)
    stock = parse_counts(fields_of(BLOCKED_POS)["stock"])
    assert stock == [3, 3, 3, 10, 10, 10]
    assert s.perft(1) == 1  # the mandatory blocked turn
    assert s.perft(2) == 6
    for k in range(1, 8):
        assert s.perft(1 + k) == sequences(stock, k), k
    # then seat 1 (OOOOOOO) may take any of the six empty orange fields
    assert s.perft(9) == 6 * sequences(stock, 7)


def test_draw_sequences_from_a_small_stock_and_through_a_reshuffle():
    """Seat 0 plays on b2 (G, height 2: three cards) with 2 cards left in the stock: the third
    card comes from the reshuffled discard pile, which holds the three just played."""
    hands = ("RRRRGGG", "OOOOOOO")
    stock = [0, 0, 1, 0, 1, 0]  # one Y, one B
    discard = [10 - 4 - stock[0], 10 - 7 - stock[1], 10 - stock[2], 10 - 3 - stock[3], 10 - stock[4], 10 - stock[5]]
    text = position({"b2": (1, 2)}, hands=hands, discard=discard, stock=stock)
    s = load(text)
    s.apply("b2")
    assert s.perft(1) == 2  # Y or B
    assert s.perft(2) == 2  # then the other one
    pile_after = [discard[c] + (3 if c == 3 else 0) for c in range(6)]  # the reshuffled pile
    assert s.perft(3) == 2 * sum(1 for c in pile_after if c)
    assert s.perft(5) == brute_perft(Model.parse(s.notation()), 5)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("line", [4, 5])
def test_positions_along_a_seeded_game_by_enumeration(players, line):
    """Decision and chance nodes met in a seeded game that avoids ending early, checked every
    15 steps and whenever the stock is nearly empty (so that the draws inside the perft tree
    run through a reshuffle)."""
    import random

    game = kibitz.Game(GAME, players=players, line=line)
    rng = random.Random(100 * players + line)
    s = game.new_initial_state(seed=100 * players + line)
    checked = 0
    step = 0
    while not s.is_terminal():
        text = s.notation()
        stock_left = sum(parse_counts(fields_of(text)["stock"]))
        if step % 15 == 0 or stock_left <= 2:
            for depth in (1, 2, 3):
                assert s.perft(depth) == brute_perft(Model.parse(text), depth), (text, depth)
            checked += 1
        if s.is_chance():
            s.apply(random_outcome(rng, s))
        else:  # moves that do not end the game, so that it runs long enough to reshuffle
            s.apply(rng.choice(lasting_actions(s) or s.legal_actions()))
        step += 1
    assert checked >= 10


# --------------------------------------------------------------------------------------------
# Chance outcomes, enumerated exactly
# --------------------------------------------------------------------------------------------


def outcomes_ok(got, pile) -> bool:
    n = sum(pile)
    expected = [(c, pile[c] / n) for c in range(6) if pile[c]]
    return same_outcomes(got, expected)


def test_chance_outcomes_are_the_stock_counts_over_the_stock_size():
    s = load(MIDGAME)
    s.apply("a3")
    stock = parse_counts(fields_of(s.notation())["stock"])
    assert outcomes_ok(s.chance_outcomes(), stock)
    s.apply(s.chance_outcomes()[0][0])
    # after the draw seat 1 is to move: no chance outcomes
    assert s.chance_outcomes() == []


def test_chance_outcomes_follow_each_draw():
    text = position(hands=("RRYGGBP", "OOYYBBP"))
    s = load(text)
    s.apply("d1")  # R, one card: one draw
    stock = parse_counts(fields_of(s.notation())["stock"])
    assert outcomes_ok(s.chance_outcomes(), stock)
    s = load(BLOCKED_POS, players=3)
    s.apply("blocked")
    pile = [3, 3, 3, 10, 10, 10]
    for colour in (0, 0, 0, 1, 3, 3, 5):  # the three remaining reds first
        assert outcomes_ok(s.chance_outcomes(), pile), pile
        s.apply(colour)
        pile[colour] -= 1
    assert s.current_player == 1


def test_chance_outcomes_come_from_the_discard_pile_when_the_stock_is_empty():
    hands = ("RRRRGGG", "OOOOOOO")
    discard = [6, 3, 10, 0, 10, 10]
    text = position({"b2": (1, 2)}, hands=hands, discard=discard, stock=[0, 0, 0, 7, 0, 0])
    s = load(text)
    s.apply("b2")
    assert outcomes_ok(s.chance_outcomes(), [0, 0, 0, 7, 0, 0])  # the stock alone, not the discard
    # the same move with an empty stock draws from the whole discard pile
    text = position({"b2": (1, 2)}, hands=hands, discard=[6, 3, 10, 7, 10, 10], stock=[0] * 6)
    s = load(text)
    s.apply("b2")
    assert outcomes_ok(s.chance_outcomes(), [6, 3, 10, 10, 10, 10])  # the 3 G just played count
    s.apply("G")
    assert outcomes_ok(s.chance_outcomes(), [6, 3, 10, 9, 10, 10])


# docs/games/just4fun_colours.md §4.1 documents this opening (2 players, seed 1) and its perft.
DOC_OPENING = (
    "just4fun_colours players=2 line=4 start=1 draws=0 "
    "board=............/............/............/............/............/............ "
    "hands=RYGGBPP,RROGGBB stock=7.9.9.6.7.8 discard=0.0.0.0.0.0 supply=20,20 boxed=0,0"
)
DOC_PERFT = [24, 144, 4248, 25488, 604800]


def test_documented_reference_perft_is_right():
    """The numbers in the docs are checked by brute force here, then against the engine."""
    s = load(DOC_OPENING)
    r = Model.parse(DOC_OPENING)
    assert s.current_player == 1
    brute = [brute_perft(r, depth) for depth in range(1, 6)]
    assert brute[0] == legal_fields("RROGGBB") == 24  # 4 colours held, 6 empty fields each
    assert brute[1] == 24 * 6  # then one card of any of the 6 colours in the stock
    assert brute == DOC_PERFT
    assert [s.perft(depth) for depth in range(1, 6)] == brute


# --------------------------------------------------------------------------------------------
# Yucata': perft pinned at fixed positions, each number checked against brute-force
# enumeration of the independent model in yucata_reference.py (no chance nodes: one ply is one
# card; a finished game is one leaf).
# --------------------------------------------------------------------------------------------

YUCATA_OPENING = (
    "yucata players={players} layout=PPDPPPDPPDPPPDPPPDPPDPPPDPPDPPPDPP start=0 turn=0 to_move=0 pos={pos} "
    "hands={hands} pale={zeros} dark={zeros} red=- prev=- eff=- moved=0 q=effective tiebreak=shared"
)


def yucata_opening(players: int) -> str:
    return YUCATA_OPENING.format(
        players=players, pos=",".join(["0"] * players), hands=",".join(["12345SQ"] * players), zeros=",".join(["0"] * players)
    )


YUCATA_POSITIONS = {
    # the opening: 6 first cards (no Q), then 6 for each next seat (its 7 minus the card before)
    "opening-2p": (yucata_opening(2), [6, 36, 180, 900, 3780]),
    "opening-3p": (yucata_opening(3), [6, 36, 216, 1116, 5796]),
    "opening-4p": (yucata_opening(4), [6, 36, 216, 1296, 6660]),
    # seat 0's last card Q after seat 1's Q, then seat 1's last card, then both refill
    "q-after-q": (
        (
            "yucata players=2 layout=PPDPPPDPPDPPPDPPPDPPDPPPDPPDPPPDPP start=0 turn=12 to_move=0 pos=16,17 hands=Q,5 "
            "pale=9,1 dark=2,1 red=- prev=Q eff=S moved=2 q=effective tiebreak=shared"
        ),
        [1, 1, 6, 36, 180, 900],
    ),
    # an endgame: every line ends by depth 6
    "endgame-2p": (
        (
            "yucata players=2 layout=PPDPPPDPPDPPPDPPPDPPDPPPDPPDPPPDPP start=0 turn=20 to_move=0 pos=31,33 hands=135Q,124Q "
            "pale=9,12 dark=4,4 red=- prev=3 eff=3 moved=3 q=effective tiebreak=shared"
        ),
        [3, 10, 26, 53, 73, 84, 84, 84],
    ),
    "endgame-3p-distance": (
        (
            "yucata players=3 layout=PPDPPPDPPDPPPDPPPDPPDPPPDPPDPPPDPP start=0 turn=31 to_move=1 pos=34,30,33 hands=25Q,134Q,125S "
            "pale=6,7,9 dark=2,2,4 red=- prev=S eff=S moved=7 q=distance tiebreak=shared"
        ),
        [4, 15, 37, 71, 150, 197, 224],
    ),
    "midgame-4p-random-layout": (
        (
            "yucata players=4 layout=PPDDPDPPDPPPPPPPPPDPDPPDPPPPPDPDPP start=0 turn=27 to_move=3 pos=21,23,25,22 "
            "hands=12345SQ,12345SQ,12345SQ,4 pale=4,2,4,5 dark=1,1,4,0 red=- prev=Q eff=4 moved=4 q=effective tiebreak=dark"
        ),
        [1, 6, 36, 216, 1296, 6660],
    ),
}


@pytest.mark.parametrize("name", list(YUCATA_POSITIONS))
def test_yucata_perft_pins_agree_with_the_reference_model(name):
    from yucata_reference import Model as YucataModel

    text, pinned = YUCATA_POSITIONS[name]
    s = kibitz.Game.of_notation(text).state_from_notation(text)
    assert s.notation() == text
    model = YucataModel.parse(text)
    assert [enumerate_perft(model, depth, play_last=False) for depth in range(1, len(pinned) + 1)] == pinned
    assert [s.perft(depth) for depth in range(1, len(pinned) + 1)] == pinned
    assert s.perft(0) == 1
# Tile Canasta (canasta_tiles): pins at fixed positions, the shallow ones derived from the
# rules through canasta_reference.py.
# --------------------------------------------------------------------------------------------

CANASTA = kibitz.Game("canasta_tiles")


def test_canasta_opening_perft():
    from canasta_reference import EMPTY, KIND, take_turn, threshold

    s = CANASTA.new_initial_state(seed=1)
    f = s.fields()
    hands = [[0] * 15 for _ in range(4)]
    for p, h in enumerate(f["hands"].split(",")):
        for t in h.split("."):
            hands[p][KIND[t]] += 1
    starter = int(f["starter"])
    nxt = (starter + 1) % 4
    discards = [k for k in range(14) if hands[starter][k]]
    assert s.perft(1) == len(discards)  # the starter only discards (A4)
    # then the next seat draws, or takes the one-tile pile when the rules allow it
    takes = sum(1 for k in discards if take_turn(tuple(hands[nxt]), (EMPTY,) * 12, False, k, (0,) * 15, threshold(0)))
    assert s.perft(2) == len(discards) + takes
    assert [s.perft(d) for d in (1, 2, 3, 4)] == [10, 13, 135, 1288]


def _canasta_meld_position() -> str:
    """Seat 0 of an opened team after its draw; every tile not placed is in the stock."""
    from canasta_reference import COUNT, NAMES

    hands = ["1.1.2.4.4.4.9.J.k3", "5.5.6", "7.7.8", "10.11"]
    placed = [0] * 15
    for t in ".".join(hands).split(".") + "1.1.1.2.9.9.9".split("."):  # the melds 1x3+2 and 9x3
        placed[NAMES.index(t)] += 1
    stock = ".".join(NAMES[k] for k in range(15) for _ in range(COUNT[k] - placed[k]))
    return (
        "canasta_tiles mode=one_round winner_required=0 first_turn_may_meld=0 strict_natural_majority=1 pile_fully_visible=1 "
        "joker_button=0 totals=0,0 last_round=0,0 rounds=0 tiebreak=0 starter=0 turn=0 phase=meld end=none went_out=- last_regular=0 "
        f"dealt=57 replace=0.0.0.0 hands={','.join(hands)} known=-,-,-,- stock={stock} top=- pile=- melds=1x3+2,9x3/- "
        "opened=1,0 bonus=0,0 jokers_used=0.0.0.0 jokers_left=1.1.1.1 played=- cursor=- chosen=- take=- value=0 version=2"
    )


def test_canasta_meld_phase_perft():
    text = _canasta_meld_position()
    s = kibitz.Game.of_notation(text).state_from_notation(text)
    assert s.notation() == text
    # discards: 1 2 4 9 J k3; ranks: 1 and 9 (extend the melds), 4 (a new meld); not 2 (one 2)
    assert s.legal_moves() == ["discard:1", "discard:2", "discard:4", "discard:9", "discard:J", "discard:k3", "rank:1", "rank:4", "rank:9"]
    # §4.1 counts with 1 1 2 J in hand on 1x3+2: 0 naturals + one wild (2), 1 or 2 naturals + any
    # wilds (4 + 4); a new meld of 4s: 4-4 + one wild (2), 4-4-4 + any wilds (4); on 9x3: one or
    # two wilds (3), 9 + any wilds (4). After a discard the next seat (5 5 6, unopened) can only
    # draw: the top is never a 5.
    assert s.perft(2) == 6 * 1 + (10 + 6 + 7)
    assert [s.perft(d) for d in (1, 2, 3)] == [9, 29, 218]
