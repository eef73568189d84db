// anydnn-doctor: is this anydnn installation right, and if not, why. It loads
// the library the way a program would (dlopen, never linked), then checks its
// version against the doctor's own headers, every other copy on the loader's
// search path, the installed files against the manifest, the CPU and CUDA, and
// runs a numerical self-test of every primitive. Exit status 0 only when every
// check passed. docs/TROUBLESHOOTING.md maps what it prints to fixes.
#include <cstdio>
#include <cstring>
#include <string>

#include "api_table.hpp"
#include "library.hpp"
#include "manifest.hpp"
#include "report.hpp"
#include "selftest.hpp"
#include "system.hpp"

namespace {

const char kUsage[] =
    "usage: anydnn-doctor [--json] [--library PATH] [--prefix DIR] [--no-self-test]\n"
    "  --json          machine-readable report on stdout\n"
    "  --library PATH  check this libanydnn file instead of the one the loader picks\n"
    "  --prefix DIR    check the installed tree at DIR (default: the doctor's own)\n"
    "  --no-self-test  skip the numerical self-test\n"
    "Exit status: 0 when every check passed, 1 when a problem was found, 2 on bad usage.\n";

std::string version_text(size_t v) {
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// Why dlopen failed, in words a user can act on.
std::string load_fix(const std::string &error, const std::string &soname) {
    if (error.find("cannot open shared object file") != std::string::npos)
        return "install anydnn, or add its lib directory to LD_LIBRARY_PATH (export LD_LIBRARY_PATH=<prefix>/lib"
               ":$LD_LIBRARY_PATH), or run /sbin/ldconfig after installing to a system directory";
    if (error.find("truncated") != std::string::npos || error.find("too short") != std::string::npos ||
        error.find("ELF") != std::string::npos)
        return "the file named above is truncated or corrupt (a half-copied archive?): reinstall anydnn";
    return "reinstall anydnn; if it persists, run `LD_DEBUG=libs anydnn-doctor` to see the loader's search for " +
           soname;
}

}  // namespace

int main(int argc, char **argv) {
    bool json = false, self_test = true;
    std::string library_file, prefix = doctor::install_prefix();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json") {
            json = true;
        } else if (arg == "--no-self-test") {
            self_test = false;
        } else if ((arg == "--library" || arg == "--prefix") && i + 1 < argc) {
            (arg == "--library" ? library_file : prefix) = argv[++i];
        } else if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else {
            std::fprintf(stderr, "anydnn-doctor: unknown argument \"%s\"\n%s", arg.c_str(), kUsage);
            return 2;
        }
    }

    doctor::Report report;
    report.info("doctor", "anydnn-doctor", version_text(ANYDNN_VERSION) + " (" + doctor::self_executable() + ")");

    const doctor::LoadedLibrary lib = doctor::load_library(library_file);
    doctor::Api api;
    bool usable = false;
    std::string loaded_version = "none";
    std::string build_info;
    if (lib.handle == nullptr) {
        report.problem("library", lib.soname, "cannot be loaded: " + lib.error, load_fix(lib.error, lib.soname));
    } else {
        report.info("library", "loaded", lib.path);
        const std::vector<std::string> missing = api.resolve(lib.handle);
        loaded_version = doctor::version_stamp(lib.path).value_or("unknown");
        if (api.anydnnGetVersion != nullptr) loaded_version = version_text(api.anydnnGetVersion());
        report.info("library", "version", loaded_version);
        if (api.anydnnGetVersion != nullptr && api.anydnnGetVersion() / 10000 != ANYDNN_MAJOR) {
            report.problem("library", "version",
                           lib.path + " is anydnn " + loaded_version + ", this doctor and its headers are " +
                               version_text(ANYDNN_VERSION) + ": programs built for one fail on the other",
                           "remove the other version's library from the search path (see below) or reinstall");
        } else if (!missing.empty()) {
            std::string names;
            for (const std::string &m : missing) names += (names.empty() ? "" : ", ") + m;
            report.problem("library", "symbols",
                           lib.path + " lacks " + std::to_string(missing.size()) + " functions of the " +
                               version_text(ANYDNN_VERSION) + " API: " + names,
                           "the library is older than the headers or not anydnn's: reinstall anydnn");
        } else {
            usable = true;
            build_info = api.anydnnGetBuildInfo();
            size_t begin = 0;
            while (begin < build_info.size()) {
                const size_t end = build_info.find('\n', begin);
                const std::string line = build_info.substr(begin, end - begin);
                const size_t colon = line.find(": ");
                if (colon != std::string::npos) report.info("library", line.substr(0, colon), line.substr(colon + 2));
                if (end == std::string::npos) break;
                begin = end + 1;
            }
        }
    }
    doctor::check_search_path(lib, loaded_version, report);
    doctor::check_install(prefix, report);
    doctor::check_cpu(usable ? &api : nullptr, report);
    doctor::check_cuda(build_info, report);
    if (!self_test)
        report.info("self-test", "skipped", "--no-self-test");
    else if (usable)
        doctor::run_self_test(api, report);
    else
        report.problem("self-test", "not run", "no usable library was loaded (see above)", "fix the problems above");

    if (json)
        report.print_json(stdout);
    else
        report.print_text(stdout);
    return report.problems() == 0 ? 0 : 1;
}
