"""What a learned evaluator costs inside the search (docs/learning.md, docs/research-log/learning.md):
SO-ISMCTS iterations per second with the game's own rollouts to the end, and with a network
(``kibitz.learn``) scoring the leaf (``eval_depth`` 0), scoring after a few rollout moves, and
playing the rollouts with its policy head, all in one run on the same positions.

    python bench/learning.py --net g1.kbnet
    python bench/learning.py --game yak --players 3 --hidden 128 --blocks 2

Without ``--net`` a network of the given shape with random weights is timed (the cost does not
depend on what it learned, beyond how many hidden units ReLU leaves at zero). The positions are
the decisions along one seeded greedy game; a row's figure is the search's own iteration count
over its own clock (``SearchResult.seconds``) summed over them, best of ``--repeats`` passes
over all the rows.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import kibitz
from kibitz import plugins
from kibitz.learn import Architecture, Network
from kibitz.match import play_game, positions


def decisions(game: kibitz.Game, seed: int, count: int) -> list[kibitz.State]:
    """Up to ``count`` positions where a seat decides, along a greedy game."""
    record = play_game(game, ["greedy"] * game.num_players, seed)
    found = [state for state, _ in positions(record) if state.current_player >= 0 and len(state.legal_actions()) > 1]
    step = max(1, len(found) // count)
    return found[::step][:count]


def speed(states: list[kibitz.State], params: kibitz.SearchParams, plugin: plugins.Plugin | None) -> float:
    iterations = seconds = 0.0
    for state in states:
        result = state.search(params, plugin=plugin)
        iterations, seconds = iterations + result.iterations, seconds + result.seconds
    return iterations / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="just4fun_colours")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--net", help="a network file (default: random weights of --hidden and --blocks)")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=5000, help="iterations per search (default 5000)")
    parser.add_argument("--positions", type=int, default=8, help="positions searched per row (default 8)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many passes (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = kibitz.Game(args.game, players=args.players)
    with tempfile.TemporaryDirectory() as folder:
        shape = Architecture.of_game(game, args.hidden, args.blocks)
        path = args.net or str(Network.initial(shape, args.seed).save(Path(folder) / "random.kbnet"))
        net = Network.load(path)
        states = decisions(game, args.seed, args.positions)
        rows: list[tuple[str, plugins.Plugin | None, int]] = [
            ("the game's rollouts to the end (the presets)", None, 0),
            ("network value at the leaf, eval_depth=0", plugins.load(f"{path}:evaluate"), 0),
            ("game rollouts for 2 moves, then the network's value", plugins.load(f"{path}:evaluate"), 2),
            ("game rollouts for 4 moves, then the network's value", plugins.load(f"{path}:evaluate"), 4),
            ("network policy in the rollouts, to the end", plugins.load(f"{path}:choose"), 0),
            ("network policy for 4 moves, then its value", plugins.load(path), 4),
        ]
        print(f"{game.name}, {game.num_players} players, {net!r} ({net.parameters} weights), {len(states)} positions")
        print("| search | iterations/s | vs the game's rollouts |")
        print("|---|---:|---:|")
        best = [0.0] * len(rows)
        for _ in range(args.repeats):  # passes over every row, so that a change in the machine's load hits them alike
            for i, (_, plugin, depth) in enumerate(rows):
                params = kibitz.SearchParams(iterations=args.iterations, seed=args.seed, eval_depth=depth)
                best[i] = max(best[i], speed(states, params, plugin))
        for (label, _, _), rate in zip(rows, best):
            print(f"| {label} | {rate:,.0f} | {rate / best[0]:.2f} |")

if __name__ == "__main__":
    main()
