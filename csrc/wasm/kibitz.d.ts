// TypeScript declarations of kibitz.mjs, the kibitz engine in WebAssembly (docs/wasm.md).
// The build writes the fields of SearchOptions and SearchParams from the engine's parameter table
// (csrc/search/param_table.h) at their marker lines (csrc/wasm/make-dts.mjs).

/** Loads the engine: kibitz.wasm from beside the module unless `options.wasm` says otherwise. */
export function load(options?: LoadOptions): Promise<Kibitz>;

export interface LoadOptions {
  /** kibitz.wasm: its URL (default: beside kibitz.mjs), its bytes, or the compiled module. */
  wasm?: string | URL | BufferSource | WebAssembly.Module;
  /** The URL of the presets folder (default: presets/ beside kibitz.mjs). */
  presets?: string | URL;
}

/** A seed: an integer in 0..2^64-1, as a number (up to 2^53), a BigInt or decimal text. */
export type Seed = number | bigint | string;

/** currentPlayer at a chance node, at the end of the game, and at a simultaneous node. */
export const CHANCE: -1;
export const TERMINAL: -2;
export const SIMULTANEOUS: -3;

/** Every error of the engine; its message is the engine's. */
export class KibitzError extends Error {}
/** A move that is not legal here: the state is unchanged. */
export class IllegalMoveError extends KibitzError {}
/** Text that does not read as notation (a move, a state, a view). */
export class NotationError extends KibitzError {}
/** A game option, search parameter or argument that is not allowed. */
export class OptionError extends KibitzError {}
/** A game name the engine does not know. */
export class UnknownGameError extends KibitzError {}
/** The error class `name` names (KibitzError for a name it does not know), with `message`. */
export function engineError(name: string, message: string): Error;

export interface GameInfo {
  name: string;
  description: string;
  minPlayers: number;
  maxPlayers: number;
  /** The options a game takes (players among them), each with its help and default. */
  options: { name: string; help: string }[];
  perfectInformation: boolean;
  /** Some nodes let several seats choose at once (State.isSimultaneous). */
  simultaneous: boolean;
  /** Some nodes are chance nodes (false: all randomness is in the setup seed). */
  chance: boolean;
  maxActions: number;
  /** Rule constants: status "R" marks a reconstruction where the rules are not known. */
  constants: { name: string; value: string; status: string }[];
}

/** One search parameter as the engine declares it. */
export interface Parameter {
  name: string;
  kind: "int" | "float" | "str";
  default: number | bigint | string;
  low: number | null;
  high: number | null;
  choices: string[];
  log: boolean;
  tunable: boolean;
  algorithms: string[];
  /** The text protocol's option name ("" if the protocol does not set it). */
  option: string;
  aliases: string[];
  help: string;
}

/**
 * Search options: any of the parameters below (also by protocol option name or alias, any
 * case; numbers may be given as text), and the game's rollout-policy weights by name. Unset
 * parameters keep their defaults; a time given without iterations is the whole budget.
 */
export interface SearchOptions {
  // @options
  /** Rollout-policy weights by name (the others keep their defaults). */
  policy?: Record<string, number> | [string, number][];
  [key: `policy.${string}`]: number | string | undefined;
}

/** Every parameter's value, as Kibitz.searchParams gives them. */
export interface SearchParams {
  // @params
  policy: Record<string, number>;
}

/** A parameter set as shipped in presets/ (bots/<game>/<name>.json) or an entry of presets/default.json. */
export interface Preset {
  bot: string;
  params: Record<string, number | string>;
  format?: number;
  name?: string;
  version?: number;
  game?: string;
  options?: Record<string, string>;
  tuning?: Record<string, unknown>;
}

export interface ActionStat {
  move: string;
  /** The move's action id at this state. */
  action: number;
  visits: number;
  meanReward: number;
  /** What MCTS-Solver proved about the move for the searching seat's team. */
  proof: "win" | "loss" | null;
  /** The search's policy at the root (sums to 1 over the moves). */
  probability: number;
}

export interface SearchResult {
  move: string;
  action: number;
  /** One entry per root move, most visited first. */
  stats: ActionStat[];
  iterations: number;
  nodes: number;
  seconds: number;
  rootValue: number;
  /** The only legal move: answered without a search. */
  forced: boolean;
  /** The memory budget (memory_mb) was reached and the trees stopped growing. */
  treeFull: boolean;
}

export interface SolveResult {
  move: string;
  action: number;
  /** Per seat: 1 a win, 0.5 a tie, 0 a loss with perfect play. */
  values: number[];
  nodes: number;
  seconds: number;
}

export interface Results {
  returns: number[];
  scores: number[];
  ranks: number[];
  teams: number[];
}

export class Kibitz {
  /** The engine's version (the Python package's). */
  readonly version: string;
  games(): GameInfo[];
  parameters(): Parameter[];
  /** Every parameter's value for `options`, checked as Python's SearchParams checks them (OptionError). */
  searchParams(options?: SearchOptions): SearchParams;
  /** A preset's search options with `overrides` over them; a budget among them replaces the preset's. */
  presetParams(preset: Preset, overrides?: SearchOptions): SearchOptions;
  /** The presets shipped beside the module: game -> names ("default": presets/default.json). */
  presets(): Promise<Record<string, string[]>>;
  /** presets/<game>/<name>.json, or else the entry `name` of presets/default.json. */
  loadPreset(game: string, name: string): Promise<Preset>;
  game(name: string, options?: Record<string, string | number | boolean>): Game;
  stateFromNotation(text: string): State;
  stateFromView(text: string): State;
}

export class Game {
  readonly name: string;
  readonly options: Record<string, string>;
  readonly info: GameInfo;
  readonly numPlayers: number;
  readonly teams: number[];
  newInitialState(seed?: Seed): State;
  stateFromNotation(text: string): State;
  stateFromView(text: string): State;
  /** Game('name', option=value, ...). */
  toString(): string;
}

/** A full state held by the engine: delete() it when done (or let the garbage collector). */
export class State {
  readonly gameName: string;
  readonly numPlayers: number;
  /** The seat to move, or CHANCE, TERMINAL or SIMULTANEOUS. */
  readonly currentPlayer: number;
  isTerminal(): boolean;
  isChance(): boolean;
  isSimultaneous(): boolean;
  choosingSeats(): number[];
  legalMoves(): string[];
  legalMovesFor(seat: number): string[];
  chanceOutcomes(): { move: string; probability: number }[];
  apply(move: string): void;
  applyJoint(joint: Record<number, string>): void;
  sampleChance(seed: Seed): string;
  clone(): State;
  results(): Results;
  returns(): number[];
  scores(): number[];
  ranks(): number[];
  team(seat: number): number;
  view(seat: number): View;
  notation(): string;
  /** The notation. */
  toString(): string;
  render(seat?: number): string;
  equals(other: State): boolean;
  observationText(seat: number, move: string): string;
  jointObservationText(seat: number, joint: Record<number, string>): string;
  afterObservation(seat: number, seen: string, seed?: Seed): State;
  determinize(seat: number, seed: Seed): State;
  search(params?: SearchOptions, options?: { seat?: number; opponentShares?: number[] }): SearchResult;
  greedyMove(options?: { seat?: number; seed?: Seed }): string;
  solve(): SolveResult;
  perft(depth: number): number;
  delete(): void;
}

export class View {
  readonly gameName: string;
  readonly seat: number;
  readonly notation: string;
  /** The 64-bit information-set key: equal views have equal keys. */
  readonly key: bigint;
  state(): State;
  /** The notation. */
  toString(): string;
}

/** The state methods a RemoteState offers. */
export const REMOTE_METHODS: string[];

type Remote<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<R extends State ? RemoteState : R> : never;

/** The engine in a worker: a search there never blocks the page. States stay in the worker. */
export class KibitzWorker {
  /** Starts kibitz-worker.mjs (a module Web Worker, or a worker thread in Node) and loads the engine. */
  static start(url?: string | URL, options?: { wasm?: string | URL; presets?: string | URL }): Promise<KibitzWorker>;
  constructor(worker: Worker);
  games(): Promise<GameInfo[]>;
  parameters(): Promise<Parameter[]>;
  searchParams(options?: SearchOptions): Promise<SearchParams>;
  presetParams(preset: Preset, overrides?: SearchOptions): Promise<SearchOptions>;
  presets(): Promise<Record<string, string[]>>;
  loadPreset(game: string, name: string): Promise<Preset>;
  newInitialState(game: string, options?: Record<string, string | number | boolean>, seed?: Seed): Promise<RemoteState>;
  stateFromNotation(text: string): Promise<RemoteState>;
  stateFromView(text: string): Promise<RemoteState>;
  request(op: string, ...args: unknown[]): Promise<unknown>;
  /** Ends the worker and any search it runs; pending calls fail with KibitzError. */
  terminate(): void;
}

/** A State in a KibitzWorker, its methods answered by promises. */
export class RemoteState {
  readonly id: number;
  readonly gameName: string;
  readonly numPlayers: number;
  call(method: string, ...args: unknown[]): Promise<unknown>;
  turn(): Promise<{ currentPlayer: number; choosingSeats: number[] }>;
  view(seat: number): Promise<{ gameName: string; seat: number; notation: string; key: bigint }>;
  delete(): Promise<void>;
  legalMoves: Remote<State["legalMoves"]>;
  legalMovesFor: Remote<State["legalMovesFor"]>;
  chanceOutcomes: Remote<State["chanceOutcomes"]>;
  apply: Remote<State["apply"]>;
  applyJoint: Remote<State["applyJoint"]>;
  sampleChance: Remote<State["sampleChance"]>;
  clone: Remote<State["clone"]>;
  results: Remote<State["results"]>;
  notation: Remote<State["notation"]>;
  render: Remote<State["render"]>;
  observationText: Remote<State["observationText"]>;
  jointObservationText: Remote<State["jointObservationText"]>;
  afterObservation: Remote<State["afterObservation"]>;
  determinize: Remote<State["determinize"]>;
  search: Remote<State["search"]>;
  greedyMove: Remote<State["greedyMove"]>;
  solve: Remote<State["solve"]>;
  perft: Remote<State["perft"]>;
}
