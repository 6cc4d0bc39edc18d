// How the page reaches its tables. Served by `kibitz serve`: HTTP for the lobby's calls and a
// WebSocket to a table. In a folder that `kibitz web export` wrote (<html data-kibitz="static">):
// a worker in this page (worker/main.js) that holds the tables and the engine in WebAssembly,
// answering the same calls and speaking the same table messages (docs/web.md). Nothing else of
// the page knows which one it talks to.
//
//   call("games")                        the games, their options and seat menus, the limits
//   call("create", request)              a new table: {table, ticket}
//   call("replay", {record, index, step, seat})  one position of a record
//   connect(table, ticket, receive, lost) a table's messages; returns {send(message), close()}

export const STATIC = document.documentElement.dataset.kibitz === "static";

const PATHS = { games: "/api/games", create: "/api/tables", replay: "/api/replay" };
const RECONNECT_MS = [500, 1000, 2000, 4000];

/** One call of the lobby or the replay view; throws an Error with the server's (or worker's) message. */
export function call(kind, data = undefined) {
  return STATIC ? worker().call(kind, data) : http(PATHS[kind], data);
}

/**
 * Joins table `tableId` with `ticket`: every message for it goes to `receive`; `lost(text)` says
 * the connection dropped (the WebSocket is opened again).
 */
export function connect(tableId, ticket, receive, lost) {
  return STATIC ? worker().join(tableId, ticket, receive) : socket(tableId, ticket, receive, lost);
}

// -- kibitz serve ---------------------------------------------------------------------------------

async function http(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  let data;
  try { data = await response.json(); } catch { data = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

function socket(tableId, ticket, receive, lost) {
  let ws = null;
  let closed = false;
  let attempts = 0;
  function open() {
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    ws.addEventListener("open", () => {
      attempts = 0;
      ws.send(JSON.stringify({ kind: "join", table: tableId, ticket }));
    });
    ws.addEventListener("message", (event) => receive(JSON.parse(event.data)));
    ws.addEventListener("close", () => {
      if (closed) return;
      const wait = RECONNECT_MS[Math.min(attempts++, RECONNECT_MS.length - 1)];
      lost(`The connection to the server was lost; trying again in ${wait / 1000} s…`);
      setTimeout(() => { if (!closed) open(); }, wait);
    });
  }
  open();
  return {
    send(message) {
      if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
      else lost("Not connected to the server yet.");
    },
    close() {
      closed = true;
      ws?.close();
    },
  };
}

// -- the page's own worker ------------------------------------------------------------------------

let tables = null;

function worker() {
  tables ??= new TableWorker();
  return tables;
}

class TableWorker {
  #worker = new Worker(new URL("./worker/main.js", import.meta.url), { type: "module" });
  #next = 1;
  #pending = new Map();
  #receive = null;

  constructor() {
    this.#worker.addEventListener("message", (event) => this.#answer(event.data));
    this.#worker.addEventListener("error", (event) => {
      const error = new Error(`the table's worker failed: ${event.message ?? "it did not load"}`);
      for (const { reject } of this.#pending.values()) reject(error);
      this.#pending.clear();
      this.#receive?.({ kind: "error", message: error.message });
    });
  }

  #answer(message) {
    if (message.request === undefined) {
      this.#receive?.(message);
      return;
    }
    const pending = this.#pending.get(message.request);
    this.#pending.delete(message.request);
    if (message.error !== undefined) pending?.reject(new Error(message.error));
    else pending?.resolve(message.result);
  }

  call(kind, data) {
    const request = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(request, { resolve, reject });
      this.#worker.postMessage({ request, kind, data });
    });
  }

  join(tableId, ticket, receive) {
    this.#receive = receive;
    this.#worker.postMessage({ kind: "join", table: tableId, ticket });
    return {
      send: (message) => this.#worker.postMessage(message),
      close: () => {
        if (this.#receive === receive) this.#receive = null;
        this.#worker.postMessage({ kind: "leave" });
      },
    };
  }
}
