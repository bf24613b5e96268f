// Copyright 2026 The inflow Authors.
//
// Checked access to one step's attributes for the Build functions: each
// read marks the attribute used, CheckNoOthers() refuses the rest, and
// every error names the definition's source and the attribute's JSON path
// ("p.json: $.steps[2].attrs.batch_size: must be an int, got a string").

#ifndef INFLOW_PIPEDEF_STEP_ATTRS_H_
#define INFLOW_PIPEDEF_STEP_ATTRS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/ops/op_def.h"
#include "inflow/pipedef/pipeline_def.h"

namespace inflow::pipedef::internal {

// "p.json: $.steps[3]" ("$.steps[3]" for a definition made in memory);
// `field` is the top-level list.
std::string StepPath(const PipelineDef& def, size_t index,
                     std::string_view field = "steps");

// INVALID_ARGUMENT "<StepPath>: message".
Status StepError(const PipelineDef& def, size_t index,
                 const std::string& message);

// Not thread-safe; lives while one step is built.
class StepAttrs {
 public:
  // The step's attrs, or with `options` its options.
  StepAttrs(const PipelineDef& def, size_t index, bool options = false);

  Result<int64_t> Int(std::string_view name);  // required
  Result<int64_t> Int(std::string_view name, int64_t default_value);
  Result<std::optional<int64_t>> OptionalInt(std::string_view name);
  Result<double> Float(std::string_view name, double default_value);
  Result<bool> Bool(std::string_view name, bool default_value);
  Result<std::string> String(std::string_view name);  // required
  Result<std::string> String(std::string_view name, std::string default_value);
  Result<DType> Type(std::string_view name);  // required, a dtype's name
  Result<std::vector<int64_t>> IntList(std::string_view name,
                                       std::vector<int64_t> default_value);
  // A list of strings, or one string as a list of one.
  Result<std::vector<std::string>> StringList(std::string_view name);
  bool Has(std::string_view name) const;
  // The value of `name`, or nullptr; marks it used.
  const ops::AttrValue* Find(std::string_view name);

  // INVALID_ARGUMENT naming the first attribute no read asked for, and
  // those the step takes.
  Status CheckNoOthers() const;
  // INVALID_ARGUMENT "<path>.name: message".
  Status Error(std::string_view name, const std::string& message) const;

 private:
  Status WrongType(std::string_view name, const ops::AttrValue& v,
                   std::string_view want) const;

  const PipelineDef& def_;
  size_t index_;
  const ops::AttrMap& attrs_;
  std::string path_;  // "p.json: $.steps[3].attrs"
  std::set<std::string, std::less<>> used_;
};

// A fixed_len_feature or var_len_feature step as a FeatureSpec and its key.
Result<std::pair<std::string, FeatureSpec>> ReadFeature(const PipelineDef& def,
                                                        size_t index);
// The inverse, for DescribePipeline.
Result<Step> FeatureStep(const std::string& key, const FeatureSpec& spec);

bool IsFeatureStep(std::string_view op);

// A custom op's step: its attributes read for the op's declaration (a
// dtype's name for a type attribute, an int list for a float list, an empty
// list for any list), then Op::Create with `input_shapes`. Errors name the
// step's path.
Result<std::shared_ptr<ops::Op>> CreateStepOp(
    const PipelineDef& def, size_t index,
    std::vector<PartialShape> input_shapes = {});

}  // namespace inflow::pipedef::internal

#endif  // INFLOW_PIPEDEF_STEP_ATTRS_H_
