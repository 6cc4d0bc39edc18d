// kibitz.mjs: the kibitz engine in WebAssembly, as an ES module (docs/wasm.md; kibitz.d.ts
// declares it). The build appends this file to Emscripten's glue, which defines the factory
// createKibitzCore above; the functions of csrc/wasm/bindings.cpp are the core's.
//
//   import { load } from "./kibitz.mjs";
//   const kibitz = await load();
//   const state = kibitz.game("yak", { players: 3 }).newInitialState(42);
//
// Runs in a page, in a Web Worker (kibitz-worker.mjs, driven by KibitzWorker below, keeps a search
// from blocking the page) and in Node.

/** Every error of the engine is a KibitzError, of one of the subclasses below where it has one. */
export class KibitzError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}
/** A move that is not legal here: the state is unchanged. */
export class IllegalMoveError extends KibitzError {}
/** Text that does not read as notation (a move, a state, a view). */
export class NotationError extends KibitzError {}
/** A game option, search parameter or argument that is not allowed. */
export class OptionError extends KibitzError {}
/** A game name the engine does not know. */
export class UnknownGameError extends KibitzError {}

const ERRORS = { KibitzError, IllegalMoveError, NotationError, OptionError, UnknownGameError, RangeError };

/** The error named `name` (a class above, or RangeError) with `message`. */
export function engineError(name, message) {
  return new (ERRORS[name] ?? KibitzError)(message);
}

/** currentPlayer at a chance node, at the end, and at a simultaneous node. */
export const CHANCE = -1;
export const TERMINAL = -2;
export const SIMULTANEOUS = -3;

const SEED_LIMIT = 2n ** 64n;
const ALGORITHMS = { ismcts: "so_ismcts", so_ismcts: "so_ismcts", mo_ismcts: "mo_ismcts", pimc: "pimc", uct: "uct" };
const BUDGETS = ["iterations", "time_ms"];
const isNode = typeof process === "object" && typeof process.versions?.node === "string";

function shown(value) {
  if (typeof value === "string") return `'${value}'`;
  if (typeof value === "bigint") return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function checkedInt(value, what, low, high) {
  if (!Number.isInteger(value)) throw new OptionError(`${what}: expected an integer in ${low}..${high}, got ${shown(value)}`);
  if (value < low || value > high) throw new OptionError(`${what}: ${value} is out of range; expected an integer in ${low}..${high}`);
  return value;
}

/** A seed (a number, a BigInt or decimal text in 0..2^64-1) as the decimal text the core reads. */
function seedText(seed, what = "seed") {
  let big;
  if (typeof seed === "number" && Number.isSafeInteger(seed)) big = BigInt(seed);
  else if (typeof seed === "bigint") big = seed;
  else if (typeof seed === "string" && /^\s*[0-9]+\s*$/.test(seed)) big = BigInt(seed.trim());
  else throw new OptionError(`${what}: expected an integer in 0..${SEED_LIMIT - 1n}, got ${shown(seed)}`);
  if (big < 0n || big >= SEED_LIMIT) throw new OptionError(`${what}: ${big} is out of range; expected an integer in 0..${SEED_LIMIT - 1n}`);
  return big.toString();
}

/** `value` if it is ASCII text (as all notation is); else `error` naming `what`. */
function asciiText(value, what, error = NotationError) {
  if (typeof value !== "string") throw new error(`${what}: expected text, got ${shown(value)}`);
  const bad = value.match(/[^\x00-\x7f]/);
  if (bad) throw new error(`${what}: ${shown(value)} holds the non-ASCII character '${bad[0]}'; kibitz notation is ASCII`);
  return value;
}

function optionStrings(options, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) throw new OptionError(`${what}: expected an object such as {players: 3}, got ${shown(options)}`);
  const out = {};
  for (const [key, value] of Object.entries(options)) {
    if (!["string", "number", "boolean"].includes(typeof value)) throw new OptionError(`option ${key}: expected text or a number, got ${shown(value)}`);
    out[asciiText(key, "game option", OptionError)] = asciiText(String(value), `option ${key}`, OptionError);
  }
  return out;
}

function jointObject(joint) {
  if (joint === null || typeof joint !== "object" || Array.isArray(joint))
    throw new NotationError(`a joint move maps seats to moves, e.g. {0: 'paper', 1: 'rock'}; got ${shown(joint)}`);
  return joint;
}

async function readBytes(url) {
  if (url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new KibitzError(`cannot load ${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

async function readJson(url) {
  const bytes = await readBytes(url);
  return JSON.parse(new TextDecoder().decode(bytes));
}

// The WebAssembly instance: from bytes, a compiled module, or a URL (streamed where it can be).
async function instantiate(wasm, imports) {
  if (wasm instanceof WebAssembly.Module) return { instance: await WebAssembly.instantiate(wasm, imports), module: wasm };
  if (ArrayBuffer.isView(wasm) || wasm instanceof ArrayBuffer) return WebAssembly.instantiate(wasm, imports);
  const url = new URL(wasm, import.meta.url);
  if (url.protocol !== "file:" && typeof WebAssembly.instantiateStreaming === "function") {
    try {
      return await WebAssembly.instantiateStreaming(fetch(url), imports);
    } catch {
      // a server that does not send application/wasm: compile from the bytes
    }
  }
  return WebAssembly.instantiate(await readBytes(url), imports);
}

/**
 * Loads the engine. `options.wasm`: where kibitz.wasm is (a URL, default beside this module) or
 * its bytes or compiled module; `options.presets`: the URL of the presets folder (default
 * presets/ beside this module).
 */
export async function load(options = {}) {
  const wasm = options.wasm ?? new URL("kibitz.wasm", import.meta.url);
  const presets = new URL(options.presets ?? "presets/", import.meta.url);
  return new Promise((resolve, reject) => {
    createKibitzCore({
      instantiateWasm(imports, receive) {
        instantiate(wasm, imports).then(({ instance, module }) => receive(instance, module), reject);
        return {};
      },
      print: () => {},
      printErr: () => {},
    }).then((core) => resolve(new Kibitz(core, presets)), reject);
  });
}

// Frees the core's state when its State is collected without delete().
const collected = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(({ core, handle }) => core.release(handle)) : null;

/** The engine: games, search parameters, presets. */
export class Kibitz {
  #core;
  #presetsUrl;
  #games;
  #parameters;

  constructor(core, presetsUrl) {
    this.#core = core;
    this.#presetsUrl = presetsUrl;
    /** The engine's version (the Python package's). */
    this.version = core.version();
  }

  /** Calls the core's function `name`; an error it reports is thrown as its JavaScript class. */
  _call(name, ...args) {
    const result = this.#core[name](...args);
    if (result !== null && typeof result === "object" && Object.hasOwn(result, "kibitzError")) throw engineError(result.kibitzError, result.message);
    return result;
  }

  _release(handle) {
    this.#core.release(handle);
  }

  _state(handle) {
    const state = new State(this, handle);
    collected?.register(state, { core: this.#core, handle }, state);
    return state;
  }

  /** Every game: name, description, player range, options with their help, and what kind of game it is. */
  games() {
    this.#games ??= this._call("games");
    return structuredClone(this.#games);
  }

  /** The search parameters as declared once in the engine (csrc/search/param_table.h), in order. */
  parameters() {
    this.#parameters ??= this._call("parameterTable");
    return structuredClone(this.#parameters);
  }

  /**
   * Every search parameter's value for `options` (keys: a parameter's name, protocol option name
   * or alias, in any case; `policy` or `policy.<name>`: rollout-policy weights), checked as Python's
   * SearchParams checks them. Throws OptionError naming what is wrong.
   */
  searchParams(options = {}) {
    return this._call("searchParams", options);
  }

  /**
   * The search options of a preset (a parameter set such as presets/yak/strong.json, or an entry
   * of presets/default.json: {bot, params}) with `overrides` over them. A budget among the
   * overrides (iterations, time_ms) replaces the preset's budgets: {time_ms: 3000} searches 3 s.
   */
  presetParams(preset, overrides = {}) {
    if (preset === null || typeof preset !== "object" || typeof preset.params !== "object" || preset.params === null)
      throw new OptionError(`a preset is a parameter set such as presets/yak/strong.json ({bot, params, ...}), got ${shown(preset)}`);
    const algorithm = ALGORITHMS[preset.bot];
    if (!algorithm) throw new OptionError(`preset bot ${shown(preset.bot)} is not a search; expected one of ${Object.keys(ALGORITHMS).join(", ")}`);
    const isBudget = (key) => !key.startsWith("policy") && BUDGETS.includes(this._call("parameterName", key));
    const params = Object.entries(preset.params).filter(([key]) => !Object.keys(overrides).some(isBudget) || !isBudget(key));
    return { algorithm, ...Object.fromEntries(params), ...overrides };
  }

  /** The presets shipped beside the module: game -> names (presets/default.json's under "default"). */
  async presets() {
    const index = await readJson(new URL("index.json", this.#presetsUrl));
    const names = {};
    for (const file of index.files) {
      const [game, name] = file.includes("/") ? file.split("/") : ["default", file];
      (names[game] ??= []).push(name.replace(/\.json$/, ""));
    }
    return names;
  }

  /**
   * The preset `name` of `game` (presets/<game>/<name>.json), or else the entry `name` of
   * presets/default.json (strong, fast). Throws OptionError naming the presets there are.
   */
  async loadPreset(game, name) {
    asciiText(game, "preset game", OptionError);
    asciiText(name, "preset name", OptionError);
    const names = await this.presets();
    if (/^[A-Za-z0-9_.-]+$/.test(game + name) && names[game]?.includes(name)) return readJson(new URL(`${game}/${name}.json`, this.#presetsUrl));
    if (names.default?.includes("default")) {
      const defaults = await readJson(new URL("default.json", this.#presetsUrl));
      if (Object.hasOwn(defaults, name)) return defaults[name];
    }
    throw new OptionError(`no preset '${name}' for ${game}; there are: ${(names[game] ?? []).join(", ") || "none"} (and strong, fast)`);
  }

  /** The game `name` with its options, e.g. game("just4fun_colours", {players: 3, line: 5}). */
  game(name, options = {}) {
    return new Game(this, name, options);
  }

  /** The full state a notation gives (its first word names the game). */
  stateFromNotation(text) {
    return this._state(this._call("fromNotation", asciiText(text, "notation"), false));
  }

  /** A full state consistent with a seat's view notation; the hidden parts are a fixed sample. */
  stateFromView(text) {
    return this._state(this._call("fromNotation", asciiText(text, "view notation"), true));
  }
}

/** A game with its options; makes its states. */
export class Game {
  #kibitz;

  constructor(kibitz, name, options = {}) {
    this.#kibitz = kibitz;
    const info = kibitz.games().find((g) => g.name === asciiText(name, "game name", UnknownGameError));
    const opts = optionStrings(options, `options of ${name}`);
    kibitz._call("checkOptions", name, opts); // UnknownGameError for a name no game has
    this.name = name;
    this.options = opts;
    this.info = info;
    const initial = this.newInitialState(0);
    this.numPlayers = initial.numPlayers;
    this.teams = initial.results().teams;
    initial.delete();
  }

  /** The start of a game; the deal and any random setup come from `seed` (0..2^64-1). */
  newInitialState(seed = 0) {
    const kibitz = this.#kibitz;
    return kibitz._state(kibitz._call("newState", this.name, this.options, seedText(seed)));
  }

  /** A full state from its notation; NotationError when it is of another game or player count. */
  stateFromNotation(text) {
    return this.#fitting(this.#kibitz.stateFromNotation(text));
  }

  /** A full state consistent with a seat's view notation (see Kibitz.stateFromView). */
  stateFromView(text) {
    return this.#fitting(this.#kibitz.stateFromView(text));
  }

  #fitting(state) {
    const problem =
      state.gameName !== this.name ? `a state of ${state.gameName}` : state.numPlayers !== this.numPlayers ? `${state.numPlayers} players` : null;
    if (!problem) return state;
    state.delete();
    throw new NotationError(`the notation is of ${problem}; this game is ${this.name} with ${this.numPlayers} players`);
  }

  toString() {
    const options = Object.entries(this.options).map(([k, v]) => `, ${k}=${v}`);
    return `Game('${this.name}'${options.join("")})`;
  }
}

/**
 * A full game state, held by the engine: call delete() when done with it (or let the garbage
 * collector free it). Moves are text, as legalMoves() gives them.
 */
export class State {
  #kibitz;
  #handle;

  constructor(kibitz, handle) {
    this.#kibitz = kibitz;
    this.#handle = handle;
  }

  #call(name, ...args) {
    return this.#kibitz._call(name, this.#handle, ...args);
  }

  #seat(seat) {
    return checkedInt(seat, "seat", 0, this.numPlayers - 1);
  }

  get gameName() {
    return this.#call("summary").gameName;
  }
  get numPlayers() {
    return this.#call("summary").numPlayers;
  }
  /** The seat to move, or CHANCE, TERMINAL or SIMULTANEOUS. */
  get currentPlayer() {
    return this.#call("summary").currentPlayer;
  }
  isTerminal() {
    return this.currentPlayer === TERMINAL;
  }
  isChance() {
    return this.currentPlayer === CHANCE;
  }
  /** Several seats choose at once here: each from legalMovesFor(seat), played by applyJoint. */
  isSimultaneous() {
    return this.currentPlayer === SIMULTANEOUS;
  }
  /** The seats that choose at this simultaneous node, in recording order; empty elsewhere. */
  choosingSeats() {
    return this.#call("summary").choosingSeats;
  }

  /** The legal moves, or the chance outcomes at a chance node. */
  legalMoves() {
    return this.#call("legalMoves");
  }
  /** The moves of `seat`: a choosing seat's at a simultaneous node, the mover's elsewhere; else none. */
  legalMovesFor(seat) {
    return this.#call("legalMovesFor", this.#seat(seat));
  }
  /** [{move, probability}] at a chance node; empty elsewhere. */
  chanceOutcomes() {
    return this.#call("chanceOutcomes");
  }
  /** Plays a move or a chance outcome (text); on an error the state is unchanged. */
  apply(move) {
    this.#call("apply", asciiText(move, "move"));
  }
  /** Plays a simultaneous node: {seat: move} for every choosing seat. */
  applyJoint(joint) {
    this.#call("applyJoint", jointObject(joint));
  }
  /** A chance outcome drawn with its probability from `seed`. */
  sampleChance(seed) {
    return this.#call("sampleChance", seedText(seed));
  }
  clone() {
    return this.#kibitz._state(this.#call("clone"));
  }

  /** {returns, scores, ranks, teams}, one entry per seat. */
  results() {
    return this.#call("results");
  }
  /** Per seat: a sole winner 1, k joint winners 1/k each, others 0 (all 0 until the end). */
  returns() {
    return this.results().returns;
  }
  scores() {
    return this.results().scores;
  }
  ranks() {
    return this.results().ranks;
  }
  team(seat) {
    return this.results().teams[this.#seat(seat)];
  }

  /** What `seat` may know, and nothing more. */
  view(seat) {
    const { notation, key } = this.#call("view", this.#seat(seat));
    return new View(this.#kibitz, this.gameName, seat, notation, key);
  }
  /** The full state as text; stateFromNotation reads it back exactly. */
  notation() {
    return this.#call("notation");
  }
  toString() {
    return this.notation();
  }
  /** The board as text: everything, or as `seat` sees it. */
  render(seat) {
    return this.#call("render", seat === undefined ? -1 : this.#seat(seat));
  }
  equals(other) {
    return other instanceof State && this.#call("equals", other.#handle);
  }

  /** What `seat` sees of `move` played here, as text. */
  observationText(seat, move) {
    return this.#call("observationText", this.#seat(seat), asciiText(move, "move"));
  }
  /** What `seat` sees of the joint move `joint` played here, as text. */
  jointObservationText(seat, joint) {
    return this.#call("jointObservationText", this.#seat(seat), jointObject(joint));
  }
  /** A state consistent with `seat`'s view after the next move, of which it saw `seen`. */
  afterObservation(seat, seen, seed = 0) {
    return this.#kibitz._state(this.#call("afterObservation", this.#seat(seat), asciiText(seen, "observation"), seedText(seed)));
  }
  /** A full state drawn from those consistent with `seat`'s view. */
  determinize(seat, seed) {
    return this.#kibitz._state(this.#call("determinize", this.#seat(seat), seedText(seed)));
  }

  /**
   * Searches the decision of the seat to move (at a simultaneous node, of `seat`) with search
   * options as Kibitz.searchParams reads them; returns the move and the root statistics.
   */
  search(params = {}, { seat, opponentShares } = {}) {
    const searched = seat === undefined || seat === null ? -1 : this.#seat(seat);
    if (opponentShares !== undefined && !Array.isArray(opponentShares)) throw new OptionError(`opponentShares: expected one number per seat, got ${shown(opponentShares)}`);
    return this.#call("search", params, searched, opponentShares);
  }
  /** The greedy bot's move (one ply of the game's evaluation): for the seat to move, or `seat` at a simultaneous node. */
  greedyMove({ seat, seed = 0 } = {}) {
    return this.#call("greedyMove", seat === undefined ? -1 : this.#seat(seat), seedText(seed));
  }
  /** The exact value of a 2-player position with perfect information (Yucata'), and a best move. */
  solve() {
    return this.#call("solve");
  }
  /** Leaves after `depth` plies (a decision, a joint move and a chance outcome are one each). */
  perft(depth) {
    return this.#call("perft", checkedInt(depth, "perft depth", 0, 2 ** 31 - 1));
  }

  /** Frees the engine's copy; the state cannot be used afterwards. */
  delete() {
    if (this.#handle < 0) return;
    collected?.unregister(this);
    this.#kibitz._release(this.#handle);
    this.#handle = -1;
  }
}
if (typeof Symbol.dispose === "symbol") State.prototype[Symbol.dispose] = State.prototype.delete;

/** A seat's view: its notation, a 64-bit information-set key, and a state consistent with it. */
export class View {
  #kibitz;

  constructor(kibitz, gameName, seat, notation, key) {
    this.#kibitz = kibitz;
    this.gameName = gameName;
    this.seat = seat;
    this.notation = notation;
    this.key = key;
  }

  /** A full state consistent with the view (hidden parts a fixed sample), e.g. to search from. */
  state() {
    return this.#kibitz.stateFromView(this.notation);
  }

  toString() {
    return this.notation;
  }
}

/**
 * The engine in a worker (kibitz-worker.mjs), so that a search never blocks the page: the same
 * calls as Kibitz, Game and State, answered by promises. States stay in the worker; a
 * RemoteState names one there.
 */
export class KibitzWorker {
  #worker;
  #next = 1;
  #pending = new Map();
  #terminated = false;

  /** Starts a worker (a Web Worker in a page, a worker thread in Node) and loads the engine in it. */
  static async start(url = new URL("kibitz-worker.mjs", import.meta.url), options = {}) {
    let worker;
    if (isNode) {
      const { Worker } = await import("node:worker_threads");
      worker = new Worker(url);
    } else {
      worker = new Worker(url, { type: "module" });
    }
    const engine = new KibitzWorker(worker);
    await engine.request("load", { wasm: options.wasm?.toString(), presets: options.presets?.toString() });
    return engine;
  }

  constructor(worker) {
    this.#worker = worker;
    const receive = (message) => this.#receive(message);
    const fail = (event) => this.#failAll(new KibitzError(`the kibitz worker failed: ${event?.message ?? event}`));
    if (typeof worker.on === "function") {
      worker.on("message", receive);
      worker.on("error", fail);
    } else {
      worker.addEventListener("message", (event) => receive(event.data));
      worker.addEventListener("error", fail);
    }
  }

  #receive({ id, result, error }) {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (error) pending.reject(engineError(error.name, error.message));
    else pending.resolve(result);
  }

  #failAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  /** Sends one call to the worker: `op` is a method of Kibitz, or "state" with a state's id, method and arguments. */
  request(op, ...args) {
    const id = this.#next++;
    if (this.#terminated) return Promise.reject(new KibitzError("the kibitz worker was terminated"));
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, op, args });
    });
  }

  #remote(result) {
    return new RemoteState(this, result.state, result.gameName, result.numPlayers);
  }

  games() {
    return this.request("games");
  }
  parameters() {
    return this.request("parameters");
  }
  searchParams(options) {
    return this.request("searchParams", options);
  }
  presetParams(preset, overrides) {
    return this.request("presetParams", preset, overrides);
  }
  presets() {
    return this.request("presets");
  }
  loadPreset(game, name) {
    return this.request("loadPreset", game, name);
  }
  /** A new game's initial state, in the worker. */
  async newInitialState(game, options, seed = 0) {
    return this.#remote(await this.request("newInitialState", game, options, typeof seed === "bigint" ? seed.toString() : seed));
  }
  async stateFromNotation(text) {
    return this.#remote(await this.request("stateFromNotation", text));
  }
  async stateFromView(text) {
    return this.#remote(await this.request("stateFromView", text));
  }
  /** Ends the worker, and with it any search it runs; pending calls fail. */
  terminate() {
    this.#terminated = true;
    this.#failAll(new KibitzError("the kibitz worker was terminated"));
    this.#worker.terminate();
  }
}

/** The State methods a RemoteState offers (the worker answers no others). */
export const REMOTE_METHODS = [
  "legalMoves", "legalMovesFor", "chanceOutcomes", "apply", "applyJoint", "sampleChance", "clone", "results", "notation", "render",
  "observationText", "jointObservationText", "afterObservation", "determinize", "search", "greedyMove", "solve", "perft",
];

/**
 * A State held in a KibitzWorker: the methods of REMOTE_METHODS, as State has them, answered by
 * promises (a State they return comes as a RemoteState); turn() and view(seat) give plain objects.
 */
export class RemoteState {
  #engine;

  constructor(engine, id, gameName, numPlayers) {
    this.#engine = engine;
    this.id = id;
    this.gameName = gameName;
    this.numPlayers = numPlayers;
  }

  /** Calls the state's `method` in the worker. */
  async call(method, ...args) {
    const result = await this.#engine.request("state", this.id, method, args);
    return result?.state !== undefined ? new RemoteState(this.#engine, result.state, result.gameName, result.numPlayers) : result;
  }

  /** {currentPlayer, choosingSeats}: whose turn it is. */
  turn() {
    return this.call("turn");
  }
  /** The seat's view: {gameName, seat, notation, key}. */
  view(seat) {
    return this.call("view", seat);
  }
  /** Frees the state in the worker. */
  delete() {
    return this.#engine.request("delete", this.id);
  }
}
for (const method of REMOTE_METHODS) {
  RemoteState.prototype[method] = function (...args) {
    return this.call(method, ...args);
  };
}
