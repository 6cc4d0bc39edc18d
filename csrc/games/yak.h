// Yak (Michael Luu, Pretzel Games 2022): 2-4 players buy coloured stones from yak carts that
// circle the village, pay with food, and build brick-bond towers; groups of one colour score.
// Every round all players choose an action card at once and in secret (Sunrise, a simultaneous
// node), then act in turn order at the cart before them (Noon) with bag draws and fog, then the
// carts move (Sunset). Spec: shared/rules/yak.md. Section numbers (§) and rulings (A1-H6) refer
// to it; docs/games/yak.md states the rules, the rulings and the decision model.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/game.h"

namespace kibitz::yak {

// §1, H5: pieces by kind. Colours 0-7, the crystal X, the fog stone F; stones are 0-7 and X.
inline constexpr int kColours = 8;
inline constexpr int kCrystal = 8;
inline constexpr int kFog = 9;
inline constexpr int kStoneKinds = 9;
inline constexpr int kPieceKinds = 10;
using Stones = std::array<std::uint8_t, kStoneKinds>;  // a multiset of stones: count per kind

enum Food : std::uint8_t { kMeat, kMilk, kBread };
inline constexpr int kFoods = 3;
using FoodCounts = std::array<std::uint8_t, kFoods>;
inline constexpr std::array<std::string_view, kFoods> kFoodNames = {"meat", "milk", "bread"};

// §1.1: the four carts, named by their restriction.
enum CartId : std::uint8_t { kNoMeat, kNoMilk, kNoBread, kTwoKinds };
inline constexpr int kCarts = 4;
inline constexpr std::uint8_t kNoCart = 0xFF;
inline constexpr std::array<std::string_view, kCarts> kCartNames = {"NO_MEAT", "NO_MILK", "NO_BREAD", "TWO_KINDS"};
// The food a cart never holds or accepts; TWO_KINDS forbids none (but a payment into it uses at
// most two kinds).
constexpr int forbidden_food(int cart) { return cart == kTwoKinds ? -1 : cart; }

// §1: the three action cards each player holds.
enum Card : std::uint8_t { kBuild, kRestock, kMarket, kNoCard };
inline constexpr int kCards = 3;
inline constexpr std::array<std::string_view, kCards> kCardNames = {"build", "restock", "market"};

// §5.3: the tower, a brick-bond wall of 5-4-3-2 positions; position L,i (level L = 1..4, index
// i = 0..5-L) is index kLevelStart[L-1] + i. A stone on level L >= 2 rests on (L-1,i) and
// (L-1,i+1).
inline constexpr int kLevels = 4;
inline constexpr int kPositions = 14;
inline constexpr std::array<int, kLevels + 1> kLevelStart = {0, 5, 9, 12, 14};
using TowerMask = std::uint16_t;
inline constexpr std::uint8_t kEmpty = 0xFF;
constexpr int level_of(int pos) { return pos < 5 ? 1 : pos < 9 ? 2 : pos < 12 ? 3 : 4; }
constexpr int index_of(int pos) { return pos - kLevelStart[level_of(pos) - 1]; }
constexpr int position(int level, int index) { return kLevelStart[level - 1] + index; }
constexpr int level_size(int level) { return 6 - level; }
constexpr TowerMask level_mask(int level) { return static_cast<TowerMask>(((1u << level_size(level)) - 1) << kLevelStart[level - 1]); }
inline constexpr TowerMask kFullTower = (1u << kPositions) - 1;

// The two stones a position rests on (none on level 1).
inline constexpr std::array<TowerMask, kPositions> kSupports = [] {
  std::array<TowerMask, kPositions> out{};
  for (int p = kLevelStart[1]; p < kPositions; ++p)
    out[p] = static_cast<TowerMask>(3u << position(level_of(p) - 1, index_of(p)));
  return out;
}();
// D1 [R]: the contacts, for touching and for groups: side by side, the two below, the two above.
inline constexpr std::array<TowerMask, kPositions> kContacts = [] {
  std::array<TowerMask, kPositions> out{};
  for (int p = 0; p < kPositions; ++p) {
    const int L = level_of(p), i = index_of(p);
    auto add = [&](int level, int index) {
      if (level >= 1 && level <= kLevels && index >= 0 && index < level_size(level)) out[p] |= static_cast<TowerMask>(1u << position(level, index));
    };
    add(L, i - 1), add(L, i + 1), add(L - 1, i), add(L - 1, i + 1), add(L + 1, i - 1), add(L + 1, i);
  }
  return out;
}();

// §5.3: the positions where a stone may go now: empty, supported, and touching a stone (any
// level-1 position for the very first stone).
constexpr TowerMask legal_positions(TowerMask tower) {
  if (tower == 0) return level_mask(1);
  TowerMask out = 0;
  for (int p = 0; p < kPositions; ++p)
    if (!(tower >> p & 1) && (kSupports[p] & tower) == kSupports[p] && (kContacts[p] & tower)) out |= static_cast<TowerMask>(1u << p);
  return out;
}

// §8, F1 [R]: the provisional Master Builder deck. Bonus cards ignore crystals (F2): each is
// measured on the tower with every crystal taken out.
enum class BonusKind : std::uint8_t { kMajority, kPlacement };
struct BonusCard {
  std::string_view id;
  BonusKind kind;
  int min;  // MAJORITY: the least winning value
  int points;
  std::string_view text;
};
inline constexpr int kBonusCards = 8;
inline constexpr std::array<BonusCard, kBonusCards> kBonusDeck = {{
    {"B1", BonusKind::kMajority, 1, 5, "the most non-crystal stones of one colour"},
    {"B2", BonusKind::kMajority, 2, 5, "the largest group of non-crystal stones (at least 2)"},
    {"B3", BonusKind::kMajority, 1, 5, "the most different colours among non-crystal stones"},
    {"B4", BonusKind::kMajority, 1, 5, "the most non-crystal stones of one colour on level 1"},
    {"B5", BonusKind::kPlacement, 0, 4, "both level-4 stones non-crystal and of one colour"},
    {"B6", BonusKind::kPlacement, 0, 4, "the level-1 end stones 1,0 and 1,4 non-crystal and of one colour"},
    {"B7", BonusKind::kPlacement, 0, 4, "1,2 and 3,1 of one colour, with 2,1 or 2,2 of it too, all non-crystal"},
    {"B8", BonusKind::kPlacement, 0, 4, "all 3 level-3 stones non-crystal and of one colour"},
}};

// §11: every number of the rules in one table. The ones marked [R] are reconstructions (§10);
// `kibitz games` lists them (yak_constants() in yak.cpp gives each value's status).
struct Rules {
  int stones_per_colour = 8;
  int crystals = 8;
  int fog_stones = 5;
  int food_per_kind = 15;
  int start_yurt = 1;           // of each food
  int yurt_limit = 8;
  int cart_stones = 4;          // the most stones a cart holds
  int cart_food = 9;            // the most food a cart holds
  int start_cart_stones = 3;
  int start_cart_food = 3;      // of each food the cart carries
  int start_market = 2;         // of each food
  std::array<int, 5> removed_colours = {0, 0, 2, 1, 0};  // [R] A3, A4: by player count
  std::array<int, 4> base_cost = {0, 1, 3, 5};           // [R] B1: 2 stones cost 3
  int crystal_surcharge = 1;
  int max_stones_bought = 3;
  int restock_draw = 1;
  int market_draw = 3;
  int refill_draw = 3;
  int market_take = 2;
  int fog_track_capacity = 4;  // [R] C1
  int fog_fills = 2;           // [R] C1, C-seed
  std::array<int, 8> group_points = {0, 0, 2, 4, 7, 11, 16, 22};        // [R] G1 (6 -> 16 C-seed); by size, 7+ = 22
  std::array<int, 8> groups_count_points = {0, 0, 0, 4, 8, 12, 16, 20};  // by count, 7+ = 20
  int single_stone_points = 1;
  int stupa_points = 5;           // [R] G2
  int food_majority_points = 3;   // [R] G2
  int extra_rounds = 1;
  int max_rounds = 100;           // [R] E2
  int bonus_revealed = 3;
};
inline constexpr Rules kRules{};
static_assert(kRules.fog_fills * kRules.fog_track_capacity - kRules.fog_stones < kRules.fog_track_capacity);

// §2, A3 [R]: which stones leave the game by player count.
enum class Removal : std::uint8_t { kColours, kEven };

// §4.1: a multiset of 0-3 stones (a purchase) is one of 220; its id is its index in this list:
// the empty one, then by size, each size in ascending order of its stones.
inline constexpr int kPurchases = 220;
struct Purchase {
  std::array<std::uint8_t, 3> stones;  // ascending; kEmpty past the size
  std::uint8_t size;
};
inline constexpr std::array<Purchase, kPurchases> kPurchaseList = [] {
  std::array<Purchase, kPurchases> out{};
  int n = 0;
  out[n++] = {{kEmpty, kEmpty, kEmpty}, 0};
  for (int a = 0; a < kStoneKinds; ++a) out[n++] = {{static_cast<std::uint8_t>(a), kEmpty, kEmpty}, 1};
  for (int a = 0; a < kStoneKinds; ++a)
    for (int b = a; b < kStoneKinds; ++b) out[n++] = {{static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b), kEmpty}, 2};
  for (int a = 0; a < kStoneKinds; ++a)
    for (int b = a; b < kStoneKinds; ++b)
      for (int c = b; c < kStoneKinds; ++c) out[n++] = {{static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(c)}, 3};
  return out;
}();
// The id of the purchase (a, b, c) ascending, kEmpty (as 9) past the size.
inline constexpr std::array<std::uint8_t, 1000> kPurchaseIndex = [] {
  std::array<std::uint8_t, 1000> out{};
  for (int i = 0; i < kPurchases; ++i) {
    auto k = [&](int j) { return kPurchaseList[i].stones[j] == kEmpty ? 9 : kPurchaseList[i].stones[j]; };
    out[100 * k(0) + 10 * k(1) + k(2)] = static_cast<std::uint8_t>(i);
  }
  return out;
}();

struct Options {
  int players = 4;
  Removal removal = Removal::kColours;
  bool master_builder = false;                      // §8: the variant with bonus cards
  std::array<std::uint8_t, 4> layout = {kNoCart, kNoCart, kNoCart, kNoCart};  // A2: a fixed layout, or random
  int start = -1;                                   // -1: the start player is drawn
  std::array<std::uint8_t, 3> bonus = {kNoCart, kNoCart, kNoCart};  // fixed bonus cards, or drawn
};
Options parse_options(const std::map<std::string, std::string>& options);

// The rule constants as (name, value, status) for the registry (`kibitz games`).
std::vector<std::array<std::string, 3>> yak_constants();

// §12.3: the decision (or chance) the game is at.
enum class Step : std::uint8_t { kChoose, kBuild, kPay, kOverflow, kPlace, kRestock, kTake, kPut, kDraw, kOver };

// §7: one player's score by category.
struct Score {
  int groups = 0, groups_count = 0, singles = 0, stupa = 0, food = 0, bonus = 0;
  int total() const { return groups + groups_count + singles + stupa + food + bonus; }
};

class State {
 public:
  static constexpr const char* kName = "yak";
  static constexpr int kMaxPlayers = 4;
  // Action ids (§12.5; docs/games/yak.md §4): every decision kind has a range of its own, so that
  // the first decision of a turn, which every seat observes, names the card revealed.
  static constexpr Action kChooseBase = 0;                                    // + card
  static constexpr Action kBuildBase = kChooseBase + kCards;                  // + purchase id
  static constexpr Action kPayBase = kBuildBase + kPurchases;                 // + 9 meat + milk
  static constexpr Action kOverflowBase = kPayBase + 81;                      // + 9 meat + milk
  static constexpr Action kPlaceBase = kOverflowBase + 81;                    // + 14 stone + position
  static constexpr Action kRestockBase = kPlaceBase + kStoneKinds * kPositions;  // + food
  static constexpr Action kTakeBase = kRestockBase + kFoods;                  // + 3 meat + milk
  static constexpr Action kPutBase = kTakeBase + 9;                           // + 4 stone + cart
  static constexpr int kMaxActions = kPutBase + kStoneKinds * kCarts;
  static constexpr int kMaxChanceOutcomes = kPieceKinds;  // a draw: the kind of piece
  // A run of draws is one edge of a search tree (game.h): its multiset alone decides the state.
  static constexpr bool kChanceRunsCommute = true;

  static State initial(const Options& options, std::uint64_t seed);
  static State from_string(std::string_view text);  // throws NotationError
  static State from_view(std::string_view text);

  int num_players() const { return players_; }
  bool is_terminal() const { return step_ == Step::kOver; }
  int current_player() const {
    switch (step_) {
      case Step::kChoose: return kSimultaneousPlayer;
      case Step::kDraw: return kChancePlayer;
      case Step::kOver: return kTerminalPlayer;
      default: return actor();
    }
  }
  // §3: the Noon order starts with the baby-yak holder and goes clockwise.
  int actor() const { return (baby_ + turn_) % players_; }
  Step step() const { return step_; }

  // Sunrise, the simultaneous node (§3, §12.2): the players who have not chosen, from the
  // baby-yak holder clockwise (the recording order of §12.2).
  int choosing_seats(int* seats) const {
    int n = 0;
    for (int k = 0; k < players_; ++k) {
      const int p = (baby_ + k) % players_;
      if (card_[p] == kNoCard) seats[n++] = p;
    }
    return n;
  }
  int legal_choices(int, Action* out) const {
    for (int c = 0; c < kCards; ++c) out[c] = kChooseBase + c;
    return kCards;
  }
  void apply_joint(const Action* joint) {
    for (int p = 0; p < players_; ++p)
      if (card_[p] == kNoCard) card_[p] = static_cast<Card>(joint[p] - kChooseBase);
    start_turn();
  }
  // §9: a chosen card is secret until its owner's Noon turn starts (then its first decision,
  // which all observe, names it; the view shows it from the turn's start).
  Action observe_choice(int observer, int chooser, Action a) const { return observer == chooser ? a : kUnobserved; }
  Action heuristic_choice(int seat, Rng& rng) const;
  // A Sunrise at which some players have chosen (a position in the middle of §12.2's sequential
  // record), with every card but `seat`'s own taken back (game.h HasReopenChoices): at Sunrise no
  // one sees another's card, and each was chosen without knowing seat's.
  State reopen_choices(int seat) const {
    State s = *this;
    for (int p = 0; p < players_; ++p)
      if (p != seat) s.card_[p] = kNoCard;
    return s;
  }

  int legal_actions(Action* out) const;
  void apply(Action action);

  // §5.2, §12.4: a draw takes one piece uniformly from the bag, fog included.
  int chance_outcomes(ChanceOutcome* out) const {
    const int total = bag_total();
    int n = 0;
    for (int k = 0; k < kPieceKinds; ++k)
      if (bag_[k]) out[n++] = {static_cast<Action>(k), static_cast<double>(bag_[k]) / total};
    return n;
  }
  Action sample_chance(Rng& rng) const {
    int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(bag_total())));
    int k = 0;
    while (r >= bag_[k]) r -= bag_[k++];
    return static_cast<Action>(k);
  }

  void returns(double* out) const;
  void scores(double* out) const;  // §7.1: each total, as if the game ended now
  void ranks(double* out) const;   // §7.3: by (total, food left, stupa)
  int team(int seat) const { return seat; }

  // §9: only the chosen cards are hidden; every decision and draw is seen by all.
  std::uint64_t info_key(int seat) const;
  Action observe(int, Action a) const { return a; }
  State determinize(int seat, Rng& rng) const;
  std::string observation_string(int seat, Action a) const;
  std::string joint_observation_string(int seat, const Action* joint) const;
  State after_observation(int seat, std::string_view seen, Rng& rng) const;

  // The rollout policy's weights (heuristic_action) and the greedy evaluation's (evaluate), set
  // at run time by name (game.h).
  enum Weight { kBuyStone, kBuyColour, kBuyCrystal, kBuyFood, kPlaceLevel, kWeights };
  static constexpr std::array<PolicyWeight, kWeights> kPolicyWeights = {{
      {"stone", 1.5, -100, 100, "Build: per stone of a purchase"},
      {"colour", 1, -100, 100, "Build: per stone of a colour already in the tower"},
      {"crystal", 0.8, -100, 100, "Build: per crystal"},
      {"food", 0.5, -100, 100, "Build: per token of food a purchase costs"},
      {"level", 0.1, -100, 100, "Place: cost per level of the position (per same-colour stone in contact: 1)"},
  }};
  Action heuristic_action(Rng& rng, const double* weights) const;
  Action heuristic_action(Rng& rng) const { return heuristic_action(rng, kDefaultWeights.data()); }
  enum EvalWeight { kEvalStonePotential, kEvalFood, kEvalRestockStone, kEvalMarketPut, kEvalCount };
  static constexpr std::array<PolicyWeight, kEvalCount> kEvalWeights = {{
      {"stone_potential", 1, -100, 100, "per stone in a tower or bought, beyond its points now: what it may still join"},
      {"food", 0.5, -100, 100, "per token of food in the yurt, or to be fetched, or spent by a purchase"},
      {"restock_stone", 0.2, -100, 100, "a Restock card still to play: the stone it adds to the cart"},
      {"market_put", 0.3, -100, 100, "a Market card still to play: choosing where a drawn stone goes"},
  }};
  double evaluate(int seat, const double* weights) const;
  double evaluate(int seat) const { return evaluate(seat, kDefaultEval.data()); }

  std::string action_to_string(Action action) const;
  Action parse_action(std::string_view text) const;
  std::string to_string() const;
  std::string view_string(int seat) const;
  std::string render(int seat) const;
  // Observation tensor and length bound (core/tensor.h; csrc/games/yak_tensor.cpp; the layout is in
  // docs/games/yak.md).
  int observation_tensor(int seat, float* out) const;
  int max_game_length() const;

  Score score(int seat) const;
  // §7.1, §7.2: groups, number of groups and single stones of a tower, with the best crystal
  // assignment (categories 1-3).
  int tower_points(int seat) const;
  int cost(const Stones& stones) const;  // §4.1: BASE[k] plus the crystal surcharge

  friend bool operator==(const State&, const State&) = default;

 private:
  static constexpr std::array<double, kWeights> kDefaultWeights = default_weights(kPolicyWeights);
  static constexpr std::array<double, kEvalCount> kDefaultEval = default_weights(kEvalWeights);
  static int total(const Stones& s) {
    int n = 0;
    for (auto c : s) n += c;
    return n;
  }
  static int total(const FoodCounts& f) { return f[0] + f[1] + f[2]; }
  int bag_total() const {
    int n = 0;
    for (auto c : bag_) n += c;
    return n;
  }
  bool bag_has_stone() const { return bag_total() > bag_[kFog]; }
  int my_cart() const { return cart_at_[actor()]; }
  int stations() const { return players_ == 4 ? 4 : 3; }
  bool cart_in_play(int cart) const { return cart != kTwoKinds || players_ == 4; }
  // §4.1: the most food the actor can pay into its cart (for TWO_KINDS: its two largest kinds).
  int usable_food(int cart) const;
  int take_count() const;  // §4.3: m = min(2, market, room in the yurt)
  int overflow_due() const { return step_ == Step::kOverflow ? total(cart_food_[my_cart()]) - kRules.cart_food : 0; }
  bool payment_ok(int cart, int meat, int milk, int bread) const;

  void start_turn();
  void end_action();
  void begin_draws(int n);
  void settle_draws();
  void sunset();
  void place(int p, int kind, int pos);

  static State parse(std::string_view text, int* seat);
  void validate() const;
  std::string write(int seat) const;
  bool hidden_from(int seat, int p) const;  // whether p's card is secret to seat now

  std::uint8_t players_ = 4;
  Removal removal_ = Removal::kColours;
  std::uint8_t colours_ = kColours;  // colours in play: 0 .. colours_-1 (§2)
  bool master_ = false;
  std::array<std::uint8_t, 3> bonus_ = {kNoCart, kNoCart, kNoCart};
  std::uint8_t round_ = 1;
  std::uint8_t baby_ = 0;
  std::uint8_t turn_ = 0;  // Noon: the actor is the turn_-th player from the baby-yak holder
  Step step_ = Step::kChoose;
  std::array<Card, kMaxPlayers> card_ = {kNoCard, kNoCard, kNoCard, kNoCard};
  std::int8_t dir_ = 1;          // §3: +1 clockwise
  std::uint8_t track_ = 0;       // §5.2: fog stones on the mountain
  std::uint8_t fills_ = 0;       // how often the track has filled
  std::uint8_t aside_ = 0;       // the last fog stone, beside the mountain until the action ends
  std::uint8_t trigger_ = 0;     // §6: the round the stupa was taken in (0: not yet)
  std::int8_t stupa_ = -1;       // its holder
  // An action in progress (§12.6).
  Stones bought_{};              // bought, not yet placed
  FoodCounts paid_{};            // the payment just made (only while an overflow is due)
  Stones drawn_{};               // Market stones drawn, awaiting PUT
  std::uint8_t draws_ = 0;       // draws still to make
  std::array<std::uint8_t, kPieceKinds> bag_{};
  FoodCounts market_{};
  std::array<FoodCounts, kMaxPlayers> yurt_{};
  std::array<Stones, kCarts> cart_stones_{};
  std::array<FoodCounts, kCarts> cart_food_{};
  std::array<std::uint8_t, 4> cart_at_ = {kNoCart, kNoCart, kNoCart, kNoCart};  // by station
  std::array<std::array<std::uint8_t, kPositions>, kMaxPlayers> tower_{};  // kind per position or kEmpty
  std::array<TowerMask, kMaxPlayers> tower_mask_{};
};

static_assert(SimultaneousGame<State>);
static_assert(HasJointObservationText<State>);
static_assert(HasObservationText<State>);

// ---------------------------------------------------------------------------------------------
// The moves (§4, §5), inline because the search calls them.

inline int State::usable_food(int cart) const {
  const FoodCounts& y = yurt_[actor()];
  if (cart == kTwoKinds) {
    const int lo = std::min({y[0], y[1], y[2]});
    return total(y) - lo;
  }
  return total(y) - y[forbidden_food(cart)];
}

inline int State::cost(const Stones& stones) const {
  return kRules.base_cost[total(stones)] + kRules.crystal_surcharge * stones[kCrystal];
}

inline int State::take_count() const {
  return std::min({kRules.market_take, total(market_), kRules.yurt_limit - total(yurt_[actor()])});
}

inline bool State::payment_ok(int cart, int meat, int milk, int bread) const {
  const FoodCounts& y = yurt_[actor()];
  if (meat > y[kMeat] || milk > y[kMilk] || bread > y[kBread] || meat < 0 || milk < 0 || bread < 0) return false;
  const std::array<int, 3> f = {meat, milk, bread};
  if (cart == kTwoKinds) return (meat > 0) + (milk > 0) + (bread > 0) <= 2;
  return f[forbidden_food(cart)] == 0;
}

inline int State::legal_actions(Action* out) const {
  int n = 0;
  const int p = actor();
  switch (step_) {
    case Step::kBuild: {  // §4.1: "nothing", and every purchase the cart, the tower and the yurt allow
      out[n++] = kBuildBase;
      const int cart = my_cart();
      const Stones& c = cart_stones_[cart];
      const int room = std::min(kRules.max_stones_bought, kPositions - std::popcount(tower_mask_[p]));
      const int food = usable_food(cart);
      std::array<std::uint8_t, 4> kinds{};
      int distinct = 0;
      for (int k = 0; k < kStoneKinds; ++k)
        if (c[k]) kinds[distinct++] = static_cast<std::uint8_t>(k);
      // every sub-multiset of 1-3 stones, as an ascending (a, b, d) of the cart's kinds
      auto offer = [&](int size, int a, int b, int d) {
        const int crystals = (a == kCrystal) + (size > 1 && b == kCrystal) + (size > 2 && d == kCrystal);
        if (size <= room && kRules.base_cost[size] + kRules.crystal_surcharge * crystals <= food)
          out[n++] = kBuildBase + kPurchaseIndex[100 * a + 10 * (size > 1 ? b : 9) + (size > 2 ? d : 9)];
      };
      for (int i = 0; i < distinct; ++i) {
        const int a = kinds[i];
        offer(1, a, 0, 0);
        for (int j = i; j < distinct; ++j) {
          const int b = kinds[j];
          if (b == a && c[a] < 2) continue;
          offer(2, a, b, 0);
          for (int k = j; k < distinct; ++k) {
            const int d = kinds[k];
            if (d == b && c[b] < (b == a ? 3 : 2)) continue;
            offer(3, a, b, d);
          }
        }
      }
      std::sort(out + 1, out + n);
      return n;
    }
    case Step::kPay: {  // every payment of exactly cost(k) the yurt and the cart allow
      const int due = cost(bought_), cart = my_cart();
      for (int meat = 0; meat <= due; ++meat)
        for (int milk = 0; milk + meat <= due; ++milk)
          if (payment_ok(cart, meat, milk, due - meat - milk)) out[n++] = kPayBase + 9 * meat + milk;
      return n;
    }
    case Step::kOverflow: {  // every sub-multiset of the payment with (cart food - 9) tokens
      const int excess = total(cart_food_[my_cart()]) - kRules.cart_food;
      for (int meat = 0; meat <= paid_[kMeat] && meat <= excess; ++meat)
        for (int milk = 0; milk <= paid_[kMilk] && meat + milk <= excess; ++milk)
          if (excess - meat - milk <= paid_[kBread]) out[n++] = kOverflowBase + 9 * meat + milk;
      return n;
    }
    case Step::kPlace: {  // every (bought stone not yet placed, position legal now)
      const TowerMask legal = legal_positions(tower_mask_[p]);
      for (int k = 0; k < kStoneKinds; ++k)
        if (bought_[k])
          for (TowerMask m = legal; m; m &= m - 1) out[n++] = kPlaceBase + kPositions * k + std::countr_zero(m);
      return n;
    }
    case Step::kRestock:  // §4.2, B11: all three kinds, always
      for (int f = 0; f < kFoods; ++f) out[n++] = kRestockBase + f;
      return n;
    case Step::kTake: {  // §4.3, B4: every multiset of exactly m tokens the market can supply
      const int m = take_count();
      for (int meat = 0; meat <= m && meat <= market_[kMeat]; ++meat)
        for (int milk = 0; meat + milk <= m && milk <= market_[kMilk]; ++milk)
          if (m - meat - milk <= market_[kBread]) out[n++] = kTakeBase + 3 * meat + milk;
      return n;
    }
    case Step::kPut:  // every (drawn stone, cart in play with fewer than 4 stones)
      for (int k = 0; k < kStoneKinds; ++k)
        if (drawn_[k])
          for (int cart = 0; cart < kCarts; ++cart)
            if (cart_in_play(cart) && total(cart_stones_[cart]) < kRules.cart_stones) out[n++] = kPutBase + kCarts * k + cart;
      return n;
    default:
      return 0;
  }
}

inline void State::place(int p, int kind, int pos) {
  tower_[p][pos] = static_cast<std::uint8_t>(kind);
  tower_mask_[p] = static_cast<TowerMask>(tower_mask_[p] | 1u << pos);
}

inline void State::apply(Action action) {
  const int p = actor();
  if (step_ == Step::kDraw) {  // §5.2 draw_nonfog, one piece at a time
    const int kind = static_cast<int>(action);
    --bag_[kind];
    if (kind == kFog) {
      dir_ = static_cast<std::int8_t>(-dir_);  // every yak turns round
      if (fills_ == kRules.fog_fills) {
        ++aside_;  // C3: the last fog stone waits beside the mountain until the action ends
      } else if (++track_ == kRules.fog_track_capacity && ++fills_ < kRules.fog_fills) {
        bag_[kFog] = static_cast<std::uint8_t>(bag_[kFog] + track_);  // C5: the first fill goes back at once
        track_ = 0;
      }
    } else {
      if (card_[p] == kMarket)
        ++drawn_[kind];
      else
        ++cart_stones_[my_cart()][kind];
      --draws_;
    }
    settle_draws();
    return;
  }
  const int cart = my_cart();
  switch (step_) {
    case Step::kBuild: {
      const Purchase& buy = kPurchaseList[action - kBuildBase];
      if (buy.size == 0) return end_action();  // B3: a pure no-op, no refill
      for (int i = 0; i < buy.size; ++i) {
        --cart_stones_[cart][buy.stones[i]];
        ++bought_[buy.stones[i]];
      }
      step_ = Step::kPay;
      return;
    }
    case Step::kPay: {
      const int id = static_cast<int>(action - kPayBase);
      const int due = cost(bought_);
      const FoodCounts pay = {static_cast<std::uint8_t>(id / 9), static_cast<std::uint8_t>(id % 9), static_cast<std::uint8_t>(due - id / 9 - id % 9)};
      for (int f = 0; f < kFoods; ++f) {
        yurt_[p][f] = static_cast<std::uint8_t>(yurt_[p][f] - pay[f]);
        cart_food_[cart][f] = static_cast<std::uint8_t>(cart_food_[cart][f] + pay[f]);
      }
      if (total(cart_food_[cart]) > kRules.cart_food) {
        paid_ = pay;
        step_ = Step::kOverflow;
      } else {
        step_ = Step::kPlace;
      }
      return;
    }
    case Step::kOverflow: {  // §5.1: the excess goes on to the market, the only way it refills
      const int id = static_cast<int>(action - kOverflowBase);
      const int excess = total(cart_food_[cart]) - kRules.cart_food;
      const FoodCounts out = {static_cast<std::uint8_t>(id / 9), static_cast<std::uint8_t>(id % 9), static_cast<std::uint8_t>(excess - id / 9 - id % 9)};
      for (int f = 0; f < kFoods; ++f) {
        cart_food_[cart][f] = static_cast<std::uint8_t>(cart_food_[cart][f] - out[f]);
        market_[f] = static_cast<std::uint8_t>(market_[f] + out[f]);
      }
      paid_ = {};
      step_ = Step::kPlace;
      return;
    }
    case Step::kPlace: {
      const int id = static_cast<int>(action - kPlaceBase);
      const int kind = id / kPositions;
      place(p, kind, id % kPositions);
      --bought_[kind];
      if (total(bought_) > 0) return;
      if (tower_mask_[p] == kFullTower && stupa_ < 0) {  // §6: the first complete tower takes the stupa
        stupa_ = static_cast<std::int8_t>(p);
        trigger_ = round_;
      }
      if (total(cart_stones_[cart]) == 0) return begin_draws(kRules.refill_draw);  // §5.1: the refill
      return end_action();
    }
    case Step::kRestock: {  // §5.1: all of one kind up to the yurt limit; B6: the rest stays
      const int f = static_cast<int>(action - kRestockBase);
      const int n = std::min<int>(cart_food_[cart][f], kRules.yurt_limit - total(yurt_[p]));
      cart_food_[cart][f] = static_cast<std::uint8_t>(cart_food_[cart][f] - n);
      yurt_[p][f] = static_cast<std::uint8_t>(yurt_[p][f] + n);
      if (total(cart_stones_[cart]) < kRules.cart_stones) return begin_draws(kRules.restock_draw);  // B12: 1 stone
      return end_action();
    }
    case Step::kTake: {
      const int id = static_cast<int>(action - kTakeBase);
      const int m = take_count();
      const FoodCounts take = {static_cast<std::uint8_t>(id / 3), static_cast<std::uint8_t>(id % 3), static_cast<std::uint8_t>(m - id / 3 - id % 3)};
      for (int f = 0; f < kFoods; ++f) {
        market_[f] = static_cast<std::uint8_t>(market_[f] - take[f]);
        yurt_[p][f] = static_cast<std::uint8_t>(yurt_[p][f] + take[f]);
      }
      for (int c = 0; c < kCarts; ++c)  // §5.1: draw only if some cart has room
        if (cart_in_play(c) && total(cart_stones_[c]) < kRules.cart_stones) return begin_draws(kRules.market_draw);
      return end_action();
    }
    case Step::kPut: {  // B9: one drawn stone into a cart with room; the others go back
      const int id = static_cast<int>(action - kPutBase);
      const int kind = id / kCarts;
      --drawn_[kind];
      ++cart_stones_[id % kCarts][kind];
      for (int k = 0; k < kStoneKinds; ++k) bag_[k] = static_cast<std::uint8_t>(bag_[k] + drawn_[k]);
      drawn_ = {};
      return end_action();
    }
    default:
      return;
  }
}

inline void State::start_turn() {
  switch (card_[actor()]) {
    case kBuild: step_ = Step::kBuild; break;
    case kRestock: step_ = Step::kRestock; break;
    default: step_ = Step::kTake; break;
  }
}

inline void State::begin_draws(int n) {
  draws_ = static_cast<std::uint8_t>(n);
  step_ = Step::kDraw;
  settle_draws();
}

// After a draw: the next draw (a chance node), or, when the draws are done or the bag holds no
// stone (C4: only fog is never drawn from), what follows them.
inline void State::settle_draws() {
  if (draws_ > 0 && bag_has_stone()) return;
  draws_ = 0;
  if (card_[actor()] == kMarket && total(drawn_) > 0) {
    step_ = Step::kPut;
    return;
  }
  end_action();
}

// §5.1: the end of an action; the last fog stone goes back (C3), the next player acts or Sunset.
inline void State::end_action() {
  bag_[kFog] = static_cast<std::uint8_t>(bag_[kFog] + aside_);
  aside_ = 0;
  if (++turn_ < players_) return start_turn();
  sunset();
}

// §3: Sunset, then the end check of §6.
inline void State::sunset() {
  const int s = stations();
  std::array<std::uint8_t, 4> moved = {kNoCart, kNoCart, kNoCart, kNoCart};
  for (int st = 0; st < s; ++st) moved[(st + dir_ + s) % s] = cart_at_[st];
  cart_at_ = moved;
  baby_ = static_cast<std::uint8_t>((baby_ + 1) % players_);
  card_ = {kNoCard, kNoCard, kNoCard, kNoCard};
  turn_ = 0;
  if ((trigger_ && round_ == trigger_ + kRules.extra_rounds) || round_ == kRules.max_rounds) {
    step_ = Step::kOver;
    return;
  }
  ++round_;
  step_ = Step::kChoose;
}

}  // namespace kibitz::yak
