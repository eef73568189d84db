// What the doctor can tell of an ELF file without loading it.
#pragma once

#include <string>

namespace doctor {

// "" when the file is not ELF or looks whole; otherwise why it is cut short
// (a half-copied archive, a full disk). Loading such a file can crash the
// loader with SIGBUS, so the doctor asks this first.
std::string elf_truncation(const std::string &path);

}  // namespace doctor
