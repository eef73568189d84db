#include "manifest.hpp"

#include <sys/stat.h>

#include <fstream>

#include "elf.hpp"
#include "sha256.hpp"

namespace doctor {

void check_install(const std::string &prefix, Report &report) {
    const std::string section = "install";
    if (prefix.empty()) {
        report.info(section, "manifest", "this doctor does not run from an installed tree (a build tree?): skipped; "
                                         "--prefix DIR checks an installed tree");
        return;
    }
    const std::string manifest = prefix + "/" ANYDNN_DOCTOR_MANIFEST;
    report.info(section, "prefix", prefix);
    std::ifstream in(manifest);
    if (!in) {
        report.problem(section, manifest, "missing: the installation cannot be verified",
                       "reinstall anydnn (cmake --install <build> --prefix " + prefix +
                           ", or unpack the release archive again)");
        return;
    }
    int files = 0, bad = 0;
    std::string line;
    while (std::getline(in, line)) {
        if (line.size() < 67 || line[64] != ' ' || line[65] != ' ') continue;
        const std::string want = line.substr(0, 64), rel = line.substr(66), path = prefix + "/" + rel;
        ++files;
        struct stat st;
        const std::string reinstall = "reinstall anydnn into " + prefix + " (or copy " + rel +
                                      " from the release archive); never copy single files between versions";
        if (stat(path.c_str(), &st) != 0) {
            report.problem(section, rel, "missing", reinstall);
            ++bad;
            continue;
        }
        const auto got = sha256_file(path);
        if (got && *got == want) continue;
        ++bad;
        std::string what = elf_truncation(path);
        if (!got) what = "unreadable";
        if (what.empty())
            what = "modified: its SHA-256 differs from the manifest's (" + std::to_string(st.st_size) +
                   " bytes now; another version's file, an edit, or a truncated copy)";
        report.problem(section, rel, what, reinstall);
    }
    if (files == 0) {
        report.problem(section, manifest, "lists no files", "reinstall anydnn");
        return;
    }
    if (bad == 0) report.pass(section, "manifest", std::to_string(files) + " files present and intact");
}

}  // namespace doctor
