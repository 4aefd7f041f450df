# Compiler flags as INTERFACE targets, linked PRIVATE into stguard's own
# targets (never global flags, never exported to consumers).

add_library(stguard_warnings INTERFACE)
target_compile_options(stguard_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wsign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough>
  $<$<CXX_COMPILER_ID:GNU>:-Wduplicated-cond -Wlogical-op>
  $<$<BOOL:${STGUARD_WARNINGS_AS_ERRORS}>:-Werror>
  # g++-12's -Wnull-dereference is flow-based and, at -O2 without sanitizers,
  # fires inside libstdc++ code inlined into ours (istreambuf_iterator reads,
  # vector::insert from a string_view): shown, but not fatal with g++.
  $<$<AND:$<BOOL:${STGUARD_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU>>:-Wno-error=null-dereference>
  # Likewise its -Wmaybe-uninitialized, which at -O1 (the sanitizer presets)
  # fires inside libstdc++'s <regex> (std::function in _NFA states).
  $<$<AND:$<BOOL:${STGUARD_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU>>:-Wno-error=maybe-uninitialized>)

add_library(stguard_sanitizers INTERFACE)
if(STGUARD_SANITIZERS)
  target_compile_options(stguard_sanitizers INTERFACE
    -fsanitize=${STGUARD_SANITIZERS} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(stguard_sanitizers INTERFACE -fsanitize=${STGUARD_SANITIZERS})
endif()

# What every stguard-owned target links privately.
add_library(stguard_build_flags INTERFACE)
target_link_libraries(stguard_build_flags INTERFACE stguard_warnings stguard_sanitizers)
target_compile_features(stguard_build_flags INTERFACE cxx_std_20)

# Glue code: the command's sources (options, library calls, output), the
# Python binding and the tests (set-up and assertions). In a sanitizer build
# it compiles without optimisation: optimising it was about half of its
# compile time (tests/cli/cli_test.cc under clang-14 ASan+UBSan 12.7 s at
# -O1 against 5.6 s at -O0, g++-12 19.4 s against 10.0 s; cli/conform.cc
# 8.6 s against 4.6 s), while the libraries that do the work keep the
# preset's -O1. The sanitizers check glue code at -O0 as thoroughly.
add_library(stguard_glue_flags INTERFACE)
target_link_libraries(stguard_glue_flags INTERFACE stguard_build_flags)
if(STGUARD_SANITIZERS)
  target_compile_options(stguard_glue_flags INTERFACE -O0)
endif()
