// The tile Canasta table, section by section from top to bottom: the other three seats, the
// opponents' melds, the stock, pile and scores, the viewer's team's melds, the rack.
// Each section draws into the SVG at height y and returns the height it used.

import { legal, clickable } from "../../svg.js";
import { el, text, title, fit, tile, back, backs, flow, meld, meldWidth, newMeld, MELD_HEIGHT } from "./draw.js";
import { counts, order, isWild, blocks, kindName, threshold, teamOf, handSize, meldValue, canastaBonus, parseMeld } from "./tiles.js";
import { rackClick, meldClick, pileClick, stockClick, selectedCount, seatLabel, place, layOf, role, chosenLay } from "./turn.js";

const PAD = 10;

// Marks `node` with what a click on it does (docs/web-views.md, "Clicking").
export function wire(node, answer, ctx) {
  if (answer.legal) legal(node, answer.move);
  else if (answer.move) node.setAttribute("data-move", answer.move);
  if (answer.move && answer.move === ctx.model.hint) node.classList.add("hint");
  if (answer.effect) {
    node.classList.add("ct-click");
    clickable(node, (event) => {
      event.stopPropagation();
      ctx.onEffect(answer.effect);
    });
  }
  return node;
}

const SMALL = [24, 32];
const TILES_AT = 44; // below the name and the tile count

// The other three seats: name, tile count, known tiles face up, the rest as backs.
export function seats(svg, y, ctx) {
  const { v, model, viewer, W } = ctx;
  const gap = 8;
  const pw = (W - 2 * PAD - 2 * gap) / 3;
  const panels = [];
  let tallest = 0;
  for (const rel of [1, 2, 3]) {
    const seat = (viewer + rel) % 4;
    const x = PAD + (rel - 1) * (pw + gap);
    const g = el("g", { class: `ct-seat ct-seat-${seat}`, "data-testid": `hand-${seat}` });
    const hand = v.hands[seat];
    const n = handSize(hand);
    const name = (model.names && model.names[seat]) || `Seat ${seat}`;
    g.append(text(x + 12, y + 19, fit(name, pw - 20, 15), { class: "ct-name", "font-size": 15 }, title(seatLabel(model, viewer, seat))));
    const tiles = `${n} tile${n === 1 ? "" : "s"}`;
    g.append(text(x + 12, y + 36, `${place(viewer, seat)} · ${W < 600 ? n : tiles}`, { class: "ct-note", "font-size": 13 }, title(tiles)));
    const [w, h] = SMALL;
    let used;
    if (Array.isArray(hand)) {
      const items = sortTiles(hand, "number").map((k) => ({ w, h, draw: (tx, ty) => g.append(tile(k, tx, ty, w, h)) }));
      used = flow(items, x + 8, y + TILES_AT, pw - 16, 2, 4);
    } else {
      const known = Array.isArray(v.known[seat]) ? v.known[seat] : [];
      const items = sortTiles(known, "number").map((k) => ({ w, h, draw: (tx, ty) => g.append(tile(k, tx, ty, w, h, { known: true, tip: `${kindName(k)}: known to be in this hand (from the pile)` })) }));
      const hidden = n - known.length;
      if (hidden > 0) items.push({ w: pw - 16, h, draw: (tx, ty) => g.append(backs(hidden, tx, ty, w, h, x + pw - 8 - tx)) });
      used = flow(items, x + 8, y + TILES_AT, pw - 16, 2, 4);
    }
    const said = (ctx.recent.byseat[seat] || []).filter(Boolean);
    let height = TILES_AT + Math.max(used, h) + 6;
    if (said.length) {
      g.append(text(x + 8, y + height + 10, fit(said.join(", "), pw - 16, 13), { class: "ct-said", "font-size": 13 }, title(said.join(", "))));
      height += 16;
    }
    panels.push({ g, x, seat, height });
    tallest = Math.max(tallest, height);
  }
  for (const { g, x, seat } of panels) {
    const frame = el("rect", { class: "ct-panel", x, y, width: pw, height: tallest, rx: 6 });
    if ((model.toMove || []).includes(seat)) frame.classList.add("ct-to-move");
    if (ctx.recent.seats.has(seat)) g.classList.add("last");
    g.prepend(frame, el("rect", { class: `ct-stripe`, x, y, width: 5, height: tallest, rx: 2 }));
    svg.append(g);
  }
  return tallest;
}

// A team's row: who, opened or not, its bonus threes and table value, then its melds.
export function team(svg, y, ctx, t) {
  const { v, viewer, W, model } = ctx;
  const ours = t === teamOf(viewer);
  const g = el("g", { class: `ct-team ${ours ? "ct-ours" : "ct-theirs"}`, "data-testid": `melds-${t}` });
  const who = [t, t + 2].map((s) => seatLabel(model, viewer, s)).join(" & ");
  const head = ours ? "Your team" : "Opponents";
  const melds = v.melds[t];
  const onTable = melds.reduce((sum, m) => sum + meldValue(m) + canastaBonus(m), 0);
  g.append(el("rect", { class: "ct-band", x: PAD, y, width: W - 2 * PAD, height: 22, rx: 4 }));
  const need = threshold(v.totals[t]);
  const narrow = W < 600;
  const state = v.opened[t] ? `opened · ${onTable}${narrow ? "" : " on the table"}` : `${narrow ? "" : "not opened · "}needs ${need}`;
  const room = W - 2 * PAD - 24 - v.bonus[t] * 21 - state.length * 13 * 0.56;
  g.append(text(PAD + 8, y + 16, fit(`${head}: ${who}`, room, 14), { class: "ct-team-name", "font-size": 14 }, title(`${head}: ${who}`)));
  g.append(text(W - PAD - 10 - v.bonus[t] * 21, y + 16, state, { class: "ct-note", "font-size": 13, "text-anchor": "end" }));
  for (let i = 0; i < v.bonus[t]; i++) g.append(tile("r3", W - PAD - 24 - i * 21, y - 3, 19, 27, { tip: "a bonus 3 of this team: +100 if it opens, -100 if not" }));
  const items = melds.map((m) => ({
    w: meldWidth(m),
    h: MELD_HEIGHT,
    draw: (x, my) => {
      const node = meld(m, x, my);
      if (ctx.recent.melds.has(`${t}:${m.rank}`)) node.classList.add("last");
      if (ours && !ctx.open) wire(node, meldClick(ctx, m.rank), ctx);
      markHint(node, ctx, m.rank);
      g.append(node);
    },
  }));
  const slot = ours && !ctx.open ? newSlot(ctx, melds, g) : null;
  if (slot) items.push(slot);
  if (!items.length) {
    g.append(text(PAD + 8, y + 44, v.opened[t] ? "no melds" : `no melds yet (the opening lay must be worth ${need})`, { class: "ct-note", "font-size": 13 }));
    svg.append(g);
    return 56;
  }
  const used = flow(items, PAD + 8, y + 32, W - 2 * PAD - 16, 12, 10);
  svg.append(g);
  return 32 + used + 4;
}

// The dashed place for a new meld: offered when the chosen tile or the lay being shaped is of
// a rank the team has no meld of.
function newSlot(ctx, melds, g) {
  const { v, sel, t } = ctx;
  let rank = null;
  let preview = null;
  if (v.phase === "shape" && t.active) {
    rank = v.chosen;
    preview = chosenLay(t, sel) || layOf(v.chosen, sel);
    if (v.takeRank === v.chosen && !v.opened[teamOf(v.turn)]) preview = { ...preview, naturals: preview.naturals + 1 };
    if (preview.naturals + preview.twos + preview.jokers === 0) preview = null;
  } else if (sel.kind && t.ranks.has(sel.kind)) rank = sel.kind;
  if (!rank || melds.some((m) => m.rank === rank)) return null;
  const probe = newMeld(rank, 0, 0, preview);
  return {
    w: probe.w,
    h: MELD_HEIGHT,
    draw: (x, y) => {
      const { node } = newMeld(rank, x, y, preview);
      node.setAttribute("data-testid", "new-meld");
      wire(node, meldClick(ctx, rank), ctx);
      g.append(node);
    },
  };
}

function markHint(node, ctx, rank) {
  const hint = ctx.model.hint || "";
  if (hint === `rank:${rank}` || hint.startsWith(`lay:${rank}x`)) node.classList.add("hint");
}

const PILE_TILE = [44, 60];

// The stock, the pile (top, blocked or not, the tiles below) and the scores.
export function middle(svg, y, ctx) {
  const { v, W } = ctx;
  const [w, h] = PILE_TILE;
  const top = y + 22;
  // The stock.
  const stock = el("g", { class: "ct-stock", "data-testid": "stock" }, title(`stock: ${v.stock} face-down tiles`));
  for (let i = 2; i >= 0; i--) stock.append(back(PAD + 8 + i * 3, top - i * 3, w, h));
  stock.append(text(PAD + 8 + w / 2 + 3, top + h * 0.62, v.stock, { class: "ct-stock-count", "font-size": 20, "text-anchor": "middle" }));
  stock.append(text(PAD + 8, y + 12, "Stock", { class: "ct-label-small", "font-size": 13 }));
  if (v.stockJoker !== null) stock.append(text(PAD + 8, top + h + 16, v.stockJoker ? "★ joker inside" : "no joker", { class: "ct-note", "font-size": 13 }));
  if (ctx.recent.draw) stock.classList.add("last");
  if (ctx.model.hint === "draw") stock.classList.add("hint");
  if (!ctx.open) wire(stock, stockClick(ctx), ctx);
  svg.append(stock);

  // The pile.
  const px = PAD + 8 + w + 26;
  const pile = el("g", { class: "ct-pile", "data-testid": "pile" });
  const below = Array.isArray(v.pile) ? v.pile.length : v.pile.hidden;
  const size = below + (v.top ? 1 : 0);
  pile.append(text(px, y + 12, `Pile · ${size}`, { class: "ct-label-small", "font-size": 13 }));
  pile.append(el("rect", { class: "ct-pile-area", x: px - 4, y: top - 4, width: w + 8, height: h + 8, rx: 6 }));
  if (v.top) {
    const topTile = tile(v.top, px, top, w, h, { cls: "ct-top" });
    if (ctx.recent.discard) topTile.classList.add("last");
    pile.append(topTile);
  } else pile.append(text(px + w / 2, top + h / 2 + 4, below ? "taken" : "empty", { class: "ct-note", "font-size": 13, "text-anchor": "middle" }));
  const frozen = v.top && blocks(v.top);
  pile.append(title(v.top ? `the pile: ${size} tiles, ${kindName(v.top)} on top${frozen ? " (blocked: a wild or a 3 on top)" : ""}` : below ? "the pile is being taken" : "the pile is empty"));
  if (frozen) {
    pile.append(el("rect", { class: "ct-blocked", x: px - 6, y: top + h + 6, width: w + 12, height: 16, rx: 3 }));
    pile.append(text(px + w / 2, top + h + 18, "BLOCKED", { class: "ct-blocked-text", "font-size": 12, "text-anchor": "middle" }));
  }
  // The tiles below the top: beside it on a wide table; on a narrow one under the stock, the
  // pile and the scores (which then stand beside the pile).
  const beside = W * 0.5 - (px + w + 12) >= 160;
  const scoreHeight = scores(svg, y, ctx, beside ? W * 0.5 + 10 : px + w + 20);
  const bx = beside ? px + w + 12 : PAD + 8;
  const by = beside ? top : Math.max(top + h + (frozen || v.stockJoker !== null ? 30 : 12), y + scoreHeight + 8);
  const bw = beside ? W * 0.5 - bx : W * 0.5;
  let belowHeight = 0;
  if (Array.isArray(v.pile) && v.pile.length) {
    pile.append(text(bx, by + 8, v.top ? "below the top:" : "to pick up:", { class: "ct-note", "font-size": 13 }));
    const items = sortTiles(v.pile, "number").map((k) => ({ w: 22, h: 30, draw: (x, ty) => pile.append(tile(k, x, ty, 22, 30)) }));
    belowHeight = by - top + flow(items, bx, by + 14, bw, 2, 3) + 14;
  } else if (below) {
    pile.append(text(bx, by + 20, `${below} hidden below`, { class: "ct-note", "font-size": 13 }));
    belowHeight = by - top + 26;
  }
  if (ctx.model.hint === "take") pile.classList.add("hint");
  if (!ctx.open) wire(pile, pileClick(ctx), ctx);
  svg.append(pile);

  return Math.max(22 + h + (v.stockJoker !== null || frozen ? 24 : 8), 22 + belowHeight + 4, scoreHeight);
}

// The match totals, the round, and each team's opening need.
function scores(svg, y, ctx, x) {
  const { v, viewer, W, model } = ctx;
  const g = el("g", { class: "ct-scores", "data-testid": "scores" });
  const mine = teamOf(viewer);
  const width = W - PAD - x;
  const mode = { one_round: "one round", three_rounds: "three rounds", target_10000: "to 10,000" }[v.mode] || v.mode;
  const round = v.phase === "over" ? v.rounds : v.rounds + 1;
  const lines = [[`Round ${round}${v.mode === "three_rounds" ? " of 3" : ""} · ${mode}${v.tiebreak ? " · tie-break" : ""}`, "ct-note"]];
  g.append(el("rect", { class: "ct-panel", x, y, width, height: 0, rx: 6 }));
  let ly = y + 20;
  g.append(text(x + 10, ly, fit(lines[0][0], width - 20, 13), { class: "ct-note", "font-size": 13 }));
  for (const t of [mine, 1 - mine]) {
    ly += 22;
    const who = t === mine ? "Your team" : "Opponents";
    g.append(text(x + 10, ly, who, { class: `ct-score-name ct-team-${t === mine ? "us" : "them"}`, "font-size": 16 }));
    g.append(text(x + width - 10, ly, v.totals[t], { class: "ct-score", "font-size": 18, "text-anchor": "end" }));
    if (v.rounds > 0 && v.phase !== "over") {
      ly += 15;
      g.append(text(x + width - 10, ly, `last round ${signed(v.lastRound[t])}`, { class: "ct-note", "font-size": 13, "text-anchor": "end" }));
    }
  }
  ly += 18;
  const turn = model.terminal ? "" : `To move: ${place(viewer, v.turn) === "you" ? "you" : place(viewer, v.turn)}`;
  g.append(text(x + 10, ly, turn, { class: "ct-note", "font-size": 13 }));
  const height = ly - y + 10;
  g.firstChild.setAttribute("height", height);
  svg.append(g);
  return height;
}

const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

// The order of the rack: by number (1, 4..13, then 2s, jokers and 3s), or by sets (the
// largest groups first).
const NUMBER_ORDER = (k) => (isWild(k) || k === "k3" || k === "r3" ? 20 + order(k) : order(k));

export function sortTiles(tiles, mode) {
  const c = counts(tiles);
  const kinds = Object.keys(c).sort((a, b) => {
    if (mode === "sets" && !isWild(a) && !isWild(b) && a !== "k3" && b !== "k3" && c[a] !== c[b]) return c[b] - c[a];
    return NUMBER_ORDER(a) - NUMBER_ORDER(b);
  });
  return kinds.flatMap((k) => Array(c[k]).fill(k));
}

const RACK_TILE = [40, 54];

// The viewer's rack, with the selected tiles raised and the known ones marked.
export function rack(svg, y, ctx) {
  const { v, viewer, W } = ctx;
  const hand = v.hands[viewer];
  const tiles = Array.isArray(hand) ? hand : [];
  const g = el("g", { class: "ct-rack", "data-testid": `hand-${viewer}` });
  const size = `${tiles.length} tile${tiles.length === 1 ? "" : "s"}`;
  const label = ctx.open ? `${seatLabel(ctx.model, viewer, viewer)}: ${size}` : `Your rack: ${size}`;
  g.append(text(PAD + 8, y + 14, label, { class: "ct-label-small", "font-size": 14 }));
  const known = counts(Array.isArray(v.known[viewer]) ? v.known[viewer] : []);
  const [w, h] = RACK_TILE;
  const sorted = sortTiles(tiles, ctx.sort);
  const seen = {};
  const items = sorted.map((k, i) => {
    const index = (seen[k] = (seen[k] ?? -1) + 1);
    const raised = index < selectedCount(v, ctx.sel, k);
    const isKnown = index >= counts(tiles)[k] - (known[k] || 0);
    const gap = sorted[i + 1] !== undefined && sorted[i + 1] !== k ? 9 : 3;
    return {
      w,
      h: h + 12,
      gap,
      draw: (x, ty) => {
        const node = tile(k, x, ty + (raised ? 0 : 12), w, h, { cls: raised ? "ct-selected" : "", known: isKnown });
        if (!ctx.open) wire(node, rackClick(ctx, k, raised), ctx);
        rackHint(node, ctx, k, index);
        g.append(node);
      },
    };
  });
  const used = flow(items, PAD + 8, y + 20, W - 2 * PAD - 16, 3, 4);
  svg.append(g);
  return 20 + used + 6;
}

// The tiles the engine's hint plays: the first of a kind to discard or lay, or the tiles of a lay.
function rackHint(node, ctx, kind, index) {
  const hint = ctx.model.hint || "";
  if (index === 0 && (hint === `discard:${kind}` || hint === `rank:${kind}`)) node.classList.add("hint");
  const part = role(kind, ctx.v.chosen);
  if (ctx.v.phase === "shape" && hint.startsWith("lay:") && part && index < parseMeld(hint.slice(4))[part]) node.classList.add("hint");
}
