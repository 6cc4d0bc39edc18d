// Just 4 Fun Colours: setup, scoring, information sets, heuristics and notation.
// The rules of a move (§5, §6) are inline in the header because the search calls them.
#include "games/just4fun_colours.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__AVX512BW__) && defined(__AVX512VBMI__)
#include <immintrin.h>  // the rollout policy's line sums (line_sums)
#endif
#include <numeric>
#include <sstream>
#include <type_traits>

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
constexpr Bitboard orthogonal_spread(Bitboard b) {
  return (b | ((b << 1) & kNotColA) | ((b >> 1) & kNotColF) | (b << kSide) | (b >> kSide)) & kBoardMask;
}
constexpr std::array<Bitboard, kFields> kNeighbours = [] {
  std::array<Bitboard, kFields> neighbours{};
  for (int f = 0; f < kFields; ++f) neighbours[f] = orthogonal_spread(Bitboard{1} << f) & ~(Bitboard{1} << f);
  return neighbours;
}();

int colour_index(char letter) {
  const auto pos = kColourLetters.find(letter);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

std::string field_name(int field) {
  return std::string{static_cast<char>('a' + field % kSide), static_cast<char>('1' + field / kSide)};
}

std::string action_name(int action) { return action == State::kBlocked ? "blocked" : field_name(action); }

// The field named by text like "c3", or kMaxActions when it names none.
Action field_index(std::string_view text) {
  if (text.size() == 2 && text[0] >= 'a' && text[0] < 'a' + kSide && text[1] >= '1' && text[1] < '1' + kSide)
    return static_cast<Action>((text[1] - '1') * kSide + (text[0] - 'a'));
  return State::kMaxActions;
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
    if (++c[colour] > kCardsPerColour) throw NotationError(std::string(what) + ": more than 10 cards of colour " + std::string(1, ch));
  }
  return c;
}

int total(const Counts& c) { return std::accumulate(c.begin(), c.end(), 0); }

}  // namespace

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  for (const auto& option : options) {
    const std::string &key = option.first, &value = option.second;  // not a structured binding: clang 14's lambdas cannot capture one
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
  s.start_history();
  return s;
}

void State::start_history() {
  base_hand_ = hand_;
  base_stock_ = static_cast<std::uint8_t>(total(stock_));
  base_discard_ = discard_;
  era_ = n_moves_ = n_revealed_ = 0;
  for (auto& player : drawn_)
    for (auto& era : player) era.fill(0);
}

struct State::PublicHistory {
  int era = 0;  // reshuffles since the base
  int stock_size = 0;
  Counts discard{};
  std::array<Counts, kMaxEras> pool{};  // each era's stock at its start (era 0: left to the caller)
  std::array<Counts, kMaxPlayers> played{};
  std::array<std::array<int, kMaxEras>, kMaxPlayers> draws{};  // cards drawn per player and era
};

// Everything that happened since the base that every seat saw: who played which cards (a
// placement's cost follows from the height of its field then; a blocked turn shows its
// hand), how many cards each player drew, and when the stock ran out. The visitor gets
// play(player, cards, blocked, heights before the move), draw(player, era, count) and
// reshuffle(era, new stock) in order.
template <class Visitor>
State::PublicHistory State::replay_public(Visitor&& visit) const {
  PublicHistory h;
  std::array<int, kFields> height{};
  for (int f = 0; f < kFields; ++f) height[f] = height_[f];
  for (int i = 0; i < n_moves_; ++i)
    if (moves_[i] != kBlocked && --height[moves_[i]] < 0)
      throw NotationError("moves: field " + field_name(moves_[i]) + " is played more often than its height");
  h.stock_size = base_stock_;
  h.discard = base_discard_;
  const int base_turns = turns_played() - n_moves_;
  if (base_turns < 0) throw NotationError("moves: more moves than stones used");
  int revealed = 0;
  for (int i = 0; i < n_moves_; ++i) {
    const int player = (start_ + base_turns + i) % players_;
    Counts cards{};
    int draws;
    if (moves_[i] == kBlocked) {
      if (revealed == n_revealed_) throw NotationError("revealed: fewer hands than blocked moves");
      cards = revealed_[revealed++];
      draws = kHandSize;
      visit.play(player, cards, true, height);
    } else {
      const int field = moves_[i];
      draws = cards[kMap[field]] = static_cast<std::uint8_t>(height[field] + 1);
      visit.play(player, cards, false, height);
      ++height[field];
    }
    for (int c = 0; c < kColours; ++c) h.discard[c] += cards[c], h.played[player][c] += cards[c];
    if (i == n_moves_ - 1) draws = winner_ >= 0 ? 0 : draws - pending_draws_;
    if (draws < 0) throw NotationError("draws: more cards pending than the last move draws");
    while (draws > 0) {
      if (h.stock_size == 0) {
        if (++h.era >= kMaxEras) throw NotationError("moves: too many reshuffles");
        h.pool[h.era] = h.discard;
        h.stock_size = total(h.discard);
        h.discard.fill(0);
        if (h.stock_size == 0) throw NotationError("moves: a card must be drawn from an empty stock and discard pile");
        visit.reshuffle(h.era, h.pool[h.era]);
      }
      const int n = std::min(draws, h.stock_size);
      visit.draw(player, h.era, n);
      h.draws[player][h.era] += n;
      h.stock_size -= n;
      draws -= n;
    }
  }
  if (revealed != n_revealed_) throw NotationError("revealed: more hands than blocked moves");
  return h;
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

// The view is exactly what the seat may know, so its text is the information set.
std::uint64_t State::info_key(int seat) const { return text::hash(view_string(seat)); }

// Deals the cards `seat` cannot see, consistently with everything it saw since the base.
//
// Every card the seat has not seen comes from a known pool: the cards unseen at the base
// (the other hands and the stock then; era 0), or the stock formed by a reshuffle (public
// when formed). Each opponent holds "slots": its base hand, and the cards it drew in each
// era. Replaying the public history in order, every card an opponent plays (a placement, or
// a hand shown by a blocked turn) must come from one of its slots filled so far, from a
// pool that still holds that colour; when several pools could have supplied it, one is
// chosen at random and the choice is undone if a later play cannot be explained
// (depth-first search; the real history guarantees a solution). Then each pool's
// remaining cards are dealt uniformly to its remaining slots, the current era's to the
// stock too. Every sample is therefore a state some history consistent with the seat's
// observations leads to; the choice among explanations is uniform per card, not weighted
// by how many deals each explanation has (see docs/games/just4fun_colours.md).
State State::determinize(int seat, Rng& rng) const {
  constexpr int kGroups = kMaxEras + 1;  // group 0: base hand; group 1 + e: drawn in era e
  struct Event {
    std::uint8_t player, group_or_colour, count;
    bool add;  // slots filled by a draw (or the base hand), else one card played
  };
  std::array<Event, kMaxMoves * (kHandSize + 2) + kMaxPlayers> events;
  int n_events = 0;
  // A view read from text is determinized before it is validated, so the counts below are
  // checked where a view that no play reaches would make them negative or overfull.
  auto pool_count = [&](int n, int era, int c) {
    if (n < 0)
      throw NotationError("inconsistent position: seat " + std::to_string(seat) + " saw more " + kColourLetters[c] + " cards in era " +
                          std::to_string(era) + " than there are");
    return static_cast<std::uint8_t>(n);
  };
  std::array<Counts, kMaxEras> pool{};
  for (int c = 0; c < kColours; ++c) pool[0][c] = pool_count(kCardsPerColour - base_hand_[seat][c] - base_discard_[c] - drawn_[seat][0][c], 0, c);
  for (int p = 0; p < players_; ++p)
    if (p != seat) events[n_events++] = {static_cast<std::uint8_t>(p), 0, static_cast<std::uint8_t>(total(base_hand_[p])), true};
  struct Collect {
    const State& s;
    int seat;
    decltype(pool_count)& count;
    std::array<Counts, kMaxEras>& pool;
    std::array<Event, kMaxMoves * (kHandSize + 2) + kMaxPlayers>& events;
    int& n;
    void play(int player, const Counts& cards, bool, const std::array<int, kFields>&) {
      if (player == seat) return;
      for (int c = 0; c < kColours; ++c)
        for (int k = 0; k < cards[c]; ++k) events[n++] = {static_cast<std::uint8_t>(player), static_cast<std::uint8_t>(c), 1, false};
    }
    void draw(int player, int era, int count) {
      if (player != seat) events[n++] = {static_cast<std::uint8_t>(player), static_cast<std::uint8_t>(1 + era), static_cast<std::uint8_t>(count), true};
    }
    void reshuffle(int era, const Counts& stock) {
      for (int c = 0; c < kColours; ++c) pool[era][c] = count(stock[c] - s.drawn_[seat][era][c], era, c);
    }
  };
  const PublicHistory history = replay_public(Collect{*this, seat, pool_count, pool, events, n_events});

  std::array<std::array<std::uint8_t, kGroups>, kMaxPlayers> slots{};
  std::array<std::array<Counts, kGroups>, kMaxPlayers> received{};
  auto era_of = [](int group) { return group == 0 ? 0 : group - 1; };
  // Candidates are tried in a random order weighted by the pool's cards of that colour times
  // the player's slots of that group. A search that exceeds its step budget restarts with
  // fresh random choices and twice the budget. For a state reached by play the real history
  // is a solution, found in well under kMaxSteps; a hand-written position whose history no
  // deal explains is refused instead of searched for ever.
  constexpr long kMaxSteps = 1L << 22;
  long budget = 8L * n_events + 64, steps = 0;
  auto explain = [&](auto&& self, int i) -> int {  // 1 explained, 0 impossible, -1 out of budget
    const int first = i;
    for (; i < n_events && events[i].add; ++i) slots[events[i].player][events[i].group_or_colour] += events[i].count;
    int explained = i == n_events ? 1 : 0;
    if (!explained && ++steps > budget) explained = -1;
    if (!explained) {
      const Event& e = events[i];
      const int colour = e.group_or_colour;
      std::array<std::uint8_t, kGroups> candidates;
      std::array<std::uint32_t, kGroups> weight;
      int n = 0;
      std::uint32_t sum = 0;
      for (int g = 0; g < kGroups; ++g)
        if (slots[e.player][g] > 0 && pool[era_of(g)][colour] > 0) {
          candidates[n] = static_cast<std::uint8_t>(g);
          sum += weight[n++] = std::uint32_t{slots[e.player][g]} * pool[era_of(g)][colour];
        }
      for (; n > 0 && explained == 0; --n) {
        std::uint32_t r = rng.below(sum);
        int pick = 0;
        while (r >= weight[pick]) r -= weight[pick++];
        const int g = candidates[pick];
        sum -= weight[pick];
        candidates[pick] = candidates[n - 1], weight[pick] = weight[n - 1];
        --slots[e.player][g], --pool[era_of(g)][colour], ++received[e.player][g][colour];
        explained = self(self, i + 1);
        if (explained != 1) ++slots[e.player][g], ++pool[era_of(g)][colour], --received[e.player][g][colour];
      }
    }
    if (explained != 1)
      for (int k = first; k < i; ++k) slots[events[k].player][events[k].group_or_colour] -= events[k].count;
    return explained;
  };
  for (int result = explain(explain, 0); result != 1; result = explain(explain, 0)) {
    if (result == 0 || budget > kMaxSteps)
      throw NotationError("inconsistent position: no deal of the unseen cards explains the opponents' plays");
    budget *= 2, steps = 0;
  }

  State d = *this;
  std::array<std::uint8_t, kCardsPerColour * kColours> cards;
  for (int e = 0; e <= era_; ++e) {
    int n = 0;
    for (int c = 0; c < kColours; ++c)
      for (int k = 0; k < pool[e][c]; ++k) cards[n++] = static_cast<std::uint8_t>(c);
    for (int i = n - 1; i > 0; --i) std::swap(cards[i], cards[rng.below(static_cast<std::uint32_t>(i + 1))]);
    int next = 0, wanted = 0;
    for (int p = 0; p < players_; ++p)
      for (int g = 0; g < kGroups; ++g)
        if (p != seat && era_of(g) == e) wanted += slots[p][g];
    if (wanted > n)
      throw NotationError("inconsistent position: the other hands need " + std::to_string(wanted) + " cards of era " + std::to_string(e) +
                          " that seat " + std::to_string(seat) + " has not seen; only " + std::to_string(n) + " are left");
    for (int p = 0; p < players_; ++p)
      for (int g = 0; g < kGroups; ++g)
        if (p != seat && era_of(g) == e)
          for (int k = 0; k < slots[p][g]; ++k) ++received[p][g][cards[next++]];
    if (e == era_) {
      d.stock_.fill(0);
      while (next < n) ++d.stock_[cards[next++]];
    }
  }
  for (int p = 0; p < players_; ++p) {
    if (p == seat) continue;
    d.base_hand_[p] = received[p][0];
    for (int e = 0; e < kMaxEras; ++e) d.drawn_[p][e] = received[p][1 + e];
    for (int c = 0; c < kColours; ++c) {  // a hand is what its slots received minus what it played
      int held = -history.played[p][c];
      for (int g = 0; g < kGroups; ++g) held += received[p][g][c];
      d.hand_[p][c] = static_cast<std::uint8_t>(held);
    }
  }
  return d;
}

std::string State::observation_string(int seat, Action action) const {
  if (pending_draws_ > 0) return seat == current_ ? action_to_string(action) : "?";
  if (action == kBlocked) return "blocked:" + hand_text(hand_[current_]);
  return action_to_string(action);
}

// Exchanges cards among the places `seat` does not see (other seats' hands, the stock) so that
// `place`, one of them, holds at least `wanted` of each colour, paying with its cards beyond
// `wanted`; every place keeps its size. False when the unseen cards do not allow it.
bool State::gather_hidden(int seat, Counts& place, const Counts& wanted) {
  std::array<Counts*, kMaxPlayers + 1> sources;
  int n = 0;
  for (int p = 0; p < players_; ++p)
    if (p != seat && &hand_[p] != &place) sources[n++] = &hand_[p];
  if (&stock_ != &place) sources[n++] = &stock_;
  for (int c = 0; c < kColours; ++c)
    for (int i = 0; i < n && place[c] < wanted[c]; ++i)
      while ((*sources[i])[c] > 0 && place[c] < wanted[c]) {
        int pay = 0;
        while (pay < kColours && (pay == c || place[pay] <= wanted[pay])) ++pay;
        if (pay == kColours) return false;
        --(*sources[i])[c], ++place[c], --place[pay], ++(*sources[i])[pay];
      }
  return std::equal(wanted.begin(), wanted.end(), place.begin(), std::less_equal<>{});
}

State State::after_observation(int seat, std::string_view seen, Rng& rng) const {
  if (is_terminal()) throw IllegalMoveError("the game is over");
  State s = *this;
  const std::string who = "seat " + std::to_string(current_);
  if (pending_draws_ > 0 && current_ != seat) {
    if (seen != "?") throw NotationError(who + " draws unseen by seat " + std::to_string(seat) + ": observe it as '?', not '" + std::string(seen) + "'");
    s.apply(s.sample_chance(rng));
  } else if (pending_draws_ > 0) {
    const Action colour = parse_action(seen);
    Counts one{};
    one[colour] = 1;
    if (sum(stock_) > 0) s.gather_hidden(seat, s.stock_, one);
    if (s.draw_pile()[colour] == 0) throw IllegalMoveError("seat " + std::to_string(seat) + " cannot draw " + std::string(seen) + ": none is left unseen");
    s.apply(colour);
  } else {
    const bool blocked = seen.starts_with("blocked");
    const Action action = blocked ? kBlocked : parse_action(seen);
    const std::string cannot = who + " cannot play " + std::string(seen) + " in any deal seat " + std::to_string(seat) + " thinks possible";
    if (blocked && current_ == seat) {
      if (seen != "blocked" && seen != observation_string(seat, kBlocked))
        throw IllegalMoveError("seat " + std::to_string(seat) + " holds " + hand_text(hand_[seat]) + ": its blocked turn is " + observation_string(seat, kBlocked));
    } else if (blocked) {  // the move shows the hand: put it into the placeholder hand
      if (seen.size() < 8 || seen[7] != ':')
        throw NotationError("a blocked turn shows the hand: observe it as blocked:<colours>, e.g. blocked:RROGGBB");
      const Counts shown = parse_hand(seen.substr(8), "blocked hand");
      if (total(shown) != total(hand_[current_]) || !s.gather_hidden(seat, s.hand_[current_], shown)) throw IllegalMoveError(cannot);
    } else if (current_ != seat) {  // the cards the placement costs must be in the placeholder hand
      Counts cost{};
      cost[kMap[action]] = static_cast<std::uint8_t>(height_[action] + 1);
      s.gather_hidden(seat, s.hand_[current_], cost);
    }
    std::array<Action, kMaxActions> legal;
    const int n = s.legal_actions(legal.data());
    if (std::find(legal.begin(), legal.begin() + n, action) == legal.begin() + n) throw IllegalMoveError(cannot);
    s.apply(action);
  }
  try {
    return s.determinize(seat, rng);
  } catch (const NotationError&) {
    throw IllegalMoveError("'" + std::string(seen) + "' does not fit what seat " + std::to_string(seat) + " has seen: no deal of the unseen cards explains it");
  }
}

// Rollout policy. Win at once if possible (decisive move). Otherwise, when opponents could
// complete a line on their next turn with the cards they hold, take away as many of those
// threats as a move can, the next opponent's first (anti-decisive move, Teytaud & Teytaud 2010;
// the weight `block` says for how many opponents): a threat goes when the mover takes one of the
// line's fields, or covers the missing field so high that the opponent cannot pay for it. Among
// the rest a weighted sum (kPolicyWeights) prefers fields that extend the mover's lines and
// areas, break opponents' lines, are cheap, and take opponents' stones; ties broken at random.
//
// A line through the field adds, counting the stones on its other fields (m the mover's, t the
// others'): `stones` × m², the square of the mover's stones already in it; `free_line` × its
// worth as the mover's line when no one else's stone stays in it (kFreeLineWorth[m + 1], by the
// mover's stones after the move); and `broken_line` × the worth of the opponent's line the move
// breaks (kBrokenLineWorth, by that opponent's stones in it before the move, the field's own
// covered stone counted), a line being broken when none of its stones is the mover's and all
// are one opponent's. A line the mover would complete is a win, chosen before.
constexpr std::array<std::uint8_t, 6> kFreeLineWorth = {0, 1, 8, 30, 90, 90};
constexpr std::array<std::uint8_t, 6> kBrokenLineWorth = {0, 1, 6, 24, 90, 90};

// One line's terms, in units of the three weights: a line with m and t stones on the field's
// other fields, broken holding `broken` of the opponent's stones (0: not broken).
struct LineTerms {
  int stones = 0, free_line = 0, broken_line = 0;
};
constexpr LineTerms line_terms(int m, int t, int broken) {
  return {m * m, t == 0 ? kFreeLineWorth[m + 1] : 0, kBrokenLineWorth[broken]};
}

// What the sum reads of the board is worked out once a decision, not once a candidate field
// (PolicyContext): the fields that answer each threat, and for every field its lines' terms
// summed (LineSums), in whole numbers that do not depend on the weights; the weights multiply
// the three sums when a field is scored. With AVX-512 (VBMI) every field's sums come from
// table lookups in 64 byte lanes, one per field, for each direction and place of the field in a
// line (line_sums); without it each line's kind is classified and the legal fields look up the
// terms of the lines through them (kTermsOfKind). Both give the same sums, so the same moves.

// A seat's threat to complete a line on its next turn (§7.1): the fields where it would, among
// those it pays for; and the placements that take every one of them away. Such a placement
// covers a stone of the seat's that lies on all the lines it would complete (a line through it
// no longer lacks just one field), or covers the one completing field too high for its cards.
struct State::Threat {
  Bitboard fields = 0, answers = 0;
};

State::Threat State::threat_of(int seat) const {
  const Bitboard payable = playable_fields(seat);
  Threat threat;
  if (!(completing(owned_[seat]) & payable)) return threat;
  Bitboard on_every_line = ~Bitboard{0};
  auto short_line = [&](Bitboard line, Bitboard missing) {
    if (missing & payable) threat.fields |= missing, on_every_line &= line;
  };
  if (line_length_ == 5)
    for_each_short_line<5>(owned_[seat], short_line);
  else
    for_each_short_line<4>(owned_[seat], short_line);
  threat.answers = owned_[seat] & on_every_line;
  const int field = std::countr_zero(threat.fields);
  if (std::popcount(threat.fields) == 1 && hand_[seat][kMap[field]] <= height_[field] + 1) threat.answers |= threat.fields;
  return threat;
}

struct State::PolicyContext {
  struct Threat {
    double weight;
    Bitboard answers;
  };
  std::array<Threat, kMaxPlayers> threats;
  int n_threats = 0;
  Bitboard own = 0, others = 0;
  // By field: the sums of its lines' terms (line_terms), weighted when it is scored.
  alignas(64) std::array<std::uint16_t, 64> stones, free_line, broken_line;
  std::array<double, 3> line_weights;  // stones, free_line, broken_line
  // The other terms, by what they count.
  std::array<double, 3> holds_worth;  // by what the field holds: nothing, the mover's top stone, another's
  std::array<double, 5> area_worth;   // by the mover's stones next to the field
  std::array<double, kMaxHeight + 1> height_cost;
};

namespace {

// By direction (LineStarts), at the starts of the lines a stone breaks: lines holding stones of
// exactly one of the `opponent` seats and none of `own`.
template <int kLength>
std::array<Bitboard, 4> breaking_starts(Bitboard own, const std::array<Bitboard, State::kMaxPlayers>& opponent) {
  const LineStarts& starts = kLength == 5 ? kStartsOf5 : kStartsOf4;
  std::array<Bitboard, 4> breaks;
  for (int d = 0; d < 4; ++d) {
    Bitboard some = 0, two = 0;  // lines holding stones of some opponent; of two
    for (const Bitboard stones : opponent) {
      const Bitboard held = lines_holding<kLength>(stones, d);
      two |= some & held, some |= held;
    }
    breaks[d] = some & ~two & ~lines_holding<kLength>(own, d) & starts.starts[d];
  }
  return breaks;
}

// The fields' line sums into `stones`, `free_line` and `broken_line` (PolicyContext).
struct LineSums {
  std::uint16_t *stones, *free_line, *broken_line;
};

#if defined(__AVX512BW__) && defined(__AVX512VBMI__)
// Every field's sums at once, a byte lane per field. For each direction, the lane of a line's
// start counts its stones (m + 6 t); for each place k of a field in a line, that count moves k
// steps on to the field's lane, loses the field's own stone, and indexes a table of the terms
// (+ 32 when the field holds another's stone, whose broken lines held one stone more).
template <int kLength>
struct LaneTerms {
  alignas(64) std::array<std::uint8_t, 64> stones{}, free_line{}, broken_line{};
  constexpr LaneTerms() {
    for (int i = 0; i < 64; ++i) {
      const int m = i % 32 % 6, t = i % 32 / 6, covered = i / 32;
      if (m + t >= kLength || t + covered >= static_cast<int>(kBrokenLineWorth.size())) continue;
      const LineTerms terms = line_terms(m, t, t + covered);  // broken_line is looked up for broken lines only
      stones[i] = static_cast<std::uint8_t>(terms.stones);
      free_line[i] = static_cast<std::uint8_t>(terms.free_line);
      broken_line[i] = static_cast<std::uint8_t>(terms.broken_line);
    }
  }
};
template <int kLength>
inline constexpr LaneTerms<kLength> kLaneTerms{};
alignas(64) constexpr auto kLaneNumbers = [] {
  std::array<std::uint8_t, 64> lanes{};
  for (int i = 0; i < 64; ++i) lanes[i] = static_cast<std::uint8_t>(i);
  return lanes;
}();

// The sums of a scored field fit the bytes they are added in: along one direction a field lies on
// at most 3 lines of 4 (2 of 5), and a line the mover could complete is never scored (a win comes
// first), so a direction adds at most 3 × 30 (2 × 90) to free_line and 3 × 24 (2 × 90) to
// broken_line, which are then added up in 16 bits; stones, at most 9 (16) a line, are summed over
// all 11 (8) lines of a field in its byte.
template <int kLength>
void line_sums(Bitboard own, Bitboard others, const std::array<Bitboard, 4>& breaks, Bitboard, const LineSums& out) {
  const LineStarts& starts = kLength == 5 ? kStartsOf5 : kStartsOf4;
  const LaneTerms<kLength>& terms = kLaneTerms<kLength>;
  const __m512i stones_of = _mm512_load_si512(terms.stones.data()), free_line_of = _mm512_load_si512(terms.free_line.data()),
                broken_line_of = _mm512_load_si512(terms.broken_line.data());
  const __m512i one = _mm512_set1_epi8(1), six = _mm512_set1_epi8(6);
  // Added to a line's count in a field's lane: minus the field's stone, + 32 for another's.
  const __m512i own_stone = _mm512_mask_mov_epi8(_mm512_maskz_mov_epi8(own, _mm512_set1_epi8(-1)), others, _mm512_set1_epi8(32 - 6));
  const __m512i lane = _mm512_load_si512(kLaneNumbers.data());
  // The 16-bit values of a vector's first and last 32 bytes (fields 0-31, 32-63).
  const auto low = [](__m512i bytes) { return _mm512_cvtepu8_epi16(_mm512_castsi512_si256(bytes)); };
  const auto high = [](__m512i bytes) { return _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(bytes, 1)); };
  __m512i stones = _mm512_setzero_si512(), free_line[2] = {stones, stones}, broken_line[2] = {stones, stones};
  for (int d = 0; d < 4; ++d) {
    const int step = LineStarts::kStep[d];
    __m512i count = _mm512_setzero_si512();  // in the lane of a line's start: m + 6 t
    for (int k = 0; k < kLength; ++k) {
      count = _mm512_mask_add_epi8(count, own >> (k * step), count, one);
      count = _mm512_mask_add_epi8(count, others >> (k * step), count, six);
    }
    __m512i free_d = _mm512_setzero_si512(), broken_d = free_d;
    for (int k = 0; k < kLength; ++k) {  // the fields k steps on from a line's start
      const __m512i index = _mm512_add_epi8(_mm512_permutexvar_epi8(_mm512_sub_epi8(lane, _mm512_set1_epi8(static_cast<char>(k * step))), count), own_stone);
      const __mmask64 on_line = starts.starts[d] << (k * step), on_broken = breaks[d] << (k * step);
      stones = _mm512_add_epi8(stones, _mm512_maskz_permutexvar_epi8(on_line, index, stones_of));
      free_d = _mm512_add_epi8(free_d, _mm512_maskz_permutexvar_epi8(on_line, index, free_line_of));
      broken_d = _mm512_add_epi8(broken_d, _mm512_maskz_permutexvar_epi8(on_broken, index, broken_line_of));
    }
    free_line[0] = _mm512_add_epi16(free_line[0], low(free_d)), free_line[1] = _mm512_add_epi16(free_line[1], high(free_d));
    broken_line[0] = _mm512_add_epi16(broken_line[0], low(broken_d)), broken_line[1] = _mm512_add_epi16(broken_line[1], high(broken_d));
  }
  _mm512_store_si512(out.stones, low(stones));
  _mm512_store_si512(out.stones + 32, high(stones));
  for (int half = 0; half < 2; ++half) {
    _mm512_store_si512(out.free_line + 32 * half, free_line[half]);
    _mm512_store_si512(out.broken_line + 32 * half, broken_line[half]);
  }
}
#else
// The terms of a line by its kind (m and t, all its stones counted, and whether a stone there
// breaks it) and what the scored field holds (nothing, the mover's top stone, another's), packed
// in 16-bit parts (stones, free_line, broken_line) that add up without carrying over; kind
// kNothing (padding) adds nothing.
constexpr int kKinds = 2 * (kMaxLineLength + 1) * (kMaxLineLength + 1);
constexpr int kind(int m, int t, bool breaks) { return (breaks * (kMaxLineLength + 1) + m) * (kMaxLineLength + 1) + t; }
constexpr std::uint8_t kNothing = kKinds - 1;
constexpr auto kTermsOfKind = [] {
  std::array<std::array<std::uint64_t, kKinds>, 3> packed{};
  for (int holds = 0; holds < 3; ++holds)
    for (int m = 0; m <= kMaxLineLength; ++m)
      for (int t = 0; m + t <= kMaxLineLength; ++t)
        for (const bool breaks : {false, true}) {
          const int others_m = m - (holds == 1), others_t = t - (holds == 2);  // the line's other fields
          if (others_m < 0 || others_t < 0 || others_m + others_t >= kMaxLineLength) continue;
          const LineTerms terms = line_terms(others_m, others_t, breaks ? t : 0);
          packed[holds][kind(m, t, breaks)] = std::uint64_t(terms.stones) | std::uint64_t(terms.free_line) << 16 | std::uint64_t(terms.broken_line) << 32;
        }
  return packed;
}();

// The legal fields' sums: each line's kind once, then per field a lookup per line through it
// (every field as many, padded with kNoLine), with no branch on the board.
template <int kLength>
void line_sums(Bitboard own, Bitboard others, const std::array<Bitboard, 4>& breaks, Bitboard fields, const LineSums& out) {
  const LineTable& table = line_table(kLength);
  std::array<std::uint8_t, LineTable::kMaxLines> line_kind;
  for (int l = 0; l < table.count; ++l) {
    const Bitboard line = table.lines[l];
    line_kind[l] = static_cast<std::uint8_t>(kind(std::popcount(own & line), std::popcount(others & line), breaks[table.direction[l]] >> table.start[l] & 1));
  }
  line_kind[LineTable::kNoLine] = kNothing;
  for (; fields; fields &= fields - 1) {
    const int field = std::countr_zero(fields);
    const auto& terms = kTermsOfKind[(own >> field & 1) | (others >> field & 1) << 1];
    std::uint64_t sum = 0;
    for (int l = 0; l < table.max_through; ++l) sum += terms[line_kind[table.through_index[field][l]]];
    out.stones[field] = static_cast<std::uint16_t>(sum), out.free_line[field] = static_cast<std::uint16_t>(sum >> 16);
    out.broken_line[field] = static_cast<std::uint16_t>(sum >> 32);
  }
}
#endif

}  // namespace

State::PolicyContext State::policy_context(const double* w, Bitboard fields) const {
  PolicyContext context;
  for (int k = 1; k < players_ && k <= w[kBlock]; ++k)
    if (const Threat threat = threat_of((current_ + k) % players_); threat.fields)
      context.threats[context.n_threats++] = {1e6 * (1 << (players_ - k)), threat.answers};

  const Bitboard own = context.own = owned_[current_];
  std::array<Bitboard, kMaxPlayers> opponent = owned_;  // the others' stones, seat by seat
  opponent[current_] = 0;
  const Bitboard others = context.others = opponent[0] | opponent[1] | opponent[2] | opponent[3];
  const LineSums sums{context.stones.data(), context.free_line.data(), context.broken_line.data()};
  if (line_length_ == 5)
    line_sums<5>(own, others, breaking_starts<5>(own, opponent), fields, sums);
  else
    line_sums<4>(own, others, breaking_starts<4>(own, opponent), fields, sums);
  context.line_weights = {w[kStones], w[kFreeLine], w[kBrokenLine]};
  context.holds_worth = {0, -w[kCoverOwn], w[kTake]};
  for (int k = 0; k <= 4; ++k) context.area_worth[k] = w[kArea] * k;
  for (int h = 0; h <= kMaxHeight; ++h) context.height_cost[h] = w[kHeight] * h;
  return context;
}

inline double State::policy_score(const PolicyContext& context, int field) const {
  const int holds = static_cast<int>((context.own >> field & 1) | (context.others >> field & 1) << 1);
  double score = 0;
  for (int t = 0; t < context.n_threats; ++t) score -= context.threats[t].answers >> field & 1 ? 0 : context.threats[t].weight;
  const auto& w = context.line_weights;
  score += w[0] * context.stones[field] + w[1] * context.free_line[field] + w[2] * context.broken_line[field];
  score += context.area_worth[std::popcount(kNeighbours[field] & context.own)];
  score -= context.height_cost[height_[field]];
  score += context.holds_worth[holds];
  return score;
}

Action State::heuristic_action(Rng& rng, const double* w) const {
  const Bitboard legal = legal_fields();
  if (std::popcount(legal) <= 1) return legal ? static_cast<Action>(std::countr_zero(legal)) : kBlocked;
  if (const Bitboard wins = completing(owned_[current_]) & legal) return static_cast<Action>(std::countr_zero(wins));
  const PolicyContext context = policy_context(w, legal);
  int best = 0;
  double best_score = -1e300;
  for (Bitboard b = legal; b; b &= b - 1) {
    const int field = std::countr_zero(b);
    const double score = policy_score(context, field) + rng.below(8) / 8.0;  // ties broken at random
    const bool better = score > best_score;
    best_score = better ? score : best_score;
    best = better ? field : best;
  }
  return static_cast<Action>(best);
}

// The rollout policy as a model of the mover's play (decision_log_likelihood), judged against
// the best move the hand allowed: a move the policy scores `regret` below the best field the hand
// pays for has likelihood exp(-regret / temperature), at least epsilon; a hand that could have
// completed a line and did not has epsilon. A likelihood rather than a probability: it is not
// divided by how many fields the hand pays for, since the policy does not model the choice
// among ordinary moves well enough for that count to tell anything (docs/games/just4fun_colours.md §10).
double State::policy_likelihood(Action action, double temperature, double epsilon, const double* w) const {
  const Bitboard legal = legal_fields();
  if (std::popcount(legal) <= 1) return 1.0;  // a forced move (or blocked): every hand explains it alike
  if (const Bitboard wins = completing(owned_[current_]) & legal) return wins >> action & 1 ? 1.0 : epsilon;
  const PolicyContext context = policy_context(w, legal);
  double best = -1e300;
  for (Bitboard b = legal; b; b &= b - 1) best = std::max(best, policy_score(context, std::countr_zero(b)));
  return std::max(epsilon, std::exp((policy_score(context, static_cast<int>(action)) - best) / temperature));
}

// Steps back from this state one move at a time, rebuilding the board and every hand before
// each move, and adds the model's log-likelihood of each of the last `turns` decisions of every
// seat but the observer (the mover's own hand is judged; the others it could not see). A move's draws are taken back first: `drawn_` says how many
// cards of each colour a seat drew in each era but not in which turn, so the cards a turn drew
// are drawn again, uniformly among the hand's cards of colours the era's draws not yet taken
// back still hold. Then the cards it played go back into the hand, and its stone off the
// board: the field's earlier top owner is the player of the last earlier move on it, or none
// when the field was empty.
double State::decision_log_likelihood(int observer, int turns, double temperature, double epsilon, const double* w, Rng& rng) const {
  struct Move {
    std::uint8_t player = 0, pieces = 0;  // pieces: the runs of its draws, one per era they came from
    Counts played{};
    std::array<std::uint8_t, 2> era{}, count{};  // a draw spans at most one reshuffle
  };
  std::array<Move, kMaxMoves> moves;
  struct Collect {
    std::array<Move, kMaxMoves>& moves;
    int n = 0;
    void play(int player, const Counts& cards, bool, const std::array<int, kFields>&) {
      moves[n].player = static_cast<std::uint8_t>(player), moves[n++].played = cards;
    }
    void draw(int, int era, int count) {
      Move& m = moves[n - 1];
      m.era[m.pieces] = static_cast<std::uint8_t>(era), m.count[m.pieces++] = static_cast<std::uint8_t>(count);
    }
    void reshuffle(int, const Counts&) {}
  };
  replay_public(Collect{moves});

  State past = *this;
  past.winner_ = -1, past.finished_ = false;  // every earlier position was still being played
  std::array<std::array<Counts, kMaxEras>, kMaxPlayers> undrawn = drawn_;  // draws not taken back yet
  std::array<int, kMaxPlayers> seen{};
  int wanted = (players_ - 1) * turns;
  double log_likelihood = 0;
  for (int i = n_moves_ - 1; i >= 0 && wanted > 0; --i) {
    const Move& m = moves[i];
    Counts& hand = past.hand_[m.player];
    for (int k = 0; k < m.pieces; ++k) {
      Counts& left = undrawn[m.player][m.era[k]];
      for (int j = 0; j < m.count[k]; ++j) {
        Counts candidates;
        for (int c = 0; c < kColours; ++c) candidates[c] = std::min(hand[c], left[c]);
        const int n = sum(candidates);
        if (n == 0) return log_likelihood;  // no card left that the era's draws explain
        int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(n))), colour = 0;
        while (r >= candidates[colour]) r -= candidates[colour++];
        --hand[colour], --left[colour];
      }
    }
    for (int c = 0; c < kColours; ++c) hand[c] += m.played[c];
    if (moves_[i] != kBlocked) {
      const int field = moves_[i];
      int previous = -1;
      for (int j = i - 1; j >= 0 && previous < 0; --j)
        if (moves_[j] == field) previous = moves[j].player;
      if (--past.height_[field] > 0 && previous < 0) return log_likelihood;  // covered a stone from before the base
      past.top_[field] = static_cast<std::int8_t>(previous);
    }
    past.current_ = m.player;
    past.recompute_bitboards();
    if (m.player != observer && seen[m.player] < turns) {
      ++seen[m.player], --wanted;
      // The mover did not see the other hands: it is modelled as fearing every completing field
      // that costs at most kFearedCost cards, whatever the other seat held.
      State judged = past;
      for (int p = 0; p < players_; ++p)
        if (p != m.player) judged.hand_[p].fill(kFearedCost);
      log_likelihood += std::log(judged.policy_likelihood(moves_[i], temperature, epsilon, w));
    }
  }
  return log_likelihood;
}

// Greedy evaluation: a won game dominates; otherwise line potential (lines free of other
// players' top stones, weighted by how full they are), the area score, and the mirror of
// both for the strongest opponent; weighted by kEvalWeights.
double State::evaluate(int seat, const double* w) const {
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
    return w[kEvalLines] * v + w[kEvalArea] * area + w[kEvalStones] * stones;
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
  if (action > kBlocked) throw NotationError("action " + std::to_string(action) + " does not exist in just4fun_colours");
  return action_name(static_cast<int>(action));
}

Action State::parse_action(std::string_view text) const {
  if (pending_draws_ > 0) {
    if (text.size() == 1 && colour_index(text[0]) >= 0) return static_cast<Action>(colour_index(text[0]));
    throw NotationError("'" + std::string(text) + "' is not a card colour; a draw is one of R O Y G B P");
  }
  if (text == "blocked") return kBlocked;
  if (const Action field = field_index(text); field < kBlocked) return field;
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
std::string join(int n, const char* separator, Item item) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? separator : "") + item(i);
  return s;
}

// "?n" stands for n cards the reader may not see.
int hidden_count(std::string_view v, std::string_view what) {
  if (v.empty() || v[0] != '?') throw NotationError(std::string(what) + ": expected ?<count> for another seat's cards, got '" + std::string(v) + "'");
  return text::to_int(v.substr(1), 0, kCardsPerColour * kColours, what);
}

// Any cards, `n` of them, at most 10 per colour: a placeholder that determinize() replaces.
Counts filler(int n) {
  Counts c{};
  for (int colour = 0; colour < kColours && n > 0; ++colour) n -= c[colour] = static_cast<std::uint8_t>(std::min(n, kCardsPerColour));
  return c;
}

constexpr std::initializer_list<const char*> kKeys = {"seat", "players", "line", "start", "draws", "board", "hands", "stock", "discard", "supply", "boxed",
                                                      "base_hands", "base_stock", "base_discard", "moves", "revealed", "drawn"};
constexpr std::initializer_list<const char*> kHistoryKeys = {"base_hands", "base_stock", "base_discard", "moves", "revealed", "drawn"};

}  // namespace

std::string State::to_string() const { return write(-1); }
std::string State::view_string(int seat) const { return write(seat); }

std::string State::write(int seat) const {
  const bool full = seat < 0;
  auto cards = [&](int p, const Counts& c) { return full || p == seat ? hand_text(c) : "?" + std::to_string(total(c)); };
  auto player_list = [&](auto item) { return join(players_, ",", item); };
  std::ostringstream out;
  out << kName;
  if (!full) out << " seat=" << seat;
  out << " players=" << int{players_} << " line=" << int{line_length_} << " start=" << int{start_} << " draws=" << int{pending_draws_}
      << " board=" << board_text(height_, top_) << " hands=" << player_list([&](int p) { return cards(p, hand_[p]); })
      << " stock=" << (full ? counts_text(stock_) : "?" + std::to_string(total(stock_))) << " discard=" << counts_text(discard_)
      << " supply=" << player_list([&](int p) { return std::to_string(supply_[p]); })
      << " boxed=" << player_list([&](int p) { return std::to_string(boxed_[p]); });
  if (n_moves_ == 0) return out.str();
  out << " base_hands=" << player_list([&](int p) { return cards(p, base_hand_[p]); }) << " base_stock=" << int{base_stock_}
      << " base_discard=" << counts_text(base_discard_)
      << " moves=" << join(n_moves_, ".", [&](int i) { return action_name(moves_[i]); })
      << " revealed=" << (n_revealed_ ? join(n_revealed_, ",", [&](int i) { return hand_text(revealed_[i]); }) : "-")
      << " drawn=" << join(players_, "/", [&](int p) {
           return full || p == seat ? join(era_ + 1, ";", [&](int e) { return counts_text(drawn_[p][e]); }) : std::string("?");
         });
  return out.str();
}

// Reads a full state (view false) or a seat view (view true: other seats' cards are
// "?count" and get placeholders of that size; from_view() replaces them by a sample).
State State::parse(std::string_view text, bool view, int& seat) {
  const auto fields = text::fields(text, State::kName, kKeys);
  if (view != (fields.count("seat") > 0)) throw NotationError(view ? "missing field 'seat' of a seat view" : "unknown field 'seat' in a full state");
  State s;
  s.players_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "players"), 2, 4, "players"));
  seat = view ? text::to_int(text::require(fields, "seat"), 0, s.players_ - 1, "seat") : -1;
  auto visible = [&](int p) { return !view || p == seat; };
  s.line_length_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "line"), 4, 5, "line"));
  s.start_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "start"), 0, s.players_ - 1, "start"));
  s.pending_draws_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "draws"), 0, kHandSize, "draws"));
  const auto rows = text::split(text::require(fields, "board"), '/');
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
  auto read_hands = [&](const char* key, std::array<Counts, kMaxPlayers>& into) {
    text::parse_per_player(text::require(fields, key), s.players_, key,
                           [&](int p, std::string_view v) { into[p] = visible(p) ? parse_hand(v, key) : filler(hidden_count(v, key)); });
  };
  read_hands("hands", s.hand_);
  s.stock_ = view ? filler(hidden_count(text::require(fields, "stock"), "stock")) : parse_counts(text::require(fields, "stock"), "stock");
  s.discard_ = parse_counts(text::require(fields, "discard"), "discard");
  text::parse_per_player(text::require(fields, "supply"), s.players_, "supply",
                   [&](int p, std::string_view v) { s.supply_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kStonesPerPlayer, "supply")); });
  text::parse_per_player(text::require(fields, "boxed"), s.players_, "boxed",
                   [&](int p, std::string_view v) { s.boxed_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kStonesPerPlayer, "boxed")); });

  const int history_keys = static_cast<int>(std::count_if(kHistoryKeys.begin(), kHistoryKeys.end(), [&](const char* k) { return fields.count(k) > 0; }));
  if (history_keys == 0) {
    s.start_history();
  } else {
    for (const char* key : kHistoryKeys) text::require(fields, key);
    read_hands("base_hands", s.base_hand_);
    s.base_stock_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "base_stock"), 0, kCardsPerColour * kColours, "base_stock"));
    s.base_discard_ = parse_counts(text::require(fields, "base_discard"), "base_discard");
    const auto moves = text::split(text::require(fields, "moves"), '.');
    if (moves.size() > static_cast<std::size_t>(kMaxMoves)) throw NotationError("moves: more than 80 moves");
    for (std::string_view m : moves) {
      const Action a = m == "blocked" ? kBlocked : field_index(m);
      if (a > kBlocked) throw NotationError("moves: '" + std::string(m) + "' is not a field a1..f6 or 'blocked'");
      s.moves_[s.n_moves_++] = static_cast<std::uint8_t>(a);
    }
    if (text::require(fields, "revealed") != "-")
      for (std::string_view h : text::split(text::require(fields, "revealed"), ',')) {
        if (s.n_revealed_ == kMaxRevealed) throw NotationError("revealed: too many hands");
        s.revealed_[s.n_revealed_++] = parse_hand(h, "revealed");
      }
    const auto drawn = text::split(text::require(fields, "drawn"), '/');
    if (static_cast<int>(drawn.size()) != s.players_) throw NotationError("drawn: expected one entry per player, separated by '/'");
    int eras = -1;
    for (int p = 0; p < s.players_; ++p) {
      if (!visible(p)) {
        if (drawn[p] != "?") throw NotationError("drawn: another seat's draws are written '?'");
        continue;
      }
      const auto per_era = text::split(drawn[p], ';');
      if (eras >= 0 && static_cast<int>(per_era.size()) != eras) throw NotationError("drawn: every player lists the same number of eras");
      eras = static_cast<int>(per_era.size());
      if (eras > kMaxEras) throw NotationError("drawn: too many eras");
      for (int e = 0; e < eras; ++e) s.drawn_[p][e] = parse_counts(per_era[e], "drawn");
    }
    s.era_ = static_cast<std::uint8_t>(eras - 1);
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
  return s;
}

State State::from_string(std::string_view text) {
  int seat;
  State s = parse(text, false, seat);
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

  // The history since the base must lead to this position.
  struct CheckRevealed {
    void play(int player, const Counts& cards, bool blocked, const std::array<int, kFields>& height) {
      if (!blocked) return;
      if (total(cards) != kHandSize)
        throw NotationError("inconsistent position: a blocked turn shows a hand of 7 cards, seat " + std::to_string(player) + " showed " + std::to_string(total(cards)));
      for (int f = 0; f < kFields; ++f)
        if (cards[kMap[f]] > height[f])
          throw NotationError("inconsistent position: seat " + std::to_string(player) + " was blocked but could place on " + field_name(f));
    }
    void draw(int, int, int) {}
    void reshuffle(int, const Counts&) {}
  };
  PublicHistory h = replay_public(CheckRevealed{});
  if (h.era != era_) fail("drawn: " + std::to_string(era_ + 1) + " eras listed, the moves give " + std::to_string(h.era + 1));
  if (h.stock_size != total(stock_) || h.discard != discard_) fail("the moves since the base do not lead to this stock and discard pile");
  for (int c = 0; c < kColours; ++c) {
    int unseen_at_base = kCardsPerColour - base_discard_[c];
    for (int p = 0; p < players_; ++p) unseen_at_base -= base_hand_[p][c];
    if (unseen_at_base < 0) fail(std::string("base: more than 10 cards of colour ") + kColourLetters[c]);
    h.pool[0][c] = static_cast<std::uint8_t>(unseen_at_base);
  }
  if (total(h.pool[0]) != base_stock_) fail("base_stock: the base hands and discard leave " + std::to_string(total(h.pool[0])) + " cards for the stock");
  for (int p = 0; p < players_; ++p) {
    for (int c = 0; c < kColours; ++c) {
      int held = base_hand_[p][c] - h.played[p][c];
      for (int e = 0; e <= era_; ++e) held += drawn_[p][e][c];
      if (held != hand_[p][c]) fail("seat " + std::to_string(p) + ": base hand + drawn - played must equal the hand");
    }
    for (int e = 0; e < kMaxEras; ++e)
      if (total(drawn_[p][e]) != (e <= era_ ? h.draws[p][e] : 0))
        fail("drawn: seat " + std::to_string(p) + " drew " + std::to_string(h.draws[p][e]) + " cards in era " + std::to_string(e) + " by the moves");
  }
  for (int e = 0; e <= era_; ++e)
    for (int c = 0; c < kColours; ++c) {
      int left = h.pool[e][c];
      for (int p = 0; p < players_; ++p) left -= drawn_[p][e][c];
      if (left < 0 || left != (e == era_ ? stock_[c] : 0))
        fail("drawn: the cards drawn in era " + std::to_string(e) + " do not match that era's stock");
    }
  validate_draw_order();
}

// The counts can add up while the order cannot: a card played before the draw that brought
// it. Each player's draws within an era may have come in any order, so for each player it
// suffices that some order explains every play: by each play, the colours it needs beyond
// what the player held when the era (or its hand after a blocked turn) began fit into the
// cards drawn so far in it. A blocked turn fixes the hand exactly, and empties it.
void State::validate_draw_order() const {
  struct Segment {
    Counts carry{}, available{}, played{};
    int drawn = 0;
  };
  struct Check {
    const State& s;
    std::array<Segment, kMaxPlayers> seg{};
    std::array<int, kMaxPlayers> era{};
    [[noreturn]] static void fail(int player, const std::string& why) {
      throw NotationError("impossible history: seat " + std::to_string(player) + " " + why);
    }
    void enter_era(int player, int e) {
      Segment& g = seg[player];
      for (int c = 0; c < kColours; ++c) g.carry[c] = static_cast<std::uint8_t>(g.carry[c] + g.available[c] - g.played[c]);
      g.available = s.drawn_[player][e];
      g.played.fill(0);
      g.drawn = 0;
      era[player] = e;
    }
    void play(int player, const Counts& cards, bool blocked, const std::array<int, kFields>&) {
      Segment& g = seg[player];
      int needed = 0;
      for (int c = 0; c < kColours; ++c) {
        g.played[c] += cards[c];
        const int need = std::max(0, g.played[c] - g.carry[c]);
        if (need > g.available[c]) fail(player, "plays more " + std::string(1, kColourLetters[c]) + " than it held and drew in the era");
        needed += need;
      }
      if (needed > g.drawn) fail(player, "plays cards it had not drawn yet");
      if (!blocked) return;
      for (int c = 0; c < kColours; ++c) {  // the first g.drawn cards of the segment were exactly these
        const int first = g.played[c] - g.carry[c];
        if (first < 0) fail(player, "held more cards than it showed on a blocked turn");
        g.available[c] = static_cast<std::uint8_t>(g.available[c] - first);
      }
      g.carry.fill(0), g.played.fill(0), g.drawn = 0;
    }
    void draw(int player, int e, int count) {
      if (e != era[player]) enter_era(player, e);
      seg[player].drawn += count;
    }
    void reshuffle(int, const Counts&) {}
  };
  Check check{*this};
  for (int p = 0; p < players_; ++p) {
    check.seg[p].carry = base_hand_[p];
    check.seg[p].available = drawn_[p][0];
  }
  replay_public(check);
}

State State::from_view(std::string_view text) {
  int seat;
  const State placeholder = parse(text, true, seat);
  Rng rng(0);
  State s = placeholder.determinize(seat, rng);
  s.validate();
  return s;
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
