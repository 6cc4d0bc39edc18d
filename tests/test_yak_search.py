"""The search in Yak (csrc/search/mcts.h at simultaneous nodes; docs/architecture.md §4): every
algorithm plays legal joint moves through whole games, and no seat's search depends on what
another seat chose in secret: not at a Sunrise (a choice made earlier in the round is taken back
and searched as simultaneous), not at Noon before the card is revealed.
"""

from __future__ import annotations

import pytest

import kibitz
from kibitz.match import play_game, replay

YAK = {n: kibitz.Game("yak", players=n) for n in (2, 3, 4)}
ALGORITHMS = ["uct", "so_ismcts", "mo_ismcts", "pimc"]
CARDS = ["build", "restock", "market"]


def with_cards(state: kibitz.State, cards: list[str]) -> kibitz.State:
    """`state` (at Sunrise) with the `cards` field replaced: `-` for a player still choosing."""
    fields = [f"cards={','.join(cards)}" if word.startswith("cards=") else word for word in state.notation().split()]
    text = " ".join(fields)
    return kibitz.Game.of_notation(text).state_from_notation(text)


def same_search(a: kibitz.SearchResult, b: kibitz.SearchResult) -> bool:
    return (a.action, a.stats, a.nodes) == (b.action, b.stats, b.nodes)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("simultaneous", ["rm", "duct", "exp3"])
def test_every_search_plays_whole_yak_games_with_legal_joint_moves(algorithm, simultaneous):
    spec = f"{'ismcts' if algorithm == 'so_ismcts' else algorithm}:iterations=60,simultaneous={simultaneous}"
    record = play_game(YAK[3], [spec, "greedy", spec], seed=5)  # the runner refuses an illegal move
    final = replay(record)
    assert final.is_terminal() and sum(record.returns) == pytest.approx(1.0)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_search_at_sunrise_does_not_depend_on_the_card_another_player_has_chosen(algorithm):
    start = YAK[3].new_initial_state(seed=3)  # baby-yak holder 0: §12.2 records seat 0, 1, 2 in turn
    params = kibitz.SearchParams(algorithm=algorithm, iterations=300, seed=11)
    results = []
    for card in CARDS:
        s = with_cards(start, [card, "-", "-"])  # seat 0 has chosen, in secret
        assert s.choosing_seats() == [1, 2] and "cards=?,-,-" in s.view(1).notation()
        results.append(s.search(params, seat=1))
    assert same_search(results[0], results[1]) and same_search(results[0], results[2])
    # ... because it searches the round's start, seat 0 choosing again at the same time as seat 1
    assert same_search(results[0], start.search(params, seat=1))


def test_a_search_at_sunrise_keeps_the_seat_s_own_card_out_of_it_and_refuses_a_seat_that_has_chosen():
    start = YAK[3].new_initial_state(seed=3)
    s = with_cards(start, ["-", "market", "-"])
    with pytest.raises(kibitz.IllegalMoveError, match=r"seats 0, 2 choose at once here: search one of them \(seat=...\), got 1"):
        s.search(kibitz.SearchParams(iterations=50), seat=1)
    result = s.search(kibitz.SearchParams(iterations=300, seed=2), seat=2)
    assert {st.move for st in result.stats} == {f"choose {c}" for c in CARDS}
    assert sum(st.probability for st in result.stats) == pytest.approx(1.0)


@pytest.mark.parametrize("algorithm", ["so_ismcts", "mo_ismcts", "pimc"])
def test_a_search_at_noon_does_not_depend_on_the_cards_of_the_players_still_to_act(algorithm):
    params = kibitz.SearchParams(algorithm=algorithm, iterations=300, seed=4)
    results = []
    for later in CARDS:
        s = YAK[4].new_initial_state(seed=8)
        baby = s.choosing_seats()[0]
        s.apply_joint({seat: f"choose {'build' if seat == baby else later}" for seat in s.choosing_seats()})
        assert s.current_player == baby
        results.append(s.search(params))
    assert same_search(results[0], results[1]) and same_search(results[0], results[2])


def test_a_search_bot_sees_only_its_view_at_sunrise():
    s = with_cards(YAK[3].new_initial_state(seed=3), ["restock", "-", "-"])
    moves = set()
    for card in CARDS:
        t = with_cards(s, [card, "-", "-"])
        bot = kibitz.make_bot("mo_ismcts:iterations=300", seed=9)
        moves.add(bot.act(t.view(2)))
        assert bot.last_result is not None
    assert len(moves) == 1


def test_without_reopening_a_search_in_the_middle_of_a_sunrise_guesses_the_cards_already_chosen():
    start = YAK[3].new_initial_state(seed=3)
    params = kibitz.SearchParams(algorithm="so_ismcts", iterations=300, seed=11, reopen_choices=0)
    guessed = [with_cards(start, [card, "-", "-"]).search(params, seat=1) for card in CARDS]
    assert same_search(guessed[0], guessed[1]) and same_search(guessed[0], guessed[2])  # drawn again: never the true card
    assert not same_search(guessed[0], start.search(params, seat=1))  # seat 0 does not choose in it
