// KibitzWorker: the engine in a worker (here a Node worker thread; a Web Worker in a page), its
// states held there and its calls answered by promises.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { dist, module } from "./engine.mjs";

const { IllegalMoveError, KibitzError, KibitzWorker, OptionError, RemoteState } = module;
let engine;

before(async () => {
  engine = await KibitzWorker.start(new URL("kibitz-worker.mjs", dist));
});
after(() => engine.terminate());

test("the engine's calls: games, parameters, search parameters, presets", async () => {
  assert.ok((await engine.games()).some((g) => g.name === "yak"));
  assert.ok((await engine.parameters()).some((p) => p.name === "iterations"));
  assert.equal((await engine.searchParams({ dets: 4 })).determinizations, 4);
  assert.ok((await engine.presets()).yak.includes("strong"));
  const preset = await engine.loadPreset("yak", "fast");
  assert.equal((await engine.presetParams(preset, { seed: 3 })).seed, 3);
  await assert.rejects(engine.searchParams({ c: -1 }), (e) => e instanceof OptionError && /c: -1 is out of range/.test(e.message));
});

test("a game played in the worker: the page sees views and results, the worker holds the state", async () => {
  const state = await engine.newInitialState("just4fun_colours", { players: 2 }, 7);
  assert.ok(state instanceof RemoteState);
  assert.equal(state.gameName, "just4fun_colours");
  assert.equal(state.numPlayers, 2);
  assert.deepEqual(await state.turn(), { currentPlayer: 0, choosingSeats: [] });
  const view = await state.view(0);
  assert.equal(view.seat, 0);
  assert.match(view.notation, /seat=0 .*\?7/);
  assert.equal(typeof view.key, "bigint");
  const result = await state.search({ iterations: 500, seed: 1 });
  assert.ok((await state.legalMoves()).includes(result.move));
  await state.apply(result.move);
  assert.equal((await state.turn()).currentPlayer, -1);
  await state.apply(await state.sampleChance(3));
  const copy = await state.clone();
  assert.ok(copy instanceof RemoteState && copy.id !== state.id);
  assert.equal(await copy.notation(), await state.notation());
  const fromView = await engine.stateFromView(view.notation);
  assert.equal((await fromView.view(0)).notation, view.notation);
  const fromNotation = await engine.stateFromNotation(await state.notation());
  assert.equal(await fromNotation.notation(), await state.notation());
  const yak = await engine.newInitialState("yak", {}, 2n);
  assert.deepEqual([...(await yak.turn()).choosingSeats].sort(), [0, 1, 2, 3]);
  assert.ok((await yak.legalMovesFor(1)).includes(await yak.greedyMove({ seat: 1 })));
});

test("errors come back as the engine's classes; a deleted state is gone", async () => {
  const state = await engine.newInitialState("yucata", { players: 2, start: 0 }, 1);
  await assert.rejects(state.apply("nonsense"), (e) => e instanceof KibitzError && e.name === "NotationError");
  await assert.rejects(state.applyJoint({ 0: "1" }), (e) => e instanceof IllegalMoveError && /no joint move here/.test(e.message));
  await assert.rejects(state.call("delete"), (e) => e instanceof KibitzError && /has no method delete/.test(e.message));
  await assert.rejects(engine.request("nonsense"), (e) => e instanceof KibitzError && /has no call nonsense/.test(e.message));
  await assert.rejects(engine.newInitialState("chess"), (e) => e.name === "UnknownGameError");
  await state.delete();
  await assert.rejects(state.legalMoves(), (e) => e instanceof KibitzError && /no state \d+ in the worker/.test(e.message));
});

test("terminate ends a running search: its promise rejects", async () => {
  const other = await KibitzWorker.start(new URL("kibitz-worker.mjs", dist));
  try {
    const yak = await other.newInitialState("yak", {}, 1);
    const started = Date.now();
    const long = yak.search({ time_ms: 60000 }, { seat: (await yak.turn()).choosingSeats[0] });
    setTimeout(() => other.terminate(), 200);
    await assert.rejects(long, (e) => e instanceof KibitzError && /terminated/.test(e.message));
    assert.ok(Date.now() - started < 30000);
    await assert.rejects(yak.legalMovesFor(0), /terminated|worker/);
  } finally {
    other.terminate();
  }
});
