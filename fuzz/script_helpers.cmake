# Helpers of the cmake -P scripts that run fuzzers for ctest (smoke.cmake,
# reader_template/expect_finding.cmake).

# Stops the script when any of the named -D variables is unset or empty.
function(stguard_require_variables script)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "${script}: ${var} is not set")
    endif()
  endforeach()
endfunction()

# The last `max_chars` characters of `text`, into `out`.
function(stguard_text_tail out text max_chars)
  string(LENGTH "${text}" length)
  set(start 0)
  if(length GREATER max_chars)
    math(EXPR start "${length} - ${max_chars}")
  endif()
  string(SUBSTRING "${text}" ${start} -1 tail)
  set(${out} "${tail}" PARENT_SCOPE)
endfunction()
