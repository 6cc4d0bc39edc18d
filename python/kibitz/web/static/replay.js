// The replay view: a record (a file, or the game just finished) stepped forward and back, from
// any seat's view or with every hand open. The server computes each position (the page has no
// engine): the browser sends the record's text with the step and the seat it wants.

import { api, say, where } from "./app.js";
import { html } from "./svg.js";
import { drawView, resultText, seatName } from "./view.js";

export function showReplay(screen) {
  where("replay");
  const state = { text: sessionStorage.getItem("kibitz.replay"), index: 0, step: 0, steps: 1, seat: "open", records: 1, asked: 0 };
  const file = html("input", { type: "file", accept: ".jsonl,.json,.txt,application/json", "data-testid": "replay-file" });
  const seatSelect = html("select", { "data-testid": "replay-seat", "aria-label": "whose view" });
  const indexSelect = html("select", { "data-testid": "replay-index", "aria-label": "which record", hidden: true });
  const slider = html("input", { type: "range", min: 0, max: 0, value: 0, "data-testid": "replay-slider", "aria-label": "position" });
  const counter = html("span", { "data-testid": "replay-step" });
  const view = html("div", { class: "view", "data-testid": "view" });
  const info = html("p", { class: "muted", "data-testid": "replay-info" });
  const go = (step) => show(Math.max(0, Math.min(state.steps - 1, step)));
  const bar = html("div", { class: "replay-bar" },
    html("button", { type: "button", "data-testid": "replay-first", onclick: () => go(0), "aria-label": "first" }, "⏮"),
    html("button", { type: "button", "data-testid": "replay-back", onclick: () => go(state.step - 1), "aria-label": "back" }, "◀"),
    html("button", { type: "button", "data-testid": "replay-forward", onclick: () => go(state.step + 1), "aria-label": "forward" }, "▶"),
    html("button", { type: "button", "data-testid": "replay-last", onclick: () => go(state.steps - 1), "aria-label": "last" }, "⏭"),
    slider, counter, seatSelect, indexSelect);

  screen.append(html("section", { class: "panel", "data-testid": "replay" },
    html("h1", {}, "Replay"),
    html("label", {}, "Open a record file (what “Download record” saves, or kibitz match --out writes): ", file),
    info, bar, view));

  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    state.text = await chosen.text();
    state.index = 0;
    state.seat = "open";
    load();
  });
  slider.addEventListener("input", () => go(Number(slider.value)));
  seatSelect.addEventListener("change", () => { state.seat = seatSelect.value; show(state.step); });
  indexSelect.addEventListener("change", () => { state.index = Number(indexSelect.value); load(); });
  const keys = (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") go(state.step + 1);
    if (event.key === "ArrowLeft") go(state.step - 1);
  };
  document.addEventListener("keydown", keys);

  async function load() {
    state.step = 0;
    const answer = await show(0);
    if (!answer) return;
    const model = answer.model;
    seatSelect.replaceChildren(html("option", { value: "open" }, "All hands open"),
      ...model.names.map((name, seat) => html("option", { value: seat }, `Seat ${seat}: ${name}'s view`)));
    seatSelect.value = state.seat;
    indexSelect.hidden = answer.records < 2;
    indexSelect.replaceChildren(...Array.from({ length: answer.records }, (_, i) => html("option", { value: i, selected: i === state.index }, `record ${i + 1} of ${answer.records}`)));
  }

  async function show(step) {
    const number = ++state.asked;
    if (!state.text) {
      info.textContent = "Open a record file to replay it.";
      return null;
    }
    try {
      const answer = await api("/api/replay", { record: state.text, index: state.index, step, seat: state.seat === "open" ? null : Number(state.seat) });
      if (number !== state.asked) return answer; // a later step was asked for meanwhile
      state.step = answer.step;
      state.steps = answer.steps;
      slider.max = answer.steps - 1;
      slider.value = answer.step;
      counter.textContent = `${answer.step} / ${answer.steps - 1}`;
      const model = answer.model;
      const names = model.names.map((name, seat) => `${seat}: ${name}`).join(", ");
      info.textContent = `${model.game}, seats ${names}. ${model.terminal ? resultText(model) : model.toMove.length ? `${model.toMove.map((s) => seatName(model, s)).join(", ")} to move.` : ""}`;
      await drawView(view, model, () => {}, () => number === state.asked);
      return answer;
    } catch (error) {
      say(`This record cannot be replayed: ${error.message}`);
      return null;
    }
  }

  load();
  return () => document.removeEventListener("keydown", keys);
}
