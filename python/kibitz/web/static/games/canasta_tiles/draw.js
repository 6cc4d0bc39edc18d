// SVG pieces of the tile Canasta table: tiles, backs, melds and a wrapping row. Colours come
// from CSS classes (canasta_tiles.css), never from here.

import { svg as el, title } from "../../svg.js";
import { kindName, value, isCanasta, isNatural, canastaBonus, meldSize, meldTiles, CANASTA } from "./tiles.js";

export { el, title };

export const text = (x, y, str, attrs = {}) => el("text", { x, y, ...attrs }, String(str));

// Cuts `str` to about `width` units of text at font size `size`.
export function fit(str, width, size) {
  const max = Math.max(3, Math.floor(width / (size * 0.62)));
  return str.length <= max ? str : `${str.slice(0, max - 1)}…`;
}

const LABEL = { J: "★", k3: "3", r3: "3" };
const KIND_CLASS = (kind) => (kind === "J" ? "joker" : kind === "2" ? "two" : kind === "k3" ? "block3" : kind === "r3" ? "bonus3" : "plain");

export function tileTitle(kind) {
  if (kind === "J") return "joker: wild, 50 points";
  if (kind === "2") return "2: wild, 20 points";
  if (kind === "k3") return "blocking 3 (blue or black): never melded; blocks the pile when discarded; -100 if held at the end";
  if (kind === "r3") return "bonus 3 (red or yellow): +100 for a team that opens, -100 otherwise";
  return `${kindName(kind)}: ${value(kind)} points`;
}

// One face-up tile with its top-left corner at (x, y).
// A `corner` tile (fanned in a meld) has its label at the left edge, the part left visible.
export function tile(kind, x, y, w, h, { cls = "", known = false, tip = null, corner = false } = {}) {
  const g = el("g", { class: `ct-tile ct-kind-${KIND_CLASS(kind)} ${cls}`.trim(), transform: `translate(${x},${y})`, "data-kind": kind });
  const label = LABEL[kind] || kind;
  const size = Math.round(h * (corner ? (label.length > 1 ? 0.34 : 0.42) : 0.46));
  const at = corner ? { x: 2, "text-anchor": "start" } : { x: w / 2, "text-anchor": "middle" };
  g.append(
    title(tip || tileTitle(kind)),
    el("rect", { class: "ct-face", width: w, height: h, rx: w * 0.14 }),
    text(at.x, h * (corner ? 0.45 : 0.62), label, { class: "ct-label", "font-size": size, "text-anchor": at["text-anchor"] }),
  );
  if (kind === "2" && !corner) g.append(text(w / 2, h * 0.9, "wild", { class: "ct-note", "font-size": Math.round(h * 0.2), "text-anchor": "middle" }));
  if (kind === "k3") g.append(el("line", { class: "ct-k3-bar", x1: w * 0.2, x2: w * 0.8, y1: h * 0.82, y2: h * 0.82 }));
  if (known) {
    g.append(el("circle", { class: "ct-known", cx: w - 6, cy: 6, r: 4 }, title("everyone knows this tile is here (it came from the pile)")));
  }
  return g;
}

export function back(x, y, w, h, cls = "") {
  return el("g", { class: `ct-back ${cls}`.trim(), transform: `translate(${x},${y})` }, el("rect", { width: w, height: h, rx: w * 0.14 }));
}

// A hidden hand of `n` tiles as overlapping backs fitted into `width`, with the count.
export function backs(n, x, y, w, h, width) {
  const g = el("g", { class: "ct-backs" }, title(`${n} hidden tile${n === 1 ? "" : "s"}`));
  if (n === 0) return g;
  const step = n > 1 ? Math.min(w * 0.45, (width - w - 34) / (n - 1)) : 0;
  for (let i = 0; i < n; i++) g.append(back(x + i * step, y, w, h));
  const end = x + (n - 1) * step + w;
  g.append(text(end + 5, y + h * 0.65, `×${n}`, { class: "ct-count", "font-size": 16 }));
  return g;
}

// Lays out items ({w, h, draw(x, y)}) in rows of at most `width`; returns the height used.
export function flow(items, x0, y0, width, gap = 6, rowGap = 8) {
  let x = x0;
  let y = y0;
  let row = 0;
  for (const item of items) {
    if (x > x0 && x + item.w > x0 + width) {
      x = x0;
      y += row + rowGap;
      row = 0;
    }
    item.draw(x, y);
    x += item.w + (item.gap ?? gap);
    row = Math.max(row, item.h);
  }
  return items.length ? y + row - y0 : 0;
}

export const MELD_TILE = [30, 40];
const FAN = 22;

export function meldWidth(m) {
  const [w] = MELD_TILE;
  return isCanasta(m) ? w + 34 : w + FAN * (meldSize(m) - 1);
}

export const MELD_HEIGHT = MELD_TILE[1] + 20;

// A meld: a fan of its tiles with "5/7" under it; a canasta as a squared stack marked
// natural (no wild) or mixed, with its bonus.
export function meld(m, x, y) {
  const [w, h] = MELD_TILE;
  const size = meldSize(m);
  const name = m.rank === "2" ? "twos" : `${m.rank}s`;
  const wilds = m.twos + m.jokers;
  const g = el("g", { class: "ct-meld", "data-rank": m.rank });
  if (isCanasta(m)) {
    const natural = isNatural(m);
    const kind = natural ? "natural" : "mixed";
    g.classList.add("ct-canasta", `ct-${kind}`);
    g.append(title(`${kind} canasta of ${name}: ${size} tiles (${wilds} wild), bonus ${canastaBonus(m)}`));
    for (let i = 2; i >= 1; i--) g.append(back(x + i * 3, y - i * 3, w, h, "ct-stack"));
    const top = tile(m.rank, x, y, w, h, { tip: `${kind} canasta of ${name}` });
    g.append(top);
    g.append(text(x + w + 10, y + 15, `×${size}`, { class: "ct-count", "font-size": 15 }));
    g.append(text(x + w + 10, y + 34, wilds ? `${wilds}w` : "", { class: "ct-note", "font-size": 13 }));
    g.append(el("rect", { class: "ct-ribbon", x: x - 2, y: y + h + 3, width: w + 34, height: 16, rx: 3 }));
    g.append(text(x + (w + 30) / 2, y + h + 15, natural ? "natural" : "mixed", { class: "ct-ribbon-text", "font-size": 13, "text-anchor": "middle" }));
    return g;
  }
  g.append(title(`${name}: ${size} tile${size === 1 ? "" : "s"} (${wilds} wild); ${CANASTA - size} more make a canasta`));
  meldTiles(m).forEach((k, i) => g.append(tile(k, x + i * FAN, y, w, h, { tip: `${name}: ${size} tiles`, corner: true })));
  g.append(text(x + meldWidth(m) / 2, y + h + 15, `${size}/${CANASTA}`, { class: "ct-note", "font-size": 13, "text-anchor": "middle" }));
  return g;
}

// The dashed place where a new meld of `rank` would go.
export function newMeld(rank, x, y, preview = null) {
  const [w, h] = MELD_TILE;
  const g = el("g", { class: "ct-meld ct-new", "data-rank": rank }, title(`start a new meld of ${rank === "2" ? "twos" : `${rank}s`}`));
  const width = preview ? Math.max(w + 20, meldWidth(preview)) : w + 20;
  g.append(el("rect", { class: "ct-slot", x: x - 3, y: y - 3, width: width + 6, height: h + 6, rx: 5 }));
  if (preview) meldTiles(preview).forEach((k, i) => g.append(tile(k, x + i * FAN, y, w, h, { cls: "ct-ghost", corner: true })));
  else g.append(text(x + width / 2, y + h * 0.62, `+${rank}`, { class: "ct-slot-text", "font-size": 16, "text-anchor": "middle" }));
  g.append(text(x + width / 2, y + h + 15, "new meld", { class: "ct-note", "font-size": 13, "text-anchor": "middle" }));
  return { node: g, w: width };
}
