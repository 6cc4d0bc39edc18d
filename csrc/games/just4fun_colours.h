// Just 4 Fun Colours (Grunau, Kosmos 2010) as played on Yucata.de: 2–4 players, hidden hands.
// Spec: shared/rules/just4fun_colours.md. Section numbers (§) below refer to it.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#ifdef __BMI2__
#include <immintrin.h>
#endif
#include <map>
#include <string>
#include <string_view>

#include "core/game.h"

namespace kibitz::j4fc {

inline constexpr int kSide = 6;
inline constexpr int kFields = kSide * kSide;
inline constexpr int kColours = 6;
inline constexpr int kCardsPerColour = 10;
inline constexpr int kHandSize = 7;
inline constexpr int kStonesPerPlayer = 20;
inline constexpr int kMaxHeight = 7;  // §10: a tower of 7 can never be covered again
inline constexpr int kMaxLineLength = 5;  // §8: the variant's lines of 5
inline constexpr int kMinStonesForBlocked = 42;  // §14: blocking needs 6 fields x 7 cards' worth

// §2.2 [R]: the board layout is a reconstruction. Colour indices R=0 O=1 Y=2 G=3 B=4 P=5,
// row-major from a1 (top left) to f6. Replace this table, and nothing else, if the real
// Yucata layout turns up.
inline constexpr std::array<std::uint8_t, kFields> kMap = {
    2, 1, 5, 0, 3, 4,  //
    0, 3, 2, 4, 1, 5,  //
    1, 4, 0, 5, 2, 3,  //
    5, 2, 3, 1, 4, 0,  //
    3, 0, 4, 2, 5, 1,  //
    4, 5, 1, 3, 0, 2};
inline constexpr std::string_view kColourLetters = "ROYGBP";  // §1: placeholder names [R]

using Counts = std::array<std::uint8_t, kColours>;
using Bitboard = std::uint64_t;  // bit i = field i

inline constexpr std::array<Bitboard, kColours> kColourFields = [] {
  std::array<Bitboard, kColours> fields{};
  for (int f = 0; f < kFields; ++f) fields[kMap[f]] |= Bitboard{1} << f;
  return fields;
}();

// All straight lines of `length` fields (horizontal, vertical, both diagonals), and for each
// field the lines through it: the immediate-win check (§7.1) tests only those. The rollout policy
// reads them by index, every field the same number of them (max_through): a field on fewer has
// the rest filled with kNoLine, an index no line has.
struct LineTable {
  static constexpr int kMaxLines = 64;
  static constexpr int kMaxLinesPerField = 20;
  static constexpr std::uint8_t kNoLine = kMaxLines - 1;
  int count = 0, max_through = 0;
  std::array<Bitboard, kMaxLines> lines{};
  std::array<std::array<Bitboard, kMaxLinesPerField>, kFields> through{};
  std::array<std::array<std::uint8_t, kMaxLinesPerField>, kFields> through_index{};
  std::array<std::uint8_t, kFields> through_count{};
  std::array<std::uint8_t, kMaxLines> direction{}, start{};  // of each line: LineStarts's d, and its first field
};
constexpr LineTable make_line_table(int length) {
  LineTable table;
  for (auto& lines : table.through_index) lines.fill(LineTable::kNoLine);
  constexpr int kDirections[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};  // (drow, dcol)
  for (const auto& d : kDirections)
    for (int row = 0; row < kSide; ++row)
      for (int col = 0; col < kSide; ++col) {
        const int end_row = row + d[0] * (length - 1);
        const int end_col = col + d[1] * (length - 1);
        if (end_row < 0 || end_row >= kSide || end_col < 0 || end_col >= kSide) continue;
        Bitboard line = 0;
        for (int k = 0; k < length; ++k) line |= Bitboard{1} << ((row + d[0] * k) * kSide + col + d[1] * k);
        for (int field = 0; field < kFields; ++field)
          if (line >> field & 1) {
            table.through_index[field][table.through_count[field]] = static_cast<std::uint8_t>(table.count);
            table.through[field][table.through_count[field]++] = line;
          }
        table.direction[table.count] = static_cast<std::uint8_t>(&d - kDirections);
        table.start[table.count] = static_cast<std::uint8_t>(row * kSide + col);
        table.lines[table.count++] = line;
      }
  for (int field = 0; field < kFields; ++field) table.max_through = std::max<int>(table.max_through, table.through_count[field]);
  return table;
}
inline constexpr LineTable kLinesOf4 = make_line_table(4);
inline constexpr LineTable kLinesOf5 = make_line_table(5);
constexpr const LineTable& line_table(int length) { return length == 5 ? kLinesOf5 : kLinesOf4; }

// The same lines by direction, for bit-parallel tests: a line of `length` in direction d is the
// fields s, s + step, ..., s + (length - 1) * step for a start s in starts[d].
struct LineStarts {
  static constexpr std::array<int, 4> kStep = {1, kSide, kSide + 1, kSide - 1};
  std::array<Bitboard, 4> starts{};
};
constexpr LineStarts make_line_starts(int length) {
  LineStarts table;
  constexpr int kDirections[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};  // (drow, dcol), as kStep
  for (int d = 0; d < 4; ++d)
    for (int row = 0; row < kSide; ++row)
      for (int col = 0; col < kSide; ++col) {
        const int end_row = row + kDirections[d][0] * (length - 1);
        const int end_col = col + kDirections[d][1] * (length - 1);
        if (end_row >= 0 && end_row < kSide && end_col >= 0 && end_col < kSide) table.starts[d] |= Bitboard{1} << (row * kSide + col);
      }
  return table;
}
inline constexpr LineStarts kStartsOf4 = make_line_starts(4);
inline constexpr LineStarts kStartsOf5 = make_line_starts(5);
// LineTable lists the lines by direction, each direction's by its start field.
constexpr bool lines_in_start_order(const LineTable& lines, const LineStarts& starts, int length) {
  int l = 0;
  for (int d = 0; d < 4; ++d)
    for (Bitboard s = starts.starts[d]; s; s &= s - 1, ++l) {
      Bitboard line = 0;
      for (int k = 0; k < length; ++k) line |= Bitboard{1} << (std::countr_zero(s) + k * LineStarts::kStep[d]);
      if (lines.lines[l] != line) return false;
    }
  return l == lines.count;
}
static_assert(lines_in_start_order(kLinesOf4, kStartsOf4, 4) && lines_in_start_order(kLinesOf5, kStartsOf5, 5));

// Bit s is set when the line of kLength fields from s in direction d holds a field of `stones`
// (for the starts of such lines; other bits mean nothing).
template <int kLength>
constexpr Bitboard lines_holding(Bitboard stones, int d) {
  Bitboard any = 0;
  for (int k = 0; k < kLength; ++k) any |= stones >> (k * LineStarts::kStep[d]);
  return any;
}

// Bit s of at[k] is set when field s + k * step of direction d (LineStarts) is in `own`.
template <int kLength>
constexpr std::array<Bitboard, kLength> along(Bitboard own, int d) {
  std::array<Bitboard, kLength> at{};
  for (int k = 0; k < kLength; ++k) at[k] = own >> (k * LineStarts::kStep[d]);
  return at;
}

// The starts of the lines in direction d of which `own` holds every field but the `missing`-th,
// from along(own, d): the lines one stone short (§7.1).
template <int kLength>
constexpr Bitboard short_lines(const std::array<Bitboard, kLength>& at, int d, int missing) {
  const LineStarts& table = kLength == 5 ? kStartsOf5 : kStartsOf4;
  Bitboard starts = table.starts[d] & ~at[missing];
  for (int k = 0; k < kLength; ++k)
    if (k != missing) starts &= at[k];
  return starts;
}

// The fields that would complete a line of `own` (§7.1): the missing field of every line that
// holds all but one of its fields in `own`.
template <int kLength>
constexpr Bitboard completing_fields(Bitboard own) {
  Bitboard result = 0;
  for (int d = 0; d < 4; ++d) {
    const auto at = along<kLength>(own, d);
    for (int missing = 0; missing < kLength; ++missing) result |= short_lines<kLength>(at, d, missing) << (missing * LineStarts::kStep[d]);
  }
  return result;
}

// Calls visit(line, missing field) for every line of which `own` holds all fields but one.
template <int kLength, class Visit>
constexpr void for_each_short_line(Bitboard own, Visit&& visit) {
  for (int d = 0; d < 4; ++d) {
    const int step = LineStarts::kStep[d];
    Bitboard shape = 0;  // the line from field 0; shifted by a start, the line from there
    for (int k = 0; k < kLength; ++k) shape |= Bitboard{1} << (k * step);
    const auto at = along<kLength>(own, d);
    for (int missing = 0; missing < kLength; ++missing)
      for (Bitboard starts = short_lines<kLength>(at, d, missing); starts; starts &= starts - 1) {
        const int start = std::countr_zero(starts);
        visit(shape << start, Bitboard{1} << (start + missing * step));
      }
  }
}

struct Options {
  int players = 2;
  int line_length = 4;  // §8: 5 in the variant
  int start = -1;       // §3.4 [R]: -1 draws the start player from the seed
};
Options parse_options(const std::map<std::string, std::string>& options);

class State {
 public:
  static constexpr const char* kName = "just4fun_colours";
  static constexpr int kMaxPlayers = 4;
  static constexpr Action kBlocked = kFields;  // §5.3: discard hand, draw 7, box one stone
  static constexpr int kMaxActions = kFields + 1;
  static constexpr int kMaxChanceOutcomes = kColours;  // a draw: the colour of the card
  // A line or the area count decides the game, both on the open board (game.h).
  static constexpr bool kPublicOutcome = true;
  // The cards of one draw go to one hand, and their order tells no one anything (game.h).
  static constexpr bool kChanceRunsCommute = true;

  // §3: shuffle, deal 7 to each player, pick the start player; all from `seed`.
  static State initial(const Options& options, std::uint64_t seed);
  static State from_string(std::string_view text);  // throws NotationError
  // A full state consistent with a seat view (hidden parts filled by a fixed-seed sample).
  static State from_view(std::string_view text);

  int num_players() const { return players_; }
  bool is_terminal() const { return winner_ >= 0 || finished_; }
  int current_player() const {
    if (is_terminal()) return kTerminalPlayer;
    return pending_draws_ > 0 ? kChancePlayer : current_;
  }

  int legal_actions(Action* out) const {
    Bitboard legal = legal_fields();
    int n = 0;
    for (; legal; legal &= legal - 1) out[n++] = static_cast<Action>(std::countr_zero(legal));
    if (n == 0) out[n++] = kBlocked;  // §5.3: mandatory exactly when nothing can be placed
    return n;
  }

  // Optional fast path for rollouts: a uniform legal action without listing them all.
  Action random_action(Rng& rng) const {
    Bitboard legal = legal_fields();
    if (!legal) return kBlocked;
    const auto k = rng.below(static_cast<std::uint32_t>(std::popcount(legal)));
#ifdef __BMI2__
    return static_cast<Action>(std::countr_zero(_pdep_u64(Bitboard{1} << k, legal)));  // the k-th set bit
#else
    for (auto i = k; i > 0; --i) legal &= legal - 1;
    return static_cast<Action>(std::countr_zero(legal));
#endif
  }

  void apply(Action action) {
    if (pending_draws_ > 0)
      draw(static_cast<int>(action));
    else if (action == kBlocked)
      play_blocked();
    else
      place(static_cast<int>(action));
  }

  int chance_outcomes(ChanceOutcome* out) const {
    const Counts& pile = draw_pile();  // §6.1.4: lazy reshuffle of the discard pile
    const int total = sum(pile);
    int n = 0;
    for (int c = 0; c < kColours; ++c)
      if (pile[c] > 0) out[n++] = {static_cast<Action>(c), static_cast<double>(pile[c]) / total};
    return n;
  }

  // Always inlined: once the search grew, GCC called it out of line from the playout loops, which
  // cost a fifth of the random playouts' speed (docs/performance.md).
  [[gnu::always_inline]] Action sample_chance(Rng& rng) const {
    const Counts& pile = draw_pile();
    const int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(sum(pile))));
    // Branch-free inverse CDF: the colour is the number of cumulative counts <= r.
    int cumulative = 0, colour = 0;
    for (int c = 0; c < kColours - 1; ++c) colour += (r >= (cumulative += pile[c]));
    return static_cast<Action>(colour);
  }

  void returns(double* out) const;
  void scores(double* out) const;  // §7.2: the primary score A(p), largest orthogonal area
  void ranks(double* out) const;   // §11.15 [R]: winner first, then by (A, B), ties shared
  int team(int seat) const { return seat; }

  std::uint64_t info_key(int seat) const;
  Action observe(int seat, Action action) const {
    // Every decision is public (§9); a drawn card is seen by the drawer only.
    if (pending_draws_ > 0 && seat != current_) return kUnobserved;
    return action;
  }
  State determinize(int seat, Rng& rng) const;
  // The protocol's `observe` line (docs/protocol.md): what `seat` sees of `action` as text
  // ("?" for another seat's draw; a blocked turn shows the hand: "blocked:RROGGBB"), and the
  // state after the action seen as `seen`, re-dealt consistently with seat's new view.
  std::string observation_string(int seat, Action action) const;
  State after_observation(int seat, std::string_view seen, Rng& rng) const;

  // The rollout policy's weights (heuristic_action), set at run time by name (game.h).
  enum Weight { kBlock, kStones, kFreeLine, kBrokenLine, kTake, kArea, kHeight, kCoverOwn, kWeights };
  static constexpr std::array<PolicyWeight, kWeights> kPolicyWeights = {{
      {"block", 1, 0, 3, "opponents, in turn order from the next, whose threats to complete a line next turn a move answers first"},
      {"stones", 4, 0, 1000, "per line through the field: the square of the mover's stones already in it"},
      {"free_line", 1, 0, 1000, "a line only the mover holds stones in, by its length after the move (1, 8, 30, 90 for 1-4)"},
      {"broken_line", 1, 0, 1000, "a line of one opponent's that the move breaks, by its stones (1, 6, 24, 90 for 1-4)"},
      {"take", 8, -1000, 1000, "covering an opponent's stone"},
      {"area", 6, -1000, 1000, "per own stone orthogonally next to the field"},
      {"height", 10, -1000, 1000, "cost per stone already on the field"},
      {"cover_own", 30, -1000, 1000, "cost of covering the mover's own stone"},
  }};

  // A placement that completes a line of the mover's (§7.1), or kNoAction.
  Action winning_action() const {
    const Bitboard wins = completing(owned_[current_]) & legal_fields();
    return wins ? static_cast<Action>(std::countr_zero(wins)) : kNoAction;
  }
  Action heuristic_action(Rng& rng, const double* weights) const;
  Action heuristic_action(Rng& rng) const { return heuristic_action(rng, kDefaultWeights.data()); }

  // Policy-based inference (game.h HasDecisionLikelihood; docs/games/just4fun_colours.md §10): the
  // log-likelihood of the last `turns` decisions of every seat other than `observer`, given the
  // hands this state (a determinization for `observer`) assigns them, with the rollout policy
  // (`weights`, in kPolicyWeights order) as the model of play: a move that passes up a win the
  // hand had is worth epsilon, another exp(-regret / temperature) but at least epsilon, the regret
  // being how far the policy scores it below the best field the hand pays for (an unanswered
  // threat costs 10^6, so a large temperature reads only wins and threats; a seat is taken to fear
  // every completing field of another seat that costs at most two cards, since it does not see
  // the other hands). Each seat's hand at a past decision is rebuilt by stepping back from its
  // hand now; which cards of a hand a draw brought is not recorded, so `rng` picks them among
  // those the era's draws can account for. Going back stops where the history no longer says
  // (the base, or a field whose earlier owner it does not name).
  double decision_log_likelihood(int observer, int turns, double temperature, double epsilon, const double* weights, Rng& rng) const;

  // The greedy evaluation's weights (evaluate), set at run time by name (game.h).
  enum EvalWeight { kEvalLines, kEvalArea, kEvalStones, kEvalCount };
  static constexpr std::array<PolicyWeight, kEvalCount> kEvalWeights = {{
      {"lines", 1, 0, 1000, "per line free of other players' stones: the cube of the player's stones in it"},
      {"area", 6, -1000, 1000, "per field of the player's largest area (A(p) of §7.2)"},
      {"stones", 0.1, -1000, 1000, "per stone of the player's largest area (B(p) of §7.2)"},
  }};
  double evaluate(int seat, const double* weights) const;
  double evaluate(int seat) const { return evaluate(seat, kDefaultEval.data()); }

  std::string action_to_string(Action action) const;
  Action parse_action(std::string_view text) const;
  std::string to_string() const;
  std::string view_string(int seat) const;
  std::string render(int seat) const;  // seat -1 shows every hand

  int turns_played() const;
  // Observation tensor and length bound (core/tensor.h; csrc/games/just4fun_colours_tensor.cpp; the layout is in
  // docs/games/just4fun_colours.md).
  int observation_tensor(int seat, float* out) const;
  int max_game_length() const;
  // §7.2: A(p) and B(p) of the largest area (ties between areas: the one with most stones).
  std::pair<int, int> area_score(int seat) const;

  friend bool operator==(const State&, const State&) = default;

 private:
  static constexpr std::array<double, kWeights> kDefaultWeights = default_weights(kPolicyWeights);
  static constexpr std::array<double, kEvalCount> kDefaultEval = default_weights(kEvalWeights);
  static int sum(const Counts& c) {  // the six bytes summed by one multiply (totals < 256)
    std::uint64_t v = 0;
    std::memcpy(&v, c.data(), kColours);
    return static_cast<int>((v * 0x0101010101010101ULL) >> 56);
  }
  Bitboard legal_fields() const { return playable_fields(current_); }
  Bitboard playable_fields(int seat) const {  // §5.2: fields of colour c lower than the c cards held
    const Counts& hand = hand_[seat];
    Bitboard legal = 0;
    for (int c = 0; c < kColours; ++c) legal |= kColourFields[c] & lower_than_[hand[c]];
    return legal;
  }
  const Counts& draw_pile() const { return sum(stock_) > 0 ? stock_ : discard_; }

  // The rollout policy's score of a legal field (heuristic_action), from what the context holds
  // about the position: the threats a move may answer, the terms of the lines through each of
  // `fields` (at least those are scored), and the weights' worth of each term.
  struct PolicyContext;
  PolicyContext policy_context(const double* weights, Bitboard fields) const;
  double policy_score(const PolicyContext& context, int field) const;
  struct Threat;
  Threat threat_of(int seat) const;
  // The model of play of decision_log_likelihood: the likelihood that the mover plays `action`;
  // the mover fears another seat's completing field when it costs at most kFearedCost cards.
  static constexpr std::uint8_t kFearedCost = 2;
  double policy_likelihood(Action action, double temperature, double epsilon, const double* weights) const;

  void place(int field) {
    const int colour = kMap[field];
    const int cost = height_[field] + 1;  // §5.2.2: exactly height + 1 cards
    hand_[current_][colour] -= cost;
    discard_[colour] += cost;
    moves_[n_moves_++] = static_cast<std::uint8_t>(field);
    const Bitboard bit = Bitboard{1} << field;
    if (top_[field] >= 0) owned_[top_[field]] &= ~bit;
    top_[field] = static_cast<std::int8_t>(current_);
    owned_[current_] |= bit;
    lower_than_[++height_[field]] &= ~bit;
    --supply_[current_];
    if (completes_line(field)) {  // §7.1: the mover wins at once, no draw (§11.16)
      winner_ = static_cast<std::int8_t>(current_);
      return;
    }
    pending_draws_ = static_cast<std::uint8_t>(cost);  // §6.1.4: draw as many as played
  }

  void play_blocked() {  // §6.2
    moves_[n_moves_++] = static_cast<std::uint8_t>(kBlocked);
    revealed_[n_revealed_++] = hand_[current_];
    for (int c = 0; c < kColours; ++c) {
      discard_[c] += hand_[current_][c];
      hand_[current_][c] = 0;
    }
    pending_draws_ = kHandSize;
    --supply_[current_];
    ++boxed_[current_];
  }

  void draw(int colour) {
    if (sum(stock_) == 0) reshuffle();
    --stock_[colour];
    ++hand_[current_][colour];
    ++drawn_[current_][era_][colour];
    if (--pending_draws_ == 0) end_turn();
    // A position read in the middle of a turn's draws has no decision in its history yet:
    // it stays the base until the turn is complete, so the history starts with a decision.
    if (n_moves_ == 0) start_history();
  }

  void reshuffle() {  // §6.1.4, §11.7: the whole discard pile becomes the stock
    stock_ = discard_;
    discard_.fill(0);
    ++era_;
  }

  // Replays the public history from the base (see the .cpp); `visit` sees every play, draw
  // and reshuffle in order.
  struct PublicHistory;
  template <class Visitor>
  PublicHistory replay_public(Visitor&& visit) const;
  void start_history();  // makes the current position the base

  void end_turn() {  // §6.3
    for (int p = 0; p < players_; ++p)
      if (supply_[p] > 0) {
        current_ = static_cast<std::uint8_t>((current_ + 1) % players_);
        return;
      }
    finished_ = true;
  }

  Bitboard completing(Bitboard own) const {
    return line_length_ == 5 ? completing_fields<5>(own) : completing_fields<4>(own);
  }

  bool completes_line(int field) const {
    const LineTable& table = line_table(line_length_);
    const Bitboard own = owned_[current_];
    if (std::popcount(own) < line_length_) return false;
    bool complete = false;
    for (int i = 0; i < table.through_count[field]; ++i) complete |= (own & table.through[field][i]) == table.through[field][i];
    return complete;
  }

  bool gather_hidden(int seat, Counts& place, const Counts& wanted);
  void recompute_bitboards();
  void validate() const;  // throws NotationError naming the broken invariant
  void validate_draw_order() const;
  static State parse(std::string_view text, bool view, int& seat);
  std::string write(int seat) const;  // seat -1: the full state; otherwise that seat's view

  std::uint8_t players_ = 2;
  std::uint8_t line_length_ = 4;
  std::uint8_t start_ = 0;
  std::uint8_t current_ = 0;
  std::uint8_t pending_draws_ = 0;  // > 0: a chance node, the current player draws a card
  std::int8_t winner_ = -1;
  bool finished_ = false;  // all stones used: area scoring (§7.2)
  std::array<std::uint8_t, kFields> height_{};
  std::array<std::int8_t, kFields> top_{};  // owner of the top stone, -1 when empty
  // Caches of height_ and top_ for move generation and the win check.
  std::array<Bitboard, kMaxPlayers> owned_{};
  std::array<Bitboard, kMaxHeight + 2> lower_than_{};  // [h]: fields with height < h
  std::array<Counts, kMaxPlayers> hand_{};
  Counts stock_{};  // §9: hidden; its order is irrelevant, so a multiset suffices
  Counts discard_{};
  std::array<std::uint8_t, kMaxPlayers> supply_{};
  std::array<std::uint8_t, kMaxPlayers> boxed_{};
  // The history since the base position (the deal, or a position read without history):
  // what determinize() needs to deal the hidden cards consistently with all a seat saw.
  // Public: the base discard and stock size, the base hand sizes, the moves, the hands shown
  // by blocked turns. Private to each player: its base hand and what it drew in each era
  // (an era ends when a reshuffle starts the next).
  static constexpr int kMaxMoves = kStonesPerPlayer * kMaxPlayers;       // a turn uses a stone
  static constexpr int kMaxRevealed = kMaxMoves - kMinStonesForBlocked;  // §14
  // A reshuffle finds at most 27 cards in hands, so every era after the first two starts
  // with at least 33 cards, and a game draws at most 80 * 7 cards after the deal.
  static constexpr int kMaxEras = 2 + kMaxMoves * kHandSize / 33;
  Counts base_discard_{};
  std::uint8_t base_stock_ = 0;
  std::uint8_t era_ = 0;
  std::uint8_t n_moves_ = 0;
  std::uint8_t n_revealed_ = 0;
  std::array<Counts, kMaxPlayers> base_hand_{};
  std::array<std::uint8_t, kMaxMoves> moves_{};  // a field, or kBlocked
  std::array<Counts, kMaxRevealed> revealed_{};
  std::array<std::array<Counts, kMaxEras>, kMaxPlayers> drawn_{};
};

static_assert(Game<State>);

}  // namespace kibitz::j4fc
