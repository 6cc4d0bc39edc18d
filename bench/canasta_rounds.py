"""Where a Canasta team loses: its win share by round length, and how the hands the search
imagines for the other seats differ from the true ones (docs/research-log/strength.md, "Where the losses
come from").

Reads the records of a one-round match, e.g.

    kibitz match canasta_tiles --players 4 --bots "ismcts:iterations=2000,epsilon=0.3" expert \\
        --games 200 --seed 702 --processes 2 --out rounds.jsonl
    python bench/canasta_rounds.py rounds.jsonl --bot "ismcts:iterations=2000,epsilon=0.3"

and prints three tables:

- the bot's win share (95 % Wilson interval) by the round's number of turns (draws and
  pickups), with the median length of its won and lost rounds;
- at the start of half the bot's turns (drawn from --seed), per other seat (opponents, partner),
  the mean of four hand features in the true state and in uniform determinizations from the
  bot's view (--deals of them): the share of tiles of a rank the seat's team has melded (once
  opened), natural pairs of an unmelded rank, natural triples or more of an unmelded rank,
  and the hand size. A difference says what a uniform deal gets wrong about the hands real
  players keep;
- how the bot's seats and the others play, from every decision: the mean hand at the start of
  a turn, how often an opened seat that could lay discards at once instead (at the start of its
  meld phase), and after a discard how often the next seat could take the pile, did, and how
  many pile tiles a discard gave away on average.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter

import kibitz
from kibitz.match import positions
from kibitz.records import read_records
from kibitz.stats import wilson_ci

NATURALS = {"1", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"}
LENGTHS = [(0, 20), (20, 30), (30, 40), (40, 60), (60, 100)]
FEATURES = ["melded-rank share", "pairs", "triples", "size"]


def hand_features(f: dict[str, str], seat: int) -> list[float]:
    text = f["hands"].split(",")[seat]
    hand = Counter([] if text == "-" else text.split("."))
    team = seat % 2
    melds = f["melds"].split("/")[team]
    ranks = set() if melds in ("-", "") else {m.split("x")[0] for m in melds.split(",")}
    opened = f["opened"].split(",")[team] == "1"
    size = sum(hand.values())
    melded = sum(n for kind, n in hand.items() if kind in NATURALS and kind in ranks) if opened else 0
    pairs = sum(1 for kind, n in hand.items() if kind in NATURALS and kind not in ranks and n == 2)
    triples = sum(1 for kind, n in hand.items() if kind in NATURALS and kind not in ranks and n >= 3)
    return [melded / max(1, size), pairs, triples, size]


def count_play(
    play: dict[str, Counter],
    f: dict[str, str],
    state: kibitz.State,
    seat: int,
    move: str,
    group: str,
    discarded: tuple[str, int] | None,
) -> tuple[str, int] | None:
    """Adds one decision of `seat` (of `group`; `f` the position's fields, `move` the move's
    text) to the play table. `discarded` is the discard this decision's turn follows (its
    group, and the pile it topped in tiles); returns the one the next decision follows."""
    c = play[group]
    if f["phase"] == "draw":
        c["turns"] += 1
        hand = f["hands"].split(",")[seat]
        c["hand"] += 0 if hand == "-" else len(hand.split("."))
        if discarded is not None:
            feeder = play[discarded[0]]
            feeder["could_take"] += "take" in (state.move_to_string(a) for a in state.legal_actions())
            if move == "take":
                feeder["taken"] += 1
                feeder["given"] += discarded[1]
    opened_stage_start = f["phase"] == "meld" and f["cursor"] == "-" and f["opened"].split(",")[seat % 2] == "1"
    if opened_stage_start and any(state.move_to_string(a).startswith("rank:") for a in state.legal_actions()):
        c["could_lay"] += 1
        c["discard_at_once"] += move.startswith("discard:")
    if move.startswith("discard:"):
        c["discards"] += 1
        return group, (0 if f["pile"] in ("-", "") else len(f["pile"].split("."))) + (f["top"] != "-") + 1
    return discarded if f["phase"] == "copies" else None  # the discarder's copies decision


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records")
    parser.add_argument("--bot", required=True, help="the label of the team to study, as in the records")
    parser.add_argument("--deals", type=int, default=8, help="uniform determinizations per sampled decision")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()

    with open(args.records) as lines:
        records = [r for r in read_records(lines) if args.bot in r.specs]
    if not records:
        sys.exit(f"no record in {args.records} has a seat labelled {args.bot!r}")
    if any(r.game != "canasta_tiles" for r in records):
        sys.exit(f"{args.records}: this script reads canasta_tiles rounds only")
    rng = random.Random(args.seed)
    rounds: list[tuple[int, float]] = []
    sums = {role: [[0.0] * len(FEATURES), [0.0] * len(FEATURES)] for role in ("opponent", "partner")}
    counts = {"opponent": 0, "partner": 0}
    play = {group: Counter() for group in ("bot", "others")}
    for record in records:
        me = record.specs.index(args.bot)
        rounds.append((sum(1 for m in record.moves if m in ("draw", "take")), record.returns[me]))
        discarded: tuple[str, int] | None = None  # the group of the last discard, and the pile it topped
        for state, action in positions(record):
            seat = state.current_player
            f = None if state.is_chance() else state.fields()
            if f is not None:
                group = "bot" if record.specs[seat] == args.bot else "others"
                discarded = count_play(play, f, state, seat, state.move_to_string(action), group, discarded)
            true = f if f is not None and record.specs[seat] == args.bot else None
            if true is not None and true["phase"] == "draw" and rng.random() < 0.5:
                deals = [state.determinize(seat, rng.getrandbits(63)).fields() for _ in range(args.deals)]
                for other, role in ((seat + 1) % 4, "opponent"), ((seat + 3) % 4, "opponent"), ((seat + 2) % 4, "partner"):
                    counts[role] += 1
                    for i, value in enumerate(hand_features(true, other)):
                        sums[role][0][i] += value
                    for deal in deals:
                        for i, value in enumerate(hand_features(deal, other)):
                            sums[role][1][i] += value / args.deals

    print(f"{len(rounds)} rounds of {args.bot!r}")
    print(f"{'turns':>8} {'rounds':>7} {'win %':>7}  95 % interval")
    for low, high in LENGTHS:
        shares = [share for turns, share in rounds if low <= turns < high]
        if shares:
            e = wilson_ci(shares)
            interval = f"{100 * e.low:.1f}-{100 * e.high:.1f}" if e.low is not None else ""
            print(f"{low:>3}-{high - 1:<4} {len(shares):>7} {100 * e.mean:>7.1f}  {interval}")
    for label, won in ("won", True), ("lost", False):
        lengths = [turns for turns, share in rounds if (share >= 0.5) == won]
        if lengths:
            print(f"median length of the rounds {label}: {statistics.median(lengths)} turns ({len(lengths)} rounds)")
    print(f"\n{'seat':10} {'hands':>6}  " + "  ".join(f"{name:>17}" for name in FEATURES))
    for role in sums:
        n = counts[role]
        if n:
            for label, row in ("true", sums[role][0]), ("uniform", sums[role][1]):
                print(f"{role:10} {n:>6}  " + "  ".join(f"{label + ' ' + format(v / n, '.3f'):>17}" for v in row))
    print(
        f"\n{'seats':7} {'hand at turn start':>18} {'discards while a lay is legal':>30} {'next seat could take':>21} {'took':>6} {'pile tiles given':>17}"
    )
    for group, c in play.items():
        if c["turns"] and c["discards"]:
            at_once = f"{c['discard_at_once']}/{c['could_lay']} = {c['discard_at_once'] / max(1, c['could_lay']):.3f}"
            print(
                f"{group:7} {c['hand'] / c['turns']:>18.2f} {at_once:>30} {c['could_take'] / c['discards']:>21.3f}"
                f" {c['taken'] / c['discards']:>6.3f} {c['given'] / c['discards']:>17.2f}"
            )


if __name__ == "__main__":
    main()
