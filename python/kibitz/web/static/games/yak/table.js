// Yak: the seat's view notation read into a table (docs/games/yak.md §4.4, §4.5), and the
// tower's geometry (§1.9). Knows no rules beyond what drawing needs.

export const FOODS = ["meat", "milk", "bread"];
export const CARDS = ["build", "restock", "market"];
export const LEVELS = [5, 4, 3, 2];          // positions on levels 1..4
export const LEVEL_START = [0, 5, 9, 12];
export const POSITIONS = 14;
export const CART_LIMIT = 4;                  // stones in a cart
export const CART_FOOD = 9;
export const YURT_FOOD = 8;
export const TRACK = 4;                       // the mountain's fog spaces
export const KINDS = ["0", "1", "2", "3", "4", "5", "6", "7", "X", "F"];
export const REFUSES = { NO_MEAT: "meat", NO_MILK: "milk", NO_BREAD: "bread", TWO_KINDS: null };

// A position index 0..13: its level, its index on the level, and "L,i" as the rules write it.
export function levelOf(pos) {
  let level = 4;
  while (LEVEL_START[level - 1] > pos) level -= 1;
  return level;
}
export const indexOf = (pos) => pos - LEVEL_START[levelOf(pos) - 1];
export const posText = (pos) => `${levelOf(pos)},${indexOf(pos)}`;

// The stones a stone touches (§1.9): side by side, the two below, the two above.
export function contacts(pos) {
  const level = levelOf(pos), i = indexOf(pos), out = [];
  const add = (l, j) => { if (l >= 1 && l <= 4 && j >= 0 && j < LEVELS[l - 1]) out.push(LEVEL_START[l - 1] + j); };
  add(level, i - 1); add(level, i + 1);
  add(level - 1, i); add(level - 1, i + 1);
  add(level + 1, i - 1); add(level + 1, i);
  return out;
}

const numbers = (text) => text.split(".").map(Number);
const pieces = (text) => (text === "-" ? [] : [...text]);
const seatOrNull = (text) => (text === "-" || text === undefined ? null : Number(text));
// `meat.milk.bread` counts as a list of tokens, in that order.
export const tokens = (counts) => counts.flatMap((n, f) => Array(n).fill(FOODS[f]));

// The table of a model (docs/web-views.md): its view's fields, and at Sunrise what the server
// holds beside them (the viewer's `chosen` card, the seats still `waiting`), since the cards
// enter the state only when everybody has chosen.
export function readTable(model) {
  const t = readFields(model.fields);
  if (t.step === "choose") {
    const waiting = model.waiting ?? t.cards.map((c, s) => (c === "-" ? s : null)).filter((s) => s !== null);
    t.cards = t.cards.map((c, s) => {
      if (c !== "-") return c;
      if (s === t.viewer && model.chosen) return model.chosen.split(" ")[1];
      return (model.toMove ?? []).includes(s) && !waiting.includes(s) ? "?" : "-";
    });
  }
  return t;
}

// The view's fields (kibitz.notation_fields of View.notation(), or of the full notation).
export function readFields(fields) {
  const players = Number(fields.players);
  const box = numbers(fields.box);
  const bag = numbers(fields.bag);
  const t = {
    players,
    viewer: seatOrNull(fields.seat),
    removal: fields.removal,
    bonus: fields.bonus === "-" ? [] : fields.bonus.split(","),
    round: Number(fields.round),
    baby: Number(fields.baby),
    turn: Number(fields.turn),
    step: fields.step,
    cards: fields.cards.split(","),             // "-" not chosen, "?" chosen and secret, or the card
    dir: Number(fields.dir),
    track: Number(fields.track),
    fogFills: Number(fields.fog_fills),
    fogAside: Number(fields.fog_aside),
    trigger: seatOrNull(fields.trigger),
    stupa: seatOrNull(fields.stupa),
    bag: Object.fromEntries(KINDS.map((k, i) => [k, bag[i]])),
    box,
    colours: box.filter((n) => n < 8).length,  // colours in play are 0 .. colours-1
    market: numbers(fields.market),
    carts: fields.carts.split("/").map((text) => {
      const [name, stones, food] = text.split(":");
      return { name, stones: pieces(stones), food: numbers(food), refuses: REFUSES[name] };
    }),
    yurts: fields.yurts.split("/").map(numbers),
    towers: fields.towers.split("/").map((text) => [...text.replaceAll("|", "")].map((c) => (c === "." ? null : c))),
    bought: pieces(fields.bought),
    paid: fields.paid === "-" ? [] : tokens(numbers(fields.paid)),
    drawn: pieces(fields.drawn),
    draws: Number(fields.draws),
  };
  t.stations = t.carts.length;
  t.actor = t.step === "choose" || t.step === "over" ? null : (t.baby + t.turn) % players;
  t.bagTotal = KINDS.reduce((n, k) => n + t.bag[k], 0);
  return t;
}

export const total = (counts) => counts.reduce((a, b) => a + b, 0);
