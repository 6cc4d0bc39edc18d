// Reading a model's notation (docs/web-views.md): the fields come parsed in model.fields; these
// helpers read the values that several games share.

// The `key=value` fields of a notation, by key (what kibitz.notation_fields gives).
export function fields(notation) {
  const out = {};
  for (const word of notation.split(/\s+/).slice(1)) {
    const at = word.indexOf("=");
    if (at > 0) out[word.slice(0, at)] = word.slice(at + 1);
  }
  return out;
}

// A hidden group's size: "?7" -> 7; null when the text is not hidden.
export function hiddenCount(text) {
  const match = /^\?(\d+)$/.exec(text ?? "");
  return match ? Number(match[1]) : null;
}

// Whether a value is hidden from this seat ("?", "?7").
export function isHidden(text) {
  return typeof text === "string" && text.startsWith("?");
}

// Splits a value at `separator`, "" and "-" giving no items: list("a,b", ",") -> ["a", "b"].
export function list(text, separator = ",") {
  if (text === undefined || text === null || text === "" || text === "-") return [];
  return text.split(separator);
}

// The moves from model.last on: what happened since this seat last decided.
export function recentMoves(model) {
  return model.moves.slice(model.last ?? 0);
}

// The legal moves starting with `prefix` (a step of a move of several parts), without it.
export function legalAfter(model, prefix) {
  return model.legal.filter((move) => move.startsWith(prefix)).map((move) => move.slice(prefix.length));
}
