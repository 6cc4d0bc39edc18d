// The tile Canasta table (docs/web-views.md): the other seats' racks as backs, both teams'
// melds with their canastas, the stock, the pile and the scores, and the viewer's rack. A turn
// is played by clicking: the stock or the pile to draw or take it, a rack tile then a meld (to
// lay) or the pile (to discard), the tiles of a lay then its meld; the steps without a thing
// to click (done, the known-tiles answer, the Joker button) are buttons under the table.

import { html, svg as el } from "../svg.js";
import { readView, teamOf, roundScore } from "./canasta_tiles/tiles.js";
import { readLegal, emptySelection, role, status, buttons, recent, seatLabel } from "./canasta_tiles/turn.js";
import { seats, team, middle, rack, wire } from "./canasta_tiles/table.js";

export const title = "Tile Canasta";

const NARROW = 600; // below this many pixels the table is laid out for a phone
const tables = new WeakMap(); // root -> {model, act, key, sel, narrow}
const SORT_KEY = "kibitz.canasta_tiles.sort";

export function render(root, model, act) {
  ensureStyle();
  let table = tables.get(root);
  if (!table) {
    table = { sort: storedSort() };
    tables.set(root, table);
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => {
        // The next frame: redrawing inside the observer's callback would resize what it watches.
        requestAnimationFrame(() => {
          if (table.model && root.isConnected && isNarrow(root) !== table.narrow) draw(root, table);
        });
      }).observe(root);
    }
  }
  table.model = model;
  table.act = act;
  const key = JSON.stringify([model.notation, model.legal, model.replay]);
  if (key !== table.key) {
    table.key = key;
    table.sel = null; // a new step: the selection starts again
  }
  draw(root, table);
}

function isNarrow(root) {
  const width = root.clientWidth || root.getBoundingClientRect().width || window.innerWidth;
  return width < NARROW;
}

function draw(root, table) {
  const { model } = table;
  const open = model.seat === null || model.seat === undefined;
  const viewer = open ? 0 : model.seat;
  const v = readView(model.fields || {}, viewer);
  const t = readLegal(model);
  if (!table.sel) table.sel = emptySelection();
  table.narrow = isNarrow(root);
  const W = table.narrow ? 400 : 1000;
  const ctx = {
    model,
    v,
    t,
    sel: table.sel,
    viewer,
    open,
    W,
    sort: table.sort,
    mine: !model.replay && !model.terminal && !open && (model.mine || []).includes(model.seat),
    recent: recent(model),
    onEffect: (effect) => apply(root, table, effect),
  };

  const svg = el("svg", { class: "ct-table", "data-testid": "board", width: "100%", role: "img" });
  svg.append(el("title", {}, "tile Canasta table"));
  const felt = el("rect", { class: "ct-felt", x: 0, y: 0, width: W, height: 0, rx: 10 });
  svg.append(felt);
  let y = 8;
  y += seats(svg, y, ctx) + 10;
  y += team(svg, y, ctx, 1 - teamOf(viewer)) + 6;
  y += middle(svg, y, ctx) + 8;
  y += team(svg, y, ctx, teamOf(viewer)) + 6;
  y += rack(svg, y, ctx) + 4;
  felt.setAttribute("height", y);
  svg.setAttribute("viewBox", `0 0 ${W} ${y}`);

  const view = html("div", { class: `view-canasta_tiles ct-view${table.narrow ? " ct-narrow" : ""}` }, svg, controls(root, table, ctx));
  if (model.terminal || v.phase === "over") view.append(result(ctx));
  root.replaceChildren(view);
}

function apply(root, table, effect) {
  const { sel } = table;
  if ("act" in effect) {
    table.act(effect.act);
    return;
  }
  const v = readView(table.model.fields || {}, table.model.seat ?? 0);
  if ("select" in effect) sel.kind = effect.select;
  if ("add" in effect) sel[role(effect.add, v.chosen)] += 1;
  if ("remove" in effect) sel[role(effect.remove, v.chosen)] -= 1;
  draw(root, table);
}

// The line saying what this step asks, and its buttons.
function controls(root, table, ctx) {
  const said = status(ctx);
  const line = html("div", { class: `ct-status${ctx.t.active ? " ct-your-turn" : ""}`, "data-testid": "status" },
    html("strong", {}, said.title), said.detail ? ` ${said.detail}` : null);
  const actions = html("div", { class: "ct-actions", "data-testid": "actions" });
  for (const b of buttons(ctx)) {
    const button = html("button", { type: "button", class: b.legal ? null : "ct-quiet", "data-testid": `button-${b.testid}` }, b.label);
    actions.append(wire(button, b, ctx));
  }
  if (!ctx.open) {
    const other = ctx.sort === "sets" ? "number" : "sets";
    const sort = () => {
      table.sort = other;
      try {
        localStorage.setItem(SORT_KEY, other);
      } catch {
        // no storage (a private window): the order holds for this page only
      }
      draw(root, table);
    };
    actions.append(html("button", { type: "button", class: "ct-quiet", "data-testid": "sort", title: "how your rack is ordered", onclick: sort }, `Sort by ${other}`));
  }
  return html("div", { class: "ct-bar" }, line, actions);
}

function storedSort() {
  try {
    return localStorage.getItem(SORT_KEY) === "sets" ? "sets" : "number";
  } catch {
    return "number";
  }
}

// The round's score, part by part (§1.13), and the match totals, once the game is over.
function result(ctx) {
  const { v, viewer, model } = ctx;
  const ours = teamOf(viewer);
  const teams = [ours, 1 - ours];
  const parts = teams.map((t) => roundScore(v, t));
  const name = (t) => (t === ours && !ctx.open ? "Your team" : `${seatLabel(model, viewer, t)} & ${seatLabel(model, viewer, t + 2)}`);
  const rows = [
    ["Melded tiles", ...parts.map((p) => p.melds)],
    ["Canasta bonuses", ...parts.map((p) => p.canastas)],
    ["Threes", ...parts.map((p) => p.threes)],
    ["Going out", ...parts.map((p) => p.out)],
    ["Tiles left in hand", ...parts.map((p) => p.hands)],
    ["This round", ...teams.map((t) => v.lastRound[t])],
    ["Match total", ...teams.map((t) => v.totals[t])],
  ];
  const won = v.totals[ours] > v.totals[1 - ours];
  let head = v.totals[0] === v.totals[1] ? "A tie." : ctx.open ? `${name(won ? ours : 1 - ours)} win.` : won ? "Your team wins." : "The opponents win.";
  const how = { out: `${seatLabel(model, viewer, v.wentOut ?? 0)} went out.`, stock: "The stock ran out.", bonus3: "A bonus 3 was drawn with no tile left to replace it." }[v.end];
  if (how) head += ` ${how}`;
  return html("div", { class: "ct-result", "data-testid": "result" },
    html("p", {}, head),
    html("table", {},
      html("tr", {}, html("th", {}, ""), teams.map((t) => html("th", {}, name(t)))),
      rows.map(([label, ...cells]) => html("tr", {}, html("td", {}, label), cells.map((c) => html("td", {}, c))))));
}

// The shell loads static/games/<game>.css; a page that does not (a test harness) still gets it.
function ensureStyle() {
  if (document.querySelector('link[href$="games/canasta_tiles.css"]')) return;
  document.head.append(html("link", { rel: "stylesheet", href: new URL("./canasta_tiles.css", import.meta.url).href }));
}
