// Just 4 Fun Colours: the SVG parts of the table (board, hand, piles, seats, status). Each part
// is a function returning {node, width, height} in viewBox units; the module lays them out.
// Colours come from CSS classes only (just4fun_colours.css): c-R … c-P, seat-0 … seat-3.

import { svg as el, legal as markLegal, title } from "../../svg.js";
import { COLOURS, COLOUR_NAMES, SIDE, colourOf, fieldName } from "./table.js";

const FIELD = 100;
const MARGIN = 28; // the board's coordinate labels
const CARD_W = 64, CARD_H = 92, CARD_STEP = 72;
const ROW_H = 88;

const text = (x, y, content, cls, attrs = {}) => el("text", { x, y, class: cls, ...attrs }, content);
const place = (node, x, y) => {
  node.setAttribute("transform", `translate(${x} ${y})`);
  return node;
};

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// A stack of `stack.length` stones (bottom first; -1 = a stone whose owner is not known), and its
// height in a badge ringed in the owner's colour.
function tower(stack) {
  const g = el("g", { class: "tower" });
  stack.forEach((seat, k) => {
    g.append(el("rect", { x: 26, y: 76 - 9.5 * k, width: 60, height: 16, rx: 7, class: seat >= 0 ? `stone seat-${seat}` : "stone unknown" }));
  });
  if (stack.length > 0) {
    g.append(el("circle", { cx: 81, cy: 20, r: 15, class: `badge owner-${stack[stack.length - 1]}` }));
    g.append(text(81, 28, stack.length, "badge-text"));
  }
  return g;
}

// One field: its colour, tower, marks (legal, last moves, hint, win) and what it costs.
function field(table, view, index) {
  const name = fieldName(index);
  const colour = colourOf(index);
  const f = table.board[index];
  const legal = view.legalFields.has(index);
  const recent = table.recent.filter((m) => m.field === index);
  const classes = ["field", `c-${colour}`];
  if (view.dim.has(index)) classes.push("dim");
  if (recent.length) classes.push("last");
  if (view.hint === name) classes.push("hint");
  if (view.win.has(index)) classes.push("win");
  const owner = f.owner >= 0 ? `, ${view.names[f.owner]}'s (${plural(f.height, "stone")})` : ", empty";
  const g = el("g", {
    class: classes.join(" "),
    "data-field": name,
    "data-testid": `field-${name}`,
    tabindex: view.canAct ? 0 : null,
    role: view.canAct ? "button" : null,
  });
  if (legal) markLegal(g, name);
  g.append(title(`${name}: ${COLOUR_NAMES[colour]}${owner}; costs ${f.height + 1} ${COLOUR_NAMES[colour]}`));
  g.append(el("rect", { x: 2, y: 2, width: FIELD - 4, height: FIELD - 4, rx: 6, class: "square" }));
  g.append(text(10, 26, colour, "field-letter"));
  g.append(tower(table.stacks[index]));
  for (const mark of ["legal", "last", "hint", "win"]) {
    if (!(mark === "legal" ? legal : classes.includes(mark))) continue;
    for (const layer of ["under", mark]) g.append(el("rect", { x: 5, y: 5, width: FIELD - 10, height: FIELD - 10, rx: 5, class: `ring ${layer}-ring` }));
  }
  recent.forEach((m, k) => {
    const badge = place(el("g", { class: "move-badge" }), 17 + 28 * k, 83);
    badge.append(el("circle", { r: 14, class: `seat-${m.seat}` }), text(0, 8, m.number, `badge-text on-seat-${m.seat}`));
    g.append(badge);
  });
  if (view.selected === colour) {
    g.append(place(el("g", { class: "cost" }), 50, 50));
    g.lastChild.append(el("rect", { x: -20, y: -16, width: 40, height: 30, rx: 5, class: "cost-tag" }), text(0, 6, `×${f.height + 1}`, "cost-text"));
  }
  return g;
}

export function board(table, view) {
  const size = SIDE * FIELD;
  const g = el("g", { class: "board", "data-testid": "board" });
  for (let c = 0; c < SIDE; c++) g.append(text(MARGIN + c * FIELD + FIELD / 2, 21, "abcdef"[c], "coord"));
  for (let r = 0; r < SIDE; r++) g.append(text(13, MARGIN + r * FIELD + FIELD / 2 + 8, r + 1, "coord"));
  for (let i = 0; i < SIDE * SIDE; i++) {
    g.append(place(field(table, view, i), MARGIN + (i % SIDE) * FIELD, MARGIN + Math.floor(i / SIDE) * FIELD));
  }
  return { node: g, width: MARGIN + size, height: MARGIN + size };
}

function card(colour, attrs = {}) {
  const outer = el("g", attrs);
  const inner = el("g", { class: `card c-${colour}` });
  inner.append(
    el("rect", { width: CARD_W, height: CARD_H, rx: 8, class: "card-face" }),
    text(CARD_W / 2, CARD_H / 2 + 12, colour, "card-letter"),
    title(`${COLOUR_NAMES[colour]} card`),
  );
  outer.append(inner);
  return outer;
}

function back(x, y, w, h) {
  return el("g", {}, el("rect", { x, y, width: w, height: h, rx: Math.max(3, w / 8), class: "card-back" }), el("rect", { x: x + w / 4, y: y + h / 4, width: w / 2, height: h / 2, rx: 2, class: "card-back-mark" }));
}

// The seat's own hand as cards. Clicking a colour shows the fields it pays for; a blocked turn
// is played by clicking the hand (or the button under it).
export function hand(table, view, width) {
  const g = el("g", { class: "hand", "data-testid": `hand-${view.seat}` });
  const font = view.font;
  const cards = [...table.hands[view.seat].cards].sort((a, b) => COLOURS.indexOf(a) - COLOURS.indexOf(b));
  g.append(text(0, font, `Your hand (${plural(cards.length, "card")})`, "label"));
  const step = Math.min(CARD_STEP, (width - CARD_W) / Math.max(1, cards.length - 1));
  cards.forEach((colour, k) => {
    const playable = view.canAct && view.legalColours.has(colour) && !view.selected;
    const blocked = view.canAct && table.blockedLegal;
    const node = card(colour, {
      class: `hand-card${view.selected === colour ? " picked" : ""}`,
      "data-card": colour,
      "data-testid": `card-${k}`,
      tabindex: view.canAct ? 0 : null,
      role: view.canAct ? "button" : null,
    });
    if (playable || blocked) markLegal(node, blocked ? "blocked" : null);
    g.append(place(node, k * step, font + 22));
  });
  let height = font + 22 + CARD_H + 8;
  if (view.canAct && table.blockedLegal) {
    const label = "Blocked: discard the hand, box a stone";
    const button = markLegal(el("g", { class: `button${view.hint === "blocked" ? " hint" : ""}`, "data-testid": "blocked", role: "button", tabindex: 0 }), "blocked");
    button.append(el("rect", { width: Math.min(width, 32 + label.length * font * 0.6), height: 48, rx: 10, class: "button-face" }), text(16, 32, label, "button-text"));
    g.append(place(button, 0, height + 8));
    height += 64;
  }
  return { node: g, width, height };
}

// The face-down stock (its size) and the face-up discard pile (its cards per colour, public).
export function piles(table, width) {
  const g = el("g", { class: "piles" });
  const stock = el("g", { "data-testid": "stock" }, title(`stock: ${plural(table.stock, "card")}, face down`));
  stock.append(back(0, 0, 48, 68), text(62, 30, table.stock, "count"), text(62, 58, "stock", "small"));
  g.append(stock);
  const total = table.discard.reduce((a, b) => a + b, 0);
  const discard = el("g", { "data-testid": "discard" }, title(`discard pile: ${plural(total, "card")}, face up`));
  const x0 = 150;
  discard.append(text(x0, 24, `discard ${total}`, "small"));
  const step = Math.min(52, (width - x0) / COLOURS.length);
  [...COLOURS].forEach((colour, k) => {
    const chip = place(el("g", { class: `chip c-${colour}` }), x0 + k * step, 34);
    chip.append(el("rect", { width: step - 8, height: 34, rx: 5, class: "card-face" }), text((step - 8) / 2, 25, table.discard[k], "chip-text"));
    discard.append(chip);
  });
  g.append(discard);
  return { node: g, width, height: 76 };
}

// One row per seat: stone colour, name, turn, supply, boxed stones, area and hand (backs with
// the count, or the cards when the hand is open).
export function seats(table, view, width) {
  const g = el("g", { class: "seats" });
  for (let s = 0; s < table.players; s++) {
    const row = place(el("g", { class: `seat-row${view.toMove.includes(s) ? " to-move" : ""}`, "data-testid": `seat-${s}` }), 0, s * ROW_H);
    row.append(el("rect", { width, height: ROW_H - 8, rx: 10, class: "row-face" }));
    row.append(el("circle", { cx: 28, cy: 30, r: 16, class: `stone seat-${s}` }));
    const marker = view.toMove.includes(s) ? "▶ " : "";
    const rank = view.ranks ? `${ordinal(view.ranks[s])} · ` : "";
    row.append(text(54, 38, `${marker}${rank}${view.names[s]}`, "name"));
    const area = table.areas[s];
    row.append(text(54, 70, `supply ${table.supply[s]} · boxed ${table.boxed[s]} · area ${area.size}` + (view.ranks ? ` (${plural(area.stones, "stone")})` : ""), "small"));
    const h = table.hands[s];
    const handNode = el("g", { "data-testid": h.cards === null ? `hand-${s}` : `seat-hand-${s}` }, title(`${view.names[s]}: ${plural(h.count, "card")}`));
    const right = width - 12;
    const w = 20, step = h.cards === null ? 9 : 21;
    const x0 = right - 36 - w - step * Math.max(0, h.count - 1);
    for (let k = 0; k < h.count; k++) {
      if (h.cards === null) handNode.append(back(x0 + k * step, 14, w, 30));
      else handNode.append(el("rect", { x: x0 + k * step, y: 14, width: w, height: 30, rx: 3, class: `c-${h.cards[k]} mini-card` }));
    }
    handNode.append(text(right, 38, h.count, "count end"));
    row.append(handNode);
    g.append(row);
  }
  return { node: g, width, height: table.players * ROW_H };
}

function ordinal(n) {
  return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`;
}

// Words broken into lines of at most `chars` characters.
function wrap(content, chars) {
  const lines = [];
  for (const word of content.split(" ")) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= chars) lines[last] += " " + word;
    else lines.push(word);
  }
  return lines;
}

// Whose turn or the result, the caption that a hovered field fills, and the moves since the
// seat's last turn as numbered chips in the movers' colours (the same numbers as on the board).
export function status(table, view, width) {
  const g = el("g", { class: "status" });
  const font = view.font;
  const chars = Math.floor(width / (font * 0.6));
  let y = 0;
  const lines = wrap(view.message, chars);
  lines.forEach((line) => {
    y += font + 8;
    g.append(text(0, y, line, "message"));
  });
  y += font + 8;
  g.append(text(0, y, view.caption, "caption", { "data-testid": "caption", "data-default": view.caption }));
  if (table.recent.length) {
    y += 14;
    const head = view.seat === null ? "Last moves:" : "Since your last turn:";
    y += font;
    g.append(text(0, y, head, "small"));
    let x = 0;
    y += 10;
    const recent = el("g", { "data-testid": "recent" });
    for (const m of table.recent) {
      const label = m.field >= 0 ? m.text : m.revealed ? `blocked, threw ${m.revealed}` : "blocked";
      const w = 44 + label.length * font * 0.55;
      if (x > 0 && x + w > width) {
        x = 0;
        y += 40;
      }
      const chip = place(el("g", { class: "recent-move" }, title(`${m.number}. ${view.names[m.seat]}: ${label}`)), x, y);
      chip.append(el("circle", { cx: 15, cy: 16, r: 14, class: `seat-${m.seat}` }), text(15, 24, m.number, `badge-text on-seat-${m.seat}`), text(36, 24, label, "small"));
      recent.append(chip);
      x += w + 12;
    }
    g.append(recent);
    y += 36;
  }
  return { node: g, width, height: y + 8 };
}
