"""The expert player of tile Canasta (placeholder while it is written)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from kibitz.game import Move, View


@dataclass(frozen=True)
class Weights:
    pass


class Player:
    def __init__(self, weights: Weights, rng: random.Random) -> None:
        self.rng = rng

    def act(self, view: View) -> Move:
        return self.rng.choice(view.state().legal_actions())
