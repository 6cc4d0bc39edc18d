"""Malformed notation never crashes or hangs the engine: every mutated full-state or seat-view
text either reads (and the state is then usable) or raises a ValueError (NotationError). The
texts include tile Canasta notations of version 1, as the build of 2026-11-29 wrote them
(tests/data/formats), and the `version=` field is mutated like any other.

A larger run: raise ``max_examples`` (300,000 mutations ran clean on 2026-11-29)."""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kibitz
from state_helpers import random_joint

GAMES = {g.name: g for g in kibitz.games()}
ALPHABET = "0123456789.,;/?-=abcdefROYGBPx "
FIELDS = [" version=", " version=2", " version=99", " tiebreak=1", " jokers_left=0.0.0.0", " played=7"]  # inserted whole


def sample_texts() -> list[tuple[kibitz.Game, str, bool]]:
    """Full notations and seat views of positions along seeded random games."""
    out = []
    for name, info in GAMES.items():
        for players in range(info.min_players, info.max_players + 1):
            game = kibitz.Game(name, players=players)
            for seed in range(3):
                s = game.new_initial_state(seed)
                rng = random.Random(seed)
                step = 0
                while not s.is_terminal():
                    if s.is_chance():
                        s.apply(s.sample_chance(rng.getrandbits(63)))
                    elif s.is_simultaneous():
                        s.apply_joint(random_joint(rng, s))
                    else:
                        s.apply(rng.choice(s.legal_actions()))
                    step += 1
                    if step % 17 == 0:
                        out.append((game, s.notation(), False))
                        out.append((game, s.view(rng.randrange(players)).notation(), True))
    return out


def old_texts() -> list[tuple[kibitz.Game, str, bool]]:
    """Every tenth tile Canasta position of notation version 1 (full and views)."""
    lines = (Path(__file__).parent / "data" / "formats" / "canasta_tiles.txt").read_text().splitlines()[::10]
    return [(kibitz.Game.of_notation(text), text, kind == "view") for kind, text, _ in (line.split("\t") for line in lines)]


TEXTS = sample_texts() + old_texts()

edits = st.lists(
    st.tuples(st.sampled_from(["replace", "delete", "insert", "duplicate"]), st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from([*ALPHABET, *FIELDS])),
    min_size=1,
    max_size=4,
)


def mutate(text: str, ops) -> str:
    chars = list(text)
    for op, i, j, ch in ops:
        k = i % len(chars)
        if len(ch) > 1:  # a whole field, inserted where a word ends
            at = next((i for i in range(k, len(chars)) if chars[i] == " "), len(chars))
            chars[at:at] = list(ch)
        elif op == "replace":
            chars[k] = ch
        elif op == "delete" and len(chars) > 1:
            del chars[k]
        elif op == "insert":
            chars.insert(k, ch)
        else:
            start = j % len(chars)
            chars[k:k] = chars[start : start + 1 + j % 30]
    return "".join(chars)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(TEXTS) - 1), edits)
def test_mutated_notation_reads_or_raises_a_value_error(index, ops):
    game, text, is_view = TEXTS[index]
    mutated = mutate(text, ops)
    try:
        state = game.state_from_view(mutated) if is_view else game.state_from_notation(mutated)
    except ValueError:
        return
    for seat in range(state.num_players):
        view = state.view(seat)
        assert view.state().view(seat).notation() == view.notation()
        state.determinize(seat, 1)
    if state.is_simultaneous():
        assert all(state.legal_actions_for(seat) for seat in state.choosing_seats())
    elif not state.is_terminal():
        assert state.legal_actions()


@pytest.mark.parametrize("game,text,is_view", TEXTS[:6])
def test_unmutated_samples_read_back(game, text, is_view):
    state = game.state_from_view(text) if is_view else game.state_from_notation(text)
    assert (state.view(int(text.split("seat=")[1].split()[0])).notation() if is_view else state.notation()) == text
