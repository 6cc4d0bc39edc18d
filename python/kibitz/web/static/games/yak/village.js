// The village: the ring of stations with the carts before each yurt, the road the yaks follow,
// the market in the middle (and the stones a Market drew); and the supply: the mountain's fog
// track, the bag and Master Builder's bonus cards.

import { el, text, title, panel, stone, slot, food, wire, babyYak, badge } from "./draw.js";
import { FOODS, CART_LIMIT, CART_FOOD, TRACK, KINDS, total } from "./table.js";
import { BONUS } from "./score.js";

const W = 420, CART_W = 140, CART_H = 118;
// The ring for 3 or 4 stations: its centre, the carts' radius, the road's, the panel's height
// and the market's box in the middle.
const RINGS = {
  4: { cx: 210, cy: 200, r: 138, road: 138, h: 400, market: { x: 148, y: 125, w: 124, h: 150 } },
  3: { cx: 210, cy: 150, r: 150, road: 132, h: 362, market: { x: 152, y: 138, w: 116, h: 100 } },
};

const CART_LABEL = { NO_MEAT: "no meat", NO_MILK: "no milk", NO_BREAD: "no bread", TWO_KINDS: "2 kinds max" };

// The station at the bottom is the viewer's; stations follow clockwise on screen.
function stationPlace(table, station, bottom) {
  const ring = RINGS[table.stations];
  const k = (station - bottom + table.stations) % table.stations;
  const angle = Math.PI / 2 + (2 * Math.PI * k) / table.stations;
  return { x: ring.cx + ring.r * Math.cos(angle), y: ring.cy + ring.r * Math.sin(angle), angle };
}

export function drawVillage(ctx) {
  const { table } = ctx;
  const ring = RINGS[table.stations];
  const svg = panel(W, ring.h, "board", "the village: carts at the stations and the market");
  svg.classList.add("yak-wide");
  const bottom = table.viewer ?? 0;
  svg.append(el("circle", { class: "yak-road", cx: ring.cx, cy: ring.cy, r: ring.road }, title(`the yaks travel ${table.dir > 0 ? "clockwise" : "anticlockwise"}`)));
  for (let s = 0; s < table.stations; s += 1) {
    // An arrow on the road between each station and the next in the direction of travel.
    const { angle } = stationPlace(table, s, bottom);
    const mid = angle + (Math.PI / table.stations) * table.dir;
    const deg = (mid * 180) / Math.PI + (table.dir > 0 ? 90 : -90);
    svg.append(el("path", {
      class: "yak-arrow", d: "M-9,-8 L9,0 L-9,8 Z",
      transform: `translate(${ring.cx + ring.road * Math.cos(mid)} ${ring.cy + ring.road * Math.sin(mid)}) rotate(${deg})`,
    }));
  }
  for (let s = 0; s < table.stations; s += 1) svg.append(drawCart(ctx, s, stationPlace(table, s, bottom)));
  svg.append(drawMarket(ctx));
  return svg;
}

function drawCart(ctx, station, at) {
  const { table, picks, marks, hint, names } = ctx;
  const cart = table.carts[station];
  const x0 = at.x - CART_W / 2, y0 = at.y - CART_H / 2;
  const owner = station < table.players ? station : null;
  const g = el("g", { class: "yak-cart", transform: `translate(${x0} ${y0})`, "data-testid": `cart-${cart.name}`, "data-station": station });
  g.append(el("rect", { class: "box", width: CART_W, height: CART_H, rx: 10 },
    title(`${cart.name} cart at ${owner === null ? "the empty station" : `${names[owner]}'s yurt`}: ${cart.stones.length} of ${CART_LIMIT} stones, ${total(cart.food)} of ${CART_FOOD} food`)));
  wire(g, picks.cart(station), hint.is("put", undefined, cart.name), marks.carts.has(cart.name));  // a Market's put: the whole cart
  if (table.actor === station) g.classList.add("acting");
  // The owner's name tag, the baby yak.
  g.append(el("rect", { class: `tag seat-bg-${owner ?? "none"}`, width: CART_W, height: 24, rx: 10 }));
  g.append(text(8, 17, owner === null ? "nobody" : ctx.short(owner, 12), { class: "name left" }));
  if (owner !== null && table.baby === owner) g.append(babyYak(CART_W - 18, 12));
  g.append(text(8, 39, CART_LABEL[cart.name] ?? cart.name, { class: "small left" }));
  // Its stones: a purchase is clicked stone by stone.
  const hinted = table.actor === station ? hint.indices("build", cart.stones) : new Set();
  for (let i = 0; i < CART_LIMIT; i += 1) {
    const x = 22 + i * 32, y = 62;
    if (i >= cart.stones.length) { g.append(slot(x, y, 28)); continue; }
    const node = stone(cart.stones[i], x, y, 28);
    node.setAttribute("data-testid", `cart-stone-${station}-${i}`);
    g.append(wire(node, picks.cartStone(station, i), hinted.has(i)));
  }
  // Its food, kind by kind (Restock takes one kind; an overflow sends paid tokens on).
  FOODS.forEach((kind, f) => {
    const x = 22 + f * 46, y = 98;
    const refused = cart.refuses === kind;
    const pile = el("g", { class: `yak-pile${refused ? " refused" : ""}`, "data-testid": `cart-food-${station}-${kind}` },
      el("rect", { class: "hit", x: x - 16, y: y - 14, width: 44, height: 28, rx: 6 }),
      food(kind, x, y, 0.9), text(x + 14, y + 6, refused ? "–" : String(cart.food[f]), { class: "count left" }),
      title(refused ? `this cart refuses ${kind}` : `${cart.food[f]} ${kind}`));
    if (refused) pile.append(el("path", { class: "strike", d: `M${x - 12},${y + 10} L${x + 12},${y - 10}` }));
    const chosen = ctx.sel.overflow.filter((k) => k === kind).length;
    if (chosen && table.actor === station) pile.append(badge(x + 20, y - 14, `-${chosen}`));
    const pileHint = table.actor === station && (hint.is("restock", kind) || hint.is("overflow", kind));
    g.append(wire(pile, picks.cartFood(station, kind), pileHint));
  });
  return g;
}

function drawMarket(ctx) {
  const { table, picks, hint, marks } = ctx;
  const { x: x0, y: y0, w, h } = RINGS[table.stations].market;
  const four = table.stations === 4;
  const g = el("g", { class: `yak-market${marks.market ? " last" : ""}`, transform: `translate(${x0} ${y0})`, "data-testid": "market" });
  g.append(el("rect", { class: "box", width: w, height: h, rx: 12 }, title(`market: ${FOODS.map((k, f) => `${table.market[f]} ${k}`).join(", ")}`)));
  g.append(text(w / 2, 18, "Market", { class: "head" }));
  FOODS.forEach((kind, f) => {
    const x = w / 2 - 38 + f * 38, y = 44;
    const pile = el("g", { class: "yak-pile", "data-testid": `market-${kind}` },
      el("rect", { class: "hit", x: x - 18, y: y - 16, width: 36, height: 40, rx: 6 }),
      food(kind, x, y, 0.9), text(x, y + 22, String(table.market[f]), { class: "count" }), title(`${table.market[f]} ${kind} in the market`));
    const chosen = ctx.sel.take.filter((k) => k === kind).length;
    if (chosen) pile.append(badge(x + 14, y - 14, `+${chosen}`));
    g.append(wire(pile, picks.marketFood(kind), hint.is("take", kind)));
  });
  if (table.drawn.length) {
    const y = four ? 108 : 82;
    if (four) g.append(text(w / 2, y - 20, "drawn", { class: "small" }));
    const hinted = new Set(table.drawn.map((k, i) => (hint.is("put", k) ? i : -1)).filter((i) => i >= 0).slice(0, 1));
    table.drawn.forEach((kind, i) => {
      const node = stone(kind, w / 2 + (i - (table.drawn.length - 1) / 2) * 34, y + 4, 28);
      node.setAttribute("data-testid", `drawn-${i}`);
      g.append(wire(node, picks.drawn(i), hinted.has(i)));
    });
  }
  return g;
}

// The mountain's fog track, the bag's counts, the bonus cards.
export function drawSupply(ctx) {
  const { table } = ctx;
  const bonusRows = table.bonus.length ? 1 : 0;
  const svg = panel(W, 150 + bonusRows * 100, "supply", "the mountain, the bag and the bonus cards");
  svg.classList.add("yak-wide");
  const mountain = el("g", { "data-testid": "mountain", transform: "translate(10 8)" },
    el("path", { class: "yak-mountain", d: "M0,70 L45,8 L70,36 L95,14 L150,70 Z" }), text(75, 92, "Mountain", { class: "head" }),
    title(`fog track ${table.track} of ${TRACK}, filled ${table.fogFills} time${table.fogFills === 1 ? "" : "s"} (the second fill stays)`));
  for (let i = 0; i < TRACK; i += 1) {
    const x = 21 + i * 36, y = 112;
    mountain.append(i < table.track ? stone("F", x, y, 26) : slot(x, y, 26));
  }
  mountain.append(text(75, 140, `filled ${table.fogFills}× ${table.fogAside ? "· 1 aside" : ""}`, { class: "small" }));
  svg.append(mountain);
  // The bag: every piece is open once drawn, so its contents are counted from the table.
  const bag = el("g", { "data-testid": "bag", transform: "translate(165 8)" },
    text(122, 18, `Bag: ${table.bagTotal} pieces`, { class: "head" }), title("the bag's contents (every drawn piece is public)"));
  const kinds = KINDS.filter((k) => k === "X" || k === "F" || Number(k) < table.colours);
  kinds.forEach((kind, i) => {
    const x = 16 + (i % 5) * 50, y = 48 + Math.floor(i / 5) * 52;
    bag.append(stone(kind, x, y, 28), text(x + 17, y + 6, `${table.bag[kind]}`, { class: "count left" }));
  });
  svg.append(bag);
  table.bonus.forEach((id, i) => {
    const card = BONUS[id], x = 10 + i * 137, y = 156;
    const pays = card.majority ? `${card.points} to most` : `${card.points} each`;
    svg.append(el("g", { class: "yak-bonus", "data-testid": `bonus-${id}`, transform: `translate(${x} ${y})` },
      el("rect", { class: "body", width: 132, height: 90, rx: 7 }),
      title(`bonus card ${id}: ${card.text}; ${pays} (crystals do not count)`),
      text(8, 18, `${id} · ${pays}`, { class: "name left" }),
      ...wrap(card.text, 16).map((line, j) => text(8, 38 + j * 17, line, { class: "small left" }))));
  });
  return svg;
}

// A short text in lines of at most `width` characters.
function wrap(words, width) {
  const lines = [""];
  for (const word of words.split(" ")) {
    if (lines.at(-1).length + word.length + 1 > width && lines.at(-1)) lines.push("");
    lines[lines.length - 1] += (lines.at(-1) ? " " : "") + word;
  }
  return lines;
}
