// Copyright 2026 The inflow Authors.
//
// Mlp: the model `inflow train` trains, a multilayer perceptron with ReLU
// hidden layers, TF1-style dropout and softmax cross-entropy, in float32:
//
//   x  = dropout(images, input_keep_prob)          [batch, 784]
//   h1 = dropout(relu(x  * layer1/weights + layer1/biases), hidden_keep_prob)
//   h2 = dropout(relu(h1 * layer2/weights + layer2/biases), hidden_keep_prob)
//   logits = h2 * layer3/weights + layer3/biases   [batch, 10]
//   loss = mean over the batch of softmax cross-entropy(logits, labels)
//
// with the default layer sizes 784-625-625-10. dropout(v, keep) is
// tf.nn.dropout's: each element kept with probability `keep` and then
// multiplied by float(1 / keep), else 0; evaluation (Loss, Predict,
// Accuracy) has no dropout. Weights start as N(0, init_stddev) draws,
// biases as zeros, all from `seed`: two models with the same options are
// equal, and so are their steps.
//
// The parameters are Tensors named as TF1 names them
// ("layer1/weights" [784, 625], "layer1/biases" [625], ...); variables()
// lists them for a Saver (which restores into them in place) and for an
// Optimizer. The math runs in place on those tensors' buffers, with the
// best kernel the CPU has (INFLOW_TRAIN_KERNEL, docs/PERFORMANCE.md
// "Training"); every kernel gives the same bits. It runs on
// options.math_threads threads: the calling thread and math_threads - 1
// workers the model starts when it is made ("inflow-math-1", ... in the
// thread registry) and joins when it is destroyed. Each product's output
// columns (or rows, for a narrow product) are split among them, never
// the sums: every element is formed by the same instructions in the same
// order whatever the count, so the results are the same bits with any
// number of threads.
//
// Thread-compatible: one thread at a time calls a model's methods.

#ifndef INFLOW_MODEL_MLP_H_
#define INFLOW_MODEL_MLP_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

namespace inflow {

namespace internal {
class MlpPeer;
}  // namespace internal

// {784, 625, 625, 10}.
std::vector<int64_t> DefaultMlpLayerSizes();

struct MlpOptions {
  // Input width, hidden widths..., classes. At least two entries.
  std::vector<int64_t> layer_sizes = DefaultMlpLayerSizes();
  // Dropout on the input and on every hidden layer's output (0 < p <= 1;
  // 1 turns it off).
  float input_keep_prob = 0.8f;
  float hidden_keep_prob = 0.5f;
  float init_stddev = 0.01f;
  // Draws the initial weights, and with a step number each step's
  // dropout masks.
  uint64_t seed = 0;
  // Threads the math runs on, the caller's included: 1 to 64.
  int math_threads = 1;
  // Floats after the gradients in flat_gradients() that the model never
  // writes: a data-parallel run keeps values there (the loss, flags) that
  // are summed across ranks in the gradients' one allreduce.
  int64_t spare_gradient_floats = 0;
};

// The rows of a data-parallel step's global batch that one rank computes:
// rows [first_row, first_row + batch) of a batch of global_batch rows. The
// rank's dropout masks are those rows of the masks a single model would
// draw for the whole global batch at that step, and its gradients are
// these rows' share of the global batch's mean gradient (their sum over
// global_batch): the sum of the ranks' gradients is the single model's
// (up to the order of the sums), with no division after the allreduce.
// global_batch 0: the batch is the whole of it.
struct BatchRows {
  int64_t first_row = 0;
  int64_t global_batch = 0;
};

class Mlp {
 public:
  // INVALID_ARGUMENT for fewer than two layer sizes, a size below 1, a
  // keep probability outside (0, 1], a negative stddev or math_threads
  // outside [1, 64].
  static Result<std::unique_ptr<Mlp>> Create(const MlpOptions& options);
  ~Mlp();
  Mlp(const Mlp&) = delete;
  Mlp& operator=(const Mlp&) = delete;

  const MlpOptions& options() const;
  int num_layers() const;  // layer_sizes.size() - 1

  // The parameters by name, weights and biases layer by layer. The
  // pointers stay valid for the life of the model.
  std::vector<std::pair<std::string, Tensor*>> variables();
  // The gradients of the last ComputeGradients, in variables()' order and
  // shapes.
  const std::vector<Tensor>& gradients() const;
  // Every gradient in one buffer, which gradients() are views of: each at
  // a 64-byte aligned offset, in variables()' order, the gaps between them
  // zero, then options().spare_gradient_floats floats the model leaves
  // alone. For one allreduce over all of them per step.
  std::span<float> flat_gradients();
  // Moves flat_gradients() (and gradients(), views of it) into `buffer`
  // from `byte_offset` (64-byte aligned, room for flat_gradients().size()
  // floats), their values copied: a data-parallel rank's gradients written
  // straight into memory the ranks of its host share
  // (distributed::SlicedStep). INVALID_ARGUMENT when they do not fit or
  // the offset is misaligned; nothing moves then.
  [[nodiscard]] Status MoveGradients(std::shared_ptr<TensorBuffer> buffer,
                                     size_t byte_offset);

  // One training step's forward and backward pass: `images` float32
  // [batch, layer_sizes[0]], `labels` int64 [batch] in [0, classes).
  // Fills gradients() and returns the mean loss. Dropout masks are drawn
  // from (options().seed, step): the same step number gives the same
  // masks, so a run resumed at a global step draws what an uninterrupted
  // one would. INVALID_ARGUMENT, naming the input, for a wrong dtype or
  // shape, an empty batch or a label out of range.
  // With `rows`, `images` are those rows of a larger global batch (see
  // BatchRows: the gradients are their share of its mean; the loss is
  // still the mean over `images`); INVALID_ARGUMENT when they do not fit
  // in it.
  Result<float> ComputeGradients(const Tensor& images, const Tensor& labels,
                                 int64_t step, BatchRows rows = {});
  // Evaluation (no dropout): the mean loss; softmax probabilities float32
  // [batch, classes]; the fraction of rows whose largest logit is the
  // label's (the first largest on a tie).
  Result<float> Loss(const Tensor& images, const Tensor& labels);
  Result<Tensor> Predict(const Tensor& images);
  Result<double> Accuracy(const Tensor& images, const Tensor& labels);

  // The kernel the math runs ("avx512", "avx2" or "portable"), chosen
  // when the model was created.
  std::string_view kernel() const;

 private:
  friend class internal::MlpPeer;
  struct Rep;
  explicit Mlp(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace inflow

#endif  // INFLOW_MODEL_MLP_H_
