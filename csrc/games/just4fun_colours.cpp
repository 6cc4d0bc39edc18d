// Just 4 Fun Colours: setup, scoring, information sets, heuristics and notation.
// The rules of a move (§5, §6) are inline in the header because the search calls them.
#include "games/just4fun_colours.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "core/text.h"

namespace kibitz::j4fc {
namespace {

constexpr Bitboard kBoardMask = (Bitboard{1} << kFields) - 1;
constexpr Bitboard kNotColA = [] {
  Bitboard m = 0;
  for (int i = 0; i < kFields; ++i)
    if (i % kSide != 0) m |= Bitboard{1} << i;
  return m;
}();
constexpr Bitboard kNotColF = [] {
  Bitboard m = 0;
  for (int i = 0; i < kFields; ++i)
    if (i % kSide != kSide - 1) m |= Bitboard{1} << i;
  return m;
}();

// Orthogonal neighbours only: areas connect horizontally and vertically (§7.2).
Bitboard orthogonal_spread(Bitboard b) {
  return (b | ((b << 1) & kNotColA) | ((b >> 1) & kNotColF) | (b << kSide) | (b >> kSide)) & kBoardMask;
}

int colour_index(char letter) {
  const auto pos = kColourLetters.find(letter);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

std::string field_name(int field) {
  return std::string{static_cast<char>('a' + field % kSide), static_cast<char>('1' + field / kSide)};
}

std::string counts_text(const Counts& c) {
  std::string s;
  for (int i = 0; i < kColours; ++i) {
    if (i) s += '.';
    s += std::to_string(c[i]);
  }
  return s;
}

Counts parse_counts(std::string_view s, std::string_view what) {
  const auto parts = text::split(s, '.');
  if (parts.size() != kColours)
    throw NotationError(std::string(what) + ": expected 6 counts like 3.0.2.1.0.4, got '" + std::string(s) + "'");
  Counts c{};
  for (int i = 0; i < kColours; ++i) c[i] = static_cast<std::uint8_t>(text::to_int(parts[i], 0, kCardsPerColour, what));
  return c;
}

std::string hand_text(const Counts& c) {
  std::string s;
  for (int i = 0; i < kColours; ++i) s.append(c[i], kColourLetters[i]);
  return s.empty() ? "-" : s;
}

Counts parse_hand(std::string_view s, std::string_view what) {
  Counts c{};
  if (s == "-") return c;
  for (char ch : s) {
    const int colour = colour_index(ch);
    if (colour < 0)
      throw NotationError(std::string(what) + ": '" + std::string(1, ch) + "' is not a colour (one of ROYGBP)");
    ++c[colour];
  }
  return c;
}

int total(const Counts& c) { return std::accumulate(c.begin(), c.end(), 0); }

// Key=value words after the game name; every key at most once, none unknown.
std::map<std::string, std::string> parse_fields(std::string_view text, std::initializer_list<const char*> allowed) {
  const auto words = text::words(text);
  if (words.empty() || words[0] != State::kName)
    throw NotationError(std::string("notation must start with '") + State::kName + "'");
  std::map<std::string, std::string> fields;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (eq == std::string_view::npos)
      throw NotationError("expected key=value, got '" + std::string(words[i]) + "'");
    std::string key(words[i].substr(0, eq));
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; }) == allowed.end())
      throw NotationError("unknown field '" + key + "'");
    if (!fields.emplace(key, std::string(words[i].substr(eq + 1))).second)
      throw NotationError("field '" + key + "' given twice");
  }
  return fields;
}

const std::string& require(const std::map<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end()) throw NotationError("missing field '" + key + "'");
  return it->second;
}

// A per-player list "a,b,c"; each item parsed by `item`.
template <class Item>
void parse_per_player(std::string_view s, int players, std::string_view what, Item item) {
  const auto parts = text::split(s, ',');
  if (static_cast<int>(parts.size()) != players)
    throw NotationError(std::string(what) + ": expected " + std::to_string(players) + " comma-separated entries");
  for (int p = 0; p < players; ++p) item(p, parts[p]);
}

// Number of ways to choose k of n identical-looking cards of one colour as distinct cards.
double binomial(int n, int k) {
  if (k < 0 || k > n) return 0.0;
  double r = 1.0;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  for (const auto& [key, value] : options) {
    auto as_int = [&](int lo, int hi) {
      try {
        return text::to_int(value, lo, hi, key);
      } catch (const NotationError& e) {
        throw OptionError(std::string("option ") + e.what());
      }
    };
    if (key == "players")
      o.players = as_int(2, 4);
    else if (key == "line")
      o.line_length = as_int(4, 5);
    else if (key == "start")
      o.start = value == "random" ? -1 : as_int(0, 3);
    else
      throw OptionError("unknown option '" + key + "' for just4fun_colours; options: players, line, start");
  }
  if (o.start >= o.players)
    throw OptionError("option start: seat " + std::to_string(o.start) + " does not exist with " +
                      std::to_string(o.players) + " players");
  return o;
}

State State::initial(const Options& options, std::uint64_t seed) {
  Rng rng(seed);
  State s;
  s.players_ = static_cast<std::uint8_t>(options.players);
  s.line_length_ = static_cast<std::uint8_t>(options.line_length);
  s.top_.fill(-1);
  s.recompute_bitboards();
  s.stock_.fill(kCardsPerColour);
  for (int p = 0; p < s.players_; ++p) {
    s.supply_[p] = kStonesPerPlayer;
    for (int k = 0; k < kHandSize; ++k) {
      const Action c = s.sample_chance(rng);
      --s.stock_[c];
      ++s.hand_[p][c];
    }
  }
  s.start_ = static_cast<std::uint8_t>(options.start >= 0 ? options.start : static_cast<int>(rng.below(s.players_)));
  s.current_ = s.start_;
  return s;
}

void State::reshuffle() {
  stock_ = discard_;
  discard_.fill(0);
  reshuffled_ = true;
  era_stock_ = stock_;
  era_hand_ = hand_;
  for (auto& c : era_drawn_) c.fill(0);
  for (auto& c : era_played_) c.fill(0);
}

int State::turns_played() const {
  int used = 0;
  for (int p = 0; p < players_; ++p) used += kStonesPerPlayer - supply_[p];
  return used;
}

void State::recompute_bitboards() {
  owned_.fill(0);
  lower_than_.fill(0);
  for (int f = 0; f < kFields; ++f) {
    if (top_[f] >= 0) owned_[top_[f]] |= Bitboard{1} << f;
    for (int h = height_[f] + 1; h <= kMaxHeight + 1; ++h) lower_than_[h] |= Bitboard{1} << f;
  }
}

std::pair<int, int> State::area_score(int seat) const {
  Bitboard rest = owned_[seat];
  int best_size = 0, best_stones = 0;
  while (rest) {
    Bitboard area = rest & (~rest + 1);
    for (Bitboard grown = orthogonal_spread(area) & owned_[seat]; grown != area; grown = orthogonal_spread(area) & owned_[seat])
      area = grown;
    rest &= ~area;
    const int size = std::popcount(area);
    int stones = 0;
    for (Bitboard b = area; b; b &= b - 1) stones += height_[std::countr_zero(b)];
    if (size > best_size || (size == best_size && stones > best_stones)) best_size = size, best_stones = stones;
  }
  return {best_size, best_stones};
}

void State::scores(double* out) const {
  for (int p = 0; p < players_; ++p) out[p] = area_score(p).first;
}

void State::returns(double* out) const {
  for (int p = 0; p < players_; ++p) out[p] = 0.0;
  if (winner_ >= 0) {
    out[winner_] = 1.0;
    return;
  }
  if (!finished_) return;
  std::array<std::pair<int, int>, kMaxPlayers> result{};
  for (int p = 0; p < players_; ++p) result[p] = area_score(p);
  const auto best = *std::max_element(result.begin(), result.begin() + players_);
  const int winners = static_cast<int>(std::count(result.begin(), result.begin() + players_, best));
  for (int p = 0; p < players_; ++p)
    if (result[p] == best) out[p] = 1.0 / winners;  // §7.2: remaining ties share the victory
}

void State::ranks(double* out) const {
  std::array<std::pair<int, int>, kMaxPlayers> result{};
  for (int p = 0; p < players_; ++p) result[p] = area_score(p);
  for (int p = 0; p < players_; ++p) {
    if (p == winner_) {
      out[p] = 1;
      continue;
    }
    int better = winner_ >= 0 ? 1 : 0;
    for (int q = 0; q < players_; ++q)
      if (q != winner_ && result[q] > result[p]) ++better;
    out[p] = 1 + better;
  }
}

std::uint64_t State::info_key(int seat) const {
  std::uint64_t h = hash_mix(players_ | line_length_ << 8 | start_ << 16, pending_draws_ | seat << 8 | reshuffled_ << 16);
  for (int f = 0; f < kFields; f += 4)
    h = hash_mix(h, std::uint64_t{height_[f]} | std::uint64_t{height_[f + 1]} << 8 | std::uint64_t{height_[f + 2]} << 16 |
                        std::uint64_t{height_[f + 3]} << 24);
  for (int p = 0; p < players_; ++p) h = hash_mix(h, owned_[p] | std::uint64_t{supply_[p]} << 40 | std::uint64_t{boxed_[p]} << 48 |
                                                         std::uint64_t(total(hand_[p])) << 56);
  auto add = [&h](const Counts& c) {
    std::uint64_t v = 0;
    for (int i = 0; i < kColours; ++i) v |= std::uint64_t{c[i]} << (8 * i);
    h = hash_mix(h, v);
  };
  add(hand_[seat]);
  add(discard_);
  h = hash_mix(h, total(stock_));
  if (reshuffled_) {
    add(era_stock_);
    add(era_hand_[seat]);
    add(era_drawn_[seat]);
    for (int p = 0; p < players_; ++p) {
      add(era_played_[p]);
      h = hash_mix(h, total(era_hand_[p]) | total(era_drawn_[p]) << 8);
    }
  }
  return h;
}

// Deals the cards `seat` cannot see. Before the first reshuffle every unseen card may be in
// any opponent's hand or in the stock, so they are dealt uniformly. After a reshuffle the
// stock holds only cards of the reshuffled pile (pool B, public at the reshuffle) that
// nobody has drawn since; each opponent holds cards from its hand at the reshuffle (pool A,
// whose combined composition the seat can deduce) and cards drawn since (pool B). The cards
// each opponent played since are public; each is attributed to pool A or B by a weighted
// random choice among the attributions the counts allow, and the rest of each pool is
// dealt uniformly to that pool's slots. Limitation (docs/games/just4fun_colours.md): the
// timing of draws within an era is not enforced, only the counts.
State State::determinize(int seat, Rng& rng) const {
  State s = *this;
  std::array<std::uint8_t, kCardsPerColour * kColours> cards;
  auto shuffled_cards = [&](const Counts& pool) {
    int n = 0;
    for (int c = 0; c < kColours; ++c)
      for (int k = 0; k < pool[c]; ++k) cards[n++] = static_cast<std::uint8_t>(c);
    for (int i = n - 1; i > 0; --i) std::swap(cards[i], cards[rng.below(i + 1)]);
    return n;
  };
  auto deal = [&](int& next, int count, Counts& into) {
    for (int k = 0; k < count; ++k) ++into[cards[next++]];
  };

  if (!reshuffled_) {
    Counts unseen{};
    for (int c = 0; c < kColours; ++c) unseen[c] = static_cast<std::uint8_t>(kCardsPerColour - hand_[seat][c] - discard_[c]);
    shuffled_cards(unseen);
    int next = 0;
    for (int p = 0; p < players_; ++p)
      if (p != seat) {
        s.hand_[p].fill(0);
        deal(next, total(hand_[p]), s.hand_[p]);
      }
    s.stock_.fill(0);
    deal(next, total(stock_), s.stock_);
    return s;
  }

  Counts pool_a{}, pool_b{};
  for (int c = 0; c < kColours; ++c) {
    pool_a[c] = static_cast<std::uint8_t>(kCardsPerColour - era_stock_[c] - era_hand_[seat][c]);
    pool_b[c] = static_cast<std::uint8_t>(era_stock_[c] - era_drawn_[seat][c]);
  }
  std::array<int, kMaxPlayers> slots_a{}, slots_b{};
  struct Demand {
    int player, colour, played;
  };
  std::array<Demand, kMaxPlayers * kColours> demands{};
  int n_demands = 0;
  for (int p = 0; p < players_; ++p) {
    if (p == seat) continue;
    slots_a[p] = total(era_hand_[p]);
    slots_b[p] = total(era_drawn_[p]);
    for (int c = 0; c < kColours; ++c)
      if (era_played_[p][c] > 0) demands[n_demands++] = {p, c, era_played_[p][c]};
  }
  std::array<int, kMaxPlayers * kColours> from_a{};
  // Depth-first over the demands; a solution exists because the real history is one.
  auto attribute = [&](auto&& self, int i) -> bool {
    if (i == n_demands) return true;
    const Demand& d = demands[i];
    const int hi = std::min({d.played, slots_a[d.player], static_cast<int>(pool_a[d.colour])});
    const int lo = std::max(0, d.played - std::min(slots_b[d.player], static_cast<int>(pool_b[d.colour])));
    std::array<double, kHandSize * 4 + 1> weight{};
    double sum_weight = 0;
    for (int x = lo; x <= hi; ++x) sum_weight += weight[x] = binomial(pool_a[d.colour], x) * binomial(pool_b[d.colour], d.played - x);
    for (int tries = lo; tries <= hi && sum_weight > 0; ++tries) {
      double r = rng.uniform() * sum_weight;
      int x = -1;  // the value whose weight interval holds r (the last candidate if rounding overshoots)
      for (int v = lo; v <= hi; ++v)
        if (weight[v] > 0) {
          x = v;
          if (r < weight[v]) break;
          r -= weight[v];
        }
      if (x < 0) break;
      sum_weight -= weight[x];
      weight[x] = 0;
      const int y = d.played - x;
      slots_a[d.player] -= x, pool_a[d.colour] -= x, slots_b[d.player] -= y, pool_b[d.colour] -= y;
      from_a[i] = x;
      if (self(self, i + 1)) return true;
      slots_a[d.player] += x, pool_a[d.colour] += x, slots_b[d.player] += y, pool_b[d.colour] += y;
    }
    return false;
  };
  if (!attribute(attribute, 0))
    throw NotationError("inconsistent position: the cards played since the last reshuffle cannot come from the opponents' hands");

  for (int p = 0; p < players_; ++p)
    if (p != seat) s.hand_[p].fill(0), s.era_hand_[p].fill(0), s.era_drawn_[p].fill(0);
  for (int i = 0; i < n_demands; ++i) {
    s.era_hand_[demands[i].player][demands[i].colour] += from_a[i];
    s.era_drawn_[demands[i].player][demands[i].colour] += demands[i].played - from_a[i];
  }
  int next = 0;
  shuffled_cards(pool_a);
  for (int p = 0; p < players_; ++p)
    if (p != seat) {
      Counts dealt{};
      deal(next, slots_a[p], dealt);
      for (int c = 0; c < kColours; ++c) s.hand_[p][c] += dealt[c], s.era_hand_[p][c] += dealt[c];
    }
  next = 0;
  shuffled_cards(pool_b);
  for (int p = 0; p < players_; ++p)
    if (p != seat) {
      Counts dealt{};
      deal(next, slots_b[p], dealt);
      for (int c = 0; c < kColours; ++c) s.hand_[p][c] += dealt[c], s.era_drawn_[p][c] += dealt[c];
    }
  s.stock_.fill(0);
  deal(next, total(stock_), s.stock_);
  return s;
}

// Rollout policy: win at once if possible; otherwise prefer fields that extend the mover's
// lines and areas, cheap fields, and fields taken from opponents; ties broken at random.
Action State::heuristic_action(Rng& rng) const {
  Action moves[kMaxActions];
  const int n = legal_actions(moves);
  if (n == 1) return moves[0];
  const LineTable& table = line_table(line_length_);
  const Bitboard own = owned_[current_];
  Action best = moves[0];
  int best_score = -1000000;
  for (int i = 0; i < n; ++i) {
    const int field = static_cast<int>(moves[i]);
    const Bitboard bit = Bitboard{1} << field;
    int score = 0;
    for (int l = 0; l < table.through_count[field]; ++l) {
      const int mine = std::popcount(own & ~bit & table.through[field][l]);
      if (mine == line_length_ - 1) return moves[i];  // completes a line: immediate win
      score += mine * mine * 4;
    }
    score += 6 * std::popcount(orthogonal_spread(bit) & own & ~bit);
    score -= 10 * height_[field];
    if (top_[field] >= 0 && top_[field] != current_) score += 8;
    if (top_[field] == current_) score -= 30;
    score = score * 8 + static_cast<int>(rng.below(8));
    if (score > best_score) best_score = score, best = moves[i];
  }
  return best;
}

// Greedy evaluation: a won game dominates; otherwise line potential (lines free of other
// players' top stones, weighted by how full they are), the area score, and the mirror of
// both for the strongest opponent.
double State::evaluate(int seat) const {
  if (is_terminal()) {
    double r[kMaxPlayers];
    returns(r);
    return 1e6 * r[seat];
  }
  const LineTable& table = line_table(line_length_);
  auto potential = [&](int p) {
    Bitboard others = 0;
    for (int q = 0; q < players_; ++q)
      if (q != p) others |= owned_[q];
    double v = 0;
    for (int l = 0; l < table.count; ++l) {
      const Bitboard line = table.lines[l];
      if (others & line) continue;
      const int mine = std::popcount(owned_[p] & line);
      v += mine * mine * mine;
    }
    const auto [area, stones] = area_score(p);
    return v + 6.0 * area + 0.1 * stones;
  };
  double strongest_opponent = 0;
  for (int p = 0; p < players_; ++p)
    if (p != seat) strongest_opponent = std::max(strongest_opponent, potential(p));
  return potential(seat) - strongest_opponent;
}

std::string State::action_to_string(Action action) const {
  if (pending_draws_ > 0) {
    if (action >= kColours) throw NotationError("chance outcome " + std::to_string(action) + " is not a colour");
    return std::string(1, kColourLetters[action]);
  }
  if (action == kBlocked) return "blocked";
  if (action > kBlocked) throw NotationError("action " + std::to_string(action) + " does not exist in just4fun_colours");
  return field_name(static_cast<int>(action));
}

Action State::parse_action(std::string_view text) const {
  if (pending_draws_ > 0) {
    if (text.size() == 1 && colour_index(text[0]) >= 0) return static_cast<Action>(colour_index(text[0]));
    throw NotationError("'" + std::string(text) + "' is not a card colour; a draw is one of R O Y G B P");
  }
  if (text == "blocked") return kBlocked;
  if (text.size() == 2 && text[0] >= 'a' && text[0] < 'a' + kSide && text[1] >= '1' && text[1] < '1' + kSide)
    return static_cast<Action>((text[1] - '1') * kSide + (text[0] - 'a'));
  throw NotationError("'" + std::string(text) + "' is not a just4fun_colours move; expected a field a1..f6 or 'blocked'");
}

namespace {

std::string board_text(const std::array<std::uint8_t, kFields>& height, const std::array<std::int8_t, kFields>& top) {
  std::string s;
  for (int f = 0; f < kFields; ++f) {
    if (f && f % kSide == 0) s += '/';
    if (height[f] == 0)
      s += "..";
    else
      s += std::string{static_cast<char>('0' + top[f]), static_cast<char>('0' + height[f])};
  }
  return s;
}

template <class Item>
std::string join_players(int players, Item item) {
  std::string s;
  for (int p = 0; p < players; ++p) s += (p ? "," : "") + item(p);
  return s;
}

}  // namespace

std::string State::to_string() const {
  std::ostringstream out;
  out << kName << " players=" << int{players_} << " line=" << int{line_length_} << " start=" << int{start_}
      << " draws=" << int{pending_draws_} << " board=" << board_text(height_, top_)
      << " hands=" << join_players(players_, [&](int p) { return hand_text(hand_[p]); })
      << " stock=" << counts_text(stock_) << " discard=" << counts_text(discard_)
      << " supply=" << join_players(players_, [&](int p) { return std::to_string(supply_[p]); })
      << " boxed=" << join_players(players_, [&](int p) { return std::to_string(boxed_[p]); });
  if (reshuffled_)
    out << " era_stock=" << counts_text(era_stock_)
        << " era_hands=" << join_players(players_, [&](int p) { return counts_text(era_hand_[p]); })
        << " era_drawn=" << join_players(players_, [&](int p) { return counts_text(era_drawn_[p]); })
        << " era_played=" << join_players(players_, [&](int p) { return counts_text(era_played_[p]); });
  return out.str();
}

std::string State::view_string(int seat) const {
  auto hidden = [&](int p, const Counts& c, auto show) { return p == seat ? show(c) : "?" + std::to_string(total(c)); };
  std::ostringstream out;
  out << kName << " seat=" << seat << " players=" << int{players_} << " line=" << int{line_length_}
      << " start=" << int{start_} << " draws=" << int{pending_draws_} << " board=" << board_text(height_, top_)
      << " hands=" << join_players(players_, [&](int p) { return hidden(p, hand_[p], hand_text); })
      << " stock=?" << total(stock_) << " discard=" << counts_text(discard_)
      << " supply=" << join_players(players_, [&](int p) { return std::to_string(supply_[p]); })
      << " boxed=" << join_players(players_, [&](int p) { return std::to_string(boxed_[p]); });
  if (reshuffled_)
    out << " era_stock=" << counts_text(era_stock_)
        << " era_hands=" << join_players(players_, [&](int p) { return hidden(p, era_hand_[p], counts_text); })
        << " era_drawn=" << join_players(players_, [&](int p) { return hidden(p, era_drawn_[p], counts_text); })
        << " era_played=" << join_players(players_, [&](int p) { return counts_text(era_played_[p]); });
  return out.str();
}

State State::from_string(std::string_view text) {
  const auto fields = parse_fields(text, {"players", "line", "start", "draws", "board", "hands", "stock", "discard",
                                          "supply", "boxed", "era_stock", "era_hands", "era_drawn", "era_played"});
  State s;
  s.players_ = static_cast<std::uint8_t>(text::to_int(require(fields, "players"), 2, 4, "players"));
  s.line_length_ = static_cast<std::uint8_t>(text::to_int(require(fields, "line"), 4, 5, "line"));
  s.start_ = static_cast<std::uint8_t>(text::to_int(require(fields, "start"), 0, s.players_ - 1, "start"));
  s.pending_draws_ = static_cast<std::uint8_t>(text::to_int(require(fields, "draws"), 0, kHandSize, "draws"));
  const auto rows = text::split(require(fields, "board"), '/');
  if (rows.size() != kSide) throw NotationError("board: expected 6 rows separated by '/'");
  s.top_.fill(-1);
  for (int r = 0; r < kSide; ++r) {
    if (rows[r].size() != 2 * kSide)
      throw NotationError("board row " + std::to_string(r + 1) + ": expected 6 cells of 2 characters ('..' or owner+height)");
    for (int c = 0; c < kSide; ++c) {
      const char owner = rows[r][2 * c], height = rows[r][2 * c + 1];
      const int f = r * kSide + c;
      if (owner == '.' && height == '.') continue;
      if (owner < '0' || owner >= '0' + s.players_ || height < '1' || height > '0' + kMaxHeight)
        throw NotationError("board field " + field_name(f) + ": '" + std::string{owner, height} + "' is not '..' or owner(0.." +
                            std::to_string(s.players_ - 1) + ")+height(1..7)");
      s.top_[f] = static_cast<std::int8_t>(owner - '0');
      s.height_[f] = static_cast<std::uint8_t>(height - '0');
    }
  }
  s.recompute_bitboards();
  parse_per_player(require(fields, "hands"), s.players_, "hands", [&](int p, std::string_view v) { s.hand_[p] = parse_hand(v, "hands"); });
  s.stock_ = parse_counts(require(fields, "stock"), "stock");
  s.discard_ = parse_counts(require(fields, "discard"), "discard");
  parse_per_player(require(fields, "supply"), s.players_, "supply",
                   [&](int p, std::string_view v) { s.supply_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kStonesPerPlayer, "supply")); });
  parse_per_player(require(fields, "boxed"), s.players_, "boxed",
                   [&](int p, std::string_view v) { s.boxed_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kStonesPerPlayer, "boxed")); });
  if (fields.count("era_stock")) {
    s.reshuffled_ = true;
    s.era_stock_ = parse_counts(require(fields, "era_stock"), "era_stock");
    parse_per_player(require(fields, "era_hands"), s.players_, "era_hands", [&](int p, std::string_view v) { s.era_hand_[p] = parse_counts(v, "era_hands"); });
    parse_per_player(require(fields, "era_drawn"), s.players_, "era_drawn", [&](int p, std::string_view v) { s.era_drawn_[p] = parse_counts(v, "era_drawn"); });
    parse_per_player(require(fields, "era_played"), s.players_, "era_played", [&](int p, std::string_view v) { s.era_played_[p] = parse_counts(v, "era_played"); });
  } else {
    for (const char* key : {"era_hands", "era_drawn", "era_played"})
      if (fields.count(key)) throw NotationError(std::string("field '") + key + "' needs era_stock");
  }
  // Derived: who owns a winning line, whose turn it is, and whether the game is over. While
  // the mover draws, after a win and once all stones are used, current_ is the last mover.
  for (int p = 0; p < s.players_; ++p) {
    const LineTable& table = line_table(s.line_length_);
    for (int l = 0; l < table.count; ++l)
      if ((s.owned_[p] & table.lines[l]) == table.lines[l]) {
        if (s.winner_ >= 0 && s.winner_ != p) throw NotationError("board: two players own a complete line");
        s.winner_ = static_cast<std::int8_t>(p);
      }
  }
  if (s.winner_ >= 0 && s.pending_draws_ > 0) throw NotationError("draws: the game is already won, nobody draws");
  const int turns = s.turns_played();
  const bool stones_left = std::any_of(s.supply_.begin(), s.supply_.begin() + s.players_, [](int v) { return v > 0; });
  const bool last_mover = s.pending_draws_ > 0 || !stones_left || s.winner_ >= 0;
  s.current_ = static_cast<std::uint8_t>((s.start_ + turns - (last_mover ? 1 : 0) + s.players_) % s.players_);
  s.finished_ = s.winner_ < 0 && s.pending_draws_ == 0 && !stones_left;
  s.validate();
  return s;
}

void State::validate() const {
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  for (int c = 0; c < kColours; ++c) {
    int n = stock_[c] + discard_[c];
    for (int p = 0; p < players_; ++p) n += hand_[p][c];
    if (n != kCardsPerColour)
      fail(std::string("there must be 10 cards of colour ") + kColourLetters[c] + ", found " + std::to_string(n));
  }
  int turns_by_count = 0;
  for (int p = 0; p < players_; ++p) {
    if (supply_[p] + boxed_[p] > kStonesPerPlayer) fail("player " + std::to_string(p) + " has more than 20 stones");
    turns_by_count += kStonesPerPlayer - supply_[p];
    const int placed = kStonesPerPlayer - supply_[p] - boxed_[p];
    if (std::popcount(owned_[p]) > placed)
      fail("player " + std::to_string(p) + " owns " + std::to_string(std::popcount(owned_[p])) + " fields but has placed only " +
           std::to_string(placed) + " stones");
    const int held = total(hand_[p]);
    if (p == winner_) {  // the winning placement played 1..7 cards and skipped the draw
      if (held > kHandSize - 1) fail("the winner must have played cards on the winning turn, holds " + std::to_string(held));
      continue;
    }
    const int expected = p == current_ && pending_draws_ > 0 ? kHandSize - pending_draws_ : kHandSize;
    if (held != expected)
      fail("player " + std::to_string(p) + " must hold " + std::to_string(expected) + " cards, holds " + std::to_string(held));
  }
  if (winner_ >= 0 && winner_ != current_)
    fail("seat " + std::to_string(winner_) + " owns a complete line but did not make the last move");
  int stones_on_board = 0;
  for (int f = 0; f < kFields; ++f) stones_on_board += height_[f];
  int boxed = 0;
  for (int p = 0; p < players_; ++p) boxed += boxed_[p];
  if (stones_on_board + boxed != turns_by_count)
    fail("stones on the board (" + std::to_string(stones_on_board) + ") plus boxed (" + std::to_string(boxed) +
         ") must equal the stones taken from the supplies (" + std::to_string(turns_by_count) + ")");
  for (int p = 0; p < players_; ++p)
    if (supply_[p] != kStonesPerPlayer - (turns_by_count / players_) - (((p - start_ + players_) % players_) < turns_by_count % players_ ? 1 : 0))
      fail("supplies do not match the turn order from the start player (every turn uses one stone)");
  if (pending_draws_ > 0 && turns_by_count == 0) fail("draws: nobody has played yet");
  if (boxed > 0 && stones_on_board < kMinStonesForBlocked)
    fail("a stone can only be boxed on a blocked turn, which needs at least 42 stones on the board (§14)");
  if (!reshuffled_) return;
  Counts drawn{}, played{};
  for (int p = 0; p < players_; ++p)
    for (int c = 0; c < kColours; ++c) {
      if (era_hand_[p][c] + era_drawn_[p][c] != hand_[p][c] + era_played_[p][c])
        fail("player " + std::to_string(p) + ": hand at the reshuffle + drawn since must equal hand + played since");
      drawn[c] += era_drawn_[p][c];
      played[c] += era_played_[p][c];
    }
  for (int c = 0; c < kColours; ++c) {
    if (era_stock_[c] != stock_[c] + drawn[c]) fail("the stock at the reshuffle must equal the stock now plus the cards drawn since");
    if (discard_[c] != played[c]) fail("the discard pile must equal the cards played since the reshuffle");
  }
}

State State::from_view(std::string_view text) {
  const auto fields = parse_fields(text, {"seat", "players", "line", "start", "draws", "board", "hands", "stock", "discard",
                                          "supply", "boxed", "era_stock", "era_hands", "era_drawn", "era_played"});
  const int players = text::to_int(require(fields, "players"), 2, 4, "players");
  const int seat = text::to_int(require(fields, "seat"), 0, players - 1, "seat");
  // Rebuild a full-state text with the hidden parts filled by any cards of the right sizes,
  // then let determinize() replace them with a consistent sample.
  auto hidden_size = [](std::string_view v, std::string_view what) {
    if (v.empty() || v[0] != '?') throw NotationError(std::string(what) + ": another seat's cards are written ?<count>");
    return text::to_int(v.substr(1), 0, kCardsPerColour * kColours, what);
  };
  std::map<std::string, std::string> full = fields;
  full.erase("seat");
  std::array<Counts, kMaxPlayers> hands{};
  parse_per_player(require(fields, "hands"), players, "hands", [&](int p, std::string_view v) {
    if (p == seat) hands[p] = parse_hand(v, "hands");
  });
  const Counts discard = parse_counts(require(fields, "discard"), "discard");
  Counts unseen{};
  for (int c = 0; c < kColours; ++c) {
    const int n = kCardsPerColour - hands[seat][c] - discard[c];
    if (n < 0) throw NotationError(std::string("inconsistent view: more than 10 cards of colour ") + kColourLetters[c]);
    unseen[c] = static_cast<std::uint8_t>(n);
  }
  int next_colour = 0;
  auto take = [&](int count, std::string_view what) {
    Counts out{};
    for (int k = 0; k < count; ++k) {
      while (next_colour < kColours && unseen[next_colour] == 0) ++next_colour;
      if (next_colour == kColours) throw NotationError(std::string("inconsistent view: too few unseen cards for ") + std::string(what));
      --unseen[next_colour];
      ++out[next_colour];
    }
    return out;
  };
  std::string hands_text;
  parse_per_player(require(fields, "hands"), players, "hands", [&](int p, std::string_view v) {
    hands_text += (p ? "," : "") + (p == seat ? std::string(v) : hand_text(take(hidden_size(v, "hands"), "hands")));
  });
  full["hands"] = hands_text;
  full["stock"] = counts_text(take(hidden_size(require(fields, "stock"), "stock"), "stock"));
  // Other seats' private era counts: only their sizes matter to determinize(); fill them so
  // that the bookkeeping identities hold, determinize() overwrites them.
  if (fields.count("era_stock")) {
    for (const char* key : {"era_hands", "era_drawn"}) {
      std::string out;
      parse_per_player(require(fields, key), players, key, [&](int p, std::string_view v) {
        if (p == seat) {
          out += (p ? "," : "") + std::string(v);
          return;
        }
        Counts c{};
        for (int left = hidden_size(v, key), colour = 0; left > 0 && colour < kColours; ++colour) {
          c[colour] = static_cast<std::uint8_t>(std::min(left, kCardsPerColour));
          left -= c[colour];
        }
        out += (p ? "," : "") + counts_text(c);
      });
      full[key] = out;
    }
  }
  // Validation of the era identities is deferred to the sample: parse without them first.
  State placeholder;
  {
    std::string without_era = kName;
    for (const auto& [key, value] : full)
      if (key.rfind("era_", 0) != 0) without_era += " " + key + "=" + value;
    placeholder = from_string(without_era);
  }
  if (fields.count("era_stock")) {
    placeholder.reshuffled_ = true;
    placeholder.era_stock_ = parse_counts(full["era_stock"], "era_stock");
    parse_per_player(full["era_hands"], players, "era_hands", [&](int p, std::string_view v) { placeholder.era_hand_[p] = parse_counts(v, "era_hands"); });
    parse_per_player(full["era_drawn"], players, "era_drawn", [&](int p, std::string_view v) { placeholder.era_drawn_[p] = parse_counts(v, "era_drawn"); });
    parse_per_player(full["era_played"], players, "era_played", [&](int p, std::string_view v) { placeholder.era_played_[p] = parse_counts(v, "era_played"); });
  }
  Rng rng(0);
  State state = placeholder.determinize(seat, rng);
  state.validate();
  return state;
}

std::string State::render(int seat) const {
  std::ostringstream out;
  out << "    a   b   c   d   e   f\n";
  for (int r = 0; r < kSide; ++r) {
    out << ' ' << r + 1 << ' ';
    for (int c = 0; c < kSide; ++c) {
      const int f = r * kSide + c;
      out << ' ' << kColourLetters[kMap[f]];
      if (height_[f] == 0)
        out << "  ";
      else
        out << static_cast<char>('0' + top_[f]) << static_cast<char>('0' + height_[f]);
    }
    out << '\n';
  }
  out << "(field: colour, owner seat, height)\n";
  for (int p = 0; p < players_; ++p)
    out << "seat " << p << (p == current_ && !is_terminal() ? " *" : "  ") << " hand "
        << (seat < 0 || p == seat ? hand_text(hand_[p]) : std::string(total(hand_[p]), '?')) << "  supply "
        << int{supply_[p]} << "  boxed " << int{boxed_[p]} << "  area " << area_score(p).first << '\n';
  out << "stock " << total(stock_) << " cards, discard " << total(discard_) << " cards";
  if (winner_ >= 0) out << "\nseat " << int{winner_} << " wins with a line of " << int{line_length_};
  else if (finished_) out << "\ngame over: area scoring";
  return out.str();
}

}  // namespace kibitz::j4fc
