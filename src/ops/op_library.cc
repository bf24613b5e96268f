// Copyright 2026 The inflow Authors.
//
// LoadOpLibrary: dlopen, the ABI check, the registration.

#include "inflow/ops/op_library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "inflow/core/mutex.h"
#include "inflow/core/status.h"
#include "inflow/version.h"

#include "ops/registry.h"

namespace inflow::ops {

namespace {

constexpr char kInfoSymbol[] = "inflow_op_library_info";

struct Loaded {
  Mutex mu;
  // The libraries registered, by dlopen handle (a file loaded twice, under
  // any name, has one handle). Their handles are never closed: the ops'
  // kernels and shape functions are their code.
  std::map<void*, OpLibraryInfo> by_handle INFLOW_GUARDED_BY(mu);
};

Loaded& LoadedLibraries() {
  static Loaded* loaded = new Loaded();  // never destroyed, as the handles
  return *loaded;
}

std::string DlError() {
  const char* e = dlerror();
  return e == nullptr ? std::string("unknown error") : std::string(e);
}

}  // namespace

Result<OpLibraryInfo> LoadOpLibrary(const std::string& path) {
  const std::string where = "op library " + path;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return NotFoundError(where + ": no such file");
  }
  Loaded& loaded = LoadedLibraries();
  // One load at a time: a library's registration and its record go
  // together.
  MutexLock lock(&loaded.mu);
  // RTLD_LOCAL: a library's own copy of inflow's code (inflow_add_op_library
  // links it with its symbols hidden) never interposes on this process's.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    // dlerror names the missing dependency ("libfoo.so: cannot open shared
    // object file") or symbol ("undefined symbol: ...").
    const std::string e = DlError();
    if (e.find("cannot open shared object file") != std::string::npos) {
      return NotFoundError(where + ": " + e);
    }
    return InvalidArgumentError(where + ": " + e);
  }
  if (auto it = loaded.by_handle.find(handle); it != loaded.by_handle.end()) {
    dlclose(handle);  // the extra reference this dlopen took
    return it->second;
  }
  dlerror();
  using InfoFn = const InflowOpLibraryInfo* (*)();
  auto info_fn = reinterpret_cast<InfoFn>(dlsym(handle, kInfoSymbol));
  if (info_fn == nullptr) {
    const std::string e = DlError();
    dlclose(handle);
    return InvalidArgumentError(
        where + ": not an inflow op library (no symbol " + kInfoSymbol +
        ", defined by INFLOW_OP_LIBRARY): " + e);
  }
  const InflowOpLibraryInfo* info = info_fn();
  if (info == nullptr || info->abi_version != kAbiVersion) {
    const std::string theirs =
        info == nullptr ? std::string("an unknown version")
                        : "inflow ABI version " +
                              std::to_string(info->abi_version) + " (inflow " +
                              (info->inflow_version == nullptr
                                   ? std::string("?")
                                   : std::string(info->inflow_version)) +
                              ")";
    dlclose(handle);
    return InvalidArgumentError(where + ": built against " + theirs +
                                ", but this is inflow ABI version " +
                                std::to_string(kAbiVersion) + " (inflow " +
                                kVersion + "): rebuild it against this inflow");
  }
  if (info->cxx_library == nullptr ||
      std::strcmp(info->cxx_library, INFLOW_OPS_CXX_LIBRARY_) != 0) {
    const std::string theirs = info->cxx_library == nullptr
                                   ? std::string("an unknown C++ library")
                                   : std::string(info->cxx_library);
    dlclose(handle);
    return InvalidArgumentError(
        where + ": built with the C++ standard library " + theirs +
        ", but this inflow uses " + INFLOW_OPS_CXX_LIBRARY_ +
        ": rebuild it with the compiler and library inflow was built with");
  }
  if (info->register_ops == nullptr) {
    dlclose(handle);
    return InvalidArgumentError(where + ": no registration function");
  }
  Result<OpLibraryInfo> registered = [&]() -> Result<OpLibraryInfo> {
    internal::CollectingBuilder builder;
    INFLOW_RETURN_IF_ERROR(internal::RunRegistration(
        where, [&] { info->register_ops(&builder); }));
    // `builder` (the library's std::functions) is gone before a dlclose.
    return internal::Registry::Global().Add(path, std::move(builder));
  }();
  if (!registered.ok()) {
    dlclose(handle);
    return registered.status();
  }
  loaded.by_handle.emplace(handle, *registered);
  return registered;
}

}  // namespace inflow::ops
