// The tables of a static page (`kibitz web export`): a module worker that the page's
// transport.js starts in place of a WebSocket to `kibitz serve`. It loads the engine in
// WebAssembly (../wasm/kibitz.mjs) and the lobby that the export wrote (../lobby.json), and
// answers the server's calls and table messages (kibitz/web/server.py) for the one browser that
// is this page: the page holds every person seat, the worker holds the true game, so the page
// receives only the views of its seats (their hidden cards stay here until the game is over).
//
// A search runs here, in one thread: it blocks the worker, never the page. A bot's or a hint's
// progress is sent once, when it ends; "stop" cannot cut a search short (its budget does).

import { load } from "../wasm/kibitz.mjs";
import { makeBot, resolveSpec } from "./bots.js";
import { deriveSeed, freshSeed } from "./seeds.js";
import { Table, buildModel, deciders, entryOf, jointEntries } from "./table.js";

const TOP_MOVES = 5;
const SEAT_KINDS = ["person", "bot"];
const NAME_CHARS = 24;
const SEED_LIMIT = 2n ** 63n;

const ready = Promise.all([load(), fetch(new URL("../lobby.json", import.meta.url)).then((r) => r.json())]);
let kibitz = null;
let lobby = null;
const rooms = new Map(); // table id -> Room
let current = null; // the room this page shows

class Refused extends Error {}

function post(message) {
  self.postMessage(message);
}

function token() {
  return [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A table of this page, its bots and the searches it asked for (server.py's Room). */
class Room {
  constructor(table, limits) {
    this.id = token();
    this.ticket = token();
    this.table = table;
    this.limits = limits;
    this.thinking = []; // {seat, kind} of the search under way
    this.hints = 0;
    this.next = null;
    this.timer = null;
  }

  held() {
    return this.table.personSeats();
  }

  message() {
    const table = this.table;
    const held = this.held();
    const message = {
      kind: "table", table: this.id, game: table.game.name, options: { ...table.game.options }, players: table.players,
      seats: table.seats.map((s, i) => ({ seat: i, name: s.name, kind: s.kind, spec: s.spec ?? "", connected: true })),
      held, views: held.map((seat) => table.model(seat, held)), over: table.over, undo: table.canUndo(),
      thinking: this.thinking, next: null,
    };
    if (table.over) {
      message.open = table.model(null, held);
      message.record = table.record();
    }
    return message;
  }

  broadcast() {
    if (current === this) post(this.message());
  }

  handle(data) {
    const table = this.table;
    const kind = data.kind;
    let seat = null;
    if (["move", "hint", "analyse", "stop", "resign"].includes(kind)) {
      seat = data.seat;
      if (!Number.isInteger(seat) || seat < 0 || seat >= table.players) throw new Refused(`'seat' must be a seat number 0..${table.players - 1}, got ${JSON.stringify(seat)}`);
      if (!this.held().includes(seat)) throw new Refused(`this page does not play seat ${seat}`);
    }
    if (kind === "move") {
      if (!("move" in data)) throw new Refused("a move message needs 'move': the move's text");
      table.play(seat, data.move);
      this.broadcast();
      this.wake();
    } else if (kind === "hint" || kind === "analyse") {
      this.help(seat, kind === "hint" ? "hint" : "analysis");
    } else if (kind === "undo") {
      table.undo();
      this.broadcast();
      this.wake();
    } else if (kind === "resign") {
      table.resign(seat);
      this.broadcast();
    } else if (kind === "rematch" || kind === "new") {
      if (!table.over) throw new Refused(`${kind === "rematch" ? "a rematch" : "a new game"} starts once this game is over`);
      this.nextGame(kind === "rematch");
    } else if (kind !== "stop") {
      throw new Refused(`unknown message kind ${JSON.stringify(kind)}`);
    }
  }

  // The bots' decisions in turn, one a task, a pause between two so that a person can follow them.
  wake(pause = 0) {
    clearTimeout(this.timer);
    const seats = this.table.botsToAct();
    if (!seats.length || current !== this) return;
    this.thinking = [{ seat: seats[0], kind: "bot" }];
    this.broadcast();
    this.timer = setTimeout(() => this.playBot(seats[0]), pause);
  }

  playBot(seat) {
    const table = this.table;
    this.thinking = [];
    if (current !== this || !table.botsToAct().includes(seat)) return;
    const started = performance.now();
    try {
      const { move, result } = table.botMove(seat);
      if (result) this.progress(seat, "bot", result, started, table.game.info.perfectInformation);
      table.decide(seat, move);
    } catch (error) {
      table.botFailed(seat, error);
    }
    this.broadcast();
    if (!table.over) this.wake(this.limits.movePauseMs);
  }

  // A search of `seat`'s own decision from its view: the hint or the analysis.
  help(seat, kind) {
    this.table.checkTurn(seat);
    this.hints += 1;
    const spec = kind === "hint" ? this.limits.hintBot : this.limits.analysisBot;
    const bot = makeBot(kibitz, spec, deriveSeed(this.table.seed, "hint", this.hints), lobby.limits.maxTimeMs);
    const started = performance.now();
    const { move, result } = bot.act(this.table.state, seat);
    this.progress(seat, kind, result, started, true);
    this.table.hints.set(seat, move);
    this.broadcast();
  }

  // A finished search's statistics: iterations and time for everyone; its top moves only to the
  // searching seat's own page, or in a game of perfect information (a bot's candidates would reveal its hand).
  progress(seat, search, result, started, shown) {
    if (current !== this) return;
    const message = { kind: "progress", seat, search, iterations: result.iterations, seconds: Math.round((performance.now() - started) / 10) / 100, done: true };
    if (shown) {
      message.top = result.stats.slice(0, TOP_MOVES).map((s) => ({ move: s.move, visits: s.visits, value: Math.round(s.meanReward * 1e4) / 1e4 }));
      message.best = result.move;
    }
    post(message);
  }

  // The rematch (seats rotated by one) or a new game with the same seats; the page moves there.
  nextGame(rotate) {
    if (this.next === null) {
      const table = this.table;
      const n = table.players;
      const order = Array.from({ length: n }, (_, i) => (rotate ? (i - 1 + n) % n : i));
      const seats = order.map((i) => table.seats[i]);
      const seed = freshSeed();
      this.next = add(new Room(new Table(kibitz, table.game, seats, seed, seatBots(seats, seed)), this.limits));
    }
    post({ kind: "moved", table: this.next.id, ticket: this.next.ticket });
  }
}

function add(room) {
  rooms.set(room.id, room);
  return room;
}

// -- the lobby's calls ----------------------------------------------------------------------------

/** A new table from the lobby's request {game, options, seats, seed} (server.py's Hall.create). */
async function create(data) {
  if (data === null || typeof data !== "object") throw new Refused("expected a JSON object with game, options, seats and seed");
  const info = lobby.games.find((g) => g.name === data.game);
  if (!info) throw new Refused(`unknown game ${JSON.stringify(data.game)}; games: ${lobby.games.map((g) => g.name).join(", ")}`);
  const game = kibitz.game(info.name, data.options ?? {});
  const requested = data.seats;
  if (!Array.isArray(requested) || requested.length !== game.numPlayers) throw new Refused(`'seats' must be a list of ${game.numPlayers} seats`);
  const seats = [];
  for (const [i, item] of requested.entries()) {
    if (item === null || typeof item !== "object" || !SEAT_KINDS.includes(item.kind)) throw new Refused(`seat ${i}: expected {kind: ${SEAT_KINDS.join(" | ")}, name, spec}`);
    const name = item.name ?? "";
    if (typeof name !== "string" || name.length > NAME_CHARS || /[\p{C}]/u.test(name)) throw new Refused(`seat ${i}: a name is up to ${NAME_CHARS} printable characters, got ${JSON.stringify(name)}`);
    if (item.kind === "bot") {
      const spec = String(item.spec ?? "").trim();
      seats.push({ kind: "bot", name: name.trim() || spec, spec, bot: await resolveSpec(kibitz, spec, game, info.bots, lobby.limits) });
    } else {
      seats.push({ kind: "person", name: name.trim() || `Player ${i + 1}` });
    }
  }
  const seed = readSeed(data.seed);
  const room = add(new Room(new Table(kibitz, game, seats, seed, seatBots(seats, seed)), staticLimits()));
  return { table: room.id, ticket: room.ticket, invites: [] };
}

// The bot of each bot seat, its seed derived from the table's as kibitz.match.seat_bots derives it.
function seatBots(seats, seed) {
  return seats.map((s, i) => (s.kind === "bot" ? makeBot(kibitz, s.bot, deriveSeed(seed, "bot", i), lobby.limits.maxTimeMs) : null));
}

function readSeed(value) {
  if (value === null || value === undefined || value === "") return freshSeed();
  const text = String(value).trim();
  if (!/^\d+$/.test(text) || BigInt(text) >= SEED_LIMIT) throw new Refused(`the seed is a whole number 0..${SEED_LIMIT - 1n}, or empty for a random deal; got ${JSON.stringify(value)}`);
  return BigInt(text);
}

let limits = null;
// The hint's and the analysis's searches and the pause between two bot moves (the server's defaults).
function staticLimits() {
  if (limits) return limits;
  const hint = lobby.limits.hintSearch;
  limits = {
    hintBot: { kind: "search", params: hint, seesEverything: false },
    analysisBot: { kind: "search", params: { ...hint, iterations: lobby.limits.maxIterations, time_ms: lobby.limits.maxTimeMs }, seesEverything: false },
    movePauseMs: lobby.limits.movePauseMs,
  };
  return limits;
}

/** One position of a record (server.py's replay_model): the step `step` as `seat` saw it, or open. */
function replayStep(data) {
  if (data === null || typeof data !== "object" || typeof data.record !== "string") throw new Refused("expected 'record' (the record file's text), 'step' and 'seat'");
  const lines = data.record.split(/\r?\n/).filter((line) => line.trim());
  if (!lines.length) throw new Refused("the file holds no record (a kibitz record is one JSON object per line)");
  const index = data.index ?? 0;
  if (!Number.isInteger(index) || index < 0 || index >= lines.length) throw new Refused(`record ${index} does not exist; the file holds ${lines.length}`);
  const record = readRecord(lines[index]);
  const steps = replaySteps(record);
  const step = Math.min(Math.max(0, Number(data.step) || 0), steps.length - 1);
  const seat = data.seat ?? null;
  if (seat !== null && !(Number.isInteger(seat) && seat >= 0 && seat < record.specs.length)) throw new Refused(`seat ${JSON.stringify(seat)} does not exist`);
  const [state, entries] = steps[step];
  const end = step === steps.length - 1;
  const toMove = end && record.adjudication ? [] : deciders(state);
  const model = buildModel(kibitz, state, seat, entries, {
    names: [...record.specs], mine: [], legal: [], toMove, over: end,
    results: end ? [record.returns, record.scores, record.ranks] : null, replaying: true,
  });
  model.options = { ...record.options };
  if (end && record.adjudication) model.adjudication = record.adjudication;
  for (const [other] of steps) if (other !== state) other.delete();
  state.delete();
  return { records: lines.length, index, steps: steps.length, step, seat, model };
}

function readRecord(line) {
  let record;
  try {
    record = JSON.parse(line);
  } catch (error) {
    throw new Refused(`not a game record (${error.message}): ${line.slice(0, 80)}`);
  }
  const fields = { game: "string", options: "object", specs: "object", moves: "object", returns: "object", scores: "object", ranks: "object" };
  const wrong = Object.entries(fields).find(([key, type]) => typeof record?.[key] !== type || record[key] === null);
  if (wrong) throw new Refused(`not a game record (field '${wrong[0]}' is missing or not ${wrong[1] === "object" ? "a list or object" : "text"}): ${line.slice(0, 80)}`);
  const seed = /(?:^|[{,])\s*"seed"\s*:\s*(\d+)\s*[,}]/.exec(line); // a 63-bit seed does not fit a JavaScript number
  if (!seed) throw new Refused("not a game record (field 'seed' is missing or not a whole number)");
  record.seed = BigInt(seed[1]);
  return record;
}

// The positions a replay steps through, each where a seat decides and at the end, with the entries up to it.
function replaySteps(record) {
  const state = kibitz.game(record.game, record.options).newInitialState(deriveSeed(record.seed, "deal"));
  const entries = [];
  const steps = [];
  const moves = record.moves;
  try {
    for (let i = 0; i < moves.length;) {
      if (state.isChance()) {
        entries.push(entryOf(state, moves[i]));
        state.apply(moves[i++]);
        continue;
      }
      steps.push([state.clone(), [...entries]]);
      if (state.isSimultaneous()) {
        const seats = state.choosingSeats();
        const joint = Object.fromEntries(seats.map((s, k) => [s, moves[i + k]]));
        entries.push(...jointEntries(state, joint));
        state.applyJoint(joint);
        i += seats.length;
      } else {
        entries.push(entryOf(state, moves[i]));
        state.apply(moves[i++]);
      }
    }
  } catch (error) {
    for (const [s] of steps) s.delete();
    state.delete();
    throw new Refused(`the record does not replay: ${error.message}`);
  }
  steps.push([state, entries]);
  return steps;
}

// -- messages -------------------------------------------------------------------------------------

const CALLS = {
  games: () => lobby,
  create,
  replay: replayStep,
};

async function receive(data) {
  try {
    [kibitz, lobby] = await ready;
  } catch (error) {
    const message = `the engine did not load: ${error.message}`;
    if (data.request !== undefined) post({ request: data.request, error: message });
    else post({ kind: "error", message });
    return;
  }
  if (data.request !== undefined) {
    try {
      if (!Object.hasOwn(CALLS, data.kind)) throw new Refused(`no call ${JSON.stringify(data.kind)}`);
      post({ request: data.request, result: await CALLS[data.kind](data.data) });
    } catch (error) {
      post({ request: data.request, error: error.message });
    }
    return;
  }
  try {
    if (data.kind === "join") {
      const room = rooms.get(data.table);
      if (!room || room.ticket !== data.ticket) throw new Refused("no such table in this page (a static table lives as long as its page): open a new one");
      current = room;
      room.broadcast();
      room.wake();
    } else if (data.kind === "leave") {
      current = null;
    } else if (current === null) {
      throw new Refused("join a table first");
    } else {
      current.handle(data);
    }
  } catch (error) {
    // a refused message (Refused, TableError, SpecError) or the engine's error: said to the page, nothing changed
    post({ kind: "error", message: error?.message ?? String(error) });
  }
}

self.addEventListener("message", (event) => receive(event.data));
