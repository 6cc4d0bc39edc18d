// The bots of a static table, on the engine in WebAssembly. A seat's bot comes from a spec, as
// `kibitz serve` makes it (kibitz.bots.make_bot): a spec of the lobby's menu comes with its
// search already resolved by `kibitz web export` (lobby.json: levels and parameter sets as the
// Python package reads them); a typed spec is read here (a search with its options, a preset,
// random, greedy). Each bot draws the seed of each decision from its own seed as Python's
// SearchBot, RandomBot and GreedyBot do (random.Random(seed)), so a seeded table plays as the
// server's. A bot that is not a search from the seat's view sees only that view.

import { PyRandom } from "./seeds.js";

const ALGORITHMS = { uct: "uct", pimc: "pimc", ismcts: "so_ismcts", so_ismcts: "so_ismcts", mo_ismcts: "mo_ismcts" };
const NOT_HERE = ["level", "plugin", "expert", "policy"];

export class SpecError extends Error {}

/** `name:key=value,...` as its name and options (kibitz.bots.parse_spec); SpecError naming what is wrong. */
export function parseSpec(spec) {
  const text = String(spec).trim();
  const colon = text.indexOf(":");
  const name = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? "" : text.slice(colon + 1);
  if (!name) throw new SpecError(`empty bot name in spec '${text}'`);
  const options = {};
  for (const item of rest.split(",").map((part) => part.trim()).filter(Boolean)) {
    const eq = item.indexOf("=");
    const key = item.slice(0, eq);
    if (eq <= 0 || eq === item.length - 1) throw new SpecError(`bot spec '${text}': expected key=value, got '${item}'`);
    if (Object.hasOwn(options, key)) throw new SpecError(`bot spec '${text}': '${key}' given twice`);
    options[key] = item.slice(eq + 1);
  }
  return { name, options };
}

/**
 * How the bot of `spec` plays `game` (a kibitz Game): {kind: "search", params, seesEverything},
 * {kind: "greedy"} or {kind: "random"}, and `seed` when the spec sets one; the lobby's resolved
 * entry when the spec is one of its menu. Checks a search against `limits` ({maxIterations,
 * maxTimeMs}); SpecError naming what is wrong.
 */
export async function resolveSpec(kibitz, spec, game, menu, limits) {
  if (typeof spec !== "string" || !spec.trim()) throw new SpecError(`a bot spec is text, got ${JSON.stringify(spec)}`);
  const listed = menu.find((entry) => entry.spec === spec.trim());
  if (listed) return listed.bot;
  const { name, options } = parseSpec(spec);
  const label = `bot '${spec.trim()}'`;
  const seed = options.seed;
  delete options.seed;
  const blocked = [name, ...Object.keys(options)].find((key) => NOT_HERE.includes(key)) ?? (options.opponent_model === "adaptive" ? "opponent_model=adaptive" : null);
  if (blocked) throw new SpecError(`${label}: ${blocked} needs the Python package; the table in this page plays searches, presets, greedy and random (kibitz serve plays every bot)`);
  const seeded = (bot) => (seed === undefined ? bot : { ...bot, seed: checkedSeed(seed, label) });
  if (name === "random" || name === "greedy") {
    const extra = Object.keys(options);
    if (extra.length) throw new SpecError(`${label}: the ${name} bot here takes no options except seed; got ${extra.join(", ")}`);
    return seeded({ kind: name });
  }
  let preset = { bot: name, params: {} };
  try {
    if (!Object.hasOwn(ALGORITHMS, name)) preset = await kibitz.loadPreset(game.name, name); // strong, fast
    if (options.preset !== undefined) {
      const [where, short] = options.preset.includes("/") ? options.preset.split("/", 2) : [game.name, options.preset];
      preset = { bot: name in ALGORITHMS ? name : preset.bot, params: { ...preset.params, ...(await kibitz.loadPreset(where, short)).params } };
      delete options.preset;
    }
    const params = kibitz.searchParams({ ...kibitz.presetParams(preset, options), threads: 1 });
    delete params.seed;
    for (const [key, limit, most] of [["iterations", "maxIterations", limits.maxIterations], ["time_ms", "maxTimeMs", limits.maxTimeMs]]) {
      if (params[key] > most) throw new SpecError(`${label}: ${key}=${params[key]} is beyond this page's limit of ${most} (${limit})`);
    }
    return seeded({ kind: "search", params, seesEverything: params.algorithm === "uct" });
  } catch (error) {
    if (error instanceof SpecError) throw error;
    throw new SpecError(`${label}: ${error.message}${Object.hasOwn(ALGORITHMS, name) ? "" : `; known bots: ${Object.keys(ALGORITHMS).join(", ")}, random, greedy, strong, fast`}`);
  }
}

function checkedSeed(text, label) {
  if (!/^\s*\d+\s*$/.test(text) || BigInt(text) >= 2n ** 64n) throw new SpecError(`${label}: seed ${text} is not a whole number 0..2^64-1`);
  return text.trim();
}

/**
 * A bot that plays `descriptor` (resolveSpec's) with `seed` (a BigInt) unless the descriptor
 * sets its own: act(state, seat) gives {move, result} (result: the search's, or null). A search
 * stops at `maxTimeMs` whatever its budget, as the server stops it.
 */
export function makeBot(kibitz, descriptor, seed, maxTimeMs) {
  const rng = new PyRandom(descriptor.seed !== undefined ? BigInt(descriptor.seed) : seed);
  return {
    searching: descriptor.kind === "search",
    act(state, seat) {
      const seen = descriptor.seesEverything ? state.clone() : kibitz.stateFromView(state.view(seat).notation);
      try {
        const own = seen.isSimultaneous() ? seat : undefined;
        if (descriptor.kind === "random") return { move: rng.choice(seen.legalMovesFor(seat)), result: null };
        if (descriptor.kind === "greedy") return { move: seen.greedyMove({ seat: own, seed: rng.getrandbits(63) }), result: null };
        const budget = descriptor.params.time_ms > 0 ? Math.min(descriptor.params.time_ms, maxTimeMs) : maxTimeMs;
        const result = seen.search({ ...descriptor.params, time_ms: budget, seed: rng.getrandbits(63).toString() }, { seat: own });
        return { move: result.move, result };
      } finally {
        seen.delete();
      }
    },
  };
}
