// The examples of docs/wasm.md run as written (their import of kibitz.mjs pointed at the build).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dist } from "./engine.mjs";

const page = readFileSync(new URL("../../docs/wasm.md", import.meta.url), "utf8");
const examples = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);

test("docs/wasm.md has its examples, and each runs", async () => {
  assert.equal(examples.length, 2);
  for (const example of examples) {
    const code = example.replace(/from "[^"]*kibitz\.mjs"/, `from "${new URL("kibitz.mjs", dist)}"`);
    const printed = [];
    const log = console.log;
    console.log = (...args) => printed.push(args.join(" "));
    try {
      await import(`data:text/javascript,${encodeURIComponent(code)}`);
    } finally {
      console.log = log;
    }
    if (example.includes("z9")) assert.match(printed.at(-1), /^NotationError 'z9' is not a just4fun_colours move/);
  }
});
