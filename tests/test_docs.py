"""The documentation users read: each game's page states the game's rules itself (users do
not have the developers' specification) and covers every option, and every position written
in the docs is a valid notation of the current engine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kibitz

DOCS = Path(__file__).resolve().parents[1] / "docs"
GAMES = {info.name: info for info in kibitz.games()}


def page(name: str) -> str:
    return (DOCS / "games" / f"{name}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_page_states_its_rules_and_every_option(name):
    text = page(name)
    assert "shared/rules" not in text
    rules = text[text.index("## 1. The rules") : text.index("## 2. Rulings")]
    assert len(re.findall(r"^### 1\.\d+ ", rules, re.M)) >= 6  # components, setup, turn, moves, end, ...
    options = text[text.index("## 3. Options") :]
    for option, _ in GAMES[name].options:
        assert f"| `{option}` |" in options, f"option {option} of {name} is not in its options table"


def notations(text: str):
    """(kind, notation) for every full state or seat view written in a page: a code block
    that is one notation (wrapped lines joined), or a transcript's `position view` line."""
    blocks, block = [], None
    for line in text.splitlines():
        if line.lstrip().startswith("```"):  # a fence opens or closes a block
            if block is not None:
                blocks.append(block)
            block = [] if block is None else None
        elif block is not None:
            block.append(line)
    for block in blocks:
        words = " ".join(block).split()
        if words and words[0] in GAMES:
            yield " ".join(words)
    for line in re.findall(r"^> position view (.*)$", text, re.M):
        yield line.strip()


@pytest.mark.parametrize("path", sorted(p.name for p in (DOCS / "games").glob("*.md")) + ["../protocol.md"])
def test_every_position_in_the_docs_reads_back(path):
    text = (DOCS / "games" / path).read_text(encoding="utf-8")
    found = 0
    for notation in notations(text):
        game = kibitz.Game.of_notation(notation)
        first_field = notation.split()[1]
        if first_field.startswith("seat="):  # a seat view
            assert game.state_from_view(notation).view(int(first_field[5:])).notation() == notation
        else:
            assert game.state_from_notation(notation).notation() == notation
        found += 1
    assert found >= 1


def test_architecture_describes_the_registered_games_and_every_module_of_the_package():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    layout = text[text.index("## 1. Layout") : text.index("## 2. ")]
    package = Path(kibitz.__file__).parent
    modules = [p.name for p in package.glob("*.py") if p.name != "__init__.py"] + [p.parent.name + "/" for p in package.glob("*/__init__.py")]
    for module in sorted(modules):
        assert f"`{module}`" in layout, f"python/kibitz/{module} is missing from docs/architecture.md's layout"
    interface = text[text.index("## 3. ") : text.index("## 4. ")]
    for name in GAMES:  # each registered game's paragraph links its page
        assert f"(games/{name}.md)" in interface, name


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_page_lays_out_its_observation_tensor(name):
    """The tensor table's rows are contiguous and cover exactly the tensor's size."""
    text = page(name)
    table = text[text.index("Observation tensor, action mask and length bound") :]
    rows = re.findall(r"^\| (\d+)(?:–(\d+))? \| (\d+) \|", table, re.M)
    assert rows, f"{name}: no tensor table"
    offset = 0
    for first, last, size in rows:
        assert int(first) == offset and int(last or first) == offset + int(size) - 1, f"{name}: row {first}"
        offset += int(size)
    assert offset == kibitz.Game(name).metadata.observation_size
    assert "**Length bound**" in table
