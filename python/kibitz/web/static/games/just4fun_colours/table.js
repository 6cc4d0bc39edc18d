// Just 4 Fun Colours: the table read from a seat's model (docs/games/just4fun_colours.md §4).
// Pure functions, no DOM: what the view draws, derived only from what the model holds.

import { hiddenCount, list } from "../../notation.js";

export const COLOURS = "ROYGBP";
export const COLOUR_NAMES = { R: "red", O: "orange", Y: "yellow", G: "green", B: "blue", P: "purple" };
export const SIDE = 6;
export const STONES = 20;

// The board's colours, row 1 (top) to row 6, columns a to f (the rules, §1.1).
export const MAP = ["YOPRGB", "RGYBOP", "OBRPYG", "PYGOBR", "GRBYPO", "BPOGRY"];

const FIELD_TEXT = /^([a-f])([1-6])$/;

export function fieldName(index) {
  return "abcdef"[index % SIDE] + String(Math.floor(index / SIDE) + 1);
}

// The field index of a move text such as "b3", or -1 (e.g. "blocked").
export function fieldIndex(text) {
  const m = FIELD_TEXT.exec(text);
  return m ? (Number(m[2]) - 1) * SIDE + "abcdef".indexOf(m[1]) : -1;
}

export function colourOf(index) {
  return MAP[Math.floor(index / SIDE)][index % SIDE];
}

function seatList(text) {
  return list(text).map(Number);
}

function counts(text) {
  const parts = list(text, ".").map(Number);
  return parts.length === COLOURS.length && parts.every(Number.isFinite) ? parts : null;
}

// "RRGB" → the cards; "?7" → seven hidden cards; "-" → empty.
function hand(text) {
  const hidden = hiddenCount(text);
  if (hidden !== null) return { cards: null, count: hidden };
  const cards = list(text).join("");
  return { cards, count: cards.length };
}

// The moves of the notation's history since its base, with the seat that made each: every
// decision uses one stone, seats take turns from `start` (§1.3, §1.5).
function history(fields, players, used) {
  const texts = list(fields.moves, ".");
  const first = Number(fields.start) + used - texts.length;
  return texts.map((text, i) => ({ seat: (((first + i) % players) + players) % players, field: fieldIndex(text) }));
}

// The hands shown by blocked turns since the base, in order (§4.1).
function revealedHands(fields) {
  return list(fields.revealed);
}

// Each field's stones, bottom first: seats where the history says who put them, -1 below that
// (a position read without history keeps only each tower's height and top owner, §1.6).
function stacks(board, moves) {
  const placed = board.map(() => []);
  for (const m of moves) if (m.field >= 0) placed[m.field].push(m.seat);
  return board.map((f, i) => {
    const known = f.height > 0 ? placed[i].slice(-f.height) : [];
    const stack = Array(f.height - known.length).fill(-1).concat(known);
    if (f.height > 0) stack[f.height - 1] = f.owner;
    return stack;
  });
}

function parseBoard(text) {
  const rows = (text || "").split("/");
  const board = [];
  for (let r = 0; r < SIDE; r++) {
    for (let c = 0; c < SIDE; c++) {
      const cell = (rows[r] || "").slice(2 * c, 2 * c + 2);
      const empty = cell.length < 2 || cell === "..";
      board.push({ owner: empty ? -1 : Number(cell[0]), height: empty ? 0 : Number(cell[1]) });
    }
  }
  return board;
}

// Largest side-connected group of `seat`'s fields, as {size, stones, fields}: the end score A and
// its tie-break B (the most stones among the largest groups), §1.5.
export function largestArea(board, seat) {
  const seen = new Set();
  let best = { size: 0, stones: 0, fields: [] };
  for (let start = 0; start < board.length; start++) {
    if (board[start].owner !== seat || seen.has(start)) continue;
    const group = [start];
    seen.add(start);
    for (let k = 0; k < group.length; k++) {
      const f = group[k], r = Math.floor(f / SIDE), c = f % SIDE;
      const next = [r > 0 && f - SIDE, r < SIDE - 1 && f + SIDE, c > 0 && f - 1, c < SIDE - 1 && f + 1];
      for (const n of next) {
        if (n !== false && board[n].owner === seat && !seen.has(n)) {
          seen.add(n);
          group.push(n);
        }
      }
    }
    const stones = group.reduce((sum, f) => sum + board[f].height, 0);
    if (group.length > best.size || (group.length === best.size && stones > best.stones)) {
      best = { size: group.length, stones, fields: group };
    }
  }
  return best;
}

// The fields of every straight run of at least `length` fields owned by one seat (§1.4).
export function lines(board, length) {
  const found = new Set();
  const directions = [[0, 1], [1, 0], [1, 1], [1, -1]];
  for (let f = 0; f < board.length; f++) {
    const owner = board[f].owner;
    if (owner < 0) continue;
    const r = Math.floor(f / SIDE), c = f % SIDE;
    for (const [dr, dc] of directions) {
      const run = [];
      for (let k = 0; k < length; k++) {
        const rr = r + k * dr, cc = c + k * dc;
        if (rr < 0 || rr >= SIDE || cc < 0 || cc >= SIDE || board[rr * SIDE + cc].owner !== owner) break;
        run.push(rr * SIDE + cc);
      }
      if (run.length === length) run.forEach((x) => found.add(x));
    }
  }
  return found;
}

// The decisions since the seat last decided (model.moves from model.last): placements and
// blocked turns, numbered from 1, with the hand a blocked turn showed. An open view (no seat)
// without its own `last` shows the last round.
export function recentMoves(model, revealed = []) {
  const moves = Array.isArray(model.moves) ? model.moves : [];
  let from = Number.isInteger(model.last) ? Math.max(0, model.last) : moves.length;
  if (model.seat === null && !(from > 0)) from = Math.max(0, moves.length - Number(model.players));
  const isBlocked = (m) => String(m.text).startsWith("blocked"); // "blocked:<hand>" or, open, "blocked"
  let shown = moves.slice(0, from).filter(isBlocked).length; // hands shown before these moves
  const recent = [];
  for (const m of moves.slice(from)) {
    const field = fieldIndex(m.text);
    if (field >= 0) recent.push({ seat: m.seat, field, text: m.text });
    else if (isBlocked(m)) recent.push({ seat: m.seat, field: -1, text: "blocked", revealed: m.text.split(":")[1] || revealed[shown++] || null });
  }
  return recent.map((m, i) => ({ ...m, number: i + 1 }));
}

// Everything the view draws, from the model's notation fields.
export function readTable(model) {
  const f = model.fields || {};
  const players = Number(model.players || f.players);
  const board = parseBoard(f.board);
  const supply = seatList(f.supply);
  const boxed = seatList(f.boxed);
  const hands = list(f.hands).map(hand);
  const stockCounts = counts(f.stock);
  const used = supply.reduce((sum, s) => sum + (STONES - s), 0);
  const moves = history(f, players, used);
  const legal = Array.isArray(model.legal) ? model.legal : [];
  const legalFields = new Set(legal.map(fieldIndex).filter((i) => i >= 0));
  return {
    players,
    line: Number(f.line) || 4,
    board,
    stacks: stacks(board, moves),
    areas: Array.from({ length: players }, (_, s) => largestArea(board, s)),
    hands,
    stock: stockCounts ? stockCounts.reduce((a, b) => a + b, 0) : hiddenCount(f.stock) ?? 0,
    stockCounts,
    discard: counts(f.discard) || Array(COLOURS.length).fill(0),
    supply,
    boxed,
    round: Math.min(STONES, Math.floor(used / Math.max(1, players)) + 1),
    legal,
    legalFields,
    blockedLegal: legal.includes("blocked"),
    recent: recentMoves(model, revealedHands(f)),
  };
}

// The cards a placement on `field` pays: height + 1 cards of the field's colour (§1.3).
export function price(table, field) {
  return { colour: colourOf(field), count: table.board[field].height + 1 };
}
