// pybind11 module kibitz._core: the type-erased game states, search and errors.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/any_state.h"

namespace py = pybind11;
using namespace kibitz;

void bind_plugins(py::module_& m);  // bindings/plugins.cpp

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

  py::enum_<search::Algorithm>(m, "Algorithm")
      .value("uct", search::Algorithm::kUct)
      .value("pimc", search::Algorithm::kPimc)
      .value("so_ismcts", search::Algorithm::kSoIsmcts)
      .value("mo_ismcts", search::Algorithm::kMoIsmcts);
  py::enum_<search::FinalMove>(m, "FinalMove")
      .value("most_visits", search::FinalMove::kMostVisits)
      .value("best_mean", search::FinalMove::kBestMean);

  py::enum_<search::Shaping>(m, "Shaping")
      .value("none", search::Shaping::kNone)
      .value("rank", search::Shaping::kRank)
      .value("score", search::Shaping::kScore);
  py::enum_<search::Backup>(m, "Backup")
      .value("maxn", search::Backup::kMaxN)
      .value("paranoid", search::Backup::kParanoid);

  py::enum_<search::Simultaneous>(m, "Simultaneous")
      .value("rm", search::Simultaneous::kRegretMatching)
      .value("duct", search::Simultaneous::kDuct)
      .value("exp3", search::Simultaneous::kExp3);

  py::class_<search::StopFlag>(m, "StopFlag")
      .def(py::init<>())
      .def("set", [](search::StopFlag& f) { f.value.store(true); })
      .def("clear", [](search::StopFlag& f) { f.value.store(false); })
      .def("is_set", [](const search::StopFlag& f) { return f.value.load(); });

  py::class_<search::Progress>(m, "Progress")
      .def(py::init<>())
      .def_property_readonly("iterations", [](const search::Progress& p) { return p.iterations.load(); })
      .def("root_stats", &search::Progress::root_stats);

  py::class_<search::Params>(m, "Params")
      .def(py::init<>())
      .def_readwrite("algorithm", &search::Params::algorithm)
      .def_readwrite("exploration", &search::Params::exploration)
      .def_readwrite("heuristic_rollouts", &search::Params::heuristic_rollouts)
      .def_readwrite("rollout_epsilon", &search::Params::rollout_epsilon)
      .def_readwrite("determinizations", &search::Params::determinizations)
      .def_readwrite("threads", &search::Params::threads)
      .def_readwrite("iterations", &search::Params::iterations)
      .def_readwrite("time_limit_ms", &search::Params::time_limit_ms)
      .def_readwrite("final_move", &search::Params::final_move)
      .def_readwrite("seed", &search::Params::seed)
      .def_readwrite("solve_stones", &search::Params::solve_stones)
      .def_readwrite("solver", &search::Params::solver)
      .def_readwrite("memory_mb", &search::Params::memory_mb)
      .def_readwrite("simultaneous", &search::Params::simultaneous)
      .def_readwrite("sm_gamma", &search::Params::sm_gamma)
      .def_readwrite("reopen_choices", &search::Params::reopen_choices)
      .def_readwrite("policy", &search::Params::policy)
      .def_readwrite("shaping", &search::Params::shaping)
      .def_readwrite("shaping_weight", &search::Params::shaping_weight)
      .def_readwrite("backup", &search::Params::backup)
      .def_readwrite("mast", &search::Params::mast)
      .def_readwrite("mast_epsilon", &search::Params::mast_epsilon)
      .def_readwrite("progressive_history", &search::Params::progressive_history)
      .def_readwrite("progressive_bias", &search::Params::progressive_bias)
      .def_readwrite("eval_depth", &search::Params::eval_depth)
      .def_readwrite("stop", &search::Params::stop)
      .def_readwrite("progress", &search::Params::progress);
  bind_plugins(m);

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
  py::class_<search::HistoryStats>(m, "HistoryStats")
      .def_readonly("seat", &search::HistoryStats::seat)
      .def_readonly("action", &search::HistoryStats::action)
      .def_readonly("count", &search::HistoryStats::count)
      .def_readonly("mean_reward", &search::HistoryStats::mean_reward);
  py::class_<search::Result>(m, "Result")
      .def_readonly("action", &search::Result::action)
      .def_readonly("stats", &search::Result::stats)
      .def_readonly("iterations", &search::Result::iterations)
      .def_readonly("nodes", &search::Result::nodes)
      .def_readonly("seconds", &search::Result::seconds)
      .def_readonly("root_value", &search::Result::root_value)
      .def_readonly("forced", &search::Result::forced)
      .def_readonly("tree_full", &search::Result::tree_full)
      .def_readonly("history", &search::Result::history);
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
      .def_property_readonly("help", [](const PolicyWeight& w) { return std::string(w.help); });

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
      .def("greedy_action", &AnyState::greedy_action)
      .def("heuristic_action", &AnyState::heuristic_action)
      .def("greedy_choice", &AnyState::greedy_choice)
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
