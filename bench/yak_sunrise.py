"""Yak strength figures of docs/research-log/strength.md ("Yak"): does treating Sunrise as simultaneous pay?

``aware`` is the search as it plays Yak: at a Sunrise every other player chooses at the same
time as it, each from its own statistics (``simultaneous``). ``sequential`` is the same search
with the same budget given the Sunrise as rules §12.2 record it, one hidden decision per
player in turn order from the baby-yak holder: the players before it have chosen (their cards
``?``), and with ``reopen_choices=0`` its determinizations guess those cards uniformly, as
the plan of issue 12 would have made every search do; the players after it still choose in
the search. Both play the same duplicate deals of 4-player Yak, two seats each.

    python bench/yak_sunrise.py --games 40 --iterations 2000 --seed 1

A second table: the search against three greedy bots (``--versus-greedy``).
"""

from __future__ import annotations

import argparse
import random

from rich.console import Console

import kibitz
from kibitz.game import State, View
from kibitz.match import Participant, run_match
from kibitz.params import SearchParams


class SequentialSunrise:
    """A search bot that sees a Sunrise as §12.2's sequential record: the players before it in
    recording order have chosen, in secret, and its search guesses their cards uniformly."""

    def __init__(self, params: SearchParams, seed: int) -> None:
        self.name = "sequential"
        self.params = params.with_(reopen_choices=0)
        self._rng = random.Random(seed)

    def act(self, view: View) -> int:
        state = view.state()
        seed = self._rng.getrandbits(63)
        if state.is_simultaneous():
            state = self._recorded(state, view.seat)
        return state.search(self.params.with_(seed=seed), seat=view.seat if state.is_simultaneous() else None).action

    @staticmethod
    def _recorded(state: State, seat: int) -> State:
        """The Sunrise with the seats before ``seat`` in recording order given a card (any: the
        search's determinizations draw it again, uniformly)."""
        order = state.choosing_seats()
        earlier = order[: order.index(seat)]
        fields = state.notation().split()
        for i, word in enumerate(fields):
            if word.startswith("cards="):
                cards = word[len("cards=") :].split(",")
                for p in earlier:
                    cards[p] = "build"
                fields[i] = "cards=" + ",".join(cards)
        return kibitz.Game.of_notation(" ".join(fields)).state_from_notation(" ".join(fields))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spec", default="ismcts", help="the search: a bot spec without its budget (default ismcts)")
    parser.add_argument("--versus-greedy", action="store_true", help="the search against three greedy bots instead")
    parser.add_argument("--out", default=None, help="append the records to this file (resumes)")
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args()
    game = kibitz.Game("yak", players=4)
    spec = f"{args.spec}{',' if ':' in args.spec else ':'}iterations={args.iterations}"
    if args.versus_greedy:
        players = [Participant.of(spec), "greedy", "greedy", "greedy"]
    else:
        params = kibitz.make_bot(spec).params  # type: ignore[attr-defined]
        players = [Participant.of(f"{spec},name=aware"), Participant(lambda seed: SequentialSunrise(params, seed), "sequential")]
    result = run_match(game, players, games=args.games, seed=args.seed, processes=args.processes, record_path=args.out)
    console = Console(width=120)
    for table in filter(None, (result.table(), result.seat_table())):
        console.print(table)
    if result.summary():
        print(result.summary())


if __name__ == "__main__":
    main()
