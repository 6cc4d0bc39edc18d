"""OpenSpiel's ISMCTS on the kibitz adapter against kibitz's SO-ISMCTS, in one process and one
run (issue 13 item 4; docs/performance.md, "Against OpenSpiel"):

1. iterations per second of each on the same positions (Just 4 Fun Colours, 2 players: seeded
   random games stopped at decision nodes), one thread each;
2. a match at equal wall time per move: kibitz ``ismcts:time_ms=T`` against OpenSpiel's
   ``ISMCTSBot`` given as many simulations as it runs in T ms (from part 1), with duplicate
   deals, seats swapped; the win rate with its 95 % Wilson interval, and the time each bot
   actually spent per move.

    python bench/side_by_side.py                      # the figures of docs/performance.md
    python bench/side_by_side.py --games 20 --ms 20   # a quick look

Needs the openspiel extra (``pip install '.[openspiel]'``).
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from dataclasses import dataclass, field

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import kibitz
import kibitz.interop.openspiel as kibitz_openspiel
from kibitz.match import run_match

GAME = "just4fun_colours"
PLAYERS = 2
OPENSPIEL_UCT_C = 2.0  # OpenSpiel's ISMCTS example's exploration constant
MEASURE_OPENSPIEL_SIMULATIONS = 200
MEASURE_KIBITZ_ITERATIONS = 20000


@dataclass
class Clock:
    """Time spent and moves made by one bot over a run."""

    seconds: float = 0.0
    moves: int = 0

    def per_move_ms(self) -> float:
        return 1000 * self.seconds / max(self.moves, 1)


CLOCKS: dict[str, Clock] = {}


def positions(count: int, seed: int) -> list[kibitz.State]:
    """Decision nodes of seeded random games, 4 to 20 decisions in."""
    game = kibitz.Game(GAME, players=PLAYERS)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state(rng.getrandbits(63))
        for _ in range(rng.randrange(4, 21)):
            while state.is_chance():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        while state.is_chance():
            state.apply(state.sample_chance(rng.getrandbits(63)))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            found.append(state)
    return found


@functools.cache
def openspiel_game() -> pyspiel.Game:
    return pyspiel.load_game(kibitz_openspiel.PREFIX + GAME, {"players": PLAYERS})


def openspiel_bot(game: pyspiel.Game, simulations: int, seed: int) -> ismcts.ISMCTSBot:
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed % 2**32))
    return ismcts.ISMCTSBot(game, evaluator, OPENSPIEL_UCT_C, simulations, random_state=np.random.RandomState((seed + 1) % 2**32))


def as_openspiel(game: pyspiel.Game, state: kibitz.State) -> kibitz_openspiel.KibitzState:
    return kibitz_openspiel.KibitzState(game, state)


@dataclass
class Speeds:
    openspiel_per_s: float
    kibitz_random_per_s: float
    kibitz_heuristic_per_s: float
    positions: int


def measure_speeds(states: list[kibitz.State]) -> Speeds:
    """Iterations per second of each search over the same positions (one thread each)."""
    game = openspiel_game()
    bot = openspiel_bot(game, MEASURE_OPENSPIEL_SIMULATIONS, seed=1)
    start = time.perf_counter()
    for state in states:
        bot.run_search(as_openspiel(game, state.view(state.current_player).state()))
    openspiel = MEASURE_OPENSPIEL_SIMULATIONS * len(states) / (time.perf_counter() - start)
    rates = {}
    for rollout in ("random", "heuristic"):
        params = kibitz.SearchParams(algorithm="so_ismcts", iterations=MEASURE_KIBITZ_ITERATIONS, rollout=rollout, seed=1)
        iterations = seconds = 0.0
        for state in states:
            result = state.search(params)
            iterations, seconds = iterations + result.iterations, seconds + result.seconds
        rates[rollout] = iterations / seconds
    return Speeds(openspiel, rates["random"], rates["heuristic"], len(states))


@dataclass
class OpenSpielIsmcts:
    """OpenSpiel's ISMCTSBot as a kibitz Bot: it gets a state drawn from the seat's view (no
    hidden card leaks in), and resamples the hidden parts itself through the adapter."""

    simulations: int
    seed: int
    name: str = "openspiel-ismcts"
    sees_everything: bool = False
    _bot: ismcts.ISMCTSBot | None = field(default=None, repr=False)

    def act(self, view: kibitz.View) -> int:
        game = openspiel_game()
        if self._bot is None:
            self._bot = openspiel_bot(game, self.simulations, self.seed)
        start = time.perf_counter()
        action = int(self._bot.step(as_openspiel(game, view.state())))
        clock = CLOCKS.setdefault(self.name, Clock())
        clock.seconds, clock.moves = clock.seconds + time.perf_counter() - start, clock.moves + 1
        return action


@dataclass
class TimedKibitz:
    """kibitz's SO-ISMCTS bot with its time per move recorded."""

    spec: str
    seed: int
    name: str = "kibitz-so-ismcts"
    sees_everything: bool = False

    def __post_init__(self) -> None:
        self._bot = kibitz.make_bot(self.spec, seed=self.seed)

    def act(self, view: kibitz.View) -> int | str:
        start = time.perf_counter()
        move = self._bot.act(view)
        clock = CLOCKS.setdefault(self.name, Clock())
        clock.seconds, clock.moves = clock.seconds + time.perf_counter() - start, clock.moves + 1
        return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--games", type=int, default=100, help="match games (even: duplicate deals, seats swapped)")
    parser.add_argument("--ms", type=float, default=50.0, help="wall time per move of each bot")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    speeds = measure_speeds(positions(args.positions, args.seed))
    simulations = max(1, round(speeds.openspiel_per_s * args.ms / 1000))
    spec = f"ismcts:time_ms={args.ms:g},threads=1"
    result = run_match(
        kibitz.Game(GAME, players=PLAYERS),
        [lambda seed: TimedKibitz(spec, seed), lambda seed: OpenSpielIsmcts(simulations, seed)],
        games=args.games,
        seed=args.seed,
        processes=1,
    )
    kibitz_stats = result.bots[0]
    rate = kibitz_stats.win_rate
    print(f"## {GAME}, {PLAYERS} players, seed {args.seed}, one thread each\n")
    print("| search | iterations/s |")
    print("|---|---|")
    print(f"| OpenSpiel ISMCTS (Python, random rollouts) on kibitz.interop.openspiel | {speeds.openspiel_per_s:,.0f} |")
    print(f"| kibitz SO-ISMCTS, random rollouts | {speeds.kibitz_random_per_s:,.0f} |")
    print(f"| kibitz SO-ISMCTS, heuristic rollouts (default) | {speeds.kibitz_heuristic_per_s:,.0f} |")
    print(
        f"\n({speeds.positions} positions; OpenSpiel {MEASURE_OPENSPIEL_SIMULATIONS} simulations each, kibitz {MEASURE_KIBITZ_ITERATIONS})\n"
    )
    low, high = rate.low or 0.0, rate.high or 1.0
    print(
        f"Equal time, {args.ms:g} ms a move: kibitz `{spec}` against OpenSpiel ISMCTS with {simulations} simulations "
        f"(uct_c={OPENSPIEL_UCT_C}), {result.games} games, duplicate deals: kibitz win rate "
        f"{100 * rate.mean:.1f} % (95 % CI {100 * low:.1f}-{100 * high:.1f} %)."
    )
    print(
        "Time per move actually spent: "
        + ", ".join(f"{name} {clock.per_move_ms():.1f} ms ({clock.moves} moves)" for name, clock in sorted(CLOCKS.items()))
    )


if __name__ == "__main__":
    main()
