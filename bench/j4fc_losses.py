"""When did a two-player Just 4 Fun Colours loss become certain? (docs/research-log/strength.md, "Where the
losses come from".)

Reads the records of a two-player match, e.g.

    kibitz match just4fun_colours --bots ismcts:iterations=2000 greedy --games 300 --seed 901 --out games.jsonl
    python bench/j4fc_losses.py games.jsonl --bot ismcts:iterations=2000

For each game the bot lost to a line completed on the opponent's next move, it looks at the
bot's last decision with the opponent's true hand: was there a move after which the opponent
had no completing move (an avoidable loss), or did every move leave one (decided earlier)? For
the avoidable ones it prints, from the bot's own view (--deals uniform determinizations), the
share of deals in which the opponent completes a line after the move played and after the
best of the safe moves: what the bot could have known. It also splits the bot's win share by
whether it moved first (docs/research-log/strength.md, "Screens against the choice families").
"""

from __future__ import annotations

import argparse
import random
import sys

import kibitz
from kibitz.match import positions
from kibitz.records import read_records
from kibitz.stats import wilson_ci


def sample_chance(state: kibitz.State, rng: random.Random) -> None:
    while not state.is_terminal() and state.is_chance():
        state.apply(state.sample_chance(rng.getrandbits(63)))


def after(state: kibitz.State, action: int, rng: random.Random) -> kibitz.State:
    result = state.clone()
    result.apply(action)
    sample_chance(result, rng)
    return result


def completes_now(state: kibitz.State, seat: int) -> bool:
    """Whether the seat to move (``seat``) has a move that wins at once."""
    for action in state.legal_actions():
        result = state.clone()
        result.apply(action)
        if result.is_terminal() and result.returns()[seat] == 1.0:
            return True
    return False


def completing_share(view: kibitz.State, me: int, action: int, deals: int, rng: random.Random) -> float:
    """The share of uniform deals from ``me``'s view in which the opponent completes a line
    right after ``action``."""
    hits = 0
    for _ in range(deals):
        result = after(view.determinize(me, rng.getrandbits(63)), action, rng)
        hits += (not result.is_terminal()) and completes_now(result, 1 - me)
    return hits / deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records")
    parser.add_argument("--bot", required=True, help="the label of the seat to study, as in the records")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    games = losses = decided = 0
    avoidable: list[tuple[float, float]] = []
    shares: dict[bool, list[float]] = {True: [], False: []}  # by whether the bot moved first
    with open(args.records) as lines:
        for record in read_records(lines):
            if args.bot not in record.specs:
                continue
            games += 1
            me = record.specs.index(args.bot)
            opponent = 1 - me
            first_mover = next(state.current_player for state, _ in positions(record) if not state.is_chance())
            shares[first_mover == me].append(record.returns[me])
            if record.returns[me] >= 0.5:
                continue
            losses += 1
            last = None
            for state, action in positions(record):
                if not state.is_chance() and state.current_player == me:
                    last = (state, action)
            if last is None:
                continue
            position, played = last
            reply = after(position, played, rng)
            if reply.is_terminal() or not completes_now(reply, opponent):
                continue  # not lost on the opponent's next move
            safe = []
            for action in position.legal_actions():
                result = after(position, action, rng)
                if not result.is_terminal() and not completes_now(result, opponent):
                    safe.append(action)
            if not safe:
                decided += 1
                continue
            view = position.view(me).state()
            avoidable.append(
                (
                    completing_share(view, me, played, args.deals, rng),
                    min(completing_share(view, me, action, args.deals, rng) for action in safe),
                )
            )
    if games == 0:
        sys.exit(f"no record in {args.records} has a seat labelled {args.bot!r}")
    lost_next = decided + len(avoidable)
    print(f"{games} games of {args.bot!r}: {losses} lost, {lost_next} to a line on the opponent's next move")
    for first, label in ((True, "moving first"), (False, "moving second")):
        if shares[first]:
            share = wilson_ci(shares[first])
            interval = "" if share.low is None else f" ({share.low:.1%}..{share.high:.1%})"
            print(f"  {label}: won {share.mean:.1%}{interval} of {len(shares[first])}")
    print(f"  decided before the last decision (every move left the opponent a completing move): {decided}")
    print(f"  avoidable at the last decision (a move left none): {len(avoidable)}")
    for played_share, safe_share in avoidable:
        print(
            f"    from the bot's view: the opponent completes after the move played in {played_share:.0%} of deals, "
            f"after the best safe move in {safe_share:.0%}"
        )


if __name__ == "__main__":
    main()
