// Tile Canasta's tiles, melds and scores, read from the view notation's fields
// (docs/games/canasta_tiles.md §4.1, §5). Pure functions: no DOM.

// The 15 kinds in the notation's order: naturals 1 and 4..13, the wilds 2 and J (joker),
// the blocking three k3 (blue, black) and the bonus three r3 (red, yellow).
export const KINDS = ["1", "2", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "J", "k3", "r3"];

const VALUE = { 1: 25, 2: 20, 4: 5, 5: 5, 6: 5, 7: 5, 8: 5, 9: 5, 10: 10, 11: 10, 12: 10, 13: 10, J: 50, k3: 0, r3: 0 };
export const CANASTA = 7;

export const value = (kind) => VALUE[kind];
export const isWild = (kind) => kind === "2" || kind === "J";
export const order = (kind) => KINDS.indexOf(kind);

// What a person calls a tile: "9", "2", "joker", "blue/black 3", "red/yellow 3".
export function kindName(kind) {
  if (kind === "J") return "joker";
  if (kind === "k3") return "blocking 3";
  if (kind === "r3") return "bonus 3";
  return kind;
}

// "a 9", "an 8", "a joker".
export const aKind = (kind) => `${kind === "8" || kind === "11" ? "an" : "a"} ${kindName(kind)}`;

export function plural(kind, n) {
  if (kind === "J") return n === 1 ? "joker" : "jokers";
  if (kind === "k3" || kind === "r3") return `${kindName(kind)}${n === 1 ? "" : "s"}`;
  return `${kind}${n === 1 ? "" : "s"}`;
}

// "1.1.4.k3" -> ["1", "1", "4", "k3"]; "-" -> []; "?14" -> {hidden: 14}.
export function parseTiles(text) {
  if (text === undefined || text === "" || text === "-") return [];
  if (text.startsWith("?")) return { hidden: Number(text.slice(1)) };
  return text.split(".");
}

export function counts(tiles) {
  const c = {};
  for (const k of tiles) c[k] = (c[k] || 0) + 1;
  return c;
}

// "9x4+2+J" -> {rank: "9", naturals: 4, twos: 1, jokers: 1}; in the twos meld ("2x5+J")
// the naturals are its twos.
export function parseMeld(text) {
  const [head, ...wilds] = text.split("+");
  const [rank, n] = head.split("x");
  const meld = { rank, naturals: Number(n), twos: 0, jokers: 0 };
  for (const w of wilds) {
    if (w === "2") meld.twos += 1;
    else if (w === "J") meld.jokers += 1;
  }
  return meld;
}

export const meldSize = (m) => m.naturals + m.twos + m.jokers;
export const isCanasta = (m) => meldSize(m) >= CANASTA;
export const isNatural = (m) => m.twos + m.jokers === 0; // "clean": no wild (the twos meld: no joker)

export function meldText(m) {
  return `${m.rank}x${m.naturals}${"+2".repeat(m.twos)}${"+J".repeat(m.jokers)}`;
}

// The tiles of a meld in the order they are drawn: naturals, then 2s, then jokers.
export function meldTiles(m) {
  return [...Array(m.naturals).fill(m.rank), ...Array(m.twos).fill("2"), ...Array(m.jokers).fill("J")];
}

// "melds=9x4,10x3/-" -> [[meld, meld], []] (team 0, team 1).
export function parseMelds(text) {
  return (text || "-/-").split("/").map((team) => (team === "-" ? [] : team.split(",").map(parseMeld)));
}

export function canastaBonus(m) {
  if (!isCanasta(m)) return 0;
  if (m.rank === "2") return isNatural(m) ? 1000 : 700;
  return isNatural(m) ? 500 : 300;
}

export const meldValue = (m) => m.naturals * value(m.rank) + m.twos * 20 + m.jokers * 50;
export const tilesValue = (tiles) => tiles.reduce((sum, k) => sum + value(k), 0);

// The opening threshold from the team's match total at the start of the round (§1.6).
export function threshold(total) {
  if (total < 0) return 15;
  if (total < 1500) return 50;
  if (total < 3000) return 90;
  if (total < 7000) return 120;
  return 150;
}

// The pile cannot be taken while a wild or a three is on top (§1.9).
export const blocks = (kind) => kind === "2" || kind === "J" || kind === "k3" || kind === "r3";

export const teamOf = (seat) => seat % 2;

// The notation's fields, read once into what the table draws.
export function readView(fields, seat) {
  const pair = (text) => (text || "0,0").split(",").map(Number);
  const dots = (text) => (text || "0.0.0.0").split(".").map(Number);
  const hands = (fields.hands || "").split(",").map(parseTiles);
  return {
    seat,
    phase: fields.phase,
    turn: Number(fields.turn),
    starter: Number(fields.starter),
    hands,
    known: (fields.known || "-,-,-,-").split(",").map(parseTiles),
    stock: fields.stock && fields.stock.startsWith("?") ? Number(fields.stock.slice(1)) : parseTiles(fields.stock).length,
    stockJoker: fields.stock_joker === undefined ? null : fields.stock_joker === "1",
    top: fields.top && fields.top !== "-" ? fields.top : null,
    pile: parseTiles(fields.pile),
    melds: parseMelds(fields.melds),
    opened: pair(fields.opened).map(Boolean),
    bonus: pair(fields.bonus),
    totals: pair(fields.totals),
    lastRound: pair(fields.last_round),
    rounds: Number(fields.rounds || 0),
    tiebreak: fields.tiebreak === "1",
    mode: fields.mode,
    end: fields.end,
    wentOut: fields.went_out && fields.went_out !== "-" ? Number(fields.went_out) : null,
    jokerButton: fields.joker_button === "1",
    jokersLeft: dots(fields.jokers_left),
    jokersUsed: dots(fields.jokers_used),
    played: parseTiles(fields.played),
    chosen: fields.chosen && fields.chosen !== "-" ? fields.chosen : null,
    takeRank: fields.take && fields.take !== "-" ? fields.take : null,
    value: Number(fields.value || 0),
    pileVisible: fields.pile_fully_visible !== "0",
  };
}

export const handSize = (hand) => (Array.isArray(hand) ? hand.length : hand.hidden);

// A team's round score from an open table (§1.13): shown at the end of a round.
export function roundScore(v, team) {
  const melds = v.melds[team];
  const seats = [team, team + 2];
  const hands = seats.map((s) => (Array.isArray(v.hands[s]) ? v.hands[s] : []));
  const held = hands.flat();
  const blocking = held.filter((k) => k === "k3").length;
  const parts = {
    melds: melds.reduce((sum, m) => sum + meldValue(m), 0),
    canastas: melds.reduce((sum, m) => sum + canastaBonus(m), 0),
    threes: (v.opened[team] ? 100 : -100) * v.bonus[team] - 100 * blocking,
    out: v.end === "out" && v.wentOut !== null && teamOf(v.wentOut) === team ? 100 : 0,
    hands: -tilesValue(held),
  };
  parts.total = parts.melds + parts.canastas + parts.threes + parts.out + parts.hands;
  return parts;
}
