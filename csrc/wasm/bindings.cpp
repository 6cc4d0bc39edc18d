// kibitz in WebAssembly (docs/wasm.md): the type-erased states of bindings/any_state.h and the
// search, bound with embind for kibitz.mjs (csrc/wasm/api.js), which is the public face.
//
// States live here in a table of handles; api.js holds a handle per State and frees it. Every
// function returns normally: an engine error comes back as {[kError]: its type, message}, and
// api.js throws it as a JavaScript exception of that type (a JavaScript exception thrown through
// WebAssembly frames would skip their stack-pointer restores).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <new>
#include <sstream>
#include <type_traits>

#include "bindings/any_state.h"
#include "core/text.h"

using emscripten::val;

namespace kibitz::wasm {
namespace {

constexpr const char* kError = "kibitzError";  // the property that marks an error result
// The tree memory a search may take: the WebAssembly memory is at most 4 GiB, and a tree that
// doubles needs its old and new arenas at once.
constexpr int kMaxMemoryMb = 2048;

// ------------------------------------------------------------------------------------------
// Errors

val error_result(const char* type, const std::string& message) {
  val out = val::object();
  out.set(kError, std::string(type));
  out.set("message", message);
  return out;
}

// f() as a value, or the engine's exception as an error result.
template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const IllegalMoveError& e) {
    return error_result("IllegalMoveError", e.what());
  } catch (const NotationError& e) {
    return error_result("NotationError", e.what());
  } catch (const OptionError& e) {
    return error_result("OptionError", e.what());
  } catch (const UnknownGameError& e) {
    return error_result("UnknownGameError", e.what());
  } catch (const std::out_of_range& e) {
    return error_result("RangeError", e.what());
  } catch (const std::bad_alloc&) {
    return error_result("KibitzError", "out of memory: the WebAssembly memory could not grow (lower memory_mb)");
  } catch (const std::exception& e) {
    return error_result("KibitzError", e.what());
  }
}

// ------------------------------------------------------------------------------------------
// Values between JavaScript and C++

std::string type_of(const val& v) { return v.typeOf().as<std::string>(); }

// A value as an error message shows it: text quoted, anything else as String() gives it.
std::string shown(const val& v) {
  if (type_of(v) == "string") return "'" + v.as<std::string>() + "'";
  return val::global("String")(v).as<std::string>();
}

template <class T>
val array_of(const std::vector<T>& items) {
  val out = val::array();
  for (const T& item : items) out.call<void>("push", item);
  return out;
}

std::string seat_list(const std::vector<int>& seats) {
  std::string text;
  for (int s : seats) text += (text.empty() ? "" : ", ") + std::to_string(s);
  return text;
}

// A 64-bit number (a seed, a key) crosses as decimal text: JavaScript numbers hold 53 bits.
std::uint64_t uint64_of(const std::string& text) { return std::strtoull(text.c_str(), nullptr, 10); }
val bigint(std::uint64_t value) { return val::global("BigInt")(std::to_string(value)); }

std::map<std::string, std::string> string_map(const val& object) {
  std::map<std::string, std::string> out;
  if (object.isUndefined() || object.isNull()) return out;
  const val entries = val::global("Object").call<val>("entries", object);
  for (unsigned i = 0, n = entries["length"].as<unsigned>(); i < n; ++i)
    out[entries[i][0].as<std::string>()] = val::global("String")(entries[i][1]).as<std::string>();
  return out;
}

std::string trimmed(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r\n") + 1 - begin);
}

// ------------------------------------------------------------------------------------------
// Search parameters: read by the table (search/param_table.h), as Python's SearchParams reads
// them: a key is a parameter's name, its protocol option name or an alias (any case), a value its
// type (a number, a name, true/false for a 0..1 parameter) or text that reads as one.

std::vector<std::string> words(const char* text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string number_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e18) return std::to_string(static_cast<long long>(x));
  std::ostringstream out;
  out << x;
  return out.str();
}

template <class T>
std::string allowed(const search::ParamRow<T>& row) {
  if constexpr (std::is_enum_v<T>) {
    std::string text;
    for (const auto& w : words(row.choices)) text += (text.empty() ? "" : ", ") + w;
    return "one of " + text;
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number in " + number_text(row.low) + ".." + number_text(row.high);
  } else {
    return "an integer in " + std::to_string(row.low) + ".." + std::to_string(row.high);
  }
}

// The number `v` holds: a number, a BigInt, a boolean (0 or 1) or text that reads as a number;
// NaN when it holds none.
double number_of(const val& v, bool& exact_integer, std::uint64_t& integer) {
  const std::string type = type_of(v);
  exact_integer = false;
  if (type == "boolean") return v.as<bool>() ? 1 : 0;
  if (type == "number") return v.as<double>();
  std::string text = type == "bigint" ? val::global("String")(v).as<std::string>() : type == "string" ? trimmed(v.as<std::string>()) : "";
  if (text.empty()) return std::nan("");
  const bool digits = text.find_first_not_of("0123456789") == std::string::npos && text.size() <= 20;
  if (digits) {  // a whole number read exactly, past 2^53 too (a seed)
    errno = 0;
    integer = std::strtoull(text.c_str(), nullptr, 10);
    exact_integer = errno == 0;
  }
  if (text.find_first_not_of("0123456789+-.eE") != std::string::npos) return std::nan("");  // no hex, no inf or nan words
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return *end == '\0' ? x : std::nan("");
}

template <class T>
T parameter_value(const val& v, const char* name, const search::ParamRow<T>& row) {
  const std::string label = std::string("search parameter ") + name;
  if constexpr (std::is_enum_v<T>) {
    const auto names = words(row.choices);
    if (type_of(v) != "string") throw OptionError(label + ": expected " + allowed(row) + ", got " + shown(v));
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == v.as<std::string>()) return static_cast<T>(i);
    throw OptionError(label + ": " + shown(v) + " is not allowed; expected " + allowed(row));
  } else {
    bool exact = false;
    std::uint64_t integer = 0;
    const double x = number_of(v, exact, integer);
    if (std::isnan(x)) throw OptionError(label + ": expected " + allowed(row) + ", got " + shown(v));
    if constexpr (std::is_integral_v<T>) {
      if (x != std::floor(x)) throw OptionError(label + ": expected " + allowed(row) + ", got " + shown(v));
      if (exact) {
        if (integer < static_cast<std::uint64_t>(row.low) || integer > static_cast<std::uint64_t>(row.high))
          throw OptionError(label + ": " + shown(v) + " is out of range; expected " + allowed(row));
        return static_cast<T>(integer);
      }
    }
    if (!(x >= static_cast<double>(row.low) && x <= static_cast<double>(row.high)))
      throw OptionError(label + ": " + shown(v) + " is out of range; expected " + allowed(row));
    return static_cast<T>(x);
  }
}

template <class T>
val parameter_js(T value, const search::ParamRow<T>& row) {
  if constexpr (std::is_enum_v<T>)
    return val(words(row.choices).at(static_cast<std::size_t>(value)));
  else if constexpr (std::is_same_v<T, std::uint64_t>)  // a seed past 2^53 stays exact as a BigInt
    return value > (std::uint64_t{1} << 53) ? bigint(value) : val(static_cast<double>(value));
  else
    return val(static_cast<double>(value));
}

// One row of the table as the code here uses it.
struct Row {
  const char* name;
  std::vector<std::string> keys;  // name, option and aliases, lower case
  void (*set)(search::Params&, const val&);
  val (*get)(const search::Params&);
  val (*describe)();
};

template <class T>
val describe(const char* name, const search::ParamRow<T>& row) {
  val d = val::object();
  d.set("name", std::string(name));
  d.set("kind", std::string(std::is_enum_v<T> ? "str" : std::is_floating_point_v<T> ? "float" : "int"));
  d.set("default", parameter_js(row.value, row));
  d.set("low", std::is_enum_v<T> ? val::null() : parameter_js(row.low, row));
  d.set("high", std::is_enum_v<T> ? val::null() : parameter_js(row.high, row));
  d.set("choices", array_of(words(row.choices)));
  d.set("log", row.log);
  d.set("tunable", row.tunable && !std::is_enum_v<T>);
  val algorithms = val::array();
  const auto names = words(search::kAlgorithmNames);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (row.algorithms & search::uses(static_cast<search::Algorithm>(i))) algorithms.call<void>("push", names[i]);
  d.set("algorithms", algorithms);
  d.set("option", std::string(row.option));
  d.set("aliases", array_of(words(row.aliases)));
  d.set("help", std::string(row.help));
  return d;
}

std::vector<std::string> keys_of(const char* name, const char* option, const char* aliases) {
  std::vector<std::string> keys{lower(name)};
  if (*option) keys.push_back(lower(option));
  for (const auto& a : words(aliases)) keys.push_back(lower(a));
  return keys;
}

const std::vector<Row>& rows() {
  using namespace search;  // the rows name their enums and helpers unqualified
  static const std::vector<Row> table = {
#define KIBITZ_WASM_ROW(type, member, name, ...)                                                                            \
  Row{name, keys_of(name, ParamRow<type>{__VA_ARGS__}.option, ParamRow<type>{__VA_ARGS__}.aliases),                         \
      [](Params& p, const val& v) { p.member = parameter_value(v, name, ParamRow<type>{__VA_ARGS__}); },                    \
      [](const Params& p) { return parameter_js(p.member, ParamRow<type>{__VA_ARGS__}); },                                  \
      [] { return describe(name, ParamRow<type>{__VA_ARGS__}); }},
      KIBITZ_SEARCH_PARAMETERS(KIBITZ_WASM_ROW)
#undef KIBITZ_WASM_ROW
  };
  return table;
}

const Row& find_row(const std::string& key) {
  const std::string k = lower(key);
  for (const Row& row : rows())
    for (const auto& name : row.keys)
      if (name == k) return row;
  std::string known;
  for (const Row& row : rows()) known += (known.empty() ? "" : ", ") + std::string(row.name);
  throw OptionError("unknown search parameter '" + key + "'; known: " + known);
}

constexpr const char* kPolicyPrefix = "policy.";

double weight_of(const std::string& name, const val& v) {
  bool exact = false;
  std::uint64_t integer = 0;
  const double x = number_of(v, exact, integer);
  if (!std::isfinite(x)) throw OptionError("search parameter policy." + name + ": expected a finite number, got " + shown(v));
  return x;
}

// Params from a JavaScript object of options (undefined: the defaults), checked as Python's
// SearchParams checks them: every value in its row's range, a time given alone is the whole
// budget, and some budget is set. `policy` is an object of rollout-policy weights by name (or
// [name, weight] pairs), as are keys policy.<name>.
search::Params params_of(const val& options) {
  search::Params p;
  if (options.isUndefined() || options.isNull()) return p;
  if (type_of(options) != "object" || val::global("Array").call<bool>("isArray", options))
    throw OptionError("search parameters: expected an object such as {iterations: 2000}, got " + shown(options));
  bool iterations_given = false;
  std::map<std::string, double> policy;
  const val entries = val::global("Object").call<val>("entries", options);
  for (unsigned i = 0, n = entries["length"].as<unsigned>(); i < n; ++i) {
    const std::string key = entries[i][0].as<std::string>();
    const val value = entries[i][1];
    if (value.isUndefined()) continue;
    if (key == "policy") {
      const val pairs = val::global("Array").call<bool>("isArray", value) ? value : val::global("Object").call<val>("entries", value);
      for (unsigned j = 0, m = pairs["length"].as<unsigned>(); j < m; ++j) {
        const val pair = pairs[j];
        if (type_of(pair[0]) != "string") throw OptionError("search parameter policy: expected weights by name, got " + shown(pair));
        policy[pair[0].as<std::string>()] = weight_of(pair[0].as<std::string>(), pair[1]);
      }
    } else if (key.rfind(kPolicyPrefix, 0) == 0) {
      policy[key.substr(std::string(kPolicyPrefix).size())] = weight_of(key.substr(std::string(kPolicyPrefix).size()), value);
    } else {
      const Row& row = find_row(key);
      row.set(p, value);
      iterations_given |= std::string(row.name) == "iterations";
    }
  }
  p.policy.assign(policy.begin(), policy.end());
  if (!iterations_given && p.time_limit_ms > 0) p.iterations = 0;  // a time given alone is the budget
  if (p.iterations == 0 && p.time_limit_ms == 0) throw OptionError("set iterations and/or time_ms (both are 0)");
#ifndef __EMSCRIPTEN_PTHREADS__
  if (p.threads != 1) throw OptionError("search parameter threads: this WebAssembly build runs one thread; got " + std::to_string(p.threads));
#endif
  if (p.memory_mb > kMaxMemoryMb)
    throw OptionError("search parameter memory_mb: " + std::to_string(p.memory_mb) + " is more than the WebAssembly build can address; expected at most " +
                      std::to_string(kMaxMemoryMb));
  return p;
}

val params_js(const search::Params& p) {
  val out = val::object();
  for (const Row& row : rows()) out.set(row.name, row.get(p));
  val policy = val::object();
  for (const auto& [name, weight] : p.policy) policy.set(name, weight);
  out.set("policy", policy);
  return out;
}

// ------------------------------------------------------------------------------------------
// States, by handle

std::vector<std::unique_ptr<AnyState>> states;
std::vector<std::uint32_t> free_handles;

val keep(std::unique_ptr<AnyState> state) {
  std::uint32_t handle;
  if (!free_handles.empty()) {
    handle = free_handles.back();
    free_handles.pop_back();
    states[handle] = std::move(state);
  } else {
    handle = static_cast<std::uint32_t>(states.size());
    states.push_back(std::move(state));
  }
  return val(handle);
}

AnyState& state(std::uint32_t handle) {
  if (handle >= states.size() || !states[handle]) throw std::invalid_argument("this state was deleted");
  return *states[handle];
}

void release(std::uint32_t handle) {
  if (handle < states.size() && states[handle]) {
    states[handle].reset();
    free_handles.push_back(handle);
  }
}

std::string move_text(const AnyState& s, Action a) { return s.action_to_string(a); }

val move_list(const AnyState& s, const std::vector<Action>& actions) {
  val out = val::array();
  for (Action a : actions) out.call<void>("push", move_text(s, a));
  return out;
}

Action parsed(const AnyState& s, const std::string& move) { return s.parse_action(trimmed(move)); }

int checked_seat(const AnyState& s, int seat) {
  if (seat < 0 || seat >= s.num_players())
    throw std::out_of_range("seat " + std::to_string(seat) + " does not exist; this game has seats 0.." + std::to_string(s.num_players() - 1));
  return seat;
}

// A joint move {seat: move text} as action ids (none where no seats choose: apply_joint says so).
std::map<int, Action> joint_of(const AnyState& s, const val& joint) {
  std::map<int, Action> out;
  if (s.choosing_seats().empty()) return out;
  const val entries = val::global("Object").call<val>("entries", joint);
  for (unsigned i = 0, n = entries["length"].as<unsigned>(); i < n; ++i) {
    const std::string key = entries[i][0].as<std::string>();
    const bool digits = !key.empty() && key.size() < 4 && key.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) throw IllegalMoveError("'" + key + "' is not a seat; a joint move maps seats to moves, e.g. {0: 'paper', 1: 'rock'}");
    const int seat = std::stoi(key);
    if (type_of(entries[i][1]) != "string") throw NotationError("seat " + key + ": a move is text, got " + shown(entries[i][1]));
    try {
      out[seat] = parsed(s, entries[i][1].as<std::string>());
    } catch (const NotationError& e) {
      throw NotationError("seat " + key + ": " + e.what());
    }
  }
  return out;
}

const char* proof_name(search::Proof proof) {
  return proof == search::Proof::kWin ? "win" : proof == search::Proof::kLoss ? "loss" : nullptr;
}

val search_js(const AnyState& s, const search::Result& r) {
  val out = val::object();
  out.set("move", move_text(s, r.action));
  out.set("action", r.action);
  val stats = val::array();
  for (const auto& a : r.stats) {
    val entry = val::object();
    entry.set("move", move_text(s, a.action));
    entry.set("action", a.action);
    entry.set("visits", static_cast<double>(a.visits));
    entry.set("meanReward", a.mean_reward);
    const char* proof = proof_name(a.proof);
    entry.set("proof", proof ? val(std::string(proof)) : val::null());
    entry.set("probability", a.probability);
    stats.call<void>("push", entry);
  }
  out.set("stats", stats);
  out.set("iterations", static_cast<double>(r.iterations));
  out.set("nodes", static_cast<double>(r.nodes));
  out.set("seconds", r.seconds);
  out.set("rootValue", r.root_value);
  out.set("forced", r.forced);
  out.set("treeFull", r.tree_full);
  return out;
}

// ------------------------------------------------------------------------------------------
// The functions api.js calls

val games() {
  return guarded([] {
    val out = val::array();
    for (const GameInfo& g : registry()) {
      val info = val::object();
      info.set("name", g.name);
      info.set("description", g.description);
      info.set("minPlayers", g.min_players);
      info.set("maxPlayers", g.max_players);
      val options = val::array();
      for (const auto& [name, help] : g.options) {
        val option = val::object();
        option.set("name", name);
        option.set("help", help);
        options.call<void>("push", option);
      }
      info.set("options", options);
      info.set("perfectInformation", g.perfect_information);
      info.set("simultaneous", g.simultaneous);
      info.set("chance", g.chance);
      info.set("maxActions", g.max_actions);
      val constants = val::array();
      for (const auto& [name, value, status] : g.constants) {
        val constant = val::object();
        constant.set("name", name);
        constant.set("value", value);
        constant.set("status", status);
        constants.call<void>("push", constant);
      }
      info.set("constants", constants);
      out.call<void>("push", info);
    }
    return out;
  });
}

val parameter_table() {
  return guarded([] {
    val out = val::array();
    for (const Row& row : rows()) out.call<void>("push", row.describe());
    return out;
  });
}

val search_params(val options) {
  return guarded([&] { return params_js(params_of(options)); });
}

val parameter_name(std::string key) {
  return guarded([&] { return val(std::string(find_row(key).name)); });
}

val check_options(std::string game, val options) {
  return guarded([&] {
    find_game(game).check_options(string_map(options));
    return val::undefined();
  });
}

val new_state(std::string game, val options, std::string seed) {
  return guarded([&] { return keep(find_game(game).initial(string_map(options), uint64_of(seed))); });
}

// A state read from notation (full, or a seat's view), of the game its first word names.
val from_notation(std::string notation_text, bool view) {
  return guarded([&] {
    const auto words = text::words(notation_text);
    if (words.empty()) throw NotationError("an empty notation; it starts with the game's name");
    const GameInfo& g = find_game(std::string(words[0]));
    return keep(view ? g.from_view(notation_text) : g.from_string(notation_text));
  });
}

val state_summary(std::uint32_t h) {
  return guarded([&] {
    const AnyState& s = state(h);
    val out = val::object();
    out.set("gameName", s.game_name());
    out.set("numPlayers", s.num_players());
    out.set("currentPlayer", s.current_player());
    out.set("choosingSeats", array_of(s.choosing_seats()));
    return out;
  });
}

val legal_moves(std::uint32_t h) {
  return guarded([&] {
    const AnyState& s = state(h);
    if (s.current_player() == kSimultaneousPlayer)
      throw IllegalMoveError("seats " + seat_list(s.choosing_seats()) + " choose at once here: ask legalMovesFor(seat)");
    return move_list(s, s.legal_actions());
  });
}

val legal_moves_for(std::uint32_t h, int seat) {
  return guarded([&] {
    const AnyState& s = state(h);
    return move_list(s, s.legal_actions_for(seat));
  });
}

val chance_outcomes(std::uint32_t h) {
  return guarded([&] {
    const AnyState& s = state(h);
    val out = val::array();
    for (const auto& [a, p] : s.chance_outcomes()) {
      val outcome = val::object();
      outcome.set("move", move_text(s, a));
      outcome.set("probability", p);
      out.call<void>("push", outcome);
    }
    return out;
  });
}

val apply(std::uint32_t h, std::string move) {
  return guarded([&] {
    AnyState& s = state(h);
    s.apply(parsed(s, move));
    return val::undefined();
  });
}

val apply_joint(std::uint32_t h, val joint) {
  return guarded([&] {
    AnyState& s = state(h);
    s.apply_joint(joint_of(s, joint));
    return val::undefined();
  });
}

val sample_chance(std::uint32_t h, std::string seed) {
  return guarded([&] {
    const AnyState& s = state(h);
    return val(move_text(s, s.sample_chance(uint64_of(seed))));
  });
}

val clone(std::uint32_t h) {
  return guarded([&] { return keep(state(h).clone()); });
}

val results(std::uint32_t h) {
  return guarded([&] {
    const AnyState& s = state(h);
    val out = val::object();
    out.set("returns", array_of(s.returns()));
    out.set("scores", array_of(s.scores()));
    out.set("ranks", array_of(s.ranks()));
    std::vector<int> teams;
    for (int seat = 0; seat < s.num_players(); ++seat) teams.push_back(s.team(seat));
    out.set("teams", array_of(teams));
    return out;
  });
}

val view(std::uint32_t h, int seat) {
  return guarded([&] {
    const AnyState& s = state(h);
    val out = val::object();
    out.set("notation", s.view_string(seat));
    out.set("key", bigint(s.info_key(seat)));
    return out;
  });
}

val notation(std::uint32_t h) {
  return guarded([&] { return val(state(h).to_string()); });
}

val render(std::uint32_t h, int seat) {
  return guarded([&] { return val(state(h).render(seat)); });
}

val equals(std::uint32_t a, std::uint32_t b) {
  return guarded([&] { return val(state(a).equals(state(b))); });
}

val observation_text(std::uint32_t h, int seat, std::string move) {
  return guarded([&] {
    const AnyState& s = state(h);
    return val(s.observation_string(seat, parsed(s, move)));
  });
}

val joint_observation_text(std::uint32_t h, int seat, val joint) {
  return guarded([&] {
    const AnyState& s = state(h);
    return val(s.joint_observation_string(seat, joint_of(s, joint)));
  });
}

val after_observation(std::uint32_t h, int seat, std::string seen, std::string seed) {
  return guarded([&] { return keep(state(h).after_observation(seat, trimmed(seen), uint64_of(seed))); });
}

val determinize(std::uint32_t h, int seat, std::string seed) {
  return guarded([&] { return keep(state(h).determinize(seat, uint64_of(seed))); });
}

// The search of seat's decision (-1: the seat to move; at a simultaneous node a choosing seat).
val search(std::uint32_t h, val options, int seat, val opponent_shares) {
  return guarded([&] {
    const AnyState& s = state(h);
    if (s.current_player() == kSimultaneousPlayer) {
      const auto seats = s.choosing_seats();
      if (std::find(seats.begin(), seats.end(), seat) == seats.end())
        throw IllegalMoveError("seats " + seat_list(seats) + " choose at once here: search one of them ({seat: ...}), got " +
                               (seat < 0 ? std::string("none") : std::to_string(seat)));
    } else if (s.current_player() < 0) {
      throw IllegalMoveError("search needs a seat to move; this state is terminal or a chance node");
    } else if (seat >= 0 && seat != s.current_player()) {
      throw IllegalMoveError("seat " + std::to_string(seat) + " has no decision here; seat " + std::to_string(s.current_player()) + " is to move");
    }
    search::Params params = params_of(options);
    if (!opponent_shares.isUndefined() && !opponent_shares.isNull()) {
      for (unsigned i = 0, n = opponent_shares["length"].as<unsigned>(); i < n; ++i) {
        if (type_of(opponent_shares[i]) != "number") throw OptionError("opponentShares: expected numbers, got " + shown(opponent_shares[i]));
        params.opponent_shares.push_back(opponent_shares[i].as<double>());
      }
    }
    return search_js(s, s.search(params, seat));
  });
}

val solve(std::uint32_t h) {
  return guarded([&] {
    const AnyState& s = state(h);
    const int seat = s.current_player();
    if (seat < 0) throw IllegalMoveError("solve needs a seat to move; this state is terminal or a chance node");
    const search::SolveResult r = s.solve();
    val values = val::array();
    for (int q = 0; q < s.num_players(); ++q) values.call<void>("push", q == seat ? r.value : 1 - r.value);
    val out = val::object();
    out.set("move", move_text(s, r.action));
    out.set("action", r.action);
    out.set("values", values);
    out.set("nodes", static_cast<double>(r.nodes));
    out.set("seconds", r.seconds);
    return out;
  });
}

// The greedy bot's move: at a simultaneous node for `seat`, else for the seat to move.
val greedy_move(std::uint32_t h, int seat, std::string seed) {
  return guarded([&] {
    const AnyState& s = state(h);
    if (s.current_player() == kSimultaneousPlayer) {
      if (seat < 0) throw IllegalMoveError("seats " + seat_list(s.choosing_seats()) + " choose at once here: give the seat");
      return val(move_text(s, s.greedy_choice(checked_seat(s, seat), uint64_of(seed), {})));
    }
    if (seat >= 0 && seat != s.current_player())
      throw IllegalMoveError("seat " + std::to_string(seat) + " has no decision here; seat " + std::to_string(s.current_player()) + " is to move");
    return val(move_text(s, s.greedy_action(uint64_of(seed), {})));
  });
}

val perft(std::uint32_t h, int depth) {
  return guarded([&] { return val(static_cast<double>(state(h).perft(depth))); });
}

}  // namespace
}  // namespace kibitz::wasm

EMSCRIPTEN_BINDINGS(kibitz) {
  using namespace kibitz::wasm;
  emscripten::function("version", +[] { return std::string(KIBITZ_VERSION); });
  emscripten::function("games", &games);
  emscripten::function("parameterTable", &parameter_table);
  emscripten::function("searchParams", &search_params);
  emscripten::function("parameterName", &parameter_name);
  emscripten::function("checkOptions", &check_options);
  emscripten::function("newState", &new_state);
  emscripten::function("fromNotation", &from_notation);
  emscripten::function("release", &release);
  emscripten::function("summary", &state_summary);
  emscripten::function("legalMoves", &legal_moves);
  emscripten::function("legalMovesFor", &legal_moves_for);
  emscripten::function("chanceOutcomes", &chance_outcomes);
  emscripten::function("apply", &apply);
  emscripten::function("applyJoint", &apply_joint);
  emscripten::function("sampleChance", &sample_chance);
  emscripten::function("clone", &clone);
  emscripten::function("results", &results);
  emscripten::function("view", &view);
  emscripten::function("notation", &notation);
  emscripten::function("render", &render);
  emscripten::function("equals", &equals);
  emscripten::function("observationText", &observation_text);
  emscripten::function("jointObservationText", &joint_observation_text);
  emscripten::function("afterObservation", &after_observation);
  emscripten::function("determinize", &determinize);
  emscripten::function("search", &search);
  emscripten::function("solve", &solve);
  emscripten::function("greedyMove", &greedy_move);
  emscripten::function("perft", &perft);
}
