// Copyright 2026 The inflow Authors.
//
// run_add_one LIBRARY: loads the op library, maps AddOne over a Dataset
// of 0..4 and prints the results, "1 2 3 4 5"; an error is printed and
// exits 1.

#include <cstdio>
#include <string>

#include "inflow/data/dataset.h"
#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run_add_one LIBRARY\n");
    return 2;
  }
  auto fail = [](const inflow::Status& s) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  };
  auto library = inflow::ops::LoadOpLibrary(argv[1]);
  if (!library.ok()) return fail(library.status());
  auto op = inflow::ops::Op::Create("AddOne");
  if (!op.ok()) return fail(op.status());
  auto it = inflow::data::Dataset::Range(5)
                .Map(inflow::ops::OpMapFn(*op))
                .MakeIterator();
  if (!it.ok()) return fail(it.status());
  std::string out;
  for (auto e = it->Next(); e.ok(); e = it->Next()) {
    if (!out.empty()) out += " ";
    out += std::to_string((*e)[0].flat<int64_t>()[0]);
  }
  std::printf("%s\n", out.c_str());
  return 0;
}
