// verify/verify.cc: verify_model_folder, the layout dispatch above both
// verifiers: DIR opened once, its layout resolved on that descriptor, then
// the Hub cache's verifier (hub_cache.h) or the plain-folder one
// (verifier.h, also for --local-dir). Neither calls the other; both run the
// passes of passes.h over the folders they list.
#include "verify/verify.h"

#include <utility>

#include "verify/hub_cache.h"
#include "verify/layout.h"
#include "verify/verifier.h"

namespace stguard::verify {

VerifyReport verify_model_folder(const std::string& dir, const VerifyOptions& options) {
  base::Opened opened = open_dir_argument(dir);
  const Layout layout = resolve_layout(dir, opened.fd.get(), options.layout);
  if (is_hub_layout(layout)) return verify_hub(dir, std::move(opened), layout, options);
  return verify_folder(dir, std::move(opened), layout, options);
}

}  // namespace stguard::verify
