// Copyright 2026 The inflow Authors.
//
// Which uint8 -> float kernel runs (convert_kernels.h), and the portable
// one.

#include "core/convert_kernels.h"

#include <iterator>

#include "core/kernel_select.h"

namespace inflow::internal {
namespace {

KernelInfo Info(ConvertKernel kernel) {
  switch (kernel) {
    case ConvertKernel::kAvx512:
      return {"avx512", IsaLevel::kAvx512, CpuHasAvx512F()};
    case ConvertKernel::kAvx2:
      return {"avx2", IsaLevel::kAvx2, CpuHasAvx2()};
    case ConvertKernel::kPortable:
      break;
  }
  return {"portable", IsaLevel::kPortable, true};
}

}  // namespace

std::string_view ConvertKernelName(ConvertKernel kernel) {
  return Info(kernel).name;
}

bool ConvertKernelSupported(ConvertKernel kernel) {
  return Info(kernel).supported;
}

ConvertKernel ChooseConvertKernel() {
  return SelectKernelOf("INFLOW_CONVERT_KERNEL", kAllConvertKernels, Info);
}

ConvertKernel SelectedConvertKernel() {
  static const ConvertKernel kernel = ChooseConvertKernel();
  return kernel;
}

void Uint8ToFloatScaledWith(ConvertKernel kernel, const uint8_t* in, size_t n,
                            float scale, float* out) {
  switch (kernel) {
    case ConvertKernel::kAvx512:
      return Uint8ToFloatAvx512(in, n, scale, out);
    case ConvertKernel::kAvx2:
      return Uint8ToFloatAvx2(in, n, scale, out);
    case ConvertKernel::kPortable:
      break;
  }
  Uint8ToFloatPortable(in, n, scale, out);
}

void Uint8ToFloatScaled(const uint8_t* in, size_t n, float scale, float* out) {
  static const ConvertKernel kernel = SelectedConvertKernel();
  Uint8ToFloatScaledWith(kernel, in, n, scale, out);
}

// Kept scalar, so that the portable kernel is the reference the others are
// tested against (and what INFLOW_KERNELS=portable means).
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void Uint8ToFloatPortable(const uint8_t* in, size_t n, float scale,
                          float* out) {
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]) * scale;
}

}  // namespace inflow::internal
