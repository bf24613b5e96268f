// Copyright 2026 The inflow Authors.
//
// The process's op registry: every op registered by LoadOpLibrary or
// RegisterOps, with its kernel and where it came from. Ops are never
// removed, so the pointers Find returns stay valid for the process's life.

#ifndef INFLOW_SRC_OPS_REGISTRY_H_
#define INFLOW_SRC_OPS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/ops/op_def.h"
#include "inflow/ops/op_kernel.h"
#include "inflow/ops/op_library.h"

namespace inflow::ops::internal {

struct RegisteredOp {
  OpDef def;
  KernelDef kernel;
  std::string source;  // the library's path, or RegisterOps' source
};

// What a registration function declared, in order.
class CollectingBuilder final : public OpLibraryBuilder {
 public:
  void AddOp(OpDef op) override { ops.push_back(std::move(op)); }
  void AddKernel(KernelDef kernel) override {
    kernels.push_back(std::move(kernel));
  }
  std::vector<OpDef> ops;
  std::vector<KernelDef> kernels;
};

// Runs a library's registration function: an exception it throws (an op
// library's code may throw; inflow's never does) becomes INTERNAL naming
// `source`, not the end of the process.
Status RunRegistration(std::string_view source,
                       const std::function<void()>& fn);

// Thread-safe.
class Registry {
 public:
  static Registry& Global();

  // Checks everything `declared` holds (op_library.h lists the checks) and
  // registers all of it, or nothing: the error names every problem.
  Result<OpLibraryInfo> Add(std::string_view source,
                            CollectingBuilder declared);

  const RegisteredOp* Find(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<const RegisteredOp>, std::less<>> ops_
      INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow::ops::internal

#endif  // INFLOW_SRC_OPS_REGISTRY_H_
