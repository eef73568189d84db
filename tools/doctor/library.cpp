#include "library.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "anydnn/anydnn_version.h"
#include "elf.hpp"

namespace doctor {
namespace {

#define DOCTOR_STRINGIFY_(x) #x
#define DOCTOR_STRINGIFY(x) DOCTOR_STRINGIFY_(x)
const std::string kSoname = "libanydnn.so." DOCTOR_STRINGIFY(ANYDNN_MAJOR);
const std::string kOwnVersion =
    DOCTOR_STRINGIFY(ANYDNN_MAJOR) "." DOCTOR_STRINGIFY(ANYDNN_MINOR) "." DOCTOR_STRINGIFY(ANYDNN_PATCHLEVEL);

std::string real_path(const std::string &path) {
    char resolved[PATH_MAX];
    return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

std::string dirname_of(const std::string &path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

struct FileId {
    dev_t dev;
    ino_t ino;
    bool operator<(const FileId &o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
    bool operator==(const FileId &o) const { return dev == o.dev && ino == o.ino; }
};
std::optional<FileId> file_id(const std::string &path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileId{st.st_dev, st.st_ino};
}

struct SearchDir {
    std::string dir;
    std::string source;  // "LD_LIBRARY_PATH", "RUNPATH", "ldconfig cache", "system default"
};

std::vector<std::string> split_path(const std::string &list) {
    std::vector<std::string> dirs;
    size_t begin = 0;
    while (begin <= list.size()) {
        size_t end = list.find_first_of(":;", begin);
        if (end == std::string::npos) end = list.size();
        std::string dir = list.substr(begin, end - begin);
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        if (!dir.empty()) dirs.push_back(dir);
        begin = end + 1;
    }
    return dirs;
}

// This program's DT_RPATH and DT_RUNPATH, $ORIGIN expanded. Read from its own
// dynamic section: glibc's RTLD_DI_SERINFO decodes RUNPATH only once a first
// lookup needed it.
void own_rpaths(std::string *rpath, std::string *runpath) {
    struct Out {
        std::string *rpath, *runpath;
    } out{rpath, runpath};
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *data) {
            auto *o = static_cast<Out *>(data);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
                const auto *dyn = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
                ElfW(Addr) strtab = 0;
                for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; ++d)
                    if (d->d_tag == DT_STRTAB) strtab = d->d_un.d_ptr;
                // glibc relocates DT_STRTAB in place on x86-64; other loaders may not.
                if (strtab != 0 && strtab < info->dlpi_addr) strtab += info->dlpi_addr;
                for (const ElfW(Dyn) *d = dyn; strtab != 0 && d->d_tag != DT_NULL; ++d) {
                    if (d->d_tag == DT_RPATH) *o->rpath = reinterpret_cast<const char *>(strtab + d->d_un.d_val);
                    if (d->d_tag == DT_RUNPATH) *o->runpath = reinterpret_cast<const char *>(strtab + d->d_un.d_val);
                }
            }
            return 1;  // the first object is the program itself
        },
        &out);
    const std::string origin = dirname_of(self_executable());
    for (std::string *p : {rpath, runpath})
        for (size_t at; (at = p->find("$ORIGIN")) != std::string::npos;) p->replace(at, 7, origin);
}

// The directories the loader searches for a library this program dlopen()s,
// in its order: DT_RPATH (when there is no DT_RUNPATH), LD_LIBRARY_PATH,
// DT_RUNPATH, the ldconfig cache, the system defaults.
std::vector<SearchDir> loader_search_dirs() {
    std::vector<SearchDir> dirs;
    auto add = [&](const std::string &list, const char *source) {
        for (const std::string &dir : split_path(list)) dirs.push_back({real_path(dir), source});
    };
    std::string rpath, runpath;
    own_rpaths(&rpath, &runpath);
    if (runpath.empty()) add(rpath, "RPATH of anydnn-doctor");
    const char *ld_path = std::getenv("LD_LIBRARY_PATH");
    add(ld_path != nullptr ? ld_path : "", "LD_LIBRARY_PATH");
    add(runpath, "RUNPATH of anydnn-doctor");
    // ldconfig -p lists "\tlibanydnn.so.1 (libc6,x86-64) => /usr/lib/libanydnn.so.1".
    for (const char *ldconfig : {"/sbin/ldconfig", "/usr/sbin/ldconfig"}) {
        if (access(ldconfig, X_OK) != 0) continue;
        const std::string command = std::string(ldconfig) + " -p 2>/dev/null";
        if (std::FILE *pipe = popen(command.c_str(), "r")) {
            char line[4096];
            while (std::fgets(line, sizeof line, pipe) != nullptr) {
                const char *arrow = std::strstr(line, "=> ");
                if (std::strstr(line, "libanydnn.so") == nullptr || arrow == nullptr) continue;
                std::string path = arrow + 3;
                while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
                dirs.push_back({dirname_of(path), "ldconfig cache"});
            }
            pclose(pipe);
        }
        break;
    }
    // The defaults, as glibc reports its search list (minus what is above).
    void *self = dlopen(nullptr, RTLD_NOW);
    Dl_serinfo probe;
    if (self != nullptr && dlinfo(self, RTLD_DI_SERINFOSIZE, &probe) == 0) {
        std::vector<unsigned char> storage(probe.dls_size);
        auto *info = reinterpret_cast<Dl_serinfo *>(storage.data());
        info->dls_size = probe.dls_size;
        info->dls_cnt = probe.dls_cnt;
        if (dlinfo(self, RTLD_DI_SERINFOSIZE, info) == 0 && dlinfo(self, RTLD_DI_SERINFO, info) == 0) {
            for (unsigned i = 0; i < info->dls_cnt; ++i) {
                std::string dir = info->dls_serpath[i].dls_name;
                while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
                if (dir == ".") continue;  // an empty RUNPATH element (CMake's build tree), not a default
                bool listed = false;
                for (const SearchDir &d : dirs) listed = listed || d.dir == dir;
                if (!listed) dirs.push_back({dir, "system default"});
            }
        }
    }
    if (self != nullptr) dlclose(self);
    return dirs;
}

struct Copy {
    std::string path;     // as found in its directory
    std::string real;     // the file it resolves to
    std::string version;  // from the stamp, or "unknown"
    std::string source;   // the search-path entry it was found through
    size_t order;         // position of that entry in the search order
    FileId id;
};

// Every file named libanydnn.so* in the search directories, first occurrence
// of each (dir, name) kept.
std::vector<Copy> find_copies(const std::vector<SearchDir> &dirs) {
    std::vector<Copy> copies;
    std::map<std::string, bool> seen;
    for (size_t i = 0; i < dirs.size(); ++i) {
        DIR *d = opendir(dirs[i].dir.c_str());
        if (d == nullptr) continue;
        while (const dirent *e = readdir(d)) {
            if (std::strncmp(e->d_name, "libanydnn.so", 12) != 0) continue;
            const std::string path = dirs[i].dir + "/" + e->d_name;
            if (seen[path]) continue;
            seen[path] = true;
            const auto id = file_id(path);
            if (!id) continue;  // a dangling link
            const std::string real = real_path(path);
            copies.push_back({path, real, version_stamp(real).value_or("unknown"), dirs[i].source, i, *id});
        }
        closedir(d);
    }
    return copies;
}

int major_of(const std::string &version) { return std::atoi(version.c_str()); }

}  // namespace

std::string self_executable() { return real_path("/proc/self/exe"); }

std::string install_prefix() {
    const std::string bin_dir = dirname_of(self_executable());
    const std::string suffix = "/" ANYDNN_DOCTOR_BINDIR;
    if (bin_dir.size() > suffix.size() && bin_dir.compare(bin_dir.size() - suffix.size(), suffix.size(), suffix) == 0)
        return bin_dir.substr(0, bin_dir.size() - suffix.size());
    return "";
}

std::optional<std::string> version_stamp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Built from two parts so that this program's own bytes hold no stamp.
    const std::string marker = std::string("anydnn-library-") + "version: ";
    const size_t at = bytes.find(marker);
    if (at == std::string::npos) return std::nullopt;
    const size_t begin = at + marker.size(), end = bytes.find('\n', begin);
    if (end == std::string::npos || end - begin > 32) return std::nullopt;
    return bytes.substr(begin, end - begin);
}

LoadedLibrary load_library(const std::string &explicit_path) {
    LoadedLibrary lib;
    lib.soname = explicit_path.empty() ? kSoname : explicit_path;
    // The file the loader will map, checked first: mapping a truncated
    // library can kill this process with SIGBUS before dlopen returns.
    std::string next = explicit_path;
    for (const SearchDir &d : explicit_path.empty() ? loader_search_dirs() : std::vector<SearchDir>{}) {
        if (access((d.dir + "/" + kSoname).c_str(), F_OK) == 0) {
            next = d.dir + "/" + kSoname;
            break;
        }
    }
    if (!next.empty()) {
        if (const std::string cut = elf_truncation(real_path(next)); !cut.empty()) {
            lib.error = real_path(next) + ": " + cut;
            return lib;
        }
    }
    // The file found in the loader's order is opened by its path: dlopen by
    // name searches the RUNPATH of its caller, which is not this program when
    // a sanitizer runtime intercepts dlopen.
    dlerror();
    lib.handle = dlopen(next.empty() ? lib.soname.c_str() : next.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle == nullptr) {
        const char *error = dlerror();
        lib.error = error != nullptr ? error : "unknown dlopen error";
        return lib;
    }
    link_map *map = nullptr;
    if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr)
        lib.path = real_path(map->l_name);
    return lib;
}

void check_search_path(const LoadedLibrary &lib, const std::string &loaded_version, Report &report) {
    const std::string section = "search path";
    const std::vector<SearchDir> dirs = loader_search_dirs();
    std::string listing;
    for (const SearchDir &d : dirs) {
        if (!listing.empty() && listing.back() != ' ') listing += ", ";
        listing += d.dir + " (" + d.source + ")";
    }
    report.info(section, "searched, in order", listing.empty() ? "(none reported)" : listing);
    const char *ld_path = std::getenv("LD_LIBRARY_PATH");
    report.info(section, "LD_LIBRARY_PATH", ld_path != nullptr && ld_path[0] != '\0' ? ld_path : "(unset)");

    const std::vector<Copy> copies = find_copies(dirs);
    const auto loaded_id = lib.handle != nullptr ? file_id(lib.path) : std::nullopt;
    // The doctor of an installed tree should load that tree's library.
    const std::string prefix = install_prefix();
    const std::string own = prefix.empty() ? "" : prefix + "/" ANYDNN_DOCTOR_LIBDIR "/" + kSoname;
    const auto own_id = own.empty() ? std::nullopt : file_id(own);
    std::map<FileId, bool> reported;
    // One line per file, with the names (links) it is found under.
    for (const Copy &c : copies) {
        if (reported[c.id]) continue;
        reported[c.id] = true;
        std::string names;
        for (const Copy &other : copies)
            if (other.id == c.id && other.path != c.real)
                names += (names.empty() ? "" : ", ") + other.path.substr(other.path.rfind('/') + 1);
        std::string what = "version " + c.version + ", via " + c.source;
        if (!names.empty()) what += ", as " + names;
        if (loaded_id && c.id == *loaded_id) what += " [loaded]";
        report.info(section, c.real, what);
    }
    reported.clear();
    // Every other file of this major version (or the unversioned link that the
    // linker reads): a program whose search order reaches it first gets it.
    // Another major version under its own soname is no conflict.
    for (const Copy &c : copies) {
        const std::string name = c.path.substr(c.path.rfind('/') + 1);
        const bool own_major = name == kSoname || name.rfind(kSoname + ".", 0) == 0 ||
                               (name == "libanydnn.so" && major_of(c.version) == ANYDNN_MAJOR);
        // Nothing loaded: the load failure is the problem. This tree's own
        // library shadowed: the check below says so.
        if (!loaded_id || c.id == *loaded_id || (own_id && c.id == *own_id) || reported[c.id] || !own_major)
            continue;
        reported[c.id] = true;
        const std::string dir = dirname_of(c.path);
        const std::string value = "another anydnn (version " + c.version + ") found via " + c.source +
                                  "; the loaded " + lib.path + " (version " + loaded_version +
                                  ") shadows it here, but a program whose RPATH or LD_LIBRARY_PATH lists " + dir +
                                  " first loads this one instead";
        const std::string fix = "delete it (rm " + c.path + (c.real != c.path ? " " + c.real : "") +
                                ") or take " + dir + " off " + c.source;
        if (c.version == loaded_version)
            report.warning(section, c.path, value + " (same version: harmless until one of them changes)", fix);
        else
            report.problem(section, c.path, value, fix);
    }

    if (!own_id || !loaded_id) return;  // not installed, or nothing loaded: said elsewhere
    if (loaded_id && *own_id == *loaded_id) {
        report.pass(section, "loaded library", "is this installation's own " + own);
        return;
    }
    std::string reason = "its directory comes first on the search path";
    for (const Copy &c : copies)
        if (loaded_id && c.id == *loaded_id) {
            reason = dirname_of(c.path) + " (" + c.source + ") comes before " + prefix + "/" ANYDNN_DOCTOR_LIBDIR;
            break;
        }
    report.problem(section, "loaded library",
                   lib.path + " (version " + loaded_version + ") shadows this installation's own " + own +
                       " (version " + version_stamp(own).value_or("unknown") + "): " + reason,
                   "remove " + dirname_of(lib.path) + " from LD_LIBRARY_PATH (or delete " + lib.path +
                       "), then run anydnn-doctor again");
}

}  // namespace doctor
