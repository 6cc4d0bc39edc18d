// Yak's pieces as SVG: stones, crystals, fog, food tokens, action cards. Colours come from the
// CSS variables of yak.css (classes k-0 .. k-7, k-X, k-F; food-meat ...), never from here.

const NS = "http://www.w3.org/2000/svg";

// An SVG element: el("rect", {x: 1, class: "a"}, child, "text", ...).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs))
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, String(value));
  for (const child of children.flat())
    if (child !== null && child !== undefined && child !== false)
      node.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  return node;
}
export const title = (text) => el("title", {}, text);
export const text = (x, y, content, attrs = {}) => el("text", { x, y, ...attrs }, content);

// A panel: one <svg> scaled to its box's width.
export function panel(width, height, testid, label) {
  return el("svg", {
    viewBox: `0 0 ${width} ${height}`, width: "100%", class: "yak-panel", "data-testid": testid,
    role: "img", "aria-label": label, preserveAspectRatio: "xMidYMin meet",
  });
}

export const kindName = (kind) => (kind === "X" ? "crystal (wild)" : kind === "F" ? "fog stone" : `stone of colour ${kind}`);

// A stone of `kind` ("0".."7", "X" crystal, "F" fog) centred on x, y, `size` wide. A crystal
// may show the colour it counts as at scoring (`as`).
export function stone(kind, x, y, size, { as = null, name = kindName(kind) } = {}) {
  const h = size / 2;
  const g = el("g", { class: `yak-stone k-${kind}`, transform: `translate(${x} ${y})` }, title(name));
  if (kind === "X") {
    g.append(el("polygon", { class: "body", points: `0,${-h} ${h},${-h * 0.2} ${h * 0.6},${h} ${-h * 0.6},${h} ${-h},${-h * 0.2}` }));
    g.append(el("path", { class: "facet", d: `M${-h},${-h * 0.2} H${h} M0,${-h} L${-h * 0.3},${-h * 0.2} L0,${h} L${h * 0.3},${-h * 0.2} Z` }));
    if (as !== null) g.append(el("circle", { class: `as k-${as}`, r: h * 0.28, cy: h * 0.35 }));
  } else if (kind === "F") {
    g.append(el("circle", { class: "body", r: h }));
    g.append(el("path", { class: "facet", d: `M${-h * 0.6},${h * 0.2} q${h * 0.3},${-h * 0.5} ${h * 0.6},0 t${h * 0.6},0` }));
  } else {
    g.append(el("rect", { class: "body", x: -h, y: -h, width: size, height: size, rx: size * 0.22 }));
    g.append(text(0, h * 0.36, kind, { class: "label", style: `font-size: ${(size * 0.55).toFixed(1)}px` }));
  }
  return g;
}

// An empty place (a cart's free slot, an empty tower position).
export const slot = (x, y, size, attrs = {}) =>
  el("rect", { class: "yak-slot", x: x - size / 2, y: y - size / 2, width: size, height: size, rx: size * 0.22, ...attrs });

// A food token, about 24 units wide, centred on x, y.
const FOOD_SHAPES = {
  meat: () => [el("ellipse", { class: "body", rx: 10, ry: 7.5 }), el("circle", { class: "bone", cx: 3.5, cy: -1.5, r: 2.6 })],
  milk: () => [el("path", { class: "body", d: "M-3.5,-10 h7 v4 l4,4 v11 h-15 v-11 l4,-4 z" }), el("path", { class: "band", d: "M-7.5,1 h15" })],
  bread: () => [el("path", { class: "body", d: "M-11,6 v-3 a11,9 0 0 1 22,0 v3 z" }), el("path", { class: "band", d: "M-5,-3 l2,4 M0,-4 l2,4 M5,-3 l2,4" })],
};
export function food(kind, x, y, scale = 1) {
  return el("g", { class: `yak-food food-${kind}`, transform: `translate(${x} ${y}) scale(${scale})` }, title(kind), FOOD_SHAPES[kind]());
}

// An action card: `name` build/restock/market face up, "?" face down, "-" not chosen yet.
const CARD_TEXT = { build: ["Build", "buy stones"], restock: ["Restock", "take a food"], market: ["Market", "food + stone"] };
export function card(name, x, y, w, h) {
  const g = el("g", { class: `yak-card card-${name === "?" ? "back" : name === "-" ? "none" : name}`, transform: `translate(${x} ${y})` });
  g.append(el("rect", { class: "body", width: w, height: h, rx: 7 }));
  if (name === "?") {
    g.append(title("a card chosen in secret"), el("path", { class: "pattern", d: `M8,8 L${w - 8},${h - 8} M${w - 8},8 L8,${h - 8}` }));
    g.append(text(w / 2, h / 2 + 6, "?", { class: "big" }));
  } else if (name === "-") {
    g.append(title("no card chosen"), text(w / 2, h / 2 + 5, "…", { class: "big" }));
  } else {
    const [head, sub] = CARD_TEXT[name];
    g.append(title(`${head}: ${sub}`), text(w / 2, h / 2 - 2, head, { class: "head" }));
    if (w >= 80) g.append(text(w / 2, h / 2 + 16, sub, { class: "sub" }));
  }
  return g;
}

// Marks an element as clickable: `legal` (data-legal, highlighted), `move` (data-move: the click
// plays it), and the click's effect.
export function clickable(node, { legal = false, move = null, onClick }) {
  node.classList.add("yak-click");
  if (legal) {
    node.classList.add("legal");
    node.setAttribute("data-legal", "");
    if (move) node.setAttribute("data-move", move);
  }
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    onClick();
  });
  return node;
}

// Apply a picker's answer (picks.js) to a drawn thing.
export function wire(node, pick, hinted = false, last = false) {
  if (hinted) node.classList.add("hint");
  if (last) node.classList.add("last");
  if (!pick) return node;
  if (pick.picked) node.classList.add("picked");
  return clickable(node, pick);
}

// The baby yak: the start player of the round.
export function babyYak(x, y) {
  return el("g", { class: "yak-baby", transform: `translate(${x} ${y})` }, title("baby yak: this player starts the round"),
    el("ellipse", { class: "body", rx: 10, ry: 7 }), el("path", { class: "horns", d: "M-7,-5 q-4,-6 -1,-9 M-1,-6 q2,-6 5,-7" }));
}

// A small count on a pile (tokens picked from it).
export function badge(x, y, content) {
  return el("g", { class: "yak-badge", transform: `translate(${x} ${y})` }, el("circle", { r: 11 }), text(0, 5, content));
}
