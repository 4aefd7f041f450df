# A short libFuzzer campaign for ctest (label fuzz-smoke), run as
#   cmake -DFUZZER=<bin> -DOPTIONS=<harness.options> -DWORK_DIR=<dir>
#         -DSECONDS=<n> "-DSEEDS=<dir>|<dir>..." -P smoke.cmake
# It starts from an empty writable corpus in WORK_DIR (the seed directories
# are only read), applies the harness's .options ([libfuzzer] key = value;
# a relative dict is found next to the .options file), and fails when
# libFuzzer reports anything (crash, leak, timeout, over-large allocation),
# when it leaves an artifact, or when it did not really fuzz (fewer than
# MIN_RUNS executions). On failure the end of libFuzzer's log and the
# artifact paths are printed; the full log stays in WORK_DIR/libfuzzer.log.
include(${CMAKE_CURRENT_LIST_DIR}/script_helpers.cmake)
stguard_require_variables(smoke.cmake FUZZER OPTIONS WORK_DIR SECONDS SEEDS)
if(NOT DEFINED MIN_RUNS)
  set(MIN_RUNS 1000)
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus" "${WORK_DIR}/artifacts")

# [libfuzzer] section of the .options file -> -key=value arguments.
set(args "")
get_filename_component(options_dir "${OPTIONS}" DIRECTORY)
if(EXISTS "${OPTIONS}")
  file(STRINGS "${OPTIONS}" lines)
  set(section "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*[#;]" OR line MATCHES "^[ \t]*$")
      continue()
    elseif(line MATCHES "^[ \t]*\\[([^]]*)\\]")
      set(section "${CMAKE_MATCH_1}")
    elseif(section STREQUAL "libfuzzer" AND line MATCHES "^[ \t]*([A-Za-z_]+)[ \t]*=[ \t]*(.*[^ \t])[ \t]*$")
      set(key "${CMAKE_MATCH_1}")
      set(value "${CMAKE_MATCH_2}")
      if(key STREQUAL "dict" AND NOT IS_ABSOLUTE "${value}")
        set(value "${options_dir}/${value}")
      endif()
      list(APPEND args "-${key}=${value}")
    endif()
  endforeach()
endif()

string(REPLACE "|" ";" seed_dirs "${SEEDS}")
# ClusterFuzz's quarantine size: the 256 MB default only thrashes the cache
# with inputs this small.
set(ENV{ASAN_OPTIONS} "$ENV{ASAN_OPTIONS}:quarantine_size_mb=10")
math(EXPR hard_timeout "${SECONDS} + 90")
execute_process(
  COMMAND "${FUZZER}" ${args} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 "-artifact_prefix=${WORK_DIR}/artifacts/"
          "${WORK_DIR}/corpus" ${seed_dirs}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE log
  ERROR_VARIABLE log
  TIMEOUT ${hard_timeout})
file(WRITE "${WORK_DIR}/libfuzzer.log" "${log}")

set(runs 0)
set(rate 0)
if(log MATCHES "stat::number_of_executed_units: *([0-9]+)")
  set(runs "${CMAKE_MATCH_1}")
endif()
if(log MATCHES "stat::average_exec_per_sec: *([0-9]+)")
  set(rate "${CMAKE_MATCH_1}")
endif()
file(GLOB artifacts "${WORK_DIR}/artifacts/*")
get_filename_component(name "${FUZZER}" NAME)

set(problem "")
if(NOT status STREQUAL "0")
  set(problem "libFuzzer exited with '${status}'")
elseif(artifacts)
  set(problem "libFuzzer left artifacts")
elseif(runs LESS MIN_RUNS)
  set(problem "only ${runs} executions (expected at least ${MIN_RUNS}): the campaign did not run")
endif()
if(problem)
  stguard_text_tail(log_tail "${log}" 6000)
  string(REPLACE ";" "\n  " artifact_list "${artifacts}")
  message(FATAL_ERROR "${name}: ${problem}\n"
    "artifacts:\n  ${artifact_list}\n"
    "log: ${WORK_DIR}/libfuzzer.log, last part:\n${log_tail}")
endif()
file(GLOB new_units "${WORK_DIR}/corpus/*")
list(LENGTH new_units new_count)
message(STATUS "${name}: clean, ${runs} runs in ${SECONDS} s (${rate} exec/s), "
  "${new_count} new corpus units in ${WORK_DIR}/corpus")
