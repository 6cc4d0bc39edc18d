"""Writes the files in this folder with an older kibitz, as users saved them then.

The files were made with the build of commit a931aa0 (2026-11-29 21:19, the last before tile
Canasta's notation gained tiebreak=, jokers_left= and played=), built from `git archive a931aa0`
and run as ``PYTHONPATH=<that tree>/python python tests/data/formats/make_old_files.py <folder>``.
tests/test_formats.py reads them with this build. Each ``<game>.txt`` line is
``full|view<TAB><notation><TAB><the legal moves there, space-separated>``, positions along
seeded random games; ``<game>.jsonl`` holds records of a match that build played.
"""

import random
import subprocess
import sys
from pathlib import Path

import kibitz

GAMES = {  # game: the option sets and player counts sampled
    "just4fun_colours": [({}, 2), ({}, 3), ({"line": "5"}, 4)],
    "yucata": [({}, 2), ({}, 3), ({"q": "distance"}, 4)],
    "canasta_tiles": [({}, 4), ({"mode": "three_rounds"}, 4), ({"joker_button": "1"}, 4)],
}
EVERY = {"just4fun_colours": 7, "yucata": 5, "canasta_tiles": 23}  # steps between samples


def legal(state: kibitz.State) -> str:
    return " ".join(state.legal_moves()) if not state.is_terminal() and not state.is_chance() else "-"


def samples(game: str, options: dict, players: int, seed: int) -> list[str]:
    state = kibitz.Game(game, players=players, **options).new_initial_state(seed)
    rng = random.Random(seed)
    lines, step = [], 0
    while True:
        if step % EVERY[game] == 0 or state.is_terminal():
            lines.append(f"full\t{state.notation()}\t{legal(state)}")
            seat = rng.randrange(players)
            view = state.view(seat)
            lines.append(f"view\t{view.notation}\t-")  # a field until 2026-12-01
        if state.is_terminal():
            return lines
        state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance() else rng.choice(state.legal_actions()))
        step += 1


def main() -> int:
    folder = Path(sys.argv[1])
    for game, configs in GAMES.items():
        lines = [line for k, (options, players) in enumerate(configs) for line in samples(game, options, players, 100 + k)]
        (folder / f"{game}.txt").write_text("\n".join(lines) + "\n")
        out = folder / f"{game}.jsonl"
        out.unlink(missing_ok=True)
        players = ["--players", "2"] if game != "canasta_tiles" else []
        subprocess.run([sys.executable, "-m", "kibitz", "match", game, *players, "--bots", "greedy", "random", "--games", "2",
                        "--seed", "5", "--out", str(out), "--processes", "1"], check=True, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
