# bench_train_vs_torch: Fashion-MNIST's images (pipeline_data.cc reads the
# dataset's gzipped idx files) and the torch side's script.
target_sources(bench_train_vs_torch PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_data.cc)
target_link_libraries(bench_train_vs_torch PRIVATE ZLIB::ZLIB)
target_compile_definitions(bench_train_vs_torch PRIVATE
  INFLOW_TORCH_SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/py/train_torch.py")
