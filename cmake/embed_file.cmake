# embed_file.cmake: writes a C++ source defining a function that returns the
# bytes of a file, so that files kept as real files in the source tree (the
# report's HTML, CSS and JavaScript; the documentation the SARIF rules are
# read from) are still part of the stguard executable. Run at build time by a
# custom command (which reruns it when the file changes):
#
#   cmake -DINPUT=assets/matrix.css -DOUTPUT=matrix_css.cc -DFUNCTION=matrix_css
#         -DHEADER=conformance/report/assets.h
#         -DNAMESPACE=stguard::conformance::assets -P cmake/embed_file.cmake
#
# HEADER declares `std::string_view FUNCTION() noexcept` in NAMESPACE.
foreach(var INPUT OUTPUT FUNCTION HEADER NAMESPACE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_file.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
# Sixteen bytes a line: "0x3c, 0x21, ..." (CMake's regular expressions have
# no {16}: the pattern is spelled out).
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " bytes "${hex}")
string(REPEAT "0x[0-9a-f][0-9a-f], " 16 line_pattern)
string(REGEX REPLACE "(${line_pattern})" "\\1\n" bytes "${bytes}")
string(REPLACE ", \n" ",\n    " bytes "${bytes}")
cmake_path(GET INPUT FILENAME name)

# A trailing zero keeps the array non-empty for an empty file; it is not
# part of the returned bytes. The array is named after the function, so that
# two generated sources can share a translation unit (a unity build).
file(WRITE "${OUTPUT}.tmp"
"// Generated from ${name} by cmake/embed_file.cmake: do not edit.
#include \"${HEADER}\"

namespace ${NAMESPACE} {
namespace {

constexpr unsigned char ${FUNCTION}_bytes[] = {
    ${bytes}0x00};

}  // namespace

std::string_view ${FUNCTION}() noexcept {
  return {reinterpret_cast<const char*>(${FUNCTION}_bytes), ${size}};
}

}  // namespace ${NAMESPACE}
")
# Only touch OUTPUT when it changes, so that an unchanged file recompiles nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
