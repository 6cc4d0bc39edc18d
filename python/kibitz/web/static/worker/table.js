// One game table in the page's worker: what kibitz/web/table.py is to `kibitz serve`, on the
// engine in WebAssembly (kibitz.mjs). The true game, its seats (people and bots), what each seat
// has seen, undo, resignation, the record, and the model a seat's view module draws
// (docs/web-views.md). Hidden information stays here: a seat's model is built from its view, its
// legal moves and the moves as it observed them; the full state shows once the game is over.
//
// Seeds as table.py: the deal from deriveSeed(seed, "deal"), chance outcome k from
// deriveSeed(chanceSeed, "chance", k), after the n-th undo from deriveSeed(seed, "undo", n).

import { deriveSeed } from "./seeds.js";

const JOINT_SEPARATOR = " | "; // kibitz.JOINT_SEPARATOR: a joint move's parts as one observer saw them
const MOVE_CHARS = 200;
const RECORD_VERSION = 2; // kibitz.records.RECORD_VERSION
export const RESIGNED = "resigned";

/** A request the table refuses; its message is shown in the page and nothing changes. */
export class TableError extends Error {}

/** The entry of `move` (a decision or a chance outcome, as text) played at `state`. */
export function entryOf(state, move) {
  const mover = state.currentPlayer;
  const seen = [];
  for (let seat = 0; seat < state.numPlayers; seat++) seen.push(state.observationText(seat, move));
  return { seat: mover >= 0 ? mover : null, text: move, seen };
}

/**
 * The entries of a joint move {seat: move}, one per choosing seat in the order the record keeps
 * them (state.choosingSeats(), not the object's key order), as table.joint_entries.
 */
export function jointEntries(state, joint) {
  const seats = state.choosingSeats();
  const seen = [];
  for (let observer = 0; observer < state.numPlayers; observer++) seen.push(state.jointObservationText(observer, joint).split(JOINT_SEPARATOR));
  return seats.map((seat, k) => ({
    seat, text: joint[seat], seen: seen.map((parts) => (parts.length === seats.length ? parts[k] : parts.join(JOINT_SEPARATOR))),
  }));
}

/** The seats that decide at `state`: the mover, or the choosing seats of a simultaneous node. */
export function deciders(state) {
  if (state.isTerminal() || state.isChance()) return [];
  return state.isSimultaneous() ? state.choosingSeats() : [state.currentPlayer];
}

export class Table {
  /**
   * `game`: a kibitz Game; `seats`: [{kind: "person" | "bot", name, spec}]; `bots`: per seat a bot
   * (bots.js) or null for a person; `seed`: a BigInt.
   */
  constructor(kibitz, game, seats, seed, bots) {
    if (seats.length !== game.numPlayers) throw new TableError(`${game.name} with ${game.numPlayers} players needs ${game.numPlayers} seats, got ${seats.length}`);
    if (!seats.some((s) => s.kind === "person")) throw new TableError("a table needs at least one person");
    this.kibitz = kibitz;
    this.game = game;
    this.seats = seats;
    this.seed = seed;
    this.bots = bots;
    this.state = game.newInitialState(deriveSeed(seed, "deal"));
    this.actions = [];
    this.moves = [];
    this.entries = [];
    this.checkpoints = [];
    this.pending = new Map(); // at a simultaneous node: seat -> its choice so far
    this.hints = new Map();
    this.undos = 0;
    this.chanceSeed = seed;
    this.draws = 0;
    this.generation = 0;
    this.adjudication = null;
    this.#settle();
  }

  get players() {
    return this.game.numPlayers;
  }

  get over() {
    return this.adjudication !== null || this.state.isTerminal();
  }

  deciding() {
    return this.over ? [] : deciders(this.state);
  }

  waitingFor() {
    return this.deciding().filter((seat) => !this.pending.has(seat));
  }

  botsToAct() {
    return this.waitingFor().filter((seat) => this.seats[seat].kind === "bot");
  }

  personSeats() {
    return this.seats.flatMap((seat, i) => (seat.kind === "bot" ? [] : [i]));
  }

  labels() {
    return this.seats.map((seat) => (seat.kind === "bot" ? seat.spec : `person:${seat.name}`));
  }

  // -- moves ------------------------------------------------------------------------------------
  /** A person's move for `seat` (text); TableError naming why it is refused, and then nothing changes. */
  play(seat, move) {
    if (typeof move !== "string") throw new TableError(`a move is text, got ${JSON.stringify(move)}`);
    if (move.length > MOVE_CHARS) throw new TableError(`a move has at most ${MOVE_CHARS} characters, got ${move.length}`);
    this.checkTurn(seat);
    const canonical = this.#legal(seat, move);
    this.checkpoints.push({ state: this.state.clone(), actions: this.actions.length, entries: this.entries.length });
    this.decide(seat, canonical);
  }

  /** The legal move `move` as the engine writes it; TableError with the engine's reason otherwise. */
  #legal(seat, move) {
    const state = this.state;
    try {
      const id = state.actionId(move);
      const legal = state.legalMovesFor(seat);
      const found = legal.find((m) => state.actionId(m) === id);
      if (found !== undefined) return found;
      if (state.isSimultaneous()) throw new TableError(`'${move.trim()}' is not legal here; legal: ${legal.join(" ")}`);
      const trial = state.clone();
      try { trial.apply(move); } finally { trial.delete(); } // the engine's reason
      throw new TableError(`'${move.trim()}' is not legal here`);
    } catch (error) {
      throw error instanceof TableError ? error : new TableError(error.message);
    }
  }

  checkTurn(seat) {
    if (this.over) throw new TableError("the game is over");
    const movers = this.deciding();
    if (!movers.includes(seat)) {
      const whose = movers.map((s) => `seat ${s} (${this.seats[s].name})`).join(", ");
      throw new TableError(`it is not seat ${seat}'s turn; ${whose} ${movers.length === 1 ? "is" : "are"} to move`);
    }
    if (this.pending.has(seat)) throw new TableError(`seat ${seat} has chosen already; the others are choosing`);
  }

  /** A checked decision of `seat` (canonical text): applied, or kept until every choosing seat has chosen. */
  decide(seat, move) {
    this.hints.delete(seat);
    if (!this.state.isSimultaneous()) {
      this.#record([entryOf(this.state, move)]);
      this.state.apply(move);
    } else {
      this.pending.set(seat, move);
      const seats = this.state.choosingSeats();
      if (seats.every((s) => this.pending.has(s))) {
        const joint = Object.fromEntries(seats.map((s) => [s, this.pending.get(s)]));
        this.#record(jointEntries(this.state, joint));
        this.state.applyJoint(joint);
        this.pending.clear();
      }
    }
    this.#settle();
  }

  #record(entries) {
    for (const entry of entries) {
      this.entries.push(entry);
      this.actions.push(this.state.actionId(entry.text));
      this.moves.push(entry.text);
    }
  }

  // Plays chance until a seat decides or the game ends.
  #settle() {
    while (this.state.isChance()) {
      const outcome = this.state.sampleChance(deriveSeed(this.chanceSeed, "chance", this.draws));
      this.#record([entryOf(this.state, outcome)]);
      this.state.apply(outcome);
      this.draws += 1;
    }
    if (this.over) this.generation += 1;
  }

  // -- bots ---------------------------------------------------------------------------------------
  /** The bot at `seat` decides: its move (canonical text) and its search's result, if it searched. */
  botMove(seat) {
    const bot = this.bots[seat];
    const { move, result } = bot.act(this.state, seat);
    const label = this.seats[seat].name;
    let canonical;
    try {
      canonical = this.#legal(seat, move);
    } catch (error) {
      throw new TableError(`bot '${label}' at seat ${seat} played '${move}', which is illegal here: ${error.message}`);
    }
    return { move: canonical, result };
  }

  /** A bot that failed instead of moving forfeits (recorded as its adjudication). */
  botFailed(seat, error) {
    if (this.over) return;
    this.adjudication = { seat, label: this.labels()[seat], reason: `the bot failed: ${error.message ?? error}`, phase: "decision" };
    this.generation += 1;
  }

  // -- undo and resignation -------------------------------------------------------------------------
  canUndo() {
    return !this.over && this.checkpoints.length > 0;
  }

  /** Takes back the last person decision and everything after it; chance after it is drawn afresh. */
  undo() {
    if (this.over) throw new TableError("the game is over: nothing to undo");
    if (!this.checkpoints.length) throw new TableError("nothing to undo yet");
    const point = this.checkpoints.pop();
    this.state.delete();
    this.state = point.state;
    this.actions.length = this.moves.length = point.actions;
    this.entries.length = point.entries;
    this.pending.clear();
    this.hints.clear();
    this.undos += 1;
    this.chanceSeed = deriveSeed(this.seed, "undo", this.undos);
    this.draws = 0;
    this.generation += 1;
  }

  /** `seat` gives up at its own decision; the game ends. */
  resign(seat) {
    if (this.over) throw new TableError("the game is over");
    if (!this.deciding().includes(seat)) throw new TableError(`seat ${seat} may resign at its own turn`);
    this.adjudication = { seat, label: this.labels()[seat], reason: RESIGNED, phase: "decision" };
    this.pending.delete(seat);
    this.generation += 1;
  }

  // -- results and the record -----------------------------------------------------------------------
  /** [returns, scores, ranks]: the game's, or a forfeit's (kibitz.referee.forfeit_results). */
  results() {
    const { returns, scores, ranks, teams } = this.state.results();
    if (this.adjudication === null) return [returns, scores, ranks];
    const losing = teams[this.adjudication.seat];
    const others = new Set(teams.filter((team) => team !== losing)).size;
    return [teams.map((t) => (t === losing ? 0 : 1 / others)), teams.map(() => 0), teams.map((t) => (t === losing ? 2 : 1))];
  }

  /** The game as a kibitz record (one line of JSON, what `kibitz replay` reads); once it is over. */
  record() {
    if (!this.over) throw new TableError("the record is given once the game is over");
    const [returns, scores, ranks] = this.results();
    return `{"game":${JSON.stringify(this.game.name)},"options":${JSON.stringify(this.game.options)},"seed":${this.seed},` +
      `"specs":${JSON.stringify(this.labels())},"actions":${JSON.stringify(this.actions)},"moves":${JSON.stringify(this.moves)},` +
      `"returns":${JSON.stringify(returns)},"scores":${JSON.stringify(scores)},"ranks":${JSON.stringify(ranks)},"index":null,` +
      `"adjudication":${JSON.stringify(this.adjudication)},"bots_seed":null,"version":${RECORD_VERSION}}`;
  }

  // -- what the page receives -------------------------------------------------------------------------
  /** The model of docs/web-views.md for `seat` (null: every hand open, once the game is over); `held`: the seats this page plays. */
  model(seat, held) {
    if (seat === null && !this.over) throw new TableError("the hands are shown open once the game is over");
    const legal = seat !== null && held.includes(seat) && this.waitingFor().includes(seat) && this.seats[seat].kind !== "bot" ? this.state.legalMovesFor(seat) : [];
    const model = buildModel(this.kibitz, this.state, seat, this.entries, {
      names: this.seats.map((s) => s.name),
      mine: held.filter((s) => this.seats[s].kind !== "bot").sort((a, b) => a - b),
      legal,
      toMove: this.deciding(),
      over: this.over,
      results: this.over ? this.results() : null,
    });
    model.options = { ...this.game.options };
    model.hint = seat !== null ? this.hints.get(seat) ?? null : null;
    model.chosen = seat !== null ? this.pending.get(seat) ?? null : null;
    model.waiting = this.waitingFor();
    if (this.adjudication !== null) model.adjudication = { ...this.adjudication };
    return model;
  }
}

/** The `key=value` words of a notation, by key (kibitz.notation_fields). */
export function notationFields(notation) {
  const out = {};
  for (const word of notation.split(/\s+/).slice(1)) {
    const at = word.indexOf("=");
    if (at >= 0) out[word.slice(0, at)] = word.slice(at + 1);
  }
  return out;
}

/**
 * A view module's model (table.build_model): from `seat`'s view and the entries as `seat` saw
 * them, or from the full state when `seat` is null (the caller allows that only for a finished game).
 */
export function buildModel(kibitz, state, seat, entries, { names, mine, legal, toMove, over, results, replaying = false }) {
  let notation;
  let board;
  if (seat === null) {
    notation = state.notation();
    board = state.render();
  } else {
    notation = state.view(seat).notation;
    const seen = kibitz.stateFromView(notation); // the board drawn from the view alone
    board = seen.render(seat);
    seen.delete();
  }
  const log = entries.map((e) => ({ seat: e.seat, text: seat === null ? e.text : e.seen[seat] }));
  const moves = log.filter((item) => item.seat !== null);
  let last = 0;
  if (seat !== null) for (let i = moves.length - 1; i >= 0; i--) if (moves[i].seat === seat) { last = i + 1; break; }
  const model = {
    game: state.gameName, players: state.numPlayers, options: {}, seat, notation, fields: notationFields(notation), board, names, mine,
    toMove, legal, moves, log, last, hint: null, terminal: over, replay: replaying,
  };
  if (results) [model.returns, model.scores, model.ranks] = results;
  return model;
}
