// The JavaScript API of kibitz.mjs (docs/wasm.md): every function and every error.
//   node --test tests/js/      (tests/test_wasm.py builds the module and runs these)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dist, kibitz, module, playOut } from "./engine.mjs";

const { IllegalMoveError, KibitzError, NotationError, OptionError, UnknownGameError, CHANCE, SIMULTANEOUS, TERMINAL } = module;

/** Asserts that f() throws `type` (a subclass of KibitzError unless RangeError) with a message matching `pattern`. */
function throws(f, type, pattern) {
  assert.throws(f, (error) => {
    assert.ok(error instanceof type, `${error?.name}: ${error?.message} is not a ${type.name}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test("load: the version of the Python package; a missing kibitz.wasm rejects", async () => {
  const pyproject = readFileSync(new URL("../../pyproject.toml", import.meta.url), "utf8");
  assert.equal(kibitz.version, pyproject.match(/\nversion = "([^"]+)"/)[1]);
  await assert.rejects(module.load({ wasm: new URL("no-such.wasm", dist) }), /no-such\.wasm|ENOENT/);
  const bytes = readFileSync(new URL("kibitz.wasm", dist));
  assert.equal((await module.load({ wasm: bytes })).games().length, kibitz.games().length);
});

test("games: every game with its player range, options and kind", () => {
  const games = Object.fromEntries(kibitz.games().map((g) => [g.name, g]));
  assert.deepEqual(Object.keys(games).sort(), ["biased_rps", "canasta_tiles", "goofspiel", "just4fun_colours", "yak", "yucata"]);
  assert.equal(games.yak.minPlayers, 2);
  assert.equal(games.yak.maxPlayers, 4);
  assert.ok(games.yak.options.some((o) => o.name === "variant" && o.help.includes("master_builder")));
  assert.equal(games.yak.simultaneous, true);
  assert.equal(games.yucata.perfectInformation, true);
  assert.equal(games.just4fun_colours.perfectInformation, false);
  assert.ok(games.just4fun_colours.maxActions > 0);
  assert.ok(games.yak.constants.some((c) => c.status === "R"));
  kibitz.games()[0].name = "changed"; // a copy: the engine's list is unchanged
  assert.equal(kibitz.games()[0].name, "just4fun_colours");
});

test("parameters: the engine's table, with kinds, ranges, choices and aliases", () => {
  const table = Object.fromEntries(kibitz.parameters().map((p) => [p.name, p]));
  assert.deepEqual(table.algorithm.choices, ["so_ismcts", "mo_ismcts", "pimc", "uct"]);
  assert.equal(table.iterations.kind, "int");
  assert.equal(table.iterations.default, 10000);
  assert.equal(table.c.kind, "float");
  assert.deepEqual(table.determinizations.aliases, ["dets"]);
  assert.deepEqual(table.determinizations.algorithms, ["pimc"]);
  assert.equal(table.memory_mb.option, "Hash");
});

test("searchParams: defaults, names in any case, aliases, text, BigInt seeds, policy weights", () => {
  const defaults = kibitz.searchParams();
  for (const p of kibitz.parameters()) assert.deepEqual(defaults[p.name], p.default, p.name);
  assert.deepEqual(defaults.policy, {});
  const p = kibitz.searchParams({ DETS: 5, Hash: 64, c: "1.5", iterations: "1e4", seed: 2n ** 62n, policy: { block: 0 }, "policy.take": "2" });
  assert.equal(p.determinizations, 5);
  assert.equal(p.memory_mb, 64);
  assert.equal(p.c, 1.5);
  assert.equal(p.iterations, 10000);
  assert.equal(p.seed, 2n ** 62n);
  assert.deepEqual(p.policy, { block: 0, take: 2 });
  assert.equal(kibitz.searchParams({ time_ms: 100 }).iterations, 0, "a time alone is the budget");
  assert.equal(kibitz.searchParams({ time: 100, iterations: 500 }).iterations, 500);
  assert.equal(kibitz.searchParams({ solver: false }).solver, 0);
  assert.deepEqual(kibitz.searchParams({ policy: [["block", 1]] }).policy, { block: 1 });
});

test("searchParams: every refusal is an OptionError naming the parameter and what is allowed", () => {
  const refusals = [
    [{ foo: 1 }, /unknown search parameter 'foo'; known: algorithm, iterations/],
    [{ c: -1 }, /search parameter c: -1 is out of range; expected a number in 0\.\.100/],
    [{ c: "abc" }, /search parameter c: expected a number in 0\.\.100, got 'abc'/],
    [{ c: Infinity }, /c: Infinity is out of range/],
    [{ algorithm: "x" }, /algorithm: 'x' is not allowed; expected one of so_ismcts, mo_ismcts, pimc, uct/],
    [{ algorithm: 3 }, /algorithm: expected one of so_ismcts/],
    [{ iterations: 1.5 }, /iterations: expected an integer in 0\.\.1000000000, got 1\.5/],
    [{ iterations: 2e9 }, /iterations: 2000000000 is out of range/],
    [{ iterations: 0 }, /set iterations and\/or time_ms \(both are 0\)/],
    [{ seed: -1 }, /seed: -1 is out of range; expected an integer in 0\.\.9223372036854775807/],
    [{ seed: 2n ** 64n }, /seed: 18446744073709551616 is out of range/],
    [{ threads: 2 }, /threads: this WebAssembly build runs one thread; got 2/],
    [{ memory_mb: 4096 }, /memory_mb: 4096 is more than the WebAssembly build can address; expected at most 2048/],
    [{ "policy.x": "a" }, /policy\.x: expected a finite number, got 'a'/],
    [{ policy: [[1, 2]] }, /policy: expected weights by name/],
    [[1, 2], /expected an object such as \{iterations: 2000\}/],
  ];
  for (const [options, pattern] of refusals) throws(() => kibitz.searchParams(options), OptionError, pattern);
});

test("presets: shipped beside the module, loaded, and read as search options", async () => {
  const presets = await kibitz.presets();
  for (const game of ["just4fun_colours", "yucata", "canasta_tiles", "yak"]) assert.ok(presets[game].includes("strong"), game);
  assert.deepEqual(presets.default, ["default"]);
  const strong = await kibitz.loadPreset("yucata", "strong");
  assert.equal(strong.bot, "uct");
  assert.deepEqual(kibitz.presetParams(strong), { algorithm: "uct", ...strong.params });
  const timed = kibitz.presetParams(strong, { time_ms: 50, c: 1 });
  assert.equal(timed.iterations, undefined, "a budget given replaces the preset's");
  assert.equal(timed.time_ms, 50);
  assert.equal(kibitz.searchParams(timed).iterations, 0);
  assert.equal((await kibitz.loadPreset("yak", "fast")).params.iterations, 2000);
  assert.equal((await kibitz.loadPreset("yak", "fast")).bot, "ismcts");
  assert.equal(kibitz.presetParams(await kibitz.loadPreset("yak", "fast")).algorithm, "so_ismcts");
  assert.equal((await kibitz.loadPreset("goofspiel", "strong")).params.iterations, 20000, "presets/default.json's entry");
  await assert.rejects(kibitz.loadPreset("yak", "nonsense"), (e) => e instanceof OptionError && /no preset 'nonsense' for yak; there are: fast/.test(e.message));
  await assert.rejects(kibitz.loadPreset("yak", 3), OptionError);
  throws(() => kibitz.presetParams({ bot: "greedy", params: {} }), OptionError, /preset bot 'greedy' is not a search/);
  throws(() => kibitz.presetParams("strong"), OptionError, /a preset is a parameter set/);
  throws(() => kibitz.presetParams(strong, { nonsense: 1 }), OptionError, /unknown search parameter 'nonsense'/);
});

test("game: options checked; players and teams; errors name the option", () => {
  const game = kibitz.game("canasta_tiles");
  assert.equal(game.numPlayers, 4);
  assert.deepEqual(game.teams, [0, 1, 0, 1]);
  assert.equal(game.info.name, "canasta_tiles");
  assert.equal(kibitz.game("just4fun_colours", { players: 3, line: 5 }).toString(), "Game('just4fun_colours', players=3, line=5)");
  throws(() => kibitz.game("nope"), UnknownGameError, /unknown game 'nope'; known games: just4fun_colours/);
  throws(() => kibitz.game(7), UnknownGameError, /game name: expected text/);
  throws(() => kibitz.game("yak", { players: 7 }), OptionError, /option players='7' is not allowed/);
  throws(() => kibitz.game("yak", { colour: 1 }), OptionError, /unknown option 'colour' for yak/);
  throws(() => kibitz.game("yak", { players: [2] }), OptionError, /option players: expected text or a number/);
  throws(() => kibitz.game("yak", "players=2"), OptionError, /expected an object/);
});

test("newInitialState: the deal comes from the seed (number, BigInt or text); bad seeds refused", () => {
  const game = kibitz.game("just4fun_colours", { players: 3 });
  assert.equal(game.newInitialState(42).notation(), game.newInitialState(42n).notation());
  assert.equal(game.newInitialState(42).notation(), game.newInitialState("42").notation());
  assert.notEqual(game.newInitialState(42).notation(), game.newInitialState(43).notation());
  assert.equal(game.newInitialState(2n ** 64n - 1n).numPlayers, 3);
  throws(() => game.newInitialState(-1), OptionError, /seed: -1 is out of range; expected an integer in 0\.\.18446744073709551615/);
  throws(() => game.newInitialState(2n ** 64n), OptionError, /is out of range/);
  throws(() => game.newInitialState(1.5), OptionError, /seed: expected an integer in 0\.\.18446744073709551615, got 1\.5/);
});

test("a state: whose turn, legal moves, apply, and an illegal move leaves it unchanged", () => {
  const state = kibitz.game("just4fun_colours", { players: 2 }).newInitialState(7);
  assert.equal(state.gameName, "just4fun_colours");
  assert.equal(state.numPlayers, 2);
  assert.equal(state.currentPlayer, 0);
  assert.equal(state.isTerminal() || state.isChance() || state.isSimultaneous(), false);
  assert.deepEqual(state.choosingSeats(), []);
  const moves = state.legalMoves();
  assert.ok(moves.includes("a1"));
  assert.deepEqual(state.legalMovesFor(0), moves);
  assert.deepEqual(state.legalMovesFor(1), []);
  const before = state.notation();
  throws(() => state.apply("zzz"), NotationError, /'zzz' is not a just4fun_colours move/);
  throws(() => state.apply(3), NotationError, /move: expected text, got 3/);
  throws(() => state.apply("a1é"), NotationError, /non-ASCII character 'é'/);
  assert.equal(state.notation(), before);
  state.apply(" a1 ");
  assert.equal(state.currentPlayer, CHANCE);
  assert.ok(state.isChance());
  throws(() => state.apply("a2"), NotationError, /./);
  assert.notEqual(state.notation(), before);
});

test("an illegal move is an IllegalMoveError listing the legal ones", () => {
  const state = kibitz.game("yucata", { players: 2, start: 0 }).newInitialState(1);
  const illegal = ["1", "2", "3", "4", "5", "S", "Q"].find((m) => !state.legalMoves().includes(m));
  const before = state.notation();
  throws(() => state.apply(illegal), IllegalMoveError, /illegal move .* legal: /);
  assert.equal(state.notation(), before);
});

test("chance: outcomes with probabilities, a seeded sample, applied as text", () => {
  const state = kibitz.game("just4fun_colours", { players: 2 }).newInitialState(7);
  state.apply("a1");
  const outcomes = state.chanceOutcomes();
  assert.ok(Math.abs(outcomes.reduce((sum, o) => sum + o.probability, 0) - 1) < 1e-9);
  assert.deepEqual(state.legalMoves(), outcomes.map((o) => o.move));
  assert.equal(state.sampleChance(5), state.sampleChance(5));
  const drawn = state.sampleChance(5);
  assert.ok(outcomes.some((o) => o.move === drawn));
  state.apply(drawn);
  assert.equal(state.currentPlayer, 1);
  assert.deepEqual(state.chanceOutcomes(), []);
  throws(() => state.sampleChance(5), KibitzError, /not a chance node/);
  throws(() => state.sampleChance(-5), OptionError, /seed: -5 is out of range/);
});

test("simultaneous moves: choosing seats, each seat's moves, a joint move and its errors", () => {
  const state = kibitz.game("biased_rps").newInitialState();
  assert.equal(state.currentPlayer, SIMULTANEOUS);
  assert.ok(state.isSimultaneous());
  assert.deepEqual(state.choosingSeats(), [0, 1]);
  assert.deepEqual(state.legalMovesFor(1), ["rock", "paper", "scissors"]);
  throws(() => state.legalMoves(), IllegalMoveError, /seats 0, 1 choose at once here: ask legalMovesFor\(seat\)/);
  throws(() => state.apply("rock"), IllegalMoveError, /choose at once here/);
  throws(() => state.applyJoint({ 0: "paper" }), IllegalMoveError, /no action of seat 1/);
  throws(() => state.applyJoint({ 0: "paper", 1: "xx" }), NotationError, /seat 1: 'xx' is not a choice/);
  throws(() => state.applyJoint({ 0: "paper", 5: "rock" }), IllegalMoveError, /seat 5 does not choose here/);
  throws(() => state.applyJoint({ 0: "paper", one: "rock" }), IllegalMoveError, /'one' is not a seat/);
  throws(() => state.applyJoint({ 0: "paper", 1: 2 }), NotationError, /seat 1: a move is text, got 2/);
  throws(() => state.applyJoint(["paper", "rock"]), NotationError, /a joint move maps seats to moves/);
  assert.equal(state.jointObservationText(0, { 0: "paper", 1: "rock" }), "paper | rock");
  state.applyJoint({ 0: "paper", 1: "rock" });
  assert.deepEqual(state.scores(), [25, -25]);
  throws(() => state.applyJoint({ 0: "paper", 1: "rock" }), IllegalMoveError, /no joint move here/);
});

test("a whole game: returns, scores, ranks and teams at the end", () => {
  for (const [name, options] of [["canasta_tiles", {}], ["yak", { players: 3 }], ["yucata", { players: 2 }], ["goofspiel", {}]]) {
    const state = playOut(kibitz.game(name, options).newInitialState(3));
    assert.equal(state.currentPlayer, TERMINAL);
    assert.ok(state.isTerminal());
    const { returns, scores, ranks, teams } = state.results();
    assert.equal(returns.length, state.numPlayers);
    assert.equal(scores.length, state.numPlayers);
    assert.ok(ranks.every((r) => r >= 1 && r <= state.numPlayers));
    assert.ok(Math.abs(returns.reduce((a, b) => a + b) - (name === "canasta_tiles" ? 2 : 1)) < 1e-9, name);
    assert.deepEqual(state.returns(), returns);
    assert.deepEqual(state.scores(), scores);
    assert.deepEqual(state.ranks(), ranks);
    assert.equal(state.team(1), teams[1]);
    throws(() => state.apply("x"), KibitzError, /./);
    throws(() => state.search({ iterations: 10 }), IllegalMoveError, /search needs a seat to move/);
  }
});

test("view: what a seat may know; its state reads back to the same view; keys", () => {
  const state = kibitz.game("just4fun_colours", { players: 2 }).newInitialState(7);
  const mine = state.view(0);
  const theirs = state.view(1);
  assert.equal(mine.seat, 0);
  assert.equal(mine.gameName, "just4fun_colours");
  assert.match(mine.notation, /seat=0/);
  assert.match(mine.notation, /\?7/, "the other hand is hidden");
  assert.equal(String(mine), mine.notation);
  assert.notEqual(mine.notation, theirs.notation);
  assert.equal(typeof mine.key, "bigint");
  assert.notEqual(mine.key, theirs.key);
  const sampled = mine.state();
  assert.equal(sampled.view(0).notation, mine.notation);
  assert.equal(sampled.view(0).key, mine.key);
  assert.equal(kibitz.stateFromView(mine.notation).view(0).notation, mine.notation);
  assert.match(state.render(0), /\?\?\?\?\?\?\?/);
  assert.doesNotMatch(state.render(), /\?\?\?\?\?\?\?/);
  throws(() => state.view(2), OptionError, /seat: 2 is out of range; expected an integer in 0\.\.1/);
  throws(() => state.view("0"), OptionError, /seat: expected an integer/);
  throws(() => state.render(-1), OptionError, /seat: -1 is out of range/);
});

test("notation: a state reads back exactly; errors name what does not read", () => {
  const game = kibitz.game("yak", { players: 3 });
  const state = game.newInitialState(5);
  const copy = kibitz.stateFromNotation(state.notation());
  assert.ok(copy.equals(state));
  assert.ok(game.stateFromNotation(state.notation()).equals(state));
  assert.equal(String(state), state.notation());
  assert.equal(state.equals("x"), false);
  throws(() => kibitz.stateFromNotation(""), NotationError, /an empty notation; it starts with the game's name/);
  throws(() => kibitz.stateFromNotation("chess abc"), UnknownGameError, /unknown game 'chess'/);
  throws(() => kibitz.stateFromNotation("yak garbage"), NotationError, /expected key=value, got 'garbage'/);
  throws(() => kibitz.stateFromNotation(42), NotationError, /notation: expected text/);
  throws(() => kibitz.game("yak", { players: 4 }).stateFromNotation(state.notation()), NotationError, /the notation is of 3 players; this game is yak with 4/);
  throws(() => kibitz.game("yucata").stateFromNotation(state.notation()), NotationError, /the notation is of a state of yak/);
  throws(() => kibitz.game("yak", { players: 3 }).stateFromView(state.view(0).notation.replace("seat=0", "seat=9")), NotationError, /./);
});

test("clone is independent; delete frees a state, which cannot be used afterwards", () => {
  const state = kibitz.game("yucata", { players: 2 }).newInitialState(1);
  const copy = state.clone();
  copy.apply(copy.legalMoves()[0]);
  assert.equal(copy.equals(state), false);
  copy.delete();
  copy.delete(); // twice is harmless
  throws(() => copy.legalMoves(), KibitzError, /this state was deleted/);
  assert.ok(state.legalMoves().length > 0);
});

test("observations: what a seat sees of a move; the state after it; determinizations", () => {
  const state = kibitz.game("just4fun_colours", { players: 2 }).newInitialState(7);
  state.apply("a1");
  state.apply(state.sampleChance(1));
  const move = state.legalMoves()[0];
  const seen = state.observationText(0, move);
  assert.equal(typeof seen, "string");
  const after = state.afterObservation(0, seen, 3);
  const played = state.clone();
  played.apply(move);
  assert.equal(after.view(0).notation, played.view(0).notation);
  throws(() => state.afterObservation(0, "zz9"), KibitzError, /./);
  throws(() => state.observationText(0, "nonsense"), NotationError, /./);
  const deal = state.determinize(1, 9);
  assert.equal(deal.view(1).notation, state.view(1).notation);
  assert.ok(state.determinize(1, 9).equals(deal), "the same seed deals the same");
  throws(() => state.determinize(1, -1), OptionError, /seed/);
});

test("search: the move and the root statistics, reproducible from the seed; budgets; errors", () => {
  const state = kibitz.game("just4fun_colours", { players: 3 }).newInitialState(42);
  const result = state.search({ iterations: 3000, seed: 1 });
  assert.equal(result.iterations, 3000);
  assert.ok(state.legalMoves().includes(result.move));
  assert.equal(result.stats[0].move, result.move);
  assert.equal(result.stats.reduce((n, s) => n + s.visits, 0), 3000);
  assert.ok(Math.abs(result.stats.reduce((p, s) => p + s.probability, 0) - 1) < 1e-9);
  assert.ok(result.nodes > 0 && result.seconds > 0 && result.rootValue > 0 && result.rootValue < 1);
  assert.equal(result.forced, false);
  assert.equal(result.treeFull, false);
  assert.equal(result.stats[0].proof, null);
  assert.deepEqual(state.search({ iterations: 3000, seed: 1 }).stats, result.stats);
  for (const algorithm of ["so_ismcts", "mo_ismcts", "pimc", "uct"])
    assert.ok(state.legalMoves().includes(state.search({ algorithm, iterations: 300, dets: 3 }).move), algorithm);
  const timed = state.search({ time_ms: 100 });
  assert.ok(timed.seconds >= 0.09 && timed.seconds < 2, `${timed.seconds} s`);
  const yak = kibitz.game("yak").newInitialState(3);
  assert.ok(yak.legalMovesFor(2).includes(yak.search({ iterations: 300 }, { seat: 2 }).move));
  throws(() => yak.search({ iterations: 300 }), IllegalMoveError, /choose at once here: search one of them/);
  throws(() => state.search({ iterations: 300 }, { seat: 1 }), IllegalMoveError, /seat 1 has no decision here; seat 0 is to move/);
  throws(() => state.search({ iterations: 300 }, { seat: 5 }), OptionError, /seat: 5 is out of range/);
  throws(() => state.search({ iterations: 0 }), OptionError, /set iterations and\/or time_ms/);
  throws(() => state.search({ "policy.nonsense": 1 }), OptionError, /unknown policy weight 'nonsense' for just4fun_colours; known: block/);
  throws(() => state.search({ iterations: 10 }, { opponentShares: [0.5] }), OptionError, /opponent_shares: one share per seat is needed \(3\), got 1/);
  throws(() => state.search({ iterations: 10 }, { opponentShares: 0.5 }), OptionError, /opponentShares: expected one number per seat/);
  throws(() => state.search({ iterations: 10 }, { opponentShares: ["a", 0, 0] }), OptionError, /opponentShares: expected numbers, got 'a'/);
  const canasta = kibitz.game("canasta_tiles").newInitialState(1);
  while (canasta.isChance() || canasta.legalMoves().length > 1) canasta.apply(canasta.isChance() ? canasta.sampleChance(1) : canasta.legalMoves()[0]);
  const forced = canasta.search({ iterations: 1000 });
  assert.equal(forced.forced, true);
  assert.equal(forced.move, canasta.legalMoves()[0]);
  assert.deepEqual(forced.stats, []);
});

test("greedyMove: the greedy bot's legal move, for a choosing seat at a simultaneous node", () => {
  const state = kibitz.game("canasta_tiles").newInitialState(2);
  while (state.isChance()) state.apply(state.sampleChance(1));
  assert.ok(state.legalMoves().includes(state.greedyMove({ seed: 4 })));
  const yak = kibitz.game("yak").newInitialState(3);
  assert.ok(yak.legalMovesFor(0).includes(yak.greedyMove({ seat: 0 })));
  throws(() => yak.greedyMove(), IllegalMoveError, /choose at once here: give the seat/);
  throws(() => state.greedyMove({ seat: (state.currentPlayer + 1) % 4 }), IllegalMoveError, /has no decision here/);
});

test("solve: the exact value of a Yucata' endgame; refused where there is no solver", () => {
  const state = kibitz.game("yucata", { start: 0 }).newInitialState(1);
  for (const card of "1321324S54SQQ5") state.apply(card);
  const solved = state.solve();
  assert.deepEqual(solved.values, [0.5, 0.5]);
  assert.equal(solved.move, "Q");
  assert.ok(solved.nodes > 0);
  throws(() => kibitz.game("yak").newInitialState(1).solve(), IllegalMoveError, /solve needs a seat to move/);
  throws(() => kibitz.game("just4fun_colours").newInitialState(1).solve(), KibitzError, /has no exact solver/);
});

test("perft: leaves after n plies", () => {
  const state = kibitz.game("just4fun_colours", { players: 2 }).newInitialState(7);
  assert.equal(state.perft(0), 1);
  assert.equal(state.perft(1), state.legalMoves().length);
  assert.ok(state.perft(2) > state.perft(1));
  throws(() => state.perft(-1), OptionError, /perft depth: -1 is out of range/);
});

test("errors are Error objects of the engine's classes", () => {
  for (const type of [IllegalMoveError, NotationError, OptionError, UnknownGameError]) {
    const error = module.engineError(type.name, "m");
    assert.ok(error instanceof type && error instanceof KibitzError && error instanceof Error);
    assert.equal(error.name, type.name);
    assert.equal(error.message, "m");
  }
  assert.ok(module.engineError("RangeError", "r") instanceof RangeError);
  assert.equal(module.engineError("Whatever", "w").name, "KibitzError");
});
