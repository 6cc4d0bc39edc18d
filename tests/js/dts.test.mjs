// kibitz.d.ts declares what kibitz.mjs exports: every export, every public method, and every
// search parameter of the engine's table with its type.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dist, kibitz, module } from "./engine.mjs";

const dts = readFileSync(new URL("kibitz.d.ts", dist), "utf8");

/** The body of the declaration `export <kind> <name> ... { ... }` (to its first line-start "}"). */
function block(kind, name) {
  const start = dts.search(new RegExp(`^export ${kind} ${name}\\b`, "m"));
  assert.ok(start >= 0, `kibitz.d.ts declares no ${kind} ${name}`);
  return dts.slice(start, dts.indexOf("\n}", start));
}

test("every export of kibitz.mjs is declared", () => {
  for (const name of Object.keys(module)) assert.match(dts, new RegExp(`^export (class|function|const) ${name}\\b`, "m"), name);
});

test("every public method of the classes is declared in its class", () => {
  const classes = { Kibitz: module.Kibitz, Game: module.Game, State: module.State, View: module.View, KibitzWorker: module.KibitzWorker };
  for (const [name, cls] of Object.entries(classes)) {
    const body = block("class", name);
    for (const method of Object.getOwnPropertyNames(cls.prototype).filter((m) => m !== "constructor" && !m.startsWith("_")))
      assert.match(body, new RegExp(`\\n  (readonly )?${method}\\b`), `${name}.${method}`);
  }
  const remote = block("class", "RemoteState");
  for (const method of module.REMOTE_METHODS) assert.match(remote, new RegExp(`\\n  ${method}: Remote<State\\["${method}"\\]>;`), method);
});

test("SearchOptions and SearchParams have every parameter of the engine's table, typed", () => {
  const options = block("interface", "SearchOptions");
  const params = block("interface", "SearchParams");
  for (const p of kibitz.parameters()) {
    const type = p.kind === "str" ? p.choices.map((c) => `"${c}"`).join(" \\| ") : "number";
    assert.match(options, new RegExp(`\\n  ${p.name}\\?: ${type}`), p.name);
    assert.match(params, new RegExp(`\\n  ${p.name}: ${type}`), p.name);
  }
});
