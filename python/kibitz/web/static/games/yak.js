// Yak's table for kibitz's web page (docs/web-views.md): the village ring with its carts, the
// market, the mountain and the bag, and each player's card, yurt and tower. Every move is made by
// clicking what it moves; the helpers live in ./yak/.

import { readTable, total } from "./yak/table.js";
import { scoreTable } from "./yak/score.js";
import { freshSelection, makePicks, marks, hintOf } from "./yak/picks.js";
import { drawVillage, drawSupply } from "./yak/village.js";
import { drawSeat } from "./yak/seats.js";

export const title = "Yak";

const selections = new WeakMap();  // root -> the clicks of a decision in progress

export function render(root, model, act) {
  useStyle(root);
  const key = JSON.stringify([model.seat, model.fields.step, model.legal ?? []]);
  let sel = selections.get(root);
  if (!sel || sel.key !== key) selections.set(root, (sel = freshSelection(key)));
  const table = readTable(model);
  const names = model.names ?? Array.from({ length: table.players }, (_, s) => `seat ${s}`);
  const update = () => render(root, model, act);
  const ctx = {
    model, table, names, sel,
    scores: scoreTable(table),
    picks: makePicks(model, table, sel, act, update),
    marks: marks(model),
    hint: hintOf(model),
    short: (seat, n = 14) => (names[seat].length > n ? `${names[seat].slice(0, n - 1)}…` : names[seat]),
  };
  root.classList.add("view-yak");
  const seats = Array.from({ length: table.players }, (_, k) => ((table.viewer ?? 0) + k) % table.players);
  root.replaceChildren(
    bar(ctx),
    div("yak-board", drawVillage(ctx), drawSupply(ctx)),
    div("yak-seats", ...seats.map((s) => drawSeat(ctx, s))),
  );
}

function div(cls, ...children) {
  const node = document.createElement("div");
  node.className = cls;
  node.append(...children);
  return node;
}

// The shell loads games/yak.css when present; a page without it still gets it once.
function useStyle(root) {
  const href = new URL("./yak.css", import.meta.url).href;
  const doc = root.ownerDocument;
  if ([...doc.querySelectorAll("link[rel=stylesheet]")].some((l) => l.href === href)) return;
  const link = doc.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  doc.head.append(link);
}

// The line above the table: the round, the phase and whose step it is; what the step asks of
// the viewer; the buttons of the moves that have no thing to click.
function bar(ctx) {
  const { table, picks, sel, model } = ctx;
  const node = div("yak-bar");
  node.setAttribute("data-testid", "prompt");
  const status = div("yak-status", statusLine(ctx));
  const ending = endLine(table);
  if (ending) status.append(" · ", Object.assign(document.createElement("strong"), { textContent: ending }));
  node.append(status);
  const ask = picks.deciding ? promptLine(ctx) : waitingLine(ctx);
  if (ask) node.append(div("yak-ask", ask));
  if (sel.notice) node.append(div("yak-notice", sel.notice));
  const buttons = div("yak-buttons");
  for (const { label, move } of picks.buttons()) {
    const b = button(label, () => picks.send(move));
    b.classList.add("legal");
    b.setAttribute("data-legal", "");
    b.setAttribute("data-move", move);
    if (model.hint === move) b.classList.add("hint");
    buttons.append(b);
  }
  if (picks.picking()) buttons.append(button("Clear", picks.clear));
  if (buttons.childElementCount) node.append(buttons);
  return node;
}

function button(label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

function statusLine({ table, names, model }) {
  const round = `Round ${table.round}`;
  if (model.terminal || table.step === "over") {
    const ranks = model.ranks ?? [];
    const winners = names.filter((_, s) => ranks[s] === 1);
    return winners.length ? `Game over after round ${table.round}: ${winners.join(" and ")} win${winners.length === 1 && winners[0] !== "You" ? "s" : ""}` : `Game over after round ${table.round}`;
  }
  if (table.step === "choose") {
    const waiting = table.cards.map((c, s) => (c === "-" ? names[s] : null)).filter((n) => n !== null);
    return `${round} · Sunrise: everyone chooses a card in secret${waiting.length ? ` (still to choose: ${waiting.join(", ")})` : ""}`;
  }
  const card = table.cards[table.actor];
  return `${round} · Noon · ${names[table.actor]}: ${card[0].toUpperCase()}${card.slice(1)}, ${STEP_WORDS[table.step] ?? table.step}`;
}

const STEP_WORDS = {
  build: "buying stones", pay: "paying", overflow: "sending food on to the market", place: "placing stones",
  restock: "taking food", take: "taking food from the market", put: "putting a stone into a cart", draw: "drawing from the bag",
};

function endLine(table) {
  if (table.trigger === null || table.step === "over") return "";
  return table.round > table.trigger ? "last round!" : `the stupa is taken: round ${table.trigger + 1} is the last`;
}

const cost = (options) => (options.length ? options[0].length : 0);

// What the decision asks, in a newcomer's words.
function promptLine(ctx) {
  const { table, picks, sel } = ctx;
  const m = picks.moves;
  const cart = table.actor === null ? null : table.carts[table.actor];
  if (m.choose.length) return "Choose your card for this round (Build, Restock or Market). The others see only that you have chosen, until your turn.";
  if (m.build.length) {
    const kinds = picks.buildChoice();
    const picked = kinds.length ? ` Chosen: ${kinds.join(" ")}.` : "";
    return `Build: click up to 3 stones in the cart before you (1, 3 or 5 food for 1, 2 or 3 stones, +1 per crystal X), then Buy; or Buy nothing.${picked}`;
  }
  if (m.pay.length) {
    const accepts = cart.refuses ? `anything but ${cart.refuses}` : "at most two kinds";
    return `Pay ${cost(m.pay)} food into the cart (${accepts}): click ${cost(m.pay)} tokens in your yurt.`;
  }
  if (m.overflow.length) {
    const n = cost(m.overflow);
    return `The cart now holds ${total(cart.food)} food, more than 9: click ${n} of the food you just paid (${table.paid.join(" ")}) in the cart; ${n === 1 ? "it goes" : "they go"} to the market.${sel.overflow.length ? ` Chosen: ${sel.overflow.join(" ")}.` : ""}`;
  }
  if (m.place.length) {
    const one = new Set(table.bought).size === 1;
    return one ? `Place your stone ${table.bought[0]}: click a highlighted place in your tower.` : "Place your stones one at a time: click a stone to place, then a highlighted place in your tower.";
  }
  if (m.restock.length) return "Restock: click a food kind in the cart before you; you take all of it that fits in your yurt (8 food at most). Then a stone is drawn into the cart.";
  if (m.take.length) {
    const n = cost(m.take);
    return n ? `Market: click ${n} food in the market to take them.${sel.take.length ? ` Chosen: ${sel.take.join(" ")}.` : ""}` : "Market: there is nothing you can take (market empty or yurt full): take nothing.";
  }
  if (m.put.length) {
    const one = new Set(table.drawn).size === 1;
    return one ? `Put the drawn stone ${table.drawn[0]} into a cart with room: click the cart.` : "Put one of the drawn stones into a cart with room: click the stone, then the cart.";
  }
  return "Your move: click a highlighted button.";
}

function waitingLine({ model, table, names }) {
  if (model.replay || model.terminal || table.viewer === null) return "";
  const mine = (model.mine ?? []).includes(table.viewer);
  if (!mine) return "";
  if (table.step === "choose" && table.cards[table.viewer] !== "-") return `You chose ${table.cards[table.viewer]} (only you see it); waiting for the others.`;
  const next = (model.toMove ?? []).map((s) => names[s]);
  return next.length ? `Waiting for ${next.join(", ")}…` : "";
}
