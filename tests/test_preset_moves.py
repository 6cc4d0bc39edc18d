"""Every shipped preset plays as it did: the same moves and root statistics on fixed positions.

For each preset in bots/ (bots/<game>/*.json and the named presets of bots/default.json), and
for the kept search settings no preset uses (the other algorithms, random rollouts, the other
simultaneous selections ...), a search bot built from its spec searches positions taken from
seeded games of every game and player count, with a fixed seed and an iteration budget (not a
time). The chosen move, the root statistics, the root value and the node count are compared
with tests/preset_moves.json, recorded before the search lost the features issue 41 removed.
A change of search behaviour shows here; a pure speed-up does not. Bots with the adaptive
opponent model are first shown the other seats' decisions of the game, as a match shows them.

After a change that is meant to change the search, record it again with
``python tests/test_preset_moves.py --write`` and say why in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import kibitz
from kibitz.match import showing_moves

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).with_name("preset_moves.json")
ITERATIONS = 1000  # every case's budget, in place of the preset's own
POSITIONS = (0.1, 0.45, 0.8)  # where in a seeded game the positions are, as a share of its decisions
GAMES = ("just4fun_colours", "yucata", "canasta_tiles", "yak")

# Settings that no preset uses but the search keeps, each searched at the first position of every
# player count of the games named (spec options over the game's `strong` preset's algorithm).
KEPT = {
    "just4fun_colours": (
        "mo_ismcts:seed=1",
        "pimc:determinizations=4",
        "uct:seed=1",
        "ismcts:rollout=random",
        "ismcts:final=mean",
        "ismcts:opponent_policy=0.5",
        "ismcts:solver=0",
        "ismcts:threads=2",
        "ismcts:c=1.2,epsilon=0",
        "ismcts:policy.block=0",
    ),
    "yucata": ("uct:shaping=rank,shaping_weight=0.25,opponent_policy=0.3", "ismcts:solve_stones=0", "pimc:determinizations=3"),
    "canasta_tiles": ("mo_ismcts:epsilon=0.3", "pimc:determinizations=3"),
    "yak": ("ismcts:simultaneous=rm", "ismcts:simultaneous=exp3,sm_gamma=0.2", "ismcts:reopen_choices=0", "mo_ismcts:seed=1"),
}


def presets() -> list[str]:
    """Every shipped preset as a bot spec: ``ismcts:preset=yak/strong``, ``strong``."""
    specs = []
    for path in sorted((ROOT / "bots").glob("*/*.json")):
        if path.name == "levels.json":  # the difficulty levels: a ladder, not a parameter set (its settings are kept params)
            continue
        data = json.loads(path.read_text())
        specs.append(f"{data['bot']}:preset={path.parent.name}/{path.stem}")
    specs += sorted(json.loads((ROOT / "bots" / "default.json").read_text()))
    return specs


def game_of(spec: str) -> str | None:
    """The game a preset spec is for; None for the game-independent presets of default.json."""
    return spec.split("preset=", 1)[1].split("/")[0] if "preset=" in spec else None


def positions(name: str, players: int) -> list[tuple[kibitz.State, list[tuple[kibitz.State, int | dict[int, int]]]]]:
    """Decision positions of one seeded game of uniformly random moves (decisions with a choice),
    each with the moves before it (state before, move)."""
    seed = 7 * players + len(name)
    rng = random.Random(seed)
    state = kibitz.Game(name, players=players).new_initial_state(seed)
    history: list[tuple[kibitz.State, int | dict[int, int]]] = []
    decisions: list[int] = []
    while not state.is_terminal():
        if state.is_chance():
            move: int | dict[int, int] = state.sample_chance(rng.getrandbits(63))
        elif state.is_simultaneous():
            move = {seat: rng.choice(state.legal_actions_for(seat)) for seat in state.choosing_seats()}
        else:
            move = rng.choice(state.legal_actions())
        seat = state.choosing_seats()[0] if state.is_simultaneous() else state.current_player
        if not state.is_chance() and len(state.legal_actions_for(seat)) > 1:  # a forced move is not searched
            decisions.append(len(history))
        history.append((state.clone(), move))
        if isinstance(move, dict):
            state.apply_joint(move)
        else:
            state.apply(move)
    picked = [decisions[int(share * len(decisions))] for share in POSITIONS]
    return [(history[i][0], history[:i]) for i in picked]


def searched(spec: str, position: kibitz.State, before: list[tuple[kibitz.State, int | dict[int, int]]], seed: int) -> dict[str, Any]:
    """What the bot of ``spec`` (the budget ITERATIONS, the seed ``seed``) does at ``position``."""
    bot = kibitz.make_bot(f"{spec}{',' if ':' in spec else ':'}iterations={ITERATIONS}", seed=seed)
    assert isinstance(bot, kibitz.SearchBot)
    seat = position.choosing_seats()[0] if position.is_simultaneous() else position.current_player
    if bot.params.opponent_model == "adaptive":
        show = showing_moves([bot if s == seat else None for s in range(position.num_players)])
        for state, move in before:
            show(state, move)
    bot.act(position if bot.sees_everything else position.view(seat))
    result = bot.last_result
    assert result is not None
    return {
        "move": result.move,
        "stats": [[s.move, s.visits, round(s.mean_reward, 9), s.proof, round(s.probability, 9)] for s in result.stats],
        "root_value": round(result.root_value, 9),
        "iterations": result.iterations,
        "nodes": result.nodes,
    }


def cases() -> list[tuple[str, str, int, int]]:
    """(spec, game, players, position index) of every recorded search: a game's presets at every
    position, the game-independent presets and the kept settings at the first."""
    out = []
    for name in GAMES:
        info = next(g for g in kibitz.games() if g.name == name)
        for players in range(info.min_players, info.max_players + 1):
            for spec in presets():
                if game_of(spec) == name:
                    out += [(spec, name, players, i) for i in range(len(POSITIONS))]
                elif game_of(spec) is None:
                    out.append((spec, name, players, 0))
            out += [(spec, name, players, 0) for spec in KEPT[name]]
    return out


def record() -> dict[str, Any]:
    found: dict[str, Any] = {}
    cache: dict[tuple[str, int], list] = {}
    for spec, name, players, index in cases():
        if (name, players) not in cache:
            cache[name, players] = positions(name, players)
        position, before = cache[name, players][index]
        found[f"{spec} {name} {players}p #{index}"] = searched(spec, position, before, seed=1000 * players + index)
    return found


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def test_the_fixture_covers_every_shipped_preset_and_every_game_and_player_count(expected):
    keys = set(expected)
    for spec in presets():
        assert any(key.startswith(spec + " ") for key in keys), spec
    for name in GAMES:
        info = next(g for g in kibitz.games() if g.name == name)
        for players in range(info.min_players, info.max_players + 1):
            assert any(f" {name} {players}p #" in key for key in keys), (name, players)
    assert keys == {f"{spec} {name} {players}p #{index}" for spec, name, players, index in cases()}


@pytest.mark.parametrize("game", GAMES)
def test_every_preset_plays_the_recorded_moves_and_statistics(game, expected):
    cache: dict[int, list] = {}
    differences = []
    for spec, name, players, index in cases():
        if name != game:
            continue
        if players not in cache:
            cache[players] = positions(name, players)
        position, before = cache[players][index]
        key = f"{spec} {name} {players}p #{index}"
        got = searched(spec, position, before, seed=1000 * players + index)
        if got != expected[key]:
            differences.append(f"{key}: recorded {expected[key]}, now {got}")
    assert not differences, "\n".join(differences[:5]) + f"\n({len(differences)} cases differ)"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_preset_moves.py --write")
    found = record()
    FIXTURE.write_text("{\n" + ",\n".join(f" {json.dumps(key)}: {json.dumps(found[key])}" for key in sorted(found)) + "\n}\n")  # a case a line
    print(f"wrote {FIXTURE}")
