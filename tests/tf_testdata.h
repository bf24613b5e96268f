// Copyright 2026 The inflow Authors.
//
// The files TensorFlow wrote for the tests (tests/testdata/tf, written by
// scripts/make-tf-testdata) and their facts (expected.json there). A test
// reads them through these helpers and ASSERTs on the result, so a missing,
// unreadable or empty file is a failure that names the file, never an index
// into an empty buffer. Sources that include this header are listed with
// inflow_tf_testdata_sources() in their CMakeLists.txt, which defines
// INFLOW_TF_TESTDATA_DIR.

#ifndef INFLOW_TESTS_TF_TESTDATA_H_
#define INFLOW_TESTS_TF_TESTDATA_H_

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include <gtest/gtest.h>

#ifndef INFLOW_TF_TESTDATA_DIR
#error \
    "INFLOW_TF_TESTDATA_DIR is not defined: list this source with inflow_tf_testdata_sources()"
#endif

namespace inflow::testing {

// tests/testdata/tf in the source tree.
inline std::filesystem::path TfTestDataDir() { return INFLOW_TF_TESTDATA_DIR; }

// Reads the whole file at `path` (relative paths are under TfTestDataDir())
// into *out. Fails, naming the file, when it is missing, unreadable or
// empty.
inline ::testing::AssertionResult ReadTfTestFile(std::filesystem::path path,
                                                 std::string* out) {
  if (path.is_relative()) path = TfTestDataDir() / path;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ::testing::AssertionFailure()
           << "cannot open " << path
           << " (the TensorFlow-written test data; rerun "
              "`.venv/bin/python scripts/make-tf-testdata`)";
  }
  out->assign(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) {
    return ::testing::AssertionFailure() << "cannot read " << path;
  }
  if (out->empty()) {
    return ::testing::AssertionFailure() << path << " is empty";
  }
  return ::testing::AssertionSuccess();
}

// Parses TfTestDataDir()/expected.json into *out. Fails, naming the file,
// when it is missing, empty or not JSON, or has no "files" object.
inline ::testing::AssertionResult ReadTfExpected(nlohmann::json* out) {
  const std::filesystem::path path = TfTestDataDir() / "expected.json";
  std::string text;
  ::testing::AssertionResult read = ReadTfTestFile(path, &text);
  if (!read) return read;
  *out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) {
    return ::testing::AssertionFailure() << path << " is not valid JSON";
  }
  if (!out->contains("files") || !(*out)["files"].is_object()) {
    return ::testing::AssertionFailure() << path << " has no \"files\" object";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_TF_TESTDATA_H_
