// SHA-256 (FIPS 180-4) of a file, for the manifest check: the doctor must
// not depend on a crypto library that may itself be missing.
#pragma once

#include <optional>
#include <string>

namespace doctor {

// The lowercase hex digest of the file's bytes; nullopt if it cannot be read.
std::optional<std::string> sha256_file(const std::string &path);

}  // namespace doctor
