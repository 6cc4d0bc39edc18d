// pybind11 module kibitz._core: the type-erased game states, search and errors.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <type_traits>

#include "bindings/any_state.h"

namespace py = pybind11;
using namespace kibitz;

namespace {

std::vector<std::string> words(const char* text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A parameter's type in Python: an enum is the name of its value, a bool 0 or 1 (an integer
// parameter of range 0..1, as the protocol's spin options have it), a number itself.
template <class T>
using PythonType = std::conditional_t<std::is_enum_v<T>, std::string, std::conditional_t<std::is_same_v<T, bool>, int, T>>;

template <class T>
PythonType<T> to_python(T value, const search::ParamRow<T>& row) {
  if constexpr (std::is_enum_v<T>)
    return words(row.choices).at(static_cast<std::size_t>(value));
  else
    return static_cast<PythonType<T>>(value);
}

// The value Python gives, checked against the row (SearchParams checks first, with the messages
// users see; this keeps a _core.Params set by hand inside the table too).
template <class T>
T from_python(const PythonType<T>& value, const char* name, const search::ParamRow<T>& row) {
  if constexpr (std::is_enum_v<T>) {
    const std::vector<std::string> names = words(row.choices);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == value) return static_cast<T>(i);
    throw OptionError(std::string("search parameter ") + name + ": '" + value + "' is not allowed; expected one of " + row.choices);
  } else {
    if (!(value >= static_cast<PythonType<T>>(row.low) && value <= static_cast<PythonType<T>>(row.high)))
      throw OptionError(std::string("search parameter ") + name + ": " + std::to_string(value) + " is out of range");
    return static_cast<T>(value);
  }
}

template <class T>
void bind_parameter(py::class_<search::Params>& cls, const char* name, T search::Params::*member, const search::ParamRow<T>& row) {
  cls.def_property(
      name, [member, row](const search::Params& p) { return to_python(p.*member, row); },
      [member, name, row](search::Params& p, const PythonType<T>& value) { p.*member = from_python(value, name, row); }, row.help);
}

template <class T>
py::dict describe(const char* name, const search::ParamRow<T>& row) {
  py::dict d;
  d["name"] = name;
  d["kind"] = std::is_enum_v<T> ? "str" : std::is_floating_point_v<T> ? "float" : "int";
  d["default"] = to_python(row.value, row);
  d["low"] = std::is_enum_v<T> ? py::none() : py::cast(to_python(row.low, row));
  d["high"] = std::is_enum_v<T> ? py::none() : py::cast(to_python(row.high, row));
  d["choices"] = py::tuple(py::cast(words(row.choices)));
  d["log"] = row.log;
  d["tunable"] = row.tunable && !std::is_enum_v<T>;
  py::list algorithms;
  const std::vector<std::string> names = words(search::kAlgorithmNames);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (row.algorithms & search::uses(static_cast<search::Algorithm>(i))) algorithms.append(names[i]);
  d["algorithms"] = py::tuple(algorithms);
  d["option"] = row.option;
  d["aliases"] = py::tuple(py::cast(words(row.aliases)));
  d["help"] = row.help;
  return d;
}

}  // namespace

void bind_plugins(py::module_& m);  // bindings/plugins.cpp
void bind_network(py::module_& m);  // bindings/network.cpp

PYBIND11_MODULE(_core, m) {
  m.doc() = "kibitz C++ core: game states, search, errors";

  py::register_exception<IllegalMoveError>(m, "IllegalMoveError", PyExc_ValueError);
  py::register_exception<NotationError>(m, "NotationError", PyExc_ValueError);
  py::register_exception<OptionError>(m, "OptionError", PyExc_ValueError);
  py::register_exception<UnknownGameError>(m, "UnknownGameError", PyExc_ValueError);

  m.attr("CHANCE") = kChancePlayer;
  m.attr("TERMINAL") = kTerminalPlayer;
  m.attr("SIMULTANEOUS") = kSimultaneousPlayer;
  m.attr("JOINT_SEPARATOR") = std::string(kJointSeparator);
  m.attr("UNOBSERVED") = kUnobserved;

  // Registered before the functions that return them, so that their signatures (and the stub
  // python/kibitz/_core.pyi made from them) name the Python types.
  py::class_<AnyState> state_class(m, "State");
  py::class_<search::ActionStats> action_stats_class(m, "ActionStats");

  py::class_<GameInfo>(m, "GameInfo")
      .def_readonly("name", &GameInfo::name)
      .def_readonly("description", &GameInfo::description)
      .def_readonly("min_players", &GameInfo::min_players)
      .def_readonly("max_players", &GameInfo::max_players)
      .def_readonly("options", &GameInfo::options)
      .def_readonly("perfect_information", &GameInfo::perfect_information)
      .def_readonly("simultaneous", &GameInfo::simultaneous)
      .def_readonly("constants", &GameInfo::constants)
      .def_readonly("max_actions", &GameInfo::max_actions)
      .def_readonly("max_chance_outcomes", &GameInfo::max_chance_outcomes)
      .def_readonly("chance", &GameInfo::chance)
      .def_readonly("notation_version", &GameInfo::notation_version)
      .def("initial", [](const GameInfo& g, const std::map<std::string, std::string>& o, std::uint64_t seed) { return g.initial(o, seed); })
      .def("from_string", [](const GameInfo& g, const std::string& t) { return g.from_string(t); })
      .def("from_view", [](const GameInfo& g, const std::string& t) { return g.from_view(t); })
      .def("check_options", [](const GameInfo& g, const std::map<std::string, std::string>& o) { g.check_options(o); });
  m.def("games", [] {
    std::vector<const GameInfo*> out;
    for (const auto& g : registry()) out.push_back(&g);
    return out;
  }, py::return_value_policy::reference);
  m.def("find_game", &find_game, py::return_value_policy::reference);

  py::class_<search::StopFlag>(m, "StopFlag")
      .def(py::init<>())
      .def("set", [](search::StopFlag& f) { f.value.store(true); })
      .def("clear", [](search::StopFlag& f) { f.value.store(false); })
      .def("is_set", [](const search::StopFlag& f) { return f.value.load(); });

  py::class_<search::Progress>(m, "Progress")
      .def(py::init<>())
      .def_property_readonly("iterations", [](const search::Progress& p) { return p.iterations.load(); })
      .def("root_stats", &search::Progress::root_stats)
      .def("root_value", [](const search::Progress& p) { return search::root_value(p.root_stats()); },
           "the visit-weighted mean reward of root_stats(), as a finished search's root_value");

  // Params: every row of the table (search/param_table.h) as a property under its Python name and
  // with its Python type, and the hooks that are no row of it.
  py::class_<search::Params> params_class(m, "Params");
  params_class.def(py::init<>());
  {
    using namespace search;  // the rows name their enums and helpers unqualified
#define KIBITZ_PARAM_PROPERTY(type, member, name, ...) bind_parameter(params_class, name, &search::Params::member, search::ParamRow<type>{__VA_ARGS__});
    KIBITZ_SEARCH_PARAMETERS(KIBITZ_PARAM_PROPERTY)
#undef KIBITZ_PARAM_PROPERTY
  }
  params_class.def_readwrite("policy", &search::Params::policy)
      .def_readwrite("opponent_shares", &search::Params::opponent_shares)
      .def_readwrite("stop", &search::Params::stop)
      .def_readwrite("progress", &search::Params::progress);
  m.def("parameter_table", [] {
    using namespace search;
    py::list rows;
#define KIBITZ_PARAM_DESCRIPTION(type, member, name, ...) rows.append(describe(name, search::ParamRow<type>{__VA_ARGS__}));
    KIBITZ_SEARCH_PARAMETERS(KIBITZ_PARAM_DESCRIPTION)
#undef KIBITZ_PARAM_DESCRIPTION
    return rows;
  }, "the search parameters as declared in search/param_table.h, in order: one dict per parameter");
  bind_plugins(m);
  bind_network(m);

  py::enum_<search::Proof>(m, "Proof")
      .value("none", search::Proof::kNone)
      .value("win", search::Proof::kWin)
      .value("loss", search::Proof::kLoss);
  action_stats_class
      .def_readonly("action", &search::ActionStats::action)
      .def_readonly("visits", &search::ActionStats::visits)
      .def_readonly("mean_reward", &search::ActionStats::mean_reward)
      .def_readonly("probability", &search::ActionStats::probability)
      .def_readonly("proof", &search::ActionStats::proof);
  py::class_<search::Result>(m, "Result")
      .def_readonly("action", &search::Result::action)
      .def_readonly("stats", &search::Result::stats)
      .def_readonly("iterations", &search::Result::iterations)
      .def_readonly("nodes", &search::Result::nodes)
      .def_readonly("seconds", &search::Result::seconds)
      .def_readonly("root_value", &search::Result::root_value)
      .def_readonly("forced", &search::Result::forced)
      .def_readonly("tree_full", &search::Result::tree_full);
  m.def("root_value", &search::root_value, "visit-weighted mean reward of root statistics");
  m.attr("TREE_BYTES_PER_NODE") = sizeof(search::Node);
  py::class_<search::SolveResult>(m, "SolveResult")
      .def_readonly("action", &search::SolveResult::action)
      .def_readonly("value", &search::SolveResult::value)
      .def_readonly("nodes", &search::SolveResult::nodes)
      .def_readonly("seconds", &search::SolveResult::seconds);

  py::class_<PolicyWeight>(m, "PolicyWeight")
      .def_property_readonly("name", [](const PolicyWeight& w) { return std::string(w.name); })
      .def_readonly("default", &PolicyWeight::value)
      .def_readonly("low", &PolicyWeight::low)
      .def_readonly("high", &PolicyWeight::high)
      .def_property_readonly("help", [](const PolicyWeight& w) { return std::string(w.help); })
      .def("__repr__", [](const PolicyWeight& w) {
        return "PolicyWeight(name=" + std::string(py::repr(py::str(w.name))) + ", default=" + std::string(py::repr(py::float_(w.value))) +
               ", low=" + std::string(py::repr(py::float_(w.low))) + ", high=" + std::string(py::repr(py::float_(w.high))) + ")";
      });

  state_class
      .def("clone", &AnyState::clone)
      .def_property_readonly("game_name", &AnyState::game_name)
      .def_property_readonly("num_players", &AnyState::num_players)
      .def_property_readonly("current_player", &AnyState::current_player)
      .def("is_terminal", &AnyState::is_terminal)
      .def("legal_actions", &AnyState::legal_actions)
      .def("chance_outcomes", &AnyState::chance_outcomes)
      .def("apply", &AnyState::apply)
      .def("choosing_seats", &AnyState::choosing_seats)
      .def("legal_actions_for", &AnyState::legal_actions_for)
      .def("apply_joint", &AnyState::apply_joint)
      .def("observe_choice", &AnyState::observe_choice)
      .def("joint_observation_string", &AnyState::joint_observation_string)
      .def("returns", &AnyState::returns)
      .def("scores", &AnyState::scores)
      .def("ranks", &AnyState::ranks)
      .def("team", &AnyState::team)
      .def("info_key", &AnyState::info_key)
      .def("observe", &AnyState::observe)
      .def("determinize", &AnyState::determinize)
      .def("observation_string", &AnyState::observation_string)
      .def("after_observation", &AnyState::after_observation)
      .def("action_to_string", &AnyState::action_to_string)
      .def("parse_action", &AnyState::parse_action)
      .def("to_string", &AnyState::to_string)
      .def("view_string", &AnyState::view_string)
      .def("render", &AnyState::render, py::arg("seat") = -1)
      .def("equals", &AnyState::equals)
      .def("search", &AnyState::search, py::arg("params"), py::arg("seat") = -1, py::call_guard<py::gil_scoped_release>())
      .def("policy_weights", &AnyState::policy_weights)
      .def("solve", &AnyState::solve, py::call_guard<py::gil_scoped_release>())
      .def("eval_weights", &AnyState::eval_weights)
      .def("greedy_action", &AnyState::greedy_action, py::arg("seed"), py::arg("eval") = search::NamedWeights{})
      .def("heuristic_action", &AnyState::heuristic_action, py::arg("seed"), py::arg("policy") = search::NamedWeights{})
      .def("decision_log_likelihood", &AnyState::decision_log_likelihood, py::arg("observer"), py::arg("turns"), py::arg("temperature"),
           py::arg("epsilon"), py::arg("seed"), py::arg("policy") = search::NamedWeights{})
      .def("greedy_choice", &AnyState::greedy_choice, py::arg("seat"), py::arg("seed"), py::arg("eval") = search::NamedWeights{})
      .def("heuristic_choice", &AnyState::heuristic_choice)
      .def("sample_chance", &AnyState::sample_chance)
      .def("perft", &AnyState::perft, py::call_guard<py::gil_scoped_release>())
      .def("random_playouts", &AnyState::random_playouts, py::call_guard<py::gil_scoped_release>())
      .def("heuristic_playouts", &AnyState::heuristic_playouts, py::call_guard<py::gil_scoped_release>())
      .def("max_game_length", &AnyState::max_game_length)
      .def("max_actions", &AnyState::max_actions)
      .def("observation_tensor_size", &AnyState::observation_tensor_size)
      // A fresh float32 array that owns the buffer the game wrote into: no copy on the way out.
      .def("observation_tensor", [](const AnyState& s, int seat) {
        const py::ssize_t n = s.observation_tensor_size();
        auto buffer = std::make_unique<float[]>(static_cast<std::size_t>(n));
        s.observation_tensor(seat, buffer.get());
        float* data = buffer.release();
        py::capsule owner(data, [](void* p) { delete[] static_cast<float*>(p); });
        return py::array_t<float>({n}, {static_cast<py::ssize_t>(sizeof(float))}, data, owner);
      })
      // The same written into the caller's array (a contiguous float32 vector of the right size),
      // so that a training loop allocates nothing per step.
      .def("observation_tensor_into", [](const AnyState& s, int seat, py::array out) {
        const py::ssize_t n = s.observation_tensor_size();
        const bool fits = out.dtype().is(py::dtype::of<float>()) && out.ndim() == 1 && out.shape(0) == n &&
                          (out.flags() & py::array::c_style) && out.writeable();
        if (!fits) throw OptionError("observation_tensor_into: expected a writeable contiguous float32 vector of " + std::to_string(n) + " values");
        s.observation_tensor(seat, static_cast<float*>(out.mutable_data()));
      })
      .def("legal_action_mask", [](const AnyState& s, int seat) {
        py::array_t<bool> mask(s.max_actions());
        auto m = mask.mutable_unchecked<1>();
        for (py::ssize_t i = 0; i < mask.shape(0); ++i) m(i) = false;
        for (Action a : s.legal_actions_for(seat)) m(a) = true;
        return mask;
      });
}
