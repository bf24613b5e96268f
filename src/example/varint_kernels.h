// Copyright 2026 The inflow Authors.
//
// Internal: the kernels behind DecodePackedVarints and
// DecodePackedVarintsChecked (example/packed_varints.h), which one runs, and
// entry points that run a given one (for tests and benchmarks).

#ifndef INFLOW_EXAMPLE_VARINT_KERNELS_H_
#define INFLOW_EXAMPLE_VARINT_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace inflow::internal {

// Best first. The names (VarintKernelName) are what INFLOW_VARINT_KERNEL
// takes.
enum class VarintKernel {
  // "avx512vbmi2": groups of eight short varints by byte compression and
  // permutation (AVX-512 VBMI/VBMI2), the rest as kBmi2.
  kAvx512Vbmi2,
  // "bmi2": one varint at a time from a 64-byte bitmap of its ends, its
  // 7-bit groups joined by pext.
  kBmi2,
  // "portable": the same, joining with shifts and masks.
  kPortable,
};
inline constexpr VarintKernel kAllVarintKernels[] = {
    VarintKernel::kAvx512Vbmi2, VarintKernel::kBmi2, VarintKernel::kPortable};

std::string_view VarintKernelName(VarintKernel kernel);
// Whether this CPU (and OS) run `kernel`.
bool VarintKernelSupported(VarintKernel kernel);
// The kernel the decoders run: chosen on first use from the CPU and the
// environment (INFLOW_VARINT_KERNEL, INFLOW_KERNELS; core/kernel_select.h).
VarintKernel SelectedVarintKernel();
// What SelectedVarintKernel() chooses, worked out again from the
// environment now.
VarintKernel ChooseVarintKernel();

// DecodePackedVarints and DecodePackedVarintsChecked with `kernel`.
// Precondition: VarintKernelSupported(kernel).
int64_t DecodePackedVarintsWith(VarintKernel kernel, std::string_view payload,
                                int64_t* out);
int64_t DecodePackedVarintsCheckedWith(VarintKernel kernel,
                                       std::string_view payload, int64_t* out,
                                       int64_t capacity, size_t slack);

// The one-at-a-time decoders (packed_varints.cc): varints found from a
// 64-byte bitmap of their ends, joined by shifts and masks or by BMI2's
// pext; the checked ones validate as CountPackedVarints does.
bool Bmi2Supported();
int64_t DecodeVarintsPortable(std::string_view payload, int64_t* out);
int64_t DecodeVarintsBmi2(std::string_view payload, int64_t* out);
int64_t DecodeVarintsCheckedPortable(std::string_view payload, int64_t* out,
                                     int64_t capacity, size_t slack);
int64_t DecodeVarintsCheckedBmi2(std::string_view payload, int64_t* out,
                                 int64_t capacity, size_t slack);

// The group decoder (packed_varints_avx512.cc): decodes whole groups of varints
// of at most 8 bytes each from the front of the n bytes at p while every byte
// touched lies before p + loadable and the group ends inside the payload.
// Returns the number of bytes consumed (a varint boundary); *count gets the
// values written (at most capacity). Nothing there can be malformed; the rest
// goes to a checked decoder.
bool Avx512Vbmi2Supported();
size_t DecodeGroupsAvx512(const uint8_t* p, size_t n, size_t loadable,
                          int64_t* out, int64_t capacity, int64_t* count);

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_VARINT_KERNELS_H_
