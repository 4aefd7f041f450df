# The planted-bug reader's tests (fuzz/reader_template/CMakeLists.txt): runs
# the harness and passes only when it stops on the planted bug, i.e. reports
# "accepted-invalid" on a file both profiles reject as OFFSET_OVERLAP.
#   cmake -DFUZZER=<bin> -DMODE=replay|libfuzzer "-DSEEDS=<dir>|<dir>..." -DWORK_DIR=<dir>
#         [-DDICT=<file>] [-DRUNS=<n>] [-DSEED=<n>] -P expect_finding.cmake
# MODE=libfuzzer runs a fixed-seed campaign of at most RUNS executions from an
# empty writable corpus plus the (read-only) seed directories, none of which
# holds an overlap itself, so the finding comes from mutation; MODE=replay
# runs each seed once.
include(${CMAKE_CURRENT_LIST_DIR}/../script_helpers.cmake)
stguard_require_variables(expect_finding.cmake FUZZER MODE SEEDS WORK_DIR)
if(NOT DEFINED RUNS)
  set(RUNS 1000000)
endif()
if(NOT DEFINED SEED)
  set(SEED 1)
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus" "${WORK_DIR}/artifacts")
string(REPLACE "|" ";" seed_dirs "${SEEDS}")

if(MODE STREQUAL "replay")
  set(command "${FUZZER}" ${seed_dirs})
else()
  set(command "${FUZZER}" -seed=${SEED} -runs=${RUNS} -max_total_time=240 -timeout=10
      -rss_limit_mb=2048 -print_final_stats=1 "-artifact_prefix=${WORK_DIR}/artifacts/")
  if(DEFINED DICT)
    list(APPEND command "-dict=${DICT}")
  endif()
  list(APPEND command "${WORK_DIR}/corpus" ${seed_dirs})
endif()
execute_process(COMMAND ${command}
  RESULT_VARIABLE status OUTPUT_VARIABLE log ERROR_VARIABLE log TIMEOUT 280)
file(WRITE "${WORK_DIR}/log.txt" "${log}")

string(REGEX MATCH "stguard reader template: [^\n]*" finding "${log}")
if(status STREQUAL "0" OR NOT finding MATCHES "accepted-invalid: .*OFFSET_OVERLAP")
  stguard_text_tail(log_tail "${log}" 4000)
  message(FATAL_ERROR "the planted overlap bug was not found (exit '${status}', finding "
    "'${finding}'); log ${WORK_DIR}/log.txt ends:\n${log_tail}")
endif()
set(runs "")
if(log MATCHES "#([0-9]+)[^\n]*\n[^#]*stguard reader template")
  set(runs " within ${CMAKE_MATCH_1} executions")
endif()
message(STATUS "found${runs}: ${finding}")
