# bench_pipeline's helpers: the shard builder (zlib reads the dataset's
# gzipped idx files), the plain loops and the inflow pipeline.
find_package(ZLIB REQUIRED)
target_sources(bench_pipeline PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_data.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_plain.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_inflow.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pipeline_stages.cc)
target_link_libraries(bench_pipeline PRIVATE ZLIB::ZLIB)
