// Small helpers to build SVG and HTML from a view module: no framework, no build step.
//
//   import { svg, html, legal, seatColour } from "../svg.js";
//   const board = svg("svg", { viewBox: "0 0 600 400", width: "100%", "data-testid": "board" },
//     svg("rect", { x: 0, y: 0, width: 600, height: 400, class: "table-cloth" }),
//     svg("text", { x: 300, y: 20, "text-anchor": "middle" }, "Round 2"));
//   root.append(board);

export const SVG_NS = "http://www.w3.org/2000/svg";

// Sets attributes (null, undefined and false are left out; true is ""), listeners for `on*`
// functions (onclick: ...), and appends children: nodes, text, numbers, and arrays of them.
function build(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// An SVG element: svg("circle", { cx: 10, cy: 10, r: 4 }, svg("title", {}, "a stone")).
export function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

// An HTML element: html("button", { class: "move", onclick: () => act("done") }, "Done").
export function html(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

// A <title> child: the element's name on hover and for screen readers.
export function title(text) {
  return svg("title", {}, text);
}

// Marks `node` as a legal target (docs/web-views.md, "Clicking"): data-legal, the class
// `legal`, and data-move when a click plays `move` at once. Returns the node.
export function legal(node, move = null) {
  node.setAttribute("data-legal", "");
  node.classList.add("legal");
  if (move !== null && move !== undefined) node.setAttribute("data-move", move);
  return node;
}

// Makes `node` clickable (and focusable: Enter and Space click it too). Returns the node.
export function clickable(node, onClick) {
  node.addEventListener("click", onClick);
  if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onClick(event); }
  });
  return node;
}

// The CSS colour of a seat: var(--seat0) ... var(--seat3).
export function seatColour(seat) {
  return `var(--seat${seat})`;
}

// Removes every child of `node`.
export function clear(node) {
  node.replaceChildren();
  return node;
}
