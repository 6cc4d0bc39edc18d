// The page's shell: routes between the lobby, a table and the replay view (by the address's
// #fragment, which never reaches the server's logs), and shows errors.
//
//   #                                 the lobby
//   #table=<id>&ticket=<ticket>       a table, playing the seats of the ticket (an invite link)
//   #replay                           the replay view

import { showLobby } from "./lobby.js";
import { showTable } from "./play.js";
import { showReplay } from "./replay.js";
import { html } from "./svg.js";

const screen = document.getElementById("screen");
const messages = document.getElementById("messages");
let leave = null; // the current screen's clean-up (closes a table's WebSocket)
let messageTimer = null;

// Shows `text` at the top of the page (an error unless kind is "info") until closed or replaced.
export function say(text, kind = "error") {
  clearTimeout(messageTimer);
  messages.className = `messages ${kind}`;
  messages.replaceChildren(
    html("span", { class: "text", "data-testid": kind === "error" ? "error" : "info" }, text),
    html("button", { onclick: () => messages.replaceChildren(), "aria-label": "close" }, "×"),
  );
  if (kind !== "error") messageTimer = setTimeout(() => messages.replaceChildren(), 6000);
}

export function unsay() {
  messages.replaceChildren();
}

// Sets the header's "where am I" text.
export function where(text) {
  document.getElementById("where").textContent = text;
  document.title = text ? `${text} · kibitz` : "kibitz";
}

// JSON from the server; throws an Error with the server's message.
export async function api(path, body = undefined) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  let data;
  try { data = await response.json(); } catch { data = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

let games = null;
// The games, their options and seat menus, and the server's limits (cached).
export async function gameInfo() {
  games ??= await api("/api/games");
  return games;
}

function route() {
  if (leave) leave();
  leave = null;
  unsay();
  const hash = location.hash.replace(/^#/, "");
  const params = new URLSearchParams(hash);
  screen.replaceChildren();
  try {
    if (params.has("table")) leave = showTable(screen, params.get("table"), params.get("ticket") || "");
    else if (hash.startsWith("replay")) leave = showReplay(screen);
    else leave = showLobby(screen);
  } catch (error) {
    say(String(error.message || error));
  }
}

window.addEventListener("hashchange", route);
window.addEventListener("unhandledrejection", (event) => say(String(event.reason?.message || event.reason)));
route();
