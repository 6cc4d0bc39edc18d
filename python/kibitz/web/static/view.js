// Loading a game's view module (static/games/<game>.js, docs/web-views.md), or the plain view
// for a game without one, and its optional stylesheet.

import { gameInfo } from "./app.js";

const modules = new Map();

export async function viewModule(game) {
  if (!modules.has(game)) {
    const info = (await gameInfo()).games.find((g) => g.name === game);
    if (info?.style && !document.querySelector(`link[data-view="${game}"]`)) {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = `/static/games/${game}.css`;
      link.dataset.view = game;
      document.head.append(link);
    }
    modules.set(game, import(info?.view ? `./games/${game}.js` : "./games/generic.js"));
  }
  return modules.get(game);
}

// Draws `model` with the game's module into `root` (the class view-<game> scopes its styles),
// unless `wanted()` says, once the module has loaded, that a newer model came meanwhile (the
// first load waits for the module; a later model must not be overtaken by an earlier one).
export async function drawView(root, model, act, wanted = () => true) {
  const module = await viewModule(model.game);
  if (!wanted()) return module;
  root.className = `view view-${model.game}${model.replay ? " replaying" : ""}`;
  module.render(root, model, act);
  return module;
}

// A seat's name for people: "Ana", "You", or the bot's name.
export function seatName(model, seat) {
  return model.names?.[seat] ?? `Seat ${seat}`;
}

// "Ana wins", "Ana and Ben share the win", from the model's ranks.
export function resultText(model) {
  if (!model.ranks) return "";
  const first = model.ranks.map((rank, seat) => [rank, seat]).filter(([rank]) => rank === 1).map(([, seat]) => seatName(model, seat));
  const scores = model.scores ? ` (scores ${model.scores.map((s) => Number(s.toFixed(2))).join(" : ")})` : "";
  const resigned = model.adjudication ? `${seatName(model, model.adjudication.seat)} ${model.adjudication.reason === "resigned" ? "resigned" : `forfeited: ${model.adjudication.reason}`}. ` : "";
  return `${resigned}${first.join(" and ")} ${first.length > 1 ? "share the win" : "wins"}${model.adjudication ? "" : scores}`;
}
