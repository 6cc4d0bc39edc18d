// The lobby: choose the game, its options and who sits at each seat, then open the table.

import { api, gameInfo, say, where } from "./app.js";
import { html } from "./svg.js";

const CUSTOM = "custom";
const PERSON = "person";
const INVITE = "invite";

export function showLobby(screen) {
  where("");
  const form = html("form", { class: "lobby panel", "data-testid": "lobby" }, html("p", { class: "loading" }, "Loading the games…"));
  screen.append(form);
  gameInfo().then((info) => build(form, info)).catch((error) => say(error.message));
  return null;
}

function build(form, info) {
  const remembered = JSON.parse(sessionStorage.getItem("kibitz.lobby") || "{}");
  const gameSelect = html("select", { name: "game", "data-testid": "game" },
    info.games.map((g) => html("option", { value: g.name, selected: g.name === remembered.game }, `${gameTitle(g)}${g.view ? "" : " (plain view)"}`)));
  const description = html("p", { class: "muted small" });
  const playersSelect = html("select", { name: "players", "data-testid": "players" });
  const options = html("div", { class: "row options" });
  const seats = html("div", { "data-testid": "seats" });
  const seed = html("input", { name: "seed", inputmode: "numeric", placeholder: "random", "data-testid": "seed" });
  const start = html("button", { type: "submit", class: "primary", "data-testid": "start" }, "Start the game");

  const game = () => info.games.find((g) => g.name === gameSelect.value);

  function showGame() {
    const g = game();
    description.textContent = g.description;
    playersSelect.replaceChildren();
    for (let n = g.minPlayers; n <= g.maxPlayers; n++) {
      playersSelect.append(html("option", { value: n, selected: n === (remembered.game === g.name ? remembered.players : Math.min(g.maxPlayers, Math.max(g.minPlayers, 2))) }, String(n)));
    }
    options.replaceChildren(...g.options.map((o) => html("label", {},
      html("span", {}, o.name),
      html("input", { name: `option-${o.name}`, "data-option": o.name, placeholder: "default", title: o.help, "data-testid": `option-${o.name}` }),
      html("span", { class: "option-help" }, o.help))));
    showSeats();
  }

  function showSeats() {
    const g = game();
    const n = Number(playersSelect.value);
    seats.replaceChildren(html("h2", {}, "Seats"));
    const bots = seatBots(g, n);
    // a bot of middling strength by default: the middle difficulty level, else the fast preset
    const levels = bots.filter((b) => b.players);
    const fallback = levels.length ? levels[Math.floor((levels.length - 1) / 2)].spec : bots.find((b) => b.spec.endsWith("/fast"))?.spec ?? bots[0].spec;
    for (let seat = 0; seat < n; seat++) seats.append(seatRow(bots, seat, seat === 0 ? PERSON : fallback));
  }

  gameSelect.addEventListener("change", showGame);
  playersSelect.addEventListener("change", showSeats);
  form.replaceChildren(
    html("h1", {}, "A table to sit at"),
    html("div", { class: "row" }, html("label", {}, "Game", gameSelect), html("label", {}, "Players", playersSelect)),
    description,
    html("details", {}, html("summary", {}, "Game options"), options),
    seats,
    html("details", {}, html("summary", {}, "Seed"),
      html("label", {}, html("span", { class: "small muted" }, "Leave empty for a fresh deal. A seed you choose repeats the deal and the bots' play; whoever knows it can work the cards out, so leave it empty against a friend."), seed)),
    html("p", { class: "small muted" }, `Bots search within this server's limits: at most ${info.limits.maxIterations} iterations or ${info.limits.maxTimeMs / 1000} s a move, ${info.limits.maxThreads} threads.`),
    start,
  );
  showGame();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const request = {
      game: gameSelect.value,
      options: { players: playersSelect.value },
      seats: namedSeats([...seats.querySelectorAll(".seat-row")].map(readSeat)),
      seed: seed.value.trim() || null,
    };
    for (const input of options.querySelectorAll("input[data-option]")) {
      if (input.value.trim()) request.options[input.dataset.option] = input.value.trim();
    }
    sessionStorage.setItem("kibitz.lobby", JSON.stringify({ game: request.game, players: Number(playersSelect.value) }));
    start.disabled = true;
    try {
      const table = await api("/api/tables", request);
      location.hash = `table=${encodeURIComponent(table.table)}&ticket=${encodeURIComponent(table.ticket)}`;
    } catch (error) {
      say(error.message);
    } finally {
      start.disabled = false;
    }
  });
}

// The seat menu for a table of n players: a difficulty level is measured for some player counts.
function seatBots(game, n) {
  return game.bots.filter((b) => !b.players || b.players.includes(n));
}

function seatRow(bots, seat, chosen) {
  const select = html("select", { "data-testid": `seat-${seat}`, "aria-label": `seat ${seat}` },
    html("optgroup", { label: "People" },
      html("option", { value: PERSON, selected: chosen === PERSON }, "Person at this screen"),
      html("option", { value: INVITE }, "Person with an invite link")),
    groups(bots).map(([group, members]) => html("optgroup", { label: group },
      members.map((b) => html("option", { value: b.spec, title: b.summary, selected: b.spec === chosen }, b.label)))),
    html("optgroup", { label: "Other" }, html("option", { value: CUSTOM }, "Bot spec…")));
  const name = html("input", { placeholder: "name (optional)", "aria-label": `seat ${seat} name`, "data-testid": `seat-${seat}-name`, maxlength: 24 });
  const spec = html("input", { class: "spec", placeholder: "e.g. ismcts:iterations=5000,c=0.7", "aria-label": `seat ${seat} bot spec`, "data-testid": `seat-${seat}-spec`, maxlength: 200 });
  const row = html("div", { class: "seat-row", "data-seat": seat }, html("span", { class: "seat-label" }, `Seat ${seat}`), select, name, spec);
  const update = () => {
    const person = select.value === PERSON || select.value === INVITE;
    name.hidden = !person;
    spec.hidden = select.value !== CUSTOM;
  };
  select.addEventListener("change", update);
  update();
  return row;
}

// The game's name as people write it: its description up to the first "(" or ":".
function gameTitle(game) {
  return game.description.split(/[(:]/)[0].trim() || game.name;
}

function groups(bots) {
  const out = new Map();
  for (const bot of bots) {
    if (!out.has(bot.group)) out.set(bot.group, []);
    out.get(bot.group).push(bot);
  }
  return [...out];
}

function readSeat(row) {
  const [select, name, spec] = row.querySelectorAll("select, input");
  if (select.value === PERSON || select.value === INVITE) return { kind: select.value, name: name.value.trim() };
  return { kind: "bot", spec: select.value === CUSTOM ? spec.value.trim() : select.value };
}

// The first person at this screen is "You" unless named; the server names the others "Player n".
function namedSeats(seats) {
  const first = seats.find((seat) => seat.kind === PERSON);
  if (first && !first.name) first.name = "You";
  return seats;
}
