// The registry entry of just4fun_colours, in a translation unit of its own so that the compiler
// optimises each game's search and playout loops on their own (see registry.cpp).
#include "bindings/any_state.h"
#include "games/just4fun_colours.h"

namespace kibitz {

GameInfo just4fun_colours_entry() {
  return {j4fc::State::kName,
          "Just 4 Fun Colours (Grunau, Kosmos 2010): place stones by playing cards of the field's colour; "
          "a line of 4 (or 5) wins at once, otherwise the largest area. Hidden hands. Board layout reconstructed [R].",
          2,
          4,
          {{"players", "number of players, 2-4 (default 2)"},
           {"line", "line length that wins at once: 4 (default) or 5 (variant)"},
           {"start", "start seat 0..players-1, or 'random' (default: drawn from the seed)"}},
          [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
            return std::make_unique<StateImpl<j4fc::State>>(j4fc::State::initial(j4fc::parse_options(o), seed));
          },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<j4fc::State>>(j4fc::State::from_string(t)); },
          [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<j4fc::State>>(j4fc::State::from_view(t)); },
          [](const std::map<std::string, std::string>& o) { j4fc::parse_options(o); }};
}

}  // namespace kibitz
