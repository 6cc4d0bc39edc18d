// Yak's scoring as a player reads it off the table (docs/games/yak.md §1.10, §1.11): the groups
// of each tower with its crystals' best colours, and the points so far. The engine's scores are
// the authority (tests/test_web_yak.py checks these against State.scores() on many positions).

import { POSITIONS, contacts, levelOf, total } from "./table.js";

const GROUP_POINTS = [0, 0, 2, 4, 7, 11, 16, 22];  // by size, 7 and more: 22
const GROUPS_COUNT_POINTS = [0, 0, 0, 4, 8, 12, 16, 20];  // by number of groups, 7 and more: 20
const STUPA_POINTS = 5;
const FOOD_POINTS = 3;
// Master Builder's cards (§1.11): majority cards pay the highest value reaching `min`.
export const BONUS = {
  B1: { majority: true, min: 1, points: 5, text: "most stones of one colour" },
  B2: { majority: true, min: 2, points: 5, text: "largest group" },
  B3: { majority: true, min: 1, points: 5, text: "most different colours" },
  B4: { majority: true, min: 1, points: 5, text: "most stones of one colour on level 1" },
  B5: { majority: false, points: 4, text: "both top stones of one colour" },
  B6: { majority: false, points: 4, text: "both bottom corners of one colour" },
  B7: { majority: false, points: 4, text: "middle column, levels 1-3, one colour" },
  B8: { majority: false, points: 4, text: "all of level 3 of one colour" },
};

// The groups of a tower whose stones have colours (a colour per position, null for none):
// lists of positions of one colour that touch, singles included.
export function components(colour) {
  const seen = new Set(), out = [];
  for (let p = 0; p < POSITIONS; p += 1) {
    if (colour[p] === null || seen.has(p)) continue;
    const comp = [p];
    seen.add(p);
    for (let k = 0; k < comp.length; k += 1)
      for (const q of contacts(comp[k]))
        if (!seen.has(q) && colour[q] === colour[p]) { seen.add(q); comp.push(q); }
    out.push(comp);
  }
  return out;
}

function colourScore(colour, colourless) {
  const groups = components(colour).filter((c) => c.length >= 2);
  const grouped = total(groups.map((g) => g.length));
  const stones = colour.filter((c) => c !== null).length;
  return {
    groups: total(groups.map((g) => GROUP_POINTS[Math.min(g.length, 7)])),
    count: GROUPS_COUNT_POINTS[Math.min(groups.length, 7)],
    singles: stones - grouped + colourless,
    sizes: groups.map((g) => g.length).sort((a, b) => b - a),
    colour: colour.slice(),
  };
}
const points13 = (s) => s.groups + s.count + s.singles;

// The best colours for a tower's crystals (§1.10): each a different colour in play, the surplus
// over the colours in play none. Colours that touch no crystal are interchangeable, as in the
// engine's search. Returns the parts of the score and the colours chosen (`colour`).
export function bestScore(tower, colours) {
  const colour = tower.map((k) => (k === null || k === "X" ? null : Number(k)));
  const crystals = [];
  tower.forEach((k, p) => { if (k === "X") crystals.push(p); });
  const relevant = new Set();
  for (const p of crystals)
    for (const q of contacts(p)) if (colour[q] !== null && colour[q] < colours) relevant.add(colour[q]);
  let spare = colours - relevant.size, colourless = Math.max(0, crystals.length - colours);
  let lonely = 0;  // crystals left alone: each a single stone
  let best = null;
  const used = new Set();
  const search = (i) => {
    if (i === crystals.length) {
      const s = colourScore(colour, lonely);
      if (best === null || points13(s) > points13(best)) best = s;
      return;
    }
    const p = crystals[i];
    for (const c of relevant) {
      if (used.has(c)) continue;
      colour[p] = c; used.add(c);
      search(i + 1);
      used.delete(c);
    }
    colour[p] = null;
    if (spare > 0 || colourless > 0) {
      const fromSpare = spare > 0;
      if (fromSpare) spare -= 1; else colourless -= 1;
      lonely += 1;
      search(i + 1);
      lonely -= 1;
      if (fromSpare) spare += 1; else colourless += 1;
    }
  };
  search(0);
  return best;
}

function bonusMeasure(card, tower) {
  const bare = tower.map((k) => (k === null || k === "X" ? null : k));
  const counts = (positions) => {
    const n = {};
    for (const p of positions) if (bare[p] !== null) n[bare[p]] = (n[bare[p]] ?? 0) + 1;
    return Object.values(n);
  };
  const all = [...Array(POSITIONS).keys()];
  const same = (...ps) => bare[ps[0]] !== null && ps.every((p) => bare[p] === bare[ps[0]]);
  switch (card) {
    case "B1": return Math.max(0, ...counts(all));
    case "B2": return Math.max(0, ...components(bare).map((g) => g.length).filter((n) => n >= 2));
    case "B3": return counts(all).length;
    case "B4": return Math.max(0, ...counts(all.filter((p) => levelOf(p) === 1)));
    case "B5": return same(12, 13) ? 1 : 0;
    case "B6": return same(0, 4) ? 1 : 0;
    case "B7": return same(2, 10, 6) || same(2, 10, 7) ? 1 : 0;
    default: return same(9, 10, 11) ? 1 : 0;
  }
}

// Every seat's score as it stands, by category (the engine's categories), with the groups.
export function scoreTable(table) {
  const most = Math.max(...table.yurts.map(total));
  const towers = table.towers.map((t) => bestScore(t, table.colours));
  return table.towers.map((tower, seat) => {
    const s = towers[seat];
    const parts = {
      groups: s.groups, count: s.count, singles: s.singles,
      stupa: table.stupa === seat ? STUPA_POINTS : 0,
      food: most > 0 && total(table.yurts[seat]) === most ? FOOD_POINTS : 0,
      bonus: 0,
    };
    for (const card of table.bonus) {
      const b = BONUS[card], mine = bonusMeasure(card, tower);
      if (!b.majority) parts.bonus += mine ? b.points : 0;
      else {
        const highest = Math.max(...table.towers.map((t) => bonusMeasure(card, t)));
        if (highest >= b.min && mine === highest) parts.bonus += b.points;
      }
    }
    return { ...parts, total: total(Object.values(parts)), sizes: s.sizes, colour: s.colour };
  });
}
