// Canasta with rummy tiles: rules of a turn, the opening planner, scoring, information sets,
// heuristics and notation. docs/games/canasta_tiles.md describes the decision model.
#include "games/canasta_tiles.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "core/text.h"

namespace kibitz::canasta {

// --------------------------------------------------------------------------------------------
// Rounds and the match
// --------------------------------------------------------------------------------------------

int State::round_score(int t) const {
  int score = 0;
  for (int r = 0; r < kRanks; ++r) {
    const Meld& m = melds_[t][r];
    score += m.nat * kValue[r] + m.twos * kValue[kTwo] + m.jokers * kValue[kJoker];
    if (m.size() >= kCanastaSize) {
      const bool clean = m.wilds() == 0;
      score += r == kTwo ? (clean ? kCleanTwosCanasta : kDirtyTwosCanasta) : (clean ? kCleanCanasta : kDirtyCanasta);
    }
  }
  score += (opened_[t] ? 1 : -1) * kBonusThreeScore * bonus_[t];
  for (int p = t; p < kPlayers; p += 2) {
    score -= kBlockThreePenalty * hand_[p][kBlockThree];
    for (int k = 0; k < kKinds; ++k) score -= kValue[k] * hand_[p][k];
  }
  if (went_out_ >= 0 && went_out_ % 2 == t) score += kGoingOutBonus;
  return score;
}

void State::end_round(EndReason reason) {
  end_ = reason;
  played_.fill(0);  // the round is over: every hand is shown
  for (int t = 0; t < 2; ++t) {
    last_round_[t] = round_score(t);
    totals_[t] += last_round_[t];
  }
  ++rounds_;
  // §11: the match ends when its mode says so; a tie then, when a winner is required, adds
  // tie-break rounds, and the first one after which the totals differ ends it (A18: even with
  // both totals below the target again).
  bool ends = tiebreak_;
  switch (mode_) {
    case MatchMode::kOneRound:
      ends = true;
      break;
    case MatchMode::kThreeRounds:
      ends |= rounds_ >= kThreeRounds;
      break;
    case MatchMode::kTarget:  // A18
      ends |= std::max(totals_[0], totals_[1]) >= kTargetScore;
      break;
  }
  const bool decided = totals_[0] != totals_[1] || !winner_required_;
  tiebreak_ = ends && !decided;
  if (ends && decided) {
    phase_ = Phase::kOver;
    return;
  }
  starter_ = static_cast<std::uint8_t>((starter_ + 1) % kPlayers);  // A5
  start_round();
}

void State::start_round() {
  for (auto& h : hand_) h.fill(0);
  for (auto& k : known_) k.fill(0);
  played_.fill(0);
  stock_ = kKindCount;
  pile_.fill(0);
  top_ = -1;
  for (auto& team_melds : melds_) team_melds.fill(Meld{});
  opened_.fill(false);
  bonus_.fill(0);
  joker_used_.fill(false);
  replace_.fill(0);
  dealt_ = 0;
  cursor_ = chosen_ = take_rank_ = -1;
  stage_value_ = 0;
  last_regular_ = false;
  end_ = EndReason::kNone;
  went_out_ = -1;
  current_ = starter_;
  phase_ = Phase::kDeal;
}

State State::initial(const Options& options, std::uint64_t seed) {
  Rng rng(seed);
  State s;
  s.mode_ = options.mode;
  s.winner_required_ = options.winner_required;
  s.first_turn_may_meld_ = options.first_turn_may_meld;
  s.strict_ = options.strict_natural_majority;
  s.pile_visible_ = options.pile_fully_visible;
  s.joker_button_ = options.joker_button;
  s.jokers_left_ = options.joker_allowance;
  s.starter_ = static_cast<std::uint8_t>(options.starter >= 0 ? options.starter : static_cast<int>(rng.below(kPlayers)));
  s.start_round();
  while (s.current_player() == kChancePlayer) s.apply(s.sample_chance(rng));
  return s;
}

void State::returns(double* out) const {
  for (int p = 0; p < kPlayers; ++p) out[p] = 0.0;
  if (!is_terminal()) return;
  for (int p = 0; p < kPlayers; ++p) {
    const int mine = totals_[p % 2], theirs = totals_[1 - p % 2];
    out[p] = mine > theirs ? 1.0 : mine == theirs ? 0.5 : 0.0;
  }
}

void State::scores(double* out) const {
  for (int p = 0; p < kPlayers; ++p) out[p] = totals_[p % 2];
}

void State::ranks(double* out) const {
  for (int p = 0; p < kPlayers; ++p) out[p] = totals_[p % 2] >= totals_[1 - p % 2] ? 1 : 3;
}

// --------------------------------------------------------------------------------------------
// Options
// --------------------------------------------------------------------------------------------

namespace {

constexpr std::array<std::string_view, 3> kModeNames = {"one_round", "three_rounds", "target_10000"};
constexpr std::array<std::string_view, 10> kPhaseNames = {"deal", "replace", "first", "draw", "drawing", "shape", "take", "meld", "copies", "over"};
constexpr std::array<std::string_view, 4> kEndNames = {"none", "out", "stock", "bonus3"};

template <std::size_t N>
int name_index(const std::array<std::string_view, N>& names, std::string_view value, std::string_view what) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == value) return static_cast<int>(i);
  std::string allowed;
  for (auto n : names) allowed.append(allowed.empty() ? "" : ", ").append(n);
  throw NotationError(std::string(what) + ": '" + std::string(value) + "' is not one of " + allowed);
}

bool parse_bool(std::string_view v, std::string_view what) {
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw NotationError(std::string(what) + ": '" + std::string(v) + "' is not a boolean (1/0, true/false, yes/no, on/off)");
}

// One count for every seat ("2") or one per seat ("1.0.2.1"), each 0..255.
std::array<std::uint8_t, kPlayers> parse_allowance(std::string_view v, std::string_view what) {
  std::array<std::uint8_t, kPlayers> out{};
  const auto parts = text::split(v, '.');
  if (parts.size() != 1 && parts.size() != kPlayers)
    throw NotationError(std::string(what) + ": '" + std::string(v) + "' is not one count 0..255 for every seat nor four counts a.b.c.d");
  for (int p = 0; p < kPlayers; ++p)
    out[p] = static_cast<std::uint8_t>(text::to_int(parts[parts.size() == 1 ? 0 : p], 0, 255, what));
  return out;
}

}  // namespace

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  for (const auto& [key, value] : options) {
    try {
      if (key == "players") {
        o.players = text::to_int(value, kPlayers, kPlayers, "players (canasta_tiles is for exactly 4)");
      } else if (key == "mode") {
        o.mode = static_cast<MatchMode>(name_index(kModeNames, value, "mode"));
      } else if (key == "winner_required") {
        o.winner_required = parse_bool(value, key);
      } else if (key == "starter") {
        o.starter = value == "random" ? -1 : text::to_int(value, 0, kPlayers - 1, "starter (a seat 0..3 or 'random')");
      } else if (key == "first_turn_may_meld") {
        o.first_turn_may_meld = parse_bool(value, key);
      } else if (key == "strict_natural_majority") {
        o.strict_natural_majority = parse_bool(value, key);
      } else if (key == "pile_fully_visible") {
        o.pile_fully_visible = parse_bool(value, key);
      } else if (key == "joker_button") {
        o.joker_button = parse_bool(value, key);
      } else if (key == "joker_allowance") {
        o.joker_allowance = parse_allowance(value, key);
      } else {
        throw OptionError("unknown option '" + key + "' for canasta_tiles; options: players, mode, winner_required, starter, "
                          "first_turn_may_meld, strict_natural_majority, pile_fully_visible, joker_button, joker_allowance");
      }
    } catch (const NotationError& e) {
      throw OptionError(std::string("option ") + e.what());
    }
  }
  return o;
}

// --------------------------------------------------------------------------------------------
// Information
// --------------------------------------------------------------------------------------------

std::uint64_t State::info_key(int seat) const { return text::hash(view_string(seat)); }

// Every tile `seat` has not seen comes from the one shuffled stock, and no public move ties a
// particular unseen tile to a place, so the unseen tiles are exchangeable: deal them uniformly
// to the unknown part of every other hand, the stock and (when the pile is hidden) the pile
// below the top. Bonus threes not yet revealed can only be in the stock.
bool State::redeal(int seat, Rng& rng, const Counts& pin, State& out) const {
  const bool hands_shown = phase_ == Phase::kOver;  // the end shows every hand
  Counts pool = stock_;
  for (int p = 0; p < kPlayers; ++p)
    if (p != seat && !hands_shown)
      for (int k = 0; k < kKinds; ++k) pool[k] = static_cast<std::uint8_t>(pool[k] + hand_[p][k] - known_[p][k]);
  if (!pile_visible_)
    for (int k = 0; k < kKinds; ++k) pool[k] = static_cast<std::uint8_t>(pool[k] + pile_[k]);
  const int mover = current_;
  for (int k = 0; k < kKinds; ++k) {
    if (pool[k] < pin[k] || (pin[k] > 0 && (mover == seat || k == kBonusThree))) return false;
    pool[k] = static_cast<std::uint8_t>(pool[k] - pin[k]);
  }
  out = *this;
  std::array<int, kPlayers + 2> slots{};  // other hands' unknown parts, the stock, the hidden pile
  for (int p = 0; p < kPlayers; ++p)
    if (p != seat && !hands_shown) {
      slots[p] = sum(hand_[p]) - sum(known_[p]) - (p == mover ? sum(pin) : 0);
      if (slots[p] < 0) return false;
      out.hand_[p] = known_[p];
      if (p == mover)
        for (int k = 0; k < kKinds; ++k) out.hand_[p][k] = static_cast<std::uint8_t>(out.hand_[p][k] + pin[k]);
    }
  out.stock_.fill(0);
  out.stock_[kBonusThree] = pool[kBonusThree];
  slots[kPlayers] = stock_size() - pool[kBonusThree];
  pool[kBonusThree] = 0;
  if (!pile_visible_) {
    out.pile_.fill(0);
    slots[kPlayers + 1] = sum(pile_);
  }
  // With the Joker button the view shows whether the stock holds a joker: the unseen jokers are
  // dealt apart, as many into the stock as a uniform deal conditioned on that flag gives.
  const int jokers = joker_button_ ? pool[kJoker] : 0;
  if (joker_button_) pool[kJoker] = 0;
  std::array<std::uint8_t, kTiles> tiles;
  int n = 0;
  for (int k = 0; k < kKinds; ++k)
    for (int i = 0; i < pool[k]; ++i) tiles[n++] = static_cast<std::uint8_t>(k);
  for (int i = n - 1; i > 0; --i) std::swap(tiles[i], tiles[rng.below(static_cast<std::uint32_t>(i + 1))]);
  int total = 0, stock_from = 0;
  for (int place = 0; place < kPlayers + 2; ++place) {
    if (place == kPlayers) stock_from = total;
    total += slots[place];
  }
  if (total != n + jokers) return false;
  std::array<bool, kTiles> joker_at{};  // slots in place order; the stock's are stock_from..
  if (jokers > 0 && !place_jokers(rng, jokers, stock_from, slots[kPlayers], total, joker_at)) return false;
  int next = 0, slot = 0;
  for (int place = 0; place < kPlayers + 2; ++place)
    for (int i = 0; i < slots[place]; ++i, ++slot) {
      Counts& into = place < kPlayers ? out.hand_[place] : place == kPlayers ? out.stock_ : out.pile_;
      ++into[joker_at[slot] ? kJoker : tiles[next++]];
    }
  return true;
}

// Marks `jokers` of `total` slots, the stock's being `stock_from`..+`stock_slots`: none in the
// stock when this state's stock holds no joker, else at least one, j of them with the weight
// C(stock, j) C(others, jokers - j) of a uniform deal; uniform slots within each part.
bool State::place_jokers(Rng& rng, int jokers, int stock_from, int stock_slots, int total, std::array<bool, kTiles>& joker_at) const {
  auto choose = [](int n, int k) {
    double c = 1;
    for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
    return k > n ? 0.0 : c;
  };
  std::array<int, kTiles> stock, others;
  int n_stock = 0, n_others = 0;
  for (int i = 0; i < total; ++i) {
    if (i >= stock_from && i < stock_from + stock_slots) stock[n_stock++] = i;
    else others[n_others++] = i;
  }
  int in_stock = 0;
  if (stock_[kJoker] > 0) {
    double weight = 0;
    for (int j = 1; j <= jokers; ++j) weight += choose(n_stock, j) * choose(n_others, jokers - j);
    if (weight == 0) return false;
    double r = rng.uniform() * weight;
    for (in_stock = 1; in_stock < jokers; ++in_stock)
      if ((r -= choose(n_stock, in_stock) * choose(n_others, jokers - in_stock)) < 0) break;
  }
  if (in_stock > n_stock || jokers - in_stock > n_others) return false;
  auto mark = [&](std::array<int, kTiles>& slots, int count, int wanted) {
    for (int i = 0; i < wanted; ++i) {
      std::swap(slots[i], slots[i + static_cast<int>(rng.below(static_cast<std::uint32_t>(count - i)))]);
      joker_at[slots[i]] = true;
    }
  };
  mark(stock, n_stock, in_stock);
  mark(others, n_others, jokers - in_stock);
  return true;
}

// What a sample must agree with beyond the view: another seat in the middle of a lay or an
// opening can still finish it (its sub-decisions say so). (The Joker button's public flag is
// kept by redeal itself.)
bool State::sample_fits(int seat) const {
  const int cp = current_player();
  if (cp < 0 || cp == seat || phase_ == Phase::kDraw || phase_ == Phase::kFirst) return true;
  std::array<Action, kMaxActions> legal;
  return legal_actions(legal.data()) > 0;
}

// Tiles that would let the mover (another seat, in the middle of a lay or an opening) make one
// lay it may be making: a random open rank (the chosen one while shaping) and a random valid
// lay there that the unseen tiles and its known tiles can pay for, less its known tiles.
Counts State::witness(int seat, Rng& rng) const {
  Counts pin{}, pool = stock_;
  const int me = current_, t = me % 2;
  for (int p = 0; p < kPlayers; ++p)
    if (p != seat)
      for (int k = 0; k < kKinds; ++k) pool[k] = static_cast<std::uint8_t>(pool[k] + hand_[p][k] - known_[p][k]);
  if (!pile_visible_)
    for (int k = 0; k < kKinds; ++k) pool[k] = static_cast<std::uint8_t>(pool[k] + pile_[k]);
  Counts payable = pool;
  for (int k = 0; k < kKinds; ++k) payable[k] = static_cast<std::uint8_t>(payable[k] + known_[me][k]);
  std::array<int, kRanks> ranks;
  int n_ranks = 0;
  if (phase_ == Phase::kShape) {
    ranks[n_ranks++] = chosen_;
  } else {
    for (int r = cursor_ + 1; r < kRanks; ++r)
      if (r != take_rank_) ranks[n_ranks++] = r;
  }
  if (n_ranks == 0) return pin;
  const int rank = ranks[rng.below(static_cast<std::uint32_t>(n_ranks))];
  const bool top = taking() && rank == take_rank_ && top_ >= 0;
  std::array<int, kShapes> shapes;
  int n_shapes = 0;
  any_shape(payable, rank, [&](int shape) {
    Meld m = plus(melds_[t][rank], shape);
    if (top) ++m.nat;
    if (valid(rank, m) && (!top || shape_nat(shape) >= 2)) shapes[n_shapes++] = shape;
    return false;
  });
  if (n_shapes == 0) return pin;
  const int shape = shapes[rng.below(static_cast<std::uint32_t>(n_shapes))];
  pin[rank == kTwo ? kTwo : rank] = static_cast<std::uint8_t>(shape_nat(shape));
  pin[kTwo] = static_cast<std::uint8_t>(pin[kTwo] + shape_twos(shape));
  pin[kJoker] = static_cast<std::uint8_t>(shape_jokers(shape));
  for (int k = 0; k < kKinds; ++k) pin[k] = static_cast<std::uint8_t>(std::max(0, pin[k] - known_[me][k]));
  return pin;
}

State State::determinize(int seat, Rng& rng) const {
  constexpr int kAttempts = 2000;
  State out;
  for (int attempt = 0; attempt < kAttempts; ++attempt)
    if (redeal(seat, rng, Counts{}, out) && out.sample_fits(seat)) return out;
  // The mover's unfinished lay or opening fits few hands: deal with the tiles of one lay it may
  // be making put into its hand first (then the check above decides).
  const bool mover_hidden = current_player() >= 0 && current_ != seat;
  for (int attempt = 0; mover_hidden && attempt < kAttempts; ++attempt)
    if (redeal(seat, rng, witness(seat, rng), out) && out.sample_fits(seat)) return out;
  // Last resort: keep the mover's hand as it is in this state (a hand known to fit when this
  // state was reached by play) and deal the rest.
  Counts pin{};
  if (mover_hidden)
    for (int k = 0; k < kKinds; ++k) pin[k] = static_cast<std::uint8_t>(hand_[current_][k] - known_[current_][k]);
  for (int attempt = 0; attempt < kAttempts; ++attempt)
    if (redeal(seat, rng, pin, out) && out.sample_fits(seat)) return out;
  throw NotationError("inconsistent position: no deal of the unseen tiles fits seat " + std::to_string(seat) + "'s view");
}

namespace {
int parse_kind(std::string_view text);
std::string tiles_text(const Counts& c);
Counts parse_tiles(std::string_view s, std::string_view what);
template <class Item>
void parse_list(std::string_view s, char sep, int n, std::string_view what, Item item);
}  // namespace

bool State::ends_round(Action action) const {
  State after = *this;
  after.apply(action);
  return after.rounds_ != rounds_;
}

// Only a discard (going out, or after the last regular tile) and a bonus three drawn from an
// otherwise empty stock end a round; a discard takes its tile from the mover's hand.
std::array<Counts, kPlayers> State::hands_at_end(Action action) const {
  std::array<Counts, kPlayers> hands = hand_;
  if (current_player() >= 0 && action < kRankBase) --hands[current_][action];
  return hands;
}

// Moves jokers between the stock and the places `seat` cannot see (other hands' unknown parts,
// a hidden pile), exchanging them for other tiles, until the stock holds `lo`..`hi` jokers.
bool State::set_stock_jokers(int seat, int lo, int hi) {
  for (int p = 0; p <= kPlayers && stock_[kJoker] < lo; ++p) {
    if (p == seat || (p == kPlayers && pile_visible_)) continue;
    Counts& place = p < kPlayers ? hand_[p] : pile_;
    const int free = p < kPlayers ? place[kJoker] - known_[p][kJoker] : place[kJoker];
    for (int i = 0; i < free && stock_[kJoker] < lo; ++i)
      for (int k = 0; k < kBonusThree; ++k)
        if (k != kJoker && stock_[k] > 0) {
          --place[kJoker], ++place[k], --stock_[k], ++stock_[kJoker];
          break;
        }
  }
  for (int p = 0; p <= kPlayers && stock_[kJoker] > hi; ++p) {
    if (p == seat || (p == kPlayers && pile_visible_)) continue;
    Counts& place = p < kPlayers ? hand_[p] : pile_;
    for (int k = 0; k < kBonusThree && stock_[kJoker] > hi; ++k)
      while (k != kJoker && stock_[kJoker] > hi && place[k] > (p < kPlayers ? known_[p][k] : 0)) --place[k], ++place[kJoker], --stock_[kJoker], ++stock_[k];
  }
  return stock_[kJoker] >= lo && stock_[kJoker] <= hi;
}

// Whether `action` moves the pile below the top into the mover's hand: an opened team's
// pickup, or `done` after an unopened team's.
bool State::pile_joins_hand(Action action) const {
  return current_player() >= 0 && ((action == kTakeAction && opened_[current_ % 2]) || action == kDoneAction);
}

// The text adds what the action shows beyond the move: the action that ends a round shows
// every hand (§8 scores them), "discard:7 reveal=<hand 0>,<hand 1>,<hand 2>,<hand 3>" (the
// hands after the action); with a hidden pile, the taker sees what it picks up,
// "take got=<tiles>".
std::string State::observation_string(int seat, Action action) const {
  const Action seen = observe(seat, action);
  std::string text = seen == kUnobserved ? "?" : action_to_string(seen);
  if (!pile_visible_ && seat == current_ && pile_joins_hand(action)) text.append(" got=").append(tiles_text(pile_));
  // With the Joker button, the stock's last joker leaving it is public: the button goes dark.
  const bool takes_joker = current_player() == kChancePlayer ? action == kJoker : action == kJokerAction;
  if (joker_button_ && takes_joker && stock_[kJoker] == 1 && seen != kUnobserved) text += " stock_joker=0";
  if (!ends_round(action)) return text;
  text += " reveal=";
  const auto hands = hands_at_end(action);
  for (int p = 0; p < kPlayers; ++p) text.append(p ? "," : "").append(tiles_text(hands[p]));
  return text;
}

// Puts shown tiles into places `seat` cannot see: `hands` (other seats' whole hands, when
// given) and `pile` (the hidden pile below the top, when given); the other unseen tiles go to
// the remaining hidden places in kind order, keeping every size and known tile (a determinize
// follows). False when the unseen tiles cannot supply what is shown.
bool State::show_hidden(int seat, const std::optional<std::array<Counts, kPlayers>>& hands, const std::optional<Counts>& pile) {
  Counts pool = stock_;
  auto add = [&](const Counts& c, int sign) {
    for (int k = 0; k < kKinds; ++k) {
      const int v = pool[k] + sign * c[k];
      if (v < 0) return false;
      pool[k] = static_cast<std::uint8_t>(v);
    }
    return true;
  };
  for (int p = 0; p < kPlayers; ++p)
    if (p != seat) add(hand_[p], 1);
  if (!pile_visible_) add(pile_, 1);
  std::array<int, kPlayers + 1> free{};  // unknown tiles to deal per hand, then the pile
  for (int p = 0; p < kPlayers; ++p) {
    if (p == seat) continue;
    if (hands) {
      const Counts& want = (*hands)[p];
      if (sum(want) != sum(hand_[p]) || want[kBonusThree]) return false;
      for (int k = 0; k < kKinds; ++k)
        if (want[k] < known_[p][k]) return false;
      if (!add(want, -1)) return false;
      hand_[p] = want;
    } else {
      if (!add(known_[p], -1)) return false;
      free[p] = sum(hand_[p]) - sum(known_[p]);
      hand_[p] = known_[p];
    }
  }
  if (!pile_visible_) {
    if (pile) {
      if (sum(*pile) != sum(pile_) || !add(*pile, -1)) return false;
      pile_ = *pile;
    } else {
      free[kPlayers] = sum(pile_);
      pile_.fill(0);
    }
  }
  // Jokers go last when the stock holds one and first when it holds none, so that the public
  // joker flag of the Joker button keeps its value.
  const bool stock_joker = stock_[kJoker] > 0;
  for (int place = 0; place <= kPlayers; ++place) {
    Counts& into = place < kPlayers ? hand_[place] : pile_;
    for (int i = 0; i < kBonusThree && free[place] > 0; ++i) {
      const int k = stock_joker ? (i < kJoker ? i : i == kJoker ? kBlockThree : kJoker) : (i == 0 ? kJoker : i <= kJoker ? i - 1 : i);
      const int n = std::min<int>(free[place], pool[k]);
      into[k] = static_cast<std::uint8_t>(into[k] + n);
      pool[k] = static_cast<std::uint8_t>(pool[k] - n);
      free[place] -= n;
    }
    if (free[place] > 0) return false;
  }
  if (sum(pool) != stock_size() || (joker_button_ && (pool[kJoker] > 0) != stock_joker)) return false;
  stock_ = pool;
  return true;
}

State State::after_observation(int seat, std::string_view seen, Rng& rng) const {
  if (is_terminal()) throw IllegalMoveError("the game is over");
  const auto words = text::words(seen);
  const std::string_view shown = words.empty() ? std::string_view{} : words[0];
  std::optional<std::array<Counts, kPlayers>> revealed;
  std::optional<Counts> got;
  bool last_joker = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (words[i].starts_with("reveal=") && !revealed) {
      std::array<Counts, kPlayers> hands;
      parse_list(words[i].substr(7), ',', kPlayers, "reveal", [&](int p, std::string_view v) { hands[p] = parse_tiles(v, "reveal"); });
      revealed = hands;
    } else if (words[i].starts_with("got=") && !got) {
      got = parse_tiles(words[i].substr(4), "got");
    } else if (words[i] == "stock_joker=0" && !last_joker) {
      last_joker = true;
    } else {
      throw NotationError("'" + std::string(seen) + "': after the move an observation shows only reveal=<hands>, got=<tiles> and stock_joker=0");
    }
  }
  State s = *this;
  Action action;
  const std::string who = "seat " + std::to_string(current_player() == kChancePlayer ? receiver() : current_);
  if (current_player() == kChancePlayer) {
    const int to = receiver();
    if (shown == "?") {
      if (to == seat) throw IllegalMoveError("seat " + std::to_string(seat) + " receives this tile itself: observe its kind, not '?'");
      Counts regular = s.stock_;
      for (int k = 0; k < kKinds; ++k)
        if (s.public_tile(k)) regular[k] = 0;
      if (sum(regular) == 0) throw IllegalMoveError("every tile left to draw is seen by all");
      int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(sum(regular))));
      int k = 0;
      while (r >= regular[k]) r -= regular[k++];
      action = static_cast<Action>(k);
    } else {
      const int kind = parse_kind(shown);
      // With the Joker button, whether this joker was the stock's last is public.
      if (kind == kJoker && joker_button_ && !(last_joker ? s.set_stock_jokers(seat, 1, 1) : s.set_stock_jokers(seat, 2, kKindCount[kJoker])))
        throw IllegalMoveError("'" + std::string(seen) + "' does not fit the jokers seat " + std::to_string(seat) + " has seen");
      if (!s.public_tile(kind) && to != seat)
        throw IllegalMoveError(who + " receives an unseen tile: seat " + std::to_string(seat) + " observes it as '?', not '" + std::string(shown) + "'");
      if (s.stock_[kind] == 0) {  // bring one from a place the seat cannot see, paying with a stock tile
        bool moved = false;
        for (int p = 0; p <= kPlayers && !moved; ++p) {
          const bool pile = p == kPlayers;
          if (pile ? pile_visible_ || s.pile_[kind] == 0 : p == seat || s.hand_[p][kind] <= s.known_[p][kind]) continue;
          Counts& from = pile ? s.pile_ : s.hand_[p];
          for (int x = 0; x < kBonusThree && !moved; ++x)
            if (x != kind && s.stock_[x] > 0) {
              --from[kind], ++from[x], --s.stock_[x], ++s.stock_[kind];
              moved = true;
            }
        }
        if (!moved) throw IllegalMoveError("seat " + std::to_string(seat) + " cannot receive " + std::string(shown) + ": no such tile is unseen");
      }
      action = static_cast<Action>(kind);
    }
  } else {
    action = parse_action(shown);
    std::array<Action, kMaxActions> legal;
    auto is_legal = [&](const State& st) {
      const int n = st.legal_actions(legal.data());
      return std::find(legal.begin(), legal.begin() + n, action) != legal.begin() + n;
    };
    const bool rank_choice = action >= kRankBase && action < kShapeBase;
    if (!is_legal(s) && rank_choice && current_ != seat && (phase_ == Phase::kMeld || phase_ == Phase::kTakeOpen) &&
        (open_ranks(cursor_) >> (action - kRankBase) & 1)) {
      // Choosing a rank uses no tile: the determinization after it deals the mover a hand
      // that can lay there (or finds none, and the observation is refused).
      if (words.size() > 1) throw IllegalMoveError("'" + std::string(seen) + "': choosing a rank shows nothing more");
      s.apply(action);
      try {
        return s.determinize(seat, rng);
      } catch (const NotationError&) {
        throw IllegalMoveError(who + " cannot lay at rank " + std::string(kKindNames[action - kRankBase]) + " with any tiles seat " + std::to_string(seat) + " thinks possible");
      }
    }
    if (!is_legal(s)) {
      if (current_ == seat) throw IllegalMoveError("'" + std::string(shown) + "' is not a legal move of seat " + std::to_string(seat) + " here");
      // The mover's unseen tiles must allow the move: deal them again, with the tiles the move
      // names put into the mover's hand first.
      Counts pin{};
      const int me = current_;
      if (action < kRankBase) {
        pin[action] = 1;
      } else if (action >= kShapeBase && action < kDrawAction) {
        const int shape = static_cast<int>(action - kShapeBase);
        pin[chosen_] = static_cast<std::uint8_t>(shape_nat(shape));
        pin[kTwo] = static_cast<std::uint8_t>(pin[kTwo] + shape_twos(shape));
        pin[kJoker] = static_cast<std::uint8_t>(shape_jokers(shape));
      } else if (action == kTakeAction && top_ >= 0) {
        pin[top_] = 2;
      }
      if (action >= kKnownBase) {  // the tiles played that were not known were unseen copies, so as many stay unseen
        const int code = static_cast<int>(action - kKnownBase), other = played_other();
        if (other >= 0) pin[other] = static_cast<std::uint8_t>(std::max(0, played_[other] - code / 27));
        pin[kTwo] = static_cast<std::uint8_t>(std::max(0, played_[kTwo] - code / 3 % 9));
        pin[kJoker] = static_cast<std::uint8_t>(std::max(0, played_[kJoker] - code % 3));
      } else {
        for (int k = 0; k < kKinds; ++k) pin[k] = static_cast<std::uint8_t>(std::max(0, pin[k] - known_[me][k]));
      }
      constexpr int kAttempts = 4000;
      bool found = false;
      State d;
      for (int attempt = 0; attempt < kAttempts && !found; ++attempt) {
        found = redeal(seat, rng, pin, d) && d.sample_fits(seat) && is_legal(d);
      }
      if (!found)
        throw IllegalMoveError(who + " cannot play '" + std::string(shown) + "' with any tiles seat " + std::to_string(seat) + " thinks possible");
      s = d;
    }
  }
  const bool ends = s.ends_round(action);
  if (ends && !revealed)
    throw NotationError("'" + std::string(seen) + "' ends the round, which shows every hand: observe it as '" + std::string(shown) + " reveal=<hand 0>,<hand 1>,<hand 2>,<hand 3>'");
  if (!ends && revealed) throw IllegalMoveError("'" + std::string(shown) + "' does not end the round here, so it shows no hands");
  const bool shows_pile = !pile_visible_ && seat == s.current_ && s.pile_joins_hand(action);
  if (shows_pile && !got)
    throw NotationError("'" + std::string(seen) + "' brings the hidden pile into seat " + std::to_string(seat) + "'s hand: observe it as '" + std::string(shown) + " got=<tiles>'");
  if (!shows_pile && got) throw IllegalMoveError("'" + std::string(shown) + "' shows seat " + std::to_string(seat) + " no pile tiles here");
  if (revealed) {
    std::array<Counts, kPlayers> before = *revealed;  // the hands before the action
    if (s.current_player() >= 0 && action < kRankBase) ++before[s.current_][action];
    if (before[seat] != s.hand_[seat])
      throw IllegalMoveError("reveal: seat " + std::to_string(seat) + "'s own hand is " + tiles_text(s.hand_[seat]) + ", not " + tiles_text((*revealed)[seat]));
    if (!s.show_hidden(seat, before, std::nullopt))
      throw IllegalMoveError("reveal: the hands shown do not fit what seat " + std::to_string(seat) + " has seen");
  }
  const bool takes_joker = current_player() == kChancePlayer ? action == kJoker : action == kJokerAction;
  if (last_joker && !(joker_button_ && takes_joker)) throw IllegalMoveError("'" + std::string(seen) + "' takes no joker from the stock");
  if (current_player() >= 0 && action == kJokerAction && !(last_joker ? s.set_stock_jokers(seat, 1, 1) : s.set_stock_jokers(seat, 2, kKindCount[kJoker])))
    throw IllegalMoveError("'" + std::string(seen) + "' does not fit the jokers seat " + std::to_string(seat) + " has seen");
  if (got && !s.show_hidden(seat, std::nullopt, *got))
    throw IllegalMoveError("got: the pile " + tiles_text(*got) + " does not fit what seat " + std::to_string(seat) + " has seen");
  s.apply(action);
  return s.is_terminal() ? s : s.determinize(seat, rng);
}

// --------------------------------------------------------------------------------------------
// Heuristics
// --------------------------------------------------------------------------------------------

namespace {

// std::lround without its call into libm for the whole numbers that whole weights give (the
// rollout policy rounds a score for every lay and discard it weighs).
int rounded(double x) {
  const int truncated = static_cast<int>(x);
  return truncated == x ? truncated : static_cast<int>(std::lround(x));
}

}  // namespace

// How much the mover likes laying `shape` at `rank` now: naturals are always worth laying, a
// wild is worth it when it completes a canasta or the meld is long, and finishing a canasta is
// worth most. While opening, any lay that keeps the opening possible is taken, the most
// valuable first. The weights are kPolicyWeights' (whole numbers by default, so the scores are
// the integers they were before the weights were declared).
int State::lay_score(int rank, int shape, const double* w) const {
  const int t = current_ % 2;
  if (!opened_[t]) return shape_value(rank, shape) + 10;
  const Meld before = melds_[t][rank];
  Meld after = plus(before, shape);
  if (taking() && rank == take_rank_ && top_ >= 0) ++after.nat;
  const int wilds = shape_twos(shape) + shape_jokers(shape);
  const bool completes = before.size() < kCanastaSize && after.size() >= kCanastaSize;
  double score = w[kNatural] * shape_nat(shape) + (completes ? w[kCompletes] : 0);
  if (!completes) score -= wilds * (after.size() >= 5 ? w[kWildLong] : w[kWildShort]);
  return rounded(score);
}

int State::keep_score(int kind, const double* w) const {
  const Counts& h = hand_[current_];
  if (kind == kBlockThree) return -40;  // worthless in hand, blocks the next pickup
  if (kind == kJoker || kind == kTwo) return 200;
  double score = 10 * h[kind] + kValue[kind] / 5;
  if (melds_[current_ % 2][kind].size() > 0) score += 30;
  const int next = (current_ + 1) % kPlayers;
  if (known_[next][kind] >= 2) score += w[kKnownPair];  // the next seat is known to hold the pair
  // In a simulated deal every hand is a sample of what the mover cannot see: a natural the
  // next seat holds a pair of gives it the pile (the top would be this tile).
  if (hand_[next][kind] >= 2) score += w[kFeed] * (pile_size() + 1);
  return rounded(score);
}

// The team's lead in the match if the mover went out now, laying its hand: its tiles no longer
// count against the team and the going-out bonus is earned; the other hands stay as they are.
int State::lead_after_going_out() const {
  const int t = current_ % 2;
  int hand = kBlockThreePenalty * hand_[current_][kBlockThree];
  for (int k = 0; k < kKinds; ++k) hand += kValue[k] * hand_[current_][k];
  return totals_[t] + round_score(t) + kGoingOutBonus + hand - totals_[1 - t] - round_score(1 - t);
}

// A lay that leaves one tile obliges the mover to go out with its discard: made only while
// going out would leave the team ahead by more than out_margin (an opened team only).
bool State::may_go_out(const double* w) const {
  return !opened_[current_ % 2] || w[kOutMargin] <= kPolicyWeights[kOutMargin].low || lead_after_going_out() > w[kOutMargin];
}

// The tile least worth keeping, among every kind held (the discards, in kind order); ties are
// broken by one draw per kind.
Action State::heuristic_discard(Rng& rng, const double* w) const {
  const Counts& h = hand_[current_];
  Action best = kNoAction;
  int best_score = INT_MAX;
  for (int k = 0; k < kBonusThree; ++k)
    if (h[k] > 0) {
      const int score = keep_score(k, w) * 8 + static_cast<int>(rng.below(8));
      if (score < best_score) best_score = score, best = kDiscardBase + k;
    }
  return best;
}

// The meld phase: `done` as soon as a pickup's opening may end; while unopened the lowest legal
// rank, once opened the lowest rank with a lay worth making; else the discard. The ranks'
// legality (most of a rollout's time) is worked out only as far as the choice reads it, and a
// forced move draws nothing, as if picked from the legal moves.
Action State::heuristic_rank(Rng& rng, const double* w) const {
  if (done_legal()) return kDoneAction;
  const Counts& h = hand_[current_];
  const bool opened = opened_[current_ % 2];
  int discards = 0;
  if (phase_ == Phase::kMeld && discard_allowed())
    for (int k = 0; k < kBonusThree; ++k) discards += h[k] > 0;
  Action lay = kNoAction, legal = kNoAction;  // the lowest rank with a lay worth making; the lowest legal rank
  with_stage([&](const Stage& stage) {
    const int hand_size = sum(h);
    const bool out_ok = may_go_out(w);
    auto worth = [&](int r) {  // while unopened every legal lay is
      if (!opened) return rank_legal(r, stage);
      return rank_has_lay(r, stage, [&](int shape) { return (out_ok || hand_size - shape_size(shape) > 1) && lay_score(r, shape, w) > 0; });
    };
    for (int r = cursor_ + 1; r < kRanks && lay == kNoAction; ++r)
      if (worth(r)) lay = kRankBase + r;
    if (!opened) legal = lay;
    else if (lay == kNoAction && discards < 2)  // is the discard forced?
      for (int r = cursor_ + 1; r < kRanks && legal == kNoAction; ++r)
        if (rank_legal(r, stage)) legal = kRankBase + r;
  });
  if (lay != kNoAction) return lay;
  if (discards == 0) return legal;
  if (discards == 1 && legal == kNoAction)
    for (int k = 0; k < kBonusThree; ++k)
      if (h[k] > 0) return kDiscardBase + k;
  return heuristic_discard(rng, w);
}

// The most valuable lay at the chosen rank, among those that keep the round going if any does.
Action State::heuristic_shape(const double* w) const {
  const int hand_size = sum(hand_[current_]);
  const bool out_ok = may_go_out(w);
  std::array<Action, 2> best = {kNoAction, kNoAction};  // among the lays that keep the round going; among all
  std::array<int, 2> best_score = {INT_MIN, INT_MIN};
  with_stage([&](const Stage& stage) {
    any_shape(hand_[current_], chosen_, [&](int shape) {
      if (!shape_legal(chosen_, shape, stage)) return false;
      const int score = lay_score(chosen_, shape, w);
      const bool keeps_going = out_ok || hand_size - shape_size(shape) > 1;
      for (int i = 0; i < 2; ++i)
        if ((i == 1 || keeps_going) && score > best_score[i]) best_score[i] = score, best[i] = kShapeBase + shape;
      return false;
    });
  });
  return best[0] != kNoAction ? best[0] : best[1];
}

// Can this stage's lays still leave a single tile, the discard that goes out? A necessary
// condition, cheap enough for every rollout decision, that spares the search of winning_run in
// nearly every position: a blocking three, a natural of a rank the stage has passed (lays go to
// higher ranks) and a lone natural of a rank the team has no meld of can never be laid.
bool State::may_lay_out() const {
  const Counts& h = hand_[current_];
  const auto& melds = melds_[current_ % 2];
  int stuck = h[kBlockThree];
  for (int k = 0; k < kRanks; ++k)
    if (k != kTwo && h[k] > 0 && (k <= cursor_ || (h[k] == 1 && melds[k].size() == 0))) stuck += h[k];
  return stuck <= 1;
}

// Depth first over the mover's decisions until the turn passes: a discard that does not go
// out ends the run (outside the last regular tile's turn, which going_out_win leaves alone).
Action State::winning_run(int& budget) const {
  std::array<Action, kMaxActions> moves;
  const int n = legal_actions(moves.data());
  const int me = current_;
  const bool last_tile = sum(hand_[me]) == 1;
  for (int i = 0; i < n && budget > 0; ++i) {
    if (moves[i] < kRankBase && phase_ == Phase::kMeld && !last_tile) continue;  // a discard that keeps tiles
    --budget;
    State next = *this;
    next.apply(moves[i]);
    if (next.is_terminal()) {
      double r[kPlayers];
      next.returns(r);
      if (r[me] == 1.0) return moves[i];
      continue;
    }
    if (next.current_player() != me || !next.may_lay_out()) continue;
    if (next.winning_run(budget) != kNoAction) return moves[i];
  }
  return kNoAction;
}

Action State::going_out_win() const {
  if (phase_ != Phase::kMeld && phase_ != Phase::kShape && phase_ != Phase::kCopies) return kNoAction;
  if (last_regular_ || !may_lay_out()) return kNoAction;
  int budget = kWinningRunNodes;
  return winning_run(budget);
}

Action State::heuristic_action(Rng& rng, const double* w) const {
  if (w[kOutToWin] > 0)
    if (const Action win = going_out_win(); win != kNoAction) return win;
  if (phase_ == Phase::kMeld || phase_ == Phase::kTakeOpen) return heuristic_rank(rng, w);
  if (phase_ == Phase::kShape) return heuristic_shape(w);
  std::array<Action, kMaxActions> moves;
  const int n = legal_actions(moves.data());
  if (n == 1) return moves[0];
  switch (phase_) {
    case Phase::kCopies:
      return moves[n - 1];  // the known tiles went: nobody learns anything new
    case Phase::kDraw:
      if (moves[n - 1] == kJokerAction) return kJokerAction;
      return n > 1 && moves[1] == kTakeAction ? kTakeAction : kDrawAction;
    default:  // the starter's first turn
      return heuristic_discard(rng, w);
  }
}

// For the greedy bot (one ply): the team's table and its progress towards canastas against the
// opponents', the bonus threes, and what the seat's own hand promises (wilds and pairs are
// worth keeping, blocking threes worth discarding), weighted by kEvalWeights. Hidden hands are not read.
double State::evaluate(int seat, const double* w) const {
  if (is_terminal()) {
    double r[kPlayers];
    returns(r);
    return 1e6 * r[seat] + (totals_[seat % 2] - totals_[1 - seat % 2]);
  }
  auto table = [&](int t) {
    double v = 0;
    for (int r = 0; r < kRanks; ++r) {
      const Meld& m = melds_[t][r];
      v += m.nat * kValue[r] + m.twos * kValue[kTwo] + m.jokers * kValue[kJoker];
      if (m.size() >= kCanastaSize)
        v += r == kTwo ? (m.wilds() ? kDirtyTwosCanasta : kCleanTwosCanasta) : (m.wilds() ? kDirtyCanasta : kCleanCanasta);
      else if (m.size() >= 5)
        v += w[kEvalLongMeld] * (m.size() - 4);
    }
    v += (opened_[t] ? 1 : -1) * kBonusThreeScore * bonus_[t] + (opened_[t] ? w[kEvalOpened] : 0);
    return v;
  };
  const int t = seat % 2;
  double v = table(t) - table(1 - t) + (totals_[t] - totals_[1 - t]);
  const Counts& h = hand_[seat];
  for (int k = 0; k < kKinds; ++k) {
    if (!h[k]) continue;
    if (k == kBlockThree) v -= w[kEvalBlockThree] * h[k];
    else if (k == kJoker || k == kTwo) v += w[kEvalWild] * h[k];
    else v += w[kEvalTile] * h[k] + (h[k] >= 2 ? w[kEvalPair] : 0.0);
  }
  if (top_ >= 0 && current_ % 2 != t) v += (is_natural(top_) ? -w[kEvalPile] : w[kEvalPile]) * pile_size();  // a pile the opponents may take
  return v;
}

// --------------------------------------------------------------------------------------------
// Notation
// --------------------------------------------------------------------------------------------

namespace {

// A tile: its kind name, optionally after the spec's colour letter (r/y/b/k): the colour is
// dropped, except that it tells a bonus three (r3, y3) from a blocking one (b3, k3).
int parse_kind(std::string_view text) {
  if (text == "J" || text == "j") return kJoker;
  std::string_view number = text;
  char colour = 0;
  if (!text.empty() && (text[0] == 'r' || text[0] == 'y' || text[0] == 'b' || text[0] == 'k')) colour = text[0], number = text.substr(1);
  if (number == "3") {
    if (colour == 'r' || colour == 'y') return kBonusThree;
    if (colour == 'b' || colour == 'k') return kBlockThree;
    throw NotationError("'" + std::string(text) + "': a three needs its colour: r3/y3 (bonus) or b3/k3 (blocking)");
  }
  for (int k = 0; k < kRanks; ++k)
    if (number == kKindNames[k]) return k;
  throw NotationError("'" + std::string(text) + "' is not a tile; tiles are 1, 2, 4..13 (optionally after a colour r/y/b/k), J, r3/y3, b3/k3");
}

int parse_rank(std::string_view text, std::string_view what) {
  int k;
  try {
    k = parse_kind(text);
  } catch (const NotationError&) {
    k = -1;
  }
  if (k < 0 || k >= kRanks) throw NotationError(std::string(what) + ": '" + std::string(text) + "' is not a meld rank (1, 2, 4..13)");
  return k;
}

std::string tiles_text(const Counts& c) {
  std::string s;
  for (int k = 0; k < kKinds; ++k)
    for (int i = 0; i < c[k]; ++i) s.append(s.empty() ? "" : ".").append(kKindNames[k]);
  return s.empty() ? "-" : s;
}

Counts parse_tiles(std::string_view s, std::string_view what) {
  Counts c{};
  if (s == "-") return c;
  for (std::string_view t : text::split(s, '.')) {
    int k;
    try {
      k = parse_kind(t);
    } catch (const NotationError& e) {
      throw NotationError(std::string(what) + ": " + e.what());
    }
    if (++c[k] > kKindCount[k]) throw NotationError(std::string(what) + ": more than " + std::to_string(kKindCount[k]) + " tiles " + std::string(kKindNames[k]));
  }
  return c;
}

std::string meld_text(int rank, const Meld& m) {
  std::string s = std::string(kKindNames[rank]) + "x" + std::to_string(m.nat);
  for (int i = 0; i < m.twos; ++i) s += "+2";
  for (int i = 0; i < m.jokers; ++i) s += "+J";
  return s;
}

// "9x3+2+J": the rank, its naturals (2s for the twos meld), then one "+2" or "+J" per wild.
std::pair<int, Meld> parse_meld(std::string_view s, std::string_view what) {
  const auto x = s.find('x');
  if (x == std::string_view::npos) throw NotationError(std::string(what) + ": expected <rank>x<count>[+2...][+J...], got '" + std::string(s) + "'");
  const int rank = parse_rank(s.substr(0, x), what);
  const auto parts = text::split(s.substr(x + 1), '+');
  Meld m;
  m.nat = static_cast<std::uint8_t>(text::to_int(parts[0], 0, 8, what));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == "2" && rank != kTwo) ++m.twos;
    else if (parts[i] == "J") ++m.jokers;
    else throw NotationError(std::string(what) + ": '+" + std::string(parts[i]) + "' in '" + std::string(s) + "' is not a wild (+2, +J; the twos meld takes +J only)");
  }
  return {rank, m};
}

std::string rank_text(int rank) { return rank < 0 ? "-" : std::string(kKindNames[rank]); }

std::map<std::string, std::string> parse_fields(std::string_view text) {
  static const std::initializer_list<const char*> allowed = {
      "seat", "mode", "winner_required", "first_turn_may_meld", "strict_natural_majority", "pile_fully_visible", "joker_button",
      "totals", "last_round", "rounds", "tiebreak", "starter", "turn", "phase", "end", "went_out", "last_regular", "dealt", "replace",
      "hands", "known", "stock", "stock_joker", "top", "pile", "melds", "opened", "bonus", "jokers_used", "jokers_left", "played", "cursor", "chosen", "take", "value"};
  const auto words = text::words(text);
  if (words.empty() || words[0] != State::kName) throw NotationError(std::string("notation must start with '") + State::kName + "'");
  std::map<std::string, std::string> fields;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (eq == std::string_view::npos) throw NotationError("expected key=value, got '" + std::string(words[i]) + "'");
    std::string key(words[i].substr(0, eq));
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; }) == allowed.end())
      throw NotationError("unknown field '" + key + "'");
    if (!fields.emplace(key, std::string(words[i].substr(eq + 1))).second) throw NotationError("field '" + key + "' given twice");
  }
  return fields;
}

const std::string& require(const std::map<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end()) throw NotationError("missing field '" + key + "'");
  return it->second;
}

template <class Item>
void parse_list(std::string_view s, char sep, int n, std::string_view what, Item item) {
  const auto parts = text::split(s, sep);
  if (static_cast<int>(parts.size()) != n)
    throw NotationError(std::string(what) + ": expected " + std::to_string(n) + " entries separated by '" + std::string(1, sep) + "'");
  for (int i = 0; i < n; ++i) item(i, parts[i]);
}

int parse_signed(std::string_view s, std::string_view what) {
  if (!s.empty() && s[0] == '-') return -text::to_int(s.substr(1), 0, 1 << 30, what);
  return text::to_int(s, 0, 1 << 30, what);
}

int parse_rank_or_none(std::string_view s, std::string_view what) { return s == "-" ? -1 : parse_rank(s, what); }

}  // namespace

std::string State::action_to_string(Action action) const {
  if (current_player() == kChancePlayer) {
    if (action >= static_cast<Action>(kKinds)) throw NotationError("chance outcome " + std::to_string(action) + " is not a tile kind (0..14)");
    return std::string(kKindNames[action]);
  }
  if (action < kRankBase) return "discard:" + std::string(kKindNames[action]);
  if (action < kShapeBase) return "rank:" + rank_text(static_cast<int>(action - kRankBase));
  if (action < kDrawAction) {
    const int shape = static_cast<int>(action - kShapeBase);
    const int rank = chosen_ >= 0 ? chosen_ : 0;
    if (rank == kTwo && shape_twos(shape)) throw NotationError("action " + std::to_string(action) + " lays 2s as wilds on the twos meld");
    return "lay:" + meld_text(rank, Meld{static_cast<std::uint8_t>(shape_nat(shape)), static_cast<std::uint8_t>(shape_twos(shape)),
                                         static_cast<std::uint8_t>(shape_jokers(shape))});
  }
  if (action >= kKnownBase && action < static_cast<Action>(kMaxActions)) {
    const int code = static_cast<int>(action - kKnownBase), other = played_other();
    if (code >= 27 && other < 0) throw NotationError("action " + std::to_string(action) + " names known tiles that were not just played");
    Counts c{};
    if (other >= 0) c[other] = static_cast<std::uint8_t>(code / 27);
    c[kTwo] = static_cast<std::uint8_t>(code / 3 % 9);
    c[kJoker] = static_cast<std::uint8_t>(code % 3);
    return "known:" + tiles_text(c);
  }
  switch (action) {
    case kDrawAction: return "draw";
    case kTakeAction: return "take";
    case kDoneAction: return "done";
    case kJokerAction: return "joker";
    default: throw NotationError("action " + std::to_string(action) + " does not exist in canasta_tiles");
  }
}

Action State::parse_action(std::string_view text) const {
  auto w = text::words(text);
  // An observation's text may follow the move with what it shows (reveal=, got=, stock_joker=).
  if (w.size() > 1 && std::all_of(w.begin() + 1, w.end(), [](std::string_view x) { return x.starts_with("reveal=") || x.starts_with("got=") || x.starts_with("stock_joker="); }))
    w.resize(1);
  if (current_player() == kChancePlayer) {
    if (w.size() == 1) return static_cast<Action>(parse_kind(w[0]));
    throw NotationError("'" + std::string(text) + "': a tile is dealt or drawn here; name its kind (e.g. 7, J, k3, r3)");
  }
  const std::string_view word = w.size() == 1 ? w[0] : std::string_view{};
  const auto colon = word.find(':');
  const std::string_view verb = word.substr(0, colon), arg = colon == std::string_view::npos ? std::string_view{} : word.substr(colon + 1);
  if (word == "draw") return kDrawAction;
  if (word == "take") return kTakeAction;
  if (word == "done") return kDoneAction;
  if (word == "joker") return kJokerAction;
  if (verb == "discard" && !arg.empty()) {
    const int k = parse_kind(arg);
    if (k == kBonusThree) throw NotationError("a bonus three is never in a hand, so it cannot be discarded");
    return kDiscardBase + static_cast<Action>(k);
  }
  if (verb == "rank" && !arg.empty()) return kRankBase + static_cast<Action>(parse_rank(arg, "rank"));
  if (verb == "known" && !arg.empty()) {
    if (phase_ != Phase::kCopies) throw NotationError("'" + std::string(text) + "': 'known:' says which tiles just played were known ones; nothing asks that now");
    const Counts c = parse_tiles(arg, "known");
    const int other = played_other();
    for (int k = 0; k < kKinds; ++k)
      if (c[k] && k != other && k != kTwo && k != kJoker)
        throw NotationError("'" + std::string(text) + "': no " + std::string(kKindNames[k]) + " was just played (played: " + tiles_text(played_) + ")");
    return kKnownBase + static_cast<Action>(27 * (other >= 0 ? c[other] : 0) + 3 * c[kTwo] + c[kJoker]);
  }
  if (verb == "lay" && !arg.empty()) {
    const auto [rank, m] = parse_meld(arg, "lay");
    if (phase_ != Phase::kShape || rank != chosen_)
      throw NotationError("'" + std::string(text) + "': a lay names the rank chosen before it" +
                          (phase_ == Phase::kShape ? " (" + rank_text(chosen_) + ")" : std::string(", and no rank is chosen now")));
    if (m.nat > kMaxShapeNat || m.twos > kMaxShapeTwos || m.jokers > kMaxShapeJokers)
      throw NotationError("'" + std::string(text) + "': at most 8 naturals, 3 twos and 2 jokers in one lay");
    return kShapeBase + static_cast<Action>(m.nat * 12 + m.twos * 3 + m.jokers);
  }
  throw NotationError("'" + std::string(text) + "' is not a canasta_tiles move; moves: draw, take, done, joker, discard:<tile>, rank:<r>, lay:<r>x<n>[+2...][+J...], known:<tiles>");
}

std::string State::to_string() const { return write(-1); }
std::string State::view_string(int seat) const { return write(seat); }

std::string State::write(int seat) const {
  const bool full = seat < 0;
  auto b = [](bool v) { return v ? "1" : "0"; };
  std::ostringstream o;
  o << kName;
  if (!full) o << " seat=" << seat;
  o << " mode=" << kModeNames[static_cast<int>(mode_)] << " winner_required=" << b(winner_required_)
    << " first_turn_may_meld=" << b(first_turn_may_meld_) << " strict_natural_majority=" << b(strict_)
    << " pile_fully_visible=" << b(pile_visible_) << " joker_button=" << b(joker_button_) << " totals=" << totals_[0] << ','
    << totals_[1] << " last_round=" << last_round_[0] << ',' << last_round_[1] << " rounds=" << rounds_ << " tiebreak=" << b(tiebreak_) << " starter=" << int{starter_}
    << " turn=" << int{current_} << " phase=" << kPhaseNames[static_cast<int>(phase_)] << " end=" << kEndNames[static_cast<int>(end_)]
    << " went_out=" << (went_out_ < 0 ? std::string("-") : std::to_string(went_out_)) << " last_regular=" << b(last_regular_)
    << " dealt=" << int{dealt_} << " replace=" << int{replace_[0]} << '.' << int{replace_[1]} << '.' << int{replace_[2]} << '.'
    << int{replace_[3]} << " hands=";
  const bool shown = full || phase_ == Phase::kOver;  // the end of the match shows every hand (§8)
  for (int p = 0; p < kPlayers; ++p) o << (p ? "," : "") << (shown || p == seat ? tiles_text(hand_[p]) : "?" + std::to_string(sum(hand_[p])));
  o << " known=";
  for (int p = 0; p < kPlayers; ++p) o << (p ? "," : "") << tiles_text(known_[p]);
  o << " stock=" << (full ? tiles_text(stock_) : "?" + std::to_string(stock_size()));
  if (!full && joker_button_) o << " stock_joker=" << b(stock_[kJoker] > 0);
  o << " top=" << (top_ < 0 ? std::string("-") : std::string(kKindNames[top_]))
    << " pile=" << (full || pile_visible_ ? tiles_text(pile_) : "?" + std::to_string(sum(pile_))) << " melds=";
  for (int t = 0; t < 2; ++t) {
    std::string list;
    for (int r = 0; r < kRanks; ++r)
      if (melds_[t][r].size()) list.append(list.empty() ? "" : ",").append(meld_text(r, melds_[t][r]));
    o << (t ? "/" : "") << (list.empty() ? "-" : list);
  }
  o << " opened=" << b(opened_[0]) << ',' << b(opened_[1]) << " bonus=" << int{bonus_[0]} << ',' << int{bonus_[1]}
    << " jokers_used=" << b(joker_used_[0]) << '.' << b(joker_used_[1]) << '.' << b(joker_used_[2]) << '.' << b(joker_used_[3])
    << " jokers_left=" << int{jokers_left_[0]} << '.' << int{jokers_left_[1]} << '.' << int{jokers_left_[2]} << '.' << int{jokers_left_[3]}
    << " played=" << tiles_text(played_) << " cursor=" << rank_text(cursor_) << " chosen=" << rank_text(chosen_) << " take=" << rank_text(take_rank_) << " value=" << stage_value_;
  return o.str();
}

// Reads a full state, or a seat view (view = true), whose hidden parts get placeholder tiles
// (from_view() then deals them properly).
State State::parse(std::string_view text, bool view, int& seat) {
  const auto f = parse_fields(text);
  if (view != (f.count("seat") > 0)) throw NotationError(view ? "missing field 'seat' of a seat view" : "unknown field 'seat' in a full state");
  seat = view ? text::to_int(require(f, "seat"), 0, kPlayers - 1, "seat") : -1;
  State s;
  s.mode_ = static_cast<MatchMode>(name_index(kModeNames, require(f, "mode"), "mode"));
  s.winner_required_ = parse_bool(require(f, "winner_required"), "winner_required");
  s.first_turn_may_meld_ = parse_bool(require(f, "first_turn_may_meld"), "first_turn_may_meld");
  s.strict_ = parse_bool(require(f, "strict_natural_majority"), "strict_natural_majority");
  s.pile_visible_ = parse_bool(require(f, "pile_fully_visible"), "pile_fully_visible");
  s.joker_button_ = parse_bool(require(f, "joker_button"), "joker_button");
  if (view == (f.count("stock_joker") == 0) && s.joker_button_) throw NotationError("stock_joker: given in a seat view exactly when joker_button=1");
  if (!s.joker_button_ && f.count("stock_joker")) throw NotationError("stock_joker: only with joker_button=1");
  parse_list(require(f, "totals"), ',', 2, "totals", [&](int t, std::string_view v) { s.totals_[t] = parse_signed(v, "totals"); });
  parse_list(require(f, "last_round"), ',', 2, "last_round", [&](int t, std::string_view v) { s.last_round_[t] = parse_signed(v, "last_round"); });
  s.rounds_ = static_cast<std::uint16_t>(text::to_int(require(f, "rounds"), 0, 65535, "rounds"));
  s.starter_ = static_cast<std::uint8_t>(text::to_int(require(f, "starter"), 0, kPlayers - 1, "starter"));
  s.current_ = static_cast<std::uint8_t>(text::to_int(require(f, "turn"), 0, kPlayers - 1, "turn"));
  s.phase_ = static_cast<Phase>(name_index(kPhaseNames, require(f, "phase"), "phase"));
  s.end_ = static_cast<EndReason>(name_index(kEndNames, require(f, "end"), "end"));
  // Version 1 has no tiebreak= (§11): a round past the mode's end can only have been a tie-break.
  s.tiebreak_ = f.count("tiebreak") ? parse_bool(f.at("tiebreak"), "tiebreak") : s.phase_ != Phase::kOver && s.mode_reached();
  s.went_out_ = static_cast<std::int8_t>(require(f, "went_out") == "-" ? -1 : text::to_int(require(f, "went_out"), 0, kPlayers - 1, "went_out"));
  s.last_regular_ = parse_bool(require(f, "last_regular"), "last_regular");
  s.dealt_ = static_cast<std::uint8_t>(text::to_int(require(f, "dealt"), 0, kDealtTiles, "dealt"));
  parse_list(require(f, "replace"), '.', kPlayers, "replace",
             [&](int p, std::string_view v) { s.replace_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, 4, "replace")); });
  std::array<int, kPlayers> hidden{};
  hidden.fill(-1);
  parse_list(require(f, "hands"), ',', kPlayers, "hands", [&](int p, std::string_view v) {
    if (!view || p == seat || s.phase_ == Phase::kOver) {
      s.hand_[p] = parse_tiles(v, "hands");
    } else {
      if (v.empty() || v[0] != '?') throw NotationError("hands: another seat's hand is written ?<size> in a view, got '" + std::string(v) + "'");
      hidden[p] = text::to_int(v.substr(1), 0, kTiles, "hands");
    }
  });
  parse_list(require(f, "known"), ',', kPlayers, "known", [&](int p, std::string_view v) { s.known_[p] = parse_tiles(v, "known"); });
  int hidden_stock = -1, hidden_pile = -1;
  const std::string& stock = require(f, "stock");
  if (view) {
    if (stock.empty() || stock[0] != '?') throw NotationError("stock: written ?<size> in a view");
    hidden_stock = text::to_int(std::string_view(stock).substr(1), 0, kTiles, "stock");
  } else {
    s.stock_ = parse_tiles(stock, "stock");
  }
  const std::string& top = require(f, "top");
  s.top_ = static_cast<std::int8_t>(top == "-" ? -1 : parse_kind(top));
  const std::string& pile = require(f, "pile");
  if (view && !s.pile_visible_) {
    if (pile.empty() || pile[0] != '?') throw NotationError("pile: written ?<size> in a view when the pile is not fully visible");
    hidden_pile = text::to_int(std::string_view(pile).substr(1), 0, kTiles, "pile");
  } else {
    s.pile_ = parse_tiles(pile, "pile");
  }
  parse_list(require(f, "melds"), '/', 2, "melds", [&](int t, std::string_view v) {
    if (v == "-") return;
    for (std::string_view m : text::split(v, ',')) {
      const auto [rank, meld] = parse_meld(m, "melds");
      if (s.melds_[t][rank].size()) throw NotationError("melds: team " + std::to_string(t) + " has two melds of rank " + rank_text(rank) + " (§4.3)");
      if (meld.size() == 0) throw NotationError("melds: an empty meld '" + std::string(m) + "'");
      s.melds_[t][rank] = meld;
    }
  });
  parse_list(require(f, "opened"), ',', 2, "opened", [&](int t, std::string_view v) { s.opened_[t] = parse_bool(v, "opened"); });
  parse_list(require(f, "bonus"), ',', 2, "bonus", [&](int t, std::string_view v) { s.bonus_[t] = static_cast<std::uint8_t>(text::to_int(v, 0, 4, "bonus")); });
  parse_list(require(f, "jokers_used"), '.', kPlayers, "jokers_used", [&](int p, std::string_view v) { s.joker_used_[p] = parse_bool(v, "jokers_used"); });
  if (f.count("jokers_left")) {
    parse_list(f.at("jokers_left"), '.', kPlayers, "jokers_left",
               [&](int p, std::string_view v) { s.jokers_left_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, 255, "jokers_left")); });
  } else {  // version 1: the default allowance, less this round's use
    for (int p = 0; p < kPlayers; ++p) s.jokers_left_[p] = static_cast<std::uint8_t>(Options{}.joker_allowance[p] - (s.joker_used_[p] ? 1 : 0));
  }
  s.played_ = f.count("played") ? parse_tiles(f.at("played"), "played") : Counts{};  // version 1 has no copies phase
  s.cursor_ = static_cast<std::int8_t>(parse_rank_or_none(require(f, "cursor"), "cursor"));
  s.chosen_ = static_cast<std::int8_t>(parse_rank_or_none(require(f, "chosen"), "chosen"));
  s.take_rank_ = static_cast<std::int8_t>(parse_rank_or_none(require(f, "take"), "take"));
  s.stage_value_ = static_cast<std::uint16_t>(text::to_int(require(f, "value"), 0, 2000, "value"));
  if (!view) return s;

  // Placeholders: the tiles the seat has not seen, in kind order, for the hidden places.
  Counts pool = kKindCount;
  auto take_out = [&](const Counts& c, const char* what) {
    for (int k = 0; k < kKinds; ++k) {
      if (c[k] > pool[k]) throw NotationError(std::string("inconsistent view: too many tiles ") + std::string(kKindNames[k]) + " (" + what + ")");
      pool[k] = static_cast<std::uint8_t>(pool[k] - c[k]);
    }
  };
  take_out(s.hand_[seat], "hand");
  for (int p = 0; p < kPlayers; ++p)
    if (p != seat) take_out(hidden[p] < 0 ? s.hand_[p] : s.known_[p], hidden[p] < 0 ? "hands" : "known");
  if (s.pile_visible_) take_out(s.pile_, "pile");
  if (s.top_ >= 0) --pool[s.top_];
  for (int t = 0; t < 2; ++t)
    for (int r = 0; r < kRanks; ++r) {
      Counts c{};
      const Meld& m = s.melds_[t][r];
      c[r] = static_cast<std::uint8_t>(c[r] + m.nat);
      c[kTwo] = static_cast<std::uint8_t>(c[kTwo] + m.twos);
      c[kJoker] = static_cast<std::uint8_t>(c[kJoker] + m.jokers);
      take_out(c, "melds");
    }
  Counts bonus{};
  bonus[kBonusThree] = static_cast<std::uint8_t>(s.bonus_[0] + s.bonus_[1]);
  take_out(bonus, "bonus areas");
  auto fill = [&](Counts& into, int n, bool bonus_first) {
    if (bonus_first) {
      const int b3 = std::min<int>(n, pool[kBonusThree]);
      into[kBonusThree] = static_cast<std::uint8_t>(into[kBonusThree] + b3);
      pool[kBonusThree] = static_cast<std::uint8_t>(pool[kBonusThree] - b3);
      n -= b3;
    }
    for (int k = 0; k < kBonusThree && n > 0; ++k) {
      const int m = std::min<int>(n, pool[k]);
      into[k] = static_cast<std::uint8_t>(into[k] + m);
      pool[k] = static_cast<std::uint8_t>(pool[k] - m);
      n -= m;
    }
    if (n > 0) throw NotationError("inconsistent view: the hidden places hold more tiles than the seat has not seen");
  };
  fill(s.stock_, hidden_stock, true);
  if (hidden_pile >= 0) fill(s.pile_, hidden_pile, false);
  for (int p = 0; p < kPlayers; ++p)
    if (p != seat && hidden[p] >= 0) {
      if (hidden[p] < sum(s.known_[p])) throw NotationError("hands: seat " + std::to_string(p) + " holds fewer tiles than are known to be in its hand");
      s.hand_[p] = s.known_[p];
      fill(s.hand_[p], hidden[p] - sum(s.known_[p]), false);
    }
  if (sum(pool) != 0) throw NotationError("inconsistent view: " + std::to_string(sum(pool)) + " tiles are nowhere (tile conservation)");
  // Make the placeholders agree with the public joker flag (every joker out of the stock, or
  // one into it); determinize keeps it.
  if (s.joker_button_) {
    const bool stock_joker = parse_bool(require(f, "stock_joker"), "stock_joker");
    if (!s.set_stock_jokers(seat, stock_joker ? 1 : 0, stock_joker ? kKindCount[kJoker] : 0))
      throw NotationError("stock_joker: no deal of the unseen tiles agrees with it");
  }
  return s;
}

State State::from_string(std::string_view text) {
  int seat;
  State s = parse(text, false, seat);
  s.validate();
  return s;
}

State State::from_view(std::string_view text) {
  int seat;
  const State placeholder = parse(text, true, seat);
  placeholder.validate_public();
  Rng rng(0);
  State s = placeholder.determinize(seat, rng);
  s.validate();
  return s;
}

// The public invariants; validate() adds the ones that need every tile.
void State::validate_public() const {
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  for (int t = 0; t < 2; ++t)
    for (int r = 0; r < kRanks; ++r) {
      const Meld& m = melds_[t][r];
      if (m.size() && !valid(r, m)) fail("team " + std::to_string(t) + "'s meld " + meld_text(r, m) + " is not a valid meld (§4)");
    }
  const bool decision = current_player() >= 0;
  const int mover_team = current_ % 2;
  for (int t = 0; t < 2; ++t) {
    bool any = false;
    int value = 0;
    for (int r = 0; r < kRanks; ++r) {
      any |= melds_[t][r].size() > 0;
      value += shape_value(r, melds_[t][r].nat * 12 + melds_[t][r].twos * 3 + melds_[t][r].jokers);
    }
    if (!opened_[t] && any) {
      if (!(decision && t == mover_team && (phase_ == Phase::kShape || phase_ == Phase::kMeld || phase_ == Phase::kTakeOpen || phase_ == Phase::kCopies)))
        fail("team " + std::to_string(t) + " has melds but has not opened, and is not opening now");
      if (value != stage_value_) fail("value: an opening under way has laid " + std::to_string(value) + ", not " + std::to_string(stage_value_));
    }
  }
  if (stage_value_ && (opened_[mover_team] || !decision)) fail("value: only an unopened team's opening under way has a value");
  if ((chosen_ >= 0) != (phase_ == Phase::kShape)) fail("chosen: a rank is chosen exactly in the shape phase");
  if (take_rank_ >= 0) {
    if (opened_[mover_team] || !(phase_ == Phase::kShape || phase_ == Phase::kTakeOpen || phase_ == Phase::kCopies)) fail("take: only during an unopened team's pickup");
    const bool top_pending = phase_ == Phase::kShape && chosen_ == take_rank_ && top_ == take_rank_;
    if (!top_pending && (top_ >= 0 || melds_[mover_team][take_rank_].size() == 0)) fail("take: the top tile of the pickup must be laid first");
    if (top_pending && melds_[mover_team][take_rank_].size()) fail("take: the pickup's meld exists before its first lay");
    if (!top_pending && chosen_ == take_rank_) fail("chosen: the pickup's rank is laid once");
  }
  if (cursor_ >= 0 && !(phase_ == Phase::kShape || phase_ == Phase::kMeld || phase_ == Phase::kTakeOpen || phase_ == Phase::kCopies)) fail("cursor: only while laying");
  // §13: the copies decision, right after a move that played known tiles.
  if ((phase_ == Phase::kCopies) != (sum(played_) > 0)) fail("played: known tiles just played are listed exactly in the copies phase");
  if (phase_ == Phase::kCopies) {
    int others = 0;
    for (int k = 0; k < kKinds; ++k) others += played_[k] && k != kTwo && k != kJoker;
    if (others > 1 || played_[kBonusThree] || played_[kJoker] > kKindCount[kJoker]) fail("played: a move plays one kind besides 2s and jokers, never a bonus three");
    for (int k = 0; k < kKinds; ++k)
      if (played_[k] + known_[current_][k] > kKindCount[k]) fail("played: more " + std::string(kKindNames[k]) + " known than exist");
    if (sum(hand_[current_]) <= sum(known_[current_])) fail("played: the copies phase needs tiles nobody has seen in the mover's hand");
    if (copies_after_discard() && (sum(played_) != 1 || played_[top_] != 1)) fail("played: after a discard, the discarded tile");
  }
  if (chosen_ >= 0 && chosen_ != take_rank_ && chosen_ <= cursor_) fail("chosen: lays of a stage go to increasing ranks");
  if (top_ == kBonusThree) fail("top: a bonus three is never discarded");
  if (pile_[kBonusThree]) fail("pile: a bonus three is never discarded");
  if (top_ < 0 && sum(pile_) > 0 && take_rank_ < 0) fail("pile: a pile has a top tile");
  for (int p = 0; p < kPlayers; ++p) {
    if (known_[p][kBonusThree]) fail("known: a bonus three is never in a hand");
    if (joker_used_[p] && !joker_button_) fail("jokers_used: the Joker button is off");
  }
  const bool dealing = phase_ == Phase::kDeal || phase_ == Phase::kReplace;
  if (!dealing && (dealt_ != kDealtTiles || replace_ != std::array<std::uint8_t, kPlayers>{})) fail("dealt/replace: the deal is over");
  if (phase_ == Phase::kDeal && dealt_ >= kDealtTiles) fail("dealt: the deal has 57 tiles");
  if (phase_ == Phase::kReplace && replace_ == std::array<std::uint8_t, kPlayers>{}) fail("replace: nothing left to replace");
  if ((phase_ == Phase::kOver) != (end_ != EndReason::kNone)) fail("end: set exactly when the match is over");
  if ((went_out_ >= 0) != (end_ == EndReason::kWentOut)) fail("went_out: set exactly when the round ended by going out");
  if (last_regular_ && !(phase_ == Phase::kMeld || phase_ == Phase::kShape || phase_ == Phase::kTakeOpen || phase_ == Phase::kCopies || phase_ == Phase::kOver))
    fail("last_regular: only during the turn that drew the last regular tile");
  for (int t = 0; t < 2; ++t)
    if (totals_[t] % 5 || last_round_[t] % 5) fail("totals: every score is a multiple of 5");
  if (phase_ == Phase::kOver && rounds_ == 0) fail("rounds: a finished match has played a round");
  // §11: once the mode's end is reached, a match goes on only to break a tie.
  if (phase_ != Phase::kOver) {
    if (tiebreak_ && (!winner_required_ || totals_[0] != totals_[1])) fail("tiebreak: a tie-break round starts from equal totals, with winner_required=1");
    if (!tiebreak_ && mode_reached()) fail("tiebreak: the match has reached its end, so a round now can only break a tie (tiebreak=1)");
    if (tiebreak_ && rounds_ == 0) fail("tiebreak: no round has been played");
  } else if (tiebreak_) {
    fail("tiebreak: set only while the match goes on");
  }
}

bool State::mode_reached() const {
  return mode_ == MatchMode::kOneRound ? rounds_ >= 1
         : mode_ == MatchMode::kThreeRounds ? rounds_ >= kThreeRounds
                                            : std::max(totals_[0], totals_[1]) >= kTargetScore;
}

void State::validate() const {
  validate_public();
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  for (int k = 0; k < kKinds; ++k) {
    int n = stock_[k] + pile_[k] + (top_ == k ? 1 : 0);
    for (int p = 0; p < kPlayers; ++p) n += hand_[p][k];
    for (int t = 0; t < 2; ++t) {
      const Meld* m = melds_[t].data();
      if (k < kRanks) n += m[k].nat;
      if (k == kTwo)
        for (int r = 0; r < kRanks; ++r) n += m[r].twos;
      if (k == kJoker)
        for (int r = 0; r < kRanks; ++r) n += m[r].jokers;
    }
    if (k == kBonusThree) n += bonus_[0] + bonus_[1];
    if (n != kKindCount[k])
      fail("there must be " + std::to_string(kKindCount[k]) + " tiles " + std::string(kKindNames[k]) + ", found " + std::to_string(n) + " (§14.1)");
  }
  for (int p = 0; p < kPlayers; ++p) {
    if (hand_[p][kBonusThree]) fail("seat " + std::to_string(p) + " holds a bonus three (they are revealed at once, §7.1)");
    for (int k = 0; k < kKinds; ++k)
      if (known_[p][k] > hand_[p][k]) fail("known: seat " + std::to_string(p) + " is known to hold more " + std::string(kKindNames[k]) + " than it does");
  }
  const bool dealing = phase_ == Phase::kDeal || phase_ == Phase::kReplace;
  for (int p = 0; p < kPlayers; ++p) {
    const int size = sum(hand_[p]);
    if (dealing) {
      const int offset = (p - starter_ + kPlayers) % kPlayers;
      const int first = offset == 0 ? 0 : kStarterTiles + (offset - 1) * kHandTiles;
      const int want = offset == 0 ? kStarterTiles : kHandTiles;
      const int dealt_to = phase_ == Phase::kReplace ? want : std::clamp(dealt_ - first, 0, want);
      if (phase_ == Phase::kDeal && size + replace_[p] != dealt_to)
        fail("seat " + std::to_string(p) + " must hold " + std::to_string(dealt_to - replace_[p]) + " tiles in the deal so far");
      if (phase_ == Phase::kReplace && size + replace_[p] != want) fail("seat " + std::to_string(p) + " must hold its deal minus bonus threes to replace");
      continue;
    }
    // An unopened pickup may lay every hand tile before `done` brings the pile into the hand.
    const bool pile_to_come = p == current_ && taking() && sum(pile_) > 0;
    if (size == 0 && !(phase_ == Phase::kOver && p == went_out_) && !pile_to_come)
      fail("seat " + std::to_string(p) + " holds no tile (only a seat that went out, or one whose pickup's pile is still to join the hand, does)");
    if (!opened_[p % 2] && size > kMaxUnopenedHand) fail("seat " + std::to_string(p) + " holds more than 15 tiles before its team opened");
  }
  if (dealing && (sum(pile_) || top_ >= 0 || opened_[0] || opened_[1])) fail("nothing is played during the deal");
  if (phase_ == Phase::kFirst && (current_ != starter_ || top_ >= 0 || sum(hand_[current_]) != kStarterTiles))
    fail("the starter's first turn: 15 tiles, an empty pile");
  if ((phase_ == Phase::kDraw || phase_ == Phase::kDrawing || phase_ == Phase::kFirst) && stock_size() == 0) fail("a turn never starts with an empty stock (§9)");
  if (!dealing && phase_ != Phase::kOver && !last_regular_ && stock_size() == 0) fail("the stock is empty but nobody drew its last regular tile");
  if (last_regular_ && stock_size() != 0) fail("last_regular: the stock is not empty");
  if (current_player() >= 0) {
    std::array<Action, kMaxActions> legal;
    if (legal_actions(legal.data()) == 0) fail("seat " + std::to_string(current_) + " cannot finish its turn from here");
  }
}

std::string State::render(int seat) const {
  std::ostringstream o;
  o << "canasta_tiles  round " << rounds_ + (is_terminal() ? 0 : 1) << "  totals " << totals_[0] << " / " << totals_[1] << "  phase "
    << kPhaseNames[static_cast<int>(phase_)] << "\n";
  for (int t = 0; t < 2; ++t) {
    o << "team " << t << (opened_[t] ? " opened" : " not opened") << " (threshold " << threshold(t) << "), bonus threes " << int{bonus_[t]} << ", melds:";
    for (int r = 0; r < kRanks; ++r)
      if (melds_[t][r].size()) o << ' ' << meld_text(r, melds_[t][r]) << (melds_[t][r].size() >= kCanastaSize ? "*" : "");
    o << "\n";
  }
  for (int p = 0; p < kPlayers; ++p) {
    o << "seat " << p << (p == current_ && !is_terminal() ? " *" : "  ") << " ";
    if (seat < 0 || p == seat) o << tiles_text(hand_[p]);
    else o << sum(hand_[p]) << (sum(hand_[p]) == 1 ? " tile" : " tiles") << (sum(known_[p]) ? ", known " + tiles_text(known_[p]) : "");
    if (joker_button_) o << "  (Joker button: " << int{jokers_left_[p]} << " left" << (joker_used_[p] ? ", used this round)" : ")");
    o << "\n";
  }
  if (phase_ == Phase::kCopies) o << "seat " << int{current_} << " just played " << tiles_text(played_) << " that may be its known tiles (known:<which>)\n";
  o << "stock " << stock_size() << ", pile " << pile_size() << (top_ >= 0 ? ", top " + std::string(kKindNames[top_]) : "");
  if (sum(pile_)) o << (seat < 0 || pile_visible_ ? ", under it " + tiles_text(pile_) : ", the rest face down (pile_fully_visible=0)");
  if (tiebreak_) o << "\ntie-break round: the first round that leaves the totals unequal ends the match";
  if (is_terminal()) o << "\nmatch over after " << rounds_ << " round(s); last round " << last_round_[0] << " / " << last_round_[1];
  return o.str();
}

}  // namespace kibitz::canasta
