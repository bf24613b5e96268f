# Helpers shared by every component's CMakeLists.txt.

# inflow_add_component(<component> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# Builds the static library inflow_<component> (alias inflow::<component>),
# installs it, and adds it to the umbrella target inflow::inflow.
function(inflow_add_component name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(inflow_${name} STATIC ${ARG_SOURCES})
  add_library(inflow::${name} ALIAS inflow_${name})
  set_target_properties(inflow_${name} PROPERTIES EXPORT_NAME ${name})
  # The public headers are C++20: a consumer of the installed package gets
  # the standard from the targets, without setting CMAKE_CXX_STANDARD.
  target_compile_features(inflow_${name} PUBLIC cxx_std_20)
  target_include_directories(inflow_${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(inflow_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  install(TARGETS inflow_${name} EXPORT inflowTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY INFLOW_COMPONENTS inflow_${name})
  # The declared dependency graph, for the layering test (tests/layering).
  set(deps "")
  foreach(dep IN LISTS ARG_DEPS ARG_PRIVATE_DEPS)
    if(dep MATCHES "^inflow::(.+)$")
      list(APPEND deps ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(JOIN deps " " deps)
  set_property(GLOBAL APPEND_STRING PROPERTY INFLOW_COMPONENT_GRAPH "${name}: ${deps}\n")
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
    ENVIRONMENT "INFLOW_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  # The sanitizer builds run `ctest -LE release-only`: not built there.
  if(INFLOW_SANITIZE AND "release-only" IN_LIST ARG_LABELS)
    set_target_properties(${name} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
endfunction()

# inflow_tf_testdata_sources(<source>...): the test sources, in the calling
# directory, that read the TensorFlow-written files of tests/testdata/tf
# (through tests/tf_testdata.h): they get INFLOW_TF_TESTDATA_DIR, that
# folder's absolute path, so the binaries find it however they are run.
function(inflow_tf_testdata_sources)
  set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_DEFINITIONS
    "INFLOW_TF_TESTDATA_DIR=\"${PROJECT_SOURCE_DIR}/tests/testdata/tf\"")
endfunction()

# inflow_add_bench(<name> SOURCES ... [LIBS ...] [KERNELS] [INTERNAL_HEADERS]
#                  [JSON_NAME n]):
# bin/bench_<name>, and a ctest bench_<name>_smoke that runs it in smoke
# mode (--smoke) and checks the shape of its last JSON line, whose "bench"
# is JSON_NAME (default <name>) (cmake/check_bench_json.cmake).
# With KERNELS (the program runs SIMD kernels and names them in the line)
# also bench_<name>_smoke_portable, the same under INFLOW_KERNELS=portable,
# where every kernel named must be "portable". INTERNAL_HEADERS puts src/
# on its include path, for a benchmark that times internal kernels through
# their inflow::internal APIs; the others see the public headers only.
function(inflow_add_bench name)
  cmake_parse_arguments(ARG "KERNELS;INTERNAL_HEADERS" "JSON_NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_JSON_NAME)
    set(ARG_JSON_NAME ${name})
  endif()
  add_executable(bench_${name} ${ARG_SOURCES})
  target_link_libraries(bench_${name} PRIVATE ${ARG_LIBS} benchmark::benchmark)
  target_include_directories(bench_${name} PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  if(ARG_INTERNAL_HEADERS)
    target_include_directories(bench_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  endif()
  set(check ${PROJECT_SOURCE_DIR}/cmake/check_bench_json.cmake)
  add_test(NAME bench_${name}_smoke
    COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:bench_${name}>
            -DNAME=${ARG_JSON_NAME} -P ${check})
  set_tests_properties(bench_${name}_smoke PROPERTIES TIMEOUT 60
    LABELS "bench;release-only")
  if(ARG_KERNELS)
    add_test(NAME bench_${name}_smoke_portable
      COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:bench_${name}>
              -DNAME=${ARG_JSON_NAME} -DEXPECT_PORTABLE=ON -P ${check})
    set_tests_properties(bench_${name}_smoke_portable PROPERTIES TIMEOUT 60
      LABELS "bench;release-only" ENVIRONMENT "INFLOW_KERNELS=portable")
  endif()
endfunction()

# inflow_add_fuzz_target(<name> SOURCES ... [LIBS ...] CORPUS <dir>)
# <SOURCES> define LLVMFuzzerTestOneInput. Always builds tests/<name>_replay,
# which feeds every file under <dir> to it (ctest <name>_replay; runs under
# ASan/UBSan in the sanitizer build). With INFLOW_BUILD_FUZZ=ON and clang,
# also builds the libFuzzer binary bin/fuzz_<name>:
#   build/fuzz/bin/fuzz_<name> <corpus dir> -max_total_time=60
function(inflow_add_fuzz_target name)
  cmake_parse_arguments(ARG "" "CORPUS" "SOURCES;LIBS" ${ARGN})
  add_executable(${name}_replay ${ARG_SOURCES} ${PROJECT_SOURCE_DIR}/tests/fuzz_replay_main.cc)
  target_link_libraries(${name}_replay PRIVATE ${ARG_LIBS})
  target_include_directories(${name}_replay PRIVATE ${PROJECT_SOURCE_DIR}/src)
  set_target_properties(${name}_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${name}_replay COMMAND ${name}_replay ${ARG_CORPUS})
  set_tests_properties(${name}_replay PROPERTIES TIMEOUT 300 LABELS "parsing;fuzz")
  if(INFLOW_BUILD_FUZZ AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_executable(fuzz_${name} ${ARG_SOURCES})
    target_link_libraries(fuzz_${name} PRIVATE ${ARG_LIBS})
    target_include_directories(fuzz_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  endif()
endfunction()
