// Copyright 2026 The inflow Authors.
//
// Internal: the kernels that turn uint8 values into float32 scaled by a
// constant (out[i] = float(in[i]) * scale, one IEEE single-precision
// multiplication, so every kernel gives the same bits), which one runs,
// and entry points that run a given one (for tests and benchmarks). Behind
// DecodeRawToFloat (example/decode_raw.h).

#ifndef INFLOW_CORE_CONVERT_KERNELS_H_
#define INFLOW_CORE_CONVERT_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace inflow::internal {

// Best first. The names (ConvertKernelName) are what INFLOW_CONVERT_KERNEL
// takes.
enum class ConvertKernel {
  kAvx512,    // "avx512": AVX-512F, 64 values a step
  kAvx2,      // "avx2": 32 values a step
  kPortable,  // "portable": a plain loop
};
inline constexpr ConvertKernel kAllConvertKernels[] = {
    ConvertKernel::kAvx512, ConvertKernel::kAvx2, ConvertKernel::kPortable};

std::string_view ConvertKernelName(ConvertKernel kernel);
// Whether this CPU (and OS) run `kernel`.
bool ConvertKernelSupported(ConvertKernel kernel);
// The kernel Uint8ToFloatScaled runs: chosen on first use from the CPU and
// the environment (INFLOW_CONVERT_KERNEL, INFLOW_KERNELS;
// core/kernel_select.h).
ConvertKernel SelectedConvertKernel();
// What SelectedConvertKernel() chooses, worked out again from the
// environment now.
ConvertKernel ChooseConvertKernel();

// out[i] = float(in[i]) * scale for i < n, with the selected kernel.
// `out` and `in` must not overlap.
void Uint8ToFloatScaled(const uint8_t* in, size_t n, float scale, float* out);
// The same with `kernel`. Precondition: ConvertKernelSupported(kernel).
void Uint8ToFloatScaledWith(ConvertKernel kernel, const uint8_t* in, size_t n,
                            float scale, float* out);

// The kernels (convert_kernels_x86.cc; chosen only where the CPU has
// them: CpuHasAvx512F, CpuHasAvx2).
void Uint8ToFloatAvx512(const uint8_t* in, size_t n, float scale, float* out);
void Uint8ToFloatAvx2(const uint8_t* in, size_t n, float scale, float* out);
void Uint8ToFloatPortable(const uint8_t* in, size_t n, float scale, float* out);

}  // namespace inflow::internal

#endif  // INFLOW_CORE_CONVERT_KERNELS_H_
