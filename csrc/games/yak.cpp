// Yak: options and constants, setup, scoring, information, heuristics and notation. The move
// rules (§4, §5) are inline in the header because the search calls them.
#include "games/yak.h"

#include <numeric>
#include <sstream>

#include "core/text.h"

namespace kibitz::yak {
namespace {

constexpr std::uint8_t kColourless = 0xFE;  // a crystal left without a colour (G3)

std::string stones_text(const Stones& s) {
  std::string out;
  for (int k = 0; k < kStoneKinds; ++k) out.append(s[k], k == kCrystal ? 'X' : static_cast<char>('0' + k));
  return out.empty() ? "-" : out;
}

std::string kind_text(int k) { return k == kCrystal ? "X" : k == kFog ? "F" : std::string(1, static_cast<char>('0' + k)); }

int kind_of(char c) {
  if (c >= '0' && c <= '7') return c - '0';
  if (c == 'X') return kCrystal;
  if (c == 'F') return kFog;
  return -1;
}

Stones parse_stones(std::string_view s, std::string_view what) {
  Stones out{};
  if (s == "-") return out;
  for (char c : s) {
    const int k = kind_of(c);
    if (k < 0 || k == kFog) throw NotationError(std::string(what) + ": '" + std::string(1, c) + "' is not a stone (0-7 or X)");
    if (++out[k] > kRules.stones_per_colour) throw NotationError(std::string(what) + ": too many stones of kind " + kind_text(k));
  }
  return out;
}

std::string food_text(const FoodCounts& f) { return std::to_string(f[0]) + "." + std::to_string(f[1]) + "." + std::to_string(f[2]); }

FoodCounts parse_food(std::string_view s, std::string_view what) {
  const auto parts = text::split(s, '.');
  if (parts.size() != kFoods) throw NotationError(std::string(what) + ": expected meat.milk.bread counts, got '" + std::string(s) + "'");
  FoodCounts out{};
  for (int f = 0; f < kFoods; ++f) out[f] = static_cast<std::uint8_t>(text::to_int(parts[f], 0, kRules.food_per_kind, what));
  return out;
}

// A list of food words (§12.5), in any order; the counts per kind.
bool food_words(const std::vector<std::string_view>& words, std::size_t from, FoodCounts& out) {
  out = {};
  if (words.size() == from + 1 && words[from] == "-") return true;
  for (std::size_t i = from; i < words.size(); ++i) {
    const auto it = std::find(kFoodNames.begin(), kFoodNames.end(), words[i]);
    if (it == kFoodNames.end() || ++out[it - kFoodNames.begin()] > 9) return false;
  }
  return true;
}

std::string food_list(const FoodCounts& f) {
  std::string out;
  for (int k = 0; k < kFoods; ++k)
    for (int i = 0; i < f[k]; ++i) out += (out.empty() ? "" : " ") + std::string(kFoodNames[k]);
  return out.empty() ? "-" : out;
}

// Food for people: "3 milk, 2 bread", "none".
std::string food_counts(const FoodCounts& f) {
  std::string out;
  for (int k = 0; k < kFoods; ++k)
    if (f[k]) out += (out.empty() ? "" : ", ") + std::to_string(f[k]) + " " + std::string(kFoodNames[k]);
  return out.empty() ? "none" : out;
}

std::string position_text(int pos) { return std::to_string(level_of(pos)) + "," + std::to_string(index_of(pos)); }

int parse_position(std::string_view s) {
  const auto parts = text::split(s, ',');
  if (parts.size() != 2) throw NotationError("position: expected L,i (level 1-4, index), got '" + std::string(s) + "'");
  const int level = text::to_int(parts[0], 1, kLevels, "position level");
  return position(level, text::to_int(parts[1], 0, level_size(level) - 1, "position index on level " + std::to_string(level)));
}

int cart_of(std::string_view name) {
  const auto it = std::find(kCartNames.begin(), kCartNames.end(), name);
  return it == kCartNames.end() ? -1 : static_cast<int>(it - kCartNames.begin());
}

std::string tower_text(const std::array<std::uint8_t, kPositions>& t) {
  std::string out;
  for (int p = 0; p < kPositions; ++p) {
    if (p > 0 && index_of(p) == 0) out += '|';
    out += t[p] == kEmpty ? '.' : kind_text(t[p])[0];
  }
  return out;
}

// The component of `start` among the positions `within` (contacts of §5.3).
TowerMask component(TowerMask start, TowerMask within) {
  TowerMask comp = start, frontier = start;
  while (frontier) {
    TowerMask next = 0;
    for (TowerMask f = frontier; f; f &= f - 1) next |= kContacts[std::countr_zero(f)];
    frontier = static_cast<TowerMask>(next & within & ~comp);
    comp |= frontier;
  }
  return comp;
}

int group_points(int size) { return kRules.group_points[std::min(size, 7)]; }

// Categories 1-3 (§7.1) of a tower whose every stone has a colour 0-7 or none (kColourless).
Score colour_score(const std::array<std::uint8_t, kPositions>& colour) {
  std::array<TowerMask, kColours> masks{};
  Score s;
  for (int p = 0; p < kPositions; ++p) {
    if (colour[p] < kColours) masks[colour[p]] |= static_cast<TowerMask>(1u << p);
    else if (colour[p] == kColourless) s.singles += kRules.single_stone_points;
  }
  int groups = 0;
  for (TowerMask m : masks)
    while (m) {
      const TowerMask comp = component(static_cast<TowerMask>(m & -m), m);
      m = static_cast<TowerMask>(m & ~comp);
      const int size = std::popcount(comp);
      if (size >= 2) {
        s.groups += group_points(size);
        ++groups;
      } else {
        s.singles += kRules.single_stone_points;
      }
    }
  s.groups_count = kRules.groups_count_points[std::min(groups, 7)];
  return s;
}

int points13(const Score& s) { return s.groups + s.groups_count + s.singles; }

// §7.2, F2, G3, G4: the best assignment of colours to the crystals of a tower, by depth-first
// search. Colours in play that touch no crystal are interchangeable (any of them leaves a crystal
// a single stone), so one of them stands for all; when there are more crystals than colours,
// exactly the surplus take no colour.
Score best_score(const std::array<std::uint8_t, kPositions>& tower, int colours) {
  std::array<std::uint8_t, kPositions> colour = tower;
  std::array<int, kPositions> crystals{};
  int k = 0;
  for (int p = 0; p < kPositions; ++p)
    if (tower[p] == kCrystal) crystals[k++] = p;
  if (k == 0) return colour_score(colour);
  std::uint32_t relevant = 0;  // colours in play touching some crystal
  for (int i = 0; i < k; ++i)
    for (TowerMask c = kContacts[crystals[i]]; c; c &= c - 1) {
      const int q = std::countr_zero(c);
      if (tower[q] < colours) relevant |= 1u << tower[q];
    }
  int spare = colours - std::popcount(relevant);  // interchangeable colours left
  int colourless = std::max(0, k - colours);      // crystals that must stay without a colour
  std::uint32_t used = 0;
  Score best;
  int best_points = -1;
  auto search = [&](auto&& self, int i) -> void {
    if (i == k) {
      const Score s = colour_score(colour);
      if (points13(s) > best_points) best_points = points13(s), best = s;
      return;
    }
    const int p = crystals[i];
    for (std::uint32_t r = relevant & ~used; r; r &= r - 1) {
      const int c = std::countr_zero(r);
      colour[p] = static_cast<std::uint8_t>(c);
      used |= 1u << c;
      self(self, i + 1);
      used &= ~(1u << c);
    }
    colour[p] = kColourless;  // a crystal alone: an interchangeable colour, or none
    if (spare > 0) {
      --spare;
      self(self, i + 1);
      ++spare;
    } else if (colourless > 0) {
      --colourless;
      self(self, i + 1);
      ++colourless;
    }
    colour[p] = kCrystal;
  };
  search(search, 0);
  return best;
}

// §8: a bonus card's measure for one tower, crystals taken out (F2).
int bonus_measure(int card, const std::array<std::uint8_t, kPositions>& t) {
  std::array<TowerMask, kColours> masks{};
  for (int p = 0; p < kPositions; ++p)
    if (t[p] < kColours) masks[t[p]] |= static_cast<TowerMask>(1u << p);
  auto same = [&](std::initializer_list<int> positions) {
    const int c = t[*positions.begin()];
    if (c >= kColours) return false;
    for (int p : positions)
      if (t[p] != c) return false;
    return true;
  };
  int best = 0;
  switch (card) {
    case 0:  // B1
      for (TowerMask m : masks) best = std::max(best, std::popcount(m));
      return best;
    case 1:  // B2, F3: groups of at least 2
      for (TowerMask m : masks)
        while (m) {
          const TowerMask comp = component(static_cast<TowerMask>(m & -m), m);
          m = static_cast<TowerMask>(m & ~comp);
          if (std::popcount(comp) >= 2) best = std::max(best, std::popcount(comp));
        }
      return best;
    case 2:  // B3
      for (TowerMask m : masks) best += m != 0;
      return best;
    case 3:  // B4
      for (TowerMask m : masks) best = std::max(best, std::popcount(static_cast<TowerMask>(m & level_mask(1))));
      return best;
    case 4: return same({position(4, 0), position(4, 1)});
    case 5: return same({position(1, 0), position(1, 4)});
    case 6: return (same({position(1, 2), position(3, 1), position(2, 1)}) || same({position(1, 2), position(3, 1), position(2, 2)})) ? 1 : 0;
    default: return same({position(3, 0), position(3, 1), position(3, 2)});
  }
}

constexpr std::initializer_list<const char*> kKeys = {"seat", "players", "removal", "bonus", "round", "baby", "turn", "step", "cards",
                                                      "dir", "track", "fog_fills", "fog_aside", "trigger", "stupa", "bag", "box", "market",
                                                      "carts", "yurts", "towers", "bought", "paid", "drawn", "draws"};
constexpr std::array<std::string_view, 10> kStepNames = {"choose", "build", "pay", "overflow", "place", "restock", "take", "put", "draw", "over"};

int removed(int players) { return kRules.removed_colours[players]; }

// §2 step 6: the stones that stay in the box.
std::array<std::uint8_t, kColours> box_of(int players, Removal removal) {
  std::array<std::uint8_t, kColours> box{};
  for (int c = 0; c < kColours; ++c)
    box[c] = static_cast<std::uint8_t>(removal == Removal::kEven ? removed(players) : c >= kColours - removed(players) ? kRules.stones_per_colour : 0);
  return box;
}

// The food of one kind in play (§1, B5): a closed economy of the yurts, the carts and the market.
int food_in_play(int players) {
  const int carriers = players == 4 ? 3 : 2;  // the restricted carts that carry it, and TWO_KINDS at 4
  return players * kRules.start_yurt + carriers * kRules.start_cart_food + kRules.start_market;
}

std::string removal_text(Removal r) { return r == Removal::kEven ? "even" : "colours"; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Options and constants

Options parse_options(const std::map<std::string, std::string>& options) {
  Options o;
  std::string variant = "base", bonus = "-";
  bool bonus_given = false;
  for (const auto& option : options) {
    const std::string &key = option.first, &value = option.second;  // not a structured binding: clang 14's lambdas cannot capture one
    auto bad = [&](const std::string& allowed) { return OptionError("option " + key + "='" + value + "' is not allowed; expected " + allowed); };
    if (key == "players") {
      if (value != "2" && value != "3" && value != "4") throw bad("2, 3 or 4 players");
      o.players = value[0] - '0';
    } else if (key == "variant") {
      if (value != "base" && value != "master_builder") throw bad("'base' or 'master_builder' (the bonus cards of §8)");
      variant = value;
    } else if (key == "bonus") {
      bonus = value, bonus_given = true;
    } else if (key == "removal") {
      if (value != "colours" && value != "even") throw bad("'colours' (whole colours leave at 2-3 players) or 'even' (stones of every colour)");
      o.removal = value == "even" ? Removal::kEven : Removal::kColours;
    } else if (key == "start") {
      if (value == "random") continue;
      try {
        o.start = text::to_int(value, 0, 3, key);
      } catch (const NotationError&) {
        throw bad("'random' or a seat 0..players-1");
      }
    } else if (key == "layout") {
      if (value == "random") continue;
      const auto names = text::split(value, ',');
      if (names.size() > 4) throw bad("'random' or the carts of stations 0, 1, ... separated by commas");
      for (std::size_t i = 0; i < names.size(); ++i) {
        const int c = cart_of(names[i]);
        if (c < 0) throw bad("'random' or cart names NO_MEAT, NO_MILK, NO_BREAD, TWO_KINDS by station");
        o.layout[i] = static_cast<std::uint8_t>(c);
      }
    } else {
      throw OptionError("unknown option '" + key + "' for yak; known: players, variant, bonus, removal, layout, start");
    }
  }
  // The bonus cards: '-' the base game; 'random' or three card ids the Master Builder variant.
  if (!bonus_given && variant == "master_builder") bonus = "random";
  if (bonus != "-") {
    if (variant == "base" && options.count("variant")) throw OptionError("option bonus='" + bonus + "' needs variant=master_builder (the base game has no bonus cards)");
    o.master_builder = true;
    if (bonus != "random") {
      const auto ids = text::split(bonus, ',');
      if (static_cast<int>(ids.size()) != kRules.bonus_revealed) throw OptionError("option bonus='" + bonus + "': expected 'random', '-' or 3 card ids B1-B8");
      for (int i = 0; i < kRules.bonus_revealed; ++i) {
        const auto it = std::find_if(kBonusDeck.begin(), kBonusDeck.end(), [&](const BonusCard& b) { return b.id == ids[i]; });
        if (it == kBonusDeck.end()) throw OptionError("option bonus='" + bonus + "': '" + std::string(ids[i]) + "' is not a card B1-B8");
        o.bonus[i] = static_cast<std::uint8_t>(it - kBonusDeck.begin());
      }
      std::sort(o.bonus.begin(), o.bonus.end());
      if (std::adjacent_find(o.bonus.begin(), o.bonus.end()) != o.bonus.end()) throw OptionError("option bonus='" + bonus + "': a card named twice");
    }
  } else if (variant == "master_builder") {
    throw OptionError("option bonus='-' contradicts variant=master_builder");
  }
  if (o.start >= o.players) throw OptionError("option start='" + std::to_string(o.start) + "' is not a seat of " + std::to_string(o.players) + " players");
  if (o.layout[0] != kNoCart) {
    const int s = o.players == 4 ? 4 : 3;
    std::array<std::uint8_t, 4> sorted = o.layout;
    std::sort(sorted.begin(), sorted.begin() + s);
    const bool exact = (o.layout[s - 1] != kNoCart) && (s == 4 || o.layout[3] == kNoCart) &&
                       std::equal(sorted.begin(), sorted.begin() + s, std::array<std::uint8_t, 4>{kNoMeat, kNoMilk, kNoBread, kTwoKinds}.begin());
    if (!exact)
      throw OptionError(std::string("option layout: with ") + std::to_string(o.players) + " players the carts are " +
                        (s == 4 ? "NO_MEAT, NO_MILK, NO_BREAD and TWO_KINDS" : "NO_MEAT, NO_MILK and NO_BREAD") + ", each once, by station");
  }
  return o;
}

std::vector<std::array<std::string, 3>> yak_constants() {
  const Rules& r = kRules;
  auto n = [](int v) { return std::to_string(v); };
  std::string groups, counts, deck;
  for (int s = 2; s <= 7; ++s) groups += (s > 2 ? ", " : "") + n(r.group_points[s]);
  for (int c = 3; c <= 7; ++c) counts += (c > 3 ? ", " : "") + n(c) + ": " + n(r.groups_count_points[c]);
  for (const BonusCard& b : kBonusDeck) deck += (deck.empty() ? "" : "; ") + std::string(b.id) + " " + std::string(b.text) + " (" + n(b.points) + ")";
  return {
      {"colours x stones", n(kColours) + " x " + n(r.stones_per_colour), "C"},
      {"crystals / fog stones", n(r.crystals) + " / " + n(r.fog_stones), "C"},
      {"food per kind", n(r.food_per_kind), "C"},
      {"starting yurt", n(r.start_yurt) + " of each food", "C"},
      {"yurt limit", n(r.yurt_limit), "C"},
      {"cart limits", n(r.cart_stones) + " stones, " + n(r.cart_food) + " food", "C"},
      {"starting cart", n(r.start_cart_stones) + " stones; " + n(r.start_cart_food) + " of each food it carries", "C"},
      {"starting market", n(r.start_market) + " of each food; no capacity limit", "C / R"},
      {"carts / stations", "3 (2-3 players), 4 (4 players)", "C / R"},
      {"REMOVED_COLOURS", "{2: " + n(r.removed_colours[2]) + ", 3: " + n(r.removed_colours[3]) + ", 4: " + n(r.removed_colours[4]) + "}", "R"},
      {"REMOVAL", "colours (the highest-numbered whole colours; option removal=even: stones of every colour)", "R"},
      {"BASE cost", "{1: " + n(r.base_cost[1]) + ", 2: " + n(r.base_cost[2]) + ", 3: " + n(r.base_cost[3]) + "} (2 stones: R)", "C / R"},
      {"crystal surcharge", "+" + n(r.crystal_surcharge) + " per crystal", "C"},
      {"stones per Build", "0-" + n(r.max_stones_bought) + "; a purchase needs room in the tower", "C / R"},
      {"Restock", "all of one kind up to the yurt limit (any kind legal), then " + n(r.restock_draw) + " stone if the cart has room", "C / R"},
      {"Market", "exactly min(" + n(r.market_take) + ", market, " + n(r.yurt_limit) + " - yurt) food; draw up to " + n(r.market_draw) +
                     " stones, 1 compulsorily into a cart with room", "C / C-seed / R"},
      {"refill after Build", n(r.refill_draw) + " stones when a purchase empties the cart", "C / R"},
      {"FOG_TRACK_CAPACITY", n(r.fog_track_capacity), "R"},
      {"FOG_FILLS", n(r.fog_fills) + ": the 1st fill goes back to the bag, the 2nd stays; the last fog stone waits until the action ends", "C-seed / R"},
      {"tower", "5-4-3-2 = 14; the end trigger is level 4 done", "C"},
      {"GROUP_POINTS", groups + " (sizes 2 .. 7+)", "R"},
      {"NUM_GROUPS_POINTS", counts + " (fewer than 3 groups: 0)", "C"},
      {"single stone", n(r.single_stone_points), "C-seed"},
      {"STUPA_POINTS", n(r.stupa_points), "R"},
      {"FOOD_MAJORITY_POINTS", n(r.food_majority_points) + " (shared by ties; nobody at 0 food)", "R"},
      {"EXTRA_ROUNDS", n(r.extra_rounds) + ": the game ends after the trigger round + 1", "C-seed"},
      {"MAX_ROUNDS", n(r.max_rounds), "R"},
      {"BONUS_REVEALED", n(r.bonus_revealed) + " of the 8 bonus cards", "C-seed"},
      {"bonus deck", deck, "R"},
  };
}

// ---------------------------------------------------------------------------------------------
// Setup (§2): chance in the order of H4

State State::initial(const Options& o, std::uint64_t seed) {
  State s;
  s.players_ = static_cast<std::uint8_t>(o.players);
  s.removal_ = o.removal;
  s.colours_ = static_cast<std::uint8_t>(o.removal == Removal::kEven ? kColours : kColours - removed(o.players));
  s.master_ = o.master_builder;
  const auto box = box_of(o.players, o.removal);
  for (int c = 0; c < kColours; ++c) s.bag_[c] = static_cast<std::uint8_t>(kRules.stones_per_colour - box[c]);
  s.bag_[kCrystal] = static_cast<std::uint8_t>(kRules.crystals);
  for (int p = 0; p < o.players; ++p) s.yurt_[p] = {1, 1, 1};
  s.market_ = {static_cast<std::uint8_t>(kRules.start_market), static_cast<std::uint8_t>(kRules.start_market), static_cast<std::uint8_t>(kRules.start_market)};
  Rng rng(seed);
  const int stations = s.stations();
  // (1) the cart layout
  std::array<std::uint8_t, 4> layout = {kNoMeat, kNoMilk, kNoBread, kTwoKinds};
  if (o.layout[0] != kNoCart) {
    layout = o.layout;
  } else {
    for (int i = stations - 1; i > 0; --i) std::swap(layout[i], layout[rng.below(static_cast<std::uint32_t>(i + 1))]);
  }
  for (int st = 0; st < stations; ++st) {
    const int cart = layout[st];
    s.cart_at_[st] = static_cast<std::uint8_t>(cart);
    for (int f = 0; f < kFoods; ++f)
      if (f != forbidden_food(cart)) s.cart_food_[cart][f] = static_cast<std::uint8_t>(kRules.start_cart_food);
  }
  // (2) three stones into each cart, station 0 first; the fog joins the bag only after
  for (int st = 0; st < stations; ++st)
    for (int i = 0; i < kRules.start_cart_stones; ++i) {
      const Action kind = s.sample_chance(rng);
      --s.bag_[kind];
      ++s.cart_stones_[s.cart_at_[st]][kind];
    }
  s.bag_[kFog] = static_cast<std::uint8_t>(kRules.fog_stones);
  // (3) the start player, (4) the bonus cards
  s.baby_ = static_cast<std::uint8_t>(o.start >= 0 ? o.start : static_cast<int>(rng.below(static_cast<std::uint32_t>(o.players))));
  if (o.master_builder) {
    if (o.bonus[0] != kNoCart) {
      s.bonus_ = o.bonus;
    } else {
      std::array<std::uint8_t, kBonusCards> deck;
      std::iota(deck.begin(), deck.end(), std::uint8_t{0});
      for (int i = 0; i < kRules.bonus_revealed; ++i) std::swap(deck[i], deck[i + rng.below(static_cast<std::uint32_t>(kBonusCards - i))]);
      std::copy(deck.begin(), deck.begin() + kRules.bonus_revealed, s.bonus_.begin());
      std::sort(s.bonus_.begin(), s.bonus_.end());
    }
  }
  for (auto& t : s.tower_) t.fill(kEmpty);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Scoring (§7, §8)

int State::tower_points(int seat) const { return points13(best_score(tower_[seat], colours_)); }

Score State::score(int seat) const {
  Score s = best_score(tower_[seat], colours_);
  if (stupa_ == seat) s.stupa = kRules.stupa_points;
  int most = 0;
  for (int p = 0; p < players_; ++p) most = std::max(most, total(yurt_[p]));
  if (most > 0 && total(yurt_[seat]) == most) s.food = kRules.food_majority_points;
  if (master_) {
    for (std::uint8_t card : bonus_) {
      const BonusCard& b = kBonusDeck[card];
      std::array<std::array<std::uint8_t, kPositions>, kMaxPlayers> bare{};  // crystals taken out (F2)
      for (int p = 0; p < players_; ++p)
        for (int q = 0; q < kPositions; ++q) bare[p][q] = tower_[p][q] == kCrystal ? kEmpty : tower_[p][q];
      const int mine = bonus_measure(card, bare[seat]);
      if (b.kind == BonusKind::kPlacement) {
        s.bonus += mine ? b.points : 0;
        continue;
      }
      int highest = 0;
      for (int p = 0; p < players_; ++p) highest = std::max(highest, bonus_measure(card, bare[p]));
      if (highest >= b.min && mine == highest) s.bonus += b.points;  // F4: every player on the highest value
    }
  }
  return s;
}

void State::scores(double* out) const {
  for (int p = 0; p < players_; ++p) out[p] = score(p).total();
}

namespace {
// §7.3, E1: the key (total, food left, holds the stupa), compared lexicographically.
struct Key {
  int total, food, stupa;
  auto operator<=>(const Key&) const = default;
};
}  // namespace

void State::ranks(double* out) const {
  std::array<Key, kMaxPlayers> keys{};
  for (int p = 0; p < players_; ++p) keys[p] = {score(p).total(), total(yurt_[p]), stupa_ == p};
  for (int p = 0; p < players_; ++p) {
    int better = 0;
    for (int q = 0; q < players_; ++q) better += keys[q] > keys[p];
    out[p] = 1 + better;
  }
}

void State::returns(double* out) const {
  std::fill(out, out + players_, 0.0);
  if (!is_terminal()) return;
  std::array<double, kMaxPlayers> r{};
  ranks(r.data());
  const int winners = static_cast<int>(std::count(r.begin(), r.begin() + players_, 1.0));
  for (int p = 0; p < players_; ++p)
    if (r[p] == 1) out[p] = 1.0 / winners;
}

// ---------------------------------------------------------------------------------------------
// Information (§9): only the chosen cards are hidden, each until its owner's Noon turn starts

bool State::hidden_from(int seat, int p) const {
  if (p == seat || card_[p] == kNoCard) return false;
  if (step_ == Step::kChoose) return true;
  return step_ != Step::kOver && (p - baby_ + players_) % players_ > turn_;
}

std::uint64_t State::info_key(int seat) const { return text::hash(view_string(seat)); }

// H2: the cards another player chose and has not revealed are drawn again, uniformly: nothing the
// seat has seen depends on them.
State State::determinize(int seat, Rng& rng) const {
  State s = *this;
  for (int p = 0; p < players_; ++p)
    if (hidden_from(seat, p)) s.card_[p] = static_cast<Card>(rng.below(kCards));
  return s;
}

namespace {
constexpr std::string_view kReveal = "; reveal ";
}

std::string State::observation_string(int, Action a) const {
  std::string out = action_to_string(a);
  State next = *this;
  next.apply(a);
  // A turn that starts shows its card (§9): the action that ends the turn before carries it.
  if (next.current_player() >= 0 && next.turn_ != turn_)
    out += std::string(kReveal) + std::to_string(next.actor()) + " " + std::string(kCardNames[next.card_[next.actor()]]);
  return out;
}

std::string State::joint_observation_string(int seat, const Action* joint) const {
  std::array<int, kMaxPlayers> seats;
  const int n = choosing_seats(seats.data());
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? std::string(kJointSeparator) : "") + (seats[i] == seat ? action_to_string(joint[seat]) : "?");
  State next = *this;
  next.apply_joint(joint);
  return out + std::string(kReveal) + std::to_string(next.actor()) + " " + std::string(kCardNames[next.card_[next.actor()]]);
}

State State::after_observation(int seat, std::string_view seen, Rng& rng) const {
  const auto cut = seen.find(kReveal);
  const std::string_view main = seen.substr(0, cut);
  int revealer = -1;
  Card revealed = kNoCard;
  if (cut != std::string_view::npos) {
    const auto words = text::words(seen.substr(cut + kReveal.size()));
    const auto card = words.size() == 2 ? std::find(kCardNames.begin(), kCardNames.end(), words[1]) : kCardNames.end();
    if (card == kCardNames.end()) throw NotationError("'" + std::string(seen) + "': expected '<action>; reveal <seat> build|restock|market'");
    revealer = text::to_int(words[0], 0, players_ - 1, "reveal seat");
    revealed = static_cast<Card>(card - kCardNames.begin());
  }
  State next = *this;
  if (step_ == Step::kChoose) {
    std::array<int, kMaxPlayers> seats;
    const int n = choosing_seats(seats.data());
    std::vector<std::string_view> parts;
    for (std::size_t begin = 0;;) {
      const std::size_t end = main.find(kJointSeparator, begin);
      parts.push_back(main.substr(begin, end == std::string_view::npos ? end : end - begin));
      if (end == std::string_view::npos) break;
      begin = end + kJointSeparator.size();
    }
    if (static_cast<int>(parts.size()) != n)
      throw NotationError("a joint move here has " + std::to_string(n) + " choices joined by '" + std::string(kJointSeparator) + "', got '" + std::string(seen) + "'");
    std::array<Action, kMaxPlayers> joint{};
    for (int i = 0; i < n; ++i) {
      const int q = seats[i];
      if (q == seat) {
        const Action a = parse_action(parts[i]);
        if (a >= kChooseBase + kCards) throw IllegalMoveError("seat " + std::to_string(seat) + " chose '" + std::string(parts[i]) + "', which is not a card");
        joint[q] = a;
      } else {
        if (parts[i] != "?") throw IllegalMoveError("seat " + std::to_string(seat) + " cannot see the card seat " + std::to_string(q) + " chooses ('" + std::string(parts[i]) + "')");
        joint[q] = kChooseBase + (q == revealer && revealed != kNoCard ? revealed : static_cast<Card>(rng.below(kCards)));
      }
    }
    next.apply_joint(joint.data());
  } else {
    const Action a = parse_action(main);  // a draw is a piece kind 0-9
    std::array<Action, kMaxActions> legal;
    const int n = current_player() == kChancePlayer ? 0 : legal_actions(legal.data());
    const bool possible = current_player() == kChancePlayer ? bag_[a] > 0 : std::find(legal.begin(), legal.begin() + n, a) != legal.begin() + n;
    if (!possible) throw IllegalMoveError("'" + std::string(main) + "' cannot happen here");
    next.apply(a);
  }
  const bool reveals = next.current_player() >= 0 && (step_ == Step::kChoose || next.turn_ != turn_);
  if (reveals != (revealer >= 0))
    throw IllegalMoveError(reveals ? "'" + std::string(seen) + "' starts seat " + std::to_string(next.actor()) + "'s turn: it must say '; reveal " + std::to_string(next.actor()) + " <card>'"
                                   : "'" + std::string(seen) + "' starts no turn, so it reveals no card");
  if (reveals) {
    if (revealer != next.actor()) throw IllegalMoveError("seat " + std::to_string(next.actor()) + " acts next, not seat " + std::to_string(revealer));
    if (revealer == seat && next.card_[seat] != revealed) throw IllegalMoveError("seat " + std::to_string(seat) + " chose " + std::string(kCardNames[next.card_[seat]]));
    next.card_[revealer] = revealed;
    next.start_turn();
  }
  return next.is_terminal() ? next : next.determinize(seat, rng);
}

// ---------------------------------------------------------------------------------------------
// Heuristics

namespace {
// The evaluation's prices (kEvalWeights), in points: a stone is worth its points now plus what
// it may still join (a complete tower of 14 stones scores some 25-35 points); a token of food
// about what it buys of that (1-3 stones cost 1, 3, 5).
constexpr double kWin = 100;  // a finished game: the result first

// What one more stone of `kind` is worth to a tower at its best place now (placing it there when
// `keep`): the points it adds and its `potential`.
double best_gain(std::array<std::uint8_t, kPositions>& tower, TowerMask& mask, int kind, int colours, bool keep, double potential) {
  const int before = points13(best_score(tower, colours));
  int best = -1000, at = -1;
  for (TowerMask m = legal_positions(mask); m; m &= m - 1) {
    const int p = std::countr_zero(m);
    tower[p] = static_cast<std::uint8_t>(kind);
    const int gain = points13(best_score(tower, colours)) - before;
    tower[p] = kEmpty;
    if (gain > best) best = gain, at = p;
  }
  if (at < 0) return 0;
  if (keep) tower[at] = static_cast<std::uint8_t>(kind), mask = static_cast<TowerMask>(mask | 1u << at);
  return best + potential;
}
}  // namespace

// The rollout policy (cheap): buy the purchase with the most stones that fit the tower's colours,
// place next to stones of the same colour, restock the richest kind; the rest uniformly. Weighted
// by kPolicyWeights.
Action State::heuristic_action(Rng& rng, const double* w) const {
  std::array<Action, kMaxActions> legal;
  const int n = legal_actions(legal.data());
  const int p = actor();
  std::uint16_t colours_held = 0;  // the colours in the actor's tower
  for (int q = 0; q < kPositions; ++q)
    if (tower_[p][q] < kColours) colours_held = static_cast<std::uint16_t>(colours_held | 1u << tower_[p][q]);
  auto value = [&](Action a) -> double {
    switch (step_) {
      case Step::kBuild: {
        const Purchase& buy = kPurchaseList[a - kBuildBase];
        double v = 0;
        for (int i = 0; i < buy.size; ++i)
          v += w[kBuyStone] + (buy.stones[i] < kColours && (colours_held >> buy.stones[i] & 1) ? w[kBuyColour] : buy.stones[i] == kCrystal ? w[kBuyCrystal] : 0.0);
        Stones s{};
        for (int i = 0; i < buy.size; ++i) ++s[buy.stones[i]];
        return buy.size ? v - w[kBuyFood] * cost(s) : 0;
      }
      case Step::kPlace: {
        const int kind = static_cast<int>(a - kPlaceBase) / kPositions, pos = static_cast<int>(a - kPlaceBase) % kPositions;
        int same = 0;
        for (TowerMask c = kContacts[pos] & tower_mask_[p]; c; c &= c - 1) {
          const int k = tower_[p][std::countr_zero(c)];
          same += k == kind || k == kCrystal || kind == kCrystal;
        }
        return same - w[kPlaceLevel] * level_of(pos);
      }
      case Step::kRestock: {
        const int f = static_cast<int>(a - kRestockBase);
        return std::min<int>(cart_food_[my_cart()][f], kRules.yurt_limit - total(yurt_[p]));
      }
      default:
        return 0;
    }
  };
  if (step_ != Step::kBuild && step_ != Step::kPlace && step_ != Step::kRestock) return legal[rng.below(static_cast<std::uint32_t>(n))];
  double best = -1e9;
  Action pick = legal[0];
  int ties = 0;
  for (int i = 0; i < n; ++i) {
    const double v = value(legal[i]);
    if (v > best) best = v, pick = legal[i], ties = 1;
    else if (v == best && rng.below(static_cast<std::uint32_t>(++ties)) == 0) pick = legal[i];
  }
  return pick;
}

// Sunrise for the rollouts: build when the cart holds stones the yurt can pay for, else take food
// where there is more of it; one time in five a uniform card.
Action State::heuristic_choice(int seat, Rng& rng) const {
  if (rng.below(5) == 0) return kChooseBase + rng.below(kCards);
  const int cart = cart_at_[seat];
  const FoodCounts& y = yurt_[seat];
  const int yurt = total(y);
  const int usable = cart == kTwoKinds ? yurt - std::min({y[0], y[1], y[2]}) : yurt - y[forbidden_food(cart)];
  const int stones = total(cart_stones_[cart]);
  const int room = kPositions - std::popcount(tower_mask_[seat]);
  if (stones > 0 && room > 0 && usable >= kRules.base_cost[std::min({stones, room, kRules.max_stones_bought})]) return kChooseBase + kBuild;
  int restock = 0;
  for (int f = 0; f < kFoods; ++f) restock = std::max(restock, std::min<int>(cart_food_[cart][f], kRules.yurt_limit - yurt));
  const int market = std::min({kRules.market_take, total(market_), kRules.yurt_limit - yurt});
  return kChooseBase + (restock >= market ? kRestock : kMarket);
}

// The greedy evaluation: the seat's projected points less the others' mean. Projected points are
// the score now (§7), food in the yurt, the stones bought and not yet placed at their best
// places, and, for the seat's own card before it is played, what it can fetch at the cart before
// it. Hidden cards of the others are never read.
double State::evaluate(int seat, const double* w) const {
  const double potential = w[kEvalStonePotential], food = w[kEvalFood];
  auto projected = [&](int q) {
    const Score s = score(q);
    double v = s.total() + potential * std::popcount(tower_mask_[q]) + food * total(yurt_[q]);
    std::array<std::uint8_t, kPositions> tower = tower_[q];
    TowerMask mask = tower_mask_[q];
    if (q == actor() && current_player() >= 0)
      for (int k = 0; k < kStoneKinds; ++k)
        for (int i = 0; i < bought_[k]; ++i) v += best_gain(tower, mask, k, colours_, true, potential);
    return v;
  };
  if (is_terminal()) {
    std::array<double, kMaxPlayers> r{};
    returns(r.data());
    return kWin * r[seat] + score(seat).total();
  }
  double others = 0;
  for (int q = 0; q < players_; ++q)
    if (q != seat) others += projected(q);
  double mine = projected(seat);
  // The seat's own card, chosen and not yet begun: what it may fetch at the cart before it.
  const int order = (seat - baby_ + players_) % players_;
  const bool pending = card_[seat] != kNoCard && step_ != Step::kChoose &&
                       (order > turn_ || (order == turn_ && (step_ == Step::kBuild || step_ == Step::kRestock || step_ == Step::kTake)));
  if (pending) {
    const int cart = cart_at_[seat];
    const FoodCounts& y = yurt_[seat];
    const int room = kRules.yurt_limit - total(y);
    if (card_[seat] == kRestock) {
      int most = 0;
      for (int f = 0; f < kFoods; ++f) most = std::max(most, std::min<int>(cart_food_[cart][f], room));
      mine += food * most + w[kEvalRestockStone];
    } else if (card_[seat] == kMarket) {
      mine += food * std::min({kRules.market_take, total(market_), room}) + w[kEvalMarketPut];
    } else {
      State probe = *this;  // the seat's purchases at that cart, as if it acted now
      probe.turn_ = static_cast<std::uint8_t>(order);
      probe.step_ = Step::kBuild;
      std::array<Action, kMaxActions> buys;
      const int n = probe.legal_actions(buys.data());
      double best = 0;
      for (int i = 1; i < n; ++i) {
        const Purchase& buy = kPurchaseList[buys[i] - kBuildBase];
        std::array<std::uint8_t, kPositions> tower = tower_[seat];
        TowerMask mask = tower_mask_[seat];
        Stones s{};
        double v = 0;
        for (int j = 0; j < buy.size; ++j) v += best_gain(tower, mask, buy.stones[j], colours_, true, potential), ++s[buy.stones[j]];
        best = std::max(best, v - food * cost(s));
      }
      mine += best;
    }
  }
  return mine - others / (players_ - 1);
}

// ---------------------------------------------------------------------------------------------
// Notation (§12.5)

std::string State::action_to_string(Action a) const {
  if (step_ == Step::kDraw) {
    if (a >= kPieceKinds) throw NotationError("chance outcome " + std::to_string(a) + " is not a piece kind 0-9 (0-7, X, F)");
    return "draw " + kind_text(static_cast<int>(a));
  }
  if (a < kBuildBase) return "choose " + std::string(kCardNames[a - kChooseBase]);
  if (a < kPayBase) {
    const Purchase& buy = kPurchaseList[a - kBuildBase];
    std::string out = "build";
    if (buy.size == 0) return out + " -";
    for (int i = 0; i < buy.size; ++i) out += " " + kind_text(buy.stones[i]);
    return out;
  }
  auto food_of = [&](Action base, int total_tokens, std::string_view word, int radix) {
    const int id = static_cast<int>(a - base);
    const int meat = id / radix, milk = id % radix, bread = total_tokens - meat - milk;
    if (bread < 0) throw NotationError("action " + std::to_string(a) + " names more " + std::string(word) + " tokens than are due here");
    return std::string(word) + " " + food_list({static_cast<std::uint8_t>(meat), static_cast<std::uint8_t>(milk), static_cast<std::uint8_t>(bread)});
  };
  if (a < kOverflowBase) return food_of(kPayBase, cost(bought_), "pay", 9);
  if (a < kPlaceBase) return food_of(kOverflowBase, overflow_due(), "overflow", 9);
  if (a < kRestockBase) return "place " + kind_text((a - kPlaceBase) / kPositions) + " " + position_text((a - kPlaceBase) % kPositions);
  if (a < kTakeBase) return "restock " + std::string(kFoodNames[a - kRestockBase]);
  if (a < kPutBase) return food_of(kTakeBase, step_ == Step::kTake ? take_count() : 0, "take", 3);
  if (a < static_cast<Action>(kMaxActions)) return "put " + kind_text((a - kPutBase) / kCarts) + " " + std::string(kCartNames[(a - kPutBase) % kCarts]);
  throw NotationError("action " + std::to_string(a) + " is not a yak action id (0.." + std::to_string(kMaxActions - 1) + ")");
}

Action State::parse_action(std::string_view text) const {
  const auto w = text::words(text);
  auto fail = [&](const std::string& why) { return NotationError("'" + std::string(text) + "' is not a yak move: " + why); };
  if (w.empty()) throw fail("it is empty");
  if (step_ == Step::kDraw) {
    if (w.size() != 2 || w[0] != "draw" || w[1].size() != 1 || kind_of(w[1][0]) < 0) throw fail("a draw here reads 'draw <0-7, X or F>'");
    return static_cast<Action>(kind_of(w[1][0]));
  }
  const std::string_view verb = w[0];
  // The food of PAY, OVERFLOW and TAKE: the id holds meat and milk, the count due here the rest.
  auto food_id = [&](Action base, int radix, int due) -> Action {
    FoodCounts f;
    if (w.size() < 2 || !food_words(w, 1, f)) throw fail(std::string(verb) + " takes food words meat, milk, bread (or '-')");
    if (total(f) != due) throw fail(std::to_string(due) + " token" + (due == 1 ? " is" : "s are") + " due here, not " + std::to_string(total(f)));
    return base + radix * f[0] + f[1];
  };
  if (verb == "choose") {
    const auto it = w.size() == 2 ? std::find(kCardNames.begin(), kCardNames.end(), w[1]) : kCardNames.end();
    if (it == kCardNames.end()) throw fail("'choose build', 'choose restock' or 'choose market'");
    return kChooseBase + static_cast<Action>(it - kCardNames.begin());
  }
  if (verb == "build") {
    if (w.size() == 2 && w[1] == "-") return kBuildBase;
    if (w.size() < 2 || w.size() > 4) throw fail("'build -' or build and 1-3 stones");
    std::array<int, 3> k = {9, 9, 9};
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (w[i].size() != 1 || kind_of(w[i][0]) < 0 || kind_of(w[i][0]) == kFog) throw fail("'" + std::string(w[i]) + "' is not a stone (0-7 or X)");
      k[i - 1] = kind_of(w[i][0]);
    }
    std::sort(k.begin(), k.end());
    return kBuildBase + kPurchaseIndex[100 * k[0] + 10 * k[1] + k[2]];
  }
  if (verb == "pay") return food_id(kPayBase, 9, cost(bought_));
  if (verb == "overflow") return food_id(kOverflowBase, 9, overflow_due());
  if (verb == "take") return food_id(kTakeBase, 3, step_ == Step::kTake ? take_count() : 0);
  if (verb == "place") {
    if (w.size() != 3 || w[1].size() != 1 || kind_of(w[1][0]) < 0 || kind_of(w[1][0]) == kFog) throw fail("'place <stone> <level>,<index>'");
    return kPlaceBase + kPositions * kind_of(w[1][0]) + parse_position(w[2]);
  }
  if (verb == "restock") {
    const auto it = w.size() == 2 ? std::find(kFoodNames.begin(), kFoodNames.end(), w[1]) : kFoodNames.end();
    if (it == kFoodNames.end()) throw fail("'restock meat', 'restock milk' or 'restock bread'");
    return kRestockBase + static_cast<Action>(it - kFoodNames.begin());
  }
  if (verb == "put") {
    if (w.size() != 3 || w[1].size() != 1 || kind_of(w[1][0]) < 0 || kind_of(w[1][0]) == kFog || cart_of(w[2]) < 0)
      throw fail("'put <stone> <cart>' with a cart NO_MEAT, NO_MILK, NO_BREAD or TWO_KINDS");
    return kPutBase + kCarts * kind_of(w[1][0]) + cart_of(w[2]);
  }
  throw fail("moves are choose, build, pay, overflow, place, restock, take, put (and draw at a draw)");
}

std::string State::to_string() const { return write(-1); }
std::string State::view_string(int seat) const { return write(seat); }

std::string State::write(int seat) const {
  std::ostringstream out;
  out << kName;
  if (seat >= 0) out << " seat=" << seat;
  out << " players=" << int{players_} << " removal=" << removal_text(removal_) << " bonus=";
  if (master_)
    for (int i = 0; i < kRules.bonus_revealed; ++i) out << (i ? "," : "") << kBonusDeck[bonus_[i]].id;
  else
    out << "-";
  out << " round=" << int{round_} << " baby=" << int{baby_} << " turn=" << int{turn_} << " step=" << kStepNames[static_cast<int>(step_)] << " cards=";
  for (int p = 0; p < players_; ++p)
    out << (p ? "," : "") << (card_[p] == kNoCard ? "-" : seat >= 0 && hidden_from(seat, p) ? "?" : kCardNames[card_[p]]);
  out << " dir=" << (dir_ > 0 ? "+1" : "-1") << " track=" << int{track_} << " fog_fills=" << int{fills_} << " fog_aside=" << int{aside_}
      << " trigger=" << (trigger_ ? std::to_string(trigger_) : "-") << " stupa=" << (stupa_ >= 0 ? std::to_string(stupa_) : "-") << " bag=";
  for (int k = 0; k < kPieceKinds; ++k) out << (k ? "." : "") << int{bag_[k]};
  out << " box=";
  const auto box = box_of(players_, removal_);
  for (int c = 0; c < kColours; ++c) out << (c ? "." : "") << int{box[c]};
  out << " market=" << food_text(market_) << " carts=";
  for (int st = 0; st < stations(); ++st) {
    const int c = cart_at_[st];
    out << (st ? "/" : "") << kCartNames[c] << ":" << stones_text(cart_stones_[c]) << ":" << food_text(cart_food_[c]);
  }
  out << " yurts=";
  for (int p = 0; p < players_; ++p) out << (p ? "/" : "") << food_text(yurt_[p]);
  out << " towers=";
  for (int p = 0; p < players_; ++p) out << (p ? "/" : "") << tower_text(tower_[p]);
  out << " bought=" << stones_text(bought_) << " paid=" << (total(paid_) ? food_text(paid_) : "-") << " drawn=" << stones_text(drawn_)
      << " draws=" << int{draws_};
  return out.str();
}

// Reads a full state (seat null) or a seat's view (hidden cards '?' become placeholders).
State State::parse(std::string_view text, int* seat) {
  const auto fields = text::fields(text, kName, kKeys);
  if ((seat != nullptr) != (fields.count("seat") > 0)) throw NotationError(seat ? "missing field 'seat' of a seat view" : "unknown field 'seat' in a full state");
  State s;
  s.players_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "players"), 2, 4, "players"));
  const int n = s.players_;
  if (seat) *seat = text::to_int(text::require(fields, "seat"), 0, n - 1, "seat");
  const std::string& removal = text::require(fields, "removal");
  if (removal != "colours" && removal != "even") throw NotationError("removal: expected 'colours' or 'even', got '" + removal + "'");
  s.removal_ = removal == "even" ? Removal::kEven : Removal::kColours;
  s.colours_ = static_cast<std::uint8_t>(s.removal_ == Removal::kEven ? kColours : kColours - removed(n));
  const std::string& bonus = text::require(fields, "bonus");
  if (bonus != "-") {
    const auto ids = text::split(bonus, ',');
    if (static_cast<int>(ids.size()) != kRules.bonus_revealed) throw NotationError("bonus: expected '-' or 3 card ids B1-B8, got '" + bonus + "'");
    for (int i = 0; i < kRules.bonus_revealed; ++i) {
      const auto it = std::find_if(kBonusDeck.begin(), kBonusDeck.end(), [&](const BonusCard& b) { return b.id == ids[i]; });
      if (it == kBonusDeck.end()) throw NotationError("bonus: '" + std::string(ids[i]) + "' is not a card B1-B8");
      s.bonus_[i] = static_cast<std::uint8_t>(it - kBonusDeck.begin());
    }
    if (!std::is_sorted(s.bonus_.begin(), s.bonus_.end()) || std::adjacent_find(s.bonus_.begin(), s.bonus_.end()) != s.bonus_.end())
      throw NotationError("bonus: three different cards in ascending order, got '" + bonus + "'");
    s.master_ = true;
  }
  s.round_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "round"), 1, kRules.max_rounds, "round"));
  s.baby_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "baby"), 0, n - 1, "baby"));
  s.turn_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "turn"), 0, n - 1, "turn"));
  const std::string& step = text::require(fields, "step");
  const auto st = std::find(kStepNames.begin(), kStepNames.end(), step);
  if (st == kStepNames.end()) throw NotationError("step: expected one of choose, build, pay, overflow, place, restock, take, put, draw, over; got '" + step + "'");
  s.step_ = static_cast<Step>(st - kStepNames.begin());
  std::array<bool, kMaxPlayers> unknown{};
  text::parse_per_player(text::require(fields, "cards"), n, "cards", [&](int p, std::string_view v) {
    if (v == "-") return;
    if (v == "?" && seat) {
      unknown[p] = true;
      s.card_[p] = kBuild;  // a placeholder; from_view draws it
      return;
    }
    const auto it = std::find(kCardNames.begin(), kCardNames.end(), v);
    if (it == kCardNames.end()) throw NotationError(std::string("cards: expected '-', build, restock, market") + (seat ? " or '?'" : "") + ", got '" + std::string(v) + "'");
    s.card_[p] = static_cast<Card>(it - kCardNames.begin());
  });
  const std::string& dir = text::require(fields, "dir");
  if (dir != "+1" && dir != "-1") throw NotationError("dir: expected +1 (clockwise) or -1, got '" + dir + "'");
  s.dir_ = static_cast<std::int8_t>(dir == "+1" ? 1 : -1);
  s.track_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "track"), 0, kRules.fog_track_capacity, "track"));
  s.fills_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "fog_fills"), 0, kRules.fog_fills, "fog_fills"));
  s.aside_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "fog_aside"), 0, 1, "fog_aside"));
  const std::string& trigger = text::require(fields, "trigger");
  s.trigger_ = static_cast<std::uint8_t>(trigger == "-" ? 0 : text::to_int(trigger, 1, kRules.max_rounds, "trigger"));
  const std::string& stupa = text::require(fields, "stupa");
  s.stupa_ = static_cast<std::int8_t>(stupa == "-" ? -1 : text::to_int(stupa, 0, n - 1, "stupa"));
  const auto bag = text::split(text::require(fields, "bag"), '.');
  if (bag.size() != kPieceKinds) throw NotationError("bag: expected 10 counts (colours 0-7, X, F) separated by '.'");
  for (int k = 0; k < kPieceKinds; ++k) s.bag_[k] = static_cast<std::uint8_t>(text::to_int(bag[k], 0, kRules.stones_per_colour, "bag"));
  const auto box = text::split(text::require(fields, "box"), '.');
  const auto expected_box = box_of(n, s.removal_);
  if (box.size() != kColours) throw NotationError("box: expected 8 counts (colours 0-7) separated by '.'");
  for (int c = 0; c < kColours; ++c)
    if (text::to_int(box[c], 0, kRules.stones_per_colour, "box") != expected_box[c])
      throw NotationError("box: with " + std::to_string(n) + " players and removal=" + removal + " colour " + std::to_string(c) + " has " +
                          std::to_string(expected_box[c]) + " stones in the box");
  s.market_ = parse_food(text::require(fields, "market"), "market");
  const auto carts = text::split(text::require(fields, "carts"), '/');
  if (static_cast<int>(carts.size()) != s.stations())
    throw NotationError("carts: " + std::to_string(n) + " players have " + std::to_string(s.stations()) + " stations, one cart each, separated by '/'");
  for (int st = 0; st < s.stations(); ++st) {
    const auto parts = text::split(carts[st], ':');
    const int c = parts.size() == 3 ? cart_of(parts[0]) : -1;
    if (c < 0) throw NotationError("carts: station " + std::to_string(st) + ": expected <cart>:<stones>:<meat.milk.bread>, got '" + std::string(carts[st]) + "'");
    if (!s.cart_in_play(c)) throw NotationError("carts: TWO_KINDS is in play only with 4 players");
    if (std::find(s.cart_at_.begin(), s.cart_at_.end(), c) != s.cart_at_.end()) throw NotationError("carts: " + std::string(kCartNames[c]) + " stands at two stations");
    s.cart_at_[st] = static_cast<std::uint8_t>(c);
    s.cart_stones_[c] = parse_stones(parts[1], "carts");
    s.cart_food_[c] = parse_food(parts[2], "carts");
  }
  const auto yurts = text::split(text::require(fields, "yurts"), '/');
  if (static_cast<int>(yurts.size()) != n) throw NotationError("yurts: expected " + std::to_string(n) + " meat.milk.bread entries separated by '/'");
  for (int p = 0; p < n; ++p) s.yurt_[p] = parse_food(yurts[p], "yurts");
  const auto towers = text::split(text::require(fields, "towers"), '/');
  if (static_cast<int>(towers.size()) != n) throw NotationError("towers: expected " + std::to_string(n) + " towers separated by '/'");
  for (auto& t : s.tower_) t.fill(kEmpty);
  for (int p = 0; p < n; ++p) {
    const auto levels = text::split(towers[p], '|');
    if (levels.size() != kLevels) throw NotationError("towers: seat " + std::to_string(p) + ": expected 4 levels of 5, 4, 3, 2 positions separated by '|'");
    for (int L = 1; L <= kLevels; ++L) {
      if (static_cast<int>(levels[L - 1].size()) != level_size(L)) throw NotationError("towers: seat " + std::to_string(p) + ": level " + std::to_string(L) + " has " + std::to_string(level_size(L)) + " positions");
      for (int i = 0; i < level_size(L); ++i) {
        const char ch = levels[L - 1][i];
        if (ch == '.') continue;
        const int k = kind_of(ch);
        if (k < 0 || k == kFog) throw NotationError("towers: seat " + std::to_string(p) + ": '" + std::string(1, ch) + "' is not a stone (0-7, X) or '.'");
        s.place(p, k, position(L, i));
      }
    }
  }
  s.bought_ = parse_stones(text::require(fields, "bought"), "bought");
  const std::string& paid = text::require(fields, "paid");
  if (paid != "-") s.paid_ = parse_food(paid, "paid");
  s.drawn_ = parse_stones(text::require(fields, "drawn"), "drawn");
  s.draws_ = static_cast<std::uint8_t>(text::to_int(text::require(fields, "draws"), 0, kRules.market_draw, "draws"));
  s.validate();
  if (seat)
    for (int p = 0; p < n; ++p)
      if (unknown[p] != s.hidden_from(*seat, p))
        throw NotationError("cards: seat " + std::to_string(*seat) + (unknown[p] ? " sees seat " : " cannot see seat ") + std::to_string(p) + "'s card here, so write it " +
                            (unknown[p] ? "as it is" : "'?'"));
  return s;
}

void State::validate() const {
  auto fail = [](const std::string& what) { throw NotationError("inconsistent position: " + what); };
  const int n = players_;
  auto seat = [](int p) { return "seat " + std::to_string(p); };
  // The pieces: every stone somewhere (H3: the bag a multiset), the fog stones, the food.
  const auto box = box_of(n, removal_);
  for (int k = 0; k < kStoneKinds; ++k) {
    int count = bag_[k] + bought_[k] + drawn_[k] + (k < kColours ? box[k] : 0);
    for (int c = 0; c < kCarts; ++c) count += cart_stones_[c][k];
    for (int p = 0; p < n; ++p)
      for (int q = 0; q < kPositions; ++q) count += tower_[p][q] == k;
    const int all = k == kCrystal ? kRules.crystals : kRules.stones_per_colour;
    if (count != all) fail("stones: " + std::to_string(count) + " stones of kind " + kind_text(k) + " (bag, carts, towers, box, the action), not " + std::to_string(all));
  }
  if (bag_[kFog] + track_ + aside_ != kRules.fog_stones) fail("fog: the bag, the track and the stone aside hold " + std::to_string(kRules.fog_stones) + " fog stones");
  if ((track_ == kRules.fog_track_capacity) != (fills_ == kRules.fog_fills)) fail("track: the track is full exactly after its last fill (C2)");
  const bool in_action = step_ != Step::kChoose && step_ != Step::kOver;
  if (aside_ && (fills_ != kRules.fog_fills || !in_action)) fail("fog_aside: only the last fog stone waits aside, and only until its action ends (C3)");
  for (int f = 0; f < kFoods; ++f) {
    int count = market_[f];
    for (int p = 0; p < n; ++p) count += yurt_[p][f];
    for (int c = 0; c < kCarts; ++c) count += cart_food_[c][f];
    if (count != food_in_play(n)) fail("food: " + std::to_string(count) + " " + std::string(kFoodNames[f]) + " in play; with " + std::to_string(n) + " players there are " + std::to_string(food_in_play(n)));
  }
  for (int p = 0; p < n; ++p)
    if (total(yurt_[p]) > kRules.yurt_limit) fail("yurts: " + seat(p) + " holds more than " + std::to_string(kRules.yurt_limit) + " food");
  for (int p = n; p < kMaxPlayers; ++p)
    if (total(yurt_[p]) || tower_mask_[p]) fail("a seat beyond the players");
  const int overflowing = step_ == Step::kOverflow ? my_cart() : -1;
  for (int c = 0; c < kCarts; ++c) {
    if (!cart_in_play(c) && (total(cart_stones_[c]) || total(cart_food_[c]))) fail("carts: TWO_KINDS is not in play");
    if (total(cart_stones_[c]) > kRules.cart_stones) fail("carts: " + std::string(kCartNames[c]) + " holds more than 4 stones");
    if (forbidden_food(c) >= 0 && cart_food_[c][forbidden_food(c)]) fail("carts: " + std::string(kCartNames[c]) + " holds its forbidden food");
    if (c != overflowing && total(cart_food_[c]) > kRules.cart_food) fail("carts: " + std::string(kCartNames[c]) + " holds more than 9 food");
  }
  // Towers (§5.3): a contiguous base, every upper stone on its two supports, colours in play.
  for (int p = 0; p < n; ++p) {
    const TowerMask t = tower_mask_[p];
    const TowerMask run = static_cast<TowerMask>((t & level_mask(1)) >> std::countr_zero(static_cast<TowerMask>(t | 0x8000)));  // level 1 from its first stone
    if (run & (run + 1)) fail("towers: " + seat(p) + "'s level 1 has a gap");
    for (int q = kLevelStart[1]; q < kPositions; ++q)
      if ((t >> q & 1) && (kSupports[q] & t) != kSupports[q]) fail("towers: " + seat(p) + "'s stone on " + position_text(q) + " lacks a support");
    for (int q = 0; q < kPositions; ++q)
      if (tower_[p][q] < kColours && tower_[p][q] >= colours_) fail("towers: colour " + std::to_string(tower_[p][q]) + " is not in play");
  }
  // The stupa and the end (§6).
  if ((stupa_ >= 0) != (trigger_ > 0)) fail("stupa, trigger: the stupa is taken in the trigger round");
  if (stupa_ >= 0 && tower_mask_[stupa_] != kFullTower) fail("stupa: " + seat(stupa_) + " holds it without a complete tower");
  for (int p = 0; p < n; ++p)
    if (tower_mask_[p] == kFullTower && stupa_ < 0) fail("stupa: " + seat(p) + "'s tower is complete, so someone holds the stupa");
  if (trigger_ > round_ || (trigger_ && round_ > trigger_ + kRules.extra_rounds)) fail("trigger: the game ends after round trigger + 1");
  const bool ends = (trigger_ && round_ == trigger_ + kRules.extra_rounds) || round_ == kRules.max_rounds;
  if (step_ == Step::kOver && !ends) fail("step: the game ends only after round trigger + 1 or round 100");
  // The step, the cards and the action in progress (§12.6).
  int chosen = 0;
  for (int p = 0; p < n; ++p) chosen += card_[p] != kNoCard;
  const bool pending = total(bought_) || total(paid_) || total(drawn_) || draws_;
  if (step_ == Step::kChoose || step_ == Step::kOver) {
    if (turn_ || pending) fail("step: no action is under way at " + std::string(kStepNames[static_cast<int>(step_)]));
    if (step_ == Step::kChoose && chosen == n) fail("cards: at Sunrise someone has still to choose");
    if (step_ == Step::kOver && chosen) fail("cards: the cards go back at Sunset");
    return;
  }
  if (chosen != n) fail("cards: at Noon every player has chosen");
  const Card card = card_[actor()];
  const bool fits = card == kBuild ? (step_ == Step::kBuild || step_ == Step::kPay || step_ == Step::kOverflow || step_ == Step::kPlace || step_ == Step::kDraw)
                    : card == kRestock ? (step_ == Step::kRestock || step_ == Step::kDraw)
                                       : (step_ == Step::kTake || step_ == Step::kDraw || step_ == Step::kPut);
  if (!fits) fail("step: " + seat(actor()) + " revealed " + std::string(kCardNames[card]) + ", which has no " + std::string(kStepNames[static_cast<int>(step_)]) + " step");
  const int bought = total(bought_);
  const bool wants_bought = step_ == Step::kPay || step_ == Step::kOverflow || step_ == Step::kPlace;
  if (wants_bought != (bought > 0) || bought > kRules.max_stones_bought) fail("bought: stones wait to be placed exactly from the purchase to the last PLACE");
  if (wants_bought && bought > kPositions - std::popcount(tower_mask_[actor()])) fail("bought: more stones than the tower has room for");
  if ((step_ == Step::kOverflow) != (total(paid_) > 0)) fail("paid: the payment is kept exactly while an overflow is due");
  if (step_ == Step::kOverflow && total(cart_food_[my_cart()]) - kRules.cart_food > total(paid_)) fail("paid: the overflow comes out of the payment");
  if (step_ == Step::kOverflow && total(cart_food_[my_cart()]) <= kRules.cart_food) fail("step: no overflow is due");
  const bool market_stones = step_ == Step::kPut || (step_ == Step::kDraw && card == kMarket);
  if (!market_stones && total(drawn_)) fail("drawn: only a Market's draw waits for its PUT");
  if (step_ == Step::kPut && !total(drawn_)) fail("drawn: PUT needs a drawn stone");
  if ((step_ == Step::kDraw) != (draws_ > 0)) fail("draws: draws are due exactly at a draw");
  if (step_ == Step::kDraw) {
    if (!bag_has_stone()) fail("draws: a bag without stones is not drawn from (C4)");
    if (card == kMarket && total(drawn_) + draws_ != kRules.market_draw) fail("draws: a Market draws up to 3 stones");
    if (card == kRestock && (draws_ != kRules.restock_draw || total(cart_stones_[my_cart()]) >= kRules.cart_stones)) fail("draws: a Restock draws 1 stone into a cart with room");
    if (card == kBuild && total(cart_stones_[my_cart()]) + draws_ != kRules.refill_draw) fail("draws: a refill draws 3 stones into the emptied cart");
  }
  if (step_ == Step::kPut) {
    bool room = false;
    for (int c = 0; c < kCarts; ++c) room |= cart_in_play(c) && total(cart_stones_[c]) < kRules.cart_stones;
    if (!room) fail("drawn: no cart has room for the PUT");
  }
  std::array<Action, kMaxActions> legal;
  if (step_ != Step::kDraw && legal_actions(legal.data()) == 0) fail("step: " + std::string(kStepNames[static_cast<int>(step_)]) + " has no legal option here");
}

State State::from_string(std::string_view text) { return parse(text, nullptr); }

State State::from_view(std::string_view text) {
  int seat;
  const State placeholder = parse(text, &seat);
  Rng rng(0);
  return placeholder.determinize(seat, rng);
}

std::string State::render(int seat) const {
  std::ostringstream out;
  out << "yak, " << int{players_} << " players, round " << int{round_} << ", ";
  switch (step_) {
    case Step::kChoose: out << "Sunrise: choosing"; break;
    case Step::kOver: out << "game over"; break;
    default: out << "Noon: seat " << actor() << " (" << kCardNames[card_[actor()]] << ") at " << kStepNames[static_cast<int>(step_)];
  }
  out << "\nbaby yak: seat " << int{baby_} << "; carts move " << (dir_ > 0 ? "clockwise" : "counter-clockwise") << "; fog track " << int{track_} << "/"
      << kRules.fog_track_capacity << ", filled " << int{fills_} << "x" << (aside_ ? ", 1 aside" : "") << "; stupa "
      << (stupa_ >= 0 ? "seat " + std::to_string(stupa_) + " (round " + std::to_string(trigger_) + ")" : std::string("free")) << "\n";
  out << "bag:";
  for (int k = 0; k < kPieceKinds; ++k) out << ' ' << kind_text(k) << 'x' << int{bag_[k]};
  out << "; market " << food_counts(market_) << "\n";
  for (int st = 0; st < stations(); ++st) {
    const int c = cart_at_[st];
    out << "station " << st << (st < players_ ? " (seat " + std::to_string(st) + ")" : std::string(" (empty)")) << ": " << kCartNames[c] << " stones "
        << stones_text(cart_stones_[c]) << ", food " << food_counts(cart_food_[c]) << "\n";
  }
  for (int p = 0; p < players_; ++p) {
    const Score s = score(p);
    const std::string card = card_[p] == kNoCard ? "-" : seat >= 0 && hidden_from(seat, p) ? "? (chosen)" : std::string(kCardNames[card_[p]]);
    out << "seat " << p << ": card " << card << ", yurt " << food_counts(yurt_[p]) << "; score " << s.total() << " (groups " << s.groups << ", number of groups "
        << s.groups_count << ", singles " << s.singles << ", stupa " << s.stupa << ", food " << s.food << ", bonus " << s.bonus << ")\n";
    for (int L = kLevels; L >= 1; --L) {  // brick bond: each level half a stone in
      out << "  " << std::string(L - 1, ' ');
      for (int i = 0; i < level_size(L); ++i) out << (i ? " " : "") << (tower_[p][position(L, i)] == kEmpty ? '.' : kind_text(tower_[p][position(L, i)])[0]);
      out << "\n";
    }
  }
  if (total(bought_)) out << "bought, to place: " << stones_text(bought_) << "\n";
  if (total(drawn_)) out << "drawn, one to put: " << stones_text(drawn_) << "\n";
  if (master_) {
    out << "bonus cards:";
    for (auto b : bonus_) out << ' ' << kBonusDeck[b].id << " (" << kBonusDeck[b].text << ", " << kBonusDeck[b].points << ")";
    out << "\n";
  }
  std::string text = out.str();
  text.pop_back();
  return text;
}

}  // namespace kibitz::yak
