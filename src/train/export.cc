// Copyright 2026 The inflow Authors.
//
// ExportFrozenGraph: a checkpoint of `inflow train` as a frozen GraphDef.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/graph/meta_graph.h"
#include "inflow/model/mlp.h"
#include "inflow/train/trainer.h"

namespace inflow {

Result<std::string> ExportFrozenGraph(const std::string& ckpt,
                                      const std::string& path, Env* env) {
  std::string prefix = ckpt;
  if (env->IsDirectory(ckpt).ok()) {
    INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                            LatestCheckpoint(ckpt, {.env = env}));
    if (!latest) return NotFoundError("no checkpoint in " + ckpt);
    prefix = *latest;
  }
  MlpOptions options;
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<Mlp> mlp, Mlp::Create(options));
  Saver saver(SaverOptions{.env = env});
  std::vector<std::pair<std::string, Tensor*>> vars = mlp->variables();
  for (auto& [name, tensor] : vars) {
    INFLOW_RETURN_IF_ERROR(saver.Register(name, tensor));
  }
  INFLOW_RETURN_IF_ERROR(
      saver.Restore(prefix).WithContext("restoring " + prefix));
  INFLOW_ASSIGN_OR_RETURN(MlpGraph graph,
                          MlpGraphForVariables(vars, options.init_stddev));
  MetaGraphOptions graph_options;
  graph_options.env = env;
  INFLOW_RETURN_IF_ERROR(WriteFrozenGraph(graph, vars, path, graph_options));
  return prefix;
}

}  // namespace inflow
