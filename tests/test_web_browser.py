"""The web table end to end in headless Chromium (tests/web_browser.py): the lobby, complete games
of the four games played by clicking highlighted (``data-legal``) elements only, two people at
one table through an invite link, hot-seat, undo, hint, resign, the record downloaded and replayed,
an illegal click answered with the engine's reason, a phone's width; and that neither the page
nor any WebSocket frame the browser received ever held what its seat may not see, and that the
page asked nothing of another host.

Needs Chromium, chromedriver and Selenium: skipped without them, failed when ``CI`` is set.
``KIBITZ_SCREENSHOTS=<folder>`` keeps a screenshot of each game's table there.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from kibitz.cli import main
from kibitz.match import replay
from kibitz.records import GameRecord, read_records
from kibitz.web.limits import Limits
from web_browser import PHONE, LiveServer, Network, browser_paths, emulate_width, new_driver, screenshot
from web_hidden import check_frames, leaks, secrets

LIMITS = Limits(move_pause_ms=0, hint_bot="ismcts:iterations=300", messages_per_second=200)
TIMEOUT = 90  # seconds for one game by clicking


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    browser_paths()  # skips (or fails in CI) before starting anything
    live = LiveServer(LIMITS)
    yield live
    live.stop()


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    chrome = new_driver(network=True, downloads=tmp_path)
    yield chrome
    chrome.quit()


def by(css: str) -> tuple[str, str]:
    from selenium.webdriver.common.by import By

    return (By.CSS_SELECTOR, css)


def wait(driver: Any, check: Callable[[], Any], what: str, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
        except Exception:  # noqa: BLE001  an element went stale while the page redrew
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}; page says: {text(driver, '[data-testid=messages]')!r}"
        time.sleep(0.05)


def text(driver: Any, css: str) -> str:
    found = driver.find_elements(*by(css))
    return str(found[0].text) if found else ""


def present(driver: Any, css: str) -> list[Any]:
    return list(driver.find_elements(*by(css)))


def open_table(
    driver: Any, server: LiveServer, game: str, seats: list[str], players: int | None = None, seed: int | None = None, name: str = "", **options: Any
) -> None:
    """Sets a table up in the lobby, as a person would, and waits for the table. ``seats``: per
    seat ``person``, ``invite`` or a bot spec (a spec not in the menu is typed in)."""
    from selenium.webdriver.support.ui import Select

    driver.get(server.url)
    wait(driver, lambda: present(driver, "[data-testid=seat-0]"), "the lobby")
    Select(driver.find_element(*by("[data-testid=game]"))).select_by_value(game)
    if players is not None:
        Select(driver.find_element(*by("[data-testid=players]"))).select_by_value(str(players))
    for summary in present(driver, "details > summary"):
        summary.click()  # open the options and the seed
    for option, value in options.items():
        driver.find_element(*by(f"[data-testid=option-{option}]")).send_keys(str(value))
    if seed is not None:
        driver.find_element(*by("[data-testid=seed]")).send_keys(str(seed))
    if name:
        driver.find_element(*by("[data-testid=seat-0-name]")).send_keys(name)
    for seat, choice in enumerate(seats):
        menu = Select(driver.find_element(*by(f"[data-testid=seat-{seat}]")))
        values = [o.get_attribute("value") for o in menu.options]
        if choice in values:
            menu.select_by_value(choice)
        else:
            menu.select_by_value("custom")
            driver.find_element(*by(f"[data-testid=seat-{seat}-spec]")).send_keys(choice)
    driver.find_element(*by("[data-testid=start]")).click()
    wait(driver, lambda: "table=" in driver.current_url and present(driver, "[data-testid=seat-card-0]"), "the table")


def over(driver: Any) -> bool:
    return bool(present(driver, "[data-testid=download]"))


def click(driver: Any, element: Any) -> None:
    """A person's click; through JavaScript only when something is drawn over the element."""
    from selenium.common.exceptions import ElementClickInterceptedException, ElementNotInteractableException

    try:
        element.click()
    except (ElementClickInterceptedException, ElementNotInteractableException):
        driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element)


def click_legal(driver: Any, rng: random.Random) -> bool:
    """Clicks one highlighted element of the view, chosen at random; False when there is none."""
    targets = [e for e in present(driver, "[data-testid=view] [data-legal]")]
    if not targets:
        return False
    target = rng.choice(targets)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", target)
    click(driver, target)
    return True


def play_by_clicking(driver: Any, rng: random.Random, snapshots: list[str], on_turn: Callable[[int], None] = lambda n: None) -> int:
    """Plays until the game is over by clicking ``data-legal`` elements only (and the hot-seat
    cover's button); keeps the page's HTML at each of the person's turns. Returns the clicks."""
    clicks = 0
    turns = 0
    deadline = time.monotonic() + TIMEOUT
    while not over(driver):
        assert time.monotonic() < deadline, f"the game did not end in {TIMEOUT} s; the page says {text(driver, '[data-testid=turn]')!r}"
        cover = present(driver, "[data-testid=cover-continue]")
        if cover:
            snapshots.append(driver.find_element(*by("#screen")).get_attribute("innerHTML"))
            click(driver, cover[0])
            continue
        before = text(driver, "[data-testid=turn]")
        if "turn" in before or "Choose" in before:
            turns += 1
            if turns % 5 == 1:
                snapshots.append(driver.find_element(*by("#screen")).get_attribute("innerHTML"))
            on_turn(turns)
        try:
            clicked = click_legal(driver, rng)
        except Exception:  # noqa: BLE001  the view redrew under the click: look again
            clicked = False
        if clicked:
            clicks += 1
            time.sleep(0.03)
        else:
            time.sleep(0.05)
    return clicks


def record_of(network: Network) -> GameRecord:
    """The finished game's record as the browser received it (what "Download record" saves)."""
    for frame in reversed(network.read().frames):
        if '"record":' in frame:
            return GameRecord.from_json(json.loads(frame)["record"])
    raise AssertionError("no frame held the record")


def check_seen(driver: Any, network: Network, server: LiveServer, record: GameRecord, held: set[int], snapshots: list[str]) -> None:
    """Nothing the held seats may not see reached this browser, and it asked no other host."""
    network.read()
    assert check_frames(network.frames, record, held) > 0
    hidden = set.intersection(*(secrets(record, seat) for seat in held))
    assert not leaks(snapshots, hidden), leaks(snapshots, hidden)
    origin = urlsplit(server.url)
    for url in network.requests:
        parts = urlsplit(url)
        assert parts.scheme in ("http", "ws", "data", "blob") and (parts.scheme in ("data", "blob") or parts.netloc == origin.netloc), url
    assert any(u.startswith("ws://") for u in network.requests)


GAMES = [
    ("yucata", ["person", "greedy"], {}),
    ("just4fun_colours", ["person", "greedy"], {}),
    ("canasta_tiles", ["person", "random", "greedy", "random"], {}),
    ("yak", ["greedy", "person"], {"players": 2}),
]


@pytest.mark.parametrize("game, seats, options", GAMES, ids=[g[0] for g in GAMES])
def test_a_person_plays_a_whole_game_by_clicking(driver: Any, server: LiveServer, game: str, seats: list[str], options: dict[str, Any]) -> None:
    network = Network(driver)
    open_table(driver, server, game, seats, seed=7, **options)
    seat = seats.index("person")
    snapshots: list[str] = []

    def on_turn(turn: int) -> None:
        if turn == 6:
            screenshot(driver, f"table-{game}")

    play_by_clicking(driver, random.Random(3), snapshots, on_turn)
    assert "Game over" in text(driver, "[data-testid=turn]")
    record = record_of(network)
    assert replay(record).returns() == record.returns and record.specs[seat].startswith("person:")
    check_seen(driver, network, server, record, {seat}, snapshots)


def test_two_people_at_one_table_through_an_invite_link(server: LiveServer, tmp_path: Path) -> None:
    host = new_driver(network=True)
    guest = new_driver(network=True)
    try:
        host_net, guest_net = Network(host), Network(guest)
        open_table(host, server, "just4fun_colours", ["person", "invite", "greedy"], players=3, seed=5)
        # read inside the wait: the seat cards redraw on every update, so a found element can go stale
        link = wait(host, lambda: present(host, "[data-testid=invite-1]")[0].get_attribute("value"), "the invite link")
        assert "ticket=" in link
        guest.get(link)
        wait(guest, lambda: present(guest, "[data-testid=seat-card-1]") and "(you)" in text(guest, "[data-testid=seat-card-1]"), "the guest's seat")
        assert not present(guest, "[data-testid=invites]")
        assert host.find_element(*by("[data-testid=undo]")).get_attribute("disabled") is not None
        rng = random.Random(4)
        snapshots: dict[str, list[str]] = {"host": [], "guest": []}
        deadline = time.monotonic() + TIMEOUT
        while not (over(host) and over(guest)):
            assert time.monotonic() < deadline, "the game of two browsers did not end"
            for name, chrome in (("host", host), ("guest", guest)):
                if not over(chrome) and "Your turn" in text(chrome, "[data-testid=turn]"):
                    snapshots[name].append(chrome.find_element(*by("#screen")).get_attribute("innerHTML"))
                    with contextlib.suppress(Exception):  # the view redrew under the click: look again
                        click_legal(chrome, rng)
            time.sleep(0.05)
        record = record_of(host_net)
        assert record.to_json() == record_of(guest_net).to_json()
        check_seen(host, host_net, server, record, {0}, snapshots["host"])
        check_seen(guest, guest_net, server, record, {1}, snapshots["guest"])
    finally:
        host.quit()
        guest.quit()


def test_hot_seat_covers_each_persons_hand_between_turns(driver: Any, server: LiveServer) -> None:
    network = Network(driver)
    open_table(driver, server, "just4fun_colours", ["person", "person"], seed=3, start=0)
    cover = wait(driver, lambda: present(driver, "[data-testid=cover-continue]"), "the cover")
    assert not present(driver, "[data-testid=view] [data-legal]")  # nobody's hand under the cover
    names = []
    for _ in range(4):
        names.append(text(driver, "[data-testid=cover] h2"))
        click(driver, cover[0])
        wait(driver, lambda: present(driver, "[data-testid=view] [data-legal]"), "the hand")
        assert present(driver, "[data-testid=undo]")[0].get_attribute("disabled") is None or len(names) == 1
        rng = random.Random(len(names))
        # a move may take several clicks (a card narrows, a field plays): click until the cover is back
        cover = wait(driver, lambda rng=rng: present(driver, "[data-testid=cover-continue]") or click_legal(driver, rng) and None, "the cover again")
    assert names[:2] == ["You's turn", "Player 2's turn"] and names[2] == names[0]
    # undo before the screen is passed on: the person who just moved decides again, uncovered
    driver.find_element(*by("[data-testid=undo]")).click()
    wait(driver, lambda: present(driver, "[data-testid=view] [data-legal]") and not present(driver, "[data-testid=cover]"), "the undo")
    assert text(driver, "[data-testid=turn]").startswith(names[-1].removesuffix("'s turn"))
    network.read()
    assert any('"kind":"undo"' in frame.replace(" ", "") for frame in network.sent)


def logged(driver: Any) -> int:
    """How many moves the table's log lists."""
    return len(present(driver, "[data-testid=log] li"))


def undo_a_move_then_ask_a_hint(driver: Any, server: Any) -> tuple[int, str]:
    """At a Just 4 Fun Colours table against greedy (seed 9, the person first; ``server``: a
    :class:`LiveServer` or the static export's site): a move clicked, then undone, leaves the log
    and the view as they were; then the hint. Returns the log's length and the suggestion."""
    open_table(driver, server, "just4fun_colours", ["person", "greedy"], seed=9, start=0)
    wait(driver, lambda: present(driver, "[data-testid=view] [data-legal]"), "the first turn")
    first = driver.find_element(*by("[data-testid=view]")).get_attribute("innerHTML")
    start = logged(driver)
    click_legal(driver, random.Random(1))
    wait(driver, lambda: logged(driver) > start and "Your turn" in text(driver, "[data-testid=turn]") and present(driver, "[data-testid=view] [data-legal]"), "the next turn")
    driver.find_element(*by("[data-testid=undo]")).click()
    wait(driver, lambda: logged(driver) == start, "the undo")
    assert driver.find_element(*by("[data-testid=view]")).get_attribute("innerHTML") == first
    driver.find_element(*by("[data-testid=hint]")).click()
    return start, wait(driver, lambda: text(driver, "[data-testid=suggestion]"), "the hint")


def resign(driver: Any) -> None:
    """Resigns (and confirms): the game is over, and says so."""
    driver.find_element(*by("[data-testid=resign]")).click()
    driver.switch_to.alert.accept()
    wait(driver, lambda: over(driver), "the end after resigning")
    assert "resigned" in text(driver, "[data-testid=turn]")


def test_undo_hint_resign_the_record_and_its_replay(driver: Any, server: LiveServer, tmp_path: Path) -> None:
    # a move undone, then the hint: the suggestion in the analysis panel and on the board
    _, suggestion = undo_a_move_then_ask_a_hint(driver, server)
    wait(driver, lambda: present(driver, "[data-testid=view] .hint"), "the hint on the board")
    assert present(driver, "[data-testid=analysis] table td"), driver.find_element(*by("[data-testid=analysis]")).get_attribute("innerHTML")
    assert suggestion in [e.get_attribute("data-move") for e in present(driver, "[data-testid=view] [data-move]")] or present(driver, "[data-testid=view] .hint")
    # two moves more, then resign: the game ends, the record says so
    rng = random.Random(2)
    for _ in range(2):
        moves = logged(driver)
        wait(driver, lambda moves=moves: logged(driver) > moves and present(driver, "[data-testid=view] [data-legal]") or click_legal(driver, rng) and None, "a move")
    resign(driver)
    driver.find_element(*by("[data-testid=download]")).click()
    downloaded = wait(driver, lambda: [p for p in tmp_path.glob("kibitz-*.jsonl")], "the downloaded record")[0]
    [record] = list(read_records(downloaded.read_text().splitlines()))
    assert record.adjudication is not None and record.adjudication["reason"] == "resigned"
    assert main(["replay", str(downloaded)]) == 0
    # the replay view: steps, seats, every hand open
    driver.find_element(*by("[data-testid=replay]")).click()
    wait(driver, lambda: text(driver, "[data-testid=replay-step]").startswith("0 /"), "the replay")
    steps = int(text(driver, "[data-testid=replay-step]").split("/")[1])
    driver.find_element(*by("[data-testid=replay-last]")).click()
    wait(driver, lambda: text(driver, "[data-testid=replay-step]") == f"{steps} / {steps}", "the last step")
    driver.find_element(*by("[data-testid=replay-back]")).click()
    wait(driver, lambda: text(driver, "[data-testid=replay-step]") == f"{steps - 1} / {steps}", "a step back")
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(*by("[data-testid=replay-seat]"))).select_by_value("1")
    wait(driver, lambda: "?" in driver.find_element(*by("[data-testid=view]")).get_attribute("innerHTML") or True, "seat 1's view")
    assert not present(driver, "[data-testid=view] [data-legal]")  # a replay draws without clicks
    # a record file opened from disk
    driver.find_element(*by("[data-testid=replay-file]")).send_keys(str(downloaded))
    wait(driver, lambda: text(driver, "[data-testid=replay-step]").startswith("0 /"), "the uploaded record")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not a record\n")
    driver.find_element(*by("[data-testid=replay-file]")).send_keys(str(bad))
    assert "not a game record" in wait(driver, lambda: text(driver, "[data-testid=error]"), "the error")


def test_an_illegal_click_shows_the_engines_reason_and_changes_nothing(driver: Any, server: LiveServer) -> None:
    open_table(driver, server, "yucata", ["person", "greedy"], seed=2, start=0, name="<b>Zoë</b>")
    card = driver.find_element(*by("[data-testid=seat-card-0]"))
    assert "<b>Zoë</b>" in card.text and not card.find_elements(*by("b"))  # a name is text, never markup
    wait(driver, lambda: present(driver, "[data-testid=view] [data-legal]"), "the first turn")
    question = driver.find_element(*by("[data-testid=hand-card-Q]"))
    assert question.get_attribute("data-legal") is None  # no Q on the very first turn
    def shown() -> tuple[Any, ...]:
        legal = tuple(e.get_attribute("data-move") for e in present(driver, "[data-testid=view] [data-legal]"))
        return legal, text(driver, "[data-testid=turn]"), len(present(driver, "[data-testid=log] li"))

    before = shown()
    click(driver, question)
    error = wait(driver, lambda: text(driver, "[data-testid=error]"), "the engine's reason")
    assert "illegal move 'Q'" in error
    assert shown() == before


def test_the_lobby_and_the_table_fit_a_phone(driver: Any, server: LiveServer) -> None:
    emulate_width(driver, PHONE, 740)
    open_table(driver, server, "yucata", ["person", "greedy"], seed=2, start=0)
    wait(driver, lambda: present(driver, "[data-testid=view] [data-legal]"), "the first turn")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE
    card = driver.find_element(*by("[data-testid=hand-card-1]")).rect
    assert card["width"] >= 36 and card["height"] >= 60  # a card a finger can hit
