"""Rules of tile Canasta (shared/rules/canasta_tiles.md) as the engine implements them.

Positions are written in the full-state notation (docs/games/canasta_tiles.md §3); every tile
not placed explicitly goes to the stock. Expected values come from the spec's worked examples
or from canasta_reference.py, an independent implementation of the spec's own move model.
"""

from __future__ import annotations

import random
import re

import pytest

import kibitz
from canasta_reference import (
    COUNT,
    EMPTY,
    JOKER,
    K3,
    KIND,
    NAMES,
    R3,
    RANKS,
    TWO,
    meld_phase,
    meld_value,
    round_score,
    take_turn,
    threshold,
    valid,
)

GAME = kibitz.Game("canasta_tiles")


# --------------------------------------------------------------------------------------------
# Building positions
# --------------------------------------------------------------------------------------------


def counts(text: str) -> tuple:
    c = [0] * 15
    for t in text.split(".") if text not in ("", "-") else []:
        c[KIND[t]] += 1
    return tuple(c)


def tiles_text(c) -> str:
    return ".".join(NAMES[k] for k in range(15) for _ in range(c[k])) or "-"


def meld_text(rank: int, m) -> str:
    return f"{NAMES[rank]}x{m[0]}" + "+2" * m[1] + "+J" * m[2]


def melds_text(melds: dict) -> str:
    return ",".join(meld_text(r, m) for r, m in sorted(melds.items())) or "-"


def parse_meld(text: str):
    rank, rest = text.split("x")
    parts = rest.split("+")
    return KIND[rank], (int(parts[0]), parts[1:].count("2"), parts[1:].count("J"))


def position(
    hands,
    melds=({}, {}),
    opened=(False, False),
    top=None,
    pile="",
    totals=(0, 0),
    turn=0,
    phase="meld",
    bonus=(0, 0),
    known=("", "", "", ""),
    stock=None,
    last_regular=False,
    mode="one_round",
    winner_required=False,
    strict=True,
    pile_visible=True,
    joker_button=False,
    jokers_used=(0, 0, 0, 0),
    jokers_left=(1, 1, 1, 1),
    first_meld=False,
    rounds=0,
    tiebreak=False,
    starter=0,
    value=0,
    played="-",
    cursor="-",
    chosen="-",
    take="-",
) -> kibitz.State:
    """A full state. The tiles placed nowhere go to the stock; when `stock` is given they go
    to the discard pile instead (its top a blocking three when one is left), so tests that
    fix the stock must place every bonus three (hands never hold one)."""
    used = [0] * 15
    for h in hands:
        for k, c in enumerate(counts(h)):
            used[k] += c
    for team in melds:
        for r, (n, t, j) in team.items():
            used[TWO if r == TWO else r] += n
            used[TWO] += t
            used[JOKER] += j
    for k, c in enumerate(counts(pile)):
        used[k] += c
    if top is not None:
        used[KIND[top]] += 1
    used[R3] += sum(bonus)
    rest = [COUNT[k] - used[k] for k in range(15)]
    assert min(rest) >= 0, rest
    if stock is not None:
        fixed = counts(stock)
        leftover = [rest[k] - fixed[k] for k in range(15)]
        assert min(leftover) >= 0 and leftover[R3] == 0, leftover
        if top is None and any(leftover):
            top = NAMES[K3 if leftover[K3] else next(k for k in range(15) if leftover[k])]
            leftover[KIND[top]] -= 1
        pile = tiles_text([a + b for a, b in zip(counts(pile), leftover)])
        rest = fixed
    b = lambda v: "1" if v else "0"  # noqa: E731
    text = (
        f"canasta_tiles mode={mode} winner_required={b(winner_required)} first_turn_may_meld={b(first_meld)} "
        f"strict_natural_majority={b(strict)} pile_fully_visible={b(pile_visible)} joker_button={b(joker_button)} "
        f"totals={totals[0]},{totals[1]} last_round=0,0 rounds={rounds} tiebreak={b(tiebreak)} starter={starter} turn={turn} phase={phase} "
        f"end=none went_out=- last_regular={b(last_regular)} dealt=57 replace=0.0.0.0 "
        f"hands={','.join(tiles_text(counts(h)) for h in hands)} known={','.join(tiles_text(counts(k)) for k in known)} "
        f"stock={tiles_text(rest)} top={top or '-'} pile={tiles_text(counts(pile))} "
        f"melds={melds_text(melds[0])}/{melds_text(melds[1])} opened={b(opened[0])},{b(opened[1])} "
        f"bonus={bonus[0]},{bonus[1]} jokers_used={'.'.join(map(b, jokers_used))} jokers_left={'.'.join(map(str, jokers_left))} played={played} cursor={cursor} chosen={chosen} take={take} value={value} version=2"
    )
    s = kibitz.Game.of_notation(text).state_from_notation(text)
    assert s.notation() == text
    return s


def moves(s: kibitz.State) -> list[str]:
    return [s.move_to_string(a) for a in s.legal_actions()]


def play(s: kibitz.State, *texts: str) -> kibitz.State:
    for t in texts:
        s.apply(s.parse_move(t))
    return s


def team_melds(s: kibitz.State, team: int) -> tuple:
    out = [EMPTY] * 12
    text = s.fields()["melds"].split("/")[team]
    for m in text.split(",") if text != "-" else []:
        r, meld = parse_meld(m)
        out[r] = meld
    return tuple(out)


def last_round(s: kibitz.State) -> tuple[int, int]:
    a, b = s.fields()["last_round"].split(",")
    return int(a), int(b)


# --------------------------------------------------------------------------------------------
# Setup, options and notation
# --------------------------------------------------------------------------------------------


def test_options_defaults_and_errors():
    info = next(g for g in kibitz.games() if g.name == "canasta_tiles")
    assert (info.min_players, info.max_players) == (4, 4)
    s = GAME.new_initial_state(seed=3)
    f = s.fields()
    assert (f["mode"], f["winner_required"], f["first_turn_may_meld"]) == ("one_round", "1", "0")
    assert (f["strict_natural_majority"], f["pile_fully_visible"], f["joker_button"]) == ("1", "1", "0")
    for key, value, words in [
        ("mode", "five_rounds", ["mode", "five_rounds", "one_round, three_rounds, target_10000"]),
        ("winner_required", "maybe", ["winner_required", "maybe", "true/false"]),
        ("starter", "4", ["starter", "0..3"]),
        ("players", "3", ["players", "exactly 4"]),
        ("joker_button", "2", ["joker_button", "'2'"]),
    ]:
        with pytest.raises(kibitz.OptionError) as e:
            kibitz.Game("canasta_tiles", **{key: value})
        for w in words:
            assert w in str(e.value)
    assert kibitz.Game("canasta_tiles", starter=2).new_initial_state(seed=9).fields()["starter"] == "2"


def test_deal_gives_15_to_the_starter_14_to_the_others_and_replaces_bonus_threes():
    starters = set()
    bonus_seen = 0
    for seed in range(60):
        s = GAME.new_initial_state(seed=seed)
        f = s.fields()
        starter = int(f["starter"])
        starters.add(starter)
        hands = [counts(h) for h in f["hands"].split(",")]
        assert [sum(h) for h in hands] == [15 if p == starter else 14 for p in range(4)]
        assert all(h[R3] == 0 for h in hands)
        bonus = sum(int(x) for x in f["bonus"].split(","))
        bonus_seen += bonus
        assert sum(counts(f["stock"])) == 49 - bonus  # §14.6
        assert f["phase"] == "first" and int(f["turn"]) == starter and f["pile"] == "-"
        assert moves(s) == [f"discard:{NAMES[k]}" for k in range(14) if hands[starter][k]]  # A4: discard only
    assert starters == {0, 1, 2, 3} and bonus_seen > 0


def test_deal_chance_nodes_are_seen_by_the_receiver_and_bonus_threes_by_all():
    # a tie after round 1 starts the next deal as chance nodes (winner_required, §11)
    s = play(tie_position(winner_required=True), "discard:6")
    assert last_round(s) == (-210, -210) and s.is_chance() and s.fields()["phase"] == "deal"
    assert s.fields()["starter"] == "1" and s.fields()["rounds"] == "1"  # A5: the next seat starts
    for a, _ in s.chance_outcomes():
        for seat in range(4):
            seen = s.observation_text(seat, a)
            assert seen == (NAMES[a] if seat == 1 or a == R3 else "?")
    rng = random.Random(1)
    while s.is_chance():
        s.apply(rng.choices(*zip(*s.chance_outcomes()))[0])
    hands = [counts(h) for h in s.fields()["hands"].split(",")]
    assert [sum(h) for h in hands] == [14, 15, 14, 14] and s.fields()["phase"] == "first"


def test_tiles_are_written_by_kind_and_read_with_or_without_colour():
    s = position(["7.7.7.13.k3", "k3", "4", "4"], opened=(True, False))
    assert s.fields()["hands"].split(",")[0] == "7.7.7.13.k3"
    assert s.parse_move("discard:b3") == s.parse_move("discard:k3")
    assert s.parse_move("discard:r13") == s.parse_move("discard:13")
    for bad in ("discard:3", "discard:14", "discard:r3", "lay:7x3", "rank:3", "jump"):
        with pytest.raises(kibitz.NotationError):
            s.parse_move(bad)
    play(s, "rank:r7")
    assert "lay:7x3" in moves(s)
    with pytest.raises(kibitz.NotationError, match="rank chosen"):
        s.parse_move("lay:9x3")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.replace("hands=7.7.7.13", "hands=7.7.7.7.13"), "tiles 7"),
        (lambda t: t.replace("melds=-/-", "melds=9x2+2+J/-"), "not a valid meld"),
        (lambda t: t.replace("melds=-/-", "melds=-/9x3"), "team 1 has melds but has not opened"),
        (lambda t: t.replace("known=-", "known=J"), "known"),
        (lambda t: t.replace("totals=0,0", "totals=3,0"), "multiple of 5"),
        (lambda t: t.replace("phase=meld", "phase=shape"), "chosen"),
    ],
)
def test_from_string_refuses_broken_invariants(change, message):
    good = position(["7.7.7.13", "k3", "4", "4"], opened=(True, False)).notation()
    with pytest.raises(kibitz.NotationError, match=message):
        GAME.state_from_notation(change(good))


def test_notation_refuses_bonus_three_in_hand_and_empty_stock_without_last_tile():
    good = position(["7.7.7.13", "k3", "4", "4"], opened=(True, False)).notation()
    with pytest.raises(kibitz.NotationError, match="bonus three"):
        GAME.state_from_notation(good.replace("hands=7.7.7.13", "hands=7.7.7.r3").replace(".r3 top=", ".13 top="))
    with pytest.raises(kibitz.NotationError, match="stock is empty"):
        position(["7.7.7.13", "k3", "4", "4"], opened=(True, False), stock="-", bonus=(2, 2))


# --------------------------------------------------------------------------------------------
# Melds, opening thresholds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "total, expected",
    [(-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (6995, 120), (7000, 150)],
)
def test_threshold_boundaries(total, expected):
    assert threshold(total) == expected
    s = position(["5.6", "5", "6", "5.6"], totals=(total, 0))
    assert f"team 0 not opened (threshold {expected})" in str(s)


@pytest.mark.parametrize(
    "hand, total, can_open",
    [
        ("2.2.2.2.2.2.2", 7000, False),  # 140 < 150 (§5 example)
        ("2.2.2.2.2.2.J", 7000, True),  # 170
        ("1.1.1", 0, True),  # 75
        ("10.10.10", 0, False),  # 30
        ("10.10.10.4.4.4", 0, False),  # 45
        ("10.10.10.J", 0, True),  # 80
        ("1.1.1.5.5.5", 1500, True),  # 90
        ("1.1.1.5.5", 1500, False),
        ("4.4.4", -5, True),  # 15: any legal meld
    ],
)
def test_opening_thresholds_of_the_spec(hand, total, can_open):
    s = position([hand + ".k3.k3", "5", "6", "5.6"], totals=(total, 0))
    ranks = [m for m in moves(s) if m.startswith("rank")]
    assert bool(ranks) == can_open, moves(s)
    if can_open:  # the whole opening is reachable and opens the team
        rank = ranks[0].split(":")[1]
        play(s, ranks[0])
        lay = max((m for m in moves(s)), key=lambda m: len(m))
        play(s, lay)
        while not s.fields()["opened"].startswith("1"):
            play(s, next(m for m in moves(s) if m.startswith("rank")))
            play(s, max(moves(s), key=len))
        assert rank in s.fields()["melds"]


def test_meld_validity_naturals_outnumber_wilds_and_twos_meld():
    assert valid(KIND["9"], (2, 1, 0)) and not valid(KIND["9"], (2, 1, 1))  # A3: strict
    assert valid(KIND["9"], (2, 1, 1), strict=False)
    assert not valid(KIND["9"], (4, 2, 2))  # at most 3 wilds
    assert valid(TWO, (2, 0, 1)) and valid(TWO, (3, 0, 0)) and valid(TWO, (3, 0, 2))  # 2-2-J, 2-2-2, 2-2-2-J-J (A24)
    assert not valid(TWO, (1, 0, 2)) and not valid(TWO, (2, 0, 2)) and not valid(TWO, (5, 0, 3))
    s = position(["9.9.2.J.5.5", "5", "6", "5.6"], opened=(True, False))
    play(s, "rank:9")
    assert moves(s) == ["lay:9x2+J", "lay:9x2+2"]  # 9-9-2-J is illegal (A3)
    s = position(["9.9.2.J.5.5", "5", "6", "5.6"], opened=(True, False), strict=False)
    play(s, "rank:9")
    assert moves(s) == ["lay:9x2+J", "lay:9x2+2", "lay:9x2+2+J"]
    s = position(["2.2.J.J.5.5", "5", "6", "5.6"], opened=(True, False))
    play(s, "rank:2")
    assert moves(s) == ["lay:2x2+J"]  # 2-2-J-J is illegal


def test_one_meld_per_rank_and_no_threes_in_melds():
    s = position(["9.9.9.k3.k3.k3.5", "5", "6", "5.6"], melds=({KIND["9"]: (3, 0, 0)}, {}), opened=(True, False))
    play(s, "rank:9")
    assert moves(s)[:3] == ["lay:9x1", "lay:9x2", "lay:9x3"]  # extends the team's meld of 9s
    assert not any("3" in m.split(":")[1] for m in moves(position(["k3.k3.k3.5.6", "5", "6", "5.6"], opened=(True, False))) if m.startswith("rank"))


def test_lays_go_to_increasing_ranks_within_a_turn():
    s = position(["4.4.4.9.9.9.5.6", "5", "6", "5.6"], opened=(True, False))
    play(s, "rank:9", "lay:9x3")
    assert not any(m.startswith("rank") for m in moves(s))  # 4 < 9: that order is reached the other way
    s = position(["4.4.4.9.9.9.5.6", "5", "6", "5.6"], opened=(True, False))
    play(s, "rank:4", "lay:4x3", "rank:9", "lay:9x3", "discard:5")
    assert team_melds(s, 0)[KIND["4"]] == (3, 0, 0) and team_melds(s, 0)[KIND["9"]] == (3, 0, 0)


# --------------------------------------------------------------------------------------------
# Taking the pile (§6.3, §14.6)
# --------------------------------------------------------------------------------------------


def take_legal(hand, top, pile="", opened=True, melds=None, totals=(0, 0)):
    s = position([hand, "5", "6", "5.6"], phase="draw", top=top, pile=pile, opened=(opened, False), melds=(melds or {}, {}), totals=totals)
    return "take" in moves(s)


def test_pickup_cases_of_the_spec():
    assert take_legal("9.9.5.6", "9")
    assert take_legal("9.9.5.6", "9", opened=False, totals=(-5, 0))  # 9-9-9 = 15 opens at 15
    assert not take_legal("9.9.5.6", "9", opened=False)  # 15 < 50
    assert not take_legal("9.9.5", "9")  # the guard: one tile left and no canasta
    for blocker in ("2", "k3", "J"):
        assert not take_legal("2.2.J.k3.k3.5", blocker)  # a wild or blocking three on top blocks
    assert not take_legal("9.2.5", "9")  # a wild cannot make up the pair
    assert not take_legal("9.5.6", "9", melds={KIND["9"]: (3, 0, 0)})  # the melded 9s do not count (A8)
    assert take_legal("9.9.5.6", "9", pile="J.5")  # a buried joker does not freeze the pile
    assert not take_legal("9.9", "9")  # A17: a one-tile pile while holding only the pair
    assert not take_legal("9.9", "9", pile="5")  # one tile left: a discard only with a canasta
    assert take_legal("9.9", "9", pile="5", melds={KIND["4"]: (7, 0, 0)})  # ... then it goes out
    assert take_legal("9.9", "9", pile="5.6")
    assert take_legal("9.9.5.6", "9", melds={KIND["9"]: (3, 0, 0)})  # the pair is needed, and enough


def test_pickup_moves_the_top_and_pair_to_the_meld_and_the_pile_to_the_hand_in_public():
    s = position(["9.9.5.6", "4.4", "6", "5.6"], phase="draw", top="9", pile="J.5.k3", opened=(True, False))
    play(s, "take")
    f = s.fields()
    assert team_melds(s, 0)[KIND["9"]] == (3, 0, 0)
    assert counts(f["hands"].split(",")[0]) == counts("5.5.6.J.k3")
    assert f["pile"] == "-" and f["top"] == "-" and f["known"].split(",")[0] == "5.J.k3"
    assert s.view(1).notation().split("known=")[1].startswith("5.J.k3,")  # public to every seat
    play(s, "rank:9", "lay:9x0+J")  # the picked-up joker can be laid
    assert s.fields()["known"].split(",")[0] == "5.k3"


def test_unopened_pickup_counts_only_the_hand_and_the_top():
    # threshold 90: 10-10-10 (30) + 1-1-1 (75) = 105 (§14.3 example 4); the k10 from the pile
    # can only be laid after the check
    s = position(["10.10.1.1.1.5.6", "4", "6", "5.6"], phase="draw", top="10", pile="10.7", totals=(1500, 0))
    assert "take" in moves(s)
    play(s, "take")
    assert moves(s) == ["lay:10x2"]  # the top's meld first; with no wild, two 10s from the hand
    play(s, "lay:10x2")
    assert moves(s) == ["rank:1"]  # 30 < 90: the opening is not done
    play(s, "rank:1", "lay:1x3")
    assert "done" in moves(s)
    play(s, "done")
    f = s.fields()
    assert f["opened"] == "1,0" and counts(f["hands"].split(",")[0]) == counts("5.6.7.10")
    play(s, "rank:10", "lay:10x1")
    assert moves(s) == ["known:10"]  # the 10 laid was the picked-up one: the hand holds no other
    play(s, "known:10", "discard:5")
    assert team_melds(s, 0)[KIND["10"]] == (4, 0, 0)
    # with a threshold of 120 the same hand cannot take
    assert "take" not in moves(position(["10.10.1.1.1.5.6", "4", "6", "5.6"], phase="draw", top="10", pile="10.7", totals=(3000, 0)))


def test_an_unopened_pickup_may_lay_the_whole_hand_before_the_pile_joins_it():
    # The opening of a pickup lays 10-10 with the top and then all three 1s: the hand is empty
    # until `done` brings the rest of the pile in. Such a position is legal, so its notation and
    # every seat's view of it must read back (a match once stopped on this view).
    s = position(["10.10.1.1.1", "4", "6", "5.6"], phase="draw", top="10", pile="7.8.9", totals=(1500, 0))
    play(s, "take", "lay:10x2", "rank:1", "lay:1x3")
    assert s.fields()["hands"].split(",")[0] == "-" and moves(s) == ["done"]
    game = kibitz.Game.of_notation(s.notation())
    assert game.state_from_notation(s.notation()) == s
    for seat in range(4):
        assert game.state_from_view(s.view(seat).notation()).view(seat).notation() == s.view(seat).notation()
    play(s, "done")
    assert counts(s.fields()["hands"].split(",")[0]) == counts("7.8.9")


# --------------------------------------------------------------------------------------------
# Dead-end guard, going out
# --------------------------------------------------------------------------------------------


def test_dead_end_guard_example_of_the_spec():
    # §14.3 example 5: a 6-tile meld of 9s, hand r9 y4 k4 + the drawn b4
    s = position(["9.4.4.4", "5", "6", "5.6"], melds=({KIND["9"]: (6, 0, 0)}, {}), opened=(True, False))
    assert [m for m in moves(s) if m.startswith("rank")] == ["rank:9"]  # 4-4-4 first would leave one tile and no canasta
    play(s, "rank:9", "lay:9x1")
    assert moves(s) == ["discard:4"]  # 4-4-4 now would leave no discard
    play(s, "discard:4")
    assert team_melds(s, 0)[KIND["9"]] == (7, 0, 0) and not s.is_terminal()


def test_going_out_needs_a_canasta():
    s = position(["4.4.4.5", "5", "6", "5.6"], melds=({KIND["4"]: (3, 0, 0)}, {}), opened=(True, False))
    play(s, "rank:4")
    assert moves(s) == ["lay:4x1", "lay:4x2"]  # 4x3 would leave one tile and no canasta
    s = position(["4.4.4.5", "5", "6", "5.6"], melds=({KIND["4"]: (3, 0, 0), KIND["9"]: (7, 0, 0)}, {}), opened=(True, False))
    play(s, "rank:4")
    assert moves(s) == ["lay:4x1", "lay:4x2", "lay:4x3"]
    play(s, "lay:4x3")
    assert moves(s) == ["discard:5"]
    play(s, "discard:5")
    assert s.fields()["end"] == "out"


def test_going_out_scores():
    s = position(["5", "4", "6", "13"], melds=({KIND["9"]: (7, 0, 0)}, {}), opened=(True, False))
    assert moves(s) == ["discard:5"]
    play(s, "discard:5")
    assert s.is_terminal() and s.fields()["end"] == "out" and s.fields()["went_out"] == "0"
    assert last_round(s) == (35 + 500 + 100 - 5, -15)


def test_a_lone_tile_without_canasta_is_no_position():
    with pytest.raises(kibitz.NotationError, match="cannot finish"):
        position(["5", "4", "6", "5.6"], melds=({KIND["9"]: (6, 0, 0)}, {}), opened=(True, False))


def test_a_team_may_open_and_go_out_in_one_turn():  # A15
    s = position(["7.7.7.7.7.2.J.5", "4", "6", "13"])
    play(s, "rank:7")
    assert "lay:7x5+2+J" in moves(s)  # 95 >= 50, a dirty canasta, one tile kept
    play(s, "lay:7x5+2+J", "discard:5")
    assert s.fields()["end"] == "out" and last_round(s)[0] == 25 + 20 + 50 + 300 + 100 - 5
    s = position(["10.10.10.10.10.2.5", "4", "6", "13"])
    play(s, "rank:10")
    assert "lay:10x5+2" not in moves(s)  # 70, but six tiles: no canasta to go out with
    assert "lay:10x5" in moves(s) and "lay:10x4+2" in moves(s)  # 50 and 60, two tiles kept


@pytest.mark.parametrize("wilds, total", [((7, 0, 0), 1140), ((6, 0, 1), 870), ((5, 0, 2), 900)])
def test_twos_canastas_of_the_spec(wilds, total):
    s = position(["5", "4", "6", "13"], melds=({TWO: wilds}, {}), opened=(True, False))
    play(s, "discard:5")
    assert last_round(s)[0] == total + 100 - 5  # + going out - the partner's 6
    assert meld_value(TWO, wilds) + 1000 * (wilds[2] == 0) + 700 * (wilds[2] > 0) == total


def test_adding_a_wild_makes_a_clean_canasta_dirty():
    s = position(["J.5.6", "4", "6", "13"], melds=({KIND["9"]: (7, 0, 0)}, {}), opened=(True, False))
    play(s, "rank:9", "lay:9x0+J", "discard:5")
    assert team_melds(s, 0)[KIND["9"]] == (7, 0, 1)
    s2 = position(["6", "4", "6", "13"], melds=({KIND["9"]: (7, 0, 1)}, {}), opened=(True, False))
    play(s2, "discard:6")
    assert last_round(s2)[0] == 35 + 50 + 300 + 100 - 5


def test_round_scoring_example_of_the_spec():
    # §8: 725 and -270
    s = position(
        ["6", "10.10.4.1", "13.5.J.k3", "2.k3"],
        melds=({KIND["7"]: (7, 0, 0), KIND["1"]: (3, 1, 0), TWO: (3, 0, 0)}, {}),
        opened=(True, False),
        bonus=(1, 1),
    )
    play(s, "discard:6")
    assert last_round(s) == (725, -270) and s.scores() == [725, -270, 725, -270]
    assert s.returns() == [1.0, 0.0, 1.0, 0.0] and s.ranks() == [1, 3, 1, 3]
    assert round_score({KIND["7"]: (7, 0, 0), KIND["1"]: (3, 1, 0), TWO: (3, 0, 0)}, True, 1, [counts("13.5.J.k3")], True) == 725


@pytest.mark.parametrize("opened, expected", [(True, 400), (False, -400)])
def test_four_bonus_threes_count_400_either_way(opened, expected):
    melds = ({KIND["5"]: (3, 0, 0)}, {}) if opened else ({}, {})
    s = position(["6.7", "4", "6", "13"], melds=melds, opened=(opened, False), bonus=(4, 0), last_regular=True, stock="-")
    play(s, "discard:7")
    assert s.fields()["end"] == "stock"
    assert last_round(s)[0] == expected + (15 if opened else 0) - 5 - 5


# --------------------------------------------------------------------------------------------
# Stock exhaustion (§9)
# --------------------------------------------------------------------------------------------


def test_the_player_who_draws_the_last_regular_tile_finishes_the_turn():
    s = position(["6.7", "4", "6", "13"], phase="draw", melds=({KIND["5"]: (3, 0, 0)}, {}), opened=(True, False), stock="5", bonus=(2, 2))
    play(s, "draw")
    s.apply(KIND["5"])
    assert s.fields()["last_regular"] == "1" and s.current_player == 0
    assert "rank:5" in moves(s)
    play(s, "rank:5", "lay:5x1", "discard:7")
    assert s.is_terminal() and s.fields()["end"] == "stock"
    assert last_round(s)[0] == 20 + 200 - 5 - 5  # no going-out bonus


def test_last_regular_tile_as_a_bonus_three_replacement_counts():  # A13
    s = position(["6.7", "4", "6", "13"], phase="draw", stock="5.r3", bonus=(2, 1))
    play(s, "draw")
    s.apply(R3)
    assert s.is_chance() and s.fields()["bonus"] == "3,1"
    s.apply(KIND["5"])
    assert s.fields()["last_regular"] == "1"
    play(s, "discard:5")
    assert s.is_terminal() and s.fields()["end"] == "stock"


def test_a_bonus_three_with_no_replacement_ends_the_round_at_once():  # A12 and the [R] of §9
    s = position(["6.7", "4", "6", "13"], phase="draw", stock="5.r3", bonus=(2, 1))
    play(s, "draw")
    s.apply(KIND["5"])
    assert s.fields()["last_regular"] == "0"  # a bonus three is still below
    play(s, "discard:7")
    assert s.current_player == 1
    play(s, "draw")
    assert s.chance_outcomes() == [(R3, 1.0)]
    seen = s.observation_text(0, R3)
    s.apply(R3)
    assert s.is_terminal() and s.fields()["end"] == "bonus3" and s.fields()["bonus"] == "2,2"
    assert last_round(s)[1] == -200 - 5 - 10  # seat 1 neither laid nor discarded
    assert seen.startswith("r3 reveal=")


# --------------------------------------------------------------------------------------------
# The match (§11)
# --------------------------------------------------------------------------------------------


def tie_position(**kw):
    return position(["5.6", "5", "6", "5"], last_regular=True, stock="-", bonus=(2, 2), **kw)


def test_a_tie_adds_a_round_when_a_winner_is_required():
    s = play(tie_position(winner_required=True), "discard:6")
    assert not s.is_terminal() and s.fields()["rounds"] == "1"
    s = play(tie_position(winner_required=False), "discard:6")
    assert s.is_terminal() and s.returns() == [0.5] * 4 and s.ranks() == [1] * 4


def test_three_rounds_and_target_modes():
    s = play(tie_position(mode="three_rounds", totals=(100, 0), rounds=1), "discard:6")
    assert not s.is_terminal() and s.fields()["rounds"] == "2" and s.fields()["totals"] == "-110,-210"
    s = play(tie_position(mode="three_rounds", totals=(100, 0), rounds=2), "discard:6")
    assert s.is_terminal() and s.returns() == [1.0, 0.0, 1.0, 0.0]
    s = play(tie_position(mode="target_10000", totals=(9800, 9000)), "discard:6")
    assert not s.is_terminal()  # 9,590 < 10,000
    # team 0 scores 725 (a clean canasta of 7s, two bonus threes opened, 10 in hand) and reaches the target
    canasta = dict(melds=({KIND["7"]: (7, 0, 0)}, {}), opened=(True, False), mode="target_10000", totals=(9300, 9500))
    s = play(position(["5.6", "5", "6", "5"], last_regular=True, stock="-", bonus=(2, 2), **canasta), "discard:6")
    assert s.is_terminal() and s.returns() == [1.0, 0.0, 1.0, 0.0] and s.scores() == [10025, 9290, 10025, 9290]


def test_a_target_tie_is_broken_by_the_first_round_that_leaves_the_totals_unequal():  # §11, A18
    # both teams score 725 (a clean canasta each, two bonus threes opened, 10 in hand): 10,025 each
    canastas = dict(melds=({KIND["7"]: (7, 0, 0)}, {KIND["8"]: (7, 0, 0)}), opened=(True, True))
    s = position(["5.6", "5", "6", "5"], last_regular=True, stock="-", bonus=(2, 2), mode="target_10000", totals=(9300, 9300), winner_required=True, **canastas)
    s = play(s, "discard:6")
    assert not s.is_terminal() and s.fields()["totals"] == "10025,10025" and s.fields()["tiebreak"] == "1"
    # The tie-break round leaves both totals below 10,000 again (9,790 and 9,785): they differ,
    # so the match is over; a round that ties again deals one more.
    tiebreak = dict(mode="target_10000", totals=(10000, 10000), winner_required=True, tiebreak=True, rounds=1)
    s = play(position(["5.6", "5", "6", "5.4"], last_regular=True, stock="-", bonus=(2, 2), **tiebreak), "discard:6")
    assert s.is_terminal() and s.scores() == [9790, 9785, 9790, 9785] and s.returns() == [1.0, 0.0, 1.0, 0.0]
    s = play(tie_position(**tiebreak), "discard:6")
    assert not s.is_terminal() and s.fields()["totals"] == "9790,9790" and s.fields()["tiebreak"] == "1"
    s = play(tie_position(mode="three_rounds", totals=(100, 100), rounds=2, winner_required=True), "discard:6")
    assert not s.is_terminal() and s.fields()["tiebreak"] == "1"


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(mode="one_round", rounds=1, totals=(100, 100), winner_required=True), "tiebreak=1"),
        (dict(mode="target_10000", totals=(10000, 10000), winner_required=True, rounds=1), "tiebreak=1"),
        (dict(mode="three_rounds", totals=(100, 0), rounds=3, winner_required=True, tiebreak=True), "equal totals"),
        (dict(mode="three_rounds", totals=(100, 100), rounds=3, winner_required=False, tiebreak=True), "winner_required=1"),
    ],
)
def test_tie_break_rounds_in_the_notation_are_checked(kw, message):
    with pytest.raises(kibitz.NotationError, match=message):
        tie_position(**kw)


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


def test_first_turn_may_meld_option():
    s = kibitz.Game("canasta_tiles", first_turn_may_meld=1).new_initial_state(seed=5)
    assert s.fields()["phase"] == "meld"
    assert all(m.startswith(("discard", "rank")) for m in moves(s))


def test_joker_button_option():
    s = position(["6.7", "4", "6", "13"], phase="draw", joker_button=True, stock="5.J", bonus=(2, 2))
    assert moves(s) == ["draw", "joker"]
    v = s.view(1).notation()
    assert "stock_joker=1" in v
    play(s, "joker")
    f = s.fields()
    assert counts(f["hands"].split(",")[0]) == counts("6.7.J") and f["known"].split(",")[0] == "J"
    assert f["jokers_used"] == "1.0.0.0" and f["last_regular"] == "0"
    assert "joker" not in moves(position(["6.7", "4", "6", "13"], phase="draw", stock="5.J", bonus=(2, 2)))  # off by default


def test_joker_button_allowance_is_per_seat_for_the_match():  # §12: the allowance must be >= 1
    s = position(["6.7", "4", "6", "13"], phase="draw", joker_button=True, stock="5.J.J", bonus=(2, 2), jokers_left=(0, 1, 1, 1))
    assert moves(s) == ["draw"]  # seat 0's allowance is spent
    s = position(["6.7", "4", "6", "13"], phase="draw", joker_button=True, stock="5.J.J", bonus=(2, 2), jokers_left=(2, 1, 1, 1))
    play(s, "joker")
    assert s.fields()["jokers_left"] == "1.1.1.1" and s.view(2).notation().split("jokers_left=")[1].startswith("1.1.1.1 ")
    # the default allowance, 1 per seat, lasts the whole match: once used it does not come back next round
    game = kibitz.Game("canasta_tiles", joker_button=1, mode="three_rounds")
    assert game.new_initial_state(seed=4).fields()["jokers_left"] == "1.1.1.1"
    assert kibitz.Game("canasta_tiles", joker_button=1, joker_allowance="3.0.1.2").new_initial_state(seed=4).fields()["jokers_left"] == "3.0.1.2"
    pressed = 0
    for seed in range(4):
        s = game.new_initial_state(seed=seed)
        uses = [0] * 4
        while not s.is_terminal() and int(s.fields()["rounds"]) < 2:
            if s.is_chance():
                s.apply(s.sample_chance(len(s.notation())))
                continue
            a = s._s.heuristic_action(3)
            uses[s.current_player] += s.move_to_string(a) == "joker"  # the rollout policy presses it whenever it may
            s.apply(a)
        assert max(uses) <= 1 and s.fields()["jokers_left"] == ".".join(str(1 - u) for u in uses)
        pressed += sum(uses)
    assert pressed >= 4
    for bad in ("-1", "256", "1.1", "x"):
        with pytest.raises(kibitz.OptionError, match="joker_allowance"):
            kibitz.Game("canasta_tiles", joker_allowance=bad)


def test_a_view_keeps_the_joker_flag_when_another_hand_holds_both_jokers():
    # the next round's deal gives the starter (seat 1) both jokers: every seat sees the flag go
    # dark, and a view read back must keep both jokers out of the stock
    s = play(tie_position(winner_required=True, joker_button=True), "discard:6", "J", "J")
    v = s.view(2)
    assert "stock_joker=0" in v.notation() and s.fields()["phase"] == "deal"
    game = kibitz.Game("canasta_tiles", joker_button=1)
    assert game.state_from_view(v.notation()).view(2).notation() == v.notation()
    assert all("J" not in s.determinize(2, seed).fields()["stock"].split(".") for seed in range(5))


def test_pile_visibility_option():
    s = position(["9.9.5.6", "4.4", "6", "5.6"], phase="draw", top="9", pile="J.5.k3", opened=(True, False), pile_visible=False)
    assert "pile=?3" in s.view(1).notation() and "top=9" in s.view(1).notation()
    play(s, "take")
    assert s.fields()["known"] == "-,-,-,-"  # nobody remembers what came out of a hidden pile


def test_the_board_shows_as_much_of_the_discard_pile_as_the_seat_may_see():  # A9
    shown = position(["9.9.5.6", "4.4", "6", "5.6"], phase="draw", top="9", pile="J.5.k3", opened=(True, False))
    for board in (shown.render(), shown.render(1), shown.view(1).render()):
        assert board.splitlines()[-1] == "stock 93, pile 4, top 9, under it 5.J.k3"
    hidden = position(["9.9.5.6", "4.4", "6", "5.6"], phase="draw", top="9", pile="J.5.k3", opened=(True, False), pile_visible=False)
    assert hidden.render().splitlines()[-1] == "stock 93, pile 4, top 9, under it 5.J.k3"  # every hand and the pile
    for board in (hidden.render(1), hidden.view(1).render()):
        assert board.splitlines()[-1] == "stock 93, pile 4, top 9, the rest face down (pile_fully_visible=0)"
    assert "seat 2   1 tile\n" in hidden.render(1)


# --------------------------------------------------------------------------------------------
# Information
# --------------------------------------------------------------------------------------------


def test_draws_are_private_and_known_tiles_survive_determinization():
    s = position(["9.9.5.6", "4.4", "6", "5.6"], phase="draw", top="9", pile="J.7.k3", opened=(True, False))
    play(s, "take")
    for seed in range(20):
        d = s.determinize(1, seed)
        assert counts(d.fields()["hands"].split(",")[0])[JOKER] >= 1  # the picked-up joker stays with seat 0
        assert d.view(1).notation() == s.view(1).notation()
    hands = {s.determinize(2, seed).fields()["hands"].split(",")[0] for seed in range(20)}
    assert len(hands) > 1  # the rest of seat 0's hand is really hidden (partner included)
    play(s, "discard:6")
    play(s, "draw")
    a = s.chance_outcomes()[0][0]
    assert [s.observation_text(p, a) for p in range(4)] == ["?", NAMES[a], "?", "?"]


def test_a_picked_up_tile_stays_known_until_it_is_itself_laid_or_discarded():  # §13
    # seat 0 picks up a 7 and a joker while holding two 7s of its own, which nobody has seen
    s = position(["9.9.7.7.5", "4.4", "6", "5.6"], phase="draw", top="9", pile="7.J", opened=(True, False), melds=({KIND["7"]: (3, 0, 0)}, {}))
    play(s, "take")
    assert s.fields()["known"].split(",")[0] == "7.J"
    after_take = s.clone()
    play(s, "discard:7")
    # which 7 went is the mover's choice and the table sees it: the picked-up one, or its own
    assert s.fields()["phase"] == "copies" and s.fields()["played"] == "7" and moves(s) == ["known:-", "known:7"]
    assert s.move_to_string(s._s.heuristic_action(1)) == "known:7"  # the rollout policy shows nothing new
    kept = play(s.clone(), "known:-")
    assert kept.fields()["known"].split(",")[0] == "7.J" and kept.fields()["phase"] == "draw" and kept.current_player == 1
    for seat in (1, 2, 3):
        assert kept.view(seat).notation().split("known=")[1].startswith("7.J,")
        for seed in range(10):
            assert counts(kept.determinize(seat, seed).fields()["hands"].split(",")[0])[KIND["7"]] >= 1
    gone = play(s.clone(), "known:7")
    assert gone.fields()["known"].split(",")[0] == "J"
    # an opponent following the game from observations learns the same
    v = after_take.view(1)
    for text in ("discard:7", "known:-"):
        v = v.advance(text)
    assert v.notation() == kept.view(1).notation()
    # a lay, likewise: of 7.7 laid from 7 (known) + 7.7, the known one may stay
    s = play(after_take.clone(), "rank:7", "lay:7x2")
    assert moves(s) == ["known:-", "known:7"] and s.fields()["played"] == "7"
    assert play(s, "known:-").fields()["known"].split(",")[0] == "7.J" and s.fields()["phase"] == "meld"
    # the joker laid with them was the known one: the hand holds no other
    s = play(after_take.clone(), "rank:7", "lay:7x2+J")
    assert moves(s) == ["known:J", "known:7.J"] and s.fields()["played"] == "7.J"
    with pytest.raises(kibitz.NotationError, match="no 5 was just played"):
        s.parse_move("known:5")
    # with every 7 laid the answer is forced, but it is still asked: whether the hand held
    # other 7s is not public
    s = play(after_take.clone(), "rank:7", "lay:7x3+J")
    assert moves(s) == ["known:7.J"]


def test_views_followed_from_observations_stay_exact_in_heuristic_rounds():
    """Heuristic play opens, picks up and melds a lot: every seat that only sees observation
    texts (opponents' openings into placeholder hands included) keeps its true view."""
    for seed in range(2):
        s = GAME.new_initial_state(seed=700 + seed)
        views = [s.view(p) for p in range(4)]
        steps = 0
        while not s.is_terminal():
            a = s.sample_chance(steps) if s.is_chance() else s._s.heuristic_action(steps)
            if not s.is_chance():  # the protocol's `bestmove <move>`: every move is one word
                assert all(len(s.move_to_string(b).split()) == 1 for b in s.legal_actions())
            seen = [s.observation_text(p, a) for p in range(4)]
            s.apply(a)
            views = [v.advance(t) for v, t in zip(views, seen)]
            if steps % 3 == 0:
                assert [v.notation() for v in views] == [s.view(p).notation() for p in range(4)]
            steps += 1
        assert [v.notation() for v in views] == [s.view(p).notation() for p in range(4)]


def test_determinization_keeps_another_seats_unfinished_opening_possible():
    # seat 1 (unopened, threshold 50) has chosen to lay aces: every sample must let it finish
    s = position(["4.5", "1.1.1.5.6.7.8", "6.9", "10.11"], turn=1, phase="shape", chosen="1")
    assert moves(s)[0].startswith("lay:1x")
    hands = set()
    for seed in range(8):
        d = s.determinize(0, seed)
        assert d.view(0).notation() == s.view(0).notation()
        assert kibitz.Game.of_notation(d.notation()).state_from_notation(d.notation()).legal_actions()  # seat 1 can finish its lay
        hands.add(d.fields()["hands"].split(",")[1])
    assert len(hands) > 1


def test_views_follow_a_three_round_match_through_the_reveals_and_new_deals():
    game = kibitz.Game("canasta_tiles", mode="three_rounds")
    s = game.new_initial_state(seed=31)
    views = [s.view(p) for p in range(4)]
    steps = reveals = 0
    while not s.is_terminal():
        a = s.sample_chance(steps) if s.is_chance() else s._s.heuristic_action(steps)
        seen = [s.observation_text(p, a) for p in range(4)]
        reveals += "reveal=" in seen[0]
        s.apply(a)
        views = [v.advance(t) for v, t in zip(views, seen)]
        steps += 1
    assert reveals >= 3 and s.fields()["rounds"] == str(reveals)
    assert [v.notation() for v in views] == [s.view(p).notation() for p in range(4)]


def test_a_reveal_that_contradicts_the_view_is_refused():
    s = position(["6", "4", "6", "13"], melds=({KIND["9"]: (7, 0, 0)}, {}), opened=(True, False))
    seen = s.observation_text(1, s.parse_move("discard:6"))
    assert seen == "discard:6 reveal=-,4,6,13"
    v = s.view(1)
    assert v.advance(seen).notation() == play(s.clone(), "discard:6").view(1).notation()
    with pytest.raises(kibitz.IllegalMoveError):
        v.advance("discard:6 reveal=-,5,6,13")  # seat 1's own hand is 4
    with pytest.raises(kibitz.NotationError, match="reveal"):
        v.advance("discard:6")  # the end of a round shows the hands


def test_impossible_observations_are_refused():
    # every 4 but seat 1's pair is in team 1's meld: seat 1 knows seat 0 holds no 4
    s = position(["9.9.5.6", "4.4", "6", "5.6"], phase="draw", top="9", pile="J.7.k3", opened=(True, True), melds=({}, {KIND["4"]: (6, 0, 0)}))
    v = s.view(1)
    with pytest.raises(kibitz.IllegalMoveError):
        v.advance("rank:4")  # not a move of the draw phase
    play(s, "take")
    v = s.view(1)
    with pytest.raises(kibitz.IllegalMoveError):
        v.advance("discard:4")
    with pytest.raises(kibitz.NotationError):
        v.advance("discard:r3")
    assert v.advance("discard:1").notation().split("top=")[1].startswith("1 ")  # a 1 seat 1 has not seen is possible
    play(s, "discard:6", "draw")
    with pytest.raises(kibitz.IllegalMoveError, match="'\\?'"):
        s.view(0).advance("5")  # seat 1's draw is unseen by seat 0


# --------------------------------------------------------------------------------------------
# The rollout policy's weights (docs §7)
# --------------------------------------------------------------------------------------------


def heuristic_rounds(policy: list[tuple[str, float]], rounds: int):
    """Seeded one-round games of the rollout policy with these weights, as finished states and
    every (state before, move) of its decisions."""
    for seed in range(rounds):
        s, decisions, step = GAME.new_initial_state(seed), [], 0
        while not s.is_terminal():
            step += 1
            if s.is_chance():
                s.apply(s.sample_chance(seed * 1000 + step))
                continue
            a = s._s.heuristic_action(seed * 1000 + step, policy)
            decisions.append((s.fields(), s.current_player, s.move_to_string(a)))
            s.apply(a)
        yield s, decisions


def test_with_out_margin_the_rollout_policy_goes_out_only_while_its_team_is_ahead():
    def went_out_behind(policy):
        behind = 0
        for s, _ in heuristic_rounds(policy, 200):
            f = s.fields()
            if f["end"] == "out":
                team = int(f["went_out"]) % 2
                behind += s.scores()[team] <= s.scores()[1 - team]
        return behind

    assert went_out_behind([]) >= 10  # the default goes out whenever it can
    assert went_out_behind([("out_margin", 0.0)]) == 0


def round_decisions(seeds):
    """One round per seed, its chance drawn from random.Random(seed): yields (seed, state, rng)
    at every decision, and the caller applies a move to the state before asking for the next."""
    for seed in seeds:
        s = GAME.new_initial_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            if s.is_chance():
                s.apply(s.sample_chance(rng.randrange(1 << 30)))
                continue
            yield seed, s, rng


def wins_by_going_out(s: kibitz.State) -> bool:
    """Brute force: does some run of the mover's own decisions, from here to the end of its
    turn, end the match with its team the winner?"""
    mover = s.current_player
    return any(end.is_terminal() and end.returns()[mover] == 1.0 for end in turn_ends(s))


def policy_turn_wins(s: kibitz.State, policy: list[tuple[str, float]], seed: int) -> bool:
    """Does the rollout policy, playing the mover's turn from here, go out and win?"""
    mover, s = s.current_player, s.clone()
    while not s.is_terminal() and s.current_player == mover:
        s.apply(s._s.heuristic_action(seed, policy))
    return s.is_terminal() and s.returns()[mover] == 1.0


def test_the_rollout_policy_goes_out_whenever_that_wins_the_match():
    """Decisive moves (docs §7, `out_to_win=1`): in every meld-phase position of some heuristic
    rounds (with uniform moves mixed in) whose hand is small enough for brute force, the policy
    goes out and wins exactly when some run of the turn's decisions does; without the weight it
    misses some of those wins."""
    won = missed_without = positions = 0
    for seed, s, rng in round_decisions(range(40)):
        f = s.fields()
        hand = f["hands"].split(",")[s.current_player]
        if f["phase"] == "meld" and f["last_regular"] == "0" and len(hand.split(".")) <= 7:
            positions += 1
            wins = wins_by_going_out(s)
            assert policy_turn_wins(s, [("out_to_win", 1.0)], seed) == wins, s.notation()
            if wins:
                won += 1
                missed_without += not policy_turn_wins(s, [], seed)
        s.apply(s._s.heuristic_action(rng.randrange(1 << 30)) if rng.random() < 0.8 else rng.choice(s.legal_actions()))
    assert positions >= 200 and won >= 10 and missed_without >= 3, (positions, won, missed_without)


def test_with_feed_the_rollout_policy_rarely_discards_what_the_next_seat_holds_a_pair_of():
    def feeding_share(policy):
        feeding = discards = 0
        for _, decisions in heuristic_rounds(policy, 60):
            for f, seat, move in decisions:
                if move.startswith("discard:"):
                    kind = move.split(":")[1]
                    discards += 1
                    feeding += kind not in ("2", "J", "k3") and f["hands"].split(",")[(seat + 1) % 4].split(".").count(kind) >= 2
        return feeding / discards

    assert feeding_share([]) > 3 * feeding_share([("feed", 10.0)])
    with pytest.raises(kibitz.OptionError, match="policy weight feed.*out of range"):
        GAME.new_initial_state(1)._s.heuristic_action(1, [("feed", -1.0)])


# --------------------------------------------------------------------------------------------
# Completeness and exactness of the sub-decisions (brute force against canasta_reference.py)
# --------------------------------------------------------------------------------------------


def engine_turn_ends(s: kibitz.State, first: str | None = None) -> set:
    """Every (team melds, hand after the discard, discarded kind, opened) the engine's
    sub-decisions reach from `s` until the mover's turn is over."""
    return engine_turn_paths(s, first)[0]


def turn_ends(s: kibitz.State):
    """The state at the end of every sequence of the mover's sub-decisions from `s` (the end of
    its turn, or of the match), one per sequence, depth first."""
    mover = s.current_player
    stack = [s]
    while stack:
        st = stack.pop()
        if st.is_terminal() or st.current_player != mover:
            yield st
            continue
        legal = st.legal_actions()
        assert legal, st.notation()  # every offered sub-decision can be completed
        for a in legal:
            c = st.clone()
            c.apply(a)
            stack.append(c)


def engine_turn_paths(s: kibitz.State, first: str | None = None) -> tuple[set, int]:
    """engine_turn_ends and the number of sub-decision sequences that reach them."""
    mover = s.current_player
    if first is not None:
        s = play(s.clone(), first)
    out = set()
    paths = 0
    for st in turn_ends(s):
        f = st.fields()
        out.add((team_melds(st, mover % 2), counts(f["hands"].split(",")[mover]), KIND[f["top"]], f["opened"].split(",")[mover % 2] == "1"))
        paths += 1
    return out, paths


def random_case(rng: random.Random):
    """A random small position of team 0 (seat 0 to move): its hand, its melds, whether it has
    opened, its threshold, and a pile whose top it can often pair."""
    pool = [k for k in range(14) for _ in range(COUNT[k])]
    rng.shuffle(pool)

    def take(kind, n):
        got = min(n, pool.count(kind))
        for _ in range(got):
            pool.remove(kind)
        return got

    opened = rng.random() < 0.5
    melds = {}
    if opened:
        for r in rng.sample(list(RANKS), rng.randint(0, 3)):
            n = take(r, rng.randint(3, 7) if r != TWO else rng.randint(3, 6))
            t = take(TWO, rng.randint(0, 1)) if r != TWO else 0
            j = take(JOKER, rng.randint(0, 1))
            m = (n, t, j)
            if valid(r, m):
                melds[r] = m
            else:
                pool.extend([r] * n + [TWO] * t + [JOKER] * j)
    hand = [0] * 15
    for r in rng.sample([k for k in RANKS], rng.randint(1, 3)):
        hand[r] += take(r, rng.randint(1, 4))
    for kind, chance in ((TWO, 0.4), (JOKER, 0.3), (K3, 0.2)):
        if rng.random() < chance:
            hand[kind] += take(kind, 1)
    while sum(hand) < rng.randint(2, 8):
        k = pool.pop()
        hand[k] += 1
    pairs = [k for k in RANKS if k != TWO and hand[k] >= 2]
    top = rng.choice(pairs) if pairs and rng.random() < 0.8 else rng.choice([k for k in RANKS if k != TWO])
    top = top if take(top, 1) else None
    pile = [0] * 15
    for _ in range(rng.randint(0, 4)):
        pile[pool.pop()] += 1
    total = rng.choice([-5, -5, 0, 0, 1500, 3000])
    others = []
    for _ in range(3):
        h = [0] * 15
        for _ in range(rng.randint(1, 6)):
            h[pool.pop()] += 1
        others.append(tuple(h))
    return tuple(hand), melds, opened, top, tuple(pile), total, tuple(others)


def case_position(case, phase, strict=True):
    hand, melds, opened, top, pile, total, others = case
    return position(
        [tiles_text(hand)] + [tiles_text(h) for h in others],
        strict=strict,
        melds=(melds, {}),
        opened=(opened, False),
        top=NAMES[top] if top is not None else None,
        pile=tiles_text(pile) if top is not None else "",
        totals=(total, 0),
        phase=phase,
    )


def test_with_card_canasta_majority_the_turns_match_too():
    """strict_natural_majority=0 (A3): wilds may equal the naturals in rank melds."""
    rng = random.Random(5)
    equal_wilds = 0
    for _ in range(60):
        case = random_case(rng)
        hand, melds, opened, top, pile, total, _ = case
        if sum(hand) < 2 or any(not valid(r, m, False) for r, m in melds.items()):
            continue
        s = case_position(case, "meld", strict=False)
        ms = tuple(melds.get(r, EMPTY) for r in RANKS)
        expected = meld_phase(hand, ms, opened, True, threshold(total), strict=False)
        assert engine_turn_ends(s) == expected, s.notation()
        equal_wilds += any(m[0] == m[1] + m[2] for e in expected for r, m in enumerate(e[0]) if r != TWO and sum(m))
    assert equal_wilds >= 3


def test_meld_phase_reaches_exactly_the_turns_the_rules_allow():
    rng = random.Random(2026)
    checked = opened_now = outs = 0
    for _ in range(150):
        case = random_case(rng)
        hand, melds, opened, top, pile, total, _ = case
        if sum(hand) < 2:
            continue
        s = case_position(case, "meld")
        ms = tuple(melds.get(r, EMPTY) for r in RANKS)
        expected = meld_phase(hand, ms, opened, True, threshold(total))
        got, paths = engine_turn_paths(s)
        assert got == expected, (s.notation(), sorted(expected - got)[:3], sorted(got - expected)[:3])
        assert paths == len(got)  # each end of a meld phase along exactly one sequence (lays in rank order)
        checked += 1
        opened_now += any(not opened and e[3] for e in expected)
        outs += any(sum(e[1]) == 0 for e in expected)
    assert checked >= 120 and opened_now >= 10 and outs >= 3  # the cases do open and go out


def test_taking_the_pile_reaches_exactly_the_turns_the_rules_allow():
    rng = random.Random(77)
    checked = takes = unopened_takes = 0
    for _ in range(200):
        case = random_case(rng)
        hand, melds, opened, top, pile, total, _ = case
        if top is None or sum(hand) < 1:
            continue
        s = case_position(case, "draw")
        ms = tuple(melds.get(r, EMPTY) for r in RANKS)
        expected = take_turn(hand, ms, opened, top, pile, threshold(total))
        legal = "take" in moves(s)
        assert legal == bool(expected), s.notation()
        if legal:
            got = engine_turn_ends(s, "take")
            assert got == expected, (s.notation(), sorted(expected - got)[:3], sorted(got - expected)[:3])
            takes += 1
            unopened_takes += not opened
        checked += 1
    assert checked >= 150 and takes >= 40 and unopened_takes >= 10


@pytest.mark.parametrize(
    "options",
    [
        {"pile_fully_visible": "0"},
        {"joker_button": "1"},
        {"first_turn_may_meld": "1", "strict_natural_majority": "0"},
        {"mode": "three_rounds", "pile_fully_visible": "0", "joker_button": "1"},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()),
)
def test_contracts_hold_under_every_option(options):
    """The conformance suite's checks, which run with the defaults, on the other options: exact
    notation and view round trips, determinizations that keep the view, and views followed
    from observation texts, over heuristic and random play."""
    game = kibitz.Game("canasta_tiles", **options)
    for seed in range(2):
        rng = random.Random(seed)
        s = game.new_initial_state(seed=seed)
        views = [s.view(p) for p in range(4)]
        step = 0
        while not s.is_terminal():
            assert game.state_from_notation(s.notation()) == s
            if step % 7 == 0:
                for p in range(4):
                    v = s.view(p)
                    assert game.state_from_view(v.notation()).view(p).notation() == v.notation()
                    assert s.determinize(p, step).view(p).notation() == v.notation()
            if s.is_chance():
                a = rng.choices(*zip(*s.chance_outcomes()))[0]
            else:
                legal = s.legal_actions()
                a = rng.choice(legal) if seed % 2 else s._s.heuristic_action(step)
                assert a in legal
            seen = [s.observation_text(p, a) for p in range(4)]
            s.apply(a)
            views = [v.advance(t) for v, t in zip(views, seen)]
            step += 1
        assert [v.notation() for v in views] == [s.view(p).notation() for p in range(4)]


def test_the_rollout_policys_lays_follow_its_rules_from_the_legal_moves():
    """docs §7, read off the legal moves (the policy finds its choice without listing them): a
    lone legal move is taken; in the meld phase `done` once a pickup's opening may end, while
    unopened the lowest legal rank, once opened a legal rank or else a discard; a rank or a lay
    draws no random number, so every seed gives it."""
    seen = {"unopened rank": 0, "opened rank": 0, "discard": 0, "lay": 0, "done": 0}
    for seed, s, rng in round_decisions(range(30)):
        legal = s.legal_actions()
        move = s._s.heuristic_action(seed)
        assert move in legal
        if len(legal) == 1:
            assert move == legal[0]
        f, text = s.fields(), s.move_to_string(move)
        if f["phase"] in ("meld", "take"):
            ranks = [m for m in legal if s.move_to_string(m).startswith("rank:")]
            opened = f["opened"].split(",")[s.current_player % 2] == "1"
            if "done" in map(s.move_to_string, legal):
                assert text == "done"
                seen["done"] += 1
            elif not opened and ranks:
                assert move == min(ranks)
                seen["unopened rank"] += 1
            elif move in ranks:
                seen["opened rank"] += 1
            else:
                assert text.startswith("discard:")
                seen["discard"] += 1
        if text.startswith(("rank:", "lay:")):
            assert all(s._s.heuristic_action(other) == move for other in range(seed + 1, seed + 4))
            seen["lay"] += text.startswith("lay:")
        s.apply(move if rng.random() < 0.8 else rng.choice(legal))  # some uniform moves, for pickups and odd hands
    assert min(seen.values()) >= 10, seen
