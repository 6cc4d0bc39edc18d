"""Prints the tile Canasta transcript of docs/protocol.md §14 (run it after a change that
alters what the engine answers): an in-process engine plays seat 3 of
``Game("canasta_tiles").new_initial_state(1)``, the other seats play the greedy bot, and the
engine is told every action (its own answers too) with ``observe``, until seat 3 has made four
decisions with a choice; then ``d`` shows its board.

    python docs/tools/canasta_transcript.py
"""

from __future__ import annotations

import random

import kibitz
from transcript import Transcript

SEAT = 3


def main() -> None:
    transcript = Transcript()
    send = transcript.send

    game = kibitz.Game("canasta_tiles")
    state = game.new_initial_state(1)
    rng = random.Random(1)
    greedy = kibitz.make_bot("greedy", seed=1)
    while state.is_chance():  # the deal
        state.apply(state.sample_chance(rng.getrandbits(63)))
    send(f"newgame canasta_tiles players 4 seat {SEAT}")
    send(f"position view {state.view(SEAT).notation()}")
    send("setoption name Seed value 5")
    searched = 0
    while not state.is_terminal() and searched < 4:
        seat = state.current_player
        if seat == SEAT:
            send("legal")
            send("go iterations 3000")
            action = state.parse_move(transcript.last.split()[1])
            searched += len(state.legal_actions()) > 1
        else:
            action = state.sample_chance(rng.getrandbits(63)) if seat == kibitz.CHANCE else state.parse_move(greedy.act(state.view(seat)))
        send(f"observe {state.observation_text(SEAT, action)}")
        state.apply(action)
    send("d")
    send("quit")
    print(transcript)


if __name__ == "__main__":
    main()
