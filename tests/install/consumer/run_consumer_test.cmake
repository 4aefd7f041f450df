# cmake -P script run by the `install` ctest tests.
#   MODE=find_package:     install STGUARD_BUILD_DIR into a temporary prefix,
#                          build the consumer against it, run it.
#   MODE=add_subdirectory: build the consumer with add_subdirectory(stguard).
# Inputs: MODE STGUARD_BUILD_DIR STGUARD_SOURCE_DIR CONSUMER_SOURCE_DIR WORK_DIR
#         CXX_COMPILER, optional SANITIZERS (the build's -fsanitize= list, which
#         the installed static library needs at link time) and EXTRA_TARGET.
foreach(var MODE STGUARD_BUILD_DIR STGUARD_SOURCE_DIR CONSUMER_SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer_test.cmake: ${var} is not set")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(consumer_build "${WORK_DIR}/build")

if(MODE STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  # Up to date in a finished build; makes sure what install copies exists.
  run_step("build installed targets" ${CMAKE_COMMAND} --build "${STGUARD_BUILD_DIR}"
    --target stguard_parser ${EXTRA_TARGET})
  run_step("install" ${CMAKE_COMMAND} --install "${STGUARD_BUILD_DIR}" --prefix "${prefix}")
  foreach(installed include/stguard/stguard.h)
    if(NOT EXISTS "${prefix}/${installed}")
      message(FATAL_ERROR "install did not produce ${installed}")
    endif()
  endforeach()
  set(configure_args "-DCMAKE_PREFIX_PATH=${prefix}")
  if(SANITIZERS)
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZERS}"
      "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZERS}")
  endif()
elseif(MODE STREQUAL "add_subdirectory")
  set(configure_args "-DSTGUARD_SOURCE_DIR=${STGUARD_SOURCE_DIR}")
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()

run_step("configure consumer" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release ${configure_args})
run_step("build consumer" ${CMAKE_COMMAND} --build "${consumer_build}" -j2)
run_step("run consumer" "${consumer_build}/stguard_consumer")
file(REMOVE_RECURSE "${WORK_DIR}")
