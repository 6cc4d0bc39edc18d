// The kibitz engine in a worker (docs/wasm.md): a Web Worker in a page, a worker thread in Node.
// KibitzWorker (kibitz.mjs) starts it and sends it calls; the states stay here, named by id, so
// the page sees only what it asks for (a seat's view) and a search never blocks it.
import { KibitzError, REMOTE_METHODS, State, load } from "./kibitz.mjs";

const port = typeof WorkerGlobalScope === "function" ? self : (await import("node:worker_threads")).parentPort;
const states = new Map();
let kibitz = null;
let next = 1;

function keep(state) {
  const id = next++;
  states.set(id, state);
  return { state: id, gameName: state.gameName, numPlayers: state.numPlayers };
}

function held(id) {
  const state = states.get(id);
  if (!state) throw new KibitzError(`no state ${id} in the worker: it was deleted, or never made`);
  return state;
}

function stateCall(id, method, args) {
  const state = held(id);
  if (method === "turn") return { currentPlayer: state.currentPlayer, choosingSeats: state.choosingSeats() };
  if (method === "view") {
    const { gameName, seat, notation, key } = state.view(...args);
    return { gameName, seat, notation, key };
  }
  if (!REMOTE_METHODS.includes(method)) throw new KibitzError(`a state in the worker has no method ${method}`);
  const result = state[method](...args);
  return result instanceof State ? keep(result) : result;
}

const OPS = {
  load: async (options) => {
    kibitz = await load(Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)));
    return kibitz.version;
  },
  games: () => kibitz.games(),
  parameters: () => kibitz.parameters(),
  searchParams: (options) => kibitz.searchParams(options),
  presetParams: (preset, overrides) => kibitz.presetParams(preset, overrides),
  presets: () => kibitz.presets(),
  loadPreset: (game, name) => kibitz.loadPreset(game, name),
  newInitialState: (game, options, seed) => keep(kibitz.game(game, options).newInitialState(seed)),
  stateFromNotation: (text) => keep(kibitz.stateFromNotation(text)),
  stateFromView: (text) => keep(kibitz.stateFromView(text)),
  state: stateCall,
  delete: (id) => {
    states.get(id)?.delete();
    states.delete(id);
  },
};

async function answer({ id, op, args }) {
  try {
    if (!Object.hasOwn(OPS, op)) throw new KibitzError(`the kibitz worker has no call ${op}`);
    if (!kibitz && op !== "load") throw new KibitzError("the engine is not loaded: start the worker with KibitzWorker.start()");
    port.postMessage({ id, result: await OPS[op](...args) });
  } catch (error) {
    port.postMessage({ id, error: { name: error?.name ?? "KibitzError", message: error?.message ?? String(error) } });
  }
}

if (typeof port.on === "function") port.on("message", answer);
else port.addEventListener("message", (event) => answer(event.data));
