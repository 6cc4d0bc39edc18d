// Yak's move texts (docs/games/yak.md §4.1) read into what a click can pick, and the
// narrowing of a choice made of several tokens (the stones of a purchase, the food of a payment).

// The legal moves by verb: choose/restock → names; build/pay/overflow/take → lists of tokens
// (`build -`, `take -`: the empty list); place/put → {kind, at} (a position "L,i" or a cart).
export function sortMoves(legal) {
  const out = { choose: [], build: [], pay: [], overflow: [], take: [], restock: [], place: [], put: [] };
  for (const text of legal) {
    const [verb, ...rest] = text.split(" ");
    if (!(verb in out)) continue;
    if (verb === "choose" || verb === "restock") out[verb].push(rest[0]);
    else if (verb === "place" || verb === "put") out[verb].push({ kind: rest[0], at: rest[1] });
    else out[verb].push(rest[0] === "-" ? [] : rest);
  }
  return out;
}

// One parsed move, as sortMoves reads it: {verb, names|tokens|kind+at}.
export function readMove(text) {
  const [verb, ...rest] = (text ?? "").split(";")[0].trim().split(" ");
  if (verb === "place" || verb === "put") return { verb, kind: rest[0], at: rest[1] };
  if (verb === "build" || verb === "pay" || verb === "overflow" || verb === "take")
    return { verb, tokens: rest[0] === "-" ? [] : rest };
  return { verb, name: rest[0] };
}

const countOf = (list) => list.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map());
// `small` is a sub-multiset of `big`.
export function within(small, big) {
  const have = countOf(big);
  for (const [x, n] of countOf(small)) if ((have.get(x) ?? 0) < n) return false;
  return true;
}
export const sameTokens = (a, b) => a.length === b.length && within(a, b);

// Among `options` (lists of tokens): can the chosen tokens grow by `token` towards one of them,
// is the choice one of them, and can it grow at all.
export const canAdd = (options, chosen, token) => options.some((o) => within([...chosen, token], o));
export const complete = (options, chosen) => options.some((o) => sameTokens(o, chosen));
export const growable = (options, chosen) => options.some((o) => o.length > chosen.length && within(chosen, o));

// The text of a move of tokens, in the engine's order (colours before X; meat, milk, bread).
const ORDER = ["0", "1", "2", "3", "4", "5", "6", "7", "X", "meat", "milk", "bread"];
export const tokensText = (verb, list) =>
  `${verb} ${list.length ? [...list].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)).join(" ") : "-"}`;
