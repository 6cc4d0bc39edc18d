// The plain view of a game without a drawn one: the board as text and a button per legal move.

import { html, legal } from "../svg.js";

export const title = "";

export function render(root, model, act) {
  const buttons = model.replay ? [] : model.legal.map((move) => {
    const button = legal(html("button", { type: "button", onclick: () => act(move) }, move), move);
    if (move === model.hint) button.classList.add("hint");
    return button;
  });
  root.replaceChildren(
    html("pre", { class: "board", "data-testid": "board" }, model.board),
    html("div", { class: "move-buttons", "data-testid": "moves" }, buttons),
  );
}
