# inflow_add_op_library(<name> SOURCES ... [LIBS ...])
# An op library (docs/custom_ops.md): the shared library lib<name>.so,
# which LoadOpLibrary (C++) and inflow.load_op_library (Python) load. It
# links inflow::core with the symbols of that copy hidden, so that it
# neither needs nor interposes on the inflow of the process that loads
# it; it exports only inflow_op_library_info (INFLOW_OP_LIBRARY).
# Installed with the package config: after find_package(inflow) a project
# outside the inflow tree calls it the same way.
function(inflow_add_op_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE inflow::core ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  target_link_options(${name} PRIVATE "LINKER:--exclude-libs,ALL")
endfunction()
