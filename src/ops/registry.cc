// Copyright 2026 The inflow Authors.

#include "ops/registry.h"

#include <exception>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/status.h"
#include "inflow/ops/op.h"

namespace inflow::ops {

namespace internal {

namespace {

bool IsOpName(std::string_view name) {
  if (name.empty() || !(name[0] >= 'A' && name[0] <= 'Z')) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool IsArgName(std::string_view name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string DTypeList(const std::vector<DType>& dtypes) {
  std::string s = "(";
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (i > 0) s += ", ";
    s += DTypeName(dtypes[i]);
  }
  return s + ")";
}

// The problems of one declaration, appended to `problems`.
void CheckOpDef(const OpDef& op, std::vector<std::string>& problems) {
  const std::string where = "op '" + op.name() + "'";
  if (!IsOpName(op.name())) {
    problems.push_back(where + ": the name must match [A-Z][A-Za-z0-9_]*");
  }
  // Inputs and attributes are the keyword arguments of the op's Python
  // function: their names are distinct. Outputs only among themselves.
  std::set<std::string, std::less<>> names;
  std::set<std::string, std::less<>> output_names;
  const auto check_name = [&](const std::string& kind,
                              const std::string& name) {
    if (!IsArgName(name)) {
      problems.push_back(where + ": " + kind + " name '" + name +
                         "' must match [a-z][a-z0-9_]*");
    }
    if (!(kind == "output" ? output_names : names).insert(name).second) {
      problems.push_back(where + ": the name '" + name + "' is declared twice");
    }
  };
  for (const auto& [kind, args] :
       {std::pair{std::string("input"), &op.inputs()},
        std::pair{std::string("output"), &op.outputs()}}) {
    for (const ArgDef& arg : *args) {
      check_name(kind, arg.name);
      if (!IsValidDType(arg.dtype)) {
        problems.push_back(where + ": " + kind + " '" + arg.name +
                           "' has no valid dtype");
      }
      if (arg.shape.rank_known()) {
        for (int64_t d : arg.shape.dims()) {
          if (d < -1) {
            problems.push_back(where + ": " + kind + " '" + arg.name +
                               "' has a dimension below -1");
            break;
          }
        }
      }
    }
  }
  for (const AttrDef& attr : op.attrs()) {
    check_name("attribute", attr.name);
    if (attr.default_value.has_value() &&
        attr.default_value->type() != attr.type) {
      problems.push_back(where + ": the default of attribute '" + attr.name +
                         "' is " +
                         std::string(AttrTypeName(attr.default_value->type())) +
                         ", not " + std::string(AttrTypeName(attr.type)));
    }
  }
}

}  // namespace

Status RunRegistration(std::string_view source,
                       const std::function<void()>& fn) {
  try {
    fn();
    return OkStatus();
  } catch (const std::exception& e) {
    return InternalError(std::string(source) +
                         ": the registration function threw: " + e.what());
  } catch (...) {
    return InternalError(std::string(source) +
                         ": the registration function threw");
  }
}

Registry& Registry::Global() {
  static Registry* registry = new Registry();  // never destroyed: ops live
                                               // as long as the process
  return *registry;
}

Result<OpLibraryInfo> Registry::Add(std::string_view source,
                                    CollectingBuilder declared) {
  const std::string from(source);
  std::vector<std::string> problems;
  bool already_exists = false;
  OpLibraryInfo info{from, {}};
  MutexLock lock(&mu_);
  std::map<std::string, const OpDef*> declared_ops;
  for (const OpDef& op : declared.ops) {
    CheckOpDef(op, problems);
    if (!declared_ops.emplace(op.name(), &op).second) {
      problems.push_back("op '" + op.name() + "' is declared twice in " + from);
      already_exists = true;
    }
    if (auto it = ops_.find(op.name()); it != ops_.end()) {
      problems.push_back("op '" + op.name() + "' is already registered (by " +
                         it->second->source + ")");
      already_exists = true;
    }
    info.op_names.push_back(op.name());
  }
  std::map<std::string, const KernelDef*> kernels;
  for (const KernelDef& kernel : declared.kernels) {
    auto op = declared_ops.find(kernel.op);
    if (op == declared_ops.end()) {
      problems.push_back("a kernel for op '" + kernel.op + "', which " + from +
                         " does not declare");
      continue;
    }
    if (!kernels.emplace(kernel.op, &kernel).second) {
      problems.push_back("op '" + kernel.op + "' has two kernels");
      continue;
    }
    if (!kernel.factory) {
      problems.push_back("the kernel of op '" + kernel.op + "' has no factory");
    }
    std::vector<DType> declared_dtypes;
    for (const ArgDef& out : op->second->outputs()) {
      declared_dtypes.push_back(out.dtype);
    }
    if (kernel.output_dtypes != declared_dtypes) {
      problems.push_back("the kernel of op '" + kernel.op + "' writes " +
                         DTypeList(kernel.output_dtypes) +
                         " but the op declares the outputs " +
                         DTypeList(declared_dtypes));
    }
  }
  for (const OpDef& op : declared.ops) {
    if (!kernels.contains(op.name())) {
      problems.push_back("op '" + op.name() + "' has no kernel");
    }
  }
  if (!problems.empty()) {
    std::string message = from + ": ";
    for (size_t i = 0; i < problems.size(); ++i) {
      if (i > 0) message += "; ";
      message += problems[i];
    }
    return already_exists && problems.size() == 1
               ? AlreadyExistsError(message)
               : InvalidArgumentError(message);
  }
  for (OpDef& op : declared.ops) {
    KernelDef kernel = *kernels.at(op.name());
    std::string name = op.name();
    ops_.emplace(std::move(name),
                 std::make_unique<const RegisteredOp>(
                     RegisteredOp{std::move(op), std::move(kernel), from}));
  }
  return info;
}

const RegisteredOp* Registry::Find(std::string_view name) const {
  MutexLock lock(&mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> Registry::Names() const {
  MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, op] : ops_) names.push_back(name);
  return names;
}

}  // namespace internal

Result<OpLibraryInfo> RegisterOps(
    std::string_view source,
    const std::function<void(OpLibraryBuilder&)>& register_ops) {
  internal::CollectingBuilder builder;
  INFLOW_RETURN_IF_ERROR(
      internal::RunRegistration(source, [&] { register_ops(builder); }));
  return internal::Registry::Global().Add(source, std::move(builder));
}

const OpDef* FindOp(std::string_view name) {
  const internal::RegisteredOp* op = internal::Registry::Global().Find(name);
  return op == nullptr ? nullptr : &op->def;
}

std::vector<std::string> RegisteredOps() {
  return internal::Registry::Global().Names();
}

}  // namespace inflow::ops
