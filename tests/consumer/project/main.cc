// A program outside the inflow tree, built against an installed inflow.
#include <cstdio>

#include "inflow/core/tensor.h"
#include "inflow/version.h"

int main() {
  inflow::Tensor a = inflow::Tensor::FromVector<float>({1, 2});
  inflow::Tensor b = inflow::Tensor::FromVector<float>({3, 4});
  std::vector<inflow::Tensor> rows = {a, b};
  inflow::Result<inflow::Tensor> batch = inflow::Tensor::Stack(rows);
  if (!batch.ok() || batch->shape() != inflow::TensorShape({2, 2})) {
    std::fprintf(stderr, "stack failed: %s\n",
                 batch.status().ToString().c_str());
    return 1;
  }
  std::printf("consumer: inflow %s, %s\n", inflow::kVersion,
              batch->DebugString().c_str());
  return 0;
}
