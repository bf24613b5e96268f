// Copyright 2026 The inflow Authors.
//
// Which packed varint kernel runs (varint_kernels.h), and
// DecodePackedVarints / DecodePackedVarintsChecked (example/packed_varints.h)
// on it.

#include "example/varint_kernels.h"

#include <iterator>
#include <string_view>

#include "core/kernel_select.h"
#include "example/packed_varints.h"

namespace inflow::internal {
namespace {

// A group decoder pays from two 64-byte blocks of loadable bytes on.
constexpr size_t kGroupMinBytes = 128;

using GroupDecoder = size_t (*)(const uint8_t*, size_t, size_t, int64_t*,
                                int64_t, int64_t*);

// Whole groups of short varints first (nothing there can be malformed),
// then the rest, which starts at a varint's first byte, with BMI2.
int64_t DecodeCheckedInGroups(GroupDecoder groups, std::string_view payload,
                              int64_t* out, int64_t capacity, size_t slack) {
  int64_t done;
  const size_t used =
      groups(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(),
             payload.size() + slack, out, capacity, &done);
  const int64_t rest = DecodeVarintsCheckedBmi2(
      payload.substr(used), out + done, capacity - done, slack);
  return rest < 0 ? -1 : done + rest;
}

KernelInfo Info(VarintKernel kernel) {
  switch (kernel) {
    case VarintKernel::kAvx512Vbmi2:
      return {"avx512vbmi2", IsaLevel::kAvx512, Avx512Vbmi2Supported()};
    case VarintKernel::kBmi2:
      return {"bmi2", IsaLevel::kAvx2, Bmi2Supported()};
    case VarintKernel::kPortable:
      break;
  }
  return {"portable", IsaLevel::kPortable, true};
}

}  // namespace

std::string_view VarintKernelName(VarintKernel kernel) {
  return Info(kernel).name;
}

bool VarintKernelSupported(VarintKernel kernel) {
  return Info(kernel).supported;
}

VarintKernel ChooseVarintKernel() {
  return SelectKernelOf("INFLOW_VARINT_KERNEL", kAllVarintKernels, Info);
}

VarintKernel SelectedVarintKernel() {
  static const VarintKernel kernel = ChooseVarintKernel();
  return kernel;
}

int64_t DecodePackedVarintsWith(VarintKernel kernel, std::string_view payload,
                                int64_t* out) {
  // The group decoders need slack after the payload, which the callers of
  // the unchecked decoder do not promise; BMI2 serves both.
  if (kernel == VarintKernel::kPortable) {
    return DecodeVarintsPortable(payload, out);
  }
  return DecodeVarintsBmi2(payload, out);
}

int64_t DecodePackedVarintsCheckedWith(VarintKernel kernel,
                                       std::string_view payload, int64_t* out,
                                       int64_t capacity, size_t slack) {
  const bool groups = payload.size() + slack >= kGroupMinBytes;
  switch (kernel) {
    case VarintKernel::kAvx512Vbmi2:
      if (groups) {
        return DecodeCheckedInGroups(DecodeGroupsAvx512, payload, out, capacity,
                                     slack);
      }
      return DecodeVarintsCheckedBmi2(payload, out, capacity, slack);
    case VarintKernel::kBmi2:
      return DecodeVarintsCheckedBmi2(payload, out, capacity, slack);
    case VarintKernel::kPortable:
      break;
  }
  return DecodeVarintsCheckedPortable(payload, out, capacity, slack);
}

int64_t DecodePackedVarints(std::string_view payload, int64_t* out) {
  static const VarintKernel kernel = SelectedVarintKernel();
  return DecodePackedVarintsWith(kernel, payload, out);
}

int64_t DecodePackedVarintsChecked(std::string_view payload, int64_t* out,
                                   int64_t capacity, size_t slack) {
  static const VarintKernel kernel = SelectedVarintKernel();
  return DecodePackedVarintsCheckedWith(kernel, payload, out, capacity, slack);
}

}  // namespace inflow::internal
