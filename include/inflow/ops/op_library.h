// Copyright 2026 The inflow Authors.
//
// Op libraries (TF's *_ops.cc + *_kernels.cc in a shared library, and
// tf.load_op_library). A library declares its ops and kernels in one
// function:
//
//   INFLOW_OP_LIBRARY(library) {
//     library.AddOp(OpDef("ZeroOut").Input(...).Output(...).Attr(...));
//     library.AddKernel(MakeKernelDef<ZeroOutKernel>("ZeroOut",
//                                                    {DType::kInt32}));
//   }
//
// is built as a shared library (CMake: find_package(inflow) and
// inflow_add_op_library; a plain compiler line: the flags of Python's
// inflow.sysconfig), and loaded at run time:
//
//   Result<OpLibraryInfo> lib = LoadOpLibrary("/path/libzero_out.so");
//   auto op = Op::Create("ZeroOut", {{"preserve_index", 1}});  // ops/op.h
//
// The library records the kAbiVersion (inflow/version.h) it was built
// with; LoadOpLibrary checks it before calling anything else in it.
// Registration is all or nothing: a library with any error registers no
// op, and the error names every problem found.

#ifndef INFLOW_OPS_OP_LIBRARY_H_
#define INFLOW_OPS_OP_LIBRARY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/ops/op_def.h"
#include "inflow/ops/op_kernel.h"
#include "inflow/version.h"

namespace inflow::ops {

// Collects a library's ops and kernels. Implemented by inflow; the
// registration function gets one. Problems are reported after the function
// returns, all at once.
class OpLibraryBuilder {
 public:
  virtual ~OpLibraryBuilder() = default;
  virtual void AddOp(OpDef op) = 0;
  virtual void AddKernel(KernelDef kernel) = 0;
};

// A library once registered: where it came from and its ops' names, in
// the order it declared them.
struct OpLibraryInfo {
  std::string path;
  std::vector<std::string> op_names;
};

// Loads the op library at `path` (dlopen) and registers its ops. Loading
// the same file again returns the first load's info.
// Errors, each naming `path`:
//   NOT_FOUND: no such file, or a library it needs is missing (named);
//   INVALID_ARGUMENT: a symbol it needs is missing (named), it is no op
//     library (no inflow_op_library_info), or it was built against another
//     inflow ABI version or C++ standard library (both named);
//   ALREADY_EXISTS: an op of that name is registered (by this process or
//     another library); the name is given;
//   INVALID_ARGUMENT: a malformed op declaration, a kernel for an op the
//     library does not declare, an op without a kernel, or a kernel whose
//     output dtypes are not its op's (the op and both lists named).
// Thread-safe.
Result<OpLibraryInfo> LoadOpLibrary(const std::string& path);

// Registers ops linked into this program (no shared library), with the
// same checks and all-or-nothing rule as LoadOpLibrary; `source` names
// them in errors and in the op's info. Thread-safe.
Result<OpLibraryInfo> RegisterOps(
    std::string_view source,
    const std::function<void(OpLibraryBuilder&)>& register_ops);

}  // namespace inflow::ops

// The C++ standard library (and its ABI) of a build: a library and the
// process that loads it share std::string, std::vector and std::function
// objects, so they must agree.
#if defined(_LIBCPP_VERSION)
#define INFLOW_OPS_CXX_LIBRARY_ "libc++"
#elif defined(__GLIBCXX__) && _GLIBCXX_USE_CXX11_ABI
#define INFLOW_OPS_CXX_LIBRARY_ "libstdc++ (C++11 ABI)"
#elif defined(__GLIBCXX__)
#define INFLOW_OPS_CXX_LIBRARY_ "libstdc++ (pre-C++11 ABI)"
#else
#define INFLOW_OPS_CXX_LIBRARY_ "an unknown C++ library"
#endif

// What LoadOpLibrary reads first, through the one symbol every op library
// exports. Its first two fields keep their place in every inflow version,
// so that any inflow can read the versions of any library.
extern "C" {
struct InflowOpLibraryInfo {
  int32_t abi_version;         // inflow::kAbiVersion of the build
  const char* inflow_version;  // inflow::kVersion of the build
  void (*register_ops)(inflow::ops::OpLibraryBuilder* builder);
  const char* cxx_library;  // INFLOW_OPS_CXX_LIBRARY_ of the build
};
}

// Defines the library's registration function, whose body follows the
// macro, and exports inflow_op_library_info(). Once per library.
#define INFLOW_OP_LIBRARY(builder)                                             \
  static void InflowRegisterOps_(::inflow::ops::OpLibraryBuilder& builder);    \
  static void InflowRegisterOpsEntry_(::inflow::ops::OpLibraryBuilder* b) {    \
    InflowRegisterOps_(*b);                                                    \
  }                                                                            \
  extern "C" __attribute__((visibility("default"))) const InflowOpLibraryInfo* \
  inflow_op_library_info() {                                                   \
    static const InflowOpLibraryInfo info = {                                  \
        ::inflow::kAbiVersion, ::inflow::kVersion, InflowRegisterOpsEntry_,    \
        INFLOW_OPS_CXX_LIBRARY_};                                              \
    return &info;                                                              \
  }                                                                            \
  static void InflowRegisterOps_(::inflow::ops::OpLibraryBuilder& builder)

#endif  // INFLOW_OPS_OP_LIBRARY_H_
