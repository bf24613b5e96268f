// Copyright 2026 The inflow Authors.
//
// A driver for tests/py/test_checkpoint_vs_tf.py: reads one JSON request
// on stdin, runs it through inflow's Saver, BundleReader and state-file
// functions, and prints one JSON reply, so that pytest can hold inflow's
// checkpoints against TensorFlow's in both directions. Bytes (tensor data,
// string elements) travel as lowercase hex; numeric data is the tensor's
// little-endian element bytes.
//
// Requests:
//   {"op": "save", "save_path", "steps": [int | null, ...],
//    "options": {"max_to_keep", "pad_step_number", "save_relative_paths",
//                "keep_checkpoint_every_n_hours"},
//    "tensors": [{"name", "dtype", "shape", "data" | "strings"}]}
//     -> {"prefixes": [...]}: one Save per step, in order. With
//        "recover": true the Saver first adopts the directory's state file
//        listing (RecoverLastCheckpoints), as a restarted TF job may.
//   {"op": "restore_all", "prefix"}
//     -> {"tensors": [...]}: every entry of the bundle, registered as a
//        zero tensor of its dtype and shape and filled by Saver::Restore.
//   {"op": "state", "dir"}
//     -> {"state": {"model_checkpoint_path", "all_model_checkpoint_paths",
//                   "all_model_checkpoint_timestamps",
//                   "last_preserved_timestamp"} | null, "latest": str|null}
//   {"op": "format", "paths": [hex, ...], "timestamps": [hex of 8 bytes],
//    "last_preserved": hex of 8 bytes}
//     -> {"text": FormatCheckpointState of model_checkpoint_path = the
//        last path, all_model_checkpoint_paths = paths, ...}
//   {"op": "parse", "texts": [hex, ...]}
//     -> {"results": [{"state": {as "state" above, strings in hex,
//        doubles as hex of 8 bytes}} | {"error": {...}}, ...]}
// Any error: {"error": {"code", "message"}}.

#include <cstdint>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"

namespace inflow {
namespace {

using json = nlohmann::json;

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string ToHex(const void* data, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kHex[p[i] >> 4];
    out += kHex[p[i] & 0xF];
  }
  return out;
}

Result<std::string> FromHex(const std::string& hex) {
  if (hex.size() % 2 != 0) return InvalidArgumentError("odd hex length");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgumentError("bad hex digit");
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

json TensorToJson(const std::string& name, const Tensor& t) {
  json dims = json::array();
  for (int i = 0; i < t.rank(); ++i) dims.push_back(t.dim_size(i));
  json j = {{"name", name},
            {"dtype", std::string(DTypeName(t.dtype()))},
            {"shape", dims}};
  if (t.dtype() == DType::kString) {
    json strings = json::array();
    for (const std::string& s : t.flat<std::string>()) {
      strings.push_back(ToHex(s.data(), s.size()));
    }
    j["strings"] = strings;
  } else {
    j["data"] = ToHex(t.raw_data(), t.num_bytes());
  }
  return j;
}

Result<Tensor> TensorFromJson(const json& j) {
  const std::optional<DType> dtype =
      DTypeFromName(j.at("dtype").get<std::string>());
  if (!dtype) return InvalidArgumentError("unknown dtype");
  std::vector<int64_t> dims = j.at("shape").get<std::vector<int64_t>>();
  Tensor t(*dtype, TensorShape(dims));
  if (*dtype == DType::kString) {
    INFLOW_ASSIGN_OR_RETURN(std::span<std::string> out,
                            t.mutable_flat<std::string>());
    const auto& strings = j.at("strings");
    if (strings.size() != out.size()) {
      return InvalidArgumentError("string count does not match the shape");
    }
    for (size_t i = 0; i < out.size(); ++i) {
      INFLOW_ASSIGN_OR_RETURN(out[i], FromHex(strings[i].get<std::string>()));
    }
  } else {
    INFLOW_ASSIGN_OR_RETURN(std::string bytes,
                            FromHex(j.at("data").get<std::string>()));
    if (bytes.size() != t.num_bytes()) {
      return InvalidArgumentError("data size does not match the shape");
    }
    INFLOW_ASSIGN_OR_RETURN(void* out, t.mutable_raw_data());
    if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
  }
  return t;
}

Result<json> Save(const json& request) {
  SaverOptions options;
  const json o = request.value("options", json::object());
  options.max_to_keep = o.value("max_to_keep", options.max_to_keep);
  options.pad_step_number = o.value("pad_step_number", false);
  options.save_relative_paths = o.value("save_relative_paths", false);
  options.keep_checkpoint_every_n_hours = o.value(
      "keep_checkpoint_every_n_hours", options.keep_checkpoint_every_n_hours);
  Saver saver(options);
  std::vector<std::unique_ptr<Tensor>> tensors;
  for (const json& t : request.at("tensors")) {
    INFLOW_ASSIGN_OR_RETURN(Tensor tensor, TensorFromJson(t));
    tensors.push_back(std::make_unique<Tensor>(std::move(tensor)));
    INFLOW_RETURN_IF_ERROR(
        saver.Register(t.at("name").get<std::string>(), tensors.back().get()));
  }
  const std::string save_path = request.at("save_path").get<std::string>();
  if (request.value("recover", false)) {
    INFLOW_ASSIGN_OR_RETURN(std::optional<CheckpointState> state,
                            GetCheckpointState(Dirname(save_path)));
    if (state) {
      INFLOW_RETURN_IF_ERROR(
          saver.RecoverLastCheckpoints(state->all_model_checkpoint_paths));
    }
  }
  json prefixes = json::array();
  for (const json& step : request.at("steps")) {
    std::optional<int64_t> global_step;
    if (!step.is_null()) global_step = step.get<int64_t>();
    INFLOW_ASSIGN_OR_RETURN(std::string prefix,
                            saver.Save(save_path, global_step));
    prefixes.push_back(prefix);
  }
  return json{{"prefixes", prefixes}};
}

Result<json> RestoreAll(const json& request) {
  const std::string prefix = request.at("prefix").get<std::string>();
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          BundleReader::Open(prefix));
  Saver saver;
  std::vector<std::pair<std::string, std::unique_ptr<Tensor>>> tensors;
  for (const BundleEntry& entry : reader->entries()) {
    tensors.emplace_back(entry.name,
                         std::make_unique<Tensor>(entry.dtype, entry.shape));
    INFLOW_RETURN_IF_ERROR(
        saver.Register(entry.name, tensors.back().second.get()));
  }
  INFLOW_RETURN_IF_ERROR(saver.Restore(prefix));
  json out = json::array();
  for (const auto& [name, tensor] : tensors) {
    out.push_back(TensorToJson(name, *tensor));
  }
  return json{{"tensors", out}};
}

Result<json> State(const json& request) {
  const std::string dir = request.at("dir").get<std::string>();
  INFLOW_ASSIGN_OR_RETURN(std::optional<CheckpointState> state,
                          GetCheckpointState(dir));
  INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                          LatestCheckpoint(dir));
  json reply = {{"state", nullptr}, {"latest", nullptr}};
  if (state) {
    reply["state"] = {
        {"model_checkpoint_path", state->model_checkpoint_path},
        {"all_model_checkpoint_paths", state->all_model_checkpoint_paths},
        {"all_model_checkpoint_timestamps",
         state->all_model_checkpoint_timestamps},
        {"last_preserved_timestamp", state->last_preserved_timestamp}};
  }
  if (latest) reply["latest"] = *latest;
  return reply;
}

Result<double> DoubleFromHex(const std::string& hex) {
  INFLOW_ASSIGN_OR_RETURN(std::string bytes, FromHex(hex));
  if (bytes.size() != sizeof(double)) {
    return InvalidArgumentError("a double is 8 bytes");
  }
  double d;
  std::memcpy(&d, bytes.data(), sizeof(d));
  return d;
}

std::string DoubleToHex(double d) { return ToHex(&d, sizeof(d)); }

Result<json> Format(const json& request) {
  CheckpointState state;
  for (const json& p : request.at("paths")) {
    INFLOW_ASSIGN_OR_RETURN(std::string path, FromHex(p.get<std::string>()));
    state.all_model_checkpoint_paths.push_back(std::move(path));
  }
  if (!state.all_model_checkpoint_paths.empty()) {
    state.model_checkpoint_path = state.all_model_checkpoint_paths.back();
  }
  for (const json& t : request.at("timestamps")) {
    INFLOW_ASSIGN_OR_RETURN(double d, DoubleFromHex(t.get<std::string>()));
    state.all_model_checkpoint_timestamps.push_back(d);
  }
  INFLOW_ASSIGN_OR_RETURN(
      state.last_preserved_timestamp,
      DoubleFromHex(request.at("last_preserved").get<std::string>()));
  return json{{"text", FormatCheckpointState(state)}};
}

Result<json> Parse(const json& request) {
  json results = json::array();
  for (const json& t : request.at("texts")) {
    INFLOW_ASSIGN_OR_RETURN(std::string text, FromHex(t.get<std::string>()));
    Result<CheckpointState> state = ParseCheckpointState(text);
    if (!state.ok()) {
      results.push_back(
          {{"error",
            {{"code", std::string(StatusCodeName(state.status().code()))},
             {"message", std::string(state.status().message())}}}});
      continue;
    }
    json paths = json::array();
    for (const std::string& p : state->all_model_checkpoint_paths) {
      paths.push_back(ToHex(p.data(), p.size()));
    }
    json times = json::array();
    for (double d : state->all_model_checkpoint_timestamps) {
      times.push_back(DoubleToHex(d));
    }
    const std::string& model = state->model_checkpoint_path;
    results.push_back(
        {{"state",
          {{"model_checkpoint_path", ToHex(model.data(), model.size())},
           {"all_model_checkpoint_paths", paths},
           {"all_model_checkpoint_timestamps", times},
           {"last_preserved_timestamp",
            DoubleToHex(state->last_preserved_timestamp)}}}});
  }
  return json{{"results", results}};
}

json Run(const json& request) {
  const std::string op = request.at("op").get<std::string>();
  Result<json> reply = InvalidArgumentError("unknown op " + op);
  if (op == "save") reply = Save(request);
  if (op == "restore_all") reply = RestoreAll(request);
  if (op == "state") reply = State(request);
  if (op == "format") reply = Format(request);
  if (op == "parse") reply = Parse(request);
  if (reply.ok()) return *reply;
  return json{{"error",
               {{"code", std::string(StatusCodeName(reply.status().code()))},
                {"message", std::string(reply.status().message())}}}};
}

}  // namespace
}  // namespace inflow

int main() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)),
                          std::istreambuf_iterator<char>());
  nlohmann::json request = nlohmann::json::parse(input, nullptr, false);
  if (request.is_discarded()) {
    std::cerr << "saver_tf_driver: the request is not JSON\n";
    return 2;
  }
  std::cout << inflow::Run(request).dump() << "\n";
  return 0;
}
