// Copyright 2026 The inflow Authors.
//
// The Fashion-MNIST MLP with a Saver and resume, in a page: 784-625-625-10
// (ReLU, dropout), RMSProp, batch 128, the first N training images
// preloaded; a checkpoint every epoch holding the weights, the slots and
// global_step; a second run continues at the saved global_step.
//
//   build/release/bin/example_mlp_saver_resume CKPT_DIR [steps] [examples]
// Run it twice with more steps the second time: it resumes.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/datafiles/idx.h"
#include "inflow/input/batch_source.h"
#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"

using namespace inflow;  // a small program

const std::string kData = "/usr/share/datasets/fashion-mnist/";

// uint8 [N, 28, 28] -> float32 [n, 784] in [0, 1].
Result<Tensor> Pixels(const Tensor& images, int64_t n) {
  Tensor x(DType::kFloat32, TensorShape({n, 784}));
  const uint8_t* in = images.data<uint8_t>();
  float* out = x.mutable_flat<float>().value().data();
  for (int64_t i = 0; i < n * 784; ++i) out[i] = in[i] * (1.0f / 255);
  return x;
}

Status Run(const std::string& dir, int64_t steps, int64_t n) {
  INFLOW_ASSIGN_OR_RETURN(
      Tensor images,
      ReadIdxFile(Env::Default(), kData + "train-images-idx3-ubyte.gz"));
  INFLOW_ASSIGN_OR_RETURN(
      Tensor labels,
      ReadIdxFile(Env::Default(), kData + "train-labels-idx1-ubyte.gz"));
  INFLOW_ASSIGN_OR_RETURN(Tensor x, Pixels(images, n));
  Tensor y(DType::kInt64, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    y.mutable_flat<int64_t>().value()[i] = labels.data<uint8_t>()[i];
  }

  INFLOW_ASSIGN_OR_RETURN(auto model, Mlp::Create({.seed = 1}));
  INFLOW_ASSIGN_OR_RETURN(
      auto rmsprop,
      Optimizer::Create({.kind = OptimizerKind::kRmsProp, .learning_rate = {}},
                        model->variables()));
  Saver saver({.max_to_keep = 5});
  for (auto [name, tensor] : model->variables()) {
    INFLOW_RETURN_IF_ERROR(saver.Register(name, tensor));
  }
  for (auto [name, tensor] : rmsprop->variables()) {
    INFLOW_RETURN_IF_ERROR(saver.Register(name, tensor));
  }
  INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                          LatestCheckpoint(dir));
  if (latest) {
    INFLOW_RETURN_IF_ERROR(saver.Restore(*latest));
    std::printf("resumed from %s at step %lld\n", latest->c_str(),
                static_cast<long long>(rmsprop->step()));
  }

  const int64_t per_epoch = n / 128;
  INFLOW_ASSIGN_OR_RETURN(
      auto batches,
      Preloaded::Create({x, y}, {.batching = {.batch_size = 128,
                                              .shuffle = true,
                                              .min_after_dequeue = 1000}}));
  while (rmsprop->step() < steps) {
    INFLOW_ASSIGN_OR_RETURN(Tuple batch, batches->Next());
    INFLOW_ASSIGN_OR_RETURN(
        float loss,
        model->ComputeGradients(batch[0], batch[1], rmsprop->step()));
    INFLOW_RETURN_IF_ERROR(rmsprop->Apply(model->gradients()));
    const int64_t step = rmsprop->step();
    if (step % per_epoch == 0 || step == steps) {
      INFLOW_ASSIGN_OR_RETURN(std::string prefix,
                              saver.Save(dir + "/model.ckpt", step));
      std::printf("step %lld loss %.4f saved %s\n",
                  static_cast<long long>(step), loss, prefix.c_str());
    }
  }
  INFLOW_ASSIGN_OR_RETURN(double accuracy, model->Accuracy(x, y));
  std::printf("step %lld: training accuracy %.4f\n",
              static_cast<long long>(rmsprop->step()), accuracy);
  return batches->Close();
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CKPT_DIR [steps] [examples]\n", argv[0]);
    return 2;
  }
  const int64_t steps = argc > 2 ? std::atoll(argv[2]) : 1000;
  const int64_t n = argc > 3 ? std::atoll(argv[3]) : 60000;
  Status s = Run(argv[1], steps, n);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
