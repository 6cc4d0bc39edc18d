// The registry entry of yak, in a translation unit of its own (see registry.cpp).
#include "bindings/any_state.h"
#include "games/yak.h"

namespace kibitz {

GameInfo yak_entry() {
  using yak::State;
  GameInfo info{State::kName,
                "Yak (Luu, Pretzel Games 2022): every round all players choose Build, Restock or Market at once and in "
                "secret, then act in turn at the yak cart before them: buy stones for food and build a 5-4-3-2 tower, "
                "take food, or fetch food from the market and put a drawn stone into a cart; fog turns the carts. Groups "
                "of one colour score. Values marked [R] below are reconstructions, not the published rules.",
                2,
                4,
                {{"players", "number of players, 2-4 (default 4)"},
                 {"variant", "'base' (default) or 'master_builder' (3 bonus cards, a provisional deck [R])"},
                 {"bonus", "the Master Builder bonus cards: 'random' (drawn from the seed; the default with "
                           "variant=master_builder), three ids such as B1,B4,B7, or '-' (the base game, the default)"},
                 {"removal", "which stones leave at 2-3 players [R]: 'colours' (default: whole colours, the highest-numbered) "
                             "or 'even' (as many stones of every colour)"},
                 {"layout", "'random' (default) or the carts of stations 0, 1, ... e.g. NO_MEAT,NO_MILK,NO_BREAD (with "
                            "TWO_KINDS at 4 players)"},
                 {"start", "the first baby-yak holder: a seat, or 'random' (default: drawn from the seed)"}},
                [](const std::map<std::string, std::string>& o, std::uint64_t seed) -> std::unique_ptr<AnyState> {
                  return std::make_unique<StateImpl<State>>(State::initial(yak::parse_options(o), seed));
                },
                [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<State>>(State::from_string(t)); },
                [](const std::string& t) -> std::unique_ptr<AnyState> { return std::make_unique<StateImpl<State>>(State::from_view(t)); },
                [](const std::map<std::string, std::string>& o) { yak::parse_options(o); }};
  info.constants = yak::yak_constants();
  return info;
}

}  // namespace kibitz
