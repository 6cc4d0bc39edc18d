// Yucata': layouts, options, setup, scoring, heuristics and notation. The move rules (§5–§8)
// are inline in the header because the search calls them.
#include "games/yucata.h"

#include <climits>
#include <sstream>
#include <stdexcept>

#include "core/text.h"

namespace kibitz::yucata {
namespace {

int card_index(char letter) {
  const auto i = kCardLetters.find(letter);
  return i == std::string_view::npos ? -1 : static_cast<int>(i);
}

std::string hand_text(Hand hand) {
  std::string s;
  for (int c = 0; c < kCards; ++c)
    if (hand >> c & 1) s += kCardLetters[c];
  return s;
}

Hand parse_hand(std::string_view s, int seat) {
  const std::string where = "hands: seat " + std::to_string(seat);
  if (s.empty()) throw NotationError(where + ": a hand is never empty (the 7 cards return after the 7th is played)");
  Hand hand = 0;
  for (char ch : s) {
    const int c = card_index(ch);
    if (c < 0) throw NotationError(where + ": '" + std::string(1, ch) + "' is not a card (one of 1 2 3 4 5 S Q)");
    if (hand >> c & 1) throw NotationError(where + ": card " + std::string(1, ch) + " twice; a hand holds each card at most once");
    hand = static_cast<Hand>(hand | 1u << c);
  }
  return hand;
}

std::string card_text(Card card) { return card == kNoCard ? "-" : std::string(1, kCardLetters[card]); }

Card parse_card(std::string_view s, std::string_view what, std::string_view allowed) {
  if (s == "-") return kNoCard;
  if (s.size() == 1 && allowed.find(s[0]) != std::string_view::npos) return static_cast<Card>(card_index(s[0]));
  std::string options;
  for (char c : allowed) options += std::string(1, c) + " ";
  throw NotationError(std::string(what) + ": expected '-' or one of " + options + "got '" + std::string(s) + "'");
}

template <class Item>
std::string per_player(int players, Item item) {
  std::string s;
  for (int p = 0; p < players; ++p) s += (p ? "," : "") + item(p);
  return s;
}

// §2.2: 9 dark spaces chosen uniformly among 5..37 (38 must be pale): the same distribution
// as a uniform permutation of 25 P and 9 D conditioned on space 38 being P.
SpaceMask random_layout(Rng& rng) {
  std::array<std::uint8_t, kLayoutLength - 1> spaces;
  for (int i = 0; i < kLayoutLength - 1; ++i) spaces[i] = static_cast<std::uint8_t>(kFirstStone + i);
  SpaceMask dark = 0;
  for (int i = 0; i < kDarkStones; ++i) {  // partial Fisher–Yates
    const int j = i + static_cast<int>(rng.below(static_cast<std::uint32_t>(spaces.size() - i)));
    std::swap(spaces[i], spaces[j]);
    dark |= SpaceMask{1} << spaces[i];
  }
  return dark;
}

int dark_up_to(SpaceMask dark, int space) { return std::popcount(dark & spaces_below(space + 1)); }
int stones_up_to(int space) { return std::popcount(kStoneSpaces & spaces_below(space + 1)); }

constexpr std::initializer_list<const char*> kKeys = {"seat", "players", "layout", "start", "turn", "to_move", "pos", "hands",
                                                      "pale", "dark", "red", "prev", "eff", "moved", "q", "tiebreak"};

}  // namespace

SpaceMask parse_layout(std::string_view layout) {
  if (layout.size() != kLayoutLength)
    throw std::invalid_argument("a layout has 34 letters P/D for spaces 5..38, got " + std::to_string(layout.size()));
  int pale = 0;
  for (int i = 0; i < kLayoutLength; ++i) {
    if (layout[i] == 'P')
      ++pale;
    else if (layout[i] != 'D')
      throw std::invalid_argument("layout letter " + std::to_string(i + 1) + " (space " + std::to_string(kFirstStone + i) + ") is '" +
                                  std::string(1, layout[i]) + "'; only P (pale) and D (dark) are allowed");
  }
  if (pale != kPaleStones)
    throw std::invalid_argument("a layout has exactly 25 P and 9 D, got " + std::to_string(pale) + " P and " +
                                std::to_string(kLayoutLength - pale) + " D");
  if (layout.back() != 'P') throw std::invalid_argument("space 38 (the last letter) must be P: a pale stone lies between red and every dark stone");
  return dark_spaces_of(layout);
}

std::string layout_text(SpaceMask dark) {
  std::string s;
  for (int space = kFirstStone; space < kEnd; ++space) s += (dark >> space & 1) ? 'D' : 'P';
  return s;
}

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  for (const auto& option : options) {
    const std::string &key = option.first, &value = option.second;  // not a structured binding: clang 14's lambdas cannot capture one
    auto bad = [&](const std::string& allowed) {
      return OptionError("option " + key + "='" + value + "' is not allowed; expected " + allowed);
    };
    if (key == "players") {
      try {
        o.players = text::to_int(value, 2, 4, key);
      } catch (const NotationError&) {
        throw bad("2, 3 or 4 players (A12)");
      }
    } else if (key == "layout") {
      if (value == "reconstructed") {
        o.dark = kReconstructedDark;
      } else if (value == "random") {
        o.random_layout = true;
      } else {
        try {
          o.dark = parse_layout(value);
        } catch (const std::invalid_argument& e) {
          throw bad(std::string("'reconstructed', 'random' or 34 letters P/D for spaces 5..38 (") + e.what() + ")");
        }
      }
    } else if (key == "start") {
      if (value == "random") {
        o.start = -1;
      } else {
        try {
          o.start = text::to_int(value, 0, 3, key);
        } catch (const NotationError&) {
          throw bad("a seat 0..players-1 or 'random'");
        }
      }
    } else if (key == "q") {
      if (value != "effective" && value != "distance") throw bad("'effective' (default) or 'distance'");
      o.q = value == "distance" ? QReading::kDistance : QReading::kEffective;
    } else if (key == "tiebreak") {
      if (value != "shared" && value != "dark") throw bad("'shared' (default) or 'dark'");
      o.tiebreak = value == "dark" ? Tiebreak::kDark : Tiebreak::kShared;
    } else {
      throw OptionError("unknown option '" + key + "' for yucata; options: players, layout, start, q, tiebreak");
    }
  }
  if (o.start >= o.players)
    throw OptionError("option start=" + std::to_string(o.start) + ": seat " + std::to_string(o.start) + " does not exist with " +
                      std::to_string(o.players) + " players (seats 0.." + std::to_string(o.players - 1) + ")");
  return o;
}

State State::initial(const Options& options, std::uint64_t seed) {
  Rng rng(seed);
  State s;
  s.players_ = static_cast<std::uint8_t>(options.players);
  s.dark_spaces_ = options.random_layout ? random_layout(rng) : options.dark;
  s.start_ = static_cast<std::uint8_t>(options.start >= 0 ? options.start : static_cast<int>(rng.below(s.players_)));
  s.to_move_ = s.start_;
  s.q_ = options.q;
  s.tiebreak_ = options.tiebreak;
  for (int p = 0; p < s.players_; ++p) s.hand_[p] = kFullHand;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Scoring (§9)
// ---------------------------------------------------------------------------------------------

int State::score(int seat) const { return pale_[seat] - kDarkPenalty[adjusted_dark(seat)]; }

void State::scores(double* out) const {
  for (int p = 0; p < players_; ++p) out[p] = score(p);
}

namespace {
// Larger is better: the score, then (tiebreak=dark) fewer dark stones D'.
int result_key(int score, int adjusted_dark, Tiebreak tiebreak) {
  return score * 16 - (tiebreak == Tiebreak::kDark ? adjusted_dark : 0);
}
}  // namespace

void State::returns(double* out) const {
  for (int p = 0; p < players_; ++p) out[p] = 0.0;
  if (!is_terminal()) return;
  std::array<int, kMaxPlayers> key{};
  int best = INT_MIN;
  for (int p = 0; p < players_; ++p) best = std::max(best, key[p] = result_key(score(p), adjusted_dark(p), tiebreak_));
  const int winners = static_cast<int>(std::count(key.begin(), key.begin() + players_, best));
  for (int p = 0; p < players_; ++p)
    if (key[p] == best) out[p] = 1.0 / winners;  // A11: joint winners share the win
}

void State::ranks(double* out) const {
  std::array<int, kMaxPlayers> key{};
  for (int p = 0; p < players_; ++p) key[p] = result_key(score(p), adjusted_dark(p), tiebreak_);
  for (int p = 0; p < players_; ++p) {
    int better = 0;
    for (int q = 0; q < players_; ++q) better += key[q] > key[p];
    out[p] = 1 + better;
  }
}

std::uint64_t State::hash() const {
  auto bytes = [](const std::array<std::uint8_t, kMaxPlayers>& a) {
    return std::uint64_t{a[0]} | std::uint64_t{a[1]} << 8 | std::uint64_t{a[2]} << 16 | std::uint64_t{a[3]} << 24;
  };
  const std::uint64_t turn_info = std::uint64_t{players_} | std::uint64_t{start_} << 8 | std::uint64_t{to_move_} << 16 |
                                  std::uint64_t{lead_} << 24 | std::uint64_t{turn_} << 32 | std::uint64_t{prev_card_} << 40 |
                                  std::uint64_t{prev_eff_} << 48 | std::uint64_t{moved_} << 56;
  const std::uint64_t flags = static_cast<std::uint64_t>(red_ + 1) | static_cast<std::uint64_t>(q_) << 8 | static_cast<std::uint64_t>(tiebreak_) << 16;
  std::uint64_t h = hash_mix(dark_spaces_, bytes(pos_) | bytes(hand_) << 32);
  h = hash_mix(h, bytes(pale_) | bytes(dark_) << 32);
  h = hash_mix(h, turn_info);
  return hash_mix(h, flags);
}

// ---------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------

// Rollout policy: the card with the best immediate gain (pale stones taken minus the extra
// triangular cost of the dark ones); a move that ends the game is worth a lot if it wins on
// the spot and is avoided if it loses. Ties are broken at random.
Action State::heuristic_action(Rng& rng, const double* w) const {
  std::uint32_t legal = legal_mask();
  if (!(legal & (legal - 1))) return static_cast<Action>(std::countr_zero(legal));
  const int p = to_move_;
  int best_other = INT_MIN;  // opponents' scores if the game ended now (nobody else holds red)
  std::uint64_t noise = rng.next();
  Action best = 0;
  double best_value = -1e300;
  for (; legal; legal &= legal - 1, noise >>= 4) {
    const Card card = static_cast<Card>(std::countr_zero(legal));
    const int to = target(card);
    double value = 0;
    if (to > lead_) {
      const SpaceMask taken = spaces_below(to + 1) & ~spaces_below(lead_ + 1);
      const int dark = std::popcount(taken & dark_spaces_);
      const int pale = std::popcount(taken & kStoneSpaces) - dark;
      const int held = dark_[p] + dark;
      if (to == kEnd) {
        if (best_other == INT_MIN)
          for (int q = 0; q < players_; ++q)
            if (q != p) best_other = std::max(best_other, score(q));
        const int final_score = pale_[p] + pale - kDarkPenalty[held - (held > 0)];  // red cancels a dark stone
        value = final_score > best_other ? 1000 : final_score < best_other ? -1000 : 0;
      } else {
        value = w[kPale] * pale - w[kDark] * (kDarkPenalty[held] - kDarkPenalty[dark_[p]]);
      }
    }
    value = value * 16 + static_cast<double>(noise & 15);  // ties (within 1/16) broken at random
    if (value > best_value) best_value = value, best = card;
  }
  return best;
}

// Greedy evaluation: a finished game by its result; otherwise the score lead over the best
// opponent, with a small bonus for still holding the leader card (it can always reach the
// next stone); weighted by kEvalWeights.
double State::evaluate(int seat, const double* w) const {
  int best_other = INT_MIN;
  for (int q = 0; q < players_; ++q)
    if (q != seat) best_other = std::max(best_other, score(q));
  const double margin = score(seat) - best_other;
  if (is_terminal()) {
    double r[kMaxPlayers];
    returns(r);
    return 1000.0 * r[seat] + margin;
  }
  return margin + ((hand_[seat] >> kLeader & 1) ? w[kEvalLeader] : 0.0);
}

// ---------------------------------------------------------------------------------------------
// Notation
// ---------------------------------------------------------------------------------------------

std::string State::action_to_string(Action action) const {
  if (action >= static_cast<Action>(kCards)) throw NotationError("action " + std::to_string(action) + " is not a yucata card (ids 0..6)");
  return std::string(1, kCardLetters[action]);
}

Action State::parse_action(std::string_view text) const {
  if (text.size() == 1 && card_index(text[0]) >= 0) return static_cast<Action>(card_index(text[0]));
  std::string legal;
  if (!is_terminal())
    for (std::uint32_t m = legal_mask(); m; m &= m - 1) legal += (legal.empty() ? "" : " ") + std::string(1, kCardLetters[std::countr_zero(m)]);
  throw NotationError("'" + std::string(text) + "' is not a yucata card; cards are 1 2 3 4 5 S Q; legal now: " +
                      (legal.empty() ? "none (the game is over)" : legal));
}

std::string State::to_string() const { return write(-1); }
std::string State::view_string(int seat) const { return write(seat); }

std::string State::write(int seat) const {
  std::ostringstream out;
  out << kName;
  if (seat >= 0) out << " seat=" << seat;
  out << " players=" << int{players_} << " layout=" << layout_text(dark_spaces_) << " start=" << int{start_}
      << " turn=" << int{turn_} << " to_move=" << int{to_move_}
      << " pos=" << per_player(players_, [&](int p) { return std::to_string(pos_[p]); })
      << " hands=" << per_player(players_, [&](int p) { return hand_text(hand_[p]); })
      << " pale=" << per_player(players_, [&](int p) { return std::to_string(pale_[p]); })
      << " dark=" << per_player(players_, [&](int p) { return std::to_string(dark_[p]); })
      << " red=" << (red_ >= 0 ? std::to_string(red_) : "-") << " prev=" << card_text(prev_card_) << " eff=" << card_text(prev_eff_)
      << " moved=" << int{moved_} << " q=" << (q_ == QReading::kDistance ? "distance" : "effective")
      << " tiebreak=" << (tiebreak_ == Tiebreak::kDark ? "dark" : "shared");
  return out.str();
}

// Reads a full state (view false) or a seat view (view true: the same fields plus `seat`).
State State::parse(std::string_view text, bool view, int& seat) {
  const auto fields = text::fields(text, State::kName, kKeys);
  if (view != (fields.count("seat") > 0))
    throw NotationError(view ? "missing field 'seat' of a seat view" : "unknown field 'seat' in a full state");
  State s;
  s.players_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "players"), 2, 4, "players"));
  const int n = s.players_;
  seat = view ? text::to_int(text::require(fields, "seat"), 0, n - 1, "seat") : -1;
  const std::string& layout = text::require(fields, "layout");
  try {
    s.dark_spaces_ = parse_layout(layout);
  } catch (const std::invalid_argument& e) {
    throw NotationError(std::string("layout: ") + e.what());
  }
  s.start_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "start"), 0, n - 1, "start"));
  s.turn_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "turn"), 0, 38 * n + 1, "turn"));
  s.to_move_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "to_move"), 0, n - 1, "to_move"));
  text::parse_per_player(text::require(fields, "pos"), n, "pos",
                   [&](int p, std::string_view v) { s.pos_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kEnd, "pos")); });
  text::parse_per_player(text::require(fields, "hands"), n, "hands", [&](int p, std::string_view v) { s.hand_[p] = parse_hand(v, p); });
  text::parse_per_player(text::require(fields, "pale"), n, "pale",
                   [&](int p, std::string_view v) { s.pale_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kPaleStones, "pale")); });
  text::parse_per_player(text::require(fields, "dark"), n, "dark",
                   [&](int p, std::string_view v) { s.dark_[p] = static_cast<std::uint8_t>(text::to_int(v, 0, kDarkStones, "dark")); });
  const std::string& red = text::require(fields, "red");
  s.red_ = static_cast<std::int8_t>(red == "-" ? -1 : text::to_int(red, 0, n - 1, "red"));
  s.prev_card_ = parse_card(text::require(fields, "prev"), "prev", kCardLetters);
  s.prev_eff_ = parse_card(text::require(fields, "eff"), "eff", kCardLetters.substr(0, kCopy));
  s.moved_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "moved"), 0, kEnd, "moved"));
  const std::string& q = text::require(fields, "q");
  if (q != "effective" && q != "distance") throw NotationError("q: expected 'effective' or 'distance', got '" + q + "'");
  s.q_ = q == "distance" ? QReading::kDistance : QReading::kEffective;
  const std::string& tiebreak = text::require(fields, "tiebreak");
  if (tiebreak != "shared" && tiebreak != "dark") throw NotationError("tiebreak: expected 'shared' or 'dark', got '" + tiebreak + "'");
  s.tiebreak_ = tiebreak == "dark" ? Tiebreak::kDark : Tiebreak::kShared;
  s.lead_ = *std::max_element(s.pos_.begin(), s.pos_.begin() + n);
  return s;
}

void State::validate() const {
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  const int n = players_;
  auto seat_name = [](int p) { return "seat " + std::to_string(p); };
  const bool over = is_terminal();
  if (over && turn_ == 0) fail("red: nobody can hold the red stone before the first turn");
  const int expected_mover = (start_ + turn_ - (over ? 1 : 0)) % n;
  if (to_move_ != expected_mover)
    fail("to_move: after " + std::to_string(turn_) + " turns from start seat " + std::to_string(start_) + ", " +
         (over ? "the last mover is seat " : "seat ") + std::to_string(expected_mover) + (over ? "" : " is to move"));
  // §8: the red stone is taken exactly when an amulet reaches 39, which ends the game.
  if (over != (lead_ == kEnd)) fail(over ? "red: its holder must stand on space 39" : "pos: an amulet on 39 has taken the red stone (red=-)");
  if (over && pos_[red_] != kEnd) fail("red: " + seat_name(red_) + " holds the red stone but is not on space 39");
  if (over && red_ != to_move_) fail("red: the holder of the red stone made the last move, which was seat " + std::to_string(to_move_));

  // How far the lead can be after `turn_` turns (§6): a number card lands at most 5 beyond the
  // lead, S one beyond it, and Q as its copy does; with q=distance a Q repeats the distance of
  // the turn before, which an S can make as long as the lead was plus one.
  int lead_bound = 0, move_bound = 0;
  for (int t = 0; t < turn_ && lead_bound < kEnd; ++t) {
    const int longest = q_ == QReading::kDistance ? std::max(5, move_bound) : 5;
    move_bound = std::max({5, lead_bound + 1, move_bound});
    lead_bound = std::min(kEnd, lead_bound + longest);
  }
  if (lead_ > lead_bound)
    fail("pos: after " + std::to_string(turn_) + " turn(s) no amulet can be beyond space " + std::to_string(lead_bound) + ", but one is on " + std::to_string(lead_));

  // Per seat, the cards it has played: c full rounds of all 7, then the cards missing from its
  // hand. A number card k moves exactly k spaces (fewer only on the move that stops on 39), S
  // and Q at least one (§6); a number k takes at most k stones, S at most one, Q at most what
  // its copy takes (§7).
  const int last = turn_ > 0 ? (start_ + turn_ - 1) % n : -1;
  if (last >= 0 && moved_ > pos_[last]) fail("moved: seat " + std::to_string(last) + " moved " + std::to_string(moved_) + " spaces but is on " + std::to_string(pos_[last]));
  for (int p = 0; p < n; ++p) {
    const int turns = turn_ / n + (((p - start_ + n) % n) < turn_ % n ? 1 : 0);
    const int held = std::popcount(static_cast<unsigned>(hand_[p]));
    if (held != kCards - turns % kCards)
      fail("hands: " + seat_name(p) + " has played " + std::to_string(turns) + " cards, so holds " + std::to_string(kCards - turns % kCards) +
           ", not " + std::to_string(held));
    if (p == start_ && turns == 1 && !(hand_[p] >> kCopy & 1)) fail("hands: the first card of the game cannot be Q (A4), so seat " + std::to_string(p) + " still holds it");
    const int rounds = turns / kCards;
    const Hand played = turns % kCards ? static_cast<Hand>(kFullHand & ~hand_[p]) : 0;
    int numbers = 15 * rounds, jumps = 2 * rounds, copies = rounds;  // 1+2+3+4+5; S and Q; Q
    for (int c = 0; c < kLeader; ++c)
      if (played >> c & 1) numbers += c + 1;
    jumps += std::popcount(static_cast<unsigned>(played >> kLeader));
    copies += played >> kCopy & 1;
    const int least = numbers + jumps;
    // The last mover's last move may have stopped short on 39: count the spaces before it.
    const int least_card = p == last ? (prev_card_ < kLeader ? prev_card_ + 1 : 1) : 0;
    const int from = p == last ? pos_[p] - moved_ : pos_[p];
    if (from < least - least_card)
      fail("pos: " + seat_name(p) + " has played cards that move it at least " + std::to_string(least) + " spaces (number cards their value, S and Q one or more), so cannot be on " +
           std::to_string(pos_[p]));
    if (jumps == 0 && pos_[p] != numbers && !(p == red_ && pos_[p] == kEnd && pos_[p] < numbers))
      fail("pos: " + seat_name(p) +
           (turns == 0 ? " has not played yet, so it is on the start space 0"
                       : " has played only number cards, which move it exactly " + std::to_string(numbers) + " spaces") +
           ", not " + std::to_string(pos_[p]));
    const int copy_stones = q_ == QReading::kDistance ? kLayoutLength : 5;
    const int most_stones = numbers + (jumps - copies) + copy_stones * copies;
    if (pale_[p] + dark_[p] > most_stones)
      fail("pale, dark: " + seat_name(p) + "'s cards take at most " + std::to_string(most_stones) + " stones, but it holds " + std::to_string(pale_[p] + dark_[p]));
  }

  // The previous play.
  if ((turn_ == 0) != (prev_card_ == kNoCard) || (turn_ == 0) != (prev_eff_ == kNoCard) || (turn_ == 0) != (moved_ == 0))
    fail("prev, eff, moved: '-', '-' and 0 exactly before the first turn");
  if (turn_ > 0) {
    if (turn_ == 1 && prev_card_ == kCopy) fail("prev: Q cannot be the first card of the game (A4)");
    if (prev_card_ != kCopy && prev_eff_ != prev_card_) fail("eff: the effective card of a " + card_text(prev_card_) + " is the card itself");
    if (hand_[last] != kFullHand && (hand_[last] >> prev_card_ & 1))
      fail("hands: seat " + std::to_string(last) + " just played " + card_text(prev_card_) + ", so it is no longer in that hand");
    const bool as_effective = prev_card_ != kCopy || q_ == QReading::kEffective;
    if (as_effective && prev_eff_ < kLeader) {
      const int k = prev_eff_ + 1;
      if (pos_[last] == kEnd ? moved_ > k : moved_ != k)
        fail("moved: a " + std::to_string(k) + " moves " + std::to_string(k) + " spaces (fewer only when it stops on 39), not " + std::to_string(moved_));
    }
    if (as_effective && prev_eff_ == kLeader) {
      bool leader_behind = moved_ == 1;  // the mover led itself, or the leader is one space behind it
      for (int p = 0; p < n; ++p) {
        if (p != last && pos_[p] >= pos_[last])
          fail("pos: seat " + std::to_string(last) + " just moved in front of the leader (S), so seat " + std::to_string(p) + " cannot be on " +
               std::to_string(pos_[p]) + " or beyond");
        leader_behind |= p != last && pos_[p] == pos_[last] - 1;
      }
      if (!leader_behind)
        fail("pos: seat " + std::to_string(last) + " moved " + std::to_string(moved_) + " spaces with S to one in front of the leader, so an amulet stands on " +
             std::to_string(pos_[last] - 1));
    }
    // A Q copied the card of the turn before (or, if that was a Q too, its chain): the seat
    // that played it no longer holds both, unless it refilled; and unless the Q was the last
    // card in hand, the card before cannot have been a Q (§5), so it was `eff` itself.
    if (prev_card_ == kCopy && turn_ >= 2) {
      const int before = (last + n - 1) % n;
      const Hand h = hand_[before];
      const bool eff_gone = !(h >> prev_eff_ & 1), q_gone = !(h >> kCopy & 1), refilled = h == kFullHand;
      const bool q_forced = hand_[last] == kFullHand;  // the Q was seat `last`'s 7th card
      if (!refilled && !(q_forced ? eff_gone || q_gone : eff_gone))
        fail("eff: the Q of seat " + std::to_string(last) + " copied " + (q_forced ? "a " + card_text(prev_eff_) + " or a Q" : "the " + card_text(prev_eff_)) +
             " of seat " + std::to_string(before) + ", which still holds it");
    }
  }

  // §7: every stone up to the lead has been taken, and a seat holds only stones from spaces
  // up to its own: for each space x, the seats on x or behind hold at most the stones of 5..x.
  int pale_total = 0, dark_total = 0;
  for (int p = 0; p < n; ++p) pale_total += pale_[p], dark_total += dark_[p];
  const int dark_taken = dark_up_to(dark_spaces_, std::min<int>(lead_, kEnd - 1));
  const int pale_taken = stones_up_to(std::min<int>(lead_, kEnd - 1)) - dark_taken;
  if (pale_total != pale_taken || dark_total != dark_taken)
    fail("stones: the lead is on " + std::to_string(lead_) + ", so " + std::to_string(pale_taken) + " pale and " + std::to_string(dark_taken) +
         " dark stones are taken; the seats hold " + std::to_string(pale_total) + " and " + std::to_string(dark_total));
  for (int p = 0; p < n; ++p) {
    const int x = std::min<int>(pos_[p], kEnd - 1);
    int pale_behind = 0, dark_behind = 0;
    for (int q = 0; q < n; ++q)
      if (pos_[q] <= pos_[p]) pale_behind += pale_[q], dark_behind += dark_[q];
    const int dark_there = dark_up_to(dark_spaces_, x), pale_there = stones_up_to(x) - dark_there;
    if (pale_behind > pale_there || dark_behind > dark_there)
      fail("stones: the seats on space " + std::to_string(pos_[p]) + " or behind hold " + std::to_string(pale_behind) + " pale and " +
           std::to_string(dark_behind) + " dark stones, but spaces up to there held only " + std::to_string(pale_there) + " and " +
           std::to_string(dark_there));
  }
}

State State::from_string(std::string_view text) {
  int seat;
  State s = parse(text, false, seat);
  s.validate();
  return s;
}

State State::from_view(std::string_view text) {
  int seat;
  State s = parse(text, true, seat);
  s.validate();
  return s;
}

std::string State::render(int) const {
  std::ostringstream out;
  out << "          0         1         2         3\n";
  out << "          0123456789012345678901234567890123456789\n";
  out << "stones    ";
  for (int space = 0; space <= kEnd; ++space) {
    if (space <= lead_ || space < kFirstStone)
      out << '.';
    else
      out << (space == kEnd ? 'R' : (dark_spaces_ >> space & 1) ? 'D' : 'P');
  }
  out << "\n";
  for (int p = 0; p < players_; ++p) {
    out << "seat " << p << (p == to_move_ && !is_terminal() ? " * " : "   ") << ' ' << std::string(pos_[p], ' ') << p
        << std::string(kEnd - pos_[p], ' ') << "  on " << int{pos_[p]} << ", hand " << hand_text(hand_[p]) << ", pale " << int{pale_[p]}
        << ", dark " << int{dark_[p]} << (red_ == p ? ", red" : "") << ", score " << score(p) << '\n';
  }
  out << "(stones: P pale, D dark, R red, '.' taken or none; * to move)\n";
  if (prev_card_ == kNoCard)
    out << "first turn: any card but Q";
  else
    out << "last card " << card_text(prev_card_) << (prev_card_ == kCopy ? " (as " + card_text(prev_eff_) + ")" : "") << ", moved "
        << int{moved_} << "; turn " << int{turn_};
  if (is_terminal()) out << "\ngame over: seat " << int{red_} << " took the red stone";
  return out.str();
}

}  // namespace kibitz::yucata
