// The built kibitz.mjs for the node tests: from $KIBITZ_WASM_DIR (tests/test_wasm.py sets it), or
// build/wasm/kibitz/ of this checkout.
import { pathToFileURL } from "node:url";

export const dist = process.env.KIBITZ_WASM_DIR
  ? pathToFileURL(process.env.KIBITZ_WASM_DIR.replace(/\/?$/, "/"))
  : new URL("../../build/wasm/kibitz/", import.meta.url);
export const module = await import(new URL("kibitz.mjs", dist));
export const kibitz = await module.load();

/** Plays seeded uniformly random moves (chance outcomes drawn by the engine) until the end. */
export function playOut(state, seed = 1) {
  let n = seed;
  while (!state.isTerminal()) {
    if (state.isChance()) state.apply(state.sampleChance(n++));
    else if (state.isSimultaneous())
      state.applyJoint(Object.fromEntries(state.choosingSeats().map((seat) => [seat, pick(state.legalMovesFor(seat), n++)])));
    else state.apply(pick(state.legalMoves(), n++));
  }
  return state;
}

function pick(moves, n) {
  return moves[(n * 7919) % moves.length];
}
