// Just 4 Fun Colours at the web table (docs/web-views.md): the coloured map with its towers,
// the seat's hand, the piles and the seats. A move is a field: clicking a highlighted field
// places a stone there, paying height + 1 cards of its colour; when no field can be paid for,
// clicking the hand (or its button) plays the blocked turn. Clicking a card first narrows the
// highlighted fields to that colour and shows what each costs.

import { COLOUR_NAMES, STONES, colourOf, fieldIndex, lines, price, readTable } from "./just4fun_colours/table.js";
import * as draw from "./just4fun_colours/draw.js";
import { svg as el } from "../svg.js";

export const title = "Just 4 Fun Colours";

const NARROW = 720; // px: below this the parts are stacked (a phone)
const GAP = 24;
const memory = new WeakMap(); // root → {model, act, selected, legalKey, narrow, observer}

export function render(root, model, act) {
  let ui = memory.get(root);
  if (!ui) {
    ui = { selected: null, legalKey: null, narrow: null };
    memory.set(root, ui);
    watchWidth(root, ui);
  }
  const legalKey = `${model.seat}|${(model.legal || []).join(" ")}`;
  if (legalKey !== ui.legalKey) ui.selected = null;
  Object.assign(ui, { model, act, legalKey });
  redraw(root, ui);
}

// Redraws when the root crosses the phone width (the layout changes; the viewBox scales the rest).
function watchWidth(root, ui) {
  if (typeof ResizeObserver === "undefined") return;
  ui.observer = new ResizeObserver(() => {
    // next frame: redrawing inside the observer's callback would resize what it observes
    requestAnimationFrame(() => {
      if (ui.model && isNarrow(root) !== ui.narrow) redraw(root, ui);
    });
  });
  ui.observer.observe(root);
}

function isNarrow(root) {
  const width = root.clientWidth || window.innerWidth;
  return width < NARROW;
}

function names(model) {
  return Array.from({ length: model.players }, (_, s) => (model.names && model.names[s]) || `Seat ${s}`);
}

// What the parts need beyond the table: who may click what, the marks and the words.
function viewOf(table, model, selected, narrow) {
  const seat = model.seat === null || model.seat === undefined ? null : model.seat;
  const canAct = seat !== null && !model.replay && !model.terminal && (model.mine || []).includes(seat);
  const legalColours = new Set([...table.legalFields].map(colourOf));
  const pick = selected && table.hands[seat] && table.hands[seat].cards !== null ? selected : null;
  const view = {
    seat,
    font: narrow ? 24 : 22, // the text's size in the viewBox (just4fun_colours.css): 12 px or more on a phone
    names: names(model),
    canAct,
    selected: pick,
    legalColours,
    legalFields: pick ? new Set([...table.legalFields].filter((f) => colourOf(f) === pick)) : table.legalFields,
    dim: new Set(),
    hint: model.hint || null,
    win: new Set(), // the winning line, or the winners' largest areas
    byLine: false,
    toMove: model.toMove || [],
    ranks: model.terminal && model.ranks ? model.ranks : null,
  };
  for (let f = 0; f < table.board.length; f++) {
    const offColour = pick && colourOf(f) !== pick;
    const unplayable = canAct && table.legalFields.size > 0 && !table.legalFields.has(f);
    if (offColour || (unplayable && !pick)) view.dim.add(f);
  }
  if (model.terminal && !model.adjudication) {
    view.win = lines(table.board, table.line);
    view.byLine = view.win.size > 0;
    if (!view.byLine) (model.returns || []).forEach((r, s) => r > 0 && table.areas[s].fields.forEach((f) => view.win.add(f)));
  }
  view.message = message(table, model, view);
  view.caption = caption(table, view);
  return view;
}

function message(table, model, view) {
  const who = (seats) => seats.map((s) => view.names[s]).join(" and ");
  if (model.terminal) {
    const winners = (model.returns || []).map((r, s) => (r > 0 ? s : -1)).filter((s) => s >= 0);
    const verb = winners.length === 1 && view.names[winners[0]] !== "You" ? "wins" : "win";
    const forfeit = model.adjudication;
    if (forfeit) return `Game over: ${view.names[forfeit.seat] || forfeit.label} ${forfeit.reason === "resigned" ? "resigned" : `forfeits (${forfeit.reason})`}.`;
    if (view.byLine) return `Game over: ${who(winners)} ${verb} with a line of ${table.line}.`;
    const best = winners.length ? table.areas[winners[0]] : { size: 0, stones: 0 };
    return `Game over after ${STONES} rounds: ${who(winners)} ${verb} with an area of ${best.size} fields (${best.stones} stones).`;
  }
  const round = `Round ${table.round} of ${STONES}, a line of ${table.line} wins.`;
  if (view.canAct && table.blockedLegal) return `${round} You are blocked: no field can be paid for. Click your hand to throw it away, draw 7 cards and box a stone.`;
  if (view.canAct) return `${round} Your turn: click a highlighted field to place a stone there.`;
  if (model.replay) return `Replay. ${round}`;
  if (view.toMove.length) return `${round} ${who(view.toMove)} to move.`;
  return round;
}

function caption(table, view) {
  if (view.selected) {
    const n = [...table.hands[view.seat].cards].filter((c) => c === view.selected).length;
    return `${n} ${COLOUR_NAMES[view.selected]} in hand; the tags give each price.`;
  }
  if (view.canAct && !table.blockedLegal) return "A field costs height + 1 cards of its colour.";
  return "";
}

// The words and the lifted cards while a field is pointed at: what placing there would pay.
function preview(svg, table, view, name) {
  const captionNode = svg.querySelector("[data-testid=caption]");
  svg.querySelectorAll(".hand-card.pay").forEach((c) => c.classList.remove("pay"));
  if (!name) {
    captionNode.textContent = captionNode.dataset.default;
    return;
  }
  const f = fieldIndex(name);
  const { colour, count } = price(table, f);
  const own = view.seat !== null && table.hands[view.seat] ? table.hands[view.seat].cards : null;
  let words = `${name}: ${count} ${COLOUR_NAMES[colour]} card${count > 1 ? "s" : ""}`;
  if (own !== null) {
    const held = [...own].filter((c) => c === colour).length;
    words += held >= count ? ` of your ${held}` : ` (you hold ${held})`;
    [...svg.querySelectorAll(`.hand-card[data-card=${colour}]`)].slice(0, count).forEach((c) => c.classList.add("pay"));
  }
  captionNode.textContent = words;
}

function redraw(root, ui) {
  const { model } = ui;
  const table = readTable(model);
  ui.narrow = isNarrow(root);
  const view = viewOf(table, model, ui.selected, ui.narrow);
  const svg = layout(table, view, ui.narrow);
  wire(svg, root, ui, table, view);
  root.classList.add("view-just4fun_colours"); // the shell sets it too: it scopes the css
  root.replaceChildren(svg);
}

// The parts placed for a phone (stacked) or a laptop (board left, the rest right).
function layout(table, view, narrow) {
  const pad = 12;
  const boardPart = draw.board(table, view);
  const column = narrow ? boardPart.width : 500;
  const parts = [draw.status(table, view, column)];
  if (narrow) parts.push(boardPart);
  if (view.seat !== null && table.hands[view.seat] && table.hands[view.seat].cards !== null) parts.push(draw.hand(table, view, column));
  parts.push(draw.piles(table, column), draw.seats(table, view, column));
  const x0 = narrow ? pad : pad + boardPart.width + GAP;
  let y = pad;
  const svg = el("svg", { class: `j4fc-table${narrow ? " narrow" : ""}`, "data-testid": "table" });
  for (const part of parts) {
    part.node.setAttribute("transform", `translate(${x0} ${y})`);
    svg.append(part.node);
    y += part.height + GAP;
  }
  if (!narrow) {
    boardPart.node.setAttribute("transform", `translate(${pad} ${pad})`);
    svg.append(boardPart.node);
  }
  const width = x0 + column + pad;
  const height = Math.max(y - GAP, narrow ? 0 : pad + boardPart.height) + pad;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", "100%");
  return svg;
}

function wire(svg, root, ui, table, view) {
  const choose = (target) => {
    const move = target.closest("[data-move]");
    const fieldNode = target.closest("[data-field]");
    const cardNode = target.closest("[data-card]");
    if (move && view.canAct) return ui.act(move.dataset.move);
    if (fieldNode && view.canAct) return ui.act(fieldNode.dataset.field); // the engine says why not
    if (cardNode && !ui.model.replay) {
      ui.selected = ui.selected === cardNode.dataset.card ? null : cardNode.dataset.card;
      redraw(root, ui);
    }
  };
  svg.addEventListener("click", (event) => choose(event.target));
  svg.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && event.target.closest("[data-field],[data-card],[data-move]")) {
      event.preventDefault();
      choose(event.target);
    }
  });
  const pointed = (event) => {
    const node = event.target.closest && event.target.closest("[data-field]");
    preview(svg, table, view, node ? node.dataset.field : null);
  };
  svg.addEventListener("pointerover", pointed);
  svg.addEventListener("focusin", pointed);
  svg.addEventListener("pointerleave", () => preview(svg, table, view, null));
}
