// Canasta with rummy tiles: 4 players in two teams, 106 tiles, draw -> meld -> discard.
// The rules of a turn (legal decisions, their effects, the opening planner) are inline below the
// class because the search calls them; the .cpp holds setup, scoring, information and notation.
// Spec: shared/rules/canasta_tiles.md. Section numbers (§) and ambiguities (A1..A30) refer to it;
// docs/games/canasta_tiles.md explains the decision model and every ruling.
#pragma once
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/game.h"

namespace kibitz::canasta {

// §2.2: colour matters only for the threes, so a tile is one of 15 kinds. Kinds 0..11 are
// also the meld ranks (1, 2, 4..13); the 2s are kind and rank 1.
inline constexpr int kKinds = 15;
inline constexpr int kRanks = 12;
inline constexpr int kTwo = 1;
inline constexpr int kJoker = 12;
inline constexpr int kBlockThree = 13;  // blue/black: blocks the pile, never melded (§7.2)
inline constexpr int kBonusThree = 14;  // red/yellow: revealed and replaced at once (§7.1)
inline constexpr int kPlayers = 4;
inline constexpr int kTiles = 106;
using Counts = std::array<std::uint8_t, kKinds>;
inline constexpr Counts kKindCount = {8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2, 4, 4};
// §2.3 [S]: tile values; the threes have none.
inline constexpr std::array<int, kKinds> kValue = {25, 20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 50, 0, 0};
inline constexpr std::array<std::string_view, kKinds> kKindNames = {"1", "2", "4", "5", "6", "7", "8", "9",
                                                                    "10", "11", "12", "13", "J", "k3", "r3"};

inline constexpr int kStarterTiles = 15;  // §10 [S]
inline constexpr int kHandTiles = 14;
inline constexpr int kDealtTiles = kStarterTiles + 3 * kHandTiles;
inline constexpr int kCanastaSize = 7;             // §4.4 [S]
inline constexpr int kMaxWildsInRankMeld = 3;      // §4.1 [S]
inline constexpr int kMaxJokersInTwosMeld = 2;     // §4.2 [S]
inline constexpr int kCleanCanasta = 500, kDirtyCanasta = 300;          // §4.4 [S]
inline constexpr int kCleanTwosCanasta = 1000, kDirtyTwosCanasta = 700;  // §4.4 [S]
inline constexpr int kBonusThreeScore = 100;   // §7.1 [S]: +100 opened, -100 not (A10)
inline constexpr int kBlockThreePenalty = 100;  // §7.2 [S]
inline constexpr int kGoingOutBonus = 100;      // §7.3 [S]
inline constexpr int kTargetScore = 10000;      // §11 [S]
inline constexpr int kThreeRounds = 3;          // §11 [S]

// §5 [S]/A29: the opening threshold by the team's match total at the start of the round.
struct ThresholdStep {
  int from;
  int threshold;
};
inline constexpr std::array<ThresholdStep, 5> kThresholds = {{{INT_MIN, 15}, {0, 50}, {1500, 90}, {3000, 120}, {7000, 150}}};
constexpr int opening_threshold(int total) {
  int t = 0;
  for (const auto& step : kThresholds)
    if (total >= step.from) t = step.threshold;
  return t;
}

// A team's meld of one rank. For the twos meld, `nat` counts the 2s and `twos` is 0.
struct Meld {
  std::uint8_t nat = 0, twos = 0, jokers = 0;
  int size() const { return nat + twos + jokers; }
  int wilds() const { return twos + jokers; }
  friend bool operator==(const Meld&, const Meld&) = default;
};

enum class MatchMode : std::uint8_t { kOneRound, kThreeRounds, kTarget };

// §14.7 configuration flags, with the spec's defaults.
struct Options {
  int players = kPlayers;
  MatchMode mode = MatchMode::kOneRound;  // [R]: the first mode §11 lists
  bool winner_required = true;            // A19
  int starter = -1;                       // A5: -1 draws the round-1 starter from the seed
  bool first_turn_may_meld = false;       // A4
  bool strict_natural_majority = true;    // A3
  bool pile_fully_visible = true;         // A9
  bool joker_button = false;              // A21, §12
  // §12: the seat's external allowance of spare jokers, for the whole match (one use per
  // round at most). [R]: 1 per seat.
  std::array<std::uint8_t, kPlayers> joker_allowance = {1, 1, 1, 1};
};
Options parse_options(const std::map<std::string, std::string>& options);

enum class Phase : std::uint8_t {
  kDeal,      // chance: the next tile of the deal
  kReplace,   // chance: a replacement for a bonus three dealt (§10.3)
  kFirst,     // the starter's discard-only first turn (A4)
  kDraw,      // draw, take the pile, or (option) the Joker button
  kDrawing,   // chance: the tile drawn; a bonus three is followed by its replacement
  kShape,     // which tiles to lay at the chosen rank
  kTakeOpen,  // an unopened team's pickup: more opening melds, or done
  kMeld,      // choose a rank to lay at, or discard
  kCopies,    // §13: which of the tiles just played were known ones (docs §4.2)
  kOver,
};

enum class EndReason : std::uint8_t { kNone, kWentOut, kStockExhausted, kBonusThreeNoReplacement };

class State {
 public:
  static constexpr const char* kName = "canasta_tiles";
  // Notation version 2 (2026-12-01) added tiebreak=, jokers_left= and played=; a version-1
  // notation reads with their defaults (docs/games/canasta_tiles.md, docs/formats.md).
  static constexpr int kNotationVersion = 2;
  static constexpr int kMaxPlayers = kPlayers;
  // Action ids (docs/games/canasta_tiles.md §4.3).
  static constexpr Action kDiscardBase = 0;                 // + kind 0..13
  static constexpr Action kRankBase = 14;                   // + rank 0..11
  static constexpr Action kShapeBase = kRankBase + kRanks;  // + 12n + 3t + j
  static constexpr int kMaxShapeNat = 8, kMaxShapeTwos = 3, kMaxShapeJokers = 2;
  static constexpr int kShapes = (kMaxShapeNat + 1) * 12;
  static constexpr Action kDrawAction = kShapeBase + kShapes;
  static constexpr Action kTakeAction = kDrawAction + 1;
  static constexpr Action kDoneAction = kDrawAction + 2;
  static constexpr Action kJokerAction = kDrawAction + 3;
  // known:<tiles>, the known tiles among those just played: id = kKnownBase + 27a + 3t + j with
  // a of the one other kind played, t twos and j jokers (a move plays at most 8, 8 and 2).
  static constexpr Action kKnownBase = kJokerAction + 1;
  static constexpr int kMaxActions = kKnownBase + 9 * 9 * 3;
  static constexpr int kMaxChanceOutcomes = kKinds;
  // An unopened player never holds more than 15 tiles (no pickup before the opening), which
  // bounds the opening planner's tables.
  static constexpr int kMaxUnopenedHand = kStarterTiles;

  static State initial(const Options& options, std::uint64_t seed);
  static State from_string(std::string_view text);  // throws NotationError
  static State from_view(std::string_view text);

  int num_players() const { return kPlayers; }
  bool is_terminal() const { return phase_ == Phase::kOver; }
  int current_player() const {
    switch (phase_) {
      case Phase::kOver:
        return kTerminalPlayer;
      case Phase::kDeal:
      case Phase::kReplace:
      case Phase::kDrawing:
        return kChancePlayer;
      default:
        return current_;
    }
  }

  int legal_actions(Action* out) const;
  void apply(Action action);

  int chance_outcomes(ChanceOutcome* out) const {
    const int total = stock_size();
    int n = 0;
    for (int k = 0; k < kKinds; ++k)
      if (stock_[k] > 0) out[n++] = {static_cast<Action>(k), static_cast<double>(stock_[k]) / total};
    return n;
  }
  Action sample_chance(Rng& rng) const {
    int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(stock_size())));
    int k = 0;
    while (r >= stock_[k]) r -= stock_[k++];
    return static_cast<Action>(k);
  }

  void returns(double* out) const;
  void scores(double* out) const;  // the team's match total, for both partners
  void ranks(double* out) const;
  int team(int seat) const { return seat % 2; }

  std::uint64_t info_key(int seat) const;
  Action observe(int seat, Action action) const {
    // §13: decisions and bonus threes are public; a regular tile only its receiver sees.
    if (current_player() != kChancePlayer || public_tile(static_cast<int>(action))) return action;
    return seat == receiver() ? action : kUnobserved;
  }
  State determinize(int seat, Rng& rng) const;
  std::string observation_string(int seat, Action action) const;
  State after_observation(int seat, std::string_view seen, Rng& rng) const;

  // The rollout policy's weights (heuristic_action, docs §7), set at run time by name (game.h).
  enum Weight { kNatural, kCompletes, kWildShort, kWildLong, kKnownPair, kFeed, kOutMargin, kOutToWin, kWeights };
  static constexpr std::array<PolicyWeight, kWeights> kPolicyWeights = {{
      {"natural", 20, 0, 200, "per natural a lay puts on the table"},
      {"canasta", 200, 0, 2000, "for a lay that completes a canasta"},
      {"wild_short", 25, 0, 500, "cost of a wild laid on a meld that stays under 5 tiles without completing a canasta"},
      {"wild_long", 5, 0, 500, "cost of a wild laid on a meld of 5 or more tiles without completing a canasta"},
      {"known_pair", 60, 0, 1000, "worth of keeping a kind the next seat is known to hold a pair of"},
      {"feed", 0, 0, 100, "cost per pile tile of discarding a natural the next seat (an opponent) holds a pair of in the simulated deal"},
      {"out_margin", -10000, -10000, 10000, "lay down to the last tile (and so go out) only while the team's lead after going out, in points, is above this; the lowest value: always"},
      {"out_to_win", 0, 0, 1, "1: go out whenever some run of this turn's decisions goes out and wins the match (a decisive move); 0: only as the lays fall"},
  }};
  static constexpr std::array<double, kWeights> kDefaultWeights = default_weights(kPolicyWeights);
  Action heuristic_action(Rng& rng, const double* weights) const;
  Action heuristic_action(Rng& rng) const { return heuristic_action(rng, kDefaultWeights.data()); }
  // The greedy evaluation's weights (evaluate), set at run time by name (game.h).
  enum EvalWeight { kEvalLongMeld, kEvalOpened, kEvalBlockThree, kEvalWild, kEvalTile, kEvalPair, kEvalPile, kEvalCount };
  static constexpr std::array<PolicyWeight, kEvalCount> kEvalWeights = {{
      {"long_meld", 60, -1000, 1000, "per tile beyond the fourth of a meld of 5 or 6 (towards a canasta)"},
      {"opened", 80, -1000, 1000, "the team has opened"},
      {"block_three", 30, -1000, 1000, "cost per blocking three in the seat's hand"},
      {"wild", 70, -1000, 1000, "per joker or two in the seat's hand"},
      {"tile", 8, -1000, 1000, "per other tile in the seat's hand"},
      {"pair", 10, -1000, 1000, "per kind the seat holds two or more of"},
      {"pile", 4, -1000, 1000, "per tile of a pile the opponents may take: a cost when its top is natural, else a gain"},
  }};
  double evaluate(int seat, const double* weights) const;
  double evaluate(int seat) const { return evaluate(seat, kDefaultEval.data()); }

  std::string action_to_string(Action action) const;
  Action parse_action(std::string_view text) const;
  std::string to_string() const;
  std::string view_string(int seat) const;
  std::string render(int seat) const;

  // §8: a team's round score at this moment, as if the round ended now (the going-out bonus
  // only once a seat of the team has gone out).
  int round_score(int team) const;
  int total(int team) const { return totals_[team]; }
  int rounds_played() const { return rounds_; }
  // Observation tensor and length bound (core/tensor.h; csrc/games/canasta_tiles_tensor.cpp; the layout is in
  // docs/games/canasta_tiles.md).
  int observation_tensor(int seat, float* out) const;
  int max_game_length() const;
  int threshold(int team) const { return opening_threshold(totals_[team]); }

  friend bool operator==(const State&, const State&) = default;

 private:
  static constexpr std::array<double, kEvalCount> kDefaultEval = default_weights(kEvalWeights);
  static int sum(const Counts& c) {
    int n = 0;
    for (int k = 0; k < kKinds; ++k) n += c[k];
    return n;
  }
  int stock_size() const { return sum(stock_); }
  // A tile from the stock that every seat sees: a bonus three (revealed at once), and with the
  // Joker button the stock's last joker (the button shows whether the stock holds one).
  bool public_tile(int kind) const { return kind == kBonusThree || (joker_button_ && kind == kJoker && stock_[kJoker] == 1); }
  int pile_size() const { return sum(pile_) + (top_ >= 0 ? 1 : 0); }
  int receiver() const;  // the seat a chance tile goes to
  static bool is_natural(int kind) { return kind < kRanks && kind != kTwo; }

  // §4.1/§4.2 (A3): is this meld of `rank` valid (as a meld on the table, size >= 3)?
  bool valid(int rank, const Meld& m) const {
    if (m.size() < 3) return false;
    if (rank == kTwo) return m.twos == 0 && m.jokers <= kMaxJokersInTwosMeld && m.jokers < m.nat;
    if (m.wilds() > kMaxWildsInRankMeld) return false;
    return strict_ ? m.nat > m.wilds() : m.nat >= m.wilds();
  }
  // A new meld needs three tiles and more naturals than wilds (A3: at least as many), so two
  // naturals from the hand (two 2s for the twos meld): a rank with neither those nor a meld of
  // the team's has no lay, which spares trying each of its shapes.
  bool may_lay_at(int rank) const { return hand_[current_][rank] >= 2 || melds_[current_ % 2][rank].size() > 0; }
  static int shape_nat(int shape) { return shape / 12; }
  static int shape_twos(int shape) { return shape / 3 % 4; }
  static int shape_jokers(int shape) { return shape % 3; }
  static int shape_size(int shape) { return shape_nat(shape) + shape_twos(shape) + shape_jokers(shape); }
  static Meld plus(Meld m, int shape) {
    m.nat = static_cast<std::uint8_t>(m.nat + shape_nat(shape));
    m.twos = static_cast<std::uint8_t>(m.twos + shape_twos(shape));
    m.jokers = static_cast<std::uint8_t>(m.jokers + shape_jokers(shape));
    return m;
  }
  static int shape_value(int rank, int shape) {
    return shape_nat(shape) * kValue[rank] + shape_twos(shape) * kValue[kTwo] + shape_jokers(shape) * kValue[kJoker];
  }
  bool team_has_canasta(int t) const {
    for (const Meld& m : melds_[t])
      if (m.size() >= kCanastaSize) return true;
    return false;
  }

  // The stage a lay belongs to (docs §1.2): which ranks are still open to it, the value still
  // missing for the opening, and how many tiles join the hand when the stage ends (the pile
  // below the top, in an unopened pickup).
  bool taking() const { return take_rank_ >= 0; }
  struct Planner;
  // What every lay of the stage shares, worked out once a decision rather than once a shape (the
  // meld phase tries up to a hundred shapes at each rank).
  struct Stage {
    std::uint16_t ranks;     // the ranks still open to it
    int tiles;               // the hand's tiles when the stage ends with nothing more laid (a pickup's pile included)
    bool canasta;            // the team has a canasta already
    int need;                // the opening value still missing; 0 once the team has opened
    const Planner* planner;  // the opening planner while the team has not opened, else nullptr
  };
  Stage stage(const Planner* planner) const;
  std::uint16_t open_ranks(int after) const;
  bool shape_legal(int rank, int shape, const Stage& stage) const;  // `shape`: one any_shape gives for the mover's hand
  template <class F>
  bool rank_has_lay(int rank, const Stage& stage, F&& wanted) const;  // a legal lay at `rank` that wanted(shape) accepts
  bool rank_legal(int rank, const Stage& stage) const;
  template <class F>
  void with_stage(F&& f) const;
  bool take_legal() const;
  bool discard_allowed() const;
  bool done_legal() const;
  template <class F>
  static bool any_shape(const Counts& hand, int rank, F&& f);

  void discard(int kind);
  void draw_tile(int kind);
  void deal_tile(int kind);
  void lay(int shape);
  void take();
  void finish_take();
  void start_play();
  void end_round(EndReason reason);
  void start_round();
  // `count` tiles of `kind` leave the seat's hand, known copies first; the known ones are
  // noted in played_ so that the mover can say which copies really went (kCopies).
  bool leave(int seat, int kind, int count) {
    const int known = std::min<int>(count, known_[seat][kind]);
    if (known == 0) return false;
    known_[seat][kind] = static_cast<std::uint8_t>(known_[seat][kind] - known);
    played_[kind] = static_cast<std::uint8_t>(played_[kind] + known);
    return true;
  }
  // After a move that played known tiles: the copies decision, when the hand still holds tiles
  // nobody has seen (so that some of them may have gone instead); public facts only.
  bool ask_copies() {
    if (sum(hand_[current_]) > sum(known_[current_])) return true;
    played_.fill(0);
    return false;
  }
  // The copies decision follows a lay, a pickup or a discard; only a discard leaves a top tile
  // with no lay made in the stage (a lay sets the cursor, a pickup empties the pile).
  bool copies_after_discard() const { return !taking() && cursor_ < 0 && top_ >= 0; }
  int played_other() const {  // the kind played besides 2s and jokers, -1 for none
    for (int k = 0; k < kBonusThree; ++k)
      if (played_[k] && k != kTwo && k != kJoker) return k;
    return -1;
  }
  void resolve_copies(Action action);

  // Deals every tile `seat` has not seen into the places it cannot see; `pin` tiles go into
  // the mover's unknown part first. False when the unseen tiles cannot supply `pin`.
  bool redeal(int seat, Rng& rng, const Counts& pin, State& out) const;
  bool place_jokers(Rng& rng, int jokers, int stock_from, int stock_slots, int total, std::array<bool, kTiles>& joker_at) const;
  bool sample_fits(int seat) const;
  Counts witness(int seat, Rng& rng) const;
  bool ends_round(Action action) const;
  bool pile_joins_hand(Action action) const;
  bool set_stock_jokers(int seat, int lo, int hi);
  bool show_hidden(int seat, const std::optional<std::array<Counts, kPlayers>>& hands, const std::optional<Counts>& pile);
  std::array<Counts, kPlayers> hands_at_end(Action action) const;
  int lay_score(int rank, int shape, const double* weights) const;
  int keep_score(int kind, const double* weights) const;
  int lead_after_going_out() const;
  bool may_go_out(const double* weights) const;
  Action heuristic_discard(Rng& rng, const double* weights) const;
  Action heuristic_rank(Rng& rng, const double* weights) const;
  Action heuristic_shape(const double* weights) const;
  // Decisive moves for the policy (out_to_win, docs §7): the first decision of a run of the
  // mover's own decisions this turn (lays, then the last discard) that goes out and so ends the
  // match with its team the winner; kNoAction if there is none, or none among the first
  // kWinningRunNodes positions tried. Not named winning_action(): the search would then use it
  // too (core/game.h), and that version lost in self-play (docs/strength.md).
  static constexpr int kWinningRunNodes = 512;
  Action going_out_win() const;
  bool may_lay_out() const;
  Action winning_run(int& budget) const;
  void validate_public() const;
  void validate() const;
  bool mode_reached() const;  // §11: the match mode's end is reached (rounds played, or the target)
  static State parse(std::string_view text, bool view, int& seat);
  std::string write(int seat) const;

  // Options (§14.7).
  MatchMode mode_ = MatchMode::kOneRound;
  bool winner_required_ = true;
  bool first_turn_may_meld_ = false;
  bool strict_ = true;
  bool pile_visible_ = true;
  bool joker_button_ = false;
  // Match.
  std::array<std::int32_t, 2> totals_{};
  std::array<std::int32_t, 2> last_round_{};  // the scores of the last round played
  std::uint16_t rounds_ = 0;                  // rounds finished
  bool tiebreak_ = false;                     // §11: the match ended in a tie; rounds now break it
  // Round.
  Phase phase_ = Phase::kDeal;
  EndReason end_ = EndReason::kNone;
  std::uint8_t starter_ = 0;
  std::uint8_t current_ = 0;
  std::int8_t went_out_ = -1;
  bool last_regular_ = false;  // §9(b): this turn drew the stock's last regular tile
  std::uint8_t dealt_ = 0;
  std::array<std::uint8_t, kPlayers> replace_{};  // bonus threes dealt, still to be replaced
  std::array<Counts, kPlayers> hand_{};
  std::array<Counts, kPlayers> known_{};  // public: tiles known to be in each hand (§13)
  Counts played_{};  // kCopies: the known tiles the last move played, known copies first
  Counts stock_{};
  Counts pile_{};          // the discard pile below its top
  std::int8_t top_ = -1;   // the top tile's kind; -1 for none
  std::array<std::array<Meld, kRanks>, 2> melds_{};
  std::array<bool, 2> opened_{};
  std::array<std::uint8_t, 2> bonus_{};  // bonus threes in each team's area
  std::array<bool, kPlayers> joker_used_{};        // this round
  std::array<std::uint8_t, kPlayers> jokers_left_{};  // the allowance left for the match
  // The current stage of the mover's turn.
  std::int8_t cursor_ = -1;     // last rank laid in this stage; lays go to higher ranks
  std::int8_t chosen_ = -1;     // the rank of the lay being shaped
  std::int8_t take_rank_ = -1;  // the top's rank during an unopened team's pickup
  std::uint16_t stage_value_ = 0;  // opening value laid so far in this stage
};

// --------------------------------------------------------------------------------------------
// The opening planner
// --------------------------------------------------------------------------------------------

// While an unopened team lays, every lay must leave a way to reach the threshold and the
// dead-end guard with the ranks still open in the stage. best(r, t, j, l, c) is the most value
// the open ranks >= r can add using at most t twos and j jokers and exactly l tiles of the
// hand (c = 1: only counting completions that make a canasta), by a knapsack over the ranks
// from the highest down; a lay at rank r is then checked by one look-up at r + 1.
struct State::Planner {
  static constexpr int kNeg = -30000;
  static constexpr int kMaxTiles = kMaxUnopenedHand + 1;
  int twos, jokers, tiles;
  std::array<std::int16_t, (kRanks + 1) * (8 + 1) * (2 + 1) * (kMaxTiles + 1) * 2> best;

  int index(int r, int t, int j, int l, int c) const { return (((r * (twos + 1) + t) * (jokers + 1) + j) * (tiles + 1) + l) * 2 + c; }

  Planner(const State& s, std::uint16_t ranks) {  // for the mover's hand
    const Counts& hand = s.hand_[s.current_];
    twos = hand[kTwo], jokers = hand[kJoker];
    int layable = 0;
    for (int k = 0; k <= kJoker; ++k) layable += hand[k];
    tiles = std::min(layable, kMaxTiles);
    const auto& melds = s.melds_[s.current_ % 2];
    for (int t = 0; t <= twos; ++t)
      for (int j = 0; j <= jokers; ++j)
        for (int l = 0; l <= tiles; ++l)
          for (int c = 0; c < 2; ++c) best[index(kRanks, t, j, l, c)] = static_cast<std::int16_t>(l == 0 && c == 0 ? 0 : kNeg);
    const int per_rank = index(1, 0, 0, 0, 0);
    for (int r = kRanks - 1; r >= 0; --r) {
      // Rank r laid at or not: first what the ranks above add without it (one rank's block).
      std::copy_n(best.begin() + index(r + 1, 0, 0, 0, 0), per_rank, best.begin() + index(r, 0, 0, 0, 0));
      if (!(ranks >> r & 1) || !s.may_lay_at(r)) continue;
      const int max_nat = std::min(kMaxShapeNat, r == kTwo ? twos : hand[r]);
      for (int n = 0; n <= max_nat; ++n)
        for (int w = 0; w <= (r == kTwo ? 0 : std::min(kMaxShapeTwos, twos)); ++w)
          for (int x = 0; x <= std::min(kMaxShapeJokers, jokers); ++x) {
            const int shape = n * 12 + w * 3 + x;
            const Meld m = plus(melds[r], shape);
            if (shape == 0 || !s.valid(r, m)) continue;
            const int used_twos = r == kTwo ? n : w, size = n + w + x, value = shape_value(r, shape);
            const bool canasta = m.size() >= kCanastaSize;
            for (int t = used_twos; t <= twos; ++t)
              for (int j = x; j <= jokers; ++j)
                for (int l = size; l <= tiles; ++l)
                  for (int c = 0; c < 2; ++c) {
                    const int rest = best[index(r + 1, t - used_twos, j - x, l - size, c && !canasta)];
                    auto& b = best[index(r, t, j, l, c)];
                    if (rest > kNeg && rest + value > b) b = static_cast<std::int16_t>(rest + value);
                  }
          }
    }
  }

  // Can the open ranks >= r add at least `need`, keeping the guard: the hand left after the
  // stage (`size` tiles if nothing more is laid) holds >= 2 tiles, or 1 with a team canasta?
  bool reaches(int r, int t, int j, int need, int size, bool canasta) const {
    for (int l = 0; l <= std::min(tiles, size - 2); ++l)
      if (best[index(r, t, j, l, 0)] >= need) return true;
    const int l = size - 1;
    return l >= 0 && l <= tiles && best[index(r, t, j, l, canasta ? 0 : 1)] >= need;
  }
};

// --------------------------------------------------------------------------------------------
// Legal decisions
// --------------------------------------------------------------------------------------------

inline std::uint16_t State::open_ranks(int after) const {
  std::uint16_t mask = 0;
  for (int r = after + 1; r < kRanks; ++r)
    if (r != take_rank_) mask = static_cast<std::uint16_t>(mask | 1u << r);
  return mask;
}

// Calls f(shape) for every shape the hand can pay for at `rank`, in increasing id order, until
// f returns true.
template <class F>
inline bool State::any_shape(const Counts& hand, int rank, F&& f) {
  const int max_nat = std::min(kMaxShapeNat, static_cast<int>(rank == kTwo ? hand[kTwo] : hand[rank]));
  const int max_twos = rank == kTwo ? 0 : std::min(kMaxShapeTwos, static_cast<int>(hand[kTwo]));
  const int max_jokers = std::min(kMaxShapeJokers, static_cast<int>(hand[kJoker]));
  for (int n = 0; n <= max_nat; ++n)
    for (int w = 0; w <= max_twos; ++w) {
      if (rank == kTwo && n + w > hand[kTwo]) continue;
      for (int x = 0; x <= max_jokers; ++x)
        if ((n | w | x) && f(n * 12 + w * 3 + x)) return true;
    }
  return false;
}

inline State::Stage State::stage(const Planner* planner) const {
  const int t = current_ % 2;
  return {open_ranks(cursor_), sum(hand_[current_]) + (taking() ? sum(pile_) : 0), team_has_canasta(t), opened_[t] ? 0 : threshold(t) - stage_value_, planner};
}

// A lay (that the hand pays for) is legal when the meld stays valid and the stage can still end
// legally: the threshold reached (while opening) and the dead-end guard kept (A16, A17).
inline bool State::shape_legal(int rank, int shape, const Stage& stage) const {
  const int t = current_ % 2;
  const bool top = taking() && rank == take_rank_ && top_ >= 0;
  if (top && shape_nat(shape) < 2) return false;  // §6.3.3: the pair comes from the hand
  Meld m = plus(melds_[t][rank], shape);
  if (top) ++m.nat;
  if (!valid(rank, m)) return false;
  const int left = stage.tiles - shape_size(shape);
  const bool canasta = stage.canasta || m.size() >= kCanastaSize;
  const int need = stage.need - shape_value(rank, shape) - (top ? kValue[rank] : 0);
  if (need <= 0) return left >= 2 || (left == 1 && canasta);
  const Counts& h = hand_[current_];
  const int twos_left = h[kTwo] - shape_twos(shape) - (rank == kTwo ? shape_nat(shape) : 0);
  return stage.planner->reaches(top ? 0 : rank + 1, twos_left, h[kJoker] - shape_jokers(shape), need, left, canasta);
}

// Calls f(stage) for the mover's stage, with its opening planner while the team has not opened.
// (A plain local, not a std::optional: GCC zero-fills an optional's 24 KB of storage even when
// it stays empty, which cost a third of a playout.)
template <class F>
inline void State::with_stage(F&& f) const {
  if (opened_[current_ % 2]) {
    f(stage(nullptr));
  } else {
    const Planner planner(*this, open_ranks(cursor_));
    f(stage(&planner));
  }
}

template <class F>
inline bool State::rank_has_lay(int rank, const Stage& stage, F&& wanted) const {
  if (!(stage.ranks >> rank & 1) || !may_lay_at(rank)) return false;
  return any_shape(hand_[current_], rank, [&](int shape) { return shape_legal(rank, shape, stage) && wanted(shape); });
}

inline bool State::rank_legal(int rank, const Stage& stage) const {
  return rank_has_lay(rank, stage, [](int) { return true; });
}

inline bool State::take_legal() const {
  if (top_ < 0 || !is_natural(top_)) return false;  // §6.3.1-2: a 2, 3 or joker on top blocks
  const int me = current_, t = me % 2, r = top_;
  const Counts& h = hand_[me];
  if (h[r] < 2) return false;  // §6.3.3: a natural pair from the hand, always (A8)
  if (opened_[t]) {
    const int left = sum(h) - 2 + sum(pile_);
    const bool canasta = team_has_canasta(t) || melds_[t][r].size() + 3 >= kCanastaSize;
    return left >= 2 || (left == 1 && canasta);
  }
  // The pickup opens the team: some first lay (pair + extras + top) must be completable.
  State probe = *this;
  probe.take_rank_ = static_cast<std::int8_t>(r);
  const Planner planner(probe, probe.open_ranks(-1));
  const Stage stage = probe.stage(&planner);
  return any_shape(h, r, [&](int shape) { return probe.shape_legal(r, shape, stage); });
}

inline bool State::discard_allowed() const {
  const int t = current_ % 2;
  if (!opened_[t] && stage_value_ > 0) return false;  // an opening short of the threshold
  return sum(hand_[current_]) >= 2 || team_has_canasta(t);  // §7.3: going out needs a canasta
}

// An unopened pickup's opening may end once it has reached the threshold, keeping the guard.
inline bool State::done_legal() const {
  const int t = current_ % 2;
  if (phase_ != Phase::kTakeOpen || stage_value_ < threshold(t)) return false;
  const int left = sum(hand_[current_]) + sum(pile_);
  return left >= 2 || (left == 1 && team_has_canasta(t));
}

inline int State::legal_actions(Action* out) const {
  int n = 0;
  const Counts& h = hand_[current_];
  auto discards = [&] {
    for (int k = 0; k < kBonusThree; ++k)
      if (h[k] > 0) out[n++] = kDiscardBase + k;
  };
  switch (phase_) {
    case Phase::kFirst:
      discards();
      break;
    case Phase::kDraw:
      out[n++] = kDrawAction;
      if (take_legal()) out[n++] = kTakeAction;
      if (joker_button_ && !joker_used_[current_] && jokers_left_[current_] > 0 && stock_[kJoker] > 0) out[n++] = kJokerAction;
      break;
    case Phase::kMeld:
    case Phase::kTakeOpen: {
      if (phase_ == Phase::kMeld && discard_allowed()) discards();
      with_stage([&](const Stage& stage) {
        for (int r = cursor_ + 1; r < kRanks; ++r)
          if (rank_legal(r, stage)) out[n++] = kRankBase + r;
      });
      if (done_legal()) out[n++] = kDoneAction;
      break;
    }
    case Phase::kCopies: {  // each kind played: from all of it known down to as many as unseen copies allow
      const int kinds[3] = {played_other(), kTwo, kJoker};
      int lo[3], hi[3];
      for (int i = 0; i < 3; ++i) {
        const int k = kinds[i];
        hi[i] = k < 0 ? 0 : played_[k];
        lo[i] = k < 0 ? 0 : hi[i] - std::min(hi[i], h[k] - known_[current_][k]);
      }
      for (int a = lo[0]; a <= hi[0]; ++a)
        for (int w = lo[1]; w <= hi[1]; ++w)
          for (int j = lo[2]; j <= hi[2]; ++j) out[n++] = kKnownBase + static_cast<Action>(27 * a + 3 * w + j);
      break;
    }
    case Phase::kShape:
      with_stage([&](const Stage& stage) {
        any_shape(h, chosen_, [&](int shape) {
          if (shape_legal(chosen_, shape, stage)) out[n++] = kShapeBase + shape;
          return false;
        });
      });
      break;
    default:
      break;
  }
  return n;
}

// --------------------------------------------------------------------------------------------
// Effects
// --------------------------------------------------------------------------------------------

inline void State::apply(Action action) {
  switch (phase_) {
    case Phase::kDeal:
    case Phase::kReplace:
      deal_tile(static_cast<int>(action));
      return;
    case Phase::kDrawing:
      draw_tile(static_cast<int>(action));
      return;
    default:
      break;
  }
  if (action < kRankBase) {
    discard(static_cast<int>(action - kDiscardBase));
  } else if (action < kShapeBase) {
    chosen_ = static_cast<std::int8_t>(action - kRankBase);
    phase_ = Phase::kShape;
  } else if (action < kDrawAction) {
    lay(static_cast<int>(action - kShapeBase));
  } else if (action == kDrawAction) {
    phase_ = Phase::kDrawing;
  } else if (action == kTakeAction) {
    take();
  } else if (action >= kKnownBase) {
    resolve_copies(action);
  } else if (action == kDoneAction) {
    finish_take();
    opened_[current_ % 2] = true;
    take_rank_ = -1;
    stage_value_ = 0;
    cursor_ = -1;
    phase_ = Phase::kMeld;
  } else {  // kJokerAction, §12 [R]: a joker from the stock instead of the draw, in public
    --stock_[kJoker];
    ++hand_[current_][kJoker];
    ++known_[current_][kJoker];
    joker_used_[current_] = true;
    --jokers_left_[current_];
    last_regular_ = stock_size() == 0;
    phase_ = Phase::kMeld;
  }
}

inline int State::receiver() const {
  if (phase_ == Phase::kDeal)
    return dealt_ < kStarterTiles ? starter_ : (starter_ + 1 + (dealt_ - kStarterTiles) / kHandTiles) % kPlayers;
  if (phase_ == Phase::kReplace)
    for (int i = 0; i < kPlayers; ++i)
      if (replace_[(starter_ + i) % kPlayers] > 0) return (starter_ + i) % kPlayers;
  return current_;
}

// §10: 15 tiles to the starter and 14 to each other seat in turn order; then, seat by seat from
// the starter (A27), every bonus three dealt goes to the team's area and is replaced.
inline void State::deal_tile(int kind) {
  const int seat = receiver();
  --stock_[kind];
  if (kind == kBonusThree) {
    ++bonus_[seat % 2];
    ++replace_[seat];
  } else {
    ++hand_[seat][kind];
  }
  if (phase_ == Phase::kReplace) --replace_[seat];
  if (phase_ == Phase::kDeal && ++dealt_ == kDealtTiles) phase_ = Phase::kReplace;
  if (phase_ == Phase::kReplace && replace_ == std::array<std::uint8_t, kPlayers>{}) start_play();
}

inline void State::start_play() {
  current_ = starter_;
  phase_ = first_turn_may_meld_ ? Phase::kMeld : Phase::kFirst;  // A4
}

// §6.2, §9(b): a bonus three is revealed and replaced; with none left to replace it the round
// ends at once (A12). A regular tile that empties the stock is the last regular tile (A13).
inline void State::draw_tile(int kind) {
  --stock_[kind];
  if (kind == kBonusThree) {
    ++bonus_[current_ % 2];
    if (stock_size() == 0) end_round(EndReason::kBonusThreeNoReplacement);
    return;
  }
  ++hand_[current_][kind];
  last_regular_ = stock_size() == 0;
  phase_ = Phase::kMeld;
}

inline void State::take() {
  const int me = current_, t = me % 2, r = top_;
  if (!opened_[t]) {  // the pickup is the opening: its lays come first (§6.3.5)
    take_rank_ = chosen_ = static_cast<std::int8_t>(r);
    phase_ = Phase::kShape;
    return;
  }
  hand_[me][r] = static_cast<std::uint8_t>(hand_[me][r] - 2);
  const bool copies = leave(me, r, 2);
  melds_[t][r].nat = static_cast<std::uint8_t>(melds_[t][r].nat + 3);
  top_ = -1;
  finish_take();
  phase_ = copies && ask_copies() ? Phase::kCopies : Phase::kMeld;
}

inline void State::finish_take() {  // §6.3: the rest of the pile joins the hand, in public (A9)
  for (int k = 0; k < kKinds; ++k) {
    hand_[current_][k] = static_cast<std::uint8_t>(hand_[current_][k] + pile_[k]);
    if (pile_visible_) known_[current_][k] = static_cast<std::uint8_t>(known_[current_][k] + pile_[k]);
  }
  pile_.fill(0);
  top_ = -1;
}

inline void State::lay(int shape) {
  const int me = current_, t = me % 2, r = chosen_;
  const bool top = taking() && r == take_rank_ && top_ >= 0;
  const int twos = shape_twos(shape) + (r == kTwo ? shape_nat(shape) : 0);
  if (r != kTwo) hand_[me][r] = static_cast<std::uint8_t>(hand_[me][r] - shape_nat(shape));
  hand_[me][kTwo] = static_cast<std::uint8_t>(hand_[me][kTwo] - twos);
  hand_[me][kJoker] = static_cast<std::uint8_t>(hand_[me][kJoker] - shape_jokers(shape));
  bool copies = r != kTwo && leave(me, r, shape_nat(shape));
  copies |= leave(me, kTwo, twos);
  copies |= leave(me, kJoker, shape_jokers(shape));
  melds_[t][r] = plus(melds_[t][r], shape);
  if (!opened_[t]) stage_value_ = static_cast<std::uint16_t>(stage_value_ + shape_value(r, shape));
  if (top) {
    ++melds_[t][r].nat;
    stage_value_ = static_cast<std::uint16_t>(stage_value_ + kValue[r]);
    top_ = -1;
  } else {
    cursor_ = static_cast<std::int8_t>(r);
  }
  chosen_ = -1;
  if (taking()) {
    phase_ = Phase::kTakeOpen;
  } else {
    phase_ = Phase::kMeld;
    if (!opened_[t] && stage_value_ >= threshold(t)) {  // the opening is complete (A2)
      opened_[t] = true;
      stage_value_ = 0;
    }
  }
  if (copies && ask_copies()) phase_ = Phase::kCopies;
}

inline void State::discard(int kind) {
  const int me = current_;
  --hand_[me][kind];
  const bool copies = leave(me, kind, 1);
  if (top_ >= 0) ++pile_[top_];
  top_ = static_cast<std::int8_t>(kind);
  cursor_ = -1;
  stage_value_ = 0;
  if (sum(hand_[me]) == 0) {  // §7.3: going out
    went_out_ = static_cast<std::int8_t>(me);
    end_round(EndReason::kWentOut);
  } else if (last_regular_) {
    end_round(EndReason::kStockExhausted);
  } else if (copies && ask_copies()) {
    phase_ = Phase::kCopies;  // the turn passes once the mover has said which copy it was
  } else {
    current_ = static_cast<std::uint8_t>((me + 1) % kPlayers);
    phase_ = Phase::kDraw;
  }
}

// The mover says how many of the tiles played were known ones; the others were unseen copies,
// so that many known tiles stay known. Then the move's own continuation: the pickup's opening,
// the meld phase, or (after a discard) the next seat's turn.
inline void State::resolve_copies(Action action) {
  const int code = static_cast<int>(action - kKnownBase);
  const int kinds[3] = {played_other(), kTwo, kJoker}, known[3] = {code / 27, code / 3 % 9, code % 3};
  for (int i = 0; i < 3; ++i)
    if (kinds[i] >= 0) known_[current_][kinds[i]] = static_cast<std::uint8_t>(known_[current_][kinds[i]] + played_[kinds[i]] - known[i]);
  played_.fill(0);
  if (taking()) {
    phase_ = Phase::kTakeOpen;
  } else if (copies_after_discard()) {
    current_ = static_cast<std::uint8_t>((current_ + 1) % kPlayers);
    phase_ = Phase::kDraw;
  } else {
    phase_ = Phase::kMeld;
  }
}

static_assert(Game<State>);

}  // namespace kibitz::canasta
