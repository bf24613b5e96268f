# bench_train_vs_torch: Fashion-MNIST's images (pipeline_data.cc reads the
# dataset's gzipped idx files) and the torch side's script.
target_sources(bench_train_vs_torch PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_data.cc)
target_link_libraries(bench_train_vs_torch PRIVATE ZLIB::ZLIB)
target_compile_definitions(bench_train_vs_torch PRIVATE
  INFLOW_TORCH_SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/py/train_torch.py")
# Without PyTorch (a Python that fails) the JSON line has null torch
# figures and a torch_reason, and keeps its shape.
add_test(NAME bench_train_vs_torch_smoke_without_torch
  COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:bench_train_vs_torch>
          -DNAME=train -DEXPECT_NULL=torch_steps_per_s
          -P ${PROJECT_SOURCE_DIR}/cmake/check_bench_json.cmake)
set_tests_properties(bench_train_vs_torch_smoke_without_torch PROPERTIES
  TIMEOUT 60 LABELS "bench;release-only" ENVIRONMENT "INFLOW_TORCH_PYTHON=/bin/false")
