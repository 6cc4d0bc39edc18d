"""Prints the Yak transcript of docs/protocol.md §15 (run it after a change that alters what the
engine answers): an in-process engine plays seat 1 of ``Game("yak", players=3).new_initial_state(3)``,
the other seats play the greedy bot, and the engine is told every action (its own answers and
the joint moves too) with ``observe``, through the first Sunrise and seat 1's first Noon turn; at
the second Sunrise it is asked again, and ``d`` shows its board.

    python docs/tools/yak_transcript.py
"""

from __future__ import annotations

import random

import kibitz
from transcript import Transcript

SEAT = 1


def main() -> None:
    transcript = Transcript()
    send = transcript.send

    state = kibitz.Game("yak", players=3).new_initial_state(3)
    rng = random.Random(1)
    greedy = kibitz.make_bot("greedy", seed=1)
    send("setoption name Seed value 5")
    send(f"newgame yak players 3 seat {SEAT}")
    send(f"position view {state.view(SEAT).notation()}")
    sunrises = 0
    while not state.is_terminal() and sunrises < 2:
        if state.is_simultaneous():
            sunrises += 1
            send("query turn")
            send("legal")
            send("go iterations 2000")
            if sunrises == 2:
                break
            # every choosing seat answers before any of them is told anything
            joint = {
                seat: state.parse_move(transcript.last[len("bestmove ") :])
                if seat == SEAT
                else state.parse_move(greedy.act(state.view(seat)))
                for seat in state.choosing_seats()
            }
            send(f"observe {state.joint_observation_text(SEAT, joint)}")
            state.apply_joint(joint)
            continue
        seat = state.current_player
        if seat == SEAT:
            send("go iterations 2000")
            action = state.parse_move(transcript.last[len("bestmove ") :])
        else:
            action = (
                state.sample_chance(rng.getrandbits(63))
                if seat == kibitz.CHANCE
                else state.parse_move(greedy.act(state.view(seat)))
            )
        send(f"observe {state.observation_text(SEAT, action)}")
        state.apply(action)
    send("d")
    send("quit")
    print(transcript)


if __name__ == "__main__":
    main()
