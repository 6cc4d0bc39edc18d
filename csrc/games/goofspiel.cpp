// Goofspiel: options, setup, results, the heuristics and notation.
#include "games/goofspiel.h"

#include <cstdlib>
#include <sstream>

#include "core/text.h"

namespace kibitz::goofspiel {
namespace {

std::string cards_text(Cards c) {
  std::string s;
  for (int v = 1; v <= kMaxCards; ++v)
    if (c >> (v - 1) & 1) s += static_cast<char>('0' + v);
  return s.empty() ? "-" : s;
}

Cards parse_cards(std::string_view s, int n, std::string_view what) {
  if (s == "-") return 0;
  Cards c = 0;
  for (char ch : s) {
    const int v = ch - '0';
    if (v < 1 || v > n) throw NotationError(std::string(what) + ": '" + std::string(1, ch) + "' is not a card 1.." + std::to_string(n));
    if (c >> (v - 1) & 1) throw NotationError(std::string(what) + ": card " + std::string(1, ch) + " twice");
    c = static_cast<Cards>(c | 1u << (v - 1));
  }
  return c;
}

int value_of(Cards c) {
  int sum = 0;
  for (; c; c &= c - 1) sum += std::countr_zero(c) + 1;
  return sum;
}

// Whether `a` and `b` points are the sums of two disjoint sets of the prizes in `won`.
bool splits(Cards won, int a, int b) {
  if (won == 0) return a == 0 && b == 0;
  const int v = std::countr_zero(won) + 1;
  const Cards rest = static_cast<Cards>(won & (won - 1));
  return splits(rest, a, b) || (a >= v && splits(rest, a - v, b)) || (b >= v && splits(rest, a, b - v));
}

}  // namespace

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  for (const auto& [key, value] : options) {
    if (key == "players") {
      if (value != "2") throw OptionError("option players='" + value + "' is not allowed; goofspiel here has exactly 2 players");
    } else if (key == "cards") {
      try {
        o.cards = text::to_int(value, 1, kMaxCards, key);
      } catch (const NotationError&) {
        throw OptionError("option cards='" + value + "' is not allowed; expected 1.." + std::to_string(kMaxCards) + " cards per hand");
      }
    } else {
      throw OptionError("unknown option '" + key + "' for goofspiel; known: players, cards");
    }
  }
  return o;
}

State State::initial(const Options& options, std::uint64_t) {
  State s;
  s.cards_ = static_cast<std::uint8_t>(options.cards);
  s.hand_ = {all_cards(options.cards), all_cards(options.cards)};
  s.deck_ = all_cards(options.cards);
  return s;
}

void State::returns(double* out) const {
  out[0] = out[1] = 0;
  if (!is_terminal()) return;
  if (points_[0] == points_[1]) out[0] = out[1] = 0.5;
  else out[points_[0] > points_[1] ? 0 : 1] = 1;
}

void State::scores(double* out) const { out[0] = points_[0], out[1] = points_[1]; }

void State::ranks(double* out) const {
  out[0] = points_[0] < points_[1] ? 2 : 1;
  out[1] = points_[1] < points_[0] ? 2 : 1;
}

std::uint64_t State::info_key(int seat) const { return text::hash(view_string(seat)); }

// Bids the card nearest the prize, the higher one when two are as near; with probability 1/4 a
// uniformly random card, so that rollouts do not all play the same line.
Action State::heuristic_choice(int seat, Rng& rng) const {
  const Cards hand = hand_[seat];
  if (rng.below(4) == 0) {
    Cards h = hand;
    for (auto k = rng.below(static_cast<std::uint32_t>(std::popcount(hand))); k > 0; --k) h &= h - 1;
    return static_cast<Action>(std::countr_zero(h));
  }
  int best = -1;
  for (Cards h = hand; h; h &= h - 1) {
    const int v = std::countr_zero(h) + 1;
    if (best < 0 || std::abs(v - prize_) <= std::abs(best - prize_)) best = v;
  }
  return static_cast<Action>(best - 1);
}

// The result once the game is over; before, 1/2 moved by the point lead as a share of all points.
double State::evaluate(int seat) const {
  if (is_terminal()) {
    std::array<double, 2> r;
    returns(r.data());
    return r[seat];
  }
  return 0.5 + 0.5 * (points_[seat] - points_[1 - seat]) / value_of(all_cards(cards_));
}

std::string State::action_to_string(Action action) const {
  if (action >= cards_) throw NotationError("action " + std::to_string(action) + " is no card of 1.." + std::to_string(cards_) + " (id = value - 1)");
  return (current_player() == kChancePlayer ? "prize " : "bid ") + std::to_string(action + 1);
}

Action State::parse_action(std::string_view text) const {
  const std::string_view word = current_player() == kChancePlayer ? "prize " : "bid ";
  if (text.substr(0, word.size()) != word)
    throw NotationError("'" + std::string(text) + "': expected '" + std::string(word) + "<card 1.." + std::to_string(cards_) + ">' here");
  return static_cast<Action>(text::to_int(text.substr(word.size()), 1, cards_, word.substr(0, word.size() - 1)) - 1);
}

std::string State::to_string() const { return write(-1); }
std::string State::view_string(int seat) const { return write(seat); }

std::string State::write(int seat) const {
  std::ostringstream out;
  out << kName;
  if (seat >= 0) out << " seat=" << seat;
  out << " players=2 cards=" << int{cards_} << " hands=" << cards_text(hand_[0]) << "," << cards_text(hand_[1]) << " deck=" << cards_text(deck_)
      << " prize=" << (prize_ == kNoPrize ? "-" : std::to_string(prize_)) << " points=" << int{points_[0]} << "," << int{points_[1]};
  return out.str();
}

State State::parse(std::string_view text, int* seat) {
  const auto fields = seat ? text::fields(text, kName, {"seat", "players", "cards", "hands", "deck", "prize", "points"})
                           : text::fields(text, kName, {"players", "cards", "hands", "deck", "prize", "points"});
  State s;
  text::to_int(text::require(fields, "players"), 2, 2, "players");
  if (seat) *seat = text::to_int(text::require(fields, "seat"), 0, 1, "seat");
  const int n = text::to_int(text::require(fields, "cards"), 1, kMaxCards, "cards");
  s.cards_ = static_cast<std::uint8_t>(n);
  text::parse_per_player(text::require(fields, "hands"), 2, "hands", [&](int p, std::string_view v) { s.hand_[p] = parse_cards(v, n, "hands"); });
  s.deck_ = parse_cards(text::require(fields, "deck"), n, "deck");
  const std::string& prize = text::require(fields, "prize");
  s.prize_ = prize == "-" ? kNoPrize : static_cast<std::uint8_t>(text::to_int(prize, 1, n, "prize"));
  text::parse_per_player(text::require(fields, "points"), 2, "points",
                         [&](int p, std::string_view v) { s.points_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, n * (n + 1) / 2, "points")); });
  s.validate();
  return s;
}

void State::validate() const {
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  const int held = std::popcount(hand_[0]);
  if (std::popcount(hand_[1]) != held) fail("hands: both seats bid every round, so they hold as many cards");
  const int deck = std::popcount(deck_);
  if (prize_ != kNoPrize && (deck_ >> (prize_ - 1) & 1)) fail("prize: the prize turned up is no longer in the deck");
  if (deck + (prize_ != kNoPrize) != held)
    fail("deck: with " + std::to_string(held) + " cards in each hand, " + std::to_string(held) + " prizes are left (the deck and the prize turned up)");
  const Cards won = static_cast<Cards>(all_cards(cards_) & ~deck_ & ~(prize_ == kNoPrize ? 0u : 1u << (prize_ - 1)));
  if (!splits(won, points_[0], points_[1]))
    fail("points: " + std::to_string(points_[0]) + " and " + std::to_string(points_[1]) + " are not the prizes of two disjoint sets of those bid for (" + cards_text(won) + ")");
}

State State::from_string(std::string_view text) { return parse(text, nullptr); }
State State::from_view(std::string_view text) {
  int seat;
  return parse(text, &seat);  // the view is the whole state
}

std::string State::render(int) const {
  std::ostringstream out;
  out << "goofspiel with cards 1.." << int{cards_} << "\n";
  for (int p = 0; p < 2; ++p) out << "seat " << p << ": hand " << cards_text(hand_[p]) << ", " << int{points_[p]} << " points\n";
  out << "prizes not yet turned up: " << cards_text(deck_) << "; ";
  if (is_terminal())
    out << "game over";
  else
    out << (prize_ == kNoPrize ? std::string("the next prize is drawn") : "bidding for prize " + std::to_string(prize_));
  return out.str();
}

}  // namespace kibitz::goofspiel
