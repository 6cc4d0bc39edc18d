// What a click on each thing of the Yak table does for the seat that decides now: the click
// paths of docs/web-views.md. A move of several tokens (a purchase's stones, a payment's food)
// grows one click at a time; a placement or a put is a stone, then a place or a cart.
//
// Each picker returns null (nothing to do there) or {legal, move, picked, onClick}: `legal`
// leads towards a legal move, `move` is played by this click, `picked` is part of the choice.

import { sortMoves, readMove, canAdd, complete, growable, tokensText } from "./moves.js";
import { posText, tokens } from "./table.js";

// A fresh selection for a new decision.
export const freshSelection = (key) => ({ key, build: [], pay: [], overflow: [], take: [], bought: null, drawn: null, notice: "" });

export function makePicks(model, table, sel, act, update) {
  const moves = sortMoves(model.legal ?? []);
  const deciding = !model.replay && !model.terminal && (model.legal ?? []).length > 0;
  const send = (text) => { sel.notice = ""; act(text); };
  const change = (fn) => () => { fn(); sel.notice = ""; update(); };
  const actorCart = table.actor === null ? null : table.carts[table.actor];

  // A click that adds `token` to a choice of tokens (`chosen`) among `options`.
  function grow(verb, options, chosen, token, add) {
    const next = [...chosen, token];
    const legal = canAdd(options, chosen, token);
    const done = legal && complete(options, next) && !growable(options, next);
    const textNext = tokensText(verb, next);
    return { legal, move: done ? textNext : null, picked: false, onClick: done || !legal ? () => send(textNext) : change(add) };
  }
  const buildKinds = () => sel.build.map((i) => actorCart.stones[i]);
  const singleKind = (list) => (new Set(list).size === 1 ? list[0] : null);

  return {
    deciding,
    moves,
    send,
    change,
    // Sunrise: one of the seat's three cards.
    card(name) {
      if (!moves.choose.length) return null;
      return { legal: moves.choose.includes(name), move: `choose ${name}`, picked: false, onClick: () => send(`choose ${name}`) };
    },
    // A stone in a cart: part of a purchase (Build).
    cartStone(station, index) {
      if (!moves.build.length || station !== table.actor) return null;
      if (sel.build.includes(index)) return { legal: false, picked: true, onClick: change(() => sel.build.splice(sel.build.indexOf(index), 1)) };
      return grow("build", moves.build, buildKinds(), actorCart.stones[index], () => sel.build.push(index));
    },
    buildChoice: () => (moves.build.length ? buildKinds() : null),
    // A food pile of a cart: Restock takes it; an overflow sends tokens of it to the market.
    cartFood(station, kind) {
      if (station !== table.actor) return null;
      if (moves.restock.length) return { legal: moves.restock.includes(kind), move: `restock ${kind}`, picked: false, onClick: () => send(`restock ${kind}`) };
      if (moves.overflow.length) return grow("overflow", moves.overflow, sel.overflow, kind, () => sel.overflow.push(kind));
      return null;
    },
    // A token in the deciding seat's yurt: part of a payment.
    yurtToken(seat, index) {
      if (!moves.pay.length || seat !== table.actor) return null;
      if (sel.pay.includes(index)) return { legal: false, picked: true, onClick: change(() => sel.pay.splice(sel.pay.indexOf(index), 1)) };
      const yurt = tokens(table.yurts[seat]);
      return grow("pay", moves.pay, sel.pay.map((i) => yurt[i]), yurt[index], () => sel.pay.push(index));
    },
    // A market pile: a Market takes tokens of it.
    marketFood(kind) {
      if (!moves.take.length) return null;
      return grow("take", moves.take, sel.take, kind, () => sel.take.push(kind));
    },
    // A stone bought and not placed yet (Build), or drawn by a Market awaiting its put.
    bought(index) { return pickStone("bought", moves.place, table.bought, index); },
    drawn(index) { return pickStone("drawn", moves.put, table.drawn, index); },
    // A tower position: where the chosen bought stone goes.
    position(seat, pos) {
      if (!moves.place.length || seat !== table.actor || table.towers[seat][pos] !== null) return null;
      return target("place", moves.place, table.bought, "bought", posText(pos));
    },
    // A cart (by station): where the chosen drawn stone goes.
    cart(station) {
      if (!moves.put.length) return null;
      return target("put", moves.put, table.drawn, "drawn", table.carts[station].name);
    },
    // The moves no thing stands for: buttons (`build -`, `take -`, a purchase to confirm).
    buttons() {
      const out = [];
      if (moves.build.length) {
        const kinds = buildKinds();
        if (kinds.length && complete(moves.build, kinds)) out.push({ label: `Buy ${kinds.join(" ")}`, move: tokensText("build", kinds) });
        if (moves.build.some((o) => o.length === 0)) out.push({ label: "Buy nothing", move: "build -" });
      }
      if (moves.take.some((o) => o.length === 0)) out.push({ label: "Take nothing", move: "take -" });
      // Any move of a kind this view does not draw stays playable.
      const known = new Set(["choose", "build", "pay", "overflow", "place", "restock", "take", "put"]);
      for (const text of model.legal ?? []) if (!known.has(text.split(" ")[0])) out.push({ label: text, move: text });
      return out;
    },
    picking: () => sel.build.length + sel.pay.length + sel.overflow.length + sel.take.length > 0 || sel.bought !== null || sel.drawn !== null,
    clear: change(() => Object.assign(sel, freshSelection(sel.key))),
  };

  // Which stone of `stones` goes: a click picks it when the stones differ.
  function pickStone(which, options, stones, index) {
    if (!options.length) return null;
    if (singleKind(stones) !== null) return null;  // nothing to choose: the places are offered at once
    if (sel[which] === index) return { legal: false, picked: true, onClick: change(() => { sel[which] = null; }) };
    return { legal: sel[which] === null, picked: false, onClick: change(() => { sel[which] = index; }) };
  }
  // Where the picked stone goes: `at` a position or a cart.
  function target(verb, options, stones, which, at) {
    const kind = singleKind(stones) ?? (sel[which] === null ? null : stones[sel[which]]);
    if (kind === null) return { legal: false, picked: false, onClick: change(() => { sel.notice = "First click the stone that goes there."; }) };
    const move = `${verb} ${kind} ${at}`;
    const legal = options.some((o) => o.kind === kind && o.at === at);
    return { legal, move, picked: false, onClick: () => send(move) };
  }
}

// The things the moves since the seat's last decision touched (class `last`): `moves` from
// `last` on, read in the `log` (which also holds the draws, whose texts carry the reveal of the
// next player's card) when the model has one.
export function marks(model) {
  const out = { positions: new Set(), carts: new Set(), cards: new Set(), yurts: new Set(), market: false };
  for (const m of since(model)) {
    const seat = m.seat ?? -1;
    for (const part of m.text.split(/[;|]/)) {
      const words = part.trim().split(" ");
      if (words[0] === "reveal") out.cards.add(Number(words[1]));
      const move = readMove(part);
      if (move.verb === "place" && seat >= 0) out.positions.add(`${seat}:${move.at}`);
      if (move.verb === "put") out.carts.add(move.at);
      if (["restock", "take", "pay"].includes(move.verb) && seat >= 0) out.yurts.add(seat);
      if (move.verb === "overflow" || move.verb === "take") out.market = true;
    }
  }
  return out;
}

function since(model) {
  const last = model.last ?? 0;
  if (!model.log) return (model.moves ?? []).slice(last);
  let decisions = 0, start = 0;
  model.log.forEach((entry, i) => {
    if (entry.seat === null || entry.seat === undefined) return;
    decisions += 1;
    if (decisions === last) start = i + 1;
  });
  return model.log.slice(start);
}

// The things the hint moves: hint.has(verb, token-or-name) and hint.indices(verb, list) (which
// of a list of tokens, e.g. a cart's stones, the hinted purchase takes).
export function hintOf(model) {
  const move = readMove(model.hint);
  const parts = move.tokens ?? [move.name ?? move.kind, move.at];
  return {
    text: model.hint ?? null,
    is: (verb, ...values) => move.verb === verb && values.every((v, i) => v === undefined || (move.tokens ? move.tokens.includes(v) : parts[i] === v)),
    indices(verb, list) {
      if (move.verb !== verb || !move.tokens) return new Set();
      const left = [...move.tokens], out = new Set();
      list.forEach((x, i) => { const k = left.indexOf(x); if (k >= 0) { left.splice(k, 1); out.add(i); } });
      return out;
    },
  };
}
