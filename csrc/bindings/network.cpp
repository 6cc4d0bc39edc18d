// Bindings of the learned evaluator (learn/network.h): a network file read in C++, its forward
// pass on a batch (for tests and for Python to check what the search computes), its weights as
// numpy arrays, and the network as a plug-in capsule for the search (python/kibitz/learn.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "core/game.h"
#include "learn/network_plugin.h"

namespace py = pybind11;
using namespace kibitz;
using learn::NetworkPlugin;

py::capsule owned_capsule(const kibitz_plugin& plugin, py::object owner);  // bindings/plugins.cpp

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// The values (batch × players) and logits (batch × actions) of a batch of observations.
py::tuple forward(const NetworkPlugin& self, const FloatArray& observations) {
  const learn::Network& net = self.network();
  const learn::Architecture& shape = net.architecture();
  if (observations.ndim() != 2 || observations.shape(1) != static_cast<py::ssize_t>(shape.inputs))
    throw OptionError("forward takes observations of shape (batch, " + std::to_string(shape.inputs) + ")");
  const py::ssize_t batch = observations.shape(0);
  py::array_t<float> values({batch, static_cast<py::ssize_t>(shape.players)});
  py::array_t<float> logits({batch, static_cast<py::ssize_t>(shape.actions)});
  std::vector<float> h(shape.hidden);
  for (py::ssize_t i = 0; i < batch; ++i) {
    net.trunk(observations.data(i, 0), h.data());
    net.value(h.data(), values.mutable_data(i, 0));
    net.logits(h.data(), logits.mutable_data(i, 0));
  }
  return py::make_tuple(values, logits);
}

// Each layer's (W, b), in file order.
py::list weights(const NetworkPlugin& self) {
  py::list out;
  for (const learn::Dense* layer : self.network().layers()) {
    py::array_t<float> w({static_cast<py::ssize_t>(layer->in), static_cast<py::ssize_t>(layer->out)});
    std::copy(layer->w.begin(), layer->w.end(), w.mutable_data());
    py::array_t<float> b(static_cast<py::ssize_t>(layer->out));
    std::copy(layer->b.begin(), layer->b.end(), b.mutable_data());
    out.append(py::make_tuple(w, b));
  }
  return out;
}

std::string file_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

}  // namespace

void bind_network(py::module_& m) {
  m.attr("NETWORK_FORMAT") = learn::kNetworkFormat;
  m.def("crc32", [](const py::bytes& data) { return learn::crc32(std::string_view(data)); }, "CRC-32 as network files use it (zlib's).");
  py::class_<NetworkPlugin>(m, "Network")
      .def_static("read", [](const std::string& path) {
        return std::make_unique<NetworkPlugin>(learn::Network::read(path), "network " + file_name(path));
      }, py::arg("path"), "Reads a network file; OptionError naming what is wrong with it.")
      .def_static("parse", [](const py::bytes& data, const std::string& label) {
        return std::make_unique<NetworkPlugin>(learn::Network::parse(std::string_view(data), label), "network " + label);
      }, py::arg("data"), py::arg("label"), "A network from a file's bytes; `label` names it in errors.")
      .def_property_readonly("name", [](const NetworkPlugin& n) { return std::string(n.plugin().name); })
      .def_property_readonly("game", [](const NetworkPlugin& n) { return n.network().architecture().game; })
      .def_property_readonly("players", [](const NetworkPlugin& n) { return n.network().architecture().players; })
      .def_property_readonly("inputs", [](const NetworkPlugin& n) { return n.network().architecture().inputs; })
      .def_property_readonly("actions", [](const NetworkPlugin& n) { return n.network().architecture().actions; })
      .def_property_readonly("hidden", [](const NetworkPlugin& n) { return n.network().architecture().hidden; })
      .def_property_readonly("blocks", [](const NetworkPlugin& n) { return n.network().architecture().blocks; })
      .def("forward", &forward, py::arg("observations"), "(values, logits) of a batch of observations, as the search computes them.")
      .def("weights", &weights, "Each layer's (W, b) in file order: W is inputs × outputs.")
      .def("capsule", [](py::object self) { return owned_capsule(self.cast<NetworkPlugin&>().plugin(), self); },
           "The network as a plug-in capsule (kibitz.plugins.Plugin takes it): value head = evaluator, policy head = rollout policy.");
}
