// Copyright 2026 The inflow Authors.

#include "pipedef/step_attrs.h"

#include <string>
#include <utility>
#include <vector>

#include "inflow/ops/op.h"

namespace inflow::pipedef::internal {

std::string StepPath(const PipelineDef& def, size_t index,
                     std::string_view field) {
  std::string path =
      "$." + std::string(field) + "[" + std::to_string(index) + "]";
  return def.source.empty() ? path : def.source + ": " + path;
}

Status StepError(const PipelineDef& def, size_t index,
                 const std::string& message) {
  return InvalidArgumentError(StepPath(def, index) + ": " + message);
}

StepAttrs::StepAttrs(const PipelineDef& def, size_t index, bool options)
    : def_(def),
      index_(index),
      attrs_(options ? def.steps[index].options : def.steps[index].attrs),
      path_(StepPath(def, index) + (options ? ".options" : ".attrs")) {}

const ops::AttrValue* StepAttrs::Find(std::string_view name) {
  used_.emplace(name);
  return attrs_.Find(name);
}

bool StepAttrs::Has(std::string_view name) const {
  return attrs_.Find(name) != nullptr;
}

Status StepAttrs::Error(std::string_view name,
                        const std::string& message) const {
  return InvalidArgumentError(path_ + "." + std::string(name) + ": " + message);
}

Status StepAttrs::WrongType(std::string_view name, const ops::AttrValue& v,
                            std::string_view want) const {
  return Error(name, "must be " + std::string(want) + ", got " +
                         std::string(ops::AttrTypeName(v.type())) + " " +
                         v.DebugString());
}

Result<int64_t> StepAttrs::Int(std::string_view name) {
  const ops::AttrValue* v = Find(name);
  if (v == nullptr) {
    return InvalidArgumentError(path_ + ": the step '" + def_.steps[index_].op +
                                "' needs '" + std::string(name) + "'");
  }
  if (const int64_t* i = v->get_if<int64_t>()) return *i;
  return WrongType(name, *v, "an int");
}

Result<int64_t> StepAttrs::Int(std::string_view name, int64_t default_value) {
  if (!Has(name)) {
    used_.emplace(name);
    return default_value;
  }
  return Int(name);
}

Result<std::optional<int64_t>> StepAttrs::OptionalInt(std::string_view name) {
  if (!Has(name)) {
    used_.emplace(name);
    return std::optional<int64_t>();
  }
  INFLOW_ASSIGN_OR_RETURN(int64_t v, Int(name));
  return std::optional<int64_t>(v);
}

Result<double> StepAttrs::Float(std::string_view name, double default_value) {
  const ops::AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (const double* d = v->get_if<double>()) return *d;
  if (const int64_t* i = v->get_if<int64_t>()) return static_cast<double>(*i);
  return WrongType(name, *v, "a number");
}

Result<bool> StepAttrs::Bool(std::string_view name, bool default_value) {
  const ops::AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (const bool* b = v->get_if<bool>()) return *b;
  return WrongType(name, *v, "a bool");
}

Result<std::string> StepAttrs::String(std::string_view name) {
  const ops::AttrValue* v = Find(name);
  if (v == nullptr) {
    return InvalidArgumentError(path_ + ": the step '" + def_.steps[index_].op +
                                "' needs '" + std::string(name) + "'");
  }
  if (const std::string* s = v->get_if<std::string>()) return *s;
  return WrongType(name, *v, "a string");
}

Result<std::string> StepAttrs::String(std::string_view name,
                                      std::string default_value) {
  if (!Has(name)) {
    used_.emplace(name);
    return default_value;
  }
  return String(name);
}

Result<DType> StepAttrs::Type(std::string_view name) {
  INFLOW_ASSIGN_OR_RETURN(std::string s, String(name));
  std::optional<DType> d = DTypeFromName(s);
  if (!d) return Error(name, "no dtype is named \"" + s + "\"");
  return *d;
}

Result<std::vector<int64_t>> StepAttrs::IntList(
    std::string_view name, std::vector<int64_t> default_value) {
  const ops::AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (const auto* l = v->get_if<std::vector<int64_t>>()) return *l;
  return WrongType(name, *v, "a list of ints");
}

Result<std::vector<std::string>> StepAttrs::StringList(std::string_view name) {
  const ops::AttrValue* v = Find(name);
  if (v == nullptr) {
    return InvalidArgumentError(path_ + ": the step '" + def_.steps[index_].op +
                                "' needs '" + std::string(name) + "'");
  }
  if (const auto* l = v->get_if<std::vector<std::string>>()) return *l;
  if (const auto* s = v->get_if<std::string>()) {
    return std::vector<std::string>{*s};
  }
  // An empty list reads as list(int).
  if (const auto* l = v->get_if<std::vector<int64_t>>(); l && l->empty()) {
    return std::vector<std::string>{};
  }
  return WrongType(name, *v, "a list of strings");
}

Status StepAttrs::CheckNoOthers() const {
  for (const auto& [name, value] : attrs_.values()) {
    if (used_.contains(name)) continue;
    std::string takes;
    for (const std::string& u : used_) {
      takes += (takes.empty() ? "" : ", ") + u;
    }
    return InvalidArgumentError(
        path_ + "." + name + ": the step '" + def_.steps[index_].op +
        "' has no such " +
        (path_.ends_with(".options") ? "option" : "attribute") + " (it takes " +
        (takes.empty() ? "none" : takes) + ")");
  }
  return OkStatus();
}

bool IsFeatureStep(std::string_view op) {
  return op == "fixed_len_feature" || op == "var_len_feature";
}

Result<std::pair<std::string, FeatureSpec>> ReadFeature(const PipelineDef& def,
                                                        size_t index) {
  StepAttrs a(def, index);
  INFLOW_ASSIGN_OR_RETURN(std::string key, a.String("key"));
  INFLOW_ASSIGN_OR_RETURN(DType dtype, a.Type("dtype"));
  if (dtype != DType::kFloat32 && dtype != DType::kInt64 &&
      dtype != DType::kString) {
    return a.Error("dtype",
                   "an Example feature is float32, int64 or "
                   "string, not " +
                       std::string(DTypeName(dtype)));
  }
  if (def.steps[index].op == "var_len_feature") {
    INFLOW_RETURN_IF_ERROR(a.CheckNoOthers());
    return std::pair<std::string, FeatureSpec>(std::move(key),
                                               VarLenFeature(dtype));
  }
  INFLOW_ASSIGN_OR_RETURN(std::vector<int64_t> dims, a.IntList("shape", {}));
  for (int64_t d : dims) {
    if (d < 0) return a.Error("shape", "every dimension must be >= 0");
  }
  TensorShape shape(dims);
  std::optional<Tensor> default_value;
  if (a.Has("default")) {
    const ops::AttrValue* v = a.Find("default");
    const size_t n = static_cast<size_t>(shape.num_elements());
    Result<Tensor> t = InvalidArgumentError("");
    if (dtype == DType::kString) {
      INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> s,
                              a.StringList("default"));
      if (s.size() == n) t = Tensor::FromVector<std::string>(s, shape);
    } else {
      std::vector<double> values;
      if (const auto* l = v->get_if<std::vector<double>>()) {
        values = *l;
      } else if (const auto* i = v->get_if<std::vector<int64_t>>()) {
        values.assign(i->begin(), i->end());
      } else if (const auto* d = v->get_if<double>()) {
        values = {*d};
      } else if (const auto* i1 = v->get_if<int64_t>()) {
        values = {static_cast<double>(*i1)};
      } else {
        return a.Error("default", "must be a list of numbers");
      }
      if (values.size() == n) {
        if (dtype == DType::kFloat32) {
          t = Tensor::FromVector<float>(
              std::vector<float>(values.begin(), values.end()), shape);
        } else {
          t = Tensor::FromVector<int64_t>(
              std::vector<int64_t>(values.begin(), values.end()), shape);
        }
      }
    }
    if (!t.ok()) {
      return a.Error("default", "must hold " + std::to_string(n) +
                                    " values of " +
                                    std::string(DTypeName(dtype)) +
                                    " (the shape " + shape.DebugString() + ")");
    }
    default_value = std::move(t).value();
  }
  INFLOW_RETURN_IF_ERROR(a.CheckNoOthers());
  return std::pair<std::string, FeatureSpec>(
      std::move(key), FixedLenFeature(shape, dtype, std::move(default_value)));
}

Result<Step> FeatureStep(const std::string& key, const FeatureSpec& spec) {
  Step step;
  if (const auto* v = std::get_if<VarLenFeature>(&spec)) {
    step.op = "var_len_feature";
    step.attrs.Set("key", key);
    step.attrs.Set("dtype", v->dtype);
    return step;
  }
  const auto* f = std::get_if<FixedLenFeature>(&spec);
  if (f == nullptr) {
    return InvalidArgumentError("feature '" + key +
                                "': a FixedLenSequenceFeature has no step");
  }
  step.op = "fixed_len_feature";
  step.attrs.Set("key", key);
  step.attrs.Set("dtype", f->dtype);
  step.attrs.Set("shape", f->shape.dims());
  if (f->default_value) {
    const Tensor& d = *f->default_value;
    switch (d.dtype()) {
      case DType::kFloat32: {
        std::vector<double> v;
        for (float x : d.flat<float>()) v.push_back(x);
        step.attrs.Set("default", std::move(v));
        break;
      }
      case DType::kInt64: {
        std::vector<int64_t> v(d.flat<int64_t>().begin(),
                               d.flat<int64_t>().end());
        step.attrs.Set("default", std::move(v));
        break;
      }
      case DType::kString: {
        std::vector<std::string> v(d.flat<std::string>().begin(),
                                   d.flat<std::string>().end());
        step.attrs.Set("default", std::move(v));
        break;
      }
      default:
        return InvalidArgumentError("feature '" + key +
                                    "': a default of dtype " +
                                    std::string(DTypeName(d.dtype())));
    }
  }
  return step;
}

Result<std::shared_ptr<ops::Op>> CreateStepOp(
    const PipelineDef& def, size_t index,
    std::vector<PartialShape> input_shapes) {
  const Step& step = def.steps[index];
  const ops::OpDef* op = ops::FindOp(step.op);
  if (op == nullptr) {
    return StepError(def, index,
                     "no step or op is named '" + step.op +
                         "' (a custom op's library goes in op_libraries)");
  }
  const std::string path = StepPath(def, index) + ".attrs";
  ops::AttrMap attrs;
  for (const auto& [name, value] : step.attrs.values()) {
    const ops::AttrDef* decl = nullptr;
    for (const ops::AttrDef& a : op->attrs()) {
      if (a.name == name) decl = &a;
    }
    if (decl == nullptr) {
      std::string takes;
      for (const ops::AttrDef& a : op->attrs()) {
        takes += (takes.empty() ? "" : ", ") + a.name;
      }
      return InvalidArgumentError(path + "." + name + ": op '" + step.op +
                                  "' has no such attribute (it takes " +
                                  (takes.empty() ? "none" : takes) + ")");
    }
    // JSON has no dtype and no typed empty list: read them as declared.
    ops::AttrValue v = value;
    const auto* ints = value.get_if<std::vector<int64_t>>();
    if (decl->type == ops::AttrType::kType) {
      if (const std::string* s = value.get_if<std::string>()) {
        std::optional<DType> d = DTypeFromName(*s);
        if (!d) {
          return InvalidArgumentError(path + "." + name +
                                      ": no dtype is named \"" + *s + "\"");
        }
        v = *d;
      }
    } else if (decl->type == ops::AttrType::kFloatList && ints != nullptr) {
      v = std::vector<double>(ints->begin(), ints->end());
    } else if (decl->type == ops::AttrType::kStringList && ints != nullptr &&
               ints->empty()) {
      v = std::vector<std::string>{};
    } else if (decl->type == ops::AttrType::kFloat) {
      if (const int64_t* i = value.get_if<int64_t>()) {
        v = static_cast<double>(*i);
      }
    }
    if (v.type() != decl->type) {
      return InvalidArgumentError(
          path + "." + name + ": op '" + step.op + "' takes " +
          std::string(ops::AttrTypeName(decl->type)) + ", got " +
          std::string(ops::AttrTypeName(v.type())) + " " + v.DebugString());
    }
    attrs.Set(name, std::move(v));
  }
  Result<std::shared_ptr<ops::Op>> made =
      ops::Op::Create(step.op, std::move(attrs), std::move(input_shapes));
  if (!made.ok()) return made.status().WithContext(StepPath(def, index));
  return made;
}

}  // namespace inflow::pipedef::internal
