// Bindings of the plug-in ABI (plugin/kibitz_plugin.h, docs/plugins.md): reading a plug-in from
// its PyCapsule, setting it on the search's Params, and wrapping plain Python callables as a
// plug-in whose calls take the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "search/params.h"
#include "search/plugin.h"

namespace py = pybind11;
using namespace kibitz;

// A capsule of `plugin` that holds a reference to `owner` (the object the plug-in lives in), so
// that the plug-in lives as long as the capsule; bindings/network.cpp uses it too.
py::capsule owned_capsule(const kibitz_plugin& plugin, py::object owner);

namespace {

// The plug-in a capsule holds, checked: the capsule's name and the ABI version; OptionError otherwise.
const kibitz_plugin* plugin_of(const py::object& object) {
  if (!PyCapsule_CheckExact(object.ptr()))
    throw OptionError("a plug-in is a PyCapsule named '" KIBITZ_PLUGIN_CAPSULE "', got a " + std::string(py::str(py::type::of(object).attr("__name__"))));
  const char* name = PyCapsule_GetName(object.ptr());
  if (!name || std::strcmp(name, KIBITZ_PLUGIN_CAPSULE) != 0)
    throw OptionError("a plug-in is a PyCapsule named '" KIBITZ_PLUGIN_CAPSULE "', got one named '" + std::string(name ? name : "") + "'");
  const auto* plugin = static_cast<const kibitz_plugin*>(PyCapsule_GetPointer(object.ptr(), name));
  if (!plugin) throw OptionError("the plug-in capsule holds a null pointer");
  if (plugin->abi_version != KIBITZ_PLUGIN_ABI_VERSION)
    throw OptionError("plug-in '" + search::plugin_name(*plugin) + "' is built for plug-in ABI " + std::to_string(plugin->abi_version) +
                      "; this kibitz has ABI " + std::to_string(KIBITZ_PLUGIN_ABI_VERSION) + " (rebuild the plug-in against it)");
  return plugin;
}

// The text of the last Python exception a callable raised on this search thread (kibitz_error_fn).
thread_local std::string python_error;

// A search thread that is not a Python thread gets one Python thread state, made at its first
// call and kept until the thread ends; without it every call's GIL acquisition would make and
// destroy one (pybind11's gil_scoped_acquire does so on such threads), ten times the cost of a
// call on 2 threads. PyThreadState_New registers it as the thread's own, so gil_scoped_acquire
// then takes it up.
class SearchThreadState {
 public:
  static void ensure() {
    thread_local SearchThreadState local;
    if (!local.state_ && !PyGILState_GetThisThreadState()) local.state_ = PyThreadState_New(PyInterpreterState_Main());
  }
  ~SearchThreadState() {
    if (!state_) return;
    PyEval_RestoreThread(state_);
    PyThreadState_Clear(state_);
    PyThreadState_DeleteCurrent();
  }

 private:
  PyThreadState* state_ = nullptr;
};

// Python callables behind the C ABI. Every call takes the GIL, copies the tensor and mask into
// fresh numpy arrays (the callable may keep them) and converts the result; an exception becomes
// KIBITZ_PLUGIN_ERROR with its text, which the search raises as PluginError.
class PythonPlugin {
 public:
  PythonPlugin(py::object choose, py::object evaluate, std::string name, std::optional<std::string> game)
      : choose_(std::move(choose)), evaluate_(std::move(evaluate)), name_(std::move(name)), game_(game.value_or("")) {
    if (choose_.is_none() && evaluate_.is_none()) throw OptionError("a Python plug-in needs a choose or an evaluate callable (both are None)");
    for (const py::object* f : {&choose_, &evaluate_})
      if (!f->is_none() && !PyCallable_Check(f->ptr()))
        throw OptionError("a Python plug-in's choose and evaluate must be callables, got a " + std::string(py::str(py::type::of(*f).attr("__name__"))));
    plugin_.abi_version = KIBITZ_PLUGIN_ABI_VERSION;
    plugin_.name = name_.c_str();
    plugin_.game = game_.empty() ? nullptr : game_.c_str();
    plugin_.context = this;
    plugin_.choose = choose_.is_none() ? nullptr : &PythonPlugin::choose;
    plugin_.evaluate = evaluate_.is_none() ? nullptr : &PythonPlugin::evaluate;
    plugin_.error = [](void*) -> const char* { return python_error.c_str(); };
  }
  static py::capsule capsule(py::object self) {
    const kibitz_plugin& plugin = self.cast<PythonPlugin&>().plugin_;
    return owned_capsule(plugin, std::move(self));
  }

 private:
  static std::int32_t choose(void* context, const float* observation, std::int32_t size, const uint8_t* mask, std::int32_t n,
                             std::int32_t seat, std::uint64_t random) {
    auto* self = static_cast<PythonPlugin*>(context);
    SearchThreadState::ensure();
    py::gil_scoped_acquire gil;
    return self->guarded([&] {
      py::array_t<bool> legal(n);
      std::memcpy(legal.mutable_data(), mask, static_cast<std::size_t>(n));
      // 63 of the 64 bits, so that the number fits numpy's int64 arithmetic.
      const py::object chosen = self->choose_(py::array_t<float>(size, observation), legal, seat, random >> 1);
      return chosen.cast<std::int32_t>();
    });
  }
  static std::int32_t evaluate(void* context, const float* observation, std::int32_t size, std::int32_t seat, std::int32_t players,
                               float* values) {
    auto* self = static_cast<PythonPlugin*>(context);
    SearchThreadState::ensure();
    py::gil_scoped_acquire gil;
    return self->guarded([&] {
      const py::sequence got = self->evaluate_(py::array_t<float>(size, observation), seat, players);
      if (static_cast<std::int32_t>(py::len(got)) != players)
        throw std::invalid_argument("evaluate returned " + std::to_string(py::len(got)) + " values for " + std::to_string(players) + " seats");
      for (std::int32_t k = 0; k < players; ++k) values[k] = got[k].cast<float>();
      return 0;
    });
  }
  template <class Call>
  std::int32_t guarded(Call&& call) {
    try {
      python_error.clear();
      return call();
    } catch (py::error_already_set& e) {
      python_error = e.what();
    } catch (const std::exception& e) {
      python_error = e.what();
    }
    return KIBITZ_PLUGIN_ERROR;
  }

  py::object choose_, evaluate_;
  std::string name_, game_;
  kibitz_plugin plugin_{};
};

}  // namespace

py::capsule owned_capsule(const kibitz_plugin& plugin, py::object owner) {
  PyObject* capsule = PyCapsule_New(const_cast<kibitz_plugin*>(&plugin), KIBITZ_PLUGIN_CAPSULE,
                                    [](PyObject* c) { Py_XDECREF(static_cast<PyObject*>(PyCapsule_GetContext(c))); });
  if (!capsule) throw py::error_already_set();
  PyCapsule_SetContext(capsule, owner.release().ptr());
  return py::reinterpret_steal<py::capsule>(capsule);
}

void bind_plugins(py::module_& m) {
  py::register_exception<search::PluginError>(m, "PluginError", PyExc_RuntimeError);
  m.attr("PLUGIN_ABI_VERSION") = KIBITZ_PLUGIN_ABI_VERSION;
  m.attr("PLUGIN_CAPSULE") = KIBITZ_PLUGIN_CAPSULE;

  m.def("plugin_info", [](const py::object& capsule) {
    const kibitz_plugin* p = plugin_of(capsule);
    py::dict info;
    info["name"] = search::plugin_name(*p);
    info["game"] = p->game && *p->game ? py::object(py::str(p->game)) : py::object(py::none());
    info["chooses"] = p->choose != nullptr;
    info["evaluates"] = p->evaluate != nullptr;
    return info;
  }, "The name, game and functions of the plug-in a capsule holds; OptionError for anything else.");

  // A copy of the struct with only the functions asked for (kibitz.plugins.Plugin.only); the new
  // capsule owns the copy and holds a reference to the original capsule, so whatever keeps that
  // alive (its module) stays alive too.
  m.def("plugin_subset", [](const py::object& capsule, bool choose, bool evaluate) {
    const kibitz_plugin* p = plugin_of(capsule);
    if (!choose && !evaluate) throw OptionError("plug-in '" + search::plugin_name(*p) + "': ask for choose, evaluate or both");
    if ((choose && !p->choose) || (evaluate && !p->evaluate))
      throw OptionError("plug-in '" + search::plugin_name(*p) + "' has no " + (choose && !p->choose ? "rollout policy (choose)" : "evaluator (evaluate)") +
                        "; it offers only " + (p->choose ? "choose" : "evaluate"));
    auto* copy = new kibitz_plugin(*p);
    if (!choose) copy->choose = nullptr;
    if (!evaluate) copy->evaluate = nullptr;
    PyObject* subset = PyCapsule_New(copy, KIBITZ_PLUGIN_CAPSULE, [](PyObject* c) {
      delete static_cast<kibitz_plugin*>(PyCapsule_GetPointer(c, KIBITZ_PLUGIN_CAPSULE));
      Py_XDECREF(static_cast<PyObject*>(PyCapsule_GetContext(c)));
    });
    if (!subset) {
      delete copy;
      throw py::error_already_set();
    }
    PyCapsule_SetContext(subset, py::object(capsule).release().ptr());
    return py::reinterpret_steal<py::capsule>(subset);
  });

  // Direct calls, for testing a plug-in from Python (kibitz.plugins.Plugin.choose / .evaluate);
  // the result is returned as the plug-in gave it, unchecked.
  m.def("plugin_choose", [](const py::object& capsule, py::array_t<float, py::array::c_style | py::array::forcecast> observation,
                            py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> legal_mask, int seat, std::uint64_t random) {
    const kibitz_plugin* p = plugin_of(capsule);
    if (!p->choose) throw OptionError("plug-in '" + search::plugin_name(*p) + "' has no rollout policy (choose)");
    const auto size = static_cast<std::int32_t>(observation.size());
    const auto n = static_cast<std::int32_t>(legal_mask.size());
    py::gil_scoped_release release;  // as in a search: a Python plug-in takes it back
    return p->choose(p->context, observation.data(), size, legal_mask.data(), n, seat, random);
  });
  m.def("plugin_evaluate", [](const py::object& capsule, py::array_t<float, py::array::c_style | py::array::forcecast> observation, int seat,
                              int players) {
    const kibitz_plugin* p = plugin_of(capsule);
    if (!p->evaluate) throw OptionError("plug-in '" + search::plugin_name(*p) + "' has no evaluator (evaluate)");
    if (players < 1 || players > 64) throw OptionError("players must be in 1..64, got " + std::to_string(players));
    std::vector<float> values(static_cast<std::size_t>(players), 0.0f);
    const auto size = static_cast<std::int32_t>(observation.size());
    std::int32_t status;
    {
      py::gil_scoped_release release;
      status = p->evaluate(p->context, observation.data(), size, seat, players, values.data());
    }
    if (status != 0) throw search::PluginError("plug-in '" + search::plugin_name(*p) + "' evaluate failed");
    return values;
  });

  py::reinterpret_borrow<py::class_<search::Params>>(m.attr("Params"))
      .def("set_plugin", [](search::Params& p, const py::object& capsule) { p.plugin = capsule.is_none() ? nullptr : plugin_of(capsule); },
           py::keep_alive<1, 2>(), "Sets the plug-in (a capsule, or None); the Params keep it alive.");

  py::class_<PythonPlugin>(m, "PythonPlugin")
      .def(py::init<py::object, py::object, std::string, std::optional<std::string>>(), py::arg("choose"), py::arg("evaluate"),
           py::arg("name"), py::arg("game") = py::none())
      .def("capsule", &PythonPlugin::capsule, "The plug-in as a capsule (kibitz.plugins.Plugin takes it).");
}
