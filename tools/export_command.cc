// Copyright 2026 The inflow Authors.
//
// `inflow export --ckpt PREFIX|DIR --out FILE.pb`: a checkpoint `inflow
// train` wrote (a folder means its latest checkpoint) as a frozen binary
// GraphDef, the weights as constants (docs/formats.md, "Model graphs"),
// which TensorFlow's import_graph_def loads; prints {"checkpoint", "out"}
// as one JSON line.

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "inflow/train/trainer.h"

#include "command.h"

namespace inflow::tools {
namespace {

std::function<Status()> Setup(CLI::App& app) {
  auto ckpt = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  app.add_option("--ckpt", *ckpt, "checkpoint prefix or folder")->required();
  app.add_option("--out", *out, "the GraphDef file to write (.pb)")->required();
  return [=]() -> Status {
    INFLOW_ASSIGN_OR_RETURN(std::string prefix, ExportFrozenGraph(*ckpt, *out));
    nlohmann::json line = {{"checkpoint", prefix}, {"out", *out}};
    std::printf("%s\n", line.dump().c_str());
    return OkStatus();
  };
}

INFLOW_REGISTER_COMMAND("export",
                        "A training checkpoint as a frozen GraphDef (.pb)",
                        Setup);

}  // namespace
}  // namespace inflow::tools
