#include "core/platform.hpp"

#include <cstdlib>
#include <functional>
#include <thread>

#if defined(_WIN32)
#include <malloc.h>
#include <process.h>
#else
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <string>
#endif

namespace anydnn {

unsigned long long process_id() {
#if defined(_WIN32)
    return static_cast<unsigned long long>(_getpid());
#else
    return static_cast<unsigned long long>(getpid());
#endif
}

unsigned long long thread_id() {
    return static_cast<unsigned long long>(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

void *aligned_alloc64(std::size_t size) {
#if defined(_WIN32)
    return _aligned_malloc(size, 64);
#else
    void *p = nullptr;
    return posix_memalign(&p, 64, size) == 0 ? p : nullptr;
#endif
}

void aligned_free(void *p) {
#if defined(_WIN32)
    _aligned_free(p);
#else
    std::free(p);
#endif
}

const char *library_path() {
#if defined(_WIN32)
    return "";
#else
    static const std::string path = [] {
        Dl_info info{};
        if (dladdr(reinterpret_cast<const void *>(&library_path), &info) == 0 || info.dli_fname == nullptr)
            return std::string();
        char resolved[PATH_MAX];
        return std::string(realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname);
    }();
    return path.c_str();
#endif
}

}  // namespace anydnn
