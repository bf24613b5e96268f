// Copyright 2026 The inflow Authors.
//
// The model's steps (mlp.h). Layer i maps act[i] (width s[i]) to
// z[i + 1] = act[i] * W[i] + b[i]; act[i] for 0 < i < L is
// dropout(relu(z[i])), act[0] the dropped-out images, z[L] the logits.
// Every product takes its left operand as SparseRows (the nonzero entries
// of the activations and of the gradients after ReLU and dropout):
//   forward    z[i + 1] = act[i] * W[i]
//   backward   dW[i] = act[i]^T * d[i + 1]      (act[i]^T's rows)
//              d[i]  = (d[i + 1] * W[i]^T) through ReLU and dropout
// with d[i] = dLoss / dz[i] and d[L] = (softmax - onehot) / batch.
//
// With more than one math thread the products and the transposes are
// split into blocks of output columns (or of output rows when the
// product is narrow), one block a thread, each formed by the same kernel
// code as the whole (SparseMatMulBlock): the same bits whatever the
// split. So are the elementwise loops (dropout, the gradient through ReLU
// and dropout), in ranges of elements. Building SparseRows, drawing the
// dropout masks and the per-row parts stay on the calling thread.

#include "inflow/model/mlp.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "model/elementwise_kernels.h"
#include "model/layer_math.h"
#include "model/math_pool.h"
#include "model/matmul_kernels.h"
#include "model/mlp_internal.h"
#include "model/random.h"
#include "model/sparse_rows.h"

namespace inflow {

using internal::DropoutMasks;

using internal::SparseRows;

struct Mlp::Rep {
  MlpOptions options;
  internal::TrainKernel kernel;
  std::unique_ptr<internal::MathPool> pool;
  int layers = 0;
  std::vector<std::string> names;
  std::vector<Tensor> params;  // W[0], b[0], W[1], b[1], ...
  std::vector<Tensor> grads;   // views of flat_grads
  Tensor flat_grads;
  BatchRows window;  // of the step in progress
  // Scratch, sized on first use for a batch size.
  std::vector<std::vector<float>> act;  // act[0..L-1], dense
  std::vector<std::vector<float>> z;    // z[1..L] (z[0] unused)
  std::vector<SparseRows> rows;         // act[i]'s rows
  SparseRows transposed;
  SparseRows delta_rows;
  std::vector<float> delta, delta_next, weights_t;
  std::vector<uint32_t> draws;

  float* W(int i) { return Mutable(params[2 * i]); }
  float* B(int i) { return Mutable(params[2 * i + 1]); }
  int64_t size(int i) const { return options.layer_sizes[i]; }
  float Keep(int i) const {
    return i == 0 ? options.input_keep_prob : options.hidden_keep_prob;
  }
  // Dropout's scale, float(1 / keep) as tf.nn.dropout computes it.
  float Scale(int i) const { return static_cast<float>(1.0 / Keep(i)); }
  static float* Mutable(Tensor& t) {
    return static_cast<float*>(t.mutable_raw_data().value());
  }

  // c = a * b (internal::SparseMatMul) and out = in's transpose
  // (internal::Transpose), on the pool's threads.
  void MatMul(const SparseRows& a, const float* b, int64_t n, float* c);
  void Transpose(const float* in, int64_t rows, int64_t cols, float* out);
  // fn(begin, end) over ranges of [0, n) on the pool's threads (on this
  // one alone for fewer than 4096 elements: a hand-off costs a few
  // microseconds).
  template <typename Fn>
  void ForRanges(int64_t n, const Fn& fn) {
    const int parts = pool->threads();
    if (parts == 1 || n < 4096) return fn(int64_t{0}, n);
    pool->Run([&](int part) {
      int64_t begin, end;
      internal::MathPool::Split(n, 16, part, parts, &begin, &end);
      fn(begin, end);
    });
  }

  Status CheckInputs(const Tensor& images, const Tensor* labels) const;
  // Fills z[L] (the logits); `train` drops out with `masks` or `draws`.
  void Forward(const Tensor& images, bool train, const DropoutMasks* masks,
               internal::TrainRandom* random);
  float Backward(const Tensor& labels);
  void WeightGradient(int i);
};

void Mlp::Rep::MatMul(const SparseRows& a, const float* b, int64_t n,
                      float* c) {
  const int parts = pool->threads();
  // A product of fewer than 8192 multiply-adds (a microsecond or two)
  // costs less than handing it off.
  if (parts == 1 || a.nonzeros() * n < 8192) {
    return internal::SparseMatMul(kernel, a, b, n, c);
  }
  // Blocks of columns when each has at least a 64-column pass of the
  // kernel (multiples of 16 columns, a cache line of floats), else blocks
  // of rows with about equal numbers of nonzero entries.
  constexpr int64_t kMinColumns = 64, kAlign = 16;
  if (n >= kMinColumns * parts) {
    pool->Run([&](int part) {
      int64_t begin, end;
      internal::MathPool::Split(n, kAlign, part, parts, &begin, &end);
      internal::SparseMatMulBlock(kernel, a, b, n, {0, a.rows, begin, end}, c);
    });
    return;
  }
  pool->Run([&](int part) {
    const int64_t total = a.nonzeros();
    auto row_at = [&](int p) -> int64_t {
      if (p == 0) return 0;
      if (p == parts) return a.rows;
      const int32_t target = static_cast<int32_t>(total * p / parts);
      return std::lower_bound(a.begin.begin(), a.begin.begin() + a.rows,
                              target) -
             a.begin.begin();
    };
    internal::SparseMatMulBlock(kernel, a, b, n,
                                {row_at(part), row_at(part + 1), 0, n}, c);
  });
}

void Mlp::Rep::Transpose(const float* in, int64_t rows, int64_t cols,
                         float* out) {
  const int parts = pool->threads();
  if (parts == 1 || rows * cols < 4096) {
    return internal::Transpose(in, rows, cols, out);
  }
  pool->Run([&](int part) {
    int64_t begin, end;
    // Whole 64 x 64 blocks of the transpose a thread.
    internal::MathPool::Split(cols, 64, part, parts, &begin, &end);
    internal::TransposeColumns(in, rows, cols, begin, end, out);
  });
}

Status Mlp::Rep::CheckInputs(const Tensor& images, const Tensor* labels) const {
  const int64_t in = size(0);
  if (images.dtype() != DType::kFloat32 || images.rank() != 2 ||
      images.dim_size(1) != in || images.dim_size(0) == 0) {
    return InvalidArgumentError("Mlp: images must be float32 [batch >= 1, " +
                                std::to_string(in) + "], got " +
                                images.DebugString(0));
  }
  // SparseRows indexes a batch's entries with int32.
  const int64_t batch = images.dim_size(0);
  int64_t widest = 0;
  for (int64_t s : options.layer_sizes) widest = std::max(widest, s);
  if (batch > std::numeric_limits<int32_t>::max() / widest) {
    return InvalidArgumentError(
        "Mlp: a batch of " + std::to_string(batch) +
        " rows is too large (at most " +
        std::to_string(std::numeric_limits<int32_t>::max() / widest) + ")");
  }
  if (labels == nullptr) return OkStatus();
  if (labels->dtype() != DType::kInt64 || labels->rank() != 1 ||
      labels->dim_size(0) != batch) {
    return InvalidArgumentError("Mlp: labels must be int64 [" +
                                std::to_string(batch) + "], got " +
                                labels->DebugString(0));
  }
  const int64_t classes = size(layers);
  const int64_t* l = labels->data<int64_t>();
  for (int64_t r = 0; r < batch; ++r) {
    if (l[r] < 0 || l[r] >= classes) {
      return InvalidArgumentError("Mlp: label " + std::to_string(l[r]) +
                                  " of row " + std::to_string(r) +
                                  " is outside [0, " + std::to_string(classes) +
                                  ")");
    }
  }
  return OkStatus();
}

void Mlp::Rep::Forward(const Tensor& images, bool train,
                       const DropoutMasks* masks,
                       internal::TrainRandom* random) {
  const int64_t batch = images.dim_size(0);
  for (int i = 0; i <= layers; ++i) {
    if (i < layers) act[i].resize(batch * size(i));
    if (i > 0) z[i].resize(batch * size(i));
  }
  const float* x = images.data<float>();
  std::copy(x, x + batch * size(0), act[0].begin());
  for (int i = 0; i < layers; ++i) {
    float* a = act[i].data();
    if (i > 0) {
      // z[i] -> act[i]: bias, ReLU.
      std::copy(z[i].begin(), z[i].end(), a);
      internal::BiasRelu(a, batch, size(i), B(i - 1));
    }
    if (train && Keep(i) < 1.0f) {
      const int64_t n = batch * size(i);
      draws.resize(n);
      uint32_t threshold = 1;
      if (masks != nullptr) {
        const float* m = masks->keep[i].data<float>();
        for (int64_t k = 0; k < n; ++k) draws[k] = m[k] != 0.0f ? 0 : 1;
      } else {
        if (window.global_batch == 0) {
          internal::FillDraws(random, draws.data(), n);
        } else {
          internal::FillDrawsWindow(random, draws.data(),
                                    window.global_batch * size(i),
                                    window.first_row * size(i), n);
        }
        threshold = internal::KeepThreshold(Keep(i));
      }
      const uint32_t* d = draws.data();
      const float scale = Scale(i);
      ForRanges(n, [&](int64_t begin, int64_t end) {
        internal::DropoutApply(kernel, end - begin, d + begin, threshold, scale,
                               a + begin);
      });
    }
    rows[i].AssignDense(a, batch, size(i));
    MatMul(rows[i], W(i), size(i + 1), z[i + 1].data());
  }
  internal::AddBias(z[layers].data(), batch, size(layers), B(layers - 1));
}

// dW[i] = act[i]^T * delta, as act[i]^T's rows times delta, or when
// delta has fewer nonzero entries than act[i] (the input layer: the images
// are denser than the gradients after ReLU and dropout) as the transpose
// of delta^T's rows times act[i]. Both sum the same nonzero terms in batch
// order, so they give the same bits.
void Mlp::Rep::WeightGradient(int i) {
  const int64_t in = size(i), out = size(i + 1);
  float* dw = Mutable(grads[2 * i]);
  // The transpose costs about a quarter of a multiply-add an element.
  if (delta_rows.nonzeros() * in + in * out / 4 < rows[i].nonzeros() * out) {
    transposed.AssignTransposed(delta_rows);
    weights_t.resize(in * out);
    MatMul(transposed, act[i].data(), in, weights_t.data());
    Transpose(weights_t.data(), out, in, dw);
    return;
  }
  transposed.AssignTransposed(rows[i]);
  MatMul(transposed, delta.data(), out, dw);
}

float Mlp::Rep::Backward(const Tensor& labels) {
  const int64_t batch = labels.dim_size(0);
  const int64_t classes = size(layers);
  delta.resize(batch * classes);
  // The gradients of the mean over the batch; with a window, these rows'
  // share of the global batch's mean (BatchRows).
  const int64_t divisor =
      window.global_batch != 0 ? window.global_batch : batch;
  const double total = internal::SoftmaxCrossEntropy(
      z[layers].data(), labels.data<int64_t>(), batch, classes,
      1.0f / static_cast<float>(divisor), delta.data());
  for (int i = layers - 1; i >= 0; --i) {
    const int64_t in = size(i), out = size(i + 1);
    delta_rows.AssignDense(delta.data(), batch, out);
    WeightGradient(i);
    internal::ColumnSums(delta.data(), batch, out, Mutable(grads[2 * i + 1]));
    if (i == 0) break;
    weights_t.resize(in * out);
    Transpose(W(i), in, out, weights_t.data());
    delta_next.resize(batch * in);
    MatMul(delta_rows, weights_t.data(), in, delta_next.data());
    const float* activation = act[i].data();
    float* d = delta_next.data();
    const float scale = Scale(i);
    ForRanges(batch * in, [&](int64_t begin, int64_t end) {
      internal::ReluDropoutGrad(kernel, end - begin, activation + begin, scale,
                                d + begin);
    });
    delta.swap(delta_next);
  }
  return static_cast<float>(total / static_cast<double>(batch));
}

std::vector<int64_t> DefaultMlpLayerSizes() { return {784, 625, 625, 10}; }

Result<std::unique_ptr<Mlp>> Mlp::Create(const MlpOptions& options) {
  const auto& sizes = options.layer_sizes;
  if (sizes.size() < 2) {
    return InvalidArgumentError("Mlp: layer_sizes needs at least two sizes");
  }
  for (int64_t s : sizes) {
    if (s < 1 || s > (int64_t{1} << 24)) {
      return InvalidArgumentError("Mlp: layer size " + std::to_string(s) +
                                  " is outside [1, 2^24]");
    }
  }
  for (float p : {options.input_keep_prob, options.hidden_keep_prob}) {
    if (!(p > 0.0f && p <= 1.0f)) {
      return InvalidArgumentError("Mlp: keep probability " + std::to_string(p) +
                                  " is outside (0, 1]");
    }
  }
  if (!(options.init_stddev >= 0.0f)) {
    return InvalidArgumentError("Mlp: init_stddev must be >= 0");
  }
  if (options.math_threads < 1 ||
      options.math_threads > internal::MathPool::kMaxThreads) {
    return InvalidArgumentError(
        "Mlp: math_threads " + std::to_string(options.math_threads) +
        " is outside [1, " + std::to_string(internal::MathPool::kMaxThreads) +
        "]");
  }
  if (options.spare_gradient_floats < 0) {
    return InvalidArgumentError("Mlp: spare_gradient_floats must be >= 0");
  }
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  rep->kernel = internal::ChooseTrainKernel();
  rep->pool = std::make_unique<internal::MathPool>(options.math_threads);
  rep->layers = static_cast<int>(sizes.size()) - 1;
  rep->act.resize(rep->layers);
  rep->z.resize(rep->layers + 1);
  rep->rows.resize(rep->layers);
  internal::TrainRandom random(options.seed, /*stream=*/0);
  for (int i = 0; i < rep->layers; ++i) {
    const std::string layer = "layer" + std::to_string(i + 1);
    Tensor w(DType::kFloat32, TensorShape({sizes[i], sizes[i + 1]}));
    float* data = Rep::Mutable(w);
    for (int64_t k = 0; k < w.num_elements(); ++k) {
      data[k] = static_cast<float>(random.Normal() * options.init_stddev);
    }
    rep->names.push_back(layer + "/weights");
    rep->params.push_back(w);
    rep->names.push_back(layer + "/biases");
    rep->params.emplace_back(DType::kFloat32, TensorShape({sizes[i + 1]}));
  }
  // The gradients: views of one zeroed buffer, each 64-byte aligned.
  constexpr int64_t kAlignFloats = 16;
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (const Tensor& p : rep->params) {
    offsets.push_back(total);
    total +=
        (p.num_elements() + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
  }
  rep->flat_grads = Tensor(
      DType::kFloat32, TensorShape({total + options.spare_gradient_floats}));
  for (size_t i = 0; i < rep->params.size(); ++i) {
    INFLOW_ASSIGN_OR_RETURN(
        Tensor g, Tensor::FromBuffer(DType::kFloat32, rep->params[i].shape(),
                                     rep->flat_grads.buffer(),
                                     static_cast<size_t>(offsets[i]) * 4));
    rep->grads.push_back(std::move(g));
  }
  return std::unique_ptr<Mlp>(new Mlp(std::move(rep)));
}

Mlp::Mlp(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Mlp::~Mlp() = default;

const MlpOptions& Mlp::options() const { return rep_->options; }
int Mlp::num_layers() const { return rep_->layers; }
std::string_view Mlp::kernel() const {
  return internal::TrainKernelName(rep_->kernel);
}
const std::vector<Tensor>& Mlp::gradients() const { return rep_->grads; }

std::span<float> Mlp::flat_gradients() {
  return rep_->flat_grads.mutable_flat<float>().value();
}

Status Mlp::MoveGradients(std::shared_ptr<TensorBuffer> buffer,
                          size_t byte_offset) {
  Tensor& flat = rep_->flat_grads;
  if (buffer == nullptr || byte_offset % 64 != 0 ||
      reinterpret_cast<uintptr_t>(buffer->data()) % 64 != 0) {
    return InvalidArgumentError(
        "Mlp::MoveGradients: the buffer must be 64-byte aligned");
  }
  INFLOW_ASSIGN_OR_RETURN(
      Tensor moved,
      Tensor::FromBuffer(DType::kFloat32, flat.shape(), buffer, byte_offset));
  if (moved.read_only()) {
    return InvalidArgumentError("Mlp::MoveGradients: the buffer is read-only");
  }
  std::vector<Tensor> views;
  for (const Tensor& g : rep_->grads) {
    const size_t offset =
        static_cast<size_t>(static_cast<const char*>(g.raw_data()) -
                            static_cast<const char*>(flat.raw_data()));
    INFLOW_ASSIGN_OR_RETURN(
        Tensor view, Tensor::FromBuffer(DType::kFloat32, g.shape(), buffer,
                                        byte_offset + offset));
    views.push_back(std::move(view));
  }
  std::memcpy(moved.mutable_flat<float>().value().data(), flat.raw_data(),
              static_cast<size_t>(flat.num_elements()) * sizeof(float));
  rep_->flat_grads = std::move(moved);
  rep_->grads = std::move(views);
  return OkStatus();
}

std::vector<std::pair<std::string, Tensor*>> Mlp::variables() {
  std::vector<std::pair<std::string, Tensor*>> out;
  for (size_t i = 0; i < rep_->params.size(); ++i) {
    out.emplace_back(rep_->names[i], &rep_->params[i]);
  }
  return out;
}

Result<float> Mlp::ComputeGradients(const Tensor& images, const Tensor& labels,
                                    int64_t step, BatchRows rows) {
  INFLOW_RETURN_IF_ERROR(rep_->CheckInputs(images, &labels));
  if (rows.global_batch != 0 &&
      (rows.first_row < 0 ||
       rows.first_row + images.dim_size(0) > rows.global_batch)) {
    return InvalidArgumentError(
        "Mlp: rows [" + std::to_string(rows.first_row) + ", " +
        std::to_string(rows.first_row + images.dim_size(0)) +
        ") are not in a global batch of " + std::to_string(rows.global_batch));
  }
  internal::TrainRandom random(rep_->options.seed,
                               /*stream=*/static_cast<uint64_t>(step) + 1);
  rep_->window = rows;
  rep_->Forward(images, /*train=*/true, nullptr, &random);
  return rep_->Backward(labels);
}

namespace internal {

MathPool* MlpPeer::Pool(Mlp& model) { return model.rep_->pool.get(); }

Result<float> MlpPeer::ComputeGradients(Mlp& model, const Tensor& images,
                                        const Tensor& labels,
                                        const DropoutMasks& masks) {
  Mlp::Rep* rep = model.rep_.get();
  INFLOW_RETURN_IF_ERROR(rep->CheckInputs(images, &labels));
  if (masks.keep.size() != static_cast<size_t>(rep->layers)) {
    return InvalidArgumentError("Mlp: DropoutMasks needs " +
                                std::to_string(rep->layers) + " masks, got " +
                                std::to_string(masks.keep.size()));
  }
  for (int i = 0; i < rep->layers; ++i) {
    const Tensor& m = masks.keep[i];
    if (m.dtype() != DType::kFloat32 || m.rank() != 2 ||
        m.dim_size(0) != images.dim_size(0) || m.dim_size(1) != rep->size(i)) {
      return InvalidArgumentError(
          "Mlp: dropout mask " + std::to_string(i) + " must be float32 [" +
          std::to_string(images.dim_size(0)) + ", " +
          std::to_string(rep->size(i)) + "], got " + m.DebugString(0));
    }
  }
  rep->window = {};
  rep->Forward(images, /*train=*/true, &masks, nullptr);
  return rep->Backward(labels);
}

}  // namespace internal

Result<float> Mlp::Loss(const Tensor& images, const Tensor& labels) {
  INFLOW_RETURN_IF_ERROR(rep_->CheckInputs(images, &labels));
  rep_->Forward(images, /*train=*/false, nullptr, nullptr);
  const int64_t batch = images.dim_size(0);
  const double total = internal::SoftmaxCrossEntropy(
      rep_->z[rep_->layers].data(), labels.data<int64_t>(), batch,
      rep_->size(rep_->layers), 1.0f, nullptr);
  return static_cast<float>(total / static_cast<double>(batch));
}

Result<Tensor> Mlp::Predict(const Tensor& images) {
  INFLOW_RETURN_IF_ERROR(rep_->CheckInputs(images, nullptr));
  rep_->Forward(images, /*train=*/false, nullptr, nullptr);
  const int64_t batch = images.dim_size(0);
  const int64_t classes = rep_->size(rep_->layers);
  Tensor out =
      Tensor::Uninitialized(DType::kFloat32, TensorShape({batch, classes}));
  internal::Softmax(rep_->z[rep_->layers].data(), batch, classes,
                    Rep::Mutable(out));
  return out;
}

Result<double> Mlp::Accuracy(const Tensor& images, const Tensor& labels) {
  INFLOW_RETURN_IF_ERROR(rep_->CheckInputs(images, &labels));
  rep_->Forward(images, /*train=*/false, nullptr, nullptr);
  const int64_t batch = images.dim_size(0);
  const int64_t classes = rep_->size(rep_->layers);
  const float* logits = rep_->z[rep_->layers].data();
  const int64_t* l = labels.data<int64_t>();
  int64_t correct = 0;
  for (int64_t r = 0; r < batch; ++r) {
    const float* row = logits + r * classes;
    correct += std::max_element(row, row + classes) - row == l[r];
  }
  return static_cast<double>(correct) / static_cast<double>(batch);
}

}  // namespace inflow
