// Where libanydnn comes from: the copy the dynamic loader gives this program,
// every other copy on the loader's search path, and their versions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report.hpp"

namespace doctor {

// The realpath of this executable and the install prefix it belongs to ("" when
// it does not sit in <prefix>/<bindir>, e.g. in a build tree).
std::string self_executable();
std::string install_prefix();

// The version text ("1.0.0") that the library's version stamp holds, read from
// the file's bytes without loading it; nullopt when the file has none.
std::optional<std::string> version_stamp(const std::string &path);

// The library as this program loads it: dlopen("libanydnn.so.<major>") with the
// doctor's own search path (LD_LIBRARY_PATH, RUNPATH, ldconfig cache, defaults).
struct LoadedLibrary {
    void *handle = nullptr;  // nullptr: could not be loaded (see error)
    std::string soname;      // what was asked for
    std::string path;        // realpath of the loaded file
    std::string error;       // dlerror() when handle is nullptr
};
LoadedLibrary load_library(const std::string &explicit_path);

// Checks the loaded library against this doctor's version and install tree and
// lists every copy on the search path, reporting shadowing.
void check_search_path(const LoadedLibrary &lib, const std::string &loaded_version, Report &report);

}  // namespace doctor
