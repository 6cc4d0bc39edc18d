"""The Just 4 Fun Colours table view (python/kibitz/web/static/games/just4fun_colours.js) in a
real browser: it draws models of real positions as the server builds them (kibitz.web.table), and
each check is about what is special in this game: a move is a field paid with height + 1 cards of
its colour, a blocked turn is played from the hand, towers of stacked stones, the moves since the
seat's last turn, hidden hands as backs.

The browser checks need headless Chromium and Selenium: they fail when ``CI`` is set and either is
missing, and are skipped otherwise. The reading of the notation is also checked against the engine
under Node, without a browser.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

import kibitz
from kibitz.bots import make_bot
from kibitz.game import State
from kibitz.web.table import Entry, entry_of
from web_browser import LAPTOP, PHONE, STATIC, acts, model_of, need, query, run, show, view_page

GAMES = STATIC / "games"
GAME = "just4fun_colours"
FIELDS = [f"{column}{row}" for row in range(1, 7) for column in "abcdef"]  # a1 … f6
COLOURS = dict(zip(FIELDS, "YOPRGB" "RGYBOP" "OBRPYG" "PYGOBR" "GRBYPO" "BPOGRY"))  # the board (docs/games/just4fun_colours.md §1.1)


# -- positions of real games, as a seat's browser receives them --------------------------------


def game_positions(players: int, seed: int, bots: list[str], line: int = 4) -> Iterator[tuple[State, list[Entry]]]:
    """Every decision point of a seeded game between ``bots`` (and its end), with the entries so far."""
    state = kibitz.Game(GAME, players=players, line=line).new_initial_state(seed=seed)
    rng = random.Random(seed)
    players_ = [make_bot(spec, seed + k) for k, spec in enumerate(bots)]
    entries: list[Entry] = []
    while not state.is_terminal():
        if state.is_chance():
            action = state.sample_chance(rng.getrandbits(63))
        else:
            yield state.clone(), list(entries)
            move = players_[state.current_player].act(state.view(state.current_player))
            action = state.parse_move(move) if isinstance(move, str) else move
        entries.append(entry_of(state, action))
        state.apply(action)
    yield state, entries


@pytest.fixture(scope="module")
def positions() -> list[tuple[State, list[Entry]]]:
    """Decision points of seat 0 through whole games: 2 to 4 players, opening to the last round
    (random 4-player games reach tall towers and blocked turns)."""
    chosen = []
    for players, seed, bots in ((2, 3, ["greedy", "policy"]), (3, 4, ["random", "greedy", "random"]), (4, 11, ["random"] * 4)):
        own = [(s, e) for s, e in game_positions(players, seed, bots) if not s.is_terminal() and s.current_player == 0]
        chosen += [own[k] for k in sorted({0, len(own) // 3, len(own) // 2, len(own) - 1})]
    return chosen


def blocked_position() -> tuple[State, list[Entry]]:
    """A position of seat 0 where no field can be paid for, from seeded random 4-player games."""
    for seed in range(100):
        for state, entries in game_positions(4, seed, ["random"] * 4):
            if not state.is_terminal() and state.current_player == 0 and state.legal_moves_for(0) == ["blocked"]:
                return state, entries
    raise AssertionError("no blocked turn in 100 random 4-player games")


# -- the reading of the notation, under Node ------------------------------------------------------


def test_the_view_reads_positions_as_the_engine_does() -> None:
    """The board's colours, the towers (who put each stone, rebuilt from the history), the seat's
    hand, the stock's size, the supplies and the end's area scores as the view reads them from the
    model, against the engine's state, over whole random games of 2 to 4 players."""
    node = shutil.which("node")
    need("node", node is not None)
    cases = []
    truths = []
    for players, seed in ((2, 21), (3, 22), (4, 23), (4, 24)):
        for state, entries in game_positions(players, seed, ["random"] * players):
            seat = 0 if state.is_terminal() else state.current_player
            model = model_of(state, entries, seat)
            decisions = [e for e in entries if e.seat is not None]
            stacks: list[list[int]] = [[] for _ in range(36)]
            for e in decisions:
                if e.text != "blocked":
                    stacks[FIELDS.index(e.text)].append(e.seat)
            fields = kibitz.notation_fields(state.notation())
            truths.append({
                "stacks": stacks,
                "hand": fields["hands"].split(",")[seat],
                "areas": state.scores() if state.is_terminal() else None,
                "supply": [int(x) for x in fields["supply"].split(",")],
            })
            cases.append({"model": model})
    script = (
        f"import {{ readTable, MAP }} from {json.dumps((GAMES / GAME / 'table.js').as_uri())};\n"
        "let text = ''; process.stdin.on('data', (d) => (text += d)); process.stdin.on('end', () => {\n"
        "  const out = JSON.parse(text).map(({ model }) => { const t = readTable(model);\n"
        "    return { stacks: t.stacks, hand: t.hands[model.seat].cards, supply: t.supply, stock: t.stock,\n"
        "             areas: t.areas.map((a) => a.size), map: MAP }; });\n"
        "  process.stdout.write(JSON.stringify(out)); });\n"
    )
    done = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(cases), capture_output=True, text=True, timeout=60, check=True)
    read = json.loads(done.stdout)
    assert len(read) == len(cases) > 200
    render = kibitz.Game(GAME).new_initial_state(seed=0).render().splitlines()
    assert "".join(read[0]["map"]) == "".join(COLOURS.values()) == "".join("".join(line.split()[1:7]) for line in render[1:7])
    for case, truth, got in zip(cases, truths, read):
        assert got["stacks"] == truth["stacks"]
        assert got["hand"] == truth["hand"]
        assert got["supply"] == truth["supply"]
        assert got["stock"] == int(case["model"]["fields"]["stock"].lstrip("?"))
        if truth["areas"] is not None:
            assert got["areas"] == truth["areas"]


# -- in the browser --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    """A headless Chromium showing a page that draws models with the module (tests/web_browser.py)."""
    with view_page(GAME) as driver:
        yield driver


def words(page: Any, selector: str) -> list[str]:
    """The drawn words (not the hover titles) of each element that ``selector`` finds."""
    return list(run(
        page,
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.matches('text') ? e.textContent"
        " : [...e.querySelectorAll('text')].map((t) => t.textContent).join(' '))",
        selector,
    ))


# What a page shows of a position, in one round trip: stones per field (a1 … f6), the fields marked
# legal, the own hand's cards, the other hands (their cards if any were drawn face up, and the
# count written next to the backs) and the stock's count.
SUMMARY = """
const fields = [...document.querySelectorAll("[data-field]")];
const others = [...Array(arguments[0]).keys()].slice(1);
const hand = (s) => document.querySelector(`[data-testid=hand-${s}]`);
return {
  stones: fields.map((f) => f.querySelectorAll(".stone").length),
  legal: fields.filter((f) => f.hasAttribute("data-legal")).map((f) => f.dataset.move),
  hand: [...document.querySelectorAll("[data-testid=hand-0] [data-card]")].map((c) => c.dataset.card).join(""),
  backs: others.map((s) => [...hand(s).querySelectorAll("[data-card]")].map((c) => c.dataset.card).concat(
    [`?${hand(s).querySelectorAll(".card-back").length}`])),
  counts: others.map((s) => Number(hand(s).querySelector(".count").textContent)),
  stock: document.querySelector("[data-testid=stock] .count").textContent,
};
"""


def test_the_module_names_the_game(page: Any) -> None:
    assert run(page, "return window.title") == "Just 4 Fun Colours"


def test_positions_are_drawn_with_every_legal_field_clickable(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """At a phone's and a laptop's width: 36 fields with their towers, exactly the legal fields
    marked (each plays itself), the own hand face up, the other hands as backs with their counts."""
    for k, (state, entries) in enumerate(positions):
        model = model_of(state, entries, 0)
        fields = model["fields"]
        show(page, model, PHONE if k % 2 else LAPTOP)
        drawn = run(page, SUMMARY, state.num_players)
        heights = [int(cell[1]) if cell != ".." else 0 for row in fields["board"].split("/") for cell in (row[i:i + 2] for i in range(0, 12, 2))]
        assert drawn["stones"] == heights
        assert set(drawn["legal"]) == set(model["legal"]) and drawn["legal"]
        assert sorted(drawn["hand"]) == sorted(fields["hands"].split(",")[0])
        assert drawn["backs"] == [[f"?{n}"] for n in drawn["counts"]] == [[h] for h in fields["hands"].split(",")[1:]]
        assert drawn["stock"] == fields["stock"].lstrip("?")
        target = query(page, f"[data-move={model['legal'][-1]}]")[0]
        target.click()
        assert acts(page) == [model["legal"][-1]]


def test_a_card_shows_the_fields_of_its_colour_and_a_field_its_price(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """Pointing at a field lifts the height + 1 cards it pays; clicking a card narrows the legal
    fields to its colour (the other cards stop being legal), and a legal field then plays."""
    from selenium.webdriver.common.action_chains import ActionChains

    state, entries = positions[len(positions) // 2]
    model = model_of(state, entries, 0, hint=state.legal_moves_for(0)[0])
    show(page, model)
    assert [e.get_attribute("data-field") for e in query(page, ".field.hint")] == [model["hint"]]
    field = max(model["legal"], key=lambda f: len(query(page, f"[data-field={f}] .stone")))
    height = len(query(page, f"[data-field={field}] .stone"))
    ActionChains(page).move_to_element(query(page, f"[data-field={field}]")[0]).perform()
    lifted = [e.get_attribute("data-card") for e in query(page, ".hand-card.pay")]
    assert lifted == [COLOURS[field]] * (height + 1)
    assert words(page, "[data-testid=caption]")[0].startswith(f"{field}: {height + 1} ")
    query(page, f"[data-card={COLOURS[field]}]")[0].click()
    assert acts(page) == []
    legal = {e.get_attribute("data-move") for e in query(page, "[data-legal]")}
    assert legal == {f for f in model["legal"] if COLOURS[f] == COLOURS[field]}
    assert words(page, f"[data-field={field}] .cost") == [f"×{height + 1}"]
    query(page, f"[data-move={field}]")[0].click()
    assert acts(page) == [field]


def test_a_blocked_turn_is_played_from_the_hand(page: Any) -> None:
    """When no field can be paid for, `blocked` is the only move: every card of the hand and the
    button under it play it (the hint marks the button), on a phone and on a laptop."""
    state, entries = blocked_position()
    model = model_of(state, entries, 0, hint="blocked")
    for width in (PHONE, LAPTOP):
        show(page, model, width)
        assert {e.get_attribute("data-move") for e in query(page, "[data-legal]")} == {"blocked"}
        assert len(query(page, "[data-testid=hand-0] [data-card][data-legal]")) == 7
        assert "hint" in query(page, "[data-testid=blocked]")[0].get_attribute("class")
        assert "You are blocked" in words(page, ".status")[0]
        query(page, "[data-testid=hand-0] [data-card]")[3].click()
        assert acts(page) == ["blocked"]


def test_the_moves_since_the_last_turn_are_numbered_on_the_board(page: Any) -> None:
    """The opponents' moves since seat 0 last decided are marked `last` on their fields, numbered
    in order in their seats' colours; a blocked turn shows the hand it threw away."""
    for seed in range(100):
        found = None
        for state, entries in game_positions(4, seed, ["random"] * 4):
            decisions = [e for e in entries if e.seat is not None]
            if not state.is_terminal() and state.current_player == 0 and any(e.text == "blocked" for e in decisions[-3:]):
                found = state, entries, decisions[-3:]
                break
        if found:
            break
    assert found
    state, entries, recent = found
    show(page, model_of(state, entries, 0))
    chips = words(page, "[data-testid=recent] .recent-move")
    assert [c.split(maxsplit=1)[0] for c in chips] == ["1", "2", "3"]
    for number, (entry, chip) in enumerate(zip(recent, chips), 1):
        if entry.text == "blocked":
            assert chip == f"{number} blocked, threw {entry.seen[0].split(':')[1]}"
            continue
        assert chip == f"{number} {entry.text}"
        field = query(page, f"[data-field={entry.text}]")[0]
        assert "last" in field.get_attribute("class")
        badges = query(page, f"[data-field={entry.text}] .move-badge circle")
        assert f"seat-{entry.seat}" in [b.get_attribute("class") for b in badges]
    assert len(query(page, ".field.last")) == len({e.text for e in recent if e.text != "blocked"})


def test_a_field_not_legal_is_still_sent_so_the_engine_says_why(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """A field the hand cannot pay for, or any field while another seat moves, is sent anyway:
    the server answers with the engine's reason."""
    state, entries = positions[-1]
    model = model_of(state, entries, 0)
    show(page, model)
    illegal = next(f for f in FIELDS if f not in model["legal"])
    query(page, f"[data-field={illegal}]")[0].click()
    assert acts(page) == [illegal]
    waiting = model_of(state, entries, 1)  # seat 1 waits for seat 0: its click is sent too (the server refuses it)
    show(page, waiting)
    assert not query(page, "[data-legal]")
    query(page, "[data-field=a1]")[0].click()
    assert acts(page) == ["a1"]


def test_a_finished_game_is_drawn_open_and_replayed_without_clicks(page: Any) -> None:
    """The open view of a finished game (seat null): every hand face up, the result, the winning
    line or area outlined; in the replay nothing is clickable and a click sends nothing."""
    for players, seed, bots in ((2, 3, ["greedy", "policy"]), (4, 11, ["random"] * 4)):
        *_, (state, entries) = game_positions(players, seed, bots)
        model = model_of(state, entries, None, replay=True)
        show(page, model, PHONE)
        fields = model["fields"]
        for seat in range(players):
            assert words(page, f"[data-testid=seat-hand-{seat}]") == [str(len(fields["hands"].split(",")[seat]))]
            assert not query(page, f"[data-testid=hand-{seat}]")
        assert not query(page, "[data-legal]")
        message = words(page, ".status")[0]
        assert message.startswith("Game over")
        assert query(page, ".field.win .win-ring")
        query(page, "[data-field=c3]")[0].click()
        assert acts(page) == []


def test_the_table_fits_a_phone(page: Any, positions: list[tuple[State, list[Entry]]]) -> None:
    """At 360 px nothing spills sideways and no text is smaller than 12 px."""
    state, entries = positions[-1]
    show(page, model_of(state, entries, 0), PHONE)
    width = run(page, "return document.documentElement.clientWidth")
    assert run(page, "return document.documentElement.scrollWidth") <= width == PHONE
    smallest = run(
        page,
        "const svg = document.querySelector('svg'); const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;"
        "return Math.min(...[...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale))")
    assert smallest >= 12
