// cli/docs.h: pages of docs/ compiled into the command (cmake/embed_file.cmake,
// rerun whenever a page changes), for output that describes what those pages
// describe: the SARIF rules of check and verify (cli/sarif.h) read each
// code's description from its row there rather than from a second copy.
//
//   std::string_view page = stguard::cli::docs::reasons_md();
#ifndef STGUARD_CLI_DOCS_H_
#define STGUARD_CLI_DOCS_H_

#include <string_view>

namespace stguard::cli::docs {

// docs/reasons.md: the parser's reason codes, one row each under "The codes".
std::string_view reasons_md() noexcept;
// docs/findings.md: verify's finding kinds, one row each under "The kinds".
std::string_view findings_md() noexcept;

}  // namespace stguard::cli::docs

#endif  // STGUARD_CLI_DOCS_H_
