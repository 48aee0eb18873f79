# Writes one CTest test per Catch2 test case of a test binary; tests/CMakeLists.txt runs it
# after every link of voxen_tests. Debian's CatchAddTests.cmake does the same job, but it
# escapes only , [ and ], reads the names through CMake lists (a name with an unbalanced
# bracket or a semicolon swallows or splits its neighbours) and has no per-case labels.
#
# Each case is run as `<binary> "<name>"`, the name quoted and its \ , and " escaped, which
# is how Catch2 v2.13's test spec parser reads a literal name. Because Catch matches names
# case-insensitively and treats a leading or trailing * as a wildcard, every spec is checked
# here: it must select exactly its own case, or the build fails naming the case.
#
# Input (-D): TEST_EXECUTABLE, CTEST_FILE (written), WORKING_DIR, TIMEOUT (seconds per case),
# ENVIRONMENT_MODIFICATION (one entry, optional), EXTRA_LABEL (given to every case).
cmake_minimum_required(VERSION 3.22)

foreach(required TEST_EXECUTABLE CTEST_FILE WORKING_DIR TIMEOUT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "discover_catch_cases: -D${required}=... is missing")
  endif()
endforeach()

# The standard output of `<binary> [spec] <option>`. The --list-* options exit with the
# number of matches, so only a run that did not exit normally is an error.
function(query_binary out spec option)
  # Quoted, so that a ; in the spec stays in its one argument.
  if(spec STREQUAL "")
    execute_process(COMMAND "${TEST_EXECUTABLE}" "${option}" WORKING_DIRECTORY "${WORKING_DIR}"
                    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE rc)
  else()
    execute_process(COMMAND "${TEST_EXECUTABLE}" "${spec}" "${option}" WORKING_DIRECTORY "${WORKING_DIR}"
                    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE rc)
  endif()
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "discover_catch_cases: '${TEST_EXECUTABLE} ${spec} ${option}' failed (${rc}):\n${errors}")
  endif()
  set(${out} "${output}" PARENT_SCOPE)
endfunction()

# Splits off the first line of ${text_var} into ${line_var}. A loop over string(FIND) rather
# than a CMake list, so that ; [ and ] in test names stay as they are.
macro(pop_line text_var line_var)
  string(FIND "${${text_var}}" "\n" _newline)
  if(_newline EQUAL -1)
    set(${line_var} "${${text_var}}")
    set(${text_var} "")
  else()
    string(SUBSTRING "${${text_var}}" 0 ${_newline} ${line_var})
    math(EXPR _newline "${_newline} + 1")
    string(SUBSTRING "${${text_var}}" ${_newline} -1 ${text_var})
  endif()
endmacro()

# Catch prints names that start with # in quotes; this returns the name itself.
function(name_from_listing out line)
  if(line MATCHES "^\"#.*\"$")
    string(REGEX REPLACE "^\"(.*)\"$" "\\1" line "${line}")
  endif()
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

# The Catch test spec that names exactly `name`.
function(spec_for_name out name)
  string(REPLACE "\\" "\\\\" name "${name}")
  string(REPLACE "," "\\," name "${name}")
  string(REPLACE "\"" "\\\"" name "${name}")
  set(${out} "\"${name}\"" PARENT_SCOPE)
endfunction()

# `value` as a CMake bracket argument ([=[...]=]) whose closing bracket it cannot contain.
function(bracket out value)
  set(equals "")
  string(FIND "${value}" "]${equals}" found)
  while(NOT found EQUAL -1)
    string(APPEND equals "=")
    string(FIND "${value}" "]${equals}" found)
  endwhile()
  set(${out} "[${equals}[${value}]${equals}]" PARENT_SCOPE)
endfunction()

# 1. The cases, in Catch's order (hidden [.] cases are not listed, as in a plain run).
query_binary(listing "" --list-test-names-only)
set(case_count 0)
while(NOT listing STREQUAL "")
  pop_line(listing line)
  if(line STREQUAL "")
    continue()
  endif()
  name_from_listing(name "${line}")
  set(case_${case_count}_name "${name}")
  set(line_of_${case_count} "${line}")
  string(MD5 key "${name}")
  set(index_of_${key} ${case_count})
  math(EXPR case_count "${case_count} + 1")
endwhile()
if(case_count EQUAL 0)
  message(FATAL_ERROR "discover_catch_cases: ${TEST_EXECUTABLE} lists no test cases")
endif()
math(EXPR last_case "${case_count} - 1")

# 2. Labels: the case's Catch tags (without brackets), one query per tag.
query_binary(tag_listing "" --list-tags)
while(NOT tag_listing STREQUAL "")
  pop_line(tag_listing line)
  # "   6  [barrier]"; a tag spelt in several cases shows every spelling: "[GPU][gpu]".
  if(NOT line MATCHES "^ *[0-9]+  (\\[.*\\])$")
    continue()
  endif()
  string(REGEX MATCH "^\\[[^]]*\\]" tag "${CMAKE_MATCH_1}")
  query_binary(tagged "${tag}" --list-test-names-only)
  string(REGEX REPLACE "^\\[(.*)\\]$" "\\1" label "${tag}")
  while(NOT tagged STREQUAL "")
    pop_line(tagged line)
    if(line STREQUAL "")
      continue()
    endif()
    name_from_listing(name "${line}")
    string(MD5 key "${name}")
    if(DEFINED index_of_${key})
      list(APPEND labels_of_${key} "${label}")
    endif()
  endwhile()
endwhile()

# 3. The CTest file: written aside and renamed, so that a failed run leaves no half file.
bracket(executable "${TEST_EXECUTABLE}")
bracket(working_dir "${WORKING_DIR}")
set(properties "WORKING_DIRECTORY ${working_dir} TIMEOUT ${TIMEOUT}")
if(DEFINED ENVIRONMENT_MODIFICATION)
  bracket(environment "${ENVIRONMENT_MODIFICATION}")
  string(APPEND properties " ENVIRONMENT_MODIFICATION ${environment}")
endif()
set(script "# Generated by discover_catch_cases.cmake from ${TEST_EXECUTABLE}; do not edit.\n")
foreach(index RANGE ${last_case})
  set(name "${case_${index}_name}")
  set(line "${line_of_${index}}")
  spec_for_name(spec "${name}")
  query_binary(selected "${spec}" --list-test-names-only)
  if(NOT selected STREQUAL "${line}\n")
    string(REGEX MATCHALL "\n" newlines "${selected}")
    list(LENGTH newlines selected_count)
    message(FATAL_ERROR "discover_catch_cases: the Catch test spec ${spec} selects ${selected_count} test case(s) "
                        "instead of exactly '${name}'. Catch cannot name this case exactly (a * at either end, a name "
                        "starting with exclude:, or another name equal but for case?): please rename it.")
  endif()
  string(MD5 key "${name}")
  set(labels ${EXTRA_LABEL} ${labels_of_${key}})
  bracket(test_name "${name}")
  bracket(spec_arg "${spec}")
  bracket(label_arg "${labels}")
  string(APPEND script "add_test(${test_name} ${executable} ${spec_arg})\n"
                       "set_tests_properties(${test_name} PROPERTIES ${properties} LABELS ${label_arg})\n")
endforeach()
file(WRITE "${CTEST_FILE}.tmp" "${script}")
file(RENAME "${CTEST_FILE}.tmp" "${CTEST_FILE}")
