// Copyright 2026 The inflow Authors.
//
// A driver for tests/py/test_train_vs_tf.py: trains inflow's Mlp for a few
// steps with given dropout masks and writes everything TensorFlow needs to
// repeat them, and what inflow got, as raw little-endian arrays:
//
//   mlp_tf_driver --out DIR --optimizer rmsprop|adam|sgd [--steps K]
//                 [--batch B] [--seed S] [--stddev X]
//
// DIR/manifest.json: {"sizes": [...], "keep": [...], "optimizer", "lr",
// "steps", "losses": [...], "arrays": {name: {"file", "dtype", "shape"}}}
// with arrays
//   images/K, labels/K, mask/K/I      step K's batch and dropout masks
//   init/<variable>                   the parameters before the first step
//   grad/<variable>                   the first step's gradients
//   final/<variable>                  every variable after the last step:
//                                     parameters, slots, global_step
// Batches are image-like: about half the pixels 0, the rest in [0, 1].

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"

#include "model/mlp_internal.h"

namespace inflow {
namespace {

using json = nlohmann::json;

class Writer {
 public:
  explicit Writer(std::string dir) : dir_(std::move(dir)) {}

  void Add(const std::string& name, const Tensor& t) {
    std::string file = name;
    for (char& c : file) c = c == '/' ? '.' : c;
    file += ".bin";
    std::ofstream out(dir_ + "/" + file, std::ios::binary);
    out.write(static_cast<const char*>(t.raw_data()),
              static_cast<std::streamsize>(t.num_bytes()));
    json shape = json::array();
    for (int i = 0; i < t.rank(); ++i) shape.push_back(t.dim_size(i));
    arrays_[name] = {
        {"file", file},
        {"dtype", t.dtype() == DType::kInt64 ? "int64" : "float32"},
        {"shape", shape}};
  }
  json& arrays() { return arrays_; }

 private:
  std::string dir_;
  json arrays_ = json::object();
};

int Main(int argc, char** argv) {
  std::string out, optimizer = "rmsprop";
  int steps = 2;
  int64_t batch = 32;
  uint64_t seed = 1;
  float stddev = 0.05f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--out") out = value;
    if (flag == "--optimizer") optimizer = value;
    if (flag == "--steps") steps = std::stoi(value);
    if (flag == "--batch") batch = std::stoll(value);
    if (flag == "--seed") seed = std::stoull(value);
    if (flag == "--stddev") stddev = std::stof(value);
  }
  if (out.empty()) {
    std::cerr << "usage: mlp_tf_driver --out DIR --optimizer NAME [--steps K] "
                 "[--batch B] [--seed S] [--stddev X]\n";
    return 2;
  }
  MlpOptions mo;
  mo.seed = seed;
  mo.init_stddev = stddev;
  auto model = Mlp::Create(mo).value();
  OptimizerOptions oo;
  Result<OptimizerKind> kind = ParseOptimizerKind(optimizer);
  if (!kind.ok()) {
    std::cerr << kind.status().ToString() << "\n";
    return 1;
  }
  oo.kind = *kind;
  auto opt = Optimizer::Create(oo, model->variables());
  if (!opt.ok()) {
    std::cerr << opt.status().ToString() << "\n";
    return 1;
  }
  Writer writer(out);
  for (auto& [name, t] : model->variables()) writer.Add("init/" + name, *t);

  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const auto& sizes = mo.layer_sizes;
  json losses = json::array();
  for (int k = 0; k < steps; ++k) {
    Tensor x(DType::kFloat32, TensorShape({batch, sizes[0]}));
    const std::span<float> pixels = x.mutable_flat<float>().value();
    for (float& v : pixels) v = u(rng) < 0.5f ? 0.0f : u(rng);
    Tensor y(DType::kInt64, TensorShape({batch}));
    const std::span<int64_t> labels = y.mutable_flat<int64_t>().value();
    for (int64_t& v : labels) v = rng() % sizes.back();
    internal::DropoutMasks masks;
    for (size_t i = 0; i + 1 < sizes.size(); ++i) {
      const float keep = i == 0 ? mo.input_keep_prob : mo.hidden_keep_prob;
      Tensor m(DType::kFloat32, TensorShape({batch, sizes[i]}));
      const std::span<float> kept = m.mutable_flat<float>().value();
      for (float& v : kept) v = u(rng) < keep ? 1.0f : 0.0f;
      writer.Add("mask/" + std::to_string(k) + "/" + std::to_string(i), m);
      masks.keep.push_back(m);
    }
    writer.Add("images/" + std::to_string(k), x);
    writer.Add("labels/" + std::to_string(k), y);
    const float loss =
        internal::MlpPeer::ComputeGradients(*model, x, y, masks).value();
    losses.push_back(loss);
    if (k == 0) {
      auto vars = model->variables();
      for (size_t i = 0; i < vars.size(); ++i) {
        writer.Add("grad/" + vars[i].first, model->gradients()[i]);
      }
    }
    const Status s = (*opt)->Apply(model->gradients());
    if (!s.ok()) {
      std::cerr << s.ToString() << "\n";
      return 1;
    }
  }
  for (auto& [name, t] : model->variables()) writer.Add("final/" + name, *t);
  for (auto& [name, t] : (*opt)->variables()) writer.Add("final/" + name, *t);
  const json manifest = {{"sizes", sizes},
                         {"keep", {mo.input_keep_prob, mo.hidden_keep_prob}},
                         {"optimizer", optimizer},
                         {"lr", (*opt)->learning_rate()},
                         {"steps", steps},
                         {"losses", losses},
                         {"kernel", std::string(model->kernel())},
                         {"arrays", writer.arrays()}};
  std::ofstream(out + "/manifest.json") << manifest.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) { return inflow::Main(argc, argv); }
