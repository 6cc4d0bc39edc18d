"""Heuristic weights declared by the games and set at run time: the greedy bot's evaluation
weights (``greedy:eval.<name>=<v>``) and the rollout policies' (``policy.<name>``).

The defaults must play exactly the moves the hard-coded heuristics played: the moves of the
greedy bot, and of the rollout policies that gained declared weights (Yak), at many seeded
positions of every game were recorded in ``heuristic_moves.json`` before the weights existed
(``python tests/test_heuristic_weights.py --write`` records them again; only ever do that
when a heuristic is meant to change).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import kibitz
from kibitz import OptionError
from state_helpers import decision_positions

RECORD = Path(__file__).resolve().parent / "heuristic_moves.json"
# The positions: games of uniformly random moves from seeded deals, every decision recorded.
CONFIGS = [
    ("just4fun_colours", 2),
    ("just4fun_colours", 4),
    ("yucata", 2),
    ("yucata", 3),
    ("canasta_tiles", 4),
    ("yak", 2),
    ("yak", 4),
    ("goofspiel", 2),
    ("biased_rps", 2),
]
GAMES_PER_CONFIG = 6


def positions(name: str, players: int) -> list[tuple[kibitz.State, int | None]]:
    """(state, seat): a decision of the seat to move (seat None) or of a choosing seat."""
    return decision_positions(kibitz.Game(name, players=players), GAMES_PER_CONFIG)


def greedy_moves(name: str, players: int, eval: dict[str, float] | None = None) -> list[int]:
    weights = list((eval or {}).items())
    return [
        s._s.greedy_action(k, weights) if seat is None else s._s.greedy_choice(seat, k, weights)
        for k, (s, seat) in enumerate(positions(name, players))
    ]


def policy_moves(name: str, players: int) -> list[int]:
    return [s._s.heuristic_action(k) for k, (s, seat) in enumerate(positions(name, players)) if seat is None]


def recorded() -> dict[str, dict[str, list[int]]]:
    return {
        f"{name}/{players}": {"greedy": greedy_moves(name, players), **({"policy": policy_moves(name, players)} if name == "yak" else {})}
        for name, players in CONFIGS
    }


@pytest.mark.parametrize("name,players", CONFIGS)
def test_the_default_weights_play_the_moves_the_fixed_heuristics_played(name: str, players: int) -> None:
    record = json.loads(RECORD.read_text())[f"{name}/{players}"]
    assert record["greedy"]
    assert greedy_moves(name, players) == record["greedy"]
    if "policy" in record:
        assert policy_moves(name, players) == record["policy"]


WEIGHTED = [(name, players) for name, players in CONFIGS if kibitz.Game(name, players=players).eval_weights]


def test_the_games_declare_their_evaluation_weights() -> None:
    assert {name for name, _ in WEIGHTED} == {"just4fun_colours", "yucata", "canasta_tiles", "yak"}
    for name, players in WEIGHTED:
        weights = kibitz.Game(name, players=players).eval_weights
        assert len({w.name for w in weights}) == len(weights)
        assert all(w.low <= w.default <= w.high and w.help for w in weights), name
    assert [w.name for w in kibitz.Game("yak").policy_weights] == ["stone", "colour", "crystal", "food", "level"]


def test_a_weight_shows_its_name_default_and_range() -> None:
    block = next(w for w in kibitz.Game("just4fun_colours").policy_weights if w.name == "block")
    assert repr(block) == f"PolicyWeight(name='block', default={block.default!r}, low={block.low!r}, high={block.high!r})"


@pytest.mark.parametrize("name,players", WEIGHTED)
def test_each_evaluation_weight_is_read_and_the_defaults_set_by_name_change_nothing(name: str, players: int) -> None:
    """Every weight, moved off its default, changes some greedy move over the seeded positions;
    its default given by name changes none."""
    weights = kibitz.Game(name, players=players).eval_weights
    today = greedy_moves(name, players)
    assert greedy_moves(name, players, {w.name: w.default for w in weights}) == today
    for w in weights:
        moved = w.low if w.default - w.low > w.high - w.default else w.high  # the far end of its range
        changed = sum(a != b for a, b in zip(greedy_moves(name, players, {w.name: moved}), today))
        assert changed > 0, f"{name}: eval.{w.name}={moved} changes no move"


def test_the_greedy_bot_takes_eval_weights_from_its_spec() -> None:
    bot = kibitz.make_bot("greedy:eval.area=0,eval.lines=2.5,seed=3")
    assert isinstance(bot, kibitz.GreedyBot) and bot.eval == (("area", 0.0), ("lines", 2.5))
    state = kibitz.Game("just4fun_colours", players=2).new_initial_state(1)
    while state.is_chance():
        state.apply(state.sample_chance(1))
    assert bot.act(state.view(state.current_player)) in state.legal_actions()
    assert repr(bot) == "GreedyBot(seed=3, eval.area=0.0, eval.lines=2.5)"


@pytest.mark.parametrize(
    "spec,game,named",
    [
        ("greedy:eval.nope=1", "yak", "unknown eval weight 'nope' for yak; known: stone_potential, food, restock_stone, market_put"),
        ("greedy:eval.food=1000", "yak", "eval weight food: 1000.000000 is out of range; expected a number in -100.000000..100.000000"),
        ("greedy:eval.leader=1", "goofspiel", "goofspiel has no eval weights; got 'leader'"),
    ],
)
def test_unknown_or_out_of_range_eval_weights_are_refused_when_the_bot_plays(spec: str, game: str, named: str) -> None:
    state = kibitz.Game(game, players=2).new_initial_state(1)
    while state.is_chance():
        state.apply(state.sample_chance(1))
    seat = state.choosing_seats()[0] if state.is_simultaneous() else state.current_player
    before = state.notation()
    with pytest.raises(OptionError, match=named):
        kibitz.make_bot(spec).act(state.view(seat))
    assert state.notation() == before


@pytest.mark.parametrize(
    "spec,named",
    [
        ("greedy:eval.area=abc", "eval.area: 'abc' is not a number"),
        ("greedy:c=0.3", "bot 'greedy' takes no options except seed, preset and eval.<name> weights; got c"),
        ("greedy:policy.block=0", "got policy.block"),
        ("ismcts:eval.area=1", "unknown search parameter 'eval.area'"),
    ],
)
def test_bad_eval_weights_in_a_spec_are_named(spec: str, named: str) -> None:
    with pytest.raises(OptionError, match=named):
        kibitz.make_bot(spec)


def test_yaks_rollout_policy_weights_change_the_search_and_the_defaults_do_not() -> None:
    state = kibitz.Game("yak", players=2).new_initial_state(3)
    while state.is_chance() or state.is_simultaneous():
        if state.is_chance():
            state.apply(state.sample_chance(5))
        else:
            state.apply_joint({seat: state.legal_actions_for(seat)[0] for seat in state.choosing_seats()})
    base = kibitz.SearchParams(iterations=400, seed=2)
    defaults = tuple((w.name, w.default) for w in kibitz.Game("yak").policy_weights)
    assert state.search(base).stats == state.search(base.with_(policy=defaults)).stats
    assert state.search(base).stats != state.search(base.with_(policy=(("stone", -5.0), ("food", 5.0)))).stats


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_heuristic_weights.py --write   (records the heuristics' moves again)")
    RECORD.write_text(json.dumps(recorded(), separators=(",", ":")) + "\n")
    print(f"wrote {RECORD}")
