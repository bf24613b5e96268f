// Copyright 2026 The inflow Authors.

#include "io/mirrored_buffer.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace inflow::internal {

#if defined(__linux__)

std::unique_ptr<MirroredBuffer> MirroredBuffer::Create(size_t size) {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || size == 0) return nullptr;
  const size_t page = static_cast<size_t>(page_size);
  size = (size + page - 1) / page * page;
  const int fd = ::memfd_create("inflow-stream-buffer", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    ::close(fd);
    return nullptr;
  }
  // Reserve 2 * size of address space, then map the file over each half.
  void* base = ::mmap(nullptr, 2 * size, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  char* const data = static_cast<char*>(base);
  const bool mapped = ::mmap(data, size, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED &&
                      ::mmap(data + size, size, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
  ::close(fd);  // the mappings keep the memory
  if (!mapped) {
    ::munmap(base, 2 * size);
    return nullptr;
  }
  return std::unique_ptr<MirroredBuffer>(new MirroredBuffer(data, size));
}

MirroredBuffer::~MirroredBuffer() { ::munmap(data_, 2 * size_); }

#else

std::unique_ptr<MirroredBuffer> MirroredBuffer::Create(size_t) {
  return nullptr;
}

MirroredBuffer::~MirroredBuffer() = default;

#endif

}  // namespace inflow::internal
