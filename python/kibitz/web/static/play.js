// A table: the seats, the game's view, the buttons (hint, analysis, undo, resign, record,
// replay, rematch), the analysis panel, the move log and the hot-seat cover. Everything comes
// from the server over one WebSocket; a click sends a message, and the server answers.

import { say, unsay, where } from "./app.js";
import { html } from "./svg.js";
import { drawView, resultText, seatName } from "./view.js";

const RECONNECT_MS = [500, 1000, 2000, 4000];

export function showTable(screen, tableId, ticket) {
  const ui = layout(screen);
  const state = {
    message: null,      // the latest "table" message
    shown: null,        // the seat whose view is drawn (one of the held seats)
    uncovered: null,    // at a hot-seat table: the seat the cover was lifted for
    open: false,        // show every hand (once the game is over)
    progress: new Map(),// "kind:seat" -> the latest progress message
    waiting: false,     // a move was sent; its answer has not come
    drawn: 0,           // renders asked for: only the latest one draws
  };
  let socket = null;
  let closed = false;
  let attempts = 0;

  function connect() {
    socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    socket.addEventListener("open", () => {
      attempts = 0;
      socket.send(JSON.stringify({ kind: "join", table: tableId, ticket }));
    });
    socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (closed) return;
      const wait = RECONNECT_MS[Math.min(attempts++, RECONNECT_MS.length - 1)];
      say(`The connection to the server was lost; trying again in ${wait / 1000} s…`);
      setTimeout(() => { if (!closed) connect(); }, wait);
    });
  }

  function send(message) {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    else say("Not connected to the server yet.");
  }

  function receive(message) {
    if (message.kind === "table") {
      if (attempts === 0 && state.message === null) unsay();
      const moved = (message.views[0]?.log.length ?? 0) !== (state.message?.views[0]?.log.length ?? 0);
      state.message = message;
      state.waiting = false;
      for (const [key, progress] of [...state.progress]) {
        const running = message.thinking.some((t) => t.kind === progress.search && t.seat === progress.seat);
        // a search that ended unseen is dropped; a finished hint or analysis goes once the game moved on
        if ((!running && !progress.done) || (moved && progress.done && progress.search !== "bot")) state.progress.delete(key);
      }
      render();
    } else if (message.kind === "progress") {
      state.progress.set(`${message.search}:${message.seat}`, message);
      renderSide();
      renderSeats();
      if (state.message) renderControls();
    } else if (message.kind === "error") {
      state.waiting = false;
      say(message.message);
    } else if (message.kind === "moved") {
      location.hash = `table=${encodeURIComponent(message.table)}&ticket=${encodeURIComponent(message.ticket)}`;
    }
  }

  const act = (move) => {
    if (state.waiting || state.shown === null) return;
    state.waiting = true;
    send({ kind: "move", seat: state.shown, move });
  };

  // -- drawing -------------------------------------------------------------------------------
  function models() {
    return state.message?.views ?? [];
  }

  function shownModel() {
    const m = state.message;
    if (!m) return null;
    if (state.open && m.open) return m.open;
    return models().find((v) => v.seat === state.shown) ?? m.open ?? null;
  }

  // At a hot-seat table, the view follows the person to decide; a cover stands between two people.
  function chooseSeat() {
    const m = state.message;
    const deciding = models().filter((v) => v.legal.length > 0).map((v) => v.seat);
    if (deciding.length) state.shown = deciding.includes(state.shown) ? state.shown : deciding[0];
    else if (!m.held.includes(state.shown)) state.shown = m.held[0] ?? null;
    return m.held.length > 1 && !m.over && state.uncovered !== state.shown;
  }

  async function render() {
    const m = state.message;
    const number = ++state.drawn;
    where(`${m.game} · table ${m.table.slice(0, 6)}`);
    const covered = chooseSeat();
    renderSeats();
    renderTurn();
    renderControls();
    renderSide();
    if (covered) {
      ui.view.replaceChildren(cover());
      return;
    }
    const model = shownModel();
    if (model) {
      try {
        const module = await drawView(ui.view, model, act, () => number === state.drawn);
        if (module.title) where(`${module.title} · table ${m.table.slice(0, 6)}`);
      } catch (error) { say(`The view failed to draw: ${error.message}`); console.error(error); }
    } else {
      ui.view.replaceChildren(html("p", { class: "muted" }, "You hold no seat at this table: send the invite links below."));
    }
  }

  function cover() {
    const m = state.message;
    const name = m.seats[state.shown].name;
    return html("div", { class: "cover", "data-testid": "cover" },
      html("div", {},
        html("h2", {}, `${name}'s turn`),
        html("p", {}, `Pass the screen to ${name}. The others look away.`),
        html("button", { class: "primary", "data-testid": "cover-continue", onclick: () => { state.uncovered = state.shown; render(); } }, `I am ${name}: show my hand`)));
  }

  function renderSeats() {
    const m = state.message;
    if (!m) return;
    const model = shownModel() ?? models()[0];
    ui.seats.replaceChildren(...m.seats.map((seat) => {
      const toMove = model?.toMove?.includes(seat.seat);
      const waiting = model?.waiting?.includes(seat.seat) ?? toMove;
      const bot = state.progress.get(`bot:${seat.seat}`);
      const thinking = m.thinking.some((t) => t.kind === "bot" && t.seat === seat.seat);
      const ranks = model?.ranks;
      return html("div", {
        class: `seat-card${toMove && waiting ? " to-move" : ""}${seat.connected ? "" : " away"}`,
        style: `border-left-color: var(--seat${seat.seat})`, "data-testid": `seat-card-${seat.seat}`,
      },
      html("div", { class: "name" }, seat.name, m.held.includes(seat.seat) && seat.name !== "You" ? " (you)" : ""),
      html("div", { class: "what" }, seat.kind === "bot" ? `bot ${seat.spec}` : seat.kind === "invite" ? "person, invited" : "person"),
      ranks ? html("div", { class: "what" }, `rank ${ranks[seat.seat]}${model.scores ? ` · score ${Number(model.scores[seat.seat].toFixed(2))}` : ""}`) : null,
      thinking ? html("div", { class: "thinking", "data-testid": `thinking-${seat.seat}` },
        bot ? `thinking… ${bot.iterations.toLocaleString()} iterations · ${bot.seconds.toFixed(1)} s` : "thinking…") : null,
      toMove && waiting && !thinking && seat.kind !== "bot" ? html("div", { class: "thinking" }, model.toMove.length > 1 ? "choosing…" : "to move") : null);
    }));
  }

  function renderTurn() {
    const m = state.message;
    const model = shownModel();
    let text = "";
    let kind = "";
    if (m.over && model) {
      text = `Game over. ${resultText(model)}`;
      kind = "over";
    } else if (model && model.legal.length) {
      text = model.toMove.length > 1 ? `${m.held.length > 1 ? `${seatName(model, model.seat)}: c` : "C"}hoose in secret: the others see your choice when it is revealed.` : `${m.held.length > 1 ? seatName(model, model.seat) + ", your" : "Your"} turn.`;
      kind = "yours";
    } else if (model && model.chosen) {
      text = `You chose ${model.chosen}; waiting for the others.`;
    } else if (model) {
      text = `${model.toMove.map((s) => seatName(model, s)).join(", ")} to move.`;
    }
    ui.turn.className = `turn ${kind}`;
    ui.turn.textContent = text;
  }

  function renderControls() {
    const m = state.message;
    const model = models().find((v) => v.seat === state.shown);
    const mine = model && model.legal.length > 0;
    const helping = ["hint", "analysis"].some((k) => {
      const progress = state.progress.get(`${k}:${state.shown}`);
      return progress ? !progress.done : m.thinking.some((t) => t.kind === k && t.seat === state.shown);
    });
    const button = (label, testid, enabled, onclick, title = "") =>
      html("button", { type: "button", "data-testid": testid, disabled: !enabled, onclick, title }, label);
    const controls = [
      button("Hint", "hint", mine && !helping, () => send({ kind: "hint", seat: state.shown }), "the engine's suggestion for you, from what you can see"),
      helping ? button("Stop", "stop", true, () => send({ kind: "stop", seat: state.shown }))
        : button("Analyse", "analyse", mine, () => send({ kind: "analyse", seat: state.shown }), "a longer search of your move, shown live"),
      button("Undo", "undo", m.undo, () => send({ kind: "undo" }), m.undo ? "take back your last move and everything after it" : "undo is for a table whose people all play at this screen"),
      button("Resign", "resign", mine && !m.over, () => { if (confirm("Resign this game?")) send({ kind: "resign", seat: state.shown }); }, "give up at your turn"),
    ];
    if (m.over) {
      const blob = new Blob([m.record + "\n"], { type: "application/x-ndjson" });
      const link = html("a", { class: "button", href: URL.createObjectURL(blob), download: `kibitz-${m.game}-${m.table.slice(0, 6)}.jsonl`, "data-testid": "record" }, "Download record");
      controls.push(
        html("button", { type: "button", "data-testid": "download", onclick: () => link.click() }, "Download record"),
        button(state.open ? "Show my view" : "Show all hands", "open-hands", Boolean(m.open), () => { state.open = !state.open; render(); }),
        button("Replay", "replay", true, () => { sessionStorage.setItem("kibitz.replay", m.record); location.hash = "replay"; }),
        button("Rematch", "rematch", true, () => send({ kind: "rematch" }), "a new game with everyone moved one seat on"),
        button("New game", "new-game", true, () => send({ kind: "new" }), "a new deal with the same seats"),
      );
      link.hidden = true;
      controls.push(link);
    }
    controls.push(button("Lobby", "lobby", true, () => { location.hash = ""; }));
    ui.controls.replaceChildren(...controls);
  }

  function renderSide() {
    const m = state.message;
    if (!m) return;
    const model = shownModel();
    const panels = [];
    const searches = [...state.progress.values()].filter((p) => p.search === "bot" || p.seat === state.shown);
    panels.push(html("section", { class: "analysis panel", "data-testid": "analysis" },
      html("h2", {}, "Analysis"),
      searches.length === 0 ? html("p", { class: "muted small" }, "Ask for a hint or an analysis of your move. While a bot thinks, its progress shows here (its candidate moves only in games without hidden cards).") : null,
      searches.map(progressPanel)));
    if (model) panels.push(logPanel(model));
    if (m.invites?.length) {
      panels.push(html("section", { class: "invites panel", "data-testid": "invites" },
        html("h2", {}, "Invite links"),
        html("p", { class: "small muted" }, "Send each person their own link; it lets them play that seat only."),
        m.invites.map((invite) => html("label", { class: "small" }, `Seat ${invite.seat} (${invite.name}) `,
          html("input", { readonly: true, "data-testid": `invite-${invite.seat}`, value: `${location.origin}/#table=${encodeURIComponent(m.table)}&ticket=${encodeURIComponent(invite.ticket)}`, onclick: (e) => e.target.select() })))));
    }
    ui.side.replaceChildren(...panels);
  }

  function progressPanel(p) {
    const m = state.message;
    const who = p.search === "bot" ? m.seats[p.seat].name : p.search === "hint" ? "Hint" : "Analysis";
    const head = `${who}: ${p.done ? "done" : "thinking"} · ${p.iterations.toLocaleString()} iterations · ${p.seconds.toFixed(1)} s`;
    return html("div", { "data-testid": `progress-${p.search}-${p.seat}` },
      html("h3", { class: "small" }, head),
      p.best ? html("p", {}, "Suggestion: ", html("strong", { "data-testid": "suggestion" }, p.best)) : null,
      p.top?.length ? html("table", {},
        html("thead", {}, html("tr", {}, html("th", {}, "move"), html("th", {}, "value"), html("th", {}, "visits"))),
        html("tbody", {}, p.top.map((t) => html("tr", {},
          html("td", {}, t.move), html("td", { class: "num" }, `${(100 * t.value).toFixed(1)} %`), html("td", { class: "num" }, t.visits.toLocaleString()))))) : null);
  }

  function logPanel(model) {
    let lastOwn = -1;
    model.log.forEach((entry, i) => { if (entry.seat === model.seat) lastOwn = i; });
    return html("section", { class: "log panel", "data-testid": "log" },
      html("h2", {}, "Moves"),
      html("ol", {}, model.log.map((entry, i) => html("li", { class: `${entry.seat === null ? "chance" : ""}${i > lastOwn && model.seat !== null ? " recent" : ""}` },
        entry.seat === null ? `(${entry.text})` : `${seatName(model, entry.seat)}: ${entry.text}`))));
  }

  connect();
  return () => { closed = true; socket?.close(); };
}

function layout(screen) {
  const ui = {
    seats: html("div", { class: "seats", "data-testid": "seat-cards" }),
    turn: html("div", { class: "turn", "data-testid": "turn" }),
    view: html("div", { class: "view", "data-testid": "view" }),
    controls: html("div", { class: "controls", "data-testid": "controls" }),
    side: html("div", { class: "side" }),
  };
  screen.append(html("section", { class: "table-screen" },
    html("div", { class: "status" }, ui.seats, ui.turn), ui.view, ui.controls, ui.side));
  return ui;
}
