# Helpers shared by every component's CMakeLists.txt.

# inflow_add_component(<component> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# Builds the static library inflow_<component> (alias inflow::<component>),
# installs it, and adds it to the umbrella target inflow::inflow.
function(inflow_add_component name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(inflow_${name} STATIC ${ARG_SOURCES})
  add_library(inflow::${name} ALIAS inflow_${name})
  set_target_properties(inflow_${name} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(inflow_${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(inflow_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  install(TARGETS inflow_${name} EXPORT inflowTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY INFLOW_COMPONENTS inflow_${name})
endfunction()

# inflow_add_test(<name> SOURCES ... [LIBS ...] [LABELS ...] [TIMEOUT s])
# A GoogleTest binary tests/<name>, registered with ctest as <name>.
# Labels pick what the sanitizer builds run: "concurrency", "io",
# "parsing" (run under ASan/UBSan and TSan), "release-only".
function(inflow_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT}
    LABELS "${ARG_LABELS}"
    ENVIRONMENT "INFLOW_SHARED_DIR=${PROJECT_SOURCE_DIR}/../shared;INFLOW_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()

# inflow_add_bench(<name> SOURCES ... [LIBS ...]): bin/bench_<name>.
function(inflow_add_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(bench_${name} ${ARG_SOURCES})
  target_link_libraries(bench_${name} PRIVATE ${ARG_LIBS} benchmark::benchmark)
  target_include_directories(bench_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/bench)
endfunction()
