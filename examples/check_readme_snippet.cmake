# ctest script: README.md's BLOCK-th ```cpp block (1 unless given) must
# be, line for line, the lines of EXAMPLE between "// README begin" and
# "// README end" (less their two-space indent), so the snippet a reader
# copies is one that compiles and runs.
if(NOT DEFINED BLOCK)
  set(BLOCK 1)
endif()
file(READ ${README} readme)
foreach(i RANGE 1 ${BLOCK})
  string(FIND "${readme}" "```cpp\n" begin)
  if(begin EQUAL -1)
    message(FATAL_ERROR "README.md has no ```cpp block number ${BLOCK}")
  endif()
  math(EXPR begin "${begin} + 7")
  string(SUBSTRING "${readme}" ${begin} -1 readme)
endforeach()
string(FIND "${readme}" "```" end)
string(SUBSTRING "${readme}" 0 ${end} snippet)

file(READ ${EXAMPLE} example)
string(FIND "${example}" "  // README begin\n" begin)
string(FIND "${example}" "  // README end\n" end)
if(begin EQUAL -1 OR end EQUAL -1)
  message(FATAL_ERROR "${EXAMPLE} has no README begin/end markers")
endif()
math(EXPR begin "${begin} + 17")  # keep the newline before the first line
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${example}" ${begin} ${length} program)
string(REPLACE "\n  " "\n" program "${program}")
string(SUBSTRING "${program}" 1 -1 program)

if(NOT snippet STREQUAL program)
  message(FATAL_ERROR "README.md's ```cpp block differs from the README part "
    "of ${EXAMPLE}.\nREADME:\n${snippet}\nexample:\n${program}")
endif()
