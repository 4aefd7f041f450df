// conformance/report/assets.h: the files of conformance/report/assets/, as
// compiled into stguard. CMake turns each file into a generated source
// (cmake/embed_file.cmake) whenever the file changes, so the page's skeleton,
// style and script are edited as the HTML, CSS and JavaScript they are.
//
//   std::string_view css = stguard::conformance::assets::matrix_css();
#ifndef STGUARD_CONFORMANCE_REPORT_ASSETS_H_
#define STGUARD_CONFORMANCE_REPORT_ASSETS_H_

#include <string_view>

namespace stguard::conformance::assets {

// assets/matrix.html: the page with @TITLE@, @STYLE@, @FACTS@, @GRADE_HEADS@,
// @READER_ROWS@, @LEGEND@, @CASE_TOTAL@, @DATA@ and @SCRIPT@ to fill in.
std::string_view matrix_html() noexcept;
// assets/matrix.css: the page's style. `.gN` colours the grade at index N of
// kAllGrades (worst first: .g0 CRASH ... .g11 PASS).
std::string_view matrix_css() noexcept;
// assets/matrix.js: builds the matrix, its filters and the detail panel from
// the page's JSON data (textContent only, never markup).
std::string_view matrix_js() noexcept;

}  // namespace stguard::conformance::assets

#endif  // STGUARD_CONFORMANCE_REPORT_ASSETS_H_
