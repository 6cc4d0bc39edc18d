// Yucata' at the web table (docs/web-views.md, docs/games/yucata.md): the path of 40 spaces
// with its pale and dark stones and the red one on the temple, the amulets, each seat's
// stones, score and seven cards (played ones faded), the leader, and the seat's own hand.
// A move is a card: clicking a card of the hand plays it. Hovering a card shows where it
// leads and what it takes. Nothing is hidden in this game, so every hand is drawn.

import { clickable, legal, seatColour, svg, title as tip } from "../svg.js";

export const title = "Yucata'";

const CARDS = ["1", "2", "3", "4", "5", "S", "Q"];
const GOAL = 39;
const FIRST_STONE = 5;
const NARROW = 620; // px: below this the path folds into 5 columns (a phone)
const CELL = 80;
const CARD_HEIGHT = 124;
const PAD = 16;
const memory = new WeakMap(); // root -> { model, act, narrow }

export function render(root, model, act) {
  let ui = memory.get(root);
  if (!ui) {
    ui = {};
    memory.set(root, ui);
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => requestAnimationFrame(() => {
        if (ui.model && narrow(root) !== ui.narrow) draw(root, ui);
      })).observe(root);
    }
  }
  Object.assign(ui, { model, act });
  draw(root, ui);
}

function narrow(root) {
  return (root.clientWidth || window.innerWidth) < NARROW;
}

// The notation's fields as numbers and lists (docs/games/yucata.md §4.1).
export function readTable(model) {
  const f = model.fields;
  const split = (text) => text.split(",");
  const table = {
    players: model.players,
    layout: f.layout,
    pos: split(f.pos).map(Number),
    hands: split(f.hands).map((h) => (h === "-" ? "" : h)),
    pale: split(f.pale).map(Number),
    dark: split(f.dark).map(Number),
    red: f.red === "-" ? null : Number(f.red),
    toMove: Number(f.to_move),
    prev: f.prev, eff: f.eff, moved: Number(f.moved), q: f.q, turn: Number(f.turn),
  };
  table.lead = Math.max(...table.pos);
  return table;
}

// The stone on `space` now: "P", "D", "R" or null (taken, or a space without one).
export function stoneAt(table, space) {
  if (space <= table.lead) return null;
  if (space === GOAL) return table.red === null ? "R" : null;
  if (space < FIRST_STONE) return null;
  return table.layout[space - FIRST_STONE];
}

// Where `card` takes `seat`'s amulet (§1.6), and the stones it takes on the way (§1.7).
export function effect(table, seat, card) {
  const from = table.pos[seat];
  let to;
  if (card === "Q" && table.q === "distance") to = from + table.moved;
  else {
    const copied = card === "Q" ? table.eff : card;
    if (copied === "S") to = table.lead + 1;
    else to = from + Number(copied);
  }
  to = Math.min(GOAL, Number.isFinite(to) ? to : from);
  const taken = { P: 0, D: 0, R: 0 };
  for (let space = Math.max(from, table.lead) + 1; space <= to; space++) {
    const stone = stoneAt(table, space);
    if (stone) taken[stone] += 1;
  }
  return { to, taken };
}

export function score(pale, dark) {
  return pale - (dark * (dark + 1)) / 2;
}

function draw(root, ui) {
  const { model, act } = ui;
  ui.narrow = narrow(root);
  const table = readTable(model);
  const columns = ui.narrow ? 5 : 10;
  const width = columns * CELL + 2 * PAD;
  const rows = Math.ceil((GOAL + 1) / columns);
  const seatRow = ui.narrow ? 118 : 66;
  const mine = model.seat !== null && model.seat !== undefined;
  const trackHeight = rows * CELL + PAD;
  const seatsTop = trackHeight + 24 + 30 * captionLines(ui.narrow);
  const handTop = seatsTop + table.players * seatRow + 36;
  const height = handTop + (mine ? CARD_HEIGHT + 16 : 0);
  const spaces = new Map();
  const recent = new Set((model.moves || []).slice(model.last ?? 0).map((m) => m.seat));

  const at = (space) => {
    const row = Math.floor(space / columns);
    const col = row % 2 === 0 ? space % columns : columns - 1 - (space % columns); // the path snakes
    return { x: PAD + col * CELL, y: PAD + row * CELL };
  };

  const path = [];
  for (let space = 0; space <= GOAL; space++) {
    const { x, y } = at(space);
    const kind = space === 0 ? "start" : space === GOAL ? "temple" : space < FIRST_STONE ? "plain" : table.layout[space - FIRST_STONE] === "D" ? "dark" : "light";
    const stone = stoneAt(table, space);
    const cell = svg("g", { class: `space space-${kind}`, "data-space": space, "data-testid": `space-${space}` },
      tip(`space ${space}${kind === "temple" ? " (the temple)" : kind === "start" ? " (start)" : ""}${stone ? `: a ${stoneName(stone)} stone` : ""}`),
      svg("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 12, class: "space-floor" }),
      svg("text", { x: x + 10, y: y + 24, class: "space-number" }, space),
      stone ? svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2 + 6, r: 17, class: `stone stone-${stone}` }) : null);
    spaces.set(space, cell);
    path.push(cell);
  }

  // amulets: several on one space sit side by side
  const amulets = [];
  const bySpace = new Map();
  table.pos.forEach((space, seat) => bySpace.set(space, [...(bySpace.get(space) || []), seat]));
  for (const [space, seats] of bySpace) {
    const { x, y } = at(space);
    seats.forEach((seat, k) => {
      const cx = x + CELL / 2 + (k - (seats.length - 1) / 2) * 20;
      const leader = space === table.lead && !model.terminal;
      amulets.push(svg("g", {
        class: `amulet${recent.has(seat) ? " last" : ""}${table.toMove === seat && !model.terminal ? " to-move" : ""}`,
        "data-testid": `amulet-${seat}`,
      },
      tip(`${model.names[seat]}'s amulet on space ${space}${leader ? " (leading)" : ""}`),
      svg("path", { d: `M ${cx} ${y + 16} l 13 22 l -13 22 l -13 -22 z`, fill: seatColour(seat), class: "amulet-body" }),
      svg("text", { x: cx, y: y + 44, class: "amulet-seat", "text-anchor": "middle" }, seat)));
    });
  }

  const parts = [
    svg("rect", { x: 0, y: 0, width, height, class: "felt" }),
    svg("g", { "data-testid": "board" }, path, amulets),
    caption(table, model, PAD, trackHeight + 26, ui.narrow),
    seatPanels(table, model, PAD, seatsTop, width - 2 * PAD, seatRow, ui.narrow),
  ];
  if (mine) parts.push(hand(table, model, act, PAD, handTop, width - 2 * PAD, spaces));
  root.replaceChildren(svg("svg", {
    viewBox: `0 0 ${width} ${height}`, width: "100%", class: "yucata-table", role: "img",
    "aria-label": `Yucata' table, turn ${table.turn}`,
  }, parts));
}

function stoneName(stone) {
  return { P: "pale", D: "dark", R: "red" }[stone];
}

// What happened last and what is left, in lines short enough for a phone when `isNarrow`.
function caption(table, model, x, y, isNarrow) {
  let last = "First turn: any card but Q.";
  if (table.prev !== "-") {
    const as = table.prev === "Q" ? ` (as ${table.eff})` : "";
    const mover = (model.moves || []).length ? model.names[model.moves[model.moves.length - 1].seat] : "";
    last = `Last: ${mover ? mover + " played " : ""}${table.prev}${as}, moved ${table.moved}.`;
  }
  const left = { P: 0, D: 0 };
  for (let space = Math.max(FIRST_STONE, table.lead + 1); space < GOAL; space++) left[table.layout[space - FIRST_STONE]] += 1;
  const red = table.red === null ? (isNarrow ? ", red" : ", red on the temple") : "";
  const path = `${isNarrow ? "Path" : "On the path"}: ${left.P} pale, ${left.D} dark${red}.`;
  const turn = `Turn ${table.turn + 1}.`;
  const lines = isNarrow ? [turn, last, path] : [`${turn} ${last}`, path];
  return svg("g", { "data-testid": "caption" },
    lines.map((line, k) => svg("text", { x, y: y + k * 30, class: k === lines.length - 1 ? "caption small-caption" : "caption", "data-testid": k === lines.length - 1 ? "stones-left" : null }, line)));
}

export function captionLines(isNarrow) {
  return isNarrow ? 3 : 2;
}

function seatPanels(table, model, x, y, width, rowHeight, isNarrow) {
  const rows = [];
  for (let seat = 0; seat < table.players; seat++) {
    const top = y + seat * rowHeight;
    const leader = table.pos[seat] === table.lead;
    const provisional = score(table.pale[seat], table.dark[seat]);
    const shown = model.terminal && model.scores ? model.scores[seat] : provisional;
    const nameText = `${model.names[seat]}${model.seat === seat && model.names[seat] !== "You" ? " (you)" : ""}`;
    const cardsX = isNarrow ? x + 8 : x + width - 7 * 44;
    const cardsY = isNarrow ? top + 56 : top + 6;
    rows.push(svg("g", { class: `seat-row${table.toMove === seat && !model.terminal ? " to-move" : ""}`, "data-testid": `seat-${seat}` },
      svg("rect", { x, y: top, width, height: rowHeight - 8, rx: 10, class: "seat-panel" }),
      svg("rect", { x, y: top, width: 10, height: rowHeight - 8, rx: 4, fill: seatColour(seat) }),
      svg("text", { x: x + 20, y: top + 25, class: "seat-name" }, nameText, leader ? " ★" : ""),
      svg("text", { x: x + 20, y: top + 49, class: "seat-stats", "data-testid": `stones-${seat}` },
        tip(`${table.pale[seat]} pale, ${table.dark[seat]} dark stones${table.red === seat ? " and the red one" : ""}; score ${shown}`),
        `space ${table.pos[seat]} · `,
        svg("tspan", { class: "stat-P" }, `● ${table.pale[seat]}`), " ",
        svg("tspan", { class: "stat-D" }, `● ${table.dark[seat]}`),
        table.red === seat ? svg("tspan", { class: "stat-R" }, " ● red") : "",
        ` · score ${shown}`),
      CARDS.map((card, k) => {
        const held = table.hands[seat].includes(card);
        return svg("g", { class: `mini-card${held ? "" : " played"}`, "data-testid": `card-${seat}-${card}` },
          tip(`${card}: ${held ? "in hand" : "played"}`),
          svg("rect", { x: cardsX + k * 44, y: cardsY, width: 38, height: 46, rx: 6 }),
          svg("text", { x: cardsX + k * 44 + 19, y: cardsY + 31, "text-anchor": "middle" }, card));
      })));
  }
  return svg("g", { "data-testid": "seats" }, rows);
}

function hand(table, model, act, x, y, width, spaces) {
  const seat = model.seat;
  const gap = width < 500 ? 6 : 10;
  const cardWidth = Math.min(100, (width - 6 * gap) / 7);
  const playing = !model.replay && !model.terminal && (model.mine || []).includes(seat);
  const cards = [];
  CARDS.filter((card) => table.hands[seat].includes(card)).forEach((card, k) => {
    const cx = x + k * (cardWidth + gap);
    const { to, taken } = effect(table, seat, card);
    const takes = [taken.P && `${taken.P} pale`, taken.D && `${taken.D} dark`, taken.R && "the red stone"].filter(Boolean).join(", ") || "nothing";
    const node = svg("g", { class: `hand-card card-${card === "S" ? "S" : card === "Q" ? "Q" : "n"}`, "data-testid": `hand-card-${card}` },
      tip(card === "Q" && table.prev === "-" ? "Q: copies the previous play (not on the first turn)" : `${card}: to space ${to}, takes ${takes}`),
      svg("rect", { x: cx, y, width: cardWidth, height: CARD_HEIGHT, rx: 12 }),
      svg("text", { x: cx + cardWidth / 2, y: y + 74, "text-anchor": "middle", class: "card-face" }, card),
      svg("text", { x: cx + cardWidth / 2, y: y + 108, "text-anchor": "middle", class: "card-note" }, cardWidth < 70 ? `→${to}` : `→ ${to}`));
    if (playing) {
      if (model.legal.includes(card)) legal(node, card);
      if (model.hint === card) node.classList.add("hint");
      clickable(node, () => act(card)); // an illegal card gets the engine's reason, shown by the page
      const target = spaces.get(to);
      node.addEventListener("mouseenter", () => target?.classList.add("target"));
      node.addEventListener("mouseleave", () => target?.classList.remove("target"));
      node.addEventListener("focus", () => target?.classList.add("target"));
      node.addEventListener("blur", () => target?.classList.remove("target"));
    }
    cards.push(node);
  });
  return svg("g", { "data-testid": "hand" },
    svg("text", { x, y: y - 12, class: "caption" }, playing && model.legal.length ? "Your cards: click one to play it" : "Your cards"),
    cards);
}
