#include "elf.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>

namespace doctor {

std::string elf_truncation(const std::string &path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return "";
    const auto size = static_cast<uint64_t>(st.st_size);
    std::ifstream in(path, std::ios::binary);
    unsigned char header[64] = {};
    in.read(reinterpret_cast<char *>(header), sizeof header);
    const auto got = static_cast<uint64_t>(in.gcount());
    if (got < 4 || std::memcmp(header, "\x7f" "ELF", 4) != 0) return "";
    if (got < sizeof header) return "truncated: " + std::to_string(size) + " bytes, shorter than an ELF header";
    if (header[4] != 2) return "";  // ELF32: not a file this build makes
    auto field = [&](int at, int bytes) {
        uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; --i) v = v << 8 | header[at + i];  // little endian (x86-64)
        return v;
    };
    // The section header table (e_shoff, e_shentsize * e_shnum) ends the file.
    const uint64_t end = field(0x28, 8) + field(0x3A, 2) * field(0x3C, 2);
    if (end <= size) return "";
    return "truncated: " + std::to_string(size) + " bytes, its ELF headers say at least " + std::to_string(end);
}

}  // namespace doctor
