// verify/hub_json.h (internal to verify/): the layout, checksum sources and
// Hub parts of the JSON report, written by report_to_json.
//
//   add_layout_json(report, doc);  // "layout", "checksum_sources", "hub"
#ifndef STGUARD_VERIFY_HUB_JSON_H_
#define STGUARD_VERIFY_HUB_JSON_H_

#include <nlohmann/json.hpp>

#include "verify/verify.h"

namespace stguard::verify {

void add_layout_json(const VerifyReport& report, nlohmann::ordered_json& doc);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_HUB_JSON_H_
