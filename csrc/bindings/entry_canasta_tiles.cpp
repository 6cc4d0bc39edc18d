// The registry entry of canasta_tiles, in a translation unit of its own so that the compiler
// optimises each game's search and playout loops on their own (see registry.cpp).
#include "bindings/any_state.h"
#include "games/canasta_tiles.h"

namespace kibitz {

GameInfo canasta_tiles_entry() {
  return {canasta::State::kName,
          "Canasta with rummy tiles: 4 players in two teams (seats 0+2 v 1+3), 106 tiles; draw or take the pile, "
          "meld (naturals outnumber wilds, a twos meld), discard; canastas, bonus threes, opening thresholds.",
          4,
          4,
          {{"players", "exactly 4"},
           {"mode", "match length: one_round (default), three_rounds or target_10000"},
           {"winner_required", "a tie adds a round: 1 (default) or 0"},
           {"starter", "round-1 starter seat 0..3, or 'random' (default: drawn from the seed)"},
           {"first_turn_may_meld", "the starter may meld on its discard-only first turn: 0 (default) or 1"},
           {"strict_natural_majority", "naturals must outnumber wilds: 1 (default) or 0 (at least as many)"},
           {"pile_fully_visible", "views show the whole discard pile: 1 (default) or 0 (top and size only)"},
           {"joker_button", "once per round a seat may take a joker from the stock instead of drawing: 0 (default) or 1"},
           {"joker_allowance", "Joker-button uses per seat for the whole match: one count 0..255 for every seat or a.b.c.d (default 1)"}},
          [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
            return std::make_unique<StateImpl<canasta::State>>(canasta::State::initial(canasta::parse_options(o), seed));
          },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<canasta::State>>(canasta::State::from_string(t)); },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<canasta::State>>(canasta::State::from_view(t)); },
          [](const std::map<std::string, std::string>& o) { canasta::parse_options(o); }};
}

}  // namespace kibitz
