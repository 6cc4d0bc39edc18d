// A player's place: the action card (three to choose from at Sunrise for the viewer), the yurt's
// food, the tower by level with its groups, the stones bought and not placed, the score so far.

import { el, text, title, panel, stone, slot, food, card, wire, babyYak } from "./draw.js";
import { CARDS, POSITIONS, YURT_FOOD, contacts, indexOf, levelOf, posText, tokens, total } from "./table.js";

const W = 300, H = 368;
const STEP = 50, BRICK = 42, ROW = 40, TOWER_X = 50, TOWER_Y = 170;

// A tower position's centre.
function brickAt(pos) {
  const level = levelOf(pos);
  return { x: TOWER_X + (indexOf(pos) + (level - 1) / 2) * STEP, y: TOWER_Y + (4 - level) * ROW };
}

export function drawSeat(ctx, seat) {
  const { table, scores, model, names } = ctx;
  const svg = panel(W, H, `seat-${seat}`, `${names[seat]}: card, yurt and tower`);
  svg.classList.add(`seat-${seat}`);
  if (table.actor === seat || (model.toMove ?? []).includes(seat)) svg.classList.add("acting");
  // The name bar: who, the baby yak, the stupa, the score.
  svg.append(el("rect", { class: `tag seat-bg-${seat}`, width: W, height: 28, rx: 8 }));
  svg.append(text(10, 19, ctx.short(seat, 20), { class: "name left" }, title(names[seat])));
  const score = model.terminal && model.scores ? model.scores[seat] : scores[seat].total;
  const place = model.terminal && model.ranks ? ` · ${ordinal(model.ranks[seat])}` : "";
  const scoreText = `${score} pts${place}`;
  svg.append(text(W - 10, 19, scoreText, { class: "name right", "data-testid": `score-${seat}` }));
  let badgeX = W - 24 - scoreText.length * 8.5;  // left of the score
  if (table.baby === seat) { svg.append(babyYak(badgeX, 14)); badgeX -= 26; }
  if (table.stupa === seat) svg.append(stupa(badgeX, 14));
  svg.append(drawCards(ctx, seat));
  svg.append(drawYurt(ctx, seat));
  svg.append(drawTower(ctx, seat));
  const s = scores[seat];
  const groups = [s.sizes.length ? `groups ${s.sizes.join("+")}: ${s.groups}` : "no groups"];
  if (s.count) groups.push(`${s.sizes.length} groups: +${s.count}`);
  const more = [`singles ${s.singles}`];
  if (s.stupa) more.push(`stupa ${s.stupa}`);
  if (s.food) more.push(`most food ${s.food}`);
  if (table.bonus.length) more.push(`bonus ${s.bonus}`);
  const why = title("the score as it stands; crystals take their best colours");
  svg.append(text(W / 2, H - 26, groups.join(" · "), { class: "small" }, why), text(W / 2, H - 8, more.join(" · "), { class: "small" }, why.cloneNode(true)));
  return svg;
}

const ordinal = (rank) => ["1st", "2nd", "3rd", "4th"][rank - 1] ?? `${rank}th`;

function stupa(x, y) {
  return el("g", { class: "yak-stupa", transform: `translate(${x} ${y})` }, title("the stupa: first to complete a tower (5 points)"),
    el("path", { class: "body", d: "M-9,8 h18 l-3,-6 h-12 z M-5,2 a5,5 0 0 1 10,0 z M-1,-3 v-8 h2 v8 z" }));
}

function drawCards(ctx, seat) {
  const { table, picks, hint, marks } = ctx;
  const g = el("g", { transform: "translate(0 34)", "data-testid": `card-${seat}` });
  const mine = picks.card("build") !== null && seat === table.viewer;
  if (mine) {
    // Sunrise: the viewer's three cards, one to click.
    g.append(text(W / 2, 12, "choose your card in secret", { class: "small" }));
    CARDS.forEach((name, i) => {
      const node = card(name, 10 + i * 96, 18, 88, 50);
      node.setAttribute("data-testid", `choice-${name}`);
      g.append(wire(node, picks.card(name), hint.is("choose", name)));
    });
    return g;
  }
  const shown = table.cards[seat];
  const node = card(shown, 10, 8, 70, 56);
  if (marks.cards.has(seat)) node.classList.add("last");
  g.append(node);
  g.append(text(90, 30, cardLine(ctx, seat, shown), { class: "line left" }));
  g.append(text(90, 52, `yurt ${total(table.yurts[seat])}/${YURT_FOOD} food`, { class: "small left" }));
  return g;
}

function cardLine(ctx, seat, shown) {
  const { table } = ctx;
  if (table.step === "over") return "";
  if (shown === "-") return table.step === "choose" ? "choosing a card…" : "";
  if (shown === "?") return table.step === "choose" ? "has chosen (secret)" : "chosen, shown on its turn";
  if (table.actor === seat) return `${shown}: acting now`;
  return table.step === "choose" && seat === table.viewer ? `${shown} (only you see it)` : shown;
}

function drawYurt(ctx, seat) {
  const { table, picks, hint, marks } = ctx;
  const g = el("g", { transform: "translate(0 112)", "data-testid": `yurt-${seat}` });
  if (marks.yurts.has(seat)) g.classList.add("last");
  g.append(text(10, 22, "Yurt", { class: "line left" }));
  const yurt = tokens(table.yurts[seat]);
  const hinted = table.actor === seat ? hint.indices("pay", yurt) : new Set();
  yurt.forEach((kind, i) => {
    const x = 66 + i * 29;
    const token = el("g", { class: "yak-token", "data-testid": `yurt-${seat}-${i}` },
      el("rect", { class: "hit", x: x - 14, y: 1, width: 28, height: 30, rx: 6 }), food(kind, x, 16));
    g.append(wire(token, picks.yurtToken(seat, i), hinted.has(i)));
  });
  if (!yurt.length) g.append(text(66, 22, "empty", { class: "small left" }));
  return g;
}

function drawTower(ctx, seat) {
  const { table, scores, picks, hint, marks } = ctx;
  const tower = table.towers[seat];
  const colour = scores[seat].colour;  // the colours the stones count as (crystals' best)
  const g = el("g", { class: "yak-tower", "data-testid": `tower-${seat}` });
  // The groups: a bond between touching stones that count as one colour.
  for (let p = 0; p < POSITIONS; p += 1) {
    for (const q of contacts(p)) {
      if (q < p || colour[p] === null || colour[p] !== colour[q]) continue;
      const a = brickAt(p), b = brickAt(q);
      g.append(el("line", { class: `yak-bond k-${colour[p]}`, x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
    }
  }
  for (let pos = 0; pos < POSITIONS; pos += 1) {
    const { x, y } = brickAt(pos);
    const at = posText(pos);
    const last = marks.positions.has(`${seat}:${at}`);
    if (tower[pos] === null) {
      const node = slot(x, y, BRICK, { "data-testid": `pos-${seat}-${at}` });
      node.append(title(`position ${at}`));
      g.append(wire(node, picks.position(seat, pos), table.actor === seat && hint.is("place", undefined, at), last));
      continue;
    }
    const kind = tower[pos];
    const node = stone(kind, x, y, BRICK - 4, { as: kind === "X" ? colour[pos] : null });
    node.setAttribute("data-testid", `pos-${seat}-${at}`);
    g.append(wire(node, null, false, last));
  }
  // Bought stones waiting to be placed, beside the top of the tower.
  if (table.actor === seat && table.bought.length) {
    const hinted = table.bought.findIndex((k) => hint.is("place", k));
    const box = el("g", { "data-testid": "bought" }, text(10, TOWER_Y - 18, "to place", { class: "small left" }));
    table.bought.forEach((kind, i) => {
      const node = stone(kind, 22 + i * 30, TOWER_Y + 2, 26);
      node.setAttribute("data-testid", `bought-${i}`);
      box.append(wire(node, picks.bought(i), i === hinted));
    });
    g.append(box);
  }
  return g;
}
