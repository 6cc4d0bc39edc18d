"""The playing-strength table of docs/strength.md: each row one seeded match, printed as a
markdown table with the sample size, the seed, the win share of the first bot and its 95 %
Wilson interval, and the issue's target for that row.

    python bench/strength.py                  # every row (about an hour on 2 cores)
    python bench/strength.py --rows j4fc-2p   # the rows whose name contains the text
    python bench/strength.py --games 40       # fewer games per row, for a quick look
    python bench/strength.py --table timed      # target rows at about 1 s a decision
    python bench/strength.py --table ablations  # what each technique adds, at 2,000 iterations

Matches use duplicate deals (every deal played once with each seating) and rotate the seats,
as ``kibitz match`` does; each row's command line is printed under the table, so any figure
can be reproduced on its own. The search bots use the presets of ``bots/<game>/``.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass, field

import kibitz
from kibitz.match import run_match


@dataclass(frozen=True)
class Row:
    name: str
    game: str
    bots: tuple[str, ...]
    games: int
    seed: int
    target: str  # the target for the first bot, in words
    players: int = 2
    options: dict[str, str] = field(default_factory=dict)
    by_seat: bool = False  # also show the first bot's win rate in each seat

    def command(self, games: int) -> str:
        options = "".join(f" --option {k}={v}" for k, v in self.options.items())
        players = f" --players {self.players}" if self.players != kibitz.Game(self.game).num_players else ""
        return f"kibitz match {self.game}{players}{options} --bots {' '.join(self.bots)} --games {games} --seed {self.seed}"


J4 = "ismcts:preset=just4fun_colours/strong"
J4_NOBLOCK = J4 + ",policy.block=0"  # version 1 of strong-4p (version 2 is strong again)
YU = "uct:preset=yucata/strong"
YU_4P = "uct:preset=yucata/strong-4p"
CA = "ismcts:preset=canasta_tiles/strong"
YA = "ismcts:preset=yak/strong"
RANDOM_LAYOUT = {"layout": "random"}
DEFAULT_LAYOUT_START_0 = {"start": "0"}

ROWS = [
    Row("j4fc-2p-greedy", "just4fun_colours", (J4, "greedy"), 400, 201, ">= 90 %"),
    Row("j4fc-2p-expert", "just4fun_colours", (J4, "expert"), 400, 202, ">= 80 %"),
    Row("j4fc-4p-greedy", "just4fun_colours", (J4, "greedy", "greedy", "greedy"), 200, 203, ">= 50 %", players=4),
    Row("j4fc-4p-greedy-noblock", "just4fun_colours", (J4_NOBLOCK, "greedy", "greedy", "greedy"), 200, 203, ">= 50 %", players=4),
    Row("j4fc-4p-expert", "just4fun_colours", (J4, "expert", "expert", "expert"), 200, 204, ">= 40 %", players=4),
    Row("j4fc-4p-expert-more", "just4fun_colours", (J4, "expert", "expert", "expert"), 400, 216, ">= 40 %", players=4),
    Row("j4fc-4p-expert-noblock", "just4fun_colours", (J4_NOBLOCK, "expert", "expert", "expert"), 200, 204, ">= 40 %", players=4),
    Row("yucata-2p-expert", "yucata", (YU, "expert"), 200, 205, ">= 95 %"),
    Row("yucata-4p-greedy", "yucata", (YU_4P, "greedy", "greedy", "greedy"), 400, 206, ">= 55 %", 4, RANDOM_LAYOUT),
    Row("yucata-4p-expert", "yucata", (YU_4P, "expert", "expert", "expert"), 400, 207, ">= 45 %", 4, RANDOM_LAYOUT),
    Row("yucata-4p-expert-more", "yucata", (YU_4P, "expert", "expert", "expert"), 400, 217, ">= 45 %", 4, RANDOM_LAYOUT),
    # A fresh sample of a size fixed in advance, judged alone (the rows above crossed the line only
    # as games were added).
    Row("yucata-4p-expert-confirm", "yucata", (YU_4P, "expert", "expert", "expert"), 1000, 218, ">= 45 %", 4, RANDOM_LAYOUT),
    Row("yucata-4p-default-search", "yucata", (YU_4P, "greedy", "greedy", "greedy"), 400, 213, "each seat above greedy's", 4,
        DEFAULT_LAYOUT_START_0, by_seat=True),
    Row("yucata-4p-default-greedy", "yucata", ("greedy", "greedy", "greedy", "greedy"), 400, 213, "(greedy's own seat rates)", 4,
        DEFAULT_LAYOUT_START_0, by_seat=True),
    Row("canasta-greedy", "canasta_tiles", (CA, "greedy"), 200, 209, ">= 80 %", players=4),
    Row("canasta-expert", "canasta_tiles", (CA, "expert"), 200, 210, ">= 65 %", players=4),
    Row("canasta-expert-more", "canasta_tiles", (CA, "expert"), 400, 219, ">= 65 %", players=4),
    # Yak came after issue 10's targets were set: issue 12 asked for >= 50 % against three greedy
    # bots; against the expert the ladder asks the search to be the stronger player.
    Row("yak-4p-greedy", "yak", (YA, "greedy", "greedy", "greedy"), 200, 230, ">= 50 % (issue 12)", players=4),
    Row("yak-4p-expert", "yak", (YA, "expert", "expert", "expert"), 200, 231, "> 25 % (above the experts)", players=4),
    Row("yak-2p-expert", "yak", (YA, "expert"), 200, 232, "> 50 %"),
]

# One technique off at a time, against the same opponents and seeds as the full bot at the same
# budget (2,000 iterations, where a row of 1,000 games costs a few minutes): the rows that the
# choices of the presets and defaults rest on.
J4_2K = "ismcts:preset=just4fun_colours/fast"
J4_2K_4P = "ismcts:preset=just4fun_colours/fast,policy.block=0"
G3 = ("greedy", "greedy", "greedy")
ABLATIONS = [
    Row("j4fc-2p-full", "just4fun_colours", (J4_2K, "greedy"), 1000, 31, "the defaults"),
    Row("j4fc-2p-no-solver", "just4fun_colours", (J4_2K + ",solver=0", "greedy"), 1000, 31, "solver off"),
    Row("j4fc-2p-no-line-terms", "just4fun_colours", (J4_2K + ",policy.free_line=0,policy.broken_line=0", "greedy"), 1000, 31,
        "rollouts without the line terms"),
    Row("j4fc-2p-no-block", "just4fun_colours", (J4_2K + ",policy.block=0", "greedy"), 1000, 31, "rollouts that do not block"),
    Row("j4fc-2p-random-rollouts", "just4fun_colours", (J4_2K + ",rollout=random", "greedy"), 1000, 31, "uniform rollouts"),
    Row("j4fc-2p-mo", "just4fun_colours", ("mo_ismcts:iterations=2000", "greedy"), 1000, 31, "MO-ISMCTS"),
    Row("j4fc-2p-pimc", "just4fun_colours", ("pimc:iterations=2000", "greedy"), 1000, 31, "PIMC"),
    Row("j4fc-2p-cheat", "just4fun_colours", ("uct:iterations=2000", "greedy"), 1000, 31, "UCT that sees every hand"),
    Row("j4fc-2p-full-expert", "just4fun_colours", (J4_2K, "expert"), 400, 32, "the defaults"),
    Row("j4fc-2p-cheat-expert", "just4fun_colours", ("uct:iterations=2000", "expert"), 400, 32, "UCT that sees every hand"),
    Row("j4fc-4p-block", "just4fun_colours", (J4_2K, *G3), 400, 51, "rollouts that block", players=4),
    Row("j4fc-4p-noblock", "just4fun_colours", (J4_2K_4P, *G3), 400, 51, "strong-4p's rollouts", players=4),
    Row("j4fc-4p-noblock-no-line-terms", "just4fun_colours", (J4_2K_4P + ",policy.free_line=0,policy.broken_line=0", *G3), 400, 51,
        "... without the line terms", players=4),
    Row("j4fc-4p-noblock-rank", "just4fun_colours", (J4_2K_4P + ",shaping=rank,shaping_weight=0.5", *G3), 400, 51,
        "... with rank shaping", players=4),
    Row("j4fc-4p-noblock-mo", "just4fun_colours", ("mo_ismcts:iterations=2000,policy.block=0", *G3), 400, 51, "... MO-ISMCTS",
        players=4),
    Row("yucata-4p-none", "yucata", ("uct:iterations=5000", *G3), 400, 71, "no shaping", 4, RANDOM_LAYOUT),
    Row("yucata-4p-rank", "yucata", ("uct:iterations=5000,shaping=rank,shaping_weight=0.5", *G3), 400, 71, "rank shaping 0.5", 4,
        RANDOM_LAYOUT),
    # The adaptive opponent model, at the preset's 20,000 iterations: with and without it, against three
    # policy bots (a family the choice was made on) and three greedy players (the target row's deals).
    Row("yucata-4p-policy-adaptive", "yucata", (YU_4P, "policy", "policy", "policy"), 200, 640, "the adaptive opponent model", 4,
        RANDOM_LAYOUT),
    Row("yucata-4p-policy-fixed", "yucata", (YU_4P + ",opponent_model=fixed", "policy", "policy", "policy"), 200, 640,
        "the fixed one (version 1)", 4, RANDOM_LAYOUT),
    Row("yucata-4p-greedy-fixed", "yucata", (YU_4P + ",opponent_model=fixed", *G3), 400, 206, "the fixed one (version 1)", 4,
        RANDOM_LAYOUT),
]
# The issue allows 1 s a decision in place of 20,000 iterations: the presets at the iterations
# that 1 s of one core gives here in the positions of real games (bench/match_rates.py), on the
# deals of the 20,000-iteration rows where there is one. (docs/strength.md also has the Canasta
# rows as measured before the preset took epsilon=0.3, the same commands with epsilon=0.1, and
# at 50,000 iterations, what 1 s gave before Canasta's rule loops ran 1.5 times faster.)
TIMED = [
    Row("j4fc-2p-greedy-1s", "just4fun_colours", (J4 + ",iterations=160000", "greedy"), 400, 201, ">= 90 %"),
    Row("j4fc-2p-expert-1s", "just4fun_colours", (J4 + ",iterations=160000", "expert"), 400, 202, ">= 80 %"),
    Row("j4fc-4p-expert-1s", "just4fun_colours", (J4 + ",iterations=60000", "expert", "expert", "expert"), 200, 204, ">= 40 %",
        players=4),
    Row("yucata-4p-expert-1s", "yucata", (YU_4P + ",iterations=400000", "expert", "expert", "expert"), 200, 207, ">= 45 %", 4,
        RANDOM_LAYOUT),
    Row("canasta-expert-1s", "canasta_tiles", (CA + ",iterations=95000", "expert"), 100, 214, ">= 65 %", players=4),
    Row("canasta-expert-1s-more", "canasta_tiles", (CA + ",iterations=95000", "expert"), 100, 215, ">= 65 %", players=4),
]
TABLES = {"targets": ROWS, "timed": TIMED, "ablations": ABLATIONS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=sorted(TABLES), default="targets",
                        help="the issue's targets, the same at about 1 s a decision (timed), or one technique off at a time")
    parser.add_argument("--rows", default="", help="only the rows whose name contains this text (a regular expression)")
    parser.add_argument("--games", type=int, help="games per row instead of each row's own number")
    parser.add_argument("--processes", type=int, default=None, help="worker processes per match (default: one per CPU)")
    args = parser.parse_args()
    rows = [row for row in TABLES[args.table] if re.search(args.rows, row.name)]
    print(f"| row | game | first bot against | games | seed | win % of the first bot | 95 % interval | {'what differs' if args.table == 'ablations' else 'target'} |")
    print("|---|---|---|---:|---:|---:|---|---|")
    commands = []
    for row in rows:
        games = args.games or row.games
        started = time.monotonic()
        game = kibitz.Game(row.game, players=row.players, **row.options)
        result = run_match(game, list(row.bots), games, row.seed, processes=args.processes)
        first = result.bots[0]
        rate = first.win_rate
        seats = ""
        if row.by_seat:
            seats = " (by seat: " + ", ".join(f"{100 * r.mean:.0f}" for r in first.seat_win_rates if r is not None) + ")"
        against = " ".join(row.bots[1:])
        print(
            f"| {row.name} | {row.game} {row.players}p{''.join(f' {k}={v}' for k, v in row.options.items())} | "
            f"`{row.bots[0]}` vs `{against}` | {games} | {row.seed} | {100 * rate.mean:.1f}{seats} | "
            f"{100 * rate.low:.1f}–{100 * rate.high:.1f} | {row.target} |",
            flush=True,
        )
        commands.append(f"{row.command(games)}   # {row.name}, {time.monotonic() - started:.0f} s")
    print()
    for command in commands:
        print(f"    {command}")


if __name__ == "__main__":
    main()
