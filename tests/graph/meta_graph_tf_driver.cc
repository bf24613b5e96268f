// Copyright 2026 The inflow Authors.
//
// Driver for tests/py/test_meta_graph_vs_tf.py. Reads one JSON object from
// stdin:
//   {"prefix": P, "graph_pbtxt": G, "input_name": "x", "input_size": 784,
//    "output_name": "predictions", "seed": S, "num_inputs": N,
//    "layers": [{"scope": "layer1", "weights": "layer1/weights",
//                "biases": "layer1/biases", "units": 625, "relu": true,
//                "weights_init": {"kind": "random_normal", "mean": 0,
//                                 "stddev": 0.01},
//                "biases_init": {"kind": "zeros"}}, ...],
//    "options": {"max_to_keep": 5, "keep_checkpoint_every_n_hours": 10000,
//                "tags": []}}
// and writes
//   - a checkpoint at P (BundleWriter): every variable with values drawn
//     from N(0, 0.1) (seeded), plus "global_step" and one optimizer slot
//     per weights variable, which the graph's saver does not restore;
//   - P.meta (WriteMetaGraph) and G (WriteGraphText);
// then prints {"images": [...], "predictions": [...], "layers": [...]}: N
// random inputs in [0, 1), the model's softmax outputs for them
// (row-major), computed here by a plain forward pass in double, and the
// layers as above.
//
// With "mlp": {"layer_sizes": [...], "init_stddev": D, "seed": S} instead
// of "layers", the model is inflow's Mlp (its weights, biases set to
// N(0, 0.1) draws), the graph is MlpGraphForVariables(variables(), D), and
// the predictions are Mlp::Predict's.
//
// Exit 1 with the Status on stderr on error.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "inflow/checkpoint/bundle.h"
#include "inflow/graph/meta_graph.h"
#include "inflow/model/mlp.h"

namespace inflow {
namespace {

VariableInitializer ParseInit(const nlohmann::json& j) {
  if (j.value("kind", "zeros") == "random_normal") {
    return VariableInitializer::RandomNormal(j.value("mean", 0.0f),
                                             j.value("stddev", 1.0f));
  }
  return VariableInitializer::Zeros();
}

struct Dense {
  std::vector<float> w;  // [in, units]
  std::vector<float> b;  // [units]
  int64_t in = 0, units = 0;
  bool relu = true;
};

std::vector<float> Forward(const std::vector<Dense>& layers,
                           const std::vector<float>& x, int64_t n) {
  std::vector<double> h(x.begin(), x.end());
  for (const Dense& l : layers) {
    std::vector<double> next(static_cast<size_t>(n * l.units));
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t u = 0; u < l.units; ++u) {
        double acc = l.b[u];
        for (int64_t k = 0; k < l.in; ++k) {
          acc += h[r * l.in + k] * static_cast<double>(l.w[k * l.units + u]);
        }
        next[r * l.units + u] = l.relu && acc < 0 ? 0 : acc;
      }
    }
    h = std::move(next);
  }
  const int64_t classes = layers.back().units;
  std::vector<float> out(h.size());
  for (int64_t r = 0; r < n; ++r) {
    double max = h[r * classes];
    for (int64_t c = 1; c < classes; ++c)
      max = std::max(max, h[r * classes + c]);
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(h[r * classes + c] - max);
    for (int64_t c = 0; c < classes; ++c) {
      out[r * classes + c] =
          static_cast<float>(std::exp(h[r * classes + c] - max) / sum);
    }
  }
  return out;
}

std::vector<float> Draw(std::mt19937_64& rng, int64_t count, bool normal) {
  std::normal_distribution<float> gauss(0.0f, 0.1f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& f : v) f = normal ? gauss(rng) : uniform(rng);
  return v;
}

nlohmann::json InitJson(const VariableInitializer& init) {
  if (init.kind == VariableInitializer::Kind::kZeros)
    return {{"kind", "zeros"}};
  return {
      {"kind", "random_normal"}, {"mean", init.mean}, {"stddev", init.stddev}};
}

nlohmann::json LayersJson(const MlpGraph& graph) {
  nlohmann::json layers = nlohmann::json::array();
  for (const DenseLayer& l : graph.layers) {
    layers.push_back({{"scope", l.scope},
                      {"weights", l.weights.name},
                      {"biases", l.biases.name},
                      {"units", l.biases.shape.dim(0)},
                      {"relu", l.relu},
                      {"weights_init", InitJson(l.weights.initializer)},
                      {"biases_init", InitJson(l.biases.initializer)}});
  }
  return layers;
}

// Variables, a slot per weights variable and global_step into `prefix`.
Status WriteCheckpoint(
    const std::string& prefix,
    const std::vector<std::pair<std::string, Tensor>>& vars) {
  BundleWriter ckpt(prefix);
  for (const auto& [name, t] : vars) INFLOW_RETURN_IF_ERROR(ckpt.Add(name, t));
  for (const auto& [name, t] : vars) {
    // A slot the inference graph's saver leaves alone.
    if (t.rank() == 2) INFLOW_RETURN_IF_ERROR(ckpt.Add(name + "/RMSProp", t));
  }
  INFLOW_RETURN_IF_ERROR(ckpt.Add("global_step", Tensor::Scalar<int64_t>(7)));
  return ckpt.Finish();
}

Status Run() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)),
                          std::istreambuf_iterator<char>());
  const nlohmann::json spec = nlohmann::json::parse(input);
  const std::string prefix = spec["prefix"];
  std::mt19937_64 rng(spec.value("seed", 1));
  const int64_t n = spec.value("num_inputs", 4);

  MlpGraph graph;
  std::vector<std::pair<std::string, Tensor>> vars;
  std::vector<float> images;
  std::vector<float> predictions;
  if (spec.contains("mlp")) {
    const nlohmann::json& m = spec["mlp"];
    MlpOptions mo;
    mo.layer_sizes = m["layer_sizes"].get<std::vector<int64_t>>();
    mo.init_stddev = m.value("init_stddev", 0.01f);
    mo.seed = m.value("seed", 0);
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<Mlp> model, Mlp::Create(mo));
    const auto variables = model->variables();
    for (const auto& [name, t] : variables) {
      if (t->rank() == 1) {  // biases start as zeros: give them values
        INFLOW_ASSIGN_OR_RETURN(std::span<float> b, t->mutable_flat<float>());
        const std::vector<float> v = Draw(rng, t->num_elements(), true);
        std::copy(v.begin(), v.end(), b.begin());
      }
      vars.emplace_back(name, *t);
    }
    INFLOW_ASSIGN_OR_RETURN(graph,
                            MlpGraphForVariables(variables, mo.init_stddev));
    images = Draw(rng, n * graph.input_size, false);
    INFLOW_ASSIGN_OR_RETURN(
        Tensor x,
        Tensor::FromVector(images, TensorShape({n, graph.input_size})));
    INFLOW_ASSIGN_OR_RETURN(Tensor p, model->Predict(x));
    predictions.assign(p.flat<float>().begin(), p.flat<float>().end());
  } else {
    graph.input_name = spec.value("input_name", "x");
    graph.input_size = spec.value("input_size", 784);
    graph.output_name = spec.value("output_name", "predictions");
    std::vector<Dense> dense;
    int64_t in = graph.input_size;
    for (const auto& l : spec["layers"]) {
      Dense d;
      d.in = in;
      d.units = l["units"];
      d.relu = l.value("relu", true);
      d.w = Draw(rng, d.in * d.units, true);
      d.b = Draw(rng, d.units, true);
      DenseLayer layer;
      layer.scope = l["scope"];
      layer.weights = {
          l["weights"], TensorShape({d.in, d.units}),
          ParseInit(l.value("weights_init", nlohmann::json::object()))};
      layer.biases = {
          l["biases"], TensorShape({d.units}),
          ParseInit(l.value("biases_init", nlohmann::json::object()))};
      layer.relu = d.relu;
      INFLOW_ASSIGN_OR_RETURN(Tensor w,
                              Tensor::FromVector(d.w, layer.weights.shape));
      vars.emplace_back(layer.weights.name, w);
      vars.emplace_back(layer.biases.name, Tensor::FromVector(d.b));
      graph.layers.push_back(layer);
      dense.push_back(std::move(d));
      in = dense.back().units;
    }
    images = Draw(rng, n * graph.input_size, false);
    predictions = Forward(dense, images, n);
  }
  INFLOW_RETURN_IF_ERROR(WriteCheckpoint(prefix, vars));

  MetaGraphOptions options;
  const nlohmann::json o = spec.value("options", nlohmann::json::object());
  options.max_to_keep = o.value("max_to_keep", 5);
  options.keep_checkpoint_every_n_hours =
      o.value("keep_checkpoint_every_n_hours", 10000.0f);
  options.tags = o.value("tags", std::vector<std::string>{});
  INFLOW_RETURN_IF_ERROR(WriteMetaGraph(graph, prefix, options));
  INFLOW_RETURN_IF_ERROR(WriteGraphText(graph, spec["graph_pbtxt"], options));

  std::printf("%s\n", nlohmann::json({{"images", images},
                                      {"predictions", predictions},
                                      {"layers", LayersJson(graph)}})
                          .dump()
                          .c_str());
  return OkStatus();
}

}  // namespace
}  // namespace inflow

int main() {
  inflow::Status s = inflow::Run();
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
