# bench_example compares against libprotobuf's generated parser.
include(${PROJECT_SOURCE_DIR}/tests/example/example_proto.cmake)
target_link_libraries(bench_example PRIVATE inflow_example_proto)
