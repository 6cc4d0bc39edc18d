"""The difficulty levels' time per move and tactics (docs/levels.md): for each level of a
game's ladder, the CPU time of its decisions on positions from seeded games between greedy bots
(median and largest), and, for Just 4 Fun Colours, how often it takes the win in one move of the
tactical suite and blocks a one-move threat (tests/test_tactics.py's positions).

    python bench/levels.py yucata                 # two players
    python bench/levels.py just4fun_colours --positions 60 --seeds 10

Each decision is one search on one thread, timed with the process's CPU clock, so the figures
do not depend on the machine's load. A markdown table per ladder.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import kibitz
from kibitz import levels
from kibitz.match import play_game, positions


def decision_positions(game: kibitz.Game, count: int, seed: int) -> list[kibitz.State]:
    """``count`` decision positions, taken evenly from seeded games between greedy bots."""
    found: list[kibitz.State] = []
    g = 0
    while len(found) < count:
        record = play_game(game, ["greedy"] * game.num_players, seed + g)
        found.extend(state for state, _ in positions(record) if state.current_player >= 0 and len(state.legal_actions()) > 1)
        g += 1
    step = len(found) / count
    return [found[int(k * step)] for k in range(count)]


def cpu_ms(level: levels.Level, states: list[kibitz.State]) -> list[float]:
    """The CPU milliseconds of the level's decision at each position (from the mover's view)."""
    spent = []
    for k, state in enumerate(states):
        bot = kibitz.make_bot(level.spec, seed=k)
        view = state.view(state.current_player)
        start = time.process_time()
        bot.act(view)
        spent.append(1000 * (time.process_time() - start))
    return spent


def tactics(level: levels.Level, seeds: int) -> tuple[str, str]:
    """Just 4 Fun Colours: the suite's immediate wins taken and one-move threats blocked."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_experts import IMMEDIATE_WINS, J4FC, threat_positions  # the tests' positions

    won = tried = 0
    for notation in IMMEDIATE_WINS:
        state = J4FC.state_from_notation(notation)
        for seed in range(seeds):
            won += state.view(state.current_player).state().search(level.search_params.with_(seed=seed)).move == "f1"
            tried += 1
    blocked = threats = 0
    for state, good in threat_positions(10):
        view = state.view(state.current_player).state()
        for seed in range(seeds):
            blocked += view.search(level.search_params.with_(seed=seed)).move in good
            threats += 1
    return f"{won} of {tried}", f"{blocked} of {threats} ({100 * blocked / threats:.0f} %)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=40, help="positions timed per level (default 40)")
    parser.add_argument("--seeds", type=int, default=5, help="searches per tactical position (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the greedy games the positions come from (default 1)")
    args = parser.parse_args()
    game = kibitz.Game(args.game, players=args.players)
    states = decision_positions(game, args.positions, args.seed)
    tactical = args.game == "just4fun_colours" and args.players == 2
    where = f"{args.positions} positions (greedy games from seed {args.seed})"
    print(f"{args.game}, {args.players} players: {where}, CPU ms per decision")
    print()
    print("| level | settings | median ms | largest ms |" + (" wins in one taken | threats blocked |" if tactical else ""))
    print("|---|---|---:|---:|" + ("---|---|" if tactical else ""))
    for level in levels.levels(args.game, args.players):
        spent = cpu_ms(level, states)
        settings = ",".join(f"{k}={v}" for k, v in level.params.items())
        row = f"| {level.name} | `{level.bot}:{settings}` | {statistics.median(spent):.1f} | {max(spent):.1f} |"
        if tactical:
            row += " {} | {} |".format(*tactics(level, args.seeds))
        print(row, flush=True)


if __name__ == "__main__":
    main()
