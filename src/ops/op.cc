// Copyright 2026 The inflow Authors.

#include "inflow/ops/op.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/status.h"
#include "inflow/ops/op_kernel.h"

#include "ops/registry.h"

namespace inflow::ops {

namespace {

std::string Where(const OpDef& op) { return "op '" + op.name() + "'"; }

// Runs a piece of an op library's code (a kernel's, a shape function's):
// inflow's code never throws, but a library's may, and an exception must
// become an error naming the op, not end the process.
template <typename F>
[[gnu::always_inline]] inline auto Guarded(const OpDef& op, const char* what,
                                           F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return InternalError(Where(op) + ": the " + what + " threw: " + e.what());
  } catch (...) {
    return InternalError(Where(op) + ": the " + what + " threw");
  }
}

// `s` with the op's name first, once (a message that already begins with
// it keeps it).
Status NamingOp(const Status& s, const OpDef& op) {
  if (s.ok() || s.message().starts_with(Where(op))) return s;
  return s.WithContext(Where(op));
}

// What both of two compatible shapes say: [?,3] and [2,?] give [2,3].
PartialShape Merge(const PartialShape& a, const PartialShape& b) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  std::vector<int64_t> dims = a.dims();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dims[i] = b.dim(static_cast<int>(i));
  }
  return PartialShape(std::move(dims));
}

// INVALID_ARGUMENT unless `op` takes `given` inputs.
Status CheckInputCount(const OpDef& op, size_t given) {
  if (given == op.inputs().size()) return OkStatus();
  return InvalidArgumentError(Where(op) + " takes " +
                              std::to_string(op.inputs().size()) +
                              " inputs, got " + std::to_string(given));
}

std::string DescribeArg(DType dtype, const PartialShape& shape) {
  return std::string(DTypeName(dtype)) + " " + shape.DebugString();
}

// The attributes of a use of `op`: `given` checked against the
// declaration, the defaults filled in.
Result<AttrMap> ResolveAttrs(const OpDef& op, const AttrMap& given) {
  for (const auto& [name, value] : given.values()) {
    bool declared = false;
    for (const AttrDef& a : op.attrs()) declared = declared || a.name == name;
    if (!declared) {
      return InvalidArgumentError(Where(op) + " has no attribute '" + name +
                                  "'");
    }
  }
  AttrMap attrs;
  for (const AttrDef& a : op.attrs()) {
    const AttrValue* v = given.Find(a.name);
    if (v == nullptr) {
      if (!a.default_value.has_value()) {
        return InvalidArgumentError(Where(op) + ": attribute '" + a.name +
                                    "' (" + std::string(AttrTypeName(a.type)) +
                                    ") has no default and was not given");
      }
      attrs.Set(a.name, *a.default_value);
      continue;
    }
    if (v->type() == a.type) {
      attrs.Set(a.name, *v);
    } else if (a.type == AttrType::kFloat && v->type() == AttrType::kInt) {
      attrs.Set(a.name, static_cast<double>(*v->get_if<int64_t>()));
    } else if (a.type == AttrType::kFloatList &&
               v->type() == AttrType::kIntList) {
      const auto& ints = *v->get_if<std::vector<int64_t>>();
      attrs.Set(a.name, std::vector<double>(ints.begin(), ints.end()));
    } else {
      return InvalidArgumentError(
          Where(op) + ": attribute '" + a.name + "' must be " +
          std::string(AttrTypeName(a.type)) + ", got " +
          std::string(AttrTypeName(v->type())) + " " + v->DebugString());
    }
  }
  return attrs;
}

}  // namespace

// An op call's OpKernelContext. A call of Run puts the outputs into a
// Tuple; the calls of a per-record Pipeline map (RunRows) write them
// straight into the chunk's batch, one row per call.
class Op::Context final : public OpKernelContext {
 public:
  // Exactly one of `outputs` (one uninitialized tensor per output, filled
  // by the kernel) and `batch` (an op of at most 64 outputs of fully
  // defined static shapes: output i's [n] + shape, zeroed and numeric; the
  // call's outputs are row BeginRow's of each) is set.
  Context(const OpDef& op, const AttrMap& attrs, const Tuple& inputs,
          const std::vector<PartialShape>& output_shapes,
          const CallOptions& options, Tuple* outputs, Tuple* batch)
      : op_(op),
        attrs_(attrs),
        inputs_(inputs),
        output_shapes_(output_shapes),
        options_(options),
        outputs_(outputs),
        batch_(batch),
        num_outputs_(static_cast<int>(op.outputs().size())) {
    if (batch_ != nullptr) {
      views_.resize(batch_->size());
      for (Tensor& t : *batch_) {
        // A fresh tensor of RunRows's caller, of at least one row: writable.
        row_bytes_.push_back(
            t.dim_size(0) == 0 ? 0 : t.num_bytes() / t.dim_size(0));
        base_.push_back(static_cast<char*>(t.mutable_raw_data().value()));
      }
    }
  }

  const OpDef& op() const override { return op_; }
  const AttrMap& attrs() const override { return attrs_; }
  int num_inputs() const override { return static_cast<int>(inputs_.size()); }
  const Tensor& input(int i) const override { return inputs_.at(i); }
  Result<Tensor> MutableInput(int i) override {
    if (i < 0 || i >= static_cast<int>(inputs_.size())) {
      return InvalidArgumentError(Where(op_) + ": no input " +
                                  std::to_string(i));
    }
    const ArgDef& arg = op_.inputs()[i];
    if (!arg.is_mutable) {
      return InvalidArgumentError(Where(op_) + ": input '" + arg.name +
                                  "' is not declared mutable");
    }
    if (inputs_[i].read_only()) {
      return FailedPreconditionError(Where(op_) + ": input '" + arg.name +
                                     "' is read-only, and the op updates it "
                                     "in place");
    }
    return inputs_[i];
  }
  const CallOptions& options() const override { return options_; }
  int num_outputs() const override { return num_outputs_; }

  Result<Tensor*> AllocateOutput(int i, const TensorShape& shape) override {
    INFLOW_RETURN_IF_ERROR(CheckIndex(i));
    // A per-record map's output has its fully defined static shape: only
    // that one is compatible with it.
    if (batch_ != nullptr && shape.dims() == output_shapes_[i].dims()) {
      return RowView(i);
    }
    const ArgDef& arg = op_.outputs()[i];
    for (int64_t d : shape.dims()) {
      if (d < 0) {
        return InvalidArgumentError(Where(op_) + ": output '" + arg.name +
                                    "': negative dimension in " +
                                    shape.DebugString());
      }
    }
    if (!output_shapes_[i].IsCompatibleWith(shape)) {
      return InvalidArgumentError(Where(op_) + ": output '" + arg.name +
                                  "' must be " +
                                  DescribeArg(arg.dtype, output_shapes_[i]) +
                                  ", got " + DescribeArg(arg.dtype, shape));
    }
    if (batch_ != nullptr) return RowView(i);  // not reached (above)
    // Made in place, not assigned from a temporary: the assignment's wide
    // load of the just-stored buffer pointer stalls (store forwarding),
    // measurable per call. The slot holds a tensor of no storage or an
    // earlier output of this call.
    Tensor* out = &(*outputs_)[i];
    std::destroy_at(out);
    std::construct_at(out, arg.dtype, shape);
    return out;
  }

  Status SetOutput(int i, Tensor value) override {
    INFLOW_RETURN_IF_ERROR(CheckIndex(i));
    if (batch_ == nullptr) {
      INFLOW_RETURN_IF_ERROR(CheckOutput(i, value));
      (*outputs_)[i] = std::move(value);
      return OkStatus();
    }
    // Of the fully defined static shape (the only one compatible with it):
    // the row's, of row_bytes_[i] (memmove: the value may be the row
    // itself, handed out before).
    if (value.dtype() != op_.outputs()[i].dtype ||
        value.shape().dims() != output_shapes_[i].dims()) {
      INFLOW_RETURN_IF_ERROR(CheckOutput(i, value));
    }
    const uint64_t bit = uint64_t{1} << i;
    if (row_bytes_[i] == 8) {  // a scalar of 8 bytes, the common case
      std::memmove(Row(i), value.raw_data(), 8);
    } else {
      std::memmove(Row(i), value.raw_data(), row_bytes_[i]);
    }
    set_ |= bit;
    viewed_ &= ~bit;
    return OkStatus();
  }

  // With `batch`: the next call writes row `r`.
  void BeginRow(int64_t r) {
    row_ = r;
    set_ = 0;
    viewed_ = 0;
  }

  // After Compute returned OK: OK once it set every output.
  Status Finish() {
    if (batch_ == nullptr) {
      for (int i = 0; i < num_outputs_; ++i) {
        if (!(*outputs_)[i].IsInitialized()) return NotSet(i);
      }
      return OkStatus();
    }
    if (set_ != all_) [[unlikely]] {
      for (int i = 0; i < num_outputs_; ++i) {
        if ((set_ >> i & 1) == 0) return NotSet(i);
      }
    }
    // A kernel that assigned another tensor to a handed-out row
    // (`*out = t`) set the output to it: checked and copied as SetOutput's.
    for (uint64_t v = viewed_; v != 0; v &= v - 1) {
      const int i = std::countr_zero(v);
      if (views_[i].raw_data() != Row(i)) {
        Tensor value = std::move(views_[i]);
        views_[i] = Tensor();
        INFLOW_RETURN_IF_ERROR(CheckOutput(i, value));
        std::memcpy(Row(i), value.raw_data(), row_bytes_[i]);
      }
    }
    return OkStatus();
  }

 private:
  // Output i's row, zero-filled, as a view the kernel writes through.
  Tensor* RowView(int i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((set_ & bit) != 0) std::memset(Row(i), 0, row_bytes_[i]);
    set_ |= bit;
    viewed_ |= bit;
    views_[i].AssignSubTensor((*batch_)[i], row_);
    return &views_[i];
  }
  char* Row(int i) const {
    return base_[i] + static_cast<size_t>(row_) * row_bytes_[i];
  }
  Status NotSet(int i) const {
    return InvalidArgumentError(Where(op_) +
                                ": the kernel did not set output '" +
                                op_.outputs()[i].name + "'");
  }
  Status CheckIndex(int i) const {
    if (i >= 0 && i < num_outputs_) [[likely]] {
      return OkStatus();
    }
    return NoOutput(i);
  }
  [[gnu::noinline]] Status NoOutput(int i) const {
    return InvalidArgumentError(Where(op_) + ": no output " +
                                std::to_string(i) + " (it has " +
                                std::to_string(num_outputs_) + ")");
  }
  Status CheckOutput(int i, const Tensor& t) const {
    const ArgDef& arg = op_.outputs()[i];
    if (t.dtype() != arg.dtype ||
        !output_shapes_[i].IsCompatibleWith(t.shape())) {
      return InvalidArgumentError(Where(op_) + ": output '" + arg.name +
                                  "' must be " +
                                  DescribeArg(arg.dtype, output_shapes_[i]) +
                                  ", got " + DescribeArg(t.dtype(), t.shape()));
    }
    return OkStatus();
  }

  const OpDef& op_;
  const AttrMap& attrs_;
  const Tuple& inputs_;
  const std::vector<PartialShape>& output_shapes_;
  const CallOptions& options_;
  Tuple* const outputs_;
  Tuple* const batch_;
  const int num_outputs_;
  const uint64_t all_ =  // every output's bit
      num_outputs_ == 64 ? ~uint64_t{0} : (uint64_t{1} << num_outputs_) - 1;
  // With batch_: output i's first row and its bytes, the row being
  // written, the outputs set in it (bit i) and those handed out as
  // views_[i] (a view of the row, moved from row to row).
  std::vector<char*> base_;
  std::vector<size_t> row_bytes_;
  Tuple views_;
  int64_t row_ = 0;
  uint64_t set_ = 0;
  uint64_t viewed_ = 0;
};

struct Op::Rep {
  const internal::RegisteredOp* registered = nullptr;
  AttrMap attrs;
  std::vector<PartialShape> input_shapes;
  std::vector<PartialShape> output_shapes;
  std::unique_ptr<OpKernel> kernel;
  // A stateful kernel's calls, one at a time.
  mutable Mutex mu;
};

Op::Op(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Op::~Op() = default;

Result<std::shared_ptr<Op>> Op::Create(std::string_view name, AttrMap attrs,
                                       std::vector<PartialShape> input_shapes) {
  const internal::RegisteredOp* registered =
      internal::Registry::Global().Find(name);
  if (registered == nullptr) {
    return NotFoundError("no op '" + std::string(name) + "' is registered");
  }
  const OpDef& def = registered->def;
  auto rep = std::make_unique<Rep>();
  rep->registered = registered;
  INFLOW_ASSIGN_OR_RETURN(rep->attrs, ResolveAttrs(def, attrs));
  const size_t n_in = def.inputs().size();
  if (input_shapes.empty()) input_shapes.resize(n_in);
  if (input_shapes.size() != n_in) {
    return InvalidArgumentError(Where(def) + " takes " + std::to_string(n_in) +
                                " inputs, got " +
                                std::to_string(input_shapes.size()));
  }
  for (size_t i = 0; i < n_in; ++i) {
    const ArgDef& arg = def.inputs()[i];
    if (!arg.shape.IsCompatibleWith(input_shapes[i])) {
      return InvalidArgumentError(Where(def) + ": input '" + arg.name +
                                  "' takes shape " + arg.shape.DebugString() +
                                  ", got " + input_shapes[i].DebugString());
    }
    input_shapes[i] = Merge(input_shapes[i], arg.shape);
  }
  rep->input_shapes = std::move(input_shapes);
  for (const ArgDef& out : def.outputs()) {
    rep->output_shapes.push_back(out.shape);
  }
  if (def.shape_fn()) {
    Result<std::vector<PartialShape>> inferred =
        Guarded(def, "shape function", [&] {
          return def.shape_fn()(ShapeContext{rep->input_shapes, rep->attrs});
        });
    if (!inferred.ok()) {
      const Status e = inferred.status();
      return e.message().starts_with(Where(def))
                 ? e
                 : e.WithContext(Where(def) + ": shape function");
    }
    if (inferred->size() != def.outputs().size()) {
      return InvalidArgumentError(
          Where(def) + ": the shape function gave " +
          std::to_string(inferred->size()) + " shapes for " +
          std::to_string(def.outputs().size()) + " outputs");
    }
    for (size_t i = 0; i < inferred->size(); ++i) {
      const ArgDef& out = def.outputs()[i];
      if (!out.shape.IsCompatibleWith((*inferred)[i])) {
        return InvalidArgumentError(
            Where(def) + ": the shape function gave output '" + out.name +
            "' the shape " + (*inferred)[i].DebugString() +
            ", but the op declares " + out.shape.DebugString());
      }
      rep->output_shapes[i] = Merge((*inferred)[i], out.shape);
    }
  }
  Status made = Guarded(def, "kernel factory", [&] {
    rep->kernel = registered->kernel.factory();
    return rep->kernel == nullptr
               ? InternalError(Where(def) +
                               ": the kernel factory returned null")
               : OkStatus();
  });
  if (!made.ok()) return made;
  OpKernelConstruction construction(def, rep->attrs, rep->input_shapes);
  Status init = Guarded(def, "kernel's Initialize",
                        [&] { return rep->kernel->Initialize(construction); });
  if (!init.ok()) return NamingOp(init, def);
  return std::make_shared<Op>(std::move(rep));
}

const OpDef& Op::def() const { return rep_->registered->def; }
const std::string& Op::name() const { return def().name(); }
const AttrMap& Op::attrs() const { return rep_->attrs; }
const std::vector<PartialShape>& Op::input_shapes() const {
  return rep_->input_shapes;
}
std::vector<DType> Op::output_dtypes() const {
  std::vector<DType> dtypes;
  for (const ArgDef& out : def().outputs()) dtypes.push_back(out.dtype);
  return dtypes;
}
const std::vector<PartialShape>& Op::output_shapes() const {
  return rep_->output_shapes;
}

Result<Tuple> Op::Run(const Tuple& inputs, const CallOptions& options) const {
  const OpDef& op = def();
  INFLOW_RETURN_IF_ERROR(CheckInputCount(op, inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgDef& arg = op.inputs()[i];
    if (inputs[i].dtype() != arg.dtype ||
        !rep_->input_shapes[i].IsCompatibleWith(inputs[i].shape())) {
      return InvalidArgumentError(
          Where(op) + ": input '" + arg.name + "' must be " +
          DescribeArg(arg.dtype, rep_->input_shapes[i]) + ", got " +
          DescribeArg(inputs[i].dtype(), inputs[i].shape()));
    }
  }
  Tuple outputs(op.outputs().size());
  Context context(op, rep_->attrs, inputs, rep_->output_shapes, options,
                  &outputs, nullptr);
  INFLOW_RETURN_IF_ERROR(Compute(context));
  return outputs;
}

Status Op::Compute(Context& context) const {
  if (def().stateful()) {
    MutexLock lock(&rep_->mu);
    return ComputeHeld(context);
  }
  return ComputeHeld(context);
}

Status Op::ComputeHeld(Context& context) const {
  const OpDef& op = rep_->registered->def;
  Status s =
      Guarded(op, "kernel", [&] { return rep_->kernel->Compute(context); });
  if (!s.ok()) [[unlikely]] {
    return NamingOp(s, op);
  }
  return context.Finish();
}

Status Op::RunRows(const Tuple& chunk, Tuple& batch) const {
  // The chunk's dtypes and row shapes, which the Pipeline map's signature
  // fixed when it was made, checked once as Run checks each call's.
  const OpDef& op = def();
  INFLOW_RETURN_IF_ERROR(CheckInputCount(op, chunk.size()));
  const int64_t n =
      chunk.empty() || chunk[0].rank() < 1 ? 0 : chunk[0].dim_size(0);
  for (size_t i = 0; i < chunk.size(); ++i) {
    const ArgDef& arg = op.inputs()[i];
    const std::vector<int64_t>& dims = chunk[i].shape().dims();
    const TensorShape row(
        dims.empty() ? std::vector<int64_t>()
                     : std::vector<int64_t>(dims.begin() + 1, dims.end()));
    if (chunk[i].dtype() != arg.dtype || dims.empty() || dims[0] != n ||
        !rep_->input_shapes[i].IsCompatibleWith(row)) {
      return InvalidArgumentError(
          Where(op) + ": input '" + arg.name + "' must be " +
          DescribeArg(arg.dtype, rep_->input_shapes[i]) + " rows, got " +
          DescribeArg(chunk[i].dtype(), chunk[i].shape()));
    }
  }
  if (n == 0) return OkStatus();
  // One view per input, moved from row to row (no tensor made per record).
  Tuple row(chunk.size());
  const CallOptions options;
  Context context(op, rep_->attrs, row, rep_->output_shapes, options, nullptr,
                  &batch);
  const auto rows = [&]() -> Status {
    for (int64_t r = 0; r < n; ++r) {
      for (size_t i = 0; i < chunk.size(); ++i) {
        row[i].AssignSubTensor(chunk[i], r);
      }
      context.BeginRow(r);
      INFLOW_RETURN_IF_ERROR(ComputeHeld(context));
    }
    return OkStatus();
  };
  // A stateful kernel's lock is taken once for the chunk's calls.
  if (op.stateful()) {
    MutexLock lock(&rep_->mu);
    return rows();
  }
  return rows();
}

data::MapFn OpMapFn(std::shared_ptr<const Op> op) {
  return [op = std::move(op)](Tuple element) { return op->Run(element); };
}

Result<MapFunction> OpPipelineMap(std::shared_ptr<const Op> op,
                                  OpMapUnit unit) {
  const bool chunks = unit == OpMapUnit::kChunk;
  MapFunction map;
  for (size_t i = 0; i < op->def().outputs().size(); ++i) {
    const ArgDef& out = op->def().outputs()[i];
    const PartialShape& shape = op->output_shapes()[i];
    const bool rows_ok = !chunks || (shape.rank_known() && shape.rank() >= 1);
    PartialShape row = shape;
    if (chunks && rows_ok) {
      row = PartialShape(
          std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end()));
    }
    if (!rows_ok || !row.IsFullyDefined()) {
      return InvalidArgumentError(
          "op '" + op->name() + "': a Pipeline map needs outputs of " +
          (chunks ? "shape [?] + a fully defined row shape"
                  : "fully defined shape") +
          ", and output '" + out.name + "' has the shape " +
          shape.DebugString());
    }
    map.dtypes.push_back(out.dtype);
    map.row_shapes.push_back(row);
    map.names.push_back(out.name);
  }
  if (chunks) {
    map.fn = [op = std::move(op)](Tuple rows) -> Result<Tuple> {
      const int64_t n = rows.empty() ? 0 : rows[0].dim_size(0);
      INFLOW_ASSIGN_OR_RETURN(Tuple out, op->Run(rows));
      for (size_t c = 0; c < out.size(); ++c) {
        if (out[c].rank() < 1 || out[c].dim_size(0) != n) {
          return InvalidArgumentError(
              "op '" + op->name() + "': output '" +
              op->def().outputs()[c].name + "' has the shape " +
              out[c].shape().DebugString() + " for a chunk of " +
              std::to_string(n) + " records");
        }
      }
      return out;
    };
    return map;
  }
  // Numeric outputs are written straight into the chunk's batch, a row
  // per record: no tensor per record and output, no stacking after.
  bool in_place = op->def().outputs().size() <= 64;
  for (DType dtype : map.dtypes) {
    in_place = in_place && dtype != DType::kString;
  }
  if (in_place) {
    map.fn = [op = std::move(op), dtypes = map.dtypes,
              shapes = map.row_shapes](Tuple rows) -> Result<Tuple> {
      const int64_t n =
          rows.empty() || rows[0].rank() < 1 ? 0 : rows[0].dim_size(0);
      Tuple stacked;
      for (size_t c = 0; c < dtypes.size(); ++c) {
        std::vector<int64_t> dims = {n};
        dims.insert(dims.end(), shapes[c].dims().begin(),
                    shapes[c].dims().end());
        stacked.emplace_back(dtypes[c], TensorShape(std::move(dims)));
      }
      INFLOW_RETURN_IF_ERROR(op->RunRows(rows, stacked));
      return stacked;
    };
    return map;
  }
  map.fn = [op = std::move(op)](Tuple rows) -> Result<Tuple> {
    const int64_t n = rows.empty() ? 0 : rows[0].dim_size(0);
    std::vector<std::vector<Tensor>> outputs(op->def().outputs().size());
    for (std::vector<Tensor>& column : outputs) {
      column.reserve(static_cast<size_t>(n));
    }
    Tuple row(rows.size());
    for (int64_t r = 0; r < n; ++r) {
      for (size_t c = 0; c < rows.size(); ++c) row[c] = rows[c].SubTensor(r);
      INFLOW_ASSIGN_OR_RETURN(Tuple out, op->Run(row));
      for (size_t c = 0; c < out.size(); ++c) {
        outputs[c].push_back(std::move(out[c]));
      }
    }
    Tuple stacked;
    for (std::vector<Tensor>& column : outputs) {
      INFLOW_ASSIGN_OR_RETURN(Tensor t, Tensor::StackMove(std::move(column)));
      stacked.push_back(std::move(t));
    }
    return stacked;
  };
  return map;
}

}  // namespace inflow::ops
