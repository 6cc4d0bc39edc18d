// Searches positions in the WebAssembly engine for bench/wasm.py and tests/test_wasm.py: one JSON
// request per line on stdin, {notation, params, seat}, one JSON answer per line on stdout, {action,
// nodes, iterations, seconds, stats: [[action, visits], ...]} or {error}.
//   node bench/wasm_runner.mjs build/wasm/kibitz/kibitz.mjs
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const { load } = await import(pathToFileURL(process.argv[2]));
const kibitz = await load();

for await (const line of createInterface({ input: process.stdin })) {
  let answer;
  try {
    const { notation, params, seat } = JSON.parse(line);
    const state = kibitz.stateFromNotation(notation);
    const result = state.search(params, { seat: seat ?? undefined });
    state.delete();
    const { action, nodes, iterations, seconds } = result;
    answer = { action, nodes, iterations, seconds, stats: result.stats.map((s) => [s.action, s.visits]) };
  } catch (error) {
    answer = { error: `${error.name}: ${error.message}` };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
