# fuzzer/FuzzedDataProvider.h for the fuzz harnesses that use it (those whose
# line in fuzz/harnesses.txt says fdp) and for the test that checks the
# structured generator's ChoiceReader against it (tests/hunt/); nothing else
# needs it. Sets STGUARD_HAVE_FDP and defines the
# INTERFACE target stguard_fdp carrying its include directory (SYSTEM: its
# warnings are not ours). Included from more than one directory; the first
# inclusion does the work.
if(TARGET stguard_fdp)
  return()
endif()

# LLVM ships FuzzedDataProvider.h with clang's resource headers; gcc needs the
# directory spelled out. Its own warnings are not ours: SYSTEM include.
set(_stguard_fdp_use_dir "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(STGUARD_FDP_INCLUDE_DIR "" CACHE PATH "Directory holding fuzzer/FuzzedDataProvider.h")
  set(_stguard_fdp_use_dir "${STGUARD_FDP_INCLUDE_DIR}")
else()
  file(GLOB _stguard_fdp_candidates /usr/lib/llvm-*/lib/clang/*/include/fuzzer/FuzzedDataProvider.h)
  list(SORT _stguard_fdp_candidates)
  list(LENGTH _stguard_fdp_candidates _stguard_fdp_count)
  set(_stguard_fdp_default "")
  if(_stguard_fdp_count GREATER 0)
    list(GET _stguard_fdp_candidates -1 _stguard_fdp_header)
    get_filename_component(_stguard_fdp_default "${_stguard_fdp_header}" DIRECTORY)
    get_filename_component(_stguard_fdp_default "${_stguard_fdp_default}" DIRECTORY)
  endif()
  set(STGUARD_FDP_INCLUDE_DIR "${_stguard_fdp_default}" CACHE PATH
    "Directory holding fuzzer/FuzzedDataProvider.h")
  # That directory is clang's resource directory, whose stddef.h etc. break
  # gcc: expose only the one header, through a link in the build tree.
  if(EXISTS "${STGUARD_FDP_INCLUDE_DIR}/fuzzer/FuzzedDataProvider.h")
    set(_stguard_fdp_link_dir ${PROJECT_BINARY_DIR}/fdp_include)
    file(MAKE_DIRECTORY ${_stguard_fdp_link_dir}/fuzzer)
    file(CREATE_LINK "${STGUARD_FDP_INCLUDE_DIR}/fuzzer/FuzzedDataProvider.h"
      ${_stguard_fdp_link_dir}/fuzzer/FuzzedDataProvider.h SYMBOLIC COPY_ON_ERROR)
    set(_stguard_fdp_use_dir ${_stguard_fdp_link_dir})
  endif()
endif()


add_library(stguard_fdp INTERFACE)
if(_stguard_fdp_use_dir)
  target_include_directories(stguard_fdp SYSTEM INTERFACE ${_stguard_fdp_use_dir})
endif()
# clang finds the header among its own resource headers (libclang-rt-14-dev).
include(CheckIncludeFileCXX)
set(CMAKE_REQUIRED_INCLUDES ${_stguard_fdp_use_dir})
check_include_file_cxx(fuzzer/FuzzedDataProvider.h STGUARD_HAVE_FDP)
unset(CMAKE_REQUIRED_INCLUDES)
