// The installed tree against share/anydnn/MANIFEST.sha256: every file listed
// must be present with its SHA-256.
#pragma once

#include <string>

#include "report.hpp"

namespace doctor {

void check_install(const std::string &prefix, Report &report);

}  // namespace doctor
