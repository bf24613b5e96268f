// Copyright 2026 The inflow Authors.
//
// `inflow ckpt`: look inside V2 checkpoints (TensorFlow's or inflow's).
//
//   inflow ckpt list [--json] PREFIX|DIR
//       every tensor in key order: "NAME DTYPE SHAPE" lines, or with
//       --json {"prefix": P, "tensors": [{"name": N, "dtype": "float32",
//       "shape": [2, 3]}, ...]}
//   inflow ckpt dump [--json] PREFIX|DIR NAME
//       one tensor: "NAME DTYPE SHAPE", then one value per line, or with
//       --json {"name": N, "dtype": D, "shape": S, "values": [...]} (flat,
//       row-major; docs/formats.md, "inflow ckpt")
//   inflow ckpt state DIR
//       the checkpoint state file of DIR as JSON, paths joined onto DIR
//   inflow ckpt verify PREFIX|DIR
//       reads every tensor and checks every CRC; prints {"prefix": P,
//       "tensors": N, "ok": true}
//
// A DIR stands for its latest checkpoint (the state file's
// model_checkpoint_path, when its .index exists). Names and strings print
// as JSON strings, or {"base64": ...} when they are not valid UTF-8.
// Damage exits 1 with "DATA_LOSS: ..." naming the file and byte offset.

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/core/dtype.h"
#include "inflow/core/json_string.h"
#include "inflow/example/example_json.h"
#include "inflow/io/env.h"

#include "ckpt_format.h"
#include "command.h"

namespace inflow::tools {
namespace {

struct Flags {
  bool json = false;
  std::string path;
  std::string name;
};

void Print(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
}

std::string NameJson(std::string_view name) {
  if (IsValidUtf8(name)) return JsonString(name);
  return "{\"base64\": \"" + Base64Encode(name) + "\"}";
}

// PREFIX if PREFIX.index exists, else the latest checkpoint of the
// directory `path`.
Result<std::string> ResolvePrefix(const std::string& path) {
  if (Env::Default().FileExists(BundleIndexFilename(path)).ok()) return path;
  INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                          LatestCheckpoint(path));
  if (latest.has_value()) return *latest;
  return NotFoundError("no checkpoint at " + path + ": no " +
                       BundleIndexFilename(path) +
                       ", and no checkpoint state file in " + path +
                       " naming a checkpoint that exists");
}

Result<std::unique_ptr<BundleReader>> OpenReader(const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(std::string prefix, ResolvePrefix(path));
  return BundleReader::Open(prefix);
}

Status List(const Flags& flags) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          OpenReader(flags.path));
  if (!flags.json) {
    for (const BundleEntry& e : reader->entries()) {
      Print(e.name + " " + std::string(DTypeName(e.dtype)) + " " +
            ShapeJson(e.shape));
    }
    return OkStatus();
  }
  std::string out =
      "{\"prefix\": " + NameJson(reader->prefix()) + ", \"tensors\": [";
  bool first = true;
  for (const BundleEntry& e : reader->entries()) {
    if (!first) out += ", ";
    first = false;
    out += "{\"name\": " + NameJson(e.name) + ", \"dtype\": \"" +
           std::string(DTypeName(e.dtype)) +
           "\", \"shape\": " + ShapeJson(e.shape) + "}";
  }
  out += "]}";
  Print(out);
  return OkStatus();
}

Status Dump(const Flags& flags) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          OpenReader(flags.path));
  INFLOW_ASSIGN_OR_RETURN(Tensor t, reader->Read(flags.name));
  const std::string dtype(DTypeName(t.dtype()));
  if (!flags.json) {
    Print(flags.name + " " + dtype + " " + ShapeJson(t.shape()));
    for (int64_t i = 0; i < t.num_elements(); ++i) Print(ElementJson(t, i));
    return OkStatus();
  }
  std::string out = "{\"name\": " + NameJson(flags.name) + ", \"dtype\": \"" +
                    dtype + "\", \"shape\": " + ShapeJson(t.shape()) +
                    ", \"values\": [";
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (i > 0) out += ", ";
    out += ElementJson(t, i);
    if (out.size() > (1 << 20)) {  // stream large tensors
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  out += "]}";
  Print(out);
  return OkStatus();
}

Status State(const Flags& flags) {
  INFLOW_ASSIGN_OR_RETURN(std::optional<CheckpointState> state,
                          GetCheckpointState(flags.path));
  if (!state.has_value()) {
    return NotFoundError("no checkpoint state file in " + flags.path);
  }
  std::string out =
      "{\"model_checkpoint_path\": " + NameJson(state->model_checkpoint_path) +
      ", \"all_model_checkpoint_paths\": [";
  for (size_t i = 0; i < state->all_model_checkpoint_paths.size(); ++i) {
    if (i > 0) out += ", ";
    out += NameJson(state->all_model_checkpoint_paths[i]);
  }
  out += "], \"all_model_checkpoint_timestamps\": [";
  for (size_t i = 0; i < state->all_model_checkpoint_timestamps.size(); ++i) {
    if (i > 0) out += ", ";
    out += DoubleJson(state->all_model_checkpoint_timestamps[i]);
  }
  out += "], \"last_preserved_timestamp\": " +
         DoubleJson(state->last_preserved_timestamp) + "}";
  Print(out);
  return OkStatus();
}

Status Verify(const Flags& flags) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          OpenReader(flags.path));
  INFLOW_RETURN_IF_ERROR(reader->Verify());
  Print("{\"prefix\": " + NameJson(reader->prefix()) + ", \"tensors\": " +
        std::to_string(reader->entries().size()) + ", \"ok\": true}");
  return OkStatus();
}

std::function<Status()> Setup(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  app.require_subcommand(1, 1);
  const std::string path_help =
      "checkpoint prefix (PREFIX.index exists), or a directory: its latest "
      "checkpoint";
  CLI::App* list =
      app.add_subcommand("list", "List the tensors: name, dtype, shape");
  list->add_flag("--json", flags->json, "one JSON object");
  list->add_option("PATH", flags->path, path_help)->required();
  CLI::App* dump =
      app.add_subcommand("dump", "Print one tensor's values, row-major");
  dump->add_flag("--json", flags->json, "one JSON object");
  dump->add_option("PATH", flags->path, path_help)->required();
  dump->add_option("NAME", flags->name, "tensor name")->required();
  CLI::App* state = app.add_subcommand(
      "state", "Print a directory's checkpoint state file as JSON");
  state->add_option("DIR", flags->path, "directory")->required();
  CLI::App* verify =
      app.add_subcommand("verify", "Read every tensor and check every CRC");
  verify->add_option("PATH", flags->path, path_help)->required();

  return [=]() -> Status {
    if (list->parsed()) return List(*flags);
    if (dump->parsed()) return Dump(*flags);
    if (state->parsed()) return State(*flags);
    if (verify->parsed()) return Verify(*flags);
    return InvalidArgumentError("no ckpt subcommand given");
  };
}

INFLOW_REGISTER_COMMAND("ckpt", "List, dump and verify V2 checkpoints", Setup);

}  // namespace
}  // namespace inflow::tools
