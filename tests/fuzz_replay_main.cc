// Copyright 2026 The inflow Authors.
//
// Replays a libFuzzer corpus without libFuzzer: every file under the
// directories (or files) named on the command line goes once through
// LLVMFuzzerTestOneInput. A crash or sanitizer report fails the test.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int RunOne(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  // A copy in its own allocation, so ASan catches reads past the end.
  std::vector<uint8_t> data(bytes.begin(), bytes.end());
  return LLVMFuzzerTestOneInput(data.data(), data.size());
}

}  // namespace

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path root(argv[i]);
    if (std::filesystem::is_directory(root)) {
      for (const auto& entry :
           std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file()) continue;
        RunOne(entry.path());
        ++files;
      }
    } else {
      RunOne(root);
      ++files;
    }
  }
  if (files == 0) {
    std::fprintf(stderr, "fuzz replay: no corpus files found\n");
    return 1;
  }
  std::printf("fuzz replay: %d inputs ran clean\n", files);
  return 0;
}
