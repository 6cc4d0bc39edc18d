// The steps of a tile Canasta turn as clicks (docs/games/canasta_tiles.md §4.2): what each
// thing on the table does when clicked in the current step, given model.legal and the
// module's selection. Pure functions: no DOM.
//
// A click's answer is {legal, move, effect}: `legal` marks a click that leads towards a legal
// move (data-legal), `move` the move it plays at once (data-move), `effect` what it does:
//   {act: text}            play `text` (legal, or an attempt whose refusal the shell shows)
//   {select: kind}         choose a rack tile (meld, first, take steps)
//   {add: kind}/{remove: kind}   change the tiles of the lay being shaped (shape step)
//   null                   nothing

import { kindName, aKind, parseMeld, plural, meldText, counts, threshold, teamOf, blocks } from "./tiles.js";

// The legal moves sorted by what they are.
export function readLegal(model) {
  const t = { draw: false, take: false, joker: false, done: false, discards: new Set(), ranks: new Set(), lays: [], knowns: [] };
  for (const m of model.replay ? [] : model.legal || []) {
    const [verb, arg] = m.split(":");
    if (verb === "draw" || verb === "take" || verb === "joker" || verb === "done") t[verb] = true;
    else if (verb === "discard") t.discards.add(arg);
    else if (verb === "rank") t.ranks.add(arg);
    else if (verb === "lay") t.lays.push({ ...parseMeld(arg), text: m });
    else if (verb === "known") t.knowns.push({ tiles: arg === "-" ? [] : arg.split("."), text: m });
  }
  t.active = !model.replay && (model.legal || []).length > 0;
  return t;
}

// A step starts with nothing selected.
export const emptySelection = () => ({ kind: null, naturals: 0, twos: 0, jokers: 0 });

// Which part of a lay a rack tile would be while the rank `chosen` is being laid.
export function role(kind, chosen) {
  if (kind === chosen) return "naturals";
  if (kind === "2" && chosen !== "2") return "twos";
  if (kind === "J") return "jokers";
  return null;
}

export const layOf = (chosen, sel) => ({ rank: chosen, naturals: sel.naturals, twos: sel.twos, jokers: sel.jokers });
export const layText = (chosen, sel) => `lay:${meldText(layOf(chosen, sel))}`;

// The lay a click on the meld plays: the selected tiles, or with none selected the usual lay,
// every natural of the rank that a legal lay takes without wilds.
export function chosenLay(t, sel) {
  if (sel.naturals + sel.twos + sel.jokers === 0) {
    const plain = t.lays.filter((l) => l.twos === 0 && l.jokers === 0);
    return plain.reduce((best, l) => (best && best.naturals >= l.naturals ? best : l), null);
  }
  return t.lays.find((l) => l.naturals === sel.naturals && l.twos === sel.twos && l.jokers === sel.jokers) || null;
}

function canGrow(t, sel, part) {
  const want = { ...sel, [part]: sel[part] + 1 };
  return t.lays.some((l) => l.naturals >= want.naturals && l.twos >= want.twos && l.jokers >= want.jokers);
}

// How many tiles of `kind` the selection holds (drawn raised in the rack).
export function selectedCount(v, sel, kind) {
  if (v.phase === "shape") {
    const r = role(kind, v.chosen);
    return r ? sel[r] : 0;
  }
  return sel.kind === kind ? 1 : 0;
}

const none = { legal: false, move: null, effect: null };
const attempt = (text) => ({ legal: false, move: null, effect: { act: text } });
const play = (text) => ({ legal: true, move: text, effect: { act: text } });

// A click on a rack tile of `kind`; `raised` when this tile is one of the selected ones.
export function rackClick(ctx, kind, raised) {
  const { v, t, sel } = ctx;
  if (!t.active) return none; // looking at the rack while the others play
  if (v.phase === "shape") {
    const part = role(kind, v.chosen);
    if (!part) return attempt(`rank:${kind}`);
    if (raised) return { legal: false, move: null, effect: { remove: kind } };
    if (canGrow(t, sel, part)) return { legal: true, move: null, effect: { add: kind } };
    return attempt(layText(v.chosen, { ...sel, [part]: sel[part] + 1 }));
  }
  if (v.phase === "meld" || v.phase === "first" || v.phase === "take") {
    if (raised) return { legal: false, move: null, effect: { select: null } };
    const usable = t.discards.has(kind) || t.ranks.has(kind);
    if (!usable) return attempt(v.phase === "take" ? `rank:${kind}` : `discard:${kind}`);
    return { legal: sel.kind === null, move: null, effect: { select: kind } };
  }
  return v.phase === "draw" ? attempt(`discard:${kind}`) : none;
}

// A click on the own team's meld of `rank` (or the empty place where a new one would go).
export function meldClick(ctx, rank) {
  const { v, t, sel } = ctx;
  if (!t.active) return none;
  if (v.phase === "shape" && rank === v.chosen) {
    const lay = chosenLay(t, sel);
    return lay ? play(lay.text) : attempt(layText(v.chosen, sel));
  }
  if ((v.phase === "meld" || v.phase === "take") && t.ranks.has(rank)) return play(`rank:${rank}`);
  return attempt(`rank:${rank}`);
}

export function pileClick(ctx) {
  const { v, t, sel, mine } = ctx;
  if (!t.active) return mine ? attempt("take") : none;
  if (v.phase === "draw") return t.take ? play("take") : attempt("take");
  if ((v.phase === "meld" || v.phase === "first") && sel.kind !== null) {
    return t.discards.has(sel.kind) ? play(`discard:${sel.kind}`) : attempt(`discard:${sel.kind}`);
  }
  return none;
}

export function stockClick(ctx) {
  const { t, mine } = ctx;
  if (!t.active) return mine ? attempt("draw") : none;
  return t.draw ? play("draw") : attempt("draw");
}

// The buttons of the step: the choices without a thing on the table to click.
export function buttons(ctx) {
  const { v, t, sel } = ctx;
  const out = [];
  if (!t.active) return out;
  if (t.joker) out.push({ label: "Joker button: take a joker from the stock", ...play("joker"), testid: "joker" });
  if (sel.kind !== null) {
    const k = sel.kind;
    if (t.discards.has(k)) out.push({ label: `Discard the ${kindName(k)}`, ...play(`discard:${k}`), testid: "discard" });
    if (t.ranks.has(k)) out.push({ label: k === "2" ? "Lay 2s (twos meld)" : `Lay ${plural(k, 2)}`, ...play(`rank:${k}`), testid: "lay-rank" });
    out.push({ label: "Cancel", legal: false, move: null, effect: { select: null }, testid: "cancel" });
  }
  if (v.phase === "shape") {
    const lay = chosenLay(t, sel);
    const label = `Lay ${describeLay(lay || layOf(v.chosen, sel))}`;
    out.push({ label, ...(lay ? play(lay.text) : attempt(layText(v.chosen, sel))), testid: "lay" });
  }
  if (t.done) out.push({ label: "Done: pick up the rest of the pile", ...play("done"), testid: "done" });
  const knowns = [...t.knowns].sort((a, b) => b.tiles.length - a.tiles.length); // "all known" (reveals nothing) first
  for (const k of knowns) out.push({ label: knownLabel(v, k.tiles), ...play(k.text), testid: "known" });
  return out;
}

// "three 9s, a 2 and a joker"
export function describeLay(m) {
  const parts = [];
  const count = (n, kind) => `${NUMBERS[n] || n} ${plural(kind, n)}`;
  if (m.naturals) parts.push(count(m.naturals, m.rank));
  if (m.twos) parts.push(count(m.twos, "2"));
  if (m.jokers) parts.push(count(m.jokers, "J"));
  if (!parts.length) return "nothing";
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

const NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight"];

function tilesPhrase(tiles) {
  const c = counts(tiles);
  return Object.entries(c)
    .map(([k, n]) => `${NUMBERS[n] || n} ${plural(k, n)}`)
    .join(" and ");
}

function knownLabel(v, tiles) {
  const phrase = tiles.length === 1 ? kindName(tiles[0]) : tilesPhrase(tiles);
  if (tiles.length === v.played.length) return `The known ${phrase}`;
  if (tiles.length === 0) return v.played.length === 1 ? "A tile of my own, not the known one" : "Tiles of my own, not the known ones";
  return `Only ${tilesPhrase(tiles)} of the known ones`;
}

// Where a seat sits for the viewer, in words.
export function place(viewer, seat) {
  return ["you", "left", "partner", "right"][(seat - viewer + 4) % 4];
}

export function seatLabel(model, viewer, seat) {
  const name = (model.names && model.names[seat]) || `Seat ${seat}`;
  const where = place(viewer, seat);
  return where === "you" || name.toLowerCase() === "you" ? name : `${name} (${where})`;
}

const teamMade = (v, team) => v.melds[team].some((m) => m.naturals + m.twos + m.jokers >= 7);

// The step in one line, and a second line with what it needs.
export function status(ctx) {
  const { model, v, t, sel, viewer } = ctx;
  if (model.terminal) return { title: "The game is over", detail: "" };
  const mover = v.turn;
  const team = teamOf(mover);
  const need = threshold(v.totals[team]);
  if (!t.active) {
    const movers = model.toMove || [];
    if (!movers.length) return { title: model.replay ? "Replay" : "Dealing…", detail: "" };
    const who = seatLabel(model, viewer, movers[0]);
    const doing = {
      first: "discards (the starter's first turn)",
      draw: "draws or takes the pile",
      meld: "lays tiles or discards",
      shape: `lays ${plural(v.chosen || "", 2)}`,
      take: "opens with the pile",
      copies: "says which tiles were the known ones",
    }[v.phase];
    return { title: `${model.replay ? "" : "Waiting: "}${who} ${doing || "plays"}`, detail: "" };
  }
  const hand = Array.isArray(v.hands[mover]) ? v.hands[mover] : [];
  const opening = !v.opened[team];
  switch (v.phase) {
    case "first":
      return {
        title: sel.kind ? `Click the pile to discard the ${kindName(sel.kind)}` : "Discard a tile",
        detail: "You start the round: your first turn has no draw, only a discard.",
      };
    case "draw": {
      let detail;
      if (t.take) detail = `You hold two ${plural(v.top, 2)}: you may take the whole pile.`;
      else if (!v.top) detail = "The pile is empty.";
      else if (blocks(v.top)) detail = `The pile is blocked: ${aKind(v.top)} is on top.`;
      else if ((counts(hand)[v.top] || 0) < 2) detail = `To take the pile you need two ${plural(v.top, 2)} in your rack.`;
      else detail = "Taking the pile would not leave you a legal turn (opening value or tiles left).";
      const title = t.take ? "Take the pile or draw from the stock" : "Draw from the stock";
      return { title: t.joker ? `${title}, or press the Joker button` : title, detail };
    }
    case "meld": {
      const goOut = hand.length === 1 ? "Discard your last tile to go out." : "";
      if (sel.kind) {
        const can = [t.discards.has(sel.kind) && "click the pile to discard it", t.ranks.has(sel.kind) && `click a meld to lay ${plural(sel.kind, 2)}`];
        return { title: `${capital(kindName(sel.kind))} chosen: ${can.filter(Boolean).join(", or ") || "it cannot be played now"}`, detail: "" };
      }
      let detail;
      if (opening && v.value > 0) detail = `Opening: ${v.value} of ${need} laid; lay more to reach ${need} before you discard.`;
      else if (opening) detail = `Your team has not opened: the melds you lay this turn must be worth ${need} together.`;
      else detail = teamMade(v, team) ? "Your team has a canasta: you may go out." : "Your team needs a canasta (7 tiles) before anyone can go out.";
      let title = "Lay tiles or discard (click a tile, then a meld or the pile)";
      if (!t.discards.size) title = "Lay more to finish your opening (click a tile, then a meld)";
      else if (!t.ranks.size) title = "Discard a tile (click a tile, then the pile)";
      return { title: goOut || title, detail };
    }
    case "shape": {
      const pickup = v.takeRank !== null && v.chosen === v.takeRank && opening;
      const wilds = v.chosen === "2" ? "jokers" : "2s and jokers";
      const picked = sel.naturals + sel.twos + sel.jokers > 0;
      const usual = chosenLay(t, sel);
      return {
        title: `Lay ${plural(v.chosen, 2)}: click the ${plural(v.chosen, 2)} and ${wilds} to lay, then the meld`,
        detail:
          (pickup ? `Taking the pile: your pair goes with the ${v.chosen} from the pile. ` : "") +
          (picked ? `Chosen: ${describeLay(layOf(v.chosen, sel))}.` : usual ? `The meld alone lays ${describeLay(usual)}.` : "") +
          " Wilds must stay fewer than the naturals.",
      };
    }
    case "take":
      return {
        title: sel.kind ? `Click a meld to lay ${plural(sel.kind, 2)}` : t.done ? "Lay more melds, or Done" : `Lay more melds to reach ${need}`,
        detail: `Opening with the pile: ${v.value} of ${need} laid. Done picks up the rest of the pile.`,
      };
    case "copies": {
      return {
        title: "Which tiles did you just play?",
        detail:
          v.played.length === 1
            ? `Everyone knows you held ${aKind(v.played[0])} (from the pile; known tiles have a dot). Say whether that one went, or one only you had seen.`
            : `Everyone knows you held ${tilesPhrase(v.played)} (from the pile; known tiles have a dot). Say whether those went, or tiles only you had seen.`,
      };
    }
    default:
      return { title: "Your move", detail: "" };
  }
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// The moves since the viewer last decided, for marking: the seats that moved, the melds laid
// on (team, rank) and whether a discard or draw happened.
export function recent(model) {
  const moves = model.moves || [];
  const out = { seats: new Set(), melds: new Set(), discard: false, draw: false, byseat: {} };
  let lastDiscard = null;
  // With every hand open (no seat), "since your turn" is the last seat's last turn.
  let from = model.last ?? moves.length;
  if (model.seat === null || model.seat === undefined) {
    from = moves.length;
    while (from > 0 && moves[from - 1].seat === moves.at(-1).seat) from -= 1;
  }
  moves.forEach((m, i) => {
    const text = (m.text || "").split(" ")[0];
    const [verb, arg] = text.split(":");
    const since = i >= from;
    let meld = null;
    if (verb === "lay") meld = arg.split("x")[0];
    if (verb === "take") meld = lastDiscard;
    if (verb === "discard") lastDiscard = arg;
    if (!since || typeof m.seat !== "number" || m.seat < 0) return;
    out.seats.add(m.seat);
    if (meld) out.melds.add(`${teamOf(m.seat)}:${meld}`);
    if (verb === "discard") out.discard = true;
    if (verb === "take") out.discard = false;
    if (verb === "draw" || verb === "joker") out.draw = true;
    (out.byseat[m.seat] ||= []).push(describeMove(verb, arg, lastDiscard));
  });
  return out;
}

function describeMove(verb, arg, top) {
  switch (verb) {
    case "draw":
      return "drew";
    case "joker":
      return "took a joker";
    case "take":
      return `took the pile (${top})`;
    case "lay":
      return `laid ${describeLay(parseMeld(arg))}`;
    case "discard":
      return `discarded ${kindName(arg)}`;
    case "done":
      return "picked up the pile";
    default:
      return null;
  }
}
